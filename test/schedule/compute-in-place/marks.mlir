// RUN: tinyml-opt %s --split-input-file --tinyml-compute-in-place | FileCheck %s
// RUN: tinyml-opt %s --split-input-file --tinyml-compute-in-place="only-at-peak=false" \
// RUN:   | FileCheck %s --check-prefix=ALL
// RUN: tinyml-opt %s --split-input-file --tinyml-compute-in-place="int16-bands=true" \
// RUN:   | FileCheck %s --check-prefix=INT16

// A depthwise conv then a pointwise conv with as many output as input
// channels, each group's input computed here and dying in it: the peak
// (two 8x4x16 f32 tensors, 4 KiB) is at both groups. In place, each holds
// its output and one band: a tile's 4 channels of the depthwise conv
// (8x4x4 f32, 512 B), one row of the pointwise conv (4x16 f32, 256 B).

// CHECK-LABEL: func.func @separable
// CHECK-SAME:    tinyml.in_place_peak_bytes = 2560 : i64
// A float band is staged as it is, int16 bands or not.
// INT16-LABEL: func.func @separable
// INT16-SAME:    tinyml.in_place_peak_bytes = 2560 : i64
// CHECK:         tinyml.fused conv_epilogue (%arg0) {lowering = {{.*}}} :
// CHECK:         tinyml.fused conv_epilogue (%{{.*}}) {lowering = {{.*}}, tinyml.in_place} :
// CHECK:         tinyml.depthwise_conv2d
// CHECK:         tinyml.fused conv_epilogue (%{{.*}}) {lowering = {{.*}}, tinyml.in_place} :
// CHECK:         tinyml.conv2d
func.func @separable(%x: tensor<1x8x4x16xf32>) -> tensor<1x1x1x16xf32> {
  %0 = tinyml.fused conv_epilogue (%x) {lowering = #tinyml.lowering<tile = [1, 1, 4, 4], reduction = [1, 1, 8]>} : (tensor<1x8x4x16xf32>) -> tensor<1x8x4x16xf32> {
  ^bb0(%a: tensor<1x8x4x16xf32>):
    %w = arith.constant dense<0.5> : tensor<1x1x16x16xf32>
    %c = tinyml.conv2d %a, %w : (tensor<1x8x4x16xf32>, tensor<1x1x16x16xf32>) -> tensor<1x8x4x16xf32>
    %r = tinyml.relu %c : tensor<1x8x4x16xf32>
    tinyml.yield %r : tensor<1x8x4x16xf32>
  }
  %1 = tinyml.fused conv_epilogue (%0) {lowering = #tinyml.lowering<tile = [1, 1, 4, 4], reduction = [1, 0]>} : (tensor<1x8x4x16xf32>) -> tensor<1x8x4x16xf32> {
  ^bb0(%a: tensor<1x8x4x16xf32>):
    %w = arith.constant dense<0.5> : tensor<3x3x16x1xf32>
    %c = tinyml.depthwise_conv2d %a, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x4x16xf32>, tensor<3x3x16x1xf32>) -> tensor<1x8x4x16xf32>
    %r = tinyml.relu %c : tensor<1x8x4x16xf32>
    tinyml.yield %r : tensor<1x8x4x16xf32>
  }
  %2 = tinyml.fused conv_epilogue (%1) {lowering = #tinyml.lowering<tile = [1, 1, 4, 4], reduction = [1, 1, 8]>} : (tensor<1x8x4x16xf32>) -> tensor<1x8x4x16xf32> {
  ^bb0(%a: tensor<1x8x4x16xf32>):
    %w = arith.constant dense<0.5> : tensor<1x1x16x16xf32>
    %c = tinyml.conv2d %a, %w : (tensor<1x8x4x16xf32>, tensor<1x1x16x16xf32>) -> tensor<1x8x4x16xf32>
    %r = tinyml.relu %c : tensor<1x8x4x16xf32>
    tinyml.yield %r : tensor<1x8x4x16xf32>
  }
  %3 = tinyml.global_avg_pool %2 : (tensor<1x8x4x16xf32>) -> tensor<1x1x1x16xf32>
  return %3 : tensor<1x1x1x16xf32>
}

// -----

// Not at the peak: the pointwise conv that widens 16 -> 32 channels holds
// 2 + 4 KiB and cannot run in place (its output is larger than its input);
// marking the depthwise conv before it (4 KiB) would not lower the peak, so
// by default nothing is marked. Without only-at-peak it is.

// CHECK-LABEL: func.func @peak_elsewhere
// CHECK-SAME:    tinyml.in_place_peak_bytes = 6144 : i64
// CHECK-NOT:     tinyml.in_place}
// ALL-LABEL:   func.func @peak_elsewhere
// ALL-SAME:      tinyml.in_place_peak_bytes = 6144 : i64
// ALL:           tinyml.fused conv_epilogue (%{{.*}}) {lowering = {{.*}}, tinyml.in_place} :
// ALL-NEXT:      ^bb0
// ALL-NEXT:      arith.constant dense<5.000000e-01> : tensor<3x3x16x1xf32>
func.func @peak_elsewhere(%x: tensor<1x8x4x16xf32>) -> tensor<1x1x1x32xf32> {
  %0 = tinyml.relu %x : tensor<1x8x4x16xf32>
  %1 = tinyml.fused conv_epilogue (%0) {lowering = #tinyml.lowering<tile = [1, 1, 4, 4], reduction = [1, 0]>} : (tensor<1x8x4x16xf32>) -> tensor<1x8x4x16xf32> {
  ^bb0(%a: tensor<1x8x4x16xf32>):
    %w = arith.constant dense<0.5> : tensor<3x3x16x1xf32>
    %c = tinyml.depthwise_conv2d %a, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x4x16xf32>, tensor<3x3x16x1xf32>) -> tensor<1x8x4x16xf32>
    tinyml.yield %c : tensor<1x8x4x16xf32>
  }
  %2 = tinyml.fused conv_epilogue (%1) {lowering = #tinyml.lowering<tile = [1, 1, 4, 4], reduction = [1, 1, 8]>} : (tensor<1x8x4x16xf32>) -> tensor<1x8x4x32xf32> {
  ^bb0(%a: tensor<1x8x4x16xf32>):
    %w = arith.constant dense<0.5> : tensor<1x1x16x32xf32>
    %c = tinyml.conv2d %a, %w : (tensor<1x8x4x16xf32>, tensor<1x1x16x32xf32>) -> tensor<1x8x4x32xf32>
    tinyml.yield %c : tensor<1x8x4x32xf32>
  }
  %3 = tinyml.global_avg_pool %2 : (tensor<1x8x4x32xf32>) -> tensor<1x1x1x32xf32>
  return %3 : tensor<1x1x1x32xf32>
}

// -----

// Never in place: an input that is the caller's (a function argument), an
// input read again after the group, a depthwise conv with stride 2 (its
// output is smaller), a pointwise conv with padding.

// CHECK-LABEL: func.func @not_eligible
// CHECK-NOT:     tinyml.in_place}
// ALL-LABEL:   func.func @not_eligible
// ALL-NOT:       tinyml.in_place}
func.func @not_eligible(%x: tensor<1x8x4x16xf32>) -> (tensor<1x8x4x16xf32>, tensor<1x8x4x16xf32>, tensor<1x4x2x16xf32>, tensor<1x10x6x16xf32>) {
  %0 = tinyml.fused conv_epilogue (%x) {lowering = #tinyml.lowering<tile = [1, 1, 4, 4], reduction = [1, 0]>} : (tensor<1x8x4x16xf32>) -> tensor<1x8x4x16xf32> {
  ^bb0(%a: tensor<1x8x4x16xf32>):
    %w = arith.constant dense<0.5> : tensor<3x3x16x1xf32>
    %c = tinyml.depthwise_conv2d %a, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x4x16xf32>, tensor<3x3x16x1xf32>) -> tensor<1x8x4x16xf32>
    tinyml.yield %c : tensor<1x8x4x16xf32>
  }
  %1 = tinyml.fused conv_epilogue (%0) {lowering = #tinyml.lowering<tile = [1, 1, 4, 4], reduction = [1, 1, 8]>} : (tensor<1x8x4x16xf32>) -> tensor<1x8x4x16xf32> {
  ^bb0(%a: tensor<1x8x4x16xf32>):
    %w = arith.constant dense<0.5> : tensor<1x1x16x16xf32>
    %c = tinyml.conv2d %a, %w : (tensor<1x8x4x16xf32>, tensor<1x1x16x16xf32>) -> tensor<1x8x4x16xf32>
    tinyml.yield %c : tensor<1x8x4x16xf32>
  }
  %2 = tinyml.relu %0 : tensor<1x8x4x16xf32>
  %3 = tinyml.fused conv_epilogue (%1) {lowering = #tinyml.lowering<tile = [1, 1, 2, 4], reduction = [1, 0]>} : (tensor<1x8x4x16xf32>) -> tensor<1x4x2x16xf32> {
  ^bb0(%a: tensor<1x8x4x16xf32>):
    %w = arith.constant dense<0.5> : tensor<3x3x16x1xf32>
    %c = tinyml.depthwise_conv2d %a, %w {padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x4x16xf32>, tensor<3x3x16x1xf32>) -> tensor<1x4x2x16xf32>
    tinyml.yield %c : tensor<1x4x2x16xf32>
  }
  %4 = tinyml.relu %2 : tensor<1x8x4x16xf32>
  %5 = tinyml.fused conv_epilogue (%4) {lowering = #tinyml.lowering<tile = [1, 1, 2, 4], reduction = [1, 1, 8]>} : (tensor<1x8x4x16xf32>) -> tensor<1x10x6x16xf32> {
  ^bb0(%a: tensor<1x8x4x16xf32>):
    %w = arith.constant dense<0.5> : tensor<1x1x16x16xf32>
    %c = tinyml.conv2d %a, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x4x16xf32>, tensor<1x1x16x16xf32>) -> tensor<1x10x6x16xf32>
    tinyml.yield %c : tensor<1x10x6x16xf32>
  }
  return %0, %2, %3, %5 : tensor<1x8x4x16xf32>, tensor<1x8x4x16xf32>, tensor<1x4x2x16xf32>, tensor<1x10x6x16xf32>
}

// -----

// int8: a tensor takes a byte per element (its storage type's), a storage
// cast of the weights is a view of a constant (flash, no RAM). The middle
// group holds two 1x4x2x8 maps (128 B); in place, one map and a row of it
// (2 x 8 B): 80 B. The first group reads the function argument, the last
// one writes the result (the caller's): neither is at the peak.

// CHECK-LABEL: func.func @int8_pointwise
// CHECK-SAME:    tinyml.in_place_peak_bytes = 80 : i64
// CHECK:         tinyml.fused conv_epilogue (%arg0, %[[W:.*]]) {lowering = {{.*}}} :
// CHECK:         tinyml.fused conv_epilogue (%{{.*}}, %[[W]]) {lowering = {{.*}}, tinyml.in_place} :
// CHECK:         tinyml.fused conv_epilogue (%{{.*}}, %[[W]]) {lowering = {{.*}}} :
// With int16 bands (the DSP extension stages the row extended) the row
// counts 32 B: 96 B, still under the 128 B out of place.
// INT16-LABEL: func.func @int8_pointwise
// INT16-SAME:    tinyml.in_place_peak_bytes = 96 : i64
// INT16:         tinyml.fused conv_epilogue (%{{.*}}, %{{.*}}) {lowering = {{.*}}, tinyml.in_place} :
// ALL-LABEL:   func.func @int8_pointwise
// ALL:           tinyml.fused conv_epilogue (%arg0, %[[W:.*]]) {lowering = {{.*}}} :
// ALL:           tinyml.fused conv_epilogue (%{{.*}}, %[[W]]) {lowering = {{.*}}, tinyml.in_place} :
// ALL:           tinyml.fused conv_epilogue (%{{.*}}, %[[W]]) {lowering = {{.*}}, tinyml.in_place} :
func.func @int8_pointwise(%x: tensor<1x4x2x8x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<1x4x2x8x!quant.uniform<i8:f32, 0.5:-3>> {
  %wc = arith.constant dense<1> : tensor<1x1x8x8xi8>
  %w = quant.scast %wc : tensor<1x1x8x8xi8> to tensor<1x1x8x8x!quant.uniform<i8:f32, 0.1>>
  %0 = tinyml.fused conv_epilogue (%x, %w) {lowering = #tinyml.lowering<tile = [1, 1, 2, 4], reduction = [1, 1, 4]>} : (tensor<1x4x2x8x!quant.uniform<i8:f32, 0.5:-3>>, tensor<1x1x8x8x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x4x2x8x!quant.uniform<i8:f32, 0.5:-3>> {
  ^bb0(%a: tensor<1x4x2x8x!quant.uniform<i8:f32, 0.5:-3>>, %b: tensor<1x1x8x8x!quant.uniform<i8:f32, 0.1>>):
    %c = tinyml.conv2d %a, %b : (tensor<1x4x2x8x!quant.uniform<i8:f32, 0.5:-3>>, tensor<1x1x8x8x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x4x2x8x!quant.uniform<i8:f32, 0.5:-3>>
    tinyml.yield %c : tensor<1x4x2x8x!quant.uniform<i8:f32, 0.5:-3>>
  }
  %1 = tinyml.fused conv_epilogue (%0, %w) {lowering = #tinyml.lowering<tile = [1, 1, 2, 4], reduction = [1, 1, 4]>} : (tensor<1x4x2x8x!quant.uniform<i8:f32, 0.5:-3>>, tensor<1x1x8x8x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x4x2x8x!quant.uniform<i8:f32, 0.5:-3>> {
  ^bb0(%a: tensor<1x4x2x8x!quant.uniform<i8:f32, 0.5:-3>>, %b: tensor<1x1x8x8x!quant.uniform<i8:f32, 0.1>>):
    %c = tinyml.conv2d %a, %b : (tensor<1x4x2x8x!quant.uniform<i8:f32, 0.5:-3>>, tensor<1x1x8x8x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x4x2x8x!quant.uniform<i8:f32, 0.5:-3>>
    tinyml.yield %c : tensor<1x4x2x8x!quant.uniform<i8:f32, 0.5:-3>>
  }
  %2 = tinyml.fused conv_epilogue (%1, %w) {lowering = #tinyml.lowering<tile = [1, 1, 2, 4], reduction = [1, 1, 4]>} : (tensor<1x4x2x8x!quant.uniform<i8:f32, 0.5:-3>>, tensor<1x1x8x8x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x4x2x8x!quant.uniform<i8:f32, 0.5:-3>> {
  ^bb0(%a: tensor<1x4x2x8x!quant.uniform<i8:f32, 0.5:-3>>, %b: tensor<1x1x8x8x!quant.uniform<i8:f32, 0.1>>):
    %c = tinyml.conv2d %a, %b : (tensor<1x4x2x8x!quant.uniform<i8:f32, 0.5:-3>>, tensor<1x1x8x8x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x4x2x8x!quant.uniform<i8:f32, 0.5:-3>>
    tinyml.yield %c : tensor<1x4x2x8x!quant.uniform<i8:f32, 0.5:-3>>
  }
  return %2 : tensor<1x4x2x8x!quant.uniform<i8:f32, 0.5:-3>>
}
