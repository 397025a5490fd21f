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

// -----

// A line buffer's step computes in two sibling branches, each staging a
// window used only there: never live together, they share one buffer as
// large as the larger branch's (the first branch's two buffers one after
// another, 16 + 12 bytes, the second's 24 from offset 0), each a view of
// it made before the loop.
// CHECK-LABEL: func.func @sibling_branches
// CHECK:         %[[SHARED:.*]] = memref.alloc() : memref<28xi8>
// CHECK-DAG:     memref.view %[[SHARED]][%c0{{.*}}][] : memref<28xi8> to memref<4xf32>
// CHECK-DAG:     memref.view %[[SHARED]][%c16{{.*}}][] : memref<28xi8> to memref<3xf32>
// CHECK-DAG:     memref.view %[[SHARED]][%c0{{.*}}][] : memref<28xi8> to memref<12xi16>
// CHECK:         scf.for
// CHECK-NOT:     memref.alloc
func.func @sibling_branches(%c: i1, %d: i1, %m: memref<4xf32>, %n: memref<3xf32>, %h: memref<12xi16>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c4 step %c1 {
    scf.if %c {
      %a = memref.alloc() : memref<4xf32>
      %b = memref.alloc() : memref<3xf32>
      memref.copy %m, %a : memref<4xf32> to memref<4xf32>
      memref.copy %n, %b : memref<3xf32> to memref<3xf32>
    }
    scf.if %d {
      %w = memref.alloc() : memref<12xi16>
      memref.copy %h, %w : memref<12xi16> to memref<12xi16>
    }
  }
  return
}

// -----

// Not shared: a buffer that leaves its branch (yielded, read after the
// branch) holds data there; it only moves, and the sibling branch's buffer,
// alone, moves too.
// CHECK-LABEL: func.func @escaping
// CHECK:         memref.alloc() : memref<4xf32>
// CHECK:         memref.alloc() : memref<2xf32>
// CHECK-NOT:     memref.view
// CHECK:         scf.for
func.func @escaping(%c: i1, %d: i1, %m: memref<4xf32>, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %r = scf.if %c -> memref<4xf32> {
      %a = memref.alloc() : memref<4xf32>
      memref.copy %m, %a : memref<4xf32> to memref<4xf32>
      scf.yield %a : memref<4xf32>
    } else {
      scf.yield %m : memref<4xf32>
    }
    scf.if %d {
      %b = memref.alloc() : memref<2xf32>
      %z = arith.constant 0.0 : f32
      memref.store %z, %b[%c0] : memref<2xf32>
    }
    %v = memref.load %r[%c0] : memref<4xf32>
    memref.store %v, %out[%i] : memref<4xf32>
  }
  return
}
