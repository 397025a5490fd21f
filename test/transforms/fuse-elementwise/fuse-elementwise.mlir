// RUN: tinyml-opt %s --split-input-file --tinyml-fuse-elementwise | FileCheck %s

// A chain of element-wise ops becomes one group; a broadcast operand is an
// input and a constant is copied into the body.
// CHECK-LABEL: func.func @chain
// CHECK:         %[[G:.*]] = tinyml.fused elementwise (%arg0, %arg1) : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32> {
// CHECK-NEXT:    ^bb0(%[[X:.*]]: tensor<2x8xf32>, %[[B:.*]]: tensor<8xf32>):
// CHECK-NEXT:      %[[C:.*]] = arith.constant dense<5.000000e-01> : tensor<2x8xf32>
// CHECK-NEXT:      %[[M:.*]] = tinyml.mul %[[X]], %[[C]]
// CHECK-NEXT:      %[[A:.*]] = tinyml.add %[[M]], %[[B]]
// CHECK-NEXT:      %[[R:.*]] = tinyml.relu %[[A]]
// CHECK-NEXT:      tinyml.yield %[[R]] : tensor<2x8xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[G]]
func.func @chain(%x: tensor<2x8xf32>, %b: tensor<8xf32>) -> tensor<2x8xf32> {
  %c = arith.constant dense<0.5> : tensor<2x8xf32>
  %0 = tinyml.mul %x, %c : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %1 = tinyml.add %0, %b : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  %2 = tinyml.relu %1 : tensor<2x8xf32>
  return %2 : tensor<2x8xf32>
}

// -----

// A diamond (one producer, two element-wise consumers joined again) is one
// group: the producer's every user is inside.
// CHECK-LABEL: func.func @diamond
// CHECK:         tinyml.fused elementwise (%arg0)
// CHECK:           tinyml.neg
// CHECK:           tinyml.exp
// CHECK:           tinyml.relu
// CHECK:           tinyml.add
// CHECK:           tinyml.yield
// CHECK-NOT:     tinyml.fused
func.func @diamond(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = tinyml.neg %x : tensor<16xf32>
  %1 = tinyml.exp %0 : tensor<16xf32>
  %2 = tinyml.relu %0 : tensor<16xf32>
  %3 = tinyml.add %1, %2 : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  return %3 : tensor<16xf32>
}

// -----

// A cheap producer with two consumers that are both returned: each consumer
// group recomputes it, and its own buffer disappears.
// CHECK-LABEL: func.func @rematerialize
// CHECK-NOT:     tinyml.relu %arg0
// CHECK:         tinyml.fused elementwise (%arg0)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      tinyml.relu
// CHECK-NEXT:      tinyml.exp
// CHECK:         tinyml.fused elementwise (%arg0)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      tinyml.relu
// CHECK-NEXT:      tinyml.tanh
func.func @rematerialize(%x: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %0 = tinyml.relu %x : tensor<16xf32>
  %1 = tinyml.exp %0 : tensor<16xf32>
  %2 = tinyml.tanh %0 : tensor<16xf32>
  return %1, %2 : tensor<16xf32>, tensor<16xf32>
}

// -----

// Without rematerialization the multi-use producer stays materialized.
// RUN: tinyml-opt %s --split-input-file --tinyml-fuse-elementwise='rematerialize=false' | FileCheck %s --check-prefix=NOREMAT
// NOREMAT-LABEL: func.func @rematerialize
// NOREMAT:         %[[P:.*]] = tinyml.relu %arg0
// NOREMAT-NEXT:    tinyml.exp %[[P]]
// NOREMAT-NEXT:    tinyml.tanh %[[P]]
// NOREMAT-NOT:     tinyml.fused
func.func @rematerialize(%x: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %0 = tinyml.relu %x : tensor<16xf32>
  %1 = tinyml.exp %0 : tensor<16xf32>
  %2 = tinyml.tanh %0 : tensor<16xf32>
  return %1, %2 : tensor<16xf32>, tensor<16xf32>
}

// -----

// An expensive producer (exp) with two consumers is not recomputed.
// CHECK-LABEL: func.func @expensive_multi_use
// NOREMAT-LABEL: func.func @expensive_multi_use
// CHECK:         %[[P:.*]] = tinyml.exp %arg0
// CHECK-NEXT:    tinyml.relu %[[P]]
// CHECK-NEXT:    tinyml.neg %[[P]]
// CHECK-NOT:     tinyml.fused
func.func @expensive_multi_use(%x: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %0 = tinyml.exp %x : tensor<16xf32>
  %1 = tinyml.relu %0 : tensor<16xf32>
  %2 = tinyml.neg %0 : tensor<16xf32>
  return %1, %2 : tensor<16xf32>, tensor<16xf32>
}

// -----

// A producer also used by a non-element-wise op (conv) stays outside: the
// group would otherwise feed the conv and consume its result (a cycle).
// CHECK-LABEL: func.func @would_be_cycle
// CHECK:         %[[P:.*]] = tinyml.relu %arg0
// CHECK-NEXT:    %[[C:.*]] = tinyml.conv2d %[[P]]
// CHECK-NEXT:    tinyml.add %[[P]], %[[C]]
// CHECK-NOT:     tinyml.fused
func.func @would_be_cycle(%x: tensor<1x4x4x2xf32>, %w: tensor<1x1x2x2xf32>) -> tensor<1x4x4x2xf32> {
  %0 = tinyml.relu %x : tensor<1x4x4x2xf32>
  %1 = tinyml.conv2d %0, %w : (tensor<1x4x4x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x4x4x2xf32>
  %2 = tinyml.add %0, %1 : (tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  return %2 : tensor<1x4x4x2xf32>
}

// -----

// Ops of different shapes are different iteration spaces: the small
// producer is not recomputed per element of the large one.
// CHECK-LABEL: func.func @shape_mismatch
// CHECK:         tinyml.relu %arg1 : tensor<8xf32>
// CHECK-NEXT:    tinyml.add
// CHECK-NOT:     tinyml.fused
func.func @shape_mismatch(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = tinyml.relu %b : tensor<8xf32>
  %1 = tinyml.add %x, %0 : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

// A non-element-wise op between two element-wise ops splits them.
// CHECK-LABEL: func.func @transpose_between
// CHECK:         tinyml.relu
// CHECK-NEXT:    tinyml.transpose
// CHECK-NEXT:    tinyml.exp
// CHECK-NOT:     tinyml.fused
func.func @transpose_between(%x: tensor<2x4xf32>) -> tensor<4x2xf32> {
  %0 = tinyml.relu %x : tensor<2x4xf32>
  %1 = tinyml.transpose %0 {permutation = array<i64: 1, 0>} : (tensor<2x4xf32>) -> tensor<4x2xf32>
  %2 = tinyml.exp %1 : tensor<4x2xf32>
  return %2 : tensor<4x2xf32>
}

// -----

// max-ops bounds the group size.
// RUN: tinyml-opt %s --split-input-file --tinyml-fuse-elementwise='max-ops=2' | FileCheck %s --check-prefix=MAX2
// CHECK-LABEL: func.func @long_chain
// MAX2-LABEL: func.func @long_chain
// MAX2:         tinyml.neg %arg0
// MAX2-NEXT:    tinyml.fused elementwise
// MAX2-NEXT:    ^bb0
// MAX2-NEXT:      tinyml.exp
// MAX2-NEXT:      tinyml.relu
// MAX2-NEXT:      tinyml.yield
func.func @long_chain(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = tinyml.neg %x : tensor<16xf32>
  %1 = tinyml.exp %0 : tensor<16xf32>
  %2 = tinyml.relu %1 : tensor<16xf32>
  return %2 : tensor<16xf32>
}

// -----

// A cheap producer whose users all end up in one group moves in once: it is
// not copied while one of its users is still outside.
// CHECK-LABEL: func.func @cheap_producer_used_twice_in_one_group
// CHECK:         tinyml.fused elementwise (%arg0)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      tinyml.clamp
// CHECK-NEXT:      tinyml.neg
// CHECK-NEXT:      tinyml.mul
// CHECK-NEXT:      tinyml.yield
// CHECK-NOT:     tinyml.clamp
func.func @cheap_producer_used_twice_in_one_group(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = tinyml.clamp %x {min = 0.0 : f32, max = 1.0 : f32} : tensor<16xf32>
  %1 = tinyml.neg %0 : tensor<16xf32>
  %2 = tinyml.mul %0, %1 : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  return %2 : tensor<16xf32>
}

// -----

// A group takes its producers nearest first: with max-ops=3 a diamond keeps
// its two middle ops and leaves the farthest one, their shared producer, out.
// RUN: tinyml-opt %s --split-input-file --tinyml-fuse-elementwise='max-ops=3' | FileCheck %s --check-prefix=MAX3
// MAX3-LABEL: func.func @nearest_first
// MAX3:         %[[N:.*]] = tinyml.neg %arg0
// MAX3-NEXT:    tinyml.fused elementwise (%[[N]])
// MAX3-NEXT:    ^bb0
// MAX3-NEXT:      tinyml.exp
// MAX3-NEXT:      tinyml.tanh
// MAX3-NEXT:      tinyml.add
// MAX3-NEXT:      tinyml.yield
// CHECK-LABEL: func.func @nearest_first
func.func @nearest_first(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = tinyml.neg %x : tensor<16xf32>
  %1 = tinyml.exp %0 : tensor<16xf32>
  %2 = tinyml.tanh %0 : tensor<16xf32>
  %3 = tinyml.add %1, %2 : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  return %3 : tensor<16xf32>
}

// -----

// Quantized ops have no fused lowering: an int8 add and the int8 add that
// uses it stay two kernels.
// CHECK-LABEL: func.func @quantized_never_fuse
// CHECK-NOT:     tinyml.fused
// CHECK:         tinyml.add
// CHECK:         tinyml.add
// CHECK-NOT:     tinyml.fused
!q = !quant.uniform<i8:f32, 5.000000e-02:-3>
func.func @quantized_never_fuse(%x: tensor<8x!q>, %y: tensor<8x!q>) -> tensor<8x!q> {
  %0 = tinyml.add %x, %y : (tensor<8x!q>, tensor<8x!q>) -> tensor<8x!q>
  %1 = tinyml.add %0, %x : (tensor<8x!q>, tensor<8x!q>) -> tensor<8x!q>
  return %1 : tensor<8x!q>
}

// -----

// In a time loop's body, an element-wise chain (a GRU's state update) is one
// group, in the body; the negation before the loop, whose only user is in
// the loop, stays out: moved in, it would run every step.
// CHECK-LABEL: func.func @state_update_in_a_time_loop
// CHECK:         %[[N:.*]] = tinyml.neg %arg1
// CHECK:         scf.for %{{.*}} iter_args(%[[H:.*]] = %{{.*}})
// CHECK-NEXT:      %[[G:.*]] = tinyml.fused elementwise (%[[H]], %[[N]])
// CHECK-NEXT:      ^bb0
// CHECK-NEXT:        tinyml.sub
// CHECK-NEXT:        tinyml.mul
// CHECK-NEXT:        tinyml.add
// CHECK-NEXT:        tinyml.yield
// CHECK:           scf.yield %[[G]]
func.func @state_update_in_a_time_loop(%h0: tensor<16xf32>, %z: tensor<16xf32>) -> tensor<16xf32> {
  %nz = tinyml.neg %z : tensor<16xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %h = scf.for %t = %c0 to %c4 step %c1 iter_args(%hp = %h0) -> (tensor<16xf32>) {
    %d = tinyml.sub %hp, %nz : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %m = tinyml.mul %nz, %d : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %a = tinyml.add %hp, %m : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    scf.yield %a : tensor<16xf32>
  }
  return %h : tensor<16xf32>
}
