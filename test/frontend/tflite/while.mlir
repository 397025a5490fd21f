// A WHILE loop (Keras 3's LSTM returning its sequence into a GRU, each a
// WHILE over a condition and a body subgraph) becomes an scf.for of the
// trip count its condition gives on the counters (8 steps). The body's
// operators are imported like the main graph's: the step's row of the
// input sequence is a slice at the induction variable (GATHER at the time
// counter); the LSTM's output sequence, written through SLICEs before and
// after the step's row and a CONCATENATION, is an insert_slice at it; every
// changing loop value is written over itself.
// RUN: tinyml-opt %S/../../models/recurrent/keras3_stacked.tflite | FileCheck %s
// CHECK-LABEL: func.func @keras3_stacked
// CHECK:         %[[X:.*]] = tinyml.reshape %arg0 : (tensor<1x8x6xf32>) -> tensor<8x1x6xf32>
// CHECK:         %[[C8:.*]] = arith.constant 8 : index
// CHECK:         %[[LSTM:.*]]:3 = scf.for %[[T:.*]] = %{{.*}} to %[[C8]] step %{{.*}} iter_args(%[[SEQ:.*]] = %{{.*}}, %[[H:.*]] = %{{.*}}, %[[C:.*]] = %{{.*}}) -> (tensor<8x1x12xf32>, tensor<1x12xf32>, tensor<1x12xf32>) {
// CHECK:           tinyml.matmul %[[H]], %{{.*}} : (tensor<1x12xf32>, tensor<12x48xf32>) -> tensor<1x48xf32>
// CHECK:           %[[ROW:.*]] = tensor.extract_slice %[[X]][%[[T]], 0, 0] [1, 1, 6] [1, 1, 1]
// CHECK:           %[[OUT:.*]] = tinyml.reshape %[[HN:.*]] : (tensor<1x12xf32>) -> tensor<1x1x12xf32>
// CHECK-NEXT:      %[[WRITTEN:.*]] = tensor.insert_slice %[[OUT]] into %[[SEQ]][%[[T]], 0, 0] [1, 1, 12] [1, 1, 1]
// CHECK-NEXT:      %[[S:.*]] = bufferization.materialize_in_destination %[[WRITTEN]] in %[[SEQ]]
// CHECK-NEXT:      %[[HS:.*]] = bufferization.materialize_in_destination %[[HN]] in %[[H]]
// CHECK-NEXT:      %[[CS:.*]] = bufferization.materialize_in_destination %{{.*}} in %[[C]]
// CHECK-NEXT:      scf.yield %[[S]], %[[HS]], %[[CS]]
// The GRU reads the LSTM's whole sequence, one row per step.
// CHECK:         scf.for %[[U:.*]] = %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (tensor<1x1x8xf32>, tensor<1x8xf32>) {
// CHECK:           tensor.extract_slice %[[LSTM]]#0[%[[U]], 0, 0] [1, 1, 12] [1, 1, 1]
// CHECK:           scf.yield
