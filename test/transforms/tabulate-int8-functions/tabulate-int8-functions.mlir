// RUN: tinyml-opt %s --split-input-file --tinyml-tabulate-int8-functions --canonicalize | FileCheck %s

// A sigmoid between an int8 dequantize and quantize (onnxruntime's QDQ
// Sigmoid) is the table of its 256 results: x = 0.5 * (q - 3) for
// q = -128..127; sigmoid(-65.5) quantizes to the result's -128, and
// sigmoid(62) = 1 to 1 * 256 - 128 = 127 (saturated at 128).
// CHECK-LABEL: func.func @sigmoid
// CHECK-NEXT:    %[[T:.*]] = tinyml.lookup %arg0 {table = array<i8: -128, {{.*}}, 127>} : (tensor<4x!quant.uniform<i8:f32, 5.000000e-01:3>>) -> tensor<4x!quant.uniform<i8:f32, 3.906250e-03:-128>>
// CHECK-NEXT:    return %[[T]]
func.func @sigmoid(%x: tensor<4x!quant.uniform<i8:f32, 0.5:3>>) -> tensor<4x!quant.uniform<i8:f32, 0.00390625:-128>> {
  %f = tinyml.dequantize %x : tensor<4x!quant.uniform<i8:f32, 0.5:3>> to tensor<4xf32>
  %s = tinyml.sigmoid %f : tensor<4xf32>
  %q = tinyml.quantize %s : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.00390625:-128>>
  return %q : tensor<4x!quant.uniform<i8:f32, 0.00390625:-128>>
}

// -----

// HardSwish, x * clamp(x / 6 + 0.5, 0, 1): a DAG reading x twice, with
// one-element constants, is one table. Its entry for q = 0 (x = 0) is the
// zero point 0; for q = 127 (x = 12.7) 12.7 / 0.1 = 127.
// CHECK-LABEL: func.func @hard_swish
// CHECK-NEXT:    %[[T:.*]] = tinyml.lookup %arg0 {table = array<i8: {{.*}}, 0, 1, {{.*}}, 127>}
// CHECK-NEXT:    return %[[T]]
func.func @hard_swish(%x: tensor<4x!quant.uniform<i8:f32, 0.1:0>>) -> tensor<4x!quant.uniform<i8:f32, 0.1:0>> {
  %f = tinyml.dequantize %x : tensor<4x!quant.uniform<i8:f32, 0.1:0>> to tensor<4xf32>
  %sixth = arith.constant dense<0.166666672> : tensor<1xf32>
  %half = arith.constant dense<0.5> : tensor<1xf32>
  %a = tinyml.mul %f, %sixth : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  %b = tinyml.add %a, %half : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  %g = tinyml.clamp %b {min = 0.0 : f32, max = 1.0 : f32} : tensor<4xf32>
  %y = tinyml.mul %f, %g : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %q = tinyml.quantize %y : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.1:0>>
  return %q : tensor<4x!quant.uniform<i8:f32, 0.1:0>>
}

// -----

// Not fired: the function's intermediate (the sigmoid) has a user outside
// it; the table would leave it computed anyway.
// CHECK-LABEL: func.func @multi_use
// CHECK:         tinyml.sigmoid
// CHECK:         tinyml.tanh
// CHECK:         tinyml.quantize
func.func @multi_use(%x: tensor<4x!quant.uniform<i8:f32, 0.5:3>>) -> (tensor<4x!quant.uniform<i8:f32, 0.00390625:-128>>, tensor<4xf32>) {
  %f = tinyml.dequantize %x : tensor<4x!quant.uniform<i8:f32, 0.5:3>> to tensor<4xf32>
  %s = tinyml.sigmoid %f : tensor<4xf32>
  %t = tinyml.tanh %s : tensor<4xf32>
  %q = tinyml.quantize %t : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.00390625:-128>>
  return %q, %s : tensor<4x!quant.uniform<i8:f32, 0.00390625:-128>>, tensor<4xf32>
}

// -----

// Not fired: a second run-time operand (two dequantized tensors).
// CHECK-LABEL: func.func @two_inputs
// CHECK:         tinyml.mul
func.func @two_inputs(%x: tensor<4x!quant.uniform<i8:f32, 0.5:3>>, %z: tensor<4x!quant.uniform<i8:f32, 0.5:3>>) -> tensor<4x!quant.uniform<i8:f32, 0.5:0>> {
  %f = tinyml.dequantize %x : tensor<4x!quant.uniform<i8:f32, 0.5:3>> to tensor<4xf32>
  %g = tinyml.dequantize %z : tensor<4x!quant.uniform<i8:f32, 0.5:3>> to tensor<4xf32>
  %s = tinyml.tanh %f : tensor<4xf32>
  %m = tinyml.mul %s, %g : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %q = tinyml.quantize %m : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.5:0>>
  return %q : tensor<4x!quant.uniform<i8:f32, 0.5:0>>
}

// -----

// Not fired: a TFLite quantize (ties away from zero): TFLM has no float
// layer to reproduce, so the layer stays visible as one.
// CHECK-LABEL: func.func @tflite_quantize
// CHECK:         tinyml.sigmoid
func.func @tflite_quantize(%x: tensor<4x!quant.uniform<i8:f32, 0.5:3>>) -> tensor<4x!quant.uniform<i8:f32, 0.00390625:-128>> {
  %f = tinyml.dequantize %x : tensor<4x!quant.uniform<i8:f32, 0.5:3>> to tensor<4xf32>
  %s = tinyml.sigmoid %f : tensor<4xf32>
  %q = tinyml.quantize %s {ties_away_from_zero} : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.00390625:-128>>
  return %q : tensor<4x!quant.uniform<i8:f32, 0.00390625:-128>>
}
