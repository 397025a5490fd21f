// RUN: tinyml-opt %s --split-input-file --tinyml-cancel-transposes | FileCheck %s

// An NHWC->NCHW->NHWC round trip folds away.
// CHECK-LABEL: func.func @inverse_pair
// CHECK-NEXT:    return %arg0
func.func @inverse_pair(%x: tensor<1x4x5x8xf32>) -> tensor<1x4x5x8xf32> {
  %0 = tinyml.transpose %x {permutation = array<i64: 0, 3, 1, 2>} : (tensor<1x4x5x8xf32>) -> tensor<1x8x4x5xf32>
  %1 = tinyml.transpose %0 {permutation = array<i64: 0, 2, 3, 1>} : (tensor<1x8x4x5xf32>) -> tensor<1x4x5x8xf32>
  return %1 : tensor<1x4x5x8xf32>
}

// -----

// The frontend's conv -> T -> relu -> clamp -> T^-1 -> conv: the unary ops
// now run on NHWC and the pair cancels. Attributes stay on the moved op.
// CHECK-LABEL: func.func @through_unary
// CHECK-NOT:     tinyml.transpose
// CHECK:         %[[R:.*]] = tinyml.relu %arg0 : tensor<1x4x5x8xf32>
// CHECK-NEXT:    %[[C:.*]] = tinyml.clamp %[[R]] {max = 6.000000e+00 : f32, min = 0.000000e+00 : f32} : tensor<1x4x5x8xf32>
// CHECK-NEXT:    %[[Y:.*]] = tinyml.conv2d %[[C]], %arg1
// CHECK-NEXT:    return %[[Y]]
func.func @through_unary(%x: tensor<1x4x5x8xf32>, %w: tensor<1x1x8x2xf32>) -> tensor<1x4x5x2xf32> {
  %0 = tinyml.transpose %x {permutation = array<i64: 0, 3, 1, 2>} : (tensor<1x4x5x8xf32>) -> tensor<1x8x4x5xf32>
  %1 = tinyml.relu %0 : tensor<1x8x4x5xf32>
  %2 = tinyml.clamp %1 {min = 0.0 : f32, max = 6.0 : f32} : tensor<1x8x4x5xf32>
  %3 = tinyml.transpose %2 {permutation = array<i64: 0, 2, 3, 1>} : (tensor<1x8x4x5xf32>) -> tensor<1x4x5x8xf32>
  %4 = tinyml.conv2d %3, %w : (tensor<1x4x5x8xf32>, tensor<1x1x8x2xf32>) -> tensor<1x4x5x2xf32>
  return %4 : tensor<1x4x5x2xf32>
}

// -----

// A residual add of two NCHW views of NHWC values runs on NHWC.
// CHECK-LABEL: func.func @binary_two_transposes
// CHECK-NEXT:    %[[S:.*]] = tinyml.add %arg0, %arg1 : (tensor<1x4x5x8xf32>, tensor<1x4x5x8xf32>) -> tensor<1x4x5x8xf32>
// CHECK-NEXT:    return %[[S]]
func.func @binary_two_transposes(%a: tensor<1x4x5x8xf32>, %b: tensor<1x4x5x8xf32>) -> tensor<1x4x5x8xf32> {
  %0 = tinyml.transpose %a {permutation = array<i64: 0, 3, 1, 2>} : (tensor<1x4x5x8xf32>) -> tensor<1x8x4x5xf32>
  %1 = tinyml.transpose %b {permutation = array<i64: 0, 3, 1, 2>} : (tensor<1x4x5x8xf32>) -> tensor<1x8x4x5xf32>
  %2 = tinyml.add %0, %1 : (tensor<1x8x4x5xf32>, tensor<1x8x4x5xf32>) -> tensor<1x8x4x5xf32>
  %3 = tinyml.transpose %2 {permutation = array<i64: 0, 2, 3, 1>} : (tensor<1x8x4x5xf32>) -> tensor<1x4x5x8xf32>
  return %3 : tensor<1x4x5x8xf32>
}

// -----

// A per-channel NCHW constant [C, 1, 1] becomes the NHWC [1, 1, 1, C]; a
// scalar constant is kept as it is.
// CHECK-LABEL: func.func @binary_constants
// CHECK-DAG:     %[[S:.*]] = arith.constant dense<2.000000e+00> : tensor<1xf32>
// CHECK-DAG:     %[[C:.*]] = arith.constant dense<{{\[\[\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00]]]]> : tensor<1x1x1x3xf32>
// CHECK:         %[[A:.*]] = tinyml.add %arg0, %[[C]] : (tensor<1x4x4x3xf32>, tensor<1x1x1x3xf32>) -> tensor<1x4x4x3xf32>
// CHECK-NEXT:    %[[M:.*]] = tinyml.mul %[[S]], %[[A]] : (tensor<1xf32>, tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
// CHECK-NEXT:    return %[[M]]
func.func @binary_constants(%x: tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32> {
  %c = arith.constant dense<[[[1.0]], [[2.0]], [[3.0]]]> : tensor<3x1x1xf32>
  %s = arith.constant dense<2.0> : tensor<1xf32>
  %0 = tinyml.transpose %x {permutation = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x3xf32>) -> tensor<1x3x4x4xf32>
  %1 = tinyml.add %0, %c : (tensor<1x3x4x4xf32>, tensor<3x1x1xf32>) -> tensor<1x3x4x4xf32>
  %2 = tinyml.mul %s, %1 : (tensor<1xf32>, tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  %3 = tinyml.transpose %2 {permutation = array<i64: 0, 2, 3, 1>} : (tensor<1x3x4x4xf32>) -> tensor<1x4x4x3xf32>
  return %3 : tensor<1x4x4x3xf32>
}

// -----

// Concat on the NCHW channel axis (1) is concat on the NHWC axis 3.
// CHECK-LABEL: func.func @concat_axis
// CHECK-NEXT:    %[[C:.*]] = tinyml.concat %arg0, %arg1 {axis = 3 : i64} : (tensor<1x4x4x2xf32>, tensor<1x4x4x3xf32>) -> tensor<1x4x4x5xf32>
// CHECK-NEXT:    return %[[C]]
func.func @concat_axis(%a: tensor<1x4x4x2xf32>, %b: tensor<1x4x4x3xf32>) -> tensor<1x4x4x5xf32> {
  %0 = tinyml.transpose %a {permutation = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x2xf32>) -> tensor<1x2x4x4xf32>
  %1 = tinyml.transpose %b {permutation = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x3xf32>) -> tensor<1x3x4x4xf32>
  %2 = tinyml.concat %0, %1 {axis = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<1x3x4x4xf32>) -> tensor<1x5x4x4xf32>
  %3 = tinyml.transpose %2 {permutation = array<i64: 0, 2, 3, 1>} : (tensor<1x5x4x4xf32>) -> tensor<1x4x4x5xf32>
  return %3 : tensor<1x4x4x5xf32>
}

// -----

// An NCHW pad of H by (1, 2) and W by (0, 3) is the same pad of NHWC dims 1, 2.
// CHECK-LABEL: func.func @pad_amounts
// CHECK-NEXT:    %[[P:.*]] = tinyml.pad %arg0 {padding = array<i64: 0, 1, 0, 0, 0, 2, 3, 0>, value = 5.000000e-01 : f32} : (tensor<1x4x4x2xf32>) -> tensor<1x7x7x2xf32>
// CHECK-NEXT:    return %[[P]]
func.func @pad_amounts(%a: tensor<1x4x4x2xf32>) -> tensor<1x7x7x2xf32> {
  %0 = tinyml.transpose %a {permutation = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x2xf32>) -> tensor<1x2x4x4xf32>
  %1 = tinyml.pad %0 {padding = array<i64: 0, 0, 1, 0, 0, 0, 2, 3>, value = 0.5 : f32} : (tensor<1x2x4x4xf32>) -> tensor<1x2x7x7xf32>
  %2 = tinyml.transpose %1 {permutation = array<i64: 0, 2, 3, 1>} : (tensor<1x2x7x7xf32>) -> tensor<1x7x7x2xf32>
  return %2 : tensor<1x7x7x2xf32>
}

// -----

// ReduceMean over the NCHW spatial axes [2, 3] without keepdims: the NHWC
// reduction over [1, 2] leaves [N, C] in order, so no transpose remains.
// CHECK-LABEL: func.func @reduce_drops_the_transpose
// CHECK-NEXT:    %[[R:.*]] = tinyml.reduce_mean %arg0 {axes = array<i64: 1, 2>} : (tensor<2x4x4x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    return %[[R]]
func.func @reduce_drops_the_transpose(%a: tensor<2x4x4x3xf32>) -> tensor<2x3xf32> {
  %0 = tinyml.transpose %a {permutation = array<i64: 0, 3, 1, 2>} : (tensor<2x4x4x3xf32>) -> tensor<2x3x4x4xf32>
  %1 = tinyml.reduce_mean %0 {axes = array<i64: 2, 3>} : (tensor<2x3x4x4xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// With keep_dims the reduction moves above the transpose, which is then
// only moving size-1 dimensions: a reshape.
// CHECK-LABEL: func.func @reduce_keep_dims
// CHECK-NEXT:    %[[R:.*]] = tinyml.reduce_max %arg0 {axes = array<i64: 1, 2>, keep_dims} : (tensor<2x4x4x3xf32>) -> tensor<2x1x1x3xf32>
// CHECK-NEXT:    %[[S:.*]] = tinyml.reshape %[[R]] : (tensor<2x1x1x3xf32>) -> tensor<2x3x1x1xf32>
// CHECK-NEXT:    return %[[S]]
func.func @reduce_keep_dims(%a: tensor<2x4x4x3xf32>) -> tensor<2x3x1x1xf32> {
  %0 = tinyml.transpose %a {permutation = array<i64: 0, 3, 1, 2>} : (tensor<2x4x4x3xf32>) -> tensor<2x3x4x4xf32>
  %1 = tinyml.reduce_max %0 {axes = array<i64: 2, 3>, keep_dims} : (tensor<2x3x4x4xf32>) -> tensor<2x3x1x1xf32>
  return %1 : tensor<2x3x1x1xf32>
}

// -----

// Softmax over the NCHW channels is softmax over NHWC axis 3.
// CHECK-LABEL: func.func @softmax_axis
// CHECK-NEXT:    %[[S:.*]] = tinyml.softmax %arg0 {axis = 3 : i64} : tensor<1x2x2x5xf32>
// CHECK-NEXT:    return %[[S]]
func.func @softmax_axis(%a: tensor<1x2x2x5xf32>) -> tensor<1x2x2x5xf32> {
  %0 = tinyml.transpose %a {permutation = array<i64: 0, 3, 1, 2>} : (tensor<1x2x2x5xf32>) -> tensor<1x5x2x2xf32>
  %1 = tinyml.softmax %0 {axis = 1 : i64} : tensor<1x5x2x2xf32>
  %2 = tinyml.transpose %1 {permutation = array<i64: 0, 2, 3, 1>} : (tensor<1x5x2x2xf32>) -> tensor<1x2x2x5xf32>
  return %2 : tensor<1x2x2x5xf32>
}

// -----

// Global pooling then Flatten in an NCHW model: the transpose of
// [N, 1, 1, C] moves only size-1 dimensions, becomes a reshape and folds
// into the Flatten's reshape.
// CHECK-LABEL: func.func @unit_dims_become_reshape
// CHECK-NEXT:    %[[G:.*]] = tinyml.global_avg_pool %arg0
// CHECK-NEXT:    %[[R:.*]] = tinyml.reshape %[[G]] : (tensor<1x1x1x8xf32>) -> tensor<1x8xf32>
// CHECK-NEXT:    return %[[R]]
func.func @unit_dims_become_reshape(%a: tensor<1x4x4x8xf32>) -> tensor<1x8xf32> {
  %0 = tinyml.global_avg_pool %a : (tensor<1x4x4x8xf32>) -> tensor<1x1x1x8xf32>
  %1 = tinyml.transpose %0 {permutation = array<i64: 0, 3, 1, 2>} : (tensor<1x1x1x8xf32>) -> tensor<1x8x1x1xf32>
  %2 = tinyml.reshape %1 : (tensor<1x8x1x1xf32>) -> tensor<1x8xf32>
  return %2 : tensor<1x8xf32>
}

// -----

// When the kept dimensions end up out of order, a smaller transpose of the
// reduced tensor stays: [2,3,4,5] -T-> [2,4,5,3], reduce axis 1 -> [2,5,3].
// CHECK-LABEL: func.func @reduce_reorders_the_rest
// CHECK-NEXT:    %[[R:.*]] = tinyml.reduce_sum %arg0 {axes = array<i64: 2>} : (tensor<2x3x4x5xf32>) -> tensor<2x3x5xf32>
// CHECK-NEXT:    %[[T:.*]] = tinyml.transpose %[[R]] {permutation = array<i64: 0, 2, 1>} : (tensor<2x3x5xf32>) -> tensor<2x5x3xf32>
// CHECK-NEXT:    return %[[T]]
func.func @reduce_reorders_the_rest(%a: tensor<2x3x4x5xf32>) -> tensor<2x5x3xf32> {
  %0 = tinyml.transpose %a {permutation = array<i64: 0, 2, 3, 1>} : (tensor<2x3x4x5xf32>) -> tensor<2x4x5x3xf32>
  %1 = tinyml.reduce_sum %0 {axes = array<i64: 1>} : (tensor<2x4x5x3xf32>) -> tensor<2x5x3xf32>
  return %1 : tensor<2x5x3xf32>
}

// -----

// batch_norm commutes with a transpose that keeps the channel axis last.
// CHECK-LABEL: func.func @batch_norm_channel_stays
// CHECK-NEXT:    %[[B:.*]] = tinyml.batch_norm %arg0, %arg1, %arg1, %arg1, %arg1 : (tensor<2x4x3xf32>, {{.*}}) -> tensor<2x4x3xf32>
// CHECK-NEXT:    %[[T:.*]] = tinyml.transpose %[[B]] {permutation = array<i64: 1, 0, 2>}
// CHECK-NEXT:    return %[[T]]
func.func @batch_norm_channel_stays(%a: tensor<2x4x3xf32>, %p: tensor<3xf32>) -> tensor<4x2x3xf32> {
  %0 = tinyml.transpose %a {permutation = array<i64: 1, 0, 2>} : (tensor<2x4x3xf32>) -> tensor<4x2x3xf32>
  %1 = tinyml.batch_norm %0, %p, %p, %p, %p : (tensor<4x2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<4x2x3xf32>
  return %1 : tensor<4x2x3xf32>
}

// -----

// Per-tensor quant casts act element by element: the int8 input's transpose
// sinks through scast and dcast, and the output's through qcast and scast.
// CHECK-LABEL: func.func @through_quant_casts
// CHECK-NOT:     tinyml.transpose
// CHECK:         %[[Q:.*]] = quant.scast %arg0 : tensor<1x4x5x8xi8> to tensor<1x4x5x8x!quant.uniform<i8:f32, 5.000000e-01:-3>>
// CHECK-NEXT:    %[[F:.*]] = tinyml.dequantize %[[Q]] : tensor<1x4x5x8x!quant.uniform<i8:f32, 5.000000e-01:-3>> to tensor<1x4x5x8xf32>
// CHECK-NEXT:    %[[R:.*]] = tinyml.relu %[[F]] : tensor<1x4x5x8xf32>
// CHECK-NEXT:    %[[RQ:.*]] = tinyml.quantize %[[R]] : tensor<1x4x5x8xf32> to tensor<1x4x5x8x!quant.uniform<i8:f32, 2.500000e-01:-128>>
// CHECK-NEXT:    %[[Y:.*]] = quant.scast %[[RQ]] : tensor<1x4x5x8x!quant.uniform<i8:f32, 2.500000e-01:-128>> to tensor<1x4x5x8xi8>
// CHECK-NEXT:    return %[[Y]]
func.func @through_quant_casts(%x: tensor<1x4x5x8xi8>) -> tensor<1x4x5x8xi8> {
  %0 = tinyml.transpose %x {permutation = array<i64: 0, 3, 1, 2>} : (tensor<1x4x5x8xi8>) -> tensor<1x8x4x5xi8>
  %1 = quant.scast %0 : tensor<1x8x4x5xi8> to tensor<1x8x4x5x!quant.uniform<i8:f32, 0.5:-3>>
  %2 = tinyml.dequantize %1 : tensor<1x8x4x5x!quant.uniform<i8:f32, 0.5:-3>> to tensor<1x8x4x5xf32>
  %3 = tinyml.relu %2 : tensor<1x8x4x5xf32>
  %4 = tinyml.quantize %3 : tensor<1x8x4x5xf32> to tensor<1x8x4x5x!quant.uniform<i8:f32, 0.25:-128>>
  %5 = quant.scast %4 : tensor<1x8x4x5x!quant.uniform<i8:f32, 0.25:-128>> to tensor<1x8x4x5xi8>
  %6 = tinyml.transpose %5 {permutation = array<i64: 0, 2, 3, 1>} : (tensor<1x8x4x5xi8>) -> tensor<1x4x5x8xi8>
  return %6 : tensor<1x4x5x8xi8>
}
