// Printing flags: IR after every pass, elided constants, the generic form.
// RUN: tinyml-opt %s --tinyml-simplify --cse --mlir-print-ir-after-all 2>&1 >/dev/null | FileCheck %s --check-prefix=AFTER-ALL
// AFTER-ALL: IR Dump After tinyml-simplify
// AFTER-ALL: IR Dump After CSE
// RUN: tinyml-opt %s --mlir-elide-elementsattrs-if-larger=4 | FileCheck %s --check-prefix=ELIDE
// ELIDE: arith.constant dense_resource<__elided__> : tensor<8xf32>
// ELIDE: arith.constant dense<1.000000e+00> : tensor<2xf32>
// RUN: tinyml-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// GENERIC: "tinyml.add"(%{{.*}}, %{{.*}}) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
// RUN: not tinyml-opt %s --mlir-elide-elementsattrs-if-larger=many 2>&1 | FileCheck %s --check-prefix=BAD-NUMBER
// BAD-NUMBER: tinyml-opt: error: --mlir-elide-elementsattrs-if-larger expects a number, got 'many'

func.func @constants(%a: tensor<8xf32>) -> (tensor<8xf32>, tensor<2xf32>) {
  %w = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
  %s = arith.constant dense<1.0> : tensor<2xf32>
  %0 = tinyml.add %a, %w : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %0, %s : tensor<8xf32>, tensor<2xf32>
}
