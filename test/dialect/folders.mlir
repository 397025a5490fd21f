// The dialect's folders, run by canonicalize.
// RUN: tinyml-opt %s --split-input-file --canonicalize | FileCheck %s

// CHECK-LABEL: func.func @reshape_chain
// CHECK-NEXT:    %[[R:.*]] = tinyml.reshape %arg0 : (tensor<2x6xf32>) -> tensor<12xf32>
// CHECK-NEXT:    return %[[R]]
func.func @reshape_chain(%x: tensor<2x6xf32>) -> tensor<12xf32> {
  %0 = tinyml.reshape %x : (tensor<2x6xf32>) -> tensor<3x4xf32>
  %1 = tinyml.reshape %0 : (tensor<3x4xf32>) -> tensor<12xf32>
  return %1 : tensor<12xf32>
}

// -----

// A reshape back to the input type disappears.
// CHECK-LABEL: func.func @reshape_round_trip
// CHECK-NEXT:    return %arg0
func.func @reshape_round_trip(%x: tensor<2x6xf32>) -> tensor<2x6xf32> {
  %0 = tinyml.reshape %x : (tensor<2x6xf32>) -> tensor<12xf32>
  %1 = tinyml.reshape %0 : (tensor<12xf32>) -> tensor<2x6xf32>
  return %1 : tensor<2x6xf32>
}

// -----

// A reshape of a constant is a constant (materialized as arith.constant).
// CHECK-LABEL: func.func @reshape_constant
// CHECK-NEXT:    %[[C:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK-NEXT:    return %[[C]]
func.func @reshape_constant() -> tensor<2x2xf32> {
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %r = tinyml.reshape %c : (tensor<4xf32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// -----

// Two transposes compose; an identity permutation folds away.
// CHECK-LABEL: func.func @transposes
// CHECK-NEXT:    %[[T:.*]] = tinyml.transpose %arg0 {permutation = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT:    return %[[T]], %arg0
func.func @transposes(%x: tensor<2x3x4xf32>) -> (tensor<4x2x3xf32>, tensor<2x3x4xf32>) {
  %0 = tinyml.transpose %x {permutation = array<i64: 1, 0, 2>} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  %1 = tinyml.transpose %0 {permutation = array<i64: 2, 1, 0>} : (tensor<3x2x4xf32>) -> tensor<4x2x3xf32>
  %2 = tinyml.transpose %x {permutation = array<i64: 0, 1, 2>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %1, %2 : tensor<4x2x3xf32>, tensor<2x3x4xf32>
}

// -----

// Not folded: a real reshape of an argument, a real transpose.
// CHECK-LABEL: func.func @nothing_to_fold
// CHECK-NEXT:    tinyml.reshape
// CHECK-NEXT:    tinyml.transpose
func.func @nothing_to_fold(%x: tensor<2x6xf32>) -> (tensor<12xf32>, tensor<6x2xf32>) {
  %0 = tinyml.reshape %x : (tensor<2x6xf32>) -> tensor<12xf32>
  %1 = tinyml.transpose %x {permutation = array<i64: 1, 0>} : (tensor<2x6xf32>) -> tensor<6x2xf32>
  return %0, %1 : tensor<12xf32>, tensor<6x2xf32>
}

// -----

// A quantize -> dequantize round trip rounds: it is not folded away (upstream's
// quant.qcast -> quant.dcast would be). The storage casts between them cancel.
// CHECK-LABEL: func.func @quantize_round_trip_stays
// CHECK-NEXT:    %[[Q:.*]] = tinyml.quantize %arg0
// CHECK-NEXT:    %[[X:.*]] = tinyml.dequantize %[[Q]]
// CHECK-NEXT:    return %[[X]]
func.func @quantize_round_trip_stays(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tinyml.quantize %x : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.5:1>>
  %1 = quant.scast %0 : tensor<4x!quant.uniform<i8:f32, 0.5:1>> to tensor<4xi8>
  %2 = quant.scast %1 : tensor<4xi8> to tensor<4x!quant.uniform<i8:f32, 0.5:1>>
  %3 = tinyml.dequantize %2 : tensor<4x!quant.uniform<i8:f32, 0.5:1>> to tensor<4xf32>
  return %3 : tensor<4xf32>
}
