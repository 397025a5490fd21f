// A failed input is one line on stderr: the first error with its notes in
// brackets. --split-input-file gives one such line per failing chunk.
// RUN: not tinyml-opt %s --split-input-file 2>&1 | FileCheck %s --implicit-check-not={{.}}

// CHECK: {{.*}}driver-one-line.mlir:[[# @LINE + 3]]:3: error: redefinition of SSA value '%0' (note: {{.*}}driver-one-line.mlir:[[# @LINE + 2]]:3: previously defined here)
func.func @redefined(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tinyml.neg %a : tensor<4xf32>
  %0 = tinyml.neg %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK: {{.*}}driver-one-line.mlir:[[# @LINE + 2]]:8: error: custom op 'tinyml.no_such_op' is unknown{{$}}
func.func @unknown_op(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tinyml.no_such_op %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
