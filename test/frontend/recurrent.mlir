// LSTM and GRU become a time loop per direction: the input projected
// through each gate's input weights for every step before the loop, then
// an scf.for whose body is one step of the cell in tinyml ops, the state
// written over itself (materialize_in_destination).

// A PyTorch GRU (dynamo export, linear_before_reset=1) whose final state
// feeds a Linear: 3 gate projections, a 16-step loop carrying h.
// RUN: tinyml-opt %S/../models/recurrent/gru_classifier.dynamo.onnx | FileCheck %s --check-prefix=GRU
// GRU-LABEL: func.func @main_graph
// GRU:         %[[X:.*]] = tinyml.reshape %{{.*}} : (tensor<16x1x6xf32>) -> tensor<16x6xf32>
// GRU:         %[[PZ:.*]] = tinyml.matmul %[[X]], %{{.*}}, %{{.*}} : (tensor<16x6xf32>, tensor<6x16xf32>, tensor<16xf32>) -> tensor<16x16xf32>
// GRU-NEXT:    %[[Z:.*]] = tinyml.reshape %[[PZ]] : (tensor<16x16xf32>) -> tensor<16x1x16xf32>
// GRU:         %[[PR:.*]] = tinyml.matmul %[[X]]
// GRU-NEXT:    %[[R:.*]] = tinyml.reshape %[[PR]]
// GRU:         %[[PN:.*]] = tinyml.matmul %[[X]]
// GRU-NEXT:    %[[N:.*]] = tinyml.reshape %[[PN]]
// GRU:         %[[H0:.*]] = arith.constant dense<0.000000e+00> : tensor<1x16xf32>
// GRU:         %[[HN:.*]] = scf.for %[[T:.*]] = %c0 to %c16 step %c1 iter_args(%[[H:.*]] = %[[H0]]) -> (tensor<1x16xf32>) {
// GRU-NEXT:      %[[XZ:.*]] = tensor.extract_slice %[[Z]][%[[T]], 0, 0] [1, 1, 16] [1, 1, 1] : tensor<16x1x16xf32> to tensor<1x16xf32>
// GRU-NEXT:      %[[XR:.*]] = tensor.extract_slice %[[R]][%[[T]], 0, 0]
// GRU-NEXT:      %[[XN:.*]] = tensor.extract_slice %[[N]][%[[T]], 0, 0]
// z = sigmoid(x_z + h R_z + Rb_z), r likewise
// GRU:           %[[MZ:.*]] = tinyml.matmul %[[H]], %{{.*}}, %{{.*}} : (tensor<1x16xf32>, tensor<16x16xf32>, tensor<16xf32>) -> tensor<1x16xf32>
// GRU-NEXT:      %[[AZ:.*]] = tinyml.add %[[MZ]], %[[XZ]]
// GRU-NEXT:      %[[GZ:.*]] = tinyml.sigmoid %[[AZ]]
// GRU:           %[[MR:.*]] = tinyml.matmul %[[H]]
// GRU-NEXT:      %[[AR:.*]] = tinyml.add %[[MR]], %[[XR]]
// GRU-NEXT:      %[[GR:.*]] = tinyml.sigmoid %[[AR]]
// n = tanh(x_n + r (h R_n + Rb_n))
// GRU:           %[[MN:.*]] = tinyml.matmul %[[H]]
// GRU-NEXT:      %[[RN:.*]] = tinyml.mul %[[GR]], %[[MN]]
// GRU-NEXT:      %[[AN:.*]] = tinyml.add %[[RN]], %[[XN]]
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
// LSTM-NEXT:      %[[IG:.*]] = tinyml.mul
// LSTM-NEXT:      %[[CN:.*]] = tinyml.add %[[FC]], %[[IG]]
// LSTM-NEXT:      %[[TC:.*]] = tinyml.tanh %[[CN]]
// LSTM-NEXT:      %[[HN:.*]] = tinyml.mul %{{.*}}, %[[TC]]
// LSTM-NEXT:      %[[WH:.*]] = bufferization.materialize_in_destination %[[HN]] in %[[H]]
// LSTM-NEXT:      %[[WC:.*]] = bufferization.materialize_in_destination %[[CN]] in %[[C]]
// LSTM-NEXT:      %[[S:.*]] = tensor.insert_slice %[[HN]] into %[[SEQ]][%[[T]], 0, 0] [1, 1, 20] [1, 1, 1] : tensor<1x20xf32> into tensor<12x1x20xf32>
// LSTM-NEXT:      scf.yield %[[WH]], %[[WC]], %[[S]]
// LSTM:         tinyml.reshape %[[L1]]#2 : (tensor<12x1x20xf32>) -> tensor<12x1x1x20xf32>
// LSTM:         scf.for
// LSTM-NOT:     scf.for
// LSTM:         return
