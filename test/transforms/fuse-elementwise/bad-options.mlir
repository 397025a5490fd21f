// Out-of-range options are rejected with the option's bounds.
// RUN: not tinyml-opt %s --tinyml-fuse-elementwise='max-ops=1' 2>&1 | FileCheck %s
// CHECK: tinyml-opt: error: option 'max-ops' of pass 'tinyml-fuse-elementwise' must be >= 2, got 1
// RUN: not tinyml-opt %s --tinyml-fuse-elementwise='rematerialize=perhaps' 2>&1 | FileCheck %s --check-prefix=BOOL
// BOOL: tinyml-opt: error: option 'rematerialize' of pass 'tinyml-fuse-elementwise' expects bool, got 'perhaps'
func.func @f() {
  return
}
