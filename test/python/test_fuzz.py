"""The seeded fuzzer of the command-line tools (test/fuzz/fuzz.py,
tools/fuzz.py) and tinyml under it.

- A fixed seed's few hundred cases across five kinds (byte-damaged ONNX
  and .tflite models and structurally damaged ONNX models into
  tinyml-compile, damaged .mlir into tinyml-opt, damaged compiled folders
  into tinyml-run) must all pass: no signal, exit code 0 or 1, exactly one
  stderr line with 1, no internal error or traceback, nothing of the
  working directory lost, in time.
- A short run of structurally damaged .tflite models (tflite-struct) must
  pass the same way, and where tinyml compiles a model TFLM also runs, the
  outputs must agree (int8 bit-exact, float within 1e-5 of the scale). The
  writer the family damages models through writes the seeds back as they
  were.
- The fuzzer's own verdicts can fail: stand-in tools that crash, hang, print
  two lines, exit 3, raise, or delete the sentinel, the FIFO or the input are
  classified as such, and a failing case is saved with its command.
- Cases are a function of (seed, kind, index) alone.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import tflite_struct
from fuzz import (KINDS, FIFO, SENTINEL, Case, Fuzzer, Result, _difference, failure_report,
                  summary_table, tflite_seed_files)

ROOT = Path(__file__).resolve().parents[2]
SEED = 20240611
CASES = 300
# The mixed run's kinds, as they were before tflite-struct (which has its own
# short run below): the same seed gives the same cases.
MIXED_KINDS = ("onnx-bytes", "tflite-bytes", "onnx-struct", "mlir", "compiled")
# tflite-struct cases cost a compile each and, when it succeeds, a TFLM and a
# JIT run (about 1 s each at 2 jobs).
TFLITE_STRUCT_CASES = 24
# Byte-damaged models and damaged MLIR mostly stop early; compiled folders cost a compile
# per run and a JIT or emulator run per case.
WEIGHTS = {"onnx-bytes": 4, "tflite-bytes": 3, "onnx-struct": 4, "mlir": 4, "compiled": 2}


def test_fuzz_cases_pass():
    start = time.monotonic()
    results = Fuzzer(SEED, MIXED_KINDS, weights=WEIGHTS, jobs=2, timeout=30).run(range(CASES))
    assert {r.case.kind for r in results} == set(MIXED_KINDS)
    failing = [r for r in results if r.outcome != "pass"]
    if failing:
        pytest.fail(f"{len(failing)} of {len(results)} fuzz cases failed "
                    f"({time.monotonic() - start:.0f}s):\n{summary_table(results)}\n"
                    f"{failure_report(results)}", pytrace=False)


def test_tflite_struct_cases_pass():
    assert "tflite-struct" in KINDS
    start = time.monotonic()
    results = Fuzzer(SEED, ["tflite-struct"], jobs=2, timeout=30).run(range(TFLITE_STRUCT_CASES))
    assert any(r.compared for r in results)  # some reach the comparison with TFLM
    failing = [r for r in results if r.outcome != "pass"]
    if failing:
        pytest.fail(f"{len(failing)} of {len(results)} tflite-struct cases failed "
                    f"({time.monotonic() - start:.0f}s):\n"
                    f"{summary_table(results, ['tflite-struct'])}\n{failure_report(results)}",
                    pytrace=False)


def test_tflite_writer_writes_the_seeds_back():
    """read -> write of every committed .tflite keeps what tinyml and TFLM
    read (and writing again gives the same bytes); one small model computes
    the same on TFLM from both files."""
    from tflite_micro.python.tflite_micro import runtime

    from tinyml.frontend.tflite.reader import read_model
    seeds = tflite_seed_files()
    assert len(seeds) >= 40
    for name, data in seeds.items():
        written = tflite_struct.write_model(tflite_struct.read_model(data))
        assert tflite_struct.write_model(tflite_struct.read_model(written)) == written, name
        ours, theirs = read_model(written, name)[0], read_model(data, name)[0]
        assert [(t.name, t.shape, t.signature, t.type_name, t.quantization is None)
                for t in ours.tensors] == [(t.name, t.shape, t.signature, t.type_name,
                                            t.quantization is None) for t in theirs.tensors], name
        assert all(a.data is None and b.data is None or (a.data == b.data).all()
                   for a, b in zip(ours.tensors, theirs.tensors)), name
        assert [(o.kind, o.inputs, o.outputs, o.options) for o in ours.operators] == \
            [(o.kind, o.inputs, o.outputs, o.options) for o in theirs.operators], name
        assert (ours.inputs, ours.outputs) == (theirs.inputs, theirs.outputs), name
    data = seeds["int8/op_conv_relu.tflite"]
    outputs = []
    for model in (data, tflite_struct.write_model(tflite_struct.read_model(data))):
        interpreter = runtime.Interpreter.from_bytes(model)
        shape = interpreter.get_input_details(0)["shape"]
        interpreter.set_input(np.random.default_rng(0).integers(-128, 128, shape)
                              .astype(np.int8), 0)
        interpreter.invoke()
        outputs.append(interpreter.get_output(0))
    np.testing.assert_array_equal(*outputs)


def test_numeric_verdicts():
    int8 = np.array([1, 2, 3], np.int8)
    assert _difference(0, int8, int8) is None
    assert "1 of 3" in _difference(0, np.array([1, 2, 4], np.int8), int8)
    assert "dtype" in _difference(0, int8.astype(np.float32), int8)
    assert "shape" in _difference(0, int8[:2], int8)
    want = np.array([100.0, np.nan, -np.inf], np.float32)
    assert _difference(0, want + np.float32(5e-4), want) is None  # within 1e-5 * 100
    assert "1 of 3" in _difference(0, np.array([100.01, np.nan, -np.inf], np.float32), want)
    assert "1 of 3" in _difference(0, np.array([100.0, 0.0, -np.inf], np.float32), want)
    case = Case("tflite-struct", 3, "compile", ["m.tflite"], {}, ["seed model int8/op_conv",
                "options: operator 0 (CONV_2D) Conv2DOptions.Padding = 2"])
    result = Result(case, 1, 0, None, False, 1.0, "", "", [], compared=True,
                    numeric="output 0 (int8): 5 of 8 elements differ (max |diff| 3)")
    assert result.outcome == "numeric"
    assert result.signature() == ("numeric: output N (int8) after options: operator N "
                                  "(CONV_2D) Conv2DOptions.Padding")
    assert "numeric: output 0 (int8): 5 of 8" in result.reproducer()


# ---------------------------------------------------------------------------
# The fuzzer's verdicts, on stand-in tools
# ---------------------------------------------------------------------------

def _crash(argv):
    os.kill(os.getpid(), signal.SIGSEGV)


def _hang(argv):
    time.sleep(60)


def _two_lines(argv):
    print("tinyml-compile: error: one\nand another", file=sys.stderr)
    return 1


def _silent_failure(argv):
    return 1


def _exit_3(argv):
    print("tinyml-compile: error: odd", file=sys.stderr)
    return 3


def _internal_error(argv):
    print("tinyml-compile: internal error: KeyError: 'x' (set TINYML_DEBUG=1 for the "
          "traceback)", file=sys.stderr)
    return 2


def _uncaught(argv):
    raise ValueError("escaped")


def _delete_sentinel(argv):
    os.remove(SENTINEL)
    return 0


def _replace_fifo(argv):
    os.remove(FIFO)
    Path(FIFO).write_text("")
    return 0


def _delete_input(argv):
    os.remove(argv[0])
    return 0


def _user_error(argv):
    print("tinyml-compile: error: m.onnx: bad", file=sys.stderr)
    print('{"printed": "to stdout"}')
    return 1


@pytest.mark.parametrize("tool, outcome", [
    (_crash, "signal"), (_hang, "timeout"), (_two_lines, "multi-line error"),
    (_silent_failure, "multi-line error"), (_exit_3, "rc>1"),
    (_internal_error, "internal error"), (_uncaught, "internal error"),
    (_delete_sentinel, "lost file"), (_replace_fifo, "lost file"), (_delete_input, "lost file"),
    (_user_error, "pass"),
])
def test_verdicts_on_stand_in_tools(tool, outcome):
    fuzzer = Fuzzer(3, ["onnx-bytes"], timeout=1.5)
    fuzzer._mains = {"compile": tool}
    [result] = fuzzer.run([0])
    assert result.outcome == outcome, result.reproducer()
    if tool is _user_error:  # the child's fds 1/2 are its own files, not pytest's capture
        assert result.stdout == '{"printed": "to stdout"}\n'
        assert result.stderr == "tinyml-compile: error: m.onnx: bad\n"
    if tool is _hang:
        assert result.seconds < 10


def test_failing_case_is_saved_with_its_command(tmp_path):
    fuzzer = Fuzzer(3, ["onnx-struct"], save_failures=str(tmp_path / "failures"))
    fuzzer._mains = {"compile": _two_lines}
    [result] = fuzzer.run([4])
    saved = Path(result.saved)
    assert saved == tmp_path / "failures" / "onnx-struct-s3-c4"
    assert (saved / "m.onnx").read_bytes() == result.case.files["m.onnx"]
    assert result.case.command() in (saved / "cmd.sh").read_text()
    assert (saved / "stderr.txt").read_text() == "tinyml-compile: error: one\nand another\n"
    assert "rerun: tools/fuzz.py --seed 3 --kinds onnx-struct --case 4" in result.reproducer()


@pytest.mark.parametrize("kind", ["onnx-bytes", "onnx-struct", "tflite-struct", "mlir"])
def test_cases_are_deterministic(kind):
    first, second = Fuzzer(11, [kind]), Fuzzer(11, [kind])
    for index in range(20):
        a, b = first.case(index), second.case(index)
        assert (a.argv, a.files, a.mutations) == (b.argv, b.files, b.mutations)
    assert len({tuple(first.case(i).files.values()) for i in range(20)}) > 15


def test_kind_of_a_case_does_not_depend_on_the_other_kinds():
    """A reproducer names one kind: the case must be the same as in the mixed run."""
    mixed = Fuzzer(5)
    for index in range(30):
        kind = mixed.kind_of(index)
        if kind != "compiled":  # compiling the seed folders is left to the main test
            case, alone = mixed.case(index), Fuzzer(5, [kind]).case(index)
            assert (alone.argv, alone.files) == (case.argv, case.files)


def test_command_line_table_and_exit_code():
    run = subprocess.run([sys.executable, str(ROOT / "tools" / "fuzz.py"), "--cases", "4",
                          "--seed", "2", "--kinds", "onnx-bytes"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode in (0, 1), run.stderr
    lines = run.stdout.splitlines()
    assert lines[1].split()[:3] == ["kind", "cases", "pass"]
    assert lines[2].split()[:2] == ["onnx-bytes", "4"]
    assert (run.returncode == 0) == ("all cases passed" in run.stdout)
