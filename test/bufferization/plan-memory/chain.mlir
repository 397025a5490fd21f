// RUN: tinyml-opt %s --tinyml-plan-memory | FileCheck %s
// RUN: tinyml-opt %s --tinyml-plan-memory='report-dir=%t' -o %t.out.mlir
// RUN: FileCheck %s --check-prefix=JSON < %t/chain.memory.json
// RUN: FileCheck %s --check-prefix=SVG < %t/chain.memory.svg

// A chain in -> a -> b -> c -> out of transposes (not element-wise with the
// same indexing, so never in place): a dies when c is written, so c takes
// a's offset 0 and b sits above it; the arena is two buffers, not three.

#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>

// CHECK-LABEL: func.func @chain
// CHECK-SAME:    (%{{.*}}: memref<8x8xf32>, %{{.*}}: memref<8x8xf32>, %[[ARENA:.*]]: memref<512xi8> {tinyml.arena})
// CHECK-SAME:    tinyml.arena_alignment = 16 : i64
// CHECK-SAME:    tinyml.arena_bytes = 512 : i64
// CHECK-SAME:    tinyml.greedy_arena_bytes = 512 : i64
// CHECK-SAME:    tinyml.lower_bound_bytes = 512 : i64
// CHECK-SAME:    tinyml.naive_arena_bytes = 768 : i64
// CHECK-SAME:    tinyml.peak_op = "linalg.generic at {{.*}}"
// CHECK-NOT:   memref.alloc
// CHECK:       %[[OA:.*]] = arith.constant 0 : index
// CHECK-NEXT:  %[[A:.*]] = memref.view %[[ARENA]][%[[OA]]][] : memref<512xi8> to memref<8x8xf32>
// CHECK:       %[[OB:.*]] = arith.constant 256 : index
// CHECK-NEXT:  %[[B:.*]] = memref.view %[[ARENA]][%[[OB]]][] : memref<512xi8> to memref<8x8xf32>
// CHECK:       ins(%[[A]] : memref<8x8xf32>) outs(%[[B]] : memref<8x8xf32>)
// CHECK:       %[[OC:.*]] = arith.constant 0 : index
// CHECK-NEXT:  %[[C:.*]] = memref.view %[[ARENA]][%[[OC]]][] : memref<512xi8> to memref<8x8xf32>
// CHECK:       ins(%[[B]] : memref<8x8xf32>) outs(%[[C]] : memref<8x8xf32>)
// CHECK:       memref.copy %[[C]], %{{.*}}
// CHECK-NOT:   memref.dealloc
// CHECK:       return
func.func @chain(%in: memref<8x8xf32>, %out: memref<8x8xf32>) {
  %a = memref.alloc() {alignment = 64 : i64} : memref<8x8xf32>
  linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%in : memref<8x8xf32>) outs(%a : memref<8x8xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  %b = memref.alloc() {alignment = 64 : i64} : memref<8x8xf32>
  linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<8x8xf32>) outs(%b : memref<8x8xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  memref.dealloc %a : memref<8x8xf32>
  %c = memref.alloc() {alignment = 64 : i64} : memref<8x8xf32>
  linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b : memref<8x8xf32>) outs(%c : memref<8x8xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  memref.dealloc %b : memref<8x8xf32>
  memref.copy %c, %out : memref<8x8xf32> to memref<8x8xf32>
  memref.dealloc %c : memref<8x8xf32>
  return
}

// JSON: "arena_bytes": 512
// JSON: "buffers": [
// JSON: "name": "b0"
// JSON: "steps": [
// JSON: "live_bytes": 512
// JSON: "greedy_arena_bytes": 512
// JSON: "naive_bytes": 768
// JSON: "lower_bound_bytes": 512

// SVG: <svg xmlns="http://www.w3.org/2000/svg"
// SVG: memory plan of @chain
// SVG: </svg>
