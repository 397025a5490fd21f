// RUN: tinyml-opt %s --split-input-file --tinyml-forward-copies | FileCheck %s

// A buffer of three rows moved up a row, each row through a temporary (how
// one-shot bufferization moves rows within a buffer): each pair becomes
// one copy from the row below, and the temporaries go.
// CHECK-LABEL: func.func @roll_up
// CHECK-NOT:     memref.alloc() : memref<1x1x4x8xf32>
// CHECK:         %[[ONE:.*]] = memref.subview %[[ROWS:.*]][0, 1, 0, 0] [1, 1, 4, 8]
// CHECK:         %[[ZERO:.*]] = memref.subview %[[ROWS]][0, 0, 0, 0] [1, 1, 4, 8]
// CHECK-NEXT:    memref.copy %[[ONE]], %[[ZERO]]
// CHECK:         %[[TWO:.*]] = memref.subview %[[ROWS]][0, 2, 0, 0] [1, 1, 4, 8]
// CHECK-NEXT:    memref.copy %[[TWO]], %[[ONE]]
// CHECK-NOT:     memref.copy
// CHECK:         return
func.func @roll_up(%rows: memref<1x3x4x8xf32>) {
  %t0 = memref.alloc() : memref<1x1x4x8xf32>
  %t1 = memref.alloc() : memref<1x1x4x8xf32>
  %one = memref.subview %rows[0, 1, 0, 0] [1, 1, 4, 8] [1, 1, 1, 1] : memref<1x3x4x8xf32> to memref<1x1x4x8xf32, strided<[96, 32, 8, 1], offset: 32>>
  memref.copy %one, %t0 : memref<1x1x4x8xf32, strided<[96, 32, 8, 1], offset: 32>> to memref<1x1x4x8xf32>
  %zero = memref.subview %rows[0, 0, 0, 0] [1, 1, 4, 8] [1, 1, 1, 1] : memref<1x3x4x8xf32> to memref<1x1x4x8xf32, strided<[96, 32, 8, 1]>>
  memref.copy %t0, %zero : memref<1x1x4x8xf32> to memref<1x1x4x8xf32, strided<[96, 32, 8, 1]>>
  %two = memref.subview %rows[0, 2, 0, 0] [1, 1, 4, 8] [1, 1, 1, 1] : memref<1x3x4x8xf32> to memref<1x1x4x8xf32, strided<[96, 32, 8, 1], offset: 64>>
  memref.copy %two, %t1 : memref<1x1x4x8xf32, strided<[96, 32, 8, 1], offset: 64>> to memref<1x1x4x8xf32>
  memref.copy %t1, %one : memref<1x1x4x8xf32> to memref<1x1x4x8xf32, strided<[96, 32, 8, 1], offset: 32>>
  return
}

// -----

// Overlapping source and destination (rows 0-1 to rows 1-2): a copy
// between them would read what it already wrote. Kept.
// CHECK-LABEL: func.func @overlapping
// CHECK:         memref.alloc
// CHECK:         memref.copy
// CHECK:         memref.copy
func.func @overlapping(%rows: memref<1x3x4x8xf32>) {
  %t = memref.alloc() : memref<1x2x4x8xf32>
  %top = memref.subview %rows[0, 0, 0, 0] [1, 2, 4, 8] [1, 1, 1, 1] : memref<1x3x4x8xf32> to memref<1x2x4x8xf32, strided<[96, 32, 8, 1]>>
  memref.copy %top, %t : memref<1x2x4x8xf32, strided<[96, 32, 8, 1]>> to memref<1x2x4x8xf32>
  %bottom = memref.subview %rows[0, 1, 0, 0] [1, 2, 4, 8] [1, 1, 1, 1] : memref<1x3x4x8xf32> to memref<1x2x4x8xf32, strided<[96, 32, 8, 1], offset: 32>>
  memref.copy %t, %bottom : memref<1x2x4x8xf32> to memref<1x2x4x8xf32, strided<[96, 32, 8, 1], offset: 32>>
  return
}

// -----

// The temporary is read again after the second copy: it must exist. Kept.
// CHECK-LABEL: func.func @temporary_read_again
// CHECK:         memref.alloc
// CHECK:         memref.copy
// CHECK:         memref.copy
// CHECK:         memref.load
func.func @temporary_read_again(%rows: memref<1x3x4x8xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %t = memref.alloc() : memref<1x1x4x8xf32>
  %one = memref.subview %rows[0, 1, 0, 0] [1, 1, 4, 8] [1, 1, 1, 1] : memref<1x3x4x8xf32> to memref<1x1x4x8xf32, strided<[96, 32, 8, 1], offset: 32>>
  memref.copy %one, %t : memref<1x1x4x8xf32, strided<[96, 32, 8, 1], offset: 32>> to memref<1x1x4x8xf32>
  %zero = memref.subview %rows[0, 0, 0, 0] [1, 1, 4, 8] [1, 1, 1, 1] : memref<1x3x4x8xf32> to memref<1x1x4x8xf32, strided<[96, 32, 8, 1]>>
  memref.copy %t, %zero : memref<1x1x4x8xf32> to memref<1x1x4x8xf32, strided<[96, 32, 8, 1]>>
  %v = memref.load %t[%c0, %c0, %c0, %c0] : memref<1x1x4x8xf32>
  return %v : f32
}

// -----

// A store into the source between the two copies: the temporary holds the
// value from before it. Kept.
// CHECK-LABEL: func.func @written_in_between
// CHECK:         memref.alloc
// CHECK:         memref.copy
// CHECK:         memref.store
// CHECK:         memref.copy
func.func @written_in_between(%rows: memref<1x3x4x8xf32>, %x: f32) {
  %c0 = arith.constant 0 : index
  %t = memref.alloc() : memref<1x1x4x8xf32>
  %one = memref.subview %rows[0, 1, 0, 0] [1, 1, 4, 8] [1, 1, 1, 1] : memref<1x3x4x8xf32> to memref<1x1x4x8xf32, strided<[96, 32, 8, 1], offset: 32>>
  memref.copy %one, %t : memref<1x1x4x8xf32, strided<[96, 32, 8, 1], offset: 32>> to memref<1x1x4x8xf32>
  memref.store %x, %one[%c0, %c0, %c0, %c0] : memref<1x1x4x8xf32, strided<[96, 32, 8, 1], offset: 32>>
  %zero = memref.subview %rows[0, 0, 0, 0] [1, 1, 4, 8] [1, 1, 1, 1] : memref<1x3x4x8xf32> to memref<1x1x4x8xf32, strided<[96, 32, 8, 1]>>
  memref.copy %t, %zero : memref<1x1x4x8xf32> to memref<1x1x4x8xf32, strided<[96, 32, 8, 1]>>
  return
}

// -----

// Two function arguments may be the same buffer: kept.
// CHECK-LABEL: func.func @two_arguments
// CHECK:         memref.alloc
// CHECK:         memref.copy
// CHECK:         memref.copy
func.func @two_arguments(%a: memref<1x1x4x8xf32>, %b: memref<1x1x4x8xf32>) {
  %t = memref.alloc() : memref<1x1x4x8xf32>
  memref.copy %a, %t : memref<1x1x4x8xf32> to memref<1x1x4x8xf32>
  memref.copy %t, %b : memref<1x1x4x8xf32> to memref<1x1x4x8xf32>
  return
}
