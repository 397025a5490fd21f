// RUN: tinyml-opt %s --split-input-file --tinyml-fold-batch-norm | FileCheck %s
// RUN: tinyml-opt %s --split-input-file --tinyml-fold-batch-norm=decompose=false | FileCheck %s --check-prefix=KEEP

// Where the batch norm cannot fold into a contraction. With constant
// parameters it becomes y * s + t (s = [1, 0.25], t = [-0.5, 0.5] here);
// with decompose=false it stays.

// The input is a function argument.
// CHECK-LABEL: func.func @argument_input
// CHECK-DAG:     %[[S:.*]] = arith.constant dense<[1.000000e+00, 2.500000e-01]> : tensor<2xf32>
// CHECK-DAG:     %[[T:.*]] = arith.constant dense<[-5.000000e-01, 5.000000e-01]> : tensor<2xf32>
// CHECK:         %[[M:.*]] = tinyml.mul %arg0, %[[S]] : (tensor<1x4x4x2xf32>, tensor<2xf32>) -> tensor<1x4x4x2xf32>
// CHECK-NEXT:    %[[A:.*]] = tinyml.add %[[M]], %[[T]] : (tensor<1x4x4x2xf32>, tensor<2xf32>) -> tensor<1x4x4x2xf32>
// CHECK-NEXT:    return %[[A]]
// KEEP-LABEL: func.func @argument_input
// KEEP:         %[[B:.*]] = tinyml.batch_norm %arg0
// KEEP-NEXT:    return %[[B]]
func.func @argument_input(%x: tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  %scale = arith.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %beta = arith.constant dense<[0.5, 1.0]> : tensor<2xf32>
  %mean = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %var = arith.constant dense<[4.0, 16.0]> : tensor<2xf32>
  %0 = tinyml.batch_norm %x, %scale, %beta, %mean, %var {epsilon = 0.0 : f32} : (tensor<1x4x4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x4x4x2xf32>
  return %0 : tensor<1x4x4x2xf32>
}

// -----

// The conv has another user: folding would compute it twice.
// CHECK-LABEL: func.func @shared_conv
// CHECK:         %[[Y:.*]] = tinyml.conv2d %arg0, %{{.*}} : (tensor<1x4x4x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x4x4x2xf32>
// CHECK-NEXT:    %[[M:.*]] = tinyml.mul %[[Y]], %{{.*}}
// CHECK-NEXT:    %[[A:.*]] = tinyml.add %[[M]], %{{.*}}
// CHECK-NEXT:    return %[[Y]], %[[A]]
// KEEP-LABEL: func.func @shared_conv
// KEEP:         %[[Y:.*]] = tinyml.conv2d
// KEEP-NEXT:    %[[B:.*]] = tinyml.batch_norm %[[Y]]
// KEEP-NEXT:    return %[[Y]], %[[B]]
func.func @shared_conv(%x: tensor<1x4x4x2xf32>) -> (tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>) {
  %w = arith.constant dense<[[[[1.0, 2.0], [3.0, 4.0]]]]> : tensor<1x1x2x2xf32>
  %scale = arith.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %beta = arith.constant dense<[0.5, 1.0]> : tensor<2xf32>
  %mean = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %var = arith.constant dense<[4.0, 16.0]> : tensor<2xf32>
  %0 = tinyml.conv2d %x, %w : (tensor<1x4x4x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x4x4x2xf32>
  %1 = tinyml.batch_norm %0, %scale, %beta, %mean, %var {epsilon = 0.0 : f32} : (tensor<1x4x4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x4x4x2xf32>
  return %0, %1 : tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>
}

// -----

// The conv filter is not a constant.
// CHECK-LABEL: func.func @computed_filter
// CHECK:         %[[Y:.*]] = tinyml.conv2d %arg0, %arg1
// CHECK-NEXT:    %[[M:.*]] = tinyml.mul %[[Y]], %{{.*}}
// CHECK-NEXT:    %[[A:.*]] = tinyml.add %[[M]], %{{.*}}
// CHECK-NEXT:    return %[[A]]
// KEEP-LABEL: func.func @computed_filter
// KEEP:         %[[Y:.*]] = tinyml.conv2d %arg0, %arg1
// KEEP-NEXT:    %[[B:.*]] = tinyml.batch_norm %[[Y]]
// KEEP-NEXT:    return %[[B]]
func.func @computed_filter(%x: tensor<1x4x4x2xf32>, %w: tensor<1x1x2x2xf32>) -> tensor<1x4x4x2xf32> {
  %scale = arith.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %beta = arith.constant dense<[0.5, 1.0]> : tensor<2xf32>
  %mean = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %var = arith.constant dense<[4.0, 16.0]> : tensor<2xf32>
  %0 = tinyml.conv2d %x, %w : (tensor<1x4x4x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x4x4x2xf32>
  %1 = tinyml.batch_norm %0, %scale, %beta, %mean, %var {epsilon = 0.0 : f32} : (tensor<1x4x4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x4x4x2xf32>
  return %1 : tensor<1x4x4x2xf32>
}

// -----

// The matmul bias is not a constant.
// CHECK-LABEL: func.func @computed_bias
// CHECK:         %[[Y:.*]] = tinyml.matmul %arg0, %{{.*}}, %arg1
// CHECK-NEXT:    %[[M:.*]] = tinyml.mul %[[Y]], %{{.*}}
// CHECK-NEXT:    %[[A:.*]] = tinyml.add %[[M]], %{{.*}}
// CHECK-NEXT:    return %[[A]]
// KEEP-LABEL: func.func @computed_bias
// KEEP:         tinyml.batch_norm
func.func @computed_bias(%x: tensor<1x2xf32>, %b: tensor<2xf32>) -> tensor<1x2xf32> {
  %w = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %scale = arith.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %beta = arith.constant dense<[0.5, 1.0]> : tensor<2xf32>
  %mean = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %var = arith.constant dense<[4.0, 16.0]> : tensor<2xf32>
  %0 = tinyml.matmul %x, %w, %b : (tensor<1x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<1x2xf32>
  %1 = tinyml.batch_norm %0, %scale, %beta, %mean, %var {epsilon = 0.0 : f32} : (tensor<1x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2xf32>
  return %1 : tensor<1x2xf32>
}

// -----

// The input comes from an op that is not a contraction (a relu).
// CHECK-LABEL: func.func @after_relu
// CHECK:         %[[R:.*]] = tinyml.relu %arg0
// CHECK-NEXT:    %[[M:.*]] = tinyml.mul %[[R]], %{{.*}}
// CHECK-NEXT:    %[[A:.*]] = tinyml.add %[[M]], %{{.*}}
// CHECK-NEXT:    return %[[A]]
// KEEP-LABEL: func.func @after_relu
// KEEP:         tinyml.batch_norm
func.func @after_relu(%x: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %scale = arith.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %beta = arith.constant dense<[0.5, 1.0]> : tensor<2xf32>
  %mean = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %var = arith.constant dense<[4.0, 16.0]> : tensor<2xf32>
  %0 = tinyml.relu %x : tensor<1x2xf32>
  %1 = tinyml.batch_norm %0, %scale, %beta, %mean, %var {epsilon = 0.0 : f32} : (tensor<1x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2xf32>
  return %1 : tensor<1x2xf32>
}

// -----

// Parameters that are not constants: nothing to precompute, in either mode.
// CHECK-LABEL: func.func @computed_parameters
// CHECK:         %[[Y:.*]] = tinyml.conv2d
// CHECK-NEXT:    %[[B:.*]] = tinyml.batch_norm %[[Y]], %arg1, %arg2, %arg3, %arg4
// CHECK-NEXT:    return %[[B]]
// KEEP-LABEL: func.func @computed_parameters
// KEEP:         tinyml.batch_norm
func.func @computed_parameters(%x: tensor<1x4x4x2xf32>, %scale: tensor<2xf32>, %beta: tensor<2xf32>, %mean: tensor<2xf32>, %var: tensor<2xf32>) -> tensor<1x4x4x2xf32> {
  %w = arith.constant dense<[[[[1.0, 2.0], [3.0, 4.0]]]]> : tensor<1x1x2x2xf32>
  %0 = tinyml.conv2d %x, %w : (tensor<1x4x4x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x4x4x2xf32>
  %1 = tinyml.batch_norm %0, %scale, %beta, %mean, %var : (tensor<1x4x4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x4x4x2xf32>
  return %1 : tensor<1x4x4x2xf32>
}
