// --verify-diagnostics fails when an expected diagnostic is missing or an
// unexpected one appears, and passes when they agree.
// RUN: tinyml-opt %s --split-input-file --verify-diagnostics
// RUN: sed -e 's/do not broadcast/DO NOT BROADCAST/' %s > %t.mlir
// RUN: not tinyml-opt %t.mlir --split-input-file --verify-diagnostics 2>&1 | FileCheck %s
// CHECK-DAG: error: unexpected error: 'tinyml.add' op operand shapes [2, 3] and [4] do not broadcast
// CHECK-DAG: error: expected error "operand shapes [2, 3] and [4] DO NOT BROADCAST" was not produced

func.func @expected_below(%a: tensor<2x3xf32>, %b: tensor<4xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{operand shapes [2, 3] and [4] do not broadcast}}
  %0 = tinyml.add %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @expected_on_same_line(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tinyml.clamp %a {min = 1.0 : f32, max = 0.0 : f32} : tensor<4xf32> // expected-error {{is greater than max}}
  return %0 : tensor<4xf32>
}
