// A named stage expands to the passes of its pipeline, with the stage
// function's parameters as options; a bad option is one line.
// RUN: tinyml-opt %s --tinyml-stage-fusion | FileCheck %s
// RUN: tinyml-opt %s --pass-pipeline='builtin.module(tinyml-stage-cleanup,tinyml-stage-fusion)' | FileCheck %s
// RUN: not tinyml-opt %s --tinyml-stage-bufferize='bogus=1' 2>&1 | FileCheck %s --check-prefix=BAD-OPTION
// RUN: not tinyml-opt %s --tinyml-stage-lower-to-llvm='index-bitwidth=wide' 2>&1 | FileCheck %s --check-prefix=BAD-VALUE
// BAD-OPTION: tinyml-opt: error: pipeline 'tinyml-stage-bufferize' has no option 'bogus'
// BAD-VALUE: tinyml-opt: error: option 'index-bitwidth' of pass 'tinyml-stage-lower-to-llvm' expects int, got 'wide'

// CHECK-LABEL: func.func @chain
// CHECK:         tinyml.fused elementwise
// CHECK:           tinyml.neg
// CHECK:           tinyml.relu
func.func @chain(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tinyml.neg %a : tensor<4xf32>
  %1 = tinyml.relu %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}
