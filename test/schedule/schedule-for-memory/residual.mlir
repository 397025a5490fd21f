// RUN: tinyml-opt %s --split-input-file --tinyml-schedule-for-memory | FileCheck %s

// A residual block exported with the 1x1 shortcut first: its 8 KiB result
// stays live across the whole main branch, whose expanded intermediates
// are 16 KiB each: 40 KiB at the relu. Computing the shortcut after the
// relu (when only 16 + 8 KiB are live) lowers the peak to 32 KiB. The
// weights (constants) and the block input and output (caller-owned) cost
// nothing.

// CHECK-LABEL: func.func @shortcut_first
// CHECK-SAME:    tinyml.schedule_method = "exact"
// CHECK-SAME:    tinyml.schedule_original_peak_bytes = 40960 : i64
// CHECK-SAME:    tinyml.schedule_peak_bytes = 32768 : i64
// CHECK:         %[[A:.*]] = tinyml.conv2d %arg0, %{{.*}} {padding = array<i64: 1, 1, 1, 1>}
// CHECK-NEXT:    %[[R:.*]] = tinyml.relu %[[A]]
// CHECK-NEXT:    %[[S:.*]] = tinyml.conv2d %arg0, %{{.*}} : (tensor<1x8x8x16xf32>, tensor<1x1x16x32xf32>)
// CHECK-NEXT:    %[[B:.*]] = tinyml.conv2d %[[R]]
// CHECK-NEXT:    %[[SUM:.*]] = tinyml.add %[[B]], %[[S]]
// CHECK-NEXT:    tinyml.relu %[[SUM]]
func.func @shortcut_first(%x: tensor<1x8x8x16xf32>) -> tensor<1x8x8x32xf32> {
  %ws = arith.constant dense<0.5> : tensor<1x1x16x32xf32>
  %w1 = arith.constant dense<0.1> : tensor<3x3x16x64xf32>
  %w2 = arith.constant dense<0.1> : tensor<1x1x64x32xf32>
  %s = tinyml.conv2d %x, %ws : (tensor<1x8x8x16xf32>, tensor<1x1x16x32xf32>) -> tensor<1x8x8x32xf32>
  %a = tinyml.conv2d %x, %w1 {padding = array<i64: 1, 1, 1, 1>}
      : (tensor<1x8x8x16xf32>, tensor<3x3x16x64xf32>) -> tensor<1x8x8x64xf32>
  %r = tinyml.relu %a : tensor<1x8x8x64xf32>
  %b = tinyml.conv2d %r, %w2 : (tensor<1x8x8x64xf32>, tensor<1x1x64x32xf32>) -> tensor<1x8x8x32xf32>
  %sum = tinyml.add %b, %s : (tensor<1x8x8x32xf32>, tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32>
  %out = tinyml.relu %sum : tensor<1x8x8x32xf32>
  return %out : tensor<1x8x8x32xf32>
}

// -----

// The same block with the shortcut computed late: already optimal, the
// order (constants included) is left exactly as it was.

// CHECK-LABEL: func.func @shortcut_late
// CHECK-SAME:    tinyml.schedule_method = "original"
// CHECK-SAME:    tinyml.schedule_original_peak_bytes = 32768 : i64
// CHECK-SAME:    tinyml.schedule_peak_bytes = 32768 : i64
// CHECK-NEXT:    arith.constant dense<1.000000e-01> : tensor<3x3x16x64xf32>
// CHECK-NEXT:    tinyml.conv2d
// CHECK-NEXT:    tinyml.relu
// CHECK-NEXT:    arith.constant dense<5.000000e-01> : tensor<1x1x16x32xf32>
// CHECK-NEXT:    arith.constant dense<1.000000e-01> : tensor<1x1x64x32xf32>
// CHECK-NEXT:    tinyml.conv2d
// CHECK-NEXT:    tinyml.conv2d
// CHECK-NEXT:    tinyml.add
// CHECK-NEXT:    tinyml.relu
func.func @shortcut_late(%x: tensor<1x8x8x16xf32>) -> tensor<1x8x8x32xf32> {
  %w1 = arith.constant dense<0.1> : tensor<3x3x16x64xf32>
  %a = tinyml.conv2d %x, %w1 {padding = array<i64: 1, 1, 1, 1>}
      : (tensor<1x8x8x16xf32>, tensor<3x3x16x64xf32>) -> tensor<1x8x8x64xf32>
  %r = tinyml.relu %a : tensor<1x8x8x64xf32>
  %ws = arith.constant dense<0.5> : tensor<1x1x16x32xf32>
  %w2 = arith.constant dense<0.1> : tensor<1x1x64x32xf32>
  %s = tinyml.conv2d %x, %ws : (tensor<1x8x8x16xf32>, tensor<1x1x16x32xf32>) -> tensor<1x8x8x32xf32>
  %b = tinyml.conv2d %r, %w2 : (tensor<1x8x8x64xf32>, tensor<1x1x64x32xf32>) -> tensor<1x8x8x32xf32>
  %sum = tinyml.add %b, %s : (tensor<1x8x8x32xf32>, tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32>
  %out = tinyml.relu %sum : tensor<1x8x8x32xf32>
  return %out : tensor<1x8x8x32xf32>
}

// -----

// A chain has a single order: nothing moves. A reshape is a view: it costs
// nothing and keeps its input alive.

// CHECK-LABEL: func.func @chain
// CHECK-SAME:    tinyml.schedule_method = "original"
// CHECK-SAME:    tinyml.schedule_original_peak_bytes = 64 : i64
// CHECK-NEXT:    tinyml.relu
// CHECK-NEXT:    tinyml.reshape
// CHECK-NEXT:    tinyml.exp
func.func @chain(%x: tensor<4x4xf32>) -> tensor<16xf32> {
  %0 = tinyml.relu %x : tensor<4x4xf32>
  %1 = tinyml.reshape %0 : (tensor<4x4xf32>) -> tensor<16xf32>
  %2 = tinyml.exp %1 : tensor<16xf32>
  return %2 : tensor<16xf32>
}
