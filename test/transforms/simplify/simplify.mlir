// RUN: tinyml-opt %s --split-input-file --tinyml-simplify | FileCheck %s

// x * 1 = x, with the one on either side.
// CHECK-LABEL: func.func @times_one
// CHECK-NEXT:    return %arg0, %arg0
func.func @times_one(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %one = arith.constant dense<1.0> : tensor<1xf32>
  %0 = tinyml.mul %x, %one : (tensor<2x3xf32>, tensor<1xf32>) -> tensor<2x3xf32>
  %1 = tinyml.mul %one, %x : (tensor<1xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// x + 0 = 0 + x = x, also with a same-shape zero tensor.
// CHECK-LABEL: func.func @plus_zero
// CHECK-NEXT:    return %arg0, %arg0
func.func @plus_zero(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %zero = arith.constant dense<0.0> : tensor<3xf32>
  %zeros = arith.constant dense<0.0> : tensor<2x3xf32>
  %0 = tinyml.add %x, %zero : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = tinyml.add %zeros, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// x - 0 = x.
// CHECK-LABEL: func.func @minus_zero
// CHECK-NEXT:    return %arg0
func.func @minus_zero(%x: tensor<4xf32>) -> tensor<4xf32> {
  %zero = arith.constant dense<0.0> : tensor<1xf32>
  %0 = tinyml.sub %x, %zero : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// x / 1 = x.
// CHECK-LABEL: func.func @over_one
// CHECK-NEXT:    return %arg0
func.func @over_one(%x: tensor<4xf32>) -> tensor<4xf32> {
  %one = arith.constant dense<1.0> : tensor<4xf32>
  %0 = tinyml.div %x, %one : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// 0 - x = neg(x).
// CHECK-LABEL: func.func @zero_minus
// CHECK-NEXT:    %[[N:.*]] = tinyml.neg %arg0 : tensor<4xf32>
// CHECK-NEXT:    return %[[N]]
func.func @zero_minus(%x: tensor<4xf32>) -> tensor<4xf32> {
  %zero = arith.constant dense<0.0> : tensor<1xf32>
  %0 = tinyml.sub %zero, %x : (tensor<1xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// x * -1 = neg(x).
// CHECK-LABEL: func.func @times_minus_one
// CHECK-NEXT:    %[[N:.*]] = tinyml.neg %arg0 : tensor<4xf32>
// CHECK-NEXT:    return %[[N]]
func.func @times_minus_one(%x: tensor<4xf32>) -> tensor<4xf32> {
  %m = arith.constant dense<-1.0> : tensor<1xf32>
  %0 = tinyml.mul %m, %x : (tensor<1xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// neg(neg(x)) = x.
// CHECK-LABEL: func.func @neg_neg
// CHECK-NEXT:    return %arg0
func.func @neg_neg(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tinyml.neg %x : tensor<4xf32>
  %1 = tinyml.neg %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// relu(relu(x)) = relu(x).
// CHECK-LABEL: func.func @relu_relu
// CHECK-NEXT:    %[[R:.*]] = tinyml.relu %arg0 : tensor<4xf32>
// CHECK-NEXT:    return %[[R]]
func.func @relu_relu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tinyml.relu %x : tensor<4xf32>
  %1 = tinyml.relu %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// clamp(relu(x), 0, 6) = clamp(x, 0, 6): ReLU6 after a ReLU.
// CHECK-LABEL: func.func @clamp_of_relu
// CHECK-NEXT:    %[[C:.*]] = tinyml.clamp %arg0 {max = 6.000000e+00 : f32, min = 0.000000e+00 : f32} : tensor<4xf32>
// CHECK-NEXT:    return %[[C]]
func.func @clamp_of_relu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tinyml.relu %x : tensor<4xf32>
  %1 = tinyml.clamp %0 {min = 0.0 : f32, max = 6.0 : f32} : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// clamp(relu(x), -1, 6) = clamp(x, max(-1, 0), 6).
// CHECK-LABEL: func.func @clamp_below_zero_of_relu
// CHECK-NEXT:    %[[C:.*]] = tinyml.clamp %arg0 {max = 6.000000e+00 : f32, min = 0.000000e+00 : f32} : tensor<4xf32>
// CHECK-NEXT:    return %[[C]]
func.func @clamp_below_zero_of_relu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tinyml.relu %x : tensor<4xf32>
  %1 = tinyml.clamp %0 {min = -1.0 : f32, max = 6.0 : f32} : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// relu(clamp(x, 0, 6)) = clamp(x, 0, 6).
// CHECK-LABEL: func.func @relu_of_clamp
// CHECK-NEXT:    %[[C:.*]] = tinyml.clamp %arg0 {max = 6.000000e+00 : f32, min = 0.000000e+00 : f32} : tensor<4xf32>
// CHECK-NEXT:    return %[[C]]
func.func @relu_of_clamp(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tinyml.clamp %x {min = 0.0 : f32, max = 6.0 : f32} : tensor<4xf32>
  %1 = tinyml.relu %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// relu(clamp(x, -2, 3)) = clamp(x, 0, 3).
// CHECK-LABEL: func.func @relu_of_clamp_below_zero
// CHECK-NEXT:    %[[C:.*]] = tinyml.clamp %arg0 {max = 3.000000e+00 : f32, min = 0.000000e+00 : f32} : tensor<4xf32>
// CHECK-NEXT:    return %[[C]]
func.func @relu_of_clamp_below_zero(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tinyml.clamp %x {min = -2.0 : f32, max = 3.0 : f32} : tensor<4xf32>
  %1 = tinyml.relu %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// clamp(clamp(x, -1, 6), 0, 4) = clamp(x, 0, 4): the intersection.
// CHECK-LABEL: func.func @clamp_of_clamp
// CHECK-NEXT:    %[[C:.*]] = tinyml.clamp %arg0 {max = 4.000000e+00 : f32, min = 0.000000e+00 : f32} : tensor<4xf32>
// CHECK-NEXT:    return %[[C]]
func.func @clamp_of_clamp(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tinyml.clamp %x {min = -1.0 : f32, max = 6.0 : f32} : tensor<4xf32>
  %1 = tinyml.clamp %0 {min = 0.0 : f32, max = 4.0 : f32} : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// The inner op of a merge stays while it has other users.
// CHECK-LABEL: func.func @merge_keeps_shared_inner
// CHECK-NEXT:    %[[R:.*]] = tinyml.relu %arg0 : tensor<4xf32>
// CHECK-NEXT:    %[[C:.*]] = tinyml.clamp %arg0 {max = 6.000000e+00 : f32, min = 0.000000e+00 : f32} : tensor<4xf32>
// CHECK-NEXT:    return %[[R]], %[[C]]
func.func @merge_keeps_shared_inner(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = tinyml.relu %x : tensor<4xf32>
  %1 = tinyml.clamp %0 {min = 0.0 : f32, max = 6.0 : f32} : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// The dialect folders run too: reshape(reshape(x)) is one reshape.
// CHECK-LABEL: func.func @reshape_chain
// CHECK-NEXT:    %[[R:.*]] = tinyml.reshape %arg0 : (tensor<2x6xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:    return %[[R]]
func.func @reshape_chain(%x: tensor<2x6xf32>) -> tensor<3x4xf32> {
  %0 = tinyml.reshape %x : (tensor<2x6xf32>) -> tensor<12xf32>
  %1 = tinyml.reshape %0 : (tensor<12xf32>) -> tensor<3x4xf32>
  return %1 : tensor<3x4xf32>
}

// -----

// A reshape chain back to the input type disappears.
// CHECK-LABEL: func.func @reshape_round_trip
// CHECK-NEXT:    return %arg0
func.func @reshape_round_trip(%x: tensor<2x6xf32>) -> tensor<2x6xf32> {
  %0 = tinyml.reshape %x : (tensor<2x6xf32>) -> tensor<12xf32>
  %1 = tinyml.reshape %0 : (tensor<12xf32>) -> tensor<2x6xf32>
  return %1 : tensor<2x6xf32>
}

// -----

// transpose(transpose(x)) composes into one transpose.
// CHECK-LABEL: func.func @transpose_chain
// CHECK-NEXT:    %[[T:.*]] = tinyml.transpose %arg0 {permutation = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT:    return %[[T]]
func.func @transpose_chain(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = tinyml.transpose %x {permutation = array<i64: 1, 2, 0>} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  %1 = tinyml.transpose %0 {permutation = array<i64: 2, 1, 0>} : (tensor<3x4x2xf32>) -> tensor<2x4x3xf32>
  %2 = tinyml.transpose %1 {permutation = array<i64: 1, 0, 2>} : (tensor<2x4x3xf32>) -> tensor<4x2x3xf32>
  return %2 : tensor<4x2x3xf32>
}

// -----

// An identity transpose disappears.
// CHECK-LABEL: func.func @identity_transpose
// CHECK-NEXT:    return %arg0
func.func @identity_transpose(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tinyml.transpose %x {permutation = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Identities expose others: (neg(neg(x)) * 1) + 0 = x.
// CHECK-LABEL: func.func @cascade
// CHECK-NEXT:    return %arg0
func.func @cascade(%x: tensor<4xf32>) -> tensor<4xf32> {
  %one = arith.constant dense<1.0> : tensor<1xf32>
  %zero = arith.constant dense<0.0> : tensor<1xf32>
  %0 = tinyml.neg %x : tensor<4xf32>
  %1 = tinyml.neg %0 : tensor<4xf32>
  %2 = tinyml.mul %1, %one : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  %3 = tinyml.add %2, %zero : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  return %3 : tensor<4xf32>
}
