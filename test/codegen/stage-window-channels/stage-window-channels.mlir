// RUN: tinyml-opt %s --split-input-file --tinyml-stage-window-channels --canonicalize | FileCheck %s
// RUN: tinyml-opt %s --split-input-file --tinyml-stage-window-channels='max-values=16' | FileCheck %s --check-prefix=SMALL

// A one-pixel stage of an RGB 3x3 window read as 28 channels: 28 values,
// each loaded at its window row, column and channel (the map's floordiv
// and mod folded to constants), extended and stored; the last, channel 27,
// loads the window's last value [2, 2, 2] again. No loop is left.
// CHECK-LABEL: func.func @one_pixel_stage
// CHECK-NOT:     scf.for
// CHECK:         %[[V0:.*]] = memref.load %arg0[%c0, %c0, %c0, %c0]
// CHECK-NEXT:    %[[E0:.*]] = arith.extsi %[[V0]] : i8 to i16
// CHECK-NEXT:    memref.store %[[E0]], %arg1[%c0, %c0, %c0, %c0]
// CHECK-NEXT:    %[[V1:.*]] = memref.load %arg0[%c0, %c0, %c0, %c1]
// CHECK:         memref.load %arg0[%c0, %c0, %c1, %c0]
// CHECK:         memref.load %arg0[%c0, %c1, %c0, %c0]
// CHECK:         %[[V26:.*]] = memref.load %arg0[%c0, %c2, %c2, %c2]
// CHECK-NEXT:    %[[E26:.*]] = arith.extsi %[[V26]] : i8 to i16
// CHECK-NEXT:    memref.store %[[E26]], %arg1[%c0, %c0, %c0, %c26]
// CHECK-NEXT:    %[[V27:.*]] = memref.load %arg0[%c0, %c2, %c2, %c2]
// CHECK-NEXT:    %[[E27:.*]] = arith.extsi %[[V27]] : i8 to i16
// CHECK-NEXT:    memref.store %[[E27]], %arg1[%c0, %c0, %c0, %c27]
// CHECK-NOT:     linalg.generic
// A stage of more than max-values stays the generic.
// SMALL-LABEL: func.func @one_pixel_stage
// SMALL:         linalg.generic {{.*}} attrs = {tinyml.window_as_channels = array<i64: 3, 3>}
#window = affine_map<(d0, d1, d2, d3) -> (d0, d1 * 2 + (d3 mod 27) floordiv 9 + (d3 floordiv 27) * 2, d2 * 2 + (d3 mod 9) floordiv 3 + (d3 floordiv 27) * 2, d3 mod 3 + (d3 floordiv 27) * 2)>
#identity = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @one_pixel_stage(%window: memref<1x3x3x3xi8>, %stage: memref<1x1x1x28xi16>) {
  linalg.generic {indexing_maps = [#window, #identity], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%window : memref<1x3x3x3xi8>) outs(%stage : memref<1x1x1x28xi16>) attrs = {tinyml.window_as_channels = array<i64: 3, 3>} {
  ^bb0(%in: i8, %out: i16):
    %e = arith.extsi %in : i8 to i16
    linalg.yield %e : i16
  }
  return
}

// -----

// Not staged so: a generic without the mark (an int16 extension), one
// marked whose body is not the extension, and a marked one on tensors
// (before bufferization).
// CHECK-LABEL: func.func @not_staged
// CHECK-COUNT-3: linalg.generic
#identity = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @not_staged(%x: memref<1x1x1x4xi8>, %y: memref<1x1x1x4xi16>, %t: tensor<1x1x1x4xi8>)
    -> tensor<1x1x1x4xi16> {
  linalg.generic {indexing_maps = [#identity, #identity], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : memref<1x1x1x4xi8>) outs(%y : memref<1x1x1x4xi16>) {
  ^bb0(%in: i8, %out: i16):
    %e = arith.extsi %in : i8 to i16
    linalg.yield %e : i16
  }
  linalg.generic {indexing_maps = [#identity, #identity], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : memref<1x1x1x4xi8>) outs(%y : memref<1x1x1x4xi16>) attrs = {tinyml.window_as_channels = array<i64: 1, 1>} {
  ^bb0(%in: i8, %out: i16):
    %e = arith.extui %in : i8 to i16
    linalg.yield %e : i16
  }
  %init = tensor.empty() : tensor<1x1x1x4xi16>
  %r = linalg.generic {indexing_maps = [#identity, #identity], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%t : tensor<1x1x1x4xi8>) outs(%init : tensor<1x1x1x4xi16>) attrs = {tinyml.window_as_channels = array<i64: 1, 1>} {
  ^bb0(%in: i8, %out: i16):
    %e = arith.extsi %in : i8 to i16
    linalg.yield %e : i16
  } -> tensor<1x1x1x4xi16>
  return %r : tensor<1x1x1x4xi16>
}
