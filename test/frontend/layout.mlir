// The same DS-CNN-like network exported two ways gives the same core IR
// after the recommended clean-up:
//   tf2onnx: NHWC input (symbolic batch), Transpose to NCHW, NCHW convs,
//            Transpose back, Reshape with a shape initializer, MatMul + Add.
//   NCHW (tflite2onnx / torch): NCHW input, Flatten, Gemm, opset 11.

// RUN: %build_zoo %t dscnn_tf2onnx dscnn_nchw resnet_block concat_channels
// RUN: tinyml-opt %t/dscnn_tf2onnx.onnx | FileCheck %s --check-prefix=RAW
// RUN: tinyml-opt %t/dscnn_tf2onnx.onnx --pass-pipeline='builtin.module(canonicalize,tinyml-cancel-transposes,canonicalize)' | FileCheck %s --check-prefixes=CORE,TF
// RUN: tinyml-opt %t/dscnn_nchw.onnx --pass-pipeline='builtin.module(canonicalize,tinyml-cancel-transposes,canonicalize)' | FileCheck %s --check-prefixes=CORE,NCHW

// As imported, each conv is wrapped in its transposes.
// RAW-LABEL: func.func @tf2onnx(%arg0: tensor<1x10x10x1xf32> {tinyml.name = "input_1"}) -> (tensor<1x4xf32> {tinyml.name = "probs"})
// RAW-NEXT:    tinyml.transpose %arg0 {permutation = array<i64: 0, 3, 1, 2>}
// RAW-NEXT:    tinyml.transpose %{{.*}} {permutation = array<i64: 0, 2, 3, 1>}
// RAW:         tinyml.conv2d
// RAW-NEXT:    tinyml.transpose %{{.*}} {permutation = array<i64: 0, 3, 1, 2>}

// TF-LABEL:   func.func @tf2onnx(%arg0: tensor<1x10x10x1xf32>
// TF-NOT:       tinyml.transpose
// TF:           %[[IN:.*]] = tinyml.conv2d %arg0,
// NCHW-LABEL: func.func @nchw_model(%arg0: tensor<1x1x10x10xf32>
// NCHW-NOT:     tinyml.transpose
// NCHW:         %[[X:.*]] = tinyml.reshape %arg0 : (tensor<1x1x10x10xf32>) -> tensor<1x10x10x1xf32>
// NCHW:         %[[IN:.*]] = tinyml.conv2d %[[X]],
// CORE-SAME:      {padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x10x10x1xf32>, tensor<3x3x1x8xf32>, tensor<8xf32>) -> tensor<1x5x5x8xf32>
// CORE-NEXT:    %[[R1:.*]] = tinyml.relu %[[IN]] : tensor<1x5x5x8xf32>
// CORE-NEXT:    %[[DW:.*]] = tinyml.depthwise_conv2d %[[R1]], {{.*}} -> tensor<1x5x5x8xf32>
// CORE-NEXT:    %[[R2:.*]] = tinyml.clamp %[[DW]] {max = 6.000000e+00 : f32, min = 0.000000e+00 : f32} : tensor<1x5x5x8xf32>
// CORE-NEXT:    %[[A:.*]] = tinyml.add %[[R2]], %{{.*}} : (tensor<1x5x5x8xf32>, tensor<1x1x1x8xf32>) -> tensor<1x5x5x8xf32>
// CORE-NEXT:    %[[PW:.*]] = tinyml.conv2d %[[A]], {{.*}} -> tensor<1x5x5x8xf32>
// CORE-NEXT:    %[[R3:.*]] = tinyml.relu %[[PW]]
// CORE-NEXT:    %[[P:.*]] = tinyml.avg_pool2d %[[R3]] {kernel = array<i64: 5, 5>} : (tensor<1x5x5x8xf32>) -> tensor<1x1x1x8xf32>
// CORE-NEXT:    %[[F:.*]] = tinyml.reshape %[[P]] : (tensor<1x1x1x8xf32>) -> tensor<1x8xf32>
// CORE-NEXT:    %[[M:.*]] = tinyml.matmul %[[F]], %{{.*}}, %{{.*}} : (tensor<1x8xf32>, tensor<8x4xf32>, tensor<4xf32>) -> tensor<1x4xf32>
// CORE-NEXT:    %[[S:.*]] = tinyml.softmax %[[M]] {axis = 1 : i64} : tensor<1x4xf32>
// CORE-NEXT:    return %[[S]]

// A residual block (NCHW, symbolic batch 'N'): the input transpose is the
// only one left; the skip add runs on NHWC.
// RUN: tinyml-opt %t/resnet_block.onnx --pass-pipeline='builtin.module(canonicalize,tinyml-cancel-transposes,canonicalize)' | FileCheck %s --check-prefix=RESNET
// RESNET-LABEL: func.func @resnet_block(%arg0: tensor<1x2x6x6xf32>
// RESNET:         %[[X:[0-9]+]] = tinyml.transpose %arg0 {permutation = array<i64: 0, 2, 3, 1>}
// RESNET-NEXT:    %[[H0:[0-9]+]] = tinyml.conv2d %[[X]]
// RESNET-NOT:     tinyml.transpose
// RESNET:         tinyml.add %{{[0-9]+}}, %[[H0]] : (tensor<1x6x6x4xf32>, tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
// RESNET-NOT:     tinyml.transpose
// RESNET:         return

// Two conv branches concatenated on the NCHW channel axis: the concat runs
// on NHWC axis 3 and only the output transpose back to NCHW remains.
// RUN: tinyml-opt %t/concat_channels.onnx --pass-pipeline='builtin.module(canonicalize,tinyml-cancel-transposes,canonicalize)' | FileCheck %s --check-prefix=CONCAT
// CONCAT-LABEL: func.func @concat_channels
// CONCAT:         %[[X:.*]] = tinyml.transpose %arg0 {permutation = array<i64: 0, 2, 3, 1>}
// CONCAT-NOT:     tinyml.transpose
// CONCAT:         tinyml.concat %{{.*}}, %{{.*}} {axis = 3 : i64} : (tensor<1x5x5x2xf32>, tensor<1x5x5x3xf32>) -> tensor<1x5x5x5xf32>
// CONCAT-NOT:     tinyml.transpose
// CONCAT:         tinyml.transpose %{{.*}} {permutation = array<i64: 0, 3, 1, 2>} : (tensor<1x5x5x4xf32>) -> tensor<1x4x5x5xf32>
// CONCAT-NEXT:    return
