// LSTM and GRU become a time loop per direction: an scf.for whose body is
// one step of the cell in tinyml ops (each gate the step's input row
// through its input weights plus the state through its recurrent weights),
// the state written over itself (materialize_in_destination).

// A PyTorch GRU (dynamo export, linear_before_reset=1) whose final state
// feeds a Linear: a 16-step loop carrying h.
// RUN: tinyml-opt %S/../models/recurrent/gru_classifier.dynamo.onnx | FileCheck %s --check-prefix=GRU
// GRU-LABEL: func.func @main_graph
// GRU:         %[[X:.*]] = tinyml.transpose %arg0 {permutation = array<i64: 1, 0, 2>} : (tensor<1x16x6xf32>) -> tensor<16x1x6xf32>
// The zero initial state is copied into a buffer of its own, which the loop
// writes over.
// GRU:         %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<1x16xf32>
// GRU-NEXT:    %[[H0:.*]] = bufferization.alloc_tensor() copy(%[[ZERO]]) : tensor<1x16xf32>
// GRU:         %[[HN:.*]] = scf.for %[[T:.*]] = %c0 to %c16 step %c1 iter_args(%[[H:.*]] = %[[H0]]) -> (tensor<1x16xf32>) {
// GRU-NEXT:      %[[XT:.*]] = tensor.extract_slice %[[X]][%[[T]], 0, 0] [1, 1, 6] [1, 1, 1] : tensor<16x1x6xf32> to tensor<1x6xf32>
// z = sigmoid(h R_z + Rb_z + x W_z + Wb_z), r likewise
// GRU:           %[[RZ:.*]] = tinyml.matmul %[[H]], %{{.*}}, %{{.*}} : (tensor<1x16xf32>, tensor<16x16xf32>, tensor<16xf32>) -> tensor<1x16xf32>
// GRU:           %[[PZ:.*]] = tinyml.matmul %[[XT]], %{{.*}}, %{{.*}} : (tensor<1x6xf32>, tensor<6x16xf32>, tensor<16xf32>) -> tensor<1x16xf32>
// GRU-NEXT:      %[[AZ:.*]] = tinyml.add %[[RZ]], %[[PZ]]
// GRU-NEXT:      %[[GZ:.*]] = tinyml.sigmoid %[[AZ]]
// GRU:           %[[RR:.*]] = tinyml.matmul %[[H]]
// GRU:           %[[PR:.*]] = tinyml.matmul %[[XT]]
// GRU-NEXT:      %[[AR:.*]] = tinyml.add %[[RR]], %[[PR]]
// GRU-NEXT:      %[[GR:.*]] = tinyml.sigmoid %[[AR]]
// n = tanh(r (h R_n + Rb_n) + x W_n + Wb_n)
// GRU:           %[[RN:.*]] = tinyml.matmul %[[H]]
// GRU-NEXT:      %[[MN:.*]] = tinyml.mul %[[GR]], %[[RN]]
// GRU:           %[[PN:.*]] = tinyml.matmul %[[XT]]
// GRU-NEXT:      %[[AN:.*]] = tinyml.add %[[MN]], %[[PN]]
// GRU-NEXT:      %[[GN:.*]] = tinyml.tanh %[[AN]]
// h' = n + z (h - n)
// GRU-NEXT:      %[[D:.*]] = tinyml.sub %[[H]], %[[GN]]
// GRU-NEXT:      %[[ZD:.*]] = tinyml.mul %[[GZ]], %[[D]]
// GRU-NEXT:      %[[NEXT:.*]] = tinyml.add %[[GN]], %[[ZD]]
// GRU-NEXT:      %[[W:.*]] = bufferization.materialize_in_destination %[[NEXT]] in %[[H]]
// GRU-NEXT:      scf.yield %[[W]] : tensor<1x16xf32>
// GRU:         tinyml.reshape %[[HN]] : (tensor<1x16xf32>) -> tensor<1x1x16xf32>

// Two stacked LSTM layers (TorchScript export): the first layer's output
// sequence, which the second reads, is the loop's third carried tensor, a
// buffer of its own (alloc_tensor), one row inserted per step; the cell
// state is the second.
// RUN: tinyml-opt %S/../models/recurrent/lstm_classifier.torchscript.onnx | FileCheck %s --check-prefix=LSTM
// LSTM-LABEL: func.func @main_graph
// LSTM:         %[[Y:.*]] = bufferization.alloc_tensor() : tensor<12x1x20xf32>
// LSTM:         %[[L1:.*]]:3 = scf.for %[[T:.*]] = %c0 to %c12 step %c1 iter_args(%[[H:.*]] = %{{.*}}, %[[C:.*]] = %{{.*}}, %[[SEQ:.*]] = %[[Y]]) -> (tensor<1x20xf32>, tensor<1x20xf32>, tensor<12x1x20xf32>) {
// c' = f c + i c~, h' = o tanh(c')
// LSTM:           %[[FC:.*]] = tinyml.mul %{{.*}}, %[[C]]
// LSTM:           %[[IG:.*]] = tinyml.mul
// LSTM-NEXT:      %[[CN:.*]] = tinyml.add %[[FC]], %[[IG]]
// LSTM-NEXT:      %[[TC:.*]] = tinyml.tanh %[[CN]]
// LSTM-NEXT:      %[[HN:.*]] = tinyml.mul %{{.*}}, %[[TC]]
// LSTM-NEXT:      %[[WH:.*]] = bufferization.materialize_in_destination %[[HN]] in %[[H]]
// LSTM-NEXT:      %[[WC:.*]] = bufferization.materialize_in_destination %[[CN]] in %[[C]]
// LSTM-NEXT:      %[[S:.*]] = tensor.insert_slice %[[WH]] into %[[SEQ]][%[[T]], 0, 0] [1, 1, 20] [1, 1, 1] : tensor<1x20xf32> into tensor<12x1x20xf32>
// LSTM-NEXT:      scf.yield %[[WH]], %[[WC]], %[[S]]
// LSTM:         tinyml.reshape %[[L1]]#2 : (tensor<12x1x20xf32>) -> tensor<12x1x1x20xf32>
// LSTM:         scf.for
// LSTM-NOT:     scf.for
// LSTM:         return
