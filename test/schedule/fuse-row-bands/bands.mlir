// RUN: tinyml-opt %s --split-input-file --tinyml-fuse-row-bands | FileCheck %s
// RUN: tinyml-opt %s --split-input-file --tinyml-fuse-row-bands="band-rows=1" \
// RUN:   | FileCheck %s --check-prefix=ONEROW
// RUN: tinyml-opt %s --split-input-file --tinyml-fuse-row-bands="max-recompute=2 band-rows=1" \
// RUN:   | FileCheck %s --check-prefix=STRIDE1

// A pointwise conv (8 -> 16 channels) read only by a 3x3 depthwise conv
// with stride 2 and TensorFlow's SAME padding (one row and column below and
// right): the depthwise step (its 8x4x16 input and 4x2x16 output, 2.5 KiB)
// is the peak. Output row r reads rows 2r..2r+2 of the pointwise conv's
// output, computed from the same rows of %x.
//
// By default a band is two output rows: rows 0-1 read rows 0..4 of the
// pointwise conv, rows 2-3 rows 4..7 and a row of padding. One body
// computes both bands: the pointwise conv always computes five rows, the
// second band's moved up to rows 3..7 (rows 3 and 4 computed twice, 2 x 4
// pixels x 16 x 8 MACs), and the depthwise conv reads its five rows from
// them with the overhang as padding below (a tensor.pad of a dynamic amount).
// CHECK-LABEL: func.func @pointwise_then_strided_depthwise
// CHECK-SAME:    tinyml.recomputed_macs = 1024 : i64
// CHECK:         %[[EMPTY:.*]] = tensor.empty() : tensor<1x4x2x16xf32>
// CHECK:         %[[OUT:.*]] = scf.for %[[R:.*]] = %c0 to %c4 step %c2 iter_args(%[[ACC:.*]] = %[[EMPTY]])
// CHECK-NOT:       arith.minsi %[[R]]
// CHECK:           %[[FIRST:.*]] = arith.maxsi
// CHECK:           %[[MOVED:.*]] = arith.minsi %[[FIRST]], %c3
// CHECK:           %[[ROWS:.*]] = tensor.extract_slice %arg0[0, %[[MOVED]], 0, 0] [1, 5, 4, 8] [1, 1, 1, 1]
// CHECK:           %[[BAND:.*]] = tinyml.fused conv_epilogue (%[[ROWS]]) {{.*}} : (tensor<1x5x4x8xf32>) -> tensor<1x5x4x16xf32>
// CHECK:           %[[READ:.*]] = tensor.extract_slice %[[BAND]][0, %{{.*}}, 0, 0] [1, %{{.*}}, 4, 16] [1, 1, 1, 1] : tensor<1x5x4x16xf32> to tensor<1x?x4x16xf32>
// CHECK:           %[[WINDOW:.*]] = tensor.pad %[[READ]] low[0, %c0{{.*}}, 0, 0] high[0, %{{.*}}, 0, 0]
// CHECK:             tensor.yield %cst : f32
// CHECK:           } : tensor<1x?x4x16xf32> to tensor<1x5x4x16xf32>
// CHECK:           %[[TWO:.*]] = tinyml.fused conv_epilogue (%[[WINDOW]]) {{.*}} : (tensor<1x5x4x16xf32>) -> tensor<1x2x2x16xf32>
// CHECK:             tinyml.depthwise_conv2d %{{.*}} {padding = array<i64: 0, 0, 0, 1>, strides = array<i64: 2, 2>}
// CHECK:           tensor.insert_slice %[[TWO]] into %[[ACC]][0, %[[R]], 0, 0] [1, 2, 2, 16] [1, 1, 1, 1]
// CHECK-NOT:     scf.for
// CHECK:         tinyml.global_avg_pool %[[OUT]]
//
// Bands of one output row: each reads three rows of the pointwise conv, the
// last (row 3) rows 6 and 7 and a row of padding, computed from rows 5..7.
// Rows 2, 4 and 5 are computed twice and row 6 three times (4 x 4 x 16 x 8).
// ONEROW-LABEL: func.func @pointwise_then_strided_depthwise
// ONEROW-SAME:    tinyml.recomputed_macs = 2048 : i64
// ONEROW:         %[[OUT:.*]] = scf.for %[[R:.*]] = %c0 to %c4 step %c1 iter_args(
// ONEROW:           tensor.extract_slice %arg0[0, %{{.*}}, 0, 0] [1, 3, 4, 8] [1, 1, 1, 1]
// ONEROW:             tinyml.conv2d %{{.*}} : (tensor<1x3x4x8xf32>, tensor<1x1x8x16xf32>) -> tensor<1x3x4x16xf32>
// ONEROW:           tensor.pad
// ONEROW:           } : tensor<1x?x4x16xf32> to tensor<1x3x4x16xf32>
// ONEROW:           %[[ROW:.*]] = tinyml.fused conv_epilogue (%{{.*}}) {{.*}} : (tensor<1x3x4x16xf32>) -> tensor<1x1x2x16xf32>
// ONEROW:             tinyml.depthwise_conv2d %{{.*}} {padding = array<i64: 0, 0, 0, 1>, strides = array<i64: 2, 2>}
// ONEROW:           tensor.insert_slice %[[ROW]] into %{{.*}}[0, %[[R]], 0, 0] [1, 1, 2, 16] [1, 1, 1, 1]
// ONEROW-NOT:     scf.for
// ONEROW:         tinyml.global_avg_pool %[[OUT]]
func.func @pointwise_then_strided_depthwise(%x: tensor<1x8x4x8xf32>) -> tensor<1x1x1x16xf32> {
  %p = tinyml.fused conv_epilogue (%x) {lowering = #tinyml.lowering<tile = [1, 1, 4, 4], reduction = [1, 1, 8]>} : (tensor<1x8x4x8xf32>) -> tensor<1x8x4x16xf32> {
  ^bb0(%a: tensor<1x8x4x8xf32>):
    %w = arith.constant dense<0.5> : tensor<1x1x8x16xf32>
    %c = tinyml.conv2d %a, %w : (tensor<1x8x4x8xf32>, tensor<1x1x8x16xf32>) -> tensor<1x8x4x16xf32>
    %r = tinyml.relu %c : tensor<1x8x4x16xf32>
    tinyml.yield %r : tensor<1x8x4x16xf32>
  }
  %d = tinyml.fused conv_epilogue (%p) {lowering = #tinyml.lowering<tile = [1, 1, 2, 4], reduction = [1, 0]>} : (tensor<1x8x4x16xf32>) -> tensor<1x4x2x16xf32> {
  ^bb0(%a: tensor<1x8x4x16xf32>):
    %w = arith.constant dense<0.5> : tensor<3x3x16x1xf32>
    %c = tinyml.depthwise_conv2d %a, %w {padding = array<i64: 0, 0, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x4x16xf32>, tensor<3x3x16x1xf32>) -> tensor<1x4x2x16xf32>
    tinyml.yield %c : tensor<1x4x2x16xf32>
  }
  %g = tinyml.global_avg_pool %d : (tensor<1x4x2x16xf32>) -> tensor<1x1x1x16xf32>
  return %g : tensor<1x1x1x16xf32>
}

// -----

// A stride-1 consumer: bands of two output rows would compute half the
// pointwise conv's rows twice (1 > max-recompute = 0.5): not fused by
// default. With max-recompute=2 and bands of one row it is, in one loop:
// every band computes three rows of the pointwise conv (the first and the
// last moved inside its input) and pads the window by the amount it
// overhangs, above or below: 24 rows for its 8 (16 x 4 pixels x 16 x 8
// MACs again).

// CHECK-LABEL: func.func @stride_one
// CHECK-NOT:     scf.for
// STRIDE1-LABEL: func.func @stride_one
// STRIDE1-SAME:    tinyml.recomputed_macs = 8192 : i64
// STRIDE1:         scf.for %{{.*}} = %c0 to %c8 step %c1
// STRIDE1:           tensor.extract_slice %arg0[0, %{{.*}}, 0, 0] [1, 3, 4, 8]
// STRIDE1:           %[[ABOVE:.*]] = arith.minsi %{{.*}}, %c1
// STRIDE1:           %[[BELOW:.*]] = arith.minsi %{{.*}}, %c1
// STRIDE1:           tensor.pad %{{.*}} low[0, %[[ABOVE]], 0, 0] high[0, %[[BELOW]], 0, 0]
// STRIDE1:           tinyml.depthwise_conv2d %{{.*}} {padding = array<i64: 0, 1, 0, 1>}
// STRIDE1-NOT:     scf.for
func.func @stride_one(%x: tensor<1x8x4x8xf32>) -> tensor<1x1x1x16xf32> {
  %p = tinyml.fused conv_epilogue (%x) {lowering = #tinyml.lowering<tile = [1, 1, 4, 4], reduction = [1, 1, 8]>} : (tensor<1x8x4x8xf32>) -> tensor<1x8x4x16xf32> {
  ^bb0(%a: tensor<1x8x4x8xf32>):
    %w = arith.constant dense<0.5> : tensor<1x1x8x16xf32>
    %c = tinyml.conv2d %a, %w : (tensor<1x8x4x8xf32>, tensor<1x1x8x16xf32>) -> tensor<1x8x4x16xf32>
    tinyml.yield %c : tensor<1x8x4x16xf32>
  }
  %d = tinyml.fused conv_epilogue (%p) {lowering = #tinyml.lowering<tile = [1, 1, 4, 4], reduction = [1, 0]>} : (tensor<1x8x4x16xf32>) -> tensor<1x8x4x16xf32> {
  ^bb0(%a: tensor<1x8x4x16xf32>):
    %w = arith.constant dense<0.5> : tensor<3x3x16x1xf32>
    %c = tinyml.depthwise_conv2d %a, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x4x16xf32>, tensor<3x3x16x1xf32>) -> tensor<1x8x4x16xf32>
    tinyml.yield %c : tensor<1x8x4x16xf32>
  }
  %g = tinyml.global_avg_pool %d : (tensor<1x8x4x16xf32>) -> tensor<1x1x1x16xf32>
  return %g : tensor<1x1x1x16xf32>
}

// -----

// Never fused: the pointwise conv's output read twice (the bands would
// leave the other reader nothing), and a pair whose steps are not the
// peak (the 8x4x64 tensor computed before them is).

// CHECK-LABEL: func.func @not_fused
// CHECK-NOT:     scf.for
// CHECK-NOT:     tinyml.recomputed_macs
func.func @not_fused(%x: tensor<1x8x4x8xf32>) -> (tensor<1x4x2x16xf32>, tensor<1x8x4x16xf32>, tensor<1x1x1x64xf32>) {
  %p = tinyml.fused conv_epilogue (%x) {lowering = #tinyml.lowering<tile = [1, 1, 4, 4], reduction = [1, 1, 8]>} : (tensor<1x8x4x8xf32>) -> tensor<1x8x4x16xf32> {
  ^bb0(%a: tensor<1x8x4x8xf32>):
    %w = arith.constant dense<0.5> : tensor<1x1x8x16xf32>
    %c = tinyml.conv2d %a, %w : (tensor<1x8x4x8xf32>, tensor<1x1x8x16xf32>) -> tensor<1x8x4x16xf32>
    tinyml.yield %c : tensor<1x8x4x16xf32>
  }
  %d = tinyml.fused conv_epilogue (%p) {lowering = #tinyml.lowering<tile = [1, 1, 2, 4], reduction = [1, 0]>} : (tensor<1x8x4x16xf32>) -> tensor<1x4x2x16xf32> {
  ^bb0(%a: tensor<1x8x4x16xf32>):
    %w = arith.constant dense<0.5> : tensor<3x3x16x1xf32>
    %c = tinyml.depthwise_conv2d %a, %w {padding = array<i64: 0, 0, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x4x16xf32>, tensor<3x3x16x1xf32>) -> tensor<1x4x2x16xf32>
    tinyml.yield %c : tensor<1x4x2x16xf32>
  }
  %wide = tinyml.fused conv_epilogue (%x) {lowering = #tinyml.lowering<tile = [1, 1, 4, 4], reduction = [1, 1, 8]>} : (tensor<1x8x4x8xf32>) -> tensor<1x8x4x64xf32> {
  ^bb0(%a: tensor<1x8x4x8xf32>):
    %w = arith.constant dense<0.5> : tensor<1x1x8x64xf32>
    %c = tinyml.conv2d %a, %w : (tensor<1x8x4x8xf32>, tensor<1x1x8x64xf32>) -> tensor<1x8x4x64xf32>
    tinyml.yield %c : tensor<1x8x4x64xf32>
  }
  %pool = tinyml.global_avg_pool %wide : (tensor<1x8x4x64xf32>) -> tensor<1x1x1x64xf32>
  %q = tinyml.fused conv_epilogue (%x) {lowering = #tinyml.lowering<tile = [1, 1, 4, 4], reduction = [1, 1, 8]>} : (tensor<1x8x4x8xf32>) -> tensor<1x8x4x16xf32> {
  ^bb0(%a: tensor<1x8x4x8xf32>):
    %w = arith.constant dense<0.25> : tensor<1x1x8x16xf32>
    %c = tinyml.conv2d %a, %w : (tensor<1x8x4x8xf32>, tensor<1x1x8x16xf32>) -> tensor<1x8x4x16xf32>
    tinyml.yield %c : tensor<1x8x4x16xf32>
  }
  %e = tinyml.fused conv_epilogue (%q) {lowering = #tinyml.lowering<tile = [1, 1, 2, 4], reduction = [1, 0]>} : (tensor<1x8x4x16xf32>) -> tensor<1x4x2x16xf32> {
  ^bb0(%a: tensor<1x8x4x16xf32>):
    %w = arith.constant dense<0.5> : tensor<3x3x16x1xf32>
    %c = tinyml.depthwise_conv2d %a, %w {padding = array<i64: 0, 0, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x4x16xf32>, tensor<3x3x16x1xf32>) -> tensor<1x4x2x16xf32>
    tinyml.yield %c : tensor<1x4x2x16xf32>
  }
  return %e, %p, %pool : tensor<1x4x2x16xf32>, tensor<1x8x4x16xf32>, tensor<1x1x1x64xf32>
}

// -----

// A pointwise conv group that also adds a residual (a whole tensor it
// reads besides its conv's input): a band of its input is not all it
// needs, so it is not computed in bands.

// CHECK-LABEL: func.func @pointwise_with_residual
// CHECK-NOT:     scf.for
func.func @pointwise_with_residual(%x: tensor<1x8x4x8xf32>, %res: tensor<1x8x4x16xf32>) -> tensor<1x1x1x16xf32> {
  %p = tinyml.fused conv_epilogue (%x, %res) {lowering = #tinyml.lowering<tile = [1, 1, 4, 4], reduction = [1, 1, 8]>} : (tensor<1x8x4x8xf32>, tensor<1x8x4x16xf32>) -> tensor<1x8x4x16xf32> {
  ^bb0(%a: tensor<1x8x4x8xf32>, %r: tensor<1x8x4x16xf32>):
    %w = arith.constant dense<0.5> : tensor<1x1x8x16xf32>
    %c = tinyml.conv2d %a, %w : (tensor<1x8x4x8xf32>, tensor<1x1x8x16xf32>) -> tensor<1x8x4x16xf32>
    %s = tinyml.add %c, %r : (tensor<1x8x4x16xf32>, tensor<1x8x4x16xf32>) -> tensor<1x8x4x16xf32>
    tinyml.yield %s : tensor<1x8x4x16xf32>
  }
  %d = tinyml.fused conv_epilogue (%p) {lowering = #tinyml.lowering<tile = [1, 1, 2, 4], reduction = [1, 0]>} : (tensor<1x8x4x16xf32>) -> tensor<1x4x2x16xf32> {
  ^bb0(%a: tensor<1x8x4x16xf32>):
    %w = arith.constant dense<0.5> : tensor<3x3x16x1xf32>
    %c = tinyml.depthwise_conv2d %a, %w {padding = array<i64: 0, 0, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x4x16xf32>, tensor<3x3x16x1xf32>) -> tensor<1x4x2x16xf32>
    tinyml.yield %c : tensor<1x4x2x16xf32>
  }
  %g = tinyml.global_avg_pool %d : (tensor<1x4x2x16xf32>) -> tensor<1x1x1x16xf32>
  return %g : tensor<1x1x1x16xf32>
}
