// A negative bound is rejected; so is a non-integer one.
// RUN: not tinyml-opt %s --tinyml-fold-constants='max-elements=-1' 2>&1 | FileCheck %s
// CHECK: tinyml-opt: error: option 'max-elements' of pass 'tinyml-fold-constants' must be >= 0, got -1
// RUN: not tinyml-opt %s --tinyml-fold-constants='max-elements=lots' 2>&1 | FileCheck %s --check-prefix=INT
// INT: tinyml-opt: error: option 'max-elements' of pass 'tinyml-fold-constants' expects int, got 'lots'
func.func @f() {
  return
}
