// RUN: tinyml-opt %s --tinyml-lower-int16-extensions --verify-diagnostics

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// A byte-pair window that is not a run of whole words cannot be packed, and
// linalg's loops of its body would compute the extension, not the words its
// tiles read: the pass fails on it.
func.func @byte_pairs_odd_run(%x: memref<1x1x2x6xi8, strided<[48, 24, 12, 1]>>, %y: memref<1x1x2x6xi16>) {
  // expected-error @+1 {{a byte-pair window}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x1x2x6xi8, strided<[48, 24, 12, 1]>>) outs(%y : memref<1x1x2x6xi16>) attrs = {tinyml.byte_pairs, tinyml.widened} {
  ^bb0(%a: i8, %o: i16):
    %e = arith.extsi %a : i8 to i16
    linalg.yield %e : i16
  }
  return
}
