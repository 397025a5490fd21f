"""The emulator's memory map and loader: the checks a model object must pass,
its link at fixed addresses (ld.lld) and the linked image the emulator loads
(`targets/emulator.py` runs it). Apart from the run loop because none of
this needs unicorn: checking an object (`check_object`, which `load` uses
too) is reading ELF.

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
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass
from pathlib import Path

from elftools.common.exceptions import ELFError
from elftools.elf.elffile import ELFFile
from elftools.elf.relocation import RelocationSection
from elftools.elf.sections import ARMAttributesSection, SymbolTableSection

from .toolchain import run_tool

FLASH_BASE = 0x0000_0000
FLASH_LIMIT = 4 << 20
TRAP_ADDRESS = 0x0F00_0000
SRAM_BASE = 0x2000_0000
SRAM_LIMIT = 256 << 20
PAGE = 0x1000
DEFAULT_STACK_SIZE = 256 << 10

# Unwind tables are discarded at link time, so their personality routine is
# not a real dependency of the model.
DISCARDED_SECTIONS = (".ARM.exidx", ".ARM.extab")


class EmulatorError(RuntimeError):
    """The model could not be linked, loaded or run to its return."""


class ObjectError(EmulatorError):
    """The object cannot be run: `problem` says why, without the path."""

    def __init__(self, path: str | Path, problem: str):
        super().__init__(f"{path}: {problem}")
        self.problem = problem


def align(value: int, alignment: int) -> int:
    """`value` rounded up to a multiple of `alignment`."""
    return (value + alignment - 1) // alignment * alignment


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
    if not isinstance(section, ARMAttributesSection):
        raise ELFError(f"section .ARM.attributes has type {section['sh_type']}, not "
                       "SHT_ARM_ATTRIBUTES")
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
    if symtab is not None and not isinstance(symtab, SymbolTableSection):
        raise ELFError(f"section .symtab has type {symtab['sh_type']}, not a symbol table")
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
        sram_limit=SRAM_LIMIT, stack=align(stack_size, 8),
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
            symtab = elf.get_section_by_name(".symtab")
            # `link_object` made the ELF: ld.lld always writes a symbol table.
            assert isinstance(symtab, SymbolTableSection)
            symbols = list(symtab.iter_symbols())
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
