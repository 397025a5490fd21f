// RUN: tinyml-opt %s --tinyml-plan-memory | FileCheck %s
// Planning twice changes nothing: a planned function is skipped.
// RUN: tinyml-opt %s --tinyml-plan-memory --tinyml-plan-memory | FileCheck %s

// No intermediate buffer: the arena argument is still added (memref<0xi8>,
// the caller may pass any pointer) so every planned function has the same
// calling convention. Private functions and declarations are left alone.

// CHECK-LABEL: func.func @no_intermediates
// CHECK-SAME:    (%{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>, %{{.*}}: memref<0xi8> {tinyml.arena})
// CHECK-SAME:    tinyml.arena_bytes = 0 : i64
// CHECK-SAME:    tinyml.lower_bound_bytes = 0 : i64
// CHECK-SAME:    tinyml.naive_arena_bytes = 0 : i64
// CHECK-SAME:    tinyml.peak_op = ""
// CHECK-NOT:     tinyml.arena
func.func @no_intermediates(%in: memref<4xf32>, %out: memref<4xf32>) {
  linalg.exp ins(%in : memref<4xf32>) outs(%out : memref<4xf32>)
  return
}

// CHECK-LABEL: func.func private @helper
// CHECK-SAME:    (%{{.*}}: memref<4xf32>) {
// CHECK:         memref.alloc
func.func private @helper(%in: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  memref.copy %in, %a : memref<4xf32> to memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  return
}

// An allocation nobody uses (only freed) is erased, not planned.
// CHECK-LABEL: func.func @unused
// CHECK-SAME:    memref<0xi8> {tinyml.arena}
// CHECK-NOT:     memref.alloc
// CHECK-NOT:     memref.dealloc
// CHECK:         return
func.func @unused(%in: memref<4xf32>) {
  %a = memref.alloc() : memref<64xf32>
  memref.dealloc %a : memref<64xf32>
  return
}
