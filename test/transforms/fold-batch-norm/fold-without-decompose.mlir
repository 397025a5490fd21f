// RUN: tinyml-opt %s --tinyml-fold-batch-norm=decompose=false | FileCheck %s

// decompose=false only turns off the mul + add form: a batch norm after a
// foldable conv still folds.
// CHECK-LABEL: func.func @conv
// CHECK-NOT:     tinyml.batch_norm
// CHECK:         %[[Y:.*]] = tinyml.conv2d %arg0, %{{.*}}, %{{.*}} :
// CHECK-NEXT:    return %[[Y]]
func.func @conv(%x: tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  %w = arith.constant dense<[[[[1.0, 2.0], [3.0, 4.0]]]]> : tensor<1x1x2x2xf32>
  %scale = arith.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %beta = arith.constant dense<[0.5, 1.0]> : tensor<2xf32>
  %mean = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %var = arith.constant dense<[4.0, 16.0]> : tensor<2xf32>
  %0 = tinyml.conv2d %x, %w : (tensor<1x4x4x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x4x4x2xf32>
  %1 = tinyml.batch_norm %0, %scale, %beta, %mean, %var {epsilon = 0.0 : f32} : (tensor<1x4x4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x4x4x2xf32>
  return %1 : tensor<1x4x4x2xf32>
}
