// RUN: tinyml-opt %s --tinyml-fuse-reduction | FileCheck %s

// A declaration has no body to fuse: it is printed as it was, and the
// function defined after it is still fused.
// CHECK-LABEL: func.func private @external(tensor<4x16xf32>) -> tensor<4xf32>
// CHECK-LABEL: func.func @sum_of_squares
// CHECK:         tinyml.fused reduction (%arg0)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      tinyml.mul
// CHECK-NEXT:      tinyml.reduce_sum
// CHECK-NEXT:      tinyml.yield
func.func private @external(%x: tensor<4x16xf32>) -> tensor<4xf32>
func.func @sum_of_squares(%x: tensor<4x16xf32>) -> tensor<4xf32> {
  %0 = tinyml.mul %x, %x : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %1 = tinyml.reduce_sum %0 {axes = array<i64: 1>} : (tensor<4x16xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
