// Every op parses, prints and parses again, in the custom and the generic form.
// RUN: tinyml-opt %s | tinyml-opt | FileCheck %s
// RUN: tinyml-opt %s --mlir-print-op-generic | tinyml-opt | FileCheck %s

// CHECK-LABEL: func.func @convolutions
func.func @convolutions(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>, %b: tensor<4xf32>,
                        %dw: tensor<3x3x3x2xf32>, %db: tensor<6xf32>)
    -> (tensor<1x4x4x4xf32>, tensor<1x8x8x4xf32>, tensor<1x8x8x6xf32>) {
  // CHECK: tinyml.conv2d %{{.*}}, %{{.*}}, %{{.*}} {padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  %0 = tinyml.conv2d %x, %w, %b {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>}
      : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  // CHECK: tinyml.conv2d %{{.*}}, %{{.*}} {dilations = array<i64: 2, 2>, padding = array<i64: 2, 2, 2, 2>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32>
  %1 = tinyml.conv2d %x, %w {dilations = array<i64: 2, 2>, padding = array<i64: 2, 2, 2, 2>}
      : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32>
  // CHECK: tinyml.depthwise_conv2d %{{.*}}, %{{.*}}, %{{.*}} {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x2xf32>, tensor<6xf32>) -> tensor<1x8x8x6xf32>
  %2 = tinyml.depthwise_conv2d %x, %dw, %db {padding = array<i64: 1, 1, 1, 1>}
      : (tensor<1x8x8x3xf32>, tensor<3x3x3x2xf32>, tensor<6xf32>) -> tensor<1x8x8x6xf32>
  return %0, %1, %2 : tensor<1x4x4x4xf32>, tensor<1x8x8x4xf32>, tensor<1x8x8x6xf32>
}

// CHECK-LABEL: func.func @matmuls
func.func @matmuls(%a: tensor<2x5xf32>, %b: tensor<5x3xf32>, %bt: tensor<3x5xf32>, %bias: tensor<3xf32>)
    -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  // CHECK: tinyml.matmul %{{.*}}, %{{.*}} : (tensor<2x5xf32>, tensor<5x3xf32>) -> tensor<2x3xf32>
  %0 = tinyml.matmul %a, %b : (tensor<2x5xf32>, tensor<5x3xf32>) -> tensor<2x3xf32>
  // CHECK: tinyml.matmul %{{.*}}, %{{.*}}, %{{.*}} {transpose_rhs} : (tensor<2x5xf32>, tensor<3x5xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = tinyml.matmul %a, %bt, %bias {transpose_rhs} : (tensor<2x5xf32>, tensor<3x5xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}

// CHECK-LABEL: func.func @elementwise
func.func @elementwise(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  // CHECK: tinyml.add %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %0 = tinyml.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: tinyml.sub
  %1 = tinyml.sub %0, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: tinyml.mul
  %2 = tinyml.mul %1, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: tinyml.div
  %3 = tinyml.div %2, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: tinyml.maximum
  %4 = tinyml.maximum %3, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: tinyml.minimum
  %5 = tinyml.minimum %4, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: tinyml.neg %{{.*}} : tensor<2x3xf32>
  %6 = tinyml.neg %5 : tensor<2x3xf32>
  // CHECK: tinyml.exp
  %7 = tinyml.exp %6 : tensor<2x3xf32>
  // CHECK: tinyml.relu
  %8 = tinyml.relu %7 : tensor<2x3xf32>
  // CHECK: tinyml.sigmoid
  %9 = tinyml.sigmoid %8 : tensor<2x3xf32>
  // CHECK: tinyml.tanh
  %10 = tinyml.tanh %9 : tensor<2x3xf32>
  // CHECK: tinyml.clamp %{{.*}} {max = 6.000000e+00 : f32, min = 0.000000e+00 : f32} : tensor<2x3xf32>
  %11 = tinyml.clamp %10 {min = 0.0 : f32, max = 6.0 : f32} : tensor<2x3xf32>
  return %11 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @normalisation_and_pooling
func.func @normalisation_and_pooling(%x: tensor<1x6x6x4xf32>, %p: tensor<4xf32>)
    -> (tensor<1x6x6x4xf32>, tensor<1x3x3x4xf32>, tensor<1x3x3x4xf32>, tensor<1x1x1x4xf32>) {
  // CHECK: tinyml.batch_norm %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {epsilon = 1.000000e-03 : f32}
  %0 = tinyml.batch_norm %x, %p, %p, %p, %p {epsilon = 1.0e-3 : f32}
      : (tensor<1x6x6x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x6x6x4xf32>
  // CHECK: tinyml.avg_pool2d %{{.*}} {count_include_pad, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}
  %1 = tinyml.avg_pool2d %0 {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, count_include_pad}
      : (tensor<1x6x6x4xf32>) -> tensor<1x3x3x4xf32>
  // CHECK: tinyml.max_pool2d %{{.*}} {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
  %2 = tinyml.max_pool2d %0 {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
      : (tensor<1x6x6x4xf32>) -> tensor<1x3x3x4xf32>
  // CHECK: tinyml.global_avg_pool %{{.*}} : (tensor<1x6x6x4xf32>) -> tensor<1x1x1x4xf32>
  %3 = tinyml.global_avg_pool %0 : (tensor<1x6x6x4xf32>) -> tensor<1x1x1x4xf32>
  return %0, %1, %2, %3 : tensor<1x6x6x4xf32>, tensor<1x3x3x4xf32>, tensor<1x3x3x4xf32>, tensor<1x1x1x4xf32>
}

// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: tensor<2x3x4xf32>) -> (tensor<2x1x4xf32>, tensor<2xf32>, tensor<3x4xf32>, tensor<2x3x4xf32>) {
  // CHECK: tinyml.reduce_sum %{{.*}} {axes = array<i64: 1>, keep_dims} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %0 = tinyml.reduce_sum %x {axes = array<i64: 1>, keep_dims} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  // CHECK: tinyml.reduce_mean %{{.*}} {axes = array<i64: 1, 2>} : (tensor<2x3x4xf32>) -> tensor<2xf32>
  %1 = tinyml.reduce_mean %x {axes = array<i64: 1, 2>} : (tensor<2x3x4xf32>) -> tensor<2xf32>
  // CHECK: tinyml.reduce_max %{{.*}} {axes = array<i64: 0>} : (tensor<2x3x4xf32>) -> tensor<3x4xf32>
  %2 = tinyml.reduce_max %x {axes = array<i64: 0>} : (tensor<2x3x4xf32>) -> tensor<3x4xf32>
  // CHECK: tinyml.softmax %{{.*}} {axis = 2 : i64} : tensor<2x3x4xf32>
  %3 = tinyml.softmax %x {axis = 2} : tensor<2x3x4xf32>
  return %0, %1, %2, %3 : tensor<2x1x4xf32>, tensor<2xf32>, tensor<3x4xf32>, tensor<2x3x4xf32>
}

// CHECK-LABEL: func.func @data_movement
func.func @data_movement(%x: tensor<2x3xf32>, %y: tensor<2x5xf32>)
    -> (tensor<6xf32>, tensor<3x2xf32>, tensor<4x4xf32>, tensor<2x8xf32>) {
  // CHECK: tinyml.reshape %{{.*}} : (tensor<2x3xf32>) -> tensor<6xf32>
  %0 = tinyml.reshape %x : (tensor<2x3xf32>) -> tensor<6xf32>
  // CHECK: tinyml.transpose %{{.*}} {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %1 = tinyml.transpose %x {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  // CHECK: tinyml.pad %{{.*}} {padding = array<i64: 1, 0, 1, 1>, value = -1.000000e+00 : f32} : (tensor<2x3xf32>) -> tensor<4x4xf32>
  %2 = tinyml.pad %x {padding = array<i64: 1, 0, 1, 1>, value = -1.0 : f32} : (tensor<2x3xf32>) -> tensor<4x4xf32>
  // CHECK: tinyml.concat %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  %3 = tinyml.concat %x, %y {axis = 1} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  return %0, %1, %2, %3 : tensor<6xf32>, tensor<3x2xf32>, tensor<4x4xf32>, tensor<2x8xf32>
}

// CHECK-LABEL: func.func @fusion_group
func.func @fusion_group(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: tinyml.fused "elementwise"(%{{.*}}, %{{.*}}) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-NEXT: ^bb0(%{{.*}}: tensor<4xf32>, %{{.*}}: tensor<4xf32>):
  // CHECK: tinyml.yield %{{.*}} : tensor<4xf32>
  %0 = tinyml.fused "elementwise" (%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
    %s = tinyml.add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %r = tinyml.relu %s : tensor<4xf32>
    tinyml.yield %r : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// Data movement takes the int8 and quantized tensors of a quantized model.
// CHECK-LABEL: func.func @quantized_data_movement
func.func @quantized_data_movement(%x: tensor<1x3x4x2xi8>)
    -> tensor<24x!quant.uniform<i8:f32, 5.000000e-01:-3>> {
  // CHECK: tinyml.transpose %{{.*}} {permutation = array<i64: 0, 3, 1, 2>} : (tensor<1x3x4x2xi8>) -> tensor<1x2x3x4xi8>
  %0 = tinyml.transpose %x {permutation = array<i64: 0, 3, 1, 2>}
      : (tensor<1x3x4x2xi8>) -> tensor<1x2x3x4xi8>
  %1 = quant.scast %0 : tensor<1x2x3x4xi8> to tensor<1x2x3x4x!quant.uniform<i8:f32, 5.000000e-01:-3>>
  // CHECK: tinyml.reshape %{{.*}} : (tensor<1x2x3x4x!quant.uniform<i8:f32, 5.000000e-01:-3>>) -> tensor<24x!quant.uniform<i8:f32, 5.000000e-01:-3>>
  %2 = tinyml.reshape %1 : (tensor<1x2x3x4x!quant.uniform<i8:f32, 5.000000e-01:-3>>)
      -> tensor<24x!quant.uniform<i8:f32, 5.000000e-01:-3>>
  return %2 : tensor<24x!quant.uniform<i8:f32, 5.000000e-01:-3>>
}

// CHECK-LABEL: func.func @quantize_dequantize
func.func @quantize_dequantize(%x: tensor<1x10xf32>) -> tensor<1x10xf32> {
  // CHECK: tinyml.quantize %{{.*}} : tensor<1x10xf32> to tensor<1x10x!quant.uniform<i8:f32, 1.000000e-01:-3>>
  %0 = tinyml.quantize %x : tensor<1x10xf32> to tensor<1x10x!quant.uniform<i8:f32, 0.1:-3>>
  // CHECK: tinyml.dequantize %{{.*}} : tensor<1x10x!quant.uniform<i8:f32, 1.000000e-01:-3>> to tensor<1x10xf32>
  %1 = tinyml.dequantize %0 : tensor<1x10x!quant.uniform<i8:f32, 0.1:-3>> to tensor<1x10xf32>
  return %1 : tensor<1x10xf32>
}

// The quantized forms of the contractions and of clamp.
// CHECK-LABEL: func.func @quantized_compute
func.func @quantized_compute(%x: tensor<1x4x4x2x!quant.uniform<i8:f32, 0.5:-3>>,
    %w: tensor<3x3x2x4x!quant.uniform<i8:f32:3, {0.1, 0.2, 0.3, 0.4}>>,
    %b: tensor<4x!quant.uniform<i32:f32:0, {0.05, 0.1, 0.15, 0.2}>>)
    -> tensor<1x4x4x4x!quant.uniform<i8:f32, 0.25:-128>> {
  // CHECK: tinyml.conv2d {{.*}} -> tensor<1x4x4x4x!quant.uniform<i8:f32, 2.500000e-01:-128>>
  %0 = tinyml.conv2d %x, %w, %b {padding = array<i64: 1, 1, 1, 1>}
      : (tensor<1x4x4x2x!quant.uniform<i8:f32, 0.5:-3>>,
         tensor<3x3x2x4x!quant.uniform<i8:f32:3, {0.1, 0.2, 0.3, 0.4}>>,
         tensor<4x!quant.uniform<i32:f32:0, {0.05, 0.1, 0.15, 0.2}>>)
      -> tensor<1x4x4x4x!quant.uniform<i8:f32, 0.25:-128>>
  // CHECK: tinyml.clamp %{{.*}} {max = 6.000000e+00 : f32, min = 0.000000e+00 : f32} : tensor<1x4x4x4x!quant.uniform<i8:f32, 2.500000e-01:-128>>
  %1 = tinyml.clamp %0 {min = 0.0 : f32, max = 6.0 : f32} : tensor<1x4x4x4x!quant.uniform<i8:f32, 0.25:-128>>
  return %1 : tensor<1x4x4x4x!quant.uniform<i8:f32, 0.25:-128>>
}
