// Each tinyml.fused group lowers to exactly one linalg.generic, parallel
// over the group's output, with no intermediate tensor.
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
  %y = tinyml.fused "elementwise" (%a, %b) : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32> {
  ^bb0(%x: tensor<2x4xf32>, %z: tensor<4xf32>):
    %s = tinyml.add %x, %z : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
    %r = tinyml.relu %s : tensor<2x4xf32>
    tinyml.yield %r : tensor<2x4xf32>
  }
  return %y : tensor<2x4xf32>
}

// -----

// A padded depthwise conv (the hand-built generator's) + residual add +
// ReLU without a tile: one generic; the accumulation loops over the window
// taps run inside it on a scalar accumulator that starts at the bias, with
// fused multiply-adds; padding is skipped by the loop bounds.
// CHECK-LABEL: func.func @conv_epilogue
// CHECK:         linalg.generic {{.*}} ins(%arg3 : tensor<1x4x4x3xf32>)
// CHECK:           linalg.index 1
// CHECK:           arith.maxsi
// CHECK:           arith.minsi
// CHECK:           %[[BIAS:.*]] = tensor.extract %arg2
// CHECK:           scf.for {{.*}} iter_args(%{{.*}} = %[[BIAS]])
// CHECK:             scf.for
// CHECK:               tensor.extract %arg1
// CHECK:               tensor.extract %arg0
// CHECK:               math.fma
// CHECK:           arith.addf
// CHECK:           arith.select
// CHECK:           linalg.yield
// CHECK-NOT:     linalg.
// BUF-LABEL: func.func @conv_epilogue
// BUF-NOT:     memref.alloc
// BUF:         linalg.generic
// BUF-NOT:     memref.alloc
// BUF:         return
func.func @conv_epilogue(%x: tensor<1x4x4x3xf32>, %w: tensor<3x3x3x1xf32>, %b: tensor<3xf32>,
                         %s: tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32> {
  %y = tinyml.fused "conv_epilogue" (%x, %w, %b, %s)
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
  %y = tinyml.fused "conv_epilogue" (%x, %w, %b, %s) {lowering = #tinyml.lowering<tile = [1, 1, 2, 4], reduction = [1, 1, 4]>}
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
  %y = tinyml.fused "conv_epilogue" (%a, %m) : (tensor<1x8xf32>, tensor<8x3xf32>) -> tensor<1x3xf32> {
  ^bb0(%ai: tensor<1x8xf32>, %mi: tensor<8x3xf32>):
    %p = tinyml.matmul %ai, %mi : (tensor<1x8xf32>, tensor<8x3xf32>) -> tensor<1x3xf32>
    %r = tinyml.sigmoid %p : tensor<1x3xf32>
    tinyml.yield %r : tensor<1x3xf32>
  }
  return %y : tensor<1x3xf32>
}

// -----

// A reduction with a prologue (x*x) and an epilogue (x 1/16): the prologue
// is evaluated inside the reduction loop at each input index.
// CHECK-LABEL: func.func @sum_of_squares
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel"]}
// CHECK:           scf.for
// CHECK:             %[[E:.*]] = tensor.extract %arg0
// CHECK:             %[[SQ:.*]] = arith.mulf %[[E]], %[[E]]
// CHECK:             arith.addf %{{.*}}, %[[SQ]]
// CHECK:           arith.mulf
// CHECK:           linalg.yield
// CHECK-NOT:     linalg.
func.func @sum_of_squares(%x: tensor<4x16xf32>) -> tensor<4xf32> {
  %y = tinyml.fused "reduction" (%x) : (tensor<4x16xf32>) -> tensor<4xf32> {
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

// Softmax in one pass: a running max and a rescaled running sum.
// CHECK-LABEL: func.func @softmax
// CHECK:         linalg.generic
// CHECK:           scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (f32, f32)
// CHECK:             math.exp
// CHECK:             math.exp
// CHECK:           math.exp
// CHECK:           arith.divf
// CHECK:           linalg.yield
// CHECK-NOT:     linalg.
func.func @softmax(%x: tensor<1x10xf32>) -> tensor<1x10xf32> {
  %y = tinyml.fused "reduction" (%x) : (tensor<1x10xf32>) -> tensor<1x10xf32> {
  ^bb0(%xi: tensor<1x10xf32>):
    %s = tinyml.softmax %xi {axis = 1} : tensor<1x10xf32>
    tinyml.yield %s : tensor<1x10xf32>
  }
  return %y : tensor<1x10xf32>
}

// -----

// A padded depthwise conv (the hand-built generator's): each output row runs
// the interior columns (whose windows lie inside the input) as pixel tiles
// with constant tap bounds, then the columns left over (here the two padded
// borders) one pixel at a time with bounds that skip the padding.
// CHECK-LABEL: func.func @padded_rows
// CHECK:         scf.for {{.*}} -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)
// CHECK-NEXT:      scf.for %{{.*}} = %c0{{[_0-9]*}} to %c3{{[_0-9]*}} step
// CHECK:         arith.select
// CHECK:         arith.maxsi
// CHECK:         arith.maxsi
// CHECK:         scf.for {{.*}} -> (f32, f32, f32, f32)
// CHECK-NOT:     -> (f32, f32, f32, f32, f32
func.func @padded_rows(%x: tensor<1x6x6x4xf32>, %w: tensor<3x3x4x1xf32>) -> tensor<1x6x6x4xf32> {
  %y = tinyml.fused "conv_epilogue" (%x, %w) {lowering = #tinyml.lowering<tile = [1, 1, 4, 4], reduction = [1, 1]>} : (tensor<1x6x6x4xf32>, tensor<3x3x4x1xf32>) -> tensor<1x6x6x4xf32> {
  ^bb0(%xi: tensor<1x6x6x4xf32>, %wi: tensor<3x3x4x1xf32>):
    %c = tinyml.depthwise_conv2d %xi, %wi {padding = array<i64: 1, 1, 1, 1>}
        : (tensor<1x6x6x4xf32>, tensor<3x3x4x1xf32>) -> tensor<1x6x6x4xf32>
    tinyml.yield %c : tensor<1x6x6x4xf32>
  }
  return %y : tensor<1x6x6x4xf32>
}
