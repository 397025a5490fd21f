// RUN: tinyml-opt %s --split-input-file --tinyml-choose-tiles='dsp=true' --tinyml-lower-to-linalg --canonicalize --tinyml-widen-conv-inputs --tinyml-attach-transform-script | FileCheck %s --check-prefix=SCRIPT
// RUN: tinyml-opt %s --split-input-file --pass-pipeline="builtin.module(tinyml-choose-tiles{dsp=true}, \
// RUN:   tinyml-lower-to-linalg,canonicalize,tinyml-widen-conv-inputs,tinyml-attach-transform-script,transform-interpreter, \
// RUN:   tinyml-read-in-place,transform-interpreter{entry-point=tinyml_lower_contractions}, \
// RUN:   tinyml-erase-transform-script,canonicalize,cse,lower-affine,int-range-optimizations,canonicalize, \
// RUN:   one-shot-bufferize{bufferize-function-boundaries},canonicalize,func.func(buffer-loop-hoisting))" \
// RUN:   | FileCheck %s

// An int8 1x1 conv over rows of 5 pixels, 16 channels to 16, tiled for
// SMLAD to 2 pixels x 2 channels, reading its input through the int16 extension
// (tinyml.widened): the pixel loop is peeled, so the extension is fused
// into an outer tile of one whole row, which stages the row in int16 once
// for every tile of it, whole or peeled.
// SCRIPT-LABEL: func.func @pointwise_odd_row
// SCRIPT:         %[[CONV:.*]] = transform.get_producer_of_operand %arg0[0]
// SCRIPT:         %[[READER:.*]] = transform.get_producer_of_operand %[[CONV]][0]
// SCRIPT:         %{{.*}}, %[[ROWS:.*]]:2 = transform.structured.tile_using_for %{{.*}} tile_sizes [1, 1, 0, 0]
// SCRIPT:         fuse_into_containing_op %[[READER]]
// SCRIPT:         %{{.*}}, %[[LOOPS:.*]]:2 = transform.structured.tile_using_for %{{.*}} tile_sizes [0, 0, 2, 2]
// SCRIPT:         %[[PIXELS:.*]] = transform.cast %[[LOOPS]]#0 : !transform.any_op to !transform.op<"scf.for">
// SCRIPT:         transform.loop.peel %[[PIXELS]]
// SCRIPT:         transform.structured.match ops{["linalg.conv_2d_nhwc_hwcf"]} in %[[ROWS]]#1
// SCRIPT:         transform.structured.match ops{["linalg.generic"]} attributes {lowering = {{.*}}} in %[[ROWS]]#1
//
// CHECK-LABEL: func.func @pointwise_odd_row
// CHECK:         %[[ROW_BUFFER:.*]] = memref.alloc() {{.*}} : memref<1x1x5x16xi16>
// CHECK:         scf.for %[[ROW:.*]] = %c0 to %c2 step %c1
// CHECK:           %[[INPUT:.*]] = memref.subview %{{.*}}[0, %[[ROW]], 0, 0] [1, 1, 5, 16]
// CHECK:           linalg.generic {{.*}} ins(%[[INPUT]] : {{.*}}) outs(%[[ROW_BUFFER]] : memref<1x1x5x16xi16>) attrs = {tinyml.widened}
// CHECK:           scf.for %[[PIXEL:.*]] = %c0 to %c4 step %c2
// CHECK:             scf.for
// CHECK:               vector.transfer_read %[[ROW_BUFFER]][%c0, %c0, %[[PIXEL]], %c0]{{.*}} vector<2x16xi16>
// CHECK:           scf.for
// CHECK:             vector.transfer_read %[[ROW_BUFFER]][%c0, %c0, %c4, %c0]{{.*}} vector<16xi16>
// CHECK-NOT:     linalg.conv_2d_nhwc_hwcf
func.func @pointwise_odd_row(%x8: tensor<1x2x5x16xi8>) -> tensor<1x2x5x16xi8> {
  %x = quant.scast %x8 : tensor<1x2x5x16xi8> to tensor<1x2x5x16x!quant.uniform<i8:f32, 0.5:-3>>
  %wc = arith.constant dense<1> : tensor<1x1x16x16xi8>
  %w = quant.scast %wc : tensor<1x1x16x16xi8> to tensor<1x1x16x16x!quant.uniform<i8:f32, 0.1>>
  %y = tinyml.fused conv_epilogue (%x, %w) : (tensor<1x2x5x16x!quant.uniform<i8:f32, 0.5:-3>>,
      tensor<1x1x16x16x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x2x5x16x!quant.uniform<i8:f32, 0.25:0>> {
  ^bb0(%xi: tensor<1x2x5x16x!quant.uniform<i8:f32, 0.5:-3>>, %wi: tensor<1x1x16x16x!quant.uniform<i8:f32, 0.1>>):
    %c = tinyml.conv2d %xi, %wi : (tensor<1x2x5x16x!quant.uniform<i8:f32, 0.5:-3>>,
        tensor<1x1x16x16x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x2x5x16x!quant.uniform<i8:f32, 0.25:0>>
    tinyml.yield %c : tensor<1x2x5x16x!quant.uniform<i8:f32, 0.25:0>>
  }
  %y8 = quant.scast %y : tensor<1x2x5x16x!quant.uniform<i8:f32, 0.25:0>> to tensor<1x2x5x16xi8>
  return %y8 : tensor<1x2x5x16xi8>
}
