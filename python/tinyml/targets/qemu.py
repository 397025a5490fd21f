"""Runs a compiled model the way a firmware does: linked by GNU's
arm-none-eabi-gcc into the example firmware (`examples/firmware`, shipped in
the package as `tinyml/firmware`), on QEMU's MPS2 board of its CPU.

The firmware reads `input<k>.bin` and writes `output<k>.bin` through
semihosting, in a folder of its own; the build is the firmware's Makefile
(`make`, then `make run`), so what runs here is what a user's
`make MODEL_DIR=out/ run` runs. A TCG plugin of our own
(`count_instructions.c`, built with the host's C compiler) counts the
instructions of the model's call as the unicorn harness does: on the cores
both run, the two counts are equal; on the M55, which unicorn cannot run,
it is the only count.
"""
from __future__ import annotations

import importlib.resources
import os
import re
import signal
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from . import TARGETS
from .cortexm import object_sizes
from .loader import Image
from .toolchain import ToolchainError, find_tool

#: The QEMU board of each CPU the firmware is built for (its Makefile agrees):
#: the targets' `qemu_board`.
BOARDS = {name: target.qemu_board for name, target in TARGETS.items() if target.qemu_board}
#: The firmware repeats at most this many bytes of an arena fill.
MAX_ARENA_FILL = 16
#: A build or a run that takes longer than this is stopped and reported.
TIMEOUT_SECONDS = 600
#: What the firmware prints starts with this.
CONSOLE_PREFIX = "firmware: "
#: The instruction counter's source (a QEMU TCG plugin).
COUNTER_SOURCE = Path(__file__).with_name("count_instructions.c")


class QemuError(RuntimeError):
    """The firmware could not be built or did not run to its end."""


@dataclass
class FirmwareRun:
    outputs: list[np.ndarray]
    board: str
    #: The firmware image's sections (`cortexm.object_sizes`): flash is
    #: text + data, static RAM data + bss (the arena is in bss).
    firmware_bytes: dict[str, int]
    #: A streaming model's state inputs as the call left them.
    states: list[np.ndarray]
    #: Instructions the model's call executed (`count_instructions.c`).
    instructions: int


def firmware_template() -> Path:
    """The example firmware's folder, as installed with the package."""
    return Path(str(importlib.resources.files("tinyml").joinpath("firmware")))


def board_of(cpu: str) -> str:
    try:
        return BOARDS[cpu]
    except KeyError:
        *others, last = BOARDS
        cpus = f"{', '.join(others)} and {last}" if others else last
        raise QemuError(f"QEMU runs {cpus} models (boards "
                        f"{', '.join(BOARDS.values())}); this one is compiled for {cpu}") from None


def run_firmware(name: str, cpu: str, obj: bytes, header: str, inputs: Sequence[np.ndarray],
                 outputs: Sequence[tuple[tuple[int, ...], str]],
                 arena_fill: bytes | None = None, states: Sequence[int] = (),
                 float_abi: str = "hard") -> FirmwareRun:
    """Builds the firmware around the object `obj` and header `header` of
    model `name` (compiled for `cpu` and `float_abi`, which the firmware is
    built with), runs it with `inputs` and returns the
    outputs, one per (shape, dtype) of `outputs`, and the inputs of `states`
    (a streaming model's) as the call left them."""
    board = board_of(cpu)
    if arena_fill is not None and not 0 < len(arena_fill) <= MAX_ARENA_FILL:
        raise QemuError(f"the firmware fills the arena with 1 to {MAX_ARENA_FILL} repeated "
                        f"bytes, not {len(arena_fill)}")
    try:
        tools = {tool: find_tool(tool)
                 for tool in ("make", "arm-none-eabi-gcc", "qemu-system-arm", "cc")}
    except ToolchainError as error:
        raise QemuError(str(error)) from None
    with tempfile.TemporaryDirectory(prefix="tinyml-qemu-") as tmp:
        model_dir, build_dir, run_dir = (Path(tmp) / part for part in ("model", "build", "run"))
        model_dir.mkdir()
        run_dir.mkdir()
        (model_dir / f"{name}.o").write_bytes(obj)
        (model_dir / f"{name}.h").write_text(header, encoding="utf-8")
        for k, array in enumerate(inputs):
            (run_dir / f"input{k}.bin").write_bytes(np.ascontiguousarray(array).tobytes())
        if arena_fill is not None:
            (run_dir / "arena_fill.bin").write_bytes(arena_fill)
        make = [tools["make"], "-s", "--no-print-directory", "-C", str(firmware_template()),
                f"MODEL_DIR={model_dir}", f"BUILD_DIR={build_dir}", f"RUN_DIR={run_dir}",
                f"CPU={cpu}", f"FLOAT_ABI={float_abi}", f"CC={tools['arm-none-eabi-gcc']}",
                f"QEMU={tools['qemu-system-arm']}"]
        built = _run(make, "building the firmware")
        if built.returncode != 0:
            raise QemuError(f"building the firmware failed: {_first_lines(built.stderr)}")
        firmware_bytes = object_sizes(build_dir / "firmware.elf")
        counter, count_file = Path(tmp) / "count_instructions.so", Path(tmp) / "instructions"
        _build_counter(tools["cc"], counter)
        (entry, _), (caller, caller_end) = _function_ranges(build_dir / "firmware.elf",
                                                             (name, "main"))
        # QEMU's option syntax doubles a comma inside a value.
        plugin = (f"-plugin {str(counter).replace(',', ',,')},entry={entry:#x},"
                  f"caller={caller:#x},caller_end={caller_end:#x},"
                  f"out={str(count_file).replace(',', ',,')}")
        ran = _run([*make, f"QEMU_FLAGS={plugin}", "run"], f"running the firmware on {board}")
        # QEMU writes the semihosting console to stdout on a terminal, to
        # stderr otherwise.
        console = ran.stdout + ran.stderr
        if ran.returncode != 0:
            said = [line for line in console.splitlines() if line.startswith(CONSOLE_PREFIX)]
            raise QemuError(f"the firmware failed on {board}: "
                            + (said[-1] if said else _first_lines(ran.stderr)))
        if arena_fill is not None and f"{CONSOLE_PREFIX}arena filled" not in console:
            raise QemuError(f"the firmware ran on {board} without filling the arena first")
        results = [_written(run_dir / f"output{k}.bin", shape, dtype, f"output {k}", board)
                   for k, (shape, dtype) in enumerate(outputs)]
        after = [_written(run_dir / f"state{k}.bin", inputs[k].shape, inputs[k].dtype,
                          f"state {k}", board) for k in states]
        if not count_file.is_file():
            raise QemuError(f"the instruction counter saw no return from {name} on {board}")
        instructions = int(count_file.read_text())
    return FirmwareRun(results, board, firmware_bytes, after, instructions)


def _build_counter(cc: str, library: Path) -> None:
    """Compiles the instruction-counting plugin into `library`."""
    built = _run([cc, "-O2", "-shared", "-fPIC", "-fvisibility=hidden", "-o", str(library),
                  str(COUNTER_SOURCE)], "building the instruction counter")
    if built.returncode != 0:
        raise QemuError(f"building QEMU's instruction counter ({COUNTER_SOURCE.name}) with {cc} "
                        f"failed: {_first_lines(built.stderr)}")


def _function_ranges(elf_path: Path, names: Sequence[str]) -> list[tuple[int, int]]:
    """[start, end) of each function of `names` in the firmware image."""
    found = {name: (start, end) for start, end, name in Image.load(elf_path).functions}
    missing = [name for name in names if name not in found]
    if missing:
        raise QemuError(f"the firmware image has no function {missing[0]}")
    return [found[name] for name in names]


def _written(path: Path, shape, dtype, what: str, board: str) -> np.ndarray:
    """A tensor the firmware wrote to `path`."""
    data = path.read_bytes() if path.is_file() else b""
    expected = int(np.prod(shape)) * np.dtype(dtype).itemsize
    if len(data) != expected:
        raise QemuError(f"the firmware wrote {len(data)} bytes of {what} on {board}, "
                        f"not {expected}")
    return np.frombuffer(data, dtype=dtype).reshape(shape).copy()


def _run(command: list[str], doing: str) -> subprocess.CompletedProcess:
    """Runs `command` in a session of its own, so that a timeout stops QEMU
    too, not only the make that started it."""
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        stdout, stderr = process.communicate(timeout=TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise QemuError(f"{doing} took more than {TIMEOUT_SECONDS} s; stopped") from None
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


def _first_lines(text: str) -> str:
    """The first lines of a tool's errors, without the linker's own path in
    front of each."""
    lines = [_LINKER_PATH.sub("", line) for line in text.strip().splitlines()[:3]]
    return " | ".join(lines) or "no output"


_LINKER_PATH = re.compile(r"^/\S*/ld: ")
