// RUN: tinyml-opt %s --split-input-file --tinyml-unsigned-weights --canonicalize --cse \
// RUN:   | FileCheck %s

// tinyml-unsigned-weights (tinyml/codegen/unsigned_weights.py): on ARMv6-M a
// one-row int8 tile multiplies weights stored 128 higher (a zero-extending
// byte load each), its accumulators started 128 sum(x) lower, sum(x)
// computed by a loop of the tile's reduction over its inputs alone, before
// the loop over channel tiles. The input values of a row that a tile loop
// walks are staged unsigned, each byte XORed by 0x80, by the loop that sums
// them (a 1x1 conv's pixel; not a matrix-vector product's row, which is its
// whole input: a stage that large would take arena).

// A matrix-vector product's layer as tiling leaves it: 8 output channels in
// tiles of 4, its reduction of 8 in steps of 4, the tile starting from the
// bias. Every channel's weights are w[k] = k - 2; stored +128 as int8 bit
// patterns they are 126, 127, -128 (128), ..., -123 (133), laid out
// [channel tile][step][value][channel]. The input sum is one loop before
// the channel loop; each tile starts at bias - 128 sum(x); each input value
// is loaded and sign-extended once, then multiplied by each channel's
// weight, loaded and zero-extended.
// CHECK-LABEL: func.func @matrix_vector
// CHECK-DAG:     %[[C128:.*]] = arith.constant 128 : i32
// CHECK-DAG:     %[[STORED:.*]] = arith.constant dense<{{\[\[\[\[}}126, 126, 126, 126], [127, 127, 127, 127], [-128, -128, -128, -128], [-127, -127, -127, -127]], {{.*}} : tensor<2x2x4x4xi8>
// CHECK-NOT:     tensor<8x8xi8>
// CHECK:         %[[SUM:.*]] = scf.for {{.*}} -> (i32) {
// CHECK:           vector.reduction <add>
// CHECK:         scf.for
// CHECK:           %[[LOW:.*]] = arith.muli %[[SUM]], %[[C128]] : i32
// CHECK:           %[[SPLAT:.*]] = vector.broadcast %[[LOW]] : i32 to vector<1x4xi32>
// CHECK:           arith.subi %{{.*}}, %[[SPLAT]] : vector<1x4xi32>
// CHECK:           scf.for
// CHECK:             %[[X:.*]] = tensor.extract %arg0
// CHECK-NEXT:        %[[XW:.*]] = arith.extsi %[[X]] : i8 to i32
// CHECK:             %[[W:.*]] = tensor.extract %[[STORED]]
// CHECK-NEXT:        %[[WW:.*]] = arith.extui %[[W]] : i8 to i32
// CHECK-NEXT:        %[[P:.*]] = arith.muli %[[XW]], %[[WW]] : i32
// CHECK-NEXT:        arith.addi %{{.*}}, %[[P]] : i32
// CHECK-COUNT-15:    arith.extui %{{.*}} : i8 to i32
// CHECK-NOT:         vector.contract
// CHECK-NOT:         arith.xori

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

// Not firing: a tile of two rows (two pixels) would need a sum of inputs
// per row; the contraction is left to the generic lowering.
// CHECK-LABEL: func.func @two_rows
// CHECK-NOT:     arith.extui
// CHECK:         vector.contract

func.func @two_rows(%x: tensor<2x8xi8>, %out: tensor<2x8xi32>) -> tensor<2x8xi32> {
  %c0 = arith.constant 0 : index
  %cstep = arith.constant 4 : index
  %ctile = arith.constant 4 : index
  %cK = arith.constant 8 : index
  %cC = arith.constant 8 : index
  %zero = arith.constant 0 : i8
  %zero32 = arith.constant 0 : i32
  %w = arith.constant dense<[[-2, -2, -2, -2, -2, -2, -2, -2], [-1, -1, -1, -1, -1, -1, -1, -1], [0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1, 1], [2, 2, 2, 2, 2, 2, 2, 2], [3, 3, 3, 3, 3, 3, 3, 3], [4, 4, 4, 4, 4, 4, 4, 4], [5, 5, 5, 5, 5, 5, 5, 5]]> : tensor<8x8xi8>
  %bias = arith.constant dense<[2, 3, 4, 5, 6, 7, 8, 9]> : tensor<8xi32>
  %r = scf.for %c = %c0 to %cC step %ctile iter_args(%o = %out) -> (tensor<2x8xi32>) {
    %tile0 = tensor.extract_slice %o[0, %c] [2, 4] [1, 1] : tensor<2x8xi32> to tensor<2x4xi32>
    %bs = tensor.extract_slice %bias[%c] [4] [1] : tensor<8xi32> to tensor<4xi32>
    %b = vector.transfer_read %bs[%c0], %zero32 {in_bounds = [true, true], permutation_map = affine_map<(d0) -> (0, d0)>} : tensor<4xi32>, vector<2x4xi32>
    %init = vector.transfer_write %b, %tile0[%c0, %c0] {in_bounds = [true, true]} : vector<2x4xi32>, tensor<2x4xi32>
    %acc = scf.for %k = %c0 to %cK step %cstep iter_args(%t = %init) -> (tensor<2x4xi32>) {
      %xs = tensor.extract_slice %x[0, %k] [2, 4] [1, 1] : tensor<2x8xi8> to tensor<2x4xi8>
      %ws = tensor.extract_slice %w[%k, %c] [4, 4] [1, 1] : tensor<8x8xi8> to tensor<4x4xi8>
      %ts = tensor.extract_slice %t[0, 0] [2, 4] [1, 1] : tensor<2x4xi32> to tensor<2x4xi32>
      %lhs = vector.transfer_read %xs[%c0, %c0], %zero {in_bounds = [true, true]} : tensor<2x4xi8>, vector<2x4xi8>
      %rhs = vector.transfer_read %ws[%c0, %c0], %zero {in_bounds = [true, true]} : tensor<4x4xi8>, vector<4x4xi8>
      %a = vector.transfer_read %ts[%c0, %c0], %zero32 {in_bounds = [true, true]} : tensor<2x4xi32>, vector<2x4xi32>
      %y = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %lhs, %rhs, %a : vector<2x4xi8>, vector<4x4xi8> into vector<2x4xi32>
      %yw = vector.transfer_write %y, %ts[%c0, %c0] {in_bounds = [true, true]} : vector<2x4xi32>, tensor<2x4xi32>
      %ins = tensor.insert_slice %yw into %t[0, 0] [2, 4] [1, 1] : tensor<2x4xi32> into tensor<2x4xi32>
      scf.yield %ins : tensor<2x4xi32>
    }
    %done = tensor.insert_slice %acc into %o[0, %c] [2, 4] [1, 1] : tensor<2x4xi32> into tensor<2x8xi32>
    scf.yield %done : tensor<2x8xi32>
  }
  return %r : tensor<2x8xi32>
}

// -----

// Not firing: the weight constant is also read by something else (here
// returned); storing it +128 would keep both copies in flash.
// CHECK-LABEL: func.func @weights_read_elsewhere
// CHECK-NOT:     arith.extui
// CHECK:         vector.contract

func.func @weights_read_elsewhere(%x: tensor<1x8xi8>, %out: tensor<1x8xi32>) -> (tensor<1x8xi32>, tensor<8x8xi8>) {
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
  return %r, %w : tensor<1x8xi32>, tensor<8x8xi8>
}

// -----

// Not firing: the input row depends on the channel loop (each channel tile
// reads its own slice), so its sum cannot be computed once for all tiles.
// CHECK-LABEL: func.func @input_per_channel_tile
// CHECK-NOT:     arith.extui
// CHECK:         vector.contract

func.func @input_per_channel_tile(%x: tensor<1x16xi8>, %out: tensor<1x8xi32>) -> tensor<1x8xi32> {
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
      %kc = arith.addi %k, %c : index
      %xs = tensor.extract_slice %x[0, %kc] [1, 4] [1, 1] : tensor<1x16xi8> to tensor<1x4xi8>
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

// Not firing: the channel loop starts at 2, so a tile's channels straddle
// two tiles of the stored layout.
// CHECK-LABEL: func.func @unaligned_channels
// CHECK-NOT:     arith.extui
// CHECK:         vector.contract

func.func @unaligned_channels(%x: tensor<1x8xi8>, %out: tensor<1x8xi32>) -> tensor<1x8xi32> {
  %c0 = arith.constant 0 : index
  %cstep = arith.constant 4 : index
  %ctile = arith.constant 4 : index
  %cK = arith.constant 8 : index
  %cC = arith.constant 8 : index
  %zero = arith.constant 0 : i8
  %zero32 = arith.constant 0 : i32
  %w = arith.constant dense<[[-2, -2, -2, -2, -2, -2, -2, -2], [-1, -1, -1, -1, -1, -1, -1, -1], [0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1, 1], [2, 2, 2, 2, 2, 2, 2, 2], [3, 3, 3, 3, 3, 3, 3, 3], [4, 4, 4, 4, 4, 4, 4, 4], [5, 5, 5, 5, 5, 5, 5, 5]]> : tensor<8x8xi8>
  %bias = arith.constant dense<[2, 3, 4, 5, 6, 7, 8, 9]> : tensor<8xi32>
  %c2 = arith.constant 2 : index
  %cC2 = arith.constant 6 : index
  %r = scf.for %c = %c2 to %cC2 step %ctile iter_args(%o = %out) -> (tensor<1x8xi32>) {
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

// A 1x1 conv's pixel tile (1 pixel x 4 channels, 8 input channels in steps
// of 4), weights w[k][c] = k - 2, bias 2..9. The loop before the channel
// loop sums the pixel's 8 values XORed by 0x80 (u = x + 128: the bytes
// read zero-extended, then XORed as words, so that the sum needs no
// extension of its own) and stages them truncated to bytes; each tile
// reads u from the stage, zero-extended, and
// starts from bias - 128 sum(w) - 128 sum(u): the bias lowered by
// 128 * 12 = 1536 at compile time, 128 sum(u) subtracted per pixel.
// CHECK-LABEL: func.func @pointwise_conv
// CHECK-DAG:     %[[C128:.*]] = arith.constant 128 : i32
// CHECK-DAG:     %[[FLIP:.*]] = arith.constant dense<128> : vector<4xi32>
// CHECK-DAG:     %[[BIAS:.*]] = arith.constant dense<[-1534, -1533, -1532, -1531, -1530, -1529, -1528, -1527]> : tensor<8xi32>
// CHECK:         scf.for %[[P:[a-z0-9_]+]] = {{.*}} {
// CHECK:           %[[EMPTY:.*]] = tensor.empty() : tensor<8xi8>
// CHECK:           %[[STAGE:.*]]:2 = scf.for %[[K:[a-z0-9_]+]] = {{.*}} iter_args(%[[S:[a-z0-9_]+]] = %{{.*}}, %[[ROW:[a-z0-9_]+]] = %[[EMPTY]]) -> (i32, tensor<8xi8>) {
// CHECK:             %[[X:.*]] = vector.shape_cast %{{.*}} : vector<1x1x4xi8> to vector<4xi8>
// CHECK:             %[[XW:.*]] = arith.extui %[[X]] : vector<4xi8> to vector<4xi32>
// CHECK:             %[[UW:.*]] = arith.xori %[[XW]], %[[FLIP]] : vector<4xi32>
// CHECK:             %[[U:.*]] = arith.trunci %[[UW]] : vector<4xi32> to vector<4xi8>
// CHECK:             %[[STAGED:.*]] = vector.transfer_write %[[U]], %[[ROW]][%[[K]]]
// CHECK:             %[[SUM:.*]] = vector.reduction <add>, %[[UW]], %[[S]]
// CHECK:             scf.yield %[[SUM]], %[[STAGED]]
// CHECK:           scf.for %[[C:[a-z0-9_]+]] = {{.*}} {
// CHECK:             tensor.extract_slice %[[BIAS]][%[[C]]]
// CHECK:             arith.muli %[[STAGE]]#0, %[[C128]] : i32
// CHECK:             scf.for %[[K2:[a-z0-9_]+]] = {{.*}} {
// CHECK:               %[[V:.*]] = tensor.extract %[[STAGE]]#1[%[[K2]]] : tensor<8xi8>
// CHECK-NEXT:          arith.extui %[[V]] : i8 to i32
// CHECK-NOT:           arith.extsi
// CHECK-NOT:           vector.contract

func.func @pointwise_conv(%x: tensor<1x1x2x8xi8>, %out: tensor<1x1x2x8xi32>) -> tensor<1x1x2x8xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0 : i8
  %zero32 = arith.constant 0 : i32
  %w = arith.constant dense<[[[[-2, -2, -2, -2, -2, -2, -2, -2], [-1, -1, -1, -1, -1, -1, -1, -1], [0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1, 1], [2, 2, 2, 2, 2, 2, 2, 2], [3, 3, 3, 3, 3, 3, 3, 3], [4, 4, 4, 4, 4, 4, 4, 4], [5, 5, 5, 5, 5, 5, 5, 5]]]]> : tensor<1x1x8x8xi8>
  %bias = arith.constant dense<[2, 3, 4, 5, 6, 7, 8, 9]> : tensor<8xi32>
  %r = scf.for %p = %c0 to %c2 step %c1 iter_args(%o = %out) -> (tensor<1x1x2x8xi32>) {
    %rp = scf.for %c = %c0 to %c8 step %c4 iter_args(%op = %o) -> (tensor<1x1x2x8xi32>) {
      %row = tensor.extract_slice %x[0, 0, %p, 0] [1, 1, 1, 8] [1, 1, 1, 1] : tensor<1x1x2x8xi8> to tensor<1x1x1x8xi8>
      %bs = tensor.extract_slice %bias[%c] [4] [1] : tensor<8xi32> to tensor<4xi32>
      %tile0 = tensor.extract_slice %op[0, 0, %p, %c] [1, 1, 1, 4] [1, 1, 1, 1] : tensor<1x1x2x8xi32> to tensor<1x1x1x4xi32>
      %b = vector.transfer_read %bs[%c0], %zero32 {in_bounds = [true, true, true, true], permutation_map = affine_map<(d0) -> (0, 0, 0, d0)>} : tensor<4xi32>, vector<1x1x1x4xi32>
      %init = vector.transfer_write %b, %tile0[%c0, %c0, %c0, %c0] {in_bounds = [true, true, true, true]} : vector<1x1x1x4xi32>, tensor<1x1x1x4xi32>
      %acc = scf.for %k = %c0 to %c8 step %c4 iter_args(%t = %init) -> (tensor<1x1x1x4xi32>) {
        %xs = tensor.extract_slice %row[0, 0, 0, %k] [1, 1, 1, 4] [1, 1, 1, 1] : tensor<1x1x1x8xi8> to tensor<1x1x4xi8>
        %ws = tensor.extract_slice %w[0, 0, %k, %c] [1, 1, 4, 4] [1, 1, 1, 1] : tensor<1x1x8x8xi8> to tensor<1x4x4xi8>
        %ts = tensor.extract_slice %t[0, 0, 0, 0] [1, 1, 1, 4] [1, 1, 1, 1] : tensor<1x1x1x4xi32> to tensor<1x1x4xi32>
        %lhs = vector.transfer_read %xs[%c0, %c0, %c0], %zero {in_bounds = [true, true, true]} : tensor<1x1x4xi8>, vector<1x1x4xi8>
        %rhs3 = vector.transfer_read %ws[%c0, %c0, %c0], %zero {in_bounds = [true, true, true]} : tensor<1x4x4xi8>, vector<1x4x4xi8>
        %rhs = vector.extract %rhs3[0] : vector<4x4xi8> from vector<1x4x4xi8>
        %a = vector.transfer_read %ts[%c0, %c0, %c0], %zero32 {in_bounds = [true, true, true]} : tensor<1x1x4xi32>, vector<1x1x4xi32>
        %lw = arith.extsi %lhs : vector<1x1x4xi8> to vector<1x1x4xi32>
        %rw = arith.extsi %rhs : vector<4x4xi8> to vector<4x4xi32>
        %y = vector.contract {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"], kind = #vector.kind<add>} %lw, %rw, %a : vector<1x1x4xi32>, vector<4x4xi32> into vector<1x1x4xi32>
        %yw = vector.transfer_write %y, %ts[%c0, %c0, %c0] {in_bounds = [true, true, true]} : vector<1x1x4xi32>, tensor<1x1x4xi32>
        %ins = tensor.insert_slice %yw into %t[0, 0, 0, 0] [1, 1, 1, 4] [1, 1, 1, 1] : tensor<1x1x4xi32> into tensor<1x1x1x4xi32>
        scf.yield %ins : tensor<1x1x1x4xi32>
      }
      %done = tensor.insert_slice %acc into %op[0, 0, %p, %c] [1, 1, 1, 4] [1, 1, 1, 1] : tensor<1x1x1x4xi32> into tensor<1x1x2x8xi32>
      scf.yield %done : tensor<1x1x2x8xi32>
    }
    scf.yield %rp : tensor<1x1x2x8xi32>
  }
  return %r : tensor<1x1x2x8xi32>
}

// -----

// Not staged: the tile starts from its function's argument, not from a
// bias constant its weight sums could be folded into; its weights are
// still stored +128 and its inputs read signed.
// CHECK-LABEL: func.func @pointwise_without_bias
// CHECK-NOT:     arith.xori
// CHECK:         arith.extsi %{{.*}} : i8 to i32
// CHECK:         arith.extui %{{.*}} : i8 to i32
// CHECK-NOT:     vector.contract

func.func @pointwise_without_bias(%x: tensor<1x1x2x8xi8>, %out: tensor<1x1x2x8xi32>) -> tensor<1x1x2x8xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0 : i8
  %zero32 = arith.constant 0 : i32
  %w = arith.constant dense<[[[[-2, -2, -2, -2, -2, -2, -2, -2], [-1, -1, -1, -1, -1, -1, -1, -1], [0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1, 1], [2, 2, 2, 2, 2, 2, 2, 2], [3, 3, 3, 3, 3, 3, 3, 3], [4, 4, 4, 4, 4, 4, 4, 4], [5, 5, 5, 5, 5, 5, 5, 5]]]]> : tensor<1x1x8x8xi8>
  %r = scf.for %p = %c0 to %c2 step %c1 iter_args(%o = %out) -> (tensor<1x1x2x8xi32>) {
    %rp = scf.for %c = %c0 to %c8 step %c4 iter_args(%op = %o) -> (tensor<1x1x2x8xi32>) {
      %row = tensor.extract_slice %x[0, 0, %p, 0] [1, 1, 1, 8] [1, 1, 1, 1] : tensor<1x1x2x8xi8> to tensor<1x1x1x8xi8>
      %init = tensor.extract_slice %op[0, 0, %p, %c] [1, 1, 1, 4] [1, 1, 1, 1] : tensor<1x1x2x8xi32> to tensor<1x1x1x4xi32>
      %acc = scf.for %k = %c0 to %c8 step %c4 iter_args(%t = %init) -> (tensor<1x1x1x4xi32>) {
        %xs = tensor.extract_slice %row[0, 0, 0, %k] [1, 1, 1, 4] [1, 1, 1, 1] : tensor<1x1x1x8xi8> to tensor<1x1x4xi8>
        %ws = tensor.extract_slice %w[0, 0, %k, %c] [1, 1, 4, 4] [1, 1, 1, 1] : tensor<1x1x8x8xi8> to tensor<1x4x4xi8>
        %ts = tensor.extract_slice %t[0, 0, 0, 0] [1, 1, 1, 4] [1, 1, 1, 1] : tensor<1x1x1x4xi32> to tensor<1x1x4xi32>
        %lhs = vector.transfer_read %xs[%c0, %c0, %c0], %zero {in_bounds = [true, true, true]} : tensor<1x1x4xi8>, vector<1x1x4xi8>
        %rhs3 = vector.transfer_read %ws[%c0, %c0, %c0], %zero {in_bounds = [true, true, true]} : tensor<1x4x4xi8>, vector<1x4x4xi8>
        %rhs = vector.extract %rhs3[0] : vector<4x4xi8> from vector<1x4x4xi8>
        %a = vector.transfer_read %ts[%c0, %c0, %c0], %zero32 {in_bounds = [true, true, true]} : tensor<1x1x4xi32>, vector<1x1x4xi32>
        %lw = arith.extsi %lhs : vector<1x1x4xi8> to vector<1x1x4xi32>
        %rw = arith.extsi %rhs : vector<4x4xi8> to vector<4x4xi32>
        %y = vector.contract {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"], kind = #vector.kind<add>} %lw, %rw, %a : vector<1x1x4xi32>, vector<4x4xi32> into vector<1x1x4xi32>
        %yw = vector.transfer_write %y, %ts[%c0, %c0, %c0] {in_bounds = [true, true, true]} : vector<1x1x4xi32>, tensor<1x1x4xi32>
        %ins = tensor.insert_slice %yw into %t[0, 0, 0, 0] [1, 1, 1, 4] [1, 1, 1, 1] : tensor<1x1x4xi32> into tensor<1x1x1x4xi32>
        scf.yield %ins : tensor<1x1x1x4xi32>
      }
      %done = tensor.insert_slice %acc into %op[0, 0, %p, %c] [1, 1, 1, 4] [1, 1, 1, 1] : tensor<1x1x1x4xi32> into tensor<1x1x2x8xi32>
      scf.yield %done : tensor<1x1x2x8xi32>
    }
    scf.yield %rp : tensor<1x1x2x8xi32>
  }
  return %r : tensor<1x1x2x8xi32>
}

// -----

// Not firing: an input row read through a vector.shape_cast, which the
// pass does not trace to its tensor: the contraction is left as it is
// (it used to fail an assertion).
// CHECK-LABEL: func.func @untraced_row
// CHECK-NOT:     arith.xori
// CHECK:         vector.contract

func.func @untraced_row(%x: tensor<1x1x2x8xi8>, %out: tensor<1x1x2x8xi32>) -> tensor<1x1x2x8xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0 : i8
  %zero32 = arith.constant 0 : i32
  %w = arith.constant dense<[[[[-2, -2, -2, -2, -2, -2, -2, -2], [-1, -1, -1, -1, -1, -1, -1, -1], [0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1, 1], [2, 2, 2, 2, 2, 2, 2, 2], [3, 3, 3, 3, 3, 3, 3, 3], [4, 4, 4, 4, 4, 4, 4, 4], [5, 5, 5, 5, 5, 5, 5, 5]]]]> : tensor<1x1x8x8xi8>
  %bias = arith.constant dense<[2, 3, 4, 5, 6, 7, 8, 9]> : tensor<8xi32>
  %r = scf.for %p = %c0 to %c2 step %c1 iter_args(%o = %out) -> (tensor<1x1x2x8xi32>) {
    %rp = scf.for %c = %c0 to %c8 step %c4 iter_args(%op = %o) -> (tensor<1x1x2x8xi32>) {
      %row = tensor.extract_slice %x[0, 0, %p, 0] [1, 1, 1, 8] [1, 1, 1, 1] : tensor<1x1x2x8xi8> to tensor<1x1x1x8xi8>
      %bs = tensor.extract_slice %bias[%c] [4] [1] : tensor<8xi32> to tensor<4xi32>
      %tile0 = tensor.extract_slice %op[0, 0, %p, %c] [1, 1, 1, 4] [1, 1, 1, 1] : tensor<1x1x2x8xi32> to tensor<1x1x1x4xi32>
      %b = vector.transfer_read %bs[%c0], %zero32 {in_bounds = [true, true, true, true], permutation_map = affine_map<(d0) -> (0, 0, 0, d0)>} : tensor<4xi32>, vector<1x1x1x4xi32>
      %init = vector.transfer_write %b, %tile0[%c0, %c0, %c0, %c0] {in_bounds = [true, true, true, true]} : vector<1x1x1x4xi32>, tensor<1x1x1x4xi32>
      %acc = scf.for %k = %c0 to %c8 step %c4 iter_args(%t = %init) -> (tensor<1x1x1x4xi32>) {
        %xs = tensor.extract_slice %row[0, 0, 0, %k] [1, 1, 1, 4] [1, 1, 1, 1] : tensor<1x1x1x8xi8> to tensor<1x1x4xi8>
        %ws = tensor.extract_slice %w[0, 0, %k, %c] [1, 1, 4, 4] [1, 1, 1, 1] : tensor<1x1x8x8xi8> to tensor<1x4x4xi8>
        %ts = tensor.extract_slice %t[0, 0, 0, 0] [1, 1, 1, 4] [1, 1, 1, 1] : tensor<1x1x1x4xi32> to tensor<1x1x4xi32>
        %read = vector.transfer_read %xs[%c0, %c0, %c0], %zero {in_bounds = [true, true, true]} : tensor<1x1x4xi8>, vector<1x1x4xi8>
        %flat = vector.extract %read[0, 0] : vector<4xi8> from vector<1x1x4xi8>
        %lhs = vector.shape_cast %flat : vector<4xi8> to vector<1x1x4xi8>
        %rhs3 = vector.transfer_read %ws[%c0, %c0, %c0], %zero {in_bounds = [true, true, true]} : tensor<1x4x4xi8>, vector<1x4x4xi8>
        %rhs = vector.extract %rhs3[0] : vector<4x4xi8> from vector<1x4x4xi8>
        %a = vector.transfer_read %ts[%c0, %c0, %c0], %zero32 {in_bounds = [true, true, true]} : tensor<1x1x4xi32>, vector<1x1x4xi32>
        %lw = arith.extsi %lhs : vector<1x1x4xi8> to vector<1x1x4xi32>
        %rw = arith.extsi %rhs : vector<4x4xi8> to vector<4x4xi32>
        %y = vector.contract {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"], kind = #vector.kind<add>} %lw, %rw, %a : vector<1x1x4xi32>, vector<4x4xi32> into vector<1x1x4xi32>
        %yw = vector.transfer_write %y, %ts[%c0, %c0, %c0] {in_bounds = [true, true, true]} : vector<1x1x4xi32>, tensor<1x1x4xi32>
        %ins = tensor.insert_slice %yw into %t[0, 0, 0, 0] [1, 1, 1, 4] [1, 1, 1, 1] : tensor<1x1x4xi32> into tensor<1x1x1x4xi32>
        scf.yield %ins : tensor<1x1x1x4xi32>
      }
      %done = tensor.insert_slice %acc into %op[0, 0, %p, %c] [1, 1, 1, 4] [1, 1, 1, 1] : tensor<1x1x1x4xi32> into tensor<1x1x2x8xi32>
      scf.yield %done : tensor<1x1x2x8xi32>
    }
    scf.yield %rp : tensor<1x1x2x8xi32>
  }
  return %r : tensor<1x1x2x8xi32>
}
