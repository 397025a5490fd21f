// RUN: tinyml-opt %s --split-input-file --canonicalize | FileCheck %s

// Every tinyml op is Pure and a tinyml.fused group has its body's effects
// (RecursiveMemoryEffects), so canonicalize erases what nothing uses.

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

// -----

// A fusion group whose results are unused goes, body and all.
// CHECK-LABEL: func.func @dead_group
// CHECK-NOT:     tinyml.fused
// CHECK:         return %arg0
func.func @dead_group(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tinyml.fused elementwise (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %r = tinyml.relu %x : tensor<4xf32>
    tinyml.yield %r : tensor<4xf32>
  }
  return %a : tensor<4xf32>
}

// -----

// A used group stays.
// CHECK-LABEL: func.func @live_group
// CHECK:         tinyml.fused elementwise
// CHECK:           tinyml.relu
func.func @live_group(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tinyml.fused elementwise (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %r = tinyml.relu %x : tensor<4xf32>
    tinyml.yield %r : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}
