// RUN: tinyml-opt --split-input-file --tinyml-lower-to-linalg %s | FileCheck %s

// A quantized conv is TFLite's integer kernel: int8 x int8 into int32
// accumulators initialised with the bias minus input_zero_point * sum(w)
// (here 100 + 3 * (1 + 3), -50 + 3 * (2 + 4)), then TFLite's
// MultiplyByQuantizedMultiplier by the per-channel QuantizeMultiplier of
// 0.5 * w_scale / 0.25 (0.2 and 0.4: 0.8 * 2^-2 and 0.8 * 2^-1), the output
// zero point, and saturation to int8. No accumulator can be more than 112 +
// 128 * 6 from zero and both shifts are right shifts, so the multiply takes
// its narrow form: the rounded high product of twice the accumulator
// and m, (2a * m + 2^31) >> 32, as (a * (2m - 2^32) + 2^31) >> 32 + a
// (the table holds 2 * 1717986944 - 2^32; SMMLAR with a as its addend),
// the accumulator's sign word added, a
// shift by one less than the right shift (the table holds 1 and 0), then
// one more, rounding, with the output zero point added twice before it
// (1 + 2 * 5).
// CHECK-LABEL: func.func @conv_per_channel
// CHECK:         %[[X:.*]] = quant.scast %arg0 : tensor<1x3x3x2x!quant.uniform<i8:f32, 5.000000e-01:-3>> to tensor<1x3x3x2xi8>
// CHECK:         %[[W:.*]] = quant.scast %{{.*}} : tensor<1x1x2x2x!quant.uniform<i8:f32:3, {{.*}}>> to tensor<1x1x2x2xi8>
// CHECK:         %[[B:.*]] = arith.constant dense<[112, -32]> : tensor<2xi32>
// CHECK:         %[[INIT:.*]] = linalg.broadcast ins(%[[B]] : tensor<2xi32>)
// CHECK:         %[[ACC:.*]] = linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[X]], %[[W]] : tensor<1x3x3x2xi8>, tensor<1x1x2x2xi8>) outs(%[[INIT]] : tensor<1x3x3x2xi32>)
// CHECK:         %[[M:.*]] = arith.constant dense<-858993408> : tensor<2xi32>
// CHECK:         %[[S:.*]] = arith.constant dense<[1, 0]> : tensor<2xi8>
// CHECK:         linalg.generic {{.*}} ins(%[[ACC]], %[[M]], %[[S]] : tensor<1x3x3x2xi32>, tensor<2xi32>, tensor<2xi8>) outs(%{{.*}} : tensor<1x3x3x2xi8>)
// CHECK-NEXT:    ^bb0(%[[A:.*]]: i32, %[[MUL:.*]]: i32, %[[RIGHT:.*]]: i8, %{{.*}}: i8):
// CHECK-NEXT:      %[[SHIFT:.*]] = arith.extsi %[[RIGHT]] : i8 to i32
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:      %[[WA:.*]] = arith.extsi %[[A]] : i32 to i64
// CHECK-NEXT:      %[[WM:.*]] = arith.extsi %[[MUL]] : i32 to i64
// CHECK-NEXT:      %[[PRODUCT:.*]] = arith.muli %[[WA]], %[[WM]] : i64
// CHECK-NEXT:      %[[HALF:.*]] = arith.constant 2147483648 : i64
// CHECK-NEXT:      %[[ROUNDED:.*]] = arith.addi %[[PRODUCT]], %[[HALF]] : i64
// CHECK-NEXT:      %[[C32:.*]] = arith.constant 32 : i64
// CHECK-NEXT:      %[[HIGH64:.*]] = arith.shrsi %[[ROUNDED]], %[[C32]] : i64
// CHECK-NEXT:      %[[HIGH:.*]] = arith.trunci %[[HIGH64]] : i64 to i32
// CHECK-NEXT:      %[[C31:.*]] = arith.constant 31 : i32
// CHECK-NEXT:      %[[SIGN:.*]] = arith.shrsi %[[A]], %[[C31]] : i32
// CHECK-NEXT:      %[[ADDEND:.*]] = arith.addi %[[A]], %[[SIGN]] : i32
// CHECK-NEXT:      %[[SIGNED:.*]] = arith.addi %[[HIGH]], %[[ADDEND]] : i32
// CHECK-NEXT:      %[[LESS:.*]] = arith.shrsi %[[SIGNED]], %[[SHIFT]] : i32
// CHECK-NEXT:      %[[UP_AND_ZERO:.*]] = arith.constant 11 : i32
// CHECK-NEXT:      %[[UP:.*]] = arith.addi %[[LESS]], %[[UP_AND_ZERO]] : i32
// CHECK-NEXT:      %[[Q:.*]] = arith.shrsi %[[UP]], %[[ONE]] : i32
// CHECK-NOT:       tosa.apply_scale
// CHECK:           arith.maxsi %[[Q]]
// CHECK:           arith.minsi
// CHECK:           arith.trunci %{{.*}} : i32 to i8
// CHECK:         quant.scast %{{.*}} : tensor<1x3x3x2xi8> to tensor<1x3x3x2x!quant.uniform<i8:f32, 2.500000e-01:5>>
func.func @conv_per_channel(%x: tensor<1x3x3x2x!quant.uniform<i8:f32, 0.5:-3>>)
    -> tensor<1x3x3x2x!quant.uniform<i8:f32, 0.25:5>> {
  %wc = arith.constant dense<[[[[1, 2], [3, 4]]]]> : tensor<1x1x2x2xi8>
  %w = quant.scast %wc : tensor<1x1x2x2xi8> to tensor<1x1x2x2x!quant.uniform<i8:f32:3, {0.1, 0.2}>>
  %bc = arith.constant dense<[100, -50]> : tensor<2xi32>
  %b = quant.scast %bc : tensor<2xi32> to tensor<2x!quant.uniform<i32:f32:0, {0.05, 0.1}>>
  %y = tinyml.conv2d %x, %w, %b : (tensor<1x3x3x2x!quant.uniform<i8:f32, 0.5:-3>>,
      tensor<1x1x2x2x!quant.uniform<i8:f32:3, {0.1, 0.2}>>,
      tensor<2x!quant.uniform<i32:f32:0, {0.05, 0.1}>>) -> tensor<1x3x3x2x!quant.uniform<i8:f32, 0.25:5>>
  return %y : tensor<1x3x3x2x!quant.uniform<i8:f32, 0.25:5>>
}

// -----

// The general form where the narrow one could be wrong: a bias of 2^30
// (twice the accumulator may not fit in int32), and a scale above 1 (5 =
// 0.625 * 2^3: a left shift). SaturatingRoundingDoublingHighMul is
// tosa.apply_scale at shift 31, RoundingDivideByPOT its mask, remainder and
// threshold, on the whole right shift.
// CHECK-LABEL: func.func @conv_general_requantization
// CHECK:         linalg.generic
// CHECK:           %[[HIGH:.*]] = tosa.apply_scale %{{.*}}, %{{.*}}, %{{.*}} {rounding_mode = DOUBLE_ROUND} : (i32, i32, i8) -> i32
// CHECK:           %[[MASK:.*]] = arith.subi
// CHECK:           %[[REMAINDER:.*]] = arith.andi %[[HIGH]], %[[MASK]]
// CHECK:           arith.cmpi sgt, %[[REMAINDER]]
// CHECK:           arith.shrsi %[[HIGH]], %c2_i32
// CHECK-LABEL: func.func @conv_left_shift
// CHECK:         linalg.generic
// CHECK:           arith.shli
// CHECK:           tosa.apply_scale
func.func @conv_general_requantization(%x: tensor<1x3x3x1x!quant.uniform<i8:f32, 0.5:0>>)
    -> tensor<1x3x3x1x!quant.uniform<i8:f32, 0.25:0>> {
  %wc = arith.constant dense<1> : tensor<1x1x1x1xi8>
  %w = quant.scast %wc : tensor<1x1x1x1xi8> to tensor<1x1x1x1x!quant.uniform<i8:f32, 0.1>>
  %bc = arith.constant dense<1073741824> : tensor<1xi32>
  %b = quant.scast %bc : tensor<1xi32> to tensor<1x!quant.uniform<i32:f32, 0.05>>
  %y = tinyml.conv2d %x, %w, %b : (tensor<1x3x3x1x!quant.uniform<i8:f32, 0.5:0>>,
      tensor<1x1x1x1x!quant.uniform<i8:f32, 0.1>>, tensor<1x!quant.uniform<i32:f32, 0.05>>)
      -> tensor<1x3x3x1x!quant.uniform<i8:f32, 0.25:0>>
  return %y : tensor<1x3x3x1x!quant.uniform<i8:f32, 0.25:0>>
}
func.func @conv_left_shift(%x: tensor<1x3x3x1x!quant.uniform<i8:f32, 0.5:0>>)
    -> tensor<1x3x3x1x!quant.uniform<i8:f32, 0.25:0>> {
  %wc = arith.constant dense<1> : tensor<1x1x1x1xi8>
  %w = quant.scast %wc : tensor<1x1x1x1xi8> to tensor<1x1x1x1x!quant.uniform<i8:f32, 2.5>>
  %y = tinyml.conv2d %x, %w : (tensor<1x3x3x1x!quant.uniform<i8:f32, 0.5:0>>,
      tensor<1x1x1x1x!quant.uniform<i8:f32, 2.5>>) -> tensor<1x3x3x1x!quant.uniform<i8:f32, 0.25:0>>
  return %y : tensor<1x3x3x1x!quant.uniform<i8:f32, 0.25:0>>
}

// -----

// A conv configured to step its reduction by 4 input channels (a DSP core's
// SMLAD words; tinyml-choose-tiles) reads its 3 channels as 4: the pad adds
// a channel of the input zero point (with the spatial padding), the
// weights a channel of zeros; the folded bias is unchanged (the zero
// weights sum to nothing), and so is every accumulator.
// CHECK-LABEL: func.func @three_channels_read_as_four
// CHECK:         %[[X:.*]] = tensor.pad %{{.*}} low[0, 0, 0, 0] high[0, 1, 1, 1]
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      tensor.yield %c-3_i8 : i8
// CHECK-NEXT:    } : tensor<1x4x4x3xi8> to tensor<1x5x5x4xi8>
// CHECK:         %[[W:.*]] = arith.constant dense<{{\[\[\[\[}}-3, -2], [-1, 0], [1, 2], [0, 0]]{{.*}}> : tensor<3x3x4x2xi8>
// CHECK:         linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[X]], %[[W]] : tensor<1x5x5x4xi8>, tensor<3x3x4x2xi8>)
func.func @three_channels_read_as_four(%x: tensor<1x4x4x3x!quant.uniform<i8:f32, 0.5:-3>>)
    -> tensor<1x2x2x2x!quant.uniform<i8:f32, 0.25:0>> {
  %wc = arith.constant dense<[[[[-3, -2], [-1, 0], [1, 2]], [[3, -3], [-2, -1], [0, 1]], [[2, 3], [-3, -2], [-1, 0]]], [[[1, 2], [3, -3], [-2, -1]], [[0, 1], [2, 3], [-3, -2]], [[-1, 0], [1, 2], [3, -3]]], [[[-2, -1], [0, 1], [2, 3]], [[-3, -2], [-1, 0], [1, 2]], [[3, -3], [-2, -1], [0, 1]]]]> : tensor<3x3x3x2xi8>
  %w = quant.scast %wc : tensor<3x3x3x2xi8> to tensor<3x3x3x2x!quant.uniform<i8:f32, 0.1>>
  %y = tinyml.fused conv_epilogue (%x, %w) {lowering = #tinyml.lowering<tile = [1, 1, 2, 2], reduction = [1, 3, 4]>} : (tensor<1x4x4x3x!quant.uniform<i8:f32, 0.5:-3>>, tensor<3x3x3x2x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x2x2x2x!quant.uniform<i8:f32, 0.25:0>> {
  ^bb0(%xi: tensor<1x4x4x3x!quant.uniform<i8:f32, 0.5:-3>>, %wi: tensor<3x3x3x2x!quant.uniform<i8:f32, 0.1>>):
    %c = tinyml.conv2d %xi, %wi {strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 1, 1>} : (tensor<1x4x4x3x!quant.uniform<i8:f32, 0.5:-3>>,
        tensor<3x3x3x2x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x2x2x2x!quant.uniform<i8:f32, 0.25:0>>
    tinyml.yield %c : tensor<1x2x2x2x!quant.uniform<i8:f32, 0.25:0>>
  }
  return %y : tensor<1x2x2x2x!quant.uniform<i8:f32, 0.25:0>>
}

// -----

// A one-channel conv configured to step its reduction by its kernel's
// width (tinyml-choose-tiles on a DSP core) reads a kernel row's 4 taps as
// 4 channels: the padded input through a generic (marked for the transform
// script) whose column j, channel k is input column 2j + k, the stride
// folded in; the conv is then 3x1 over 4 channels with stride [2, 1], its
// weights the same values reshaped.
// CHECK-LABEL: func.func @taps_as_channels
// CHECK:         %[[X:.*]] = tensor.pad %{{.*}} low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK:         } : tensor<1x6x6x1xi8> to tensor<1x8x8x1xi8>
// CHECK:         %[[U:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[X]] : tensor<1x8x8x1xi8>) outs(%{{.*}} : tensor<1x8x3x4xi8>) attrs = {tinyml.taps_as_channels}
// CHECK:         %[[W:.*]] = arith.constant dense<{{\[\[\[\[}}1, -1], [2, -2], [3, -3], [4, -4]]]{{.*}}> : tensor<3x1x4x2xi8>
// CHECK:         linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins(%[[U]], %[[W]] : tensor<1x8x3x4xi8>, tensor<3x1x4x2xi8>)
func.func @taps_as_channels(%x: tensor<1x6x6x1x!quant.uniform<i8:f32, 0.5:-3>>)
    -> tensor<1x3x3x2x!quant.uniform<i8:f32, 0.25:0>> {
  %wc = arith.constant dense<[[[[1, -1]], [[2, -2]], [[3, -3]], [[4, -4]]], [[[1, -1]], [[2, -2]], [[3, -3]], [[4, -4]]], [[[1, -1]], [[2, -2]], [[3, -3]], [[4, -4]]]]> : tensor<3x4x1x2xi8>
  %w = quant.scast %wc : tensor<3x4x1x2xi8> to tensor<3x4x1x2x!quant.uniform<i8:f32, 0.1>>
  %y = tinyml.fused conv_epilogue (%x, %w) {lowering = #tinyml.lowering<tile = [1, 1, 1, 2], reduction = [1, 1, 4]>} : (tensor<1x6x6x1x!quant.uniform<i8:f32, 0.5:-3>>, tensor<3x4x1x2x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x3x3x2x!quant.uniform<i8:f32, 0.25:0>> {
  ^bb0(%xi: tensor<1x6x6x1x!quant.uniform<i8:f32, 0.5:-3>>, %wi: tensor<3x4x1x2x!quant.uniform<i8:f32, 0.1>>):
    %c = tinyml.conv2d %xi, %wi {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x6x6x1x!quant.uniform<i8:f32, 0.5:-3>>,
        tensor<3x4x1x2x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x3x3x2x!quant.uniform<i8:f32, 0.25:0>>
    tinyml.yield %c : tensor<1x3x3x2x!quant.uniform<i8:f32, 0.25:0>>
  }
  return %y : tensor<1x3x3x2x!quant.uniform<i8:f32, 0.25:0>>
}

// -----

// An RGB conv configured to step its reduction by its whole window's 27
// values and one more (tinyml-choose-tiles on a DSP core) reads its window
// as 28 channels, extended to int16: the input padded as the conv pads it,
// no channel added, through a generic (marked with the window, for the
// transform script) whose channel q = (r * 3 + k) * 3 + c is row 2i + r,
// column 2j + k, channel c, and whose channel 27 reads the window's last
// value again (r = k = c = 2: the floordiv 27 terms), under a zero weight.
// The conv is then 1x1, stride 1, over the weights in the same order.
// CHECK:       #[[WINDOW:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1 * 2 + (d3 mod 27) floordiv 9 + (d3 floordiv 27) * 2, d2 * 2 + (d3 mod 9) floordiv 3 + (d3 floordiv 27) * 2, d3 mod 3 + (d3 floordiv 27) * 2)>
// CHECK-LABEL: func.func @window_as_channels
// CHECK:         %[[X:.*]] = tensor.pad %{{.*}} low[0, 0, 0, 0] high[0, 1, 1, 0]
// CHECK:         } : tensor<1x4x4x3xi8> to tensor<1x5x5x3xi8>
// CHECK:         %[[U:.*]] = linalg.generic {indexing_maps = [#[[WINDOW]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[X]] : tensor<1x5x5x3xi8>) outs(%{{.*}} : tensor<1x2x2x28xi16>) attrs = {tinyml.window_as_channels = array<i64: 3, 3>}
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: i8, %{{.*}}: i16):
// CHECK-NEXT:      arith.extsi %[[IN]] : i8 to i16
// CHECK:         %[[W:.*]] = arith.constant dense<{{\[\[\[\[}}-3, -2], [-1, 0], [1, 2], [3, -3], {{.*}}, [0, 1], [0, 0]]]]> : tensor<1x1x28x2xi8>
// CHECK:         linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%[[U]], %[[W]] : tensor<1x2x2x28xi16>, tensor<1x1x28x2xi8>)
func.func @window_as_channels(%x: tensor<1x4x4x3x!quant.uniform<i8:f32, 0.5:-3>>)
    -> tensor<1x2x2x2x!quant.uniform<i8:f32, 0.25:0>> {
  %wc = arith.constant dense<[[[[-3, -2], [-1, 0], [1, 2]], [[3, -3], [-2, -1], [0, 1]], [[2, 3], [-3, -2], [-1, 0]]], [[[1, 2], [3, -3], [-2, -1]], [[0, 1], [2, 3], [-3, -2]], [[-1, 0], [1, 2], [3, -3]]], [[[-2, -1], [0, 1], [2, 3]], [[-3, -2], [-1, 0], [1, 2]], [[3, -3], [-2, -1], [0, 1]]]]> : tensor<3x3x3x2xi8>
  %w = quant.scast %wc : tensor<3x3x3x2xi8> to tensor<3x3x3x2x!quant.uniform<i8:f32, 0.1>>
  %y = tinyml.fused conv_epilogue (%x, %w) {lowering = #tinyml.lowering<tile = [1, 1, 2, 2], reduction = [1, 1, 28]>} : (tensor<1x4x4x3x!quant.uniform<i8:f32, 0.5:-3>>, tensor<3x3x3x2x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x2x2x2x!quant.uniform<i8:f32, 0.25:0>> {
  ^bb0(%xi: tensor<1x4x4x3x!quant.uniform<i8:f32, 0.5:-3>>, %wi: tensor<3x3x3x2x!quant.uniform<i8:f32, 0.1>>):
    %c = tinyml.conv2d %xi, %wi {strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 1, 1>} : (tensor<1x4x4x3x!quant.uniform<i8:f32, 0.5:-3>>,
        tensor<3x3x3x2x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x2x2x2x!quant.uniform<i8:f32, 0.25:0>>
    tinyml.yield %c : tensor<1x2x2x2x!quant.uniform<i8:f32, 0.25:0>>
  }
  return %y : tensor<1x2x2x2x!quant.uniform<i8:f32, 0.25:0>>
}

// -----

// Padding holds the input zero point, so that padded taps add nothing
// after the input offset is folded into the bias.
// CHECK-LABEL: func.func @conv_padding_holds_the_zero_point
// CHECK:         %[[ZP:.*]] = arith.constant -3 : i8
// CHECK:         tensor.pad %{{.*}} low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      tensor.yield %[[ZP]] : i8
func.func @conv_padding_holds_the_zero_point(%x: tensor<1x2x2x1x!quant.uniform<i8:f32, 0.5:-3>>)
    -> tensor<1x2x2x1x!quant.uniform<i8:f32, 0.25:0>> {
  %wc = arith.constant dense<1> : tensor<3x3x1x1xi8>
  %w = quant.scast %wc : tensor<3x3x1x1xi8> to tensor<3x3x1x1x!quant.uniform<i8:f32, 0.1>>
  %y = tinyml.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x2x2x1x!quant.uniform<i8:f32, 0.5:-3>>,
      tensor<3x3x1x1x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x2x2x1x!quant.uniform<i8:f32, 0.25:0>>
  return %y : tensor<1x2x2x1x!quant.uniform<i8:f32, 0.25:0>>
}

// -----

// A quantized clamp is TFLite's activation range on the stored values:
// relu6 with scale 0.1 and zero point -128 keeps [-128, -128 + 60].
// CHECK-LABEL: func.func @relu6_range
// CHECK:         linalg.generic
// CHECK:           %[[LO:.*]] = arith.constant -128 : i8
// CHECK:           %[[A:.*]] = arith.maxsi %{{.*}}, %[[LO]] : i8
// CHECK:           %[[HI:.*]] = arith.constant -68 : i8
// CHECK:           arith.minsi %[[A]], %[[HI]] : i8
func.func @relu6_range(%x: tensor<4x!quant.uniform<i8:f32, 0.1:-128>>) -> tensor<4x!quant.uniform<i8:f32, 0.1:-128>> {
  %y = tinyml.clamp %x {min = 0.0 : f32, max = 6.0 : f32} : tensor<4x!quant.uniform<i8:f32, 0.1:-128>>
  return %y : tensor<4x!quant.uniform<i8:f32, 0.1:-128>>
}

// -----

// An explicit quantize divides in float and rounds half to even by adding
// 1.5 * 2^23 (no libm on the target); the sum's bits less 0x4B400000 =
// 1262485504 are the rounded value (a negative sum's bits, a negative
// int32, go to 0 first), then the zero point (1) and saturation.
// CHECK-LABEL: func.func @quantize
// CHECK:         linalg.generic
// CHECK:           arith.divf
// CHECK:           %[[MAGIC:.*]] = arith.constant 0x4B400000 : f32
// CHECK:           %[[UP:.*]] = arith.addf %{{.*}}, %[[MAGIC]] : f32
// CHECK:           %[[BITS:.*]] = arith.bitcast %[[UP]] : f32 to i32
// CHECK:           %[[POSITIVE:.*]] = arith.maxsi %[[BITS]], %{{.*}} : i32
// CHECK:           %[[OFFSET:.*]] = arith.constant 1262485504 : i32
// CHECK:           %[[ROUNDED:.*]] = arith.subi %[[POSITIVE]], %[[OFFSET]] : i32
// CHECK:           %[[STORED:.*]] = arith.addi %[[ROUNDED]], %c1_i32 : i32
// CHECK:           arith.maxsi %[[STORED]]
// CHECK:           arith.minsi
// CHECK:           arith.trunci %{{.*}} : i32 to i8
// CHECK-NOT:       arith.fptosi
func.func @quantize(%x: tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.5:1>> {
  %y = tinyml.quantize %x : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.5:1>>
  return %y : tensor<4x!quant.uniform<i8:f32, 0.5:1>>
}

// -----

// TFLite's QUANTIZE rounds halves away from zero: |x / scale| rounded to
// even by the magic sum, one more where that rounded a tie down (the
// magnitude is exactly 0.5, bits 0x3F000000 = 1056964608, above the
// rounded value), then the sign of x / scale applied as (n ^ s) - s.
// CHECK-LABEL: func.func @quantize_ties_away_from_zero
// CHECK:         linalg.generic
// CHECK:           %[[V:.*]] = arith.divf
// CHECK:           %[[ABS:.*]] = math.absf %[[V]] : f32
// CHECK:           %[[UP:.*]] = arith.addf %[[ABS]], %{{.*}} : f32
// CHECK:           %[[EVEN:.*]] = arith.subf %[[UP]], %{{.*}} : f32
// CHECK:           %[[MOVED:.*]] = arith.subf %[[ABS]], %[[EVEN]] : f32
// CHECK:           %[[MOVED_BITS:.*]] = arith.bitcast %[[MOVED]] : f32 to i32
// CHECK:           %[[TIE:.*]] = arith.cmpi eq, %[[MOVED_BITS]], %c1056964608_i32 : i32
// CHECK:           %[[UP_BITS:.*]] = arith.bitcast %[[UP]] : f32 to i32
// CHECK:           %[[N:.*]] = arith.subi %[[UP_BITS]], %c1262485504_i32 : i32
// CHECK:           %[[AWAY:.*]] = arith.addi %[[N]], %{{.*}} : i32
// CHECK:           %[[V_BITS:.*]] = arith.bitcast %[[V]] : f32 to i32
// CHECK:           %[[SIGN:.*]] = arith.shrsi %[[V_BITS]], %c31_i32 : i32
// CHECK:           %[[FLIPPED:.*]] = arith.xori %[[AWAY]], %[[SIGN]] : i32
// CHECK:           arith.subi %[[FLIPPED]], %[[SIGN]] : i32
// CHECK-NOT:       arith.fptosi
func.func @quantize_ties_away_from_zero(%x: tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.5:1>> {
  %y = tinyml.quantize %x {ties_away_from_zero} : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.5:1>>
  return %y : tensor<4x!quant.uniform<i8:f32, 0.5:1>>
}

// -----

// TFLite's int8 PAD pads the int8 storage with the zero point (-3 for 0).
// CHECK-LABEL: func.func @pad
// CHECK:         %[[ZP:.*]] = arith.constant -3 : i8
// CHECK:         tensor.pad %{{.*}} low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK:           tensor.yield %[[ZP]] : i8
func.func @pad(%x: tensor<1x2x2x1x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<1x4x4x1x!quant.uniform<i8:f32, 0.5:-3>> {
  %y = tinyml.pad %x {padding = array<i64: 0, 1, 1, 0, 0, 1, 1, 0>} : (tensor<1x2x2x1x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<1x4x4x1x!quant.uniform<i8:f32, 0.5:-3>>
  return %y : tensor<1x4x4x1x!quant.uniform<i8:f32, 0.5:-3>>
}

// -----

// TFLite's int8 softmax: the row maximum, the sum of the exps looked up in
// a table made at compile time, per row the reciprocal (gemmlowp's
// Newton-Raphson, three steps of high multiplies), then each output the
// scaled exp looked up in the second table, rounded, minus 128.
// CHECK-LABEL: func.func @softmax
// CHECK:         %[[EXPS:.*]] = arith.constant dense<"0x{{[0-9A-F]+}}"> : tensor<256xi32>
// CHECK:         %[[SUMS:.*]] = arith.constant dense<"0x{{[0-9A-F]+}}"> : tensor<256xi32>
// CHECK:         %[[MAX:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK:           arith.maxsi
// CHECK:         %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK:           tensor.extract %[[SUMS]]
// CHECK:         %[[RECIPROCAL:.*]]:2 = linalg.generic {{.*}} ins(%[[SUM]] : tensor<1xi32>)
// CHECK-COUNT-7:   tosa.apply_scale
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %[[MAX]], %[[RECIPROCAL]]#0, %[[RECIPROCAL]]#1
// CHECK:           tensor.extract %[[EXPS]]
// CHECK:           tosa.apply_scale
// CHECK:         quant.scast %{{.*}} : tensor<1x10xi8> to tensor<1x10x!quant.uniform<i8:f32, 3.906250e-03:-128>>
func.func @softmax(%x: tensor<1x10x!quant.uniform<i8:f32, 0.0285612:13>>)
    -> tensor<1x10x!quant.uniform<i8:f32, 0.00390625:-128>> {
  %y = tinyml.softmax %x {axis = 1 : i64} : tensor<1x10x!quant.uniform<i8:f32, 0.0285612:13>>
  return %y : tensor<1x10x!quant.uniform<i8:f32, 0.00390625:-128>>
}

// -----

// To int16 the same exps and reciprocal; the last shift is 16 bits shorter
// (31 - 16 over the sum's bits) and the offset -32768, saturated to int16.
// CHECK-LABEL: func.func @softmax_to_int16
// CHECK:         %[[RECIPROCAL:.*]]:2 = linalg.generic {{.*}} ins(%{{.*}} : tensor<1xi32>)
// CHECK:           %[[SHORTER:.*]] = arith.constant 15 : i32
// CHECK-NEXT:      arith.addi %{{.*}}, %[[SHORTER]] : i32
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<1x10xi16>)
// CHECK:           tosa.apply_scale
// CHECK:           %[[OFFSET:.*]] = arith.constant -32768 : i32
// CHECK-NEXT:      arith.addi %{{.*}}, %[[OFFSET]] : i32
// CHECK:           arith.trunci %{{.*}} : i32 to i16
// CHECK:         quant.scast %{{.*}} : tensor<1x10xi16> to tensor<1x10x!quant.uniform<i16:f32, 1.52587890625E-5:-32768>>
func.func @softmax_to_int16(%x: tensor<1x10x!quant.uniform<i8:f32, 0.0285612:13>>)
    -> tensor<1x10x!quant.uniform<i16:f32, 1.52587890625E-5:-32768>> {
  %y = tinyml.softmax %x {axis = 1 : i64} : tensor<1x10x!quant.uniform<i8:f32, 0.0285612:13>> -> tensor<1x10x!quant.uniform<i16:f32, 1.52587890625E-5:-32768>>
  return %y : tensor<1x10x!quant.uniform<i16:f32, 1.52587890625E-5:-32768>>
}

// -----

// A result type with a narrowed stored range (a fused activation) is what
// the requantization saturates to; the zero point (-10) is in its
// rounding (1 + 2 * -10). That range starts at the zero point, so the
// accumulator's sign word is left out of the narrow form: a negative
// accumulator saturates to -10 with it or without it.
// CHECK-LABEL: func.func @fused_activation_range
// CHECK:         linalg.generic
// CHECK:           arith.muli %{{.*}}, %{{.*}} : i64
// CHECK-NOT:       arith.constant 31 : i32
// CHECK:           %[[UP_AND_ZERO:.*]] = arith.constant -19 : i32
// CHECK-NEXT:      arith.addi %{{.*}}, %[[UP_AND_ZERO]] : i32
// CHECK-NEXT:      arith.shrsi
// CHECK-NEXT:      %[[LO:.*]] = arith.constant -10 : i32
// CHECK-NEXT:      arith.maxsi %{{.*}}, %[[LO]] : i32
// CHECK-NEXT:      %[[HI:.*]] = arith.constant 50 : i32
// CHECK-NEXT:      arith.minsi %{{.*}}, %[[HI]] : i32
func.func @fused_activation_range(%x: tensor<1x2x2x1x!quant.uniform<i8:f32, 0.5:-3>>)
    -> tensor<1x2x2x1x!quant.uniform<i8<-10:50>:f32, 0.25:-10>> {
  %wc = arith.constant dense<1> : tensor<1x1x1x1xi8>
  %w = quant.scast %wc : tensor<1x1x1x1xi8> to tensor<1x1x1x1x!quant.uniform<i8:f32, 0.1>>
  %y = tinyml.conv2d %x, %w : (tensor<1x2x2x1x!quant.uniform<i8:f32, 0.5:-3>>,
      tensor<1x1x1x1x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x2x2x1x!quant.uniform<i8<-10:50>:f32, 0.25:-10>>
  return %y : tensor<1x2x2x1x!quant.uniform<i8<-10:50>:f32, 0.25:-10>>
}

// -----

// TFLite's integer mean: the int32 sum over the axes, minus n input zero
// points (9 * 3), requantized by 0.5 / 0.25 = 2 with the multiplier
// pre-divided by n = 9 (QuantizeMultiplier(2) = 2^30, shift 2; then shifted
// left by 3 and divided by 9: 954437176, shift -1, apply_scale's 32).
// CHECK-LABEL: func.func @mean
// CHECK:         %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "reduction", "parallel"]
// CHECK:           arith.extsi %{{.*}} : i8 to i32
// CHECK:         linalg.generic {{.*}} ins(%[[SUM]] : tensor<1x2xi32>)
// CHECK:           %[[OFFSET:.*]] = arith.constant 27 : i32
// CHECK-NEXT:      %[[D:.*]] = arith.subi %{{.*}}, %[[OFFSET]] : i32
// CHECK-NEXT:      %[[M:.*]] = arith.constant 954437176 : i32
// CHECK-NEXT:      %[[S:.*]] = arith.constant 32 : i8
// CHECK-NEXT:      tosa.apply_scale %[[D]], %[[M]], %[[S]] {rounding_mode = DOUBLE_ROUND}
func.func @mean(%x: tensor<1x3x3x2x!quant.uniform<i8:f32, 0.5:3>>)
    -> tensor<1x2x!quant.uniform<i8:f32, 0.25:-1>> {
  %m = tinyml.reduce_mean %x {axes = array<i64: 1, 2>} : (tensor<1x3x3x2x!quant.uniform<i8:f32, 0.5:3>>) -> tensor<1x2x!quant.uniform<i8:f32, 0.25:-1>>
  return %m : tensor<1x2x!quant.uniform<i8:f32, 0.25:-1>>
}

// -----

// A lookup loads table[x + 128] from a 256-byte constant.
// CHECK-LABEL: func.func @lookup
// CHECK:         %[[T:.*]] = arith.constant dense<{{.*}}> : tensor<256xi8>
// CHECK:         linalg.generic
// CHECK:           %[[X:.*]] = arith.extsi %{{.*}} : i8 to i32
// CHECK:           %[[I:.*]] = arith.addi %[[X]], %{{.*}} : i32
// CHECK:           %[[INDEX:.*]] = arith.index_cast %[[I]] : i32 to index
// CHECK:           tensor.extract %[[T]][%[[INDEX]]] : tensor<256xi8>
func.func @lookup(%x: tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-3>>) -> tensor<4x!quant.uniform<i8:f32, 3.906250e-03:-128>> {
  %y = tinyml.lookup %x {table = array<i8: -128, -127, -126, -125, -124, -123, -122, -121, -120, -119, -118, -117, -116, -115, -114, -113, -112, -111, -110, -109, -108, -107, -106, -105, -104, -103, -102, -101, -100, -99, -98, -97, -96, -95, -94, -93, -92, -91, -90, -89, -88, -87, -86, -85, -84, -83, -82, -81, -80, -79, -78, -77, -76, -75, -74, -73, -72, -71, -70, -69, -68, -67, -66, -65, -64, -63, -62, -61, -60, -59, -58, -57, -56, -55, -54, -53, -52, -51, -50, -49, -48, -47, -46, -45, -44, -43, -42, -41, -40, -39, -38, -37, -36, -35, -34, -33, -32, -31, -30, -29, -28, -27, -26, -25, -24, -23, -22, -21, -20, -19, -18, -17, -16, -15, -14, -13, -12, -11, -10, -9, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127>} : (tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-3>>) -> tensor<4x!quant.uniform<i8:f32, 3.906250e-03:-128>>
  return %y : tensor<4x!quant.uniform<i8:f32, 3.906250e-03:-128>>
}

// -----

// TFLite's integer mul: the offset operands' product (zero points 3 and -1
// subtracted) scaled by 0.5 * 0.25 / 0.1, with the scales as the float32
// they are stored as (0.1 is 0.100000001): 1.2499999814, QuantizeMultiplier
// 1342177260 and shift 1; plus the result zero point, saturated.
// CHECK-LABEL: func.func @mul
// CHECK:         linalg.generic
// CHECK:           %[[A:.*]] = arith.addi %{{.*}}, %c-3_i32 : i32
// CHECK:           %[[B:.*]] = arith.addi %{{.*}}, %c1_i32 : i32
// CHECK:           %[[P:.*]] = arith.muli %[[A]], %[[B]] : i32
// CHECK:           %[[SHIFTED:.*]] = arith.shli %[[P]], %{{.*}} : i32
// CHECK:           tosa.apply_scale %[[SHIFTED]], %c1342177260_i32
// CHECK:           arith.trunci %{{.*}} : i32 to i8
func.func @mul(%a: tensor<4x!quant.uniform<i8:f32, 5.000000e-01:3>>, %b: tensor<4x!quant.uniform<i8:f32, 2.500000e-01:-1>>) -> tensor<4x!quant.uniform<i8:f32, 1.000000e-01:2>> {
  %y = tinyml.mul %a, %b : (tensor<4x!quant.uniform<i8:f32, 5.000000e-01:3>>, tensor<4x!quant.uniform<i8:f32, 2.500000e-01:-1>>) -> tensor<4x!quant.uniform<i8:f32, 1.000000e-01:2>>
  return %y : tensor<4x!quant.uniform<i8:f32, 1.000000e-01:2>>
}

// -----

// TFLite's integer sub: the add's arithmetic (offsets, left shift 20, each
// operand scaled to scale / (2 * max_scale)) with the scaled rhs
// subtracted. Each scaled operand is within 255 * 2^20 (times its scale),
// so a multiply with a right shift takes the narrow form: the rhs's (1/4)
// and the output's, whose zero point (2) joins its last rounding twice
// over (1 + 2 * 2). The lhs's scale of 1/2 halves an even number: the
// offset shifted left by 19, no product at all; the rhs's 1/4 is
// QuantizeMultiplier's 2^30 with a right shift, whose high product is a
// shift too. Only the output's scale takes a 64-bit product.
// CHECK-LABEL: func.func @sub
// CHECK:         linalg.generic
// CHECK:           %[[LHS:.*]] = arith.addi %{{.*}}, %c-3_i32 : i32
// CHECK:           %[[HALVED:.*]] = arith.shli %[[LHS]], %c19_i32 : i32
// CHECK-NOT:       i64
// CHECK:           arith.subi %[[HALVED]], %{{[0-9]+}} : i32
// CHECK:           arith.muli %{{.*}}, %{{.*}} : i64
// CHECK:           arith.addi %{{.*}}, %c5_i32 : i32
// CHECK-NOT:       tosa.apply_scale
// CHECK:           arith.trunci %{{.*}} : i32 to i8
func.func @sub(%a: tensor<4x!quant.uniform<i8:f32, 5.000000e-01:3>>, %b: tensor<4x!quant.uniform<i8:f32, 2.500000e-01:-1>>) -> tensor<4x!quant.uniform<i8:f32, 1.000000e-01:2>> {
  %y = tinyml.sub %a, %b : (tensor<4x!quant.uniform<i8:f32, 5.000000e-01:3>>, tensor<4x!quant.uniform<i8:f32, 2.500000e-01:-1>>) -> tensor<4x!quant.uniform<i8:f32, 1.000000e-01:2>>
  return %y : tensor<4x!quant.uniform<i8:f32, 1.000000e-01:2>>
}

// -----

// 16x8 quantization: TFLite's int16 add is the int8 one's arithmetic with
// the operands shifted left by 15 (32768) where int8 shifts by 20,
// saturated to int16 (the larger scale's operand, halved, by 14).
// CHECK-LABEL: func.func @add_int16
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<4xi16>, tensor<4xi16>) outs(%{{.*}} : tensor<4xi16>)
// CHECK:           arith.shli %{{.*}}, %c14_i32{{.*}} : i32
// CHECK:           arith.muli %{{.*}}, %c32768_i32{{.*}} : i32
// CHECK:           arith.maxsi %{{.*}}, %c-32768_i32 : i32
// CHECK:           arith.trunci %{{.*}} : i32 to i16
func.func @add_int16(%a: tensor<4x!quant.uniform<i16:f32, 5.000000e-01>>, %b: tensor<4x!quant.uniform<i16:f32, 2.500000e-01>>) -> tensor<4x!quant.uniform<i16:f32, 1.000000e-01>> {
  %y = tinyml.add %a, %b : (tensor<4x!quant.uniform<i16:f32, 5.000000e-01>>, tensor<4x!quant.uniform<i16:f32, 2.500000e-01>>) -> tensor<4x!quant.uniform<i16:f32, 1.000000e-01>>
  return %y : tensor<4x!quant.uniform<i16:f32, 1.000000e-01>>
}

// -----

// An int16 max pool: the padding holds the lowest int16, which never wins.
// CHECK-LABEL: func.func @max_pool_int16
// CHECK:         tensor.pad
// CHECK:           tensor.yield %c-32768_i16 : i16
// CHECK:         linalg.fill ins(%c-32768_i16{{.*}} : i16) outs(%{{.*}} : tensor<1x2x2x2xi16>)
// CHECK:         linalg.pooling_nhwc_max {{.*}} outs(%{{.*}} : tensor<1x2x2x2xi16>)
func.func @max_pool_int16(%x: tensor<1x3x3x2x!quant.uniform<i16:f32, 5.000000e-01>>) -> tensor<1x2x2x2x!quant.uniform<i16:f32, 5.000000e-01>> {
  %y = tinyml.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 1, 1>} : (tensor<1x3x3x2x!quant.uniform<i16:f32, 5.000000e-01>>) -> tensor<1x2x2x2x!quant.uniform<i16:f32, 5.000000e-01>>
  return %y : tensor<1x2x2x2x!quant.uniform<i16:f32, 5.000000e-01>>
}

// -----

// A residual add whose output has its larger input's scale: the sum's
// scale 2 * 0.5 / (2^20 * 0.5) is 2^-19, QuantizeMultiplier's 2^30 with
// a right shift, whose narrow form's high product of 2x and 2^30 is
// (x + 1) >> 1: no 64-bit product anywhere (the lhs's 1/2 a shift too).
// The rhs, at a quarter of the lhs's scale, is exact too: where the sum is
// odd, its rounding depends on both inputs, so no table gives it.
// CHECK-LABEL: func.func @add_power_of_two_scale
// CHECK:         linalg.generic
// CHECK-NOT:       i64
// CHECK:           %[[LHS:.*]] = arith.shli %{{.*}}, %c19_i32 : i32
// CHECK:           %[[SUM:.*]] = arith.addi %[[LHS]], %{{[0-9]+}} : i32
// CHECK:           %[[UP:.*]] = arith.addi %[[SUM]], %[[ONE:.*]] : i32
// CHECK:           %[[HIGH:.*]] = arith.shrsi %[[UP]], %[[ONE]] : i32
// CHECK:           %[[SIGN:.*]] = arith.shrsi %[[SUM]], %c31_i32{{.*}} : i32
// CHECK:           arith.addi %[[HIGH]], %[[SIGN]] : i32
// CHECK-NOT:       i64
// CHECK:           arith.trunci %{{.*}} : i32 to i8
func.func @add_power_of_two_scale(%a: tensor<4x!quant.uniform<i8:f32, 5.000000e-01:3>>, %b: tensor<4x!quant.uniform<i8:f32, 2.500000e-01:-1>>) -> tensor<4x!quant.uniform<i8:f32, 5.000000e-01:2>> {
  %y = tinyml.add %a, %b : (tensor<4x!quant.uniform<i8:f32, 5.000000e-01:3>>, tensor<4x!quant.uniform<i8:f32, 2.500000e-01:-1>>) -> tensor<4x!quant.uniform<i8:f32, 5.000000e-01:2>>
  return %y : tensor<4x!quant.uniform<i8:f32, 5.000000e-01:2>>
}

// -----

// An add whose result, for every one of the 65,536 pairs of stored
// values, is a function of the lhs plus a multiple of the rhs (all three
// scales 0.5: the lhs's 1/2 and the sum's 2^-19 both exact): a table of
// 256 int16 read at lhs + 128, plus the rhs times 1, saturated; no
// requantization left.
// CHECK-LABEL: func.func @add_as_table
// CHECK:         %[[TABLE:.*]] = arith.constant dense<{{.*}}> : tensor<256xi16>
// CHECK:         linalg.generic
// CHECK:           %[[LHS:.*]] = arith.extsi %in : i8 to i32
// CHECK:           %[[AT:.*]] = arith.addi %[[LHS]], %c128_i32 : i32
// CHECK:           %[[INDEX:.*]] = arith.index_cast %[[AT]] : i32 to index
// CHECK:           %[[TERM:.*]] = tensor.extract %[[TABLE]][%[[INDEX]]] : tensor<256xi16>
// CHECK:           arith.muli %{{.*}}, %c1_i32 : i32
// CHECK-NOT:       arith.shrsi
// CHECK:           arith.trunci %{{.*}} : i32 to i8
func.func @add_as_table(%a: tensor<4x!quant.uniform<i8:f32, 5.000000e-01:3>>, %b: tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-1>>) -> tensor<4x!quant.uniform<i8:f32, 5.000000e-01:2>> {
  %y = tinyml.add %a, %b : (tensor<4x!quant.uniform<i8:f32, 5.000000e-01:3>>, tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-1>>) -> tensor<4x!quant.uniform<i8:f32, 5.000000e-01:2>>
  return %y : tensor<4x!quant.uniform<i8:f32, 5.000000e-01:2>>
}
