// RUN: tinyml-opt %s --split-input-file --tinyml-contract-to-mve-dot | FileCheck %s

#lhs = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#rhs = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
#acc = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>

// A pointwise conv's tile: one pixel, 16 input channels, 2 output channels.
// The weights are packed with the reduction innermost ([kh][kw][cout][cin])
// so that each channel's 16 values are one row of the tile read from the
// packed copy; each accumulator is the add reduction of the sign-extended
// products of its input row and its channel's row (one VMLADAVA.S8 each).
// CHECK-LABEL: func.func @pointwise
// CHECK-DAG:     %[[PACKED:.*]] = arith.constant dense<{{\[\[\[\[}}0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30], [1, 3, 5, {{.*}}]]]]> : tensor<1x1x2x16xi8>
// CHECK:         %[[TILE:.*]] = vector.transfer_read %[[PACKED]][%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %{{.*}} {in_bounds = [true, true]} : tensor<1x1x2x16xi8>, vector<2x16xi8>
// CHECK-DAG:     %[[W0:.*]] = vector.extract %[[TILE]][0] : vector<16xi8> from vector<2x16xi8>
// CHECK-DAG:     %[[W1:.*]] = vector.extract %[[TILE]][1] : vector<16xi8> from vector<2x16xi8>
// CHECK-DAG:     %[[ROW:.*]] = vector.extract %{{.*}}[0, 0] : vector<16xi8> from vector<1x1x16xi8>
// CHECK-DAG:     %[[ACC0:.*]] = vector.extract %{{.*}}[0, 0, 0] : i32 from vector<1x1x2xi32>
// CHECK-DAG:     %[[ACC1:.*]] = vector.extract %{{.*}}[0, 0, 1] : i32 from vector<1x1x2xi32>
// CHECK-DAG:     %[[W0_32:.*]] = arith.extsi %[[W0]] : vector<16xi8> to vector<16xi32>
// CHECK-DAG:     %[[W1_32:.*]] = arith.extsi %[[W1]] : vector<16xi8> to vector<16xi32>
// CHECK-DAG:     %[[X32:.*]] = arith.extsi %[[ROW]] : vector<16xi8> to vector<16xi32>
// CHECK:         %[[P0:.*]] = arith.muli %[[X32]], %[[W0_32]] : vector<16xi32>
// CHECK:         %[[S0:.*]] = vector.reduction <add>, %[[P0]], %[[ACC0]] : vector<16xi32> into i32
// CHECK:         %[[P1:.*]] = arith.muli %[[X32]], %[[W1_32]] : vector<16xi32>
// CHECK:         %[[S1:.*]] = vector.reduction <add>, %[[P1]], %[[ACC1]] : vector<16xi32> into i32
// CHECK:         %[[SUMS:.*]] = vector.from_elements %[[S0]], %[[S1]] : vector<1x1x2xi32>
// CHECK-NOT:     vector.contract
// CHECK:         return %[[SUMS]]
func.func @pointwise(%x: tensor<1x1x16xi8>, %acc: vector<1x1x2xi32>) -> vector<1x1x2xi32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i8
  %w = arith.constant dense<[[[[0, 1], [2, 3], [4, 5], [6, 7], [8, 9], [10, 11], [12, 13], [14, 15], [16, 17], [18, 19], [20, 21], [22, 23], [24, 25], [26, 27], [28, 29], [30, 31]]]]> : tensor<1x1x16x2xi8>
  %tile = tensor.extract_slice %w[0, 0, 0, 0] [1, 1, 16, 2] [1, 1, 1, 1] : tensor<1x1x16x2xi8> to tensor<1x16x2xi8>
  %lhs = vector.transfer_read %x[%c0, %c0, %c0], %zero {in_bounds = [true, true, true]} : tensor<1x1x16xi8>, vector<1x1x16xi8>
  %read = vector.transfer_read %tile[%c0, %c0, %c0], %zero {in_bounds = [true, true, true]} : tensor<1x16x2xi8>, vector<1x16x2xi8>
  %rhs = vector.extract %read[0] : vector<16x2xi8> from vector<1x16x2xi8>
  %lhs32 = arith.extsi %lhs : vector<1x1x16xi8> to vector<1x1x16xi32>
  %rhs32 = arith.extsi %rhs : vector<16x2xi8> to vector<16x2xi32>
  %y = vector.contract {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "parallel", "reduction"], kind = #vector.kind<add>} %lhs32, %rhs32, %acc : vector<1x1x16xi32>, vector<16x2xi32> into vector<1x1x2xi32>
  return %y : vector<1x1x2xi32>
}

// -----

// A step of 28 values is reduced in pieces of 16, 8 and 4 values: LLVM
// makes one Helium dot product of a 16-, 8- or 4-lane piece, but splits a
// longer reduction into four-lane quarters first. Each piece carries the
// sum on: one chain per accumulator.
// CHECK-LABEL: func.func @pieces
// CHECK:         %[[A:.*]] = vector.extract_strided_slice %{{.*}} {offsets = [0], sizes = [16], strides = [1]} : vector<28xi8> to vector<16xi8>
// CHECK:         %[[S16:.*]] = vector.reduction <add>, %{{.*}}, %{{.*}} : vector<16xi32> into i32
// CHECK:         vector.extract_strided_slice %{{.*}} {offsets = [16], sizes = [8], strides = [1]} : vector<28xi8> to vector<8xi8>
// CHECK:         %[[S8:.*]] = vector.reduction <add>, %{{.*}}, %[[S16]] : vector<8xi32> into i32
// CHECK:         vector.extract_strided_slice %{{.*}} {offsets = [24], sizes = [4], strides = [1]} : vector<28xi8> to vector<4xi8>
// CHECK:         %[[S4:.*]] = vector.reduction <add>, %{{.*}}, %[[S8]] : vector<4xi32> into i32
// CHECK:         vector.from_elements %[[S4]] : vector<1x1xi32>
func.func @pieces(%x: tensor<1x28xi8>, %acc: vector<1x1xi32>) -> vector<1x1xi32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i8
  %w = arith.constant dense<3> : tensor<28x1xi8>
  %lhs = vector.transfer_read %x[%c0, %c0], %zero {in_bounds = [true, true]} : tensor<1x28xi8>, vector<1x28xi8>
  %rhs = vector.transfer_read %w[%c0, %c0], %zero {in_bounds = [true, true]} : tensor<28x1xi8>, vector<28x1xi8>
  %y = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %lhs, %rhs, %acc : vector<1x28xi8>, vector<28x1xi8> into vector<1x1xi32>
  return %y : vector<1x1xi32>
}

// -----

// The tile's place in the weights is the sum of its slices' offsets: the
// reduction step %k and the channel tile %c become the packed copy's last
// two indices.
// CHECK-LABEL: func.func @stepped
// CHECK-SAME:    (%{{.*}}: tensor<1x16xi8>, %{{.*}}: vector<1x2xi32>, %[[K:.*]]: index, %[[C:.*]]: index)
// CHECK:         %[[PACKED:.*]] = arith.constant {{.*}} : tensor<4x32xi8>
// CHECK:         vector.transfer_read %[[PACKED]][%[[C]], %[[K]]]
// CHECK-COUNT-2: vector.reduction <add>
func.func @stepped(%x: tensor<1x16xi8>, %acc: vector<1x2xi32>, %k: index, %c: index) -> vector<1x2xi32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i8
  %w = arith.constant dense<1> : tensor<32x4xi8>
  %channels = tensor.extract_slice %w[0, %c] [32, 2] [1, 1] : tensor<32x4xi8> to tensor<32x2xi8>
  %step = tensor.extract_slice %channels[%k, 0] [16, 2] [1, 1] : tensor<32x2xi8> to tensor<16x2xi8>
  %lhs = vector.transfer_read %x[%c0, %c0], %zero {in_bounds = [true, true]} : tensor<1x16xi8>, vector<1x16xi8>
  %rhs = vector.transfer_read %step[%c0, %c0], %zero {in_bounds = [true, true]} : tensor<16x2xi8>, vector<16x2xi8>
  %y = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %lhs, %rhs, %acc : vector<1x16xi8>, vector<16x2xi8> into vector<1x2xi32>
  return %y : vector<1x2xi32>
}

// -----

// Not firing: a reduction of 3 input channels is not a whole word.
// CHECK-LABEL: func.func @reduction_not_a_word
// CHECK-NOT:     vector.reduction
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
// CHECK-NOT:     vector.reduction
// CHECK:         vector.contract
func.func @weights_not_constant(%x: tensor<1x16xi8>, %w: tensor<16x2xi8>, %acc: vector<1x2xi32>) -> vector<1x2xi32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i8
  %lhs = vector.transfer_read %x[%c0, %c0], %zero {in_bounds = [true, true]} : tensor<1x16xi8>, vector<1x16xi8>
  %rhs = vector.transfer_read %w[%c0, %c0], %zero {in_bounds = [true, true]} : tensor<16x2xi8>, vector<16x2xi8>
  %y = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %lhs, %rhs, %acc : vector<1x16xi8>, vector<16x2xi8> into vector<1x2xi32>
  return %y : vector<1x2xi32>
}

// -----

// Not firing: a float contraction is the FMAs' (tinyml-lower-vectors).
// CHECK-LABEL: func.func @float_contraction
// CHECK-NOT:     vector.reduction
// CHECK:         vector.contract
func.func @float_contraction(%lhs: vector<1x16xf32>, %acc: vector<1x2xf32>) -> vector<1x2xf32> {
  %w = arith.constant dense<1.0> : vector<16x2xf32>
  %y = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %lhs, %w, %acc : vector<1x16xf32>, vector<16x2xf32> into vector<1x2xf32>
  return %y : vector<1x2xf32>
}
