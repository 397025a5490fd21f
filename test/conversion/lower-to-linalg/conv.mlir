// RUN: tinyml-opt --tinyml-lower-to-linalg %s | FileCheck %s

// Bias becomes the init of the convolution; no padding, no tensor.pad.
// CHECK-LABEL: func.func @conv_bias
// CHECK-NOT:     tensor.pad
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<1x6x6x4xf32>
// CHECK:         %[[B:.*]] = linalg.broadcast ins(%arg2 : tensor<4xf32>) outs(%[[E]] : tensor<1x6x6x4xf32>) dimensions = [0, 1, 2]
// CHECK:         %[[C:.*]] = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%arg0, %arg1 : tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) outs(%[[B]] : tensor<1x6x6x4xf32>)
// CHECK:         return %[[C]]
func.func @conv_bias(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>, %b: tensor<4xf32>) -> tensor<1x6x6x4xf32> {
  %y = tinyml.conv2d %x, %w, %b : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>, tensor<4xf32>) -> tensor<1x6x6x4xf32>
  return %y : tensor<1x6x6x4xf32>
}

// Padding [top, left, bottom, right] pads H and W with zeros; strides and
// dilations become the conv's attributes; no bias is a zero fill.
// CHECK-LABEL: func.func @conv_pad_stride_dilation
// CHECK:         %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[P:.*]] = tensor.pad %arg0 low[0, 1, 2, 0] high[0, 3, 4, 0]
// CHECK:           tensor.yield %[[Z]] : f32
// CHECK:         } : tensor<1x8x8x3xf32> to tensor<1x12x14x3xf32>
// CHECK:         %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x4x4x4xf32>)
// CHECK:         linalg.conv_2d_nhwc_hwcf {dilations = dense<[2, 1]> : tensor<2xi64>, strides = dense<[2, 3]> : tensor<2xi64>} ins(%[[P]], %arg1 : tensor<1x12x14x3xf32>, tensor<3x3x3x4xf32>) outs(%[[F]] : tensor<1x4x4x4xf32>)
func.func @conv_pad_stride_dilation(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x4x4x4xf32> {
  %y = tinyml.conv2d %x, %w {strides = array<i64: 2, 3>, dilations = array<i64: 2, 1>, padding = array<i64: 1, 2, 3, 4>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x4x4x4xf32>
  return %y : tensor<1x4x4x4xf32>
}

// Multiplier 1: the HWCM filter collapses to HWC for depthwise_conv_2d_nhwc_hwc.
// CHECK-LABEL: func.func @depthwise_m1
// CHECK:         tensor.pad %arg0 low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK:         %[[W:.*]] = tensor.collapse_shape %arg1 {{\[}}[0], [1], [2, 3]] : tensor<3x3x8x1xf32> into tensor<3x3x8xf32>
// CHECK:         %[[B:.*]] = linalg.broadcast ins(%arg2 : tensor<8xf32>) outs(%{{.*}} : tensor<1x5x5x8xf32>) dimensions = [0, 1, 2]
// CHECK:         linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%{{.*}}, %[[W]] : tensor<1x7x7x8xf32>, tensor<3x3x8xf32>) outs(%[[B]] : tensor<1x5x5x8xf32>)
func.func @depthwise_m1(%x: tensor<1x5x5x8xf32>, %w: tensor<3x3x8x1xf32>, %b: tensor<8xf32>) -> tensor<1x5x5x8xf32> {
  %y = tinyml.depthwise_conv2d %x, %w, %b {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x5x5x8xf32>, tensor<3x3x8x1xf32>, tensor<8xf32>) -> tensor<1x5x5x8xf32>
  return %y : tensor<1x5x5x8xf32>
}

// Multiplier 2: depthwise_conv_2d_nhwc_hwcm into [N, OH, OW, C, M], the bias
// expanded to [C, M], the result collapsed so that channel = c * M + m.
// CHECK-LABEL: func.func @depthwise_m2
// CHECK:         %[[BE:.*]] = tensor.expand_shape %arg2 {{\[}}[0, 1]] output_shape [4, 2] : tensor<8xf32> into tensor<4x2xf32>
// CHECK:         %[[B:.*]] = linalg.broadcast ins(%[[BE]] : tensor<4x2xf32>) outs(%{{.*}} : tensor<1x2x2x4x2xf32>) dimensions = [0, 1, 2]
// CHECK:         %[[D:.*]] = linalg.depthwise_conv_2d_nhwc_hwcm {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%arg0, %arg1 : tensor<1x5x5x4xf32>, tensor<3x3x4x2xf32>) outs(%[[B]] : tensor<1x2x2x4x2xf32>)
// CHECK:         %[[R:.*]] = tensor.collapse_shape %[[D]] {{\[}}[0], [1], [2], [3, 4]] : tensor<1x2x2x4x2xf32> into tensor<1x2x2x8xf32>
// CHECK:         return %[[R]]
func.func @depthwise_m2(%x: tensor<1x5x5x4xf32>, %w: tensor<3x3x4x2xf32>, %b: tensor<8xf32>) -> tensor<1x2x2x8xf32> {
  %y = tinyml.depthwise_conv2d %x, %w, %b {strides = array<i64: 2, 2>} : (tensor<1x5x5x4xf32>, tensor<3x3x4x2xf32>, tensor<8xf32>) -> tensor<1x2x2x8xf32>
  return %y : tensor<1x2x2x8xf32>
}

// No bias: a zero-filled init.
// CHECK-LABEL: func.func @depthwise_no_bias
// CHECK:         %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x3x3x2xf32>)
// CHECK:         linalg.depthwise_conv_2d_nhwc_hwc {{.*}} outs(%[[F]] : tensor<1x3x3x2xf32>)
func.func @depthwise_no_bias(%x: tensor<1x5x5x2xf32>, %w: tensor<3x3x2x1xf32>) -> tensor<1x3x3x2xf32> {
  %y = tinyml.depthwise_conv2d %x, %w : (tensor<1x5x5x2xf32>, tensor<3x3x2x1xf32>) -> tensor<1x3x3x2xf32>
  return %y : tensor<1x3x3x2xf32>
}
