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

// -----

// x * x on integers (TFLite's MUL of one tensor by itself): one table of
// the integer MUL's results. The scales make the multiplier 1: q * q,
// saturated at 127 from q = 12 on.
// CHECK-LABEL: func.func @square
// CHECK-NEXT:    %[[T:.*]] = tinyml.lookup %arg0 {table = array<i8: 127, {{.*}}, 121, 100, {{.*}}, 4, 1, 0, 1, 4, 9, {{.*}}, 121, 127, {{.*}}, 127>}
// CHECK-NEXT:    return %[[T]]
func.func @square(%x: tensor<256x!quant.uniform<i8:f32, 0.5>>) -> tensor<256x!quant.uniform<i8:f32, 0.25>> {
  %y = tinyml.mul %x, %x : (tensor<256x!quant.uniform<i8:f32, 0.5>>, tensor<256x!quant.uniform<i8:f32, 0.5>>) -> tensor<256x!quant.uniform<i8:f32, 0.25>>
  return %y : tensor<256x!quant.uniform<i8:f32, 0.25>>
}

// -----

// A swish as the converter writes it, x * table(x): the MUL and the table
// it reads are one table. Here the table is the identity in a scale of
// 1.0, so the product's multiplier is 0.5 * 1.0 / 0.25 = 2: 2 q^2.
// CHECK-LABEL: func.func @product_with_a_table
// CHECK-NEXT:    %[[T:.*]] = tinyml.lookup %arg0 {table = array<i8: 127, {{.*}}, 18, 8, 2, 0, 2, 8, 18, 32, {{.*}}, 127>}
// CHECK-NEXT:    return %[[T]]
func.func @product_with_a_table(%x: tensor<256x!quant.uniform<i8:f32, 0.5>>) -> tensor<256x!quant.uniform<i8:f32, 0.25>> {
  %t = tinyml.lookup %x {table = array<i8: -128, -127, -126, -125, -124, -123, -122, -121, -120, -119, -118, -117, -116, -115, -114, -113, -112, -111, -110, -109, -108, -107, -106, -105, -104, -103, -102, -101, -100, -99, -98, -97, -96, -95, -94, -93, -92, -91, -90, -89, -88, -87, -86, -85, -84, -83, -82, -81, -80, -79, -78, -77, -76, -75, -74, -73, -72, -71, -70, -69, -68, -67, -66, -65, -64, -63, -62, -61, -60, -59, -58, -57, -56, -55, -54, -53, -52, -51, -50, -49, -48, -47, -46, -45, -44, -43, -42, -41, -40, -39, -38, -37, -36, -35, -34, -33, -32, -31, -30, -29, -28, -27, -26, -25, -24, -23, -22, -21, -20, -19, -18, -17, -16, -15, -14, -13, -12, -11, -10, -9, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127>} : (tensor<256x!quant.uniform<i8:f32, 0.5>>) -> tensor<256x!quant.uniform<i8:f32, 1.0>>
  %y = tinyml.mul %x, %t : (tensor<256x!quant.uniform<i8:f32, 0.5>>, tensor<256x!quant.uniform<i8:f32, 1.0>>) -> tensor<256x!quant.uniform<i8:f32, 0.25>>
  return %y : tensor<256x!quant.uniform<i8:f32, 0.25>>
}

// -----

// A table of a table is one table: the identity, then a negation
// (saturated: -(-128) is 127).
// CHECK-LABEL: func.func @table_of_a_table
// CHECK-NEXT:    %[[T:.*]] = tinyml.lookup %arg0 {table = array<i8: 127, 127, 126, {{.*}}, 1, 0, -1, {{.*}}, -127>}
// CHECK-NEXT:    return %[[T]]
func.func @table_of_a_table(%x: tensor<256x!quant.uniform<i8:f32, 0.5>>) -> tensor<256x!quant.uniform<i8:f32, 0.5>> {
  %t = tinyml.lookup %x {table = array<i8: -128, -127, -126, -125, -124, -123, -122, -121, -120, -119, -118, -117, -116, -115, -114, -113, -112, -111, -110, -109, -108, -107, -106, -105, -104, -103, -102, -101, -100, -99, -98, -97, -96, -95, -94, -93, -92, -91, -90, -89, -88, -87, -86, -85, -84, -83, -82, -81, -80, -79, -78, -77, -76, -75, -74, -73, -72, -71, -70, -69, -68, -67, -66, -65, -64, -63, -62, -61, -60, -59, -58, -57, -56, -55, -54, -53, -52, -51, -50, -49, -48, -47, -46, -45, -44, -43, -42, -41, -40, -39, -38, -37, -36, -35, -34, -33, -32, -31, -30, -29, -28, -27, -26, -25, -24, -23, -22, -21, -20, -19, -18, -17, -16, -15, -14, -13, -12, -11, -10, -9, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127>} : (tensor<256x!quant.uniform<i8:f32, 0.5>>) -> tensor<256x!quant.uniform<i8:f32, 0.5>>
  %y = tinyml.lookup %t {table = array<i8: 127, 127, 126, 125, 124, 123, 122, 121, 120, 119, 118, 117, 116, 115, 114, 113, 112, 111, 110, 109, 108, 107, 106, 105, 104, 103, 102, 101, 100, 99, 98, 97, 96, 95, 94, 93, 92, 91, 90, 89, 88, 87, 86, 85, 84, 83, 82, 81, 80, 79, 78, 77, 76, 75, 74, 73, 72, 71, 70, 69, 68, 67, 66, 65, 64, 63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43, 42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, -1, -2, -3, -4, -5, -6, -7, -8, -9, -10, -11, -12, -13, -14, -15, -16, -17, -18, -19, -20, -21, -22, -23, -24, -25, -26, -27, -28, -29, -30, -31, -32, -33, -34, -35, -36, -37, -38, -39, -40, -41, -42, -43, -44, -45, -46, -47, -48, -49, -50, -51, -52, -53, -54, -55, -56, -57, -58, -59, -60, -61, -62, -63, -64, -65, -66, -67, -68, -69, -70, -71, -72, -73, -74, -75, -76, -77, -78, -79, -80, -81, -82, -83, -84, -85, -86, -87, -88, -89, -90, -91, -92, -93, -94, -95, -96, -97, -98, -99, -100, -101, -102, -103, -104, -105, -106, -107, -108, -109, -110, -111, -112, -113, -114, -115, -116, -117, -118, -119, -120, -121, -122, -123, -124, -125, -126, -127>} : (tensor<256x!quant.uniform<i8:f32, 0.5>>) -> tensor<256x!quant.uniform<i8:f32, 0.5>>
  return %y : tensor<256x!quant.uniform<i8:f32, 0.5>>
}

// -----

// Not fired: the MUL reads two tensors.
// CHECK-LABEL: func.func @product_of_two_tensors
// CHECK:         tinyml.lookup
// CHECK:         tinyml.mul
func.func @product_of_two_tensors(%x: tensor<256x!quant.uniform<i8:f32, 0.5>>, %z: tensor<256x!quant.uniform<i8:f32, 0.5>>) -> tensor<256x!quant.uniform<i8:f32, 0.25>> {
  %t = tinyml.lookup %z {table = array<i8: -128, -127, -126, -125, -124, -123, -122, -121, -120, -119, -118, -117, -116, -115, -114, -113, -112, -111, -110, -109, -108, -107, -106, -105, -104, -103, -102, -101, -100, -99, -98, -97, -96, -95, -94, -93, -92, -91, -90, -89, -88, -87, -86, -85, -84, -83, -82, -81, -80, -79, -78, -77, -76, -75, -74, -73, -72, -71, -70, -69, -68, -67, -66, -65, -64, -63, -62, -61, -60, -59, -58, -57, -56, -55, -54, -53, -52, -51, -50, -49, -48, -47, -46, -45, -44, -43, -42, -41, -40, -39, -38, -37, -36, -35, -34, -33, -32, -31, -30, -29, -28, -27, -26, -25, -24, -23, -22, -21, -20, -19, -18, -17, -16, -15, -14, -13, -12, -11, -10, -9, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127>} : (tensor<256x!quant.uniform<i8:f32, 0.5>>) -> tensor<256x!quant.uniform<i8:f32, 0.5>>
  %y = tinyml.mul %x, %t : (tensor<256x!quant.uniform<i8:f32, 0.5>>, tensor<256x!quant.uniform<i8:f32, 0.5>>) -> tensor<256x!quant.uniform<i8:f32, 0.25>>
  return %y : tensor<256x!quant.uniform<i8:f32, 0.25>>
}

// -----

// Not fired: x times its own reshape to a column (an outer product) reads
// other elements of x than the one it computes.
// CHECK-LABEL: func.func @outer_product
// CHECK:         tinyml.mul
func.func @outer_product(%x: tensor<1x4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4x4x!quant.uniform<i8:f32, 0.25>> {
  %c = tinyml.reshape %x : (tensor<1x4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4x1x!quant.uniform<i8:f32, 0.5>>
  %y = tinyml.mul %x, %c : (tensor<1x4x!quant.uniform<i8:f32, 0.5>>, tensor<4x1x!quant.uniform<i8:f32, 0.5>>) -> tensor<4x4x!quant.uniform<i8:f32, 0.25>>
  return %y : tensor<4x4x!quant.uniform<i8:f32, 0.25>>
}

// -----

// Not fired: int16 values have 65536, no 256-entry table.
// CHECK-LABEL: func.func @int16_square
// CHECK:         tinyml.mul
func.func @int16_square(%x: tensor<4x!quant.uniform<i16:f32, 0.5>>) -> tensor<4x!quant.uniform<i16:f32, 0.25>> {
  %y = tinyml.mul %x, %x : (tensor<4x!quant.uniform<i16:f32, 0.5>>, tensor<4x!quant.uniform<i16:f32, 0.5>>) -> tensor<4x!quant.uniform<i16:f32, 0.25>>
  return %y : tensor<4x!quant.uniform<i16:f32, 0.25>>
}
