// RUN: tinyml-opt %s --split-input-file --tinyml-hoist-branch-allocs | FileCheck %s

// A tile's staging buffer inside a branch of a loop's step (how
// tinyml-fuse-line-buffer's steps bufferize): it moves out of the branch
// and the loop, before the loop, where tinyml-plan-memory can place it.
// CHECK-LABEL: func.func @static_in_a_branch
// CHECK:         %[[STAGED:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT:    scf.for
// CHECK-NEXT:      scf.if
// CHECK-NEXT:        memref.copy %{{.*}}, %[[STAGED]]
// CHECK-NOT:     memref.alloc
func.func @static_in_a_branch(%c: i1, %m: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c4 step %c1 {
    scf.if %c {
      %staged = memref.alloc() : memref<4xf32>
      memref.copy %m, %staged : memref<4xf32> to memref<4xf32>
      memref.copy %staged, %m : memref<4xf32> to memref<4xf32>
    }
  }
  return
}

// -----

// Not moved: an allocation of a dynamic size (its size is computed in the
// branch), and one in a loop only (buffer-loop-hoisting's).
// CHECK-LABEL: func.func @not_hoisted
// CHECK:         scf.if
// CHECK-NEXT:      %[[N:.*]] = arith.addi
// CHECK-NEXT:      memref.alloc(%[[N]]) : memref<?xf32>
// CHECK:         scf.for
// CHECK-NEXT:      memref.alloc() : memref<4xf32>
func.func @not_hoisted(%c: i1, %n: index, %m: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  scf.if %c {
    %size = arith.addi %n, %c1 : index
    %dynamic = memref.alloc(%size) : memref<?xf32>
    %zero = arith.constant 0.0 : f32
    memref.store %zero, %dynamic[%n] : memref<?xf32>
  }
  scf.for %i = %c0 to %c4 step %c1 {
    %looped = memref.alloc() : memref<4xf32>
    memref.copy %m, %looped : memref<4xf32> to memref<4xf32>
  }
  return
}
