// RUN: tinyml-opt %s --split-input-file --tinyml-widen-conv-inputs | FileCheck %s

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// A configured int8 pointwise conv whose reduction steps are whole words
// and whose 16 output channels make 8 tiles of 2 (the staged window serves
// each): it reads its input through a sign extension to int16, marked
// `tinyml.widened` (the window reader its transform script fuses into the
// tile that stages the window); the filter stays int8.
// CHECK-LABEL: func.func @pointwise
// CHECK-SAME:    (%[[X:.*]]: tensor<1x2x2x8xi8>)
// CHECK:         %[[EMPTY:.*]] = tensor.empty() : tensor<1x2x2x8xi16>
// CHECK:         %[[WIDE:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<1x2x2x8xi8>) outs(%[[EMPTY]] : tensor<1x2x2x8xi16>) attrs = {tinyml.widened}
// CHECK:           arith.extsi %{{.*}} : i8 to i16
// CHECK:         %[[ACC:.*]] = linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[WIDE]], %{{.*}} : tensor<1x2x2x8xi16>, tensor<1x1x8x16xi8>)
// CHECK:         linalg.generic {{.*}} ins(%[[ACC]] : tensor<1x2x2x16xi32>)
func.func @pointwise(%x: tensor<1x2x2x8xi8>) -> tensor<1x2x2x16xi32> {
  %w = arith.constant dense<1> : tensor<1x1x8x16xi8>
  %zero = arith.constant 0 : i32
  %empty = tensor.empty() : tensor<1x2x2x16xi32>
  %init = linalg.fill ins(%zero : i32) outs(%empty : tensor<1x2x2x16xi32>) -> tensor<1x2x2x16xi32>
  %acc = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x2x2x8xi8>, tensor<1x1x8x16xi8>) outs(%init : tensor<1x2x2x16xi32>) -> tensor<1x2x2x16xi32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"], lowering = #tinyml.lowering<tile = [1, 1, 2, 2], reduction = [1, 1, 8]>} ins(%acc : tensor<1x2x2x16xi32>) outs(%empty : tensor<1x2x2x16xi32>) {
  ^bb0(%a: i32, %o: i32):
    linalg.yield %a : i32
  } -> tensor<1x2x2x16xi32>
  return %y : tensor<1x2x2x16xi32>
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// A padded conv: the extension reads the pad (the tile stages the padded
// window, then extends it).
// CHECK-LABEL: func.func @padded
// CHECK:         %[[PAD:.*]] = tensor.pad
// CHECK:         %[[WIDE:.*]] = linalg.generic {{.*}} ins(%[[PAD]] : tensor<1x4x4x4xi8>) {{.*}} attrs = {tinyml.widened}
// CHECK:         linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[WIDE]], %{{.*}} : tensor<1x4x4x4xi16>, tensor<3x3x4x16xi8>)
func.func @padded(%x: tensor<1x2x2x4xi8>) -> tensor<1x2x2x16xi32> {
  %w = arith.constant dense<1> : tensor<3x3x4x16xi8>
  %zero = arith.constant 0 : i32
  %fill = arith.constant -3 : i8
  %padded = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %fill : i8
  } : tensor<1x2x2x4xi8> to tensor<1x4x4x4xi8>
  %empty = tensor.empty() : tensor<1x2x2x16xi32>
  %init = linalg.fill ins(%zero : i32) outs(%empty : tensor<1x2x2x16xi32>) -> tensor<1x2x2x16xi32>
  %acc = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%padded, %w : tensor<1x4x4x4xi8>, tensor<3x3x4x16xi8>) outs(%init : tensor<1x2x2x16xi32>) -> tensor<1x2x2x16xi32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"], lowering = #tinyml.lowering<tile = [1, 1, 2, 2], reduction = [1, 3, 4]>} ins(%acc : tensor<1x2x2x16xi32>) outs(%empty : tensor<1x2x2x16xi32>) {
  ^bb0(%a: i32, %o: i32):
    linalg.yield %a : i32
  } -> tensor<1x2x2x16xi32>
  return %y : tensor<1x2x2x16xi32>
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// Not firing: reduction steps of 2 input channels are not whole SMLAD words.
// CHECK-LABEL: func.func @half_words
// CHECK-NOT:     tinyml.widened
// CHECK:         linalg.conv_2d_nhwc_hwcf {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x2x2x2xi8>, tensor<1x1x2x16xi8>)
func.func @half_words(%x: tensor<1x2x2x2xi8>) -> tensor<1x2x2x16xi32> {
  %w = arith.constant dense<1> : tensor<1x1x2x16xi8>
  %zero = arith.constant 0 : i32
  %empty = tensor.empty() : tensor<1x2x2x16xi32>
  %init = linalg.fill ins(%zero : i32) outs(%empty : tensor<1x2x2x16xi32>) -> tensor<1x2x2x16xi32>
  %acc = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x2x2x2xi8>, tensor<1x1x2x16xi8>) outs(%init : tensor<1x2x2x16xi32>) -> tensor<1x2x2x16xi32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"], lowering = #tinyml.lowering<tile = [1, 1, 2, 2], reduction = [1, 1, 2]>} ins(%acc : tensor<1x2x2x16xi32>) outs(%empty : tensor<1x2x2x16xi32>) {
  ^bb0(%a: i32, %o: i32):
    linalg.yield %a : i32
  } -> tensor<1x2x2x16xi32>
  return %y : tensor<1x2x2x16xi32>
}

// -----

// Not firing: a conv no configured epilogue reads (no transform script
// would stage its window).
// CHECK-LABEL: func.func @unconfigured
// CHECK-NOT:     tinyml.widened
func.func @unconfigured(%x: tensor<1x2x2x8xi8>) -> tensor<1x2x2x16xi32> {
  %w = arith.constant dense<1> : tensor<1x1x8x16xi8>
  %zero = arith.constant 0 : i32
  %empty = tensor.empty() : tensor<1x2x2x16xi32>
  %init = linalg.fill ins(%zero : i32) outs(%empty : tensor<1x2x2x16xi32>) -> tensor<1x2x2x16xi32>
  %acc = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x2x2x8xi8>, tensor<1x1x8x16xi8>) outs(%init : tensor<1x2x2x16xi32>) -> tensor<1x2x2x16xi32>
  return %acc : tensor<1x2x2x16xi32>
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// Not firing: a conv reading a transpose (an NCHW input) stages the
// transposed window already.
// CHECK-LABEL: func.func @transposed
// CHECK-NOT:     tinyml.widened
func.func @transposed(%x: tensor<1x8x2x2xi8>) -> tensor<1x2x2x16xi32> {
  %w = arith.constant dense<1> : tensor<1x1x8x16xi8>
  %zero = arith.constant 0 : i32
  %nhwc = tensor.empty() : tensor<1x2x2x8xi8>
  %t = linalg.transpose ins(%x : tensor<1x8x2x2xi8>) outs(%nhwc : tensor<1x2x2x8xi8>) permutation = [0, 2, 3, 1]
  %empty = tensor.empty() : tensor<1x2x2x16xi32>
  %init = linalg.fill ins(%zero : i32) outs(%empty : tensor<1x2x2x16xi32>) -> tensor<1x2x2x16xi32>
  %acc = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%t, %w : tensor<1x2x2x8xi8>, tensor<1x1x8x16xi8>) outs(%init : tensor<1x2x2x16xi32>) -> tensor<1x2x2x16xi32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"], lowering = #tinyml.lowering<tile = [1, 1, 2, 2], reduction = [1, 1, 8]>} ins(%acc : tensor<1x2x2x16xi32>) outs(%empty : tensor<1x2x2x16xi32>) {
  ^bb0(%a: i32, %o: i32):
    linalg.yield %a : i32
  } -> tensor<1x2x2x16xi32>
  return %y : tensor<1x2x2x16xi32>
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// Not firing: a float conv.
// CHECK-LABEL: func.func @float
// CHECK-NOT:     tinyml.widened
func.func @float(%x: tensor<1x2x2x8xf32>) -> tensor<1x2x2x16xf32> {
  %w = arith.constant dense<1.0> : tensor<1x1x8x16xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x2x2x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x2x2x16xf32>) -> tensor<1x2x2x16xf32>
  %acc = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x2x2x8xf32>, tensor<1x1x8x16xf32>) outs(%init : tensor<1x2x2x16xf32>) -> tensor<1x2x2x16xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"], lowering = #tinyml.lowering<tile = [1, 1, 2, 2], reduction = [1, 1, 8]>} ins(%acc : tensor<1x2x2x16xf32>) outs(%empty : tensor<1x2x2x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<1x2x2x16xf32>
  return %y : tensor<1x2x2x16xf32>
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// Not firing: 8 output channels in tiles of 2 read a staged window 4 times,
// fewer than min-channel-tiles (8): extending it would cost more than the
// reads save.
// CHECK-LABEL: func.func @few_channel_tiles
// CHECK-NOT:     tinyml.widened
func.func @few_channel_tiles(%x: tensor<1x2x2x8xi8>) -> tensor<1x2x2x8xi32> {
  %w = arith.constant dense<1> : tensor<1x1x8x8xi8>
  %zero = arith.constant 0 : i32
  %empty = tensor.empty() : tensor<1x2x2x8xi32>
  %init = linalg.fill ins(%zero : i32) outs(%empty : tensor<1x2x2x8xi32>) -> tensor<1x2x2x8xi32>
  %acc = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x2x2x8xi8>, tensor<1x1x8x8xi8>) outs(%init : tensor<1x2x2x8xi32>) -> tensor<1x2x2x8xi32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"], lowering = #tinyml.lowering<tile = [1, 1, 2, 2], reduction = [1, 1, 8]>} ins(%acc : tensor<1x2x2x8xi32>) outs(%empty : tensor<1x2x2x8xi32>) {
  ^bb0(%a: i32, %o: i32):
    linalg.yield %a : i32
  } -> tensor<1x2x2x8xi32>
  return %y : tensor<1x2x2x8xi32>
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// Few channel tiles, but a window padded with a channel (an RGB image's 3
// read as 4): its int8 copy would go byte by byte, and the extension takes
// its place.
// CHECK-LABEL: func.func @rgb
// CHECK:         %[[PAD:.*]] = tensor.pad
// CHECK:         linalg.generic {{.*}} ins(%[[PAD]] : tensor<1x4x4x4xi8>) {{.*}} attrs = {tinyml.widened}
func.func @rgb(%x: tensor<1x2x2x3xi8>) -> tensor<1x2x2x8xi32> {
  %w = arith.constant dense<1> : tensor<3x3x4x8xi8>
  %zero = arith.constant 0 : i32
  %fill = arith.constant -3 : i8
  %padded = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %fill : i8
  } : tensor<1x2x2x3xi8> to tensor<1x4x4x4xi8>
  %empty = tensor.empty() : tensor<1x2x2x8xi32>
  %init = linalg.fill ins(%zero : i32) outs(%empty : tensor<1x2x2x8xi32>) -> tensor<1x2x2x8xi32>
  %acc = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%padded, %w : tensor<1x4x4x4xi8>, tensor<3x3x4x8xi8>) outs(%init : tensor<1x2x2x8xi32>) -> tensor<1x2x2x8xi32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"], lowering = #tinyml.lowering<tile = [1, 1, 2, 2], reduction = [1, 3, 4]>} ins(%acc : tensor<1x2x2x8xi32>) outs(%empty : tensor<1x2x2x8xi32>) {
  ^bb0(%a: i32, %o: i32):
    linalg.yield %a : i32
  } -> tensor<1x2x2x8xi32>
  return %y : tensor<1x2x2x8xi32>
}
