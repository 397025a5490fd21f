// RUN: tinyml-opt %s --split-input-file --tinyml-choose-tiles='dsp=true' --tinyml-lower-to-linalg --tinyml-attach-transform-script | FileCheck %s --check-prefix=SCRIPT
// RUN: tinyml-opt %s --split-input-file --pass-pipeline="builtin.module(tinyml-choose-tiles{dsp=true}, \
// RUN:   tinyml-lower-to-linalg,tinyml-attach-transform-script,transform-interpreter, \
// RUN:   transform-interpreter{entry-point=tinyml_lower_contractions}, \
// RUN:   tinyml-erase-transform-script,canonicalize,cse,lower-affine,int-range-optimizations,canonicalize)" \
// RUN:   | FileCheck %s

// An int8 1x1 conv over rows of 5 pixels, 64 input channels (two steps: a
// tile of all 8 output channels would not save the reduction loop), tiled
// for SMLAD (dsp=true) to 2 pixels x 2 channels: the tile leaves the last
// pixel of each row. The
// script peels the pixel loop after fusing the conv and its bias into the
// tile: the whole tiles (pixels 0-3) and the last one (pixel 4), both of
// static sizes once the single-trip loop folds; then it finds the tile's
// ops again in the row loop and steps and vectorizes both copies.
// SCRIPT-LABEL: func.func @pointwise_odd_row
// SCRIPT:         lowering = #tinyml.lowering<tile = [1, 1, 2, 2], reduction = [1, 1, 32]>
// SCRIPT:       transform.named_sequence @tile_group_0
// SCRIPT:         %[[TILED:.*]], %[[LOOPS:.*]]:4 = transform.structured.tile_using_for %{{.*}} tile_sizes [1, 1, 2, 2]
// SCRIPT:         fuse_into_containing_op
// SCRIPT:         fuse_into_containing_op
// SCRIPT:         %[[PIXELS:.*]] = transform.cast %[[LOOPS]]#2 : !transform.any_op to !transform.op<"scf.for">
// SCRIPT:         transform.loop.peel %[[PIXELS]]
// SCRIPT:         transform.apply_patterns to %[[LOOPS]]#1
// SCRIPT:         %[[CONVS:.*]] = transform.structured.match ops{["linalg.conv_2d_nhwc_hwcf"]} in %[[LOOPS]]#1
// SCRIPT:         %[[INITS:.*]] = transform.structured.match ops{["linalg.broadcast"]} in %[[LOOPS]]#1
// SCRIPT:         %[[EPILOGUES:.*]] = transform.structured.match ops{["linalg.generic"]} attributes {lowering = #tinyml.lowering<tile = [1, 1, 2, 2], reduction = [1, 1, 32]>} in %[[LOOPS]]#1
// SCRIPT:         transform.structured.tile_using_for %[[CONVS]] tile_sizes [0, 0, 0, 0, 1, 1, 32]
// SCRIPT:         transform.structured.vectorize %[[INITS]]
// SCRIPT:         transform.structured.vectorize %[[EPILOGUES]]
//
// CHECK-LABEL: func.func @pointwise_odd_row
// CHECK-NOT:     linalg.conv_2d_nhwc_hwcf
// CHECK:         scf.for %[[ROW:.*]] = %c0 to %c2 step %c1
// CHECK:           scf.for %[[PIXEL:.*]] = %c0 to %c4 step %c2
// CHECK:             scf.for %[[CHANNEL:.*]] = %c0 to %c8 step %c2
// CHECK:               vector.transfer_write %{{.*}}, %{{.*}}[%c0, %[[ROW]], %[[PIXEL]], %[[CHANNEL]]] {{.*}} : vector<2x2xi8>
// CHECK:           scf.for %[[LAST:.*]] = %c0 to %c8 step %c2
// CHECK:             vector.transfer_write %{{.*}}, %{{.*}}[%c0, %[[ROW]], %c4, %[[LAST]]] {{.*}} : vector<2xi8>
// CHECK-NOT:     linalg.conv_2d_nhwc_hwcf
func.func @pointwise_odd_row(%x: tensor<1x2x5x64x!quant.uniform<i8:f32, 0.5:-3>>)
    -> tensor<1x2x5x8x!quant.uniform<i8:f32, 0.25:0>> {
  %wc = arith.constant dense<1> : tensor<1x1x64x8xi8>
  %w = quant.scast %wc : tensor<1x1x64x8xi8> to tensor<1x1x64x8x!quant.uniform<i8:f32, 0.1>>
  %y = tinyml.fused conv_epilogue (%x, %w) : (tensor<1x2x5x64x!quant.uniform<i8:f32, 0.5:-3>>,
      tensor<1x1x64x8x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x2x5x8x!quant.uniform<i8:f32, 0.25:0>> {
  ^bb0(%xi: tensor<1x2x5x64x!quant.uniform<i8:f32, 0.5:-3>>, %wi: tensor<1x1x64x8x!quant.uniform<i8:f32, 0.1>>):
    %c = tinyml.conv2d %xi, %wi : (tensor<1x2x5x64x!quant.uniform<i8:f32, 0.5:-3>>,
        tensor<1x1x64x8x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x2x5x8x!quant.uniform<i8:f32, 0.25:0>>
    tinyml.yield %c : tensor<1x2x5x8x!quant.uniform<i8:f32, 0.25:0>>
  }
  return %y : tensor<1x2x5x8x!quant.uniform<i8:f32, 0.25:0>>
}
