// RUN: tinyml-opt %s --split-input-file --tinyml-contract-to-smlad | FileCheck %s
// RUN: tinyml-opt %s --split-input-file --tinyml-contract-to-smlad="halfword-weight-bytes=8" \
// RUN:   | FileCheck %s --check-prefix=HALF
// RUN: tinyml-opt %s --split-input-file --tinyml-contract-to-smlad="halfword-weight-bytes=7" \
// RUN:   | FileCheck %s --check-prefix=BYTES

#lhs = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#rhs = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
#acc = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>

// A pointwise conv's tile, as the 1-D conv vectorizer leaves it: one pixel,
// 8 input channels (two words), 2 output channels. The weights are packed
// at compile time with the reduction innermost ([kh][kw][cout][cin]), the
// tile's words read from the packed copy; each word gives two halfword
// pairs (SXTB16 and SXTB16 of the word rotated by 8), and each accumulator
// takes 2 SMLAD per word: 8 in all.
// CHECK-LABEL: func.func @pointwise
// CHECK-DAG:     %[[PACKED:.*]] = arith.constant dense<{{\[\[\[\[}}1, 3, 5, 7, 9, 11, 13, 15], [2, 4, 6, 8, 10, 12, 14, 16]]]]> : tensor<1x1x2x8xi8>
// CHECK:         %[[TILE:.*]] = vector.transfer_read %[[PACKED]][%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %{{.*}} {in_bounds = [true, true]} : tensor<1x1x2x8xi8>, vector<2x8xi8>
// CHECK:         %[[CHANNEL:.*]] = vector.extract %[[TILE]][0] : vector<8xi8> from vector<2x8xi8>
// CHECK:         vector.bitcast %[[CHANNEL]] : vector<8xi8> to vector<2xi32>
// CHECK:         llvm.call_intrinsic "llvm.arm.sxtb16"
// CHECK-COUNT-8: llvm.call_intrinsic "llvm.arm.smlad"
// CHECK:         %[[SUMS:.*]] = vector.from_elements %{{.*}}, %{{.*}} : vector<1x1x2xi32>
// CHECK-NOT:     vector.contract
// CHECK:         return %[[SUMS]]
func.func @pointwise(%x: tensor<1x1x8xi8>, %acc: vector<1x1x2xi32>) -> vector<1x1x2xi32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i8
  %w = arith.constant dense<[[[[1, 2], [3, 4], [5, 6], [7, 8], [9, 10], [11, 12], [13, 14], [15, 16]]]]> : tensor<1x1x8x2xi8>
  %tile = tensor.extract_slice %w[0, 0, 0, 0] [1, 1, 8, 2] [1, 1, 1, 1] : tensor<1x1x8x2xi8> to tensor<1x8x2xi8>
  %lhs = vector.transfer_read %x[%c0, %c0, %c0], %zero {in_bounds = [true, true, true]} : tensor<1x1x8xi8>, vector<1x1x8xi8>
  %read = vector.transfer_read %tile[%c0, %c0, %c0], %zero {in_bounds = [true, true, true]} : tensor<1x8x2xi8>, vector<1x8x2xi8>
  %rhs = vector.extract %read[0] : vector<8x2xi8> from vector<1x8x2xi8>
  %lhs32 = arith.extsi %lhs : vector<1x1x8xi8> to vector<1x1x8xi32>
  %rhs32 = arith.extsi %rhs : vector<8x2xi8> to vector<8x2xi32>
  %y = vector.contract {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "parallel", "reduction"], kind = #vector.kind<add>} %lhs32, %rhs32, %acc : vector<1x1x8xi32>, vector<8x2xi32> into vector<1x1x2xi32>
  return %y : vector<1x1x2xi32>
}

// -----

#lhs = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#rhs = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
#acc = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>

// An int16 row (tinyml-widen-conv-inputs) is its halfword pairs already:
// its words, (x0, x1) and (x2, x3), multiply directly, and only the weights
// are extended. Their words are packed in the order 0, 2, 1, 3 (channel 0:
// 1, 5, 3, 7), so that SXTB16 gives (w0, w1) and SXTB16 of the word rotated
// by 8 gives (w2, w3): 2 SXTB16 (one weight word) and 2 SMLAD.
// CHECK-LABEL: func.func @int16_rows
// CHECK-DAG:     %[[PACKED:.*]] = arith.constant dense<{{\[\[\[\[}}1, 5, 3, 7]]]]> : tensor<1x1x1x4xi8>
// CHECK:         vector.bitcast %{{.*}} : vector<4xi8> to vector<1xi32>
// CHECK:         vector.bitcast %{{.*}} : vector<4xi16> to vector<2xi32>
// CHECK-COUNT-2: llvm.call_intrinsic "llvm.arm.sxtb16"
// CHECK-NOT:     llvm.call_intrinsic "llvm.arm.sxtb16"
// CHECK-COUNT-2: llvm.call_intrinsic "llvm.arm.smlad"
// CHECK-NOT:     vector.contract
// With `halfword-weight-bytes` of 8 the 4 weights (8 bytes as int16) are
// stored as int16, in order: their words are the pairs (w0, w1), (w2, w3)
// as loaded, no SXTB16 at all. A bound of 7 leaves them int8.
// HALF-LABEL: func.func @int16_rows
// HALF-DAG:     arith.constant dense<{{\[\[\[\[}}1, 3, 5, 7]]]]> : tensor<1x1x1x4xi16>
// HALF-NOT:     llvm.call_intrinsic "llvm.arm.sxtb16"
// HALF:         vector.bitcast %{{.*}} : vector<4xi16> to vector<2xi32>
// HALF:         vector.bitcast %{{.*}} : vector<4xi16> to vector<2xi32>
// HALF-NOT:     llvm.call_intrinsic "llvm.arm.sxtb16"
// HALF-COUNT-2: llvm.call_intrinsic "llvm.arm.smlad"
// BYTES-LABEL: func.func @int16_rows
// BYTES:         tensor<1x1x1x4xi8>
// BYTES-COUNT-2: llvm.call_intrinsic "llvm.arm.sxtb16"
func.func @int16_rows(%x: tensor<1x1x4xi16>, %acc: vector<1x1x1xi32>) -> vector<1x1x1xi32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i8
  %zero16 = arith.constant 0 : i16
  %w = arith.constant dense<[[[[1], [3], [5], [7]]]]> : tensor<1x1x4x1xi8>
  %tile = tensor.extract_slice %w[0, 0, 0, 0] [1, 1, 4, 1] [1, 1, 1, 1] : tensor<1x1x4x1xi8> to tensor<1x4x1xi8>
  %lhs = vector.transfer_read %x[%c0, %c0, %c0], %zero16 {in_bounds = [true, true, true]} : tensor<1x1x4xi16>, vector<1x1x4xi16>
  %read = vector.transfer_read %tile[%c0, %c0, %c0], %zero {in_bounds = [true, true, true]} : tensor<1x4x1xi8>, vector<1x4x1xi8>
  %rhs = vector.extract %read[0] : vector<4x1xi8> from vector<1x4x1xi8>
  %lhs32 = arith.extsi %lhs : vector<1x1x4xi16> to vector<1x1x4xi32>
  %rhs32 = arith.extsi %rhs : vector<4x1xi8> to vector<4x1xi32>
  %y = vector.contract {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "parallel", "reduction"], kind = #vector.kind<add>} %lhs32, %rhs32, %acc : vector<1x1x4xi32>, vector<4x1xi32> into vector<1x1x1xi32>
  return %y : vector<1x1x1xi32>
}

// -----

#lhs = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#rhs = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
#acc = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>

// The tile's place in the weights is the sum of its slices' offsets: the
// reduction step %k and the channel tile %c become the packed copy's last
// two indices.
// CHECK-LABEL: func.func @stepped
// CHECK-SAME:    (%{{.*}}: tensor<1x1x4xi8>, %{{.*}}: vector<1x1x2xi32>, %[[K:.*]]: index, %[[C:.*]]: index)
// CHECK:         %[[PACKED:.*]] = arith.constant {{.*}} : tensor<1x1x4x8xi8>
// CHECK:         vector.transfer_read %[[PACKED]][%{{.*}}, %{{.*}}, %[[C]], %[[K]]]
// CHECK-COUNT-4: llvm.call_intrinsic "llvm.arm.smlad"
func.func @stepped(%x: tensor<1x1x4xi8>, %acc: vector<1x1x2xi32>, %k: index, %c: index) -> vector<1x1x2xi32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i8
  %w = arith.constant dense<1> : tensor<1x1x8x4xi8>
  %channels = tensor.extract_slice %w[0, 0, 0, %c] [1, 1, 8, 2] [1, 1, 1, 1] : tensor<1x1x8x4xi8> to tensor<1x1x8x2xi8>
  %step = tensor.extract_slice %channels[0, 0, %k, 0] [1, 1, 4, 2] [1, 1, 1, 1] : tensor<1x1x8x2xi8> to tensor<1x4x2xi8>
  %lhs = vector.transfer_read %x[%c0, %c0, %c0], %zero {in_bounds = [true, true, true]} : tensor<1x1x4xi8>, vector<1x1x4xi8>
  %read = vector.transfer_read %step[%c0, %c0, %c0], %zero {in_bounds = [true, true, true]} : tensor<1x4x2xi8>, vector<1x4x2xi8>
  %rhs = vector.extract %read[0] : vector<4x2xi8> from vector<1x4x2xi8>
  %lhs32 = arith.extsi %lhs : vector<1x1x4xi8> to vector<1x1x4xi32>
  %rhs32 = arith.extsi %rhs : vector<4x2xi8> to vector<4x2xi32>
  %y = vector.contract {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "parallel", "reduction"], kind = #vector.kind<add>} %lhs32, %rhs32, %acc : vector<1x1x4xi32>, vector<4x2xi32> into vector<1x1x2xi32>
  return %y : vector<1x1x2xi32>
}

// -----

// A vectorized matmul's contraction multiplies the int8 vectors directly
// (the contraction sign-extends them): one row, 4 k, 2 columns.
// CHECK-LABEL: func.func @matrix_vector
// CHECK:         arith.constant dense<{{\[\[}}1, 3, 5, 7], [2, 4, 6, 8]]> : tensor<2x4xi8>
// CHECK-COUNT-4: llvm.call_intrinsic "llvm.arm.smlad"
// CHECK-NOT:     vector.contract
func.func @matrix_vector(%x: tensor<1x4xi8>, %acc: vector<1x2xi32>) -> vector<1x2xi32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i8
  %w = arith.constant dense<[[1, 2], [3, 4], [5, 6], [7, 8]]> : tensor<4x2xi8>
  %lhs = vector.transfer_read %x[%c0, %c0], %zero {in_bounds = [true, true]} : tensor<1x4xi8>, vector<1x4xi8>
  %rhs = vector.transfer_read %w[%c0, %c0], %zero {in_bounds = [true, true]} : tensor<4x2xi8>, vector<4x2xi8>
  %y = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %lhs, %rhs, %acc : vector<1x4xi8>, vector<4x2xi8> into vector<1x2xi32>
  return %y : vector<1x2xi32>
}

// -----

// Not firing: a reduction of 3 input channels is not a whole word.
// CHECK-LABEL: func.func @reduction_not_a_word
// CHECK-NOT:     llvm.call_intrinsic
// CHECK:         vector.contract
func.func @reduction_not_a_word(%x: tensor<1x3xi8>, %acc: vector<1x2xi32>) -> vector<1x2xi32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i8
  %w = arith.constant dense<1> : tensor<3x2xi8>
  %lhs = vector.transfer_read %x[%c0, %c0], %zero {in_bounds = [true, true]} : tensor<1x3xi8>, vector<1x3xi8>
  %rhs = vector.transfer_read %w[%c0, %c0], %zero {in_bounds = [true, true]} : tensor<3x2xi8>, vector<3x2xi8>
  %y = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %lhs, %rhs, %acc : vector<1x3xi8>, vector<3x2xi8> into vector<1x2xi32>
  return %y : vector<1x2xi32>
}

// -----

// Not firing: weights that are not a constant cannot be packed.
// CHECK-LABEL: func.func @weights_not_constant
// CHECK-NOT:     llvm.call_intrinsic
// CHECK:         vector.contract
func.func @weights_not_constant(%x: tensor<1x4xi8>, %w: tensor<4x2xi8>, %acc: vector<1x2xi32>) -> vector<1x2xi32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i8
  %lhs = vector.transfer_read %x[%c0, %c0], %zero {in_bounds = [true, true]} : tensor<1x4xi8>, vector<1x4xi8>
  %rhs = vector.transfer_read %w[%c0, %c0], %zero {in_bounds = [true, true]} : tensor<4x2xi8>, vector<4x2xi8>
  %y = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %lhs, %rhs, %acc : vector<1x4xi8>, vector<4x2xi8> into vector<1x2xi32>
  return %y : vector<1x2xi32>
}

// -----

// Not firing: the input's rows must have the reduction innermost (one word
// is four consecutive input channels).
// CHECK-LABEL: func.func @reduction_not_innermost
// CHECK-NOT:     llvm.call_intrinsic
// CHECK:         vector.contract
func.func @reduction_not_innermost(%x: tensor<4x1xi8>, %acc: vector<1x2xi32>) -> vector<1x2xi32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i8
  %w = arith.constant dense<1> : tensor<4x2xi8>
  %lhs = vector.transfer_read %x[%c0, %c0], %zero {in_bounds = [true, true]} : tensor<4x1xi8>, vector<4x1xi8>
  %rhs = vector.transfer_read %w[%c0, %c0], %zero {in_bounds = [true, true]} : tensor<4x2xi8>, vector<4x2xi8>
  %y = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %lhs, %rhs, %acc : vector<4x1xi8>, vector<4x2xi8> into vector<1x2xi32>
  return %y : vector<1x2xi32>
}

// -----

// Not firing: a float contraction.
// CHECK-LABEL: func.func @float
// CHECK-NOT:     llvm.call_intrinsic
// CHECK:         vector.contract
func.func @float(%lhs: vector<1x4xf32>, %rhs: vector<4x2xf32>, %acc: vector<1x2xf32>) -> vector<1x2xf32> {
  %y = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %lhs, %rhs, %acc : vector<1x4xf32>, vector<4x2xf32> into vector<1x2xf32>
  return %y : vector<1x2xf32>
}

// -----

// Not firing: int16 weights (only the input rows may be int16).
// CHECK-LABEL: func.func @int16_weights
// CHECK-NOT:     llvm.call_intrinsic
// CHECK:         vector.contract
func.func @int16_weights(%x: tensor<1x4xi8>, %acc: vector<1x2xi32>) -> vector<1x2xi32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i8
  %zero16 = arith.constant 0 : i16
  %w = arith.constant dense<1> : tensor<4x2xi16>
  %lhs = vector.transfer_read %x[%c0, %c0], %zero {in_bounds = [true, true]} : tensor<1x4xi8>, vector<1x4xi8>
  %rhs = vector.transfer_read %w[%c0, %c0], %zero16 {in_bounds = [true, true]} : tensor<4x2xi16>, vector<4x2xi16>
  %lhs32 = arith.extsi %lhs : vector<1x4xi8> to vector<1x4xi32>
  %rhs32 = arith.extsi %rhs : vector<4x2xi16> to vector<4x2xi32>
  %y = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %lhs32, %rhs32, %acc : vector<1x4xi32>, vector<4x2xi32> into vector<1x2xi32>
  return %y : vector<1x2xi32>
}
