// A group whose body holds an op the lowering cannot evaluate per element
// is reported at the group.
// RUN: not tinyml-opt --tinyml-lower-to-linalg --split-input-file %s 2>&1 | FileCheck %s
// CHECK: error: tinyml-lower-to-linalg: 'tinyml.transpose' cannot be evaluated inside a fused group
func.func @bad_group(%x: tensor<2x4xf32>) -> tensor<4x2xf32> {
  %y = tinyml.fused "elementwise" (%x) : (tensor<2x4xf32>) -> tensor<4x2xf32> {
  ^bb0(%xi: tensor<2x4xf32>):
    %t = tinyml.transpose %xi {permutation = array<i64: 1, 0>} : (tensor<2x4xf32>) -> tensor<4x2xf32>
    tinyml.yield %t : tensor<4x2xf32>
  }
  return %y : tensor<4x2xf32>
}

// -----

// A tile that does not divide the output (the transform script leaves no
// partial tiles).
// CHECK: error: tinyml-lower-to-linalg: tile [1, 3] does not divide the output 1x4
func.func @bad_tile(%a: tensor<1x8xf32>, %m: tensor<8x4xf32>) -> tensor<1x4xf32> {
  %y = tinyml.fused "conv_epilogue" (%a, %m) {lowering = #tinyml.lowering<tile = [1, 3], reduction = [1]>} : (tensor<1x8xf32>, tensor<8x4xf32>) -> tensor<1x4xf32> {
  ^bb0(%ai: tensor<1x8xf32>, %mi: tensor<8x4xf32>):
    %p = tinyml.matmul %ai, %mi : (tensor<1x8xf32>, tensor<8x4xf32>) -> tensor<1x4xf32>
    tinyml.yield %p : tensor<1x4xf32>
  }
  return %y : tensor<1x4xf32>
}

// -----

// One reduction step per reduction dimension: a matmul has one, k.
// CHECK: error: tinyml-lower-to-linalg: 2 reduction steps for the 1 reduction dimensions of 'tinyml.matmul'
func.func @steps(%a: tensor<1x8xf32>, %m: tensor<8x4xf32>) -> tensor<1x4xf32> {
  %y = tinyml.fused "conv_epilogue" (%a, %m) {lowering = #tinyml.lowering<tile = [1, 4], reduction = [1, 4]>} : (tensor<1x8xf32>, tensor<8x4xf32>) -> tensor<1x4xf32> {
  ^bb0(%ai: tensor<1x8xf32>, %mi: tensor<8x4xf32>):
    %p = tinyml.matmul %ai, %mi : (tensor<1x8xf32>, tensor<8x4xf32>) -> tensor<1x4xf32>
    tinyml.yield %p : tensor<1x4xf32>
  }
  return %y : tensor<1x4xf32>
}

// -----

// A channel multiplier maps output channels to inputs unevenly (the
// hand-built generator's depthwise tiles).
// CHECK: error: tinyml-lower-to-linalg: a depthwise conv with a channel multiplier takes tiles of one channel
func.func @multiplier_tile(%x: tensor<1x4x4x2xf32>, %w: tensor<3x3x2x2xf32>) -> tensor<1x4x4x4xf32> {
  %y = tinyml.fused "conv_epilogue" (%x, %w) {lowering = #tinyml.lowering<tile = [1, 1, 1, 2], reduction = [1, 1]>} : (tensor<1x4x4x2xf32>, tensor<3x3x2x2xf32>) -> tensor<1x4x4x4xf32> {
  ^bb0(%xi: tensor<1x4x4x2xf32>, %wi: tensor<3x3x2x2xf32>):
    %c = tinyml.depthwise_conv2d %xi, %wi {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x4x2xf32>, tensor<3x3x2x2xf32>) -> tensor<1x4x4x4xf32>
    tinyml.yield %c : tensor<1x4x4x4xf32>
  }
  return %y : tensor<1x4x4x4xf32>
}
