"""`tinyml.compile`: a model (ONNX file or ModelProto, or tinyml IR) to a
`CompiledModel` that runs, saves and loads.

Every target lowers through `pipelines.compile_stages()` to the LLVM
dialect. The compiled function takes its inputs, then its outputs
(caller-owned out-params), then the arena, in the model's own layout and
dtype (float32). The host runs it with the MLIR ExecutionEngine (JIT); a
Cortex-M target builds one Thumb object and a C header, and runs in the
emulator.

    model = tinyml.compile("kws.onnx")
    (scores,) = model(x)              # numpy in, list of numpy out
    model.save("out/")                # out/<name>.mlir + out/report.json
    again = tinyml.compiler.load("out/")
"""
from __future__ import annotations

import ctypes
import importlib.util
import json
import os
import re
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np
from mlir import ir

from . import analysis, pipelines
from .context import make_context
from .diagnostics import format_mlir_error
from .passes.registry import PassError, PipelineError

from .targets import TARGETS, TargetError, lookup_target  # noqa: F401  (re-exported)
from .targets.cortexm import OPT_LEVELS, c_identifier

REPORT = "report.json"
FORMAT_VERSION = 1


class CompileError(Exception):
    """The model cannot be compiled (bad input, unsupported op, unknown
    target). The message is one line; `details` holds every MLIR
    diagnostic when there are several."""

    def __init__(self, message: str, details: str | None = None):
        super().__init__(message)
        self.details = details or message


def _mlir_error(prefix: str, error: ir.MLIRError) -> CompileError:
    details = format_mlir_error(error)
    first = details.strip().splitlines()[0] if details.strip() else error.message
    return CompileError(f"{prefix}{first}", details)


class RunError(ValueError):
    """Inputs that do not match the compiled model's signature."""


@dataclass
class TensorInfo:
    """One input or output of a compiled model, as the model declares it."""

    name: str
    shape: list[int]
    dtype: str = "float32"
    layout: str | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "TensorInfo":
        return cls(name=data["name"], shape=list(data["shape"]),
                   dtype=data.get("dtype", "float32"), layout=data.get("layout"))


_DTYPES = {"f32": "float32", "f64": "float64", "f16": "float16", "i32": "int32",
           "i64": "int64", "i8": "int8", "i1": "bool"}


def _runner_utils() -> str:
    mlir_dir = list(importlib.util.find_spec("mlir").submodule_search_locations)[0]
    return os.path.join(mlir_dir, "lib", "libmlir_c_runner_utils.so")


def _sanitize(name: str) -> str:
    """`name` made the model's name: a C identifier, because it is also the
    symbol of the model's function (see `cortexm.c_identifier`)."""
    return c_identifier(name, "model")


def _name_entry(module: ir.Module, func: ir.Operation, name: str | None, default: str) -> str:
    """The model's name, `name` when given (it must be a usable C
    identifier), else `default` made one. The entry function (and every use
    of it) is renamed to it, so that the artefacts and the C symbol agree
    and two models in one firmware do not clash."""
    if name is None:
        name = _sanitize(default)
    elif _sanitize(name) != name:
        raise CompileError(
            f"the model name {name!r} is not a usable C identifier: use ASCII letters, digits "
            f"and single '_', not starting with a digit or '_', and no C/C++ keyword or "
            f"standard C name (e.g. {_sanitize(name)!r})")
    old = ir.StringAttr(func.attributes["sym_name"]).value
    if name != old:
        if name in ir.SymbolTable(module.operation):
            raise CompileError(f"cannot name the model '{name}': the module already has a "
                               f"symbol '{name}'")
        ir.SymbolTable.replace_all_symbol_uses(old, name, module.operation)
        ir.SymbolTable.set_symbol_name(func, name)
    return name


# ---------------------------------------------------------------------------
# Loading models
# ---------------------------------------------------------------------------

def _import_onnx(model, context: ir.Context, batch: int) -> ir.Module:
    try:
        from .frontend import import_onnx
    except ImportError as error:
        raise CompileError(f"the ONNX frontend is not available: {error}") from None
    with context, ir.Location.unknown(context):
        try:
            return import_onnx(model, batch=batch, context=context)
        except CompileError:
            raise
        except ir.MLIRError as error:
            raise _mlir_error("cannot import the model: ", error) from None
        except Exception as error:  # the frontend's own errors
            raise CompileError(_one_line(error)) from None


def _one_line(error: BaseException) -> str:
    text = str(error).strip() or type(error).__name__
    return text


def load_model(model, context: ir.Context, batch: int = 1) -> tuple[ir.Module, str | None]:
    """The model as a tinyml module in `context` (a fresh copy: the caller's
    module is never modified) and a name for it (None: use the function's)."""
    try:
        import onnx
    except ImportError:  # pragma: no cover - onnx is a dependency
        onnx = None
    if onnx is not None and isinstance(model, onnx.ModelProto):
        return _import_onnx(model, context, batch), _sanitize(model.graph.name)
    if isinstance(model, ir.Module):
        text = model.operation.get_asm(binary=False, enable_debug_info=True)
        with context:
            try:
                return ir.Module.parse(text, context), None
            except ir.MLIRError as error:
                raise _mlir_error("cannot copy the module: ", error) from None
    if isinstance(model, (str, os.PathLike)):
        path = Path(model)
        if not path.is_file():
            raise CompileError(f"cannot open model '{path}': no such file")
        name = _sanitize(path.name.split(".")[0])  # kws.tf2onnx.onnx -> kws
        if path.suffix == ".mlir":
            with context, ir.Location.unknown(context):
                try:
                    module = ir.Module.parse(path.read_text(), context)
                except ir.MLIRError as error:
                    raise _mlir_error(f"cannot parse '{path}': ", error) from None
                except UnicodeDecodeError:
                    raise CompileError(f"cannot parse '{path}': not a text file") from None
                return module, name
        return _import_onnx(str(path), context, batch), name
    raise CompileError(f"cannot compile a {type(model).__name__}: expected a path, "
                       "an onnx.ModelProto or an ir.Module")


def entry_function(module: ir.Module, entry: str | None = None) -> ir.Operation:
    """The public func.func to compile: `entry`, else the only public one."""
    candidates = []
    for op in module.body.operations:
        op = op.operation
        if op.name != "func.func":
            continue
        name = ir.StringAttr(op.attributes["sym_name"]).value
        visibility = op.attributes["sym_visibility"] if "sym_visibility" in op.attributes else None
        if entry is not None:
            if name == entry:
                return op
        elif visibility is None or ir.StringAttr(visibility).value == "public":
            candidates.append(op)
    if entry is not None:
        raise CompileError(f"the model has no function '{entry}'")
    if len(candidates) != 1:
        names = ", ".join(ir.StringAttr(op.attributes["sym_name"]).value for op in candidates)
        raise CompileError(f"expected one public function, found {len(candidates)}"
                           + (f" ({names}): pass entry=" if candidates else ""))
    return candidates[0]


def _dict_attr(attrs: ir.ArrayAttr | None, index: int) -> dict[str, ir.Attribute]:
    if attrs is None:
        return {}
    entry = ir.DictAttr(ir.ArrayAttr(attrs)[index])
    return {named.name: named.attr for named in entry}


def _tensor_infos(func: ir.Operation, types: Sequence[ir.Type], attr_name: str,
                  prefix: str) -> list[TensorInfo]:
    attrs = func.attributes[attr_name] if attr_name in func.attributes else None
    infos = []
    for i, ty in enumerate(types):
        try:
            tensor = ir.RankedTensorType(ty)
        except ValueError:
            raise CompileError(f"{prefix} #{i} has type {ty}: only ranked tensors "
                               "are supported") from None
        if not tensor.has_static_shape:
            raise CompileError(f"{prefix} #{i} has a dynamic shape {ty}")
        entry = _dict_attr(attrs, i)
        name = ir.StringAttr(entry["tinyml.name"]).value if "tinyml.name" in entry \
            else f"{prefix}{i}"
        layout = ir.StringAttr(entry["tinyml.layout"]).value if "tinyml.layout" in entry \
            else None
        dtype = _DTYPES.get(str(tensor.element_type), str(tensor.element_type))
        infos.append(TensorInfo(name, list(tensor.shape), dtype, layout))
    return infos


# tinyml ops whose first operand / result is an NHWC activation.
_NHWC_OPS = frozenset({
    "tinyml.conv2d", "tinyml.depthwise_conv2d", "tinyml.avg_pool2d", "tinyml.max_pool2d",
    "tinyml.global_avg_pool",
})
_TO_NHWC, _TO_NCHW = [0, 2, 3, 1], [0, 3, 1, 2]


def _permutation(op: ir.Operation) -> list[int] | None:
    if op.name != "tinyml.transpose":
        return None
    return list(ir.DenseI64ArrayAttr(op.attributes["permutation"]))


def _arg_layout(arg: ir.Value) -> str | None:
    """NCHW or NHWC for a 4-D argument, from its users in the imported IR
    (the frontend wraps NCHW ops in transposes to and from NHWC)."""
    for use in arg.uses:
        user = use.owner.operation if hasattr(use.owner, "operation") else use.owner
        perm = _permutation(user)
        if perm == _TO_NHWC:
            return "NCHW"
        if perm == _TO_NCHW:
            return "NHWC"
        if user.name in _NHWC_OPS and use.operand_number == 0:
            return "NHWC"
    return None


def _result_layout(value: ir.Value) -> str | None:
    owner = value.owner
    if isinstance(owner, ir.Block):
        return _arg_layout(value)
    op = owner.operation
    perm = _permutation(op)
    if perm == _TO_NCHW:
        return "NCHW"
    if perm == _TO_NHWC or op.name in _NHWC_OPS:
        return "NHWC"
    return None


def _infer_layouts(func: ir.Operation, inputs: list[TensorInfo],
                   outputs: list[TensorInfo]) -> None:
    """Fills in the layout of 4-D inputs and outputs the model did not
    declare with a `tinyml.layout` attribute."""
    block = func.regions[0].blocks[0]
    for info, arg in zip(inputs, block.arguments):
        if info.layout is None and len(info.shape) == 4:
            info.layout = _arg_layout(arg)
    terminator = list(block.operations)[-1].operation
    for info, value in zip(outputs, terminator.operands):
        if info.layout is None and len(info.shape) == 4:
            info.layout = _result_layout(value)


def signature(func: ir.Operation) -> tuple[str, list[TensorInfo], list[TensorInfo]]:
    """(symbol name, inputs, outputs) of a tensor-level function; the layout
    of 4-D tensors is the declared one (`tinyml.layout`) or inferred."""
    fn_type = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
    name = ir.StringAttr(func.attributes["sym_name"]).value
    inputs = _tensor_infos(func, fn_type.inputs, "arg_attrs", "input")
    outputs = _tensor_infos(func, fn_type.results, "res_attrs", "output")
    _infer_layouts(func, inputs, outputs)
    for info in inputs + outputs:
        if info.dtype != "float32":
            raise CompileError(f"'{info.name}' has element type {info.dtype}: "
                               "only float32 is supported")
    return name, inputs, outputs


# ---------------------------------------------------------------------------
# The compiled model
# ---------------------------------------------------------------------------

@dataclass
class CompiledModel:
    """A compiled model: its signature, the report of its compilation, and
    its artefacts (file name -> contents): for the host the LLVM-dialect
    MLIR that the JIT runs, for a Cortex-M the object, header and IR.

    Calling it runs one inference: on the host through the JIT, on a
    Cortex-M in the emulator (`run` gives the instruction count too)."""

    name: str
    target: str
    function: str
    inputs: list[TensorInfo]
    outputs: list[TensorInfo]
    artefacts: dict[str, str | bytes]
    report_data: dict[str, Any] = field(default_factory=dict)
    compile_seconds: float = 0.0
    stages: dict[str, str] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self):
        self._context = None
        self._module = None
        self._engine = None

    @property
    def arena_bytes(self) -> int:
        return int(self.report_data.get("arena_bytes", 0))

    @property
    def llvm_mlir(self) -> str:
        return self.artefacts[f"{self.name}.mlir"]

    # -- running ------------------------------------------------------------

    def _ensure_engine(self):
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
            estimate_cycles: bool = False) -> "RunResult":
        """One inference. `arena_fill` poisons the arena first (a byte
        pattern, repeated), which must not change the outputs."""
        arrays = self.check_inputs(inputs)
        if self.target == "host":
            return RunResult(self._run_host(arrays, arena_fill))
        return self._run_emulated(arrays, arena_fill, estimate_cycles)

    def _run_host(self, arrays, arena_fill) -> list[np.ndarray]:
        from mlir.runtime import get_ranked_memref_descriptor
        outputs = [np.zeros(info.shape, dtype=info.dtype) for info in self.outputs]
        arena = np.zeros(max(self.arena_bytes, 1), dtype=np.uint8)
        if arena_fill:
            arena[:] = np.resize(np.frombuffer(arena_fill, dtype=np.uint8), arena.size)
        engine = self._ensure_engine()
        descriptors = [get_ranked_memref_descriptor(a) for a in arrays + outputs + [arena]]
        engine.invoke(self.function, *[ctypes.pointer(ctypes.pointer(d)) for d in descriptors])
        return outputs

    def _run_emulated(self, arrays, arena_fill, estimate_cycles) -> "RunResult":
        import tempfile
        try:
            from . import emulator
        except ImportError as error:
            raise RunError(f"the Cortex-M emulator is not available ({error}); install it "
                           "with: pip install unicorn==2.1.4") from None
        with tempfile.TemporaryDirectory(prefix="tinyml-run-") as tmp:
            obj = Path(tmp) / f"{self.name}.o"
            obj.write_bytes(self.artefacts[f"{self.name}.o"])
            result = emulator.run_object(
                obj, self.function, arrays, [tuple(o.shape) for o in self.outputs],
                self.arena_bytes, cpu=self.target, arena_fill=arena_fill,
                estimate_cycles=estimate_cycles)
        return RunResult(result.outputs, result.instructions, result.stack_bytes,
                         result.cycles_estimate)

    def warm_up(self) -> "CompiledModel":
        """JIT-compiles now rather than on the first call (host only)."""
        if self.target == "host":
            self._ensure_engine()
        return self

    # -- saving -------------------------------------------------------------

    def report(self) -> dict[str, Any]:
        return {
            "format": FORMAT_VERSION,
            "model": self.name,
            "target": self.target,
            "function": self.function,
            "artefacts": sorted(self.artefacts),
            "inputs": [i.to_json() for i in self.inputs],
            "outputs": [o.to_json() for o in self.outputs],
            **self.report_data,
            "compile_seconds": round(self.compile_seconds, 4),
            "options": self.options,
            "stages": [f"stages/{i:02d}-{stage}.mlir" for i, stage in enumerate(self.stages)],
        }

    def save(self, outdir: str | os.PathLike) -> Path:
        """Writes the artefacts, `report.json` and (when kept) the IR after
        every stage into `outdir` (created if needed)."""
        outdir = Path(outdir)
        outdir.mkdir(parents=True, exist_ok=True)
        for filename, content in self.artefacts.items():
            path = outdir / filename
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content)
        if self.stages:
            (outdir / "stages").mkdir(exist_ok=True)
            for i, (stage, text) in enumerate(self.stages.items()):
                (outdir / "stages" / f"{i:02d}-{stage}.mlir").write_text(text)
        (outdir / REPORT).write_text(json.dumps(self.report(), indent=2) + "\n")
        return outdir


@dataclass
class RunResult:
    """Outputs of one inference and, in the emulator, what it cost."""

    outputs: list[np.ndarray]
    instructions: int | None = None
    stack_bytes: int | None = None
    cycles_estimate: int | None = None


_REPORT_KEYS = ("format", "model", "target", "function", "artefacts", "inputs", "outputs",
                "compile_seconds", "options", "stages")


def load(outdir: str | os.PathLike) -> CompiledModel:
    """A model saved by `CompiledModel.save`."""
    outdir = Path(outdir)
    report_path = outdir / REPORT
    if not report_path.is_file():
        raise RunError(f"'{outdir}' is not a compiled model (no {REPORT})")
    try:
        report = json.loads(report_path.read_text())
        artefacts = {}
        for filename in report["artefacts"]:
            data = (outdir / filename).read_bytes()
            artefacts[filename] = data if filename.endswith(".o") else data.decode()
        return CompiledModel(
            name=report["model"], target=report["target"], function=report["function"],
            inputs=[TensorInfo.from_json(i) for i in report["inputs"]],
            outputs=[TensorInfo.from_json(o) for o in report["outputs"]],
            artefacts=artefacts,
            report_data={k: v for k, v in report.items() if k not in _REPORT_KEYS},
            compile_seconds=report.get("compile_seconds", 0.0),
            options=report.get("options", {}))
    except (OSError, KeyError, TypeError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise RunError(f"'{outdir}' holds a damaged compiled model: {error}") from None


# ---------------------------------------------------------------------------
# Compiling
# ---------------------------------------------------------------------------

def compile(model, target: str = "host", *, batch: int = 1, entry: str | None = None,
            fuse: bool = True, sram_budget: int | None = None,
            memory: dict[str, Any] | None = None, opt_level: str = "Os",
            emit_stages: bool = False, emit_assembly: bool = False, name: str | None = None,
            warm_up: bool = True) -> CompiledModel:
    """Compiles `model` (an .onnx or .mlir path, an onnx.ModelProto, or an
    ir.Module in the tinyml dialect) for `target` (see `targets.TARGETS`).

    `batch` fixes a symbolic batch dimension of an ONNX model; `entry`
    picks the function of a multi-function module; `fuse=False` turns all
    fusion off; `sram_budget` (bytes) fails the compile when the arena does
    not fit; `memory` passes options to the memory planner; `opt_level`
    (O1, O2, O3, Os, Oz) is LLVM's for a Cortex-M object; `emit_stages`
    keeps the IR after every stage (`CompiledModel.stages`); `warm_up`
    JIT-compiles a host model before returning."""
    try:
        spec = lookup_target(target)
    except TargetError as error:
        raise CompileError(str(error)) from None
    if opt_level not in OPT_LEVELS:
        raise CompileError(f"unknown optimization level '{opt_level}' "
                           f"(known: {', '.join(OPT_LEVELS)})")
    start = time.perf_counter()
    context = make_context()
    module, default_name = load_model(model, context, batch)
    stages: dict[str, str] = {}
    report: dict[str, Any] = {"fusion": fuse}
    with context, ir.Location.unknown(context):
        func = entry_function(module, entry)
        function, inputs, outputs = signature(func)
        name = function = _name_entry(module, func, name, default_name or function)
        if spec.is_host:
            func.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
        elif "llvm.emit_c_interface" in func.attributes:
            del func.attributes["llvm.emit_c_interface"]
        if emit_stages:
            stages["input"] = str(module)
        for stage_name, stage in pipelines.compile_stages(
                spec.index_bitwidth, bare_ptr=not spec.is_host, fuse=fuse, memory=memory,
                max_accumulators=spec.max_accumulators):
            _run_stage(stage_name, stage, module)
            if emit_stages:
                stages[stage_name] = str(module)
            if stage_name == "cleanup":
                report["macs"] = analysis.macs(module)
            elif stage_name == "plan-memory":
                plan = stage.elements[0].plans[function]
                report.update(_memory_report(plan))
                timeline = (plan.timeline_json(), plan.timeline_svg())
                _check_budget(plan, sram_budget)
            elif stage_name == "lower-to-loops":
                report["kernels"] = analysis.loop_nests(module)
        llvm_mlir = str(module)
    artefacts: dict[str, str | bytes] = {"memory.json": timeline[0], "memory.svg": timeline[1]}
    if spec.is_host:
        artefacts[f"{name}.mlir"] = llvm_mlir
    else:
        artefacts.update(_build_cortex_m(llvm_mlir, name, function, spec, inputs, outputs,
                                         report, emit_assembly, opt_level))
    compiled = CompiledModel(
        name=name, target=target, function=function, inputs=inputs, outputs=outputs,
        artefacts=artefacts, report_data=report, stages=stages,
        options={"batch": batch, "fusion": fuse,
                 **({} if spec.is_host else {"opt_level": opt_level}),
                 **({"entry": entry} if entry else {}),
                 **({"sram_budget": sram_budget} if sram_budget is not None else {})})
    if spec.is_host:
        compiled._context, compiled._module = context, module
        if warm_up:
            try:
                compiled.warm_up()
            except RuntimeError as error:  # the JIT failed (e.g. an unresolved symbol)
                raise CompileError(f"the host JIT failed: {_one_line(error)}") from None
    compiled.compile_seconds = time.perf_counter() - start
    return compiled


def _run_stage(stage_name: str, stage, module: ir.Module) -> None:
    try:
        stage.run(module)
    except ir.MLIRError as error:
        raise _mlir_error(f"stage '{stage_name}' failed: ", error) from None
    except (PassError, PipelineError) as error:
        raise CompileError(f"stage '{stage_name}' failed: {error}") from None


def _memory_report(plan) -> dict[str, Any]:
    return {
        "arena_bytes": plan.arena_bytes,
        "arena_alignment": plan.alignment,
        "naive_arena_bytes": plan.naive_bytes,
        "greedy_arena_bytes": plan.greedy_arena_bytes,
        "lower_bound_bytes": plan.lower_bound_bytes,
        "peak_op": plan.peak_op,
        "memory_timeline": ["memory.json", "memory.svg"],
    }


def _check_budget(plan, budget: int | None) -> None:
    if budget is not None and plan.arena_bytes > budget:
        raise CompileError(
            f"the arena needs {plan.arena_bytes} bytes, {plan.arena_bytes - budget} over the "
            f"SRAM budget of {budget}; the peak is at {plan.peak_op or 'an unknown op'}")


def _build_cortex_m(llvm_mlir: str, name: str, function: str, spec, inputs, outputs,
                    report: dict[str, Any], emit_assembly: bool,
                    opt_level: str) -> dict[str, str | bytes]:
    import tempfile

    from .targets import cortexm
    from .toolchain import ToolchainError
    with tempfile.TemporaryDirectory(prefix="tinyml-build-") as tmp:
        try:
            files = cortexm.build_object(llvm_mlir, name, spec, Path(tmp), emit_assembly,
                                         opt_level)
            report["flash"] = cortexm.object_sizes(files.obj)
            report["stack_frames"] = cortexm.stack_frame_sizes(files.obj)
        except ToolchainError as error:
            raise CompileError(f"the Cortex-M back end failed: {error}") from None
        artefacts = {f"{name}.o": files.obj.read_bytes(),
                     f"{name}.ll": files.llvm_ir.read_text(),
                     f"{name}.mlir": llvm_mlir,
                     f"{name}.h": cortexm.header(function, inputs, outputs,
                                                 report["arena_bytes"],
                                                 report["arena_alignment"])}
        if files.assembly is not None:
            artefacts[f"{name}.s"] = files.assembly.read_text()
    return artefacts
