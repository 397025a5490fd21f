// RUN: tinyml-opt %s --split-input-file --tinyml-pack-channel-weights | FileCheck %s

// A depthwise filter [kh][kw][c] = [2][2][3] read one value at a time, a
// channel's taps in a tile of one channel: laid out channel first, [c][kh][kw]
// (value v at [i][j][c] = 6i + 3j + c moves to [c][i][j]), each load's
// indices permuted alike.
// CHECK-LABEL: memref.global "private" constant @filter : memref<3x2x2xi8> = dense<{{\[\[\[}}0, 3], [6, 9]], {{\[\[}}1, 4], [7, 10]], {{\[\[}}2, 5], [8, 11]]]>
// CHECK-LABEL: func.func @one_channel
// CHECK-SAME:    (%[[C:.*]]: index, %[[I:.*]]: index)
// CHECK:         %[[W:.*]] = memref.get_global @filter : memref<3x2x2xi8>
// CHECK:         vector.load %[[W]][%[[C]], %[[I]], %c1] : memref<3x2x2xi8>, vector<1xi8>
// CHECK:         memref.load %[[W]][%[[C]], %[[I]], %c0] : memref<3x2x2xi8>
memref.global "private" constant @filter : memref<2x2x3xi8> = dense<[[[0, 1, 2], [3, 4, 5]], [[6, 7, 8], [9, 10, 11]]]>
func.func @one_channel(%c: index, %i: index) -> (vector<1xi8>, i8) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %w = memref.get_global @filter : memref<2x2x3xi8>
  %a = vector.load %w[%i, %c1, %c] : memref<2x2x3xi8>, vector<1xi8>
  %b = memref.load %w[%i, %c0, %c] : memref<2x2x3xi8>
  return %a, %b : vector<1xi8>, i8
}

// -----

// Not firing: a read of several channels at once (a tile of channels, as
// on the M0) needs them consecutive; the constant keeps its layout.
// CHECK-LABEL: memref.global "private" constant @vectors : memref<2x2x4xi8>
// CHECK-LABEL: func.func @channel_vector
// CHECK:         vector.load %{{.*}} : memref<2x2x4xi8>, vector<4xi8>
memref.global "private" constant @vectors : memref<2x2x4xi8> = dense<1>
func.func @channel_vector(%i: index) -> vector<4xi8> {
  %c0 = arith.constant 0 : index
  %w = memref.get_global @vectors : memref<2x2x4xi8>
  %a = vector.load %w[%i, %c0, %c0] : memref<2x2x4xi8>, vector<4xi8>
  return %a : vector<4xi8>
}

// -----

// Not firing: a rank-2 constant (a matmul's weights).
// CHECK-LABEL: memref.global "private" constant @matrix : memref<2x3xi8>
memref.global "private" constant @matrix : memref<2x3xi8> = dense<1>
func.func @read_matrix(%i: index, %j: index) -> i8 {
  %w = memref.get_global @matrix : memref<2x3xi8>
  %a = memref.load %w[%i, %j] : memref<2x3xi8>
  return %a : i8
}
