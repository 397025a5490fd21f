// RUN: tinyml-opt %s --split-input-file --tinyml-read-in-place | FileCheck %s

// A band loop over rows carrying the group's input %in: each row is read
// from %in and written at the same place of the carried tensor. The row is
// still the input there, so the read goes through the carried tensor, and
// bufferization needs no copy of %in; the band is copied into a buffer of
// its own first (the one-band temporary), which the row's computation
// reads while it writes the row.

// CHECK-LABEL: func.func @rows
// CHECK:         scf.for %[[I:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %[[IN:.*]]) -> (tensor<1x4x2x8xf32>) {
// CHECK-NEXT:      %[[ROW:.*]] = tensor.extract_slice %[[ACC]][0, %[[I]], 0, 0] [1, 1, 2, 8] [1, 1, 1, 1]
// CHECK-NEXT:      %[[TEMP:.*]] = bufferization.alloc_tensor() copy(%[[ROW]]) : tensor<1x1x2x8xf32>
// CHECK-NEXT:      %[[Y:.*]] = math.sqrt %[[TEMP]]
// CHECK-NEXT:      tensor.insert_slice %[[Y]] into %[[ACC]][0, %[[I]], 0, 0] [1, 1, 2, 8] [1, 1, 1, 1]
// CHECK-NOT:     tinyml.in_place
func.func @rows(%x: tensor<1x4x2x8xf32>) -> tensor<1x4x2x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %in = math.exp %x : tensor<1x4x2x8xf32>
  %out = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %in) -> (tensor<1x4x2x8xf32>) {
    %row = tensor.extract_slice %in[0, %i, 0, 0] [1, 1, 2, 8] [1, 1, 1, 1] : tensor<1x4x2x8xf32> to tensor<1x1x2x8xf32>
    %y = math.sqrt %row : tensor<1x1x2x8xf32>
    %r = tensor.insert_slice %y into %acc[0, %i, 0, 0] [1, 1, 2, 8] [1, 1, 1, 1] : tensor<1x1x2x8xf32> into tensor<1x4x2x8xf32>
    scf.yield %r : tensor<1x4x2x8xf32>
  } {tinyml.in_place}
  return %out : tensor<1x4x2x8xf32>
}

// -----

// A band that reads more than it writes (a window with a halo: rows i-1
// and i for output row i): row i-1 of the carried tensor is already
// output. Only a read of exactly the band written is provably unwritten, so
// the loop is left alone (bufferization copies %in), the mark removed.

// CHECK-LABEL: func.func @halo
// CHECK:         scf.for %[[I:.*]] = {{.*}} iter_args(%{{.*}} = %[[IN:.*]]) -> (tensor<1x4x2x8xf32>) {
// CHECK:           tensor.extract_slice %[[IN]][0, %{{.*}}, 0, 0] [1, 2, 2, 8]
// CHECK-NOT:       alloc_tensor
// CHECK-NOT:     tinyml.in_place
func.func @halo(%x: tensor<1x4x2x8xf32>) -> tensor<1x4x2x8xf32> {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %in = math.exp %x : tensor<1x4x2x8xf32>
  %out = scf.for %i = %c1 to %c4 step %c1 iter_args(%acc = %in) -> (tensor<1x4x2x8xf32>) {
    %above = arith.subi %i, %c1 : index
    %rows = tensor.extract_slice %in[0, %above, 0, 0] [1, 2, 2, 8] [1, 1, 1, 1] : tensor<1x4x2x8xf32> to tensor<1x2x2x8xf32>
    %row = tensor.extract_slice %rows[0, 0, 0, 0] [1, 1, 2, 8] [1, 1, 1, 1] : tensor<1x2x2x8xf32> to tensor<1x1x2x8xf32>
    %r = tensor.insert_slice %row into %acc[0, %i, 0, 0] [1, 1, 2, 8] [1, 1, 1, 1] : tensor<1x1x2x8xf32> into tensor<1x4x2x8xf32>
    scf.yield %r : tensor<1x4x2x8xf32>
  } {tinyml.in_place}
  return %out : tensor<1x4x2x8xf32>
}

// -----

// The whole input read inside the loop (not a band of it): left alone.

// CHECK-LABEL: func.func @whole_input_read
// CHECK:         scf.for {{.*}} iter_args(%{{.*}} = %[[IN:.*]]) -> (tensor<1x4x2x8xf32>) {
// CHECK:           tensor.extract_slice %[[IN]]
// CHECK:           math.sqrt %[[IN]]
// CHECK-NOT:     tinyml.in_place
func.func @whole_input_read(%x: tensor<1x4x2x8xf32>) -> tensor<1x4x2x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %in = math.exp %x : tensor<1x4x2x8xf32>
  %out = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %in) -> (tensor<1x4x2x8xf32>) {
    %row = tensor.extract_slice %in[0, %i, 0, 0] [1, 1, 2, 8] [1, 1, 1, 1] : tensor<1x4x2x8xf32> to tensor<1x1x2x8xf32>
    %all = math.sqrt %in : tensor<1x4x2x8xf32>
    %first = tensor.extract_slice %all[0, 0, 0, 0] [1, 1, 2, 8] [1, 1, 1, 1] : tensor<1x4x2x8xf32> to tensor<1x1x2x8xf32>
    %y = arith.addf %row, %first : tensor<1x1x2x8xf32>
    %r = tensor.insert_slice %y into %acc[0, %i, 0, 0] [1, 1, 2, 8] [1, 1, 1, 1] : tensor<1x1x2x8xf32> into tensor<1x4x2x8xf32>
    scf.yield %r : tensor<1x4x2x8xf32>
  } {tinyml.in_place}
  return %out : tensor<1x4x2x8xf32>
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// A band read only by the int16 extension of its conv's input
// (tinyml-widen-conv-inputs): the extension is the band's copy, made whole
// before any of the band's outputs, so no temporary is allocated.

// CHECK-LABEL: func.func @widened
// CHECK:         scf.for %[[I:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<1x4x2x8xi8>) {
// CHECK-NEXT:      %[[ROW:.*]] = tensor.extract_slice %[[ACC]][0, %[[I]], 0, 0] [1, 1, 2, 8] [1, 1, 1, 1]
// CHECK-NOT:       alloc_tensor
// CHECK:           linalg.generic {{.*}} ins(%[[ROW]] : tensor<1x1x2x8xi8>) {{.*}} attrs = {tinyml.widened}
func.func @widened(%in: tensor<1x4x2x8xi8>) -> tensor<1x4x2x8xi8> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %out = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %in) -> (tensor<1x4x2x8xi8>) {
    %row = tensor.extract_slice %in[0, %i, 0, 0] [1, 1, 2, 8] [1, 1, 1, 1] : tensor<1x4x2x8xi8> to tensor<1x1x2x8xi8>
    %empty = tensor.empty() : tensor<1x1x2x8xi16>
    %wide = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%row : tensor<1x1x2x8xi8>) outs(%empty : tensor<1x1x2x8xi16>) attrs = {tinyml.widened} {
    ^bb0(%a: i8, %o: i16):
      %e = arith.extsi %a : i8 to i16
      linalg.yield %e : i16
    } -> tensor<1x1x2x8xi16>
    %y = arith.trunci %wide : tensor<1x1x2x8xi16> to tensor<1x1x2x8xi8>
    %r = tensor.insert_slice %y into %acc[0, %i, 0, 0] [1, 1, 2, 8] [1, 1, 1, 1] : tensor<1x1x2x8xi8> into tensor<1x4x2x8xi8>
    scf.yield %r : tensor<1x4x2x8xi8>
  } {tinyml.in_place}
  return %out : tensor<1x4x2x8xi8>
}
