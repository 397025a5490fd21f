// RUN: tinyml-opt %s --split-input-file --tinyml-lower-copies | FileCheck %s
// RUN: tinyml-opt %s --split-input-file --tinyml-lower-copies --convert-linalg-to-loops | FileCheck %s --check-prefix=LOOPS
// RUN: tinyml-opt %s --split-input-file --tinyml-lower-copies="words=false" | FileCheck %s --check-prefix=ARMV6M

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
// A core without unaligned words (words=false) still copies a whole
// contiguous run by words: LLVM makes that loop a memcpy.
// ARMV6M-LABEL: func.func @contiguous_bytes
// ARMV6M:         vector.load
// ARMV6M-NOT:     linalg.copy
func.func @contiguous_bytes(%in: memref<1x25x5x64xi8>, %band: memref<1x1x5x64xi8>, %row: index) {
  %view = memref.subview %in[0, %row, 0, 0] [1, 1, 5, 64] [1, 1, 1, 1] : memref<1x25x5x64xi8> to memref<1x1x5x64xi8, strided<[8000, 320, 64, 1], offset: ?>>
  memref.copy %view, %band : memref<1x1x5x64xi8, strided<[8000, 320, 64, 1], offset: ?>> to memref<1x1x5x64xi8>
  return
}

// -----

// Rows of bytes into a padded window (each row of source and target one
// run of 4 bytes, the rows 4 and 6 apart): a loop over rows, and in each a
// loop over its words.
// CHECK-LABEL: func.func @rows_of_words
// CHECK:         %[[VIEW:.*]] = memref.subview %arg1[1, 1] [4, 4] [1, 1]
// CHECK:         scf.for %[[ROW:.*]] = %c0 to %c4 step %c1 {
// CHECK:           scf.for %[[AT:.*]] = %c0{{.*}} to %c4{{.*}} step %c4{{.*}} {
// CHECK:             %[[WORD:.*]] = vector.load %arg0[%[[ROW]], %[[AT]]] : memref<4x4xi8>, vector<4xi8>
// CHECK:             vector.store %[[WORD]], %[[VIEW]][%[[ROW]], %[[AT]]] : memref<4x4xi8, strided<[6, 1], offset: 7>>, vector<4xi8>
// CHECK-NOT:     linalg.copy
// Without unaligned words, the rows are bytes.
// ARMV6M-LABEL: func.func @rows_of_words
// ARMV6M-NOT:     vector.load
// ARMV6M:         linalg.copy
func.func @rows_of_words(%src: memref<4x4xi8>, %dst: memref<6x6xi8>) {
  %view = memref.subview %dst[1, 1] [4, 4] [1, 1] : memref<6x6xi8> to memref<4x4xi8, strided<[6, 1], offset: 7>>
  memref.copy %src, %view : memref<4x4xi8> to memref<4x4xi8, strided<[6, 1], offset: 7>>
  return
}

// -----

// Rows of 10 bytes into a padded window (a depthwise conv's staged rows):
// per row a loop over its two words, then its last two bytes as one
// halfword; a run of 7 ends in a halfword and a byte.
// CHECK-LABEL: func.func @rows_with_a_tail
// CHECK:         scf.for %[[ROW:.*]] = %c0 to %c3 step %c1 {
// CHECK:           scf.for %[[AT:.*]] = %c0{{.*}} to %c8 step %c4{{.*}} {
// CHECK:             vector.load %arg0[%[[ROW]], %[[AT]]] : memref<3x10xi8>, vector<4xi8>
// CHECK:             vector.store
// CHECK:           }
// CHECK:           %[[HALF:.*]] = vector.load %arg0[%[[ROW]], %c8{{.*}}] : memref<3x10xi8>, vector<2xi8>
// CHECK:           vector.store %[[HALF]], %{{.*}}[%[[ROW]], %c8{{.*}}] : memref<3x10xi8, strided<[12, 1], offset: 13>>, vector<2xi8>
// CHECK-NOT:       vector.load
// CHECK:         }
// CHECK:         scf.for %{{.*}} = %c0{{.*}} to %c4{{.*}} step %c4
// CHECK:         vector.load %arg2[%c4{{.*}}] : memref<7xi8>, vector<2xi8>
// CHECK:         vector.load %arg2[%c6{{.*}}] : memref<7xi8>, vector<1xi8>
// CHECK-NOT:     linalg.copy
// Without unaligned words, rows of bytes stay bytes; a whole copy of 7
// bytes, not whole words, too.
// ARMV6M-LABEL: func.func @rows_with_a_tail
// ARMV6M-NOT:     vector.load
// ARMV6M:         linalg.copy
// ARMV6M:         linalg.copy
func.func @rows_with_a_tail(%src: memref<3x10xi8>, %dst: memref<5x12xi8>, %odd: memref<7xi8>, %odd_dst: memref<7xi8>) {
  %view = memref.subview %dst[1, 1] [3, 10] [1, 1] : memref<5x12xi8> to memref<3x10xi8, strided<[12, 1], offset: 13>>
  memref.copy %src, %view : memref<3x10xi8> to memref<3x10xi8, strided<[12, 1], offset: 13>>
  memref.copy %odd, %odd_dst : memref<7xi8> to memref<7xi8>
  return
}

// -----

// Bytes copied as bytes: a run shorter than a word, and bytes one channel
// of a row apart (no run at all).
// CHECK-LABEL: func.func @bytes_not_words
// CHECK-NOT:     vector.load
// CHECK:         linalg.copy {{.*}}ins(%arg0 : memref<3xi8>) outs(%arg1 : memref<3xi8>)
// CHECK:         linalg.copy {{.*}}ins(%{{.*}} : memref<4x1xi8, strided<[8, 1]>>) outs(%arg3 : memref<4x1xi8>)
func.func @bytes_not_words(%short: memref<3xi8>, %short_dst: memref<3xi8>, %rows: memref<4x8xi8>, %column: memref<4x1xi8>) {
  memref.copy %short, %short_dst : memref<3xi8> to memref<3xi8>
  %channel = memref.subview %rows[0, 0] [4, 1] [1, 1] : memref<4x8xi8> to memref<4x1xi8, strided<[8, 1]>>
  memref.copy %channel, %column : memref<4x1xi8, strided<[8, 1]>> to memref<4x1xi8>
  return
}
