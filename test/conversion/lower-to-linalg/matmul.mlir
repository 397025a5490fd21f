// RUN: tinyml-opt --tinyml-lower-to-linalg %s | FileCheck %s

// CHECK-DAG: #[[MK:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[KM:.*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[NK:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[MN:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>

// The bias is broadcast over the rows into the init.
// CHECK-LABEL: func.func @matmul_bias
// CHECK:         %[[B:.*]] = linalg.broadcast ins(%arg2 : tensor<4xf32>) outs(%{{.*}} : tensor<2x4xf32>) dimensions = [0]
// CHECK:         %[[M:.*]] = linalg.matmul ins(%arg0, %arg1 : tensor<2x3xf32>, tensor<3x4xf32>) outs(%[[B]] : tensor<2x4xf32>)
// CHECK:         return %[[M]]
func.func @matmul_bias(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<4xf32>) -> tensor<2x4xf32> {
  %y = tinyml.matmul %a, %b, %c : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// No bias: zero fill.
// CHECK-LABEL: func.func @matmul_no_bias
// CHECK:         %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x4xf32>)
// CHECK:         linalg.matmul ins(%arg0, %arg1 : tensor<2x3xf32>, tensor<3x4xf32>) outs(%[[F]] : tensor<2x4xf32>)
func.func @matmul_no_bias(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %y = tinyml.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// transpose_rhs (a Gemm with transB): permuted indexing maps, no copy of the weights.
// CHECK-LABEL: func.func @matmul_transpose_rhs
// CHECK-NOT:     linalg.transpose
// CHECK:         linalg.matmul indexing_maps = [#[[MK]], #[[NK]], #[[MN]]] ins(%arg0, %arg1 : tensor<2x3xf32>, tensor<4x3xf32>)
func.func @matmul_transpose_rhs(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>, %c: tensor<4xf32>) -> tensor<2x4xf32> {
  %y = tinyml.matmul %a, %b, %c {transpose_rhs} : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// CHECK-LABEL: func.func @matmul_transpose_both
// CHECK:         linalg.matmul indexing_maps = [#[[KM]], #[[NK]], #[[MN]]] ins(%arg0, %arg1 : tensor<3x2xf32>, tensor<4x3xf32>)
func.func @matmul_transpose_both(%a: tensor<3x2xf32>, %b: tensor<4x3xf32>) -> tensor<2x4xf32> {
  %y = tinyml.matmul %a, %b {transpose_lhs, transpose_rhs} : (tensor<3x2xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}
