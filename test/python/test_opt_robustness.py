"""tinyml-opt never dies by a signal and never reports bad input as an
internal error: text the upstream parser would abort on is reported at its
place, a crash in upstream MLIR becomes one line naming what was running
(exit code 2), and everything else still works through the crash guard
(stdout, diagnostics, stdin, exit codes)."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

# Upstream's linalg.transpose parser stores a null permutation when the
# array does not parse, then asserts.
TRANSPOSE_WITHOUT_COMMA = """\
func.func @f(%a: memref<2x3xf32>, %b: memref<3x2xf32>) {
  linalg.transpose ins(%a : memref<2x3xf32>) outs(%b : memref<3x2xf32>) permutation = [1 0]
  return
}
"""

# A position of 2^32 is truncated while parsing and used untruncated later:
# an assertion in the parser, or in --sccp when the parser lets it through.
EXTRACT_BEYOND_32_BITS = """\
llvm.func @f(%s: !llvm.struct<(i32, i32)>) -> i32 {
  %0 = llvm.extractvalue %s[4294967296] : !llvm.struct<(i32, i32)>
  llvm.return %0 : i32
}
"""
SCCP_EXTRACT = """\
llvm.func @f(%p: !llvm.ptr) -> !llvm.ptr {
  %0 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i32, array<4 x i32>, array<4 x i32>)>
  %1 = llvm.insertvalue %p, %0[1] : !llvm.struct<(ptr, ptr, i32, array<4 x i32>, array<4 x i32>)>
  %2 = llvm.extractvalue %1[4294967296] : !llvm.struct<(ptr, ptr, i32, array<4 x i32>, array<4 x i32>)>
  llvm.return %2 : !llvm.ptr
}
"""

# Upstream's memref.generic_atomic_rmw parser casts the operand's type to a
# memref unchecked (llvm/llvm-project#179047): an assertion no check of
# ours covers, so it exercises the crash guard itself.
ATOMIC_RMW_ON_TENSOR = """\
func.func @f(%t: tensor<10xf32>, %i: index, %v: f32) {
  memref.generic_atomic_rmw %t[%i] : tensor<10xf32> {
  ^bb0(%old: f32):
    memref.atomic_yield %v : f32
  }
  return
}
"""

# A bufferized max pool as the compile pipeline leaves it before planning.
MAXPOOL = """\
#map = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 * 2 + d4, d2 * 2 + d5, d3)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
func.func @op_maxpool(%arg0: memref<1x4x8x8xf32>, %arg1: memref<1x4x4x3xf32>) {
  %cst = arith.constant -3.40282347E+38 : f32
  %alloc = memref.alloc() {alignment = 64 : i64} : memref<1x8x8x4xf32>
  linalg.transpose ins(%arg0 : memref<1x4x8x8xf32>) outs(%alloc : memref<1x8x8x4xf32>) permutation = [0, 2, 3, 1]
  %alloc_0 = memref.alloc() {alignment = 64 : i64} : memref<1x10x8x4xf32>
  linalg.fill ins(%cst : f32) outs(%alloc_0 : memref<1x10x8x4xf32>)
  %subview = memref.subview %alloc_0[0, 1, 0, 0] [1, 8, 8, 4] [1, 1, 1, 1] : memref<1x10x8x4xf32> to memref<1x8x8x4xf32, strided<[320, 32, 4, 1], offset: 32>>
  memref.copy %alloc, %subview : memref<1x8x8x4xf32> to memref<1x8x8x4xf32, strided<[320, 32, 4, 1], offset: 32>>
  %alloc_1 = memref.alloc() {alignment = 64 : i64} : memref<3x3xf32>
  %alloc_2 = memref.alloc() {alignment = 64 : i64} : memref<1x4x3x4xf32>
  linalg.fill ins(%cst : f32) outs(%alloc_2 : memref<1x4x3x4xf32>)
  linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%alloc_0, %alloc_1 : memref<1x10x8x4xf32>, memref<3x3xf32>) outs(%alloc_2 : memref<1x4x3x4xf32>) {
  ^bb0(%in: f32, %in_3: f32, %out: f32):
    %0 = arith.cmpf ugt, %in, %out : f32
    %1 = arith.select %0, %in, %out : f32
    linalg.yield %1 : f32
  }
  linalg.transpose ins(%alloc_2 : memref<1x4x3x4xf32>) outs(%arg1 : memref<1x4x4x3xf32>) permutation = [0, 3, 1, 2]
  return
}
"""

RELU = """\
func.func @relu(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tinyml.relu %a : tensor<4xf32>
  %dead = tinyml.neg %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""

DECLARATION_ONLY = "func.func private @ext(%a: tensor<4xf32>) -> tensor<4xf32>\n"

ASSERTION_SUFFIX = ("(SIGABRT); this is an assertion in upstream MLIR, "
                    "not a problem tinyml can report precisely")


def run_opt(*args, stdin: str | None = None, cwd: Path | None = None, debug: bool = False,
            prelude: str = ""):
    """tinyml-opt as users run it (a fresh process through its console entry
    point); `prelude` is Python run before main, e.g. to register a pass."""
    script = f"import sys\n{prelude}\nfrom tinyml.cli.opt import main\nsys.exit(main())"
    return subprocess.run([sys.executable, "-c", script, *map(str, args)],
                          input=stdin, capture_output=True, text=True, timeout=300, cwd=cwd,
                          env={**os.environ, "TINYML_DEBUG": "1" if debug else ""})


def stderr_lines(result) -> list[str]:
    return result.stderr.splitlines()


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


# ---------------------------------------------------------------------------
# Upstream parser aborts caught before parsing: a located user error
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("text, args, expected", [
    (TRANSPOSE_WITHOUT_COMMA, (),
     "in.mlir:2:87: error: 'permutation' of linalg.transpose must be a list of integers "
     "such as [1, 0]"),
    (EXTRACT_BEYOND_32_BITS, (),
     "in.mlir:2:29: error: position 4294967296 of llvm.extractvalue is out of range "
     "(positions are 32-bit, from 0 to 4294967295)"),
    (SCCP_EXTRACT, ("--sccp",),
     "in.mlir:4:29: error: position 4294967296 of llvm.extractvalue is out of range "
     "(positions are 32-bit, from 0 to 4294967295)"),
], ids=["linalg-transpose", "llvm-extractvalue", "sccp-extractvalue"])
def test_parser_abort_inputs_get_one_located_error(tmp_path, text, args, expected):
    write(tmp_path, "in.mlir", text)
    result = run_opt("in.mlir", *args, cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert stderr_lines(result) == [expected]
    assert result.stdout == ""


def test_parser_trap_is_an_expected_error_for_verify_diagnostics(tmp_path):
    text = TRANSPOSE_WITHOUT_COMMA.replace(
        "  linalg.transpose",
        "  // expected-error @+1 {{'permutation' of linalg.transpose}}\n  linalg.transpose")
    write(tmp_path, "in.mlir", text)
    result = run_opt("in.mlir", "--verify-diagnostics", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""


# ---------------------------------------------------------------------------
# Crashes no check covers: the crash guard's one line
# ---------------------------------------------------------------------------

def test_upstream_parser_crash_is_one_line_naming_the_file(tmp_path):
    write(tmp_path, "in.mlir", ATOMIC_RMW_ON_TENSOR)
    result = run_opt("in.mlir", cwd=tmp_path)
    assert result.returncode == 2
    assert stderr_lines(result) == [
        f"tinyml-opt: internal error: the MLIR parser crashed on 'in.mlir' {ASSERTION_SUFFIX}"]
    assert result.stdout == ""


def test_crash_with_debug_adds_the_raw_assertion(tmp_path):
    write(tmp_path, "in.mlir", ATOMIC_RMW_ON_TENSOR)
    result = run_opt("in.mlir", cwd=tmp_path, debug=True)
    assert result.returncode == 2
    lines = stderr_lines(result)
    assert lines[0].startswith("tinyml-opt: internal error: the MLIR parser crashed on 'in.mlir'")
    assert any("Assertion" in line and "cast<Ty>() argument of incompatible type" in line
               for line in lines[1:])


def test_crash_in_a_split_chunk_names_the_chunk(tmp_path):
    write(tmp_path, "in.mlir", RELU + "// -----\n" + ATOMIC_RMW_ON_TENSOR)
    result = run_opt("in.mlir", "--split-input-file", cwd=tmp_path)
    assert result.returncode == 2
    assert stderr_lines(result) == [
        "tinyml-opt: internal error: the MLIR parser crashed on 'in.mlir' (the chunk at line 7) "
        + ASSERTION_SUFFIX]
    assert result.stdout == ""  # nothing half-done is printed


ABORTING_PASS = '''
import os
from tinyml.pipeline.registry import Pass, register

@register
class Abort(Pass):
    name = "test-abort"
    summary = "aborts the process, as an upstream assertion does"

    def apply(self, module):
        os.abort()
'''


def test_pass_crash_names_the_pass_and_the_file(tmp_path):
    write(tmp_path, "in.mlir", RELU)
    result = run_opt("in.mlir", "--tinyml-simplify", "--test-abort", cwd=tmp_path,
                     prelude=ABORTING_PASS)
    assert result.returncode == 2
    assert stderr_lines(result) == [
        f"tinyml-opt: internal error: pass 'test-abort' crashed on 'in.mlir' {ASSERTION_SUFFIX}"]


def test_pass_crash_on_stdin_names_stdin(tmp_path):
    result = run_opt("--test-abort", stdin=RELU, prelude=ABORTING_PASS)
    assert result.returncode == 2
    assert stderr_lines(result) == [
        f"tinyml-opt: internal error: pass 'test-abort' crashed on '<stdin>' {ASSERTION_SUFFIX}"]


# ---------------------------------------------------------------------------
# tinyml-side defects that used to abort or raise
# ---------------------------------------------------------------------------

def test_plan_memory_without_split_plans(tmp_path):
    write(tmp_path, "in.mlir", MAXPOOL)
    result = run_opt("in.mlir", "--tinyml-plan-memory=split=false", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert "{tinyml.arena}" in result.stdout
    assert "memref.alloc" not in result.stdout


def test_plan_memory_without_split_on_malformed_input_is_one_error(tmp_path):
    write(tmp_path, "in.mlir", MAXPOOL.replace("permutation = [0, 2, 3, 1]",
                                               "permutation = [0, 2, 3 3, 1]"))
    result = run_opt("in.mlir", "--tinyml-plan-memory=split=false", cwd=tmp_path)
    assert result.returncode == 1
    assert stderr_lines(result) == [
        "in.mlir:7:102: error: 'permutation' of linalg.transpose must be a list of integers "
        "such as [1, 0]"]


def test_unwritable_report_dir_is_one_line_naming_it(tmp_path):
    source = write(tmp_path, "in.mlir", MAXPOOL)
    blocker = write(tmp_path, "blocker", "a file where the report folder's parent should be\n")
    report_dir = blocker / "reports"
    result = run_opt("in.mlir", f"--tinyml-plan-memory=report-dir={report_dir}", cwd=tmp_path)
    assert result.returncode == 1
    lines = stderr_lines(result)
    assert len(lines) == 1
    assert lines[0].startswith("in.mlir:4:1: error: tinyml-plan-memory: report-dir: cannot write ")
    assert str(report_dir) in lines[0]
    assert "internal error" not in lines[0]
    assert source.read_text() == MAXPOOL
    assert blocker.read_text() == "a file where the report folder's parent should be\n"


@pytest.mark.parametrize("flag", ["--tinyml-fuse-conv-epilogue", "--tinyml-fuse-elementwise",
                                  "--tinyml-fuse-reduction", "--tinyml-choose-tiles"])
def test_function_passes_leave_declarations_alone(tmp_path, flag):
    write(tmp_path, "in.mlir", DECLARATION_ONLY)
    result = run_opt("in.mlir", flag, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert "func.func private @ext(tensor<4xf32>) -> tensor<4xf32>" in result.stdout


# ---------------------------------------------------------------------------
# Everything else still works through the guard
# ---------------------------------------------------------------------------

def test_normal_run_prints_ir_on_stdout(tmp_path):
    write(tmp_path, "in.mlir", RELU)
    result = run_opt("in.mlir", "--tinyml-simplify", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert "tinyml.relu %arg0" in result.stdout
    assert "tinyml.neg" not in result.stdout


def test_diagnostics_reach_stderr_in_mlir_format(tmp_path):
    write(tmp_path, "in.mlir", RELU.replace("tinyml.neg", "tinyml.no_such_op"))
    result = run_opt("in.mlir", cwd=tmp_path)
    assert result.returncode == 1
    assert stderr_lines(result) == [
        "in.mlir:3:11: error: custom op 'tinyml.no_such_op' is unknown"]
    assert result.stdout == ""


def test_stdin_input(tmp_path):
    result = run_opt("--tinyml-simplify", stdin=RELU)
    assert result.returncode == 0, result.stderr
    assert "tinyml.relu %arg0" in result.stdout
    assert "tinyml.neg" not in result.stdout


def test_ir_printing_after_each_pass_goes_to_stderr(tmp_path):
    write(tmp_path, "in.mlir", RELU)
    result = run_opt("in.mlir", "--tinyml-simplify", "--cse", "--mlir-print-ir-after-all",
                     cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    dumps = [line for line in stderr_lines(result) if "IR Dump After" in line]
    assert len(dumps) == 2, result.stderr
    assert "tinyml.relu %arg0" in result.stdout


# ---------------------------------------------------------------------------
# The guard itself
# ---------------------------------------------------------------------------

def run_guarded_script(body: str):
    script = "import os, signal, sys\nfrom tinyml.cli.crash_guard import phase, run_guarded\n" \
             + textwrap.dedent(body) + "\nsys.exit(run_guarded('tinyml-test', main, sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "TINYML_DEBUG": ""})


def test_guard_passes_status_and_stderr_through():
    result = run_guarded_script("""
        def main(argv):
            print("out")
            print("diagnostic", file=sys.stderr)
            return 3
    """)
    assert (result.returncode, result.stdout, result.stderr) == (3, "out\n", "diagnostic\n")


def test_guard_reports_a_segfault_with_the_phase():
    result = run_guarded_script("""
        def main(argv):
            print("partial noise", file=sys.stderr)
            phase("the printer crashed on 'x.mlir'")
            os.kill(os.getpid(), signal.SIGSEGV)
    """)
    assert result.returncode == 2
    assert result.stderr == ("tinyml-test: internal error: the printer crashed on 'x.mlir' "
                             "(SIGSEGV); this is a crash in native code (upstream MLIR), not a "
                             "problem tinyml can report precisely\n")


def test_guard_lets_an_interrupt_end_the_tool():
    result = run_guarded_script("""
        def main(argv):
            raise KeyboardInterrupt
    """)
    assert result.returncode == -2  # ended by SIGINT, as an interrupted tool should
    assert result.stderr == ""


def test_a_failed_chunk_is_one_line_with_notes_and_a_count_of_further_errors():
    from tinyml.cli.opt import summary_lines
    from tinyml.cli.verify_diagnostics import Reported
    reported = [Reported("warning", 1, "odd but fine", "in.mlir:1:1"),
                Reported("error", 3, "redefinition of SSA value '%0'", "in.mlir:3:3"),
                Reported("note", 2, "previously defined\nhere", "in.mlir:2:3"),
                Reported("error", 5, "second", "in.mlir:5:1"),
                Reported("note", 4, "about the second", "in.mlir:4:1"),
                Reported("error", 6, "third", "in.mlir:6:1")]
    assert summary_lines(reported) == [
        "in.mlir:1:1: warning: odd but fine",
        "in.mlir:3:3: error: redefinition of SSA value '%0' "
        "(note: in.mlir:2:3: previously defined here) (2 more errors)"]
