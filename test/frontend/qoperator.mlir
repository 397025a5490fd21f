// onnxruntime's quantize_static output (test/models/ort_quantized, written by
// tools/build_ort_quantized_models.py) with uint8 activations: uint8 data is
// int8 with the zero point moved by -128, and each QOperator op is the IR of
// its QDQ form, dequantize -> float op -> quantize.

// QuantizeLinear to uint8 (zero point 139 in the file); QLinearConv with its
// int32 bias of scale x_scale * w_scale (0.028065... * 0.0041789... =
// 1.17282...e-4); the MaxPool onnxruntime runs on the uint8 tensor between a
// dequantize and a quantize of one type; QGemm a matmul with its bias.
// RUN: tinyml-opt %S/../models/ort_quantized/residual_cnn.qoperator_uint8.onnx --mlir-elide-elementsattrs-if-larger=4 | FileCheck %s
// CHECK-LABEL: func.func @residual_cnn(%arg0: tensor<1x3x16x16xf32> {tinyml.name = "x"}) -> (tensor<1x10xf32> {tinyml.name = "y"})
// CHECK-NOT:     ui8
// CHECK:         %[[Q:.*]] = tinyml.quantize %arg0 : tensor<1x3x16x16xf32> to tensor<1x3x16x16x!quant.uniform<i8:f32, 0.02806{{[0-9]*}}:11>>
// CHECK:         %[[X:.*]] = tinyml.dequantize %{{.*}} : tensor<1x3x16x16x!quant.uniform<i8:f32, 0.02806{{[0-9]*}}:11>> to tensor<1x3x16x16xf32>
// CHECK:         %[[W:.*]] = quant.scast %{{.*}} : tensor<3x3x3x8xi8> to tensor<3x3x3x8x!quant.uniform<i8:f32, 0.004178{{[0-9]*}}>>
// CHECK:         %[[B:.*]] = quant.scast %{{.*}} : tensor<8xi32> to tensor<8x!quant.uniform<i32:f32, 1.17282{{[0-9]*}}E-4>>
// CHECK:         tinyml.conv2d
// CHECK:         %[[C1:.*]] = tinyml.quantize %{{.*}} : tensor<1x8x16x16xf32> to tensor<1x8x16x16x!quant.uniform<i8:f32, 0.01586{{[0-9]*}}:-128>>
// CHECK:         tinyml.dequantize %{{.*}} : tensor<1x8x16x16x!quant.uniform<i8:f32, 0.01586{{[0-9]*}}:-128>> to tensor<1x8x16x16xf32>
// CHECK:         tinyml.max_pool2d
// CHECK:         tinyml.quantize %{{.*}} : tensor<1x8x8x8xf32> to tensor<1x8x8x8x!quant.uniform<i8:f32, 0.01586{{[0-9]*}}:-128>>
// CHECK:         tinyml.add
// CHECK:         tinyml.avg_pool2d
// CHECK:         tinyml.global_avg_pool
// CHECK:         tinyml.reshape %{{.*}} : (tensor<1x8x1x1xi8>) -> tensor<1x8xi8>
// CHECK:         %[[M:.*]] = tinyml.matmul %{{.*}}, %{{.*}}, %{{.*}} : (tensor<1x8xf32>, tensor<8x10xf32>, tensor<10xf32>) -> tensor<1x10xf32>
// CHECK-NEXT:    tinyml.quantize %[[M]] : tensor<1x10xf32> to tensor<1x10x!quant.uniform<i8:f32, 0.01503{{[0-9]*}}:-28>>
// CHECK:         %[[Y:.*]] = tinyml.dequantize
// CHECK-NEXT:    return %[[Y]] : tensor<1x10xf32>

// The com.microsoft ops without an integer kernel: LeakyRelu, Sigmoid and Mul
// stay float between their casts; the QLinearConcat dequantizes each input
// with its own quantization.
// RUN: tinyml-opt %S/../models/ort_quantized/branches.qoperator_uint8.onnx --mlir-elide-elementsattrs-if-larger=4 | FileCheck %s --check-prefix=BRANCHES
// BRANCHES-LABEL: func.func @branches
// BRANCHES:         %[[C:.*]] = tinyml.dequantize %{{.*}} : tensor<1x8x8x8x!quant.uniform<i8:f32, {{.*}}>> to tensor<1x8x8x8xf32>
// BRANCHES:         %[[A:.*]] = tinyml.mul %[[C]], %{{.*}} : (tensor<1x8x8x8xf32>, tensor<1xf32>)
// BRANCHES-NEXT:    %[[L:.*]] = tinyml.maximum %[[C]], %[[A]]
// BRANCHES-NEXT:    tinyml.quantize %[[L]]
// BRANCHES:         %[[S:.*]] = tinyml.sigmoid %[[C]]
// BRANCHES-NEXT:    tinyml.quantize %[[S]] : tensor<1x8x8x8xf32> to tensor<1x8x8x8x!quant.uniform<i8:f32, 0.00383{{[0-9]*}}:-128>>
// BRANCHES:         tinyml.depthwise_conv2d
// BRANCHES:         %[[SD:.*]] = tinyml.dequantize %{{.*}} : tensor<1x8x8x8x!quant.uniform<i8:f32, 0.00383{{[0-9]*}}:-128>>
// BRANCHES-NEXT:    tinyml.mul %[[C]], %[[SD]]
// BRANCHES:         tinyml.concat %{{.*}}, %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) -> tensor<1x24x8x8xf32>
// BRANCHES-NEXT:    tinyml.quantize
// BRANCHES:         tinyml.global_avg_pool
// BRANCHES:         tinyml.matmul
// BRANCHES:         tinyml.add
