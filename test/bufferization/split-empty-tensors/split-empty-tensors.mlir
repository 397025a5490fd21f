// RUN: tinyml-opt %s --split-input-file --tinyml-split-empty-tensors="group-size=2" | FileCheck %s
// RUN: tinyml-opt %s --split-input-file --tinyml-split-empty-tensors | FileCheck %s --check-prefix=DEFAULT

// Five producers writing into one (CSE-merged) tensor.empty: with groups of
// two, the 3rd and 4th uses get a new one, the 5th another; each new one is
// placed right before the first op of its group.
// CHECK-LABEL: func.func @five_uses
// CHECK:         %[[E0:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT:    linalg.fill ins(%{{.*}} : f32) outs(%[[E0]] : tensor<4xf32>)
// CHECK-NEXT:    linalg.fill ins(%{{.*}} : f32) outs(%[[E0]] : tensor<4xf32>)
// CHECK-NEXT:    %[[E1:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT:    linalg.fill ins(%{{.*}} : f32) outs(%[[E1]] : tensor<4xf32>)
// CHECK-NEXT:    linalg.fill ins(%{{.*}} : f32) outs(%[[E1]] : tensor<4xf32>)
// CHECK-NEXT:    %[[E2:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT:    linalg.fill ins(%{{.*}} : f32) outs(%[[E2]] : tensor<4xf32>)
// DEFAULT-LABEL: func.func @five_uses
// DEFAULT-COUNT-1: tensor.empty
// DEFAULT-NOT:     tensor.empty
func.func @five_uses(%a: f32, %b: f32, %c: f32, %d: f32, %e: f32)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %empty = tensor.empty() : tensor<4xf32>
  %0 = linalg.fill ins(%a : f32) outs(%empty : tensor<4xf32>) -> tensor<4xf32>
  %1 = linalg.fill ins(%b : f32) outs(%empty : tensor<4xf32>) -> tensor<4xf32>
  %2 = linalg.fill ins(%c : f32) outs(%empty : tensor<4xf32>) -> tensor<4xf32>
  %3 = linalg.fill ins(%d : f32) outs(%empty : tensor<4xf32>) -> tensor<4xf32>
  %4 = linalg.fill ins(%e : f32) outs(%empty : tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3, %4 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// A use inside a loop counts at the loop: the new tensor.empty goes before
// the loop, where it dominates the use.
// CHECK-LABEL: func.func @use_in_a_loop
// DEFAULT-LABEL: func.func @use_in_a_loop
// CHECK:         %[[E0:.*]] = tensor.empty() : tensor<4xf32>
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%[[E0]] : tensor<4xf32>)
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%[[E0]] : tensor<4xf32>)
// CHECK-NEXT:    %[[E1:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT:    scf.for
// CHECK:           linalg.fill ins(%{{.*}} : f32) outs(%[[E1]] : tensor<4xf32>)
func.func @use_in_a_loop(%a: f32, %n: index) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %empty = tensor.empty() : tensor<4xf32>
  %0 = linalg.fill ins(%a : f32) outs(%empty : tensor<4xf32>) -> tensor<4xf32>
  %1 = linalg.fill ins(%a : f32) outs(%empty : tensor<4xf32>) -> tensor<4xf32>
  %2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %0) -> (tensor<4xf32>) {
    %f = linalg.fill ins(%a : f32) outs(%empty : tensor<4xf32>) -> tensor<4xf32>
    scf.yield %f : tensor<4xf32>
  }
  return %1, %2, %0 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
