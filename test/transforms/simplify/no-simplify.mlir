// RUN: tinyml-opt %s --split-input-file --tinyml-simplify | FileCheck %s

// Where the pass must not fire.

// x * 2 is not an identity.
// CHECK-LABEL: func.func @times_two
// CHECK:         %[[M:.*]] = tinyml.mul %arg0, %{{.*}}
// CHECK-NEXT:    return %[[M]]
func.func @times_two(%x: tensor<4xf32>) -> tensor<4xf32> {
  %two = arith.constant dense<2.0> : tensor<1xf32>
  %0 = tinyml.mul %x, %two : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// x + 0 that broadcasts x to a larger shape is a broadcast, not x.
// CHECK-LABEL: func.func @broadcasting_plus_zero
// CHECK:         %[[A:.*]] = tinyml.add %arg0, %{{.*}} : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    return %[[A]]
func.func @broadcasting_plus_zero(%x: tensor<3xf32>) -> tensor<2x3xf32> {
  %zeros = arith.constant dense<0.0> : tensor<2x3xf32>
  %0 = tinyml.add %x, %zeros : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A zero tensor that is not all zeros is not neutral.
// CHECK-LABEL: func.func @not_all_zero
// CHECK:         %[[A:.*]] = tinyml.add %arg0, %{{.*}}
// CHECK-NEXT:    return %[[A]]
func.func @not_all_zero(%x: tensor<2xf32>) -> tensor<2xf32> {
  %c = arith.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %0 = tinyml.add %x, %c : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// 1 / x is not x: only the right operand of div is neutral.
// CHECK-LABEL: func.func @one_over_x
// CHECK:         %[[D:.*]] = tinyml.div %{{.*}}, %arg0
// CHECK-NEXT:    return %[[D]]
func.func @one_over_x(%x: tensor<4xf32>) -> tensor<4xf32> {
  %one = arith.constant dense<1.0> : tensor<1xf32>
  %0 = tinyml.div %one, %x : (tensor<1xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A non-constant operand: x * y stays even if y happens to be 1 at run time.
// CHECK-LABEL: func.func @argument_operand
// CHECK:         %[[M:.*]] = tinyml.mul %arg0, %arg1
// CHECK-NEXT:    return %[[M]]
func.func @argument_operand(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tinyml.mul %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A single neg stays.
// CHECK-LABEL: func.func @single_neg
// CHECK-NEXT:    %[[N:.*]] = tinyml.neg %arg0
// CHECK-NEXT:    return %[[N]]
func.func @single_neg(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tinyml.neg %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// relu of a sigmoid is not merged (only relu/clamp pairs are).
// CHECK-LABEL: func.func @relu_of_sigmoid
// CHECK-NEXT:    %[[S:.*]] = tinyml.sigmoid %arg0
// CHECK-NEXT:    %[[R:.*]] = tinyml.relu %[[S]]
// CHECK-NEXT:    return %[[R]]
func.func @relu_of_sigmoid(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tinyml.sigmoid %x : tensor<4xf32>
  %1 = tinyml.relu %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// clamp(relu(x), -3, -1) is the constant -1, not a clamp with an empty
// range: it stays.
// CHECK-LABEL: func.func @clamp_below_relu
// CHECK-NEXT:    %[[R:.*]] = tinyml.relu %arg0
// CHECK-NEXT:    %[[C:.*]] = tinyml.clamp %[[R]] {max = -1.000000e+00 : f32, min = -3.000000e+00 : f32}
// CHECK-NEXT:    return %[[C]]
func.func @clamp_below_relu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tinyml.relu %x : tensor<4xf32>
  %1 = tinyml.clamp %0 {min = -3.0 : f32, max = -1.0 : f32} : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// relu(clamp(x, -3, -1)) is the constant 0: it stays.
// CHECK-LABEL: func.func @relu_of_negative_clamp
// CHECK-NEXT:    %[[C:.*]] = tinyml.clamp %arg0 {max = -1.000000e+00 : f32, min = -3.000000e+00 : f32}
// CHECK-NEXT:    %[[R:.*]] = tinyml.relu %[[C]]
// CHECK-NEXT:    return %[[R]]
func.func @relu_of_negative_clamp(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tinyml.clamp %x {min = -3.0 : f32, max = -1.0 : f32} : tensor<4xf32>
  %1 = tinyml.relu %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// Two clamps with disjoint ranges give a constant: they stay.
// CHECK-LABEL: func.func @disjoint_clamps
// CHECK-NEXT:    %[[A:.*]] = tinyml.clamp %arg0 {max = 1.000000e+00 : f32, min = 0.000000e+00 : f32}
// CHECK-NEXT:    %[[B:.*]] = tinyml.clamp %[[A]] {max = 3.000000e+00 : f32, min = 2.000000e+00 : f32}
// CHECK-NEXT:    return %[[B]]
func.func @disjoint_clamps(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tinyml.clamp %x {min = 0.0 : f32, max = 1.0 : f32} : tensor<4xf32>
  %1 = tinyml.clamp %0 {min = 2.0 : f32, max = 3.0 : f32} : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// A transpose that only moves size-1 dimensions is left to
// tinyml-cancel-transposes (option unit-dims-to-reshape).
// CHECK-LABEL: func.func @unit_dims_transpose
// CHECK-NEXT:    %[[T:.*]] = tinyml.transpose %arg0 {permutation = array<i64: 0, 3, 1, 2>}
// CHECK-NEXT:    return %[[T]]
func.func @unit_dims_transpose(%x: tensor<1x4x4x1xf32>) -> tensor<1x1x4x4xf32> {
  %0 = tinyml.transpose %x {permutation = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x1xf32>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}
