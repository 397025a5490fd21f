// RUN: tinyml-opt %s --tinyml-plan-memory | FileCheck %s

// A diamond: a feeds two branches b and c, which meet in an element-wise
// add d. a, b and c are live together while c is computed (the peak, 768
// bytes); d may overwrite b (or c) in place; a's bytes are free again once
// c exists.

#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>

// CHECK-LABEL: func.func @diamond
// CHECK-SAME:    %[[ARENA:[^:]*]]: memref<768xi8> {tinyml.arena}
// CHECK-SAME:    tinyml.arena_bytes = 768 : i64
// CHECK-SAME:    tinyml.lower_bound_bytes = 768 : i64
// CHECK-SAME:    tinyml.naive_arena_bytes = 1024 : i64
// CHECK:         %[[OA:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[A:.*]] = memref.view %[[ARENA]][%[[OA]]][]
// CHECK:         %[[OB:.*]] = arith.constant 256 : index
// CHECK-NEXT:    %[[B:.*]] = memref.view %[[ARENA]][%[[OB]]][]
// CHECK:         %[[OC:.*]] = arith.constant 512 : index
// CHECK-NEXT:    %[[C:.*]] = memref.view %[[ARENA]][%[[OC]]][]
// CHECK:         ins(%[[A]] : memref<8x8xf32>) outs(%[[C]] : memref<8x8xf32>)
// CHECK:         %[[OD:.*]] = arith.constant {{0|256|512}} : index
// CHECK-NEXT:    %[[D:.*]] = memref.view %[[ARENA]][%[[OD]]][]
// CHECK:         linalg.add ins(%[[B]], %[[C]] : memref<8x8xf32>, memref<8x8xf32>) outs(%[[D]] : memref<8x8xf32>)
func.func @diamond(%in: memref<8x8xf32>, %out: memref<8x8xf32>) {
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
      ins(%a : memref<8x8xf32>) outs(%c : memref<8x8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  }
  %d = memref.alloc() : memref<8x8xf32>
  linalg.add ins(%b, %c : memref<8x8xf32>, memref<8x8xf32>) outs(%d : memref<8x8xf32>)
  memref.copy %d, %out : memref<8x8xf32> to memref<8x8xf32>
  return
}
