// RUN: tinyml-opt --tinyml-lower-to-linalg %s | FileCheck %s

// The map of @slice_reversed's copy.
// CHECK-DAG: #[[REV:.*]] = affine_map<(d0, d1) -> (d0, -d1 + 1)>

// CHECK-LABEL: func.func @reshape_collapse
// CHECK:         %[[R:.*]] = tensor.collapse_shape %arg0 {{\[}}[0], [1, 2, 3]] : tensor<1x2x3x4xf32> into tensor<1x24xf32>
// CHECK:         return %[[R]]
func.func @reshape_collapse(%x: tensor<1x2x3x4xf32>) -> tensor<1x24xf32> {
  %y = tinyml.reshape %x : (tensor<1x2x3x4xf32>) -> tensor<1x24xf32>
  return %y : tensor<1x24xf32>
}

// CHECK-LABEL: func.func @reshape_expand
// CHECK:         tensor.expand_shape %arg0 {{\[}}[0, 1], [2, 3]] output_shape [2, 3, 1, 4] : tensor<6x4xf32> into tensor<2x3x1x4xf32>
func.func @reshape_expand(%x: tensor<6x4xf32>) -> tensor<2x3x1x4xf32> {
  %y = tinyml.reshape %x : (tensor<6x4xf32>) -> tensor<2x3x1x4xf32>
  return %y : tensor<2x3x1x4xf32>
}

// No reassociation between 2x3x4 and 4x6: collapse to 1-D, then expand.
// CHECK-LABEL: func.func @reshape_regroup
// CHECK:         %[[F:.*]] = tensor.collapse_shape %arg0 {{\[}}[0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
// CHECK:         tensor.expand_shape %[[F]] {{\[}}[0, 1]] output_shape [4, 6] : tensor<24xf32> into tensor<4x6xf32>
func.func @reshape_regroup(%x: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
  %y = tinyml.reshape %x : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
  return %y : tensor<4x6xf32>
}

// CHECK-LABEL: func.func @transpose
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<1x3x4x2xf32>
// CHECK:         linalg.transpose ins(%arg0 : tensor<1x2x3x4xf32>) outs(%[[E]] : tensor<1x3x4x2xf32>) permutation = [0, 2, 3, 1]
func.func @transpose(%x: tensor<1x2x3x4xf32>) -> tensor<1x3x4x2xf32> {
  %y = tinyml.transpose %x {permutation = array<i64: 0, 2, 3, 1>} : (tensor<1x2x3x4xf32>) -> tensor<1x3x4x2xf32>
  return %y : tensor<1x3x4x2xf32>
}

// padding = rank low amounts then rank high amounts; the value is yielded.
// CHECK-LABEL: func.func @pad
// CHECK:         %[[V:.*]] = arith.constant 1.500000e+00 : f32
// CHECK:         tensor.pad %arg0 low[0, 1, 2] high[3, 0, 1] {
// CHECK-NEXT:    ^bb0(%{{.*}}: index, %{{.*}}: index, %{{.*}}: index):
// CHECK-NEXT:      tensor.yield %[[V]] : f32
// CHECK-NEXT:    } : tensor<2x3x4xf32> to tensor<5x4x7xf32>
func.func @pad(%x: tensor<2x3x4xf32>) -> tensor<5x4x7xf32> {
  %y = tinyml.pad %x {padding = array<i64: 0, 1, 2, 3, 0, 1>, value = 1.5 : f32} : (tensor<2x3x4xf32>) -> tensor<5x4x7xf32>
  return %y : tensor<5x4x7xf32>
}

// Concat builds its result in one buffer, each operand materialized into
// its slice (no chain of insert_slice: see lower_concat).
// CHECK-LABEL: func.func @concat
// CHECK:         %[[BUF:.*]] = memref.alloc() : memref<1x2x2x7xf32>
// CHECK:         %[[S0:.*]] = memref.subview %[[BUF]][0, 0, 0, 0] [1, 2, 2, 3] [1, 1, 1, 1]
// CHECK:         bufferization.materialize_in_destination %arg0 in restrict writable %[[S0]]
// CHECK:         %[[S1:.*]] = memref.subview %[[BUF]][0, 0, 0, 3] [1, 2, 2, 4] [1, 1, 1, 1]
// CHECK:         bufferization.materialize_in_destination %arg1 in restrict writable %[[S1]]
// CHECK:         %[[T:.*]] = bufferization.to_tensor %[[BUF]] restrict writable : memref<1x2x2x7xf32> to tensor<1x2x2x7xf32>
// CHECK:         return %[[T]]
func.func @concat(%a: tensor<1x2x2x3xf32>, %b: tensor<1x2x2x4xf32>) -> tensor<1x2x2x7xf32> {
  %y = tinyml.concat %a, %b {axis = 3} : (tensor<1x2x2x3xf32>, tensor<1x2x2x4xf32>) -> tensor<1x2x2x7xf32>
  return %y : tensor<1x2x2x7xf32>
}

// The slice of a computed operand is taken before the tensor.empty its
// producer writes into, so that eliminate-empty-tensors can make the
// producer write straight into the slice. A repeated operand is computed
// once: its second slice is a copy of the first, taken at the concat.
// CHECK-LABEL: func.func @concat_of_computed
// CHECK:         %[[BUF:.*]] = memref.alloc() : memref<2x3xf32>
// CHECK-NEXT:    %[[S0:.*]] = memref.subview %[[BUF]][0, 0] [1, 3]
// CHECK-NEXT:    tensor.empty() : tensor<1x3xf32>
// CHECK:         %[[R:.*]] = linalg.generic
// CHECK:         bufferization.materialize_in_destination %[[R]] in restrict writable %[[S0]]
// CHECK-NEXT:    %[[S1:.*]] = memref.subview %[[BUF]][1, 0] [1, 3]
// CHECK-NEXT:    memref.copy %[[S0]], %[[S1]]
// CHECK-NEXT:    bufferization.to_tensor %[[BUF]]
func.func @concat_of_computed(%a: tensor<1x3xf32>) -> tensor<2x3xf32> {
  %r = tinyml.relu %a : tensor<1x3xf32>
  %y = tinyml.concat %r, %r {axis = 0} : (tensor<1x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// An int8 transpose (a quantized model's NCHW output) keeps its element type.
// CHECK-LABEL: func.func @transpose_int8
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<1x4x2x3xi8>
// CHECK:         linalg.transpose ins(%arg0 : tensor<1x2x3x4xi8>) outs(%[[E]] : tensor<1x4x2x3xi8>) permutation = [0, 3, 1, 2]
func.func @transpose_int8(%x: tensor<1x2x3x4xi8>) -> tensor<1x4x2x3xi8> {
  %y = tinyml.transpose %x {permutation = array<i64: 0, 3, 1, 2>} : (tensor<1x2x3x4xi8>) -> tensor<1x4x2x3xi8>
  return %y : tensor<1x4x2x3xi8>
}

// A slice reads its window with tensor.extract_slice (forwards) and copies
// it into a tensor of its own, reversing a dimension of negative stride.
// CHECK-LABEL: func.func @slice_reversed
// CHECK:         %[[W:.*]] = tensor.extract_slice %arg0[0, 1] [2, 2] [1, 3] : tensor<2x8xf32> to tensor<2x2xf32>
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<2x2xf32>
// CHECK:         linalg.generic {indexing_maps = [#[[REV]], #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%[[W]] : tensor<2x2xf32>) outs(%[[E]] : tensor<2x2xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      linalg.yield %[[IN]] : f32
func.func @slice_reversed(%x: tensor<2x8xf32>) -> tensor<2x2xf32> {
  %y = tinyml.slice %x {offsets = array<i64: 0, 4>, strides = array<i64: 1, -3>} : (tensor<2x8xf32>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}
