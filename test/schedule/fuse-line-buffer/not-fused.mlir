// RUN: tinyml-opt %s --split-input-file --tinyml-fuse-line-buffer | FileCheck %s

// The consumer has stride 2: a window moves two rows per output row
// (tinyml-fuse-row-bands' case), no loop here.
// CHECK-LABEL: func.func @strided_consumer
// CHECK-NOT:     tinyml.line_buffers
// CHECK-NOT:     scf.for
func.func @strided_consumer(%arg: tensor<1x6x4x8xf32>) -> tensor<1x1x1x8xf32> {
  %y = tinyml.fused conv_epilogue (%arg) {lowering = #tinyml.lowering<tile = [1, 1, 4, 4], reduction = [1, 3, 4]>} : (tensor<1x6x4x8xf32>) -> tensor<1x6x4x8xf32> {
  ^bb0(%a: tensor<1x6x4x8xf32>):
    %w = arith.constant dense<0.5> : tensor<3x3x8x8xf32>
    %c = tinyml.conv2d %a, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x6x4x8xf32>, tensor<3x3x8x8xf32>) -> tensor<1x6x4x8xf32>
    tinyml.yield %c : tensor<1x6x4x8xf32>
  }
  %z = tinyml.fused conv_epilogue (%y) {lowering = #tinyml.lowering<tile = [1, 1, 2, 4], reduction = [1, 3, 4]>} : (tensor<1x6x4x8xf32>) -> tensor<1x3x2x8xf32> {
  ^bb0(%a: tensor<1x6x4x8xf32>):
    %w = arith.constant dense<0.5> : tensor<3x3x8x8xf32>
    %c = tinyml.conv2d %a, %w {padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x6x4x8xf32>, tensor<3x3x8x8xf32>) -> tensor<1x3x2x8xf32>
    tinyml.yield %c : tensor<1x3x2x8xf32>
  }
  %p = tinyml.global_avg_pool %z : (tensor<1x3x2x8xf32>) -> tensor<1x1x1x8xf32>
  return %p : tensor<1x1x1x8xf32>
}

// -----

// The producer's output has a second reader: it is needed whole.
// CHECK-LABEL: func.func @second_reader
// CHECK-NOT:     scf.for
func.func @second_reader(%arg: tensor<1x6x4x8xf32>) -> (tensor<1x1x1x8xf32>, tensor<1x1x1x8xf32>) {
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
    tinyml.yield %c : tensor<1x6x4x8xf32>
  }
  %z = tinyml.fused conv_epilogue (%y) {lowering = #tinyml.lowering<tile = [1, 1, 4, 4], reduction = [1, 3, 4]>} : (tensor<1x6x4x8xf32>) -> tensor<1x6x4x8xf32> {
  ^bb0(%a: tensor<1x6x4x8xf32>):
    %w = arith.constant dense<0.5> : tensor<3x3x8x8xf32>
    %c = tinyml.conv2d %a, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x6x4x8xf32>, tensor<3x3x8x8xf32>) -> tensor<1x6x4x8xf32>
    tinyml.yield %c : tensor<1x6x4x8xf32>
  }
  %p = tinyml.global_avg_pool %z : (tensor<1x6x4x8xf32>) -> tensor<1x1x1x8xf32>
  %q = tinyml.global_avg_pool %y : (tensor<1x6x4x8xf32>) -> tensor<1x1x1x8xf32>
  return %p, %q : tensor<1x1x1x8xf32>, tensor<1x1x1x8xf32>
}

// -----

// The peak is the step of the 1x1 conv reading the transposed input (its
// 6 KiB input and its output): fusing it into the 3x3 conv after it would
// keep that input alive into the loop, a higher peak; the other pair is
// not at the peak. Nothing changes.
// CHECK-LABEL: func.func @not_at_the_peak
// CHECK-NOT:     scf.for
func.func @not_at_the_peak(%arg: tensor<1x64x6x4xf32>) -> tensor<1x1x1x8xf32> {
  %t = tinyml.transpose %arg {permutation = array<i64: 0, 2, 3, 1>} : (tensor<1x64x6x4xf32>) -> tensor<1x6x4x64xf32>
  %x = tinyml.fused conv_epilogue (%t) {lowering = #tinyml.lowering<tile = [1, 1, 4, 4], reduction = [1, 1, 8]>} : (tensor<1x6x4x64xf32>) -> tensor<1x6x4x8xf32> {
  ^bb0(%a: tensor<1x6x4x64xf32>):
    %w = arith.constant dense<0.5> : tensor<1x1x64x8xf32>
    %c = tinyml.conv2d %a, %w : (tensor<1x6x4x64xf32>, tensor<1x1x64x8xf32>) -> tensor<1x6x4x8xf32>
    tinyml.yield %c : tensor<1x6x4x8xf32>
  }
  %y = tinyml.fused conv_epilogue (%x) {lowering = #tinyml.lowering<tile = [1, 1, 4, 4], reduction = [1, 3, 4]>} : (tensor<1x6x4x8xf32>) -> tensor<1x6x4x8xf32> {
  ^bb0(%a: tensor<1x6x4x8xf32>):
    %w = arith.constant dense<0.5> : tensor<3x3x8x8xf32>
    %c = tinyml.conv2d %a, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x6x4x8xf32>, tensor<3x3x8x8xf32>) -> tensor<1x6x4x8xf32>
    tinyml.yield %c : tensor<1x6x4x8xf32>
  }
  %z = tinyml.fused conv_epilogue (%y) {lowering = #tinyml.lowering<tile = [1, 1, 4, 4], reduction = [1, 3, 4]>} : (tensor<1x6x4x8xf32>) -> tensor<1x6x4x8xf32> {
  ^bb0(%a: tensor<1x6x4x8xf32>):
    %w = arith.constant dense<0.5> : tensor<3x3x8x8xf32>
    %c = tinyml.conv2d %a, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x6x4x8xf32>, tensor<3x3x8x8xf32>) -> tensor<1x6x4x8xf32>
    tinyml.yield %c : tensor<1x6x4x8xf32>
  }
  %p = tinyml.global_avg_pool %z : (tensor<1x6x4x8xf32>) -> tensor<1x1x1x8xf32>
  return %p : tensor<1x1x1x8xf32>
}

// -----

// The residual %x is read again after the block: fused, but the output is
// a new tensor (the loop starts from tensor.empty), and the first conv
// reads %x itself.
// CHECK-LABEL: func.func @residual_read_later
// CHECK-SAME:    tinyml.line_buffers = 1 : i64
// CHECK:         %[[X:.*]] = tinyml.fused
// CHECK:         %[[NEW:.*]] = tensor.empty() : tensor<1x10x32xf32>
// CHECK:         scf.for {{.*}} iter_args(%{{.*}} = %[[NEW]], %{{.*}} = %{{.*}})
// CHECK:             tensor.extract_slice %[[X]][0, %{{.*}}, 0, 0] [1, %{{.*}}, 4, 8]
// CHECK:             tensor.extract_slice %[[X]][0, %{{.*}}, 0, 0] [1, 1, 4, 8]
func.func @residual_read_later(%arg: tensor<1x10x4x8xf32>) -> (tensor<1x1x1x8xf32>, tensor<1x1x1x8xf32>) {
  %x = tinyml.fused conv_epilogue (%arg) {lowering = #tinyml.lowering<tile = [1, 1, 4, 4], reduction = [1, 1, 8]>} : (tensor<1x10x4x8xf32>) -> tensor<1x10x4x8xf32> {
  ^bb0(%a: tensor<1x10x4x8xf32>):
    %w = arith.constant dense<0.5> : tensor<1x1x8x8xf32>
    %c = tinyml.conv2d %a, %w : (tensor<1x10x4x8xf32>, tensor<1x1x8x8xf32>) -> tensor<1x10x4x8xf32>
    tinyml.yield %c : tensor<1x10x4x8xf32>
  }
  %y = tinyml.fused conv_epilogue (%x) {lowering = #tinyml.lowering<tile = [1, 1, 4, 4], reduction = [1, 3, 4]>} : (tensor<1x10x4x8xf32>) -> tensor<1x10x4x8xf32> {
  ^bb0(%a: tensor<1x10x4x8xf32>):
    %w = arith.constant dense<0.5> : tensor<3x3x8x8xf32>
    %c = tinyml.conv2d %a, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x10x4x8xf32>, tensor<3x3x8x8xf32>) -> tensor<1x10x4x8xf32>
    tinyml.yield %c : tensor<1x10x4x8xf32>
  }
  %z = tinyml.fused conv_epilogue (%y, %x) {lowering = #tinyml.lowering<tile = [1, 1, 4, 4], reduction = [1, 3, 4]>} : (tensor<1x10x4x8xf32>, tensor<1x10x4x8xf32>) -> tensor<1x10x4x8xf32> {
  ^bb0(%a: tensor<1x10x4x8xf32>, %e: tensor<1x10x4x8xf32>):
    %w = arith.constant dense<0.5> : tensor<3x3x8x8xf32>
    %c = tinyml.conv2d %a, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x10x4x8xf32>, tensor<3x3x8x8xf32>) -> tensor<1x10x4x8xf32>
    %s = tinyml.add %e, %c : (tensor<1x10x4x8xf32>, tensor<1x10x4x8xf32>) -> tensor<1x10x4x8xf32>
    tinyml.yield %s : tensor<1x10x4x8xf32>
  }
  %p = tinyml.global_avg_pool %z : (tensor<1x10x4x8xf32>) -> tensor<1x1x1x8xf32>
  %q = tinyml.global_avg_pool %x : (tensor<1x10x4x8xf32>) -> tensor<1x1x1x8xf32>
  return %p, %q : tensor<1x1x1x8xf32>, tensor<1x1x1x8xf32>
}

// -----

// A 5x5 first conv with two rows of padding: the new row of %y at the
// step storing output row i (row i + 1) reads rows i - 1 .. i + 3 of %x,
// one above the row the step writes, which the step before overwrote. So
// the output is a new tensor.
// CHECK-LABEL: func.func @window_above_the_written_row
// CHECK-SAME:    tinyml.line_buffers = 1 : i64
// CHECK:         %[[X:.*]] = tinyml.fused
// CHECK:         %[[NEW:.*]] = tensor.empty() : tensor<1x10x32xf32>
// CHECK:         scf.for {{.*}} iter_args(%{{.*}} = %[[NEW]], %{{.*}} = %{{.*}})
// CHECK:             tensor.extract_slice %[[X]][0, %{{.*}}, 0, 0] [1, %{{.*}}, 4, 8]
// CHECK:             tensor.pad
func.func @window_above_the_written_row(%arg: tensor<1x10x4x8xf32>) -> tensor<1x1x1x8xf32> {
  %x = tinyml.fused conv_epilogue (%arg) {lowering = #tinyml.lowering<tile = [1, 1, 4, 4], reduction = [1, 1, 8]>} : (tensor<1x10x4x8xf32>) -> tensor<1x10x4x8xf32> {
  ^bb0(%a: tensor<1x10x4x8xf32>):
    %w = arith.constant dense<0.5> : tensor<1x1x8x8xf32>
    %c = tinyml.conv2d %a, %w : (tensor<1x10x4x8xf32>, tensor<1x1x8x8xf32>) -> tensor<1x10x4x8xf32>
    tinyml.yield %c : tensor<1x10x4x8xf32>
  }
  %y = tinyml.fused conv_epilogue (%x) {lowering = #tinyml.lowering<tile = [1, 1, 4, 4], reduction = [1, 5, 4]>} : (tensor<1x10x4x8xf32>) -> tensor<1x10x4x8xf32> {
  ^bb0(%a: tensor<1x10x4x8xf32>):
    %w = arith.constant dense<0.5> : tensor<5x5x8x8xf32>
    %c = tinyml.conv2d %a, %w {padding = array<i64: 2, 2, 2, 2>} : (tensor<1x10x4x8xf32>, tensor<5x5x8x8xf32>) -> tensor<1x10x4x8xf32>
    tinyml.yield %c : tensor<1x10x4x8xf32>
  }
  %z = tinyml.fused conv_epilogue (%y, %x) {lowering = #tinyml.lowering<tile = [1, 1, 4, 4], reduction = [1, 3, 4]>} : (tensor<1x10x4x8xf32>, tensor<1x10x4x8xf32>) -> tensor<1x10x4x8xf32> {
  ^bb0(%a: tensor<1x10x4x8xf32>, %e: tensor<1x10x4x8xf32>):
    %w = arith.constant dense<0.5> : tensor<3x3x8x8xf32>
    %c = tinyml.conv2d %a, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x10x4x8xf32>, tensor<3x3x8x8xf32>) -> tensor<1x10x4x8xf32>
    %s = tinyml.add %e, %c : (tensor<1x10x4x8xf32>, tensor<1x10x4x8xf32>) -> tensor<1x10x4x8xf32>
    tinyml.yield %s : tensor<1x10x4x8xf32>
  }
  %p = tinyml.global_avg_pool %z : (tensor<1x10x4x8xf32>) -> tensor<1x1x1x8xf32>
  return %p : tensor<1x1x1x8xf32>
}
