// UNIDIRECTIONAL_SEQUENCE_LSTM (a Keras 2 LSTM converted as TFLM's LSTM
// example converts it) becomes the ONNX LSTM's time loop: its state
// tensors, TFLite variables, start from zeros (TFLM's first invocation),
// gates in ONNX's order (i, o, f, c) with TFLite's one bias per gate folded
// into the input projections, and the converter's cell clip of 10 a clamp
// of the cell state. Keras's x[:, -1] is a STRIDED_SLICE of the sequence.
// RUN: tinyml-opt %S/../../models/recurrent/keras_lstm.tflite | FileCheck %s
// CHECK-LABEL: func.func @keras_lstm
// CHECK:         %[[X:.*]] = tinyml.transpose %arg0 {permutation = array<i64: 1, 0, 2>} : (tensor<1x12x10xf32>) -> tensor<12x1x10xf32>
// The states start from zeros, each copied into a buffer of its own.
// CHECK:         %[[HZ:.*]] = arith.constant dense<0.000000e+00> : tensor<1x16xf32>
// CHECK-NEXT:    %[[CZ:.*]] = arith.constant dense<0.000000e+00> : tensor<1x16xf32>
// CHECK-NEXT:    %[[H0:.*]] = bufferization.alloc_tensor() copy(%[[HZ]]) : tensor<1x16xf32>
// CHECK-NEXT:    %[[C0:.*]] = bufferization.alloc_tensor() copy(%[[CZ]]) : tensor<1x16xf32>
// CHECK:         %[[L:.*]]:3 = scf.for %{{.*}} iter_args(%[[H:.*]] = %[[H0]], %[[C:.*]] = %[[C0]], %{{.*}} = %{{.*}})
// The recurrent products have no bias of their own.
// CHECK:           tinyml.matmul %[[H]], %{{.*}} : (tensor<1x16xf32>, tensor<16x16xf32>) -> tensor<1x16xf32>
// CHECK:           %[[FC:.*]] = tinyml.mul %{{.*}}, %[[C]]
// CHECK:           %[[IG:.*]] = tinyml.mul
// CHECK-NEXT:      %[[CN:.*]] = tinyml.add %[[FC]], %[[IG]]
// CHECK-NEXT:      %[[CLIPPED:.*]] = tinyml.clamp %[[CN]] {max = 1.000000e+01 : f32, min = -1.000000e+01 : f32}
// CHECK-NEXT:      %[[T:.*]] = tinyml.tanh %[[CLIPPED]]
// CHECK:           bufferization.materialize_in_destination %[[CLIPPED]] in %[[C]]
// CHECK:         %[[SEQ:.*]] = tinyml.transpose %[[L]]#2 {permutation = array<i64: 1, 0, 2>} : (tensor<12x1x16xf32>) -> tensor<1x12x16xf32>
// CHECK-NEXT:    %[[LAST:.*]] = tinyml.slice %[[SEQ]] {offsets = array<i64: 0, 11, 0>, strides = array<i64: 1, 1, 1>} : (tensor<1x12x16xf32>) -> tensor<1x1x16xf32>
// CHECK-NEXT:    tinyml.reshape %[[LAST]] : (tensor<1x1x16xf32>) -> tensor<1x16xf32>
