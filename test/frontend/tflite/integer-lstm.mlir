// A fully integer UNIDIRECTIONAL_SEQUENCE_LSTM (a Keras 2 LSTM converted
// with int8 builtins) is TFLM's integer cell in the time loop, on the
// stored int8 input: the hidden state int8 from its zero point (0 here),
// the cell state int16 from 0, each gate two int8 x int8 -> int32 products
// requantized to int16 and added, then sigmoid or tanh looked up in the
// 256-entry table; the output sequence holds each step's hidden state.
// RUN: tinyml-opt %S/../../models/recurrent/keras_lstm_int8.tflite | FileCheck %s
// CHECK-LABEL: func.func @keras_lstm_int8
// CHECK:         %[[X:.*]] = tinyml.transpose %arg0 {permutation = array<i64: 1, 0, 2>} : (tensor<1x12x10xi8>) -> tensor<12x1x10xi8>
// CHECK:         %[[H0R:.*]] = arith.constant dense<0> : tensor<1x16xi8>
// CHECK-NEXT:    %[[C0R:.*]] = arith.constant dense<0> : tensor<1x16xi16>
// CHECK-NEXT:    %[[TABLE:.*]] = arith.constant {{.*}} : tensor<256xi32>
// CHECK-NEXT:    %[[H0:.*]] = bufferization.alloc_tensor() copy(%[[H0R]]) : tensor<1x16xi8>
// CHECK-NEXT:    %[[C0:.*]] = bufferization.alloc_tensor() copy(%[[C0R]]) : tensor<1x16xi16>
// CHECK:         %[[L:.*]]:3 = scf.for %[[T:.*]] = {{.*}} iter_args(%[[H:.*]] = %[[H0]], %[[C:.*]] = %[[C0]], %[[SEQ:.*]] = %{{.*}}) -> (tensor<1x16xi8>, tensor<1x16xi16>, tensor<12x1x16xi8>)
// CHECK:           %[[ROW:.*]] = tensor.extract_slice %[[X]][%[[T]], 0, 0] [1, 1, 10] [1, 1, 1]
// CHECK:           linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[ROW]], %{{.*}} : tensor<1x10xi8>, tensor<10x16xi8>) outs(%{{.*}} : tensor<1x16xi32>)
// CHECK:           linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[H]], %{{.*}} : tensor<1x16xi8>, tensor<16x16xi8>) outs(%{{.*}} : tensor<1x16xi32>)
// CHECK:           linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x16xi32>, tensor<1x16xi32>) outs(%{{.*}} : tensor<1x16xi16>)
// CHECK:           tensor.extract %[[TABLE]]
// CHECK:           %[[HN:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x16xi16>, tensor<1x16xi16>) outs(%{{.*}} : tensor<1x16xi8>)
// CHECK:           %[[WH:.*]] = bufferization.materialize_in_destination %[[HN]] in %[[H]]
// CHECK-NEXT:      %[[WC:.*]] = bufferization.materialize_in_destination %{{.*}} in %[[C]]
// CHECK-NEXT:      %[[S:.*]] = tensor.insert_slice %[[WH]] into %[[SEQ]][%[[T]], 0, 0] [1, 1, 16] [1, 1, 1]
// CHECK-NEXT:      scf.yield %[[WH]], %[[WC]], %[[S]]
// The classifier reads the last step's int8 hidden state as stored.
// CHECK:         tinyml.transpose %[[L]]#2 {permutation = array<i64: 1, 0, 2>} : (tensor<12x1x16xi8>) -> tensor<1x12x16xi8>
// CHECK-NEXT:    tensor.extract_slice %{{.*}}[0, 11, 0] [1, 1, 16] [1, 1, 1] : tensor<1x12x16xi8> to tensor<1x1x16xi8>
