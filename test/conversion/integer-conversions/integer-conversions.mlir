// RUN: tinyml-opt %s --split-input-file --tinyml-integer-conversions | FileCheck %s

// A quantize without an FPU: the input's bits as an order key (negative
// floats' magnitude bits flipped), placed among 256 compile-time
// thresholds by 8 steps of a binary search (128, 64, ... 1), minus 128.
// No float arithmetic is left.
// CHECK-LABEL: func.func @quantize
// CHECK:         %[[T:.*]] = arith.constant dense<{{.*}}> : tensor<256xi32>
// CHECK:         linalg.generic
// CHECK:           %[[BITS:.*]] = arith.bitcast %{{.*}} : f32 to i32
// CHECK:           %[[SIGN:.*]] = arith.shrsi %[[BITS]]
// CHECK:           %[[KEY:.*]] = arith.xori %[[BITS]]
// CHECK-COUNT-8:   tensor.extract %[[T]]
// CHECK:           arith.trunci %{{.*}} : i32 to i8
// CHECK-NOT:     arith.divf
func.func @quantize(%x: tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 5.000000e-01:1>> {
  %y = tinyml.quantize %x : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 5.000000e-01:1>>
  return %y : tensor<4x!quant.uniform<i8:f32, 5.000000e-01:1>>
}

// -----

// A dequantize without an FPU: the float32 bits of each of the 256 values
// (scale 0.5, zero point 1: q = -128 is -64.5, 0xC2810000, printed as
// little-endian bytes; q = 127 is 63, 0x427C0000), looked up.
// CHECK-LABEL: func.func @dequantize
// CHECK:         %[[T:.*]] = arith.constant dense<"0x000081C2{{.*}}00007C42"> : tensor<256xi32>
// CHECK:         linalg.generic
// CHECK:           %[[I:.*]] = arith.addi %{{.*}}, %c128_i32 : i32
// CHECK:           %[[BITS:.*]] = tensor.extract %[[T]]
// CHECK:           arith.bitcast %[[BITS]] : i32 to f32
// CHECK-NOT:     arith.mulf
func.func @dequantize(%x: tensor<4x!quant.uniform<i8:f32, 5.000000e-01:1>>) -> tensor<4xf32> {
  %y = tinyml.dequantize %x : tensor<4x!quant.uniform<i8:f32, 5.000000e-01:1>> to tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// Not lowered: a per-axis dequantize (a float layer's weights, which a
// core without an FPU refuses anyway).
// CHECK-LABEL: func.func @per_axis_dequantize
// CHECK:         tinyml.dequantize
func.func @per_axis_dequantize(%x: tensor<2x2x!quant.uniform<i8:f32:1, {5.000000e-01,2.500000e-01}>>) -> tensor<2x2xf32> {
  %y = tinyml.dequantize %x : tensor<2x2x!quant.uniform<i8:f32:1, {5.000000e-01,2.500000e-01}>> to tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}
