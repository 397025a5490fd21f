// RUN: tinyml-opt %s --split-input-file --tinyml-lower-copies | FileCheck %s
// RUN: tinyml-opt %s --split-input-file --tinyml-lower-copies --convert-linalg-to-loops | FileCheck %s --check-prefix=LOOPS

// A copy into a strided view (the interior of a padded buffer) becomes a
// linalg.copy, so it lowers to loops like every kernel instead of calling
// the host runtime's memrefCopy.
// CHECK-LABEL: func.func @into_padded
// CHECK-NOT:     memref.copy
// CHECK:         linalg.copy {{.*}}ins(%arg0 : memref<4x4xf32>) outs(%{{.*}} : memref<4x4xf32, strided<[6, 1], offset: 7>>)
// LOOPS-LABEL: func.func @into_padded
// LOOPS:         scf.for
// LOOPS:           scf.for
// LOOPS:             memref.load %arg0
// LOOPS:             memref.store
func.func @into_padded(%src: memref<4x4xf32>, %dst: memref<6x6xf32>) {
  %view = memref.subview %dst[1, 1] [4, 4] [1, 1] : memref<6x6xf32> to memref<4x4xf32, strided<[6, 1], offset: 7>>
  memref.copy %src, %view : memref<4x4xf32> to memref<4x4xf32, strided<[6, 1], offset: 7>>
  return
}

// -----

// Copies nested in loops are found too.
// CHECK-LABEL: func.func @in_a_loop
// CHECK:         scf.for
// CHECK-NEXT:      linalg.copy
func.func @in_a_loop(%src: memref<4xf32>, %dst: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c2 step %c1 {
    memref.copy %src, %dst : memref<4xf32> to memref<4xf32>
  }
  return
}

// -----

// Nothing else changes: no copy, no rewrite.
// CHECK-LABEL: func.func @no_copy
// CHECK-NEXT:    arith.constant
// CHECK-NEXT:    linalg.fill
// CHECK-NEXT:    return
func.func @no_copy(%dst: memref<4xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%dst : memref<4xf32>)
  return
}
