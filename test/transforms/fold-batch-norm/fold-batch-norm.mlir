// RUN: tinyml-opt %s --split-input-file --tinyml-fold-batch-norm | FileCheck %s

// With eps = 0: s = scale / sqrt(var) = [1, 0.25], t = beta - mean * s = [-0.5, 0.5].

// conv2d without bias: the HWCF filter scales along its last axis and the
// bias becomes t.
// CHECK-LABEL: func.func @conv_no_bias
// CHECK-DAG:     %[[W:.*]] = arith.constant dense<{{\[\[\[\[}}1.000000e+00, 5.000000e-01], [3.000000e+00, 1.000000e+00]]]]> : tensor<1x1x2x2xf32>
// CHECK-DAG:     %[[B:.*]] = arith.constant dense<[-5.000000e-01, 5.000000e-01]> : tensor<2xf32>
// CHECK:         %[[Y:.*]] = tinyml.conv2d %arg0, %[[W]], %[[B]] : (tensor<1x4x4x2xf32>, tensor<1x1x2x2xf32>, tensor<2xf32>) -> tensor<1x4x4x2xf32>
// CHECK-NEXT:    return %[[Y]]
func.func @conv_no_bias(%x: tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  %w = arith.constant dense<[[[[1.0, 2.0], [3.0, 4.0]]]]> : tensor<1x1x2x2xf32>
  %scale = arith.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %beta = arith.constant dense<[0.5, 1.0]> : tensor<2xf32>
  %mean = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %var = arith.constant dense<[4.0, 16.0]> : tensor<2xf32>
  %0 = tinyml.conv2d %x, %w : (tensor<1x4x4x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x4x4x2xf32>
  %1 = tinyml.batch_norm %0, %scale, %beta, %mean, %var {epsilon = 0.0 : f32} : (tensor<1x4x4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x4x4x2xf32>
  return %1 : tensor<1x4x4x2xf32>
}

// -----

// conv2d with bias b = [1, 2]: bias' = b * s + t = [0.5, 1].
// CHECK-LABEL: func.func @conv_bias
// CHECK-DAG:     %[[W:.*]] = arith.constant dense<{{\[\[\[\[}}1.000000e+00, 5.000000e-01], [3.000000e+00, 1.000000e+00]]]]> : tensor<1x1x2x2xf32>
// CHECK-DAG:     %[[B:.*]] = arith.constant dense<[5.000000e-01, 1.000000e+00]> : tensor<2xf32>
// CHECK:         %[[Y:.*]] = tinyml.conv2d %arg0, %[[W]], %[[B]] :
// CHECK-NEXT:    return %[[Y]]
func.func @conv_bias(%x: tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  %w = arith.constant dense<[[[[1.0, 2.0], [3.0, 4.0]]]]> : tensor<1x1x2x2xf32>
  %b = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %scale = arith.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %beta = arith.constant dense<[0.5, 1.0]> : tensor<2xf32>
  %mean = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %var = arith.constant dense<[4.0, 16.0]> : tensor<2xf32>
  %0 = tinyml.conv2d %x, %w, %b : (tensor<1x4x4x2xf32>, tensor<1x1x2x2xf32>, tensor<2xf32>) -> tensor<1x4x4x2xf32>
  %1 = tinyml.batch_norm %0, %scale, %beta, %mean, %var {epsilon = 0.0 : f32} : (tensor<1x4x4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x4x4x2xf32>
  return %1 : tensor<1x4x4x2xf32>
}

// -----

// depthwise_conv2d, C = 2, M = 2: output channel c*2 + m scales the HWCM
// filter at [c, m] by s[c*2 + m] = [1, 2, 3, 4]; the strides stay.
// CHECK-LABEL: func.func @depthwise
// CHECK-DAG:     %[[W:.*]] = arith.constant dense<{{\[\[\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]]]> : tensor<1x1x2x2xf32>
// CHECK-DAG:     %[[B:.*]] = arith.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK:         %[[Y:.*]] = tinyml.depthwise_conv2d %arg0, %[[W]], %[[B]] {strides = array<i64: 2, 2>} : (tensor<1x4x4x2xf32>, tensor<1x1x2x2xf32>, tensor<4xf32>) -> tensor<1x2x2x4xf32>
// CHECK-NEXT:    return %[[Y]]
func.func @depthwise(%x: tensor<1x4x4x2xf32>) -> tensor<1x2x2x4xf32> {
  %w = arith.constant dense<1.0> : tensor<1x1x2x2xf32>
  %scale = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %zero = arith.constant dense<0.0> : tensor<4xf32>
  %one = arith.constant dense<1.0> : tensor<4xf32>
  %0 = tinyml.depthwise_conv2d %x, %w {strides = array<i64: 2, 2>} : (tensor<1x4x4x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x2x2x4xf32>
  %1 = tinyml.batch_norm %0, %scale, %zero, %zero, %one {epsilon = 0.0 : f32} : (tensor<1x2x2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x2x2x4xf32>
  return %1 : tensor<1x2x2x4xf32>
}

// -----

// matmul: output column j is column j of rhs [K, N]; s = [1, 2].
// CHECK-LABEL: func.func @matmul
// CHECK-DAG:     %[[W:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, 4.000000e+00], [3.000000e+00, 8.000000e+00]]> : tensor<2x2xf32>
// CHECK-DAG:     %[[B:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK:         %[[Y:.*]] = tinyml.matmul %arg0, %[[W]], %[[B]] : (tensor<3x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
// CHECK-NEXT:    return %[[Y]]
func.func @matmul(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %b = arith.constant dense<[1.0, 1.0]> : tensor<2xf32>
  %scale = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %zero = arith.constant dense<0.0> : tensor<2xf32>
  %one = arith.constant dense<1.0> : tensor<2xf32>
  %0 = tinyml.matmul %x, %w, %b : (tensor<3x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %1 = tinyml.batch_norm %0, %scale, %zero, %zero, %one {epsilon = 0.0 : f32} : (tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}

// -----

// matmul with transpose_rhs: rhs is [N, K], output column j is its row j.
// CHECK-LABEL: func.func @matmul_transpose_rhs
// CHECK-DAG:     %[[W:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [6.000000e+00, 8.000000e+00]]> : tensor<2x2xf32>
// CHECK:         %[[Y:.*]] = tinyml.matmul %arg0, %[[W]], %{{.*}} {transpose_rhs} :
// CHECK-NEXT:    return %[[Y]]
func.func @matmul_transpose_rhs(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %scale = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %zero = arith.constant dense<0.0> : tensor<2xf32>
  %one = arith.constant dense<1.0> : tensor<2xf32>
  %0 = tinyml.matmul %x, %w {transpose_rhs} : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  %1 = tinyml.batch_norm %0, %scale, %zero, %zero, %one {epsilon = 0.0 : f32} : (tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}

// -----

// The default epsilon (1e-5) counts: var = 1 - 1e-5 gives s = scale.
// CHECK-LABEL: func.func @default_epsilon
// CHECK-DAG:     %[[W:.*]] = arith.constant dense<{{\[\[}}2.000000e+00, 3.000000e+00]]> : tensor<1x2xf32>
// CHECK:         tinyml.matmul %arg0, %[[W]]
func.func @default_epsilon(%x: tensor<1x1xf32>) -> tensor<1x2xf32> {
  %w = arith.constant dense<[[1.0, 1.0]]> : tensor<1x2xf32>
  %scale = arith.constant dense<[2.0, 3.0]> : tensor<2xf32>
  %zero = arith.constant dense<0.0> : tensor<2xf32>
  %var = arith.constant dense<0.99999> : tensor<2xf32>
  %0 = tinyml.matmul %x, %w : (tensor<1x1xf32>, tensor<1x2xf32>) -> tensor<1x2xf32>
  %1 = tinyml.batch_norm %0, %scale, %zero, %zero, %var : (tensor<1x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2xf32>
  return %1 : tensor<1x2xf32>
}

// -----

// Two batch norms in a row: the first folds into the matmul, then the
// second into the result. s = [1, 0.25], t = [-0.5, 0.5] twice:
// w * s * s, (t * s) + t = [-1, 0.625].
// CHECK-LABEL: func.func @two_in_a_row
// CHECK-DAG:     %[[W:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, 1.250000e-01], [3.000000e+00, 2.500000e-01]]> : tensor<2x2xf32>
// CHECK-DAG:     %[[B:.*]] = arith.constant dense<[-1.000000e+00, 6.250000e-01]> : tensor<2xf32>
// CHECK:         %[[Y:.*]] = tinyml.matmul %arg0, %[[W]], %[[B]] :
// CHECK-NEXT:    return %[[Y]]
func.func @two_in_a_row(%x: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %w = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %scale = arith.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %beta = arith.constant dense<[0.5, 1.0]> : tensor<2xf32>
  %mean = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %var = arith.constant dense<[4.0, 16.0]> : tensor<2xf32>
  %0 = tinyml.matmul %x, %w : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  %1 = tinyml.batch_norm %0, %scale, %beta, %mean, %var {epsilon = 0.0 : f32} : (tensor<1x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2xf32>
  %2 = tinyml.batch_norm %1, %scale, %beta, %mean, %var {epsilon = 0.0 : f32} : (tensor<1x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2xf32>
  return %2 : tensor<1x2xf32>
}
