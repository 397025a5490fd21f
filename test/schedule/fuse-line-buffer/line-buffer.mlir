// RUN: tinyml-opt %s --split-input-file --tinyml-fuse-line-buffer | FileCheck %s

// An identity residual block on 6x4x8: two 3x3 convs with one row of
// padding all round, the second adding the block's input %x. The steps of
// the second conv hold %x, %y and %z (three 768 B tensors, the peak); in
// one loop %y is a buffer of three rows and %z is written over %x row by
// row. The loop carries %x as rows of 4 x 8 elements.
//
// One loop of 8 steps, each with one copy of each conv: step j rolls the
// buffer up a row and puts row j - 1 of %y at its bottom (the second
// conv's top and bottom padding, rows -1 and 6, are rows of zeros), then,
// from step 2 on, computes output row j - 2 from the three rows without
// padding above or below. The first conv reads three rows of %x padded
// with as many zero rows as fall outside %x (row 0: one above), amounts
// that depend on j; it reads %x through the loop-carried tensor: every
// row it reads at step j is at or below row j - 2, which is still %x.
// CHECK-LABEL: func.func @identity_block
// CHECK-SAME:    tinyml.line_buffers = 1 : i64
// CHECK:         %[[X:.*]] = tinyml.fused
// CHECK:         %[[ROWS_OF_X:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0], [1], [2, 3]] : tensor<1x6x4x8xf32> into tensor<1x6x32xf32>
// CHECK:         %[[BUFFER:.*]] = tensor.empty() : tensor<1x3x4x8xf32>
// CHECK:         %[[LOOP:.*]]:2 = scf.for %[[J:.*]] = %c0 to %c8 step %{{.*}} iter_args(%[[OUT:.*]] = %[[ROWS_OF_X]], %[[ROWS:.*]] = %[[BUFFER]])
// CHECK:           %[[ONE:.*]] = tensor.extract_slice %[[ROWS]][0, 1, 0, 0] [1, 1, 4, 8]
// CHECK:           %[[UP1:.*]] = tensor.insert_slice %[[ONE]] into %[[ROWS]][0, 0, 0, 0] [1, 1, 4, 8]
// CHECK:           %[[TWO:.*]] = tensor.extract_slice %[[UP1]][0, 2, 0, 0] [1, 1, 4, 8]
// CHECK:           %[[UP2:.*]] = tensor.insert_slice %[[TWO]] into %[[UP1]][0, 1, 0, 0] [1, 1, 4, 8]
// CHECK:           %[[P_ROW:.*]] = arith.subi %[[J]], %c1
// CHECK:           %[[COMPUTES:.*]] = arith.cmpi ult, %[[P_ROW]], %c6
// CHECK:           %[[KEPT:.*]] = scf.if %[[COMPUTES]] -> (tensor<1x3x4x8xf32>) {
// CHECK:             %[[X4:.*]] = tensor.expand_shape %[[OUT]] {{.*}} output_shape [1, 6, 4, 8]
// CHECK:             %[[READ:.*]] = tensor.extract_slice %[[X4]][0, %{{.*}}, 0, 0] [1, %{{.*}}, 4, 8] {{.*}} to tensor<1x?x4x8xf32>
// CHECK:             %[[WINDOW:.*]] = tensor.pad %[[READ]] low[0, %{{.*}}, 0, 0] high[0, %{{.*}}, 0, 0]
// CHECK:             } : tensor<1x?x4x8xf32> to tensor<1x3x4x8xf32>
// CHECK:             %[[NEW:.*]] = tinyml.fused conv_epilogue (%[[WINDOW]]) {{.*}} -> tensor<1x1x4x8xf32>
// CHECK:               tinyml.conv2d {{.*}} {padding = array<i64: 0, 1, 0, 1>}
// CHECK:             %[[IN:.*]] = tensor.insert_slice %[[NEW]] into %[[UP2]][0, 2, 0, 0] [1, 1, 4, 8]
// CHECK:             scf.yield %[[IN]]
// CHECK:           } else {
// CHECK:             %[[BOTTOM:.*]] = tensor.extract_slice %[[UP2]][0, 2, 0, 0] [1, 1, 4, 8]
// CHECK:             %[[ZEROS:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[BOTTOM]] : tensor<1x1x4x8xf32>)
// CHECK:             %[[PADDED:.*]] = tensor.insert_slice %[[ZEROS]] into %[[UP2]][0, 2, 0, 0] [1, 1, 4, 8]
// CHECK:             scf.yield %[[PADDED]]
// CHECK:           %[[I:.*]] = arith.subi %[[J]], %c2
// CHECK:           %[[STORES:.*]] = arith.cmpi sge, %[[J]], %c2
// CHECK:           %[[WRITTEN:.*]] = scf.if %[[STORES]] -> (tensor<1x6x32xf32>) {
// CHECK:             %[[RESIDUAL:.*]] = tensor.extract_slice %[[OUT]][0, %[[I]], 0] [1, 1, 32]
// CHECK:             %[[X_ROW:.*]] = tensor.expand_shape %[[RESIDUAL]]
// CHECK:             %[[ROW:.*]] = tinyml.fused conv_epilogue (%[[KEPT]], %[[X_ROW]]) {{.*}} : (tensor<1x3x4x8xf32>, tensor<1x1x4x8xf32>) -> tensor<1x1x4x8xf32>
// CHECK:               tinyml.conv2d {{.*}} {padding = array<i64: 0, 1, 0, 1>}
// CHECK:             %[[FLAT:.*]] = tensor.collapse_shape %[[ROW]]
// CHECK:             %[[STORED:.*]] = tensor.insert_slice %[[FLAT]] into %[[OUT]][0, %[[I]], 0] [1, 1, 32]
// CHECK:             scf.yield %[[STORED]]
// CHECK:           } else {
// CHECK:             scf.yield %[[OUT]]
// CHECK:           scf.yield %[[WRITTEN]], %[[KEPT]]
// CHECK-NOT:     scf.for
// CHECK:         %[[Z:.*]] = tensor.expand_shape %[[LOOP]]#0 {{.*}} output_shape [1, 6, 4, 8]
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
// over row i of %x. Step j computes row j - 1 of %y from rows 2j - 3 ..
// 2j - 1 of %x (row 0: one row of padding above, the padding below never
// used) and output row i = j - 2 with the shortcut's row from row 2i of %x,
// never a row above i. The shortcut has no padding: its rows are a slice
// of a static size.
// CHECK-LABEL: func.func @downsampling_block
// CHECK-SAME:    tinyml.line_buffers = 1 : i64
// CHECK:         %[[X:.*]] = tinyml.fused
// CHECK-NOT:     tinyml.fused
// CHECK:         %[[ROWS_OF_X:.*]] = tensor.collapse_shape %[[X]] {{.*}} into tensor<1x16x64xf32>
// CHECK:         scf.for %[[J:.*]] = %c0 to %c10 {{.*}} iter_args(%[[OUT:.*]] = %[[ROWS_OF_X]], %{{.*}} = %{{.*}})
// CHECK:           scf.if
// CHECK:             %[[TWICE:.*]] = arith.muli %{{.*}}, %c2
// CHECK:             %[[FROM:.*]] = arith.subi %[[TWICE]], %c1
// CHECK:             tensor.extract_slice %{{.*}}[0, %{{.*}}, 0, 0] [1, %{{.*}}, 8, 8] {{.*}} to tensor<1x?x8x8xf32>
// CHECK:             tensor.pad {{.*}} low[0, %{{.*}}, 0, 0] high[0, %c0{{.*}}, 0, 0]
// CHECK:               tinyml.conv2d {{.*}} {padding = array<i64: 0, 1, 0, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>, tensor<3x3x8x16xf32>) -> tensor<1x1x4x16xf32>
// CHECK:           scf.if
// CHECK:             tensor.extract_slice %{{.*}}[0, %{{.*}}, 0, 0] [1, 1, 8, 8]
// CHECK:             %[[SHORTCUT:.*]] = tinyml.fused
// CHECK:               tinyml.conv2d {{.*}} {strides = array<i64: 2, 2>} : (tensor<1x1x8x8xf32>, tensor<1x1x8x16xf32>) -> tensor<1x1x4x16xf32>
// CHECK:             tinyml.fused conv_epilogue (%{{.*}}, %[[SHORTCUT]])
// CHECK:               tinyml.conv2d {{.*}} {padding = array<i64: 0, 1, 0, 1>} : (tensor<1x3x4x16xf32>
// CHECK-NOT:     scf.for
// CHECK:         %[[HALF:.*]] = tensor.extract_slice %{{.*}}#0[0, 0, 0] [1, 8, 64]
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
// CHECK:         scf.for %[[J:.*]] = %c0 to %c10 {{.*}} iter_args(%[[OUT:.*]] = %[[ROWS_OF_X]], %{{.*}} = %{{.*}})
// CHECK:           %[[I:.*]] = arith.subi %[[J]], %c2
// CHECK:           scf.if
// CHECK:             %[[RESIDUAL:.*]] = tensor.extract_slice %[[OUT]][0, %[[I]], 0] [1, 1, 32]
// CHECK:             %[[X_ROW:.*]] = tensor.expand_shape %[[RESIDUAL]]
// CHECK:             %[[CONV:.*]] = tinyml.fused conv_epilogue (%{{.*}}) {{.*}} : (tensor<1x3x4x8xf32>) -> tensor<1x1x4x8xf32>
// CHECK:             %[[SUM:.*]] = tinyml.add %[[X_ROW]], %[[CONV]] : (tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>) -> tensor<1x1x4x8xf32>
// CHECK:             %[[FLAT:.*]] = tensor.collapse_shape %[[SUM]]
// CHECK:             tensor.insert_slice %[[FLAT]] into %[[OUT]][0, %[[I]], 0] [1, 1, 32]
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
