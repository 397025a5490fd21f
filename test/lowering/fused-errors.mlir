// A group whose body holds an op the lowering cannot evaluate per element
// is reported at the group.
// RUN: not tinyml-opt --tinyml-lower-to-linalg %s 2>&1 | FileCheck %s
// CHECK: error: tinyml-lower-to-linalg: 'tinyml.transpose' cannot be evaluated inside a fused group
func.func @bad_group(%x: tensor<2x4xf32>) -> tensor<4x2xf32> {
  %y = tinyml.fused "elementwise" (%x) : (tensor<2x4xf32>) -> tensor<4x2xf32> {
  ^bb0(%xi: tensor<2x4xf32>):
    %t = tinyml.transpose %xi {permutation = array<i64: 1, 0>} : (tensor<2x4xf32>) -> tensor<4x2xf32>
    tinyml.yield %t : tensor<4x2xf32>
  }
  return %y : tensor<4x2xf32>
}
