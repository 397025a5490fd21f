// Bad models: one line naming the file, the node or input, and the problem.

// RUN: %build_zoo %t bad_unsupported_op bad_dynamic_dim bad_int_input bad_no_outputs conv_grouped bad_int8_add
// RUN: not tinyml-opt %t/bad_unsupported_op.onnx 2>&1 | FileCheck %s --check-prefix=UNKNOWN-OP
// UNKNOWN-OP: tinyml-opt: error: {{.*}}/bad_unsupported_op.onnx: node 'my_erf' (Erf): unsupported op; supported ops: Add, AveragePool, BatchNormalization, Cast, Clip, Concat, Constant, {{.*}}, Unsqueeze
// UNKNOWN-OP-NOT: Traceback

// RUN: not tinyml-opt %t/bad_dynamic_dim.onnx 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// DYNAMIC: tinyml-opt: error: {{.*}}/bad_dynamic_dim.onnx: input 'x' has a dynamic dimension 2 ('height'); only the batch dimension (0) may be dynamic

// RUN: not tinyml-opt %t/bad_int_input.onnx 2>&1 | FileCheck %s --check-prefix=INT32
// INT32: tinyml-opt: error: {{.*}}/bad_int_input.onnx: input 'x' has element type INT32; only float32 and int8 are supported

// RUN: not tinyml-opt %t/bad_no_outputs.onnx 2>&1 | FileCheck %s --check-prefix=NO-OUTPUTS
// NO-OUTPUTS: tinyml-opt: error: {{.*}}/bad_no_outputs.onnx: the graph has no outputs

// RUN: not tinyml-opt %t/conv_grouped.onnx 2>&1 | FileCheck %s --check-prefix=GROUPED
// GROUPED: tinyml-opt: error: {{.*}}/conv_grouped.onnx: node 'grouped' (Conv): grouped convolution (group=2, 4 channels) is not supported; only group=1 and depthwise (group=channels)

// int8 arithmetic with no DequantizeLinear (not a QDQ model): the frontend
// says so, not the verifier of tinyml.add.
// RUN: not tinyml-opt %t/bad_int8_add.onnx 2>&1 | FileCheck %s --check-prefix=INT8-ADD
// INT8-ADD: tinyml-opt: error: {{.*}}/bad_int8_add.onnx: node 'add_i8' (Add): input 'a' is an integer (i8) tensor; Add computes on float32 only (a quantized model's DequantizeLinear makes int8 data float first)
// INT8-ADD-NOT: operand #0 must be

// A text file is not an ONNX model, with or without the .onnx suffix.
// RUN: not tinyml-opt --import-onnx %s 2>&1 | FileCheck %s --check-prefix=NOT-ONNX
// NOT-ONNX: tinyml-opt: error: {{.*}}errors.mlir: is not an ONNX model
