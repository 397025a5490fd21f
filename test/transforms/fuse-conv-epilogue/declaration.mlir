// RUN: tinyml-opt %s --tinyml-fuse-conv-epilogue | FileCheck %s

// A declaration has no body to fuse: it is printed as it was, and the
// function defined after it is still fused.
// CHECK-LABEL: func.func private @external(tensor<1x8xf32>, tensor<8x3xf32>) -> tensor<1x3xf32>
// CHECK-LABEL: func.func @matmul_relu
// CHECK:         tinyml.fused conv_epilogue (%arg0, %arg1)
// CHECK:           tinyml.matmul
// CHECK-NEXT:      tinyml.relu
// CHECK-NEXT:      tinyml.yield
func.func private @external(%a: tensor<1x8xf32>, %m: tensor<8x3xf32>) -> tensor<1x3xf32>
func.func @matmul_relu(%a: tensor<1x8xf32>, %m: tensor<8x3xf32>) -> tensor<1x3xf32> {
  %0 = tinyml.matmul %a, %m : (tensor<1x8xf32>, tensor<8x3xf32>) -> tensor<1x3xf32>
  %1 = tinyml.relu %0 : tensor<1x3xf32>
  return %1 : tensor<1x3xf32>
}
