"""Runs a compiled model object on an emulated Cortex-M and measures it.

The compiler's contract: `model.o` is a self-contained relocatable Thumb ELF
object defining `void fn(float *in0, ..., float *out0, ..., uint8_t *arena)`
(AAPCS: four arguments in r0-r3, the rest on the stack). The harness links it
with ld.lld at fixed addresses, loads it into unicorn, calls the function
directly (SP, LR = a trap address, PC = entry) and stops when it returns to the
trap, so everything executed in between is model code.

Memory map (addresses are the emulator's, not a real chip's):

    0x00000000  FLASH  .text, .rodata                   read + execute
    0x0F000000  trap page holding the return address    execute
    0x20000000  SRAM   stack (grows down to 0x20000000), .data, .bss,
                       inputs, outputs, arena            read + write
                       (at most SRAM_LIMIT bytes: a call that needs more
                       is refused before anything is mapped)

The stack sits at the bottom of SRAM so an overflow runs into unmapped memory
and is reported, instead of silently corrupting model data; the arena ends at
the end of the mapping so an access past it faults too.

Unicorn 2.1 ignores the CPU model when `UC_MODE_MCLASS` is given (it always
builds a Cortex-M33, FPU and all); the harness therefore opens the engine in
plain `UC_MODE_THUMB` and selects the M-profile model with
`ctl_set_cpu_model`, which gives a real M0 (no Thumb-2, no FPU), M3 (no
FPU) and M4/M7 (FPU enabled out of reset, no CPACR set-up needed).

Measurements: instructions are counted per basic block (a code hook misses
IT-block instructions whose condition fails), stack use by painting, and an
optional cycle estimate prices each executed block with llvm-mca. A profile
(`profile=True`) attributes every executed instruction to its kernel by the
object's DWARF line table, whose line is the kernel's number (see
`tinyml-kernel-lines`), and the rest by name (`Attribution`).
"""
from __future__ import annotations

import bisect
import json
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np
import unicorn
from elftools.common.exceptions import ELFError
from elftools.elf.elffile import ELFFile
from elftools.elf.relocation import RelocationSection
from elftools.elf.sections import SymbolTableSection
from unicorn import arm_const

from .toolchain import run_tool

FLASH_BASE = 0x0000_0000
FLASH_LIMIT = 4 << 20
TRAP_ADDRESS = 0x0F00_0000
SRAM_BASE = 0x2000_0000
SRAM_LIMIT = 256 << 20
PAGE = 0x1000
ARENA_ALIGN = 16
DEFAULT_STACK_SIZE = 256 << 10

# Poison values: a stack painted with a word that real code rarely stores, and
# outputs pre-filled with NaN so an output the model never writes cannot pass
# as a plausible zero.
STACK_PAINT = bytes.fromhex("c55ca33a")
OUTPUT_POISON = b"\xff"

# Unwind tables are discarded at link time, so their personality routine is
# not a real dependency of the model.
DISCARDED_SECTIONS = (".ARM.exidx", ".ARM.extab")

MCA_ITERATIONS = 100
MCA_CALL_LATENCY = 3  # BL on M4/M7: 1 cycle + pipeline refill
CYCLE_COVERAGE = 0.999  # price the hottest blocks covering this share


class EmulatorError(RuntimeError):
    """The model could not be linked, loaded or run to its return."""


class ObjectError(EmulatorError):
    """The object cannot be run: `problem` says why, without the path."""

    def __init__(self, path: str | Path, problem: str):
        super().__init__(f"{path}: {problem}")
        self.problem = problem


@dataclass(frozen=True)
class Cpu:
    unicorn_model: int
    mca_triple: str | None  # None: llvm-mca has no scheduling model
    mca_cpu: str | None


CPUS = {
    "cortex-m0": Cpu(arm_const.UC_CPU_ARM_CORTEX_M0, None, None),
    "cortex-m3": Cpu(arm_const.UC_CPU_ARM_CORTEX_M3, "thumbv7m-none-eabi", "cortex-m3"),
    "cortex-m4": Cpu(arm_const.UC_CPU_ARM_CORTEX_M4, "thumbv7em-none-eabihf", "cortex-m4"),
    "cortex-m7": Cpu(arm_const.UC_CPU_ARM_CORTEX_M7, "thumbv7em-none-eabihf", "cortex-m7"),
}


#: Code of the model function outside every kernel (line 0): prologue,
#: epilogue, the arena's views, code LLVM hoisted out of a kernel's loops.
GLUE = "glue"
#: Code in no function of the linked image.
UNKNOWN_CODE = "unknown"


@dataclass
class Attribution:
    """One run by where its code came from. A key is a kernel's number (its
    line in the object's line table), `GLUE`, or `UNKNOWN_CODE`; a runtime
    helper (`memset`, `expf`, ...) counts for the part that called it, and
    `helpers[(part, helper)]` says how many of its instructions did.
    `instructions` sums exactly to the run's count; `code_bytes` is the size
    of each part's own code (executed or not; a helper's under its name);
    `cycles`, with a cycle estimate, splits it by the instructions each
    priced block holds."""

    instructions: dict[int | str, int]
    code_bytes: dict[int | str, int]
    cycles: dict[int | str, int] | None = None
    helpers: dict[tuple[int | str, str], int] = field(default_factory=dict)


@dataclass
class EmulatorRun:
    """What one run in the emulator produced and measured."""

    outputs: list[np.ndarray]
    instructions: int
    stack_bytes: int
    block_counts: dict[int, int] = field(repr=False)
    cycles_estimate: int | None = None
    attribution: Attribution | None = None


def lookup_cpu(name: str) -> Cpu:
    try:
        return CPUS[name]
    except KeyError:
        raise ValueError(f"unknown cpu '{name}' (supported: {', '.join(CPUS)})") from None


def _align(value: int, alignment: int) -> int:
    return (value + alignment - 1) // alignment * alignment


def _tiled(pattern: bytes, length: int) -> bytes:
    return (pattern * (length // len(pattern) + 1))[:length]


# ---------------------------------------------------------------- the object

def check_object(obj_path: str | Path, function: str, cpu: str | None = None) -> None:
    """Raises ObjectError unless the object is a 32-bit little-endian ARM
    relocatable ELF that defines `function` and needs no symbol from outside
    (the device has no library to provide one), built for `cpu` when given
    (its build attributes' Tag_CPU_name)."""
    try:
        with open(obj_path, "rb") as stream:
            elf = ELFFile(stream)
            kind = (elf.elfclass, elf.little_endian, elf["e_machine"], elf["e_type"])
            if kind != (32, True, "EM_ARM", "ET_REL"):
                endian = "little" if kind[1] else "big"
                raise ObjectError(obj_path, "not a 32-bit little-endian ARM relocatable object "
                                            f"(ELF{kind[0]} {endian}-endian, {kind[2]}, "
                                            f"{kind[3]})")
            missing = _undefined_references(elf)
            defined = _defined_functions(elf)
            built_for = _cpu_name(elf)
    except OSError as error:
        raise ObjectError(obj_path, f"cannot read it ({error.strerror or error})") from None
    except ELFError as error:
        reason = str(error).strip().splitlines()
        raise ObjectError(obj_path, "not a valid ELF object"
                                    + (f" ({reason[0]})" if reason else "")) from None
    if cpu is not None and built_for != cpu:
        raise ObjectError(obj_path, f"is built for {built_for or 'an unnamed CPU'}, not {cpu}")
    if missing:
        raise ObjectError(obj_path, f"has undefined symbols: {', '.join(sorted(missing))}")
    if function not in defined:
        raise ObjectError(obj_path, f"defines no function '{function}' "
                                    f"(it defines: {', '.join(sorted(defined)) or 'none'})")


def _cpu_name(elf: ELFFile) -> str | None:
    """Tag_CPU_name of the object's ARM build attributes."""
    section = elf.get_section_by_name(".ARM.attributes")
    if section is None:
        return None
    for subsection in section.iter_subsections():
        for subsubsection in subsection.iter_subsubsections():
            for attribute in subsubsection.iter_attributes():
                if attribute.tag == "TAG_CPU_NAME":
                    return attribute.value
    return None


def _undefined_references(elf: ELFFile) -> set[str]:
    missing = set()
    for section in elf.iter_sections():
        if not isinstance(section, RelocationSection):
            continue
        target = elf.get_section(section["sh_info"])
        if target.name.startswith(DISCARDED_SECTIONS):
            continue
        symtab = elf.get_section(section["sh_link"])
        if not isinstance(symtab, SymbolTableSection):
            raise ELFError(f"relocation section {section.name} links to no symbol table")
        for reloc in section.iter_relocations():
            symbol = symtab.get_symbol(reloc["r_info_sym"])
            if symbol["st_shndx"] == "SHN_UNDEF" and symbol.name:
                missing.add(symbol.name)
    return missing


def _defined_functions(elf: ELFFile) -> set[str]:
    symtab = elf.get_section_by_name(".symtab")
    return {s.name for s in (symtab.iter_symbols() if symtab else ())
            if s["st_info"]["type"] == "STT_FUNC" and s["st_shndx"] != "SHN_UNDEF"}


_LINKER_SCRIPT = """\
MEMORY {{
  FLASH (rx)  : ORIGIN = {flash:#x}, LENGTH = {flash_limit:#x}
  SRAM  (rw)  : ORIGIN = {sram:#x}, LENGTH = {sram_limit:#x}
}}
SECTIONS {{
  .text : {{ *(.text*) *(.rodata*) }} > FLASH
  .stack (NOLOAD) : ALIGN(8) {{ . += {stack:#x}; __tinyml_stack_top = .; }} > SRAM
  .data : ALIGN(16) {{ *(.data*) }} > SRAM
  .bss (NOLOAD) : ALIGN(16) {{ *(.bss*) *(COMMON) }} > SRAM
  __tinyml_ram_end = .;
  /DISCARD/ : {{ {discard} }}
}}
"""


def link_object(obj_path: str | Path, function: str, elf_path: str | Path,
                stack_size: int = DEFAULT_STACK_SIZE) -> Path:
    """Checks and links the object into an executable ELF at the harness's
    memory map; returns `elf_path`."""
    check_object(obj_path, function)
    elf_path = Path(elf_path)
    script = elf_path.with_suffix(".ld")
    script.write_text(_LINKER_SCRIPT.format(
        flash=FLASH_BASE, flash_limit=FLASH_LIMIT, sram=SRAM_BASE,
        sram_limit=SRAM_LIMIT, stack=_align(stack_size, 8),
        discard=" ".join(f"*({name}*)" for name in DISCARDED_SECTIONS)))
    run_tool("ld.lld", "-T", script, f"--entry={function}", "-nostdlib",
             obj_path, "-o", elf_path)
    return elf_path


@dataclass
class Image:
    """What the harness needs from the linked ELF."""
    segments: list[tuple[int, bytes, int]]  # (address, file bytes, memory size)
    symbols: dict[str, int]
    functions: list[tuple[int, int, str]]  # sorted (start, end, name)

    @classmethod
    def load(cls, elf_path: Path) -> "Image":
        with open(elf_path, "rb") as stream:
            elf = ELFFile(stream)
            segments = [(seg["p_vaddr"], seg.data(), seg["p_memsz"])
                        for seg in elf.iter_segments() if seg["p_type"] == "PT_LOAD"]
            symbols = list(elf.get_section_by_name(".symtab").iter_symbols())
        functions = sorted((s["st_value"] & ~1, (s["st_value"] & ~1) + s["st_size"], s.name)
                           for s in symbols if s["st_info"]["type"] == "STT_FUNC")
        return cls(segments, {s.name: s["st_value"] for s in symbols if s.name}, functions)

    def describe(self, address: int) -> str:
        """`0x00000104 (saxpy+0x4)`: an address named by its function."""
        index = bisect.bisect_right(self.functions, (address, float("inf"), "")) - 1
        if index >= 0:
            start, end, name = self.functions[index]
            if start <= address < end:
                return f"{address:#010x} ({name}+{address - start:#x})"
        return f"{address:#010x}"


# ------------------------------------------------------------ the emulation

class _BlockCounter:
    """UC_HOOK_BLOCK callback: counts executions per block and instructions,
    decoding each block's instruction count once."""

    def __init__(self, limit: int):
        self.limit = limit
        self.executed = 0
        self.counts: dict[tuple[int, int], int] = {}
        self.lengths: dict[tuple[int, int], int] = {}
        self.over_limit = False

    def __call__(self, uc: unicorn.Uc, address: int, size: int, _data) -> None:
        key = (address, size)
        length = self.lengths.get(key)
        if length is None:
            length = self.lengths[key] = count_thumb_instructions(uc.mem_read(address, size))
        self.counts[key] = self.counts.get(key, 0) + 1
        self.executed += length
        if self.executed > self.limit:
            self.over_limit = True
            uc.emu_stop()

    def block_counts(self) -> dict[int, int]:
        merged: dict[int, int] = {}
        for (address, _), count in self.counts.items():
            merged[address] = merged.get(address, 0) + count
        return merged


class _CallTracingCounter(_BlockCounter):
    """A `_BlockCounter` that also remembers, for every block run outside
    the model function (a runtime helper: memset, expf...), the call in the
    model function it runs for: the return address a helper finds in LR
    when it is entered from the model function."""

    def __init__(self, limit: int, model: tuple[int, int], entries: set[int]):
        super().__init__(limit)
        self.model = model
        self.entries = entries
        self.call_site: int | None = None
        self.helper_counts: dict[tuple[int | None, int, int], int] = {}

    def __call__(self, uc: unicorn.Uc, address: int, size: int, data) -> None:
        super().__call__(uc, address, size, data)
        start, end = self.model
        if start <= address < end:
            return
        if address in self.entries:
            returning_to = uc.reg_read(arm_const.UC_ARM_REG_LR) & ~1
            if start <= returning_to < end:
                self.call_site = returning_to - 2  # inside the BL (4 bytes) or BLX (2)
        key = (self.call_site, address, size)
        self.helper_counts[key] = self.helper_counts.get(key, 0) + 1


def count_thumb_instructions(code: bytes) -> int:
    """Number of Thumb instructions in `code`."""
    return len(thumb_instruction_offsets(code))


def thumb_instruction_offsets(code: bytes) -> list[int]:
    """Offset of each Thumb instruction in `code`: a halfword whose top five
    bits are 0b11101, 0b11110 or 0b11111 starts a 32-bit encoding."""
    offsets, offset = [], 0
    while offset < len(code):
        offsets.append(offset)
        halfword = code[offset] | code[offset + 1] << 8
        offset += 4 if halfword >> 11 >= 0b11101 else 2
    return offsets


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
        cursor = _align(start, ARENA_ALIGN)
        addresses = []
        for size in (*input_sizes, *output_sizes):
            addresses.append(cursor)
            cursor = _align(cursor + size, ARENA_ALIGN)
        # Even a zero-byte arena gets a valid (16-byte) buffer, ending exactly at
        # the end of the mapping so overruns fault.
        arena_size = _align(max(arena_bytes, 1), ARENA_ALIGN)
        end = _align(cursor + arena_size, PAGE)
        return cls(addresses[:len(input_sizes)], addresses[len(input_sizes):],
                   end - arena_size, arena_size, end)


class _Machine:
    """One unicorn engine with the linked image loaded."""

    def __init__(self, cpu: Cpu, image: Image):
        self.image = image
        self.uc = unicorn.Uc(unicorn.UC_ARCH_ARM, unicorn.UC_MODE_THUMB)
        self.uc.ctl_set_cpu_model(cpu.unicorn_model)
        if self.uc.ctl_get_cpu_model() != cpu.unicorn_model:
            raise EmulatorError(f"unicorn {unicorn.__version__} did not select cpu "
                                f"model {cpu.unicorn_model}")

    def map(self, sram_end: int) -> None:
        flash_end = max((addr + size for addr, _, size in self.image.segments
                         if addr < SRAM_BASE), default=FLASH_BASE)
        self.uc.mem_map(FLASH_BASE, _align(max(flash_end, 1), PAGE),
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

    def call(self, entry: int, args: Sequence[int], sp: int, counter: _BlockCounter,
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
        raise TypeError(f"input {index} is float64; the model takes float32 or int8 arrays")
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
               stack_size: int = DEFAULT_STACK_SIZE, profile: bool = False) -> EmulatorRun:
    """Links `obj_path`, calls `function(*inputs, *outputs, arena)` on the
    emulated `cpu` and returns the outputs and the measurements; with
    `profile`, where the instructions (and cycles) went (`Attribution`).

    Inputs are passed as their raw bytes (the model's dtypes by contract);
    outputs are read back as `output_dtypes` (default: float32 each) and
    start out as 0xFF bytes (NaN in float32). `arena_fill` (repeated
    over the arena) lets a test poison the arena to show the model never reads
    arena memory it did not write first."""
    cpu_info = lookup_cpu(cpu)
    input_bytes = [_as_input_bytes(i, array) for i, array in enumerate(inputs)]
    output_dtypes = [np.dtype(d) for d in output_dtypes or [np.float32] * len(output_shapes)]
    output_sizes = [int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
                    for shape, dtype in zip(output_shapes, output_dtypes)]
    with tempfile.TemporaryDirectory(prefix="tinyml-emu-") as tmp:
        elf_path = link_object(obj_path, function, Path(tmp) / "model.elf", stack_size)
        image = Image.load(elf_path)
        layout = _Layout.plan(image.symbols["__tinyml_ram_end"],
                              [len(b) for b in input_bytes], output_sizes, arena_bytes)
        if layout.end - SRAM_BASE > SRAM_LIMIT:
            raise EmulatorError(f"the call needs {layout.end - SRAM_BASE} bytes of SRAM "
                                f"(stack, data, inputs, outputs and a {arena_bytes}-byte "
                                f"arena), more than the {SRAM_LIMIT} the emulator maps")
        machine = _Machine(cpu_info, image)
        machine.map(layout.end)
        _fill_buffers(machine, layout, input_bytes, output_sizes, arena_fill)

        args = [*layout.inputs, *layout.outputs, layout.arena]
        sp = _entry_sp(image.symbols["__tinyml_stack_top"], len(args))
        machine.write(SRAM_BASE, _tiled(STACK_PAINT, sp - SRAM_BASE))
        if profile:
            entry = image.symbols[function] & ~1
            model = next((start, end) for start, end, name in image.functions
                         if start == entry)
            counter = _CallTracingCounter(max_instructions, model,
                                          {start for start, _, _ in image.functions})
        else:
            counter = _BlockCounter(max_instructions)
        machine.call(image.symbols[function], args, sp, counter, _FaultRecorder(stack_size))

        outputs = [np.frombuffer(machine.read(address, size), dtype).reshape(shape)
                   for address, size, shape, dtype
                   in zip(layout.outputs, output_sizes, output_shapes, output_dtypes)]
        priced = price_blocks(elf_path, counter, cpu_info) if estimate_cycles else None
        attribution = attribute(elf_path, image, machine, counter, priced) if profile else None
        return EmulatorRun(outputs=outputs, instructions=counter.executed,
                         stack_bytes=_painted_depth(machine, SRAM_BASE, sp),
                         block_counts=counter.block_counts(),
                         cycles_estimate=None if priced is None else round(priced.total()),
                         attribution=attribution)


# -------------------------------------------------------------- attribution

def line_ranges(elf_path: Path) -> list[tuple[int, int, int]]:
    """Sorted (start, end, line) address ranges of the linked image's DWARF
    line table; [] without one."""
    with open(elf_path, "rb") as stream:
        elf = ELFFile(stream)
        if not elf.has_dwarf_info():
            return []
        dwarf = elf.get_dwarf_info()
        ranges = []
        for unit in dwarf.iter_CUs():
            program = dwarf.line_program_for_CU(unit)
            previous = None
            for entry in program.get_entries() if program is not None else ():
                state = entry.state
                if state is None:
                    continue
                # Of several rows at one address the last holds.
                if previous is not None and state.address > previous.address:
                    ranges.append((previous.address, state.address, previous.line))
                previous = None if state.end_sequence else state
    return _inside_kernels(sorted(ranges))


def _inside_kernels(ranges: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """The ranges with each run of line-0 code that lies between code of one
    and the same line given that line: LLVM drops the line of what it hoists
    out of a loop or strength-reduces (address arithmetic, loop counters),
    which stays inside the loop nest it came from. Line-0 code between two
    different lines (a function's prologue, the step from one kernel to the
    next) keeps line 0."""
    filled = list(ranges)
    start = 0
    while start < len(filled):
        if filled[start][2] != 0:
            start += 1
            continue
        end = start
        while end < len(filled) and filled[end][2] == 0 and \
                (end == start or filled[end][0] == filled[end - 1][1]):
            end += 1
        before = filled[start - 1] if start > 0 else None
        after = filled[end] if end < len(filled) else None
        if before and after and before[2] == after[2] and before[1] == filled[start][0] \
                and filled[end - 1][1] == after[0]:
            for k in range(start, end):
                filled[k] = (filled[k][0], filled[k][1], before[2])
        start = end
    return filled


def attribute(elf_path: Path, image: Image, machine: "_Machine",
              counter: _CallTracingCounter, priced: "PricedBlocks | None") -> Attribution:
    """Every executed instruction to the part of the code it belongs to
    (see `Attribution`), instruction by instruction: a block may run from
    the end of one kernel into the next. A runtime helper's instructions
    belong to the kernel that called it (`helpers` says how many)."""
    ranges = line_ranges(elf_path)
    starts = [start for start, _, _ in ranges]

    def part(address: int) -> int | str:
        index = bisect.bisect_right(starts, address) - 1
        if index >= 0 and address < ranges[index][1]:
            return ranges[index][2] or GLUE
        index = bisect.bisect_right(image.functions, (address, float("inf"), "")) - 1
        if index >= 0 and image.functions[index][0] <= address < image.functions[index][1]:
            return image.functions[index][2]
        return UNKNOWN_CODE

    instructions: dict[int | str, int] = {}
    cycles: dict[int | str, float] = {}
    helpers: dict[tuple[int | str, str], int] = {}

    def add(parts: list[int | str], block: tuple[int, int], count: int) -> None:
        block_cycles = priced.cycles_of(block, count) if priced else 0.0
        for name in parts:
            instructions[name] = instructions.get(name, 0) + count
            cycles[name] = cycles.get(name, 0.0) + block_cycles / len(parts)

    model_start, model_end = counter.model
    for (address, size), count in counter.counts.items():
        if model_start <= address < model_end:
            add([part(address + offset)
                 for offset in thumb_instruction_offsets(machine.read(address, size))],
                (address, size), count)
    for (call_site, address, size), count in counter.helper_counts.items():
        length = counter.lengths[(address, size)]
        caller = UNKNOWN_CODE if call_site is None else part(call_site)
        helper = part(address)
        add([caller] * length, (address, size), count)
        if not isinstance(helper, int):  # a numbered kernel's code is its own, not a helper
            helpers[(caller, helper)] = helpers.get((caller, helper), 0) + count * length
    code_bytes: dict[int | str, int] = {}
    for start, end, line in ranges:
        code_bytes[line or GLUE] = code_bytes.get(line or GLUE, 0) + end - start
    for start, end, name in image.functions:  # the helpers: no line table
        if part(start) == name:
            code_bytes[name] = code_bytes.get(name, 0) + end - start
    return Attribution(instructions, code_bytes,
                       {name: round(value) for name, value in cycles.items()} if priced else None,
                       helpers)


# ------------------------------------------------------------ cycle estimate

_OBJDUMP_LINE = re.compile(r"^\s*([0-9a-f]+):\s+(.*)$")


def _disassembly(elf_path: Path, cpu: Cpu) -> dict[int, str]:
    """address -> instruction text that llvm-mc can parse back: objdump's
    `<symbol+off>` annotations and `@` comments are dropped. The CPU must be
    named: the build attributes alone leave M7 FP instructions `<unknown>`."""
    listing = run_tool("llvm-objdump", "-d", "--no-show-raw-insn",
                       f"--triple={cpu.mca_triple}", f"--mcpu={cpu.mca_cpu}", elf_path)
    instructions = {}
    for line in listing.splitlines():
        match = _OBJDUMP_LINE.match(line)
        if match:
            text = re.sub(r"<[^>]*>", "", match.group(2).split("@")[0])
            instructions[int(match.group(1), 16)] = " ".join(text.split())
    return instructions


def _hot_blocks(counter: _BlockCounter) -> tuple[list[tuple[int, int]], float]:
    """The most executed blocks covering CYCLE_COVERAGE of the instructions,
    and the factor that scales their cost to the whole run."""
    weight = {key: count * counter.lengths[key] for key, count in counter.counts.items()}
    total = sum(weight.values())
    chosen, covered = [], 0
    for key in sorted(weight, key=weight.get, reverse=True):
        if covered >= CYCLE_COVERAGE * total:
            break
        chosen.append(key)
        covered += weight[key]
    return chosen, (total / covered if covered else 1.0)


def _mca_block_cycles(blocks: list[tuple[int, int]], lengths: dict[tuple[int, int], int],
                      instructions: dict[int, str], cpu: Cpu) -> dict[tuple[int, int], float]:
    """Steady-state cycles per execution of each block, from one llvm-mca run
    with one code region per block. Instructions llvm-mca could not price
    (skipped, or a region dropped whole) count one cycle each."""
    addresses = sorted(instructions)
    lines = [".syntax unified", ".thumb"]
    for address, size in blocks:
        first = bisect.bisect_left(addresses, address)
        last = bisect.bisect_left(addresses, address + size)
        body = [instructions[at] for at in addresses[first:last]]
        lines += [f"@ LLVM-MCA-BEGIN b{address:x}_{size:x}", *body, "@ LLVM-MCA-END"]
    report = json.loads(run_tool(
        "llvm-mca", f"-mtriple={cpu.mca_triple}", f"-mcpu={cpu.mca_cpu}",
        f"-iterations={MCA_ITERATIONS}", f"--call-latency={MCA_CALL_LATENCY}",
        "--skip-unsupported-instructions=any", "--instruction-info=false",
        "--resource-pressure=false", "--json", "-",
        input="\n".join(lines) + "\n"))
    cycles = {key: float(lengths[key]) for key in blocks}
    for region in report["CodeRegions"]:
        key = tuple(int(part, 16) for part in region["Name"][1:].split("_"))
        summary = region["SummaryView"]
        priced = summary["Instructions"] / MCA_ITERATIONS
        cycles[key] = summary["TotalCycles"] / MCA_ITERATIONS + lengths[key] - priced
    return cycles


@dataclass
class PricedBlocks:
    """llvm-mca cycles per execution of the hot blocks, and the factor that
    scales their cost up to the whole run."""

    cycles: dict[tuple[int, int], float]
    counts: dict[tuple[int, int], int]
    scale: float

    def cycles_of(self, block: tuple[int, int], count: int) -> float:
        """The estimated cycles of `count` executions of `block` (0 for a
        cold block: the scale accounts for those)."""
        return count * self.cycles.get(block, 0.0) * self.scale

    def total(self) -> float:
        return sum(self.counts[block] * cycles for block, cycles in self.cycles.items()) \
            * self.scale


def price_blocks(elf_path: Path, counter: _BlockCounter, cpu: Cpu) -> PricedBlocks | None:
    """The hot blocks priced by llvm-mca; None without an mca model or code.
    The estimate is Σ executed count × llvm-mca cycles of the block over the
    hot blocks, scaled up to the run's instruction count. Branch penalties,
    flash wait states and memory contention are not modelled."""
    if cpu.mca_cpu is None or not counter.counts:
        return None
    blocks, scale = _hot_blocks(counter)
    per_block = _mca_block_cycles(blocks, counter.lengths, _disassembly(elf_path, cpu), cpu)
    return PricedBlocks({key: per_block[key] for key in blocks}, counter.counts, scale)

