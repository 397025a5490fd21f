// RUN: tinyml-opt %s --split-input-file --tinyml-contract-to-smlad | FileCheck %s
// RUN: tinyml-opt %s --split-input-file --pass-pipeline="builtin.module(tinyml-contract-to-smlad{byte-pairs=false})" \
// RUN:   | FileCheck %s --check-prefix=PLAIN

// The byte-pair form (tinyml/codegen/smlad_byte_pairs.py): a weight word
// multiplies as loaded, (w0 + 256 w1, w2 + 256 w3), and through one SXTB16,
// (w0, w2), against an input packed once into P = (x1, x3) and
// Q = (256 x0 - x1 + 127, 256 x2 - x3 + 127); the accumulator is 256 times
// the sum plus 127 times the even weights, started from a scaled bias and
// shifted back after the reduction's loop.

// With the option off, the same layer takes the plain form.
// PLAIN-LABEL: func.func @matrix_vector
// PLAIN-NOT:     llvm.arm.ssub16
// PLAIN-COUNT-10: llvm.call_intrinsic "llvm.arm.sxtb16"
// PLAIN-NOT:     arith.shrsi

// A matrix-vector product's layer as tiling leaves it: 8 output channels in
// tiles of 4, its reduction of 8 in steps of 4, each step reading and
// writing the loop's accumulator tile whole, the tile starting from the
// bias. The input row is packed once, before the layer's loops, into its P
// and Q words (SXTB16 of the word rotated by 8; SSUB16 and SADD16 for Q).
// Each channel's weights, w[k] = k - 2, are stored with each odd value one
// lower after a negative even one: (-2, -1) -> (-2, -2), then 0, 1, 2, 3, 4,
// 5. The accumulators start at 256 bias - 127 * (w[0] + w[2] + w[4] + w[6])
// = 256 bias - 508, and the loop's end is shifted right by 8. Each weight
// word takes one SXTB16 and two SMLAD: P with the word, Q with its SXTB16.
// CHECK-LABEL: func.func @matrix_vector
// CHECK-DAG:     arith.constant dense<[4, 260, 516, 772, 1028, 1284, 1540, 1796]> : tensor<8xi32>
// CHECK-DAG:     arith.constant dense<{{\[\[}}-2, -2, 0, 1, 2, 3, 4, 5], {{.*}}]> : tensor<8x8xi8>
// CHECK:         %[[EMPTY:.*]] = tensor.empty() : tensor<1x8xi16>
// CHECK:         %[[PACKED:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[EMPTY]]) -> (tensor<1x8xi16>)
// CHECK:           llvm.call_intrinsic "llvm.arm.sxtb16"
// CHECK:           llvm.call_intrinsic "llvm.arm.ssub16"
// CHECK:           llvm.call_intrinsic "llvm.arm.sadd16"
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             vector.transfer_read %[[PACKED]]{{.*}} : tensor<1x8xi16>, vector<4xi16>
// CHECK:             %[[WORDS:.*]] = vector.bitcast %{{.*}} : vector<4xi16> to vector<2xi32>
// CHECK:             %[[P:.*]] = vector.extract %[[WORDS]][0]
// CHECK:             %[[Q:.*]] = vector.extract %[[WORDS]][1]
// CHECK:             %[[EVEN:.*]] = llvm.call_intrinsic "llvm.arm.sxtb16"(%[[W:[0-9]+]])
// CHECK-NEXT:        %[[SUM:.*]] = llvm.call_intrinsic "llvm.arm.smlad"(%[[P]], %[[W]], %{{.*}})
// CHECK-NEXT:        llvm.call_intrinsic "llvm.arm.smlad"(%[[Q]], %[[EVEN]], %[[SUM]])
// CHECK-COUNT-3:     llvm.call_intrinsic "llvm.arm.sxtb16"
// CHECK-NOT:         llvm.call_intrinsic "llvm.arm.sxtb16"
// CHECK-NOT:         vector.contract
// CHECK:           arith.shrsi %{{.*}}, %{{.*}} : vector<1x4xi32>

func.func @matrix_vector(%x: tensor<1x8xi8>, %out: tensor<1x8xi32>) -> tensor<1x8xi32> {
  %c0 = arith.constant 0 : index
  %cstep = arith.constant 4 : index
  %ctile = arith.constant 4 : index
  %cK = arith.constant 8 : index
  %cC = arith.constant 8 : index
  %zero = arith.constant 0 : i8
  %zero32 = arith.constant 0 : i32
  %w = arith.constant dense<[[-2, -2, -2, -2, -2, -2, -2, -2], [-1, -1, -1, -1, -1, -1, -1, -1], [0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1, 1], [2, 2, 2, 2, 2, 2, 2, 2], [3, 3, 3, 3, 3, 3, 3, 3], [4, 4, 4, 4, 4, 4, 4, 4], [5, 5, 5, 5, 5, 5, 5, 5]]> : tensor<8x8xi8>
  %bias = arith.constant dense<[2, 3, 4, 5, 6, 7, 8, 9]> : tensor<8xi32>
  %r = scf.for %c = %c0 to %cC step %ctile iter_args(%o = %out) -> (tensor<1x8xi32>) {
    %tile0 = tensor.extract_slice %o[0, %c] [1, 4] [1, 1] : tensor<1x8xi32> to tensor<1x4xi32>
    %bs = tensor.extract_slice %bias[%c] [4] [1] : tensor<8xi32> to tensor<4xi32>
    %b = vector.transfer_read %bs[%c0], %zero32 {in_bounds = [true, true], permutation_map = affine_map<(d0) -> (0, d0)>} : tensor<4xi32>, vector<1x4xi32>
    %init = vector.transfer_write %b, %tile0[%c0, %c0] {in_bounds = [true, true]} : vector<1x4xi32>, tensor<1x4xi32>
    %acc = scf.for %k = %c0 to %cK step %cstep iter_args(%t = %init) -> (tensor<1x4xi32>) {
      %xs = tensor.extract_slice %x[0, %k] [1, 4] [1, 1] : tensor<1x8xi8> to tensor<1x4xi8>
      %ws = tensor.extract_slice %w[%k, %c] [4, 4] [1, 1] : tensor<8x8xi8> to tensor<4x4xi8>
      %ts = tensor.extract_slice %t[0, 0] [1, 4] [1, 1] : tensor<1x4xi32> to tensor<1x4xi32>
      %lhs = vector.transfer_read %xs[%c0, %c0], %zero {in_bounds = [true, true]} : tensor<1x4xi8>, vector<1x4xi8>
      %rhs = vector.transfer_read %ws[%c0, %c0], %zero {in_bounds = [true, true]} : tensor<4x4xi8>, vector<4x4xi8>
      %a = vector.transfer_read %ts[%c0, %c0], %zero32 {in_bounds = [true, true]} : tensor<1x4xi32>, vector<1x4xi32>
      %y = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %lhs, %rhs, %a : vector<1x4xi8>, vector<4x4xi8> into vector<1x4xi32>
      %yw = vector.transfer_write %y, %ts[%c0, %c0] {in_bounds = [true, true]} : vector<1x4xi32>, tensor<1x4xi32>
      %ins = tensor.insert_slice %yw into %t[0, 0] [1, 4] [1, 1] : tensor<1x4xi32> into tensor<1x4xi32>
      scf.yield %ins : tensor<1x4xi32>
    }
    %done = tensor.insert_slice %acc into %o[0, %c] [1, 4] [1, 1] : tensor<1x4xi32> into tensor<1x8xi32>
    scf.yield %done : tensor<1x8xi32>
  }
  return %r : tensor<1x8xi32>
}

// -----

// Not firing: channel 0's pair (-1, -128) cannot be stored as a byte pair
// (-128 one lower leaves int8): the layer keeps the plain form, two SXTB16
// a weight word and two an input word, 10 a step.
// CHECK-LABEL: func.func @odd_weight_below_int8
// CHECK-NOT:     llvm.arm.ssub16
// CHECK-COUNT-10: llvm.call_intrinsic "llvm.arm.sxtb16"
// CHECK-NOT:     arith.shrsi

func.func @odd_weight_below_int8(%x: tensor<1x8xi8>, %out: tensor<1x8xi32>) -> tensor<1x8xi32> {
  %c0 = arith.constant 0 : index
  %cstep = arith.constant 4 : index
  %ctile = arith.constant 4 : index
  %cK = arith.constant 8 : index
  %cC = arith.constant 8 : index
  %zero = arith.constant 0 : i8
  %zero32 = arith.constant 0 : i32
  %w = arith.constant dense<[[-1, -2, -2, -2, -2, -2, -2, -2], [-128, -1, -1, -1, -1, -1, -1, -1], [0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1, 1], [2, 2, 2, 2, 2, 2, 2, 2], [3, 3, 3, 3, 3, 3, 3, 3], [4, 4, 4, 4, 4, 4, 4, 4], [5, 5, 5, 5, 5, 5, 5, 5]]> : tensor<8x8xi8>
  %bias = arith.constant dense<[2, 3, 4, 5, 6, 7, 8, 9]> : tensor<8xi32>
  %r = scf.for %c = %c0 to %cC step %ctile iter_args(%o = %out) -> (tensor<1x8xi32>) {
    %tile0 = tensor.extract_slice %o[0, %c] [1, 4] [1, 1] : tensor<1x8xi32> to tensor<1x4xi32>
    %bs = tensor.extract_slice %bias[%c] [4] [1] : tensor<8xi32> to tensor<4xi32>
    %b = vector.transfer_read %bs[%c0], %zero32 {in_bounds = [true, true], permutation_map = affine_map<(d0) -> (0, d0)>} : tensor<4xi32>, vector<1x4xi32>
    %init = vector.transfer_write %b, %tile0[%c0, %c0] {in_bounds = [true, true]} : vector<1x4xi32>, tensor<1x4xi32>
    %acc = scf.for %k = %c0 to %cK step %cstep iter_args(%t = %init) -> (tensor<1x4xi32>) {
      %xs = tensor.extract_slice %x[0, %k] [1, 4] [1, 1] : tensor<1x8xi8> to tensor<1x4xi8>
      %ws = tensor.extract_slice %w[%k, %c] [4, 4] [1, 1] : tensor<8x8xi8> to tensor<4x4xi8>
      %ts = tensor.extract_slice %t[0, 0] [1, 4] [1, 1] : tensor<1x4xi32> to tensor<1x4xi32>
      %lhs = vector.transfer_read %xs[%c0, %c0], %zero {in_bounds = [true, true]} : tensor<1x4xi8>, vector<1x4xi8>
      %rhs = vector.transfer_read %ws[%c0, %c0], %zero {in_bounds = [true, true]} : tensor<4x4xi8>, vector<4x4xi8>
      %a = vector.transfer_read %ts[%c0, %c0], %zero32 {in_bounds = [true, true]} : tensor<1x4xi32>, vector<1x4xi32>
      %y = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %lhs, %rhs, %a : vector<1x4xi8>, vector<4x4xi8> into vector<1x4xi32>
      %yw = vector.transfer_write %y, %ts[%c0, %c0] {in_bounds = [true, true]} : vector<1x4xi32>, tensor<1x4xi32>
      %ins = tensor.insert_slice %yw into %t[0, 0] [1, 4] [1, 1] : tensor<1x4xi32> into tensor<1x4xi32>
      scf.yield %ins : tensor<1x4xi32>
    }
    %done = tensor.insert_slice %acc into %o[0, %c] [1, 4] [1, 1] : tensor<1x4xi32> into tensor<1x8xi32>
    scf.yield %done : tensor<1x8xi32>
  }
  return %r : tensor<1x8xi32>
}

// -----

// Not firing: a bias of 2^23 - 1 leaves no room for 256 times the sum in 32 bits.
// CHECK-LABEL: func.func @bias_beyond_24_bits
// CHECK-NOT:     llvm.arm.ssub16
// CHECK-COUNT-10: llvm.call_intrinsic "llvm.arm.sxtb16"

func.func @bias_beyond_24_bits(%x: tensor<1x8xi8>, %out: tensor<1x8xi32>) -> tensor<1x8xi32> {
  %c0 = arith.constant 0 : index
  %cstep = arith.constant 4 : index
  %ctile = arith.constant 4 : index
  %cK = arith.constant 8 : index
  %cC = arith.constant 8 : index
  %zero = arith.constant 0 : i8
  %zero32 = arith.constant 0 : i32
  %w = arith.constant dense<[[-2, -2, -2, -2, -2, -2, -2, -2], [-1, -1, -1, -1, -1, -1, -1, -1], [0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1, 1], [2, 2, 2, 2, 2, 2, 2, 2], [3, 3, 3, 3, 3, 3, 3, 3], [4, 4, 4, 4, 4, 4, 4, 4], [5, 5, 5, 5, 5, 5, 5, 5]]> : tensor<8x8xi8>
  %bias = arith.constant dense<[8388607, 0, 1, 2, 3, 4, 5, 6]> : tensor<8xi32>
  %r = scf.for %c = %c0 to %cC step %ctile iter_args(%o = %out) -> (tensor<1x8xi32>) {
    %tile0 = tensor.extract_slice %o[0, %c] [1, 4] [1, 1] : tensor<1x8xi32> to tensor<1x4xi32>
    %bs = tensor.extract_slice %bias[%c] [4] [1] : tensor<8xi32> to tensor<4xi32>
    %b = vector.transfer_read %bs[%c0], %zero32 {in_bounds = [true, true], permutation_map = affine_map<(d0) -> (0, d0)>} : tensor<4xi32>, vector<1x4xi32>
    %init = vector.transfer_write %b, %tile0[%c0, %c0] {in_bounds = [true, true]} : vector<1x4xi32>, tensor<1x4xi32>
    %acc = scf.for %k = %c0 to %cK step %cstep iter_args(%t = %init) -> (tensor<1x4xi32>) {
      %xs = tensor.extract_slice %x[0, %k] [1, 4] [1, 1] : tensor<1x8xi8> to tensor<1x4xi8>
      %ws = tensor.extract_slice %w[%k, %c] [4, 4] [1, 1] : tensor<8x8xi8> to tensor<4x4xi8>
      %ts = tensor.extract_slice %t[0, 0] [1, 4] [1, 1] : tensor<1x4xi32> to tensor<1x4xi32>
      %lhs = vector.transfer_read %xs[%c0, %c0], %zero {in_bounds = [true, true]} : tensor<1x4xi8>, vector<1x4xi8>
      %rhs = vector.transfer_read %ws[%c0, %c0], %zero {in_bounds = [true, true]} : tensor<4x4xi8>, vector<4x4xi8>
      %a = vector.transfer_read %ts[%c0, %c0], %zero32 {in_bounds = [true, true]} : tensor<1x4xi32>, vector<1x4xi32>
      %y = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %lhs, %rhs, %a : vector<1x4xi8>, vector<4x4xi8> into vector<1x4xi32>
      %yw = vector.transfer_write %y, %ts[%c0, %c0] {in_bounds = [true, true]} : vector<1x4xi32>, tensor<1x4xi32>
      %ins = tensor.insert_slice %yw into %t[0, 0] [1, 4] [1, 1] : tensor<1x4xi32> into tensor<1x4xi32>
      scf.yield %ins : tensor<1x4xi32>
    }
    %done = tensor.insert_slice %acc into %o[0, %c] [1, 4] [1, 1] : tensor<1x4xi32> into tensor<1x8xi32>
    scf.yield %done : tensor<1x8xi32>
  }
  return %r : tensor<1x8xi32>
}

// -----

// Not firing: 4 output channels, one tile of 4, save 5 instructions a word,
// less than the packing's 10.
// CHECK-LABEL: func.func @few_channels
// CHECK-NOT:     llvm.arm.ssub16
// CHECK-COUNT-10: llvm.call_intrinsic "llvm.arm.sxtb16"

func.func @few_channels(%x: tensor<1x8xi8>, %out: tensor<1x4xi32>) -> tensor<1x4xi32> {
  %c0 = arith.constant 0 : index
  %cstep = arith.constant 4 : index
  %ctile = arith.constant 4 : index
  %cK = arith.constant 8 : index
  %cC = arith.constant 4 : index
  %zero = arith.constant 0 : i8
  %zero32 = arith.constant 0 : i32
  %w = arith.constant dense<[[-2, -2, -2, -2], [-1, -1, -1, -1], [0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3], [4, 4, 4, 4], [5, 5, 5, 5]]> : tensor<8x4xi8>
  %bias = arith.constant dense<[0, 1, 2, 3]> : tensor<4xi32>
  %r = scf.for %c = %c0 to %cC step %ctile iter_args(%o = %out) -> (tensor<1x4xi32>) {
    %tile0 = tensor.extract_slice %o[0, %c] [1, 4] [1, 1] : tensor<1x4xi32> to tensor<1x4xi32>
    %bs = tensor.extract_slice %bias[%c] [4] [1] : tensor<4xi32> to tensor<4xi32>
    %b = vector.transfer_read %bs[%c0], %zero32 {in_bounds = [true, true], permutation_map = affine_map<(d0) -> (0, d0)>} : tensor<4xi32>, vector<1x4xi32>
    %init = vector.transfer_write %b, %tile0[%c0, %c0] {in_bounds = [true, true]} : vector<1x4xi32>, tensor<1x4xi32>
    %acc = scf.for %k = %c0 to %cK step %cstep iter_args(%t = %init) -> (tensor<1x4xi32>) {
      %xs = tensor.extract_slice %x[0, %k] [1, 4] [1, 1] : tensor<1x8xi8> to tensor<1x4xi8>
      %ws = tensor.extract_slice %w[%k, %c] [4, 4] [1, 1] : tensor<8x4xi8> to tensor<4x4xi8>
      %ts = tensor.extract_slice %t[0, 0] [1, 4] [1, 1] : tensor<1x4xi32> to tensor<1x4xi32>
      %lhs = vector.transfer_read %xs[%c0, %c0], %zero {in_bounds = [true, true]} : tensor<1x4xi8>, vector<1x4xi8>
      %rhs = vector.transfer_read %ws[%c0, %c0], %zero {in_bounds = [true, true]} : tensor<4x4xi8>, vector<4x4xi8>
      %a = vector.transfer_read %ts[%c0, %c0], %zero32 {in_bounds = [true, true]} : tensor<1x4xi32>, vector<1x4xi32>
      %y = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %lhs, %rhs, %a : vector<1x4xi8>, vector<4x4xi8> into vector<1x4xi32>
      %yw = vector.transfer_write %y, %ts[%c0, %c0] {in_bounds = [true, true]} : vector<1x4xi32>, tensor<1x4xi32>
      %ins = tensor.insert_slice %yw into %t[0, 0] [1, 4] [1, 1] : tensor<1x4xi32> into tensor<1x4xi32>
      scf.yield %ins : tensor<1x4xi32>
    }
    %done = tensor.insert_slice %acc into %o[0, %c] [1, 4] [1, 1] : tensor<1x4xi32> into tensor<1x4xi32>
    scf.yield %done : tensor<1x4xi32>
  }
  return %r : tensor<1x4xi32>
}

// -----

// Not firing: the accumulator tile does not start from a read of a bias
// constant (here, the output's own values), so there is no constant to scale.
// CHECK-LABEL: func.func @start_not_a_bias
// CHECK-NOT:     llvm.arm.ssub16
// CHECK-COUNT-10: llvm.call_intrinsic "llvm.arm.sxtb16"

func.func @start_not_a_bias(%x: tensor<1x8xi8>, %out: tensor<1x8xi32>) -> tensor<1x8xi32> {
  %c0 = arith.constant 0 : index
  %cstep = arith.constant 4 : index
  %ctile = arith.constant 4 : index
  %cK = arith.constant 8 : index
  %cC = arith.constant 8 : index
  %zero = arith.constant 0 : i8
  %zero32 = arith.constant 0 : i32
  %w = arith.constant dense<[[-2, -2, -2, -2, -2, -2, -2, -2], [-1, -1, -1, -1, -1, -1, -1, -1], [0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1, 1], [2, 2, 2, 2, 2, 2, 2, 2], [3, 3, 3, 3, 3, 3, 3, 3], [4, 4, 4, 4, 4, 4, 4, 4], [5, 5, 5, 5, 5, 5, 5, 5]]> : tensor<8x8xi8>
  %bias = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7]> : tensor<8xi32>
  %r = scf.for %c = %c0 to %cC step %ctile iter_args(%o = %out) -> (tensor<1x8xi32>) {
    %tile0 = tensor.extract_slice %o[0, %c] [1, 4] [1, 1] : tensor<1x8xi32> to tensor<1x4xi32>
    %init = tensor.extract_slice %o[0, %c] [1, 4] [1, 1] : tensor<1x8xi32> to tensor<1x4xi32>
    %acc = scf.for %k = %c0 to %cK step %cstep iter_args(%t = %init) -> (tensor<1x4xi32>) {
      %xs = tensor.extract_slice %x[0, %k] [1, 4] [1, 1] : tensor<1x8xi8> to tensor<1x4xi8>
      %ws = tensor.extract_slice %w[%k, %c] [4, 4] [1, 1] : tensor<8x8xi8> to tensor<4x4xi8>
      %ts = tensor.extract_slice %t[0, 0] [1, 4] [1, 1] : tensor<1x4xi32> to tensor<1x4xi32>
      %lhs = vector.transfer_read %xs[%c0, %c0], %zero {in_bounds = [true, true]} : tensor<1x4xi8>, vector<1x4xi8>
      %rhs = vector.transfer_read %ws[%c0, %c0], %zero {in_bounds = [true, true]} : tensor<4x4xi8>, vector<4x4xi8>
      %a = vector.transfer_read %ts[%c0, %c0], %zero32 {in_bounds = [true, true]} : tensor<1x4xi32>, vector<1x4xi32>
      %y = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %lhs, %rhs, %a : vector<1x4xi8>, vector<4x4xi8> into vector<1x4xi32>
      %yw = vector.transfer_write %y, %ts[%c0, %c0] {in_bounds = [true, true]} : vector<1x4xi32>, tensor<1x4xi32>
      %ins = tensor.insert_slice %yw into %t[0, 0] [1, 4] [1, 1] : tensor<1x4xi32> into tensor<1x4xi32>
      scf.yield %ins : tensor<1x4xi32>
    }
    %done = tensor.insert_slice %acc into %o[0, %c] [1, 4] [1, 1] : tensor<1x4xi32> into tensor<1x8xi32>
    scf.yield %done : tensor<1x8xi32>
  }
  return %r : tensor<1x8xi32>
}

// -----

// The start counts the weight slices the loops multiply: here the first 8
// of a reduction of 16 (steps of 4 from 0 to 8), w[k] = k - 2 for those,
// so 256 bias - 127 * (-2 + 0 + 2 + 4).
// CHECK-LABEL: func.func @part_of_the_reduction
// CHECK:         arith.constant dense<[-508, -252, 4, 260, 516, 772, 1028, 1284]> : tensor<8xi32>
// CHECK:         llvm.arm.ssub16

func.func @part_of_the_reduction(%x: tensor<1x16xi8>, %out: tensor<1x8xi32>) -> tensor<1x8xi32> {
  %c0 = arith.constant 0 : index
  %cstep = arith.constant 4 : index
  %ctile = arith.constant 4 : index
  %cK = arith.constant 8 : index
  %cC = arith.constant 8 : index
  %zero = arith.constant 0 : i8
  %zero32 = arith.constant 0 : i32
  %w = arith.constant dense<[[-2, -2, -2, -2, -2, -2, -2, -2], [-1, -1, -1, -1, -1, -1, -1, -1], [0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1, 1], [2, 2, 2, 2, 2, 2, 2, 2], [3, 3, 3, 3, 3, 3, 3, 3], [4, 4, 4, 4, 4, 4, 4, 4], [5, 5, 5, 5, 5, 5, 5, 5], [-2, -2, -2, -2, -2, -2, -2, -2], [-1, -1, -1, -1, -1, -1, -1, -1], [0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1, 1], [2, 2, 2, 2, 2, 2, 2, 2], [3, 3, 3, 3, 3, 3, 3, 3], [4, 4, 4, 4, 4, 4, 4, 4], [5, 5, 5, 5, 5, 5, 5, 5]]> : tensor<16x8xi8>
  %bias = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7]> : tensor<8xi32>
  %r = scf.for %c = %c0 to %cC step %ctile iter_args(%o = %out) -> (tensor<1x8xi32>) {
    %tile0 = tensor.extract_slice %o[0, %c] [1, 4] [1, 1] : tensor<1x8xi32> to tensor<1x4xi32>
    %bs = tensor.extract_slice %bias[%c] [4] [1] : tensor<8xi32> to tensor<4xi32>
    %b = vector.transfer_read %bs[%c0], %zero32 {in_bounds = [true, true], permutation_map = affine_map<(d0) -> (0, d0)>} : tensor<4xi32>, vector<1x4xi32>
    %init = vector.transfer_write %b, %tile0[%c0, %c0] {in_bounds = [true, true]} : vector<1x4xi32>, tensor<1x4xi32>
    %acc = scf.for %k = %c0 to %cK step %cstep iter_args(%t = %init) -> (tensor<1x4xi32>) {
      %xs = tensor.extract_slice %x[0, %k] [1, 4] [1, 1] : tensor<1x16xi8> to tensor<1x4xi8>
      %ws = tensor.extract_slice %w[%k, %c] [4, 4] [1, 1] : tensor<16x8xi8> to tensor<4x4xi8>
      %ts = tensor.extract_slice %t[0, 0] [1, 4] [1, 1] : tensor<1x4xi32> to tensor<1x4xi32>
      %lhs = vector.transfer_read %xs[%c0, %c0], %zero {in_bounds = [true, true]} : tensor<1x4xi8>, vector<1x4xi8>
      %rhs = vector.transfer_read %ws[%c0, %c0], %zero {in_bounds = [true, true]} : tensor<4x4xi8>, vector<4x4xi8>
      %a = vector.transfer_read %ts[%c0, %c0], %zero32 {in_bounds = [true, true]} : tensor<1x4xi32>, vector<1x4xi32>
      %y = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %lhs, %rhs, %a : vector<1x4xi8>, vector<4x4xi8> into vector<1x4xi32>
      %yw = vector.transfer_write %y, %ts[%c0, %c0] {in_bounds = [true, true]} : vector<1x4xi32>, tensor<1x4xi32>
      %ins = tensor.insert_slice %yw into %t[0, 0] [1, 4] [1, 1] : tensor<1x4xi32> into tensor<1x4xi32>
      scf.yield %ins : tensor<1x4xi32>
    }
    %done = tensor.insert_slice %acc into %o[0, %c] [1, 4] [1, 1] : tensor<1x4xi32> into tensor<1x8xi32>
    scf.yield %done : tensor<1x8xi32>
  }
  return %r : tensor<1x8xi32>
}

// -----

// A pointwise conv's tile over its int16 window (tinyml-widen-conv-inputs'
// extension, marked tinyml.widened): 2 pixels x 2 channels, its reduction
// carried through the loop over the kernel's one row and the loop over the
// input channels. The extension is marked tinyml.byte_pairs: the window
// holds P and Q words in place of the extended values (the same two bytes
// a value; tinyml-lower-int16-extensions packs it), the tile reads each
// pixel's words from it as they are, and each weight word takes one SXTB16
// for the two pixels: 2 SXTB16 and 8 SMLAD a step.
// CHECK-LABEL: func.func @pointwise_window
// CHECK-DAG:     arith.constant dense<[4, 260, 516, 772, 1028, 1284, 1540, 1796]> : tensor<8xi32>
// CHECK:         linalg.generic {{.*}} attrs = {tinyml.byte_pairs, tinyml.widened}
// CHECK:         scf.for
// CHECK:             %[[EVEN:.*]] = llvm.call_intrinsic "llvm.arm.sxtb16"(%[[W:[0-9]+]])
// CHECK-NEXT:        %[[SUM:.*]] = llvm.call_intrinsic "llvm.arm.smlad"(%[[P:[0-9]+]], %[[W]], %{{.*}})
// CHECK-NEXT:        llvm.call_intrinsic "llvm.arm.smlad"(%[[Q:[0-9]+]], %[[EVEN]], %[[SUM]])
// CHECK-NEXT:        %[[SUM2:.*]] = llvm.call_intrinsic "llvm.arm.smlad"(%{{[0-9]+}}, %[[W]], %{{.*}})
// CHECK-NEXT:        llvm.call_intrinsic "llvm.arm.smlad"(%{{[0-9]+}}, %[[EVEN]], %[[SUM2]])
// CHECK-NEXT:        llvm.call_intrinsic "llvm.arm.sxtb16"
// CHECK-NOT:         llvm.call_intrinsic "llvm.arm.sxtb16"
// CHECK:           arith.shrsi %{{.*}}, %{{.*}} : vector<1x1x2x2xi32>

func.func @pointwise_window(%x: tensor<1x1x2x8xi8>, %out: tensor<1x1x2x8xi32>) -> (tensor<1x1x2x8xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0 : i8
  %zero16 = arith.constant 0 : i16
  %zero32 = arith.constant 0 : i32
  %w = arith.constant dense<[[[[-2, -2, -2, -2, -2, -2, -2, -2], [-1, -1, -1, -1, -1, -1, -1, -1], [0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1, 1], [2, 2, 2, 2, 2, 2, 2, 2], [3, 3, 3, 3, 3, 3, 3, 3], [4, 4, 4, 4, 4, 4, 4, 4], [5, 5, 5, 5, 5, 5, 5, 5]]]]> : tensor<1x1x8x8xi8>
  %bias = arith.constant dense<[2, 3, 4, 5, 6, 7, 8, 9]> : tensor<8xi32>
  %wide0 = tensor.empty() : tensor<1x1x2x8xi16>
  %wide = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x1x2x8xi8>) outs(%wide0 : tensor<1x1x2x8xi16>) attrs = {tinyml.widened} {
  ^bb0(%in: i8, %o: i16):
    %e = arith.extsi %in : i8 to i16
    linalg.yield %e : i16
  } -> tensor<1x1x2x8xi16>
  %r = scf.for %c = %c0 to %c8 step %c2 iter_args(%o = %out) -> (tensor<1x1x2x8xi32>) {
    %bs = tensor.extract_slice %bias[%c] [2] [1] : tensor<8xi32> to tensor<2xi32>
    %tile0 = tensor.extract_slice %o[0, 0, 0, %c] [1, 1, 2, 2] [1, 1, 1, 1] : tensor<1x1x2x8xi32> to tensor<1x1x2x2xi32>
    %b = vector.transfer_read %bs[%c0], %zero32 {in_bounds = [true, true, true, true], permutation_map = affine_map<(d0) -> (0, 0, 0, d0)>} : tensor<2xi32>, vector<1x1x2x2xi32>
    %init = vector.transfer_write %b, %tile0[%c0, %c0, %c0, %c0] {in_bounds = [true, true, true, true]} : vector<1x1x2x2xi32>, tensor<1x1x2x2xi32>
    %acc = scf.for %kh = %c0 to %c1 step %c1 iter_args(%t1 = %init) -> (tensor<1x1x2x2xi32>) {
      %acc2 = scf.for %k = %c0 to %c8 step %c4 iter_args(%t = %t1) -> (tensor<1x1x2x2xi32>) {
        %xs = tensor.extract_slice %wide[0, %kh, 0, %k] [1, 1, 2, 4] [1, 1, 1, 1] : tensor<1x1x2x8xi16> to tensor<1x2x4xi16>
        %ws = tensor.extract_slice %w[%kh, 0, %k, %c] [1, 1, 4, 2] [1, 1, 1, 1] : tensor<1x1x8x8xi8> to tensor<1x4x2xi8>
        %ts = tensor.extract_slice %t[0, 0, 0, 0] [1, 1, 2, 2] [1, 1, 1, 1] : tensor<1x1x2x2xi32> to tensor<1x2x2xi32>
        %lhs = vector.transfer_read %xs[%c0, %c0, %c0], %zero16 {in_bounds = [true, true, true]} : tensor<1x2x4xi16>, vector<1x2x4xi16>
        %rhsr = vector.transfer_read %ws[%c0, %c0, %c0], %zero {in_bounds = [true, true, true]} : tensor<1x4x2xi8>, vector<1x4x2xi8>
        %rhs = vector.extract %rhsr[0] : vector<4x2xi8> from vector<1x4x2xi8>
        %a = vector.transfer_read %ts[%c0, %c0, %c0], %zero32 {in_bounds = [true, true, true]} : tensor<1x2x2xi32>, vector<1x2x2xi32>
        %lhs32 = arith.extsi %lhs : vector<1x2x4xi16> to vector<1x2x4xi32>
        %rhs32 = arith.extsi %rhs : vector<4x2xi8> to vector<4x2xi32>
        %y = vector.contract {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"], kind = #vector.kind<add>} %lhs32, %rhs32, %a : vector<1x2x4xi32>, vector<4x2xi32> into vector<1x2x2xi32>
        %yw = vector.transfer_write %y, %ts[%c0, %c0, %c0] {in_bounds = [true, true, true]} : vector<1x2x2xi32>, tensor<1x2x2xi32>
        %ins = tensor.insert_slice %yw into %t[0, 0, 0, 0] [1, 1, 2, 2] [1, 1, 1, 1] : tensor<1x2x2xi32> into tensor<1x1x2x2xi32>
        scf.yield %ins : tensor<1x1x2x2xi32>
      }
      scf.yield %acc2 : tensor<1x1x2x2xi32>
    }
    %done = tensor.insert_slice %acc into %o[0, 0, 0, %c] [1, 1, 2, 2] [1, 1, 1, 1] : tensor<1x1x2x2xi32> into tensor<1x1x2x8xi32>
    scf.yield %done : tensor<1x1x2x8xi32>
  }
  return %r : tensor<1x1x2x8xi32>
}

// -----

// Not firing: the window has another reader, which needs its plain int16
// values: it stays an extension, its tiles in the interleaved form (two
// SXTB16 a weight word, none for the input).
// CHECK-LABEL: func.func @window_read_elsewhere
// CHECK:         linalg.generic {{.*}} attrs = {tinyml.widened}
// CHECK-NOT:     llvm.arm.ssub16
// CHECK-COUNT-4: llvm.call_intrinsic "llvm.arm.sxtb16"

func.func @window_read_elsewhere(%x: tensor<1x1x2x8xi8>, %out: tensor<1x1x2x8xi32>) -> (tensor<1x1x2x8xi32>, i16) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0 : i8
  %zero16 = arith.constant 0 : i16
  %zero32 = arith.constant 0 : i32
  %w = arith.constant dense<[[[[-2, -2, -2, -2, -2, -2, -2, -2], [-1, -1, -1, -1, -1, -1, -1, -1], [0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1, 1], [2, 2, 2, 2, 2, 2, 2, 2], [3, 3, 3, 3, 3, 3, 3, 3], [4, 4, 4, 4, 4, 4, 4, 4], [5, 5, 5, 5, 5, 5, 5, 5]]]]> : tensor<1x1x8x8xi8>
  %bias = arith.constant dense<[2, 3, 4, 5, 6, 7, 8, 9]> : tensor<8xi32>
  %wide0 = tensor.empty() : tensor<1x1x2x8xi16>
  %wide = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x1x2x8xi8>) outs(%wide0 : tensor<1x1x2x8xi16>) attrs = {tinyml.widened} {
  ^bb0(%in: i8, %o: i16):
    %e = arith.extsi %in : i8 to i16
    linalg.yield %e : i16
  } -> tensor<1x1x2x8xi16>
  %peek = tensor.extract %wide[%c0, %c0, %c0, %c0] : tensor<1x1x2x8xi16>
  %r = scf.for %c = %c0 to %c8 step %c2 iter_args(%o = %out) -> (tensor<1x1x2x8xi32>) {
    %bs = tensor.extract_slice %bias[%c] [2] [1] : tensor<8xi32> to tensor<2xi32>
    %tile0 = tensor.extract_slice %o[0, 0, 0, %c] [1, 1, 2, 2] [1, 1, 1, 1] : tensor<1x1x2x8xi32> to tensor<1x1x2x2xi32>
    %b = vector.transfer_read %bs[%c0], %zero32 {in_bounds = [true, true, true, true], permutation_map = affine_map<(d0) -> (0, 0, 0, d0)>} : tensor<2xi32>, vector<1x1x2x2xi32>
    %init = vector.transfer_write %b, %tile0[%c0, %c0, %c0, %c0] {in_bounds = [true, true, true, true]} : vector<1x1x2x2xi32>, tensor<1x1x2x2xi32>
    %acc = scf.for %kh = %c0 to %c1 step %c1 iter_args(%t1 = %init) -> (tensor<1x1x2x2xi32>) {
      %acc2 = scf.for %k = %c0 to %c8 step %c4 iter_args(%t = %t1) -> (tensor<1x1x2x2xi32>) {
        %xs = tensor.extract_slice %wide[0, %kh, 0, %k] [1, 1, 2, 4] [1, 1, 1, 1] : tensor<1x1x2x8xi16> to tensor<1x2x4xi16>
        %ws = tensor.extract_slice %w[%kh, 0, %k, %c] [1, 1, 4, 2] [1, 1, 1, 1] : tensor<1x1x8x8xi8> to tensor<1x4x2xi8>
        %ts = tensor.extract_slice %t[0, 0, 0, 0] [1, 1, 2, 2] [1, 1, 1, 1] : tensor<1x1x2x2xi32> to tensor<1x2x2xi32>
        %lhs = vector.transfer_read %xs[%c0, %c0, %c0], %zero16 {in_bounds = [true, true, true]} : tensor<1x2x4xi16>, vector<1x2x4xi16>
        %rhsr = vector.transfer_read %ws[%c0, %c0, %c0], %zero {in_bounds = [true, true, true]} : tensor<1x4x2xi8>, vector<1x4x2xi8>
        %rhs = vector.extract %rhsr[0] : vector<4x2xi8> from vector<1x4x2xi8>
        %a = vector.transfer_read %ts[%c0, %c0, %c0], %zero32 {in_bounds = [true, true, true]} : tensor<1x2x2xi32>, vector<1x2x2xi32>
        %lhs32 = arith.extsi %lhs : vector<1x2x4xi16> to vector<1x2x4xi32>
        %rhs32 = arith.extsi %rhs : vector<4x2xi8> to vector<4x2xi32>
        %y = vector.contract {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"], kind = #vector.kind<add>} %lhs32, %rhs32, %a : vector<1x2x4xi32>, vector<4x2xi32> into vector<1x2x2xi32>
        %yw = vector.transfer_write %y, %ts[%c0, %c0, %c0] {in_bounds = [true, true, true]} : vector<1x2x2xi32>, tensor<1x2x2xi32>
        %ins = tensor.insert_slice %yw into %t[0, 0, 0, 0] [1, 1, 2, 2] [1, 1, 1, 1] : tensor<1x2x2xi32> into tensor<1x1x2x2xi32>
        scf.yield %ins : tensor<1x1x2x2xi32>
      }
      scf.yield %acc2 : tensor<1x1x2x2xi32>
    }
    %done = tensor.insert_slice %acc into %o[0, 0, 0, %c] [1, 1, 2, 2] [1, 1, 1, 1] : tensor<1x1x2x2xi32> into tensor<1x1x2x8xi32>
    scf.yield %done : tensor<1x1x2x8xi32>
  }
  return %r, %peek : tensor<1x1x2x8xi32>, i16
}

// -----

// A tile whose pixels accumulate apart (a strided conv's tile: each pixel a
// chain of its own from its part of the accumulators, inserted back where
// it was read): both chains take byte pairs together, from one scaled
// start per channel, and the tile is shifted back once.
// CHECK-LABEL: func.func @pixel_chains
// CHECK-DAG:     arith.constant dense<[4, 260, 516, 772, 1028, 1284, 1540, 1796]> : tensor<8xi32>
// CHECK:         linalg.generic {{.*}} attrs = {tinyml.byte_pairs, tinyml.widened}
// CHECK:             llvm.call_intrinsic "llvm.arm.sxtb16"
// CHECK-COUNT-4:     llvm.call_intrinsic "llvm.arm.smlad"
// CHECK:             llvm.call_intrinsic "llvm.arm.sxtb16"
// CHECK-COUNT-4:     llvm.call_intrinsic "llvm.arm.smlad"
// CHECK:           arith.shrsi %{{.*}}, %{{.*}} : vector<1x1x2x2xi32>

func.func @pixel_chains(%x: tensor<1x1x2x8xi8>, %out: tensor<1x1x2x8xi32>) -> tensor<1x1x2x8xi32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0 : i8
  %zero16 = arith.constant 0 : i16
  %zero32 = arith.constant 0 : i32
  %w = arith.constant dense<[[[[-2, -2, -2, -2, -2, -2, -2, -2], [-1, -1, -1, -1, -1, -1, -1, -1], [0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1, 1], [2, 2, 2, 2, 2, 2, 2, 2], [3, 3, 3, 3, 3, 3, 3, 3], [4, 4, 4, 4, 4, 4, 4, 4], [5, 5, 5, 5, 5, 5, 5, 5]]]]> : tensor<1x1x8x8xi8>
  %bias = arith.constant dense<[2, 3, 4, 5, 6, 7, 8, 9]> : tensor<8xi32>
  %wide0 = tensor.empty() : tensor<1x1x2x8xi16>
  %wide = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x1x2x8xi8>) outs(%wide0 : tensor<1x1x2x8xi16>) attrs = {tinyml.widened} {
  ^bb0(%in: i8, %o: i16):
    %e = arith.extsi %in : i8 to i16
    linalg.yield %e : i16
  } -> tensor<1x1x2x8xi16>
  %r = scf.for %c = %c0 to %c8 step %c2 iter_args(%o = %out) -> (tensor<1x1x2x8xi32>) {
    %bs = tensor.extract_slice %bias[%c] [2] [1] : tensor<8xi32> to tensor<2xi32>
    %tile0 = tensor.extract_slice %o[0, 0, 0, %c] [1, 1, 2, 2] [1, 1, 1, 1] : tensor<1x1x2x8xi32> to tensor<1x1x2x2xi32>
    %b = vector.transfer_read %bs[%c0], %zero32 {in_bounds = [true, true, true, true], permutation_map = affine_map<(d0) -> (0, 0, 0, d0)>} : tensor<2xi32>, vector<1x1x2x2xi32>
    %init = vector.transfer_write %b, %tile0[%c0, %c0, %c0, %c0] {in_bounds = [true, true, true, true]} : vector<1x1x2x2xi32>, tensor<1x1x2x2xi32>
    %acc = scf.for %k = %c0 to %c8 step %c4 iter_args(%t = %init) -> (tensor<1x1x2x2xi32>) {
      %xs = tensor.extract_slice %wide[0, 0, 0, %k] [1, 1, 2, 4] [1, 1, 1, 1] : tensor<1x1x2x8xi16> to tensor<1x2x4xi16>
      %ws = tensor.extract_slice %w[0, 0, %k, %c] [1, 1, 4, 2] [1, 1, 1, 1] : tensor<1x1x8x8xi8> to tensor<1x4x2xi8>
      %ts = tensor.extract_slice %t[0, 0, 0, 0] [1, 1, 2, 2] [1, 1, 1, 1] : tensor<1x1x2x2xi32> to tensor<1x2x2xi32>
      %lhs = vector.transfer_read %xs[%c0, %c0, %c0], %zero16 {in_bounds = [true, true, true]} : tensor<1x2x4xi16>, vector<1x2x4xi16>
      %rhsr = vector.transfer_read %ws[%c0, %c0, %c0], %zero {in_bounds = [true, true, true]} : tensor<1x4x2xi8>, vector<1x4x2xi8>
      %rhs = vector.extract %rhsr[0] : vector<4x2xi8> from vector<1x4x2xi8>
      %rhs32 = arith.extsi %rhs : vector<4x2xi8> to vector<4x2xi32>
      %a = vector.transfer_read %ts[%c0, %c0, %c0], %zero32 {in_bounds = [true, true, true]} : tensor<1x2x2xi32>, vector<1x2x2xi32>
      %a0 = vector.extract_strided_slice %a {offsets = [0, 0, 0], sizes = [1, 1, 2], strides = [1, 1, 1]} : vector<1x2x2xi32> to vector<1x1x2xi32>
      %x0 = vector.extract_strided_slice %lhs {offsets = [0, 0, 0], sizes = [1, 1, 4], strides = [1, 1, 1]} : vector<1x2x4xi16> to vector<1x1x4xi16>
      %x0e = arith.extsi %x0 : vector<1x1x4xi16> to vector<1x1x4xi32>
      %y0 = vector.contract {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x0e, %rhs32, %a0 : vector<1x1x4xi32>, vector<4x2xi32> into vector<1x1x2xi32>
      %first = vector.insert_strided_slice %y0, %a {offsets = [0, 0, 0], strides = [1, 1, 1]} : vector<1x1x2xi32> into vector<1x2x2xi32>
        %a1 = vector.extract_strided_slice %a {offsets = [0, 1, 0], sizes = [1, 1, 2], strides = [1, 1, 1]} : vector<1x2x2xi32> to vector<1x1x2xi32>
        %x1 = vector.extract_strided_slice %lhs {offsets = [0, 1, 0], sizes = [1, 1, 4], strides = [1, 1, 1]} : vector<1x2x4xi16> to vector<1x1x4xi16>
        %x1e = arith.extsi %x1 : vector<1x1x4xi16> to vector<1x1x4xi32>
        %y1 = vector.contract {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x1e, %rhs32, %a1 : vector<1x1x4xi32>, vector<4x2xi32> into vector<1x1x2xi32>
        %both = vector.insert_strided_slice %y1, %first {offsets = [0, 1, 0], strides = [1, 1, 1]} : vector<1x1x2xi32> into vector<1x2x2xi32>
      %yw = vector.transfer_write %both, %ts[%c0, %c0, %c0] {in_bounds = [true, true, true]} : vector<1x2x2xi32>, tensor<1x2x2xi32>
      %ins = tensor.insert_slice %yw into %t[0, 0, 0, 0] [1, 1, 2, 2] [1, 1, 1, 1] : tensor<1x2x2xi32> into tensor<1x1x2x2xi32>
      scf.yield %ins : tensor<1x1x2x2xi32>
    }
    %done = tensor.insert_slice %acc into %o[0, 0, 0, %c] [1, 1, 2, 2] [1, 1, 1, 1] : tensor<1x1x2x2xi32> into tensor<1x1x2x8xi32>
    scf.yield %done : tensor<1x1x2x8xi32>
  }
  return %r : tensor<1x1x2x8xi32>
}

// -----

// Not firing: one pixel's accumulators are read but no chain adds to them
// (written back as read): scaled, they would come out wrong.
// CHECK-LABEL: func.func @pixel_left_out
// CHECK:         linalg.generic {{.*}} attrs = {tinyml.widened}
// CHECK-NOT:     arith.shrsi

func.func @pixel_left_out(%x: tensor<1x1x2x8xi8>, %out: tensor<1x1x2x8xi32>) -> tensor<1x1x2x8xi32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0 : i8
  %zero16 = arith.constant 0 : i16
  %zero32 = arith.constant 0 : i32
  %w = arith.constant dense<[[[[-2, -2, -2, -2, -2, -2, -2, -2], [-1, -1, -1, -1, -1, -1, -1, -1], [0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1, 1], [2, 2, 2, 2, 2, 2, 2, 2], [3, 3, 3, 3, 3, 3, 3, 3], [4, 4, 4, 4, 4, 4, 4, 4], [5, 5, 5, 5, 5, 5, 5, 5]]]]> : tensor<1x1x8x8xi8>
  %bias = arith.constant dense<[2, 3, 4, 5, 6, 7, 8, 9]> : tensor<8xi32>
  %wide0 = tensor.empty() : tensor<1x1x2x8xi16>
  %wide = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x1x2x8xi8>) outs(%wide0 : tensor<1x1x2x8xi16>) attrs = {tinyml.widened} {
  ^bb0(%in: i8, %o: i16):
    %e = arith.extsi %in : i8 to i16
    linalg.yield %e : i16
  } -> tensor<1x1x2x8xi16>
  %r = scf.for %c = %c0 to %c8 step %c2 iter_args(%o = %out) -> (tensor<1x1x2x8xi32>) {
    %bs = tensor.extract_slice %bias[%c] [2] [1] : tensor<8xi32> to tensor<2xi32>
    %tile0 = tensor.extract_slice %o[0, 0, 0, %c] [1, 1, 2, 2] [1, 1, 1, 1] : tensor<1x1x2x8xi32> to tensor<1x1x2x2xi32>
    %b = vector.transfer_read %bs[%c0], %zero32 {in_bounds = [true, true, true, true], permutation_map = affine_map<(d0) -> (0, 0, 0, d0)>} : tensor<2xi32>, vector<1x1x2x2xi32>
    %init = vector.transfer_write %b, %tile0[%c0, %c0, %c0, %c0] {in_bounds = [true, true, true, true]} : vector<1x1x2x2xi32>, tensor<1x1x2x2xi32>
    %acc = scf.for %k = %c0 to %c8 step %c4 iter_args(%t = %init) -> (tensor<1x1x2x2xi32>) {
      %xs = tensor.extract_slice %wide[0, 0, 0, %k] [1, 1, 2, 4] [1, 1, 1, 1] : tensor<1x1x2x8xi16> to tensor<1x2x4xi16>
      %ws = tensor.extract_slice %w[0, 0, %k, %c] [1, 1, 4, 2] [1, 1, 1, 1] : tensor<1x1x8x8xi8> to tensor<1x4x2xi8>
      %ts = tensor.extract_slice %t[0, 0, 0, 0] [1, 1, 2, 2] [1, 1, 1, 1] : tensor<1x1x2x2xi32> to tensor<1x2x2xi32>
      %lhs = vector.transfer_read %xs[%c0, %c0, %c0], %zero16 {in_bounds = [true, true, true]} : tensor<1x2x4xi16>, vector<1x2x4xi16>
      %rhsr = vector.transfer_read %ws[%c0, %c0, %c0], %zero {in_bounds = [true, true, true]} : tensor<1x4x2xi8>, vector<1x4x2xi8>
      %rhs = vector.extract %rhsr[0] : vector<4x2xi8> from vector<1x4x2xi8>
      %rhs32 = arith.extsi %rhs : vector<4x2xi8> to vector<4x2xi32>
      %a = vector.transfer_read %ts[%c0, %c0, %c0], %zero32 {in_bounds = [true, true, true]} : tensor<1x2x2xi32>, vector<1x2x2xi32>
      %a0 = vector.extract_strided_slice %a {offsets = [0, 0, 0], sizes = [1, 1, 2], strides = [1, 1, 1]} : vector<1x2x2xi32> to vector<1x1x2xi32>
      %x0 = vector.extract_strided_slice %lhs {offsets = [0, 0, 0], sizes = [1, 1, 4], strides = [1, 1, 1]} : vector<1x2x4xi16> to vector<1x1x4xi16>
      %x0e = arith.extsi %x0 : vector<1x1x4xi16> to vector<1x1x4xi32>
      %y0 = vector.contract {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x0e, %rhs32, %a0 : vector<1x1x4xi32>, vector<4x2xi32> into vector<1x1x2xi32>
      %first = vector.insert_strided_slice %y0, %a {offsets = [0, 0, 0], strides = [1, 1, 1]} : vector<1x1x2xi32> into vector<1x2x2xi32>
        %both = vector.insert_strided_slice %y0, %first {offsets = [0, 0, 0], strides = [1, 1, 1]} : vector<1x1x2xi32> into vector<1x2x2xi32>
      %yw = vector.transfer_write %both, %ts[%c0, %c0, %c0] {in_bounds = [true, true, true]} : vector<1x2x2xi32>, tensor<1x2x2xi32>
      %ins = tensor.insert_slice %yw into %t[0, 0, 0, 0] [1, 1, 2, 2] [1, 1, 1, 1] : tensor<1x2x2xi32> into tensor<1x1x2x2xi32>
      scf.yield %ins : tensor<1x1x2x2xi32>
    }
    %done = tensor.insert_slice %acc into %o[0, 0, 0, %c] [1, 1, 2, 2] [1, 1, 1, 1] : tensor<1x1x2x2xi32> into tensor<1x1x2x8xi32>
    scf.yield %done : tensor<1x1x2x8xi32>
  }
  return %r : tensor<1x1x2x8xi32>
}
