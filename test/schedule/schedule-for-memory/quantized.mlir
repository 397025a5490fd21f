// RUN: tinyml-opt %s --tinyml-schedule-for-memory | FileCheck %s

// An int8 residual block with the shortcut (a 1x1 conv) first: its result
// (8x8x32 int8, 2 KiB) stays live across the main branch: with the 8x8x64
// intermediate (4 KiB) and the second conv's result (2 KiB), 8 KiB; with
// the shortcut computed after the second conv, 6 KiB. A quantized tensor
// takes its storage type's byte per element; the storage casts of the
// weights are views of constants (flash) and cost nothing.

// CHECK-LABEL: func.func @int8_shortcut_first
// CHECK-SAME:    tinyml.schedule_method = "exact"
// CHECK-SAME:    tinyml.schedule_original_peak_bytes = 8192 : i64
// CHECK-SAME:    tinyml.schedule_peak_bytes = 6144 : i64
// CHECK:         %[[A:.*]] = tinyml.conv2d %arg0, %{{.*}} {padding = array<i64: 1, 1, 1, 1>}
// CHECK-NEXT:    %[[B:.*]] = tinyml.conv2d %[[A]]
// CHECK-NEXT:    %[[S:.*]] = tinyml.conv2d %arg0, %{{.*}} : (tensor<1x8x8x16x!quant.uniform<i8:f32, 5.000000e-01>>, tensor<1x1x16x32x!quant.uniform<i8:f32, 1.000000e-01>>)
// CHECK-NEXT:    tinyml.add %[[B]], %[[S]]
func.func @int8_shortcut_first(%x: tensor<1x8x8x16x!quant.uniform<i8:f32, 0.5>>) -> tensor<1x8x8x32x!quant.uniform<i8:f32, 0.5>> {
  %wsc = arith.constant dense<1> : tensor<1x1x16x32xi8>
  %ws = quant.scast %wsc : tensor<1x1x16x32xi8> to tensor<1x1x16x32x!quant.uniform<i8:f32, 0.1>>
  %w1c = arith.constant dense<1> : tensor<3x3x16x64xi8>
  %w1 = quant.scast %w1c : tensor<3x3x16x64xi8> to tensor<3x3x16x64x!quant.uniform<i8:f32, 0.1>>
  %w2c = arith.constant dense<1> : tensor<1x1x64x32xi8>
  %w2 = quant.scast %w2c : tensor<1x1x64x32xi8> to tensor<1x1x64x32x!quant.uniform<i8:f32, 0.1>>
  %s = tinyml.conv2d %x, %ws : (tensor<1x8x8x16x!quant.uniform<i8:f32, 0.5>>, tensor<1x1x16x32x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x8x8x32x!quant.uniform<i8:f32, 0.5>>
  %a = tinyml.conv2d %x, %w1 {padding = array<i64: 1, 1, 1, 1>}
      : (tensor<1x8x8x16x!quant.uniform<i8:f32, 0.5>>, tensor<3x3x16x64x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x8x8x64x!quant.uniform<i8:f32, 0.5>>
  %b = tinyml.conv2d %a, %w2 : (tensor<1x8x8x64x!quant.uniform<i8:f32, 0.5>>, tensor<1x1x64x32x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x8x8x32x!quant.uniform<i8:f32, 0.5>>
  %sum = tinyml.add %b, %s : (tensor<1x8x8x32x!quant.uniform<i8:f32, 0.5>>, tensor<1x8x8x32x!quant.uniform<i8:f32, 0.5>>) -> tensor<1x8x8x32x!quant.uniform<i8:f32, 0.5>>
  return %sum : tensor<1x8x8x32x!quant.uniform<i8:f32, 0.5>>
}
