// Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Pad, Concat, and the ops
// that fold or forward at import time.

// Reshape [0, -1, 2], Flatten(axis=2), Unsqueeze([0, -1]) as input,
// Transpose, Squeeze([1]).
// RUN: %build_zoo %t shape_ops shape_arith pad_input_form pad_attr_form concat_misc slice_gather
// RUN: tinyml-opt %t/shape_ops.onnx | FileCheck %s --check-prefix=SHAPE
// SHAPE-LABEL: func.func @shape_ops
// SHAPE-NEXT:    %[[R:.*]] = tinyml.reshape %arg0 : (tensor<2x3x4xf32>) -> tensor<2x6x2xf32>
// SHAPE-NEXT:    %[[F:.*]] = tinyml.reshape %[[R]] : (tensor<2x6x2xf32>) -> tensor<12x2xf32>
// SHAPE-NEXT:    %[[U:.*]] = tinyml.reshape %[[F]] : (tensor<12x2xf32>) -> tensor<1x12x2x1xf32>
// SHAPE-NEXT:    %[[T:.*]] = tinyml.transpose %[[U]] {permutation = array<i64: 1, 0, 2, 3>} : (tensor<1x12x2x1xf32>) -> tensor<12x1x2x1xf32>
// SHAPE-NEXT:    %[[S:.*]] = tinyml.reshape %[[T]] : (tensor<12x1x2x1xf32>) -> tensor<12x2x1xf32>
// SHAPE-NEXT:    return %[[S]]

// torch's x.view(x.size(0), -1): Shape, Constant, Gather, Unsqueeze, Concat
// fold at import time into one reshape; the symbolic batch is 1.
// RUN: tinyml-opt %t/shape_arith.onnx | FileCheck %s --check-prefix=ARITH
// ARITH-LABEL: func.func @shape_arith(%arg0: tensor<1x2x3x3xf32> {tinyml.name = "x"})
// ARITH-NEXT:    %[[R:.*]] = tinyml.reshape %arg0 : (tensor<1x2x3x3xf32>) -> tensor<1x18xf32>
// ARITH-NEXT:    return %[[R]]

// Pad, opset 11: pads and constant_value as inputs, on NCHW data as it is.
// RUN: tinyml-opt %t/pad_input_form.onnx | FileCheck %s --check-prefix=PAD11
// PAD11-LABEL: func.func @pad_input_form
// PAD11-NEXT:    tinyml.pad %arg0 {padding = array<i64: 0, 0, 1, 2, 0, 0, 0, 1>, value = 5.000000e-01 : f32} : (tensor<1x2x3x3xf32>) -> tensor<1x2x4x6xf32>

// Pad, opset 2: pads as an attribute, value 0 (the default, not printed).
// RUN: tinyml-opt %t/pad_attr_form.onnx | FileCheck %s --check-prefix=PAD2
// PAD2-LABEL: func.func @pad_attr_form
// PAD2-NEXT:    tinyml.pad %arg0 {padding = array<i64: 1, 0, 0, 2>} : (tensor<2x3xf32>) -> tensor<3x5xf32>

// Identity and Dropout forward, Cast to float of a float tensor forwards,
// Cast of a float64 Constant folds; Concat's axis -1 is 1.
// RUN: tinyml-opt %t/concat_misc.onnx | FileCheck %s --check-prefix=MISC
// MISC-LABEL: func.func @concat_misc
// MISC-NEXT:    %[[K:.*]] = arith.constant dense<1.000000e+00> : tensor<1x2xf32>
// MISC-NEXT:    %[[C:.*]] = tinyml.concat %arg0, %[[K]] {axis = 1 : i64} : (tensor<1x3xf32>, tensor<1x2xf32>) -> tensor<1x5xf32>
// MISC-NEXT:    return %[[C]]

// Slice and Gather of an activation (constant starts, ends, steps, indices):
// x[:, :, -1:0:-2] is a reversed strided tinyml.slice; Gather of [3, 2, 0]
// is the runs [3, 2] and [0], two slices and a concat.
// RUN: tinyml-opt %t/slice_gather.onnx | FileCheck %s --check-prefix=SLICE
// SLICE-LABEL: func.func @slice_gather
// SLICE-NEXT:    %[[S:.*]] = tinyml.slice %arg0 {offsets = array<i64: 0, 0, 5>, strides = array<i64: 1, 1, -2>} : (tensor<1x4x6xf32>) -> tensor<1x4x3xf32>
// SLICE-NEXT:    %[[A:.*]] = tinyml.slice %[[S]] {offsets = array<i64: 0, 3, 0>, strides = array<i64: 1, -1, 1>} : (tensor<1x4x3xf32>) -> tensor<1x2x3xf32>
// SLICE-NEXT:    %[[B:.*]] = tinyml.slice %[[S]] {offsets = array<i64: 0, 0, 0>, strides = array<i64: 1, 1, 1>} : (tensor<1x4x3xf32>) -> tensor<1x1x3xf32>
// SLICE-NEXT:    %[[C:.*]] = tinyml.concat %[[A]], %[[B]] {axis = 1 : i64} : (tensor<1x2x3xf32>, tensor<1x1x3xf32>) -> tensor<1x3x3xf32>
// SLICE-NEXT:    return %[[C]]
