// RUN: tinyml-opt %s --split-input-file --tinyml-fold-constants | FileCheck %s

// An element-wise op of two constants is one constant; operands broadcast
// as in numpy ([2, 3] + [3]).
// CHECK-LABEL: func.func @broadcast_add
// CHECK-NEXT:    %[[C:.*]] = arith.constant dense<{{\[\[}}1.100000e+01, 2.200000e+01, 3.300000e+01], [1.400000e+01, 2.500000e+01, 3.600000e+01]]> : tensor<2x3xf32>
// CHECK-NEXT:    return %[[C]]
func.func @broadcast_add() -> tensor<2x3xf32> {
  %a = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %b = arith.constant dense<[10.0, 20.0, 30.0]> : tensor<3xf32>
  %0 = tinyml.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Folding goes through a chain: transpose, neg, relu, clamp.
// CHECK-LABEL: func.func @chain
// CHECK-NEXT:    %[[C:.*]] = arith.constant dense<{{\[\[}}0.000000e+00, 5.000000e-01], [1.000000e+00, 1.000000e+00], [0.000000e+00, 1.000000e+00]]> : tensor<3x2xf32>
// CHECK-NEXT:    return %[[C]]
func.func @chain() -> tensor<3x2xf32> {
  %c = arith.constant dense<[[1.0, -2.0, 3.0], [-0.5, -1.0, -4.0]]> : tensor<2x3xf32>
  %0 = tinyml.transpose %c {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %1 = tinyml.neg %0 : tensor<3x2xf32>
  %2 = tinyml.relu %1 : tensor<3x2xf32>
  %3 = tinyml.clamp %2 {min = 0.0 : f32, max = 1.0 : f32} : tensor<3x2xf32>
  return %3 : tensor<3x2xf32>
}

// -----

// A result whose elements are all equal is a splat constant.
// CHECK-LABEL: func.func @splat_result
// CHECK-NEXT:    %[[S:.*]] = arith.constant dense<0.000000e+00> : tensor<2x2xf32>
// CHECK-NEXT:    return %[[S]]
func.func @splat_result() -> tensor<2x2xf32> {
  %z = arith.constant dense<[[1.0, -2.0], [3.0, -4.0]]> : tensor<2x2xf32>
  %n = arith.constant dense<-1.0> : tensor<2x2xf32>
  %0 = tinyml.minimum %z, %n : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %1 = tinyml.relu %0 : tensor<2x2xf32>
  return %1 : tensor<2x2xf32>
}

// -----

// A matmul with transpose_rhs and a bias: [[1, 2]] x [[1, 2], [3, 4], [5, 6]]^T + [1, 0, -1].
// CHECK-LABEL: func.func @matmul
// CHECK-NEXT:    %[[C:.*]] = arith.constant dense<{{\[\[}}6.000000e+00, 1.100000e+01, 1.600000e+01]]> : tensor<1x3xf32>
// CHECK-NEXT:    return %[[C]]
func.func @matmul() -> tensor<1x3xf32> {
  %x = arith.constant dense<[[1.0, 2.0]]> : tensor<1x2xf32>
  %w = arith.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %b = arith.constant dense<[1.0, 0.0, -1.0]> : tensor<3xf32>
  %0 = tinyml.matmul %x, %w, %b {transpose_rhs} : (tensor<1x2xf32>, tensor<3x2xf32>, tensor<3xf32>) -> tensor<1x3xf32>
  return %0 : tensor<1x3xf32>
}

// -----

// A 2x2 all-ones filter over a padded 2x2 input sums each window, + bias 10.
// CHECK-LABEL: func.func @conv2d
// CHECK-NEXT:    %[[C:.*]] = arith.constant dense<{{\[\[\[\[}}1.100000e+01], [1.300000e+01]], {{\[\[}}1.400000e+01], [2.000000e+01]]]]> : tensor<1x2x2x1xf32>
// CHECK-NEXT:    return %[[C]]
func.func @conv2d() -> tensor<1x2x2x1xf32> {
  %x = arith.constant dense<[[[[1.0], [2.0]], [[3.0], [4.0]]]]> : tensor<1x2x2x1xf32>
  %w = arith.constant dense<1.0> : tensor<2x2x1x1xf32>
  %b = arith.constant dense<10.0> : tensor<1xf32>
  %0 = tinyml.conv2d %x, %w, %b {padding = array<i64: 1, 1, 0, 0>} : (tensor<1x2x2x1xf32>, tensor<2x2x1x1xf32>, tensor<1xf32>) -> tensor<1x2x2x1xf32>
  return %0 : tensor<1x2x2x1xf32>
}

// -----

// Depthwise with channel multiplier 2: output channel c*2 + m is input
// channel c times filter[0, 0, c, m].
// CHECK-LABEL: func.func @depthwise
// CHECK-NEXT:    %[[C:.*]] = arith.constant dense<{{\[\[\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+01, 4.000000e+01]]]]> : tensor<1x1x1x4xf32>
// CHECK-NEXT:    return %[[C]]
func.func @depthwise() -> tensor<1x1x1x4xf32> {
  %x = arith.constant dense<[[[[1.0, 10.0]]]]> : tensor<1x1x1x2xf32>
  %w = arith.constant dense<[[[[1.0, 2.0], [3.0, 4.0]]]]> : tensor<1x1x2x2xf32>
  %0 = tinyml.depthwise_conv2d %x, %w : (tensor<1x1x1x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x1x4xf32>
  return %0 : tensor<1x1x1x4xf32>
}

// -----

// Reductions keep or drop the reduced axes.
// CHECK-LABEL: func.func @reductions
// CHECK-DAG:     %[[S:.*]] = arith.constant dense<{{\[\[}}6.000000e+00], [1.500000e+01]]> : tensor<2x1xf32>
// CHECK-DAG:     %[[M:.*]] = arith.constant dense<[4.000000e+00, 5.000000e+00, 6.000000e+00]> : tensor<3xf32>
// CHECK-DAG:     %[[A:.*]] = arith.constant dense<3.500000e+00> : tensor<f32>
// CHECK:         return %[[S]], %[[M]], %[[A]]
func.func @reductions() -> (tensor<2x1xf32>, tensor<3xf32>, tensor<f32>) {
  %c = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %0 = tinyml.reduce_sum %c {axes = array<i64: 1>, keep_dims} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  %1 = tinyml.reduce_max %c {axes = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<3xf32>
  %2 = tinyml.reduce_mean %c {axes = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<f32>
  return %0, %1, %2 : tensor<2x1xf32>, tensor<3xf32>, tensor<f32>
}

// -----

// softmax([0, ln 3]) = [0.25, 0.75].
// CHECK-LABEL: func.func @softmax
// CHECK-NEXT:    %[[C:.*]] = arith.constant dense<{{\[\[}}2.500000e-01, 7.500000e-01]]> : tensor<1x2xf32>
// CHECK-NEXT:    return %[[C]]
func.func @softmax() -> tensor<1x2xf32> {
  %c = arith.constant dense<[[0.0, 1.09861229]]> : tensor<1x2xf32>
  %0 = tinyml.softmax %c {axis = 1 : i64} : tensor<1x2xf32>
  return %0 : tensor<1x2xf32>
}

// -----

// pad (low 1, high 2, value 9) then concat along axis 0.
// CHECK-LABEL: func.func @pad_concat
// CHECK-NEXT:    %[[C:.*]] = arith.constant dense<[9.000000e+00, 1.000000e+00, 2.000000e+00, 9.000000e+00, 9.000000e+00, 3.000000e+00]> : tensor<6xf32>
// CHECK-NEXT:    return %[[C]]
func.func @pad_concat() -> tensor<6xf32> {
  %a = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = arith.constant dense<[3.0]> : tensor<1xf32>
  %0 = tinyml.pad %a {padding = array<i64: 1, 2>, value = 9.0 : f32} : (tensor<2xf32>) -> tensor<5xf32>
  %1 = tinyml.concat %0, %b {axis = 0 : i64} : (tensor<5xf32>, tensor<1xf32>) -> tensor<6xf32>
  return %1 : tensor<6xf32>
}

// -----

// batch_norm: (x - mean) / sqrt(var + eps) * scale + bias with eps = 0.
// CHECK-LABEL: func.func @batch_norm
// CHECK-NEXT:    %[[C:.*]] = arith.constant dense<{{\[\[}}3.000000e+00, -1.000000e+00]]> : tensor<1x2xf32>
// CHECK-NEXT:    return %[[C]]
func.func @batch_norm() -> tensor<1x2xf32> {
  %x = arith.constant dense<[[5.0, 2.0]]> : tensor<1x2xf32>
  %scale = arith.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %bias = arith.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %mean = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %var = arith.constant dense<[16.0, 4.0]> : tensor<2xf32>
  %0 = tinyml.batch_norm %x, %scale, %bias, %mean, %var {epsilon = 0.0 : f32} : (tensor<1x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2xf32>
  return %0 : tensor<1x2xf32>
}

// -----

// Pools: the max of each 2x2 window (padding never wins: every window
// holds x[0, 0] = -1, the largest) and the average over the taps inside
// the input (count_include_pad unset).
// CHECK-LABEL: func.func @pools
// CHECK-DAG:     %[[M:.*]] = arith.constant dense<-1.000000e+00> : tensor<1x2x2x1xf32>
// CHECK-DAG:     %[[A:.*]] = arith.constant dense<{{\[\[\[\[}}-1.000000e+00], [-1.500000e+00]], {{\[\[}}-2.000000e+00], [-2.500000e+00]]]]> : tensor<1x2x2x1xf32>
// CHECK:         return %[[M]], %[[A]]
func.func @pools() -> (tensor<1x2x2x1xf32>, tensor<1x2x2x1xf32>) {
  %x = arith.constant dense<[[[[-1.0], [-2.0]], [[-3.0], [-4.0]]]]> : tensor<1x2x2x1xf32>
  %0 = tinyml.max_pool2d %x {kernel = array<i64: 2, 2>, padding = array<i64: 1, 1, 0, 0>} : (tensor<1x2x2x1xf32>) -> tensor<1x2x2x1xf32>
  %1 = tinyml.avg_pool2d %x {kernel = array<i64: 2, 2>, padding = array<i64: 1, 1, 0, 0>} : (tensor<1x2x2x1xf32>) -> tensor<1x2x2x1xf32>
  return %0, %1 : tensor<1x2x2x1xf32>, tensor<1x2x2x1xf32>
}

// -----

// A reshape of a constant folds too (the dialect's folder).
// CHECK-LABEL: func.func @reshape
// CHECK-NEXT:    %[[C:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK-NEXT:    return %[[C]]
func.func @reshape() -> tensor<2x2xf32> {
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %0 = tinyml.reshape %c : (tensor<4xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
