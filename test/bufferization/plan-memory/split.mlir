// RUN: tinyml-opt %s --tinyml-plan-memory | FileCheck %s
// RUN: tinyml-opt %s --tinyml-plan-memory=split=false | FileCheck %s --check-prefix=NOSPLIT

// One-shot bufferization reuses a dead buffer for a later tensor: %a holds
// the input copy, then (after an op that overwrites all of it and reads
// none of it) the result of the third transpose. The two contents are
// separate buffers: the first dies at step 1, so only two tensors are ever
// live together. Planning %a as one allocation keeps it live from step 0
// to step 4, three buffers at step 2.

#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>

// CHECK-LABEL: func.func @reused
// CHECK-SAME:    %[[ARENA:[^:]*]]: memref<512xi8> {tinyml.arena}
// CHECK-SAME:    tinyml.arena_bytes = 512 : i64
// CHECK-SAME:    tinyml.lower_bound_bytes = 512 : i64
// CHECK-SAME:    tinyml.naive_arena_bytes = 1024 : i64
// Both versions of %a are views, made where %a was allocated.
// CHECK:         %[[O0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[A0:.*]] = memref.view %[[ARENA]][%[[O0]]][]
// CHECK:         %[[O1:.*]] = arith.constant 256 : index
// CHECK-NEXT:    %[[A1:.*]] = memref.view %[[ARENA]][%[[O1]]][]
// CHECK:         linalg.copy ins(%{{.*}} : memref<8x8xf32>) outs(%[[A0]] : memref<8x8xf32>)
// CHECK:         ins(%[[A0]] : memref<8x8xf32>)
// CHECK:         outs(%[[A1]] : memref<8x8xf32>)
// CHECK:         memref.copy %[[A1]]

// NOSPLIT-LABEL: func.func @reused
// NOSPLIT-SAME:    memref<768xi8> {tinyml.arena}
// NOSPLIT-SAME:    tinyml.lower_bound_bytes = 768 : i64
func.func @reused(%in: memref<8x8xf32>, %out: memref<8x8xf32>) {
  %a = memref.alloc() : memref<8x8xf32>
  linalg.copy ins(%in : memref<8x8xf32>) outs(%a : memref<8x8xf32>)
  %b = memref.alloc() : memref<8x8xf32>
  linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<8x8xf32>) outs(%b : memref<8x8xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  %c = memref.alloc() : memref<8x8xf32>
  linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b : memref<8x8xf32>) outs(%c : memref<8x8xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<8x8xf32>) outs(%a : memref<8x8xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  memref.copy %a, %out : memref<8x8xf32> to memref<8x8xf32>
  return
}

// No cut where the op reads the old contents (an accumulation into %a)
// nor where a view made before the overwrite is used after it.

// CHECK-LABEL: func.func @not_cut
// CHECK-SAME:    tinyml.naive_arena_bytes = 512 : i64
// NOSPLIT-LABEL: func.func @not_cut
func.func @not_cut(%in: memref<8x8xf32>, %out: memref<8x8xf32>) {
  %a = memref.alloc() : memref<8x8xf32>
  linalg.copy ins(%in : memref<8x8xf32>) outs(%a : memref<8x8xf32>)
  %flat = memref.collapse_shape %a [[0, 1]] : memref<8x8xf32> into memref<64xf32>
  %b = memref.alloc() : memref<8x8xf32>
  linalg.exp ins(%a : memref<8x8xf32>) outs(%b : memref<8x8xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b : memref<8x8xf32>) outs(%a : memref<8x8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%a : memref<8x8xf32>)
  %expanded = memref.expand_shape %flat [[0, 1]] output_shape [8, 8] : memref<64xf32> into memref<8x8xf32>
  memref.copy %expanded, %out : memref<8x8xf32> to memref<8x8xf32>
  return
}
