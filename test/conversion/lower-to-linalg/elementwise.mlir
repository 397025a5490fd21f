// RUN: tinyml-opt --tinyml-lower-to-linalg %s | FileCheck %s

// CHECK-DAG: #[[ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[LHS:.*]] = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
// CHECK-DAG: #[[RHS:.*]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-DAG: #[[ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[ID4:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[CH:.*]] = affine_map<(d0, d1, d2, d3) -> (d3)>

// Same shapes: identity maps.
// CHECK-LABEL: func.func @add
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK:         linalg.generic {indexing_maps = [#[[ID2]], #[[ID2]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : tensor<2x3xf32>, tensor<2x3xf32>) outs(%[[E]] : tensor<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
func.func @add(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = tinyml.add %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// numpy broadcasting: size-1 dims read index 0, missing leading dims vanish.
// CHECK-LABEL: func.func @sub_broadcast
// CHECK:         linalg.generic {indexing_maps = [#[[LHS]], #[[RHS]], #[[ID3]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0, %arg1 : tensor<2x1x4xf32>, tensor<3x1xf32>) outs(%{{.*}} : tensor<2x3x4xf32>)
// CHECK:           arith.subf
func.func @sub_broadcast(%a: tensor<2x1x4xf32>, %b: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %y = tinyml.sub %a, %b : (tensor<2x1x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>
  return %y : tensor<2x3x4xf32>
}

// CHECK-LABEL: func.func @mul_row
// CHECK:         linalg.generic {indexing_maps = [#[[ID2]], #[[ROW]], #[[ID2]]]
// CHECK:           arith.mulf
func.func @mul_row(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %y = tinyml.mul %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @div
// CHECK:         arith.divf
func.func @div(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = tinyml.div %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// maximum/minimum are compare + select, never arith.maximumf/minimumf.
// CHECK-LABEL: func.func @maximum
// CHECK:         ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[C:.*]] = arith.cmpf ugt, %[[A]], %[[B]] : f32
// CHECK-NEXT:      %[[S:.*]] = arith.select %[[C]], %[[A]], %[[B]] : f32
// CHECK-NEXT:      linalg.yield %[[S]]
func.func @maximum(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = tinyml.maximum %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @minimum
// CHECK:         %[[C:.*]] = arith.cmpf ult, %[[A:.*]], %[[B:.*]] : f32
// CHECK-NEXT:    arith.select %[[C]], %[[A]], %[[B]] : f32
func.func @minimum(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = tinyml.minimum %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @neg
// CHECK:         linalg.generic {indexing_maps = [#[[ID2]], #[[ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK:           arith.negf
func.func @neg(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = tinyml.neg %a : tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @exp
// CHECK:           math.exp
func.func @exp(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = tinyml.exp %a : tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// ReLU: x > 0 (or NaN) ? x : 0 with cmpf ugt + select.
// CHECK-LABEL: func.func @relu
// CHECK-NOT:     maximumf
// CHECK:         ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK:           %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:           %[[C:.*]] = arith.cmpf ugt, %[[X]], %[[Z]] : f32
// CHECK:           %[[S:.*]] = arith.select %[[C]], %[[X]], %[[Z]] : f32
// CHECK:           linalg.yield %[[S]] : f32
func.func @relu(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = tinyml.relu %a : tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// sigmoid = 1 / (1 + exp(-x)).
// CHECK-LABEL: func.func @sigmoid
// CHECK:         ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK:           %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK:           %[[N:.*]] = arith.negf %[[X]] : f32
// CHECK:           %[[E:.*]] = math.exp %[[N]] : f32
// CHECK:           %[[D:.*]] = arith.addf %[[ONE]], %[[E]] : f32
// CHECK:           %[[R:.*]] = arith.divf %[[ONE]], %[[D]] : f32
// CHECK:           linalg.yield %[[R]] : f32
func.func @sigmoid(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = tinyml.sigmoid %a : tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @tanh
// CHECK:           math.tanh
func.func @tanh(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = tinyml.tanh %a : tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// clamp (ReLU6): two compare + select.
// CHECK-LABEL: func.func @clamp
// CHECK-NOT:     maximumf
// CHECK:         ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-DAG:       %[[LO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG:       %[[HI:.*]] = arith.constant 6.000000e+00 : f32
// CHECK:           %[[C1:.*]] = arith.cmpf olt, %[[X]], %[[LO]] : f32
// CHECK:           %[[S1:.*]] = arith.select %[[C1]], %[[LO]], %[[X]] : f32
// CHECK:           %[[C2:.*]] = arith.cmpf ogt, %[[S1]], %[[HI]] : f32
// CHECK:           %[[S2:.*]] = arith.select %[[C2]], %[[HI]], %[[S1]] : f32
// CHECK:           linalg.yield %[[S2]] : f32
func.func @clamp(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = tinyml.clamp %a {min = 0.0 : f32, max = 6.0 : f32} : tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// batch_norm: (x - mean) / sqrt(var + eps) * scale + bias, parameters
// broadcast along the channel (last) axis.
// CHECK-LABEL: func.func @batch_norm
// CHECK:         linalg.generic {indexing_maps = [#[[ID4]], #[[CH]], #[[CH]], #[[CH]], #[[CH]], #[[ID4]]]
// CHECK:         ^bb0(%[[X:.*]]: f32, %[[S:.*]]: f32, %[[B:.*]]: f32, %[[M:.*]]: f32, %[[V:.*]]: f32, %{{.*}}: f32):
// CHECK:           %[[EPS:.*]] = arith.constant 1.000000e-03 : f32
// CHECK:           %[[D:.*]] = arith.subf %[[X]], %[[M]] : f32
// CHECK:           %[[VE:.*]] = arith.addf %[[V]], %[[EPS]] : f32
// CHECK:           %[[SQ:.*]] = math.sqrt %[[VE]] : f32
// CHECK:           %[[N:.*]] = arith.divf %[[D]], %[[SQ]] : f32
// CHECK:           %[[SC:.*]] = arith.mulf %[[N]], %[[S]] : f32
// CHECK:           %[[R:.*]] = arith.addf %[[SC]], %[[B]] : f32
// CHECK:           linalg.yield %[[R]] : f32
func.func @batch_norm(%x: tensor<1x2x2x3xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<1x2x2x3xf32> {
  %y = tinyml.batch_norm %x, %s, %b, %m, %v {epsilon = 1.0e-3 : f32} : (tensor<1x2x2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x2x2x3xf32>
  return %y : tensor<1x2x2x3xf32>
}

// The default epsilon (1e-5) applies when the attribute is absent.
// CHECK-LABEL: func.func @batch_norm_default_epsilon
// CHECK:           arith.constant 9.99999974E-6 : f32
func.func @batch_norm_default_epsilon(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<2x3xf32> {
  %y = tinyml.batch_norm %x, %s, %b, %m, %v : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
