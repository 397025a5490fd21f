// The TFLite frontend: `tinyml-opt model.tflite` prints the imported IR.
// NHWC stays NHWC (no transposes); an int8 tensor is read through
// quant.scast + tinyml.dequantize and an op's result quantized back to its
// tensor's parameters, read straight from the file.

// RUN: tinyml-opt %S/../../models/int8/op_conv_relu.tflite --mlir-elide-elementsattrs-if-larger=4 | FileCheck %s --check-prefix=CONV
// A conv's OHWI weights become HWCF, their per-channel scales along axis
// 3; the fused RELU is the relu before the quantize; SAME padding is
// explicit; the quantize rounds halves away from zero, as TFLite does.
// The int8 input and output carry the scale and zero point the file
// declares, which the report and the header give the caller.
// CONV-LABEL: func.func @op_conv_relu(%arg0: tensor<1x9x9x3xi8> {tinyml.name = "serving_default_keras_tensor_180:0", tinyml.scale = 0.029949897900223732 : f64, tinyml.zero_point = 12 : i64}) -> (tensor<1x9x9x8xi8> {tinyml.name = "StatefulPartitionedCall_1:0", tinyml.scale = 0.021846350282430649 : f64, tinyml.zero_point = -128 : i64})
// CONV-NOT:     tinyml.transpose
// CONV:         %[[X:.*]] = quant.scast %arg0 : tensor<1x9x9x3xi8> to tensor<1x9x9x3x!quant.uniform<i8:f32, {{.*}}:12>>
// CONV:         %[[XF:.*]] = tinyml.dequantize %[[X]]
// CONV:         quant.scast %{{.*}} : tensor<3x3x3x8xi8> to tensor<3x3x3x8x!quant.uniform<i8:f32:3, {{.*}}>>
// CONV:         %[[Y:.*]] = tinyml.conv2d %[[XF]], %{{.*}}, %{{.*}} {padding = array<i64: 1, 1, 1, 1>}
// CONV:         %[[R:.*]] = tinyml.relu %[[Y]]
// CONV:         %[[Q:.*]] = tinyml.quantize %[[R]] {ties_away_from_zero} : tensor<1x9x9x8xf32> to tensor<1x9x9x8x!quant.uniform<i8:f32, {{.*}}:-128>>
// CONV:         %[[OUT:.*]] = quant.scast %[[Q]] {{.*}} to tensor<1x9x9x8xi8>
// CONV:         return %[[OUT]]

// RUN: tinyml-opt %S/../../models/int8/op_depthwise.tflite --mlir-elide-elementsattrs-if-larger=4 | FileCheck %s --check-prefix=DEPTHWISE
// Depthwise weights [1, kh, kw, C] become HWCM, the scales along C.
// DEPTHWISE-LABEL: func.func @op_depthwise
// DEPTHWISE:         quant.scast %{{.*}} : tensor<3x3x6x1xi8> to tensor<3x3x6x1x!quant.uniform<i8:f32:2, {{.*}}>>
// DEPTHWISE:         tinyml.depthwise_conv2d

// RUN: tinyml-opt %S/../../models/int8/op_fully_connected.tflite --mlir-elide-elementsattrs-if-larger=4 | FileCheck %s --check-prefix=FC
// FULLY_CONNECTED's [out, in] weights become the [K, N] right operand of
// a matmul, the scales along N.
// FC-LABEL: func.func @op_fully_connected
// FC:         quant.scast %{{.*}} : tensor<20x10xi8> to tensor<20x10x!quant.uniform<i8:f32:1, {{.*}}>>
// FC:         tinyml.matmul %{{.*}}, %{{.*}}, %{{.*}} : (tensor<1x20xf32>, tensor<20x10xf32>, tensor<10xf32>) -> tensor<1x10xf32>

// RUN: tinyml-opt %S/../../models/int8/op_reshape_concat.tflite --mlir-elide-elementsattrs-if-larger=4 | FileCheck %s --check-prefix=MOVE
// Data movement between int8 tensors of one quantization moves the int8
// values as they are (no dequantize and quantize around it).
// MOVE-LABEL: func.func @op_reshape_concat
// MOVE:         %[[CAT:.*]] = tinyml.concat %{{.*}}, %{{.*}} {axis = 3 : i64} : (tensor<1x4x4x4xi8>, tensor<1x4x4x2xi8>) -> tensor<1x4x4x6xi8>
// MOVE-NEXT:    %[[FLAT:.*]] = tinyml.reshape %[[CAT]] : (tensor<1x4x4x6xi8>) -> tensor<1x16x6xi8>
// MOVE-NEXT:    return %[[FLAT]]

// RUN: tinyml-opt %S/../../models/int8/op_avg_pool.tflite | FileCheck %s --check-prefix=POOL
// A pool keeps its window; SAME padding of a 3x3 window, stride 2, over 8
// columns pads one after.
// POOL-LABEL: func.func @op_avg_pool
// POOL:         tinyml.avg_pool2d %{{.*}} {kernel = array<i64: 3, 3>, padding = array<i64: 0, 0, 1, 1>, strides = array<i64: 2, 2>}
