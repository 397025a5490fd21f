// RUN: tinyml-opt %s --split-input-file --tinyml-read-final-state | FileCheck %s

// PyTorch's y[:, -1] of a forward LSTM (batch 1: the transposes are
// reshapes): the slice reads the row the last step wrote, which is the
// final hidden state; the sequence, read by nothing else, leaves the loop
// with its alloc_tensor and its per-step insertion.
// CHECK-LABEL: func.func @last_step_of_a_forward_loop
// CHECK-NOT:     alloc_tensor
// CHECK:         %[[L:.*]] = scf.for %{{.*}} iter_args(%[[H:.*]] = %arg0) -> (tensor<1x4xf32>) {
// CHECK-NOT:       tensor.insert_slice
// CHECK:           scf.yield
// CHECK:         %[[LAST:.*]] = tinyml.reshape %[[L]] : (tensor<1x4xf32>) -> tensor<1x1x4xf32>
// CHECK-NEXT:    %[[Y:.*]] = tinyml.reshape %[[LAST]] : (tensor<1x1x4xf32>) -> tensor<1x4xf32>
// CHECK-NEXT:    return %[[Y]]
func.func @last_step_of_a_forward_loop(%h0: tensor<1x4xf32>, %x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %s0 = bufferization.alloc_tensor() : tensor<3x1x4xf32>
  %r:2 = scf.for %t = %c0 to %c3 step %c1 iter_args(%h = %h0, %s = %s0) -> (tensor<1x4xf32>, tensor<3x1x4xf32>) {
    %n = tinyml.add %h, %x : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
    %w = bufferization.materialize_in_destination %n in %h : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
    %i = tensor.insert_slice %w into %s[%t, 0, 0] [1, 1, 4] [1, 1, 1] : tensor<1x4xf32> into tensor<3x1x4xf32>
    scf.yield %w, %i : tensor<1x4xf32>, tensor<3x1x4xf32>
  }
  %b = tinyml.reshape %r#1 : (tensor<3x1x4xf32>) -> tensor<1x3x4xf32>
  %l = tinyml.slice %b {offsets = array<i64: 0, 2, 0>, strides = array<i64: 1, 1, 1>} : (tensor<1x3x4xf32>) -> tensor<1x1x4xf32>
  %y = tinyml.reshape %l : (tensor<1x1x4xf32>) -> tensor<1x4xf32>
  return %y : tensor<1x4xf32>
}

// -----

// Keras's x[:, -1] with a batch of 2: the sequence transposed to [B, T, H],
// the slice at step 2 reads the last row in the state's order.
// CHECK-LABEL: func.func @last_step_through_a_transpose
// CHECK:         %[[L:.*]] = scf.for
// CHECK:         %[[LAST:.*]] = tinyml.reshape %[[L]] : (tensor<2x4xf32>) -> tensor<2x1x4xf32>
// CHECK-NEXT:    return %[[LAST]]
func.func @last_step_through_a_transpose(%h0: tensor<2x4xf32>, %x: tensor<2x4xf32>) -> tensor<2x1x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %s0 = bufferization.alloc_tensor() : tensor<3x2x4xf32>
  %r:2 = scf.for %t = %c0 to %c3 step %c1 iter_args(%h = %h0, %s = %s0) -> (tensor<2x4xf32>, tensor<3x2x4xf32>) {
    %n = tinyml.add %h, %x : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %w = bufferization.materialize_in_destination %n in %h : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %i = tensor.insert_slice %w into %s[%t, 0, 0] [1, 2, 4] [1, 1, 1] : tensor<2x4xf32> into tensor<3x2x4xf32>
    scf.yield %w, %i : tensor<2x4xf32>, tensor<3x2x4xf32>
  }
  %b = tinyml.transpose %r#1 {permutation = array<i64: 1, 0, 2>} : (tensor<3x2x4xf32>) -> tensor<2x3x4xf32>
  %l = tinyml.slice %b {offsets = array<i64: 0, 2, 0>, strides = array<i64: 1, 1, 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  return %l : tensor<2x1x4xf32>
}

// -----

// A reverse direction writes row 0 last: its slice there is the final
// state; a slice of row 2 (written first) is not, and keeps the sequence.
// CHECK-LABEL: func.func @reverse_loop
// CHECK:         %[[L:.*]]:2 = scf.for %{{.*}} iter_args(%{{.*}} = %arg0, %{{.*}} = %{{.*}})
// CHECK:           %[[T:.*]] = arith.subi %c2, %{{.*}} : index
// CHECK:           tensor.insert_slice %{{.*}}[%[[T]], 0, 0]
// CHECK:         %[[FIRST:.*]] = tinyml.reshape %[[L]]#0 : (tensor<1x4xf32>) -> tensor<1x1x4xf32>
// CHECK:         %[[S:.*]] = tinyml.slice %[[L]]#1 {offsets = array<i64: 2, 0, 0>
// CHECK:         return %[[FIRST]], %[[S]]
func.func @reverse_loop(%h0: tensor<1x4xf32>, %x: tensor<1x4xf32>) -> (tensor<1x1x4xf32>, tensor<1x1x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %s0 = bufferization.alloc_tensor() : tensor<3x1x4xf32>
  %r:2 = scf.for %t = %c0 to %c3 step %c1 iter_args(%h = %h0, %s = %s0) -> (tensor<1x4xf32>, tensor<3x1x4xf32>) {
    %row = arith.subi %c2, %t : index
    %n = tinyml.add %h, %x : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
    %w = bufferization.materialize_in_destination %n in %h : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
    %i = tensor.insert_slice %w into %s[%row, 0, 0] [1, 1, 4] [1, 1, 1] : tensor<1x4xf32> into tensor<3x1x4xf32>
    scf.yield %w, %i : tensor<1x4xf32>, tensor<3x1x4xf32>
  }
  %first = tinyml.slice %r#1 {offsets = array<i64: 0, 0, 0>, strides = array<i64: 1, 1, 1>} : (tensor<3x1x4xf32>) -> tensor<1x1x4xf32>
  %last = tinyml.slice %r#1 {offsets = array<i64: 2, 0, 0>, strides = array<i64: 1, 1, 1>} : (tensor<3x1x4xf32>) -> tensor<1x1x4xf32>
  return %first, %last : tensor<1x1x4xf32>, tensor<1x1x4xf32>
}

// -----

// Part of the last row (one batch row of two) is not the final state: the
// slice and the sequence stay.
// CHECK-LABEL: func.func @part_of_the_last_row
// CHECK:         alloc_tensor
// CHECK:         tensor.insert_slice
// CHECK:         tinyml.slice
func.func @part_of_the_last_row(%h0: tensor<2x4xf32>, %x: tensor<2x4xf32>) -> tensor<1x1x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %s0 = bufferization.alloc_tensor() : tensor<3x2x4xf32>
  %r:2 = scf.for %t = %c0 to %c3 step %c1 iter_args(%h = %h0, %s = %s0) -> (tensor<2x4xf32>, tensor<3x2x4xf32>) {
    %n = tinyml.add %h, %x : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %w = bufferization.materialize_in_destination %n in %h : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %i = tensor.insert_slice %w into %s[%t, 0, 0] [1, 2, 4] [1, 1, 1] : tensor<2x4xf32> into tensor<3x2x4xf32>
    scf.yield %w, %i : tensor<2x4xf32>, tensor<3x2x4xf32>
  }
  %l = tinyml.slice %r#1 {offsets = array<i64: 2, 1, 0>, strides = array<i64: 1, 1, 1>} : (tensor<3x2x4xf32>) -> tensor<1x1x4xf32>
  return %l : tensor<1x1x4xf32>
}

// -----

// A sequence whose inserted value is not a carried state (no
// materialize_in_destination of it) is not an output sequence this pass
// knows: nothing changes.
// CHECK-LABEL: func.func @not_a_state
// CHECK:         tinyml.slice
func.func @not_a_state(%h0: tensor<1x4xf32>, %x: tensor<1x4xf32>) -> tensor<1x1x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %s0 = bufferization.alloc_tensor() : tensor<3x1x4xf32>
  %r:2 = scf.for %t = %c0 to %c3 step %c1 iter_args(%h = %h0, %s = %s0) -> (tensor<1x4xf32>, tensor<3x1x4xf32>) {
    %n = tinyml.add %h, %x : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
    %d = tinyml.neg %n : tensor<1x4xf32>
    %w = bufferization.materialize_in_destination %n in %h : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
    %i = tensor.insert_slice %d into %s[%t, 0, 0] [1, 1, 4] [1, 1, 1] : tensor<1x4xf32> into tensor<3x1x4xf32>
    scf.yield %w, %i : tensor<1x4xf32>, tensor<3x1x4xf32>
  }
  %l = tinyml.slice %r#1 {offsets = array<i64: 2, 0, 0>, strides = array<i64: 1, 1, 1>} : (tensor<3x1x4xf32>) -> tensor<1x1x4xf32>
  return %l : tensor<1x1x4xf32>
}

// -----

// An int8 sequence (an integer LSTM's) read at its last step by a static
// tensor.extract_slice, the stored bytes moved as they are: the final int8
// state, reshaped.
// CHECK-LABEL: func.func @int8_last_step
// CHECK-NOT:     alloc_tensor
// CHECK:         %[[L:.*]] = scf.for %{{.*}} iter_args(%{{.*}} = %arg0) -> (tensor<1x4xi8>) {
// CHECK:         %[[LAST:.*]] = tinyml.reshape %[[L]] : (tensor<1x4xi8>) -> tensor<1x1x4xi8>
// CHECK-NEXT:    return %[[LAST]]
func.func @int8_last_step(%h0: tensor<1x4xi8>, %x: tensor<1x4xi8>) -> tensor<1x1x4xi8> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %s0 = bufferization.alloc_tensor() : tensor<3x1x4xi8>
  %r:2 = scf.for %t = %c0 to %c3 step %c1 iter_args(%h = %h0, %s = %s0) -> (tensor<1x4xi8>, tensor<3x1x4xi8>) {
    %n = tinyml.transpose %x {permutation = array<i64: 0, 1>} : (tensor<1x4xi8>) -> tensor<1x4xi8>
    %w = bufferization.materialize_in_destination %n in %h : (tensor<1x4xi8>, tensor<1x4xi8>) -> tensor<1x4xi8>
    %i = tensor.insert_slice %w into %s[%t, 0, 0] [1, 1, 4] [1, 1, 1] : tensor<1x4xi8> into tensor<3x1x4xi8>
    scf.yield %w, %i : tensor<1x4xi8>, tensor<3x1x4xi8>
  }
  %b = tinyml.reshape %r#1 : (tensor<3x1x4xi8>) -> tensor<1x3x4xi8>
  %l = tensor.extract_slice %b[0, 2, 0] [1, 1, 4] [1, 1, 1] : tensor<1x3x4xi8> to tensor<1x1x4xi8>
  return %l : tensor<1x1x4xi8>
}

// -----

// An int8 slice of a row the last step did not write (the middle one):
// nothing changes.
// CHECK-LABEL: func.func @int8_middle_step
// CHECK:         tensor.extract_slice %{{.*}}[0, 1, 0]
func.func @int8_middle_step(%h0: tensor<1x4xi8>, %x: tensor<1x4xi8>) -> tensor<1x1x4xi8> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %s0 = bufferization.alloc_tensor() : tensor<3x1x4xi8>
  %r:2 = scf.for %t = %c0 to %c3 step %c1 iter_args(%h = %h0, %s = %s0) -> (tensor<1x4xi8>, tensor<3x1x4xi8>) {
    %n = tinyml.transpose %x {permutation = array<i64: 0, 1>} : (tensor<1x4xi8>) -> tensor<1x4xi8>
    %w = bufferization.materialize_in_destination %n in %h : (tensor<1x4xi8>, tensor<1x4xi8>) -> tensor<1x4xi8>
    %i = tensor.insert_slice %w into %s[%t, 0, 0] [1, 1, 4] [1, 1, 1] : tensor<1x4xi8> into tensor<3x1x4xi8>
    scf.yield %w, %i : tensor<1x4xi8>, tensor<3x1x4xi8>
  }
  %b = tinyml.reshape %r#1 : (tensor<3x1x4xi8>) -> tensor<1x3x4xi8>
  %l = tensor.extract_slice %b[0, 1, 0] [1, 1, 4] [1, 1, 1] : tensor<1x3x4xi8> to tensor<1x1x4xi8>
  return %l : tensor<1x1x4xi8>
}
