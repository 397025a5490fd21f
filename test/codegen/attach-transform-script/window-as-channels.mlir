// RUN: tinyml-opt %s --split-input-file --tinyml-choose-tiles=dsp=true --tinyml-lower-to-linalg --tinyml-attach-transform-script | FileCheck %s --check-prefix=SCRIPT
// RUN: tinyml-opt %s --split-input-file --pass-pipeline="builtin.module(tinyml-choose-tiles{dsp=true}, \
// RUN:   tinyml-lower-to-linalg,tinyml-attach-transform-script,transform-interpreter, \
// RUN:   transform-interpreter{entry-point=tinyml_lower_contractions}, \
// RUN:   tinyml-erase-transform-script,canonicalize,cse,lower-affine,int-range-optimizations,canonicalize, \
// RUN:   one-shot-bufferize{bufferize-function-boundaries},canonicalize,func.func(buffer-loop-hoisting))" \
// RUN:   | FileCheck %s

// An int8 RGB conv, 3x3, stride 2, padded below and right (TFLite's SAME
// on an even input), on a DSP core: its lowering reads the whole window
// as 28 int16 channels through a generic (tinyml.window_as_channels) over
// the padded input, a 1x1 conv over them. The script fuses that generic
// into the pixel loop, then the pad it reads: each tile of 2 pixels stages
// its padded window (3 rows of 5 columns of 3 channels; the window's extent,
// 3, not the 1x1 conv's, says the padding never fills a tile's window) and
// the window's values as channels (2 pixels of 28), and no padded copy of
// the whole input exists.
// SCRIPT-LABEL: func.func @rgb_conv
// SCRIPT:         %[[CONV:.*]] = transform.get_producer_of_operand %arg0[0]
// SCRIPT:         %[[U:.*]] = transform.get_producer_of_operand %[[CONV]][0]
// SCRIPT:         %[[P:.*]] = transform.get_producer_of_operand %[[U]][0]
// SCRIPT:         transform.structured.tile_using_for %{{.*}} tile_sizes [1, 1, 2, 0]
// SCRIPT:         transform.structured.fuse_into_containing_op %[[U]]
// SCRIPT:         transform.structured.fuse_into_containing_op %[[P]]
// SCRIPT:         transform.structured.tile_using_for %{{.*}} tile_sizes [0, 0, 0, 2]
// CHECK-LABEL: func.func @rgb_conv
// CHECK-DAG:     memref.alloc() {{.*}} : memref<1x3x5x3xi8>
// CHECK-DAG:     memref.alloc() {{.*}} : memref<1x1x2x28xi16>
// CHECK-NOT:     memref.alloc
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             linalg.generic {{.*}} ins(%{{.*}} : memref<1x3x5x3xi8{{.*}}>) outs(%{{.*}} : memref<1x1x2x28xi16>) attrs = {tinyml.window_as_channels = array<i64: 3, 3>}
// CHECK:             scf.for
// CHECK:               vector.transfer_read %{{.*}} : memref<1x1x2x28xi16>, vector<2x28xi16>
// CHECK:         return
func.func @rgb_conv(%x8: tensor<1x8x8x3xi8>) -> tensor<1x4x4x8xi8> {
  %x = quant.scast %x8 : tensor<1x8x8x3xi8> to tensor<1x8x8x3x!quant.uniform<i8:f32, 0.5:-3>>
  %wc = arith.constant dense<1> : tensor<3x3x3x8xi8>
  %w = quant.scast %wc : tensor<3x3x3x8xi8> to tensor<3x3x3x8x!quant.uniform<i8:f32, 0.1>>
  %y = tinyml.fused conv_epilogue (%x, %w) : (tensor<1x8x8x3x!quant.uniform<i8:f32, 0.5:-3>>,
      tensor<3x3x3x8x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x4x4x8x!quant.uniform<i8:f32, 0.25:0>> {
  ^bb0(%xi: tensor<1x8x8x3x!quant.uniform<i8:f32, 0.5:-3>>, %wi: tensor<3x3x3x8x!quant.uniform<i8:f32, 0.1>>):
    %c = tinyml.conv2d %xi, %wi {strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 1, 1>} : (tensor<1x8x8x3x!quant.uniform<i8:f32, 0.5:-3>>,
        tensor<3x3x3x8x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x4x4x8x!quant.uniform<i8:f32, 0.25:0>>
    tinyml.yield %c : tensor<1x4x4x8x!quant.uniform<i8:f32, 0.25:0>>
  }
  %y8 = quant.scast %y : tensor<1x4x4x8x!quant.uniform<i8:f32, 0.25:0>> to tensor<1x4x4x8xi8>
  return %y8 : tensor<1x4x4x8xi8>
}
