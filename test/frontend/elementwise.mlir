// Element-wise ops: numpy broadcasting with constants as they are, and the
// activations built from tinyml ops.

// RUN: %build_zoo %t binary_broadcast activations clip_input_form clip_attr_form clip_min_above_max
// RUN: tinyml-opt %t/binary_broadcast.onnx | FileCheck %s --check-prefix=BINARY
// BINARY-LABEL: func.func @binary_broadcast(%arg0: tensor<1x3x4x4xf32> {tinyml.name = "x"}, %arg1: tensor<4xf32> {tinyml.name = "y"}) -> (tensor<1x3x4x4xf32> {tinyml.name = "out"})
// BINARY-NEXT:    %[[C:.*]] = arith.constant dense<{{.*}}> : tensor<3x1x1xf32>
// BINARY-NEXT:    %[[A:.*]] = tinyml.add %arg0, %[[C]] : (tensor<1x3x4x4xf32>, tensor<3x1x1xf32>) -> tensor<1x3x4x4xf32>
// BINARY-NEXT:    %[[S:.*]] = arith.constant dense<2.000000e+00> : tensor<1xf32>
// BINARY-NEXT:    %[[B:.*]] = tinyml.sub %[[A]], %[[S]] : (tensor<1x3x4x4xf32>, tensor<1xf32>) -> tensor<1x3x4x4xf32>
// BINARY-NEXT:    %[[M:.*]] = tinyml.mul %[[B]], %arg1 : (tensor<1x3x4x4xf32>, tensor<4xf32>) -> tensor<1x3x4x4xf32>
// BINARY-NEXT:    %[[K:.*]] = arith.constant dense<1.000000e+00> : tensor<1xf32>
// BINARY-NEXT:    %[[D:.*]] = tinyml.div %[[K]], %[[M]] : (tensor<1xf32>, tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
// BINARY-NEXT:    return %[[D]]

// Relu; LeakyRelu(0.1) = max(x, 0.1 x); Sigmoid; Tanh;
// HardSigmoid(0.25, 0.4) = clamp(0.25 x + 0.4, 0, 1); HardSwish = x * clamp(x/6 + 1/2, 0, 1).
// RUN: tinyml-opt %t/activations.onnx | FileCheck %s --check-prefix=ACT
// ACT-LABEL: func.func @activations
// ACT-NEXT:    %[[R:.*]] = tinyml.relu %arg0 : tensor<2x5xf32>
// ACT-NEXT:    %[[A:.*]] = arith.constant dense<1.000000e-01> : tensor<1xf32>
// ACT-NEXT:    %[[RA:.*]] = tinyml.mul %[[R]], %[[A]]
// ACT-NEXT:    %[[L:.*]] = tinyml.maximum %[[R]], %[[RA]]
// ACT-NEXT:    %[[S:.*]] = tinyml.sigmoid %[[L]]
// ACT-NEXT:    %[[T:.*]] = tinyml.tanh %[[S]]
// ACT-NEXT:    %[[HA:.*]] = arith.constant dense<2.500000e-01> : tensor<1xf32>
// ACT-NEXT:    %[[H1:.*]] = tinyml.mul %[[T]], %[[HA]]
// ACT-NEXT:    %[[HB:.*]] = arith.constant dense<4.000000e-01> : tensor<1xf32>
// ACT-NEXT:    %[[H2:.*]] = tinyml.add %[[H1]], %[[HB]]
// ACT-NEXT:    %[[H:.*]] = tinyml.clamp %[[H2]] {max = 1.000000e+00 : f32, min = 0.000000e+00 : f32}
// ACT-NEXT:    %[[SA:.*]] = arith.constant dense<0.166666672> : tensor<1xf32>
// ACT-NEXT:    %[[G1:.*]] = tinyml.mul %[[H]], %[[SA]]
// ACT-NEXT:    %[[SB:.*]] = arith.constant dense<5.000000e-01> : tensor<1xf32>
// ACT-NEXT:    %[[G2:.*]] = tinyml.add %[[G1]], %[[SB]]
// ACT-NEXT:    %[[G:.*]] = tinyml.clamp %[[G2]] {max = 1.000000e+00 : f32, min = 0.000000e+00 : f32}
// ACT-NEXT:    %[[Y:.*]] = tinyml.mul %[[H]], %[[G]]
// ACT-NEXT:    return %[[Y]]

// Clip, opset 13: min/max inputs (ReLU6); a missing max is the float32 max.
// RUN: tinyml-opt %t/clip_input_form.onnx | FileCheck %s --check-prefix=CLIP13
// CLIP13-LABEL: func.func @clip_input_form
// CLIP13-NEXT:    %[[A:.*]] = tinyml.clamp %arg0 {max = 6.000000e+00 : f32, min = 0.000000e+00 : f32} : tensor<1x8xf32>
// CLIP13-NEXT:    %[[B:.*]] = tinyml.clamp %[[A]] {max = 3.40282347E+38 : f32, min = 0.000000e+00 : f32} : tensor<1x8xf32>

// Clip, opset 6: min/max attributes.
// RUN: tinyml-opt %t/clip_attr_form.onnx | FileCheck %s --check-prefix=CLIP6
// CLIP6-LABEL: func.func @clip_attr_form
// CLIP6-NEXT:    tinyml.clamp %arg0 {max = 1.000000e+00 : f32, min = -1.000000e+00 : f32} : tensor<1x8xf32>

// Clip with min > max: min(max(x, 2), 1) is 1 everywhere.
// RUN: tinyml-opt %t/clip_min_above_max.onnx | FileCheck %s --check-prefix=CLIP-EMPTY
// CLIP-EMPTY-LABEL: func.func @clip_min_above_max
// CLIP-EMPTY-NEXT:    tinyml.clamp %arg0 {max = 1.000000e+00 : f32, min = 1.000000e+00 : f32} : tensor<1x8xf32>
