"""report.json: what a compile measured, and what `load` accepts back.

`CompileReport` is the file as a typed value: the model's name, target and
symbol, the SHA-256 of every artefact, the interface, what each stage
measured (MACs, the arena and its plan, the kernels, flash and stack), the
options and the stage dumps. `to_json` writes it field by field in this
order, with the format version first and `report_digest` (the SHA-256 of
everything else) last; `from_json` takes it back only when it is sound:
every field a load and a run rely on fits what `compile` writes (nothing a
run could overrun, overflow or crash on), and the digest matches, which
keeps every other field as written. A problem is a `FolderDamage` naming
the field.
"""
from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import asdict, dataclass, field, fields, is_dataclass
from pathlib import Path
from typing import Any, Callable, TypeGuard

from .abi import LAYOUTS, MAX_TENSOR_BYTES, TENSOR_DTYPES, TensorInfo, byte_size
from .targets import Target, TargetError, lookup_target

REPORT = "report.json"
# 2: report.json records the SHA-256 of every artefact and of its own content.
# 3: the artefact that runs records its signature (`abi.signature_record`).
FORMAT_VERSION = 3

_MAX_HOST_ARENA_BYTES = 1 << 31  # far beyond a tiny model; refuses absurd sizes
_MAX_REPORT_BYTES = 64 << 20
_C_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_FILE_NAME = re.compile(r"[A-Za-z0-9_.-]+\Z")  # what `abi.model_name` makes of a name
_SHA256_HEX = re.compile(r"[0-9a-f]{64}\Z")


class FolderDamage(Exception):
    """One problem of a compiled folder: the field or file, and what is wrong."""

    def __init__(self, where: str, problem: str):
        super().__init__(f"{where}: {problem}")


@dataclass
class FloatLayer:
    """A layer of a quantized model that computes in float32 where its
    reference computes in integers: its location and op."""

    layer: str
    op: str


@dataclass
class KernelEntry:
    """One kernel of the compiled function (`tinyml-number-kernels`): the
    ONNX nodes it computes, its kind and MACs, and the arena bytes live
    while it runs."""

    kernel: int
    names: list[str]
    kind: str
    macs: int
    live_bytes: int


@dataclass
class Flash:
    """Bytes of a Cortex-M object's code, read-only, initialised and zeroed data."""

    text: int
    rodata: int
    data: int
    bss: int


@dataclass
class MemoryPlanEntry:
    """A memory plan a compile built (`memory_choice`): its arena, its code
    and flash (None on the host), and whether the compile kept it."""

    plan: str
    arena_bytes: int
    text_bytes: int | None
    flash_bytes: int | None
    chosen: bool


#: Fields written only when set: a host model has no flash nor stack frames,
#: a model with a static batch no dynamic batch; the kernel map is missing
#: only from a report resealed without it (a profile says so).
_UNSET_WHEN_NONE = frozenset({"dynamic_batch", "kernel_map", "flash", "stack_frames"})


@dataclass(kw_only=True)
class CompileReport:
    """report.json, in its order. The arena numbers are `tinyml-plan-memory`'s
    (see `report_attributes`); `kernels` counts loop nests, `kernel_map`
    lists the numbered kernels (absent from a resealed report, which no
    profile can use)."""

    model: str
    target: str
    function: str
    artefacts: dict[str, str]  # file name -> SHA-256 of its bytes
    inputs: list[TensorInfo]
    outputs: list[TensorInfo]
    fusion: bool
    dynamic_batch: int | None = None
    float_layers: list[FloatLayer]
    macs: int
    in_place_groups: int
    recomputed_macs: int
    line_buffers: int
    arena_bytes: int
    arena_alignment: int
    naive_arena_bytes: int
    greedy_arena_bytes: int
    lower_bound_bytes: int
    peak_op: str | None
    memory_timeline: list[str]
    kernels: int
    kernel_map: list[KernelEntry] | None = None
    stage_seconds: dict[str, float]
    flash: Flash | None = None
    stack_frames: dict[str, int] | None = None
    compile_seconds: float = 0.0
    options: dict[str, Any] = field(default_factory=dict)
    stages: list[str] = field(default_factory=list)  # the files of the stage dumps
    memory_plans: list[MemoryPlanEntry] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """What `save` writes as report.json, its digest computed."""
        report: dict[str, Any] = {"format": FORMAT_VERSION}
        for item in fields(self):
            value = getattr(self, item.name)
            if value is None and item.name in _UNSET_WHEN_NONE:
                continue
            report[item.name] = _plain(value)
        report["compile_seconds"] = round(self.compile_seconds, 4)
        report["report_digest"] = _report_digest(report)
        return report

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "CompileReport":
        """The report `data` (report.json's object) holds, once it proved
        sound; `FolderDamage` otherwise."""
        _check_report(data)
        values: dict[str, Any] = {}
        for item in fields(cls):
            if item.name in data:
                values[item.name] = _typed(item.name, data[item.name])
            elif item.name not in _UNSET_WHEN_NONE:
                raise FolderDamage(item.name, "missing")
        return cls(**values)


def artefact_digests(artefacts: dict[str, str | bytes]) -> dict[str, str]:
    """The SHA-256 of every artefact as `save` writes it (text in UTF-8),
    by file name, sorted."""
    return {filename: _sha256(content if isinstance(content, bytes) else content.encode())
            for filename, content in sorted(artefacts.items())}


def stage_file(index: int, stage: str) -> str:
    """Where the IR after the `index`-th stage is saved."""
    return f"stages/{index:02d}-{stage}.mlir"


def read_report(path: Path) -> dict[str, Any]:
    """report.json's object, before any of its fields is checked."""
    try:
        with open(path, "rb") as stream:
            text = stream.read(_MAX_REPORT_BYTES + 1)
    except OSError as error:
        raise FolderDamage(REPORT, f"cannot read it ({error.strerror or error})") from None
    if len(text) > _MAX_REPORT_BYTES:
        raise FolderDamage(REPORT, f"more than {_MAX_REPORT_BYTES} bytes, which no report is")
    try:
        report = json.loads(text)
    except ValueError as error:  # JSONDecodeError, UnicodeDecodeError
        raise FolderDamage(REPORT, f"not valid JSON ({error})") from None
    except RecursionError:
        raise FolderDamage(REPORT, "not valid JSON (nested too deeply)") from None
    if not isinstance(report, dict):
        raise FolderDamage(REPORT, f"must hold a JSON object, got {shown(report)}")
    return report


def is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def shown(value: Any) -> str:
    """A report value as a message quotes it: JSON, one line, short."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def required_artefacts(name: str, spec: Target) -> tuple[str, ...]:
    """The LLVM-dialect module, and for a Cortex-M the object that runs."""
    return (f"{name}.mlir",) if spec.is_host else (f"{name}.o", f"{name}.mlir")


def _plain(value: Any) -> Any:
    """A field's value as JSON: dataclasses as objects."""
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return asdict(value) if is_dataclass(value) and not isinstance(value, type) else value


def _list_of(kind: Callable[..., Any]) -> Callable[[Any], list[Any]]:
    return lambda data: [kind(**item) for item in data]


#: How a checked or sealed JSON value becomes a field's value.
_TYPED: dict[str, Callable[[Any], Any]] = {
    "inputs": _list_of(TensorInfo),
    "outputs": _list_of(TensorInfo),
    "float_layers": _list_of(FloatLayer),
    "kernel_map": _list_of(KernelEntry),
    "flash": lambda data: Flash(**data),
    "memory_plans": _list_of(MemoryPlanEntry),
}


def _typed(key: str, value: Any) -> Any:
    try:
        return _TYPED.get(key, lambda data: data)(value)
    except TypeError:  # a value the digest seals but tinyml does not write
        raise FolderDamage(key, f"is not what tinyml writes, got {shown(value)}") from None


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _report_digest(report: dict[str, Any]) -> str:
    """SHA-256 of the canonical JSON of every field but `report_digest`,
    after a JSON round trip, so the writer hashes what the reader will."""
    content = json.loads(json.dumps({k: v for k, v in report.items() if k != "report_digest"}))
    return _sha256(json.dumps(content, sort_keys=True, separators=(",", ":")).encode())


def _check_report(report: dict[str, Any]) -> None:
    """The fields a load and a run rely on, against what `compile` writes,
    then the report's own digest, which keeps every other field as written."""
    version = report.get("format")
    if version != FORMAT_VERSION or not is_int(version):
        raise FolderDamage("format", f"must be a positive integer, got {shown(version)}")
    name = report.get("model")
    if not isinstance(name, str) or not _FILE_NAME.match(name) or name in (".", ".."):
        raise FolderDamage("model", "must be a file name stem (letters, digits, '_', '.', "
                                    f"'-'), got {shown(name)}")
    target = report.get("target")
    if not isinstance(target, str):
        raise FolderDamage("target", f"must be a string, got {shown(target)}")
    try:
        spec = lookup_target(target)
    except TargetError as error:
        raise FolderDamage("target", str(error)) from None
    function = report.get("function")
    if not isinstance(function, str) or not _C_IDENTIFIER.match(function):
        raise FolderDamage("function", f"must be a C identifier, got {shown(function)}")
    _check_artefact_list(report.get("artefacts"), name, spec)
    for key in ("inputs", "outputs"):
        _check_tensor_list(report.get(key), key)
    arena = report.get("arena_bytes")
    if not is_int(arena) or arena < 0:
        raise FolderDamage("arena_bytes", f"must be a non-negative integer, got {shown(arena)}")
    limit = _arena_limit(spec)
    if arena > limit:
        raise FolderDamage("arena_bytes", f"{arena} is more than the {limit} bytes a {target} "
                                          "run can hold")
    seconds = report.get("compile_seconds")
    if not isinstance(seconds, (int, float)) or isinstance(seconds, bool) or not seconds >= 0:
        raise FolderDamage("compile_seconds",
                           f"must be a non-negative number, got {shown(seconds)}")
    if not isinstance(report.get("options"), dict):
        raise FolderDamage("options", f"must be an object, got {shown(report.get('options'))}")
    if "float_abi" in report["options"]:
        try:
            lookup_target(target, report["options"]["float_abi"])
        except TargetError as error:
            raise FolderDamage("options.float_abi", str(error)) from None
    stages = report.get("stages")
    if not isinstance(stages, list) or not all(isinstance(s, str) for s in stages):
        raise FolderDamage("stages", f"must be a list of file names, got {shown(stages)}")
    digest = report.get("report_digest")
    if not isinstance(digest, str) or not _SHA256_HEX.match(digest):
        raise FolderDamage("report_digest",
                           f"must be a SHA-256 hex digest, got {shown(digest)}")
    if digest != _report_digest(report):
        raise FolderDamage(REPORT, "its content does not match its report_digest: it was "
                                   "edited or damaged after tinyml wrote it")


def _check_artefact_list(artefacts: Any, name: str, spec: Target) -> None:
    if not isinstance(artefacts, dict):
        raise FolderDamage("artefacts", "must be an object of file name: SHA-256, "
                                        f"got {shown(artefacts)}")
    for filename, digest in artefacts.items():
        if not _FILE_NAME.match(filename) or filename in (".", "..", REPORT):
            raise FolderDamage("artefacts", f"{shown(filename)} is not an artefact's file name")
        if not isinstance(digest, str) or not _SHA256_HEX.match(digest):
            raise FolderDamage(f"artefacts.{filename}",
                               f"must be a SHA-256 hex digest, got {shown(digest)}")
    for filename in required_artefacts(name, spec):
        if filename not in artefacts:
            raise FolderDamage("artefacts",
                               f"lists no {filename}, which a {spec.name} model needs")


def _check_tensor_list(tensors: Any, key: str) -> None:
    if not isinstance(tensors, list):
        raise FolderDamage(key, f"must be a list, got {shown(tensors)}")
    if key == "outputs" and not tensors:
        raise FolderDamage(key, "is empty: a compiled model has at least one output")
    first_index: dict[str, int] = {}
    for i, data in enumerate(tensors):
        _check_tensor(data, f"{key}[{i}]")
        if data["name"] in first_index:
            raise FolderDamage(f"{key}[{i}].name", f"{shown(data['name'])} is also the name "
                                                   f"of {key}[{first_index[data['name']]}]")
        first_index[data["name"]] = i


_INTEGER_BITS = {"int8": 8, "int16": 16, "int32": 32}


def _check_tensor(data: Any, where: str) -> None:
    """A tensor tinyml could have compiled: a non-empty name, a static shape
    of positive sizes whose buffer has a 32-bit size, a dtype a compiled
    function takes, a known layout, an int8 tensor's quantization."""
    if not isinstance(data, dict):
        raise FolderDamage(where, f"must be an object, got {shown(data)}")
    name, shape = data.get("name"), data.get("shape")
    dtype, layout = data.get("dtype", "float32"), data.get("layout")
    if not isinstance(name, str) or not name:
        raise FolderDamage(f"{where}.name", f"must be a non-empty string, got {shown(name)}")
    if not isinstance(shape, list) or not all(is_int(d) and d > 0 for d in shape):
        raise FolderDamage(f"{where}.shape",
                           f"must be a list of positive integers, got {shown(shape)}")
    if dtype not in TENSOR_DTYPES:
        raise FolderDamage(f"{where}.dtype", f"{shown(dtype)} is not a dtype tinyml compiles "
                                             f"(it compiles: {', '.join(TENSOR_DTYPES)})")
    size = byte_size(TensorInfo(name=name, shape=shape, dtype=dtype))
    if size > MAX_TENSOR_BYTES:
        raise FolderDamage(f"{where}.shape", f"{shape} is {size} bytes, more than a 32-bit "
                                             "size can hold")
    if layout is not None and layout not in LAYOUTS:
        raise FolderDamage(f"{where}.layout",
                           f"must be null, NCHW or NHWC, got {shown(layout)}")
    state = data.get("state")
    if state is not None and not (isinstance(state, str) and state):
        raise FolderDamage(f"{where}.state", f"must be null or a non-empty string, got "
                                             f"{shown(state)}")
    scale, zero_point = data.get("scale"), data.get("zero_point")
    if scale is not None and not (isinstance(scale, float) and math.isfinite(scale)
                                  and scale > 0):
        raise FolderDamage(f"{where}.scale", f"must be null or a positive number, got "
                                             f"{shown(scale)}")
    bits = _INTEGER_BITS.get(dtype)
    if zero_point is None:
        return
    if bits is None:
        raise FolderDamage(f"{where}.zero_point", f"must be null for a {dtype} tensor, got "
                                                  f"{shown(zero_point)}")
    if not (is_int(zero_point) and -2 ** (bits - 1) <= zero_point < 2 ** (bits - 1)):
        raise FolderDamage(f"{where}.zero_point", f"must be null or an {dtype} value, got "
                                                  f"{shown(zero_point)}")


def _arena_limit(spec: Target) -> int:
    """The largest arena a run on `spec` can hold: a sane bound on the host,
    on a Cortex-M the SRAM the emulator maps."""
    if spec.is_host:
        return _MAX_HOST_ARENA_BYTES
    try:
        from .targets.emulator import SRAM_LIMIT
    except ImportError:  # no emulator: the run says so; bound by 32-bit sizes
        return MAX_TENSOR_BYTES
    return SRAM_LIMIT
