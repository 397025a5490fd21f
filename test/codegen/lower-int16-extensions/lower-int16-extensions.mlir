// RUN: tinyml-opt %s --split-input-file --tinyml-lower-int16-extensions | FileCheck %s

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// A row of 2 pixels x 8 channels extended to int16 (tinyml.widened): one
// contiguous run of 16 bytes (the unit dimensions too), four words, two a
// loop iteration. Each word
// is one load; SXTB16 of it and of it rotated by 8 give bytes (0, 2) and
// (1, 3); the packs (the and/or/shift pairs LLVM selects as PKHBT and
// PKHTB) give the halfword pairs (0, 1) and (2, 3), stored as one vector.
// CHECK-LABEL: func.func @row
// CHECK:         %[[SOURCE:.*]] = memref.collapse_shape %{{.*}} {{\[\[}}0, 1, 2, 3]] : memref<1x1x2x8xi8> into memref<16xi8>
// CHECK:         %[[TARGET:.*]] = memref.collapse_shape %{{.*}} {{\[\[}}0, 1, 2, 3]] : memref<1x1x2x8xi16> into memref<16xi16>
// CHECK:         scf.for %[[K:.*]] = %c0{{.*}} to %c16{{.*}} step %c8
// CHECK:           %[[BYTES:.*]] = vector.load %[[SOURCE]][%[[K]]] : memref<16xi8>, vector<4xi8>
// CHECK:           vector.bitcast %[[BYTES]] : vector<4xi8> to vector<1xi32>
// CHECK-COUNT-2:   llvm.call_intrinsic "llvm.arm.sxtb16"
// CHECK:           %[[PAIRS:.*]] = vector.from_elements
// CHECK:           %[[HALVES:.*]] = vector.bitcast %[[PAIRS]] : vector<2xi32> to vector<4xi16>
// CHECK:           vector.store %[[HALVES]], %[[TARGET]][%[[K]]]
// CHECK:           %[[NEXT:.*]] = arith.addi %[[K]], %c4
// CHECK:           vector.load %[[SOURCE]][%[[NEXT]]]
// CHECK-COUNT-2:   llvm.call_intrinsic "llvm.arm.sxtb16"
// CHECK-NOT:     linalg.generic
func.func @row(%x: memref<1x1x2x8xi8>, %y: memref<1x1x2x8xi16>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x1x2x8xi8>) outs(%y : memref<1x1x2x8xi16>) attrs = {tinyml.widened} {
  ^bb0(%a: i8, %o: i16):
    %e = arith.extsi %a : i8 to i16
    linalg.yield %e : i16
  }
  return
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// A padded tile's window, its rows and columns dynamic (fewer at the
// image's border), read from a strided view: loops over them, each
// pixel's 4 channels one word.
// CHECK-LABEL: func.func @dynamic_window
// CHECK:         memref.dim %{{.*}}, %c1
// CHECK:         memref.dim %{{.*}}, %c2
// CHECK:         scf.for %[[C:.*]] = %c0{{.*}} to %c4{{.*}} step %c4
// CHECK:           vector.load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %[[C]]] : memref<1x?x?x4xi8, strided<[64, 16, 4, 1], offset: ?>>, vector<4xi8>
// CHECK-COUNT-2:   llvm.call_intrinsic "llvm.arm.sxtb16"
// CHECK-NOT:     linalg.generic
func.func @dynamic_window(%x: memref<1x?x?x4xi8, strided<[64, 16, 4, 1], offset: ?>>, %y: memref<1x?x?x4xi16>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x?x?x4xi8, strided<[64, 16, 4, 1], offset: ?>>) outs(%y : memref<1x?x?x4xi16>) attrs = {tinyml.widened} {
  ^bb0(%a: i8, %o: i16):
    %e = arith.extsi %a : i8 to i16
    linalg.yield %e : i16
  }
  return
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// Not firing: 6 channels, read from a view striding over pixels, leave
// runs that are not whole words.
// CHECK-LABEL: func.func @odd_run
// CHECK-NOT:     llvm.call_intrinsic
// CHECK:         linalg.generic
func.func @odd_run(%x: memref<1x1x2x6xi8, strided<[48, 24, 12, 1]>>, %y: memref<1x1x2x6xi16>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x1x2x6xi8, strided<[48, 24, 12, 1]>>) outs(%y : memref<1x1x2x6xi16>) attrs = {tinyml.widened} {
  ^bb0(%a: i8, %o: i16):
    %e = arith.extsi %a : i8 to i16
    linalg.yield %e : i16
  }
  return
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// Not firing: an extension not marked as a conv window's.
// CHECK-LABEL: func.func @unmarked
// CHECK-NOT:     llvm.call_intrinsic
// CHECK:         linalg.generic
func.func @unmarked(%x: memref<1x1x2x8xi8>, %y: memref<1x1x2x8xi16>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x1x2x8xi8>) outs(%y : memref<1x1x2x8xi16>) {
  ^bb0(%a: i8, %o: i16):
    %e = arith.extsi %a : i8 to i16
    linalg.yield %e : i16
  }
  return
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// A window marked tinyml.byte_pairs (tinyml-contract-to-smlad) is its
// input's byte-pair words: per word, P = (x1, x3) (SXTB16 of the word
// rotated by 8) and Q = (256 x0 - x1 + 127, 256 x2 - x3 + 127) (the even
// bytes shifted to the top of each halfword, SSUB16, SADD16 of 127 in both
// halves), stored as one vector.
// CHECK-LABEL: func.func @byte_pairs
// CHECK:         scf.for
// CHECK:           vector.load %{{.*}} : memref<16xi8>, vector<4xi8>
// CHECK:           %[[P:.*]] = llvm.call_intrinsic "llvm.arm.sxtb16"
// CHECK:           %[[DIFFERENCE:.*]] = llvm.call_intrinsic "llvm.arm.ssub16"(%{{.*}}, %[[P]])
// CHECK:           %[[Q:.*]] = llvm.call_intrinsic "llvm.arm.sadd16"(%[[DIFFERENCE]], %{{.*}})
// CHECK:           vector.from_elements %[[P]], %[[Q]] : vector<2xi32>
// CHECK-NOT:     linalg.generic
func.func @byte_pairs(%x: memref<1x1x2x8xi8>, %y: memref<1x1x2x8xi16>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x1x2x8xi8>) outs(%y : memref<1x1x2x8xi16>) attrs = {tinyml.byte_pairs, tinyml.widened} {
  ^bb0(%a: i8, %o: i16):
    %e = arith.extsi %a : i8 to i16
    linalg.yield %e : i16
  }
  return
}
