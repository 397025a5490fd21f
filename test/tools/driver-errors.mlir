// Bad input to tinyml-opt: one line naming the problem, non-zero exit.
// RUN: not tinyml-opt %s --tinyml-no-such-pass 2>&1 | FileCheck %s --check-prefix=UNKNOWN-PASS
// UNKNOWN-PASS: tinyml-opt: error: unknown pass 'tinyml-no-such-pass'
// RUN: not tinyml-opt %s --no-such-upstream-pass 2>&1 | FileCheck %s --check-prefix=UNKNOWN-UPSTREAM
// UNKNOWN-UPSTREAM: tinyml-opt: error: invalid pass or pipeline 'no-such-upstream-pass'
// RUN: not tinyml-opt %s --tinyml-simplify='bogus=1' 2>&1 | FileCheck %s --check-prefix=BAD-OPTION
// BAD-OPTION: tinyml-opt: error: pass 'tinyml-simplify' has no option 'bogus'
// A bad value for an upstream option: LLVM's own complaint, on the same one line.
// RUN: not tinyml-opt %s --canonicalize=max-iterations=99999999999999999999 2>&1 | FileCheck %s --check-prefix=BAD-UPSTREAM-VALUE --implicit-check-not={{.}}
// BAD-UPSTREAM-VALUE: tinyml-opt: error: invalid pass or pipeline 'canonicalize{max-iterations=99999999999999999999}': for the --max-iterations option: '99999999999999999999' value invalid for long argument!
// RUN: not tinyml-opt %s --pass-pipeline='builtin.module(tinyml-simplify' 2>&1 | FileCheck %s --check-prefix=UNBALANCED
// UNBALANCED: tinyml-opt: error: unbalanced brackets in pipeline
// RUN: not tinyml-opt %s.does-not-exist 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: tinyml-opt: error: cannot open input file '{{.*}}.does-not-exist': No such file or directory
// RUN: not tinyml-opt %s --no-such-flag=1 --pass-pipeline='builtin.module(cse)' 2>&1 | FileCheck %s --check-prefix=MIXED
// MIXED: tinyml-opt: error: --pass-pipeline cannot be combined with individual pass flags
// RUN: not tinyml-opt %s 2>&1 | FileCheck %s --check-prefix=MALFORMED
// MALFORMED: driver-errors.mlir:[[# @LINE + 3]]:8: error: custom op 'tinyml.no_such_op' is unknown
// MALFORMED-NOT: Traceback
func.func @malformed(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tinyml.no_such_op %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
