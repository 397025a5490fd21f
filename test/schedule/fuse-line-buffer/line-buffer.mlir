// RUN: tinyml-opt %s --split-input-file --tinyml-fuse-line-buffer | FileCheck %s

// An identity residual block on 6x4x8: two 3x3 convs with one row of
// padding all round, the second adding the block's input %x. The steps of
// the second conv hold %x, %y and %z (three 768 B tensors, the peak); in
// one loop %y is a buffer of three rows and %z is written over %x row by
// row. The loop carries %x as rows of 4 x 8 elements.
//
// Output row 0 needs rows 0 and 1 of %y (and padding above): the first
// step computes both from rows 0..2 of %x. Rows 1 to 3 roll the buffer up
// a row and compute one new row of %y from three rows of %x, row 4 from
// the last two (and padding below); row 5 computes nothing and reads two
// rows of the buffer (and padding below). The first conv reads %x through
// the loop-carried tensor: every row it reads at step i is at or below
// row i, which is still %x.
// CHECK-LABEL: func.func @identity_block
// CHECK-SAME:    tinyml.line_buffers = 1 : i64
// CHECK:         %[[X:.*]] = tinyml.fused
// CHECK:         %[[ROWS_OF_X:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0], [1], [2, 3]] : tensor<1x6x4x8xf32> into tensor<1x6x32xf32>
// CHECK:         %[[BUFFER:.*]] = tensor.empty() : tensor<1x3x4x8xf32>
// CHECK:         %[[FIRST:.*]]:2 = scf.for %[[I:.*]] = %c0 to %c1 step %{{.*}} iter_args(%[[OUT:.*]] = %[[ROWS_OF_X]], %[[ROWS:.*]] = %[[BUFFER]])
// CHECK:           %[[WINDOW:.*]] = tensor.extract_slice %[[OUT]][0, %{{.*}}, 0] [1, 3, 32]
// CHECK:           %[[X_ROWS:.*]] = tensor.expand_shape %[[WINDOW]] {{.*}} output_shape [1, 3, 4, 8]
// CHECK:           %[[NEW:.*]] = tinyml.fused conv_epilogue (%[[X_ROWS]]) {{.*}} -> tensor<1x2x4x8xf32>
// CHECK:             tinyml.conv2d {{.*}} {padding = array<i64: 1, 1, 0, 1>}
// CHECK:           %[[KEPT:.*]] = tensor.insert_slice %[[NEW]] into %[[ROWS]][0, 1, 0, 0] [1, 2, 4, 8]
// CHECK:           %[[READ:.*]] = tensor.extract_slice %[[KEPT]][0, 1, 0, 0] [1, 2, 4, 8]
// CHECK:           %[[RESIDUAL:.*]] = tensor.extract_slice %[[OUT]][0, %[[I]], 0] [1, 1, 32]
// CHECK:           %[[X_ROW:.*]] = tensor.expand_shape %[[RESIDUAL]]
// CHECK:           %[[ROW:.*]] = tinyml.fused conv_epilogue (%[[READ]], %[[X_ROW]]) {{.*}} -> tensor<1x1x4x8xf32>
// CHECK:             tinyml.conv2d {{.*}} {padding = array<i64: 1, 1, 0, 1>}
// CHECK:           %[[FLAT:.*]] = tensor.collapse_shape %[[ROW]]
// CHECK:           %[[WRITTEN:.*]] = tensor.insert_slice %[[FLAT]] into %[[OUT]][0, %[[I]], 0] [1, 1, 32]
// CHECK:           scf.yield %[[WRITTEN]], %[[KEPT]]
// CHECK:         %[[STEADY:.*]]:2 = scf.for %[[I:.*]] = %c1{{.*}} to %c4 step %{{.*}} iter_args(%[[OUT:.*]] = %[[FIRST]]#0, %[[ROWS:.*]] = %[[FIRST]]#1)
// CHECK:           %[[ONE:.*]] = tensor.extract_slice %[[ROWS]][0, 1, 0, 0] [1, 1, 4, 8]
// CHECK:           %[[UP1:.*]] = tensor.insert_slice %[[ONE]] into %[[ROWS]][0, 0, 0, 0] [1, 1, 4, 8]
// CHECK:           %[[TWO:.*]] = tensor.extract_slice %[[UP1]][0, 2, 0, 0] [1, 1, 4, 8]
// CHECK:           %[[UP2:.*]] = tensor.insert_slice %[[TWO]] into %[[UP1]][0, 1, 0, 0] [1, 1, 4, 8]
// CHECK:           tensor.extract_slice %[[OUT]][0, %{{.*}}, 0] [1, 3, 32]
// CHECK:           %[[NEW:.*]] = tinyml.fused conv_epilogue (%{{.*}}) {{.*}} -> tensor<1x1x4x8xf32>
// CHECK:             tinyml.conv2d {{.*}} {padding = array<i64: 0, 1, 0, 1>}
// CHECK:           tensor.insert_slice %[[NEW]] into %[[UP2]][0, 2, 0, 0] [1, 1, 4, 8]
// CHECK:           tinyml.fused conv_epilogue ({{.*}}) {{.*}} : (tensor<1x3x4x8xf32>, tensor<1x1x4x8xf32>) -> tensor<1x1x4x8xf32>
// CHECK:             tinyml.conv2d {{.*}} {padding = array<i64: 0, 1, 0, 1>}
// CHECK:           tensor.insert_slice {{.*}} into %[[OUT]][0, %[[I]], 0] [1, 1, 32]
// CHECK:         %[[FIFTH:.*]]:2 = scf.for %{{.*}} = %c4{{.*}} to %c5
// CHECK:           tensor.extract_slice {{.*}} [1, 2, 32]
// CHECK:             tinyml.conv2d {{.*}} {padding = array<i64: 0, 1, 1, 1>} : (tensor<1x2x4x8xf32>
// CHECK:         %[[LAST:.*]]:2 = scf.for %{{.*}} = %c5{{.*}} to %c6
// CHECK-NOT:         tinyml.relu
// CHECK:             tinyml.conv2d {{.*}} {padding = array<i64: 0, 1, 1, 1>} : (tensor<1x2x4x8xf32>
// CHECK:         %[[Z:.*]] = tensor.expand_shape %[[LAST]]#0 {{.*}} output_shape [1, 6, 4, 8]
// CHECK:         tinyml.global_avg_pool %[[Z]]
func.func @identity_block(%arg: tensor<1x6x4x8xf32>) -> tensor<1x1x1x8xf32> {
  %x = tinyml.fused conv_epilogue (%arg) {lowering = #tinyml.lowering<tile = [1, 1, 4, 4], reduction = [1, 1, 8]>} : (tensor<1x6x4x8xf32>) -> tensor<1x6x4x8xf32> {
  ^bb0(%a: tensor<1x6x4x8xf32>):
    %w = arith.constant dense<0.5> : tensor<1x1x8x8xf32>
    %c = tinyml.conv2d %a, %w : (tensor<1x6x4x8xf32>, tensor<1x1x8x8xf32>) -> tensor<1x6x4x8xf32>
    tinyml.yield %c : tensor<1x6x4x8xf32>
  }
  %y = tinyml.fused conv_epilogue (%x) {lowering = #tinyml.lowering<tile = [1, 1, 4, 4], reduction = [1, 3, 4]>} : (tensor<1x6x4x8xf32>) -> tensor<1x6x4x8xf32> {
  ^bb0(%a: tensor<1x6x4x8xf32>):
    %w = arith.constant dense<0.5> : tensor<3x3x8x8xf32>
    %c = tinyml.conv2d %a, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x6x4x8xf32>, tensor<3x3x8x8xf32>) -> tensor<1x6x4x8xf32>
    %r = tinyml.relu %c : tensor<1x6x4x8xf32>
    tinyml.yield %r : tensor<1x6x4x8xf32>
  }
  %z = tinyml.fused conv_epilogue (%y, %x) {lowering = #tinyml.lowering<tile = [1, 1, 4, 4], reduction = [1, 3, 4]>} : (tensor<1x6x4x8xf32>, tensor<1x6x4x8xf32>) -> tensor<1x6x4x8xf32> {
  ^bb0(%a: tensor<1x6x4x8xf32>, %e: tensor<1x6x4x8xf32>):
    %w = arith.constant dense<0.5> : tensor<3x3x8x8xf32>
    %c = tinyml.conv2d %a, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x6x4x8xf32>, tensor<3x3x8x8xf32>) -> tensor<1x6x4x8xf32>
    %s = tinyml.add %e, %c : (tensor<1x6x4x8xf32>, tensor<1x6x4x8xf32>) -> tensor<1x6x4x8xf32>
    tinyml.yield %s : tensor<1x6x4x8xf32>
  }
  %p = tinyml.global_avg_pool %z : (tensor<1x6x4x8xf32>) -> tensor<1x1x1x8xf32>
  return %p : tensor<1x1x1x8xf32>
}

// -----

// A downsampling block: a 3x3 stride-2 conv and a 1x1 stride-2 shortcut
// %s read %x (16x8x8); the second 3x3 conv adds %s. The shortcut is
// computed in the loop too, a row at a time, so %x is all the block needs
// whole: output row i (4 x 16 elements, as many as a row of %x) is stored
// over row i of %x. Row i reads rows 2i+1..2i+3 of %x for the new row of
// %y (row 0: rows 0..3 for the first two, with padding above) and row 2i
// for the shortcut, never a row above i.
// CHECK-LABEL: func.func @downsampling_block
// CHECK-SAME:    tinyml.line_buffers = 1 : i64
// CHECK:         %[[X:.*]] = tinyml.fused
// CHECK-NOT:     tinyml.fused
// CHECK:         %[[ROWS_OF_X:.*]] = tensor.collapse_shape %[[X]] {{.*}} into tensor<1x16x64xf32>
// CHECK:         scf.for %{{.*}} = %c0 to %c1 {{.*}} iter_args(%[[OUT:.*]] = %[[ROWS_OF_X]], %{{.*}} = %{{.*}})
// CHECK:           tensor.extract_slice %[[OUT]][0, %{{.*}}, 0] [1, 4, 64]
// CHECK:             tinyml.conv2d {{.*}} {padding = array<i64: 1, 1, 0, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>, tensor<3x3x8x16xf32>) -> tensor<1x2x4x16xf32>
// CHECK:           tensor.extract_slice %[[OUT]][0, %{{.*}}, 0] [1, 1, 64]
// CHECK:           %[[SHORTCUT:.*]] = tinyml.fused
// CHECK:             tinyml.conv2d {{.*}} {strides = array<i64: 2, 2>} : (tensor<1x1x8x8xf32>, tensor<1x1x8x16xf32>) -> tensor<1x1x4x16xf32>
// CHECK:           tinyml.fused conv_epilogue (%{{.*}}, %[[SHORTCUT]])
// CHECK:         scf.for %[[I:.*]] = %c1{{.*}} to %c7
// CHECK:           %[[TWICE:.*]] = arith.muli %[[I]], %c2
// CHECK:           %[[FROM:.*]] = arith.addi %[[TWICE]], %c1
// CHECK:           tensor.extract_slice %{{.*}}[0, %[[FROM]], 0] [1, 3, 64]
// CHECK:             tinyml.conv2d {{.*}} {padding = array<i64: 0, 1, 0, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>, tensor<3x3x8x16xf32>) -> tensor<1x1x4x16xf32>
// CHECK:         %[[LAST:.*]]:2 = scf.for %{{.*}} = %c7{{.*}} to %c8
// CHECK:         %[[HALF:.*]] = tensor.extract_slice %[[LAST]]#0[0, 0, 0] [1, 8, 64]
// CHECK:         %[[Z:.*]] = tensor.expand_shape %[[HALF]] {{.*}} output_shape [1, 8, 4, 16]
// CHECK:         tinyml.global_avg_pool %[[Z]]
func.func @downsampling_block(%arg: tensor<1x16x8x8xf32>) -> tensor<1x1x1x16xf32> {
  %x = tinyml.fused conv_epilogue (%arg) {lowering = #tinyml.lowering<tile = [1, 1, 4, 4], reduction = [1, 1, 8]>} : (tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
  ^bb0(%a: tensor<1x16x8x8xf32>):
    %w = arith.constant dense<0.5> : tensor<1x1x8x8xf32>
    %c = tinyml.conv2d %a, %w : (tensor<1x16x8x8xf32>, tensor<1x1x8x8xf32>) -> tensor<1x16x8x8xf32>
    tinyml.yield %c : tensor<1x16x8x8xf32>
  }
  %s = tinyml.fused conv_epilogue (%x) {lowering = #tinyml.lowering<tile = [1, 1, 4, 4], reduction = [1, 1, 8]>} : (tensor<1x16x8x8xf32>) -> tensor<1x8x4x16xf32> {
  ^bb0(%a: tensor<1x16x8x8xf32>):
    %w = arith.constant dense<0.5> : tensor<1x1x8x16xf32>
    %c = tinyml.conv2d %a, %w {strides = array<i64: 2, 2>} : (tensor<1x16x8x8xf32>, tensor<1x1x8x16xf32>) -> tensor<1x8x4x16xf32>
    tinyml.yield %c : tensor<1x8x4x16xf32>
  }
  %y = tinyml.fused conv_epilogue (%x) {lowering = #tinyml.lowering<tile = [1, 1, 4, 4], reduction = [1, 3, 4]>} : (tensor<1x16x8x8xf32>) -> tensor<1x8x4x16xf32> {
  ^bb0(%a: tensor<1x16x8x8xf32>):
    %w = arith.constant dense<0.5> : tensor<3x3x8x16xf32>
    %c = tinyml.conv2d %a, %w {padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x16x8x8xf32>, tensor<3x3x8x16xf32>) -> tensor<1x8x4x16xf32>
    %r = tinyml.relu %c : tensor<1x8x4x16xf32>
    tinyml.yield %r : tensor<1x8x4x16xf32>
  }
  %z = tinyml.fused conv_epilogue (%y, %s) {lowering = #tinyml.lowering<tile = [1, 1, 4, 4], reduction = [1, 3, 4]>} : (tensor<1x8x4x16xf32>, tensor<1x8x4x16xf32>) -> tensor<1x8x4x16xf32> {
  ^bb0(%a: tensor<1x8x4x16xf32>, %e: tensor<1x8x4x16xf32>):
    %w = arith.constant dense<0.5> : tensor<3x3x16x16xf32>
    %c = tinyml.conv2d %a, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x4x16xf32>, tensor<3x3x16x16xf32>) -> tensor<1x8x4x16xf32>
    %e2 = tinyml.add %e, %c : (tensor<1x8x4x16xf32>, tensor<1x8x4x16xf32>) -> tensor<1x8x4x16xf32>
    tinyml.yield %e2 : tensor<1x8x4x16xf32>
  }
  %p = tinyml.global_avg_pool %z : (tensor<1x8x4x16xf32>) -> tensor<1x1x1x16xf32>
  return %p : tensor<1x1x1x16xf32>
}

// -----

// The identity block with its residual add outside the second conv's group
// (how an int8 block arrives: the add rescales both of its operands): the
// add is computed in the loop too, on row i of %x and the conv's row, and
// its row stored over row i of %x.
// CHECK-LABEL: func.func @residual_add_after_the_group
// CHECK-SAME:    tinyml.line_buffers = 1 : i64
// CHECK:         %[[X:.*]] = tinyml.fused
// CHECK:         %[[ROWS_OF_X:.*]] = tensor.collapse_shape %[[X]]
// CHECK:         scf.for %[[I:.*]] = %c0 to %c1 {{.*}} iter_args(%[[OUT:.*]] = %[[ROWS_OF_X]], %{{.*}} = %{{.*}})
// CHECK:           %[[RESIDUAL:.*]] = tensor.extract_slice %[[OUT]][0, %[[I]], 0] [1, 1, 32]
// CHECK:           %[[X_ROW:.*]] = tensor.expand_shape %[[RESIDUAL]]
// CHECK:           %[[CONV:.*]] = tinyml.fused conv_epilogue (%{{.*}}) {{.*}} : (tensor<1x2x4x8xf32>) -> tensor<1x1x4x8xf32>
// CHECK:           %[[SUM:.*]] = tinyml.add %[[X_ROW]], %[[CONV]] : (tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>) -> tensor<1x1x4x8xf32>
// CHECK:           %[[FLAT:.*]] = tensor.collapse_shape %[[SUM]]
// CHECK:           tensor.insert_slice %[[FLAT]] into %[[OUT]][0, %[[I]], 0] [1, 1, 32]
// CHECK-NOT:     tinyml.add {{.*}} tensor<1x8x4x8xf32>
// CHECK:         tinyml.global_avg_pool
func.func @residual_add_after_the_group(%arg: tensor<1x8x4x8xf32>) -> tensor<1x1x1x8xf32> {
  %x = tinyml.fused conv_epilogue (%arg) {lowering = #tinyml.lowering<tile = [1, 1, 4, 4], reduction = [1, 1, 8]>} : (tensor<1x8x4x8xf32>) -> tensor<1x8x4x8xf32> {
  ^bb0(%a: tensor<1x8x4x8xf32>):
    %w = arith.constant dense<0.5> : tensor<1x1x8x8xf32>
    %c = tinyml.conv2d %a, %w : (tensor<1x8x4x8xf32>, tensor<1x1x8x8xf32>) -> tensor<1x8x4x8xf32>
    tinyml.yield %c : tensor<1x8x4x8xf32>
  }
  %y = tinyml.fused conv_epilogue (%x) {lowering = #tinyml.lowering<tile = [1, 1, 4, 4], reduction = [1, 3, 4]>} : (tensor<1x8x4x8xf32>) -> tensor<1x8x4x8xf32> {
  ^bb0(%a: tensor<1x8x4x8xf32>):
    %w = arith.constant dense<0.5> : tensor<3x3x8x8xf32>
    %c = tinyml.conv2d %a, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x4x8xf32>, tensor<3x3x8x8xf32>) -> tensor<1x8x4x8xf32>
    tinyml.yield %c : tensor<1x8x4x8xf32>
  }
  %z = tinyml.fused conv_epilogue (%y) {lowering = #tinyml.lowering<tile = [1, 1, 4, 4], reduction = [1, 3, 4]>} : (tensor<1x8x4x8xf32>) -> tensor<1x8x4x8xf32> {
  ^bb0(%a: tensor<1x8x4x8xf32>):
    %w = arith.constant dense<0.5> : tensor<3x3x8x8xf32>
    %c = tinyml.conv2d %a, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x4x8xf32>, tensor<3x3x8x8xf32>) -> tensor<1x8x4x8xf32>
    tinyml.yield %c : tensor<1x8x4x8xf32>
  }
  %s = tinyml.add %x, %z : (tensor<1x8x4x8xf32>, tensor<1x8x4x8xf32>) -> tensor<1x8x4x8xf32>
  %p = tinyml.global_avg_pool %s : (tensor<1x8x4x8xf32>) -> tensor<1x1x1x8xf32>
  return %p : tensor<1x1x1x8xf32>
}
