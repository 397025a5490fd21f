// RUN: tinyml-opt %s --split-input-file --tinyml-approximate-math | FileCheck %s
// RUN: tinyml-opt %s --split-input-file '--tinyml-approximate-math=functions=tanh min-executions=0' | FileCheck %s --check-prefix=TANH
// RUN: not tinyml-opt %s --split-input-file --tinyml-approximate-math=functions=log 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: option 'functions': no approximation of math.log (exp and tanh have one)

#map = affine_map<(d0, d1) -> (d0, d1)>

// A sigmoid's exp over 8 x 16 points (128 runs an inference, at least the
// default 64): Cephes' exp inline, 2^n built in the exponent bits.
// CHECK-LABEL: func.func @exp_run_often
// CHECK-NOT:     math.exp
// CHECK:         arith.constant 1.44269502 : f32
// CHECK:         arith.constant 0x4B400000 : f32
// CHECK:         arith.fptosi %{{.*}} : f32 to i32
// CHECK:         %[[BITS:.*]] = arith.shli %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    %[[SCALE:.*]] = arith.bitcast %[[BITS]] : i32 to f32
// CHECK-NEXT:    arith.mulf %{{.*}}, %[[SCALE]] : f32
// TANH-LABEL: func.func @exp_run_often
// TANH:         math.exp
func.func @exp_run_often(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %y = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    %v = math.exp %n : f32
    linalg.yield %v : f32
  } -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// -----

#map = affine_map<(d0, d1) -> (d0, d1)>

// tanh over 4 points run 12 times (a time loop): 48 runs, below the
// default 64: the library call stays.
// CHECK-LABEL: func.func @tanh_run_rarely
// CHECK:         math.tanh
// With min-executions=0: the rational approximation, and x itself below
// |x| = 0.0004.
// TANH-LABEL: func.func @tanh_run_rarely
// TANH-NOT:     math.tanh
// TANH:         arith.constant 7.90531111 : f32
// TANH:         %[[RATIO:.*]] = arith.divf
// TANH:         arith.constant 4.000000e-04 : f32
// TANH-NEXT:    %[[SMALL:.*]] = arith.cmpf olt, %{{.*}}, %{{.*}} : f32
// TANH-NEXT:    arith.select %[[SMALL]], %{{.*}}, %[[RATIO]] : f32
func.func @tanh_run_rarely(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c12 = arith.constant 12 : index
  %r = scf.for %t = %c0 to %c12 step %c1 iter_args(%h = %x) -> (tensor<1x4xf32>) {
    %e = tensor.empty() : tensor<1x4xf32>
    %y = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
        ins(%h : tensor<1x4xf32>) outs(%e : tensor<1x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %v = math.tanh %in : f32
      linalg.yield %v : f32
    } -> tensor<1x4xf32>
    scf.yield %y : tensor<1x4xf32>
  }
  return %r : tensor<1x4xf32>
}

// -----

#map = affine_map<(d0) -> (d0)>

// Only f32 is approximated: an f64 exp keeps its call.
// CHECK-LABEL: func.func @exp_of_f64
// CHECK:         math.exp %{{.*}} : f64
func.func @exp_of_f64(%x: tensor<256xf64>) -> tensor<256xf64> {
  %e = tensor.empty() : tensor<256xf64>
  %y = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<256xf64>) outs(%e : tensor<256xf64>) {
  ^bb0(%in: f64, %out: f64):
    %v = math.exp %in : f64
    linalg.yield %v : f64
  } -> tensor<256xf64>
  return %y : tensor<256xf64>
}
