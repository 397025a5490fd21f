"""What a run in the emulator measures besides its outputs, from unicorn's
block hook and the linked image (`targets/emulator.py` makes the run):

- instructions, counted per basic block (a code hook misses IT-block
  instructions whose condition fails): `BlockCounter`;
- with a profile, every executed instruction attributed to its kernel by the
  object's DWARF line table, whose line is the kernel's number (see
  `tinyml-kernel-lines`), and the rest by name: `CallTracingCounter`
  remembers which call a runtime helper runs for, `attribute_instructions`
  makes the `Attribution`;
- an optional cycle estimate that prices each hot block with llvm-mca
  (`price_blocks`).

Apart from the run loop because none of it drives the engine: it reads
what the hook recorded, the linked image and the code bytes.
"""
from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import unicorn
from elftools.elf.elffile import ELFFile
from unicorn import arm_const

from . import Target
from .loader import Image
from .toolchain import run_tool

MCA_ITERATIONS = 100
MCA_CALL_LATENCY = 3  # BL on M4/M7: 1 cycle + pipeline refill
CYCLE_COVERAGE = 0.999  # price the hottest blocks covering this share


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


# ---------------------------------------------------------------- counting

class BlockCounter:
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


class CallTracingCounter(BlockCounter):
    """A `BlockCounter` that also remembers, for every block run outside
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


def count_thumb_instructions(code: bytes | bytearray) -> int:
    """Number of Thumb instructions in `code`."""
    return len(thumb_instruction_offsets(code))


def thumb_instruction_offsets(code: bytes | bytearray) -> list[int]:
    """Offset of each Thumb instruction in `code`: a halfword whose top five
    bits are 0b11101, 0b11110 or 0b11111 starts a 32-bit encoding."""
    offsets, offset = [], 0
    while offset < len(code):
        offsets.append(offset)
        halfword = code[offset] | code[offset + 1] << 8
        offset += 4 if halfword >> 11 >= 0b11101 else 2
    return offsets


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


def attribute_instructions(elf_path: Path, image: Image,
                           read: Callable[[int, int], bytes | bytearray],
                           counter: CallTracingCounter,
                           priced: "PricedBlocks | None") -> Attribution:
    """Every executed instruction to the part of the code it belongs to
    (see `Attribution`), instruction by instruction: a block may run from
    the end of one kernel into the next; `read(address, size)` gives the
    code a block holds. A runtime helper's instructions belong to the
    kernel that called it (`helpers` says how many)."""
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
                 for offset in thumb_instruction_offsets(read(address, size))],
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


def _disassembly(elf_path: Path, target: Target) -> dict[int, str]:
    """address -> instruction text that llvm-mc can parse back: objdump's
    `<symbol+off>` annotations and `@` comments are dropped. The CPU must be
    named: the build attributes alone leave M7 FP instructions `<unknown>`."""
    listing = run_tool("llvm-objdump", "-d", "--no-show-raw-insn",
                       f"--triple={target.llvm_triple}", f"--mcpu={target.cpu}", elf_path)
    instructions = {}
    for line in listing.splitlines():
        match = _OBJDUMP_LINE.match(line)
        if match:
            text = re.sub(r"<[^>]*>", "", match.group(2).split("@")[0])
            instructions[int(match.group(1), 16)] = " ".join(text.split())
    return instructions


def _hot_blocks(counter: BlockCounter) -> tuple[list[tuple[int, int]], float]:
    """The most executed blocks covering CYCLE_COVERAGE of the instructions,
    and the factor that scales their cost to the whole run."""
    weight = {key: count * counter.lengths[key] for key, count in counter.counts.items()}
    total = sum(weight.values())
    chosen, covered = [], 0
    for key in sorted(weight, key=weight.__getitem__, reverse=True):
        if covered >= CYCLE_COVERAGE * total:
            break
        chosen.append(key)
        covered += weight[key]
    return chosen, (total / covered if covered else 1.0)


def _mca_block_cycles(blocks: list[tuple[int, int]], lengths: dict[tuple[int, int], int],
                      instructions: dict[int, str],
                      target: Target) -> dict[tuple[int, int], float]:
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
        "llvm-mca", f"-mtriple={target.llvm_triple}", f"-mcpu={target.cpu}",
        f"-iterations={MCA_ITERATIONS}", f"--call-latency={MCA_CALL_LATENCY}",
        "--skip-unsupported-instructions=any", "--instruction-info=false",
        "--resource-pressure=false", "--json", "-",
        input="\n".join(lines) + "\n"))
    cycles = {key: float(lengths[key]) for key in blocks}
    for region in report["CodeRegions"]:
        # The region's name is the "b{address:x}_{size:x}" written above.
        address, size = (int(part, 16) for part in region["Name"][1:].split("_"))
        key = (address, size)
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


def price_blocks(elf_path: Path, counter: BlockCounter, target: Target) -> PricedBlocks | None:
    """The hot blocks priced by llvm-mca; None without an mca model of the
    core (`Target.mca`) or without code. The estimate is Σ executed count ×
    llvm-mca cycles of the block over the hot blocks, scaled up to the run's
    instruction count. Branch penalties, flash wait states and memory
    contention are not modelled."""
    if not target.mca or not counter.counts:
        return None
    blocks, scale = _hot_blocks(counter)
    per_block = _mca_block_cycles(blocks, counter.lengths, _disassembly(elf_path, target), target)
    return PricedBlocks({key: per_block[key] for key in blocks}, counter.counts, scale)
