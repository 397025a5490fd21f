// RUN: tinyml-opt %s --split-input-file --tinyml-fold-constants | FileCheck %s
// RUN: tinyml-opt %s --split-input-file --tinyml-fold-constants=max-elements=4 | FileCheck %s --check-prefix=SMALL

// Where the pass must not fire.

// An operand that is not a constant: the op stays (its constant operand too).
// CHECK-LABEL: func.func @argument_operand
// CHECK-NEXT:    %[[C:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[A:.*]] = tinyml.add %arg0, %[[C]]
// CHECK-NEXT:    return %[[A]]
func.func @argument_operand(%x: tensor<2xf32>) -> tensor<2xf32> {
  %c = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %0 = tinyml.add %x, %c : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// A conv with a constant filter and bias but an argument input stays.
// CHECK-LABEL: func.func @partly_constant
// CHECK:         %[[Y:.*]] = tinyml.conv2d %arg0, %{{.*}}, %{{.*}} :
// CHECK-NEXT:    return %[[Y]]
func.func @partly_constant(%x: tensor<1x2x2x1xf32>) -> tensor<1x1x1x1xf32> {
  %w = arith.constant dense<-1.0> : tensor<2x2x1x1xf32>
  %b = arith.constant dense<1.0> : tensor<1xf32>
  %0 = tinyml.conv2d %x, %w, %b : (tensor<1x2x2x1xf32>, tensor<2x2x1x1xf32>, tensor<1xf32>) -> tensor<1x1x1x1xf32>
  return %0 : tensor<1x1x1x1xf32>
}

// -----

// A result larger than max-elements is left alone (a broadcast of two
// small constants into a [2, 3] tensor): folded by default, kept with
// max-elements=4.
// CHECK-LABEL: func.func @too_large
// CHECK-NEXT:    %[[C:.*]] = arith.constant dense<{{\[\[}}1.100000e+01, 2.100000e+01, 3.100000e+01], [1.200000e+01, 2.200000e+01, 3.200000e+01]]> : tensor<2x3xf32>
// CHECK-NEXT:    return %[[C]]
// SMALL-LABEL: func.func @too_large
// SMALL:         %[[A:.*]] = tinyml.add %{{.*}}, %{{.*}} : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// SMALL-NEXT:    return %[[A]]
func.func @too_large() -> tensor<2x3xf32> {
  %a = arith.constant dense<[[1.0], [2.0]]> : tensor<2x1xf32>
  %b = arith.constant dense<[10.0, 20.0, 30.0]> : tensor<3xf32>
  %0 = tinyml.add %a, %b : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// At the bound exactly it still folds (4 elements, max-elements=4).
// SMALL-LABEL: func.func @at_the_bound
// SMALL-NEXT:    %[[C:.*]] = arith.constant dense<[2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00]> : tensor<4xf32>
// SMALL-NEXT:    return %[[C]]
func.func @at_the_bound() -> tensor<4xf32> {
  %a = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %b = arith.constant dense<1.0> : tensor<1xf32>
  %0 = tinyml.add %a, %b : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A fusion group is not evaluated, even with constant inputs.
// CHECK-LABEL: func.func @fused_group
// CHECK:         tinyml.fused elementwise
func.func @fused_group() -> tensor<2xf32> {
  %c = arith.constant dense<[1.0, -2.0]> : tensor<2xf32>
  %0 = tinyml.fused elementwise (%c) : (tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%x: tensor<2xf32>):
    %r = tinyml.relu %x : tensor<2xf32>
    tinyml.yield %r : tensor<2xf32>
  }
  return %0 : tensor<2xf32>
}
