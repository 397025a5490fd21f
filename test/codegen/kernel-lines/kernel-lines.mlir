// RUN: tinyml-opt %s --tinyml-kernel-lines="file=kws.kernels" --mlir-print-debuginfo | FileCheck %s
// RUN: tinyml-opt %s --tinyml-kernel-lines --mlir-print-debuginfo | FileCheck %s --check-prefix=DEFAULT

// An op of one kernel gets its number as the line of the synthetic file;
// an op of no kernel, one merged from two kernels, the function and the
// module get line 0. No other location (the model's path) is left.
// CHECK-LABEL: llvm.func @model
// CHECK:         llvm.fadd {{.*}} loc(#[[K3:loc[0-9]*]])
// CHECK:         llvm.fmul {{.*}} loc(#[[K4:loc[0-9]*]])
// CHECK:         llvm.fsub {{.*}} loc(#[[ZERO:loc[0-9]*]])
// CHECK:         llvm.return {{.*}} loc(#[[ZERO]])
// CHECK:       } loc(#[[ZERO]])
// CHECK-DAG:   #[[K3]] = loc("kws.kernels":3:0)
// CHECK-DAG:   #[[K4]] = loc("kws.kernels":4:0)
// CHECK-DAG:   #[[ZERO]] = loc("kws.kernels":0:0)
// CHECK-NOT:   /abs/model.onnx
// CHECK-NOT:   tinyml.kernel
// DEFAULT-DAG: loc("model.kernels":3:0)
// DEFAULT-DAG: loc("model.kernels":0:0)
llvm.func @model(%a: f32) -> f32 {
  %0 = llvm.fadd %a, %a : f32 loc(fused["tinyml.kernel":3:0, "Conv_0"("/abs/model.onnx":0:0)])
  %1 = llvm.fmul %0, %0 : f32 loc(fused["tinyml.kernel":4:0, "Relu_1"("/abs/model.onnx":0:0)])
  %2 = llvm.fsub %1, %0 : f32 loc(fused["tinyml.kernel":3:0, "tinyml.kernel":4:0])
  llvm.return %2 : f32 loc("/abs/model.onnx":0:0)
} loc("/abs/model.onnx":0:0)
