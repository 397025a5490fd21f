// RUN: tinyml-opt %s --split-input-file --tinyml-unsigned-planes --canonicalize | FileCheck %s

// tinyml-unsigned-planes (tinyml/codegen/unsigned_planes.py): on ARMv6-M a
// depthwise tile's staged plane is stored +128 and read unsigned.

// A depthwise tile of one pixel as decompose-pads leaves it: the channel
// copied into an empty padded plane, a padding strip filled with the zero
// point (-128), a loop over the kernel's 3 rows multiplying 3 plane values
// by 3 weights each, from the bias. The copy becomes an XOR by 0x80 of the
// input itself (no copy first), the padding -128 ^ 0x80 = 0, each plane
// value zero-extended, and the bias 1000 - 128 * sum(w) = 1000 - 128 * 27
// = -2456.
// CHECK-LABEL: func.func @depthwise_plane
// CHECK-SAME:    (%[[X:.*]]: tensor<1x2x2x1xi8>
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0 : i8
// CHECK-DAG:     %[[BIAS:.*]] = arith.constant dense<-2456> : tensor<1xi32>
// CHECK-NOT:     bufferization.alloc_tensor
// CHECK:         %[[FLIPPED:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<1x2x2x1xi8>)
// CHECK:           arith.xori %{{.*}}, %{{.*}} : i8
// CHECK:         tensor.insert_slice %[[FLIPPED]]
// CHECK:         linalg.fill ins(%[[ZERO]] : i8)
// CHECK:         vector.transfer_read %[[BIAS]]
// CHECK:         scf.for
// CHECK-COUNT-3:   arith.extui %{{.*}} : i8 to i32
// CHECK-NOT:       arith.extsi %{{.*}} : i8 to i32 {{.*}}tensor<1x4x4x1xi8>
func.func @depthwise_plane(%x: tensor<1x2x2x1xi8>, %c: index) -> vector<1x1xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %pad = arith.constant -128 : i8
  %zero = arith.constant 0 : i32
  %w = arith.constant dense<[[[-128], [127], [1]], [[2], [3], [4]], [[5], [6], [7]]]> : tensor<3x3x1xi8>
  %bias = arith.constant dense<[1000]> : tensor<1xi32>
  %copy = bufferization.alloc_tensor() copy(%x) : tensor<1x2x2x1xi8>
  %e = tensor.empty() : tensor<1x4x4x1xi8>
  %p0 = tensor.insert_slice %copy into %e[0, 1, 1, 0] [1, 2, 2, 1] [1, 1, 1, 1] : tensor<1x2x2x1xi8> into tensor<1x4x4x1xi8>
  %s0 = tensor.extract_slice %p0[0, 0, 0, 0] [1, 1, 4, 1] [1, 1, 1, 1] : tensor<1x4x4x1xi8> to tensor<1x1x4x1xi8>
  %f0 = linalg.fill ins(%pad : i8) outs(%s0 : tensor<1x1x4x1xi8>) -> tensor<1x1x4x1xi8>
  %p1 = tensor.insert_slice %f0 into %p0[0, 0, 0, 0] [1, 1, 4, 1] [1, 1, 1, 1] : tensor<1x1x4x1xi8> into tensor<1x4x4x1xi8>
  %b = vector.transfer_read %bias[%c], %zero {in_bounds = [true]} : tensor<1xi32>, vector<1xi32>
  %init = vector.broadcast %b : vector<1xi32> to vector<1x1xi32>
  %acc = scf.for %kh = %c0 to %c3 step %c1 iter_args(%a = %init) -> (vector<1x1xi32>) {
    %s = vector.extract %a[0, 0] : i32 from vector<1x1xi32>
    %x0 = tensor.extract %p1[%c0, %kh, %c0, %c0] : tensor<1x4x4x1xi8>
    %x0w = arith.extsi %x0 : i8 to i32
    %w0 = tensor.extract %w[%kh, %c0, %c] : tensor<3x3x1xi8>
    %w0w = arith.extsi %w0 : i8 to i32
    %m0 = arith.muli %x0w, %w0w : i32
    %t0 = arith.addi %s, %m0 : i32
    %x1 = tensor.extract %p1[%c0, %kh, %c1, %c0] : tensor<1x4x4x1xi8>
    %x1w = arith.extsi %x1 : i8 to i32
    %w1 = tensor.extract %w[%kh, %c1, %c] : tensor<3x3x1xi8>
    %w1w = arith.extsi %w1 : i8 to i32
    %m1 = arith.muli %x1w, %w1w : i32
    %t1 = arith.addi %t0, %m1 : i32
    %x2 = tensor.extract %p1[%c0, %kh, %c2, %c0] : tensor<1x4x4x1xi8>
    %x2w = arith.extsi %x2 : i8 to i32
    %w2 = tensor.extract %w[%kh, %c2, %c] : tensor<3x3x1xi8>
    %w2w = arith.extsi %w2 : i8 to i32
    %m2 = arith.muli %x2w, %w2w : i32
    %t2 = arith.addi %t1, %m2 : i32
    %v = vector.from_elements %t2 : vector<1x1xi32>
    scf.yield %v : vector<1x1xi32>
  }
  return %acc : vector<1x1xi32>
}

// -----

// Not firing: the plane is also returned, so its values must stay as
// they are.
// CHECK-LABEL: func.func @plane_read_elsewhere
// CHECK-NOT:     arith.xori
// CHECK-NOT:     arith.extui
func.func @plane_read_elsewhere(%x: tensor<1x2x2x1xi8>, %c: index) -> (vector<1x1xi32>, tensor<1x4x4x1xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %pad = arith.constant -128 : i8
  %zero = arith.constant 0 : i32
  %w = arith.constant dense<[[[-128], [127], [1]], [[2], [3], [4]], [[5], [6], [7]]]> : tensor<3x3x1xi8>
  %bias = arith.constant dense<[1000]> : tensor<1xi32>
  %copy = bufferization.alloc_tensor() copy(%x) : tensor<1x2x2x1xi8>
  %e = tensor.empty() : tensor<1x4x4x1xi8>
  %p0 = tensor.insert_slice %copy into %e[0, 1, 1, 0] [1, 2, 2, 1] [1, 1, 1, 1] : tensor<1x2x2x1xi8> into tensor<1x4x4x1xi8>
  %s0 = tensor.extract_slice %p0[0, 0, 0, 0] [1, 1, 4, 1] [1, 1, 1, 1] : tensor<1x4x4x1xi8> to tensor<1x1x4x1xi8>
  %f0 = linalg.fill ins(%pad : i8) outs(%s0 : tensor<1x1x4x1xi8>) -> tensor<1x1x4x1xi8>
  %p1 = tensor.insert_slice %f0 into %p0[0, 0, 0, 0] [1, 1, 4, 1] [1, 1, 1, 1] : tensor<1x1x4x1xi8> into tensor<1x4x4x1xi8>
  %b = vector.transfer_read %bias[%c], %zero {in_bounds = [true]} : tensor<1xi32>, vector<1xi32>
  %init = vector.broadcast %b : vector<1xi32> to vector<1x1xi32>
  %acc = scf.for %kh = %c0 to %c3 step %c1 iter_args(%a = %init) -> (vector<1x1xi32>) {
    %s = vector.extract %a[0, 0] : i32 from vector<1x1xi32>
    %x0 = tensor.extract %p1[%c0, %kh, %c0, %c0] : tensor<1x4x4x1xi8>
    %x0w = arith.extsi %x0 : i8 to i32
    %w0 = tensor.extract %w[%kh, %c0, %c] : tensor<3x3x1xi8>
    %w0w = arith.extsi %w0 : i8 to i32
    %m0 = arith.muli %x0w, %w0w : i32
    %t0 = arith.addi %s, %m0 : i32
    %x1 = tensor.extract %p1[%c0, %kh, %c1, %c0] : tensor<1x4x4x1xi8>
    %x1w = arith.extsi %x1 : i8 to i32
    %w1 = tensor.extract %w[%kh, %c1, %c] : tensor<3x3x1xi8>
    %w1w = arith.extsi %w1 : i8 to i32
    %m1 = arith.muli %x1w, %w1w : i32
    %t1 = arith.addi %t0, %m1 : i32
    %x2 = tensor.extract %p1[%c0, %kh, %c2, %c0] : tensor<1x4x4x1xi8>
    %x2w = arith.extsi %x2 : i8 to i32
    %w2 = tensor.extract %w[%kh, %c2, %c] : tensor<3x3x1xi8>
    %w2w = arith.extsi %w2 : i8 to i32
    %m2 = arith.muli %x2w, %w2w : i32
    %t2 = arith.addi %t1, %m2 : i32
    %v = vector.from_elements %t2 : vector<1x1xi32>
    scf.yield %v : vector<1x1xi32>
  }
  return %acc, %p1 : vector<1x1xi32>, tensor<1x4x4x1xi8>
}

// -----

// Not firing: the accumulators start from an argument, not from a bias
// constant that 128 sum(w) could be taken from.
// CHECK-LABEL: func.func @start_not_a_bias
// CHECK-NOT:     arith.xori
// CHECK-NOT:     arith.extui
func.func @start_not_a_bias(%x: tensor<1x2x2x1xi8>, %c: index, %start: vector<1xi32>) -> vector<1x1xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %pad = arith.constant -128 : i8
  %zero = arith.constant 0 : i32
  %w = arith.constant dense<[[[-128], [127], [1]], [[2], [3], [4]], [[5], [6], [7]]]> : tensor<3x3x1xi8>
  %bias = arith.constant dense<[1000]> : tensor<1xi32>
  %copy = bufferization.alloc_tensor() copy(%x) : tensor<1x2x2x1xi8>
  %e = tensor.empty() : tensor<1x4x4x1xi8>
  %p0 = tensor.insert_slice %copy into %e[0, 1, 1, 0] [1, 2, 2, 1] [1, 1, 1, 1] : tensor<1x2x2x1xi8> into tensor<1x4x4x1xi8>
  %s0 = tensor.extract_slice %p0[0, 0, 0, 0] [1, 1, 4, 1] [1, 1, 1, 1] : tensor<1x4x4x1xi8> to tensor<1x1x4x1xi8>
  %f0 = linalg.fill ins(%pad : i8) outs(%s0 : tensor<1x1x4x1xi8>) -> tensor<1x1x4x1xi8>
  %p1 = tensor.insert_slice %f0 into %p0[0, 0, 0, 0] [1, 1, 4, 1] [1, 1, 1, 1] : tensor<1x1x4x1xi8> into tensor<1x4x4x1xi8>
  %init = vector.broadcast %start : vector<1xi32> to vector<1x1xi32>
  %acc = scf.for %kh = %c0 to %c3 step %c1 iter_args(%a = %init) -> (vector<1x1xi32>) {
    %s = vector.extract %a[0, 0] : i32 from vector<1x1xi32>
    %x0 = tensor.extract %p1[%c0, %kh, %c0, %c0] : tensor<1x4x4x1xi8>
    %x0w = arith.extsi %x0 : i8 to i32
    %w0 = tensor.extract %w[%kh, %c0, %c] : tensor<3x3x1xi8>
    %w0w = arith.extsi %w0 : i8 to i32
    %m0 = arith.muli %x0w, %w0w : i32
    %t0 = arith.addi %s, %m0 : i32
    %x1 = tensor.extract %p1[%c0, %kh, %c1, %c0] : tensor<1x4x4x1xi8>
    %x1w = arith.extsi %x1 : i8 to i32
    %w1 = tensor.extract %w[%kh, %c1, %c] : tensor<3x3x1xi8>
    %w1w = arith.extsi %w1 : i8 to i32
    %m1 = arith.muli %x1w, %w1w : i32
    %t1 = arith.addi %t0, %m1 : i32
    %x2 = tensor.extract %p1[%c0, %kh, %c2, %c0] : tensor<1x4x4x1xi8>
    %x2w = arith.extsi %x2 : i8 to i32
    %w2 = tensor.extract %w[%kh, %c2, %c] : tensor<3x3x1xi8>
    %w2w = arith.extsi %w2 : i8 to i32
    %m2 = arith.muli %x2w, %w2w : i32
    %t2 = arith.addi %t1, %m2 : i32
    %v = vector.from_elements %t2 : vector<1x1xi32>
    scf.yield %v : vector<1x1xi32>
  }
  return %acc : vector<1x1xi32>
}
