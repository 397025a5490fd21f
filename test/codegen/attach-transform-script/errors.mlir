// RUN: not tinyml-opt %s --split-input-file --tinyml-attach-transform-script 2>&1 | FileCheck %s

// Configurations no script can follow, reported at the generic.

// CHECK: error: tinyml-attach-transform-script: 'lowering' on a generic whose first input is a block argument
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @block_argument(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %e = tensor.empty() : tensor<1x4xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<1x4xf32>) outs(%e : tensor<1x4xf32>)
      attrs = {lowering = #tinyml.lowering<tile = [1, 4], reduction = [4]>} {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<1x4xf32>
  return %y : tensor<1x4xf32>
}

// -----

// CHECK: error: tinyml-attach-transform-script: 'lowering' on a generic reading 'linalg.fill', which no script tiles
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @not_a_contraction() -> tensor<1x4xf32> {
  %c = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<1x4xf32>
  %f = linalg.fill ins(%c : f32) outs(%e : tensor<1x4xf32>) -> tensor<1x4xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%f : tensor<1x4xf32>) outs(%e : tensor<1x4xf32>)
      attrs = {lowering = #tinyml.lowering<tile = [1, 4], reduction = [4]>} {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<1x4xf32>
  return %y : tensor<1x4xf32>
}

// -----

// CHECK: error: tinyml-attach-transform-script: 2 reduction steps for the 1 reduction loops of 'linalg.matmul'
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @steps(%a: tensor<1x8xf32>, %b: tensor<8x4xf32>) -> tensor<1x4xf32> {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4xf32>
  %f = linalg.fill ins(%c : f32) outs(%e : tensor<1x4xf32>) -> tensor<1x4xf32>
  %m = linalg.matmul ins(%a, %b : tensor<1x8xf32>, tensor<8x4xf32>) outs(%f : tensor<1x4xf32>) -> tensor<1x4xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<1x4xf32>) outs(%e : tensor<1x4xf32>)
      attrs = {lowering = #tinyml.lowering<tile = [1, 4], reduction = [4, 4]>} {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<1x4xf32>
  return %y : tensor<1x4xf32>
}

// -----

// A pixel tile that leaves part of a row (2 of 3 pixels) needs its loop
// peeled, and the script finds the tile's ops again by their names: not
// possible when the accumulator's initial value is a block argument.
// CHECK: error: tinyml-attach-transform-script: a pixel tile of 2 leaves part of a row, which only an unpadded conv whose accumulator a named op initialises may
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @partial_row_of_an_argument(%x: tensor<1x1x3x4xf32>, %w: tensor<1x1x4x2xf32>,
                                      %acc: tensor<1x1x3x2xf32>) -> tensor<1x1x3x2xf32> {
  %c = linalg.conv_2d_nhwc_hwcf ins(%x, %w : tensor<1x1x3x4xf32>, tensor<1x1x4x2xf32>)
      outs(%acc : tensor<1x1x3x2xf32>) -> tensor<1x1x3x2xf32>
  %e = tensor.empty() : tensor<1x1x3x2xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c : tensor<1x1x3x2xf32>) outs(%e : tensor<1x1x3x2xf32>)
      attrs = {lowering = #tinyml.lowering<tile = [1, 1, 2, 2], reduction = [1, 1, 4]>} {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<1x1x3x2xf32>
  return %y : tensor<1x1x3x2xf32>
}
