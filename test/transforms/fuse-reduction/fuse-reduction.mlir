// RUN: tinyml-opt %s --split-input-file --tinyml-fuse-reduction | FileCheck %s

// Sum of squares then mean-like scaling: the square fuses into the
// reduction, the scale is its epilogue.
// CHECK-LABEL: func.func @sum_of_squares
// CHECK:         tinyml.fused reduction (%arg0)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      tinyml.mul
// CHECK-NEXT:      tinyml.reduce_sum
// CHECK-NEXT:      arith.constant
// CHECK-NEXT:      tinyml.mul
// CHECK-NEXT:      tinyml.yield
func.func @sum_of_squares(%x: tensor<4x16xf32>) -> tensor<4xf32> {
  %0 = tinyml.mul %x, %x : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %1 = tinyml.reduce_sum %0 {axes = array<i64: 1>} : (tensor<4x16xf32>) -> tensor<4xf32>
  %c = arith.constant dense<0.0625> : tensor<4xf32>
  %2 = tinyml.mul %1, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// Global average pool followed by a per-channel scale.
// CHECK-LABEL: func.func @pool_then_scale
// CHECK:         tinyml.fused reduction (%arg0, %arg1)
// CHECK:           tinyml.global_avg_pool
// CHECK-NEXT:      tinyml.mul
// CHECK-NEXT:      tinyml.yield
func.func @pool_then_scale(%x: tensor<1x5x5x8xf32>, %s: tensor<8xf32>) -> tensor<1x1x1x8xf32> {
  %0 = tinyml.global_avg_pool %x : (tensor<1x5x5x8xf32>) -> tensor<1x1x1x8xf32>
  %1 = tinyml.mul %0, %s : (tensor<1x1x1x8xf32>, tensor<8xf32>) -> tensor<1x1x1x8xf32>
  return %1 : tensor<1x1x1x8xf32>
}

// -----

// Softmax with a scaled input (temperature) fuses the scale as prologue.
// CHECK-LABEL: func.func @softmax_with_temperature
// CHECK:         tinyml.fused reduction
// CHECK:           tinyml.mul
// CHECK-NEXT:      tinyml.softmax
// CHECK-NEXT:      tinyml.yield
func.func @softmax_with_temperature(%x: tensor<1x10xf32>, %t: tensor<1xf32>) -> tensor<1x10xf32> {
  %0 = tinyml.mul %x, %t : (tensor<1x10xf32>, tensor<1xf32>) -> tensor<1x10xf32>
  %1 = tinyml.softmax %0 {axis = 1} : tensor<1x10xf32>
  return %1 : tensor<1x10xf32>
}

// -----

// A producer also used outside is not pulled in (its result must exist
// anyway), and a reduction with nothing to fuse stays as it is.
// CHECK-LABEL: func.func @multi_use_producer
// CHECK:         %[[E:.*]] = tinyml.exp %arg0
// CHECK-NEXT:    tinyml.reduce_max %[[E]]
// CHECK-NOT:     tinyml.fused
func.func @multi_use_producer(%x: tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4xf32>) {
  %0 = tinyml.exp %x : tensor<4x16xf32>
  %1 = tinyml.reduce_max %0 {axes = array<i64: 1>} : (tensor<4x16xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4x16xf32>, tensor<4xf32>
}

// -----

// max-ops bounds the group: the epilogue is kept first, producers farthest
// from the reduction are left outside.
// RUN: tinyml-opt %s --split-input-file --tinyml-fuse-reduction='max-ops=3' | FileCheck %s --check-prefix=MAX3
// CHECK-LABEL: func.func @bounded
// MAX3-LABEL: func.func @bounded
// MAX3:         tinyml.neg %arg0
// MAX3-NEXT:    tinyml.fused reduction
// MAX3-NEXT:    ^bb0
// MAX3-NEXT:      tinyml.exp
// MAX3-NEXT:      tinyml.reduce_sum
// MAX3-NEXT:      tinyml.relu
// MAX3-NEXT:      tinyml.yield
func.func @bounded(%x: tensor<4x16xf32>) -> tensor<4xf32> {
  %0 = tinyml.neg %x : tensor<4x16xf32>
  %1 = tinyml.exp %0 : tensor<4x16xf32>
  %2 = tinyml.reduce_sum %1 {axes = array<i64: 1>} : (tensor<4x16xf32>) -> tensor<4xf32>
  %3 = tinyml.relu %2 : tensor<4xf32>
  return %3 : tensor<4xf32>
}

// -----

// An element-wise op between two reductions continues the first one's
// epilogue; it is never the second one's prologue, so the second softmax
// has nothing to fuse and stays as it is.
// CHECK-LABEL: func.func @between_two_reductions
// CHECK:         %[[G:.*]] = tinyml.fused reduction (%arg0)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      tinyml.reduce_sum
// CHECK-NEXT:      tinyml.relu
// CHECK-NEXT:      tinyml.yield
// CHECK:         tinyml.softmax %[[G]]
// CHECK-NOT:     tinyml.fused
func.func @between_two_reductions(%x: tensor<4x16xf32>) -> tensor<4xf32> {
  %0 = tinyml.reduce_sum %x {axes = array<i64: 1>} : (tensor<4x16xf32>) -> tensor<4xf32>
  %1 = tinyml.relu %0 : tensor<4xf32>
  %2 = tinyml.softmax %1 {axis = 0} : tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// Two reductions feeding one add: the first operand's takes it as its
// epilogue, and the other reduction does not become a group of its own.
// CHECK-LABEL: func.func @add_of_two_reductions
// CHECK:         %[[M:.*]] = tinyml.reduce_max %arg1
// CHECK-NEXT:    tinyml.fused reduction (%arg0, %[[M]])
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      tinyml.reduce_sum
// CHECK-NEXT:      tinyml.add
// CHECK-NEXT:      tinyml.yield
func.func @add_of_two_reductions(%x: tensor<4x16xf32>, %y: tensor<4x16xf32>) -> tensor<4xf32> {
  %0 = tinyml.reduce_max %y {axes = array<i64: 1>} : (tensor<4x16xf32>) -> tensor<4xf32>
  %1 = tinyml.reduce_sum %x {axes = array<i64: 1>} : (tensor<4x16xf32>) -> tensor<4xf32>
  %2 = tinyml.add %1, %0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}
