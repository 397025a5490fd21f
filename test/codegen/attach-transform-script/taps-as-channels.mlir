// RUN: tinyml-opt %s --split-input-file --tinyml-choose-tiles=dsp=true --tinyml-lower-to-linalg --tinyml-attach-transform-script | FileCheck %s --check-prefix=SCRIPT
// RUN: tinyml-opt %s --split-input-file --pass-pipeline="builtin.module(tinyml-choose-tiles{dsp=true}, \
// RUN:   tinyml-lower-to-linalg,tinyml-attach-transform-script,transform-interpreter, \
// RUN:   transform-interpreter{entry-point=tinyml_lower_contractions}, \
// RUN:   tinyml-erase-transform-script,canonicalize,cse,lower-affine,int-range-optimizations,canonicalize, \
// RUN:   one-shot-bufferize{bufferize-function-boundaries},canonicalize,func.func(buffer-loop-hoisting))" \
// RUN:   | FileCheck %s

// A one-channel int8 conv with a 3x4 kernel, stride 2, on a DSP core: its
// lowering reads a kernel row's 4 taps as 4 channels through a generic
// (tinyml.taps_as_channels) over the padded input. The script fuses that
// generic into the pixel loop like an NCHW input's transpose, then the pad
// it reads: each pixel tile stages its padded window (3 rows of 4 input
// columns) and the window's taps as channels (3 rows of one column of 4),
// and no unfolded or padded copy of the whole input exists.
// SCRIPT-LABEL: func.func @one_channel_conv
// SCRIPT:         %[[CONV:.*]] = transform.get_producer_of_operand %arg0[0]
// SCRIPT:         %[[U:.*]] = transform.get_producer_of_operand %[[CONV]][0]
// SCRIPT:         %[[P:.*]] = transform.get_producer_of_operand %[[U]][0]
// SCRIPT:         transform.structured.tile_using_for %{{.*}} tile_sizes [1, 1, 1, 0]
// SCRIPT:         transform.structured.fuse_into_containing_op %[[U]]
// SCRIPT:         transform.structured.fuse_into_containing_op %[[P]]
// SCRIPT:         transform.structured.tile_using_for %{{.*}} tile_sizes [0, 0, 0, 4]
// CHECK-LABEL: func.func @one_channel_conv
// CHECK-DAG:     memref.alloc() {{.*}} : memref<1x3x4x1xi8>
// CHECK-DAG:     memref.alloc() {{.*}} : memref<1x3x1x4xi8>
// CHECK-NOT:     memref.alloc
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             linalg.generic {{.*}} ins(%{{.*}} : memref<1x3x4x1xi8{{.*}}>) outs(%{{.*}} : memref<1x3x1x4xi8>) attrs = {tinyml.taps_as_channels}
// CHECK:             scf.for
// CHECK:               vector.transfer_read %{{.*}} : memref<1x3x1x4xi8>, vector<4xi8>
// CHECK:         return
func.func @one_channel_conv(%x8: tensor<1x6x6x1xi8>) -> tensor<1x3x3x8xi8> {
  %x = quant.scast %x8 : tensor<1x6x6x1xi8> to tensor<1x6x6x1x!quant.uniform<i8:f32, 0.5:-3>>
  %wc = arith.constant dense<1> : tensor<3x4x1x8xi8>
  %w = quant.scast %wc : tensor<3x4x1x8xi8> to tensor<3x4x1x8x!quant.uniform<i8:f32, 0.1>>
  %y = tinyml.fused conv_epilogue (%x, %w) : (tensor<1x6x6x1x!quant.uniform<i8:f32, 0.5:-3>>,
      tensor<3x4x1x8x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x3x3x8x!quant.uniform<i8:f32, 0.25:0>> {
  ^bb0(%xi: tensor<1x6x6x1x!quant.uniform<i8:f32, 0.5:-3>>, %wi: tensor<3x4x1x8x!quant.uniform<i8:f32, 0.1>>):
    %c = tinyml.conv2d %xi, %wi {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x6x6x1x!quant.uniform<i8:f32, 0.5:-3>>,
        tensor<3x4x1x8x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x3x3x8x!quant.uniform<i8:f32, 0.25:0>>
    tinyml.yield %c : tensor<1x3x3x8x!quant.uniform<i8:f32, 0.25:0>>
  }
  %y8 = quant.scast %y : tensor<1x3x3x8x!quant.uniform<i8:f32, 0.25:0>> to tensor<1x3x3x8xi8>
  return %y8 : tensor<1x3x3x8xi8>
}
