// Every verifier error of the tinyml dialect, one per split.
// RUN: tinyml-opt %s --split-input-file --verify-diagnostics

func.func @conv_channels(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x4x8xf32>) -> tensor<1x6x6x8xf32> {
  // expected-error @+1 {{filter expects 4 input channels (HWCF layout) but the input has 3}}
  %0 = tinyml.conv2d %x, %w : (tensor<1x8x8x3xf32>, tensor<3x3x4x8xf32>) -> tensor<1x6x6x8xf32>
  return %0 : tensor<1x6x6x8xf32>
}

// -----

func.func @conv_result_shape(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x8xf32>) -> tensor<1x8x8x8xf32> {
  // expected-error @+1 {{result shape [1, 8, 8, 8] does not match the expected [1, 6, 6, 8]}}
  %0 = tinyml.conv2d %x, %w : (tensor<1x8x8x3xf32>, tensor<3x3x3x8xf32>) -> tensor<1x8x8x8xf32>
  return %0 : tensor<1x8x8x8xf32>
}

// -----

func.func @conv_stride(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x8xf32>) -> tensor<1x6x6x8xf32> {
  // expected-error @+1 {{strides must be positive, got [0, 1]}}
  %0 = tinyml.conv2d %x, %w {strides = array<i64: 0, 1>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x8xf32>) -> tensor<1x6x6x8xf32>
  return %0 : tensor<1x6x6x8xf32>
}

// -----

func.func @conv_dilation(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x8xf32>) -> tensor<1x6x6x8xf32> {
  // expected-error @+1 {{dilations must be positive, got [1, -1]}}
  %0 = tinyml.conv2d %x, %w {dilations = array<i64: 1, -1>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x8xf32>) -> tensor<1x6x6x8xf32>
  return %0 : tensor<1x6x6x8xf32>
}

// -----

func.func @conv_padding(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x8xf32>) -> tensor<1x6x6x8xf32> {
  // expected-error @+1 {{padding must be non-negative, got [0, -1, 0, 0]}}
  %0 = tinyml.conv2d %x, %w {padding = array<i64: 0, -1, 0, 0>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x8xf32>) -> tensor<1x6x6x8xf32>
  return %0 : tensor<1x6x6x8xf32>
}

// -----

func.func @conv_window_too_big(%x: tensor<1x2x2x3xf32>, %w: tensor<3x3x3x8xf32>) -> tensor<1x1x1x8xf32> {
  // expected-error @+1 {{window [3, 3] does not fit the padded input [2, 2]}}
  %0 = tinyml.conv2d %x, %w : (tensor<1x2x2x3xf32>, tensor<3x3x3x8xf32>) -> tensor<1x1x1x8xf32>
  return %0 : tensor<1x1x1x8xf32>
}

// -----

func.func @conv_bias(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x8xf32>, %b: tensor<4xf32>) -> tensor<1x6x6x8xf32> {
  // expected-error @+1 {{bias has 4 elements but the result has 8 channels}}
  %0 = tinyml.conv2d %x, %w, %b : (tensor<1x8x8x3xf32>, tensor<3x3x3x8xf32>, tensor<4xf32>) -> tensor<1x6x6x8xf32>
  return %0 : tensor<1x6x6x8xf32>
}

// -----

func.func @conv_attr_count(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x8xf32>) -> tensor<1x6x6x8xf32> {
  // expected-error @+1 {{attribute 'strides' failed to satisfy constraint}}
  %0 = tinyml.conv2d %x, %w {strides = array<i64: 1, 1, 1>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x8xf32>) -> tensor<1x6x6x8xf32>
  return %0 : tensor<1x6x6x8xf32>
}

// -----

func.func @conv_rank(%x: tensor<8x8x3xf32>, %w: tensor<3x3x3x8xf32>) -> tensor<1x6x6x8xf32> {
  // expected-error @+1 {{operand #0 must be 4D tensor of 32-bit float or uniform quantized type values}}
  %0 = tinyml.conv2d %x, %w : (tensor<8x8x3xf32>, tensor<3x3x3x8xf32>) -> tensor<1x6x6x8xf32>
  return %0 : tensor<1x6x6x8xf32>
}

// -----

func.func @depthwise_channels(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x4x1xf32>) -> tensor<1x6x6x4xf32> {
  // expected-error @+1 {{filter has 4 channels (HWCM layout) but the input has 3}}
  %0 = tinyml.depthwise_conv2d %x, %w : (tensor<1x8x8x3xf32>, tensor<3x3x4x1xf32>) -> tensor<1x6x6x4xf32>
  return %0 : tensor<1x6x6x4xf32>
}

// -----

func.func @depthwise_multiplier(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x2xf32>) -> tensor<1x6x6x3xf32> {
  // expected-error @+1 {{result shape [1, 6, 6, 3] does not match the expected [1, 6, 6, 6]}}
  %0 = tinyml.depthwise_conv2d %x, %w : (tensor<1x8x8x3xf32>, tensor<3x3x3x2xf32>) -> tensor<1x6x6x3xf32>
  return %0 : tensor<1x6x6x3xf32>
}

// -----

func.func @matmul_contraction(%a: tensor<2x5xf32>, %b: tensor<4x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{contraction sizes differ: lhs has 5, rhs has 4}}
  %0 = tinyml.matmul %a, %b : (tensor<2x5xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @matmul_transposed_result(%a: tensor<5x2xf32>, %b: tensor<5x3xf32>) -> tensor<5x3xf32> {
  // expected-error @+1 {{result shape [5, 3] does not match the expected [2, 3]}}
  %0 = tinyml.matmul %a, %b {transpose_lhs} : (tensor<5x2xf32>, tensor<5x3xf32>) -> tensor<5x3xf32>
  return %0 : tensor<5x3xf32>
}

// -----

func.func @broadcast(%a: tensor<2x3xf32>, %b: tensor<2xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{operand shapes [2, 3] and [2] do not broadcast}}
  %0 = tinyml.mul %a, %b : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @broadcast_result(%a: tensor<2x1xf32>, %b: tensor<3xf32>) -> tensor<2x1xf32> {
  // expected-error @+1 {{result shape [2, 1] does not match the expected [2, 3]}}
  %0 = tinyml.add %a, %b : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

func.func @element_type(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float values}}
  %0 = tinyml.relu %a : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @clamp_bounds(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{min 6.000000e+00 is greater than max 0.000000e+00}}
  %0 = tinyml.clamp %a {min = 6.0 : f32, max = 0.0 : f32} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @batch_norm_channels(%x: tensor<1x4x4x8xf32>, %p: tensor<4xf32>) -> tensor<1x4x4x8xf32> {
  // expected-error @+1 {{parameters must have one value per channel (8), got 4}}
  %0 = tinyml.batch_norm %x, %p, %p, %p, %p : (tensor<1x4x4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x4x8xf32>
  return %0 : tensor<1x4x4x8xf32>
}

// -----

func.func @batch_norm_result(%x: tensor<1x4x4x4xf32>, %p: tensor<4xf32>) -> tensor<1x4x2x8xf32> {
  // expected-error @+1 {{result type must equal the input type}}
  %0 = tinyml.batch_norm %x, %p, %p, %p, %p : (tensor<1x4x4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x2x8xf32>
  return %0 : tensor<1x4x2x8xf32>
}

// -----

func.func @batch_norm_epsilon(%x: tensor<1x4x4x4xf32>, %p: tensor<4xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+1 {{epsilon must be non-negative}}
  %0 = tinyml.batch_norm %x, %p, %p, %p, %p {epsilon = -1.0 : f32} : (tensor<1x4x4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

func.func @pool_kernel(%x: tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  // expected-error @+1 {{kernel sizes must be positive, got [0, 2]}}
  %0 = tinyml.max_pool2d %x {kernel = array<i64: 0, 2>} : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  return %0 : tensor<1x4x4x2xf32>
}

// -----

func.func @pool_types(%x: tensor<1x4x4x2x!quant.uniform<i16:f32, 0.5>>) -> tensor<1x2x2x2x!quant.uniform<i8:f32, 0.5>> {
  // expected-error @+1 {{a quantized pool needs one int8 or int16 per-tensor type in and out}}
  %0 = tinyml.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x4x2x!quant.uniform<i16:f32, 0.5>>) -> tensor<1x2x2x2x!quant.uniform<i8:f32, 0.5>>
  return %0 : tensor<1x2x2x2x!quant.uniform<i8:f32, 0.5>>
}

// -----

func.func @pool_padding(%x: tensor<1x4x4x2xf32>) -> tensor<1x6x6x2xf32> {
  // expected-error @+1 {{padding must be smaller than the kernel}}
  %0 = tinyml.avg_pool2d %x {kernel = array<i64: 2, 2>, padding = array<i64: 2, 2, 2, 2>} : (tensor<1x4x4x2xf32>) -> tensor<1x7x7x2xf32>
  return %0 : tensor<1x7x7x2xf32>
}

// -----

func.func @pool_result(%x: tensor<1x4x4x2xf32>) -> tensor<1x2x2x3xf32> {
  // expected-error @+1 {{result shape [1, 2, 2, 3] does not match the expected [1, 2, 2, 2]}}
  %0 = tinyml.avg_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x4x2xf32>) -> tensor<1x2x2x3xf32>
  return %0 : tensor<1x2x2x3xf32>
}

// -----

func.func @global_pool(%x: tensor<1x4x4x2xf32>) -> tensor<1x2xf32> {
  // expected-error @+1 {{result #0 must be 4D tensor of 32-bit float values, but got 'tensor<1x2xf32>'}}
  %0 = tinyml.global_avg_pool %x : (tensor<1x4x4x2xf32>) -> tensor<1x2xf32>
  return %0 : tensor<1x2xf32>
}

// -----

func.func @global_pool_shape(%x: tensor<1x4x4x2xf32>) -> tensor<1x1x1x4xf32> {
  // expected-error @+1 {{result shape [1, 1, 1, 4] does not match the expected [1, 1, 1, 2]}}
  %0 = tinyml.global_avg_pool %x : (tensor<1x4x4x2xf32>) -> tensor<1x1x1x4xf32>
  return %0 : tensor<1x1x1x4xf32>
}

// -----

func.func @reduce_axis_range(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %0 = tinyml.reduce_sum %x {axes = array<i64: 2>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @reduce_axis_twice(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{axis 1 is listed twice}}
  %0 = tinyml.reduce_max %x {axes = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @reduce_keep_dims(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{result shape [2] does not match the expected [2, 1]}}
  %0 = tinyml.reduce_mean %x {axes = array<i64: 1>, keep_dims} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @softmax_axis(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{axis -1 is out of range for rank 2}}
  %0 = tinyml.softmax %x {axis = -1} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @reshape_count(%x: tensor<2x3xf32>) -> tensor<7xf32> {
  // expected-error @+1 {{changes the element count from 6 to 7}}
  %0 = tinyml.reshape %x : (tensor<2x3xf32>) -> tensor<7xf32>
  return %0 : tensor<7xf32>
}

// -----

func.func @reshape_dynamic(%x: tensor<?x3xf32>) -> tensor<6xf32> {
  // expected-error @+1 {{needs static shapes}}
  %0 = tinyml.reshape %x : (tensor<?x3xf32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

func.func @reshape_element_type(%x: tensor<4xi8>) -> tensor<4xf32> {
  // expected-error @+1 {{requires the same element type for all operands and results}}
  %0 = tinyml.reshape %x : (tensor<4xi8>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @transpose_quantized_type(%x: tensor<2x3x!quant.uniform<i8:f32, 0.5:1>>)
    -> tensor<3x2x!quant.uniform<i8:f32, 0.25:1>> {
  // expected-error @+1 {{requires the same element type for all operands and results}}
  %0 = tinyml.transpose %x {permutation = array<i64: 1, 0>}
      : (tensor<2x3x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<3x2x!quant.uniform<i8:f32, 0.25:1>>
  return %0 : tensor<3x2x!quant.uniform<i8:f32, 0.25:1>>
}

// -----

func.func @conv_mixes_float_and_quantized(%x: tensor<1x4x4x1x!quant.uniform<i8:f32, 0.5:1>>,
    %w: tensor<1x1x1x1xf32>) -> tensor<1x4x4x1x!quant.uniform<i8:f32, 0.5:1>> {
  // expected-error @+1 {{mixes float32 and quantized operands}}
  %0 = tinyml.conv2d %x, %w : (tensor<1x4x4x1x!quant.uniform<i8:f32, 0.5:1>>, tensor<1x1x1x1xf32>)
      -> tensor<1x4x4x1x!quant.uniform<i8:f32, 0.5:1>>
  return %0 : tensor<1x4x4x1x!quant.uniform<i8:f32, 0.5:1>>
}

// -----

func.func @conv_filter_axis(%x: tensor<1x4x4x2x!quant.uniform<i8:f32, 0.5:1>>,
    %w: tensor<1x1x2x3x!quant.uniform<i8:f32:2, {0.1, 0.2}>>)
    -> tensor<1x4x4x3x!quant.uniform<i8:f32, 0.5:1>> {
  // expected-error @+1 {{a quantized filter must be int8, per tensor or per axis 3}}
  %0 = tinyml.conv2d %x, %w : (tensor<1x4x4x2x!quant.uniform<i8:f32, 0.5:1>>,
      tensor<1x1x2x3x!quant.uniform<i8:f32:2, {0.1, 0.2}>>) -> tensor<1x4x4x3x!quant.uniform<i8:f32, 0.5:1>>
  return %0 : tensor<1x4x4x3x!quant.uniform<i8:f32, 0.5:1>>
}

// -----

func.func @matmul_bias_zero_point(%x: tensor<1x4x!quant.uniform<i8:f32, 0.5:1>>,
    %w: tensor<4x2x!quant.uniform<i8:f32, 0.25>>, %b: tensor<2x!quant.uniform<i32:f32, 0.125:3>>)
    -> tensor<1x2x!quant.uniform<i8:f32, 0.5:1>> {
  // expected-error @+1 {{a quantized bias must be int32 with zero point 0}}
  %0 = tinyml.matmul %x, %w, %b : (tensor<1x4x!quant.uniform<i8:f32, 0.5:1>>,
      tensor<4x2x!quant.uniform<i8:f32, 0.25>>, tensor<2x!quant.uniform<i32:f32, 0.125:3>>)
      -> tensor<1x2x!quant.uniform<i8:f32, 0.5:1>>
  return %0 : tensor<1x2x!quant.uniform<i8:f32, 0.5:1>>
}

// -----

func.func @conv_of_int8(%x: tensor<1x4x4x1xi8>, %w: tensor<1x1x1x1xi8>) -> tensor<1x4x4x1xi8> {
  // expected-error @+1 {{operand #0 must be 4D tensor of 32-bit float or uniform quantized type values}}
  %0 = tinyml.conv2d %x, %w : (tensor<1x4x4x1xi8>, tensor<1x1x1x1xi8>) -> tensor<1x4x4x1xi8>
  return %0 : tensor<1x4x4x1xi8>
}

// -----

func.func @transpose_rank(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{permutation has 3 entries for rank 2}}
  %0 = tinyml.transpose %x {permutation = array<i64: 1, 0, 2>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @transpose_not_permutation(%x: tensor<2x3xf32>) -> tensor<3x3xf32> {
  // expected-error @+1 {{permutation [1, 1] is not a permutation of 0..1}}
  %0 = tinyml.transpose %x {permutation = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

func.func @transpose_result(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{result shape [2, 3] does not match the expected [3, 2]}}
  %0 = tinyml.transpose %x {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @pad_count(%x: tensor<2x3xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{padding needs 4 entries (low then high), got 2}}
  %0 = tinyml.pad %x {padding = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @pad_negative(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{padding must be non-negative, got [0, 0, -1, 1]}}
  %0 = tinyml.pad %x {padding = array<i64: 0, 0, -1, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @pad_result(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{result shape [2, 3] does not match the expected [3, 4]}}
  %0 = tinyml.pad %x {padding = array<i64: 1, 0, 0, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @pad_quantized_value(%x: tensor<2x!quant.uniform<i8:f32, 5.000000e-01:-3>>) -> tensor<3x!quant.uniform<i8:f32, 5.000000e-01:-3>> {
  // expected-error @+1 {{value 2.500000e-01 is not stored exactly by '!quant.uniform<i8:f32, 5.000000e-01:-3>'}}
  %0 = tinyml.pad %x {padding = array<i64: 1, 0>, value = 0.25 : f32} : (tensor<2x!quant.uniform<i8:f32, 5.000000e-01:-3>>) -> tensor<3x!quant.uniform<i8:f32, 5.000000e-01:-3>>
  return %0 : tensor<3x!quant.uniform<i8:f32, 5.000000e-01:-3>>
}

// -----

func.func @pad_element_type(%x: tensor<2x!quant.uniform<i8:f32, 5.000000e-01:-3>>) -> tensor<3xf32> {
  // expected-error @+1 {{requires the same element type for all operands and results}}
  %0 = tinyml.pad %x {padding = array<i64: 1, 0>} : (tensor<2x!quant.uniform<i8:f32, 5.000000e-01:-3>>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @concat_empty() -> tensor<2x3xf32> {
  // expected-error @+1 {{expected 1 or more operands, but found 0}}
  %0 = tinyml.concat {axis = 0} : () -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @concat_axis(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %0 = tinyml.concat %x {axis = 2} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @concat_rank(%x: tensor<2x3xf32>, %y: tensor<2x3x1xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{inputs must all have rank 2}}
  %0 = tinyml.concat %x, %y {axis = 0} : (tensor<2x3xf32>, tensor<2x3x1xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @concat_shapes(%x: tensor<2x3xf32>, %y: tensor<2x4xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{input shapes [2, 3] and [2, 4] differ outside axis 0}}
  %0 = tinyml.concat %x, %y {axis = 0} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @concat_result(%x: tensor<2x3xf32>, %y: tensor<2x4xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{result shape [2, 8] does not match the expected [2, 7]}}
  %0 = tinyml.concat %x, %y {axis = 1} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @fused_arguments(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{body has 0 arguments for 1 inputs}}
  %0 = tinyml.fused elementwise (%a) : (tensor<4xf32>) -> tensor<4xf32> {
    %c = arith.constant dense<1.0> : tensor<4xf32>
    tinyml.yield %c : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @fused_argument_type(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{body argument type 'tensor<2x2xf32>' differs from input type 'tensor<4xf32>'}}
  %0 = tinyml.fused elementwise (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<2x2xf32>):
    %r = tinyml.reshape %x : (tensor<2x2xf32>) -> tensor<4xf32>
    tinyml.yield %r : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @fused_yield_types(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{yielded types do not match the result types}}
  %0 = tinyml.fused elementwise (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %r = tinyml.reshape %x : (tensor<4xf32>) -> tensor<2x2xf32>
    tinyml.yield %r : tensor<2x2xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

// A body without a terminator gets an implicit, empty tinyml.yield.
func.func @fused_without_yield(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{yielded types do not match the result types}}
  %0 = tinyml.fused elementwise (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %r = tinyml.relu %x : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @fused_isolated(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-note @+1 {{required by region isolation constraints}}
  %0 = tinyml.fused elementwise () : () -> tensor<4xf32> {
    // expected-error @+1 {{using value defined outside the region}}
    %r = tinyml.relu %a : tensor<4xf32>
    tinyml.yield %r : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

// A group's kind is one of the fusions that form groups.
func.func @fused_kind(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{unknown fusion kind 'fancy', expected one of conv_epilogue, reduction, elementwise}}
  %0 = tinyml.fused fancy (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    tinyml.yield %x : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

// The kind was a string once; a string naming no kind is rejected too.
func.func @fused_kind_string(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{unknown fusion kind 'epilogue', expected one of conv_epilogue, reduction, elementwise}}
  %0 = tinyml.fused "epilogue" (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    tinyml.yield %x : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

// In the generic form the kind is a #tinyml<fusion_kind ...>, not a string.
func.func @fused_kind_generic(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tinyml.fused' op attribute 'kind' failed to satisfy constraint: the kind of a fusion group}}
  %0 = "tinyml.fused"(%a) ({
  ^bb0(%x: tensor<4xf32>):
    tinyml.yield %x : tensor<4xf32>
  }) {kind = "elementwise"} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @yield_outside(%a: tensor<4xf32>) {
  // expected-error @+1 {{expects parent op 'tinyml.fused'}}
  tinyml.yield %a : tensor<4xf32>
}

// -----

func.func @slice_rank(%x: tensor<2x8xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{offsets, strides and the result need the input's rank 2}}
  %0 = tinyml.slice %x {offsets = array<i64: 0>, strides = array<i64: 1, 1>} : (tensor<2x8xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

func.func @slice_zero_stride(%x: tensor<2x8xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{strides must be non-zero, got [1, 0]}}
  %0 = tinyml.slice %x {offsets = array<i64: 0, 0>, strides = array<i64: 1, 0>} : (tensor<2x8xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

func.func @slice_out_of_range(%x: tensor<2x8xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{dimension 1 reads indices 4 to 8 of an extent of 8}}
  %0 = tinyml.slice %x {offsets = array<i64: 0, 4>, strides = array<i64: 1, 2>} : (tensor<2x8xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @lookup_table_size(%x: tensor<2x!quant.uniform<i8:f32, 5.000000e-01:-3>>) -> tensor<2x!quant.uniform<i8:f32, 5.000000e-01:-3>> {
  // expected-error @+1 {{table needs 256 entries, one per int8 value, got 3}}
  %0 = tinyml.lookup %x {table = array<i8: 1, 2, 3>} : (tensor<2x!quant.uniform<i8:f32, 5.000000e-01:-3>>) -> tensor<2x!quant.uniform<i8:f32, 5.000000e-01:-3>>
  return %0 : tensor<2x!quant.uniform<i8:f32, 5.000000e-01:-3>>
}

// -----

func.func @lookup_per_axis(%x: tensor<2x!quant.uniform<i8:f32:0, {5.000000e-01,2.500000e-01}>>) -> tensor<2x!quant.uniform<i8:f32, 5.000000e-01:-3>> {
  // expected-error @+1 {{input and result must be int8, per tensor}}
  %0 = tinyml.lookup %x {table = array<i8: -128, -127, -126, -125, -124, -123, -122, -121, -120, -119, -118, -117, -116, -115, -114, -113, -112, -111, -110, -109, -108, -107, -106, -105, -104, -103, -102, -101, -100, -99, -98, -97, -96, -95, -94, -93, -92, -91, -90, -89, -88, -87, -86, -85, -84, -83, -82, -81, -80, -79, -78, -77, -76, -75, -74, -73, -72, -71, -70, -69, -68, -67, -66, -65, -64, -63, -62, -61, -60, -59, -58, -57, -56, -55, -54, -53, -52, -51, -50, -49, -48, -47, -46, -45, -44, -43, -42, -41, -40, -39, -38, -37, -36, -35, -34, -33, -32, -31, -30, -29, -28, -27, -26, -25, -24, -23, -22, -21, -20, -19, -18, -17, -16, -15, -14, -13, -12, -11, -10, -9, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127>} : (tensor<2x!quant.uniform<i8:f32:0, {5.000000e-01,2.500000e-01}>>) -> tensor<2x!quant.uniform<i8:f32, 5.000000e-01:-3>>
  return %0 : tensor<2x!quant.uniform<i8:f32, 5.000000e-01:-3>>
}

// -----

// #tinyml.lowering: every size is a count of elements.
// expected-error @+1 {{tile sizes must be non-negative}}
func.func @lowering_negative_size() attributes {lowering = #tinyml.lowering<tile = [1, -4], reduction = [2]>} {
  return
}

// -----

// #tinyml.lowering: a tile of zeros leaves every dimension untiled.
// expected-error @+1 {{a tile must tile at least one dimension}}
func.func @lowering_no_tiled_dimension() attributes {lowering = #tinyml.lowering<tile = [0, 0], reduction = [4]>} {
  return
}

// -----

// The discardable tinyml.* attributes are declared: an unknown one is an error.
// expected-error @+1 {{unknown tinyml operation attribute 'tinyml.arena_size'}}
func.func @unknown_function_attribute() attributes {tinyml.arena_size = 4 : i64} {
  return
}

// -----

// expected-error @+1 {{'tinyml.arena_bytes' must be an integer, got "4096"}}
func.func @function_attribute_of_another_kind() attributes {tinyml.arena_bytes = "4096"} {
  return
}

// -----

// A window read as channels records its kernel as an array<i64>.
// expected-error @+1 {{'tinyml.window_as_channels' must be an array<i64>, got [3, 3]}}
func.func @window_as_channels_of_another_kind() attributes {tinyml.window_as_channels = [3, 3]} {
  return
}

// -----

// An int8 softmax writes int8 of 1/256 or int16 of 1/65536 from their lowest
// value, nothing else.
func.func @softmax_to_another_type(%x: tensor<1x4x!quant.uniform<i8:f32, 0.5:3>>) {
  // expected-error @+2 {{'tinyml.softmax' op inferred type(s) 'tensor<1x4x!quant.uniform<i8:f32, 3.906250e-03:-128>>' are incompatible with return type(s) of operation 'tensor<1x4x!quant.uniform<i16:f32, 1.52587890625E-5>>'}}
  // expected-error @+1 {{'tinyml.softmax' op failed to infer returned types}}
  %0 = tinyml.softmax %x {axis = 1} : tensor<1x4x!quant.uniform<i8:f32, 0.5:3>> -> tensor<1x4x!quant.uniform<i16:f32, 1.52587890625E-5>>
  return
}

// -----

// expected-error @+1 {{unknown tinyml argument attribute 'tinyml.offset'}}
func.func @unknown_argument_attribute(%a: tensor<4xf32> {tinyml.offset = 1.0 : f32}) {
  return
}

// -----

// expected-error @+1 {{'tinyml.state' must be a string, got 1 : i64}}
func.func @state_of_another_kind(%a: tensor<4xi16> {tinyml.state = 1 : i64}) {
  return
}

// -----

// expected-error @+1 {{'tinyml.scale' must be a float, got 1 : i64}}
func.func @scale_of_another_kind(%a: tensor<4xi16> {tinyml.scale = 1 : i64}) {
  return
}

// -----

// The arena mark belongs to an argument, not a result.
// expected-error @+1 {{unknown tinyml result attribute 'tinyml.arena'}}
func.func @arena_mark_on_a_result(%a: tensor<4xf32>) -> (tensor<4xf32> {tinyml.arena}) {
  return %a : tensor<4xf32>
}

// -----

// expected-error @+1 {{'tinyml.name' must be a string, got 3 : i64}}
func.func @name_of_another_kind(%a: tensor<4xf32> {tinyml.name = 3 : i64}) {
  return
}

// -----

// A group's register tile is a #tinyml.lowering; any other attribute under
// that name is refused where it is parsed, not when a pass reads it.
func.func @lowering_of_another_kind(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'lowering' must be a #tinyml.lowering attribute, got unit}}
  %0 = tinyml.fused elementwise (%a) {lowering} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %r = tinyml.relu %x : tensor<4xf32>
    tinyml.yield %r : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @pool_lowering_of_another_kind(%a: tensor<1x4x4x2xf32>) -> tensor<1x1x1x2xf32> {
  // expected-error @+1 {{'lowering' must be a #tinyml.lowering attribute, got [1, 1]}}
  %0 = tinyml.global_avg_pool %a {lowering = [1, 1]} : (tensor<1x4x4x2xf32>) -> tensor<1x1x1x2xf32>
  return %0 : tensor<1x1x1x2xf32>
}
