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
// By default a band is two output rows: rows 0-1 read rows 0..4, rows 2-3
// rows 4..7 and a row of padding. Row 4 is computed twice (4 pixels x 16 x
// 8 MACs).
// CHECK-LABEL: func.func @pointwise_then_strided_depthwise
// CHECK-SAME:    tinyml.recomputed_macs = 512 : i64
// CHECK:         %[[EMPTY:.*]] = tensor.empty() : tensor<1x4x2x16xf32>
// CHECK:         %[[TOP:.*]] = scf.for %[[R:.*]] = %c0 to %c2 step %c2{{.*}} iter_args(%[[ACC:.*]] = %[[EMPTY]])
// CHECK:           %[[ROWS:.*]] = tensor.extract_slice %arg0[0, %{{.*}}, 0, 0] [1, 5, 4, 8] [1, 1, 1, 1]
// CHECK:           %[[BAND:.*]] = tinyml.fused conv_epilogue (%[[ROWS]]) {{.*}} : (tensor<1x5x4x8xf32>) -> tensor<1x5x4x16xf32>
// CHECK:           %[[TWO:.*]] = tinyml.fused conv_epilogue (%[[BAND]]) {{.*}} : (tensor<1x5x4x16xf32>) -> tensor<1x2x2x16xf32>
// CHECK:             tinyml.depthwise_conv2d %{{.*}} {padding = array<i64: 0, 0, 0, 1>, strides = array<i64: 2, 2>}
// CHECK:           tensor.insert_slice %[[TWO]] into %[[ACC]][0, %[[R]], 0, 0] [1, 2, 2, 16] [1, 1, 1, 1]
// CHECK:         %[[LAST:.*]] = scf.for %{{.*}} = %c2{{.*}} to %c4 step %c2{{.*}} iter_args(%{{.*}} = %[[TOP]])
// CHECK:           tensor.extract_slice %arg0[0, %{{.*}}, 0, 0] [1, 4, 4, 8] [1, 1, 1, 1]
// CHECK:             tinyml.depthwise_conv2d %{{.*}} {padding = array<i64: 0, 0, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x4x16xf32>
// CHECK:         tinyml.global_avg_pool %[[LAST]]
//
// Bands of one output row: rows 0 to 2 read three rows, row 3 rows 6 and 7
// and a row of padding; three rows are computed twice (3 x 4 x 16 x 8).
// ONEROW-LABEL: func.func @pointwise_then_strided_depthwise
// ONEROW-SAME:    tinyml.recomputed_macs = 1536 : i64
// ONEROW:         %[[EMPTY:.*]] = tensor.empty() : tensor<1x4x2x16xf32>
// ONEROW:         %[[TOP:.*]] = scf.for %[[R:.*]] = %c0 to %c3 step %c1 iter_args(%[[ACC:.*]] = %[[EMPTY]])
// ONEROW:           %[[FIRST:.*]] = arith.muli %[[R]], %c2
// ONEROW:           %[[ROWS:.*]] = tensor.extract_slice %arg0[0, %{{.*}}, 0, 0] [1, 3, 4, 8] [1, 1, 1, 1]
// ONEROW:           %[[BAND:.*]] = tinyml.fused conv_epilogue (%[[ROWS]]) {{.*}} : (tensor<1x3x4x8xf32>) -> tensor<1x3x4x16xf32>
// ONEROW:             tinyml.conv2d %{{.*}} : (tensor<1x3x4x8xf32>, tensor<1x1x8x16xf32>) -> tensor<1x3x4x16xf32>
// ONEROW:           %[[ROW:.*]] = tinyml.fused conv_epilogue (%[[BAND]]) {{.*}} : (tensor<1x3x4x16xf32>) -> tensor<1x1x2x16xf32>
// ONEROW:             tinyml.depthwise_conv2d %{{.*}} {padding = array<i64: 0, 0, 0, 1>, strides = array<i64: 2, 2>}
// ONEROW:           tensor.insert_slice %[[ROW]] into %[[ACC]][0, %[[R]], 0, 0] [1, 1, 2, 16] [1, 1, 1, 1]
// ONEROW:         %[[LAST:.*]] = scf.for %{{.*}} = %c3{{.*}} to %c4 step %c1{{.*}} iter_args(%{{.*}} = %[[TOP]])
// ONEROW:           tensor.extract_slice %arg0[0, %{{.*}}, 0, 0] [1, 2, 4, 8] [1, 1, 1, 1]
// ONEROW:             tinyml.depthwise_conv2d %{{.*}} {padding = array<i64: 0, 0, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x2x4x16xf32>
// ONEROW:         tinyml.global_avg_pool %[[LAST]]
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
// default. With max-recompute=2 and bands of one row it is, in three loops: the first output row
// (one row of padding above, two rows of the pointwise conv), the rows in
// between (three rows), the last (padding below): 22 rows of the pointwise
// conv computed for its 8 (14 x 4 pixels x 16 x 8 MACs again).

// CHECK-LABEL: func.func @stride_one
// CHECK-NOT:     scf.for
// STRIDE1-LABEL: func.func @stride_one
// STRIDE1-SAME:    tinyml.recomputed_macs = 7168 : i64
// STRIDE1:         scf.for %{{.*}} = %c0 to %c1 step
// STRIDE1:           tensor.extract_slice %arg0[0, %{{.*}}, 0, 0] [1, 2, 4, 8]
// STRIDE1:           tinyml.depthwise_conv2d %{{.*}} {padding = array<i64: 1, 1, 0, 1>}
// STRIDE1:         scf.for %{{.*}} = %c1{{.*}} to %c7 step
// STRIDE1:           tensor.extract_slice %arg0[0, %{{.*}}, 0, 0] [1, 3, 4, 8]
// STRIDE1:           tinyml.depthwise_conv2d %{{.*}} {padding = array<i64: 0, 1, 0, 1>}
// STRIDE1:         scf.for %{{.*}} = %c7{{.*}} to %c8 step
// STRIDE1:           tensor.extract_slice %arg0[0, %{{.*}}, 0, 0] [1, 2, 4, 8]
// STRIDE1:           tinyml.depthwise_conv2d %{{.*}} {padding = array<i64: 0, 1, 1, 1>}
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
