// RUN: tinyml-opt %s --split-input-file --tinyml-high-products-to-smmlar --canonicalize | FileCheck %s

// A depthwise tile's requantization in its row loop: four accumulators of
// one channel, its multiplier broadcast from outside the loop (LICM would
// hoist its extension there too), the high product added to the sign word.
// Each lane is one SMMLAR, the sum its addend; no 64-bit multiply is left.
// CHECK-LABEL: func.func @invariant_multiplier
// CHECK-SAME:    (%[[M:.*]]: i32, %[[ROWS:.*]]: memref<4x4x1xi32>, %[[SIGNS:.*]]: memref<4x4x1xi32>)
// CHECK:         scf.for
// CHECK:           %[[ACC:.*]] = vector.load %[[ROWS]]
// CHECK:           %[[SIGN:.*]] = vector.load %[[SIGNS]]
// CHECK:           %[[A0:.*]] = vector.extract %[[ACC]][0, 0]
// CHECK:           %[[S0:.*]] = vector.extract %[[SIGN]][0, 0]
// CHECK:           %[[H0:.*]] = llvm.inline_asm "smmlar $0, $1, $2, $3", "=r,r,r,r" %[[A0]], %[[M]], %[[S0]] : (i32, i32, i32) -> i32
// CHECK-COUNT-3:   llvm.inline_asm "smmlar $0, $1, $2, $3", "=r,r,r,r" %{{.*}}, %[[M]], %{{.*}}
// CHECK:           %[[R:.*]] = vector.from_elements %[[H0]], %{{.*}}, %{{.*}}, %{{.*}} : vector<4x1xi32>
// CHECK:           vector.store %[[R]]
// CHECK-NOT:     arith.muli
func.func @invariant_multiplier(%m: i32, %rows: memref<4x4x1xi32>, %signs: memref<4x4x1xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %round = arith.constant dense<2147483648> : vector<4x1xi64>
  %c32 = arith.constant dense<32> : vector<4x1xi64>
  %mv = vector.broadcast %m : i32 to vector<4x1xi32>
  scf.for %row = %c0 to %c4 step %c1 {
    %acc = vector.load %rows[%row, %c0, %c0] : memref<4x4x1xi32>, vector<4x1xi32>
    %sign = vector.load %signs[%row, %c0, %c0] : memref<4x4x1xi32>, vector<4x1xi32>
    %a = arith.extsi %acc : vector<4x1xi32> to vector<4x1xi64>
    %b = arith.extsi %mv : vector<4x1xi32> to vector<4x1xi64>
    %p = arith.muli %a, %b : vector<4x1xi64>
    %r = arith.addi %p, %round : vector<4x1xi64>
    %s = arith.shrui %r, %c32 : vector<4x1xi64>
    %h = arith.trunci %s : vector<4x1xi64> to vector<4x1xi32>
    %sum = arith.addi %sign, %h : vector<4x1xi32>
    vector.store %sum, %rows[%row, %c0, %c0] : memref<4x4x1xi32>, vector<4x1xi32>
  }
  return
}

// -----

// The multiplier loaded in the loop, at an index from outside it (LICM
// hoists the load and its extension), an int16 value times it, the
// product used twice: SMMULR, no addend.
// CHECK-LABEL: func.func @multiplier_at_invariant_index
// CHECK:         scf.for
// CHECK:           %[[M:.*]] = memref.load %arg1[%arg3]
// CHECK:           %[[X:.*]] = arith.extsi %{{.*}} : i16 to i32
// CHECK:           %[[H:.*]] = llvm.inline_asm "smmulr $0, $1, $2", "=r,r,r" %[[X]], %[[M]] : (i32, i32) -> i32
// CHECK:           arith.addi %[[H]], %[[H]]
// CHECK-NOT:     arith.muli
func.func @multiplier_at_invariant_index(%xs: memref<4xi16>, %ms: memref<8xi32>, %out: memref<4xi32>, %channel: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %round = arith.constant 2147483648 : i64
  %c32 = arith.constant 32 : i64
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %xs[%i] : memref<4xi16>
    %m = memref.load %ms[%channel] : memref<8xi32>
    %a = arith.extsi %x : i16 to i64
    %b = arith.extsi %m : i32 to i64
    %p = arith.muli %a, %b : i64
    %r = arith.addi %round, %p : i64
    %s = arith.shrsi %r, %c32 : i64
    %h = arith.trunci %s : i64 to i32
    %twice = arith.addi %h, %h : i32
    memref.store %twice, %out[%i] : memref<4xi32>
  }
  return
}

// -----

// Both factors loaded at the loop's own index: llc sees both extensions
// in the loop's block and selects SMMLAR itself. Left as it is.
// CHECK-LABEL: func.func @multiplier_per_iteration
// CHECK-NOT:     llvm.inline_asm
// CHECK:         arith.muli {{.*}} : i64
func.func @multiplier_per_iteration(%xs: memref<4xi32>, %ms: memref<4xi32>, %out: memref<4xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %round = arith.constant 2147483648 : i64
  %c32 = arith.constant 32 : i64
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %xs[%i] : memref<4xi32>
    %m = memref.load %ms[%i] : memref<4xi32>
    %a = arith.extsi %x : i32 to i64
    %b = arith.extsi %m : i32 to i64
    %p = arith.muli %a, %b : i64
    %r = arith.addi %p, %round : i64
    %s = arith.shrui %r, %c32 : i64
    %h = arith.trunci %s : i64 to i32
    memref.store %h, %out[%i] : memref<4xi32>
  }
  return
}

// -----

// A constant multiplier (a per-tensor scale): llc materializes it beside
// the multiply (constant hoisting is off on DSP cores). Left as it is.
// CHECK-LABEL: func.func @constant_multiplier
// CHECK-NOT:     llvm.inline_asm
// CHECK:         arith.muli {{.*}} : i64
func.func @constant_multiplier(%xs: memref<4xi32>, %out: memref<4xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %m = arith.constant -2036381064 : i64
  %round = arith.constant 2147483648 : i64
  %c32 = arith.constant 32 : i64
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %xs[%i] : memref<4xi32>
    %a = arith.extsi %x : i32 to i64
    %p = arith.muli %a, %m : i64
    %r = arith.addi %p, %round : i64
    %s = arith.shrui %r, %c32 : i64
    %h = arith.trunci %s : i64 to i32
    memref.store %h, %out[%i] : memref<4xi32>
  }
  return
}

// -----

// Outside any loop, there is nothing to hoist. Left as it is.
// CHECK-LABEL: func.func @outside_loops
// CHECK-NOT:     llvm.inline_asm
// CHECK:         arith.muli {{.*}} : i64
func.func @outside_loops(%x: i32, %m: i32) -> i32 {
  %round = arith.constant 2147483648 : i64
  %c32 = arith.constant 32 : i64
  %a = arith.extsi %x : i32 to i64
  %b = arith.extsi %m : i32 to i64
  %p = arith.muli %a, %b : i64
  %r = arith.addi %p, %round : i64
  %s = arith.shrui %r, %c32 : i64
  %h = arith.trunci %s : i64 to i32
  return %h : i32
}

// -----

// Not a rounded high product: the rounding constant is 2^30. Left as it is.
// CHECK-LABEL: func.func @other_rounding
// CHECK-NOT:     llvm.inline_asm
// CHECK:         arith.muli {{.*}} : i64
func.func @other_rounding(%xs: memref<4xi32>, %m: i32, %out: memref<4xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %round = arith.constant 1073741824 : i64
  %c32 = arith.constant 32 : i64
  %b = arith.extsi %m : i32 to i64
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %xs[%i] : memref<4xi32>
    %a = arith.extsi %x : i32 to i64
    %p = arith.muli %a, %b : i64
    %r = arith.addi %p, %round : i64
    %s = arith.shrsi %r, %c32 : i64
    %h = arith.trunci %s : i64 to i32
    memref.store %h, %out[%i] : memref<4xi32>
  }
  return
}

// -----

// Not the high word: a shift by 31 (a doubled high product). Left as it is.
// CHECK-LABEL: func.func @other_shift
// CHECK-NOT:     llvm.inline_asm
// CHECK:         arith.muli {{.*}} : i64
func.func @other_shift(%xs: memref<4xi32>, %m: i32, %out: memref<4xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %round = arith.constant 2147483648 : i64
  %c31 = arith.constant 31 : i64
  %b = arith.extsi %m : i32 to i64
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %xs[%i] : memref<4xi32>
    %a = arith.extsi %x : i32 to i64
    %p = arith.muli %a, %b : i64
    %r = arith.addi %p, %round : i64
    %s = arith.shrsi %r, %c31 : i64
    %h = arith.trunci %s : i64 to i32
    memref.store %h, %out[%i] : memref<4xi32>
  }
  return
}

// -----

// Not a product of int32 values: a factor is any i64 (an invariant one).
// Left as it is.
// CHECK-LABEL: func.func @wide_factor
// CHECK-NOT:     llvm.inline_asm
// CHECK:         arith.muli {{.*}} : i64
func.func @wide_factor(%xs: memref<4xi32>, %wide: i64, %out: memref<4xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %round = arith.constant 2147483648 : i64
  %c32 = arith.constant 32 : i64
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %xs[%i] : memref<4xi32>
    %a = arith.extsi %x : i32 to i64
    %p = arith.muli %a, %wide : i64
    %r = arith.addi %p, %round : i64
    %s = arith.shrui %r, %c32 : i64
    %h = arith.trunci %s : i64 to i32
    memref.store %h, %out[%i] : memref<4xi32>
  }
  return
}
