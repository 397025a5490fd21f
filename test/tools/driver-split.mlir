// --split-input-file handles each chunk alone and joins the outputs with the
// separator; diagnostics keep the line numbers of the whole file.
// RUN: tinyml-opt %s --split-input-file | FileCheck %s
// RUN: not tinyml-opt %s --split-input-file --tinyml-simplify='bogus=1' 2>&1 | FileCheck %s --check-prefix=ERR
// ERR: has no option 'bogus'

// CHECK-LABEL: func.func @first
// CHECK:       // -----
// CHECK-LABEL: func.func @second
func.func @first() {
  return
}

// -----

func.func @second() {
  return
}
