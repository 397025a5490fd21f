// Each tinyml.fused group lowers to linalg on tensors: its root (a
// contraction or a reduction) as the op alone lowers, with any prologue
// evaluated inside the reduction, then its epilogue as one element-wise
// linalg.generic.
// RUN: tinyml-opt --split-input-file --tinyml-lower-to-linalg %s | FileCheck %s
// After bufferization, nothing is allocated between the ops of a group.
// RUN: tinyml-opt --split-input-file --tinyml-lower-to-linalg --canonicalize \
// RUN:   --one-shot-bufferize='bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map' \
// RUN:   --buffer-results-to-out-params='hoist-static-allocs modify-public-functions' --canonicalize %s \
// RUN:   | FileCheck %s --check-prefix=BUF

// An element-wise chain: the scalar formulas chained in one body; the
// broadcast bias is an input with its broadcasting map.
// CHECK-LABEL: func.func @elementwise
// CHECK:         %[[R:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : tensor<2x4xf32>, tensor<4xf32>)
// CHECK:           arith.addf
// CHECK:           arith.cmpf ugt
// CHECK:           arith.select
// CHECK:           linalg.yield
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[R]]
// BUF-LABEL: func.func @elementwise(%arg0: memref<2x4xf32>, %arg1: memref<4xf32>, %arg2: memref<2x4xf32>)
// BUF-NOT:     memref.alloc
// BUF:         linalg.generic {{.*}} outs(%arg2 : memref<2x4xf32>)
// BUF-NOT:     memref.alloc
// BUF:         return
func.func @elementwise(%a: tensor<2x4xf32>, %b: tensor<4xf32>) -> tensor<2x4xf32> {
  %y = tinyml.fused elementwise (%a, %b) : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32> {
  ^bb0(%x: tensor<2x4xf32>, %z: tensor<4xf32>):
    %s = tinyml.add %x, %z : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
    %r = tinyml.relu %s : tensor<2x4xf32>
    tinyml.yield %r : tensor<2x4xf32>
  }
  return %y : tensor<2x4xf32>
}

// -----

// A padded depthwise conv + residual add + ReLU without a tile: the conv
// on its padded input, from the bias, then the epilogue generic reading
// the conv result first (where a transform script would find it) and the
// residual (a function argument: read, never written over).
// CHECK-LABEL: func.func @conv_epilogue
// CHECK:         %[[PAD:.*]] = tensor.pad %arg0 low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK:         %[[BIAS:.*]] = linalg.broadcast ins(%arg2
// CHECK:         %[[CONV:.*]] = linalg.depthwise_conv_2d_nhwc_hwc {{.*}} ins(%[[PAD]], %{{.*}} : {{.*}}) outs(%[[BIAS]]
// CHECK:         linalg.generic {{.*}} ins(%[[CONV]], %arg3 : {{.*}}) outs(%{{.*}} : tensor<1x4x4x3xf32>)
// CHECK:           arith.addf
// CHECK:           arith.select
// CHECK:           linalg.yield
// CHECK-NOT:     linalg.
// BUF-LABEL: func.func @conv_epilogue
// BUF:         linalg.depthwise_conv_2d_nhwc_hwc
// BUF:         linalg.generic {{.*}} outs(%arg4
// BUF:         return
func.func @conv_epilogue(%x: tensor<1x4x4x3xf32>, %w: tensor<3x3x3x1xf32>, %b: tensor<3xf32>,
                         %s: tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32> {
  %y = tinyml.fused conv_epilogue (%x, %w, %b, %s)
      : (tensor<1x4x4x3xf32>, tensor<3x3x3x1xf32>, tensor<3xf32>, tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32> {
  ^bb0(%xi: tensor<1x4x4x3xf32>, %wi: tensor<3x3x3x1xf32>, %bi: tensor<3xf32>, %si: tensor<1x4x4x3xf32>):
    %c = tinyml.depthwise_conv2d %xi, %wi, %bi {padding = array<i64: 1, 1, 1, 1>}
        : (tensor<1x4x4x3xf32>, tensor<3x3x3x1xf32>, tensor<3xf32>) -> tensor<1x4x4x3xf32>
    %a = tinyml.add %c, %si : (tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
    %r = tinyml.relu %a : tensor<1x4x4x3xf32>
    tinyml.yield %r : tensor<1x4x4x3xf32>
  }
  return %y : tensor<1x4x4x3xf32>
}

// -----

// An unpadded conv group becomes linalg on tensors for its transform
// script: the conv as its named op, initialised with the bias, then the
// epilogue as one generic reading the conv result first. It carries the
// group's lowering configuration. The residual input dies here, so it is
// the generic's `outs`, read through the body's out argument: tiled, the
// generic reads and writes only its loop-carried tensor, and bufferization
// writes the result over the residual.
// CHECK-LABEL: func.func @register_blocked
// CHECK:         %[[RES:.*]] = linalg.generic {{.*}} ins(%arg3
// CHECK:         %[[BIAS:.*]] = linalg.broadcast ins(%arg2
// CHECK:         %[[CONV:.*]] = linalg.conv_2d_nhwc_hwcf {{.*}} ins(%arg0, %arg1 : {{.*}}) outs(%[[BIAS]]
// CHECK:         linalg.generic {{.*}} ins(%[[CONV]] : {{.*}}) outs(%[[RES]] : tensor<1x2x2x8xf32>)
// CHECK-SAME:      lowering = #tinyml.lowering<tile = [1, 1, 2, 4], reduction = [1, 1, 4]>
// CHECK:           ^bb0(%[[ACC:.*]]: f32, %[[OLD:.*]]: f32)
// CHECK:           arith.addf %[[ACC]], %[[OLD]]
// CHECK:           linalg.yield
// CHECK-NOT:     linalg.
// Untiled (no transform script here) the conv's accumulators are a buffer.
// BUF-LABEL: func.func @register_blocked
// BUF:         linalg.conv_2d_nhwc_hwcf
// BUF-NOT:     memref.alloc
// BUF:         linalg.generic {{.*}} outs(%arg4
// BUF:         return
func.func @register_blocked(%x: tensor<1x2x2x4xf32>, %w: tensor<1x1x4x8xf32>, %b: tensor<8xf32>,
                            %r: tensor<1x2x2x8xf32>) -> tensor<1x2x2x8xf32> {
  %s = tinyml.neg %r : tensor<1x2x2x8xf32>
  %y = tinyml.fused conv_epilogue (%x, %w, %b, %s) {lowering = #tinyml.lowering<tile = [1, 1, 2, 4], reduction = [1, 1, 4]>}
      : (tensor<1x2x2x4xf32>, tensor<1x1x4x8xf32>, tensor<8xf32>, tensor<1x2x2x8xf32>) -> tensor<1x2x2x8xf32> {
  ^bb0(%xi: tensor<1x2x2x4xf32>, %wi: tensor<1x1x4x8xf32>, %bi: tensor<8xf32>, %si: tensor<1x2x2x8xf32>):
    %c = tinyml.conv2d %xi, %wi, %bi : (tensor<1x2x2x4xf32>, tensor<1x1x4x8xf32>, tensor<8xf32>) -> tensor<1x2x2x8xf32>
    %a = tinyml.add %c, %si : (tensor<1x2x2x8xf32>, tensor<1x2x2x8xf32>) -> tensor<1x2x2x8xf32>
    tinyml.yield %a : tensor<1x2x2x8xf32>
  }
  return %y : tensor<1x2x2x8xf32>
}

// -----

// A matmul and its sigmoid epilogue: linalg.matmul from a zero fill (no
// bias), then the epilogue generic reading it.
// CHECK-LABEL: func.func @matmul_epilogue
// CHECK:         %[[ZERO:.*]] = linalg.fill
// CHECK:         %[[P:.*]] = linalg.matmul ins(%arg0, %arg1 : {{.*}}) outs(%[[ZERO]]
// CHECK:         linalg.generic {{.*}} ins(%[[P]] :
// CHECK:           math.exp
// CHECK:           arith.divf
// CHECK:           linalg.yield
// CHECK-NOT:     linalg.
func.func @matmul_epilogue(%a: tensor<1x8xf32>, %m: tensor<8x3xf32>) -> tensor<1x3xf32> {
  %y = tinyml.fused conv_epilogue (%a, %m) : (tensor<1x8xf32>, tensor<8x3xf32>) -> tensor<1x3xf32> {
  ^bb0(%ai: tensor<1x8xf32>, %mi: tensor<8x3xf32>):
    %p = tinyml.matmul %ai, %mi : (tensor<1x8xf32>, tensor<8x3xf32>) -> tensor<1x3xf32>
    %r = tinyml.sigmoid %p : tensor<1x3xf32>
    tinyml.yield %r : tensor<1x3xf32>
  }
  return %y : tensor<1x3xf32>
}

// -----

// A reduction with a prologue (x*x) and an epilogue (x 1/16): the prologue
// is evaluated in the reduction's body at each input element (no tensor of
// squares), the epilogue is a generic on the sums.
// CHECK-LABEL: func.func @sum_of_squares
// CHECK:         %[[ZERO:.*]] = linalg.fill
// CHECK:         %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<4x16xf32>) outs(%[[ZERO]] : tensor<4xf32>)
// CHECK:           ^bb0(%[[E:.*]]: f32, %[[ACC:.*]]: f32)
// CHECK:           %[[SQ:.*]] = arith.mulf %[[E]], %[[E]]
// CHECK:           arith.addf %[[ACC]], %[[SQ]]
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel"]} ins(%[[SUM]] :
// CHECK:           arith.mulf
// CHECK:           linalg.yield
// CHECK-NOT:     linalg.
func.func @sum_of_squares(%x: tensor<4x16xf32>) -> tensor<4xf32> {
  %y = tinyml.fused reduction (%x) : (tensor<4x16xf32>) -> tensor<4xf32> {
  ^bb0(%xi: tensor<4x16xf32>):
    %sq = tinyml.mul %xi, %xi : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
    %s = tinyml.reduce_sum %sq {axes = array<i64: 1>} : (tensor<4x16xf32>) -> tensor<4xf32>
    %c = arith.constant dense<0.0625> : tensor<4xf32>
    %m = tinyml.mul %s, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    tinyml.yield %m : tensor<4xf32>
  }
  return %y : tensor<4xf32>
}

// -----

// Softmax as upstream decomposes linalg.softmax: the row maximum, the sum
// of exp(x - max) (the subtraction and exponential in the sum's body), then
// exp(x - max) / sum.
// CHECK-LABEL: func.func @softmax
// CHECK:         %[[MAX:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]}
// CHECK:           arith.cmpf ugt
// CHECK:         %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%arg0, %[[MAX]] :
// CHECK:           math.exp
// CHECK:           arith.addf
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%arg0, %[[MAX]], %[[SUM]] :
// CHECK:           math.exp
// CHECK:           arith.divf
// CHECK:           linalg.yield
// CHECK-NOT:     linalg.
func.func @softmax(%x: tensor<1x10xf32>) -> tensor<1x10xf32> {
  %y = tinyml.fused reduction (%x) : (tensor<1x10xf32>) -> tensor<1x10xf32> {
  ^bb0(%xi: tensor<1x10xf32>):
    %s = tinyml.softmax %xi {axis = 1} : tensor<1x10xf32>
    tinyml.yield %s : tensor<1x10xf32>
  }
  return %y : tensor<1x10xf32>
}

// -----

// A padded depthwise conv with a configuration: its input padded by a
// `tensor.pad`, which the transform script fuses into the tiles; the
// epilogue carries the configuration.
// CHECK-LABEL: func.func @padded_depthwise
// CHECK:         %[[PAD:.*]] = tensor.pad %arg0 low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK:         %[[CONV:.*]] = linalg.depthwise_conv_2d_nhwc_hwc {{.*}} ins(%[[PAD]], %{{.*}} : tensor<1x8x8x4xf32>, tensor<3x3x4xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[CONV]], %arg2 :
// CHECK-SAME:      lowering = #tinyml.lowering<tile = [1, 1, 3, 4], reduction = [1, 0]>
// CHECK:           linalg.yield
// CHECK-NOT:     linalg.
func.func @padded_depthwise(%x: tensor<1x6x6x4xf32>, %w: tensor<3x3x4x1xf32>, %b: tensor<4xf32>) -> tensor<1x6x6x4xf32> {
  %y = tinyml.fused conv_epilogue (%x, %w, %b) {lowering = #tinyml.lowering<tile = [1, 1, 3, 4], reduction = [1, 0]>} : (tensor<1x6x6x4xf32>, tensor<3x3x4x1xf32>, tensor<4xf32>) -> tensor<1x6x6x4xf32> {
  ^bb0(%xi: tensor<1x6x6x4xf32>, %wi: tensor<3x3x4x1xf32>, %bi: tensor<4xf32>):
    %c = tinyml.depthwise_conv2d %xi, %wi, %bi {padding = array<i64: 1, 1, 1, 1>}
        : (tensor<1x6x6x4xf32>, tensor<3x3x4x1xf32>, tensor<4xf32>) -> tensor<1x6x6x4xf32>
    tinyml.yield %c : tensor<1x6x6x4xf32>
  }
  return %y : tensor<1x6x6x4xf32>
}

// -----

// A conv group that reads its NCHW input through a transpose
// (tinyml-fuse-input-transpose): the input is padded first, the padding
// permuted to NCHW (bottom and right: H and W of NCHW), then transposed to
// NHWC for the conv, so that the transform script fuses a static-sized
// window's transpose into each tile, then the pad of the NCHW window.
// CHECK-LABEL: func.func @transposed_input
// CHECK:         %[[P:.*]] = tensor.pad %arg0 low[0, 0, 0, 0] high[0, 0, 1, 1]
// CHECK:         } : tensor<1x3x8x8xf32> to tensor<1x3x9x9xf32>
// CHECK:         %[[T:.*]] = linalg.transpose ins(%[[P]] : tensor<1x3x9x9xf32>) outs(%{{.*}} : tensor<1x9x9x3xf32>) permutation = [0, 2, 3, 1]
// CHECK:         linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[T]], %{{.*}} : tensor<1x9x9x3xf32>, tensor<3x3x3x4xf32>)
func.func @transposed_input(%x: tensor<1x3x8x8xf32>, %w: tensor<3x3x3x4xf32>, %b: tensor<4xf32>) -> tensor<1x4x4x4xf32> {
  %y = tinyml.fused conv_epilogue (%x, %w, %b) : (tensor<1x3x8x8xf32>, tensor<3x3x3x4xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32> {
  ^bb0(%xi: tensor<1x3x8x8xf32>, %wi: tensor<3x3x3x4xf32>, %bi: tensor<4xf32>):
    %t = tinyml.transpose %xi {permutation = array<i64: 0, 2, 3, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x8x8x3xf32>
    %c = tinyml.conv2d %t, %wi, %bi {padding = array<i64: 0, 0, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
    %r = tinyml.relu %c : tensor<1x4x4x4xf32>
    tinyml.yield %r : tensor<1x4x4x4xf32>
  }
  return %y : tensor<1x4x4x4xf32>
}
