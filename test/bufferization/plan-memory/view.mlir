// RUN: tinyml-opt %s --tinyml-plan-memory | FileCheck %s

// A view keeps its buffer alive: %flat (a collapse_shape of a) is read at
// the end, so a lives across the whole function and b, c cannot take its
// bytes. Without following the view a would die at the collapse_shape and
// c would overwrite it.

#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
#flat = affine_map<(d0, d1) -> (d0 * 8 + d1)>

// CHECK-LABEL: func.func @view_extends_lifetime
// CHECK-SAME:    %[[ARENA:[^:]*]]: memref<768xi8> {tinyml.arena}
// CHECK-SAME:    tinyml.arena_bytes = 768 : i64
// CHECK-SAME:    tinyml.lower_bound_bytes = 768 : i64
// CHECK:         %[[OA:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[A:.*]] = memref.view %[[ARENA]][%[[OA]]][]
// CHECK:         memref.collapse_shape %[[A]]
// CHECK:         %[[OB:.*]] = arith.constant 256 : index
// CHECK-NEXT:    memref.view %[[ARENA]][%[[OB]]][]
// CHECK:         %[[OC:.*]] = arith.constant 512 : index
// CHECK-NEXT:    memref.view %[[ARENA]][%[[OC]]][]
func.func @view_extends_lifetime(%in: memref<8x8xf32>, %out: memref<8x8xf32>) {
  %a = memref.alloc() : memref<8x8xf32>
  linalg.copy ins(%in : memref<8x8xf32>) outs(%a : memref<8x8xf32>)
  %flat = memref.collapse_shape %a [[0, 1]] : memref<8x8xf32> into memref<64xf32>
  %b = memref.alloc() : memref<8x8xf32>
  linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%in : memref<8x8xf32>) outs(%b : memref<8x8xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  %c = memref.alloc() : memref<8x8xf32>
  linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b : memref<8x8xf32>) outs(%c : memref<8x8xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  linalg.generic {indexing_maps = [#flat, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%flat, %c : memref<64xf32>, memref<8x8xf32>) outs(%out : memref<8x8xf32>) {
  ^bb0(%x: f32, %z: f32, %y: f32):
    %s = arith.addf %x, %z : f32
    linalg.yield %s : f32
  }
  return
}
