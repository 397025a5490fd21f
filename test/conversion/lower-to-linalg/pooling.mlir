// RUN: tinyml-opt --tinyml-lower-to-linalg %s | FileCheck %s

// CHECK-DAG: #[[ID4:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[H:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3) -> (d2)>
// CHECK-DAG: #[[WIN_IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 * 2 + d4, d2 * 2 + d5, d3)>
// CHECK-DAG: #[[WIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
// CHECK-DAG: #[[WIN_OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[NC:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3)>

// count_include_pad: zero padding, a sum pool, then a division by the
// kernel size.
// CHECK-LABEL: func.func @avg_pool_include_pad
// CHECK:         %[[P:.*]] = tensor.pad %arg0 low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK:         %[[K:.*]] = tensor.empty() : tensor<3x3xf32>
// CHECK:         %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x3x3x2xf32>)
// CHECK:         %[[S:.*]] = linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[P]], %[[K]] : tensor<1x7x7x2xf32>, tensor<3x3xf32>) outs(%[[Z]] : tensor<1x3x3x2xf32>)
// CHECK:         linalg.generic {indexing_maps = [#[[ID4]], #[[ID4]]], {{.*}} ins(%[[S]] : tensor<1x3x3x2xf32>)
// CHECK:           %[[N:.*]] = arith.constant 9.000000e+00 : f32
// CHECK:           arith.divf %{{.*}}, %[[N]] : f32
func.func @avg_pool_include_pad(%x: tensor<1x5x5x2xf32>) -> tensor<1x3x3x2xf32> {
  %y = tinyml.avg_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, count_include_pad} : (tensor<1x5x5x2xf32>) -> tensor<1x3x3x2xf32>
  return %y : tensor<1x3x3x2xf32>
}

// Without count_include_pad the divisor of output (y, x) is
// rows[y] * cols[x], the number of taps inside the input, computed at
// compile time.
// CHECK-LABEL: func.func @avg_pool_exclude_pad
// CHECK:         %[[S:.*]] = linalg.pooling_nhwc_sum
// CHECK-DAG:     %[[R:.*]] = arith.constant dense<[2.000000e+00, 3.000000e+00, 2.000000e+00]> : tensor<3xf32>
// CHECK-DAG:     %[[C:.*]] = arith.constant dense<[2.000000e+00, 3.000000e+00]> : tensor<2xf32>
// CHECK:         linalg.generic {indexing_maps = [#[[ID4]], #[[H]], #[[W]], #[[ID4]]], {{.*}} ins(%[[S]], %[[R]], %[[C]] : tensor<1x3x2x2xf32>, tensor<3xf32>, tensor<2xf32>)
// CHECK-NEXT:    ^bb0(%[[SUM:.*]]: f32, %[[RY:.*]]: f32, %[[CX:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[N:.*]] = arith.mulf %[[RY]], %[[CX]] : f32
// CHECK-NEXT:      %[[A:.*]] = arith.divf %[[SUM]], %[[N]] : f32
// CHECK-NEXT:      linalg.yield %[[A]]
func.func @avg_pool_exclude_pad(%x: tensor<1x5x4x2xf32>) -> tensor<1x3x2x2xf32> {
  %y = tinyml.avg_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x5x4x2xf32>) -> tensor<1x3x2x2xf32>
  return %y : tensor<1x3x2x2xf32>
}

// No padding: no tensor.pad, a constant divisor even without count_include_pad.
// CHECK-LABEL: func.func @avg_pool_no_pad
// CHECK-NOT:     tensor.pad
// CHECK:         linalg.pooling_nhwc_sum {{.*}} ins(%arg0, %{{.*}} : tensor<1x4x4x2xf32>, tensor<2x2xf32>)
// CHECK:           arith.constant 4.000000e+00 : f32
func.func @avg_pool_no_pad(%x: tensor<1x4x4x2xf32>) -> tensor<1x2x2x2xf32> {
  %y = tinyml.avg_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x4x2xf32>) -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// Max pool: padding with the lowest float, a generic with the pooling maps
// (the window tensor only sizes the kh/kw loops) and compare + select,
// not linalg.pooling_nhwc_max (whose body is arith.maximumf).
// CHECK-LABEL: func.func @max_pool
// CHECK-NOT:     linalg.pooling_nhwc_max
// CHECK:         %[[LOW:.*]] = arith.constant -3.40282347E+38 : f32
// CHECK:         %[[P:.*]] = tensor.pad %arg0 low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK:           tensor.yield %[[LOW]] : f32
// CHECK:         %[[K:.*]] = tensor.empty() : tensor<3x3xf32>
// CHECK:         %[[I:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x3x3x2xf32>)
// CHECK:         linalg.generic {indexing_maps = [#[[WIN_IN]], #[[WIN]], #[[WIN_OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%[[P]], %[[K]] : tensor<1x7x7x2xf32>, tensor<3x3xf32>) outs(%[[I]] : tensor<1x3x3x2xf32>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f32, %{{.*}}: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT:      %[[GT:.*]] = arith.cmpf ugt, %[[X]], %[[ACC]] : f32
// CHECK-NEXT:      %[[M:.*]] = arith.select %[[GT]], %[[X]], %[[ACC]] : f32
// CHECK-NEXT:      linalg.yield %[[M]]
func.func @max_pool(%x: tensor<1x5x5x2xf32>) -> tensor<1x3x3x2xf32> {
  %y = tinyml.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x5x5x2xf32>) -> tensor<1x3x3x2xf32>
  return %y : tensor<1x3x3x2xf32>
}

// Global average pool: a sum over H and W into [N, C], a division by H*W,
// then expand_shape back to [N, 1, 1, C].
// CHECK-LABEL: func.func @global_avg_pool
// CHECK:         %[[S:.*]] = linalg.generic {indexing_maps = [#[[ID4]], #[[NC]]], iterator_types = ["parallel", "reduction", "reduction", "parallel"]} ins(%arg0 : tensor<1x5x4x3xf32>) outs(%{{.*}} : tensor<1x3xf32>)
// CHECK:           arith.addf
// CHECK:         %[[M:.*]] = linalg.generic {{.*}} ins(%[[S]] : tensor<1x3xf32>)
// CHECK:           arith.constant 2.000000e+01 : f32
// CHECK:           arith.divf
// CHECK:         %[[R:.*]] = tensor.expand_shape %[[M]] {{\[}}[0, 1, 2], [3]] output_shape [1, 1, 1, 3] : tensor<1x3xf32> into tensor<1x1x1x3xf32>
// CHECK:         return %[[R]]
func.func @global_avg_pool(%x: tensor<1x5x4x3xf32>) -> tensor<1x1x1x3xf32> {
  %y = tinyml.global_avg_pool %x : (tensor<1x5x4x3xf32>) -> tensor<1x1x1x3xf32>
  return %y : tensor<1x1x1x3xf32>
}
