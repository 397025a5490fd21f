// An integer SVDF network in the form of TFLM's keyword model
// (test/models/svdf_models.py): its int16 input and int32 output are the
// function's, with the scale and zero point the file declares; a QUANTIZE
// between integer types is TFLM's Requantize on the stored values; each
// SVDF layer is TFLM's integer kernel in linalg on TFLite's flat history
// [B, F * M] (8 filters of 4 here): the int8 feature projection
// requantized to the int16 history, the history (from its reset value, 0)
// moved one place left with the projection written at each filter's last
// place (every 4th), dotted with the time weights, the rank's filters
// summed with the bias, requantized to int8; the int8 softmax writes int16.
// RUN: tinyml-opt %S/../../models/recurrent/svdf_keyword.tflite --mlir-elide-elementsattrs-if-larger=4 | FileCheck %s
// CHECK-DAG:     #[[FLAT:.*]] = affine_map<(d0, d1, d2) -> (d0, d1 * 4 + d2)>
// CHECK-LABEL: func.func @svdf_keyword(%arg0: tensor<1x24xi16> {tinyml.name = "input", tinyml.scale = 6.2499998603016138E-4 : f64, tinyml.zero_point = 0 : i64}) -> (tensor<1x3xi32> {tinyml.name = "output", tinyml.scale = 3.0517578125E-5 : f64, tinyml.zero_point = 0 : i64})
// CHECK:         %[[X:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<1x24xi16>) outs(%{{.*}} : tensor<1x24xi8>)
// CHECK:           tosa.apply_scale
// CHECK:         %[[PROJECTION:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]], %{{.*}} : tensor<1x24xi8>, tensor<24x8xi8>) outs(%{{.*}} : tensor<1x8xi32>)
// CHECK:         %[[NEWEST:.*]] = linalg.generic {{.*}} ins(%[[PROJECTION]] : tensor<1x8xi32>) outs(%{{.*}} : tensor<1x8xi16>)
// CHECK:         %[[RESET:.*]] = arith.constant dense<0> : tensor<1x32xi16>
// CHECK:         %[[OLDER:.*]] = tensor.extract_slice %[[RESET]][0, 1] [1, 31] [1, 1]
// CHECK:         %[[MOVED:.*]] = tensor.insert_slice %[[OLDER]] into %{{.*}}[0, 0] [1, 31] [1, 1]
// CHECK:         %[[HISTORY:.*]] = tensor.insert_slice %[[NEWEST]] into %[[MOVED]][0, 3] [1, 8] [1, 4] : tensor<1x8xi16> into tensor<1x32xi16>
// CHECK:         %[[TIMED:.*]] = linalg.generic {indexing_maps = [#[[FLAT]], {{.*}}], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[HISTORY]], %{{.*}} : tensor<1x32xi16>, tensor<8x4xi16>) outs(%{{.*}} : tensor<1x8xi32>)
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

// Streaming (--tflite-streaming): each history is a state input after the
// model's, marked with the state's name; the layer reads it instead of the
// reset value, then writes the history after it over it (into the buffer
// of the argument, after every read of it: they all feed that value).
// RUN: tinyml-opt --tflite-streaming %S/../../models/recurrent/svdf_keyword.tflite --mlir-elide-elementsattrs-if-larger=4 | FileCheck %s --check-prefix=STREAM
// STREAM-LABEL: func.func @svdf_keyword(%arg0: tensor<1x24xi16> {{{.*}}}, %arg1: tensor<1x32xi16> {tinyml.name = "svdf0/state", {{.*}}tinyml.state = "svdf0/state"{{.*}}}, %arg2: tensor<1x32xi16> {tinyml.name = "svdf1/state", {{.*}}tinyml.state = "svdf1/state"{{.*}}}) -> (tensor<1x3xi32> {{{.*}}})
// STREAM-NOT:    arith.constant dense<0> : tensor<1x32xi16>
// STREAM:        %[[OLDER0:.*]] = tensor.extract_slice %arg1[0, 1] [1, 31] [1, 1]
// STREAM:        %[[MOVED0:.*]] = tensor.insert_slice %[[OLDER0]]
// STREAM:        %[[NEXT0:.*]] = tensor.insert_slice %{{.*}} into %[[MOVED0]][0, 3] [1, 8] [1, 4]
// STREAM:        %[[STATE0:.*]] = bufferization.to_buffer %arg1 : tensor<1x32xi16> to memref<1x32xi16>
// STREAM-NEXT:   bufferization.materialize_in_destination %[[NEXT0]] in restrict writable %[[STATE0]]
// STREAM:        %[[OLDER1:.*]] = tensor.extract_slice %arg2[0, 1] [1, 31] [1, 1]
// STREAM:        %[[NEXT1:.*]] = tensor.insert_slice %{{.*}} into %{{.*}}[0, 3] [1, 8] [1, 4]
// STREAM:        %[[STATE1:.*]] = bufferization.to_buffer %arg2
// STREAM-NEXT:   bufferization.materialize_in_destination %[[NEXT1]] in restrict writable %[[STATE1]]
// STREAM:        return %{{.*}} : tensor<1x3xi32>
