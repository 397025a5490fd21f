"""The seeded fuzzer of the command-line tools (test/fuzz/fuzz.py,
tools/fuzz.py) and tinyml under it.

- A fixed seed's few hundred cases across the four kinds (byte-damaged and
  structurally damaged ONNX models into tinyml-compile, damaged .mlir into
  tinyml-opt, damaged compiled folders into tinyml-run) must all pass: no
  signal, exit code 0 or 1, exactly one stderr line with 1, no internal
  error or traceback, nothing of the working directory lost, in time.
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

import pytest

from fuzz import (KINDS, FIFO, SENTINEL, Fuzzer, failure_report,
                                 summary_table)

ROOT = Path(__file__).resolve().parents[2]
SEED = 20240611
CASES = 300
# Byte-damaged models and damaged MLIR mostly stop early; compiled folders cost a compile
# per run and a JIT or emulator run per case.
WEIGHTS = {"onnx-bytes": 4, "tflite-bytes": 3, "onnx-struct": 4, "mlir": 4, "compiled": 2}


def test_fuzz_cases_pass():
    start = time.monotonic()
    results = Fuzzer(SEED, weights=WEIGHTS, jobs=2, timeout=30).run(range(CASES))
    assert {r.case.kind for r in results} == set(KINDS)
    failing = [r for r in results if r.outcome != "pass"]
    if failing:
        pytest.fail(f"{len(failing)} of {len(results)} fuzz cases failed "
                    f"({time.monotonic() - start:.0f}s):\n{summary_table(results)}\n"
                    f"{failure_report(results)}", pytrace=False)


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


@pytest.mark.parametrize("kind", ["onnx-bytes", "onnx-struct", "mlir"])
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
