"""Runs a compiled model object on an emulated Cortex-M and measures it.

The compiler's contract: `model.o` is a self-contained relocatable Thumb ELF
object defining `void fn(float *in0, ..., float *out0, ..., uint8_t *arena)`
(AAPCS: four arguments in r0-r3, the rest on the stack). The harness links it
with ld.lld at fixed addresses, loads it into unicorn, calls the function
directly (SP, LR = a trap address, PC = entry) and stops when it returns to the
trap, so everything executed in between is model code.

Three modules: `loader.py` holds the memory map, the object's checks and
its link (no unicorn needed), `measure.py` what is measured from the block
hook (instructions, the attribution to kernels, the cycle estimate), and
this one the run: the engine, the call's buffers in SRAM, the call itself.

The cores the emulator runs are the `TARGETS` with a `unicorn_cpu`. Unicorn
2.1 ignores the CPU model when `UC_MODE_MCLASS` is given (it always
builds a Cortex-M33, FPU and all); the harness therefore opens the engine in
plain `UC_MODE_THUMB` and selects the M-profile model with
`ctl_set_cpu_model`, which gives a real M0 (no Thumb-2, no FPU), M3 (no
FPU) and M4/M7 (FPU enabled out of reset, no CPACR set-up needed).

Measurements: instructions are counted per basic block, stack use by
painting, and an optional cycle estimate prices each executed block with
llvm-mca. A profile (`profile=True`) attributes every executed instruction
to its kernel (`Attribution`); see `measure.py`.
"""
from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np
import unicorn
from unicorn import arm_const

from . import TARGETS, Target
# The emulator's API is also what `loader` and `measure` define for a run.
from .loader import (DEFAULT_STACK_SIZE, FLASH_BASE, PAGE, SRAM_BASE, SRAM_LIMIT,  # noqa: F401
                     TRAP_ADDRESS, EmulatorError, Image, ObjectError, align, check_object,
                     link_object)
from .measure import (Attribution, BlockCounter, CallTracingCounter,  # noqa: F401
                      attribute_instructions, count_thumb_instructions, price_blocks)

ARENA_ALIGN = 16

# Poison values: a stack painted with a word that real code rarely stores, and
# outputs pre-filled with NaN so an output the model never writes cannot pass
# as a plausible zero.
STACK_PAINT = bytes.fromhex("c55ca33a")
OUTPUT_POISON = b"\xff"

#: The cores the emulator runs, by name.
EMULATED = {name: TARGETS[name] for name in sorted(TARGETS) if TARGETS[name].unicorn_cpu}


@dataclass
class EmulatorRun:
    """What one run in the emulator produced and measured."""

    outputs: list[np.ndarray]
    instructions: int
    stack_bytes: int
    block_counts: dict[int, int] = field(repr=False)
    cycles_estimate: int | None = None
    attribution: Attribution | None = None
    # The inputs asked for with `read_back`, as the call left them.
    inputs_after: list[np.ndarray] = field(default_factory=list)


def lookup_cpu(name: str) -> Target:
    """The target of the core `name`, one the emulator runs."""
    try:
        return EMULATED[name]
    except KeyError:
        if name in TARGETS and TARGETS[name].qemu_board:
            raise ValueError(f"unicorn has no {name} model: run it on QEMU's "
                             f"{TARGETS[name].qemu_board} (emulator 'qemu'), which counts "
                             "its instructions but profiles nothing") from None
        raise ValueError(f"unknown cpu '{name}' (supported: {', '.join(EMULATED)})") from None


def _tiled(pattern: bytes, length: int) -> bytes:
    return (pattern * (length // len(pattern) + 1))[:length]


class _FaultRecorder:
    """UC_HOOK_MEM_INVALID callback: remembers the offending access so the
    error can say what was touched, not just that something was."""

    KINDS = {unicorn.UC_MEM_READ_UNMAPPED: "unmapped read",
             unicorn.UC_MEM_WRITE_UNMAPPED: "unmapped write",
             unicorn.UC_MEM_FETCH_UNMAPPED: "unmapped fetch",
             unicorn.UC_MEM_WRITE_PROT: "write to read-only memory",
             unicorn.UC_MEM_FETCH_PROT: "execution of data"}

    def __init__(self, stack_size: int):
        self.stack_size = stack_size
        self.message: str | None = None

    def __call__(self, uc, access, address, size, _value, _data) -> bool:
        kind = self.KINDS.get(access, f"invalid access (type {access})")
        self.message = f"{kind} of {size} bytes at {address:#010x}"
        if SRAM_BASE - (1 << 20) <= address < SRAM_BASE:
            self.message += f" (stack overflow: the stack is {self.stack_size} bytes)"
        return False


@dataclass
class _Layout:
    """Where the call's buffers live in SRAM."""
    inputs: list[int]
    outputs: list[int]
    arena: int
    arena_size: int
    end: int

    @classmethod
    def plan(cls, start: int, input_sizes: Sequence[int], output_sizes: Sequence[int],
             arena_bytes: int) -> "_Layout":
        cursor = align(start, ARENA_ALIGN)
        addresses = []
        for size in (*input_sizes, *output_sizes):
            addresses.append(cursor)
            cursor = align(cursor + size, ARENA_ALIGN)
        # Even a zero-byte arena gets a valid (16-byte) buffer, ending exactly at
        # the end of the mapping so overruns fault.
        arena_size = align(max(arena_bytes, 1), ARENA_ALIGN)
        end = align(cursor + arena_size, PAGE)
        return cls(addresses[:len(input_sizes)], addresses[len(input_sizes):],
                   end - arena_size, arena_size, end)


class _Machine:
    """One unicorn engine with the linked image loaded."""

    def __init__(self, target: Target, image: Image):
        self.image = image
        self.uc = unicorn.Uc(unicorn.UC_ARCH_ARM, unicorn.UC_MODE_THUMB)
        # lookup_cpu gives only the EMULATED targets, which have a unicorn_cpu.
        assert target.unicorn_cpu is not None
        model = getattr(arm_const, target.unicorn_cpu)
        self.uc.ctl_set_cpu_model(model)
        if self.uc.ctl_get_cpu_model() != model:
            raise EmulatorError(f"unicorn {unicorn.__version__} did not select cpu "
                                f"model {model}")

    def map(self, sram_end: int) -> None:
        flash_end = max((addr + size for addr, _, size in self.image.segments
                         if addr < SRAM_BASE), default=FLASH_BASE)
        self.uc.mem_map(FLASH_BASE, align(max(flash_end, 1), PAGE),
                        unicorn.UC_PROT_READ | unicorn.UC_PROT_EXEC)
        self.uc.mem_map(TRAP_ADDRESS, PAGE, unicorn.UC_PROT_READ | unicorn.UC_PROT_EXEC)
        try:
            self.uc.mem_map(SRAM_BASE, sram_end - SRAM_BASE,
                            unicorn.UC_PROT_READ | unicorn.UC_PROT_WRITE)
        except unicorn.UcError as error:  # the host could not provide the memory
            raise EmulatorError(f"cannot map {sram_end - SRAM_BASE} bytes of SRAM: "
                                f"{error}") from None
        for address, data, _ in self.image.segments:
            self.uc.mem_write(address, data)

    def write(self, address: int, data: bytes) -> None:
        self.uc.mem_write(address, data)

    def read(self, address: int, size: int) -> bytearray:
        return self.uc.mem_read(address, size)

    def call(self, entry: int, args: Sequence[int], sp: int, counter: BlockCounter,
             faults: _FaultRecorder) -> None:
        """Calls entry(*args) per AAPCS with the stack pointer at `sp` and runs
        to the trap; raises EmulatorError on any other outcome."""
        uc = self.uc
        for register, value in zip((arm_const.UC_ARM_REG_R0, arm_const.UC_ARM_REG_R1,
                                    arm_const.UC_ARM_REG_R2, arm_const.UC_ARM_REG_R3), args):
            uc.reg_write(register, value)
        stacked = b"".join(a.to_bytes(4, "little") for a in args[4:])
        uc.mem_write(sp, stacked)
        uc.reg_write(arm_const.UC_ARM_REG_SP, sp)
        uc.reg_write(arm_const.UC_ARM_REG_LR, TRAP_ADDRESS | 1)
        uc.hook_add(unicorn.UC_HOOK_BLOCK, counter)
        uc.hook_add(unicorn.UC_HOOK_MEM_INVALID, faults)
        try:
            uc.emu_start(entry | 1, TRAP_ADDRESS)
        except unicorn.UcError as error:
            cause = faults.message or str(error).split(" (UC_ERR")[0].lower()
            raise EmulatorError(f"{cause} at pc={self._pc()}") from None
        if counter.over_limit:
            raise EmulatorError(f"exceeded max_instructions={counter.limit} at pc={self._pc()}")
        if uc.reg_read(arm_const.UC_ARM_REG_PC) != TRAP_ADDRESS:
            raise EmulatorError(f"emulation stopped without returning, at pc={self._pc()}")

    def _pc(self) -> str:
        return self.image.describe(self.uc.reg_read(arm_const.UC_ARM_REG_PC))


def _painted_depth(machine: _Machine, low: int, high: int) -> int:
    """Bytes of [low, high) overwritten, counted from `high` down to the lowest
    byte that no longer holds the paint."""
    painted = np.frombuffer(_tiled(STACK_PAINT, high - low), np.uint8)
    now = np.frombuffer(machine.read(low, high - low), np.uint8)
    changed = np.flatnonzero(painted != now)
    return int(high - (low + changed[0])) if changed.size else 0


def _as_input_bytes(index: int, array: np.ndarray) -> bytes:
    array = np.ascontiguousarray(array)
    if array.dtype == np.float64:
        raise TypeError(f"input {index} is float64; the model takes float32 or integer arrays")
    return array.tobytes()


def _fill_buffers(machine: _Machine, layout: _Layout, input_bytes: Sequence[bytes],
                  output_sizes: Sequence[int], arena_fill: bytes | None) -> None:
    for address, data in zip(layout.inputs, input_bytes):
        machine.write(address, data)
    for address, size in zip(layout.outputs, output_sizes):
        machine.write(address, OUTPUT_POISON * size)
    if arena_fill:
        machine.write(layout.arena, _tiled(arena_fill, layout.arena_size))


def _entry_sp(stack_top: int, arg_count: int) -> int:
    """AAPCS: SP 8-byte aligned at the call, arguments 5.. at [SP], [SP+4]..."""
    return (stack_top - 4 * max(arg_count - 4, 0)) & ~7


def run_object(obj_path: str | Path, function: str, inputs: Sequence[np.ndarray],
               output_shapes: Sequence[tuple], arena_bytes: int, cpu: str = "cortex-m4",
               arena_fill: bytes | None = None, estimate_cycles: bool = False,
               max_instructions: int = 2_000_000_000, *,
               output_dtypes: Sequence[np.dtype | type] | None = None,
               stack_size: int = DEFAULT_STACK_SIZE, profile: bool = False,
               read_back: Sequence[int] = ()) -> EmulatorRun:
    """Links `obj_path`, calls `function(*inputs, *outputs, arena)` on the
    emulated `cpu` and returns the outputs and the measurements; with
    `profile`, where the instructions (and cycles) went (`Attribution`).

    Inputs are passed as their raw bytes (the model's dtypes by contract);
    outputs are read back as `output_dtypes` (default: float32 each) and
    start out as 0xFF bytes (NaN in float32). `arena_fill` (repeated
    over the arena) lets a test poison the arena to show the model never reads
    arena memory it did not write first. The inputs of `read_back` (a
    streaming model's states, which it writes over) are read back too."""
    target = lookup_cpu(cpu)
    input_bytes = [_as_input_bytes(i, array) for i, array in enumerate(inputs)]
    dtypes = [np.dtype(d) for d in output_dtypes or [np.float32] * len(output_shapes)]
    output_sizes = [int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
                    for shape, dtype in zip(output_shapes, dtypes)]
    with tempfile.TemporaryDirectory(prefix="tinyml-emu-") as tmp:
        elf_path = link_object(obj_path, function, Path(tmp) / "model.elf", stack_size)
        image = Image.load(elf_path)
        layout = _Layout.plan(image.symbols["__tinyml_ram_end"],
                              [len(b) for b in input_bytes], output_sizes, arena_bytes)
        if layout.end - SRAM_BASE > SRAM_LIMIT:
            raise EmulatorError(f"the call needs {layout.end - SRAM_BASE} bytes of SRAM "
                                f"(stack, data, inputs, outputs and a {arena_bytes}-byte "
                                f"arena), more than the {SRAM_LIMIT} the emulator maps")
        machine = _Machine(target, image)
        machine.map(layout.end)
        _fill_buffers(machine, layout, input_bytes, output_sizes, arena_fill)

        args = [*layout.inputs, *layout.outputs, layout.arena]
        sp = _entry_sp(image.symbols["__tinyml_stack_top"], len(args))
        machine.write(SRAM_BASE, _tiled(STACK_PAINT, sp - SRAM_BASE))
        counter: BlockCounter
        tracer: CallTracingCounter | None = None  # with `profile`
        if profile:
            entry = image.symbols[function] & ~1
            model = next((start, end) for start, end, name in image.functions
                         if start == entry)
            counter = tracer = CallTracingCounter(max_instructions, model,
                                                  {start for start, _, _ in image.functions})
        else:
            counter = BlockCounter(max_instructions)
        machine.call(image.symbols[function], args, sp, counter, _FaultRecorder(stack_size))

        outputs = [np.frombuffer(machine.read(address, size), dtype).reshape(shape)
                   for address, size, shape, dtype
                   in zip(layout.outputs, output_sizes, output_shapes, dtypes)]
        inputs_after = [np.frombuffer(machine.read(layout.inputs[k], len(input_bytes[k])),
                                      inputs[k].dtype).reshape(inputs[k].shape).copy()
                        for k in read_back]
        priced = price_blocks(elf_path, counter, target) if estimate_cycles else None
        attribution = (attribute_instructions(elf_path, image, machine.read, tracer, priced)
                       if tracer is not None else None)
        return EmulatorRun(outputs=outputs, instructions=counter.executed,
                           stack_bytes=_painted_depth(machine, SRAM_BASE, sp),
                           block_counts=counter.block_counts(),
                           cycles_estimate=None if priced is None else round(priced.total()),
                           attribution=attribution, inputs_after=inputs_after)
