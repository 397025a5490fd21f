"""`tinyml.compile`: a model (ONNX file or ModelProto, or tinyml IR) to a
`CompiledModel` that runs, saves and loads.

Every target lowers through `pipeline.stages.compile_stages()` to the LLVM
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
import hashlib
import importlib.util
import json
import math
import os
import re
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np
from mlir import ir
from mlir.dialects import quant

from .conversion.number_kernels import NumberKernels, kernel_number
from .frontend import BATCH_ATTRIBUTE
from .ir.context import make_context
from .ir.diagnostics import format_mlir_error, location_prefix
from .ir.parser_traps import parser_traps
from .ir.quant import is_per_axis
from .ir.values import element_of, producer
from .memory.plan_memory import PlanMemory
from .pipeline.builder import Pipeline
from .pipeline.registry import PassError, PipelineError, lookup
from .pipeline.stages import compile_stages
from .targets import profile as profiling
from .safe_io import replace_output_dir, unreadable_reason

from .targets import EMULATORS, TARGETS, TargetError, lookup_target  # noqa: F401  (re-exported)
from .targets.cortexm import OPT_LEVELS, c_identifier, object_signature, signature_asm

REPORT = "report.json"
# 2: report.json records the SHA-256 of every artefact and of its own content.
# 3: the artefact that runs records its signature (`signature_record`).
FORMAT_VERSION = 3
#: The LLVM-dialect module's attribute holding `signature_record`.
SIGNATURE_ATTRIBUTE = "tinyml.signature"


class CompileError(Exception):
    """The model cannot be compiled (bad input, unsupported op, unknown
    target). The message is one line; `details` holds every MLIR
    diagnostic when there are several."""

    def __init__(self, message: str, details: str | None = None):
        super().__init__(message)
        self.details = details or message


def _mlir_error(prefix: str, error: ir.MLIRError, source: str | None = None) -> CompileError:
    """`source`: the file the parsed text came from, which the parser
    (given a string) calls `-`."""
    details = format_mlir_error(error)
    if source is not None:
        details = re.sub(r"^-:", lambda _: f"{source}:", details, flags=re.MULTILINE)
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
    # An int8 tensor's real value is scale * (q - zero_point).
    scale: float | None = None
    zero_point: int | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Any, where: str = "tensor") -> "TensorInfo":
        """The tensor a report describes at `where` (e.g. `outputs[0]`);
        `_Damage` when it is not one tinyml could have compiled: a non-empty
        name, a static shape of positive sizes whose buffer has a 32-bit
        size, a dtype a compiled function takes, a known layout."""
        if not isinstance(data, dict):
            raise _Damage(where, f"must be an object, got {_shown(data)}")
        name, shape = data.get("name"), data.get("shape")
        dtype, layout = data.get("dtype", "float32"), data.get("layout")
        if not isinstance(name, str) or not name:
            raise _Damage(f"{where}.name", f"must be a non-empty string, got {_shown(name)}")
        if not isinstance(shape, list) or not all(_is_int(d) and d > 0 for d in shape):
            raise _Damage(f"{where}.shape",
                          f"must be a list of positive integers, got {_shown(shape)}")
        if dtype not in _TENSOR_DTYPES:
            raise _Damage(f"{where}.dtype", f"{_shown(dtype)} is not a dtype tinyml "
                                            f"compiles (it compiles: {', '.join(_TENSOR_DTYPES)})")
        size = _byte_size(cls(name=name, shape=shape, dtype=dtype))
        if size > _MAX_TENSOR_BYTES:
            raise _Damage(f"{where}.shape", f"{shape} is {size} bytes, more than a 32-bit "
                                            "size can hold")
        if layout is not None and layout not in _LAYOUTS:
            raise _Damage(f"{where}.layout",
                          f"must be null, NCHW or NHWC, got {_shown(layout)}")
        scale, zero_point = data.get("scale"), data.get("zero_point")
        if scale is not None and not (isinstance(scale, float) and math.isfinite(scale)
                                      and scale > 0):
            raise _Damage(f"{where}.scale", f"must be null or a positive number, got "
                                            f"{_shown(scale)}")
        if zero_point is not None and not (_is_int(zero_point) and -128 <= zero_point <= 127):
            raise _Damage(f"{where}.zero_point", f"must be null or an int8, got "
                                                 f"{_shown(zero_point)}")
        return cls(name=name, shape=list(shape), dtype=dtype, layout=layout, scale=scale,
                   zero_point=zero_point)


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
    return _imported(lambda: import_onnx(model, batch=batch, context=context), context)


def _import_tflite(path: Path, context: ir.Context, batch: int) -> ir.Module:
    from .frontend.tflite import import_tflite
    return _imported(lambda: import_tflite(str(path), context=context, batch=batch), context)


def _imported(run_frontend, context: ir.Context) -> ir.Module:
    """The module a frontend imports, its verdicts on the model as
    CompileErrors."""
    from .frontend import FrontendError
    with context, ir.Location.unknown(context):
        try:
            return run_frontend()
        except ir.MLIRError as error:
            raise _mlir_error("cannot import the model: ", error) from None
        except FrontendError as error:
            # Only the frontend's verdicts on the model are the user's errors;
            # any other exception is a defect and must reach the CLI as one.
            raise CompileError(_one_line(error)) from None


def _one_line(error: BaseException) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return " ".join(lines) or type(error).__name__


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
        reason = unreadable_reason(path)
        if reason:
            raise CompileError(f"cannot open model '{path}': {reason}")
        name = _sanitize(path.name.split(".")[0])  # kws.tf2onnx.onnx -> kws
        if path.suffix == ".mlir":
            try:
                text = path.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                raise CompileError(f"cannot parse '{path}': not a text file") from None
            traps = parser_traps(text)  # text the upstream parser aborts on
            if traps:
                raise CompileError(f"cannot parse '{path}': {path}:{traps[0].line}:"
                                   f"{traps[0].column}: {traps[0].message}")
            with context, ir.Location.unknown(context):
                try:
                    return ir.Module.parse(text, context), name
                except ir.MLIRError as error:
                    raise _mlir_error(f"cannot parse '{path}': ", error, str(path)) from None
        if _is_tflite_file(path):
            return _import_tflite(path, context, batch), name
        return _import_onnx(str(path), context, batch), name
    raise CompileError(f"cannot compile a {type(model).__name__}: expected a path, "
                       "an onnx.ModelProto or an ir.Module")


def _is_tflite_file(path: Path) -> bool:
    """Whether the file at `path` is a TFLite flatbuffer, by its content."""
    from .frontend.tflite.importer import is_tflite
    try:
        with open(path, "rb") as f:
            return is_tflite(f.read(8))
    except OSError:
        return False



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


_DATA_MOVEMENT = ("tinyml.transpose", "tinyml.reshape")


def _quantized_type_of(value: ir.Value, forward: bool) -> Any:
    """The per-tensor quantized type an int8 argument (`forward`) or result
    is seen as: the `quant.scast` it reaches through transposes and
    reshapes; None when there is none."""
    ops = [use.owner for use in value.uses] if forward else [producer(value)]
    for op in ops:
        if op is None:
            continue
        if op.name in _DATA_MOVEMENT:
            found = _quantized_type_of(op.results[0] if forward else op.operands[0], forward)
            if found is not None:
                return found
        elif op.name == "quant.scast":
            element = (op.results[0] if forward else op.operands[0]).type.element_type
            if isinstance(element, quant.UniformQuantizedType):
                return element
    return None


def _read_quantization(func: ir.Operation, inputs: list[TensorInfo],
                       outputs: list[TensorInfo]) -> None:
    """The scale and zero point of int8 inputs and outputs."""
    block = func.regions[0].blocks[0]
    terminator = list(block.operations)[-1].operation
    for info, value, forward in [(i, a, True) for i, a in zip(inputs, block.arguments)] + \
            [(o, v, False) for o, v in zip(outputs, terminator.operands)]:
        element = _quantized_type_of(value, forward) if info.dtype == "int8" else None
        if element is not None:
            info.scale, info.zero_point = float(element.scale), int(element.zero_point)


def _computes_in_float(op: ir.Operation) -> bool:
    return op.name != "arith.constant" and any(
        isinstance(v.type, ir.RankedTensorType) and isinstance(v.type.element_type, ir.F32Type)
        for v in list(op.operands) + list(op.results))


def _refuse_float_layers(func: ir.Operation, target: str) -> None:
    """A target without an FPU runs integer models only: the first op that
    computes in float32 (a float model, or a layer of a quantized model
    with no integer kernel yet) is the error. Per-tensor quantize and
    dequantize (a float-edged model's edges) lower with integers there."""
    for op in func.regions[0].blocks[0].operations:
        op = op.operation
        conversion = op.name == "tinyml.quantize" or (
            op.name == "tinyml.dequantize" and not is_per_axis(element_of(op.operands[0])))
        if _computes_in_float(op) and not conversion and op.name != "func.return":
            raise CompileError(f"{target} has no FPU: only int8 models whose every layer "
                               f"has an integer kernel compile for it; '{op.name}' at "
                               f"{location_prefix(op.location)} computes in float32")


#: Ops that compute in float32 in a quantized model exactly as TFLite and
#: onnxruntime do: the conversions at a float-edged model's boundary.
_EXACT_CONVERSIONS = ("tinyml.quantize", "tinyml.dequantize")


def float_layers(func: ir.Operation) -> list[dict[str, str]]:
    """The layers of a quantized model that compute in float32 where its
    reference (TFLM's int8 kernels) computes in integers: each op with no
    integer kernel left between a dequantize and a quantize, by layer (its
    location) and op. Empty for a float model."""
    ops = [op.operation for op in func.regions[0].blocks[0].operations]
    if not any(op.name in _EXACT_CONVERSIONS for op in ops):
        return []
    return [{"layer": location_prefix(op.location).strip('"'), "op": op.name} for op in ops
            if _computes_in_float(op) and op.name not in (*_EXACT_CONVERSIONS, "func.return")]


def signature(func: ir.Operation) -> tuple[str, list[TensorInfo], list[TensorInfo]]:
    """(symbol name, inputs, outputs) of a tensor-level function; the layout
    of 4-D tensors is the declared one (`tinyml.layout`) or inferred."""
    fn_type = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
    name = ir.StringAttr(func.attributes["sym_name"]).value
    inputs = _tensor_infos(func, fn_type.inputs, "arg_attrs", "input")
    outputs = _tensor_infos(func, fn_type.results, "res_attrs", "output")
    _infer_layouts(func, inputs, outputs)
    _read_quantization(func, inputs, outputs)
    for info in inputs + outputs:
        if info.dtype not in _TENSOR_DTYPES:
            raise CompileError(f"'{info.name}' has element type {info.dtype}: "
                               f"only {' and '.join(_TENSOR_DTYPES)} are supported")
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
            estimate_cycles: bool = False, profile: bool = False,
            emulator: str = "unicorn") -> "RunResult":
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
                raise RunError("QEMU counts no instructions: cycle estimates and profiles "
                               "need the unicorn emulator")
            return self._run_on_qemu(arrays, arena_fill)
        if profile:
            try:
                profiling.kernel_map(self.report_data)
            except profiling.ProfileError as error:
                raise RunError(f"cannot profile '{self.name}': {error}") from None
        if self.target == "host":
            result = RunResult(self._run_host(arrays, arena_fill))
            if profile:
                result.profile = profiling.build(self.name, self.target, self.report_data)
            return result
        return self._run_emulated(arrays, arena_fill, estimate_cycles or profile, profile)

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

    def _run_emulated(self, arrays, arena_fill, estimate_cycles, profile) -> "RunResult":
        import tempfile
        try:
            from .targets import emulator
        except ImportError as error:
            raise RunError(f"the Cortex-M emulator is not available ({error}); install it "
                           "with: pip install unicorn==2.1.4") from None
        with tempfile.TemporaryDirectory(prefix="tinyml-run-") as tmp:
            obj = Path(tmp) / "model.o"  # the model's name may fill a file name by itself
            obj.write_bytes(self.artefacts[f"{self.name}.o"])
            result = emulator.run_object(
                obj, self.function, arrays, [tuple(o.shape) for o in self.outputs],
                self.arena_bytes, cpu=self.target, arena_fill=arena_fill,
                output_dtypes=[o.dtype for o in self.outputs],
                estimate_cycles=estimate_cycles, profile=profile)
        return RunResult(result.outputs, result.instructions, result.stack_bytes,
                         result.cycles_estimate,
                         profiling.build(self.name, self.target, self.report_data,
                                         result.attribution, result.instructions,
                                         result.cycles_estimate) if profile else None)

    def _run_on_qemu(self, arrays, arena_fill) -> "RunResult":
        from .targets import qemu
        try:
            run = qemu.run_firmware(
                self.function, self.target, self.artefacts[f"{self.name}.o"],
                self.artefacts[f"{self.name}.h"], arrays,
                [(tuple(o.shape), o.dtype) for o in self.outputs], arena_fill)
        except qemu.QemuError as error:
            raise RunError(str(error)) from None
        return RunResult(run.outputs, board=run.board, firmware_bytes=run.firmware_bytes)

    def warm_up(self) -> "CompiledModel":
        """JIT-compiles now rather than on the first call (host only)."""
        if self.target == "host":
            self._ensure_engine()
        return self

    # -- saving -------------------------------------------------------------

    def report(self) -> dict[str, Any]:
        """What `save` writes as report.json. `artefacts` maps every artefact
        to the SHA-256 of its bytes and `report_digest` is the SHA-256 of the
        rest of the report, so `load` can tell a damaged or edited folder
        from a sound one."""
        report = {
            "format": FORMAT_VERSION,
            "model": self.name,
            "target": self.target,
            "function": self.function,
            "artefacts": {filename: _sha256(_artefact_bytes(content))
                          for filename, content in sorted(self.artefacts.items())},
            "inputs": [i.to_json() for i in self.inputs],
            "outputs": [o.to_json() for o in self.outputs],
            **self.report_data,
            "compile_seconds": round(self.compile_seconds, 4),
            "options": self.options,
            "stages": [f"stages/{i:02d}-{stage}.mlir" for i, stage in enumerate(self.stages)],
        }
        report["report_digest"] = _report_digest(report)
        return report

    def save(self, outdir: str | os.PathLike,
             inputs: Sequence[str | os.PathLike] = ()) -> Path:
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
                (folder / "stages" / f"{i:02d}-{stage}.mlir").write_text(text, encoding="utf-8")
        (folder / REPORT).write_text(json.dumps(self.report(), indent=2) + "\n", encoding="utf-8")


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


_REPORT_KEYS = ("format", "model", "target", "function", "artefacts", "inputs", "outputs",
                "compile_seconds", "options", "stages", "report_digest")

# What `load` accepts in report.json: what `compile` writes, nothing a run
# could overrun, overflow or crash on.
_TENSOR_DTYPES = ("float32", "int8")  # what `signature` compiles
_LAYOUTS = ("NCHW", "NHWC")
_MAX_TENSOR_BYTES = (1 << 31) - 1  # a buffer size a 32-bit target can index
_MAX_HOST_ARENA_BYTES = 1 << 31  # far beyond a tiny model; refuses absurd sizes
_MAX_REPORT_BYTES = 64 << 20
_C_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_FILE_NAME = re.compile(r"[A-Za-z0-9_.-]+\Z")  # what `_sanitize` makes of a model name
_SHA256_HEX = re.compile(r"[0-9a-f]{64}\Z")


class _Damage(Exception):
    """One problem of a compiled folder: the field or file, and what is wrong."""

    def __init__(self, where: str, problem: str):
        super().__init__(f"{where}: {problem}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _shown(value: Any) -> str:
    """A report value as a message quotes it: JSON, one line, short."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _artefact_bytes(content: str | bytes) -> bytes:
    """An artefact as `save` writes it: text in UTF-8."""
    return content if isinstance(content, bytes) else content.encode("utf-8")


def _report_digest(report: dict[str, Any]) -> str:
    """SHA-256 of the canonical JSON of every field but `report_digest`,
    after a JSON round trip, so the writer hashes what the reader will."""
    fields = json.loads(json.dumps({k: v for k, v in report.items() if k != "report_digest"}))
    return _sha256(json.dumps(fields, sort_keys=True, separators=(",", ":")).encode())


def load(outdir: str | os.PathLike) -> CompiledModel:
    """A model saved by `CompiledModel.save`, once its folder proved sound:
    report.json fits its schema and its own digest, every artefact its
    SHA-256, and the compiled function agrees with the report (`_cross_check`).
    Nothing is allocated, mapped or JIT-compiled before that; any problem is
    a one-line RunError naming the field or file."""
    outdir = Path(outdir)
    report_path = outdir / REPORT
    if not report_path.is_file():
        raise RunError(f"'{outdir}' is not a compiled model (no {REPORT})")
    try:
        report = _read_report(report_path)
        version = report.get("format")
        if _is_int(version) and version > 0 and version != FORMAT_VERSION:
            raise RunError(f"'{outdir}' holds a model saved in report format {version}; this "
                           f"tinyml reads format {FORMAT_VERSION}: compile the model again")
        _check_report(report)
        model = CompiledModel(
            name=report["model"], target=report["target"], function=report["function"],
            inputs=[TensorInfo.from_json(i) for i in report["inputs"]],
            outputs=[TensorInfo.from_json(o) for o in report["outputs"]],
            artefacts=_read_artefacts(outdir, report["artefacts"]),
            report_data={k: v for k, v in report.items() if k not in _REPORT_KEYS},
            compile_seconds=report["compile_seconds"], options=report["options"])
        _cross_check(model, outdir)
    except _Damage as damage:
        raise RunError(f"'{outdir}' holds a damaged compiled model: {damage}") from None
    return model


def _read_report(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as stream:
            text = stream.read(_MAX_REPORT_BYTES + 1)
    except OSError as error:
        raise _Damage(REPORT, f"cannot read it ({error.strerror or error})") from None
    if len(text) > _MAX_REPORT_BYTES:
        raise _Damage(REPORT, f"more than {_MAX_REPORT_BYTES} bytes, which no report is")
    try:
        report = json.loads(text)
    except ValueError as error:  # JSONDecodeError, UnicodeDecodeError
        raise _Damage(REPORT, f"not valid JSON ({error})") from None
    except RecursionError:
        raise _Damage(REPORT, "not valid JSON (nested too deeply)") from None
    if not isinstance(report, dict):
        raise _Damage(REPORT, f"must hold a JSON object, got {_shown(report)}")
    return report


def _check_report(report: dict[str, Any]) -> None:
    """The fields a load and a run rely on, against what `compile` writes,
    then the report's own digest, which keeps every other field as written."""
    version = report.get("format")
    if version != FORMAT_VERSION or not _is_int(version):
        raise _Damage("format", f"must be a positive integer, got {_shown(version)}")
    name = report.get("model")
    if not isinstance(name, str) or not _FILE_NAME.match(name) or name in (".", ".."):
        raise _Damage("model", "must be a file name stem (letters, digits, '_', '.', '-'), "
                               f"got {_shown(name)}")
    target = report.get("target")
    if not isinstance(target, str):
        raise _Damage("target", f"must be a string, got {_shown(target)}")
    try:
        spec = lookup_target(target)
    except TargetError as error:
        raise _Damage("target", str(error)) from None
    function = report.get("function")
    if not isinstance(function, str) or not _C_IDENTIFIER.match(function):
        raise _Damage("function", f"must be a C identifier, got {_shown(function)}")
    _check_artefact_list(report.get("artefacts"), name, spec)
    for key in ("inputs", "outputs"):
        _check_tensor_list(report.get(key), key)
    arena = report.get("arena_bytes")
    if not _is_int(arena) or arena < 0:
        raise _Damage("arena_bytes", f"must be a non-negative integer, got {_shown(arena)}")
    limit = _arena_limit(spec)
    if arena > limit:
        raise _Damage("arena_bytes", f"{arena} is more than the {limit} bytes a {target} "
                                     "run can hold")
    seconds = report.get("compile_seconds")
    if not isinstance(seconds, (int, float)) or isinstance(seconds, bool) or not seconds >= 0:
        raise _Damage("compile_seconds", f"must be a non-negative number, got {_shown(seconds)}")
    if not isinstance(report.get("options"), dict):
        raise _Damage("options", f"must be an object, got {_shown(report.get('options'))}")
    stages = report.get("stages")
    if not isinstance(stages, list) or not all(isinstance(s, str) for s in stages):
        raise _Damage("stages", f"must be a list of file names, got {_shown(stages)}")
    digest = report.get("report_digest")
    if not isinstance(digest, str) or not _SHA256_HEX.match(digest):
        raise _Damage("report_digest", f"must be a SHA-256 hex digest, got {_shown(digest)}")
    if digest != _report_digest(report):
        raise _Damage(REPORT, "its content does not match its report_digest: it was edited "
                              "or damaged after tinyml wrote it")


def _required_artefacts(name: str, spec) -> tuple[str, ...]:
    """The LLVM-dialect module, and for a Cortex-M the object that runs."""
    return (f"{name}.mlir",) if spec.is_host else (f"{name}.o", f"{name}.mlir")


def _check_artefact_list(artefacts: Any, name: str, spec) -> None:
    if not isinstance(artefacts, dict):
        raise _Damage("artefacts", "must be an object of file name: SHA-256, "
                                   f"got {_shown(artefacts)}")
    for filename, digest in artefacts.items():
        if not _FILE_NAME.match(filename) or filename in (".", "..", REPORT):
            raise _Damage("artefacts", f"{_shown(filename)} is not an artefact's file name")
        if not isinstance(digest, str) or not _SHA256_HEX.match(digest):
            raise _Damage(f"artefacts.{filename}",
                          f"must be a SHA-256 hex digest, got {_shown(digest)}")
    for filename in _required_artefacts(name, spec):
        if filename not in artefacts:
            raise _Damage("artefacts", f"lists no {filename}, which a {spec.name} model needs")


def _check_tensor_list(tensors: Any, key: str) -> None:
    if not isinstance(tensors, list):
        raise _Damage(key, f"must be a list, got {_shown(tensors)}")
    if key == "outputs" and not tensors:
        raise _Damage(key, "is empty: a compiled model has at least one output")
    first_index: dict[str, int] = {}
    for i, data in enumerate(tensors):
        info = TensorInfo.from_json(data, f"{key}[{i}]")
        if info.name in first_index:
            raise _Damage(f"{key}[{i}].name", f"{_shown(info.name)} is also the name of "
                                              f"{key}[{first_index[info.name]}]")
        first_index[info.name] = i


def _arena_limit(spec) -> int:
    """The largest arena a run on `spec` can hold: a sane bound on the host,
    on a Cortex-M the SRAM the emulator maps."""
    if spec.is_host:
        return _MAX_HOST_ARENA_BYTES
    try:
        from .targets.emulator import SRAM_LIMIT
    except ImportError:  # no emulator: the run says so; bound by 32-bit sizes
        return _MAX_TENSOR_BYTES
    return SRAM_LIMIT


def _read_artefacts(outdir: Path, digests: dict[str, str]) -> dict[str, str | bytes]:
    """Every listed artefact, each checked against its SHA-256 before it is
    read into memory (a huge file in its place is hashed, not loaded)."""
    artefacts: dict[str, str | bytes] = {}
    for filename, digest in digests.items():
        path = outdir / filename
        if not path.is_file():
            raise _Damage(filename, "missing" if not path.exists() else "not a regular file")
        try:
            with open(path, "rb") as stream:
                hasher = hashlib.sha256()
                for chunk in iter(lambda: stream.read(1 << 20), b""):
                    hasher.update(chunk)
                if hasher.hexdigest() != digest:
                    raise _Damage(filename, "its content does not match its SHA-256 in "
                                            f"{REPORT} (truncated, edited or another model's)")
                stream.seek(0)
                data = stream.read()
        except OSError as error:
            raise _Damage(filename, f"cannot read it ({error.strerror or error})") from None
        if filename.endswith(".o"):
            artefacts[filename] = data
            continue
        try:
            artefacts[filename] = data.decode("utf-8")
        except UnicodeDecodeError:
            raise _Damage(filename, "not UTF-8 text") from None
    return artefacts


def _cross_check(model: CompiledModel, outdir: Path) -> None:
    """The compiled function against the report. The LLVM-dialect module must
    define it taking one argument per input, output and the arena, named as
    the report names them, with the report's arena size; on the host its
    memref descriptors must fit the tensors' ranks (the parsed module is kept
    for the JIT). A Cortex-M object must be an ARM relocatable ELF defining
    the function. Then the report's tensors and arena against the signature
    the artefact that runs records (the host's module, the Cortex-M object):
    a report resealed with other sizes would make a run overrun a buffer."""
    filename = f"{model.name}.mlir"
    context = make_context()
    with context:
        try:
            module = ir.Module.parse(model.artefacts[filename], context)
        except ir.MLIRError as error:
            details = format_mlir_error(error).strip()
            first = details.splitlines()[0] if details else error.message
            raise _Damage(filename, f"not valid MLIR ({first})") from None
        functions = {}
        for op in module.body.operations:
            if op.operation.name == "llvm.func":
                functions[ir.StringAttr(op.operation.attributes["sym_name"]).value] = op.operation
        host = model.target == "host"
        interface = f"_mlir_ciface_{model.function}" if host else model.function
        _check_interface(_llvm_function(functions, interface, filename), interface, model,
                         filename)
        if host:
            # The C interface calls the function proper, which takes every
            # memref descriptor expanded: 2 pointers, the offset, then a size
            # and a stride per dimension; the arena is 1-D.
            ranks = [len(info.shape) for info in model.inputs + model.outputs]
            expanded = _llvm_function(functions, model.function, filename)
            want = sum(3 + 2 * rank for rank in ranks) + 5
            if _argument_count(expanded) != want:
                raise _Damage(filename, f"'{model.function}' takes {_argument_count(expanded)} "
                                        f"arguments, the descriptors of the report's tensors "
                                        f"(ranks {ranks}) and arena {want}")
            _check_signature(model, _module_signature(module), filename)
            model._context, model._module = context, module
    if not host:
        _check_object(model, outdir)
        filename = f"{model.name}.o"
        try:
            recorded = object_signature(outdir / filename)
        except ValueError as error:
            raise _Damage(filename, str(error)) from None
        _check_signature(model, recorded, filename)


def _module_signature(module: ir.Module) -> str | None:
    attributes = module.operation.attributes
    if SIGNATURE_ATTRIBUTE not in attributes:
        return None
    recorded = attributes[SIGNATURE_ATTRIBUTE]
    # Any other attribute is shown as it prints, an unreadable signature.
    return recorded.value if isinstance(recorded, ir.StringAttr) else str(recorded)


_SIGNATURE = re.compile(r"inputs=([^;]*);outputs=([^;]*);arena_bytes=([0-9]+)\Z")
_TENSOR_RECORD = re.compile(r"([a-z0-9]+):([0-9]+)\Z")


def _check_signature(model: CompiledModel, recorded: str | None, filename: str) -> None:
    """The report's inputs, outputs and arena against the signature the
    artefact `filename` records (`signature_record`): the artefact is what
    runs, so it is the report that is wrong."""
    if recorded is None:
        raise _Damage(filename, "records no signature (the tensor sizes and types it was "
                                "compiled for)")
    match = _SIGNATURE.match(recorded)
    tensors = [[_TENSOR_RECORD.match(t) for t in group.split(",") if t]
               for group in match.groups()[:2]] if match else [[None]]
    if not all(all(tensors) for tensors in tensors):
        raise _Damage(filename, f"records an unreadable signature {_shown(recorded)}")
    for key, infos, records in (("inputs", model.inputs, tensors[0]),
                                ("outputs", model.outputs, tensors[1])):
        if len(infos) != len(records):
            raise _Damage(key, f"the report lists {len(infos)}, {filename} was compiled for "
                               f"{len(records)}")
        for i, (info, record) in enumerate(zip(infos, records)):
            dtype, size = record[1], int(record[2])
            if info.dtype != dtype:
                raise _Damage(f"{key}[{i}].dtype", f"the report says {info.dtype}, {filename} "
                                                   f"was compiled for {dtype}")
            if _byte_size(info) != size:
                raise _Damage(f"{key}[{i}].shape", f"{info.shape} is {_byte_size(info)} bytes, "
                                                   f"{filename} was compiled for {size}")
    if model.arena_bytes != int(match[3]):
        raise _Damage("arena_bytes", f"the report says {model.arena_bytes}, {filename} was "
                                     f"compiled for {match[3]}")


def _llvm_function(functions: dict[str, ir.Operation], symbol: str,
                   filename: str) -> ir.Operation:
    op = functions.get(symbol)
    if op is None:
        raise _Damage(filename, f"defines no function '{symbol}'")
    if not len(op.regions[0].blocks):
        raise _Damage(filename, f"declares '{symbol}' but does not define it")
    return op


def _argument_count(func: ir.Operation) -> int:
    return len(func.regions[0].blocks[0].arguments)


def _check_interface(func: ir.Operation, symbol: str, model: CompiledModel,
                     filename: str) -> None:
    tensors = model.inputs + model.outputs
    want = len(tensors) + 1
    if _argument_count(func) != want:
        raise _Damage(filename, f"'{symbol}' takes {_argument_count(func)} arguments, the "
                                f"report's {len(model.inputs)} input(s), "
                                f"{len(model.outputs)} output(s) and arena {want}")
    attrs = func.attributes["arg_attrs"] if "arg_attrs" in func.attributes else None
    for i, info in enumerate(tensors):
        entry = _dict_attr(attrs, i)
        if "tinyml.name" in entry and ir.StringAttr(entry["tinyml.name"]).value != info.name:
            raise _Damage(filename, f"argument {i} of '{symbol}' is "
                                    f"{_shown(ir.StringAttr(entry['tinyml.name']).value)}, "
                                    f"the report says {_shown(info.name)}")
    if "tinyml.arena_bytes" in func.attributes:
        arena = ir.IntegerAttr(func.attributes["tinyml.arena_bytes"]).value
        if arena != model.arena_bytes:
            raise _Damage(filename, f"'{symbol}' needs an arena of {arena} bytes, the report "
                                    f"says {model.arena_bytes}")


def _check_object(model: CompiledModel, outdir: Path) -> None:
    try:
        from .targets.emulator import ObjectError, check_object
    except ImportError:  # no emulator: the run reports it
        return
    filename = f"{model.name}.o"
    try:
        check_object(outdir / filename, model.function, lookup_target(model.target).cpu)
    except ObjectError as error:
        raise _Damage(filename, error.problem) from None


# ---------------------------------------------------------------------------
# Compiling
# ---------------------------------------------------------------------------

def compile(model, target: str = "host", *, batch: int = 1, entry: str | None = None,
            fuse: bool = True, in_place: bool = True, sram_budget: int | None = None,
            memory: dict[str, Any] | None = None, opt_level: str = "Os",
            emit_stages: bool = False, emit_assembly: bool = False, name: str | None = None,
            warm_up: bool = True) -> CompiledModel:
    """Compiles `model` (an .onnx, .tflite or .mlir path, an onnx.ModelProto, or an
    ir.Module in the tinyml dialect) for `target` (see `targets.TARGETS`).

    `batch` fixes a symbolic batch dimension of an ONNX model; `entry`
    picks the function of a multi-function module; `fuse=False` turns all
    fusion off; `in_place=False` computes no layer over its input and no
    layer inside its consumer's loop over rows (tinyml-compute-in-place,
    tinyml-fuse-row-bands, tinyml-fuse-line-buffer: a few percent faster, a
    larger arena); `sram_budget` (bytes) fails the compile when the arena does
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
    stage_seconds: dict[str, float] = {}
    with context, ir.Location.unknown(context):
        func = entry_function(module, entry)
        function, inputs, outputs = signature(func)
        if BATCH_ATTRIBUTE in func.attributes:
            # The model's batch dimension is dynamic: say which one was built.
            report["dynamic_batch"] = ir.IntegerAttr(func.attributes[BATCH_ATTRIBUTE]).value
        name = function = _name_entry(module, func, name, default_name or function)
        if spec.is_host:
            func.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
        elif "llvm.emit_c_interface" in func.attributes:
            del func.attributes["llvm.emit_c_interface"]
        if emit_stages:
            stages["input"] = str(module)
        kernels: list = []
        for stage in compile_stages(
                spec.index_bitwidth, bare_ptr=not spec.is_host, fuse=fuse, memory=memory,
                max_accumulators=spec.max_accumulators, int_tile=spec.int_tile, dsp=spec.dsp,
                in_place=in_place, fpu=spec.fpu):
            stage_start = time.perf_counter()
            _run_stage(stage.name, stage.pipeline, module)
            if stage.name == "cleanup":
                if not spec.fpu:
                    _refuse_float_layers(func, spec.name)
                report["float_layers"] = float_layers(func)
            stage_seconds[stage.name] = round(time.perf_counter() - stage_start, 4)
            if emit_stages:
                stages[stage.name] = str(module)
            if stage.measure:
                report.update(stage.measure(module))
            for numbering in stage.pipeline.passes(NumberKernels):
                kernels += numbering.kernels[function]
            for planner in stage.pipeline.passes(PlanMemory):
                plan = planner.plans[function]
                step_locations = planner.step_locations[function]
                report.update(_memory_report(plan))
                timeline = (plan.timeline_json(), plan.timeline_svg())
                _check_budget(plan, sram_budget)
        _record_signature(module, signature_record(inputs, outputs, report["arena_bytes"]),
                          spec.is_host)
        llvm_mlir = str(module)
        report["kernel_map"] = _kernel_map(kernels, plan, step_locations)
        if not spec.is_host:
            translation_input = _with_kernel_lines(module, name)
    report["stage_seconds"] = stage_seconds
    artefacts: dict[str, str | bytes] = {"memory.json": timeline[0], "memory.svg": timeline[1]}
    if spec.is_host:
        artefacts[f"{name}.mlir"] = llvm_mlir
    else:
        artefacts.update(_build_cortex_m(llvm_mlir, translation_input, name, function, spec,
                                         inputs, outputs, report, emit_assembly, opt_level))
    compiled = CompiledModel(
        name=name, target=target, function=function, inputs=inputs, outputs=outputs,
        artefacts=artefacts, report_data=report, stages=stages,
        options={"batch": batch, "fusion": fuse, "in_place": in_place,
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


def signature_record(inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo],
                     arena_bytes: int) -> str:
    """What the compiled function reads and writes: each input's and output's
    element type and byte size, and the arena's size, e.g.
    `inputs=float32:768;outputs=float32:2048;arena_bytes=3072`. The artefact
    records it, so that `load` trusts no report that would make a run
    overrun a buffer (printable ASCII without quotes, an assembler string)."""
    def tensors(infos: Sequence[TensorInfo]) -> str:
        return ",".join(f"{info.dtype}:{_byte_size(info)}" for info in infos)
    return f"inputs={tensors(inputs)};outputs={tensors(outputs)};arena_bytes={arena_bytes}"


def _byte_size(info: TensorInfo) -> int:
    return int(np.prod(info.shape, dtype=object)) * np.dtype(info.dtype).itemsize


def _record_signature(module: ir.Module, record: str, host: bool) -> None:
    """The host's artefact is the module itself; a Cortex-M object gets the
    record in a section of its own (`cortexm.SIGNATURE_SECTION`)."""
    attributes = module.operation.attributes
    attributes[SIGNATURE_ATTRIBUTE] = ir.StringAttr.get(record)
    if not host:
        attributes["llvm.module_asm"] = ir.ArrayAttr.get(
            [ir.StringAttr.get(line) for line in signature_asm(record)])


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


def _kernel_map(kernels, plan, step_locations) -> list[dict[str, Any]]:
    """Every kernel (see `tinyml-number-kernels`) with the arena bytes live
    while it runs: the most of the planner's steps that belong to it."""
    live: dict[int, int] = {}
    for step, location in zip(plan.timeline()["steps"], step_locations):
        number = kernel_number(location)
        if number is not None:
            live[number] = max(live.get(number, 0), step["live_bytes"])
    return [{**kernel.to_json(), "live_bytes": live.get(kernel.number, 0)}
            for kernel in kernels]


def _with_kernel_lines(module: ir.Module, name: str) -> str:
    """The LLVM-dialect module as `mlir-translate` reads it for a Cortex-M
    object: every location made its kernel's line of `<name>.kernels`, in a
    line-table-only debug scope, so the object maps code to kernels (in
    `.debug_line`, which takes no flash) for the profile."""
    pipeline = Pipeline([lookup("tinyml-kernel-lines")(file=f"{name}.kernels"),
                         "ensure-debug-info-scope-on-llvm-func{emission-kind=LineTablesOnly}"])
    _run_stage("kernel-lines", pipeline, module)
    return module.operation.get_asm(enable_debug_info=True)


def _build_cortex_m(llvm_mlir: str, translation_input: str, name: str, function: str, spec,
                    inputs, outputs, report: dict[str, Any], emit_assembly: bool,
                    opt_level: str) -> dict[str, str | bytes]:
    import tempfile

    from .targets import cortexm
    from .targets.toolchain import ToolchainError
    with tempfile.TemporaryDirectory(prefix="tinyml-build-") as tmp:
        try:
            files = cortexm.build_object(translation_input, spec, Path(tmp), emit_assembly,
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
                                                 report["arena_alignment"],
                                                 report.get("dynamic_batch"))}
        if files.assembly is not None:
            artefacts[f"{name}.s"] = files.assembly.read_text()
    return artefacts
