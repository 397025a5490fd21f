// Kernel numbers are a location's line, a C int: a `first` past it is a bad
// option, and numbers that would run past it are an error at the function,
// one line each, not a TypeError from the bindings.
// RUN: not tinyml-opt %s --tinyml-number-kernels=first=4294967295 2>&1 | FileCheck %s --check-prefix=OPTION --implicit-check-not={{.}}
// OPTION: tinyml-opt: error: option 'first' of pass 'tinyml-number-kernels' must be <= 2147483647, got 4294967295
// RUN: not tinyml-opt %s --tinyml-number-kernels=first=2147483647 2>&1 | FileCheck %s --check-prefix=OVERFLOW --implicit-check-not={{.}}
// OVERFLOW: {{.*}}range.mlir:[[# @LINE + 3]]:1: error: tinyml-number-kernels: 2 kernels numbered after 2147483646 would run past 2147483647, the largest number a location's line holds
// RUN: tinyml-opt %s --tinyml-number-kernels=first=2147483646 --mlir-print-debuginfo | FileCheck %s --check-prefix=LAST
// LAST: loc("tinyml.kernel":2147483647:0)
func.func @two_kernels(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tinyml.relu %a : tensor<4xf32>
  %1 = tinyml.neg %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}
