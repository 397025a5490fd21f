// QuantizeLinear and DequantizeLinear (tf2onnx's QDQ form of an int8 TFLite
// model) become quant casts; upstream's quantized types carry the scales.

// An int8 graph input and output; DQ of a tensor is scast + dequantize, Q is
// quantize + scast; per-channel weights and the int32 bias stay int8/int32 constants,
// re-laid out OIHW -> HWCF with their quantization axis (0 -> 3).
// RUN: %build_zoo %t qdq_conv_relu bad_uint8_quantize
// RUN: tinyml-opt %t/qdq_conv_relu.onnx | FileCheck %s
// CHECK-LABEL: func.func @qdq_conv_relu(%arg0: tensor<1x5x5x3xi8> {tinyml.name = "x"}) -> (tensor<1x5x5x4xi8> {tinyml.name = "y"})
// CHECK:         %[[XT:.*]] = tinyml.transpose %arg0 {permutation = array<i64: 0, 3, 1, 2>} : (tensor<1x5x5x3xi8>) -> tensor<1x3x5x5xi8>
// CHECK-NEXT:    %[[XQ:.*]] = quant.scast %[[XT]] : tensor<1x3x5x5xi8> to tensor<1x3x5x5x!quant.uniform<i8:f32, 0.05{{[0-9]*}}:-3>>
// CHECK-NEXT:    %[[XF:.*]] = tinyml.dequantize %[[XQ]] : {{.*}} to tensor<1x3x5x5xf32>
// CHECK:         %[[W:.*]] = arith.constant dense_resource<__elided__> : tensor<3x3x3x4xi8>
// CHECK-NEXT:    %[[WQ:.*]] = quant.scast %[[W]] : tensor<3x3x3x4xi8> to tensor<3x3x3x4x!quant.uniform<i8:f32:3, {0.0099{{[0-9]*}},0.0199{{[0-9]*}},0.0299{{[0-9]*}},0.0399{{[0-9]*}}}>>
// CHECK-NEXT:    %[[WF:.*]] = tinyml.dequantize %[[WQ]]
// CHECK-NEXT:    %[[B:.*]] = arith.constant dense<[53, -327, 102, -65]> : tensor<4xi32>
// CHECK-NEXT:    %[[BQ:.*]] = quant.scast %[[B]] : tensor<4xi32> to tensor<4x!quant.uniform<i32:f32:0, {{.*}}>>
// CHECK-NEXT:    %[[BF:.*]] = tinyml.dequantize %[[BQ]]
// CHECK-NEXT:    %[[C:.*]] = tinyml.conv2d %{{.*}}, %[[WF]], %[[BF]] {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x5x5x3xf32>, tensor<3x3x3x4xf32>, tensor<4xf32>) -> tensor<1x5x5x4xf32>
// CHECK:         %[[R:.*]] = tinyml.relu
// CHECK-NEXT:    %[[YQ:.*]] = tinyml.quantize %[[R]] : tensor<1x4x5x5xf32> to tensor<1x4x5x5x!quant.uniform<i8:f32, 0.1{{[0-9]*}}:-128>>
// CHECK-NEXT:    %[[Y:.*]] = quant.scast %[[YQ]] : {{.*}} to tensor<1x4x5x5xi8>
// CHECK-NEXT:    %[[YT:.*]] = tinyml.transpose %[[Y]] {permutation = array<i64: 0, 2, 3, 1>} : (tensor<1x4x5x5xi8>) -> tensor<1x5x5x4xi8>
// CHECK-NEXT:    return %[[YT]]

// After the clean-up the layout transposes are gone: they sink through the
// per-tensor casts and cancel.
// RUN: tinyml-opt %t/qdq_conv_relu.onnx --pass-pipeline="builtin.module(canonicalize,tinyml-cancel-transposes,canonicalize)" | FileCheck %s --check-prefix=CLEAN
// CLEAN-LABEL: func.func @qdq_conv_relu
// CLEAN-NOT:     tinyml.transpose
// CLEAN:         %[[XQ:.*]] = quant.scast %arg0 : tensor<1x5x5x3xi8> to tensor<1x5x5x3x!quant.uniform<i8:f32, {{.*}}>>
// CLEAN:         tinyml.conv2d
// CLEAN-NEXT:    tinyml.relu
// CLEAN-NEXT:    tinyml.quantize
// CLEAN-NEXT:    %[[Y:.*]] = quant.scast %{{.*}} : tensor<1x5x5x4x!quant.uniform<i8:f32, {{.*}}>> to tensor<1x5x5x4xi8>
// CLEAN-NEXT:    return %[[Y]]

// Only int8 quantization: a uint8 tensor is refused.
// RUN: not tinyml-opt %t/bad_uint8_quantize.onnx 2>&1 | FileCheck %s --check-prefix=UINT8
// UINT8: tinyml-opt: error: {{.*}}bad_uint8_quantize.onnx: output 'y' has element type UINT8; only float32 and int8 are supported
