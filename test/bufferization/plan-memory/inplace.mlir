// RUN: tinyml-opt %s --split-input-file --tinyml-plan-memory | FileCheck %s
// RUN: tinyml-opt %s --split-input-file --tinyml-plan-memory=inplace=false | FileCheck %s --check-prefix=NOINPLACE

// An element-wise chain in -> a -> b -> c: each op reads its input for the
// last time with the same indexing as its output, so the output takes the
// input's bytes. The whole chain lives in one buffer's worth of arena,
// below the two-buffer bound of an op that cannot write in place.

#id = affine_map<(d0, d1) -> (d0, d1)>

// CHECK-LABEL: func.func @elementwise_chain
// CHECK-SAME:    %[[ARENA:[^:]*]]: memref<128xi8> {tinyml.arena}
// CHECK-SAME:    tinyml.arena_bytes = 128 : i64
// CHECK-SAME:    tinyml.greedy_arena_bytes = 256 : i64
// CHECK-SAME:    tinyml.lower_bound_bytes = 128 : i64
// CHECK-SAME:    tinyml.naive_arena_bytes = 384 : i64
// CHECK:         %[[O1:.*]] = arith.constant 0 : index
// CHECK-NEXT:    memref.view %[[ARENA]][%[[O1]]][]
// CHECK:         %[[O2:.*]] = arith.constant 0 : index
// CHECK-NEXT:    memref.view %[[ARENA]][%[[O2]]][]
// CHECK:         %[[O3:.*]] = arith.constant 0 : index
// CHECK-NEXT:    memref.view %[[ARENA]][%[[O3]]][]

// NOINPLACE-LABEL: func.func @elementwise_chain
// NOINPLACE-SAME:    memref<256xi8> {tinyml.arena}
// NOINPLACE-SAME:    tinyml.arena_bytes = 256 : i64
// NOINPLACE-SAME:    tinyml.lower_bound_bytes = 256 : i64
func.func @elementwise_chain(%in: memref<4x8xf32>, %out: memref<4x8xf32>) {
  %a = memref.alloc() : memref<4x8xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%in : memref<4x8xf32>) outs(%a : memref<4x8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  }
  %b = memref.alloc() : memref<4x8xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x8xf32>) outs(%b : memref<4x8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  }
  %c = memref.alloc() : memref<4x8xf32>
  linalg.exp ins(%b : memref<4x8xf32>) outs(%c : memref<4x8xf32>)
  memref.copy %c, %out : memref<4x8xf32> to memref<4x8xf32>
  return
}

// -----

// In place through a contiguous reshape: the input is a collapse_shape of
// the dying buffer, with the output's shape.

#id1 = affine_map<(d0) -> (d0)>

// CHECK-LABEL: func.func @through_collapse
// CHECK-SAME:    tinyml.arena_bytes = 128 : i64
// CHECK:         %[[O1:.*]] = arith.constant 0 : index
// CHECK:         %[[O2:.*]] = arith.constant 0 : index
func.func @through_collapse(%in: memref<4x8xf32>, %out: memref<32xf32>) {
  %a = memref.alloc() : memref<4x8xf32>
  linalg.copy ins(%in : memref<4x8xf32>) outs(%a : memref<4x8xf32>)
  %flat = memref.collapse_shape %a [[0, 1]] : memref<4x8xf32> into memref<32xf32>
  %b = memref.alloc() : memref<32xf32>
  linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%flat : memref<32xf32>) outs(%b : memref<32xf32>) {
  ^bb0(%x: f32, %y: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  }
  memref.copy %b, %out : memref<32xf32> to memref<32xf32>
  return
}

// -----

// Not in place: the input is read with another (transposed) indexing, a
// reduction, an input that is still needed later, an output the body reads.

#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
#red = affine_map<(d0, d1) -> (d0, 0)>

// CHECK-LABEL: func.func @transposed
// CHECK-SAME:    tinyml.arena_bytes = 512 : i64
// CHECK-SAME:    tinyml.lower_bound_bytes = 512 : i64
func.func @transposed(%in: memref<8x8xf32>, %out: memref<8x8xf32>) {
  %a = memref.alloc() : memref<8x8xf32>
  linalg.copy ins(%in : memref<8x8xf32>) outs(%a : memref<8x8xf32>)
  %b = memref.alloc() : memref<8x8xf32>
  linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<8x8xf32>) outs(%b : memref<8x8xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  memref.copy %b, %out : memref<8x8xf32> to memref<8x8xf32>
  return
}

// CHECK-LABEL: func.func @reduction
// CHECK-SAME:    tinyml.arena_bytes = 512 : i64
func.func @reduction(%in: memref<8x8xf32>, %out: memref<8x8xf32>) {
  %a = memref.alloc() : memref<8x8xf32>
  linalg.copy ins(%in : memref<8x8xf32>) outs(%a : memref<8x8xf32>)
  %b = memref.alloc() : memref<8x8xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<8x8xf32>) outs(%b : memref<8x8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  memref.copy %b, %out : memref<8x8xf32> to memref<8x8xf32>
  return
}

// CHECK-LABEL: func.func @still_needed
// CHECK-SAME:    tinyml.arena_bytes = 512 : i64
func.func @still_needed(%in: memref<8x8xf32>, %out: memref<8x8xf32>) {
  %a = memref.alloc() : memref<8x8xf32>
  linalg.copy ins(%in : memref<8x8xf32>) outs(%a : memref<8x8xf32>)
  %b = memref.alloc() : memref<8x8xf32>
  linalg.exp ins(%a : memref<8x8xf32>) outs(%b : memref<8x8xf32>)
  linalg.add ins(%a, %b : memref<8x8xf32>, memref<8x8xf32>) outs(%out : memref<8x8xf32>)
  return
}

// CHECK-LABEL: func.func @different_bytes
// CHECK-SAME:    tinyml.arena_bytes = 384 : i64
func.func @different_bytes(%in: memref<8x8xf32>, %out: memref<8x8xf16>) {
  %a = memref.alloc() : memref<8x8xf32>
  linalg.copy ins(%in : memref<8x8xf32>) outs(%a : memref<8x8xf32>)
  %b = memref.alloc() : memref<8x8xf16>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<8x8xf32>) outs(%b : memref<8x8xf16>) {
  ^bb0(%x: f32, %y: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  }
  memref.copy %b, %out : memref<8x8xf16> to memref<8x8xf16>
  return
}
