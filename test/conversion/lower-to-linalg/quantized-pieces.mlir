// RUN: tinyml-opt --split-input-file --tinyml-lower-to-linalg='wide-multiply=false' %s | FileCheck %s

// Without a 64-bit multiply (ARMv6-M), a narrow requantization whose
// accumulators are bounded well enough takes its rounded high product
// (a * b + 2^31) >> 32, b = 2m - 2^32, from 32-bit products of b's
// halfword pieces (fixed_point.py's high_product_pieces). quantized.mlir's
// per-channel conv: no accumulator beyond 112 + 128 * 6 (10 bits), so two
// pieces of 16 bits: b = -858993408 = 0xCCCCCD00 is 52480 (stored as the
// halfword -13056, zero-extended) plus -13108 * 2^16 (sign-extended); the
// high product is (a * b1 + ((a * b0) >> 16) + 2^15) >> 16; no i64 is left.
// CHECK-LABEL: func.func @conv_per_channel
// CHECK-DAG:     %[[LOW:.*]] = arith.constant dense<-13056> : tensor<2xi16>
// CHECK-DAG:     %[[TOP:.*]] = arith.constant dense<-13108> : tensor<2xi16>
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %[[LOW]], %[[TOP]] : tensor<1x3x3x2xi32>, tensor<2xi8>, tensor<2xi16>, tensor<2xi16>)
// CHECK-NEXT:    ^bb0(%[[A:.*]]: i32, %{{.*}}: i8, %[[P0:.*]]: i16, %[[P1:.*]]: i16, %{{.*}}: i8):
// CHECK:           %[[B0:.*]] = arith.extui %[[P0]] : i16 to i32
// CHECK:           %[[B1:.*]] = arith.extsi %[[P1]] : i16 to i32
// CHECK:           %[[LOWPRODUCT:.*]] = arith.muli %[[A]], %[[B0]] : i32
// CHECK:           %[[TOPPRODUCT:.*]] = arith.muli %[[A]], %[[B1]] : i32
// CHECK:           %[[CARRY:.*]] = arith.shrsi %[[LOWPRODUCT]], %{{.*}} : i32
// CHECK:           %[[SUM:.*]] = arith.addi %[[TOPPRODUCT]], %[[CARRY]] : i32
// CHECK:           %[[ROUNDED:.*]] = arith.addi %[[SUM]], %c32768_i32 : i32
// CHECK:           arith.shrsi %[[ROUNDED]], %{{.*}} : i32
// CHECK-NOT:       i64
// CHECK:           linalg.yield

func.func @conv_per_channel(%x: tensor<1x3x3x2x!quant.uniform<i8:f32, 0.5:-3>>)
    -> tensor<1x3x3x2x!quant.uniform<i8:f32, 0.25:5>> {
  %wc = arith.constant dense<[[[[1, 2], [3, 4]]]]> : tensor<1x1x2x2xi8>
  %w = quant.scast %wc : tensor<1x1x2x2xi8> to tensor<1x1x2x2x!quant.uniform<i8:f32:3, {0.1, 0.2}>>
  %bc = arith.constant dense<[100, -50]> : tensor<2xi32>
  %b = quant.scast %bc : tensor<2xi32> to tensor<2x!quant.uniform<i32:f32:0, {0.05, 0.1}>>
  %y = tinyml.conv2d %x, %w, %b : (tensor<1x3x3x2x!quant.uniform<i8:f32, 0.5:-3>>,
      tensor<1x1x2x2x!quant.uniform<i8:f32:3, {0.1, 0.2}>>,
      tensor<2x!quant.uniform<i32:f32:0, {0.05, 0.1}>>) -> tensor<1x3x3x2x!quant.uniform<i8:f32, 0.25:5>>
  return %y : tensor<1x3x3x2x!quant.uniform<i8:f32, 0.25:5>>
}

// -----

// Not in pieces: a bias of 2^23 bounds the accumulators beyond 2^22, where
// four pieces no longer fit; the narrow form keeps its 64-bit product, for
// tinyml-expand-wide-multiplies to write out.
// CHECK-LABEL: func.func @conv_beyond_pieces
// CHECK-NOT:     tensor<2xi16>
// CHECK:         arith.constant dense<-858993408> : tensor<2xi32>
// CHECK:         linalg.generic
// CHECK:           arith.muli %{{.*}}, %{{.*}} : i64

func.func @conv_beyond_pieces(%x: tensor<1x3x3x2x!quant.uniform<i8:f32, 0.5:-3>>)
    -> tensor<1x3x3x2x!quant.uniform<i8:f32, 0.25:5>> {
  %wc = arith.constant dense<[[[[1, 2], [3, 4]]]]> : tensor<1x1x2x2xi8>
  %w = quant.scast %wc : tensor<1x1x2x2xi8> to tensor<1x1x2x2x!quant.uniform<i8:f32:3, {0.1, 0.2}>>
  %bc = arith.constant dense<[8388608, -50]> : tensor<2xi32>
  %b = quant.scast %bc : tensor<2xi32> to tensor<2x!quant.uniform<i32:f32:0, {0.05, 0.1}>>
  %y = tinyml.conv2d %x, %w, %b : (tensor<1x3x3x2x!quant.uniform<i8:f32, 0.5:-3>>,
      tensor<1x1x2x2x!quant.uniform<i8:f32:3, {0.1, 0.2}>>,
      tensor<2x!quant.uniform<i32:f32:0, {0.05, 0.1}>>) -> tensor<1x3x3x2x!quant.uniform<i8:f32, 0.25:5>>
  return %y : tensor<1x3x3x2x!quant.uniform<i8:f32, 0.25:5>>
}

