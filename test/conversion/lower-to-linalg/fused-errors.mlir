// A group whose body holds an op the lowering cannot evaluate per element
// is reported at the group.
// RUN: not tinyml-opt --tinyml-lower-to-linalg --split-input-file %s 2>&1 | FileCheck %s
// CHECK: error: tinyml-lower-to-linalg: 'tinyml.transpose' cannot be evaluated inside a fused group
func.func @bad_group(%x: tensor<2x4xf32>) -> tensor<4x2xf32> {
  %y = tinyml.fused elementwise (%x) : (tensor<2x4xf32>) -> tensor<4x2xf32> {
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
  %y = tinyml.fused conv_epilogue (%a, %m) {lowering = #tinyml.lowering<tile = [1, 3], reduction = [1]>} : (tensor<1x8xf32>, tensor<8x4xf32>) -> tensor<1x4xf32> {
  ^bb0(%ai: tensor<1x8xf32>, %mi: tensor<8x4xf32>):
    %p = tinyml.matmul %ai, %mi : (tensor<1x8xf32>, tensor<8x4xf32>) -> tensor<1x4xf32>
    tinyml.yield %p : tensor<1x4xf32>
  }
  return %y : tensor<1x4xf32>
}

// -----

// Only an unpadded conv's pixel tile may leave part of a row (its script
// peels the pixel loop): a padded conv's may not.
// CHECK: error: tinyml-lower-to-linalg: tile [1, 1, 2, 4] does not divide the output 1x2x5x4
func.func @padded_partial_row(%x: tensor<1x2x5x8xf32>, %w: tensor<3x3x8x4xf32>) -> tensor<1x2x5x4xf32> {
  %y = tinyml.fused conv_epilogue (%x, %w) {lowering = #tinyml.lowering<tile = [1, 1, 2, 4], reduction = [1, 3, 8]>} : (tensor<1x2x5x8xf32>, tensor<3x3x8x4xf32>) -> tensor<1x2x5x4xf32> {
  ^bb0(%xi: tensor<1x2x5x8xf32>, %wi: tensor<3x3x8x4xf32>):
    %c = tinyml.conv2d %xi, %wi {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x2x5x8xf32>, tensor<3x3x8x4xf32>) -> tensor<1x2x5x4xf32>
    tinyml.yield %c : tensor<1x2x5x4xf32>
  }
  return %y : tensor<1x2x5x4xf32>
}

// -----

// One reduction step per reduction dimension: a matmul has one, k.
// CHECK: error: tinyml-lower-to-linalg: 2 reduction steps for the 1 reduction dimensions of 'tinyml.matmul'
func.func @steps(%a: tensor<1x8xf32>, %m: tensor<8x4xf32>) -> tensor<1x4xf32> {
  %y = tinyml.fused conv_epilogue (%a, %m) {lowering = #tinyml.lowering<tile = [1, 4], reduction = [1, 4]>} : (tensor<1x8xf32>, tensor<8x4xf32>) -> tensor<1x4xf32> {
  ^bb0(%ai: tensor<1x8xf32>, %mi: tensor<8x4xf32>):
    %p = tinyml.matmul %ai, %mi : (tensor<1x8xf32>, tensor<8x4xf32>) -> tensor<1x4xf32>
    tinyml.yield %p : tensor<1x4xf32>
  }
  return %y : tensor<1x4xf32>
}

// -----

// Only a contraction group is tiled: a configuration on a reduction group
// has no contraction to tile.
// CHECK: error: tinyml-lower-to-linalg: a tile needs a conv2d, depthwise_conv2d or matmul group
func.func @reduction_tile(%x: tensor<4x16xf32>) -> tensor<4xf32> {
  %y = tinyml.fused reduction (%x) {lowering = #tinyml.lowering<tile = [1], reduction = [1]>} : (tensor<4x16xf32>) -> tensor<4xf32> {
  ^bb0(%xi: tensor<4x16xf32>):
    %sq = tinyml.mul %xi, %xi : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
    %s = tinyml.reduce_sum %sq {axes = array<i64: 1>} : (tensor<4x16xf32>) -> tensor<4xf32>
    tinyml.yield %s : tensor<4xf32>
  }
  return %y : tensor<4xf32>
}
