// RUN: tinyml-opt %s --split-input-file --tinyml-quantize-ops --canonicalize | FileCheck %s

// dequantize -> conv -> relu -> quantize: the quantized conv; the relu is
// TFLite's fused activation range, the stored range of the conv's result
// type (from the zero point -10 up), cast back to the full range for its
// users. The float intermediates are gone.
// CHECK-LABEL: func.func @conv_relu
// CHECK-NOT:     tinyml.dequantize
// CHECK:         %[[C:.*]] = tinyml.conv2d %arg0, %arg1, %arg2 : (tensor<1x4x4x2x!quant.uniform<i8:f32, 5.000000e-01:-3>>, tensor<1x1x2x3x!quant.uniform<i8:f32:3, {1.000000e-01,2.000000e-01,3.000000e-01}>>, tensor<3x!quant.uniform<i32:f32:0, {5.000000e-02,1.000000e-01,1.500000e-01}>>) -> tensor<1x4x4x3x!quant.uniform<i8<-10:127>:f32, 2.500000e-01:-10>>
// CHECK-NEXT:    %[[S:.*]] = quant.scast %[[C]] : tensor<1x4x4x3x!quant.uniform<i8<-10:127>:f32, 2.500000e-01:-10>> to tensor<1x4x4x3xi8>
// CHECK-NEXT:    %[[R:.*]] = quant.scast %[[S]] : tensor<1x4x4x3xi8> to tensor<1x4x4x3x!quant.uniform<i8:f32, 2.500000e-01:-10>>
// CHECK-NEXT:    return %[[R]]
func.func @conv_relu(%x: tensor<1x4x4x2x!quant.uniform<i8:f32, 0.5:-3>>,
                     %w: tensor<1x1x2x3x!quant.uniform<i8:f32:3, {0.1, 0.2, 0.3}>>,
                     %b: tensor<3x!quant.uniform<i32:f32:0, {0.05, 0.1, 0.15}>>)
    -> tensor<1x4x4x3x!quant.uniform<i8:f32, 0.25:-10>> {
  %xf = tinyml.dequantize %x : tensor<1x4x4x2x!quant.uniform<i8:f32, 0.5:-3>> to tensor<1x4x4x2xf32>
  %wf = tinyml.dequantize %w : tensor<1x1x2x3x!quant.uniform<i8:f32:3, {0.1, 0.2, 0.3}>> to tensor<1x1x2x3xf32>
  %bf = tinyml.dequantize %b : tensor<3x!quant.uniform<i32:f32:0, {0.05, 0.1, 0.15}>> to tensor<3xf32>
  %c = tinyml.conv2d %xf, %wf, %bf : (tensor<1x4x4x2xf32>, tensor<1x1x2x3xf32>, tensor<3xf32>) -> tensor<1x4x4x3xf32>
  %r = tinyml.relu %c : tensor<1x4x4x3xf32>
  %q = tinyml.quantize %r : tensor<1x4x4x3xf32> to tensor<1x4x4x3x!quant.uniform<i8:f32, 0.25:-10>>
  return %q : tensor<1x4x4x3x!quant.uniform<i8:f32, 0.25:-10>>
}

// -----

// A relu after a max pool (which does not saturate by itself) stays a
// quantized clamp.
// CHECK-LABEL: func.func @pool_relu
// CHECK:         %[[M:.*]] = tinyml.max_pool2d %arg0
// CHECK-NEXT:    %[[R:.*]] = tinyml.clamp %[[M]] {max = 3.40282347E+38 : f32, min = 0.000000e+00 : f32} : tensor<1x1x1x1x!quant.uniform<i8:f32, 5.000000e-01:-3>>
// CHECK-NEXT:    return %[[R]]
func.func @pool_relu(%x: tensor<1x2x2x1x!quant.uniform<i8:f32, 0.5:-3>>)
    -> tensor<1x1x1x1x!quant.uniform<i8:f32, 0.5:-3>> {
  %f = tinyml.dequantize %x : tensor<1x2x2x1x!quant.uniform<i8:f32, 0.5:-3>> to tensor<1x2x2x1xf32>
  %p = tinyml.max_pool2d %f {kernel = array<i64: 2, 2>} : (tensor<1x2x2x1xf32>) -> tensor<1x1x1x1xf32>
  %r = tinyml.relu %p : tensor<1x1x1x1xf32>
  %q = tinyml.quantize %r : tensor<1x1x1x1xf32> to tensor<1x1x1x1x!quant.uniform<i8:f32, 0.5:-3>>
  return %q : tensor<1x1x1x1x!quant.uniform<i8:f32, 0.5:-3>>
}

// -----

// An add of two quantized tensors, each with its own scale.
// CHECK-LABEL: func.func @add
// CHECK-NEXT:    %[[A:.*]] = tinyml.add %arg0, %arg1 : (tensor<8x!quant.uniform<i8:f32, 5.000000e-01:1>>, tensor<8x!quant.uniform<i8:f32, 2.500000e-01:-2>>) -> tensor<8x!quant.uniform<i8:f32, 1.000000e+00:3>>
// CHECK-NEXT:    return %[[A]]
func.func @add(%a: tensor<8x!quant.uniform<i8:f32, 0.5:1>>, %b: tensor<8x!quant.uniform<i8:f32, 0.25:-2>>)
    -> tensor<8x!quant.uniform<i8:f32, 1.0:3>> {
  %af = tinyml.dequantize %a : tensor<8x!quant.uniform<i8:f32, 0.5:1>> to tensor<8xf32>
  %bf = tinyml.dequantize %b : tensor<8x!quant.uniform<i8:f32, 0.25:-2>> to tensor<8xf32>
  %s = tinyml.add %af, %bf : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %q = tinyml.quantize %s : tensor<8xf32> to tensor<8x!quant.uniform<i8:f32, 1.0:3>>
  return %q : tensor<8x!quant.uniform<i8:f32, 1.0:3>>
}

// -----

// The reshape between the input cast and the conv (tf2onnx's transpose of
// a one-channel input) moves above the casts and folds into the input's.
// CHECK-LABEL: func.func @reshape_above_casts
// CHECK-NEXT:    %[[R:.*]] = tinyml.reshape %arg0 : (tensor<1x1x4x4xi8>) -> tensor<1x4x4x1xi8>
// CHECK-NEXT:    %[[Q:.*]] = quant.scast %[[R]] : tensor<1x4x4x1xi8> to tensor<1x4x4x1x!quant.uniform<i8:f32, 5.000000e-01:-3>>
// CHECK-NEXT:    %[[M:.*]] = tinyml.max_pool2d %[[Q]]
// CHECK-NEXT:    return %[[M]]
func.func @reshape_above_casts(%x: tensor<1x1x4x4xi8>) -> tensor<1x2x2x1x!quant.uniform<i8:f32, 0.5:-3>> {
  %q = quant.scast %x : tensor<1x1x4x4xi8> to tensor<1x1x4x4x!quant.uniform<i8:f32, 0.5:-3>>
  %f = tinyml.dequantize %q : tensor<1x1x4x4x!quant.uniform<i8:f32, 0.5:-3>> to tensor<1x1x4x4xf32>
  %r = tinyml.reshape %f : (tensor<1x1x4x4xf32>) -> tensor<1x4x4x1xf32>
  %m = tinyml.max_pool2d %r {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x4x1xf32>) -> tensor<1x2x2x1xf32>
  %y = tinyml.quantize %m : tensor<1x2x2x1xf32> to tensor<1x2x2x1x!quant.uniform<i8:f32, 0.5:-3>>
  return %y : tensor<1x2x2x1x!quant.uniform<i8:f32, 0.5:-3>>
}

// -----

// The reshape between an op and its quantize (a TFLite FULLY_CONNECTED that
// keeps its input's [1, 1, N] shape) moves below the quantize: the matmul
// meets the quantize and is quantized, the reshape moves int8.
// CHECK-LABEL: func.func @quantize_above_reshape
// CHECK-NEXT:    %[[M:.*]] = tinyml.matmul %arg0, %arg1 : (tensor<1x4x!quant.uniform<i8:f32, 5.000000e-01:-3>>, tensor<4x3x!quant.uniform<i8:f32, 1.000000e-01>>) -> tensor<1x3x!quant.uniform<i8:f32, 2.500000e-01:1>>
// CHECK-NEXT:    %[[R:.*]] = tinyml.reshape %[[M]] : (tensor<1x3x!quant.uniform<i8:f32, 2.500000e-01:1>>) -> tensor<1x1x3x!quant.uniform<i8:f32, 2.500000e-01:1>>
// CHECK-NEXT:    return %[[R]]
func.func @quantize_above_reshape(%x: tensor<1x4x!quant.uniform<i8:f32, 0.5:-3>>,
                                  %w: tensor<4x3x!quant.uniform<i8:f32, 0.1>>)
    -> tensor<1x1x3x!quant.uniform<i8:f32, 0.25:1>> {
  %xf = tinyml.dequantize %x : tensor<1x4x!quant.uniform<i8:f32, 0.5:-3>> to tensor<1x4xf32>
  %wf = tinyml.dequantize %w : tensor<4x3x!quant.uniform<i8:f32, 0.1>> to tensor<4x3xf32>
  %m = tinyml.matmul %xf, %wf : (tensor<1x4xf32>, tensor<4x3xf32>) -> tensor<1x3xf32>
  %r = tinyml.reshape %m : (tensor<1x3xf32>) -> tensor<1x1x3xf32>
  %q = tinyml.quantize %r : tensor<1x1x3xf32> to tensor<1x1x3x!quant.uniform<i8:f32, 0.25:1>>
  return %q : tensor<1x1x3x!quant.uniform<i8:f32, 0.25:1>>
}

// -----

// A reshape read by another op too stays above the quantize (and the
// matmul in float: its result has two users).
// CHECK-LABEL: func.func @reshape_with_two_users
// CHECK:         %[[R:.*]] = tinyml.reshape %{{.*}} : (tensor<1x3xf32>) -> tensor<1x1x3xf32>
// CHECK-NEXT:    %[[Q:.*]] = tinyml.quantize %[[R]]
// CHECK-NEXT:    return %[[Q]], %[[R]]
func.func @reshape_with_two_users(%x: tensor<1x4x!quant.uniform<i8:f32, 0.5:-3>>,
                                  %w: tensor<4x3x!quant.uniform<i8:f32, 0.1>>)
    -> (tensor<1x1x3x!quant.uniform<i8:f32, 0.25:1>>, tensor<1x1x3xf32>) {
  %xf = tinyml.dequantize %x : tensor<1x4x!quant.uniform<i8:f32, 0.5:-3>> to tensor<1x4xf32>
  %wf = tinyml.dequantize %w : tensor<4x3x!quant.uniform<i8:f32, 0.1>> to tensor<4x3xf32>
  %m = tinyml.matmul %xf, %wf : (tensor<1x4xf32>, tensor<4x3xf32>) -> tensor<1x3xf32>
  %r = tinyml.reshape %m : (tensor<1x3xf32>) -> tensor<1x1x3xf32>
  %q = tinyml.quantize %r : tensor<1x1x3xf32> to tensor<1x1x3x!quant.uniform<i8:f32, 0.25:1>>
  return %q, %r : tensor<1x1x3x!quant.uniform<i8:f32, 0.25:1>>, tensor<1x1x3xf32>
}

// -----

// An int8 TRANSPOSE that tinyml-cancel-transposes left below the input's
// dequantize moves above it: the conv reads a dequantize again and is
// quantized, the transpose moves int8.
// CHECK-LABEL: func.func @transpose_above_casts
// CHECK-NEXT:    %[[T:.*]] = tinyml.transpose %arg0 {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x3x2x!quant.uniform<i8:f32, 5.000000e-01:-3>>) -> tensor<1x3x4x2x!quant.uniform<i8:f32, 5.000000e-01:-3>>
// CHECK-NEXT:    %[[C:.*]] = tinyml.conv2d %[[T]], %arg1
// CHECK-NEXT:    return %[[C]]
func.func @transpose_above_casts(%x: tensor<1x4x3x2x!quant.uniform<i8:f32, 0.5:-3>>,
                                 %w: tensor<1x1x2x3x!quant.uniform<i8:f32, 0.1>>)
    -> tensor<1x3x4x3x!quant.uniform<i8:f32, 0.25:0>> {
  %xf = tinyml.dequantize %x : tensor<1x4x3x2x!quant.uniform<i8:f32, 0.5:-3>> to tensor<1x4x3x2xf32>
  %t = tinyml.transpose %xf {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x3x2xf32>) -> tensor<1x3x4x2xf32>
  %wf = tinyml.dequantize %w : tensor<1x1x2x3x!quant.uniform<i8:f32, 0.1>> to tensor<1x1x2x3xf32>
  %c = tinyml.conv2d %t, %wf : (tensor<1x3x4x2xf32>, tensor<1x1x2x3xf32>) -> tensor<1x3x4x3xf32>
  %q = tinyml.quantize %c : tensor<1x3x4x3xf32> to tensor<1x3x4x3x!quant.uniform<i8:f32, 0.25:0>>
  return %q : tensor<1x3x4x3x!quant.uniform<i8:f32, 0.25:0>>
}

// -----

// An int8 PAD (dequantize -> pad with 0 -> quantize to the same type) pads
// the int8 data; its new elements are the zero point.
// CHECK-LABEL: func.func @pad
// CHECK-NEXT:    %[[P:.*]] = tinyml.pad %arg0 {padding = array<i64: 0, 1, 1, 0, 0, 1, 1, 0>} : (tensor<1x2x2x1x!quant.uniform<i8:f32, 5.000000e-01:-3>>) -> tensor<1x4x4x1x!quant.uniform<i8:f32, 5.000000e-01:-3>>
// CHECK-NEXT:    return %[[P]]
func.func @pad(%x: tensor<1x2x2x1x!quant.uniform<i8:f32, 0.5:-3>>)
    -> tensor<1x4x4x1x!quant.uniform<i8:f32, 0.5:-3>> {
  %xf = tinyml.dequantize %x : tensor<1x2x2x1x!quant.uniform<i8:f32, 0.5:-3>> to tensor<1x2x2x1xf32>
  %p = tinyml.pad %xf {padding = array<i64: 0, 1, 1, 0, 0, 1, 1, 0>} : (tensor<1x2x2x1xf32>) -> tensor<1x4x4x1xf32>
  %q = tinyml.quantize %p : tensor<1x4x4x1xf32> to tensor<1x4x4x1x!quant.uniform<i8:f32, 0.5:-3>>
  return %q : tensor<1x4x4x1x!quant.uniform<i8:f32, 0.5:-3>>
}

// -----

// Not fired: a pad value of 0.25 is no step of the scale 0.5; and a pad
// whose result has another scale is a requantization, not a TFLite PAD.
// CHECK-LABEL: func.func @pad_not_stored_exactly
// CHECK:         tinyml.pad {{.*}} -> tensor<1x4x4x1xf32>
// CHECK:         tinyml.pad {{.*}} -> tensor<1x4x4x1xf32>
func.func @pad_not_stored_exactly(%x: tensor<1x2x2x1x!quant.uniform<i8:f32, 0.5:-3>>)
    -> (tensor<1x4x4x1x!quant.uniform<i8:f32, 0.5:-3>>, tensor<1x4x4x1x!quant.uniform<i8:f32, 0.25:-3>>) {
  %xf = tinyml.dequantize %x : tensor<1x2x2x1x!quant.uniform<i8:f32, 0.5:-3>> to tensor<1x2x2x1xf32>
  %p = tinyml.pad %xf {padding = array<i64: 0, 1, 1, 0, 0, 1, 1, 0>, value = 0.25 : f32} : (tensor<1x2x2x1xf32>) -> tensor<1x4x4x1xf32>
  %q = tinyml.quantize %p : tensor<1x4x4x1xf32> to tensor<1x4x4x1x!quant.uniform<i8:f32, 0.5:-3>>
  %p2 = tinyml.pad %xf {padding = array<i64: 0, 1, 1, 0, 0, 1, 1, 0>} : (tensor<1x2x2x1xf32>) -> tensor<1x4x4x1xf32>
  %q2 = tinyml.quantize %p2 : tensor<1x4x4x1xf32> to tensor<1x4x4x1x!quant.uniform<i8:f32, 0.25:-3>>
  return %q, %q2 : tensor<1x4x4x1x!quant.uniform<i8:f32, 0.5:-3>>, tensor<1x4x4x1x!quant.uniform<i8:f32, 0.25:-3>>
}

// -----

// dequantize -> mul -> relu -> quantize: TFLite's integer mul, the relu
// its fused activation range.
// CHECK-LABEL: func.func @mul_relu
// CHECK-NOT:     tinyml.dequantize
// CHECK:         tinyml.mul %arg0, %arg1 : {{.*}} -> tensor<4x!quant.uniform<i8<-5:127>:f32, 1.000000e-01:-5>>
func.func @mul_relu(%a: tensor<4x!quant.uniform<i8:f32, 0.5:3>>, %b: tensor<4x!quant.uniform<i8:f32, 0.25:-1>>)
    -> tensor<4x!quant.uniform<i8:f32, 0.1:-5>> {
  %af = tinyml.dequantize %a : tensor<4x!quant.uniform<i8:f32, 0.5:3>> to tensor<4xf32>
  %bf = tinyml.dequantize %b : tensor<4x!quant.uniform<i8:f32, 0.25:-1>> to tensor<4xf32>
  %m = tinyml.mul %af, %bf : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %r = tinyml.relu %m : tensor<4xf32>
  %q = tinyml.quantize %r : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.1:-5>>
  return %q : tensor<4x!quant.uniform<i8:f32, 0.1:-5>>
}

// -----

// Not fired: weights with a non-zero zero point (onnxruntime's uint8
// weights); TFLite's kernels take symmetric weights.
// CHECK-LABEL: func.func @asymmetric_weights
// CHECK:         tinyml.conv2d {{.*}} -> tensor<1x4x4x1xf32>
func.func @asymmetric_weights(%x: tensor<1x4x4x1x!quant.uniform<i8:f32, 0.5:0>>,
                              %w: tensor<1x1x1x1x!quant.uniform<i8:f32, 0.1:5>>)
    -> tensor<1x4x4x1x!quant.uniform<i8:f32, 0.25:0>> {
  %xf = tinyml.dequantize %x : tensor<1x4x4x1x!quant.uniform<i8:f32, 0.5:0>> to tensor<1x4x4x1xf32>
  %wf = tinyml.dequantize %w : tensor<1x1x1x1x!quant.uniform<i8:f32, 0.1:5>> to tensor<1x1x1x1xf32>
  %c = tinyml.conv2d %xf, %wf : (tensor<1x4x4x1xf32>, tensor<1x1x1x1xf32>) -> tensor<1x4x4x1xf32>
  %q = tinyml.quantize %c : tensor<1x4x4x1xf32> to tensor<1x4x4x1x!quant.uniform<i8:f32, 0.25:0>>
  return %q : tensor<1x4x4x1x!quant.uniform<i8:f32, 0.25:0>>
}

// -----

// An int8 GlobalAveragePool (PyTorch's adaptive_avg_pool2d, quantized by
// onnxruntime) is TFLite's int8 MEAN over H and W.
// CHECK-LABEL: func.func @global_avg_pool
// CHECK-NEXT:    %[[M:.*]] = tinyml.reduce_mean %arg0 {axes = array<i64: 1, 2>, keep_dims} : (tensor<1x4x4x8x!quant.uniform<i8:f32, 5.000000e-01:-3>>) -> tensor<1x1x1x8x!quant.uniform<i8:f32, 2.500000e-01:1>>
// CHECK-NEXT:    return %[[M]]
func.func @global_avg_pool(%x: tensor<1x4x4x8x!quant.uniform<i8:f32, 0.5:-3>>)
    -> tensor<1x1x1x8x!quant.uniform<i8:f32, 0.25:1>> {
  %f = tinyml.dequantize %x : tensor<1x4x4x8x!quant.uniform<i8:f32, 0.5:-3>> to tensor<1x4x4x8xf32>
  %g = tinyml.global_avg_pool %f : (tensor<1x4x4x8xf32>) -> tensor<1x1x1x8xf32>
  %q = tinyml.quantize %g : tensor<1x1x1x8xf32> to tensor<1x1x1x8x!quant.uniform<i8:f32, 0.25:1>>
  return %q : tensor<1x1x1x8x!quant.uniform<i8:f32, 0.25:1>>
}

// -----

// Not fired: the conv's float result has a second user.
// CHECK-LABEL: func.func @multi_use_intermediate
// CHECK:         tinyml.dequantize
// CHECK:         tinyml.conv2d {{.*}} -> tensor<1x4x4x1xf32>
// CHECK:         tinyml.quantize
func.func @multi_use_intermediate(%x: tensor<1x4x4x1x!quant.uniform<i8:f32, 0.5:0>>,
                                  %w: tensor<1x1x1x1x!quant.uniform<i8:f32, 0.1>>)
    -> (tensor<1x4x4x1x!quant.uniform<i8:f32, 0.25:0>>, tensor<1x4x4x1xf32>) {
  %xf = tinyml.dequantize %x : tensor<1x4x4x1x!quant.uniform<i8:f32, 0.5:0>> to tensor<1x4x4x1xf32>
  %wf = tinyml.dequantize %w : tensor<1x1x1x1x!quant.uniform<i8:f32, 0.1>> to tensor<1x1x1x1xf32>
  %c = tinyml.conv2d %xf, %wf : (tensor<1x4x4x1xf32>, tensor<1x1x1x1xf32>) -> tensor<1x4x4x1xf32>
  %q = tinyml.quantize %c : tensor<1x4x4x1xf32> to tensor<1x4x4x1x!quant.uniform<i8:f32, 0.25:0>>
  return %q, %c : tensor<1x4x4x1x!quant.uniform<i8:f32, 0.25:0>>, tensor<1x4x4x1xf32>
}

// -----

// Not fired: a pool whose output scale differs from its input's has no
// TFLite integer form (it keeps the input's quantization).
// CHECK-LABEL: func.func @pool_changes_scale
// CHECK:         tinyml.avg_pool2d {{.*}} -> tensor<1x1x1x1xf32>
// CHECK:         tinyml.quantize
func.func @pool_changes_scale(%x: tensor<1x2x2x1x!quant.uniform<i8:f32, 0.5:0>>)
    -> tensor<1x1x1x1x!quant.uniform<i8:f32, 0.25:0>> {
  %f = tinyml.dequantize %x : tensor<1x2x2x1x!quant.uniform<i8:f32, 0.5:0>> to tensor<1x2x2x1xf32>
  %p = tinyml.avg_pool2d %f {kernel = array<i64: 2, 2>} : (tensor<1x2x2x1xf32>) -> tensor<1x1x1x1xf32>
  %q = tinyml.quantize %p : tensor<1x1x1x1xf32> to tensor<1x1x1x1x!quant.uniform<i8:f32, 0.25:0>>
  return %q : tensor<1x1x1x1x!quant.uniform<i8:f32, 0.25:0>>
}

// -----

// Not fired: an op with no quantized form (tanh here) keeps its explicit
// dequantize and quantize.
// CHECK-LABEL: func.func @no_quantized_form
// CHECK:         tinyml.dequantize
// CHECK-NEXT:    tinyml.tanh
// CHECK-NEXT:    tinyml.quantize
func.func @no_quantized_form(%x: tensor<1x4x!quant.uniform<i8:f32, 0.5:0>>)
    -> tensor<1x4x!quant.uniform<i8:f32, 0.0078125:0>> {
  %f = tinyml.dequantize %x : tensor<1x4x!quant.uniform<i8:f32, 0.5:0>> to tensor<1x4xf32>
  %m = tinyml.tanh %f : tensor<1x4xf32>
  %q = tinyml.quantize %m : tensor<1x4xf32> to tensor<1x4x!quant.uniform<i8:f32, 0.0078125:0>>
  return %q : tensor<1x4x!quant.uniform<i8:f32, 0.0078125:0>>
}

// -----

// A softmax along the last axis into TFLite's output type (1/256, -128) is
// the quantized softmax.
// CHECK-LABEL: func.func @softmax
// CHECK-NEXT:    %[[S:.*]] = tinyml.softmax %arg0 {axis = 1 : i64} : tensor<1x4x!quant.uniform<i8:f32, 5.000000e-01:3>>
// CHECK-NEXT:    return %[[S]]
func.func @softmax(%x: tensor<1x4x!quant.uniform<i8:f32, 0.5:3>>)
    -> tensor<1x4x!quant.uniform<i8:f32, 0.00390625:-128>> {
  %f = tinyml.dequantize %x : tensor<1x4x!quant.uniform<i8:f32, 0.5:3>> to tensor<1x4xf32>
  %s = tinyml.softmax %f {axis = 1 : i64} : tensor<1x4xf32>
  %q = tinyml.quantize %s : tensor<1x4xf32> to tensor<1x4x!quant.uniform<i8:f32, 0.00390625:-128>>
  return %q : tensor<1x4x!quant.uniform<i8:f32, 0.00390625:-128>>
}

// -----

// TFLite's int8 softmax may write int16 (1/65536, -32768): the quantized
// softmax with that result type, printed after an arrow.
// CHECK-LABEL: func.func @softmax_to_int16
// CHECK-NEXT:    %[[S:.*]] = tinyml.softmax %arg0 {axis = 1 : i64} : tensor<1x4x!quant.uniform<i8:f32, 5.000000e-01:3>> -> tensor<1x4x!quant.uniform<i16:f32, 1.52587890625E-5:-32768>>
// CHECK-NEXT:    return %[[S]]
func.func @softmax_to_int16(%x: tensor<1x4x!quant.uniform<i8:f32, 0.5:3>>)
    -> tensor<1x4x!quant.uniform<i16:f32, 1.52587890625E-5:-32768>> {
  %f = tinyml.dequantize %x : tensor<1x4x!quant.uniform<i8:f32, 0.5:3>> to tensor<1x4xf32>
  %s = tinyml.softmax %f {axis = 1 : i64} : tensor<1x4xf32>
  %q = tinyml.quantize %s : tensor<1x4xf32> to tensor<1x4x!quant.uniform<i16:f32, 1.52587890625E-5:-32768>>
  return %q : tensor<1x4x!quant.uniform<i16:f32, 1.52587890625E-5:-32768>>
}

// -----

// An int16 result TFLite's softmax does not write (zero point 0) stays a
// float softmax between the casts.
// CHECK-LABEL: func.func @softmax_to_other_int16
// CHECK:         tinyml.dequantize
// CHECK-NEXT:    tinyml.softmax %{{.*}} {axis = 1 : i64} : tensor<1x4xf32>
// CHECK-NEXT:    tinyml.quantize
func.func @softmax_to_other_int16(%x: tensor<1x4x!quant.uniform<i8:f32, 0.5:3>>)
    -> tensor<1x4x!quant.uniform<i16:f32, 3.0517578125E-5>> {
  %f = tinyml.dequantize %x : tensor<1x4x!quant.uniform<i8:f32, 0.5:3>> to tensor<1x4xf32>
  %s = tinyml.softmax %f {axis = 1 : i64} : tensor<1x4xf32>
  %q = tinyml.quantize %s : tensor<1x4xf32> to tensor<1x4x!quant.uniform<i16:f32, 3.0517578125E-5>>
  return %q : tensor<1x4x!quant.uniform<i16:f32, 3.0517578125E-5>>
}

// -----

// A mean over axes is TFLite's integer mean.
// CHECK-LABEL: func.func @mean
// CHECK-NEXT:    %[[M:.*]] = tinyml.reduce_mean %arg0 {axes = array<i64: 1, 2>} : (tensor<1x3x3x2x!quant.uniform<i8:f32, 5.000000e-01:3>>) -> tensor<1x2x!quant.uniform<i8:f32, 2.500000e-01:-1>>
// CHECK-NEXT:    return %[[M]]
func.func @mean(%x: tensor<1x3x3x2x!quant.uniform<i8:f32, 0.5:3>>)
    -> tensor<1x2x!quant.uniform<i8:f32, 0.25:-1>> {
  %f = tinyml.dequantize %x : tensor<1x3x3x2x!quant.uniform<i8:f32, 0.5:3>> to tensor<1x3x3x2xf32>
  %m = tinyml.reduce_mean %f {axes = array<i64: 1, 2>} : (tensor<1x3x3x2xf32>) -> tensor<1x2xf32>
  %q = tinyml.quantize %m : tensor<1x2xf32> to tensor<1x2x!quant.uniform<i8:f32, 0.25:-1>>
  return %q : tensor<1x2x!quant.uniform<i8:f32, 0.25:-1>>
}
