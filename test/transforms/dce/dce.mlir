// RUN: tinyml-opt %s --split-input-file --tinyml-dce | FileCheck %s

// A chain of unused pure ops goes entirely, last user first.
// CHECK-LABEL: func.func @dead_chain
// CHECK-NEXT:    return %arg0
func.func @dead_chain(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c = arith.constant dense<2.0> : tensor<4xf32>
  %0 = tinyml.mul %a, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = tinyml.relu %0 : tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

// A value with a use stays, and so does its producer chain.
// CHECK-LABEL: func.func @live_chain
// CHECK:         tinyml.mul
// CHECK:         tinyml.relu
// CHECK-NOT:     tinyml.exp
func.func @live_chain(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c = arith.constant dense<2.0> : tensor<4xf32>
  %0 = tinyml.mul %a, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = tinyml.relu %0 : tensor<4xf32>
  %2 = tinyml.exp %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// Ops of other dialects may have side effects: an unused call stays.
// CHECK-LABEL: func.func @keeps_calls
// CHECK:         call @keeps_calls
func.func @keeps_calls(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @keeps_calls(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %a : tensor<4xf32>
}
