// RUN: tinyml-opt %s --tinyml-choose-tiles | FileCheck %s

// A declaration has no body to tile: it is printed as it was, and the
// group in the function defined after it still gets its tile.
// CHECK-LABEL: func.func private @external(tensor<1x1x6x4xf32>) -> tensor<1x1x6x8xf32>
// CHECK-LABEL: func.func @row
// CHECK:         tinyml.fused conv_epilogue (%arg0) {lowering = #tinyml.lowering<tile = [1, 1, 3, 4], reduction = [1, 1, 4]>}
func.func private @external(%x: tensor<1x1x6x4xf32>) -> tensor<1x1x6x8xf32>
func.func @row(%x: tensor<1x1x6x4xf32>) -> tensor<1x1x6x8xf32> {
  %y = tinyml.fused conv_epilogue (%x) : (tensor<1x1x6x4xf32>) -> tensor<1x1x6x8xf32> {
  ^bb0(%xi: tensor<1x1x6x4xf32>):
    %w = arith.constant dense<1.0> : tensor<1x1x4x8xf32>
    %c = tinyml.conv2d %xi, %w : (tensor<1x1x6x4xf32>, tensor<1x1x4x8xf32>) -> tensor<1x1x6x8xf32>
    tinyml.yield %c : tensor<1x1x6x8xf32>
  }
  return %y : tensor<1x1x6x8xf32>
}
