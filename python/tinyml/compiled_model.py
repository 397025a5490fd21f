"""The compiled model: what `tinyml.compile` returns and `CompiledModel.load`
reads back from the folder `save` wrote.

It runs where its target runs (the host through the MLIR ExecutionEngine, a
Cortex-M in the unicorn emulator or as a firmware on QEMU), saves its
artefacts and report.json atomically, and loads a folder only once the
folder proved sound: report.json fits its schema and its own digest
(`report.CompileReport.from_json`), every artefact its SHA-256, and the
artefact that runs agrees with the report about the function, its
arguments and the sizes it was compiled for (`_cross_check`), since that
artefact is what a run trusts with its buffers.
"""
from __future__ import annotations

import ctypes
import dataclasses
import hashlib
import importlib.util
import json
import os
import re
import tempfile
from dataclasses import InitVar, dataclass, field
from pathlib import Path
from typing import Any, Sequence, cast

import numpy as np
from mlir import ir

from .abi import TensorInfo, argument_attributes, byte_size
from .errors import RunError
from .ir.context import make_context
from .ir.diagnostics import format_mlir_error
from .report import (FORMAT_VERSION, REPORT, CompileReport, FolderDamage, is_int, read_report,
                     shown, stage_file)
from .report_attributes import ARENA_BYTES, NAME, SIGNATURE
from .safe_io import replace_output_dir
from .targets import EMULATORS, lookup_target
from .targets import profile as profiling
from .targets.cortexm import object_signature


@dataclass
class RunResult:
    """Outputs of one inference and, in the emulator, what it cost."""

    outputs: list[np.ndarray]
    instructions: int | None = None
    stack_bytes: int | None = None
    cycles_estimate: int | None = None
    profile: dict[str, Any] | None = None  # `tinyml.targets.profile.build`, when asked for
    board: str | None = None  # the QEMU board it ran on, with emulator="qemu"
    firmware_bytes: dict[str, int] | None = None  # that firmware's sections (qemu.FirmwareRun)
    # A streaming model's states as the call left them (its next states; the
    # arrays passed in are not changed).
    states: list[np.ndarray] | None = None


@dataclass
class CompiledModel:
    """A compiled model: the report of its compilation (its signature
    included), its artefacts (file name -> contents: for the host the
    LLVM-dialect MLIR that the JIT runs, for a Cortex-M the object, header
    and IR) and, when kept, the IR after every stage. `module`: the host's
    LLVM-dialect module, already parsed, for the JIT.

    Calling it runs one inference: on the host through the JIT, on a
    Cortex-M in the emulator (`run` gives the instruction count too)."""

    report: CompileReport
    artefacts: dict[str, str | bytes]
    stages: dict[str, str] = field(default_factory=dict)
    module: InitVar[ir.Module | None] = None

    def __post_init__(self, module: ir.Module | None) -> None:
        self._module = module
        # The MLIR bindings are untyped: their objects are `Any`.
        self._context: Any = None if module is None else module.context
        self._engine: Any = None

    @property
    def name(self) -> str:
        return self.report.model

    @property
    def target(self) -> str:
        return self.report.target

    @property
    def function(self) -> str:
        return self.report.function

    @property
    def inputs(self) -> list[TensorInfo]:
        return self.report.inputs

    @property
    def outputs(self) -> list[TensorInfo]:
        return self.report.outputs

    @property
    def arena_bytes(self) -> int:
        return self.report.arena_bytes

    @property
    def llvm_mlir(self) -> str:
        return cast(str, self.artefacts[f"{self.name}.mlir"])  # text: see _read_artefacts

    def _object(self) -> bytes:
        """The Cortex-M object (bytes, as `_read_artefacts` reads any `.o`)."""
        return cast(bytes, self.artefacts[f"{self.name}.o"])

    # -- running ------------------------------------------------------------

    def _ensure_engine(self) -> Any:
        if self._engine is None:
            from mlir.execution_engine import ExecutionEngine
            if self._module is None:
                self._context = make_context()
                with self._context:
                    self._module = ir.Module.parse(self.llvm_mlir, self._context)
            with self._context:
                engine = ExecutionEngine(self._module, opt_level=2,
                                         shared_libs=[_runner_utils()])
                engine.lookup(self.function)  # code generation happens here
                self._engine = engine
        return self._engine

    def check_inputs(self, inputs: Sequence[Any]) -> list[np.ndarray]:
        """The inputs as contiguous arrays; RunError when they do not match."""
        if len(inputs) != len(self.inputs):
            raise RunError(f"'{self.name}' takes {len(self.inputs)} input(s), "
                           f"got {len(inputs)}")
        arrays = []
        for info, value in zip(self.inputs, inputs):
            array = np.asarray(value)
            if array.dtype != np.dtype(info.dtype):
                raise RunError(f"input '{info.name}' must be {info.dtype}, got {array.dtype}")
            if list(array.shape) != list(info.shape):
                raise RunError(f"input '{info.name}' must have shape {list(info.shape)}, "
                               f"got {list(array.shape)}")
            arrays.append(np.ascontiguousarray(array))
        return arrays

    def __call__(self, *inputs: np.ndarray, arena_fill: bytes | None = None) -> list[np.ndarray]:
        return self.run(*inputs, arena_fill=arena_fill).outputs

    def run(self, *inputs: np.ndarray, arena_fill: bytes | None = None,
            estimate_cycles: bool = False, profile: bool = False,
            emulator: str = "unicorn") -> RunResult:
        """One inference. `arena_fill` poisons the arena first (a byte
        pattern, repeated), which must not change the outputs. `profile`
        gives the per-layer profile (`tinyml.targets.profile`; in the emulator with
        the cycle estimate) as `RunResult.profile`; a model whose report has
        no usable kernel map is a RunError. A Cortex-M model runs in
        `emulator`: "unicorn" (the harness that measures) or "qemu" (the
        example firmware on QEMU's board, `tinyml.targets.qemu`: outputs
        only)."""
        arrays = self.check_inputs(inputs)
        if emulator not in EMULATORS:
            raise RunError(f"unknown emulator '{emulator}' (known: {', '.join(EMULATORS)})")
        if emulator == "qemu":
            if self.target == "host":
                raise RunError(f"'{self.name}' is compiled for the host, which runs no "
                               "emulator: compile it for cortex-m4 or cortex-m7")
            if estimate_cycles or profile:
                raise RunError("QEMU counts a run's instructions only: cycle estimates and "
                               "profiles need the unicorn emulator")
            return self._run_on_qemu(arrays, arena_fill)
        if profile:
            try:
                profiling.kernel_map(self.report.to_json())
            except profiling.ProfileError as error:
                raise RunError(f"cannot profile '{self.name}': {error}") from None
        if self.target == "host":
            # The function writes a state over its input: on copies.
            arrays = [array.copy() if info.state else array
                      for info, array in zip(self.inputs, arrays)]
            result = RunResult(self._run_host(arrays, arena_fill),
                               states=[a for info, a in zip(self.inputs, arrays) if info.state])
            if profile:
                result.profile = profiling.build(self.name, self.target, self.report.to_json())
            return result
        return self._run_emulated(arrays, arena_fill, estimate_cycles or profile, profile)

    def _run_host(self, arrays: list[np.ndarray], arena_fill: bytes | None) -> list[np.ndarray]:
        from mlir.runtime import get_ranked_memref_descriptor
        outputs = [np.zeros(info.shape, dtype=info.dtype) for info in self.outputs]
        arena = np.zeros(max(self.arena_bytes, 1), dtype=np.uint8)
        if arena_fill:
            arena[:] = np.resize(np.frombuffer(arena_fill, dtype=np.uint8), arena.size)
        engine = self._ensure_engine()
        descriptors = [get_ranked_memref_descriptor(a) for a in arrays + outputs + [arena]]
        engine.invoke(self.function, *[ctypes.pointer(ctypes.pointer(d)) for d in descriptors])
        return outputs

    def _run_emulated(self, arrays: list[np.ndarray], arena_fill: bytes | None,
                      estimate_cycles: bool, profile: bool) -> RunResult:
        try:
            from .targets import emulator
        except ImportError as error:
            raise RunError(f"the Cortex-M emulator is not available ({error}); install it "
                           "with: pip install unicorn==2.1.4") from None
        try:
            emulator.lookup_cpu(self.target)
        except ValueError as error:  # a core unicorn has no model of (the M55)
            raise RunError(str(error)) from None
        with tempfile.TemporaryDirectory(prefix="tinyml-run-") as tmp:
            obj = Path(tmp) / "model.o"  # the model's name may fill a file name by itself
            obj.write_bytes(self._object())
            result = emulator.run_object(
                obj, self.function, arrays, [tuple(o.shape) for o in self.outputs],
                self.arena_bytes, cpu=self.target, arena_fill=arena_fill,
                output_dtypes=[np.dtype(o.dtype) for o in self.outputs],
                estimate_cycles=estimate_cycles, profile=profile,
                read_back=[k for k, info in enumerate(self.inputs) if info.state])
        return RunResult(result.outputs, result.instructions, result.stack_bytes,
                         result.cycles_estimate,
                         profiling.build(self.name, self.target, self.report.to_json(),
                                         result.attribution, result.instructions,
                                         result.cycles_estimate) if profile else None,
                         states=result.inputs_after)

    def _run_on_qemu(self, arrays: list[np.ndarray], arena_fill: bytes | None) -> RunResult:
        from .targets import qemu
        try:
            run = qemu.run_firmware(
                self.function, self.target, self._object(),
                cast(str, self.artefacts[f"{self.name}.h"]), arrays,
                [(tuple(o.shape), o.dtype) for o in self.outputs], arena_fill,
                states=[k for k, info in enumerate(self.inputs) if info.state],
                float_abi=self.report.options.get("float_abi", "hard"))
        except qemu.QemuError as error:
            raise RunError(str(error)) from None
        return RunResult(run.outputs, run.instructions, board=run.board,
                         firmware_bytes=run.firmware_bytes, states=run.states)

    def warm_up(self) -> CompiledModel:
        """JIT-compiles now rather than on the first call (host only)."""
        if self.target == "host":
            self._ensure_engine()
        return self

    # -- saving and loading -------------------------------------------------

    def save(self, outdir: str | os.PathLike[str],
             inputs: Sequence[str | os.PathLike[str]] = ()) -> Path:
        """Writes the artefacts, `report.json` and (when kept) the IR after
        every stage into `outdir`, atomically: see `safe_io.replace_output_dir`
        for when an existing folder is replaced and when it is refused
        (`safe_io.OutputError`). `inputs` are the files the model came from,
        which the output must not hold."""
        return replace_output_dir(outdir, self._write_into, inputs)

    def _write_into(self, folder: Path) -> None:
        for filename, content in self.artefacts.items():
            path = folder / filename
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content, encoding="utf-8")
        if self.stages:
            (folder / "stages").mkdir()
            for i, (stage, text) in enumerate(self.stages.items()):
                (folder / stage_file(i, stage)).write_text(text, encoding="utf-8")
        (folder / REPORT).write_text(json.dumps(self.report.to_json(), indent=2) + "\n",
                                     encoding="utf-8")

    @classmethod
    def load(cls, outdir: str | os.PathLike[str]) -> CompiledModel:
        """A model saved by `save`, once its folder proved sound: report.json
        fits its schema and its own digest, every artefact its SHA-256, and
        the compiled function agrees with the report (`_cross_check`).
        Nothing is allocated, mapped or JIT-compiled before that; any
        problem is a one-line RunError naming the field or file."""
        outdir = Path(outdir)
        report_path = outdir / REPORT
        if not report_path.is_file():
            raise RunError(f"'{outdir}' is not a compiled model (no {REPORT})")
        try:
            data = read_report(report_path)
            version = data.get("format")
            if is_int(version) and version > 0 and version != FORMAT_VERSION:
                raise RunError(f"'{outdir}' holds a model saved in report format {version}; "
                               f"this tinyml reads format {FORMAT_VERSION}: compile the model "
                               "again")
            # The stage dumps stay on disk: the loaded model has none to save.
            report = dataclasses.replace(CompileReport.from_json(data), stages=[])
            artefacts = _read_artefacts(outdir, report.artefacts)
            module = _cross_check(report, artefacts, outdir)
        except FolderDamage as damage:
            raise RunError(f"'{outdir}' holds a damaged compiled model: {damage}") from None
        return cls(report, artefacts, module=module)


def _runner_utils() -> str:
    spec = importlib.util.find_spec("mlir")  # imported above: found
    assert spec is not None and spec.submodule_search_locations is not None
    mlir_dir = list(spec.submodule_search_locations)[0]
    return os.path.join(mlir_dir, "lib", "libmlir_c_runner_utils.so")


def _read_artefacts(outdir: Path, digests: dict[str, str]) -> dict[str, str | bytes]:
    """Every listed artefact, each checked against its SHA-256 before it is
    read into memory (a huge file in its place is hashed, not loaded)."""
    artefacts: dict[str, str | bytes] = {}
    for filename, digest in digests.items():
        path = outdir / filename
        if not path.is_file():
            raise FolderDamage(filename, "missing" if not path.exists()
                               else "not a regular file")
        try:
            with open(path, "rb") as stream:
                hasher = hashlib.sha256()
                for chunk in iter(lambda: stream.read(1 << 20), b""):
                    hasher.update(chunk)
                if hasher.hexdigest() != digest:
                    raise FolderDamage(filename, "its content does not match its SHA-256 in "
                                                 f"{REPORT} (truncated, edited or another "
                                                 "model's)")
                stream.seek(0)
                data = stream.read()
        except OSError as error:
            raise FolderDamage(filename, f"cannot read it ({error.strerror or error})") from None
        if filename.endswith(".o"):
            artefacts[filename] = data
            continue
        try:
            artefacts[filename] = data.decode("utf-8")
        except UnicodeDecodeError:
            raise FolderDamage(filename, "not UTF-8 text") from None
    return artefacts


def _cross_check(report: CompileReport, artefacts: dict[str, str | bytes],
                 outdir: Path) -> ir.Module | None:
    """The compiled function against the report. The LLVM-dialect module must
    define it taking one argument per input, output and the arena, named as
    the report names them, with the report's arena size; on the host its
    memref descriptors must fit the tensors' ranks (the parsed module is
    returned, for the JIT). A Cortex-M object must be an ARM relocatable ELF
    defining the function. Then the report's tensors and arena against the
    signature the artefact that runs records (the host's module, the
    Cortex-M object): a report resealed with other sizes would make a run
    overrun a buffer."""
    filename = f"{report.model}.mlir"
    context = make_context()
    with context:
        try:
            module = ir.Module.parse(artefacts[filename], context)
        except ir.MLIRError as error:
            details = format_mlir_error(error).strip()
            first = details.splitlines()[0] if details else error.message
            raise FolderDamage(filename, f"not valid MLIR ({first})") from None
        functions = {}
        for op in module.body.operations:
            if op.operation.name == "llvm.func":
                functions[ir.StringAttr(op.operation.attributes["sym_name"]).value] = op.operation
        host = report.target == "host"
        interface = f"_mlir_ciface_{report.function}" if host else report.function
        _check_interface(_llvm_function(functions, interface, filename), interface, report,
                         filename)
        if host:
            # The C interface calls the function proper, which takes every
            # memref descriptor expanded: 2 pointers, the offset, then a size
            # and a stride per dimension; the arena is 1-D.
            ranks = [len(info.shape) for info in report.inputs + report.outputs]
            expanded = _llvm_function(functions, report.function, filename)
            want = sum(3 + 2 * rank for rank in ranks) + 5
            if _argument_count(expanded) != want:
                raise FolderDamage(filename, f"'{report.function}' takes "
                                             f"{_argument_count(expanded)} arguments, the "
                                             f"descriptors of the report's tensors (ranks "
                                             f"{ranks}) and arena {want}")
            _check_signature(report, _module_signature(module), filename)
            return module
    _check_object(report, outdir)
    filename = f"{report.model}.o"
    try:
        recorded = object_signature(outdir / filename)
    except ValueError as error:
        raise FolderDamage(filename, str(error)) from None
    _check_signature(report, recorded, filename)
    return None


def _module_signature(module: ir.Module) -> str | None:
    attributes = module.operation.attributes
    if SIGNATURE not in attributes:
        return None
    recorded = attributes[SIGNATURE]
    # Any other attribute is shown as it prints, an unreadable signature.
    return recorded.value if isinstance(recorded, ir.StringAttr) else str(recorded)


_SIGNATURE = re.compile(r"inputs=([^;]*);outputs=([^;]*);arena_bytes=([0-9]+)\Z")
_TENSOR_RECORD = re.compile(r"([a-z0-9]+):([0-9]+)\Z")


def _check_signature(report: CompileReport, recorded: str | None, filename: str) -> None:
    """The report's inputs, outputs and arena against the signature the
    artefact `filename` records (`abi.signature_record`): the artefact is
    what runs, so it is the report that is wrong."""
    if recorded is None:
        raise FolderDamage(filename, "records no signature (the tensor sizes and types it "
                                     "was compiled for)")
    match = _SIGNATURE.match(recorded)
    groups = [[_TENSOR_RECORD.match(t) for t in group.split(",") if t]
              for group in match.groups()[:2]] if match else []
    if match is None or not all(all(group) for group in groups):
        raise FolderDamage(filename, f"records an unreadable signature {shown(recorded)}")
    tensors = [[record for record in group if record] for group in groups]  # every one matched
    for key, infos, records in (("inputs", report.inputs, tensors[0]),
                                ("outputs", report.outputs, tensors[1])):
        if len(infos) != len(records):
            raise FolderDamage(key, f"the report lists {len(infos)}, {filename} was compiled "
                                    f"for {len(records)}")
        for i, (info, record) in enumerate(zip(infos, records)):
            dtype, size = record[1], int(record[2])
            if info.dtype != dtype:
                raise FolderDamage(f"{key}[{i}].dtype", f"the report says {info.dtype}, "
                                                        f"{filename} was compiled for {dtype}")
            if byte_size(info) != size:
                raise FolderDamage(f"{key}[{i}].shape", f"{info.shape} is {byte_size(info)} "
                                                        f"bytes, {filename} was compiled for "
                                                        f"{size}")
    if report.arena_bytes != int(match[3]):
        raise FolderDamage("arena_bytes", f"the report says {report.arena_bytes}, {filename} "
                                          f"was compiled for {match[3]}")


def _llvm_function(functions: dict[str, ir.Operation], symbol: str,
                   filename: str) -> ir.Operation:
    op = functions.get(symbol)
    if op is None:
        raise FolderDamage(filename, f"defines no function '{symbol}'")
    if not len(op.regions[0].blocks):
        raise FolderDamage(filename, f"declares '{symbol}' but does not define it")
    return op


def _argument_count(func: ir.Operation) -> int:
    return len(func.regions[0].blocks[0].arguments)


def _check_interface(func: ir.Operation, symbol: str, report: CompileReport,
                     filename: str) -> None:
    tensors = report.inputs + report.outputs
    want = len(tensors) + 1
    if _argument_count(func) != want:
        raise FolderDamage(filename, f"'{symbol}' takes {_argument_count(func)} arguments, "
                                     f"the report's {len(report.inputs)} input(s), "
                                     f"{len(report.outputs)} output(s) and arena {want}")
    attrs = func.attributes["arg_attrs"] if "arg_attrs" in func.attributes else None
    for i, info in enumerate(tensors):
        entry = argument_attributes(attrs, i)
        if NAME in entry and ir.StringAttr(entry[NAME]).value != info.name:
            raise FolderDamage(filename, f"argument {i} of '{symbol}' is "
                                         f"{shown(ir.StringAttr(entry[NAME]).value)}, "
                                         f"the report says {shown(info.name)}")
    if ARENA_BYTES in func.attributes:
        arena = ir.IntegerAttr(func.attributes[ARENA_BYTES]).value
        if arena != report.arena_bytes:
            raise FolderDamage(filename, f"'{symbol}' needs an arena of {arena} bytes, the "
                                         f"report says {report.arena_bytes}")


def _check_object(report: CompileReport, outdir: Path) -> None:
    try:
        from .targets.emulator import ObjectError, check_object
    except ImportError:  # no emulator: the run reports it
        return
    filename = f"{report.model}.o"
    try:
        check_object(outdir / filename, report.function, lookup_target(report.target).cpu)
    except ObjectError as error:
        raise FolderDamage(filename, error.problem) from None
