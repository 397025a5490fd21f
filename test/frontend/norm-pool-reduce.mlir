// BatchNormalization, pooling, reductions, softmax.

// BatchNormalization on NCHW runs channel-last between transposes; on
// [N, C] the channel is last already.
// RUN: %build_zoo %t batchnorm pools reduces reduce_opset18 softmax_opset11 softmax_opset13 pools_ceil_dilated
// RUN: tinyml-opt %t/batchnorm.onnx | FileCheck %s --check-prefix=BN
// BN-LABEL: func.func @batchnorm
// BN:         %[[X:.*]] = tinyml.transpose %arg0 {permutation = array<i64: 0, 2, 3, 1>}
// BN:         %[[Y:.*]] = tinyml.batch_norm %[[X]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {epsilon = 1.000000e-03 : f32} : (tensor<1x4x4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x4x4x3xf32>
// BN-NEXT:    %[[R:.*]] = tinyml.transpose %[[Y]] {permutation = array<i64: 0, 3, 1, 2>}
// BN-NEXT:    %[[Z:.*]] = tinyml.batch_norm %arg1, {{.*}} : (tensor<2x3xf32>, {{.*}}) -> tensor<2x3xf32>
// BN-NEXT:    return %[[R]], %[[Z]]

// AveragePool with count_include_pad, MaxPool SAME_UPPER, AveragePool
// excluding padding, GlobalAveragePool; after the clean-up only the input
// transpose is left and the final [N,1,1,C] -> [N,C,1,1] is a reshape.
// RUN: tinyml-opt %t/pools.onnx | FileCheck %s --check-prefix=POOLS
// RUN: tinyml-opt %t/pools.onnx --canonicalize --tinyml-cancel-transposes --canonicalize | FileCheck %s --check-prefix=POOLS-CLEAN
// POOLS-LABEL: func.func @pools
// POOLS:         tinyml.avg_pool2d %{{.*}} {count_include_pad, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x8x2xf32>) -> tensor<1x4x4x2xf32>
// POOLS:         tinyml.max_pool2d %{{.*}} {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0, 1, 1>} : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
// POOLS:         tinyml.avg_pool2d %{{.*}} {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0, 1, 1>} : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
// POOLS:         tinyml.global_avg_pool %{{.*}} : (tensor<1x4x4x2xf32>) -> tensor<1x1x1x2xf32>
// POOLS-CLEAN-LABEL: func.func @pools
// POOLS-CLEAN-NEXT:    %[[X:.*]] = tinyml.transpose %arg0
// POOLS-CLEAN-NEXT:    %[[A:.*]] = tinyml.avg_pool2d %[[X]]
// POOLS-CLEAN-NEXT:    %[[M:.*]] = tinyml.max_pool2d %[[A]]
// POOLS-CLEAN-NEXT:    %[[E:.*]] = tinyml.avg_pool2d %[[M]]
// POOLS-CLEAN-NEXT:    %[[G:.*]] = tinyml.global_avg_pool %[[E]]
// POOLS-CLEAN-NEXT:    %[[R:.*]] = tinyml.reshape %[[G]] : (tensor<1x1x1x2xf32>) -> tensor<1x2x1x1xf32>
// POOLS-CLEAN-NEXT:    return %[[R]]

// ReduceMean (axes attribute), ReduceSum (axes input, negative, keepdims=0),
// ReduceMax with no axes (all of them).
// RUN: tinyml-opt %t/reduces.onnx | FileCheck %s --check-prefix=REDUCE
// REDUCE-LABEL: func.func @reduces
// REDUCE-NEXT:    %[[M:.*]] = tinyml.reduce_mean %arg0 {axes = array<i64: 2, 3>, keep_dims} : (tensor<1x3x4x5xf32>) -> tensor<1x3x1x1xf32>
// REDUCE-NEXT:    %[[S:.*]] = tinyml.reduce_sum %[[M]] {axes = array<i64: 3>} : (tensor<1x3x1x1xf32>) -> tensor<1x3x1xf32>
// REDUCE-NEXT:    %[[X:.*]] = tinyml.reduce_max %[[S]] {axes = array<i64: 0, 1, 2>, keep_dims} : (tensor<1x3x1xf32>) -> tensor<1x1x1xf32>

// ReduceMax, opset 18: axes as an input.
// RUN: tinyml-opt %t/reduce_opset18.onnx | FileCheck %s --check-prefix=REDUCE18
// REDUCE18: tinyml.reduce_max %arg0 {axes = array<i64: 0, 2>} : (tensor<2x3x4xf32>) -> tensor<3xf32>

// Softmax before opset 13 coerces to 2-D at the axis; from 13 on it is the axis.
// RUN: tinyml-opt %t/softmax_opset11.onnx | FileCheck %s --check-prefix=SOFTMAX11
// SOFTMAX11-LABEL: func.func @softmax_opset11
// SOFTMAX11-NEXT:    %[[F:.*]] = tinyml.reshape %arg0 : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
// SOFTMAX11-NEXT:    %[[S:.*]] = tinyml.softmax %[[F]] {axis = 1 : i64} : tensor<2x12xf32>
// SOFTMAX11-NEXT:    %[[R:.*]] = tinyml.reshape %[[S]] : (tensor<2x12xf32>) -> tensor<2x3x4xf32>
// RUN: tinyml-opt %t/softmax_opset13.onnx | FileCheck %s --check-prefix=SOFTMAX13
// SOFTMAX13-LABEL: func.func @softmax_opset13
// SOFTMAX13-NEXT:    tinyml.softmax %arg0 {axis = 1 : i64} : tensor<2x3x4xf32>

// ceil_mode=1 (PyTorch's ceil_mode=True): the last window runs past the end,
// which is more end padding; with count_include_pad=1 the counted padding
// is a tinyml.pad first. A dilated MaxPool: one strided slice per tap,
// padded with the lowest float, and their maximum.
// RUN: tinyml-opt %t/pools_ceil_dilated.onnx | FileCheck %s --check-prefix=CEIL
// CEIL-LABEL: func.func @pools_ceil_dilated
// CEIL:         tinyml.max_pool2d %{{.*}} {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x5x5x2xf32>) -> tensor<1x3x3x2xf32>
// CEIL:         %[[P:.*]] = tinyml.pad %arg0 {padding = array<i64: 0, 0, 0, 0, 0, 0, 1, 1>} : (tensor<1x2x5x5xf32>) -> tensor<1x2x6x6xf32>
// CEIL:         tinyml.avg_pool2d %{{.*}} {kernel = array<i64: 3, 3>, padding = array<i64: 0, 0, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x6x6x2xf32>) -> tensor<1x3x3x2xf32>
// CEIL:         %[[D:.*]] = tinyml.pad %{{.*}} {padding = array<i64: 0, 1, 1, 0, 0, 0, 0, 0>, value = -3.40282347E+38 : f32} : (tensor<1x5x5x2xf32>) -> tensor<1x6x6x2xf32>
// CEIL-NEXT:    %[[T0:.*]] = tinyml.slice %[[D]] {offsets = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1, 1, 1>} : (tensor<1x6x6x2xf32>) -> tensor<1x4x4x2xf32>
// CEIL-NEXT:    %[[T1:.*]] = tinyml.slice %[[D]] {offsets = array<i64: 0, 0, 2, 0>, strides = array<i64: 1, 1, 1, 1>}
// CEIL-NEXT:    tinyml.maximum %[[T0]], %[[T1]]
// CEIL-NEXT:    tinyml.slice %[[D]] {offsets = array<i64: 0, 2, 0, 0>
// CEIL-NEXT:    tinyml.maximum
// CEIL-NEXT:    tinyml.slice %[[D]] {offsets = array<i64: 0, 2, 2, 0>
// CEIL-NEXT:    tinyml.maximum
// CEIL-NOT:     tinyml.max_pool2d
