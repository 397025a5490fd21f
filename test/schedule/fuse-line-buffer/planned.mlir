// RUN: tinyml-opt %s --tinyml-fuse-line-buffer | tinyml-opt --pass-pipeline="builtin.module( \
// RUN:   tinyml-stage-lower-to-linalg,tinyml-stage-tile-and-vectorize, \
// RUN:   tinyml-stage-bufferize{deallocate=false},tinyml-stage-plan-memory)" \
// RUN:   | FileCheck %s
// RUN: tinyml-opt %s --pass-pipeline="builtin.module( \
// RUN:   tinyml-stage-lower-to-linalg,tinyml-stage-tile-and-vectorize, \
// RUN:   tinyml-stage-bufferize{deallocate=false},tinyml-stage-plan-memory)" \
// RUN:   | FileCheck %s --check-prefix=OUTOFPLACE

// An identity residual block (two 3x3 convs, 16x16x8 f32 maps of 8 KiB)
// from tinyml groups to the planned arena, with and without the line
// buffer.
//
// With it, one whole map at offset 0 serves the block's input and output:
// a step reads up to three rows of it for the first conv's newest row
// (fewer at the edges, the rest zero rows), then reads row i for the
// residual and writes output row i over it, through one view of its 128
// elements. Beside it: the rolling buffer
// (3 rows, 1,536 B) and the padded 3x6x8 window each conv's tiles stage
// (the roll moves rows within the buffer: tinyml-forward-copies drops its
// temporaries; the windows, allocated in the step's two branches, are
// allocated once, out of the loop, and share their bytes: the branches
// never run at once; the two views, alike, are one after CSE). At the peak, inside the loop: the map 8,192 + the
// rolling buffer 3 x 16 x 8 x 4 = 1,536 + one window of 576 = 10,304 B
// (every size a multiple of the 16 B alignment).
// CHECK-LABEL: func.func @identity_block
// CHECK-SAME:    tinyml.arena_bytes = 10304 : i64
// CHECK:         %[[MAP:.*]] = memref.view %arg2[%c0{{.*}}][] : memref<10304xi8> to memref<1x16x16x8xf32>
// CHECK:         %[[ROWS:.*]] = memref.collapse_shape %[[MAP]] {{.*}} into memref<1x16x128xf32>
// CHECK:         memref.view %arg2[%{{.*}}][] : memref<10304xi8> to memref<1x3x16x8xf32>
// CHECK:         %[[WINDOWS:.*]] = memref.view %arg2[%{{.*}}][] : memref<10304xi8> to memref<576xi8>
// CHECK:         %[[WINDOW:.*]] = memref.view %[[WINDOWS]][%c0{{.*}}][] : memref<576xi8> to memref<1x3x6x8xf32>
// CHECK:         scf.for %{{.*}} = %c0 to %c18 step %c1 {
// CHECK:           memref.subview %[[MAP]][0, %{{.*}}, 0, 0] [1, %{{.*}}, 16, 8]
// CHECK:           memref.subview %[[ROWS]][0, %{{.*}}, 0] [1, 1, 128]
// CHECK-NOT:     to memref<1x16x16x8xf32>
// CHECK:         return
//
// Without it the first conv's whole output and the block's output are
// live with its input: at the peak, the second conv, its input (kept for
// the residual add) and its output, 2 x 8,192, + its padded 3x6x8 window
// 576 = 16,960 B (the block's input is the caller's, not in the arena).
// OUTOFPLACE-LABEL: func.func @identity_block
// OUTOFPLACE-SAME:    tinyml.arena_bytes = 16960 : i64

func.func @identity_block(%arg: tensor<1x16x16x8xf32>) -> tensor<1x1x1x8xf32> {
  %x = tinyml.fused conv_epilogue (%arg) {lowering = #tinyml.lowering<tile = [1, 1, 4, 4], reduction = [1, 1, 8]>} : (tensor<1x16x16x8xf32>) -> tensor<1x16x16x8xf32> {
  ^bb0(%a: tensor<1x16x16x8xf32>):
    %w = arith.constant dense<0.5> : tensor<1x1x8x8xf32>
    %c = tinyml.conv2d %a, %w : (tensor<1x16x16x8xf32>, tensor<1x1x8x8xf32>) -> tensor<1x16x16x8xf32>
    tinyml.yield %c : tensor<1x16x16x8xf32>
  }
  %y = tinyml.fused conv_epilogue (%x) {lowering = #tinyml.lowering<tile = [1, 1, 4, 4], reduction = [1, 3, 4]>} : (tensor<1x16x16x8xf32>) -> tensor<1x16x16x8xf32> {
  ^bb0(%a: tensor<1x16x16x8xf32>):
    %w = arith.constant dense<0.5> : tensor<3x3x8x8xf32>
    %c = tinyml.conv2d %a, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x16x16x8xf32>, tensor<3x3x8x8xf32>) -> tensor<1x16x16x8xf32>
    %r = tinyml.relu %c : tensor<1x16x16x8xf32>
    tinyml.yield %r : tensor<1x16x16x8xf32>
  }
  %z = tinyml.fused conv_epilogue (%y, %x) {lowering = #tinyml.lowering<tile = [1, 1, 4, 4], reduction = [1, 3, 4]>} : (tensor<1x16x16x8xf32>, tensor<1x16x16x8xf32>) -> tensor<1x16x16x8xf32> {
  ^bb0(%a: tensor<1x16x16x8xf32>, %e: tensor<1x16x16x8xf32>):
    %w = arith.constant dense<0.5> : tensor<3x3x8x8xf32>
    %c = tinyml.conv2d %a, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x16x16x8xf32>, tensor<3x3x8x8xf32>) -> tensor<1x16x16x8xf32>
    %s = tinyml.add %e, %c : (tensor<1x16x16x8xf32>, tensor<1x16x16x8xf32>) -> tensor<1x16x16x8xf32>
    tinyml.yield %s : tensor<1x16x16x8xf32>
  }
  %p = tinyml.global_avg_pool %z : (tensor<1x16x16x8xf32>) -> tensor<1x1x1x8xf32>
  return %p : tensor<1x1x1x8xf32>
}

