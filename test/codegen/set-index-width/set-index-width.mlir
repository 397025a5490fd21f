// RUN: tinyml-opt %s --tinyml-set-index-width='bits=32' | FileCheck %s
// RUN: tinyml-opt %s --tinyml-set-index-width | FileCheck %s --check-prefix=DEFAULT
// RUN: not tinyml-opt %s --tinyml-set-index-width='bits=8' 2>&1 | FileCheck %s --check-prefix=BAD

// The index width goes into the module's data layout, where the
// interface-based convert-to-llvm reads it (a Cortex-M target: 32 bits).
// CHECK: module attributes {dlti.dl_spec = #dlti.dl_spec<index = 32 : i64>}
// DEFAULT: module attributes {dlti.dl_spec = #dlti.dl_spec<index = 64 : i64>}
// BAD: tinyml-opt: error: option 'bits' of pass 'tinyml-set-index-width' must be >= 16, got 8
func.func @f(%i: index) -> index {
  return %i : index
}
