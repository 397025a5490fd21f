// RUN: tinyml-opt %s --tinyml-fuse-elementwise | FileCheck %s

// A declaration has no body to fuse: it is printed as it was, and the
// function defined after it is still fused.
// CHECK-LABEL: func.func private @external(tensor<8xf32>) -> tensor<8xf32>
// CHECK-LABEL: func.func @chain
// CHECK:         tinyml.fused elementwise (%arg0)
// CHECK:           tinyml.neg
// CHECK-NEXT:      tinyml.relu
// CHECK-NEXT:      tinyml.yield
func.func private @external(%x: tensor<8xf32>) -> tensor<8xf32>
func.func @chain(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = tinyml.neg %x : tensor<8xf32>
  %1 = tinyml.relu %0 : tensor<8xf32>
  return %1 : tensor<8xf32>
}
