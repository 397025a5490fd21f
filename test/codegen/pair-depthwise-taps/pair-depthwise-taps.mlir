// RUN: tinyml-opt %s --split-input-file --tinyml-pair-depthwise-taps --canonicalize | FileCheck %s

// A depthwise tile's kernel row of 3 taps over 4 stride-1 pixels of one
// channel, read from its staged plane (6 bytes a row, consecutive). Each
// pair of pixels reads one word at its first pixel; SXTB16 of it and of it
// rotated by 8 give (x0, x2) and (x1, x3): one SMLAD with the packed taps
// (w0, w2) and one SMLABB or SMLATB with w1 per pixel.
// CHECK-LABEL: func.func @four_pixels
// CHECK:         %[[FLAT:.*]] = memref.collapse_shape %arg0 {{\[\[}}0, 1, 2, 3]] : memref<1x6x6x1xi8> into memref<36xi8>
// CHECK:         %[[W0:.*]] = arith.extsi %{{.*}} : i8 to i32
// CHECK:         %[[W1:.*]] = arith.extsi %{{.*}} : i8 to i32
// CHECK:         %[[W2:.*]] = arith.extsi %{{.*}} : i8 to i32
// CHECK:         %[[LOW:.*]] = arith.andi %[[W0]], %c65535
// CHECK:         %[[HIGH:.*]] = arith.shli %[[W2]], %c16
// CHECK:         %[[TAPS:.*]] = arith.ori %[[LOW]], %[[HIGH]]
// CHECK:         vector.load %[[FLAT]][%{{.*}}] : memref<36xi8>, vector<4xi8>
// CHECK:         %[[EVEN:.*]] = llvm.call_intrinsic "llvm.arm.sxtb16"
// CHECK:         %[[ODD:.*]] = llvm.call_intrinsic "llvm.arm.sxtb16"
// CHECK:         %[[S0:.*]] = llvm.call_intrinsic "llvm.arm.smlad"(%[[EVEN]], %[[TAPS]], %{{.*}})
// CHECK:         llvm.call_intrinsic "llvm.arm.smlabb"(%[[ODD]], %[[W1]], %[[S0]])
// CHECK:         %[[S1:.*]] = llvm.call_intrinsic "llvm.arm.smlad"(%[[ODD]], %[[TAPS]], %{{.*}})
// CHECK:         llvm.call_intrinsic "llvm.arm.smlatb"(%[[EVEN]], %[[W1]], %[[S1]])
// CHECK:         vector.load %[[FLAT]][%{{.*}}] : memref<36xi8>, vector<4xi8>
// CHECK-COUNT-2: llvm.call_intrinsic "llvm.arm.smlad"
// CHECK:         vector.from_elements {{.*}} : vector<4x1xi32>
// CHECK-NOT:     vector.extract_strided_slice
// CHECK-NOT:     arith.muli
func.func @four_pixels(%plane: memref<1x6x6x1xi8>, %w: memref<3x3x8xi8>, %acc: vector<4x1xi32>,
                       %r: index, %ch: index) -> vector<4x1xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %z = arith.constant 0 : i8
  %x0 = vector.transfer_read %plane[%c0, %r, %c0, %c0], %z {in_bounds = [true]} : memref<1x6x6x1xi8>, vector<1xi8>
  %x1 = vector.transfer_read %plane[%c0, %r, %c1, %c0], %z {in_bounds = [true]} : memref<1x6x6x1xi8>, vector<1xi8>
  %x2 = vector.transfer_read %plane[%c0, %r, %c2, %c0], %z {in_bounds = [true]} : memref<1x6x6x1xi8>, vector<1xi8>
  %x3 = vector.transfer_read %plane[%c0, %r, %c3, %c0], %z {in_bounds = [true]} : memref<1x6x6x1xi8>, vector<1xi8>
  %x4 = vector.transfer_read %plane[%c0, %r, %c4, %c0], %z {in_bounds = [true]} : memref<1x6x6x1xi8>, vector<1xi8>
  %x5 = vector.transfer_read %plane[%c0, %r, %c5, %c0], %z {in_bounds = [true]} : memref<1x6x6x1xi8>, vector<1xi8>
  %e0 = vector.to_elements %x0 : vector<1xi8>
  %e1 = vector.to_elements %x1 : vector<1xi8>
  %e2 = vector.to_elements %x2 : vector<1xi8>
  %e3 = vector.to_elements %x3 : vector<1xi8>
  %e4 = vector.to_elements %x4 : vector<1xi8>
  %e5 = vector.to_elements %x5 : vector<1xi8>
  %row = vector.from_elements %e0, %e1, %e2, %e3, %e4, %e5 : vector<6x1xi8>
  %w0 = vector.transfer_read %w[%r, %c0, %ch], %z {in_bounds = [true]} : memref<3x3x8xi8>, vector<1xi8>
  %w1 = vector.transfer_read %w[%r, %c1, %ch], %z {in_bounds = [true]} : memref<3x3x8xi8>, vector<1xi8>
  %w2 = vector.transfer_read %w[%r, %c2, %ch], %z {in_bounds = [true]} : memref<3x3x8xi8>, vector<1xi8>
  %s0 = vector.extract_strided_slice %row {offsets = [0, 0], sizes = [4, 1], strides = [1, 1]} : vector<6x1xi8> to vector<4x1xi8>
  %s1 = vector.extract_strided_slice %row {offsets = [1, 0], sizes = [4, 1], strides = [1, 1]} : vector<6x1xi8> to vector<4x1xi8>
  %s2 = vector.extract_strided_slice %row {offsets = [2, 0], sizes = [4, 1], strides = [1, 1]} : vector<6x1xi8> to vector<4x1xi8>
  %a0 = arith.extsi %s0 : vector<4x1xi8> to vector<4x1xi32>
  %b0 = vector.broadcast %w0 : vector<1xi8> to vector<4x1xi8>
  %k0 = arith.extsi %b0 : vector<4x1xi8> to vector<4x1xi32>
  %p0 = arith.muli %a0, %k0 : vector<4x1xi32>
  %t0 = arith.addi %p0, %acc : vector<4x1xi32>
  %a1 = arith.extsi %s1 : vector<4x1xi8> to vector<4x1xi32>
  %b1 = vector.broadcast %w1 : vector<1xi8> to vector<4x1xi8>
  %k1 = arith.extsi %b1 : vector<4x1xi8> to vector<4x1xi32>
  %p1 = arith.muli %a1, %k1 : vector<4x1xi32>
  %t1 = arith.addi %p1, %t0 : vector<4x1xi32>
  %a2 = arith.extsi %s2 : vector<4x1xi8> to vector<4x1xi32>
  %b2 = vector.broadcast %w2 : vector<1xi8> to vector<4x1xi8>
  %k2 = arith.extsi %b2 : vector<4x1xi8> to vector<4x1xi32>
  %p2 = arith.muli %a2, %k2 : vector<4x1xi32>
  %t2 = arith.addi %p2, %t1 : vector<4x1xi32>
  return %t2 : vector<4x1xi32>
}

// -----

// Three pixels: one pair in a word, the last pixel in its byte form (its
// word would read a byte past the row).
// CHECK-LABEL: func.func @three_pixels
// CHECK-COUNT-1: vector.load
// CHECK-COUNT-2: llvm.call_intrinsic "llvm.arm.smlad"
// CHECK-COUNT-3: arith.muli {{.*}} : i32
// CHECK:         vector.from_elements {{.*}} : vector<3x1xi32>
// CHECK-NOT:     vector.load
func.func @three_pixels(%plane: memref<1x5x5x1xi8>, %w: memref<3x3x8xi8>, %acc: vector<3x1xi32>,
                        %r: index, %ch: index) -> vector<3x1xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant 0 : i8
  %x0 = vector.transfer_read %plane[%c0, %r, %c0, %c0], %z {in_bounds = [true]} : memref<1x5x5x1xi8>, vector<1xi8>
  %x1 = vector.transfer_read %plane[%c0, %r, %c1, %c0], %z {in_bounds = [true]} : memref<1x5x5x1xi8>, vector<1xi8>
  %x2 = vector.transfer_read %plane[%c0, %r, %c2, %c0], %z {in_bounds = [true]} : memref<1x5x5x1xi8>, vector<1xi8>
  %x3 = vector.transfer_read %plane[%c0, %r, %c3, %c0], %z {in_bounds = [true]} : memref<1x5x5x1xi8>, vector<1xi8>
  %x4 = vector.transfer_read %plane[%c0, %r, %c4, %c0], %z {in_bounds = [true]} : memref<1x5x5x1xi8>, vector<1xi8>
  %e0 = vector.to_elements %x0 : vector<1xi8>
  %e1 = vector.to_elements %x1 : vector<1xi8>
  %e2 = vector.to_elements %x2 : vector<1xi8>
  %e3 = vector.to_elements %x3 : vector<1xi8>
  %e4 = vector.to_elements %x4 : vector<1xi8>
  %row = vector.from_elements %e0, %e1, %e2, %e3, %e4 : vector<5x1xi8>
  %w0 = vector.transfer_read %w[%r, %c0, %ch], %z {in_bounds = [true]} : memref<3x3x8xi8>, vector<1xi8>
  %w1 = vector.transfer_read %w[%r, %c1, %ch], %z {in_bounds = [true]} : memref<3x3x8xi8>, vector<1xi8>
  %w2 = vector.transfer_read %w[%r, %c2, %ch], %z {in_bounds = [true]} : memref<3x3x8xi8>, vector<1xi8>
  %s0 = vector.extract_strided_slice %row {offsets = [0, 0], sizes = [3, 1], strides = [1, 1]} : vector<5x1xi8> to vector<3x1xi8>
  %s1 = vector.extract_strided_slice %row {offsets = [1, 0], sizes = [3, 1], strides = [1, 1]} : vector<5x1xi8> to vector<3x1xi8>
  %s2 = vector.extract_strided_slice %row {offsets = [2, 0], sizes = [3, 1], strides = [1, 1]} : vector<5x1xi8> to vector<3x1xi8>
  %a0 = arith.extsi %s0 : vector<3x1xi8> to vector<3x1xi32>
  %b0 = vector.broadcast %w0 : vector<1xi8> to vector<3x1xi8>
  %k0 = arith.extsi %b0 : vector<3x1xi8> to vector<3x1xi32>
  %p0 = arith.muli %a0, %k0 : vector<3x1xi32>
  %t0 = arith.addi %acc, %p0 : vector<3x1xi32>
  %a1 = arith.extsi %s1 : vector<3x1xi8> to vector<3x1xi32>
  %b1 = vector.broadcast %w1 : vector<1xi8> to vector<3x1xi8>
  %k1 = arith.extsi %b1 : vector<3x1xi8> to vector<3x1xi32>
  %p1 = arith.muli %a1, %k1 : vector<3x1xi32>
  %t1 = arith.addi %t0, %p1 : vector<3x1xi32>
  %a2 = arith.extsi %s2 : vector<3x1xi8> to vector<3x1xi32>
  %b2 = vector.broadcast %w2 : vector<1xi8> to vector<3x1xi8>
  %k2 = arith.extsi %b2 : vector<3x1xi8> to vector<3x1xi32>
  %p2 = arith.muli %a2, %k2 : vector<3x1xi32>
  %t2 = arith.addi %t1, %p2 : vector<3x1xi32>
  return %t2 : vector<3x1xi32>
}

// -----

// A row read from every other byte (a stride-2 layout): its bytes are not
// consecutive, so no word holds a pair. Left as it is.
// CHECK-LABEL: func.func @bytes_apart
// CHECK-NOT:     llvm.call_intrinsic
// CHECK-COUNT-3: arith.muli {{.*}} : vector<2x1xi32>
func.func @bytes_apart(%plane: memref<1x8x8x1xi8>, %w: memref<3x3x8xi8>, %acc: vector<2x1xi32>,
                       %r: index, %ch: index) -> vector<2x1xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %z = arith.constant 0 : i8
  %x0 = vector.transfer_read %plane[%c0, %r, %c0, %c0], %z {in_bounds = [true]} : memref<1x8x8x1xi8>, vector<1xi8>
  %x1 = vector.transfer_read %plane[%c0, %r, %c2, %c0], %z {in_bounds = [true]} : memref<1x8x8x1xi8>, vector<1xi8>
  %x2 = vector.transfer_read %plane[%c0, %r, %c4, %c0], %z {in_bounds = [true]} : memref<1x8x8x1xi8>, vector<1xi8>
  %x3 = vector.transfer_read %plane[%c0, %r, %c6, %c0], %z {in_bounds = [true]} : memref<1x8x8x1xi8>, vector<1xi8>
  %e0 = vector.to_elements %x0 : vector<1xi8>
  %e1 = vector.to_elements %x1 : vector<1xi8>
  %e2 = vector.to_elements %x2 : vector<1xi8>
  %e3 = vector.to_elements %x3 : vector<1xi8>
  %row = vector.from_elements %e0, %e1, %e2, %e3 : vector<4x1xi8>
  %w0 = vector.transfer_read %w[%r, %c0, %ch], %z {in_bounds = [true]} : memref<3x3x8xi8>, vector<1xi8>
  %w1 = vector.transfer_read %w[%r, %c1, %ch], %z {in_bounds = [true]} : memref<3x3x8xi8>, vector<1xi8>
  %w2 = vector.transfer_read %w[%r, %c2, %ch], %z {in_bounds = [true]} : memref<3x3x8xi8>, vector<1xi8>
  %s0 = vector.extract_strided_slice %row {offsets = [0, 0], sizes = [2, 1], strides = [1, 1]} : vector<4x1xi8> to vector<2x1xi8>
  %s1 = vector.extract_strided_slice %row {offsets = [1, 0], sizes = [2, 1], strides = [1, 1]} : vector<4x1xi8> to vector<2x1xi8>
  %s2 = vector.extract_strided_slice %row {offsets = [2, 0], sizes = [2, 1], strides = [1, 1]} : vector<4x1xi8> to vector<2x1xi8>
  %a0 = arith.extsi %s0 : vector<2x1xi8> to vector<2x1xi32>
  %b0 = vector.broadcast %w0 : vector<1xi8> to vector<2x1xi8>
  %k0 = arith.extsi %b0 : vector<2x1xi8> to vector<2x1xi32>
  %p0 = arith.muli %a0, %k0 : vector<2x1xi32>
  %t0 = arith.addi %p0, %acc : vector<2x1xi32>
  %a1 = arith.extsi %s1 : vector<2x1xi8> to vector<2x1xi32>
  %b1 = vector.broadcast %w1 : vector<1xi8> to vector<2x1xi8>
  %k1 = arith.extsi %b1 : vector<2x1xi8> to vector<2x1xi32>
  %p1 = arith.muli %a1, %k1 : vector<2x1xi32>
  %t1 = arith.addi %p1, %t0 : vector<2x1xi32>
  %a2 = arith.extsi %s2 : vector<2x1xi8> to vector<2x1xi32>
  %b2 = vector.broadcast %w2 : vector<1xi8> to vector<2x1xi8>
  %k2 = arith.extsi %b2 : vector<2x1xi8> to vector<2x1xi32>
  %p2 = arith.muli %a2, %k2 : vector<2x1xi32>
  %t2 = arith.addi %p2, %t1 : vector<2x1xi32>
  return %t2 : vector<2x1xi32>
}

// -----

// A tap's product also used elsewhere: the row's sums are not only its
// accumulation. Left as it is.
// CHECK-LABEL: func.func @product_used_twice
// CHECK-NOT:     llvm.call_intrinsic
func.func @product_used_twice(%plane: memref<1x4x4x1xi8>, %w: memref<3x3x8xi8>, %acc: vector<2x1xi32>,
                              %r: index, %ch: index) -> (vector<2x1xi32>, vector<2x1xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %z = arith.constant 0 : i8
  %x0 = vector.transfer_read %plane[%c0, %r, %c0, %c0], %z {in_bounds = [true]} : memref<1x4x4x1xi8>, vector<1xi8>
  %x1 = vector.transfer_read %plane[%c0, %r, %c1, %c0], %z {in_bounds = [true]} : memref<1x4x4x1xi8>, vector<1xi8>
  %x2 = vector.transfer_read %plane[%c0, %r, %c2, %c0], %z {in_bounds = [true]} : memref<1x4x4x1xi8>, vector<1xi8>
  %x3 = vector.transfer_read %plane[%c0, %r, %c3, %c0], %z {in_bounds = [true]} : memref<1x4x4x1xi8>, vector<1xi8>
  %e0 = vector.to_elements %x0 : vector<1xi8>
  %e1 = vector.to_elements %x1 : vector<1xi8>
  %e2 = vector.to_elements %x2 : vector<1xi8>
  %e3 = vector.to_elements %x3 : vector<1xi8>
  %row = vector.from_elements %e0, %e1, %e2, %e3 : vector<4x1xi8>
  %w0 = vector.transfer_read %w[%r, %c0, %ch], %z {in_bounds = [true]} : memref<3x3x8xi8>, vector<1xi8>
  %w1 = vector.transfer_read %w[%r, %c1, %ch], %z {in_bounds = [true]} : memref<3x3x8xi8>, vector<1xi8>
  %w2 = vector.transfer_read %w[%r, %c2, %ch], %z {in_bounds = [true]} : memref<3x3x8xi8>, vector<1xi8>
  %s0 = vector.extract_strided_slice %row {offsets = [0, 0], sizes = [2, 1], strides = [1, 1]} : vector<4x1xi8> to vector<2x1xi8>
  %s1 = vector.extract_strided_slice %row {offsets = [1, 0], sizes = [2, 1], strides = [1, 1]} : vector<4x1xi8> to vector<2x1xi8>
  %s2 = vector.extract_strided_slice %row {offsets = [2, 0], sizes = [2, 1], strides = [1, 1]} : vector<4x1xi8> to vector<2x1xi8>
  %a0 = arith.extsi %s0 : vector<2x1xi8> to vector<2x1xi32>
  %b0 = vector.broadcast %w0 : vector<1xi8> to vector<2x1xi8>
  %k0 = arith.extsi %b0 : vector<2x1xi8> to vector<2x1xi32>
  %p0 = arith.muli %a0, %k0 : vector<2x1xi32>
  %t0 = arith.addi %p0, %acc : vector<2x1xi32>
  %a1 = arith.extsi %s1 : vector<2x1xi8> to vector<2x1xi32>
  %b1 = vector.broadcast %w1 : vector<1xi8> to vector<2x1xi8>
  %k1 = arith.extsi %b1 : vector<2x1xi8> to vector<2x1xi32>
  %p1 = arith.muli %a1, %k1 : vector<2x1xi32>
  %t1 = arith.addi %p1, %t0 : vector<2x1xi32>
  %a2 = arith.extsi %s2 : vector<2x1xi8> to vector<2x1xi32>
  %b2 = vector.broadcast %w2 : vector<1xi8> to vector<2x1xi8>
  %k2 = arith.extsi %b2 : vector<2x1xi8> to vector<2x1xi32>
  %p2 = arith.muli %a2, %k2 : vector<2x1xi32>
  %t2 = arith.addi %p2, %t1 : vector<2x1xi32>
  %twice = arith.addi %p1, %p1 : vector<2x1xi32>
  return %t2, %twice : vector<2x1xi32>, vector<2x1xi32>
}

// -----

// The rows in their loop over the 3 kernel rows, the accumulator carried:
// once paired, the loop is unrolled (llc would leave it rolled, its
// accumulators on the stack), each kernel row reading its own plane row.
// CHECK-LABEL: func.func @kernel_row_loop
// CHECK-NOT:     scf.for
// CHECK-COUNT-6: llvm.call_intrinsic "llvm.arm.smlad"
// CHECK-NOT:     scf.for
// CHECK:         return
func.func @kernel_row_loop(%plane: memref<1x4x4x1xi8>, %w: memref<3x3x8xi8>, %init: vector<2x1xi32>,
                           %ch: index) -> vector<2x1xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %z = arith.constant 0 : i8
  %sum = scf.for %r = %c0 to %c3 step %c1 iter_args(%acc = %init) -> (vector<2x1xi32>) {
    %x0 = vector.transfer_read %plane[%c0, %r, %c0, %c0], %z {in_bounds = [true]} : memref<1x4x4x1xi8>, vector<1xi8>
    %x1 = vector.transfer_read %plane[%c0, %r, %c1, %c0], %z {in_bounds = [true]} : memref<1x4x4x1xi8>, vector<1xi8>
    %x2 = vector.transfer_read %plane[%c0, %r, %c2, %c0], %z {in_bounds = [true]} : memref<1x4x4x1xi8>, vector<1xi8>
    %x3 = vector.transfer_read %plane[%c0, %r, %c3, %c0], %z {in_bounds = [true]} : memref<1x4x4x1xi8>, vector<1xi8>
    %e0 = vector.to_elements %x0 : vector<1xi8>
    %e1 = vector.to_elements %x1 : vector<1xi8>
    %e2 = vector.to_elements %x2 : vector<1xi8>
    %e3 = vector.to_elements %x3 : vector<1xi8>
    %row = vector.from_elements %e0, %e1, %e2, %e3 : vector<4x1xi8>
    %w0 = vector.transfer_read %w[%r, %c0, %ch], %z {in_bounds = [true]} : memref<3x3x8xi8>, vector<1xi8>
    %w1 = vector.transfer_read %w[%r, %c1, %ch], %z {in_bounds = [true]} : memref<3x3x8xi8>, vector<1xi8>
    %w2 = vector.transfer_read %w[%r, %c2, %ch], %z {in_bounds = [true]} : memref<3x3x8xi8>, vector<1xi8>
    %s0 = vector.extract_strided_slice %row {offsets = [0, 0], sizes = [2, 1], strides = [1, 1]} : vector<4x1xi8> to vector<2x1xi8>
    %s1 = vector.extract_strided_slice %row {offsets = [1, 0], sizes = [2, 1], strides = [1, 1]} : vector<4x1xi8> to vector<2x1xi8>
    %s2 = vector.extract_strided_slice %row {offsets = [2, 0], sizes = [2, 1], strides = [1, 1]} : vector<4x1xi8> to vector<2x1xi8>
    %a0 = arith.extsi %s0 : vector<2x1xi8> to vector<2x1xi32>
    %b0 = vector.broadcast %w0 : vector<1xi8> to vector<2x1xi8>
    %k0 = arith.extsi %b0 : vector<2x1xi8> to vector<2x1xi32>
    %p0 = arith.muli %a0, %k0 : vector<2x1xi32>
    %t0 = arith.addi %p0, %acc : vector<2x1xi32>
    %a1 = arith.extsi %s1 : vector<2x1xi8> to vector<2x1xi32>
    %b1 = vector.broadcast %w1 : vector<1xi8> to vector<2x1xi8>
    %k1 = arith.extsi %b1 : vector<2x1xi8> to vector<2x1xi32>
    %p1 = arith.muli %a1, %k1 : vector<2x1xi32>
    %t1 = arith.addi %p1, %t0 : vector<2x1xi32>
    %a2 = arith.extsi %s2 : vector<2x1xi8> to vector<2x1xi32>
    %b2 = vector.broadcast %w2 : vector<1xi8> to vector<2x1xi8>
    %k2 = arith.extsi %b2 : vector<2x1xi8> to vector<2x1xi32>
    %p2 = arith.muli %a2, %k2 : vector<2x1xi32>
    %t2 = arith.addi %p2, %t1 : vector<2x1xi32>
    scf.yield %t2 : vector<2x1xi32>
  }
  return %sum : vector<2x1xi32>
}
