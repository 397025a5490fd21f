// RUN: tinyml-opt %s --tinyml-attach-transform-script | FileCheck %s
// RUN: tinyml-opt %s --tinyml-attach-transform-script --transform-interpreter | FileCheck %s --check-prefix=TILED

// Two float convs of one shape whose accumulators start from one zero
// fill (CSE's doing): each group's conv gets a fill of its own before the
// script fuses it into the group's loops (a fill shared with another op
// fails an assertion in upstream's fuse_into_containing_op when the group
// runs in place); the second conv keeps the original.
// CHECK-LABEL: func.func @shared_zero_fill
// CHECK:         %[[SHARED:.*]] = linalg.fill
// CHECK:         %[[OWN:.*]] = linalg.fill
// CHECK-NEXT:    linalg.conv_2d_nhwc_hwcf {{.*}} outs(%[[OWN]] :
// CHECK:         linalg.conv_2d_nhwc_hwcf {{.*}} outs(%[[SHARED]] :
// Both tile, the fills fused into their loops.
// TILED-LABEL: func.func @shared_zero_fill
// TILED-COUNT-2: scf.for
// TILED-NOT:     linalg.fill {{.*}} -> tensor<1x2x4x8xf32>
#identity = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#channel = affine_map<(d0, d1, d2, d3) -> (d3)>
func.func @shared_zero_fill(%x: tensor<1x2x4x8xf32>, %w: tensor<1x1x8x8xf32>, %b: tensor<8xf32>)
    -> (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x2x4x8xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  %c1 = linalg.conv_2d_nhwc_hwcf ins(%x, %w : tensor<1x2x4x8xf32>, tensor<1x1x8x8xf32>) outs(%fill : tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  %y1 = linalg.generic {indexing_maps = [#identity, #channel, #identity], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c1, %b : tensor<1x2x4x8xf32>, tensor<8xf32>) outs(%empty : tensor<1x2x4x8xf32>) attrs = {lowering = #tinyml.lowering<tile = [1, 1, 4, 4], reduction = [1, 1, 8]>} {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<1x2x4x8xf32>
  %c2 = linalg.conv_2d_nhwc_hwcf ins(%y1, %w : tensor<1x2x4x8xf32>, tensor<1x1x8x8xf32>) outs(%fill : tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  %y2 = linalg.generic {indexing_maps = [#identity, #channel, #identity], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c2, %b : tensor<1x2x4x8xf32>, tensor<8xf32>) outs(%empty : tensor<1x2x4x8xf32>) attrs = {lowering = #tinyml.lowering<tile = [1, 1, 4, 4], reduction = [1, 1, 8]>} {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<1x2x4x8xf32>
  return %y1, %y2 : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
}
