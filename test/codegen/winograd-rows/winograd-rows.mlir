// RUN: tinyml-opt %s --split-input-file --tinyml-winograd-rows --canonicalize --cse \
// RUN:   | FileCheck %s
// RUN: tinyml-opt %s --split-input-file --tinyml-winograd-rows='smlad=true' --canonicalize \
// RUN:   --cse | FileCheck %s --check-prefix=SMLAD
// RUN: tinyml-opt %s --split-input-file --tinyml-winograd-rows='weight-bytes=1535' \
// RUN:   | FileCheck %s --check-prefix=BOUND

// tinyml-winograd-rows (tinyml/codegen/winograd_rows.py): on ARMv6-M an int8
// 3x3 conv tile of two pixels is computed by F(2, 3) along each kernel row.
// Before the loop over channel tiles, the window's V = (d0 - d2, d1 + d2,
// d2 - d1, d1 - d3) of each kernel row and input channel is staged as int32
// (`[kh * C + c][e]`), with the sums of d0 + d2 and of d1 + d3; each tile
// then runs four matrix-vector loops over V[:, e] and the weights'
// transform U + 384 (halfwords, read zero-extended) and adds
// (M0 + M1 + M2 - 384 sum(d0 + d2)) >> 1 and
// (M1 - M2 - M3 - 384 sum(d1 + d3)) >> 1 to the accumulators it started
// from.

// The tile as tiling leaves it: a window of 3 rows x 4 columns x 8 input
// channels, 8 output channels in tiles of 4, the reduction walked a kernel
// row (kh) and 2 input channels a step, one contraction per kernel column.
// Every weight is w[kh][kw][c][o] = kw + 1 (g = 1, 2, 3): U = (2, 6, 2, 6),
// stored 386, 390, 386, 390 (halfwords 0x0182, 0x0186), per channel tile
// and e a run of 24 x 4.
// CHECK-LABEL: func.func @pixel_pair
// CHECK-DAG:     %[[U:.*]] = arith.constant dense<"0x{{(8201)+(8601)+(8201)+(8601)+(8201)+(8601)+(8201)+(8601)+}}"> : tensor<2x4x24x4xi16>
// CHECK-DAG:     %[[C384:.*]] = arith.constant 384 : i32
// CHECK:         %[[STAGE:.*]]:3 = scf.for %[[KH:[a-z0-9_]+]] = {{.*}} iter_args({{.*}}) -> (tensor<24x4xi32>, i32, i32) {
// CHECK:           scf.for %[[C:[a-z0-9_]+]] = {{.*}} -> (tensor<24x4xi32>, i32, i32) {
// CHECK-COUNT-4:     tensor.extract %{{.*}}[%{{.*}}, %[[KH]], %{{.*}}, %[[C]]] : tensor<1x3x4x8xi8>
// CHECK:             arith.subi
// CHECK:             arith.addi
// CHECK-COUNT-4:     tensor.insert
// CHECK:         %[[EVEN:.*]] = arith.muli %[[STAGE]]#1, %[[C384]] : i32
// CHECK:         %[[ODD:.*]] = arith.muli %[[STAGE]]#2, %[[C384]] : i32
// CHECK:         scf.for %[[O:[a-z0-9_]+]] = {{.*}} -> (tensor<1x1x2x8xi32>) {
// CHECK-NOT:       vector.contract
// CHECK-COUNT-4:   scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args({{.*}}) -> (i32, i32, i32, i32) {
// CHECK:           arith.subi %{{.*}}, %[[EVEN]] : i32
// CHECK:           arith.shrsi
// CHECK:           arith.subi %{{.*}}, %[[ODD]] : i32
// CHECK:           arith.shrsi
// CHECK:           vector.from_elements {{.*}} : vector<1x1x2x4xi32>
// CHECK-NOT:     vector.contract

// With `smlad` (the DSP extension) V's rows are staged in int16 pairs, a
// word each (12 pairs x 4), U stored as it is in pairs (2, 2 and 6, 6 as
// halfwords: 0x00020002 and 0x00060006), each word pair an SMLAD; nothing
// to take out but the halving.
// SMLAD-LABEL: func.func @pixel_pair
// SMLAD-DAG:     arith.constant dense<"0x{{(02000200)+(06000600)+(02000200)+(06000600)+(02000200)+(06000600)+(02000200)+(06000600)+}}"> : tensor<2x4x12x4xi32>
// SMLAD:         scf.for {{.*}} -> (tensor<12x4xi32>) {
// SMLAD:           scf.for {{.*}} step %c2 {{.*}} -> (tensor<12x4xi32>) {
// SMLAD-COUNT-8:     tensor.extract %{{.*}} : tensor<1x3x4x8xi8>
// SMLAD:             arith.shli
// SMLAD-NOT:     arith.constant 384
// SMLAD:         scf.for
// SMLAD-COUNT-4:   scf.for %{{.*}} iter_args({{.*}}) -> (i32, i32, i32, i32) {
// SMLAD:           llvm.call_intrinsic "llvm.arm.smlad"
// SMLAD-NOT:     vector.contract

// A bound on the transformed weights below this conv's (8 x 8 channel pairs
// x 24 bytes, 1,536) leaves it direct.
// BOUND-LABEL: func.func @pixel_pair
// BOUND-NOT:     xi16>
// BOUND-COUNT-3: vector.contract

#lhs = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#rhs = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
#acc = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#bias = affine_map<(d0) -> (0, 0, 0, d0)>
func.func @pixel_pair(%win: tensor<1x3x4x8xi8>, %out: tensor<1x1x2x8xi32>) -> tensor<1x1x2x8xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0 : i8
  %zero32 = arith.constant 0 : i32
  %w = arith.constant dense<[[[[1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1]], [[2, 2, 2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2, 2, 2]], [[3, 3, 3, 3, 3, 3, 3, 3], [3, 3, 3, 3, 3, 3, 3, 3], [3, 3, 3, 3, 3, 3, 3, 3], [3, 3, 3, 3, 3, 3, 3, 3], [3, 3, 3, 3, 3, 3, 3, 3], [3, 3, 3, 3, 3, 3, 3, 3], [3, 3, 3, 3, 3, 3, 3, 3], [3, 3, 3, 3, 3, 3, 3, 3]]], [[[1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1]], [[2, 2, 2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2, 2, 2]], [[3, 3, 3, 3, 3, 3, 3, 3], [3, 3, 3, 3, 3, 3, 3, 3], [3, 3, 3, 3, 3, 3, 3, 3], [3, 3, 3, 3, 3, 3, 3, 3], [3, 3, 3, 3, 3, 3, 3, 3], [3, 3, 3, 3, 3, 3, 3, 3], [3, 3, 3, 3, 3, 3, 3, 3], [3, 3, 3, 3, 3, 3, 3, 3]]], [[[1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1]], [[2, 2, 2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2, 2, 2]], [[3, 3, 3, 3, 3, 3, 3, 3], [3, 3, 3, 3, 3, 3, 3, 3], [3, 3, 3, 3, 3, 3, 3, 3], [3, 3, 3, 3, 3, 3, 3, 3], [3, 3, 3, 3, 3, 3, 3, 3], [3, 3, 3, 3, 3, 3, 3, 3], [3, 3, 3, 3, 3, 3, 3, 3], [3, 3, 3, 3, 3, 3, 3, 3]]]]> : tensor<3x3x8x8xi8>
  %bias = arith.constant dense<[2, 3, 4, 5, 6, 7, 8, 9]> : tensor<8xi32>
  %r = scf.for %o = %c0 to %c8 step %c4 iter_args(%acc0 = %out) -> (tensor<1x1x2x8xi32>) {
    %tile = tensor.extract_slice %acc0[0, 0, 0, %o] [1, 1, 2, 4] [1, 1, 1, 1] : tensor<1x1x2x8xi32> to tensor<1x1x2x4xi32>
    %bs = tensor.extract_slice %bias[%o] [4] [1] : tensor<8xi32> to tensor<4xi32>
    %b = vector.transfer_read %bs[%c0], %zero32 {in_bounds = [true, true, true, true], permutation_map = #bias} : tensor<4xi32>, vector<1x1x2x4xi32>
    %init = vector.transfer_write %b, %tile[%c0, %c0, %c0, %c0] {in_bounds = [true, true, true, true]} : vector<1x1x2x4xi32>, tensor<1x1x2x4xi32>
    %rows = scf.for %kh = %c0 to %c3 step %c1 iter_args(%t0 = %init) -> (tensor<1x1x2x4xi32>) {
      %steps = scf.for %c = %c0 to %c8 step %c2 iter_args(%t = %t0) -> (tensor<1x1x2x4xi32>) {
        %x0 = tensor.extract_slice %win[0, %kh, 0, %c] [1, 1, 2, 2] [1, 1, 1, 1] : tensor<1x3x4x8xi8> to tensor<1x2x2xi8>
        %x1 = tensor.extract_slice %win[0, %kh, 1, %c] [1, 1, 2, 2] [1, 1, 1, 1] : tensor<1x3x4x8xi8> to tensor<1x2x2xi8>
        %x2 = tensor.extract_slice %win[0, %kh, 2, %c] [1, 1, 2, 2] [1, 1, 1, 1] : tensor<1x3x4x8xi8> to tensor<1x2x2xi8>
        %w0 = tensor.extract_slice %w[%kh, 0, %c, %o] [1, 1, 2, 4] [1, 1, 1, 1] : tensor<3x3x8x8xi8> to tensor<2x4xi8>
        %w1 = tensor.extract_slice %w[%kh, 1, %c, %o] [1, 1, 2, 4] [1, 1, 1, 1] : tensor<3x3x8x8xi8> to tensor<2x4xi8>
        %w2 = tensor.extract_slice %w[%kh, 2, %c, %o] [1, 1, 2, 4] [1, 1, 1, 1] : tensor<3x3x8x8xi8> to tensor<2x4xi8>
        %ts = tensor.extract_slice %t[0, 0, 0, 0] [1, 1, 2, 4] [1, 1, 1, 1] : tensor<1x1x2x4xi32> to tensor<1x2x4xi32>
        %l0 = vector.transfer_read %x0[%c0, %c0, %c0], %zero {in_bounds = [true, true, true]} : tensor<1x2x2xi8>, vector<1x2x2xi8>
        %l1 = vector.transfer_read %x1[%c0, %c0, %c0], %zero {in_bounds = [true, true, true]} : tensor<1x2x2xi8>, vector<1x2x2xi8>
        %l2 = vector.transfer_read %x2[%c0, %c0, %c0], %zero {in_bounds = [true, true, true]} : tensor<1x2x2xi8>, vector<1x2x2xi8>
        %r0 = vector.transfer_read %w0[%c0, %c0], %zero {in_bounds = [true, true]} : tensor<2x4xi8>, vector<2x4xi8>
        %r1 = vector.transfer_read %w1[%c0, %c0], %zero {in_bounds = [true, true]} : tensor<2x4xi8>, vector<2x4xi8>
        %r2 = vector.transfer_read %w2[%c0, %c0], %zero {in_bounds = [true, true]} : tensor<2x4xi8>, vector<2x4xi8>
        %a = vector.transfer_read %ts[%c0, %c0, %c0], %zero32 {in_bounds = [true, true, true]} : tensor<1x2x4xi32>, vector<1x2x4xi32>
        %e0 = arith.extsi %l0 : vector<1x2x2xi8> to vector<1x2x2xi32>
        %f0 = arith.extsi %r0 : vector<2x4xi8> to vector<2x4xi32>
        %y0 = vector.contract {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "parallel", "reduction"], kind = #vector.kind<add>} %e0, %f0, %a : vector<1x2x2xi32>, vector<2x4xi32> into vector<1x2x4xi32>
        %e1 = arith.extsi %l1 : vector<1x2x2xi8> to vector<1x2x2xi32>
        %f1 = arith.extsi %r1 : vector<2x4xi8> to vector<2x4xi32>
        %y1 = vector.contract {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "parallel", "reduction"], kind = #vector.kind<add>} %e1, %f1, %y0 : vector<1x2x2xi32>, vector<2x4xi32> into vector<1x2x4xi32>
        %e2 = arith.extsi %l2 : vector<1x2x2xi8> to vector<1x2x2xi32>
        %f2 = arith.extsi %r2 : vector<2x4xi8> to vector<2x4xi32>
        %y2 = vector.contract {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "parallel", "reduction"], kind = #vector.kind<add>} %e2, %f2, %y1 : vector<1x2x2xi32>, vector<2x4xi32> into vector<1x2x4xi32>
        %yw = vector.transfer_write %y2, %ts[%c0, %c0, %c0] {in_bounds = [true, true, true]} : vector<1x2x4xi32>, tensor<1x2x4xi32>
        %ins = tensor.insert_slice %yw into %t[0, 0, 0, 0] [1, 1, 2, 4] [1, 1, 1, 1] : tensor<1x2x4xi32> into tensor<1x1x2x4xi32>
        scf.yield %ins : tensor<1x1x2x4xi32>
      }
      scf.yield %steps : tensor<1x1x2x4xi32>
    }
    %done = tensor.insert_slice %rows into %acc0[0, 0, 0, %o] [1, 1, 2, 4] [1, 1, 1, 1] : tensor<1x1x2x4xi32> into tensor<1x1x2x8xi32>
    scf.yield %done : tensor<1x1x2x8xi32>
  }
  return %r : tensor<1x1x2x8xi32>
}

// -----

// Not firing: the contractions read the kernel columns in the wrong order
// (column 2's weights with column 0's inputs): the products are not the
// conv's, as enumerating them shows; the tile is left as it is.
// CHECK-LABEL: func.func @columns_swapped
// SMLAD-LABEL: func.func @columns_swapped
// SMLAD-COUNT-3: vector.contract
// CHECK-NOT:     xi16>
// CHECK-COUNT-3: vector.contract

#lhs = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#rhs = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
#acc = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
func.func @columns_swapped(%win: tensor<1x3x4x8xi8>, %out: tensor<1x1x2x8xi32>) -> tensor<1x1x2x8xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0 : i8
  %zero32 = arith.constant 0 : i32
  %wc = arith.constant dense<1> : tensor<3x3x8x8xi8>
  %r = scf.for %o = %c0 to %c8 step %c4 iter_args(%acc0 = %out) -> (tensor<1x1x2x8xi32>) {
    %init = tensor.extract_slice %acc0[0, 0, 0, %o] [1, 1, 2, 4] [1, 1, 1, 1] : tensor<1x1x2x8xi32> to tensor<1x1x2x4xi32>
    %rows = scf.for %kh = %c0 to %c3 step %c1 iter_args(%t0 = %init) -> (tensor<1x1x2x4xi32>) {
      %steps = scf.for %c = %c0 to %c8 step %c2 iter_args(%t = %t0) -> (tensor<1x1x2x4xi32>) {
        %x0 = tensor.extract_slice %win[0, %kh, 0, %c] [1, 1, 2, 2] [1, 1, 1, 1] : tensor<1x3x4x8xi8> to tensor<1x2x2xi8>
        %x1 = tensor.extract_slice %win[0, %kh, 1, %c] [1, 1, 2, 2] [1, 1, 1, 1] : tensor<1x3x4x8xi8> to tensor<1x2x2xi8>
        %x2 = tensor.extract_slice %win[0, %kh, 2, %c] [1, 1, 2, 2] [1, 1, 1, 1] : tensor<1x3x4x8xi8> to tensor<1x2x2xi8>
        %w0 = tensor.extract_slice %wc[%kh, 2, %c, %o] [1, 1, 2, 4] [1, 1, 1, 1] : tensor<3x3x8x8xi8> to tensor<2x4xi8>
        %w1 = tensor.extract_slice %wc[%kh, 1, %c, %o] [1, 1, 2, 4] [1, 1, 1, 1] : tensor<3x3x8x8xi8> to tensor<2x4xi8>
        %w2 = tensor.extract_slice %wc[%kh, 0, %c, %o] [1, 1, 2, 4] [1, 1, 1, 1] : tensor<3x3x8x8xi8> to tensor<2x4xi8>
        %ts = tensor.extract_slice %t[0, 0, 0, 0] [1, 1, 2, 4] [1, 1, 1, 1] : tensor<1x1x2x4xi32> to tensor<1x2x4xi32>
        %l0 = vector.transfer_read %x0[%c0, %c0, %c0], %zero {in_bounds = [true, true, true]} : tensor<1x2x2xi8>, vector<1x2x2xi8>
        %l1 = vector.transfer_read %x1[%c0, %c0, %c0], %zero {in_bounds = [true, true, true]} : tensor<1x2x2xi8>, vector<1x2x2xi8>
        %l2 = vector.transfer_read %x2[%c0, %c0, %c0], %zero {in_bounds = [true, true, true]} : tensor<1x2x2xi8>, vector<1x2x2xi8>
        %r0 = vector.transfer_read %w0[%c0, %c0], %zero {in_bounds = [true, true]} : tensor<2x4xi8>, vector<2x4xi8>
        %r1 = vector.transfer_read %w1[%c0, %c0], %zero {in_bounds = [true, true]} : tensor<2x4xi8>, vector<2x4xi8>
        %r2 = vector.transfer_read %w2[%c0, %c0], %zero {in_bounds = [true, true]} : tensor<2x4xi8>, vector<2x4xi8>
        %a = vector.transfer_read %ts[%c0, %c0, %c0], %zero32 {in_bounds = [true, true, true]} : tensor<1x2x4xi32>, vector<1x2x4xi32>
        %y0 = vector.contract {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "parallel", "reduction"], kind = #vector.kind<add>} %l0, %r0, %a : vector<1x2x2xi8>, vector<2x4xi8> into vector<1x2x4xi32>
        %y1 = vector.contract {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "parallel", "reduction"], kind = #vector.kind<add>} %l1, %r1, %y0 : vector<1x2x2xi8>, vector<2x4xi8> into vector<1x2x4xi32>
        %y2 = vector.contract {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "parallel", "reduction"], kind = #vector.kind<add>} %l2, %r2, %y1 : vector<1x2x2xi8>, vector<2x4xi8> into vector<1x2x4xi32>
        %yw = vector.transfer_write %y2, %ts[%c0, %c0, %c0] {in_bounds = [true, true, true]} : vector<1x2x4xi32>, tensor<1x2x4xi32>
        %ins = tensor.insert_slice %yw into %t[0, 0, 0, 0] [1, 1, 2, 4] [1, 1, 1, 1] : tensor<1x2x4xi32> into tensor<1x1x2x4xi32>
        scf.yield %ins : tensor<1x1x2x4xi32>
      }
      scf.yield %steps : tensor<1x1x2x4xi32>
    }
    %done = tensor.insert_slice %rows into %acc0[0, 0, 0, %o] [1, 1, 2, 4] [1, 1, 1, 1] : tensor<1x1x2x4xi32> into tensor<1x1x2x8xi32>
    scf.yield %done : tensor<1x1x2x8xi32>
  }
  return %r : tensor<1x1x2x8xi32>
}

// -----

// Not firing: the weight constant is read outside the tile too, which
// needs its int8 values: it is never stored twice, so the tile is left as
// it is.
// CHECK-LABEL: func.func @weights_read_elsewhere
// CHECK-NOT:     xi16>
// CHECK-COUNT-3: vector.contract

#lhs = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#rhs = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
#acc = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#bias = affine_map<(d0) -> (0, 0, 0, d0)>
func.func @weights_read_elsewhere(%win: tensor<1x3x4x8xi8>, %out: tensor<1x1x2x8xi32>) -> (tensor<1x1x2x8xi32>, i8) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0 : i8
  %zero32 = arith.constant 0 : i32
  %w = arith.constant dense<[[[[1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1]], [[2, 2, 2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2, 2, 2]], [[3, 3, 3, 3, 3, 3, 3, 3], [3, 3, 3, 3, 3, 3, 3, 3], [3, 3, 3, 3, 3, 3, 3, 3], [3, 3, 3, 3, 3, 3, 3, 3], [3, 3, 3, 3, 3, 3, 3, 3], [3, 3, 3, 3, 3, 3, 3, 3], [3, 3, 3, 3, 3, 3, 3, 3], [3, 3, 3, 3, 3, 3, 3, 3]]], [[[1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1]], [[2, 2, 2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2, 2, 2]], [[3, 3, 3, 3, 3, 3, 3, 3], [3, 3, 3, 3, 3, 3, 3, 3], [3, 3, 3, 3, 3, 3, 3, 3], [3, 3, 3, 3, 3, 3, 3, 3], [3, 3, 3, 3, 3, 3, 3, 3], [3, 3, 3, 3, 3, 3, 3, 3], [3, 3, 3, 3, 3, 3, 3, 3], [3, 3, 3, 3, 3, 3, 3, 3]]], [[[1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1]], [[2, 2, 2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2, 2, 2]], [[3, 3, 3, 3, 3, 3, 3, 3], [3, 3, 3, 3, 3, 3, 3, 3], [3, 3, 3, 3, 3, 3, 3, 3], [3, 3, 3, 3, 3, 3, 3, 3], [3, 3, 3, 3, 3, 3, 3, 3], [3, 3, 3, 3, 3, 3, 3, 3], [3, 3, 3, 3, 3, 3, 3, 3], [3, 3, 3, 3, 3, 3, 3, 3]]]]> : tensor<3x3x8x8xi8>
  %bias = arith.constant dense<[2, 3, 4, 5, 6, 7, 8, 9]> : tensor<8xi32>
  %r = scf.for %o = %c0 to %c8 step %c4 iter_args(%acc0 = %out) -> (tensor<1x1x2x8xi32>) {
    %tile = tensor.extract_slice %acc0[0, 0, 0, %o] [1, 1, 2, 4] [1, 1, 1, 1] : tensor<1x1x2x8xi32> to tensor<1x1x2x4xi32>
    %bs = tensor.extract_slice %bias[%o] [4] [1] : tensor<8xi32> to tensor<4xi32>
    %b = vector.transfer_read %bs[%c0], %zero32 {in_bounds = [true, true, true, true], permutation_map = #bias} : tensor<4xi32>, vector<1x1x2x4xi32>
    %init = vector.transfer_write %b, %tile[%c0, %c0, %c0, %c0] {in_bounds = [true, true, true, true]} : vector<1x1x2x4xi32>, tensor<1x1x2x4xi32>
    %rows = scf.for %kh = %c0 to %c3 step %c1 iter_args(%t0 = %init) -> (tensor<1x1x2x4xi32>) {
      %steps = scf.for %c = %c0 to %c8 step %c2 iter_args(%t = %t0) -> (tensor<1x1x2x4xi32>) {
        %x0 = tensor.extract_slice %win[0, %kh, 0, %c] [1, 1, 2, 2] [1, 1, 1, 1] : tensor<1x3x4x8xi8> to tensor<1x2x2xi8>
        %x1 = tensor.extract_slice %win[0, %kh, 1, %c] [1, 1, 2, 2] [1, 1, 1, 1] : tensor<1x3x4x8xi8> to tensor<1x2x2xi8>
        %x2 = tensor.extract_slice %win[0, %kh, 2, %c] [1, 1, 2, 2] [1, 1, 1, 1] : tensor<1x3x4x8xi8> to tensor<1x2x2xi8>
        %w0 = tensor.extract_slice %w[%kh, 0, %c, %o] [1, 1, 2, 4] [1, 1, 1, 1] : tensor<3x3x8x8xi8> to tensor<2x4xi8>
        %w1 = tensor.extract_slice %w[%kh, 1, %c, %o] [1, 1, 2, 4] [1, 1, 1, 1] : tensor<3x3x8x8xi8> to tensor<2x4xi8>
        %w2 = tensor.extract_slice %w[%kh, 2, %c, %o] [1, 1, 2, 4] [1, 1, 1, 1] : tensor<3x3x8x8xi8> to tensor<2x4xi8>
        %ts = tensor.extract_slice %t[0, 0, 0, 0] [1, 1, 2, 4] [1, 1, 1, 1] : tensor<1x1x2x4xi32> to tensor<1x2x4xi32>
        %l0 = vector.transfer_read %x0[%c0, %c0, %c0], %zero {in_bounds = [true, true, true]} : tensor<1x2x2xi8>, vector<1x2x2xi8>
        %l1 = vector.transfer_read %x1[%c0, %c0, %c0], %zero {in_bounds = [true, true, true]} : tensor<1x2x2xi8>, vector<1x2x2xi8>
        %l2 = vector.transfer_read %x2[%c0, %c0, %c0], %zero {in_bounds = [true, true, true]} : tensor<1x2x2xi8>, vector<1x2x2xi8>
        %r0 = vector.transfer_read %w0[%c0, %c0], %zero {in_bounds = [true, true]} : tensor<2x4xi8>, vector<2x4xi8>
        %r1 = vector.transfer_read %w1[%c0, %c0], %zero {in_bounds = [true, true]} : tensor<2x4xi8>, vector<2x4xi8>
        %r2 = vector.transfer_read %w2[%c0, %c0], %zero {in_bounds = [true, true]} : tensor<2x4xi8>, vector<2x4xi8>
        %a = vector.transfer_read %ts[%c0, %c0, %c0], %zero32 {in_bounds = [true, true, true]} : tensor<1x2x4xi32>, vector<1x2x4xi32>
        %e0 = arith.extsi %l0 : vector<1x2x2xi8> to vector<1x2x2xi32>
        %f0 = arith.extsi %r0 : vector<2x4xi8> to vector<2x4xi32>
        %y0 = vector.contract {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "parallel", "reduction"], kind = #vector.kind<add>} %e0, %f0, %a : vector<1x2x2xi32>, vector<2x4xi32> into vector<1x2x4xi32>
        %e1 = arith.extsi %l1 : vector<1x2x2xi8> to vector<1x2x2xi32>
        %f1 = arith.extsi %r1 : vector<2x4xi8> to vector<2x4xi32>
        %y1 = vector.contract {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "parallel", "reduction"], kind = #vector.kind<add>} %e1, %f1, %y0 : vector<1x2x2xi32>, vector<2x4xi32> into vector<1x2x4xi32>
        %e2 = arith.extsi %l2 : vector<1x2x2xi8> to vector<1x2x2xi32>
        %f2 = arith.extsi %r2 : vector<2x4xi8> to vector<2x4xi32>
        %y2 = vector.contract {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "parallel", "reduction"], kind = #vector.kind<add>} %e2, %f2, %y1 : vector<1x2x2xi32>, vector<2x4xi32> into vector<1x2x4xi32>
        %yw = vector.transfer_write %y2, %ts[%c0, %c0, %c0] {in_bounds = [true, true, true]} : vector<1x2x4xi32>, tensor<1x2x4xi32>
        %ins = tensor.insert_slice %yw into %t[0, 0, 0, 0] [1, 1, 2, 4] [1, 1, 1, 1] : tensor<1x2x4xi32> into tensor<1x1x2x4xi32>
        scf.yield %ins : tensor<1x1x2x4xi32>
      }
      scf.yield %steps : tensor<1x1x2x4xi32>
    }
    %done = tensor.insert_slice %rows into %acc0[0, 0, 0, %o] [1, 1, 2, 4] [1, 1, 1, 1] : tensor<1x1x2x4xi32> into tensor<1x1x2x8xi32>
    scf.yield %done : tensor<1x1x2x8xi32>
  }
  %elsewhere = tensor.extract %w[%c0, %c0, %c0, %c0] : tensor<3x3x8x8xi8>
  return %r, %elsewhere : tensor<1x1x2x8xi32>, i8
}

// -----

// A one-channel stem of 5x3 kernels (an audio spectrogram's): the window
// is 5 rows x 4 columns x 1 channel, the reduction a kernel row a step.
// Scalar: 5 rows of V staged, U + 384 as halfwords, 5 x 4 per channel tile
// and e, each e's loop one step of all 5 rows (unrolled: 4 x 5 x 4
// products). With `smlad` the 5 rows go in 3 pairs, kernel rows 0-1, 2-3
// and 4 with a zero high half (V's too): 0x00020002 (131074) twice, then
// 2 (e = 0; 0x00060006, 393222, and 6 for e = 1); 4 x 3 x 4 SMLADs.
// CHECK-LABEL: func.func @one_channel_stem
// CHECK-DAG:     arith.constant dense<"0x{{(8201)+(8601)+(8201)+(8601)+(8201)+(8601)+(8201)+(8601)+}}"> : tensor<2x4x5x4xi16>
// CHECK:         scf.for {{.*}} -> (tensor<5x4xi32>, i32, i32) {
// CHECK-COUNT-4:   tensor.extract %{{.*}} : tensor<1x5x4x1xi8>
// CHECK:         scf.for %{{.*}} -> (tensor<1x1x2x8xi32>) {
// CHECK-COUNT-80:  arith.extui %{{.*}} : i16 to i32
// CHECK-NOT:     vector.contract
// SMLAD-LABEL: func.func @one_channel_stem
// SMLAD-DAG:     arith.constant dense<{{\[}}[{{\[}}[131074, 131074, 131074, 131074], [131074, 131074, 131074, 131074], [2, 2, 2, 2]], {{\[}}[393222, 393222, 393222, 393222], [393222, 393222, 393222, 393222], [6, 6, 6, 6]], {{.*}}> : tensor<2x4x3x4xi32>
// SMLAD-NOT:     scf.for
// SMLAD-COUNT-12: tensor.insert %{{.*}} into %{{.*}} : tensor<3x4xi32>
// SMLAD:         scf.for %{{.*}} -> (tensor<1x1x2x8xi32>) {
// SMLAD-COUNT-48:  llvm.call_intrinsic "llvm.arm.smlad"
// SMLAD-NOT:     vector.contract
// Its transformed weights take 384 bytes (5 rows rounded up to SMLAD's 6,
// x 8 output channels x 8 bytes), under the bound of 1,535.
// BOUND-LABEL: func.func @one_channel_stem
// BOUND:         tensor<2x4x5x4xi16>

#lhs = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#rhs = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
#acc = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
func.func @one_channel_stem(%win: tensor<1x5x4x1xi8>, %out: tensor<1x1x2x8xi32>) -> tensor<1x1x2x8xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0 : i8
  %zero32 = arith.constant 0 : i32
  %w = arith.constant dense<[[[[1, 1, 1, 1, 1, 1, 1, 1]], [[2, 2, 2, 2, 2, 2, 2, 2]], [[3, 3, 3, 3, 3, 3, 3, 3]]], [[[1, 1, 1, 1, 1, 1, 1, 1]], [[2, 2, 2, 2, 2, 2, 2, 2]], [[3, 3, 3, 3, 3, 3, 3, 3]]], [[[1, 1, 1, 1, 1, 1, 1, 1]], [[2, 2, 2, 2, 2, 2, 2, 2]], [[3, 3, 3, 3, 3, 3, 3, 3]]], [[[1, 1, 1, 1, 1, 1, 1, 1]], [[2, 2, 2, 2, 2, 2, 2, 2]], [[3, 3, 3, 3, 3, 3, 3, 3]]], [[[1, 1, 1, 1, 1, 1, 1, 1]], [[2, 2, 2, 2, 2, 2, 2, 2]], [[3, 3, 3, 3, 3, 3, 3, 3]]]]> : tensor<5x3x1x8xi8>
  %r = scf.for %o = %c0 to %c8 step %c4 iter_args(%acc0 = %out) -> (tensor<1x1x2x8xi32>) {
    %init = tensor.extract_slice %acc0[0, 0, 0, %o] [1, 1, 2, 4] [1, 1, 1, 1] : tensor<1x1x2x8xi32> to tensor<1x1x2x4xi32>
    %rows = scf.for %kh = %c0 to %c5 step %c1 iter_args(%t = %init) -> (tensor<1x1x2x4xi32>) {
      %x0 = tensor.extract_slice %win[0, %kh, 0, 0] [1, 1, 2, 1] [1, 1, 1, 1] : tensor<1x5x4x1xi8> to tensor<1x2x1xi8>
      %x1 = tensor.extract_slice %win[0, %kh, 1, 0] [1, 1, 2, 1] [1, 1, 1, 1] : tensor<1x5x4x1xi8> to tensor<1x2x1xi8>
      %x2 = tensor.extract_slice %win[0, %kh, 2, 0] [1, 1, 2, 1] [1, 1, 1, 1] : tensor<1x5x4x1xi8> to tensor<1x2x1xi8>
      %w0 = tensor.extract_slice %w[%kh, 0, 0, %o] [1, 1, 1, 4] [1, 1, 1, 1] : tensor<5x3x1x8xi8> to tensor<1x4xi8>
      %w1 = tensor.extract_slice %w[%kh, 1, 0, %o] [1, 1, 1, 4] [1, 1, 1, 1] : tensor<5x3x1x8xi8> to tensor<1x4xi8>
      %w2 = tensor.extract_slice %w[%kh, 2, 0, %o] [1, 1, 1, 4] [1, 1, 1, 1] : tensor<5x3x1x8xi8> to tensor<1x4xi8>
      %ts = tensor.extract_slice %t[0, 0, 0, 0] [1, 1, 2, 4] [1, 1, 1, 1] : tensor<1x1x2x4xi32> to tensor<1x2x4xi32>
      %l0 = vector.transfer_read %x0[%c0, %c0, %c0], %zero {in_bounds = [true, true, true]} : tensor<1x2x1xi8>, vector<1x2x1xi8>
      %l1 = vector.transfer_read %x1[%c0, %c0, %c0], %zero {in_bounds = [true, true, true]} : tensor<1x2x1xi8>, vector<1x2x1xi8>
      %l2 = vector.transfer_read %x2[%c0, %c0, %c0], %zero {in_bounds = [true, true, true]} : tensor<1x2x1xi8>, vector<1x2x1xi8>
      %r0 = vector.transfer_read %w0[%c0, %c0], %zero {in_bounds = [true, true]} : tensor<1x4xi8>, vector<1x4xi8>
      %r1 = vector.transfer_read %w1[%c0, %c0], %zero {in_bounds = [true, true]} : tensor<1x4xi8>, vector<1x4xi8>
      %r2 = vector.transfer_read %w2[%c0, %c0], %zero {in_bounds = [true, true]} : tensor<1x4xi8>, vector<1x4xi8>
      %a = vector.transfer_read %ts[%c0, %c0, %c0], %zero32 {in_bounds = [true, true, true]} : tensor<1x2x4xi32>, vector<1x2x4xi32>
      %e0 = arith.extsi %l0 : vector<1x2x1xi8> to vector<1x2x1xi32>
      %f0 = arith.extsi %r0 : vector<1x4xi8> to vector<1x4xi32>
      %y0 = vector.contract {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "parallel", "reduction"], kind = #vector.kind<add>} %e0, %f0, %a : vector<1x2x1xi32>, vector<1x4xi32> into vector<1x2x4xi32>
      %e1 = arith.extsi %l1 : vector<1x2x1xi8> to vector<1x2x1xi32>
      %f1 = arith.extsi %r1 : vector<1x4xi8> to vector<1x4xi32>
      %y1 = vector.contract {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "parallel", "reduction"], kind = #vector.kind<add>} %e1, %f1, %y0 : vector<1x2x1xi32>, vector<1x4xi32> into vector<1x2x4xi32>
      %e2 = arith.extsi %l2 : vector<1x2x1xi8> to vector<1x2x1xi32>
      %f2 = arith.extsi %r2 : vector<1x4xi8> to vector<1x4xi32>
      %y2 = vector.contract {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "parallel", "reduction"], kind = #vector.kind<add>} %e2, %f2, %y1 : vector<1x2x1xi32>, vector<1x4xi32> into vector<1x2x4xi32>
      %yw = vector.transfer_write %y2, %ts[%c0, %c0, %c0] {in_bounds = [true, true, true]} : vector<1x2x4xi32>, tensor<1x2x4xi32>
      %ins = tensor.insert_slice %yw into %t[0, 0, 0, 0] [1, 1, 2, 4] [1, 1, 1, 1] : tensor<1x2x4xi32> into tensor<1x1x2x4xi32>
      scf.yield %ins : tensor<1x1x2x4xi32>
    }
    %done = tensor.insert_slice %rows into %acc0[0, 0, 0, %o] [1, 1, 2, 4] [1, 1, 1, 1] : tensor<1x1x2x4xi32> into tensor<1x1x2x8xi32>
    scf.yield %done : tensor<1x1x2x8xi32>
  }
  return %r : tensor<1x1x2x8xi32>
}
