// RUN: tinyml-opt %s --split-input-file --tinyml-decompose-pads | FileCheck %s

// A static pad of rows and columns: the source goes into an uninitialised
// tensor, then each strip of padding (top, bottom, left, right) is filled;
// the unpadded dimensions get no strip.
// CHECK-LABEL: func.func @static_pad
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[EMPTY:.*]] = tensor.empty() : tensor<1x7x8x4xf32>
// CHECK:         %[[IN:.*]] = tensor.insert_slice %arg0 into %[[EMPTY]][0, 1, 1, 0] [1, 4, 6, 4] [1, 1, 1, 1]
// CHECK:         %[[TOP:.*]] = tensor.extract_slice %[[IN]][0, 0, 0, 0] [1, 1, 8, 4] [1, 1, 1, 1]
// CHECK:         linalg.fill ins(%[[ZERO]] : f32) outs(%[[TOP]] : tensor<1x1x8x4xf32>)
// CHECK:         tensor.extract_slice %{{.*}}[0, 5, 0, 0] [1, 2, 8, 4] [1, 1, 1, 1]
// CHECK:         tensor.extract_slice %{{.*}}[0, 0, 0, 0] [1, 7, 1, 4] [1, 1, 1, 1]
// CHECK:         tensor.extract_slice %{{.*}}[0, 0, 7, 0] [1, 7, 1, 4] [1, 1, 1, 1]
// CHECK:         %[[LAST:.*]] = tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 7, 0] [1, 7, 1, 4] [1, 1, 1, 1]
// CHECK-NOT:     tensor.pad
// CHECK:         return %[[LAST]]
func.func @static_pad(%x: tensor<1x4x6x4xf32>) -> tensor<1x7x8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 2, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x4x6x4xf32> to tensor<1x7x8x4xf32>
  return %p : tensor<1x7x8x4xf32>
}

// -----

// A tile's staged window: a dynamic number of source rows, padded above
// and below by dynamic amounts (the tile's overhang of the input). The row
// strips have dynamic sizes; the one below starts after the source rows.
// CHECK-LABEL: func.func @dynamic_pad
// CHECK:         %[[ROWS:.*]] = tensor.dim %arg0, %c1
// CHECK:         tensor.insert_slice %arg0 into %{{.*}}[0, %arg1, 1, 0] [1, %[[ROWS]], 6, 4]
// CHECK:         %[[BELOW:.*]] = arith.addi %arg1, %[[ROWS]]
// CHECK:         tensor.extract_slice %{{.*}}[0, 0, 0, 0] [1, %arg1, 8, 4]
// CHECK:         tensor.extract_slice %{{.*}}[0, %[[BELOW]], 0, 0] [1, %arg2, 8, 4]
// CHECK-NOT:     tensor.pad
func.func @dynamic_pad(%x: tensor<1x?x6x4xf32>, %low: index, %high: index) -> tensor<1x3x8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, %low, 1, 0] high[0, %high, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x?x6x4xf32> to tensor<1x3x8x4xf32>
  return %p : tensor<1x3x8x4xf32>
}

// -----

// A padding value that depends on the position is not a fill: the pad
// stays.
// CHECK-LABEL: func.func @position_dependent
// CHECK:         tensor.pad
// CHECK-NOT:     linalg.fill
func.func @position_dependent(%x: tensor<4xf32>) -> tensor<6xf32> {
  %p = tensor.pad %x low[1] high[1] {
  ^bb0(%i: index):
    %c = arith.index_cast %i : index to i32
    %f = arith.sitofp %c : i32 to f32
    tensor.yield %f : f32
  } : tensor<4xf32> to tensor<6xf32>
  return %p : tensor<6xf32>
}

// -----

// The padding value defined outside the pad: filled as it is.
// CHECK-LABEL: func.func @outside_value
// CHECK:         linalg.fill ins(%arg1 : f32)
// CHECK:         linalg.fill ins(%arg1 : f32)
// CHECK-NOT:     tensor.pad
func.func @outside_value(%x: tensor<4xf32>, %v: f32) -> tensor<6xf32> {
  %p = tensor.pad %x low[1] high[1] {
  ^bb0(%i: index):
    tensor.yield %v : f32
  } : tensor<4xf32> to tensor<6xf32>
  return %p : tensor<6xf32>
}

// -----

// A tile's window of an NCHW input that the conv reads transposed to NHWC
// (tinyml-fuse-input-transpose): padded, then transposed. The source is
// transposed straight into the NHWC window (into a tensor.empty that
// bufferization's empty-tensor elimination makes the window's slice), the
// strips are filled in the NHWC layout: one staged window, not two.
// CHECK-LABEL: func.func @transposed_window
// CHECK:         %[[ROWS:.*]] = tensor.dim %arg0, %c2
// CHECK:         %[[EMPTY:.*]] = tensor.empty(%[[ROWS]]) : tensor<1x?x8x3xf32>
// CHECK:         %[[T:.*]] = linalg.transpose ins(%arg0 : tensor<1x3x?x8xf32>) outs(%[[EMPTY]] : tensor<1x?x8x3xf32>) permutation = [0, 2, 3, 1]
// CHECK:         %[[WINDOW:.*]] = tensor.empty() : tensor<1x3x9x3xf32>
// CHECK:         tensor.insert_slice %[[T]] into %[[WINDOW]][0, 0, 0, 0] [1, %[[ROWS]], 8, 3]
// CHECK:         tensor.extract_slice %{{.*}}[0, %{{.*}}, 0, 0] [1, %arg1, 9, 3]
// CHECK:         tensor.extract_slice %{{.*}}[0, 0, 8, 0] [1, 3, 1, 3]
// CHECK-NOT:     tensor.pad
// CHECK-NOT:     linalg.transpose
// CHECK:         return
func.func @transposed_window(%x: tensor<1x3x?x8xf32>, %high: index) -> tensor<1x3x9x3xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 0, 0] high[0, 0, %high, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x3x?x8xf32> to tensor<1x3x3x9xf32>
  %e = tensor.empty() : tensor<1x3x9x3xf32>
  %t = linalg.transpose ins(%p : tensor<1x3x3x9xf32>) outs(%e : tensor<1x3x9x3xf32>) permutation = [0, 2, 3, 1]
  return %t : tensor<1x3x9x3xf32>
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// A tile's padded int8 window that its conv reads extended to int16
// (tinyml.widened, tinyml-widen-conv-inputs): the source is extended
// straight into the int16 window (an extension of its dynamic rows into a
// tensor.empty that bufferization makes the window's slice) and the strips
// filled with the padding value extended: one staged window, not an int8
// one and its int16 copy.
// CHECK-LABEL: func.func @extended_window
// CHECK:         %[[ROWS:.*]] = tensor.dim %arg0, %c1
// CHECK:         %[[EMPTY:.*]] = tensor.empty(%[[ROWS]]) : tensor<1x?x4x8xi16>
// CHECK:         %[[WIDE:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<1x?x4x8xi8>) outs(%[[EMPTY]] : tensor<1x?x4x8xi16>) attrs = {tinyml.widened}
// CHECK:         %[[FILL:.*]] = arith.extsi %c{{.*}} : i8 to i16
// CHECK:         %[[WINDOW:.*]] = tensor.empty() : tensor<1x3x4x8xi16>
// CHECK:         tensor.insert_slice %[[WIDE]] into %[[WINDOW]][0, 1, 0, 0] [1, %[[ROWS]], 4, 8]
// CHECK:         linalg.fill ins(%[[FILL]] : i16)
// CHECK-NOT:     tensor.pad
// CHECK:         return
func.func @extended_window(%x: tensor<1x?x4x8xi8>, %high: index) -> tensor<1x3x4x8xi16> {
  %fill = arith.constant -3 : i8
  %p = tensor.pad %x low[0, 1, 0, 0] high[0, %high, 0, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %fill : i8
  } : tensor<1x?x4x8xi8> to tensor<1x3x4x8xi8>
  %e = tensor.empty() : tensor<1x3x4x8xi16>
  %w = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p : tensor<1x3x4x8xi8>) outs(%e : tensor<1x3x4x8xi16>) attrs = {tinyml.widened} {
  ^bb0(%a: i8, %o: i16):
    %v = arith.extsi %a : i8 to i16
    linalg.yield %v : i16
  } -> tensor<1x3x4x8xi16>
  return %w : tensor<1x3x4x8xi16>
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// The same window packed into byte pairs (tinyml.byte_pairs): the source is
// packed straight into it (the extension keeps its mark), and each strip is
// filled with the padding value's byte-pair words, by each element's place
// in its group of four channels: z for P's two, 255 z + 127 for Q's two.
// CHECK-LABEL: func.func @byte_pair_window
// CHECK:         linalg.generic {{.*}} ins(%arg0 : tensor<1x?x4x8xi8>) {{.*}} attrs = {tinyml.byte_pairs, tinyml.widened}
// CHECK:         %[[Z:.*]] = arith.extsi %c{{.*}} : i8 to i16
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<1x1x4x8xi16>)
// CHECK:           %[[PLACE:.*]] = arith.remui %{{.*}}, %c4
// CHECK:           %[[IN_P:.*]] = arith.cmpi ult, %[[PLACE]], %c2
// CHECK:           %[[TIMES:.*]] = arith.muli %[[Z]], %c255_i16
// CHECK:           %[[Q:.*]] = arith.addi %[[TIMES]], %c127_i16
// CHECK:           arith.select %[[IN_P]], %[[Z]], %[[Q]]
// CHECK-NOT:     linalg.fill
// CHECK-NOT:     tensor.pad
// CHECK:         return
func.func @byte_pair_window(%x: tensor<1x?x4x8xi8>, %high: index) -> tensor<1x3x4x8xi16> {
  %fill = arith.constant -3 : i8
  %p = tensor.pad %x low[0, 1, 0, 0] high[0, %high, 0, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %fill : i8
  } : tensor<1x?x4x8xi8> to tensor<1x3x4x8xi8>
  %e = tensor.empty() : tensor<1x3x4x8xi16>
  %w = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p : tensor<1x3x4x8xi8>) outs(%e : tensor<1x3x4x8xi16>) attrs = {tinyml.byte_pairs, tinyml.widened} {
  ^bb0(%a: i8, %o: i16):
    %v = arith.extsi %a : i8 to i16
    linalg.yield %v : i16
  } -> tensor<1x3x4x8xi16>
  return %w : tensor<1x3x4x8xi16>
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// Not folded: a byte-pair window padded with a channel (3 read as 4) packs
// each group of four across source and padding, so the pad is decomposed
// into its int8 window, which the extension then packs.
// CHECK-LABEL: func.func @byte_pair_window_padded_channels
// CHECK:         linalg.fill ins(%{{.*}} : i8)
// CHECK:         linalg.generic {{.*}} ins(%{{.*}} : tensor<1x3x4x4xi8>) {{.*}} attrs = {tinyml.byte_pairs, tinyml.widened}
func.func @byte_pair_window_padded_channels(%x: tensor<1x3x4x3xi8>) -> tensor<1x3x4x4xi16> {
  %fill = arith.constant -3 : i8
  %p = tensor.pad %x low[0, 0, 0, 0] high[0, 0, 0, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %fill : i8
  } : tensor<1x3x4x3xi8> to tensor<1x3x4x4xi8>
  %e = tensor.empty() : tensor<1x3x4x4xi16>
  %w = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p : tensor<1x3x4x4xi8>) outs(%e : tensor<1x3x4x4xi16>) attrs = {tinyml.byte_pairs, tinyml.widened} {
  ^bb0(%a: i8, %o: i16):
    %v = arith.extsi %a : i8 to i16
    linalg.yield %v : i16
  } -> tensor<1x3x4x4xi16>
  return %w : tensor<1x3x4x4xi16>
}
