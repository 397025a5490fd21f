// tinyml-opt reads a file or stdin, writes stdout or -o, and runs passes in
// the order of their flags.
// RUN: tinyml-opt %s --tinyml-simplify | FileCheck %s
// RUN: cat %s | tinyml-opt - --tinyml-simplify | FileCheck %s
// RUN: tinyml-opt %s --tinyml-simplify -o %t && FileCheck %s --input-file=%t
// RUN: tinyml-opt %s --pass-pipeline='builtin.module(tinyml-simplify,func.func(cse))' | FileCheck %s
// RUN: tinyml-opt %s --tinyml-simplify --canonicalize | FileCheck %s

// CHECK-LABEL: func.func @unused_relu
// CHECK-NOT:     tinyml.relu
// CHECK:         return %arg0
func.func @unused_relu(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tinyml.relu %a : tensor<4xf32>
  return %a : tensor<4xf32>
}
