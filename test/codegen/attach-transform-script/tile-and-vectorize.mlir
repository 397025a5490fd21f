// RUN: tinyml-opt %s --split-input-file --tinyml-choose-tiles --tinyml-lower-to-linalg --tinyml-attach-transform-script | FileCheck %s --check-prefix=SCRIPT
// RUN: tinyml-opt %s --split-input-file --pass-pipeline="builtin.module(tinyml-choose-tiles, \
// RUN:   tinyml-lower-to-linalg,tinyml-attach-transform-script,transform-interpreter, \
// RUN:   transform-interpreter{entry-point=tinyml_lower_contractions}, \
// RUN:   tinyml-erase-transform-script,canonicalize,cse,lower-affine,int-range-optimizations,canonicalize)" \
// RUN:   | FileCheck %s
// RUN: tinyml-opt %s --split-input-file --pass-pipeline="builtin.module(tinyml-choose-tiles, \
// RUN:   tinyml-lower-to-linalg,tinyml-attach-transform-script,transform-interpreter, \
// RUN:   transform-interpreter{entry-point=tinyml_lower_contractions}, \
// RUN:   tinyml-erase-transform-script,canonicalize,cse,lower-affine,int-range-optimizations,canonicalize, \
// RUN:   one-shot-bufferize{bufferize-function-boundaries},canonicalize,func.func(buffer-loop-hoisting))" \
// RUN:   | FileCheck %s --check-prefix=BUF

// A 1x1 conv + ReLU over a 25x5 map, 16 -> 8 channels. Its script tiles the
// ReLU to 5 pixels x 4 channels, fuses the conv and the bias broadcast into
// that tile, steps the reduction 8 input channels at a time, decomposes the
// conv to 1-D and vectorizes.
// The epilogue carries the configuration and the number of its sequence.
// SCRIPT-LABEL: func.func @pointwise
// SCRIPT:         linalg.generic {{.*}} attrs = {lowering = #tinyml.lowering<tile = [1, 1, 5, 4], reduction = [1, 1, 8]>, tinyml.script = 0 : i64}
// SCRIPT:       module @tinyml_transform_script attributes {transform.with_named_sequence}
// SCRIPT:         transform.named_sequence @tile_group_0(%[[EPILOGUE:.*]]: !transform.any_op {transform.consumed})
// SCRIPT:           %[[CONV:.*]] = transform.get_producer_of_operand %[[EPILOGUE]][0]
// SCRIPT:           %[[INIT:.*]] = transform.get_producer_of_operand %[[CONV]][2]
// SCRIPT:           %{{.*}}, %[[LOOPS:.*]]:4 = transform.structured.tile_using_for %[[EPILOGUE]] tile_sizes [1, 1, 5, 4]
// SCRIPT:           %[[TILE:.*]], %[[LOOP:.*]] = transform.structured.fuse_into_containing_op %[[CONV]] into %[[LOOPS]]#3
// SCRIPT:           transform.structured.fuse_into_containing_op %[[INIT]] into %[[LOOP]]
// SCRIPT:           transform.structured.tile_using_for %[[TILE]] tile_sizes [0, 0, 0, 0, 1, 1, 8]
// SCRIPT:           transform.structured.decompose
// SCRIPT:           transform.structured.vectorize
// SCRIPT:         transform.named_sequence @__transform_main
// SCRIPT:           %[[MARKED:.*]] = transform.structured.match ops{["linalg.generic"]} attributes {tinyml.script = 0 : i64}
// SCRIPT:           transform.foreach %[[MARKED]]
// SCRIPT:             transform.include @tile_group_0
// SCRIPT:         transform.named_sequence @tinyml_lower_contractions
// SCRIPT:           transform.apply_patterns.vector.lower_contraction
// SCRIPT:           transform.loop.hoist_loop_invariant_subsets

// After the script: tile loops over rows and channel tiles (the batch and
// the one column tile fold away), the reduction loop carrying the 5x4
// accumulators as a vector iter_arg, FMAs in its body, no new tensor inside.
// CHECK-LABEL: func.func @pointwise
// CHECK-NOT:     tinyml_transform_script
// CHECK:         scf.for {{.*}} to %c25
// CHECK:           scf.for {{.*}} to %c8 step %c4
// CHECK-NOT:         tensor.empty
// CHECK:             %[[BIAS:.*]] = vector.transfer_read %arg2
// CHECK:             %[[ACC:.*]] = vector.broadcast %[[BIAS]]
// CHECK:             scf.for {{.*}} to %c16 step %c8 iter_args(%{{.*}} = %[[ACC]]) -> (vector<1x5x4xf32>)
// CHECK:               vector.fma
// CHECK:             arith.cmpf ugt
// CHECK:             vector.transfer_write
// CHECK-NOT:     linalg.
func.func @pointwise(%x: tensor<1x25x5x16xf32>, %w: tensor<1x1x16x8xf32>, %b: tensor<8xf32>) -> tensor<1x25x5x8xf32> {
  %y = tinyml.fused conv_epilogue (%x, %w, %b) : (tensor<1x25x5x16xf32>, tensor<1x1x16x8xf32>, tensor<8xf32>) -> tensor<1x25x5x8xf32> {
  ^bb0(%xi: tensor<1x25x5x16xf32>, %wi: tensor<1x1x16x8xf32>, %bi: tensor<8xf32>):
    %c = tinyml.conv2d %xi, %wi, %bi : (tensor<1x25x5x16xf32>, tensor<1x1x16x8xf32>, tensor<8xf32>) -> tensor<1x25x5x8xf32>
    %r = tinyml.relu %c : tensor<1x25x5x8xf32>
    tinyml.yield %r : tensor<1x25x5x8xf32>
  }
  return %y : tensor<1x25x5x8xf32>
}

// -----

// An average pool: the division by the window is the epilogue, the pooling
// sum is fused into its tiles of 4 channels and walks the window a row at
// a time (a 1-D pooling per row); sum and division are one loop nest.
// SCRIPT-LABEL: func.func @average
// SCRIPT:         transform.structured.tile_using_for %{{.*}} tile_sizes [1, 1, 1, 4]
// SCRIPT:         transform.structured.tile_using_for %{{.*}} tile_sizes [0, 0, 0, 0, 1, 0]
// SCRIPT:         transform.structured.decompose
// CHECK-LABEL: func.func @average
// CHECK:         scf.for {{.*}} to %c8 step %c4
// CHECK:           scf.for {{.*}} to %c5 step %c1 iter_args(%{{.*}} = %{{.*}}) -> (vector<1x1x4xf32>)
// CHECK:             vector.transfer_read %arg0{{.*}} vector<3x4xf32>
// CHECK-COUNT-3:     arith.addf {{.*}} : vector<4xf32>
// CHECK:           arith.divf {{.*}} : vector<4xf32>
// CHECK:           vector.transfer_write
// CHECK-NOT:     scf.for
func.func @average(%x: tensor<1x5x3x8xf32>) -> tensor<1x1x1x8xf32> {
  %y = tinyml.avg_pool2d %x {kernel = array<i64: 5, 3>} : (tensor<1x5x3x8xf32>) -> tensor<1x1x1x8xf32>
  return %y : tensor<1x1x1x8xf32>
}

// -----

// A padded 3x3 conv: tiled in two levels, 4 pixels of a row then 4 output
// channels. The pad is fused into the pixel loop: each pixel tile stages its
// padded 3x6 window of all 8 input channels once for both channel tiles,
// whose reduction (a window row, 4 input channels a step) reads it with no
// test per tap. The guard against an empty window is proved never taken;
// after bufferization the staging buffer is allocated once, outside the
// loops.
// SCRIPT-LABEL: func.func @padded
// SCRIPT:         transform.structured.tile_using_for %{{.*}} tile_sizes [1, 1, 4, 0]
// SCRIPT:         transform.structured.fuse_into_containing_op
// SCRIPT:         transform.structured.fuse_into_containing_op
// SCRIPT:         transform.structured.fuse_into_containing_op
// SCRIPT:         transform.structured.tile_using_for %{{.*}} tile_sizes [0, 0, 0, 4]
// SCRIPT:         transform.structured.tile_using_for %{{.*}} tile_sizes [0, 0, 0, 0, 1, 3, 4]
// CHECK-LABEL: func.func @padded
// CHECK:         scf.for {{.*}} to %c8 step %c1
// CHECK:           scf.for {{.*}} to %c8 step %c4
// CHECK-NOT:         scf.if
// CHECK:             %[[WINDOW:.*]] = tensor.pad
// CHECK:             } : tensor<1x?x?x8xf32> to tensor<1x3x6x8xf32>
// CHECK:             scf.for {{.*}} to %c8 step %c4
// CHECK:               scf.for {{.*}} to %c3 step %c1 iter_args(%{{.*}} = %{{.*}}) -> (vector<1x4x4xf32>)
// CHECK:                 scf.for {{.*}} to %c8 step %c4
// CHECK:                   vector.transfer_read %[[WINDOW]]
// CHECK:                   vector.fma
// BUF-LABEL: func.func @padded
// BUF:         %[[STAGE:.*]] = memref.alloc() {{.*}} : memref<1x3x6x8xf32>
// BUF:         scf.for
// BUF-NOT:       memref.alloc
// BUF:           linalg.map outs(%[[STAGE]]
// BUF:           memref.copy %{{.*}}, %{{.*}} : memref<1x?x?x8xf32, {{.*}}> to memref<1x?x?x8xf32
// BUF-NOT:       memref.alloc
// BUF:         return
func.func @padded(%x: tensor<1x8x8x8xf32>, %w: tensor<3x3x8x8xf32>, %b: tensor<8xf32>) -> tensor<1x8x8x8xf32> {
  %y = tinyml.fused conv_epilogue (%x, %w, %b) : (tensor<1x8x8x8xf32>, tensor<3x3x8x8xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32> {
  ^bb0(%xi: tensor<1x8x8x8xf32>, %wi: tensor<3x3x8x8xf32>, %bi: tensor<8xf32>):
    %c = tinyml.conv2d %xi, %wi, %bi {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x8xf32>, tensor<3x3x8x8xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
    %r = tinyml.relu %c : tensor<1x8x8x8xf32>
    tinyml.yield %r : tensor<1x8x8x8xf32>
  }
  return %y : tensor<1x8x8x8xf32>
}

// -----

// A padded 3x3 depthwise conv: tiled in two levels, a band of output rows
// of 4 channels, then 3 pixels of a row. The pad is fused into the band
// loop: each band stages its padded window (all columns, the tile's 4
// channels) once; a depthwise conv reuses no input across channels, so the
// band, not the pixel tile, amortises the staging. With no schedule peak
// known the band is one row.
// SCRIPT-LABEL: func.func @padded_depthwise
// SCRIPT:         transform.structured.tile_using_for %{{.*}} tile_sizes [1, 1, 0, 4]
// SCRIPT:         transform.structured.fuse_into_containing_op
// SCRIPT:         transform.structured.fuse_into_containing_op
// SCRIPT:         transform.structured.fuse_into_containing_op
// SCRIPT:         transform.structured.tile_using_for %{{.*}} tile_sizes [0, 1, 3, 0]
// SCRIPT:         transform.structured.tile_using_for %{{.*}} tile_sizes [0, 0, 0, 0, 1, 0]
// CHECK-LABEL: func.func @padded_depthwise
// CHECK:         scf.for {{.*}} to %c6 step %c1
// CHECK:           scf.for {{.*}} to %c8 step %c4
// CHECK-NOT:         scf.if
// CHECK:             %[[WINDOW:.*]] = tensor.pad
// CHECK:             } : tensor<1x?x6x4xf32> to tensor<1x3x8x4xf32>
// CHECK:             scf.for {{.*}} to %c6 step %c3
// CHECK:               scf.for {{.*}} to %c3 step %c1 iter_args(%{{.*}} = %{{.*}}) -> (vector<1x3x4xf32>)
// CHECK:                 vector.transfer_read %[[WINDOW]]
// CHECK:                 vector.fma
func.func @padded_depthwise(%x: tensor<1x6x6x8xf32>, %w: tensor<3x3x8x1xf32>, %b: tensor<8xf32>) -> tensor<1x6x6x8xf32> {
  %y = tinyml.fused conv_epilogue (%x, %w, %b) : (tensor<1x6x6x8xf32>, tensor<3x3x8x1xf32>, tensor<8xf32>) -> tensor<1x6x6x8xf32> {
  ^bb0(%xi: tensor<1x6x6x8xf32>, %wi: tensor<3x3x8x1xf32>, %bi: tensor<8xf32>):
    %c = tinyml.depthwise_conv2d %xi, %wi, %bi {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x6x6x8xf32>, tensor<3x3x8x1xf32>, tensor<8xf32>) -> tensor<1x6x6x8xf32>
    %r = tinyml.relu %c : tensor<1x6x6x8xf32>
    tinyml.yield %r : tensor<1x6x6x8xf32>
  }
  return %y : tensor<1x6x6x8xf32>
}

// -----

// The same conv in a function whose schedule peaks far above its input and
// output: the staging buffer fits beside them, and the band grows to the
// whole height (each input row staged once).
// SCRIPT-LABEL: func.func @padded_depthwise_band
// SCRIPT:         transform.structured.tile_using_for %{{.*}} tile_sizes [1, 6, 0, 4]
// SCRIPT:         transform.structured.tile_using_for %{{.*}} tile_sizes [0, 1, 3, 0]
// CHECK-LABEL: func.func @padded_depthwise_band
// CHECK:         scf.for {{.*}} to %c8 step %c4
// CHECK:           %[[WINDOW:.*]] = tensor.pad
// CHECK:           } : tensor<1x6x6x4xf32> to tensor<1x8x8x4xf32>
// CHECK:           scf.for {{.*}} to %c6 step %c1
// CHECK:             scf.for {{.*}} to %c6 step %c3
func.func @padded_depthwise_band(%x: tensor<1x6x6x8xf32>, %w: tensor<3x3x8x1xf32>, %b: tensor<8xf32>) -> tensor<1x6x6x8xf32>
    attributes {tinyml.schedule_peak_bytes = 100000 : i64} {
  %y = tinyml.fused conv_epilogue (%x, %w, %b) : (tensor<1x6x6x8xf32>, tensor<3x3x8x1xf32>, tensor<8xf32>) -> tensor<1x6x6x8xf32> {
  ^bb0(%xi: tensor<1x6x6x8xf32>, %wi: tensor<3x3x8x1xf32>, %bi: tensor<8xf32>):
    %c = tinyml.depthwise_conv2d %xi, %wi, %bi {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x6x6x8xf32>, tensor<3x3x8x1xf32>, tensor<8xf32>) -> tensor<1x6x6x8xf32>
    %r = tinyml.relu %c : tensor<1x6x6x8xf32>
    tinyml.yield %r : tensor<1x6x6x8xf32>
  }
  return %y : tensor<1x6x6x8xf32>
}

// -----

// In place (tinyml-compute-in-place), the output overwrites the input, and
// beside that one tensor (1,152 B) live the band's copy of a tile's 4
// channels (576 B) and the staging buffer: the in-place peak of 2,752 B
// leaves room for the whole height's padded window (8 x 8 x 4 floats,
// 1,024 B), each input row staged once.
// SCRIPT-LABEL: func.func @in_place_depthwise_band
// SCRIPT:         transform.structured.tile_using_for %{{.*}} tile_sizes [0, 0, 0, 4]
// SCRIPT-NEXT:    transform.annotate %{{.*}} "tinyml.in_place"
// SCRIPT:         transform.structured.tile_using_for %{{.*}} tile_sizes [1, 6, 0, 4]
// SCRIPT:         transform.structured.tile_using_for %{{.*}} tile_sizes [0, 1, 3, 0]
func.func @in_place_depthwise_band(%x: tensor<1x6x6x8xf32>, %w: tensor<3x3x8x1xf32>, %b: tensor<8xf32>) -> tensor<1x6x6x8xf32>
    attributes {tinyml.in_place_peak_bytes = 2752 : i64} {
  %y = tinyml.fused conv_epilogue (%x, %w, %b) {tinyml.in_place} : (tensor<1x6x6x8xf32>, tensor<3x3x8x1xf32>, tensor<8xf32>) -> tensor<1x6x6x8xf32> {
  ^bb0(%xi: tensor<1x6x6x8xf32>, %wi: tensor<3x3x8x1xf32>, %bi: tensor<8xf32>):
    %c = tinyml.depthwise_conv2d %xi, %wi, %bi {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x6x6x8xf32>, tensor<3x3x8x1xf32>, tensor<8xf32>) -> tensor<1x6x6x8xf32>
    %r = tinyml.relu %c : tensor<1x6x6x8xf32>
    tinyml.yield %r : tensor<1x6x6x8xf32>
  }
  return %y : tensor<1x6x6x8xf32>
}

// -----

// One byte less and the whole height's window no longer fits: the band is
// the most rows dividing the height that do (3: a 5 x 8 x 4 window).
// SCRIPT-LABEL: func.func @in_place_depthwise_band_short
// SCRIPT:         transform.structured.tile_using_for %{{.*}} tile_sizes [1, 3, 0, 4]
func.func @in_place_depthwise_band_short(%x: tensor<1x6x6x8xf32>, %w: tensor<3x3x8x1xf32>, %b: tensor<8xf32>) -> tensor<1x6x6x8xf32>
    attributes {tinyml.in_place_peak_bytes = 2751 : i64} {
  %y = tinyml.fused conv_epilogue (%x, %w, %b) {tinyml.in_place} : (tensor<1x6x6x8xf32>, tensor<3x3x8x1xf32>, tensor<8xf32>) -> tensor<1x6x6x8xf32> {
  ^bb0(%xi: tensor<1x6x6x8xf32>, %wi: tensor<3x3x8x1xf32>, %bi: tensor<8xf32>):
    %c = tinyml.depthwise_conv2d %xi, %wi, %bi {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x6x6x8xf32>, tensor<3x3x8x1xf32>, tensor<8xf32>) -> tensor<1x6x6x8xf32>
    %r = tinyml.relu %c : tensor<1x6x6x8xf32>
    tinyml.yield %r : tensor<1x6x6x8xf32>
  }
  return %y : tensor<1x6x6x8xf32>
}

// -----

// An int8 window takes a byte per value: in place, 288 B of tensor, 144 B
// of band copy and 256 B of staging (8 x 8 x 4) make a peak of 688 B, in
// which the whole height's window fits (counted as floats, not one row).
// SCRIPT-LABEL: func.func @quantized_in_place_depthwise_band
// SCRIPT:         transform.structured.tile_using_for %{{.*}} tile_sizes [1, 6, 0, 4]
func.func @quantized_in_place_depthwise_band(%x8: tensor<1x6x6x8xi8>) -> tensor<1x6x6x8xi8>
    attributes {tinyml.in_place_peak_bytes = 688 : i64} {
  %x = quant.scast %x8 : tensor<1x6x6x8xi8> to tensor<1x6x6x8x!quant.uniform<i8:f32, 0.5:-3>>
  %wc = arith.constant dense<1> : tensor<3x3x8x1xi8>
  %w = quant.scast %wc : tensor<3x3x8x1xi8> to tensor<3x3x8x1x!quant.uniform<i8:f32, 0.1>>
  %y = tinyml.fused conv_epilogue (%x, %w) {tinyml.in_place} : (tensor<1x6x6x8x!quant.uniform<i8:f32, 0.5:-3>>,
      tensor<3x3x8x1x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x6x6x8x!quant.uniform<i8:f32, 0.25:0>> {
  ^bb0(%xi: tensor<1x6x6x8x!quant.uniform<i8:f32, 0.5:-3>>, %wi: tensor<3x3x8x1x!quant.uniform<i8:f32, 0.1>>):
    %c = tinyml.depthwise_conv2d %xi, %wi {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x6x6x8x!quant.uniform<i8:f32, 0.5:-3>>,
        tensor<3x3x8x1x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x6x6x8x!quant.uniform<i8:f32, 0.25:0>>
    tinyml.yield %c : tensor<1x6x6x8x!quant.uniform<i8:f32, 0.25:0>>
  }
  %y8 = quant.scast %y : tensor<1x6x6x8x!quant.uniform<i8:f32, 0.25:0>> to tensor<1x6x6x8xi8>
  return %y8 : tensor<1x6x6x8xi8>
}

// -----

// Out of place, an int8 conv's band fits beside its int8 input and output
// (288 B each), not beside its int32 accumulators (1,152 B, never held
// whole): a schedule peak of 832 B leaves room for the whole height's
// window (8 x 8 x 4 bytes, 256 B).
// SCRIPT-LABEL: func.func @quantized_depthwise_band
// SCRIPT:         transform.structured.tile_using_for %{{.*}} tile_sizes [1, 6, 0, 4]
func.func @quantized_depthwise_band(%x8: tensor<1x6x6x8xi8>) -> tensor<1x6x6x8xi8>
    attributes {tinyml.schedule_peak_bytes = 832 : i64} {
  %x = quant.scast %x8 : tensor<1x6x6x8xi8> to tensor<1x6x6x8x!quant.uniform<i8:f32, 0.5:-3>>
  %wc = arith.constant dense<1> : tensor<3x3x8x1xi8>
  %w = quant.scast %wc : tensor<3x3x8x1xi8> to tensor<3x3x8x1x!quant.uniform<i8:f32, 0.1>>
  %y = tinyml.fused conv_epilogue (%x, %w) : (tensor<1x6x6x8x!quant.uniform<i8:f32, 0.5:-3>>,
      tensor<3x3x8x1x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x6x6x8x!quant.uniform<i8:f32, 0.25:0>> {
  ^bb0(%xi: tensor<1x6x6x8x!quant.uniform<i8:f32, 0.5:-3>>, %wi: tensor<3x3x8x1x!quant.uniform<i8:f32, 0.1>>):
    %c = tinyml.depthwise_conv2d %xi, %wi {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x6x6x8x!quant.uniform<i8:f32, 0.5:-3>>,
        tensor<3x3x8x1x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x6x6x8x!quant.uniform<i8:f32, 0.25:0>>
    tinyml.yield %c : tensor<1x6x6x8x!quant.uniform<i8:f32, 0.25:0>>
  }
  %y8 = quant.scast %y : tensor<1x6x6x8x!quant.uniform<i8:f32, 0.25:0>> to tensor<1x6x6x8xi8>
  return %y8 : tensor<1x6x6x8xi8>
}

// -----

// One byte less: 3 rows (a 5 x 8 x 4 window, 160 B).
// SCRIPT-LABEL: func.func @quantized_depthwise_band_short
// SCRIPT:         transform.structured.tile_using_for %{{.*}} tile_sizes [1, 3, 0, 4]
func.func @quantized_depthwise_band_short(%x8: tensor<1x6x6x8xi8>) -> tensor<1x6x6x8xi8>
    attributes {tinyml.schedule_peak_bytes = 831 : i64} {
  %x = quant.scast %x8 : tensor<1x6x6x8xi8> to tensor<1x6x6x8x!quant.uniform<i8:f32, 0.5:-3>>
  %wc = arith.constant dense<1> : tensor<3x3x8x1xi8>
  %w = quant.scast %wc : tensor<3x3x8x1xi8> to tensor<3x3x8x1x!quant.uniform<i8:f32, 0.1>>
  %y = tinyml.fused conv_epilogue (%x, %w) : (tensor<1x6x6x8x!quant.uniform<i8:f32, 0.5:-3>>,
      tensor<3x3x8x1x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x6x6x8x!quant.uniform<i8:f32, 0.25:0>> {
  ^bb0(%xi: tensor<1x6x6x8x!quant.uniform<i8:f32, 0.5:-3>>, %wi: tensor<3x3x8x1x!quant.uniform<i8:f32, 0.1>>):
    %c = tinyml.depthwise_conv2d %xi, %wi {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x6x6x8x!quant.uniform<i8:f32, 0.5:-3>>,
        tensor<3x3x8x1x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x6x6x8x!quant.uniform<i8:f32, 0.25:0>>
    tinyml.yield %c : tensor<1x6x6x8x!quant.uniform<i8:f32, 0.25:0>>
  }
  %y8 = quant.scast %y : tensor<1x6x6x8x!quant.uniform<i8:f32, 0.25:0>> to tensor<1x6x6x8xi8>
  return %y8 : tensor<1x6x6x8xi8>
}

// -----

// A padded conv reading an NCHW input through a transpose
// (tinyml-fuse-input-transpose): the transpose of each pixel tile's window
// is fused into the pixel loop, then the pad of the NCHW window it reads
// (padded before transposed: a window of static size). No transposed or
// padded copy of the whole input exists: after bufferization the window
// and its transpose are each staged once, outside the loops (the stage's
// tinyml-decompose-pads, not run here, makes them one buffer).
// SCRIPT-LABEL: func.func @transposed_input
// SCRIPT:         %[[CONV:.*]] = transform.get_producer_of_operand %arg0[0]
// SCRIPT:         %[[T:.*]] = transform.get_producer_of_operand %[[CONV]][0]
// SCRIPT:         %[[P:.*]] = transform.get_producer_of_operand %[[T]][0]
// SCRIPT:         transform.structured.tile_using_for %{{.*}} tile_sizes [1, 1, 4, 0]
// SCRIPT:         transform.structured.fuse_into_containing_op
// SCRIPT:         transform.structured.fuse_into_containing_op
// SCRIPT:         transform.structured.fuse_into_containing_op %[[T]]
// SCRIPT:         transform.apply_patterns.tensor.fold_tensor_empty
// SCRIPT:         transform.structured.fuse_into_containing_op %[[P]]
// SCRIPT:         transform.structured.tile_using_for %{{.*}} tile_sizes [0, 0, 0, 4]
// CHECK-LABEL: func.func @transposed_input
// CHECK-NOT:     linalg.transpose
// CHECK:         scf.for {{.*}} to %c4 step %c1
// CHECK:           scf.for {{.*}} to %c8 step %c4
// CHECK-NOT:         scf.if
// CHECK:             tensor.extract_slice %arg0{{.*}} : tensor<1x3x8x16xf32> to tensor<1x3x?x?xf32>
// CHECK:             %[[WINDOW:.*]] = tensor.pad
// CHECK:             } : tensor<1x3x?x?xf32> to tensor<1x3x3x9xf32>
// CHECK:             %[[T:.*]] = linalg.transpose ins(%[[WINDOW]] : tensor<1x3x3x9xf32>) outs(%{{.*}} : tensor<1x3x9x3xf32>) permutation = [0, 2, 3, 1]
// CHECK:             scf.for {{.*}} to %c8 step %c4
// CHECK:               vector.transfer_read %[[T]]
// CHECK:               vector.fma
// BUF-LABEL: func.func @transposed_input
// BUF-DAG:     memref.alloc() {{.*}} : memref<1x3x3x9xf32>
// BUF-DAG:     memref.alloc() {{.*}} : memref<1x3x9x3xf32>
// BUF:         scf.for
// BUF-NOT:       memref.alloc
// BUF:         return
func.func @transposed_input(%x: tensor<1x3x8x16xf32>, %w: tensor<3x3x3x8xf32>, %b: tensor<8xf32>) -> tensor<1x4x8x8xf32> {
  %y = tinyml.fused conv_epilogue (%x, %w, %b) : (tensor<1x3x8x16xf32>, tensor<3x3x3x8xf32>, tensor<8xf32>) -> tensor<1x4x8x8xf32> {
  ^bb0(%xi: tensor<1x3x8x16xf32>, %wi: tensor<3x3x3x8xf32>, %bi: tensor<8xf32>):
    %t = tinyml.transpose %xi {permutation = array<i64: 0, 2, 3, 1>} : (tensor<1x3x8x16xf32>) -> tensor<1x8x16x3xf32>
    %c = tinyml.conv2d %t, %wi, %bi {padding = array<i64: 0, 0, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x16x3xf32>, tensor<3x3x3x8xf32>, tensor<8xf32>) -> tensor<1x4x8x8xf32>
    %r = tinyml.relu %c : tensor<1x4x8x8xf32>
    tinyml.yield %r : tensor<1x4x8x8xf32>
  }
  return %y : tensor<1x4x8x8xf32>
}

// -----

// Unpadded, the transposed input is staged per pixel tile all the same
// (two levels), for all the tile's output channels.
// SCRIPT-LABEL: func.func @transposed_input_unpadded
// SCRIPT:         transform.structured.tile_using_for %{{.*}} tile_sizes [1, 1, 4, 0]
// SCRIPT:         transform.structured.tile_using_for %{{.*}} tile_sizes [0, 0, 0, 4]
// CHECK-LABEL: func.func @transposed_input_unpadded
// CHECK-NOT:     linalg.transpose
// CHECK:         scf.for {{.*}} to %c8 step %c1
// CHECK:           scf.for {{.*}} to %c8 step %c4
// CHECK:             %[[T:.*]] = linalg.transpose ins(%{{.*}} : tensor<1x3x1x4xf32>) outs(%{{.*}} : tensor<1x1x4x3xf32>)
// CHECK:             scf.for {{.*}} to %c8 step %c4
// CHECK:               vector.transfer_read %[[T]]
// BUF-LABEL: func.func @transposed_input_unpadded
// BUF-NOT:     memref.alloc() {{.*}} : memref<1x8x8x3xf32>
// BUF:         return
func.func @transposed_input_unpadded(%x: tensor<1x3x8x8xf32>, %w: tensor<1x1x3x8xf32>, %b: tensor<8xf32>) -> tensor<1x8x8x8xf32> {
  %y = tinyml.fused conv_epilogue (%x, %w, %b) : (tensor<1x3x8x8xf32>, tensor<1x1x3x8xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32> {
  ^bb0(%xi: tensor<1x3x8x8xf32>, %wi: tensor<1x1x3x8xf32>, %bi: tensor<8xf32>):
    %t = tinyml.transpose %xi {permutation = array<i64: 0, 2, 3, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x8x8x3xf32>
    %c = tinyml.conv2d %t, %wi, %bi : (tensor<1x8x8x3xf32>, tensor<1x1x3x8xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
    %r = tinyml.relu %c : tensor<1x8x8x8xf32>
    tinyml.yield %r : tensor<1x8x8x8xf32>
  }
  return %y : tensor<1x8x8x8xf32>
}
