// Gemm and MatMul become tinyml.matmul.

// torch Linear: Gemm transB=1 with constant weights is stored as [K, N]
// (the canonical form, the same as tf2onnx's MatMul); C [N] is the bias.
// RUN: %build_zoo %t gemm_torch gemm_alpha_beta gemm_dynamic matmul_add matmul_3d matmul_batched matmul_vector
// RUN: tinyml-opt %t/gemm_torch.onnx | FileCheck %s --check-prefix=TORCH
// TORCH-LABEL: func.func @gemm_torch
// TORCH-NEXT:    %[[W:.*]] = arith.constant dense_resource<__elided__> : tensor<6x4xf32>
// TORCH-NEXT:    %[[B:.*]] = arith.constant dense<{{.*}}> : tensor<4xf32>
// TORCH-NEXT:    %[[Y:.*]] = tinyml.matmul %arg0, %[[W]], %[[B]] : (tensor<1x6xf32>, tensor<6x4xf32>, tensor<4xf32>) -> tensor<1x4xf32>
// TORCH-NEXT:    return %[[Y]]

// transA stays a flag; alpha and beta scale the constants; a [M, N] C is an add.
// RUN: tinyml-opt %t/gemm_alpha_beta.onnx | FileCheck %s --check-prefix=ALPHA-BETA
// ALPHA-BETA-LABEL: func.func @gemm_alpha_beta
// ALPHA-BETA:         %[[M:.*]] = tinyml.matmul %arg0, %{{.*}} {transpose_lhs} : (tensor<6x2xf32>, tensor<6x3xf32>) -> tensor<2x3xf32>
// ALPHA-BETA-NEXT:    %[[C:.*]] = arith.constant dense<{{.*}}> : tensor<2x3xf32>
// ALPHA-BETA-NEXT:    %[[Y:.*]] = tinyml.add %[[M]], %[[C]]
// ALPHA-BETA-NEXT:    return %[[Y]]

// alpha with no constant operand to fold it into: a mul after the matmul,
// and the bias is then added after it.
// RUN: tinyml-opt %t/gemm_dynamic.onnx | FileCheck %s --check-prefix=DYNAMIC
// DYNAMIC-LABEL: func.func @gemm_dynamic
// DYNAMIC-NEXT:    %[[M:.*]] = tinyml.matmul %arg0, %arg1 : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// DYNAMIC-NEXT:    %[[A:.*]] = arith.constant dense<3.000000e+00> : tensor<1xf32>
// DYNAMIC-NEXT:    %[[S:.*]] = tinyml.mul %[[M]], %[[A]]
// DYNAMIC-NEXT:    %[[Y:.*]] = tinyml.add %[[S]], %arg2 : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>

// tf2onnx Dense: MatMul + Add of a [N] constant is one matmul with a bias;
// the symbolic batch 'unk__0' becomes 1.
// RUN: tinyml-opt %t/matmul_add.onnx | FileCheck %s --check-prefix=DENSE
// DENSE-LABEL: func.func @matmul_add(%arg0: tensor<1x8xf32> {tinyml.name = "x"}) -> (tensor<1x3xf32> {tinyml.name = "y"})
// DENSE:         %[[Y:.*]] = tinyml.matmul %arg0, %{{.*}}, %{{.*}} : (tensor<1x8xf32>, tensor<8x3xf32>, tensor<3xf32>) -> tensor<1x3xf32>
// DENSE-NOT:     tinyml.add
// DENSE:         return %[[Y]]

// MatMul on a 3-D left operand flattens the leading dimensions.
// RUN: tinyml-opt %t/matmul_3d.onnx | FileCheck %s --check-prefix=MATMUL3D
// MATMUL3D-LABEL: func.func @matmul_3d
// MATMUL3D-NEXT:    tinyml.reshape %arg0 : (tensor<2x5x8xf32>) -> tensor<10x8xf32>
// MATMUL3D:         tinyml.matmul {{.*}} -> tensor<10x3xf32>
// MATMUL3D-NEXT:    tinyml.reshape {{.*}} : (tensor<10x3xf32>) -> tensor<2x5x3xf32>

// Batched MatMul of two activations: one matmul per batch of sliced
// matrices, joined by a concat.
// RUN: tinyml-opt %t/matmul_batched.onnx | FileCheck %s --check-prefix=BATCHED
// BATCHED-LABEL: func.func @matmul_batched
// BATCHED-NEXT:    %[[A0:.*]] = tinyml.slice %arg0 {offsets = array<i64: 0, 0, 0>, strides = array<i64: 1, 1, 1>} : (tensor<2x5x8xf32>) -> tensor<1x5x8xf32>
// BATCHED:         %[[M0:.*]] = tinyml.matmul {{.*}} : (tensor<5x8xf32>, tensor<8x3xf32>) -> tensor<5x3xf32>
// BATCHED:         tinyml.slice %arg1 {offsets = array<i64: 1, 0, 0>, strides = array<i64: 1, 1, 1>} : (tensor<2x8x3xf32>) -> tensor<1x8x3xf32>
// BATCHED:         %[[M1:.*]] = tinyml.matmul {{.*}} : (tensor<5x8xf32>, tensor<8x3xf32>) -> tensor<5x3xf32>
// BATCHED:         %[[Y:.*]] = tinyml.concat {{.*}} {axis = 0 : i64} : (tensor<1x5x3xf32>, tensor<1x5x3xf32>) -> tensor<2x5x3xf32>
// BATCHED-NEXT:    return %[[Y]]

// A 1-D right operand is a [K, 1] column, dropped from the result.
// RUN: tinyml-opt %t/matmul_vector.onnx | FileCheck %s --check-prefix=VECTOR
// VECTOR-LABEL: func.func @matmul_vector
// VECTOR:         tinyml.matmul {{.*}} : (tensor<6x4xf32>, tensor<4x1xf32>) -> tensor<6x1xf32>
// VECTOR-NEXT:    tinyml.reshape {{.*}} : (tensor<6x1xf32>) -> tensor<2x3xf32>
