// RUN: tinyml-opt %s --split-input-file --tinyml-choose-tiles | FileCheck %s
// RUN: tinyml-opt %s --split-input-file --tinyml-choose-tiles='max-accumulators=8' | FileCheck %s --check-prefix=SMALL
// RUN: tinyml-opt %s --split-input-file --tinyml-choose-tiles='dsp=true' | FileCheck %s --check-prefix=DSP
// RUN: tinyml-opt %s --split-input-file \
// RUN:   --tinyml-choose-tiles='max-int-accumulators=4 int-reduction-taps=8 int-short-reduction-accumulators=20 int-one-channel-accumulators=2 int-depthwise-rows=true int-depthwise-row-pixels=8' \
// RUN:   | FileCheck %s --check-prefix=M0
// RUN: tinyml-opt %s --split-input-file \
// RUN:   --tinyml-choose-tiles='max-int-accumulators=4 int-reduction-taps=8 int-winograd-weight-bytes=8192 int-winograd-min-channels=8' \
// RUN:   | FileCheck %s --check-prefix=WINO
// RUN: tinyml-opt %s --split-input-file \
// RUN:   --tinyml-choose-tiles='dsp=true int-reduction-taps=8 int-winograd-weight-bytes=8192' \
// RUN:   | FileCheck %s --check-prefix=WINODSP

// A 3x3 conv with padding 1 over 32 columns: tiles must divide the row (the
// transform script leaves no partial tiles), so 4 pixels x 4 channels; with
// room for 8 accumulators, 2 x 4. A step of the reduction takes a window
// row: 3 taps x 4 input channels, about 12 input values.
// CHECK-LABEL: func.func @padded_conv
// CHECK:         tinyml.fused conv_epilogue (%arg0) {lowering = #tinyml.lowering<tile = [1, 1, 4, 4], reduction = [1, 3, 4]>}
// SMALL-LABEL: func.func @padded_conv
// SMALL:         tinyml.fused conv_epilogue (%arg0) {lowering = #tinyml.lowering<tile = [1, 1, 2, 4], reduction = [1, 3, 4]>}
// A float conv's tile does not depend on the DSP extension.
// DSP-LABEL: func.func @padded_conv
// DSP:         tinyml.fused conv_epilogue (%arg0) {lowering = #tinyml.lowering<tile = [1, 1, 4, 4], reduction = [1, 3, 4]>}
func.func @padded_conv(%x: tensor<1x4x32x8xf32>) -> tensor<1x4x32x16xf32> {
  %y = tinyml.fused conv_epilogue (%x) : (tensor<1x4x32x8xf32>) -> tensor<1x4x32x16xf32> {
  ^bb0(%xi: tensor<1x4x32x8xf32>):
    %w = arith.constant dense<1.0> : tensor<3x3x8x16xf32>
    %c = tinyml.conv2d %xi, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x32x8xf32>, tensor<3x3x8x16xf32>) -> tensor<1x4x32x16xf32>
    %r = tinyml.relu %c : tensor<1x4x32x16xf32>
    tinyml.yield %r : tensor<1x4x32x16xf32>
  }
  return %y : tensor<1x4x32x16xf32>
}

// -----

// A 1x1 conv over 6 columns: 3-pixel tiles; all 4 input channels a step.
// A matmul (one row) tiles output columns only, up to 8: 10 columns take
// tiles of 5; 4 of k a step.
// CHECK-LABEL: func.func @row_and_matmul
// CHECK:         tinyml.fused conv_epilogue (%arg0) {lowering = #tinyml.lowering<tile = [1, 1, 3, 4], reduction = [1, 1, 4]>}
// CHECK:         tinyml.fused conv_epilogue (%arg1, %arg2) {lowering = #tinyml.lowering<tile = [1, 5], reduction = [4]>}
func.func @row_and_matmul(%x: tensor<1x1x6x4xf32>, %a: tensor<1x8xf32>, %m: tensor<8x10xf32>)
    -> (tensor<1x1x6x8xf32>, tensor<1x10xf32>) {
  %y = tinyml.fused conv_epilogue (%x) : (tensor<1x1x6x4xf32>) -> tensor<1x1x6x8xf32> {
  ^bb0(%xi: tensor<1x1x6x4xf32>):
    %w = arith.constant dense<1.0> : tensor<1x1x4x8xf32>
    %c = tinyml.conv2d %xi, %w : (tensor<1x1x6x4xf32>, tensor<1x1x4x8xf32>) -> tensor<1x1x6x8xf32>
    tinyml.yield %c : tensor<1x1x6x8xf32>
  }
  %z = tinyml.fused conv_epilogue (%a, %m) : (tensor<1x8xf32>, tensor<8x10xf32>) -> tensor<1x10xf32> {
  ^bb0(%ai: tensor<1x8xf32>, %mi: tensor<8x10xf32>):
    %p = tinyml.matmul %ai, %mi : (tensor<1x8xf32>, tensor<8x10xf32>) -> tensor<1x10xf32>
    tinyml.yield %p : tensor<1x10xf32>
  }
  return %y, %z : tensor<1x1x6x8xf32>, tensor<1x10xf32>
}

// -----

// A group in a recurrent layer's time loop is tiled like one outside it
// (k = 10: steps of 2, which divide it).
// CHECK-LABEL: func.func @matmul_in_a_time_loop
// CHECK:         scf.for
// CHECK-NEXT:      tinyml.fused conv_epilogue (%{{.*}}, %arg1) {lowering = #tinyml.lowering<tile = [1, 5], reduction = [2]>}
func.func @matmul_in_a_time_loop(%h0: tensor<1x10xf32>, %r: tensor<10x10xf32>) -> tensor<1x10xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %h = scf.for %t = %c0 to %c4 step %c1 iter_args(%hp = %h0) -> (tensor<1x10xf32>) {
    %z = tinyml.fused conv_epilogue (%hp, %r) : (tensor<1x10xf32>, tensor<10x10xf32>) -> tensor<1x10xf32> {
    ^bb0(%hi: tensor<1x10xf32>, %ri: tensor<10x10xf32>):
      %p = tinyml.matmul %hi, %ri : (tensor<1x10xf32>, tensor<10x10xf32>) -> tensor<1x10xf32>
      %s = tinyml.tanh %p : tensor<1x10xf32>
      tinyml.yield %s : tensor<1x10xf32>
    }
    scf.yield %z : tensor<1x10xf32>
  }
  return %h : tensor<1x10xf32>
}

// -----

// A padded depthwise conv is tiled as an unpadded one: pixel tiles
// dividing the row (its padded window is staged by the transform script),
// one window row per step.
// CHECK-LABEL: func.func @padded_depthwise
// CHECK:         tinyml.fused conv_epilogue (%arg0, %arg1) {lowering = #tinyml.lowering<tile = [1, 1, 3, 4], reduction = [1, 0]>}
func.func @padded_depthwise(%x: tensor<1x6x6x4xf32>, %w: tensor<3x3x4x1xf32>) -> tensor<1x6x6x4xf32> {
  %y = tinyml.fused conv_epilogue (%x, %w) : (tensor<1x6x6x4xf32>, tensor<3x3x4x1xf32>) -> tensor<1x6x6x4xf32> {
  ^bb0(%xi: tensor<1x6x6x4xf32>, %wi: tensor<3x3x4x1xf32>):
    %c = tinyml.depthwise_conv2d %xi, %wi {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x6x6x4xf32>, tensor<3x3x4x1xf32>) -> tensor<1x6x6x4xf32>
    tinyml.yield %c : tensor<1x6x6x4xf32>
  }
  return %y : tensor<1x6x6x4xf32>
}

// -----

// Not tiled: element-wise and reduction groups, a depthwise conv with a
// channel multiplier, and ops outside groups.
// CHECK-LABEL: func.func @untiled
// CHECK-NOT:     lowering =
func.func @untiled(%x: tensor<1x4x4x2xf32>, %w: tensor<3x3x2x2xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x2xf32>) {
  %d = tinyml.fused conv_epilogue (%x, %w) : (tensor<1x4x4x2xf32>, tensor<3x3x2x2xf32>) -> tensor<1x4x4x4xf32> {
  ^bb0(%xi: tensor<1x4x4x2xf32>, %wi: tensor<3x3x2x2xf32>):
    %c = tinyml.depthwise_conv2d %xi, %wi {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x4x2xf32>, tensor<3x3x2x2xf32>) -> tensor<1x4x4x4xf32>
    tinyml.yield %c : tensor<1x4x4x4xf32>
  }
  %e = tinyml.fused elementwise (%x) : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  ^bb0(%xi: tensor<1x4x4x2xf32>):
    %n = tinyml.neg %xi : tensor<1x4x4x2xf32>
    %r = tinyml.relu %n : tensor<1x4x4x2xf32>
    tinyml.yield %r : tensor<1x4x4x2xf32>
  }
  return %d, %e : tensor<1x4x4x4xf32>, tensor<1x4x4x2xf32>
}

// -----

// RUN: not tinyml-opt %s --tinyml-choose-tiles='max-accumulators=0' 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: tinyml-opt: error: option 'max-accumulators' of pass 'tinyml-choose-tiles' must be >= 1, got 0
// CHECK-LABEL: func.func @options
// SMALL-LABEL: func.func @options
func.func @options() {
  return
}

// -----

// A quantized (int8) conv keeps its int32 accumulators in the core's
// registers, not the FPU's: at most 8 (max-int-accumulators), so 2 pixels x
// 4 channels of a 32-column row, where the float conv above takes 4 x 4;
// a step of its reduction takes 16 input values (int-reduction-taps): a
// 1x1 window, 16 of the 64 input channels.
// With the DSP extension (dsp=true) the tile is the squarest that keeps its
// accumulators and each pixel's two input halfword pairs in 10 registers
// (smlad-registers): 2 pixels x 2 channels (4 + 2 * 2), not 2 x 4 (8 + 4);
// a 1x1 conv's step takes 32 input values (int-pointwise-taps): no window
// row competes for the registers.
// CHECK-LABEL: func.func @quantized_conv
// CHECK:         tinyml.fused conv_epilogue (%arg0, %arg1) {lowering = #tinyml.lowering<tile = [1, 1, 2, 4], reduction = [1, 1, 16]>}
// DSP-LABEL: func.func @quantized_conv
// DSP:         tinyml.fused conv_epilogue (%arg0, %arg1) {lowering = #tinyml.lowering<tile = [1, 1, 2, 2], reduction = [1, 1, 32]>}
// The M0's options: 4 accumulators (1 pixel x 4 channels), 8 values a step;
// a reduction of 64 values is not short, so the short-reduction tile does
// not apply.
// M0-LABEL: func.func @quantized_conv
// M0:         tinyml.fused conv_epilogue (%arg0, %arg1) {lowering = #tinyml.lowering<tile = [1, 1, 1, 4], reduction = [1, 1, 8]>}
func.func @quantized_conv(%x: tensor<1x4x32x64x!quant.uniform<i8:f32, 0.5:-3>>,
                          %w: tensor<1x1x64x16x!quant.uniform<i8:f32, 0.1>>)
    -> tensor<1x4x32x16x!quant.uniform<i8:f32, 0.25:0>> {
  %y = tinyml.fused conv_epilogue (%x, %w) : (tensor<1x4x32x64x!quant.uniform<i8:f32, 0.5:-3>>,
      tensor<1x1x64x16x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x4x32x16x!quant.uniform<i8:f32, 0.25:0>> {
  ^bb0(%xi: tensor<1x4x32x64x!quant.uniform<i8:f32, 0.5:-3>>, %wi: tensor<1x1x64x16x!quant.uniform<i8:f32, 0.1>>):
    %c = tinyml.conv2d %xi, %wi : (tensor<1x4x32x64x!quant.uniform<i8:f32, 0.5:-3>>,
        tensor<1x1x64x16x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x4x32x16x!quant.uniform<i8:f32, 0.25:0>>
    tinyml.yield %c : tensor<1x4x32x16x!quant.uniform<i8:f32, 0.25:0>>
  }
  return %y : tensor<1x4x32x16x!quant.uniform<i8:f32, 0.25:0>>
}

// -----

// A 1x1 conv of 8 input channels reduces 8 values an output, fewer than 10:
// with int-short-reduction-accumulators=20 it takes a tile of 20 (4 pixels
// x 4 channels of the 32-column row) instead of max-int-accumulators' 4.
// M0-LABEL: func.func @quantized_conv_short_reduction
// M0:         tinyml.fused conv_epilogue (%arg0, %arg1) {lowering = #tinyml.lowering<tile = [1, 1, 4, 4], reduction = [1, 1, 8]>}
// CHECK-LABEL: func.func @quantized_conv_short_reduction
// CHECK:         tinyml.fused conv_epilogue (%arg0, %arg1) {lowering = #tinyml.lowering<tile = [1, 1, 2, 4], reduction = [1, 1, 8]>}
// With the DSP extension its reduction is one step, but 16 channels do not
// fit one tile (16 + 2 registers): the squarest tile.
// DSP-LABEL: func.func @quantized_conv_short_reduction
// DSP:         tinyml.fused conv_epilogue (%arg0, %arg1) {lowering = #tinyml.lowering<tile = [1, 1, 2, 2], reduction = [1, 1, 8]>}
func.func @quantized_conv_short_reduction(%x: tensor<1x4x32x8x!quant.uniform<i8:f32, 0.5:-3>>,
                                          %w: tensor<1x1x8x16x!quant.uniform<i8:f32, 0.1>>)
    -> tensor<1x4x32x16x!quant.uniform<i8:f32, 0.25:0>> {
  %y = tinyml.fused conv_epilogue (%x, %w) : (tensor<1x4x32x8x!quant.uniform<i8:f32, 0.5:-3>>,
      tensor<1x1x8x16x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x4x32x16x!quant.uniform<i8:f32, 0.25:0>> {
  ^bb0(%xi: tensor<1x4x32x8x!quant.uniform<i8:f32, 0.5:-3>>, %wi: tensor<1x1x8x16x!quant.uniform<i8:f32, 0.1>>):
    %c = tinyml.conv2d %xi, %wi : (tensor<1x4x32x8x!quant.uniform<i8:f32, 0.5:-3>>,
        tensor<1x1x8x16x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x4x32x16x!quant.uniform<i8:f32, 0.25:0>>
    tinyml.yield %c : tensor<1x4x32x16x!quant.uniform<i8:f32, 0.25:0>>
  }
  return %y : tensor<1x4x32x16x!quant.uniform<i8:f32, 0.25:0>>
}

// -----

// With the DSP extension, a 1x1 conv whose reduction is one step (8 input
// channels) and whose 8 output channels fit one pixel's tile (8 + 2
// registers) takes them all, beyond max-channels: the tile has no loop but
// the pixels'.
// DSP-LABEL: func.func @quantized_pointwise_one_step
// DSP:         tinyml.fused conv_epilogue (%arg0, %arg1) {lowering = #tinyml.lowering<tile = [1, 1, 1, 8], reduction = [1, 1, 8]>}
func.func @quantized_pointwise_one_step(%x: tensor<1x4x4x8x!quant.uniform<i8:f32, 0.5:-3>>,
                                        %w: tensor<1x1x8x8x!quant.uniform<i8:f32, 0.1>>)
    -> tensor<1x4x4x8x!quant.uniform<i8:f32, 0.25:0>> {
  %y = tinyml.fused conv_epilogue (%x, %w) : (tensor<1x4x4x8x!quant.uniform<i8:f32, 0.5:-3>>,
      tensor<1x1x8x8x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x4x4x8x!quant.uniform<i8:f32, 0.25:0>> {
  ^bb0(%xi: tensor<1x4x4x8x!quant.uniform<i8:f32, 0.5:-3>>, %wi: tensor<1x1x8x8x!quant.uniform<i8:f32, 0.1>>):
    %c = tinyml.conv2d %xi, %wi : (tensor<1x4x4x8x!quant.uniform<i8:f32, 0.5:-3>>,
        tensor<1x1x8x8x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x4x4x8x!quant.uniform<i8:f32, 0.25:0>>
    tinyml.yield %c : tensor<1x4x4x8x!quant.uniform<i8:f32, 0.25:0>>
  }
  return %y : tensor<1x4x4x8x!quant.uniform<i8:f32, 0.25:0>>
}

// -----

// Its 8 output channels over 64 input channels: two steps of 32, a loop in
// the tile either way, so the squarest tile.
// DSP-LABEL: func.func @quantized_pointwise_two_steps
// DSP:         tinyml.fused conv_epilogue (%arg0, %arg1) {lowering = #tinyml.lowering<tile = [1, 1, 2, 2], reduction = [1, 1, 32]>}
func.func @quantized_pointwise_two_steps(%x: tensor<1x4x4x64x!quant.uniform<i8:f32, 0.5:-3>>,
                                         %w: tensor<1x1x64x8x!quant.uniform<i8:f32, 0.1>>)
    -> tensor<1x4x4x8x!quant.uniform<i8:f32, 0.25:0>> {
  %y = tinyml.fused conv_epilogue (%x, %w) : (tensor<1x4x4x64x!quant.uniform<i8:f32, 0.5:-3>>,
      tensor<1x1x64x8x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x4x4x8x!quant.uniform<i8:f32, 0.25:0>> {
  ^bb0(%xi: tensor<1x4x4x64x!quant.uniform<i8:f32, 0.5:-3>>, %wi: tensor<1x1x64x8x!quant.uniform<i8:f32, 0.1>>):
    %c = tinyml.conv2d %xi, %wi : (tensor<1x4x4x64x!quant.uniform<i8:f32, 0.5:-3>>,
        tensor<1x1x64x8x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x4x4x8x!quant.uniform<i8:f32, 0.25:0>>
    tinyml.yield %c : tensor<1x4x4x8x!quant.uniform<i8:f32, 0.25:0>>
  }
  return %y : tensor<1x4x4x8x!quant.uniform<i8:f32, 0.25:0>>
}

// -----

// A conv of one input channel whose reduction is not short (a 10x4 stem
// over a spectrogram, 40 values an output): with int-one-channel-accumulators=2
// its tile keeps 2 channels (each step reads one value per kernel column,
// the loop walks the stage and the weights at two strides); the default
// takes max-int-accumulators' (a row of 7 leaves one pixel x 4 channels).
// M0-LABEL: func.func @quantized_one_channel_stem
// M0:         tinyml.fused conv_epilogue (%arg0, %arg1) {lowering = #tinyml.lowering<tile = [1, 1, 1, 2], reduction = [1, 4, 1]>}
// CHECK-LABEL: func.func @quantized_one_channel_stem
// CHECK:         tinyml.fused conv_epilogue (%arg0, %arg1) {lowering = #tinyml.lowering<tile = [1, 1, 1, 4], reduction = [1, 4, 1]>}
func.func @quantized_one_channel_stem(%x: tensor<1x49x10x1x!quant.uniform<i8:f32, 0.5:-3>>,
                                      %w: tensor<10x4x1x16x!quant.uniform<i8:f32, 0.1>>)
    -> tensor<1x40x7x16x!quant.uniform<i8:f32, 0.25:0>> {
  %y = tinyml.fused conv_epilogue (%x, %w) : (tensor<1x49x10x1x!quant.uniform<i8:f32, 0.5:-3>>,
      tensor<10x4x1x16x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x40x7x16x!quant.uniform<i8:f32, 0.25:0>> {
  ^bb0(%xi: tensor<1x49x10x1x!quant.uniform<i8:f32, 0.5:-3>>, %wi: tensor<10x4x1x16x!quant.uniform<i8:f32, 0.1>>):
    %c = tinyml.conv2d %xi, %wi : (tensor<1x49x10x1x!quant.uniform<i8:f32, 0.5:-3>>,
        tensor<10x4x1x16x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x40x7x16x!quant.uniform<i8:f32, 0.25:0>>
    tinyml.yield %c : tensor<1x40x7x16x!quant.uniform<i8:f32, 0.25:0>>
  }
  return %y : tensor<1x40x7x16x!quant.uniform<i8:f32, 0.25:0>>
}

// -----

// With the DSP extension, a row of 5 columns: a 5-pixel tile needs 10
// registers for its input pairs alone. The conv is unpadded, so its pixel
// tile may leave part of the row (the script peels the pixel loop): 2
// pixels x 2 channels, the last pixel a 1 x 2 tile, 1.1 words loaded a MAC
// against 1.25 for 1 pixel x 4 channels.
// DSP-LABEL: func.func @quantized_conv_odd_row
// DSP:         tinyml.fused conv_epilogue (%arg0, %arg1) {lowering = #tinyml.lowering<tile = [1, 1, 2, 2], reduction = [1, 1, 32]>}
func.func @quantized_conv_odd_row(%x: tensor<1x4x5x64x!quant.uniform<i8:f32, 0.5:-3>>,
                                  %w: tensor<1x1x64x16x!quant.uniform<i8:f32, 0.1>>)
    -> tensor<1x4x5x16x!quant.uniform<i8:f32, 0.25:0>> {
  %y = tinyml.fused conv_epilogue (%x, %w) : (tensor<1x4x5x64x!quant.uniform<i8:f32, 0.5:-3>>,
      tensor<1x1x64x16x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x4x5x16x!quant.uniform<i8:f32, 0.25:0>> {
  ^bb0(%xi: tensor<1x4x5x64x!quant.uniform<i8:f32, 0.5:-3>>, %wi: tensor<1x1x64x16x!quant.uniform<i8:f32, 0.1>>):
    %c = tinyml.conv2d %xi, %wi : (tensor<1x4x5x64x!quant.uniform<i8:f32, 0.5:-3>>,
        tensor<1x1x64x16x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x4x5x16x!quant.uniform<i8:f32, 0.25:0>>
    tinyml.yield %c : tensor<1x4x5x16x!quant.uniform<i8:f32, 0.25:0>>
  }
  return %y : tensor<1x4x5x16x!quant.uniform<i8:f32, 0.25:0>>
}

// -----

// The same row padded (a 3x3 window): a padded conv's script stages its
// windows in two levels and peels nothing, so its pixel tile divides the
// row: 1 pixel x 4 channels.
// DSP-LABEL: func.func @quantized_padded_conv_odd_row
// DSP:         tinyml.fused conv_epilogue (%arg0, %arg1) {lowering = #tinyml.lowering<tile = [1, 1, 1, 4], reduction = [1, 3, 4]>}
func.func @quantized_padded_conv_odd_row(%x: tensor<1x4x5x64x!quant.uniform<i8:f32, 0.5:-3>>,
                                         %w: tensor<3x3x64x16x!quant.uniform<i8:f32, 0.1>>)
    -> tensor<1x4x5x16x!quant.uniform<i8:f32, 0.25:0>> {
  %y = tinyml.fused conv_epilogue (%x, %w) : (tensor<1x4x5x64x!quant.uniform<i8:f32, 0.5:-3>>,
      tensor<3x3x64x16x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x4x5x16x!quant.uniform<i8:f32, 0.25:0>> {
  ^bb0(%xi: tensor<1x4x5x64x!quant.uniform<i8:f32, 0.5:-3>>, %wi: tensor<3x3x64x16x!quant.uniform<i8:f32, 0.1>>):
    %c = tinyml.conv2d %xi, %wi {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x5x64x!quant.uniform<i8:f32, 0.5:-3>>,
        tensor<3x3x64x16x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x4x5x16x!quant.uniform<i8:f32, 0.25:0>>
    tinyml.yield %c : tensor<1x4x5x16x!quant.uniform<i8:f32, 0.25:0>>
  }
  return %y : tensor<1x4x5x16x!quant.uniform<i8:f32, 0.25:0>>
}

// -----

// The same unpadded row read through a transpose (an NCHW input, which
// tinyml-fuse-input-transpose moves into the group, whose script is then
// the two-level one that peels nothing): a pixel tile dividing the row.
// DSP-LABEL: func.func @quantized_conv_odd_row_transposed
// DSP:         tinyml.fused conv_epilogue (%{{.*}}, %arg1) {lowering = #tinyml.lowering<tile = [1, 1, 1, 4], reduction = [1, 1, 32]>}
func.func @quantized_conv_odd_row_transposed(%x: tensor<1x64x4x5x!quant.uniform<i8:f32, 0.5:-3>>,
                                             %w: tensor<1x1x64x16x!quant.uniform<i8:f32, 0.1>>)
    -> tensor<1x4x5x16x!quant.uniform<i8:f32, 0.25:0>> {
  %t = tinyml.transpose %x {permutation = array<i64: 0, 2, 3, 1>} : (tensor<1x64x4x5x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<1x4x5x64x!quant.uniform<i8:f32, 0.5:-3>>
  %y = tinyml.fused conv_epilogue (%t, %w) : (tensor<1x4x5x64x!quant.uniform<i8:f32, 0.5:-3>>,
      tensor<1x1x64x16x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x4x5x16x!quant.uniform<i8:f32, 0.25:0>> {
  ^bb0(%xi: tensor<1x4x5x64x!quant.uniform<i8:f32, 0.5:-3>>, %wi: tensor<1x1x64x16x!quant.uniform<i8:f32, 0.1>>):
    %c = tinyml.conv2d %xi, %wi : (tensor<1x4x5x64x!quant.uniform<i8:f32, 0.5:-3>>,
        tensor<1x1x64x16x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x4x5x16x!quant.uniform<i8:f32, 0.25:0>>
    tinyml.yield %c : tensor<1x4x5x16x!quant.uniform<i8:f32, 0.25:0>>
  }
  return %y : tensor<1x4x5x16x!quant.uniform<i8:f32, 0.25:0>>
}

// -----

// An RGB image's first conv (3 input channels): a reduction step of 3
// values a tap row is no whole word. With the DSP extension its whole
// window, 27 values and a zero one, is one step of whole words (the
// lowering's window-as-channels input, a 1x1 conv over it); without it,
// 3 values a step.
// CHECK-LABEL: func.func @quantized_rgb_conv
// CHECK:         lowering = #tinyml.lowering<tile = [1, 1, 2, 4], reduction = [1, 3, 3]>
// DSP-LABEL: func.func @quantized_rgb_conv
// DSP:         lowering = #tinyml.lowering<tile = [1, 1, 2, 2], reduction = [1, 1, 28]>
func.func @quantized_rgb_conv(%x: tensor<1x8x8x3x!quant.uniform<i8:f32, 0.5:-3>>,
                              %w: tensor<3x3x3x8x!quant.uniform<i8:f32, 0.1>>)
    -> tensor<1x4x4x8x!quant.uniform<i8:f32, 0.25:0>> {
  %y = tinyml.fused conv_epilogue (%x, %w) : (tensor<1x8x8x3x!quant.uniform<i8:f32, 0.5:-3>>,
      tensor<3x3x3x8x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x4x4x8x!quant.uniform<i8:f32, 0.25:0>> {
  ^bb0(%xi: tensor<1x8x8x3x!quant.uniform<i8:f32, 0.5:-3>>, %wi: tensor<3x3x3x8x!quant.uniform<i8:f32, 0.1>>):
    %c = tinyml.conv2d %xi, %wi {strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 1, 1>} : (tensor<1x8x8x3x!quant.uniform<i8:f32, 0.5:-3>>,
        tensor<3x3x3x8x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x4x4x8x!quant.uniform<i8:f32, 0.25:0>>
    tinyml.yield %c : tensor<1x4x4x8x!quant.uniform<i8:f32, 0.25:0>>
  }
  return %y : tensor<1x4x4x8x!quant.uniform<i8:f32, 0.25:0>>
}

// -----

// The same RGB conv read through a transpose (an NCHW input, fused into the
// conv's tiles as their window's reader, which a window read as channels
// would have to be too): its 3 channels read as 4.
// DSP-LABEL: func.func @quantized_rgb_conv_transposed
// DSP:         lowering = #tinyml.lowering<tile = [1, 1, 2, 2], reduction = [1, 3, 4]>
func.func @quantized_rgb_conv_transposed(%x: tensor<1x3x8x8x!quant.uniform<i8:f32, 0.5:-3>>,
                                         %w: tensor<3x3x3x8x!quant.uniform<i8:f32, 0.1>>)
    -> tensor<1x4x4x8x!quant.uniform<i8:f32, 0.25:0>> {
  %t = tinyml.transpose %x {permutation = array<i64: 0, 2, 3, 1>} : (tensor<1x3x8x8x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<1x8x8x3x!quant.uniform<i8:f32, 0.5:-3>>
  %y = tinyml.fused conv_epilogue (%t, %w) : (tensor<1x8x8x3x!quant.uniform<i8:f32, 0.5:-3>>,
      tensor<3x3x3x8x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x4x4x8x!quant.uniform<i8:f32, 0.25:0>> {
  ^bb0(%xi: tensor<1x8x8x3x!quant.uniform<i8:f32, 0.5:-3>>, %wi: tensor<3x3x3x8x!quant.uniform<i8:f32, 0.1>>):
    %c = tinyml.conv2d %xi, %wi {strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 1, 1>} : (tensor<1x8x8x3x!quant.uniform<i8:f32, 0.5:-3>>,
        tensor<3x3x3x8x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x4x4x8x!quant.uniform<i8:f32, 0.25:0>>
    tinyml.yield %c : tensor<1x4x4x8x!quant.uniform<i8:f32, 0.25:0>>
  }
  return %y : tensor<1x4x4x8x!quant.uniform<i8:f32, 0.25:0>>
}

// -----

// Not as channels: a 5x5 RGB window (76 values) is more than a step of
// int-pointwise-taps, a 3x1 one (9 values) would take 3 zeros to make
// whole words. Both read their 3 channels as 4.
// DSP-LABEL: func.func @quantized_rgb_conv_not_window
// DSP:         lowering = #tinyml.lowering<tile = [1, 1, 2, 2], reduction = [1, 5, 2]>
// DSP:         lowering = #tinyml.lowering<tile = [1, 1, 2, 2], reduction = [1, 1, 4]>
func.func @quantized_rgb_conv_not_window(%x: tensor<1x8x8x3x!quant.uniform<i8:f32, 0.5:-3>>,
                                         %w5: tensor<5x5x3x8x!quant.uniform<i8:f32, 0.1>>,
                                         %w3: tensor<3x1x3x8x!quant.uniform<i8:f32, 0.1>>)
    -> (tensor<1x4x4x8x!quant.uniform<i8:f32, 0.25:0>>, tensor<1x6x8x8x!quant.uniform<i8:f32, 0.25:0>>) {
  %y = tinyml.fused conv_epilogue (%x, %w5) : (tensor<1x8x8x3x!quant.uniform<i8:f32, 0.5:-3>>,
      tensor<5x5x3x8x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x4x4x8x!quant.uniform<i8:f32, 0.25:0>> {
  ^bb0(%xi: tensor<1x8x8x3x!quant.uniform<i8:f32, 0.5:-3>>, %wi: tensor<5x5x3x8x!quant.uniform<i8:f32, 0.1>>):
    %c = tinyml.conv2d %xi, %wi {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 2, 2>} : (tensor<1x8x8x3x!quant.uniform<i8:f32, 0.5:-3>>,
        tensor<5x5x3x8x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x4x4x8x!quant.uniform<i8:f32, 0.25:0>>
    tinyml.yield %c : tensor<1x4x4x8x!quant.uniform<i8:f32, 0.25:0>>
  }
  %z = tinyml.fused conv_epilogue (%x, %w3) : (tensor<1x8x8x3x!quant.uniform<i8:f32, 0.5:-3>>,
      tensor<3x1x3x8x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x6x8x8x!quant.uniform<i8:f32, 0.25:0>> {
  ^bb0(%xi: tensor<1x8x8x3x!quant.uniform<i8:f32, 0.5:-3>>, %wi: tensor<3x1x3x8x!quant.uniform<i8:f32, 0.1>>):
    %c = tinyml.conv2d %xi, %wi : (tensor<1x8x8x3x!quant.uniform<i8:f32, 0.5:-3>>,
        tensor<3x1x3x8x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x6x8x8x!quant.uniform<i8:f32, 0.25:0>>
    tinyml.yield %c : tensor<1x6x8x8x!quant.uniform<i8:f32, 0.25:0>>
  }
  return %y, %z : tensor<1x4x4x8x!quant.uniform<i8:f32, 0.25:0>>, tensor<1x6x8x8x!quant.uniform<i8:f32, 0.25:0>>
}

// -----

// A one-channel conv whose kernel rows are 4 taps (KWS's 10x4 first conv):
// with the DSP extension the taps of a row are read as 4 channels of one
// tap (a step of [1, 1, 4]: the lowering's taps-as-channels window), whole
// SMLAD words; without it, a row of 4 taps per step. The tile divides the
// 5-column row (the script of a conv read through a window reader peels
// nothing).
// CHECK-LABEL: func.func @quantized_one_channel_conv
// CHECK:         lowering = #tinyml.lowering<tile = [1, 1, 1, 4], reduction = [1, 4, 1]>
// DSP-LABEL: func.func @quantized_one_channel_conv
// DSP:         lowering = #tinyml.lowering<tile = [1, 1, 1, 4], reduction = [1, 1, 4]>
func.func @quantized_one_channel_conv(%x: tensor<1x49x10x1x!quant.uniform<i8:f32, 0.5:-3>>,
                                      %w: tensor<10x4x1x8x!quant.uniform<i8:f32, 0.1>>)
    -> tensor<1x25x5x8x!quant.uniform<i8:f32, 0.25:0>> {
  %y = tinyml.fused conv_epilogue (%x, %w) : (tensor<1x49x10x1x!quant.uniform<i8:f32, 0.5:-3>>,
      tensor<10x4x1x8x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x25x5x8x!quant.uniform<i8:f32, 0.25:0>> {
  ^bb0(%xi: tensor<1x49x10x1x!quant.uniform<i8:f32, 0.5:-3>>, %wi: tensor<10x4x1x8x!quant.uniform<i8:f32, 0.1>>):
    %c = tinyml.conv2d %xi, %wi {strides = array<i64: 2, 2>, padding = array<i64: 4, 1, 5, 2>} : (tensor<1x49x10x1x!quant.uniform<i8:f32, 0.5:-3>>,
        tensor<10x4x1x8x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x25x5x8x!quant.uniform<i8:f32, 0.25:0>>
    tinyml.yield %c : tensor<1x25x5x8x!quant.uniform<i8:f32, 0.25:0>>
  }
  return %y : tensor<1x25x5x8x!quant.uniform<i8:f32, 0.25:0>>
}

// -----

// Not when the kernel row is not whole words (3 taps), nor when its taps
// are dilated (they are not neighbours in the input).
// DSP-LABEL: func.func @quantized_one_channel_conv_not_words
// DSP:         lowering = #tinyml.lowering<tile = [1, 1, 2, 2], reduction = [1, 3, 1]>
// DSP:         lowering = #tinyml.lowering<tile = [1, 1, 2, 2], reduction = [1, 4, 1]>
func.func @quantized_one_channel_conv_not_words(%x: tensor<1x12x12x1x!quant.uniform<i8:f32, 0.5:-3>>,
    %w3: tensor<3x3x1x8x!quant.uniform<i8:f32, 0.1>>, %w4: tensor<1x4x1x8x!quant.uniform<i8:f32, 0.1>>)
    -> (tensor<1x10x10x8x!quant.uniform<i8:f32, 0.25:0>>, tensor<1x12x6x8x!quant.uniform<i8:f32, 0.25:0>>) {
  %a = tinyml.fused conv_epilogue (%x, %w3) : (tensor<1x12x12x1x!quant.uniform<i8:f32, 0.5:-3>>,
      tensor<3x3x1x8x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x10x10x8x!quant.uniform<i8:f32, 0.25:0>> {
  ^bb0(%xi: tensor<1x12x12x1x!quant.uniform<i8:f32, 0.5:-3>>, %wi: tensor<3x3x1x8x!quant.uniform<i8:f32, 0.1>>):
    %c = tinyml.conv2d %xi, %wi : (tensor<1x12x12x1x!quant.uniform<i8:f32, 0.5:-3>>,
        tensor<3x3x1x8x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x10x10x8x!quant.uniform<i8:f32, 0.25:0>>
    tinyml.yield %c : tensor<1x10x10x8x!quant.uniform<i8:f32, 0.25:0>>
  }
  %b = tinyml.fused conv_epilogue (%x, %w4) : (tensor<1x12x12x1x!quant.uniform<i8:f32, 0.5:-3>>,
      tensor<1x4x1x8x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x12x6x8x!quant.uniform<i8:f32, 0.25:0>> {
  ^bb0(%xi: tensor<1x12x12x1x!quant.uniform<i8:f32, 0.5:-3>>, %wi: tensor<1x4x1x8x!quant.uniform<i8:f32, 0.1>>):
    %c = tinyml.conv2d %xi, %wi {dilations = array<i64: 1, 2>} : (tensor<1x12x12x1x!quant.uniform<i8:f32, 0.5:-3>>,
        tensor<1x4x1x8x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x12x6x8x!quant.uniform<i8:f32, 0.25:0>>
    tinyml.yield %c : tensor<1x12x6x8x!quant.uniform<i8:f32, 0.25:0>>
  }
  return %a, %b : tensor<1x10x10x8x!quant.uniform<i8:f32, 0.25:0>>, tensor<1x12x6x8x!quant.uniform<i8:f32, 0.25:0>>
}

// -----

// A quantized depthwise conv: 2 pixels x 4 channels in the accumulators;
// with the DSP extension, 5 pixels of one channel, whose taps' weights
// then serve all 5.
// CHECK-LABEL: func.func @quantized_depthwise
// CHECK:         tinyml.fused conv_epilogue (%arg0, %arg1) {lowering = #tinyml.lowering<tile = [1, 1, 2, 4], reduction = [1, 0]>}
// DSP-LABEL: func.func @quantized_depthwise
// DSP:         tinyml.fused conv_epilogue (%arg0, %arg1) {lowering = #tinyml.lowering<tile = [1, 1, 5, 1], reduction = [1, 0]>}
func.func @quantized_depthwise(%x: tensor<1x4x10x8x!quant.uniform<i8:f32, 0.5:-3>>,
                               %w: tensor<3x3x8x1x!quant.uniform<i8:f32, 0.1>>)
    -> tensor<1x4x10x8x!quant.uniform<i8:f32, 0.25:0>> {
  %y = tinyml.fused conv_epilogue (%x, %w) : (tensor<1x4x10x8x!quant.uniform<i8:f32, 0.5:-3>>,
      tensor<3x3x8x1x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x4x10x8x!quant.uniform<i8:f32, 0.25:0>> {
  ^bb0(%xi: tensor<1x4x10x8x!quant.uniform<i8:f32, 0.5:-3>>, %wi: tensor<3x3x8x1x!quant.uniform<i8:f32, 0.1>>):
    %c = tinyml.depthwise_conv2d %xi, %wi {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x10x8x!quant.uniform<i8:f32, 0.5:-3>>,
        tensor<3x3x8x1x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x4x10x8x!quant.uniform<i8:f32, 0.25:0>>
    tinyml.yield %c : tensor<1x4x10x8x!quant.uniform<i8:f32, 0.25:0>>
  }
  return %y : tensor<1x4x10x8x!quant.uniform<i8:f32, 0.25:0>>
}

// -----

// A quantized depthwise conv in rows of one channel over a 16-pixel row:
// with the DSP extension rows of 4 (max-pixels 5 divides no further),
// with int-depthwise-row-pixels=8 (the M0's) rows of 8.
// DSP-LABEL: func.func @quantized_depthwise_long_row
// DSP:         tinyml.fused conv_epilogue (%arg0, %arg1) {lowering = #tinyml.lowering<tile = [1, 1, 4, 1], reduction = [1, 0]>}
// M0-LABEL: func.func @quantized_depthwise_long_row
// M0:         tinyml.fused conv_epilogue (%arg0, %arg1) {lowering = #tinyml.lowering<tile = [1, 1, 8, 1], reduction = [1, 0]>}
func.func @quantized_depthwise_long_row(%x: tensor<1x4x16x8x!quant.uniform<i8:f32, 0.5:-3>>,
                                        %w: tensor<3x3x8x1x!quant.uniform<i8:f32, 0.1>>)
    -> tensor<1x4x16x8x!quant.uniform<i8:f32, 0.25:0>> {
  %y = tinyml.fused conv_epilogue (%x, %w) : (tensor<1x4x16x8x!quant.uniform<i8:f32, 0.5:-3>>,
      tensor<3x3x8x1x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x4x16x8x!quant.uniform<i8:f32, 0.25:0>> {
  ^bb0(%xi: tensor<1x4x16x8x!quant.uniform<i8:f32, 0.5:-3>>, %wi: tensor<3x3x8x1x!quant.uniform<i8:f32, 0.1>>):
    %c = tinyml.depthwise_conv2d %xi, %wi {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x16x8x!quant.uniform<i8:f32, 0.5:-3>>,
        tensor<3x3x8x1x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x4x16x8x!quant.uniform<i8:f32, 0.25:0>>
    tinyml.yield %c : tensor<1x4x16x8x!quant.uniform<i8:f32, 0.25:0>>
  }
  return %y : tensor<1x4x16x8x!quant.uniform<i8:f32, 0.25:0>>
}

// -----

// A quantized matrix-vector product tiles 4 output columns
// (max-int-columns) and steps its reduction by 16 values
// (int-reduction-taps); with the DSP extension by 32 (int-matvec-taps):
// its tile holds one input word's pairs beside its accumulators.
// CHECK-LABEL: func.func @quantized_matvec
// CHECK:         tinyml.fused conv_epilogue (%arg0, %arg1) {lowering = #tinyml.lowering<tile = [1, 4], reduction = [16]>}
// DSP-LABEL: func.func @quantized_matvec
// DSP:         tinyml.fused conv_epilogue (%arg0, %arg1) {lowering = #tinyml.lowering<tile = [1, 4], reduction = [32]>}
func.func @quantized_matvec(%x: tensor<1x128x!quant.uniform<i8:f32, 0.5:-3>>,
                            %w: tensor<128x16x!quant.uniform<i8:f32, 0.1>>)
    -> tensor<1x16x!quant.uniform<i8:f32, 0.25:0>> {
  %y = tinyml.fused conv_epilogue (%x, %w) : (tensor<1x128x!quant.uniform<i8:f32, 0.5:-3>>,
      tensor<128x16x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x16x!quant.uniform<i8:f32, 0.25:0>> {
  ^bb0(%xi: tensor<1x128x!quant.uniform<i8:f32, 0.5:-3>>, %wi: tensor<128x16x!quant.uniform<i8:f32, 0.1>>):
    %p = tinyml.matmul %xi, %wi : (tensor<1x128x!quant.uniform<i8:f32, 0.5:-3>>,
        tensor<128x16x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x16x!quant.uniform<i8:f32, 0.25:0>>
    tinyml.yield %p : tensor<1x16x!quant.uniform<i8:f32, 0.25:0>>
  }
  return %y : tensor<1x16x!quant.uniform<i8:f32, 0.25:0>>
}

// -----

// On ARMv6-M (int-winograd-weight-bytes, int-winograd-min-channels=8) a
// padded quantized 3x3 conv of stride 1, at least 8 input channels and
// rows of an even width takes tiles of two pixels, for
// tinyml-winograd-rows, when its transformed weights (24 bytes per channel
// pair) fit the bound: 8 -> 16 channels, 3,072 bytes. Not: 64 output
// channels (12,288 bytes), a row of 7, stride 2, 4 input channels.
// WINO-LABEL: func.func @quantized_winograd_rows
// WINO:         lowering = #tinyml.lowering<tile = [1, 1, 2, 4], reduction = [1, 3, 2]>
// WINO:         lowering = #tinyml.lowering<tile = [1, 1, 1, 4], reduction = [1, 3, 2]>
// WINO:         lowering = #tinyml.lowering<tile = [1, 1, 1, 4], reduction = [1, 3, 2]>
// WINO:         lowering = #tinyml.lowering<tile = [1, 1, 1, 4], reduction = [1, 3, 2]>
// WINO:         lowering = #tinyml.lowering<tile = [1, 1, 1, 4], reduction = [1, 3, 2]>
// With the DSP extension too, of any input channels (the 4-channel conv);
// its SMLAD tiles for the others.
// WINODSP-LABEL: func.func @quantized_winograd_rows
// WINODSP:         lowering = #tinyml.lowering<tile = [1, 1, 2, 4], reduction = [1, 3, 2]>
// WINODSP:         lowering = #tinyml.lowering<tile = [1, 1, 2, 2], reduction = [1, 3, 2]>
// WINODSP:         lowering = #tinyml.lowering<tile = [1, 1, 1, 4], reduction = [1, 3, 2]>
// WINODSP:         lowering = #tinyml.lowering<tile = [1, 1, 2, 2], reduction = [1, 3, 2]>
// WINODSP:         lowering = #tinyml.lowering<tile = [1, 1, 2, 4], reduction = [1, 3, 2]>
// M0-LABEL: func.func @quantized_winograd_rows
// M0-NOT:       tile = [1, 1, 2, 4]
func.func @quantized_winograd_rows(%xa: tensor<1x4x8x8x!quant.uniform<i8:f32, 0.5:-3>>,
    %wa: tensor<3x3x8x16x!quant.uniform<i8:f32, 0.1>>,
    %xb: tensor<1x4x8x8x!quant.uniform<i8:f32, 0.5:-3>>,
    %wb: tensor<3x3x8x64x!quant.uniform<i8:f32, 0.1>>,
    %xc: tensor<1x4x7x8x!quant.uniform<i8:f32, 0.5:-3>>,
    %wc: tensor<3x3x8x16x!quant.uniform<i8:f32, 0.1>>,
    %xd: tensor<1x4x8x8x!quant.uniform<i8:f32, 0.5:-3>>,
    %wd: tensor<3x3x8x16x!quant.uniform<i8:f32, 0.1>>,
    %xe: tensor<1x4x8x4x!quant.uniform<i8:f32, 0.5:-3>>,
    %we: tensor<3x3x4x16x!quant.uniform<i8:f32, 0.1>>)
    -> (tensor<1x4x8x16x!quant.uniform<i8:f32, 0.25:0>>, tensor<1x4x8x64x!quant.uniform<i8:f32, 0.25:0>>, tensor<1x4x7x16x!quant.uniform<i8:f32, 0.25:0>>, tensor<1x2x4x16x!quant.uniform<i8:f32, 0.25:0>>, tensor<1x4x8x16x!quant.uniform<i8:f32, 0.25:0>>) {
  %ya = tinyml.fused conv_epilogue (%xa, %wa) : (tensor<1x4x8x8x!quant.uniform<i8:f32, 0.5:-3>>,
      tensor<3x3x8x16x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x4x8x16x!quant.uniform<i8:f32, 0.25:0>> {
  ^bb0(%xi: tensor<1x4x8x8x!quant.uniform<i8:f32, 0.5:-3>>, %wi: tensor<3x3x8x16x!quant.uniform<i8:f32, 0.1>>):
    %c = tinyml.conv2d %xi, %wi {padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8x!quant.uniform<i8:f32, 0.5:-3>>,
        tensor<3x3x8x16x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x4x8x16x!quant.uniform<i8:f32, 0.25:0>>
    tinyml.yield %c : tensor<1x4x8x16x!quant.uniform<i8:f32, 0.25:0>>
  }
  %yb = tinyml.fused conv_epilogue (%xb, %wb) : (tensor<1x4x8x8x!quant.uniform<i8:f32, 0.5:-3>>,
      tensor<3x3x8x64x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x4x8x64x!quant.uniform<i8:f32, 0.25:0>> {
  ^bb0(%xi: tensor<1x4x8x8x!quant.uniform<i8:f32, 0.5:-3>>, %wi: tensor<3x3x8x64x!quant.uniform<i8:f32, 0.1>>):
    %c = tinyml.conv2d %xi, %wi {padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8x!quant.uniform<i8:f32, 0.5:-3>>,
        tensor<3x3x8x64x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x4x8x64x!quant.uniform<i8:f32, 0.25:0>>
    tinyml.yield %c : tensor<1x4x8x64x!quant.uniform<i8:f32, 0.25:0>>
  }
  %yc = tinyml.fused conv_epilogue (%xc, %wc) : (tensor<1x4x7x8x!quant.uniform<i8:f32, 0.5:-3>>,
      tensor<3x3x8x16x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x4x7x16x!quant.uniform<i8:f32, 0.25:0>> {
  ^bb0(%xi: tensor<1x4x7x8x!quant.uniform<i8:f32, 0.5:-3>>, %wi: tensor<3x3x8x16x!quant.uniform<i8:f32, 0.1>>):
    %c = tinyml.conv2d %xi, %wi {padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x7x8x!quant.uniform<i8:f32, 0.5:-3>>,
        tensor<3x3x8x16x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x4x7x16x!quant.uniform<i8:f32, 0.25:0>>
    tinyml.yield %c : tensor<1x4x7x16x!quant.uniform<i8:f32, 0.25:0>>
  }
  %yd = tinyml.fused conv_epilogue (%xd, %wd) : (tensor<1x4x8x8x!quant.uniform<i8:f32, 0.5:-3>>,
      tensor<3x3x8x16x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x2x4x16x!quant.uniform<i8:f32, 0.25:0>> {
  ^bb0(%xi: tensor<1x4x8x8x!quant.uniform<i8:f32, 0.5:-3>>, %wi: tensor<3x3x8x16x!quant.uniform<i8:f32, 0.1>>):
    %c = tinyml.conv2d %xi, %wi {padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8x!quant.uniform<i8:f32, 0.5:-3>>,
        tensor<3x3x8x16x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x2x4x16x!quant.uniform<i8:f32, 0.25:0>>
    tinyml.yield %c : tensor<1x2x4x16x!quant.uniform<i8:f32, 0.25:0>>
  }
  %ye = tinyml.fused conv_epilogue (%xe, %we) : (tensor<1x4x8x4x!quant.uniform<i8:f32, 0.5:-3>>,
      tensor<3x3x4x16x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x4x8x16x!quant.uniform<i8:f32, 0.25:0>> {
  ^bb0(%xi: tensor<1x4x8x4x!quant.uniform<i8:f32, 0.5:-3>>, %wi: tensor<3x3x4x16x!quant.uniform<i8:f32, 0.1>>):
    %c = tinyml.conv2d %xi, %wi {padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x8x4x!quant.uniform<i8:f32, 0.5:-3>>,
        tensor<3x3x4x16x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x4x8x16x!quant.uniform<i8:f32, 0.25:0>>
    tinyml.yield %c : tensor<1x4x8x16x!quant.uniform<i8:f32, 0.25:0>>
  }
  return %ya, %yb, %yc, %yd, %ye : tensor<1x4x8x16x!quant.uniform<i8:f32, 0.25:0>>, tensor<1x4x8x64x!quant.uniform<i8:f32, 0.25:0>>, tensor<1x4x7x16x!quant.uniform<i8:f32, 0.25:0>>, tensor<1x2x4x16x!quant.uniform<i8:f32, 0.25:0>>, tensor<1x4x8x16x!quant.uniform<i8:f32, 0.25:0>>
}

// -----

// Stems on the DSP extension: a one-channel 5x3 conv of vertical stride 2
// (a spectrogram's) and a padded RGB 3x3 conv take two-pixel tiles for
// F(2, 3) along their kernel rows, the RGB one over its 3 channels as they
// are (no fourth, zero channel: the pass pairs rows across kernel rows);
// the one-channel one's 5 kernel rows x channels, under 8, take 2 output
// channels a tile. An unpadded RGB conv reads its input in place, which
// the pass does not take: its SMLAD tile, over its window as channels.
// WINODSP-LABEL: func.func @quantized_winograd_stems
// WINODSP:         lowering = #tinyml.lowering<tile = [1, 1, 2, 2], reduction = [1, 3, 1]>
// WINODSP:         lowering = #tinyml.lowering<tile = [1, 1, 2, 4], reduction = [1, 3, 1]>
// WINODSP:         lowering = #tinyml.lowering<tile = [1, 1, 2, 2], reduction = [1, 1, 28]>
// The scalar form (int-winograd-min-channels=8) takes none of them.
// WINO-LABEL: func.func @quantized_winograd_stems
// WINO-NOT:       tile = [1, 1, 2, 4]
func.func @quantized_winograd_stems(%xa: tensor<1x9x8x1x!quant.uniform<i8:f32, 0.5:-3>>,
    %wa: tensor<5x3x1x8x!quant.uniform<i8:f32, 0.1>>,
    %xb: tensor<1x4x8x3x!quant.uniform<i8:f32, 0.5:-3>>,
    %wb: tensor<3x3x3x8x!quant.uniform<i8:f32, 0.1>>,
    %xc: tensor<1x6x10x3x!quant.uniform<i8:f32, 0.5:-3>>,
    %wc: tensor<3x3x3x8x!quant.uniform<i8:f32, 0.1>>)
    -> (tensor<1x5x8x8x!quant.uniform<i8:f32, 0.25:0>>, tensor<1x4x8x8x!quant.uniform<i8:f32, 0.25:0>>, tensor<1x4x8x8x!quant.uniform<i8:f32, 0.25:0>>) {
  %ya = tinyml.fused conv_epilogue (%xa, %wa) : (tensor<1x9x8x1x!quant.uniform<i8:f32, 0.5:-3>>,
      tensor<5x3x1x8x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x5x8x8x!quant.uniform<i8:f32, 0.25:0>> {
  ^bb0(%xi: tensor<1x9x8x1x!quant.uniform<i8:f32, 0.5:-3>>, %wi: tensor<5x3x1x8x!quant.uniform<i8:f32, 0.1>>):
    %c = tinyml.conv2d %xi, %wi {padding = array<i64: 2, 1, 2, 1>, strides = array<i64: 2, 1>} : (tensor<1x9x8x1x!quant.uniform<i8:f32, 0.5:-3>>,
        tensor<5x3x1x8x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x5x8x8x!quant.uniform<i8:f32, 0.25:0>>
    tinyml.yield %c : tensor<1x5x8x8x!quant.uniform<i8:f32, 0.25:0>>
  }
  %yb = tinyml.fused conv_epilogue (%xb, %wb) : (tensor<1x4x8x3x!quant.uniform<i8:f32, 0.5:-3>>,
      tensor<3x3x3x8x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x4x8x8x!quant.uniform<i8:f32, 0.25:0>> {
  ^bb0(%xi: tensor<1x4x8x3x!quant.uniform<i8:f32, 0.5:-3>>, %wi: tensor<3x3x3x8x!quant.uniform<i8:f32, 0.1>>):
    %c = tinyml.conv2d %xi, %wi {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x3x!quant.uniform<i8:f32, 0.5:-3>>,
        tensor<3x3x3x8x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x4x8x8x!quant.uniform<i8:f32, 0.25:0>>
    tinyml.yield %c : tensor<1x4x8x8x!quant.uniform<i8:f32, 0.25:0>>
  }
  %yc = tinyml.fused conv_epilogue (%xc, %wc) : (tensor<1x6x10x3x!quant.uniform<i8:f32, 0.5:-3>>,
      tensor<3x3x3x8x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x4x8x8x!quant.uniform<i8:f32, 0.25:0>> {
  ^bb0(%xi: tensor<1x6x10x3x!quant.uniform<i8:f32, 0.5:-3>>, %wi: tensor<3x3x3x8x!quant.uniform<i8:f32, 0.1>>):
    %c = tinyml.conv2d %xi, %wi : (tensor<1x6x10x3x!quant.uniform<i8:f32, 0.5:-3>>,
        tensor<3x3x3x8x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x4x8x8x!quant.uniform<i8:f32, 0.25:0>>
    tinyml.yield %c : tensor<1x4x8x8x!quant.uniform<i8:f32, 0.25:0>>
  }
  return %ya, %yb, %yc : tensor<1x5x8x8x!quant.uniform<i8:f32, 0.25:0>>, tensor<1x4x8x8x!quant.uniform<i8:f32, 0.25:0>>, tensor<1x4x8x8x!quant.uniform<i8:f32, 0.25:0>>
}
