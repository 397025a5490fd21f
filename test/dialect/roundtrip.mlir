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

// An int8 softmax's result type is TFLite's int8 one unless written: the
// int16 one prints after an arrow.
// CHECK-LABEL: func.func @quantized_softmax
func.func @quantized_softmax(%x: tensor<1x4x!quant.uniform<i8:f32, 0.5:3>>)
    -> (tensor<1x4x!quant.uniform<i8:f32, 0.00390625:-128>>,
        tensor<1x4x!quant.uniform<i16:f32, 1.52587890625E-5:-32768>>) {
  // CHECK: tinyml.softmax %{{.*}} {axis = 1 : i64} : tensor<1x4x!quant.uniform<i8:f32, 5.000000e-01:3>>{{$}}
  %0 = tinyml.softmax %x {axis = 1} : tensor<1x4x!quant.uniform<i8:f32, 0.5:3>>
  // CHECK: tinyml.softmax %{{.*}} {axis = 1 : i64} : tensor<1x4x!quant.uniform<i8:f32, 5.000000e-01:3>> -> tensor<1x4x!quant.uniform<i16:f32, 1.52587890625E-5:-32768>>
  %1 = tinyml.softmax %x {axis = 1} : tensor<1x4x!quant.uniform<i8:f32, 0.5:3>> -> tensor<1x4x!quant.uniform<i16:f32, 1.52587890625E-5:-32768>>
  return %0, %1 : tensor<1x4x!quant.uniform<i8:f32, 0.00390625:-128>>, tensor<1x4x!quant.uniform<i16:f32, 1.52587890625E-5:-32768>>
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
  // CHECK: tinyml.fused elementwise (%{{.*}}, %{{.*}}) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-NEXT: ^bb0(%{{.*}}: tensor<4xf32>, %{{.*}}: tensor<4xf32>):
  // CHECK: tinyml.yield %{{.*}} : tensor<4xf32>
  %0 = tinyml.fused elementwise (%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
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

// CHECK-LABEL: func.func @slice
func.func @slice(%x: tensor<2x8xf32>) -> tensor<2x2xf32> {
  // CHECK: tinyml.slice %{{.*}} {offsets = array<i64: 0, 7>, strides = array<i64: 1, -3>} : (tensor<2x8xf32>) -> tensor<2x2xf32>
  %0 = tinyml.slice %x {offsets = array<i64: 0, 7>, strides = array<i64: 1, -3>} : (tensor<2x8xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// CHECK-LABEL: func.func @lookup
// CHECK:         tinyml.lookup %arg0 {table = array<i8: -128, -127,
func.func @lookup(%x: tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-3>>) -> tensor<4x!quant.uniform<i8:f32, 3.906250e-03:-128>> {
  %y = tinyml.lookup %x {table = array<i8: -128, -127, -126, -125, -124, -123, -122, -121, -120, -119, -118, -117, -116, -115, -114, -113, -112, -111, -110, -109, -108, -107, -106, -105, -104, -103, -102, -101, -100, -99, -98, -97, -96, -95, -94, -93, -92, -91, -90, -89, -88, -87, -86, -85, -84, -83, -82, -81, -80, -79, -78, -77, -76, -75, -74, -73, -72, -71, -70, -69, -68, -67, -66, -65, -64, -63, -62, -61, -60, -59, -58, -57, -56, -55, -54, -53, -52, -51, -50, -49, -48, -47, -46, -45, -44, -43, -42, -41, -40, -39, -38, -37, -36, -35, -34, -33, -32, -31, -30, -29, -28, -27, -26, -25, -24, -23, -22, -21, -20, -19, -18, -17, -16, -15, -14, -13, -12, -11, -10, -9, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127>} : (tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-3>>) -> tensor<4x!quant.uniform<i8:f32, 3.906250e-03:-128>>
  return %y : tensor<4x!quant.uniform<i8:f32, 3.906250e-03:-128>>
}

// 16x8 quantization: a pool of int16 and a reshape of stored int16 values.
// CHECK-LABEL: func.func @int16_pool_and_reshape
func.func @int16_pool_and_reshape(%x: tensor<1x4x4x2x!quant.uniform<i16:f32, 5.000000e-01>>,
                                  %y: tensor<1x8xi16>)
    -> (tensor<1x2x2x2x!quant.uniform<i16:f32, 5.000000e-01>>, tensor<2x4xi16>) {
  // CHECK: tinyml.avg_pool2d %{{.*}} : (tensor<1x4x4x2x!quant.uniform<i16:f32, 5.000000e-01>>) -> tensor<1x2x2x2x!quant.uniform<i16:f32, 5.000000e-01>>
  %0 = tinyml.avg_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x4x2x!quant.uniform<i16:f32, 5.000000e-01>>) -> tensor<1x2x2x2x!quant.uniform<i16:f32, 5.000000e-01>>
  // CHECK: tinyml.reshape %{{.*}} : (tensor<1x8xi16>) -> tensor<2x4xi16>
  %1 = tinyml.reshape %y : (tensor<1x8xi16>) -> tensor<2x4xi16>
  return %0, %1 : tensor<1x2x2x2x!quant.uniform<i16:f32, 5.000000e-01>>, tensor<2x4xi16>
}
