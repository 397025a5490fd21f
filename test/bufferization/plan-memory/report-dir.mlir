// A report folder that cannot be made is the user's error: one line naming
// it, from the pass, at the function being planned.
// RUN: not tinyml-opt %s --tinyml-plan-memory='report-dir=%s/reports' 2>&1 | FileCheck %s
// CHECK: report-dir.mlir:[[# @LINE + 3]]:1: error: tinyml-plan-memory: report-dir: cannot write '{{.*}}report-dir.mlir/reports/kernel.memory.json': Not a directory
// CHECK-NOT: internal error
// CHECK-NOT: Traceback
func.func @kernel(%in: memref<4xf32>, %out: memref<4xf32>) {
  %b = memref.alloc() : memref<4xf32>
  memref.copy %in, %b : memref<4xf32> to memref<4xf32>
  memref.copy %b, %out : memref<4xf32> to memref<4xf32>
  return
}
