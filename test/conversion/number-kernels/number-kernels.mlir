// RUN: tinyml-opt %s --split-input-file --tinyml-number-kernels --mlir-print-debuginfo | FileCheck %s
// RUN: tinyml-opt %s --split-input-file --tinyml-number-kernels="first=5" --mlir-print-debuginfo | FileCheck %s --check-prefix=FIRST

// Each top-level tinyml op is a kernel, numbered in execution order. A
// group's location names every member (its own names only the root) and
// carries the number; the members keep their own names, with the number.
// CHECK-LABEL: func.func @two_kernels
// CHECK:         tinyml.fused conv_epilogue
// CHECK:           tinyml.conv2d {{.*}} loc(#[[CONV:loc[0-9]+]])
// CHECK:           tinyml.relu {{.*}} loc(#[[RELU:loc[0-9]+]])
// CHECK:         } loc(#[[GROUP:loc[0-9]+]])
// CHECK:         tinyml.softmax {{.*}} loc(#[[SOFTMAX:loc[0-9]+]])
// CHECK:         return {{.*}} loc(#[[RETURN:loc[0-9]+]])
// CHECK-DAG:   #[[K1:loc[0-9]+]] = loc("tinyml.kernel":1:0)
// CHECK-DAG:   #[[K2:loc[0-9]+]] = loc("tinyml.kernel":2:0)
// CHECK-DAG:   #[[RETURN]] = loc("model.onnx":0:0)
// CHECK-DAG:   #[[CONV_NAME:loc[0-9]+]] = loc("Conv_0")
// CHECK-DAG:   #[[RELU_NAME:loc[0-9]+]] = loc("Relu_0")
// CHECK-DAG:   #[[CONV]] = loc(fused[#[[K1]], #[[CONV_NAME]]])
// CHECK-DAG:   #[[RELU]] = loc(fused[#[[K1]], #[[RELU_NAME]]])
// CHECK-DAG:   #[[GROUP]] = loc(fused[#[[K1]], #[[CONV_NAME]], #[[RELU_NAME]]])
// CHECK-DAG:   #[[SOFTMAX]] = loc(fused[#[[K2]], #{{loc[0-9]+}}])
// FIRST-LABEL: func.func @two_kernels
// FIRST-DAG:   loc("tinyml.kernel":5:0)
// FIRST-DAG:   loc("tinyml.kernel":6:0)
func.func @two_kernels(%a: tensor<1x4x4x2xf32>, %w: tensor<1x1x2x2xf32>) -> tensor<1x4x4x2xf32> {
  %0 = tinyml.fused conv_epilogue (%a, %w) : (tensor<1x4x4x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x4x4x2xf32> {
  ^bb0(%x: tensor<1x4x4x2xf32>, %k: tensor<1x1x2x2xf32>):
    %c = tinyml.conv2d %x, %k : (tensor<1x4x4x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x4x4x2xf32> loc("Conv_0")
    %r = tinyml.relu %c : tensor<1x4x4x2xf32> loc("Relu_0")
    tinyml.yield %r : tensor<1x4x4x2xf32> loc("Relu_0")
  } loc("Relu_0")
  %1 = tinyml.softmax %0 {axis = 3 : i64} : tensor<1x4x4x2xf32> loc("Softmax_0")
  return %1 : tensor<1x4x4x2xf32> loc("model.onnx":0:0)
}

// -----

// Not firing: a function without tinyml ops keeps every location.
// CHECK-LABEL: func.func @no_kernel
// CHECK-NOT:   tinyml.kernel
// FIRST-LABEL: func.func @no_kernel
// FIRST-NOT:   tinyml.kernel
func.func @no_kernel(%a: f32) -> f32 {
  %0 = arith.addf %a, %a : f32 loc("Add_0")
  return %0 : f32
}

// -----

// After bufferization a copy into an out-parameter is a kernel too, named
// after the kernel whose result it copies; numbered kernels keep their
// number and the copy takes the next one.
// CHECK-LABEL: func.func @copy_after_kernels
// CHECK:         memref.copy {{.*}} loc(#[[COPY:loc[0-9]+]])
// CHECK-DAG:   #[[K8:loc[0-9]+]] = loc("tinyml.kernel":8:0)
// CHECK-DAG:   #[[COPY]] = loc(fused[#[[K8]], #{{loc[0-9]+}}, #[[RESHAPE:loc[0-9]+]]])
// CHECK-DAG:   #[[RESHAPE]] = loc("Reshape_0")
// FIRST-LABEL: func.func @copy_after_kernels
// FIRST:       loc("tinyml.kernel":8:0)
func.func @copy_after_kernels(%a: memref<2x2xf32>, %out: memref<4xf32>) {
  %0 = memref.collapse_shape %a [[0, 1]] : memref<2x2xf32> into memref<4xf32> loc(fused["tinyml.kernel":7:0, "Reshape_0"])
  memref.copy %0, %out : memref<4xf32> to memref<4xf32> loc("model.onnx":0:0)
  return
}

// -----

// A node name that is not UTF-8 is numbered like any other (the bindings'
// name accessor would abort on it).
// CHECK-LABEL: func.func @undecodable_name
// CHECK:         tinyml.relu {{.*}} loc(#[[RELU:loc[0-9]+]])
// CHECK-DAG:   #[[RELU]] = loc(fused[#[[K:loc[0-9]+]], #[[NAME:loc[0-9]+]]])
// CHECK-DAG:   #[[K]] = loc("tinyml.kernel":1:0)
// CHECK-DAG:   #[[NAME]] = loc("R\FFelu")
func.func @undecodable_name(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tinyml.relu %a : tensor<4xf32> loc("R\FFelu")
  return %0 : tensor<4xf32>
}

// -----

// A chain of row loops (tinyml-fuse-line-buffer's, each carrying the
// result of the one before) is one kernel, named after the layers inside:
// both loops and their layers carry number 1, the softmax after them 2.
// CHECK-LABEL: func.func @row_loops
// CHECK:         scf.for
// CHECK:           tinyml.relu {{.*}} loc(#[[KERNEL:loc[0-9]+]])
// CHECK:         } loc(#[[KERNEL]])
// CHECK:         scf.for
// CHECK:           tinyml.relu {{.*}} loc(#[[KERNEL]])
// CHECK:         } loc(#[[KERNEL]])
// CHECK:         tinyml.softmax {{.*}} loc(#[[SOFTMAX:loc[0-9]+]])
// CHECK-DAG:   #[[K1:loc[0-9]+]] = loc("tinyml.kernel":1:0)
// CHECK-DAG:   #[[K2:loc[0-9]+]] = loc("tinyml.kernel":2:0)
// CHECK-DAG:   #[[RELU_NAME:loc[0-9]+]] = loc("Relu_3")
// CHECK-DAG:   #[[KERNEL]] = loc(fused[#[[K1]], #[[RELU_NAME]]])
// CHECK-DAG:   #[[SOFTMAX]] = loc(fused[#[[K2]], #{{loc[0-9]+}}])
func.func @row_loops(%a: tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %e = tensor.empty() : tensor<1x4x4x2xf32>
  %0 = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %e) -> (tensor<1x4x4x2xf32>) {
    %row = tensor.extract_slice %a[0, %i, 0, 0] [1, 1, 4, 2] [1, 1, 1, 1] : tensor<1x4x4x2xf32> to tensor<1x1x4x2xf32>
    %r = tinyml.relu %row : tensor<1x1x4x2xf32> loc("Relu_3")
    %next = tensor.insert_slice %r into %acc[0, %i, 0, 0] [1, 1, 4, 2] [1, 1, 1, 1] : tensor<1x1x4x2xf32> into tensor<1x4x4x2xf32>
    scf.yield %next : tensor<1x4x4x2xf32>
  }
  %1 = scf.for %i = %c2 to %c4 step %c1 iter_args(%acc = %0) -> (tensor<1x4x4x2xf32>) {
    %row = tensor.extract_slice %a[0, %i, 0, 0] [1, 1, 4, 2] [1, 1, 1, 1] : tensor<1x4x4x2xf32> to tensor<1x1x4x2xf32>
    %r = tinyml.relu %row : tensor<1x1x4x2xf32> loc("Relu_3")
    %next = tensor.insert_slice %r into %acc[0, %i, 0, 0] [1, 1, 4, 2] [1, 1, 1, 1] : tensor<1x1x4x2xf32> into tensor<1x4x4x2xf32>
    scf.yield %next : tensor<1x4x4x2xf32>
  }
  %2 = tinyml.softmax %1 {axis = 3 : i64} : tensor<1x4x4x2xf32> loc("Softmax_0")
  return %2 : tensor<1x4x4x2xf32>
}

// -----

// A line buffer's loop computes its layers in branches, each taken on some
// iterations: the layers there are the loop's kernel too, and its MACs
// count the iterations whose condition holds (here i - 1 < 4 unsigned: 4
// of the 6), 4 x (4 pixels x 3 channels x 2 inputs).
// CHECK-LABEL: func.func @layers_in_branches
// CHECK-SAME:    tinyml.kernels = [{kernel = 1 : i64, kind = "pointwise", macs = 96 : i64, names = ["Conv_7"]}]
// CHECK:         scf.for
// CHECK:           scf.if
// CHECK:             tinyml.conv2d {{.*}} loc(#[[KERNEL:loc[0-9]+]])
// CHECK:         } loc(#[[KERNEL]])
// CHECK-DAG:   #[[K1:loc[0-9]+]] = loc("tinyml.kernel":1:0)
// CHECK-DAG:   #[[KERNEL]] = loc(fused[#[[K1]], #{{loc[0-9]+}}])
func.func @layers_in_branches(%a: tensor<1x4x4x2xf32>, %w: tensor<1x1x2x3xf32>) -> tensor<1x4x4x3xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %e = tensor.empty() : tensor<1x4x4x3xf32>
  %0 = scf.for %i = %c0 to %c6 step %c1 iter_args(%acc = %e) -> (tensor<1x4x4x3xf32>) {
    %row = arith.subi %i, %c1 : index
    %inside = arith.cmpi ult, %row, %c4 : index
    %next = scf.if %inside -> (tensor<1x4x4x3xf32>) {
      %x = tensor.extract_slice %a[0, %row, 0, 0] [1, 1, 4, 2] [1, 1, 1, 1] : tensor<1x4x4x2xf32> to tensor<1x1x4x2xf32>
      %y = tinyml.conv2d %x, %w : (tensor<1x1x4x2xf32>, tensor<1x1x2x3xf32>) -> tensor<1x1x4x3xf32> loc("Conv_7")
      %put = tensor.insert_slice %y into %acc[0, %row, 0, 0] [1, 1, 4, 3] [1, 1, 1, 1] : tensor<1x1x4x3xf32> into tensor<1x4x4x3xf32>
      scf.yield %put : tensor<1x4x4x3xf32>
    } else {
      scf.yield %acc : tensor<1x4x4x3xf32>
    }
    scf.yield %next : tensor<1x4x4x3xf32>
  }
  return %0 : tensor<1x4x4x3xf32>
}
