// RUN: tinyml-opt %s --tinyml-plan-memory | FileCheck %s

// After lowering to loops, an op with regions is one step that uses every
// buffer used inside it: %a (read in the loop) and %b (written in it) are
// live together, and %c, written after the loop, takes %a's bytes.

// CHECK-LABEL: func.func @loops
// CHECK-SAME:    %[[ARENA:[^:]*]]: memref<32xi8> {tinyml.arena}
// CHECK-SAME:    tinyml.arena_bytes = 32 : i64
// CHECK:         %[[OA:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[A:.*]] = memref.view %[[ARENA]][%[[OA]]][] : memref<32xi8> to memref<4xf32>
// CHECK:         %[[OB:.*]] = arith.constant 16 : index
// CHECK-NEXT:    %[[B:.*]] = memref.view %[[ARENA]][%[[OB]]][] : memref<32xi8> to memref<4xf32>
// CHECK:         scf.for
// CHECK:           memref.load %[[A]]
// CHECK:           memref.store %{{.*}}, %[[B]]
// CHECK:         %[[OC:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[C:.*]] = memref.view %[[ARENA]][%[[OC]]][] : memref<32xi8> to memref<4xf32>
func.func @loops(%in: memref<4xf32>, %out: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  memref.copy %in, %a : memref<4xf32> to memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %j = arith.subi %c4, %i : index
    %k = arith.subi %j, %c1 : index
    %v = memref.load %a[%k] : memref<4xf32>
    memref.store %v, %b[%i] : memref<4xf32>
  }
  %c = memref.alloc() : memref<4xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %b[%i] : memref<4xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %c[%i] : memref<4xf32>
  }
  memref.copy %c, %out : memref<4xf32> to memref<4xf32>
  return
}
