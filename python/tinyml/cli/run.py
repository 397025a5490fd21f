"""tinyml-run: run a model compiled by tinyml-compile.

    tinyml-run OUTDIR --input IN.npy [--input ...] [--output OUT.npy ...] [--profile]
               [--emulator unicorn|qemu]

Inputs are .npy files in the model's own layout and dtype, one per model
input in order; outputs are written as .npy, one path per model output. A
streaming model's state inputs come last; `--state-output`, one per state,
writes each state as the call left it (the next call's input).
The LAST line of stdout is a JSON object:

    {"target": "host", "model": ..., "outputs": [{"name", "shape", "dtype",
     "path"}], "seconds": <run time>, "jit_seconds": <JIT time>}

A Cortex-M model runs in the unicorn harness by default (the JSON line adds
"emulator": "unicorn", "instructions", "stack_bytes", "arena_bytes"). With
`--emulator qemu` it runs as a firmware does: linked by arm-none-eabi-gcc
into the example firmware and run on QEMU's MPS2 board of its CPU
(`tinyml.targets.qemu`), and the line has "emulator": "qemu", "board",
"instructions" (counted by a QEMU plugin as the harness counts them: the
model's call, equal to unicorn's count where both run), "arena_bytes" and
"firmware_bytes" (the firmware image's text, data and bss); no stack.

With --profile the per-layer profile (see `tinyml.targets.profile`) is printed
first as a table sorted by instructions, and written beside the report as
OUTDIR/profile.json and OUTDIR/profile.svg (listed in OUTDIR's marker, so a
later compile still replaces the folder); the JSON line gets
`"profile": {"json": ..., "svg": ..., "attributed": ..., "top": [...]}`.
When OUTDIR cannot take them (not writable, or a file of the user's is
there) nothing is written, one `tinyml-run: warning:` line on stderr says
why, "json" and "svg" are null, and the run still succeeds.

Errors print one line `tinyml-run: error: ...` and exit 1: bad inputs, an
unwritable output, and a compiled folder that is damaged or edited (checked
in full before anything runs, see `tinyml.CompiledModel.load`). A defect in
tinyml itself prints `tinyml-run: internal error: ...` and exits 2.
"""
from __future__ import annotations

import argparse
import io
import json
import os
import sys
import time
import tokenize
from typing import Sequence

import numpy as np

from ..safe_io import OutputError, add_to_output_dir, write_file
from ..targets import EMULATORS
from .crash_guard import internal_error, phase, print_summary, reader_gone, run_guarded


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 1
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        sys.exit(1)


class UsageError(Exception):
    pass


def make_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="tinyml-run", description="Run a model compiled by tinyml-compile.")
    parser.add_argument("outdir", help="the directory tinyml-compile wrote")
    parser.add_argument("--input", action="append", default=[], metavar="IN.npy",
                        help="an input .npy file (one per model input, in order)")
    parser.add_argument("--output", action="append", default=[], metavar="OUT.npy",
                        help="where to write an output (one per model output, in order)")
    parser.add_argument("--state-output", action="append", default=[], metavar="OUT.npy",
                        help="where to write a streaming model's state after the call (one "
                             "per state input, in order: the next call's --input)")
    parser.add_argument("--poison-arena", action="store_true",
                        help="fill the arena with NaN bytes before the inference")
    parser.add_argument("--cycles", action="store_true",
                        help="estimate cycles with llvm-mca (Cortex-M4/M7)")
    parser.add_argument("--emulator", choices=EMULATORS, default="unicorn",
                        help="where a Cortex-M model runs: unicorn (counts instructions "
                             "and stack) or qemu (the example firmware, built with "
                             "arm-none-eabi-gcc, on QEMU's board; outputs and instructions)")
    parser.add_argument("--profile", action="store_true",
                        help="print the per-layer profile and write profile.json and "
                             "profile.svg into OUTDIR")
    return parser


def load_input(path: str) -> np.ndarray:
    """The array in an .npy file, memory-mapped: a header claiming a huge
    shape costs nothing until the shape has been checked against the model."""
    try:
        if os.stat(path).st_size == 0:
            raise UsageError(f"cannot read input '{path}': the file is empty")
        with np.errstate(over="ignore"):  # a huge shape overflows numpy's size product
            array = np.load(path, mmap_mode="r", allow_pickle=False)
    except FileNotFoundError:
        raise UsageError(f"cannot read input '{path}': no such file") from None
    except OSError as error:
        raise UsageError(f"cannot read input '{path}': {error.strerror or error}") from None
    # How numpy reports a file that is not an .npy array: a bad magic, header
    # or dtype (ValueError, or TokenError/SyntaxError from parsing the header
    # dict), object data (refused without pickle), data cut short (EOFError).
    except (ValueError, EOFError, SyntaxError, tokenize.TokenError) as error:
        reason = str(error).strip().splitlines()
        raise UsageError(f"cannot read input '{path}': not a plain .npy array"
                         + (f" ({reason[0]})" if reason else "")) from None
    if not isinstance(array, np.ndarray):  # np.load opened an .npz archive
        array.close()
        raise UsageError(f"cannot read input '{path}': an .npz archive, not a .npy array")
    return array


def run(args) -> dict:
    from ..compiled_model import CompiledModel
    from ..errors import RunError
    from ..targets.toolchain import ToolchainError
    try:
        from ..targets.emulator import EmulatorError
        emulator_error: type[Exception] = EmulatorError
    except ImportError:  # reported by the run itself, as a RunError
        emulator_error = RunError
    try:
        model = CompiledModel.load(args.outdir)
    except RunError as error:
        raise UsageError(str(error)) from None
    if len(args.input) != len(model.inputs):
        names = ", ".join(i.name for i in model.inputs)
        raise UsageError(f"'{model.name}' takes {len(model.inputs)} input(s) ({names}), "
                         f"got {len(args.input)} --input")
    if args.output and len(args.output) != len(model.outputs):
        names = ", ".join(o.name for o in model.outputs)
        raise UsageError(f"'{model.name}' has {len(model.outputs)} output(s) ({names}), "
                         f"got {len(args.output)} --output")
    states = [info for info in model.inputs if info.state]
    if args.state_output and len(args.state_output) != len(states):
        raise UsageError(f"'{model.name}' has {len(states)} state input(s), got "
                         f"{len(args.state_output)} --state-output")
    arrays = [load_input(path) for path in args.input]
    for path, info, array in zip(args.input, model.inputs, arrays):
        if array.dtype != np.dtype(info.dtype):
            raise UsageError(f"input '{path}' for '{info.name}' has dtype {array.dtype}, "
                             f"the model expects {info.dtype}")
        if list(array.shape) != list(info.shape):
            raise UsageError(f"input '{path}' for '{info.name}' has shape {list(array.shape)}, "
                             f"the model expects {list(info.shape)}"
                             + (f" ({info.layout})" if info.layout else ""))
    arrays = [np.array(array) for array in arrays]  # in memory, off the read-only mappings
    start = time.perf_counter()
    try:
        model.warm_up()
    except RunError as error:
        raise UsageError(str(error)) from None
    jit_seconds = time.perf_counter() - start
    start = time.perf_counter()
    try:
        result = model.run(*arrays, arena_fill=_poison(args.poison_arena),
                           estimate_cycles=args.cycles, profile=args.profile,
                           emulator=args.emulator)
    except (emulator_error, ToolchainError, RunError) as error:
        raise UsageError(str(error)) from None
    seconds = time.perf_counter() - start
    outputs = result.outputs
    results = []
    for i, (info, value) in enumerate(zip(model.outputs, outputs)):
        path = args.output[i] if args.output else None
        if path is not None:
            try:
                write_file(path, npy_bytes(value))
            except OutputError as error:
                raise UsageError(f"output {i}: {error}") from None
        results.append({"name": info.name, "shape": list(value.shape),
                        "dtype": str(value.dtype), "path": path})
    for i, (path, value) in enumerate(zip(args.state_output, result.states or [])):
        try:
            write_file(path, npy_bytes(value))
        except OutputError as error:
            raise UsageError(f"state output {i}: {error}") from None
    summary = {"target": model.target, "model": model.name, "outputs": results,
               "seconds": round(seconds, 6)}
    if model.target == "host":
        summary["jit_seconds"] = round(jit_seconds, 4)
    elif result.board is not None:
        summary.update(emulator="qemu", board=result.board, instructions=result.instructions,
                       arena_bytes=model.arena_bytes, firmware_bytes=result.firmware_bytes)
    else:
        summary.update(emulator="unicorn", instructions=result.instructions, stack_bytes=result.stack_bytes,
                       arena_bytes=model.arena_bytes)
        if result.cycles_estimate is not None:
            summary["cycles_estimate"] = result.cycles_estimate
    if result.profile is not None:
        summary["profile"] = save_profile(args.outdir, result.profile)
    return summary


def save_profile(outdir: str, profile: dict) -> dict:
    """Prints the profile's table, writes profile.json and profile.svg into
    `outdir` (a warning line instead when it cannot) and returns the JSON
    line's summary of it."""
    from ..targets.profile import PROFILE_JSON, PROFILE_SVG, svg, table, top
    print(table(profile), end="")
    paths: dict[str, str | None] = {"json": None, "svg": None}
    try:
        add_to_output_dir(outdir, {PROFILE_JSON: json.dumps(profile, indent=2) + "\n",
                                   PROFILE_SVG: svg(profile)})
        paths = {"json": os.path.join(outdir, PROFILE_JSON),
                 "svg": os.path.join(outdir, PROFILE_SVG)}
    except OutputError as error:
        print(f"tinyml-run: warning: the profile is not saved: {error}", file=sys.stderr)
    return {**paths, "attributed": profile.get("attributed"),
            "top": [row["name"] for row in top(profile)]}


def npy_bytes(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


def _poison(enabled: bool) -> bytes | None:
    # 0xFF bytes are float32 NaNs: a read of arena memory the model did not
    # write first spreads NaN into the outputs.
    return b"\xff" if enabled else None


def main(argv: list[str] | None = None) -> int:
    """The console entry point: the tool runs in a child process, so that a
    crash in upstream MLIR becomes one line and exit code 2."""
    return run_guarded("tinyml-run", run_command, sys.argv[1:] if argv is None else argv)


def run_command(argv: Sequence[str]) -> int:
    args = make_parser().parse_args(argv)
    phase(f"running '{args.outdir}' crashed")
    try:
        summary = run(args)
    except UsageError as error:
        print(f"tinyml-run: error: {error}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return reader_gone()
    except Exception as error:  # a defect in tinyml itself, not bad input
        return internal_error("tinyml-run", error)
    return print_summary(summary)


if __name__ == "__main__":
    sys.exit(main())
