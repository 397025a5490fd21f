// An integer SVDF network in the form of TFLM's keyword model
// (test/models/svdf_models.py): its int16 input and int32 output are the
// function's, with the scale and zero point the file declares; a QUANTIZE
// between integer types is TFLM's Requantize on the stored values; each
// SVDF layer is TFLM's integer kernel in linalg: the int8 feature
// projection requantized to the int16 history, the history (from its
// reset value, 0) shifted one column left with the projection as its last,
// dotted with the time weights, the rank's filters summed with the bias,
// requantized to int8; the int8 softmax writes int16.
// RUN: tinyml-opt %S/../../models/recurrent/svdf_keyword.tflite --mlir-elide-elementsattrs-if-larger=4 | FileCheck %s
// CHECK-LABEL: func.func @svdf_keyword(%arg0: tensor<1x24xi16> {tinyml.name = "input", tinyml.scale = 6.2499998603016138E-4 : f64, tinyml.zero_point = 0 : i64}) -> (tensor<1x3xi32> {tinyml.name = "output", tinyml.scale = 3.0517578125E-5 : f64, tinyml.zero_point = 0 : i64})
// CHECK:         %[[X:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<1x24xi16>) outs(%{{.*}} : tensor<1x24xi8>)
// CHECK:           tosa.apply_scale
// CHECK:         %[[RESET:.*]] = arith.constant dense<0> : tensor<1x8x4xi16>
// CHECK:         %[[PROJECTION:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]], %{{.*}} : tensor<1x24xi8>, tensor<24x8xi8>) outs(%{{.*}} : tensor<1x8xi32>)
// CHECK:         %[[NEWEST:.*]] = linalg.generic {{.*}} ins(%[[PROJECTION]] : tensor<1x8xi32>) outs(%{{.*}} : tensor<1x8xi16>)
// CHECK:         %[[OLDER:.*]] = tensor.extract_slice %[[RESET]][0, 0, 1] [1, 8, 3] [1, 1, 1]
// CHECK:         %[[COLUMN:.*]] = tensor.expand_shape %[[NEWEST]] {{\[\[}}0], [1, 2]] output_shape [1, 8, 1]
// CHECK:         %[[MOVED:.*]] = tensor.insert_slice %[[OLDER]] into %{{.*}}[0, 0, 0] [1, 8, 3] [1, 1, 1]
// CHECK:         %[[HISTORY:.*]] = tensor.insert_slice %[[COLUMN]] into %[[MOVED]][0, 0, 3] [1, 8, 1] [1, 1, 1]
// CHECK:         %[[TIMED:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[HISTORY]], %{{.*}} : tensor<1x8x4xi16>, tensor<8x4xi16>) outs(%{{.*}} : tensor<1x8xi32>)
// CHECK:         %[[UNITS:.*]] = tensor.expand_shape %[[TIMED]] {{\[\[}}0], [1, 2]] output_shape [1, 8, 1]
// CHECK:         %[[SUMS:.*]] = linalg.generic {{.*}} ins(%[[UNITS]] : tensor<1x8x1xi32>) outs(%{{.*}} : tensor<1x8xi32>)
// CHECK:         %[[Y:.*]] = linalg.generic {{.*}} ins(%[[SUMS]] : tensor<1x8xi32>) outs(%{{.*}} : tensor<1x8xi8>)
// The fully connected layer after it reads the stored int8 as usual.
// CHECK:         quant.scast %[[Y]] : tensor<1x8xi8> to tensor<1x8x!quant.uniform<i8:f32, {{.*}}>>
// CHECK:         tinyml.matmul
// CHECK:         %[[P:.*]] = tinyml.quantize %{{.*}} {ties_away_from_zero} : tensor<1x3xf32> to tensor<1x3x!quant.uniform<i16:f32, 1.52587890625E-5:-32768>>
// CHECK:         %[[P16:.*]] = quant.scast %[[P]] {{.*}} to tensor<1x3xi16>
// CHECK:         %[[OUT:.*]] = linalg.generic {{.*}} ins(%[[P16]] : tensor<1x3xi16>) outs(%{{.*}} : tensor<1x3xi32>)
// CHECK:         return %[[OUT]] : tensor<1x3xi32>
