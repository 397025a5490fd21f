// one-shot-bufferize reports a tensor of `!quant.uniform` elements for some
// ops and aborts in an assertion for others (a function's arguments,
// tensor.extract_slice): tinyml-opt reports every one, at its op, before
// the pass runs.
// RUN: not tinyml-opt %s --split-input-file --one-shot-bufferize=bufferize-function-boundaries 2>&1 | FileCheck %s --implicit-check-not={{.}}
// RUN: not tinyml-opt %s --split-input-file --pass-pipeline='builtin.module(canonicalize,one-shot-bufferize)' 2>&1 | FileCheck %s --implicit-check-not={{.}}

// CHECK: {{.*}}driver-bufferize-guard.mlir:[[# @LINE + 1]]:1: error: one-shot-bufferize: cannot bufferize value of type 'tensor<4x!quant.uniform<i8:f32, 5.000000e-01>>': element type '!quant.uniform<i8:f32, 5.000000e-01>' is not a valid memref element type
func.func @argument(%x: tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4x!quant.uniform<i8:f32, 0.5>> {
  return %x : tensor<4x!quant.uniform<i8:f32, 0.5>>
}

// -----

// CHECK: {{.*}}driver-bufferize-guard.mlir:[[# @LINE + 2]]:8: error: one-shot-bufferize: cannot bufferize value of type 'tensor<4x!quant.uniform<i8:f32, 5.000000e-01>>'{{.*}}
func.func @slice(%a: tensor<4xi8>) -> tensor<2xi8> {
  %x = quant.scast %a : tensor<4xi8> to tensor<4x!quant.uniform<i8:f32, 0.5>>
  %0 = tensor.extract_slice %x[0][2][1] : tensor<4x!quant.uniform<i8:f32, 0.5>> to tensor<2x!quant.uniform<i8:f32, 0.5>>
  %1 = quant.scast %0 : tensor<2x!quant.uniform<i8:f32, 0.5>> to tensor<2xi8>
  return %1 : tensor<2xi8>
}

// -----

// A declaration has no arguments to see; its type still says it.
// CHECK: {{.*}}driver-bufferize-guard.mlir:[[# @LINE + 1]]:1: error: one-shot-bufferize: cannot bufferize value of type 'tensor<4x!quant.uniform<i8:f32, 5.000000e-01>>'{{.*}}
func.func private @declared(tensor<4x!quant.uniform<i8:f32, 0.5>>)
