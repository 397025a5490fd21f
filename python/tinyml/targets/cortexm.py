"""The Cortex-M back end: LLVM-dialect MLIR -> LLVM IR (+ the freestanding
runtime in `runtime.ll`) -> opt -O3 -> llc -> one relocatable Thumb object,
its section and stack-frame sizes, and the C header that goes with it."""
from __future__ import annotations

import json
import re
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from elftools.common.exceptions import ELFError
from elftools.elf.elffile import ELFFile

from .toolchain import run_tool
from . import Target

RUNTIME = Path(__file__).with_name("runtime.ll")
RUNTIME_FLOAT = Path(__file__).with_name("runtime_float.ll")
RUNTIME_ARMV6M = Path(__file__).with_name("runtime_armv6m.ll")


def runtime_sources(target: Target) -> list[Path]:
    """The runtime files a target's objects link: the float helpers only
    with an FPU, the multiply and divide helpers only on ARMv6-M."""
    return [RUNTIME, *([RUNTIME_FLOAT] if target.fpu else []),
            *([RUNTIME_ARMV6M] if target.armv6m else [])]


#: Each float helper and the LLVM intrinsics that codegen makes calls to it.
FLOAT_HELPER_INTRINSICS = {"expf": "llvm.exp.", "tanhf": "llvm.tanh."}


def float_runtime_for(model_ir: str) -> str:
    """runtime_float.ll with only the helpers `model_ir` calls: codegen
    makes calls to them of the exp and tanh intrinsics after `opt` has run,
    so they are weak (kept) where linked, and one a model never calls would
    be dead code in its object."""
    text = RUNTIME_FLOAT.read_text()
    for helper, intrinsic in FLOAT_HELPER_INTRINSICS.items():
        if f"@{intrinsic}" in model_ir or f"@{helper}(" in model_ir:
            continue
        # The helper's definition, with the comment block before it.
        text = re.sub(rf"(^;[^\n]*\n)*^define weak float @{helper}\(.*?^}}\n", "", text,
                      flags=re.M | re.S)
    return text


@dataclass
class ObjectFiles:
    obj: Path
    llvm_ir: Path
    assembly: Path | None = None


#: `opt` levels a build may ask for; llc takes the nearest speed level.
OPT_LEVELS = ("O1", "O2", "O3", "Os", "Oz")
DEFAULT_OPT_LEVEL = "Os"


#: The stem of every file `build_object` writes: not the model's name, which
#: may be as long as a file name can be before a suffix is added.
BUILD_STEM = "model"


def build_object(llvm_dialect: str, target: Target, workdir: Path,
                 emit_assembly: bool = False, opt_level: str = DEFAULT_OPT_LEVEL) -> ObjectFiles:
    """Writes `model.ll` (optimized LLVM IR) and `model.o` (`BUILD_STEM`)
    into `workdir`. `Os` (the default) keeps most of `O3`'s speed at half
    its code on the MLPerf models: `O3` unrolls every small reduction loop
    fully. The tools run inside `workdir` on relative file names, because
    LLVM records the input file name in its output (`; ModuleID`): the
    artefacts must not depend on where the build happened."""
    workdir.mkdir(parents=True, exist_ok=True)
    raw, linked, optimized, obj = (f"{BUILD_STEM}.raw.ll", f"{BUILD_STEM}.bc",
                                   f"{BUILD_STEM}.ll", f"{BUILD_STEM}.o")
    model_ir = run_tool("mlir-translate", "--mlir-to-llvmir", input=llvm_dialect)
    (workdir / raw).write_text(model_ir)
    sources = [str(path) for path in runtime_sources(target)]
    if RUNTIME_FLOAT in runtime_sources(target):
        helpers = f"{BUILD_STEM}.float_runtime.ll"
        (workdir / helpers).write_text(float_runtime_for(model_ir))
        sources[sources.index(str(RUNTIME_FLOAT))] = helpers
    run_tool("llvm-link", raw, *sources, "-o", linked, cwd=workdir)
    target_flags = [f"-mtriple={target.llvm_triple}", f"-mcpu={target.cpu}",
                    *target.llvm_attributes]
    # Kernels that differ only in their buffers are one function: merged
    # first, while they still are identical (at -Os, interprocedural
    # constant propagation would give each its own weights' addresses).
    pipeline = f"mergefunc,default<{opt_level}>"
    run_tool("opt", f"-passes={pipeline}", *target_flags, "-S", linked, "-o", optimized,
             cwd=workdir)
    for scratch in (raw, linked, f"{BUILD_STEM}.float_runtime.ll"):
        (workdir / scratch).unlink(missing_ok=True)
    # On a core with the DSP extension a requantization's rounded high
    # product of a constant multiplier is one SMMLAR; llc's constant
    # hoisting would put the 64-bit constant in registers ahead of the loop,
    # where the multiply no longer matches SMMLAR and becomes a 64 x 64-bit
    # product (UMULL, MLA, MUL, ADC): M4 ResNet-8 -1.9% instructions, -17%
    # code; an int8 residual add 167 -> 102 instructions of code.
    no_hoisting = ["-disable-constant-hoisting"] if target.dsp else []
    # Thumb-1 has eight low registers: the selection DAG's default list
    # scheduler lifts a tile's loads ahead of its multiplies and spills
    # them; in source order each input value and weight is loaded just
    # before its multiply-accumulates (tinyml-unsigned-weights writes them
    # so): KWS on the M0 17.0 M -> 16.3 M instructions, a 1 x 4 tile of
    # eight steps 5.19 -> 3.78 instructions per MAC.
    source_order = ["-pre-RA-sched=source"] if target.armv6m else []
    llc = ["llc", "-O3" if opt_level == "O3" else "-O2", *target_flags,
           f"-float-abi={target.llc_float_abi}", "-stack-size-section", *no_hoisting,
           *source_order,
           optimized]
    run_tool(*llc, "-filetype=obj", "-o", obj, cwd=workdir)
    files = ObjectFiles(obj=workdir / obj, llvm_ir=workdir / optimized)
    if emit_assembly:
        files.assembly = workdir / f"{BUILD_STEM}.s"
        run_tool(*llc, "-filetype=asm", "-o", files.assembly.name, cwd=workdir)
    return files


#: The object's record of the signature it was compiled for (see
#: `compiler.signature_record`), which `load` checks a report against. Not
#: allocated, like `.debug_*`: a firmware links it into no flash.
SIGNATURE_SECTION = ".tinyml.signature"


def signature_asm(record: str) -> list[str]:
    """Module-level assembly (the LLVM dialect's `llvm.module_asm`) that puts
    `record`, printable ASCII without quotes or backslashes, into
    `SIGNATURE_SECTION`: module assembly is the one way LLVM IR makes a
    section without the allocate flag."""
    return [f'.pushsection {SIGNATURE_SECTION},"",%progbits', f'.ascii "{record}"',
            ".popsection"]


def object_signature(obj_path: str | Path) -> str | None:
    """The signature the object records; None when it records none. A
    ValueError when the section cannot be read."""
    try:
        with open(obj_path, "rb") as stream:
            section = ELFFile(stream).get_section_by_name(SIGNATURE_SECTION)
            return None if section is None else section.data().decode("ascii", "replace")
    except (OSError, ELFError) as error:
        raise ValueError(f"cannot read its {SIGNATURE_SECTION} section ({error})") from None


def object_sizes(obj_path: str | Path) -> dict[str, int]:
    """Bytes of code, read-only data, initialised data and zeroed data."""
    sizes = dict(text=0, rodata=0, data=0, bss=0)
    for line in run_tool("llvm-size", "-A", obj_path).splitlines():
        fields = line.split()
        if len(fields) != 3 or not fields[0].startswith("."):
            continue
        kind = fields[0][1:].split(".")[0]
        if kind in sizes:
            sizes[kind] += int(fields[1])
    return sizes


def stack_frame_sizes(obj_path: str | Path) -> dict[str, int]:
    """Per-function stack frame bytes from the `.stack_sizes` section (emitted
    by `llc -stack-size-section`); {} when the object has none."""
    with open(obj_path, "rb") as stream:
        if ELFFile(stream).get_section_by_name(".stack_sizes") is None:
            return {}
    frames, names = {}, []
    for line in run_tool("llvm-readobj", "--stack-sizes", obj_path).splitlines():
        line = line.strip()
        if line.startswith("Functions:"):
            names = line.partition("[")[2].rstrip("]").replace(",", " ").split()
        elif line.startswith("Size:"):
            frames.update(dict.fromkeys(names, int(line.split()[1], 0)))
    return frames


#: Names a generated identifier must not take: the C89..C23 keywords, C++'s
#: (the header is includable from C++), GNU's `asm`, what <stdint.h>,
#: <stddef.h>, <stdio.h>, <errno.h>, <complex.h> and <stdnoreturn.h> may
#: define as macros, the macros GCC predefines in GNU mode, and `main`.
_RESERVED_WORDS = frozenset("""
    auto break case char const continue default do double else enum extern float for goto
    if inline int long register restrict return short signed sizeof static struct switch
    typedef union unsigned void volatile while alignas alignof bool constexpr false nullptr
    static_assert thread_local true typeof typeof_unqual asm
    and and_eq bitand bitor catch char8_t char16_t char32_t class compl concept consteval
    constinit const_cast co_await co_return co_yield decltype delete dynamic_cast explicit
    export friend mutable namespace new noexcept not not_eq operator or or_eq private
    protected public reinterpret_cast requires static_cast template this throw try typeid
    typename using virtual wchar_t xor xor_eq
    NULL EOF errno complex imaginary I noreturn offsetof linux unix i386 main""".split())
#: Typedef-like names (`uint8_t`, which the header itself uses) and the
#: <stdint.h> limit macros; and the shape of every macro a tinyml header
#: defines, so that one model's parameter is never another model's macro.
_RESERVED_PATTERN = re.compile(
    r"_t$|^U?INT\w*_(MAX|MIN|C|WIDTH)$|^(PTRDIFF|SIG_ATOMIC|SIZE|WCHAR|WINT)_(MAX|MIN|WIDTH)$"
    r"|^TINYML_\w+_(H|NAME|ARENA_BYTES|ARENA_ALIGN|INVOKE|(IN|OUT)PUT_(COUNT|BYTES)"
    r"|(IN|OUT)PUT\d+_(ELEMENTS|SCALE|ZERO_POINT))$")
#: The runtime's global (weak) symbols: a model function of the same name
#: would be defined twice in its own object.
RUNTIME_SYMBOLS = frozenset(re.findall(
    r"^define .*?@([\w.]+)\(",
    "".join(path.read_text() for path in (RUNTIME, RUNTIME_FLOAT, RUNTIME_ARMV6M)), re.M))
ARENA_PARAMETER = "arena"
#: The C element type of each tensor dtype tinyml compiles.
C_TYPES = {"float32": "float", "int8": "int8_t", "int16": "int16_t", "int32": "int32_t"}
C_BYTES = {"float32": 4, "int8": 1, "int16": 2, "int32": 4}


def _reserved(name: str) -> bool:
    return (name in _RESERVED_WORDS or name in RUNTIME_SYMBOLS
            or _RESERVED_PATTERN.search(name) is not None)


def c_identifier(text: str, prefix: str, taken: Collection[str] = ()) -> str:
    """`text` made a C identifier that is safe at file scope, in a prototype
    and in C++, and not in `taken`: every run of characters other than ASCII
    letters and digits becomes one '_' (no '__', no non-ASCII), leading
    underscores go (reserved), a leading digit gets `prefix_` in front, an
    empty result becomes `prefix`, a reserved word (see `_RESERVED_WORDS`)
    gets a trailing '_', and a name in `taken` a suffix `_2`, `_3`, ...
    A C identifier that needs none of this comes back unchanged."""
    name = re.sub(r"[^A-Za-z0-9]+", "_", text).lstrip("_")
    if not name:
        name = prefix
    elif name[0].isdigit():
        name = f"{prefix}_{name}"
    if _reserved(name):
        name += "_"
    unique, suffix = name, 2
    while unique in taken or _reserved(unique):
        unique, suffix = f"{name.rstrip('_')}_{suffix}", suffix + 1
    return unique


#: A firmware built for another float ABI than the object's, in the
#: predefined macros of GCC and Clang for ARM: `__ARM_PCS_VFP` with the hard
#: ABI, `__ARM_FP` with an FPU (softfp's instructions need it enabled).
ABI_MISMATCH = {"hard": "!defined(__ARM_PCS_VFP)",
                "softfp": "(defined(__ARM_PCS_VFP) || !defined(__ARM_FP))",
                "soft": "defined(__ARM_PCS_VFP)"}


def header(name: str, inputs, outputs, arena_bytes: int, alignment: int,
           dynamic_batch: int | None = None, float_abi: str | None = "hard") -> str:
    """The C declaration of the model function `name` (a C identifier, see
    `c_identifier`), with its arena size; `dynamic_batch`, the batch a
    model with a dynamic one was compiled for, is said in its comment; the
    object's float ABI is a define, and an error where an ARM compiler
    builds for another (`ABI_MISMATCH`). Parameters are the tensors' names
    made C identifiers distinct from each other, from `arena`, from the
    function and from every macro here; a comment keeps a renamed tensor's
    ONNX name."""
    if c_identifier(name, "model") != name:
        raise ValueError(f"the model function name {name!r} is not a usable C identifier")
    if float_abi not in ABI_MISMATCH:
        raise ValueError(f"a Cortex-M object's float ABI is one of {list(ABI_MISMATCH)}, "
                         f"not {float_abi!r}")
    macro = f"TINYML_{name.upper()}"
    guard = f"{macro}_H"
    tensor_macros = [(f"{macro}_{kind.upper()}{k}", tensor)
                     for kind, tensors in (("input", inputs), ("output", outputs))
                     for k, tensor in enumerate(tensors)]
    defines = []
    for prefix, tensor in tensor_macros:
        defines.append(f"#define {prefix}_ELEMENTS {_count(tensor.shape)}u")
        if tensor.scale is not None:
            # real value = SCALE * (q - ZERO_POINT)
            defines.append(f"#define {prefix}_SCALE {float(tensor.scale)!r}f")
            defines.append(f"#define {prefix}_ZERO_POINT {int(tensor.zero_point)}")
    taken = {name, ARENA_PARAMETER, guard, f"{macro}_ARENA_BYTES", f"{macro}_ARENA_ALIGN",
             f"{macro}_FLOAT_ABI",
             *(define.split()[1] for define in defines)}
    params = []
    for kind, const, tensors in (("input", "const ", inputs), ("output", "", outputs)):
        for k, tensor in enumerate(tensors):
            c_name = c_identifier(tensor.name, f"{kind}{k}", taken)
            taken.add(c_name)
            onnx_name = "" if c_name == tensor.name else f"{_comment_text(tensor.name)}, "
            # A streaming model's state: the caller keeps it between calls.
            state = "" if tensor.state is None else \
                ", state: its reset value before the first call; each call writes the next"
            params.append(f"{'' if tensor.state else const}{C_TYPES[tensor.dtype]} *{c_name} "
                          f"/* {onnx_name}{_dims(tensor.shape)}{state} */")
    params.append(f"uint8_t *{ARENA_PARAMETER} /* {macro}_ARENA_BYTES, "
                  f"aligned to {macro}_ARENA_ALIGN */")
    casts = [f"({'' if tensor.state else const}{C_TYPES[tensor.dtype]} *)({kind}s)[{k}]"
             for kind, const, tensors in (("input", "const ", inputs), ("output", "", outputs))
             for k, tensor in enumerate(tensors)]
    lines = [
        f"/* Generated by tinyml for model '{name}'. */",
        f"#ifndef {guard}",
        f"#define {guard}",
        "",
        "#include <stdint.h>",
        "",
        "#ifdef __cplusplus",
        'extern "C" {',
        "#endif",
        "",
        f"/* The object's float ABI: build the firmware with -mfloat-abi={float_abi}. */",
        f'#define {macro}_FLOAT_ABI "{float_abi}"',
        f"#if defined(__arm__) && {ABI_MISMATCH[float_abi]}",
        f'#error "{name}.o uses the {float_abi} float ABI: build with -mfloat-abi={float_abi}"',
        "#endif",
        "",
        "/* Scratch memory for one inference; the caller owns it. */",
        f"#define {macro}_ARENA_BYTES {max(arena_bytes, 1)}u",
        f"#define {macro}_ARENA_ALIGN {alignment}u",
        "",
        *defines,
        "",
        "/* Runs one inference. Tensors are row-major, in the model's own layout",
        "   and types; no heap, no global state, reentrant with distinct arenas. */",
        *([f"/* The model's batch dimension is dynamic: this object computes batch "
           f"{dynamic_batch}. */"] if dynamic_batch is not None else []),
        f"void {name}(" + ",\n    ".join(params) + ");",
        "",
        "/* For code that runs any model (a test harness, examples/firmware): the",
        "   tensors' sizes in bytes in parameter order, and the same call with the",
        "   tensors as arrays of pointers. */",
        f'#define {macro}_NAME "{name}"',
        f"#define {macro}_INPUT_COUNT {len(inputs)}u",
        f"#define {macro}_OUTPUT_COUNT {len(outputs)}u",
        f"#define {macro}_INPUT_BYTES {_byte_list(inputs)}",
        f"#define {macro}_OUTPUT_BYTES {_byte_list(outputs)}",
        "/* 1 for a streaming model's state input: a buffer to keep between calls. */",
        f"#define {macro}_INPUT_IS_STATE "
        + "{" + ", ".join("1u" if t.state else "0u" for t in inputs) + "}",
        f"#define {macro}_INVOKE(inputs, outputs, arena) \\",
        f"    {name}(" + ", ".join([*casts, "(arena)"]) + ")",
        "",
        "#ifdef __cplusplus",
        "}",
        "#endif",
        "",
        f"#endif /* {guard} */",
        "",
    ]
    return "\n".join(lines)


def _byte_list(tensors) -> str:
    """`{1960u, 48u}`: a C initializer of the tensors' sizes in bytes."""
    return "{" + ", ".join(f"{_count(t.shape) * C_BYTES[t.dtype]}u" for t in tensors) + "}"


def _comment_text(text: str) -> str:
    """`text` quoted for a C comment: ASCII only, control characters escaped,
    and a backslash inside every `*/` (it would end the comment), `/*`
    (-Wcomment) and `??` (a trigraph)."""
    return re.sub(r"(?<=\*)(?=/)|(?<=/)(?=\*)|(?<=\?)(?=\?)", r"\\", json.dumps(text))


def _dims(shape) -> str:
    return "x".join(str(d) for d in shape)


def _count(shape) -> int:
    total = 1
    for d in shape:
        total *= d
    return total
