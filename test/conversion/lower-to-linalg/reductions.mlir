// RUN: tinyml-opt --tinyml-lower-to-linalg %s | FileCheck %s

// CHECK-DAG: #[[ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[D0:.*]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-DAG: #[[D1:.*]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-DAG: #[[NONE:.*]] = affine_map<(d0, d1, d2) -> ()>
// CHECK-DAG: #[[ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROWS:.*]] = affine_map<(d0, d1) -> (d0)>

// The reduced axes are reduction iterators, dropped from the output map.
// CHECK-LABEL: func.func @reduce_sum
// CHECK:         %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<3xf32>)
// CHECK:         %[[S:.*]] = linalg.generic {indexing_maps = [#[[ID3]], #[[D1]]], iterator_types = ["reduction", "parallel", "reduction"]} ins(%arg0 : tensor<2x3x4xf32>) outs(%[[Z]] : tensor<3xf32>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT:      %[[A:.*]] = arith.addf %[[ACC]], %[[X]] : f32
// CHECK-NEXT:      linalg.yield %[[A]]
// CHECK:         return %[[S]]
func.func @reduce_sum(%x: tensor<2x3x4xf32>) -> tensor<3xf32> {
  %y = tinyml.reduce_sum %x {axes = array<i64: 0, 2>} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}

// keep_dims: the reduced result is expanded back with size-1 dims.
// CHECK-LABEL: func.func @reduce_mean_keep_dims
// CHECK:         %[[S:.*]] = linalg.generic {indexing_maps = [#[[ID3]], #[[D0]]], iterator_types = ["parallel", "reduction", "reduction"]}
// CHECK:         %[[M:.*]] = linalg.generic {{.*}} ins(%[[S]] : tensor<2xf32>)
// CHECK:           %[[N:.*]] = arith.constant 1.200000e+01 : f32
// CHECK:           arith.divf %{{.*}}, %[[N]] : f32
// CHECK:         %[[R:.*]] = tensor.expand_shape %[[M]] {{\[}}[0, 1, 2]] output_shape [2, 1, 1] : tensor<2xf32> into tensor<2x1x1xf32>
// CHECK:         return %[[R]]
func.func @reduce_mean_keep_dims(%x: tensor<2x3x4xf32>) -> tensor<2x1x1xf32> {
  %y = tinyml.reduce_mean %x {axes = array<i64: 1, 2>, keep_dims} : (tensor<2x3x4xf32>) -> tensor<2x1x1xf32>
  return %y : tensor<2x1x1xf32>
}

// Max: starts from the lowest float, compare + select.
// CHECK-LABEL: func.func @reduce_max_all
// CHECK:         %[[LOW:.*]] = arith.constant -3.40282347E+38 : f32
// CHECK:         %[[I:.*]] = linalg.fill ins(%[[LOW]] : f32) outs(%{{.*}} : tensor<f32>)
// CHECK:         linalg.generic {indexing_maps = [#[[ID3]], #[[NONE]]], iterator_types = ["reduction", "reduction", "reduction"]} ins(%arg0 : tensor<2x3x4xf32>) outs(%[[I]] : tensor<f32>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT:      %[[GT:.*]] = arith.cmpf ugt, %[[X]], %[[ACC]] : f32
// CHECK-NEXT:      arith.select %[[GT]], %[[X]], %[[ACC]] : f32
func.func @reduce_max_all(%x: tensor<2x3x4xf32>) -> tensor<f32> {
  %y = tinyml.reduce_max %x {axes = array<i64: 0, 1, 2>} : (tensor<2x3x4xf32>) -> tensor<f32>
  return %y : tensor<f32>
}

// keep_dims of a full reduction: rank 0 expanded to 1x1x1.
// CHECK-LABEL: func.func @reduce_max_all_keep_dims
// CHECK:         %[[S:.*]] = linalg.generic
// CHECK:         tensor.expand_shape %[[S]] [] output_shape [1, 1, 1] : tensor<f32> into tensor<1x1x1xf32>
func.func @reduce_max_all_keep_dims(%x: tensor<2x3x4xf32>) -> tensor<1x1x1xf32> {
  %y = tinyml.reduce_max %x {axes = array<i64: 0, 1, 2>, keep_dims} : (tensor<2x3x4xf32>) -> tensor<1x1x1xf32>
  return %y : tensor<1x1x1xf32>
}

// Softmax: a max-reduce, an exp-sum reduce of x - max, then one generic
// computing exp(x - max) / sum.
// CHECK-LABEL: func.func @softmax
// CHECK-NOT:     linalg.softmax
// CHECK:         %[[MAX:.*]] = linalg.generic {indexing_maps = [#[[ID2]], #[[ROWS]]], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<2x5xf32>)
// CHECK:           arith.cmpf ugt
// CHECK:           arith.select
// CHECK:         %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[ID2]], #[[ROWS]], #[[ROWS]]], iterator_types = ["parallel", "reduction"]} ins(%arg0, %[[MAX]] : tensor<2x5xf32>, tensor<2xf32>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f32, %[[M:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT:      %[[D:.*]] = arith.subf %[[X]], %[[M]] : f32
// CHECK-NEXT:      %[[E:.*]] = math.exp %[[D]] : f32
// CHECK-NEXT:      %[[A:.*]] = arith.addf %[[ACC]], %[[E]] : f32
// CHECK-NEXT:      linalg.yield %[[A]]
// CHECK:         %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID2]], #[[ROWS]], #[[ROWS]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins(%arg0, %[[MAX]], %[[SUM]] : tensor<2x5xf32>, tensor<2xf32>, tensor<2xf32>)
// CHECK-NEXT:    ^bb0(%[[X2:.*]]: f32, %[[M2:.*]]: f32, %[[S2:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[D2:.*]] = arith.subf %[[X2]], %[[M2]] : f32
// CHECK-NEXT:      %[[E2:.*]] = math.exp %[[D2]] : f32
// CHECK-NEXT:      %[[Q:.*]] = arith.divf %[[E2]], %[[S2]] : f32
// CHECK-NEXT:      linalg.yield %[[Q]]
// CHECK:         return %[[R]]
func.func @softmax(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %y = tinyml.softmax %x {axis = 1} : tensor<2x5xf32>
  return %y : tensor<2x5xf32>
}

// Softmax along a middle axis.
// CHECK-LABEL: func.func @softmax_axis1
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel"]
func.func @softmax_axis1(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %y = tinyml.softmax %x {axis = 1} : tensor<2x3x4xf32>
  return %y : tensor<2x3x4xf32>
}
