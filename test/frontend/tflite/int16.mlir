// A Keras image classifier converted with TFLite's 16x8 quantization
// (tools/build_int16_models.py): int16 activations, int8 weights, int64
// biases. Each conv is TFLM's int16 kernel in linalg: the sum of the
// int16 x int8 products, then the int64 bias added and
// MultiplyByQuantizedMultiplier's 64-bit form (a 15-bit multiplier and one
// rounding: `tosa.apply_scale` with SINGLE_ROUND) per output channel,
// saturated to the fused activation's range (ReLU: from 0). Where no sum
// of products can leave int32 (these weights' sums times 2^15 stay below
// 2^31), the products are summed in int32 and widened for the bias: TFLM's
// int64 value, in half the memory. A depthwise conv sums over [channel,
// multiplier]. The pools, like add, sub, mul and mean, are tinyml ops on
// the int16 values as their quantized type, which lower to TFLM's integer
// kernels; the softmax is TFLM's SoftmaxInt16.
// RUN: tinyml-opt %S/../../models/int16/keras_cnn_16x8.tflite --mlir-elide-elementsattrs-if-larger=4 | FileCheck %s
// CHECK-LABEL: func.func @keras_cnn_16x8(%arg0: tensor<1x16x16x3xi16> {{{.*}}tinyml.zero_point = 0 : i64}) -> (tensor<1x10xi16> {{{.*}}tinyml.scale = 3.0517578125E-5 : f64, tinyml.zero_point = 0 : i64})
// CHECK:         %[[PADDED:.*]] = tensor.pad %arg0 low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK:         %[[ZEROS:.*]] = linalg.broadcast ins(%{{.*}} : tensor<8xi32>) outs(%{{.*}} : tensor<1x16x16x8xi32>)
// CHECK:         %[[SUMS:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[PADDED]], %{{.*}} : tensor<1x18x18x3xi16>, tensor<3x3x3x8xi8>) outs(%[[ZEROS]] : tensor<1x16x16x8xi32>)
// CHECK:           %[[PRODUCT:.*]] = arith.muli %{{.*}}, %{{.*}} : i32
// CHECK:           arith.addi %{{.*}}, %[[PRODUCT]] : i32
// CHECK:         %[[CONV:.*]] = linalg.generic {{.*}} ins(%[[SUMS]], %{{.*}}, %{{.*}}, %{{.*}} : tensor<1x16x16x8xi32>, tensor<8xi32>, tensor<8xi8>, tensor<8xi64>) outs(%{{.*}} : tensor<1x16x16x8xi16>)
// CHECK:           %[[WIDE:.*]] = arith.extsi %{{.*}} : i32 to i64
// CHECK:           %[[ACC:.*]] = arith.addi %[[WIDE]], %{{.*}} : i64
// CHECK:           %[[SCALED:.*]] = tosa.apply_scale %[[ACC]], %{{.*}} {rounding_mode = SINGLE_ROUND} : (i64, i32, i8) -> i32
// CHECK:           arith.maxsi %[[SCALED]], %c0_i32
// CHECK:         %[[DW:.*]] = linalg.generic {{.*}} ins(%[[CONV]], %{{.*}} : tensor<1x16x16x8xi16>, tensor<3x3x8x1xi8>) outs(%{{.*}} : tensor<1x14x14x8x1xi32>)
// CHECK:         tensor.collapse_shape %[[DW]] {{\[\[}}0], [1], [2], [3, 4]]
// CHECK:         %[[Q:.*]] = quant.scast %{{.*}} : tensor<1x14x14x8xi16> to tensor<1x14x14x8x!quant.uniform<i16:f32, {{.*}}>>
// CHECK:         tinyml.max_pool2d %[[Q]] {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x14x14x8x!quant.uniform<i16:f32, {{.*}}>>) -> tensor<1x7x7x8x!quant.uniform<i16:f32, {{.*}}>>
// CHECK:         tinyml.avg_pool2d
// The fully connected layer: a [1, 144] x [144, 10] contraction.
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<1x144xi16>, tensor<144x10xi8>) outs(%{{.*}} : tensor<1x10xi32>)
// The softmax: the row maximum, each exp from the 513-entry table, the sum,
// and each exp times the sum's reciprocal from the 1 / (1 + x) table.
// CHECK:         %[[MAX:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<1x10xi16>) outs(%{{.*}} : tensor<1xi16>)
// CHECK:           arith.maxsi
// CHECK:         %[[EXPS:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %[[MAX]] : tensor<1x10xi16>, tensor<1xi16>) outs(%{{.*}} : tensor<1x10xi16>)
// CHECK:           tensor.extract %{{.*}} : tensor<513xi16>
// CHECK:         %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[EXPS]] : tensor<1x10xi16>) outs(%{{.*}} : tensor<1xi32>)
// CHECK:         linalg.generic {{.*}} ins(%[[EXPS]], %[[SUM]] : tensor<1x10xi16>, tensor<1xi32>) outs(%{{.*}} : tensor<1x10xi16>)
// CHECK:           tensor.extract %{{.*}} : tensor<513xi16>
