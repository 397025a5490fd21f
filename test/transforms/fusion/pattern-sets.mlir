// The fusion pattern sets used on their own, outside tinyml's passes: a
// script adds them to its own RewritePatternSet and runs the greedy driver
// with its default configuration, which also moves a group's constants to
// the top of its body (the passes leave them where they are used).
// RUN: %python %S/Inputs/apply_fusion_patterns.py elementwise:max_ops=2 < %s | FileCheck %s --check-prefix=EW2
// RUN: %python %S/Inputs/apply_fusion_patterns.py conv_epilogue:standalone=false reduction elementwise < %s | FileCheck %s --check-prefix=STAGE
// RUN: %python %S/Inputs/apply_fusion_patterns.py reduction < %s | FileCheck %s --check-prefix=RED

// The element-wise set alone groups element-wise ops only, here at most two.
// EW2-LABEL: func.func @conv_relu_scale
// EW2:         %[[C:.*]] = tinyml.conv2d
// EW2-NEXT:    tinyml.fused elementwise (%[[C]])
// EW2-NEXT:    ^bb0
// EW2:           tinyml.relu
// EW2-NEXT:      tinyml.mul
// EW2-NEXT:      tinyml.yield

// The three sets one after the other, as the fusion stage runs them: the
// conv takes its epilogue first, nothing is left for the element-wise set.
// STAGE-LABEL: func.func @conv_relu_scale
// STAGE:         tinyml.fused conv_epilogue
// STAGE-NEXT:    ^bb0
// STAGE:           tinyml.conv2d
// STAGE-NEXT:      tinyml.relu
// STAGE:           tinyml.mul
// STAGE-NEXT:      tinyml.yield
// STAGE-NOT:     tinyml.fused elementwise
func.func @conv_relu_scale(%x: tensor<1x4x4x2xf32>, %w: tensor<1x1x2x2xf32>) -> tensor<1x4x4x2xf32> {
  %c = arith.constant dense<0.5> : tensor<2xf32>
  %0 = tinyml.conv2d %x, %w : (tensor<1x4x4x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x4x4x2xf32>
  %1 = tinyml.relu %0 : tensor<1x4x4x2xf32>
  %2 = tinyml.mul %1, %c : (tensor<1x4x4x2xf32>, tensor<2xf32>) -> tensor<1x4x4x2xf32>
  return %2 : tensor<1x4x4x2xf32>
}

// The reduction set alone: the mean's scale and the square before it.
// RED-LABEL: func.func @mean_of_squares
// RED:         tinyml.fused reduction (%arg0)
// RED-NEXT:    ^bb0
// RED:           tinyml.mul
// RED-NEXT:      tinyml.reduce_sum
// RED-NEXT:      tinyml.mul
// RED-NEXT:      tinyml.yield
// STAGE-LABEL: func.func @mean_of_squares
// STAGE:         tinyml.fused reduction
// STAGE-NOT:     tinyml.fused
func.func @mean_of_squares(%x: tensor<4x16xf32>) -> tensor<4xf32> {
  %0 = tinyml.mul %x, %x : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %1 = tinyml.reduce_sum %0 {axes = array<i64: 1>} : (tensor<4x16xf32>) -> tensor<4xf32>
  %c = arith.constant dense<0.0625> : tensor<4xf32>
  %2 = tinyml.mul %1, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}
