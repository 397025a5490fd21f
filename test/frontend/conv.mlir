// Conv: OIHW weights become HWCF constants, the NCHW input is transposed to
// NHWC and the result back; pads / auto_pad / strides / dilations map to
// the conv2d attributes (padding is [top, left, bottom, right]).

// RUN: %build_zoo %t conv_pads conv_same_upper conv_same_lower conv_valid_dilated conv_depthwise conv_1d
// RUN: tinyml-opt %t/conv_pads.onnx | FileCheck %s --check-prefix=PADS
// PADS-LABEL: func.func @conv_pads(%arg0: tensor<1x3x8x8xf32> {tinyml.name = "x"}) -> (tensor<1x4x5x4xf32> {tinyml.name = "y"}) attributes {llvm.emit_c_interface}
// PADS-NEXT:    %[[X:.*]] = tinyml.transpose %arg0 {permutation = array<i64: 0, 2, 3, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x8x8x3xf32>
// PADS-NEXT:    %[[W:.*]] = arith.constant dense_resource<__elided__> : tensor<3x3x3x4xf32>
// PADS-NEXT:    %[[B:.*]] = arith.constant dense<[{{.*}}]> : tensor<4xf32>
// PADS-NEXT:    %[[Y:.*]] = tinyml.conv2d %[[X]], %[[W]], %[[B]] {padding = array<i64: 1, 0, 2, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>, tensor<4xf32>) -> tensor<1x5x4x4xf32>
// PADS-NEXT:    %[[R:.*]] = tinyml.transpose %[[Y]] {permutation = array<i64: 0, 3, 1, 2>} : (tensor<1x5x4x4xf32>) -> tensor<1x4x5x4xf32>
// PADS-NEXT:    return %[[R]]

// SAME_UPPER, stride 2 over 7x8 with a 4x4 kernel: total padding 3 (H) and
// 2 (W), the odd one at the end.
// RUN: tinyml-opt %t/conv_same_upper.onnx | FileCheck %s --check-prefix=SAME-UPPER
// SAME-UPPER-LABEL: func.func @conv_same_upper
// SAME-UPPER:         tinyml.conv2d %{{.*}}, %{{.*}} {padding = array<i64: 1, 1, 2, 1>, strides = array<i64: 2, 2>} : (tensor<1x7x8x2xf32>, tensor<4x4x2x4xf32>) -> tensor<1x4x4x4xf32>

// SAME_LOWER puts the odd padding at the beginning; no bias operand.
// RUN: tinyml-opt %t/conv_same_lower.onnx | FileCheck %s --check-prefix=SAME-LOWER
// SAME-LOWER-LABEL: func.func @conv_same_lower
// SAME-LOWER:         tinyml.conv2d %{{[0-9]+}}, %{{[a-z_0-9]+}} {padding = array<i64: 1, 1, 0, 0>} : (tensor<1x5x5x2xf32>, tensor<2x2x2x3xf32>) -> tensor<1x5x5x3xf32>

// VALID with dilations and strides; batch 2 is kept.
// RUN: tinyml-opt %t/conv_valid_dilated.onnx | FileCheck %s --check-prefix=VALID
// VALID-LABEL: func.func @conv_valid_dilated(%arg0: tensor<2x3x9x9xf32>
// VALID:         tinyml.conv2d %{{.*}} {dilations = array<i64: 2, 1>, strides = array<i64: 1, 2>} : (tensor<2x9x9x3xf32>, tensor<3x3x3x5xf32>, tensor<5xf32>) -> tensor<2x5x4x5xf32>

// Depthwise (group = C = 4, 8 filters): weights [8, 1, 3, 3] become HWCM
// [3, 3, 4, 2] (output channel c*M + m).
// RUN: tinyml-opt %t/conv_depthwise.onnx | FileCheck %s --check-prefix=DW
// DW-LABEL: func.func @conv_depthwise
// DW:         %[[W:.*]] = arith.constant dense_resource<__elided__> : tensor<3x3x4x2xf32>
// DW:         tinyml.depthwise_conv2d %{{.*}}, %[[W]], %{{.*}} {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x6x6x4xf32>, tensor<3x3x4x2xf32>, tensor<8xf32>) -> tensor<1x6x6x8xf32>

// A 1-D convolution is a 2-D one over a height of 1.
// RUN: tinyml-opt %t/conv_1d.onnx | FileCheck %s --check-prefix=CONV1D
// CONV1D-LABEL: func.func @conv_1d
// CONV1D:         tinyml.reshape %arg0 : (tensor<1x3x16xf32>) -> tensor<1x3x1x16xf32>
// CONV1D:         tinyml.conv2d {{.*}} {padding = array<i64: 0, 1, 0, 1>, strides = array<i64: 1, 2>} : (tensor<1x1x16x3xf32>, tensor<1x3x3x4xf32>, tensor<4xf32>) -> tensor<1x1x8x4xf32>
// CONV1D:         tinyml.reshape {{.*}} : (tensor<1x4x1x8xf32>) -> tensor<1x4x8xf32>
