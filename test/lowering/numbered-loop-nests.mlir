// RUN: tinyml-opt --tinyml-lower-to-linalg --canonicalize --cse %s | FileCheck %s

// Every scf.for of a hand-built tiled group's nest carries the group's number in the
// function (tinyml.nest), also once canonicalization has unwrapped the
// one-iteration batch loop: two same-shape groups read their inputs inside
// the loops, so their nests would otherwise have the same operands (bounds,
// CSE-merged tensor.empty) and CSE would compare them body against body.
// CHECK-LABEL: func.func @two_same_shape_groups
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<1x6x6x4xf32>
// CHECK:         %[[A:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[E]])
// CHECK:           scf.for
// CHECK:         } {tinyml.nest = 0 : i64}
// CHECK:         } {tinyml.nest = 0 : i64}
// CHECK:         %[[B:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[E]])
// CHECK:         } {tinyml.nest = 1 : i64}
// CHECK:         } {tinyml.nest = 1 : i64}
// CHECK:         return %[[B]]
func.func @two_same_shape_groups(%x: tensor<1x6x6x4xf32>, %w: tensor<3x3x4x1xf32>) -> tensor<1x6x6x4xf32> {
  %a = tinyml.fused "conv_epilogue" (%x, %w) {lowering = #tinyml.lowering<tile = [1, 1, 2, 4], reduction = [1, 1]>} : (tensor<1x6x6x4xf32>, tensor<3x3x4x1xf32>) -> tensor<1x6x6x4xf32> {
  ^bb0(%xi: tensor<1x6x6x4xf32>, %wi: tensor<3x3x4x1xf32>):
    %c = tinyml.depthwise_conv2d %xi, %wi {padding = array<i64: 1, 1, 1, 1>}
        : (tensor<1x6x6x4xf32>, tensor<3x3x4x1xf32>) -> tensor<1x6x6x4xf32>
    tinyml.yield %c : tensor<1x6x6x4xf32>
  }
  %b = tinyml.fused "conv_epilogue" (%a, %w) {lowering = #tinyml.lowering<tile = [1, 1, 2, 4], reduction = [1, 1]>} : (tensor<1x6x6x4xf32>, tensor<3x3x4x1xf32>) -> tensor<1x6x6x4xf32> {
  ^bb0(%xi: tensor<1x6x6x4xf32>, %wi: tensor<3x3x4x1xf32>):
    %c = tinyml.depthwise_conv2d %xi, %wi {padding = array<i64: 1, 1, 1, 1>}
        : (tensor<1x6x6x4xf32>, tensor<3x3x4x1xf32>) -> tensor<1x6x6x4xf32>
    tinyml.yield %c : tensor<1x6x6x4xf32>
  }
  return %b : tensor<1x6x6x4xf32>
}
