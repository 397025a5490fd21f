// RUN: tinyml-opt %s --split-input-file --tinyml-fuse-conv-epilogue | FileCheck %s

// Conv, bias add, ReLU and the residual add of a ResNet block: one group.
// CHECK-LABEL: func.func @residual_block
// CHECK:         %[[G:.*]] = tinyml.fused conv_epilogue (%arg0, %arg1, %arg2, %arg3)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: tensor<1x8x8x4xf32>, %[[W:.*]]: tensor<3x3x4x4xf32>, %[[B:.*]]: tensor<4xf32>, %[[S:.*]]: tensor<1x8x8x4xf32>):
// CHECK-NEXT:      %[[C:.*]] = tinyml.conv2d %[[X]], %[[W]]
// CHECK-NEXT:      %[[A:.*]] = tinyml.add %[[C]], %[[B]]
// CHECK-NEXT:      %[[R:.*]] = tinyml.add %[[A]], %[[S]]
// CHECK-NEXT:      %[[Y:.*]] = tinyml.relu %[[R]]
// CHECK-NEXT:      tinyml.yield %[[Y]]
// CHECK:         return %[[G]]
func.func @residual_block(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x4xf32>, %b: tensor<4xf32>,
                          %shortcut: tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32> {
  %0 = tinyml.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x4xf32>, tensor<3x3x4x4xf32>) -> tensor<1x8x8x4xf32>
  %1 = tinyml.add %0, %b : (tensor<1x8x8x4xf32>, tensor<4xf32>) -> tensor<1x8x8x4xf32>
  %2 = tinyml.add %1, %shortcut : (tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  %3 = tinyml.relu %2 : tensor<1x8x8x4xf32>
  return %3 : tensor<1x8x8x4xf32>
}

// -----

// Depthwise conv with ReLU6, and a matmul with its bias add and sigmoid.
// CHECK-LABEL: func.func @depthwise_and_matmul
// CHECK:         tinyml.fused conv_epilogue
// CHECK:           tinyml.depthwise_conv2d
// CHECK-NEXT:      tinyml.clamp
// CHECK-NEXT:      tinyml.yield
// CHECK:         tinyml.fused conv_epilogue
// CHECK:           tinyml.matmul
// CHECK-NEXT:      tinyml.add
// CHECK-NEXT:      tinyml.sigmoid
// CHECK-NEXT:      tinyml.yield
func.func @depthwise_and_matmul(%x: tensor<1x4x4x2xf32>, %w: tensor<3x3x2x1xf32>,
                                %a: tensor<1x8xf32>, %m: tensor<8x3xf32>, %b: tensor<3xf32>)
    -> (tensor<1x4x4x2xf32>, tensor<1x3xf32>) {
  %0 = tinyml.depthwise_conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x4x2xf32>, tensor<3x3x2x1xf32>) -> tensor<1x4x4x2xf32>
  %1 = tinyml.clamp %0 {min = 0.0 : f32, max = 6.0 : f32} : tensor<1x4x4x2xf32>
  %2 = tinyml.matmul %a, %m : (tensor<1x8xf32>, tensor<8x3xf32>) -> tensor<1x3xf32>
  %3 = tinyml.add %2, %b : (tensor<1x3xf32>, tensor<3xf32>) -> tensor<1x3xf32>
  %4 = tinyml.sigmoid %3 : tensor<1x3xf32>
  return %1, %4 : tensor<1x4x4x2xf32>, tensor<1x3xf32>
}

// -----

// A conv result used twice is stored: nothing fuses into it, the conv is a
// group of its own (standalone=true, the default) or stays as it is.
// RUN: tinyml-opt %s --split-input-file --tinyml-fuse-conv-epilogue='standalone=false' | FileCheck %s --check-prefix=ALONE
// CHECK-LABEL: func.func @multi_use_conv
// CHECK:         %[[C:.*]] = tinyml.fused conv_epilogue
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      tinyml.conv2d
// CHECK-NEXT:      tinyml.yield
// CHECK:         tinyml.relu %[[C]]
// CHECK-NEXT:    tinyml.exp %[[C]]
// ALONE-LABEL: func.func @multi_use_conv
// ALONE:         %[[C:.*]] = tinyml.conv2d
// ALONE-NEXT:    tinyml.relu %[[C]]
// ALONE-NEXT:    tinyml.exp %[[C]]
// ALONE-NOT:     tinyml.fused
func.func @multi_use_conv(%x: tensor<1x4x4x2xf32>, %w: tensor<1x1x2x2xf32>) -> (tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>) {
  %0 = tinyml.conv2d %x, %w : (tensor<1x4x4x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x4x4x2xf32>
  %1 = tinyml.relu %0 : tensor<1x4x4x2xf32>
  %2 = tinyml.exp %0 : tensor<1x4x4x2xf32>
  return %1, %2 : tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>
}

// -----

// A consumer of another shape (broadcast to a larger tensor) or a
// non-element-wise consumer ends the epilogue.
// CHECK-LABEL: func.func @chain_ends
// ALONE-LABEL: func.func @chain_ends
// CHECK:         tinyml.fused conv_epilogue
// CHECK:           tinyml.matmul
// CHECK-NEXT:      tinyml.relu
// CHECK-NEXT:      tinyml.yield
// CHECK:         tinyml.add
// CHECK:         %[[M:.*]] = tinyml.fused conv_epilogue
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      tinyml.matmul
// CHECK-NEXT:      tinyml.yield
// CHECK:         tinyml.reshape %[[M]]
func.func @chain_ends(%a: tensor<1x8xf32>, %m: tensor<8x3xf32>, %big: tensor<4x3xf32>)
    -> (tensor<4x3xf32>, tensor<3xf32>) {
  %0 = tinyml.matmul %a, %m : (tensor<1x8xf32>, tensor<8x3xf32>) -> tensor<1x3xf32>
  %1 = tinyml.relu %0 : tensor<1x3xf32>
  %2 = tinyml.add %1, %big : (tensor<1x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %3 = tinyml.matmul %a, %m : (tensor<1x8xf32>, tensor<8x3xf32>) -> tensor<1x3xf32>
  %4 = tinyml.reshape %3 : (tensor<1x3xf32>) -> tensor<3xf32>
  return %2, %4 : tensor<4x3xf32>, tensor<3xf32>
}

// -----

// With residual=false the residual add stays outside the group.
// RUN: tinyml-opt %s --split-input-file --tinyml-fuse-conv-epilogue='residual=false' | FileCheck %s --check-prefix=NORES
// CHECK-LABEL: func.func @no_residual
// ALONE-LABEL: func.func @no_residual
// NORES-LABEL: func.func @no_residual
// NORES:         %[[G:.*]] = tinyml.fused conv_epilogue
// NORES:           tinyml.conv2d
// NORES-NEXT:      tinyml.relu
// NORES-NEXT:      tinyml.yield
// NORES:         tinyml.add %[[G]], %arg2
func.func @no_residual(%x: tensor<1x4x4x2xf32>, %w: tensor<1x1x2x2xf32>, %s: tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  %0 = tinyml.conv2d %x, %w : (tensor<1x4x4x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x4x4x2xf32>
  %1 = tinyml.relu %0 : tensor<1x4x4x2xf32>
  %2 = tinyml.add %1, %s : (tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  return %2 : tensor<1x4x4x2xf32>
}

// -----

// A residual add fed by two convs (a downsampling block: the shortcut is a
// 1x1 conv) joins the main branch, the one with more convs on its path,
// whichever operand it is; the shortcut conv is a group of its own.
// CHECK-LABEL: func.func @residual_add_joins_the_main_branch
// CHECK:         %[[S:.*]] = tinyml.fused conv_epilogue (%arg0, %arg1)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      tinyml.conv2d
// CHECK-NEXT:      tinyml.yield
// CHECK:         %[[A:.*]] = tinyml.fused conv_epilogue (%arg0, %arg1)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      tinyml.conv2d
// CHECK-NEXT:      tinyml.relu
// CHECK-NEXT:      tinyml.yield
// CHECK:         tinyml.fused conv_epilogue (%[[A]], %arg1, %[[S]])
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      tinyml.conv2d
// CHECK-NEXT:      tinyml.add
// CHECK-NEXT:      tinyml.relu
// CHECK-NEXT:      tinyml.yield
func.func @residual_add_joins_the_main_branch(%x: tensor<1x4x4x2xf32>, %w: tensor<1x1x2x2xf32>) -> tensor<1x4x4x2xf32> {
  %shortcut = tinyml.conv2d %x, %w : (tensor<1x4x4x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x4x4x2xf32>
  %0 = tinyml.conv2d %x, %w : (tensor<1x4x4x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x4x4x2xf32>
  %1 = tinyml.relu %0 : tensor<1x4x4x2xf32>
  %2 = tinyml.conv2d %1, %w : (tensor<1x4x4x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x4x4x2xf32>
  %3 = tinyml.add %shortcut, %2 : (tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  %4 = tinyml.relu %3 : tensor<1x4x4x2xf32>
  return %4 : tensor<1x4x4x2xf32>
}

// -----

// Two equally deep convs feeding one add: the first operand's takes it.
// Without standalone groups the other conv stays a bare op: it only becomes
// a group when it wins its epilogue.
// CHECK-LABEL: func.func @tie_goes_to_the_first_operand
// CHECK:         %[[A:.*]] = tinyml.fused conv_epilogue (%arg0, %arg1)
// CHECK:         tinyml.fused conv_epilogue (%arg0, %arg1, %[[A]])
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      tinyml.conv2d
// CHECK-NEXT:      tinyml.add
// CHECK-NEXT:      tinyml.yield
// ALONE-LABEL: func.func @tie_goes_to_the_first_operand
// ALONE:         %[[A:.*]] = tinyml.conv2d %arg0
// ALONE:         tinyml.fused conv_epilogue (%arg0, %arg1, %[[A]])
// ALONE-NEXT:    ^bb0
// ALONE-NEXT:      tinyml.conv2d
// ALONE-NEXT:      tinyml.add
// ALONE-NEXT:      tinyml.yield
// ALONE-NOT:     tinyml.fused
func.func @tie_goes_to_the_first_operand(%x: tensor<1x4x4x2xf32>, %w: tensor<1x1x2x2xf32>) -> tensor<1x4x4x2xf32> {
  %0 = tinyml.conv2d %x, %w : (tensor<1x4x4x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x4x4x2xf32>
  %1 = tinyml.conv2d %x, %w : (tensor<1x4x4x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x4x4x2xf32>
  %2 = tinyml.add %1, %0 : (tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  return %2 : tensor<1x4x4x2xf32>
}

// -----

// max-epilogue-ops bounds the chain; the rest stays outside.
// RUN: tinyml-opt %s --split-input-file --tinyml-fuse-conv-epilogue='max-epilogue-ops=1' | FileCheck %s --check-prefix=MAX1
// CHECK-LABEL: func.func @bounded_epilogue
// ALONE-LABEL: func.func @bounded_epilogue
// MAX1-LABEL: func.func @bounded_epilogue
// MAX1:         %[[G:.*]] = tinyml.fused conv_epilogue
// MAX1-NEXT:    ^bb0
// MAX1-NEXT:      tinyml.conv2d
// MAX1-NEXT:      tinyml.relu
// MAX1-NEXT:      tinyml.yield
// MAX1:         tinyml.neg %[[G]]
func.func @bounded_epilogue(%x: tensor<1x4x4x2xf32>, %w: tensor<1x1x2x2xf32>) -> tensor<1x4x4x2xf32> {
  %0 = tinyml.conv2d %x, %w : (tensor<1x4x4x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x4x4x2xf32>
  %1 = tinyml.relu %0 : tensor<1x4x4x2xf32>
  %2 = tinyml.neg %1 : tensor<1x4x4x2xf32>
  return %2 : tensor<1x4x4x2xf32>
}

// -----

// In a recurrent layer's time loop, a gate's matmul takes its epilogue (the
// step's input projection, the activation) like anywhere in the graph: the
// group is in the loop's body.
// CHECK-LABEL: func.func @gate_in_a_time_loop
// CHECK:         scf.for %{{.*}} iter_args(%[[H:.*]] = %{{.*}})
// CHECK-NEXT:      %[[X:.*]] = tensor.extract_slice
// CHECK-NEXT:      %[[G:.*]] = tinyml.fused conv_epilogue (%[[H]], %arg1, %[[X]])
// CHECK:             tinyml.matmul
// CHECK-NEXT:        tinyml.add
// CHECK-NEXT:        tinyml.sigmoid
// CHECK-NEXT:        tinyml.yield
// CHECK:           scf.yield %[[G]]
func.func @gate_in_a_time_loop(%xs: tensor<4x1x16xf32>, %r: tensor<16x16xf32>,
                               %h0: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %h = scf.for %t = %c0 to %c4 step %c1 iter_args(%hp = %h0) -> (tensor<1x16xf32>) {
    %x = tensor.extract_slice %xs[%t, 0, 0] [1, 1, 16] [1, 1, 1] : tensor<4x1x16xf32> to tensor<1x16xf32>
    %m = tinyml.matmul %hp, %r : (tensor<1x16xf32>, tensor<16x16xf32>) -> tensor<1x16xf32>
    %a = tinyml.add %m, %x : (tensor<1x16xf32>, tensor<1x16xf32>) -> tensor<1x16xf32>
    %g = tinyml.sigmoid %a : tensor<1x16xf32>
    scf.yield %g : tensor<1x16xf32>
  }
  return %h : tensor<1x16xf32>
}

// -----

// A matmul before the loop never takes an epilogue op in the loop's body:
// the group would carry the loop-invariant matmul into the loop, to run
// every step. It is a group alone; the add stays in the loop.
// CHECK-LABEL: func.func @matmul_before_the_loop
// CHECK:         %[[G:.*]] = tinyml.fused conv_epilogue
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      tinyml.matmul
// CHECK-NEXT:      tinyml.yield
// CHECK:         scf.for %{{.*}} iter_args(%[[H:.*]] = %{{.*}})
// CHECK-NEXT:      %[[A:.*]] = tinyml.add %[[G]], %[[H]]
// CHECK-NEXT:      scf.yield %[[A]]
func.func @matmul_before_the_loop(%x: tensor<1x8xf32>, %w: tensor<8x16xf32>,
                                  %h0: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %m = tinyml.matmul %x, %w : (tensor<1x8xf32>, tensor<8x16xf32>) -> tensor<1x16xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %h = scf.for %t = %c0 to %c4 step %c1 iter_args(%hp = %h0) -> (tensor<1x16xf32>) {
    %a = tinyml.add %m, %hp : (tensor<1x16xf32>, tensor<1x16xf32>) -> tensor<1x16xf32>
    scf.yield %a : tensor<1x16xf32>
  }
  return %h : tensor<1x16xf32>
}
