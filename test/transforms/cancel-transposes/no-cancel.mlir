// RUN: tinyml-opt %s --split-input-file --tinyml-cancel-transposes | FileCheck %s
// RUN: tinyml-opt %s --split-input-file --tinyml-cancel-transposes=unit-dims-to-reshape=false | FileCheck %s --check-prefix=KEEP

// Where the pass must not fire.

// A transpose feeding a non-element-wise op (conv2d) stays.
// CHECK-LABEL: func.func @feeds_conv
// CHECK-NEXT:    %[[T:.*]] = tinyml.transpose %arg0 {permutation = array<i64: 0, 2, 3, 1>}
// CHECK-NEXT:    %[[Y:.*]] = tinyml.conv2d %[[T]], %arg1
// CHECK-NEXT:    return %[[Y]]
func.func @feeds_conv(%x: tensor<1x3x8x8xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x6x6x4xf32> {
  %0 = tinyml.transpose %x {permutation = array<i64: 0, 2, 3, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x8x8x3xf32>
  %1 = tinyml.conv2d %0, %w : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x6x6x4xf32>
  return %1 : tensor<1x6x6x4xf32>
}

// -----

// Two transposes with different permutations do not sink through the add.
// CHECK-LABEL: func.func @different_permutations
// CHECK-NEXT:    tinyml.transpose %arg0 {permutation = array<i64: 0, 3, 1, 2>}
// CHECK-NEXT:    tinyml.transpose %arg1 {permutation = array<i64: 0, 2, 3, 1>}
// CHECK-NEXT:    tinyml.add
// CHECK-NEXT:    return
func.func @different_permutations(%a: tensor<1x4x4x4xf32>, %b: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %0 = tinyml.transpose %a {permutation = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %1 = tinyml.transpose %b {permutation = array<i64: 0, 2, 3, 1>} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %2 = tinyml.add %0, %1 : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %2 : tensor<1x4x4x4xf32>
}

// -----

// A transpose with a second user stays where it is: sinking it would
// duplicate it.
// CHECK-LABEL: func.func @multi_use
// CHECK-NEXT:    %[[T:.*]] = tinyml.transpose %arg0 {permutation = array<i64: 0, 3, 1, 2>}
// CHECK-NEXT:    %[[R:.*]] = tinyml.relu %[[T]] : tensor<1x8x4x5xf32>
// CHECK-NEXT:    return %[[R]], %[[T]]
func.func @multi_use(%x: tensor<1x4x5x8xf32>) -> (tensor<1x8x4x5xf32>, tensor<1x8x4x5xf32>) {
  %0 = tinyml.transpose %x {permutation = array<i64: 0, 3, 1, 2>} : (tensor<1x4x5x8xf32>) -> tensor<1x8x4x5xf32>
  %1 = tinyml.relu %0 : tensor<1x8x4x5xf32>
  return %1, %0 : tensor<1x8x4x5xf32>, tensor<1x8x4x5xf32>
}

// -----

// The other operand is neither a transpose nor a constant: no sinking.
// CHECK-LABEL: func.func @dynamic_other_operand
// CHECK-NEXT:    %[[T:.*]] = tinyml.transpose %arg0
// CHECK-NEXT:    tinyml.mul %[[T]], %arg1
func.func @dynamic_other_operand(%a: tensor<1x4x4x3xf32>, %b: tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32> {
  %0 = tinyml.transpose %a {permutation = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x3xf32>) -> tensor<1x3x4x4xf32>
  %1 = tinyml.mul %0, %b : (tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  return %1 : tensor<1x3x4x4xf32>
}

// -----

// A lower-rank transposed operand broadcast against the result: no sinking.
// CHECK-LABEL: func.func @lower_rank_operand
// CHECK-NEXT:    %[[T:.*]] = tinyml.transpose %arg0
// CHECK-NEXT:    tinyml.add %[[T]], %arg1
func.func @lower_rank_operand(%a: tensor<4x3xf32>, %b: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = tinyml.transpose %a {permutation = array<i64: 1, 0>} : (tensor<4x3xf32>) -> tensor<3x4xf32>
  %1 = tinyml.add %0, %b : (tensor<3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %1 : tensor<2x3x4xf32>
}

// -----

// batch_norm normalizes the last axis: a transpose that moves it stays.
// CHECK-LABEL: func.func @batch_norm_channel_moves
// CHECK-NEXT:    %[[T:.*]] = tinyml.transpose %arg0
// CHECK-NEXT:    tinyml.batch_norm %[[T]]
func.func @batch_norm_channel_moves(%a: tensor<1x3x4x4xf32>, %p: tensor<3xf32>) -> tensor<1x4x4x3xf32> {
  %0 = tinyml.transpose %a {permutation = array<i64: 0, 2, 3, 1>} : (tensor<1x3x4x4xf32>) -> tensor<1x4x4x3xf32>
  %1 = tinyml.batch_norm %0, %p, %p, %p, %p : (tensor<1x4x4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x4x4x3xf32>
  return %1 : tensor<1x4x4x3xf32>
}

// -----

// A transpose that really moves data is not a reshape; with the option off
// a size-1-only transpose stays a transpose too.
// CHECK-LABEL: func.func @data_moving_transpose
// CHECK-NEXT:    tinyml.transpose %arg0 {permutation = array<i64: 0, 3, 1, 2>} : (tensor<1x2x3x4xf32>) -> tensor<1x4x2x3xf32>
// CHECK-NEXT:    tinyml.reshape %arg1 : (tensor<1x1x1x8xf32>) -> tensor<1x8x1x1xf32>
// KEEP-LABEL:  func.func @data_moving_transpose
// KEEP-NEXT:     tinyml.transpose %arg0
// KEEP-NEXT:     tinyml.transpose %arg1 {permutation = array<i64: 0, 3, 1, 2>} : (tensor<1x1x1x8xf32>) -> tensor<1x8x1x1xf32>
func.func @data_moving_transpose(%a: tensor<1x2x3x4xf32>, %b: tensor<1x1x1x8xf32>) -> (tensor<1x4x2x3xf32>, tensor<1x8x1x1xf32>) {
  %0 = tinyml.transpose %a {permutation = array<i64: 0, 3, 1, 2>} : (tensor<1x2x3x4xf32>) -> tensor<1x4x2x3xf32>
  %1 = tinyml.transpose %b {permutation = array<i64: 0, 3, 1, 2>} : (tensor<1x1x1x8xf32>) -> tensor<1x8x1x1xf32>
  return %0, %1 : tensor<1x4x2x3xf32>, tensor<1x8x1x1xf32>
}

// -----

// A per-axis quantized type names its axis: a transpose does not sink
// through its casts.
// CHECK-LABEL: func.func @per_axis_cast
// CHECK-NEXT:    %[[T:.*]] = tinyml.transpose %arg0
// CHECK-NEXT:    quant.scast %[[T]]
func.func @per_axis_cast(%x: tensor<2x3xi8>) -> tensor<3x2x!quant.uniform<i8:f32:1, {0.5, 0.25}>> {
  %0 = tinyml.transpose %x {permutation = array<i64: 1, 0>} : (tensor<2x3xi8>) -> tensor<3x2xi8>
  %1 = quant.scast %0 : tensor<3x2xi8> to tensor<3x2x!quant.uniform<i8:f32:1, {0.5, 0.25}>>
  return %1 : tensor<3x2x!quant.uniform<i8:f32:1, {0.5, 0.25}>>
}
