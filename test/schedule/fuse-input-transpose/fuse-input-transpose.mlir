// RUN: tinyml-opt %s --split-input-file --tinyml-fuse-conv-epilogue --tinyml-choose-tiles \
// RUN:   --tinyml-fuse-input-transpose | FileCheck %s

// An NCHW input, transposed to NHWC for the first conv: the transposed
// tensor (768 B) is all that is live (a returned value costs nothing), so
// the transpose joins the conv's group, which reads the NCHW input itself
// and keeps its lowering configuration.
// CHECK-LABEL: func.func @nchw_input
// CHECK:         %[[G:.*]] = tinyml.fused conv_epilogue (%arg0) {lowering = #tinyml.lowering
// CHECK-NEXT:    ^bb0(%[[X:.*]]: tensor<1x3x8x8xf32>):
// CHECK:           %[[T:.*]] = tinyml.transpose %[[X]] {permutation = array<i64: 0, 2, 3, 1>}
// CHECK:           %[[C:.*]] = tinyml.conv2d %[[T]]
// CHECK-NEXT:      tinyml.relu %[[C]]
// CHECK:         return %[[G]]
func.func @nchw_input(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x4x4xf32> {
  %w = arith.constant dense<0.5> : tensor<3x3x3x4xf32>
  %t = tinyml.transpose %x {permutation = array<i64: 0, 2, 3, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x8x8x3xf32>
  %c = tinyml.conv2d %t, %w {padding = array<i64: 0, 0, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x4x4x4xf32>
  %r = tinyml.relu %c : tensor<1x4x4x4xf32>
  return %r : tensor<1x4x4x4xf32>
}

// -----

// A depthwise conv's group takes it in too.
// CHECK-LABEL: func.func @depthwise
// CHECK:         tinyml.fused conv_epilogue (%arg0)
// CHECK:           %[[T:.*]] = tinyml.transpose
// CHECK:           tinyml.depthwise_conv2d %[[T]]
func.func @depthwise(%x: tensor<1x3x8x8xf32>) -> tensor<1x8x8x3xf32> {
  %w = arith.constant dense<0.5> : tensor<3x3x3x1xf32>
  %t = tinyml.transpose %x {permutation = array<i64: 0, 2, 3, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x8x8x3xf32>
  %c = tinyml.depthwise_conv2d %t, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x1xf32>) -> tensor<1x8x8x3xf32>
  return %c : tensor<1x8x8x3xf32>
}

// -----

// An int8 conv reads its input through a storage cast, which
// tinyml-quantize-ops leaves below the transpose: the cast moves above it
// (onto the NCHW input), then the transpose joins the group.
// CHECK-LABEL: func.func @int8
// CHECK:         %[[Q:.*]] = quant.scast %arg0 : tensor<1x3x8x8xi8> to tensor<1x3x8x8x!quant.uniform<i8:f32, 5.000000e-01:-3>>
// CHECK:         tinyml.fused conv_epilogue (%[[Q]],
// CHECK:           %[[T:.*]] = tinyml.transpose
// CHECK-SAME:        -> tensor<1x8x8x3x!quant.uniform<i8:f32, 5.000000e-01:-3>>
// CHECK:           tinyml.conv2d %[[T]]
func.func @int8(%x: tensor<1x3x8x8xi8>) -> tensor<1x8x8x4x!quant.uniform<i8:f32, 0.25:1>> {
  %wi = arith.constant dense<3> : tensor<1x1x3x4xi8>
  %w = quant.scast %wi : tensor<1x1x3x4xi8> to tensor<1x1x3x4x!quant.uniform<i8:f32, 0.125>>
  %t = tinyml.transpose %x {permutation = array<i64: 0, 2, 3, 1>} : (tensor<1x3x8x8xi8>) -> tensor<1x8x8x3xi8>
  %q = quant.scast %t : tensor<1x8x8x3xi8> to tensor<1x8x8x3x!quant.uniform<i8:f32, 0.5:-3>>
  %c = tinyml.conv2d %q, %w : (tensor<1x8x8x3x!quant.uniform<i8:f32, 0.5:-3>>, tensor<1x1x3x4x!quant.uniform<i8:f32, 0.125>>) -> tensor<1x8x8x4x!quant.uniform<i8:f32, 0.25:1>>
  return %c : tensor<1x8x8x4x!quant.uniform<i8:f32, 0.25:1>>
}

// -----

// The transposed tensor (192 B) is not live at the peak, the widening conv
// after it (1 KiB in, 2 KiB out): fusing would cost instructions for no
// smaller arena.
// CHECK-LABEL: func.func @not_at_the_peak
// CHECK:         %[[T:.*]] = tinyml.transpose %arg0
// CHECK:         tinyml.fused conv_epilogue (%[[T]])
// CHECK-NOT:       tinyml.transpose
// CHECK:         return
func.func @not_at_the_peak(%x: tensor<1x3x4x4xf32>) -> tensor<1x4x4x8xf32> {
  %w1 = arith.constant dense<0.5> : tensor<1x1x3x16xf32>
  %w2 = arith.constant dense<0.5> : tensor<1x1x16x32xf32>
  %w3 = arith.constant dense<0.5> : tensor<1x1x32x8xf32>
  %t = tinyml.transpose %x {permutation = array<i64: 0, 2, 3, 1>} : (tensor<1x3x4x4xf32>) -> tensor<1x4x4x3xf32>
  %a = tinyml.conv2d %t, %w1 : (tensor<1x4x4x3xf32>, tensor<1x1x3x16xf32>) -> tensor<1x4x4x16xf32>
  %b = tinyml.conv2d %a, %w2 : (tensor<1x4x4x16xf32>, tensor<1x1x16x32xf32>) -> tensor<1x4x4x32xf32>
  %c = tinyml.conv2d %b, %w3 : (tensor<1x4x4x32xf32>, tensor<1x1x32x8xf32>) -> tensor<1x4x4x8xf32>
  return %c : tensor<1x4x4x8xf32>
}

// -----

// A transpose with two users stays: each would compute it again.
// CHECK-LABEL: func.func @two_users
// CHECK:         %[[T:.*]] = tinyml.transpose %arg0
// CHECK:         tinyml.fused conv_epilogue (%[[T]])
// CHECK-NOT:       tinyml.transpose
// CHECK:         tinyml.relu %[[T]]
func.func @two_users(%x: tensor<1x3x8x8xf32>) -> (tensor<1x8x8x4xf32>, tensor<1x8x8x3xf32>) {
  %w = arith.constant dense<0.5> : tensor<1x1x3x4xf32>
  %t = tinyml.transpose %x {permutation = array<i64: 0, 2, 3, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x8x8x3xf32>
  %c = tinyml.conv2d %t, %w : (tensor<1x8x8x3xf32>, tensor<1x1x3x4xf32>) -> tensor<1x8x8x4xf32>
  %r = tinyml.relu %t : tensor<1x8x8x3xf32>
  return %c, %r : tensor<1x8x8x4xf32>, tensor<1x8x8x3xf32>
}

// -----

// Not a conv's input: a max pool reads the transpose (no group), a matmul
// group does (a whole operand, no window), a conv group reads it as its
// residual (a tensor of the output's shape, not the conv's input).
// CHECK-LABEL: func.func @not_a_conv_input
// CHECK:         %[[T:.*]] = tinyml.transpose %arg0
// CHECK-NEXT:    tinyml.max_pool2d %[[T]]
// CHECK:         %[[M:.*]] = tinyml.transpose %arg1
// CHECK:         tinyml.fused conv_epilogue (%[[M]]
// CHECK:         %[[R:.*]] = tinyml.transpose %arg2
// CHECK:         tinyml.fused conv_epilogue (%arg3, %[[R]])
// CHECK-NOT:       tinyml.transpose
// CHECK:         return
func.func @not_a_conv_input(%x: tensor<1x3x8x8xf32>, %a: tensor<8x2xf32>, %s: tensor<1x4x8x8xf32>,
                            %y: tensor<1x8x8x3xf32>)
    -> (tensor<1x4x4x3xf32>, tensor<2x4xf32>, tensor<1x8x8x4xf32>) {
  %t = tinyml.transpose %x {permutation = array<i64: 0, 2, 3, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x8x8x3xf32>
  %p = tinyml.max_pool2d %t {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x8x8x3xf32>) -> tensor<1x4x4x3xf32>
  %m = tinyml.transpose %a {permutation = array<i64: 1, 0>} : (tensor<8x2xf32>) -> tensor<2x8xf32>
  %wm = arith.constant dense<0.5> : tensor<8x4xf32>
  %mm = tinyml.matmul %m, %wm : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %r = tinyml.transpose %s {permutation = array<i64: 0, 2, 3, 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x8x8x4xf32>
  %w = arith.constant dense<0.5> : tensor<1x1x3x4xf32>
  %c = tinyml.conv2d %y, %w : (tensor<1x8x8x3xf32>, tensor<1x1x3x4xf32>) -> tensor<1x8x8x4xf32>
  %sum = tinyml.add %c, %r : (tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  return %p, %mm, %sum : tensor<1x4x4x3xf32>, tensor<2x4xf32>, tensor<1x8x8x4xf32>
}
