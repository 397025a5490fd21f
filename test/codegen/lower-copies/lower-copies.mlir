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

// -----

// A band of int8 rows (a contiguous run of 320 bytes in a larger buffer,
// at a dynamic offset) copied into its temporary: a loop over words, each
// a vector<4xi8> load and store on the two runs seen as one dimension.
// CHECK-LABEL: func.func @contiguous_bytes
// CHECK:         %[[FROM:.*]] = memref.collapse_shape %{{.*}} {{\[\[}}0, 1, 2, 3]] : memref<1x1x5x64xi8, strided<[8000, 320, 64, 1], offset: ?>> into memref<320xi8, strided<[1], offset: ?>>
// CHECK:         %[[TO:.*]] = memref.collapse_shape %arg1 {{\[\[}}0, 1, 2, 3]] : memref<1x1x5x64xi8> into memref<320xi8>
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C320:.*]] = arith.constant 320 : index
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK:         scf.for %[[AT:.*]] = %[[C0]] to %[[C320]] step %[[C4]] {
// CHECK:           %[[WORD:.*]] = vector.load %[[FROM]][%[[AT]]] : memref<320xi8, strided<[1], offset: ?>>, vector<4xi8>
// CHECK:           vector.store %[[WORD]], %[[TO]][%[[AT]]] : memref<320xi8>, vector<4xi8>
// CHECK-NOT:     linalg.copy
// CHECK-NOT:     memref.copy
func.func @contiguous_bytes(%in: memref<1x25x5x64xi8>, %band: memref<1x1x5x64xi8>, %row: index) {
  %view = memref.subview %in[0, %row, 0, 0] [1, 1, 5, 64] [1, 1, 1, 1] : memref<1x25x5x64xi8> to memref<1x1x5x64xi8, strided<[8000, 320, 64, 1], offset: ?>>
  memref.copy %view, %band : memref<1x1x5x64xi8, strided<[8000, 320, 64, 1], offset: ?>> to memref<1x1x5x64xi8>
  return
}

// -----

// Bytes copied as bytes: a target that is not one run (a window of a
// padded buffer), and a run that is not a whole number of words.
// CHECK-LABEL: func.func @bytes_not_words
// CHECK-NOT:     vector.load
// CHECK:         linalg.copy {{.*}}ins(%arg0 : memref<4x4xi8>) outs(%{{.*}} : memref<4x4xi8, strided<[6, 1], offset: 7>>)
// CHECK:         linalg.copy {{.*}}ins(%arg2 : memref<6xi8>) outs(%arg3 : memref<6xi8>)
func.func @bytes_not_words(%src: memref<4x4xi8>, %dst: memref<6x6xi8>, %odd: memref<6xi8>, %odd_dst: memref<6xi8>) {
  %view = memref.subview %dst[1, 1] [4, 4] [1, 1] : memref<6x6xi8> to memref<4x4xi8, strided<[6, 1], offset: 7>>
  memref.copy %src, %view : memref<4x4xi8> to memref<4x4xi8, strided<[6, 1], offset: 7>>
  memref.copy %odd, %odd_dst : memref<6xi8> to memref<6xi8>
  return
}
