// RUN: tinyml-opt %s --split-input-file --tinyml-outline-kernels --canonicalize | FileCheck %s

// Each top-level loop nest of the public function moves into a private,
// noinline function named after it and its position; the buffers it uses
// are arguments, the scalar constants are copied in. Two nests that differ
// only in their buffers become two functions with the same body (LLVM's
// function merging folds them in the object).
// CHECK-LABEL: func.func private @model_kernel_0(%{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>)
// CHECK-SAME:      attributes {llvm.linkage = #llvm.linkage<internal>, passthrough = ["noinline"]}
// CHECK:         arith.constant 0 : index
// CHECK:         arith.constant 4 : index
// CHECK:         arith.constant 1 : index
// CHECK:         scf.for
// CHECK:           memref.load
// CHECK:           memref.store
// CHECK:         return
// CHECK-LABEL: func.func private @model_kernel_1(%{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>)
// CHECK-LABEL: func.func @model
// CHECK-SAME:    (%[[A:.*]]: memref<4xf32>, %[[B:.*]]: memref<4xf32>, %[[C:.*]]: memref<4xf32>)
// CHECK-SAME:    attributes {passthrough = {{\[}}["disable-tail-calls", "true"]]}
// CHECK-NEXT:    call @model_kernel_0(%[[A]], %[[B]])
// CHECK-NEXT:    call @model_kernel_1(%[[B]], %[[C]])
// CHECK-NEXT:    return
func.func @model(%a: memref<4xf32>, %b: memref<4xf32>, %c: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %a[%i] : memref<4xf32>
    memref.store %x, %b[%i] : memref<4xf32>
  }
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %b[%i] : memref<4xf32>
    memref.store %x, %c[%i] : memref<4xf32>
  }
  return
}

// -----

// Not outlined: a private function (a kernel already, or a helper), and a
// loop with results (a value the function still needs).
// CHECK-LABEL: func.func private @helper
// CHECK:         scf.for
// CHECK-LABEL: func.func @sum
// CHECK-NOT:     call
// CHECK:         scf.for
func.func private @helper(%a: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c4 step %c1 {
    memref.store %z, %a[%i] : memref<4xf32>
  }
  return
}
func.func @sum(%a: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  %s = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %z) -> (f32) {
    %x = memref.load %a[%i] : memref<4xf32>
    %n = arith.addf %acc, %x : f32
    scf.yield %n : f32
  }
  return %s : f32
}
