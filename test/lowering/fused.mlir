// RUN: tinyml-opt --tinyml-lower-to-linalg %s | FileCheck %s

// Without a fusion lowering, a tinyml.fused group is inlined and its ops
// lowered one by one.
// CHECK-LABEL: func.func @fused
// CHECK-NOT:     tinyml.
// CHECK:         %[[A:.*]] = linalg.generic
// CHECK:           arith.addf
// CHECK:         %[[R:.*]] = linalg.generic {{.*}} ins(%[[A]] : tensor<4xf32>)
// CHECK:           arith.cmpf ugt
// CHECK:         return %[[R]]
func.func @fused(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %y = tinyml.fused "elementwise" (%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>, %z: tensor<4xf32>):
    %s = tinyml.add %x, %z : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %r = tinyml.relu %s : tensor<4xf32>
    tinyml.yield %r : tensor<4xf32>
  }
  return %y : tensor<4xf32>
}
