"""Reading a `.tflite` flatbuffer and building its function.

The file is first read whole into plain `Tensor`s and `Operator`s (a
corrupt or truncated flatbuffer fails there, with one line); the function
is then built from those, operator by operator (`operators.py`), with the
IR helpers the ONNX importer builds with (`Importer.tensor`, `emit`,
`transpose`, `reshape`), so that both frontends emit the same ops."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import flatbuffers
import numpy as np
from mlir import ir
from mlir.dialects import func
from onnx import TensorProto

from ...ir.context import make_context
from ...ir.quant import dequantize, quantize, storage_cast, uniform_type
from .. import TFLITE_IDENTIFIER, FrontendError, function_name, is_tflite, mark_batch
from ..onnx.importer import Const, Importer, QuantConst, shape_text
from .constraints import check_operands, check_rescaling, check_types
from .shape_folding import fold_shape_computation
from .verifier import verify

#: TFLite tensor types tinyml reads, as numpy dtypes.
DTYPES = {"FLOAT32": np.float32, "INT8": np.int8, "INT32": np.int32, "INT64": np.int64}


@dataclass
class Quantization:
    """A tensor's quantization: scales and zero points, per tensor (axis
    None) or along `axis`."""
    scales: np.ndarray
    zero_points: np.ndarray
    axis: int | None


@dataclass
class Tensor:
    index: int
    name: str
    shape: tuple[int, ...]
    signature: tuple[int, ...]  # the shape signature: -1 for an unknown dimension
    type_name: str
    data: np.ndarray | None  # a constant's value (its buffer)
    quantization: Quantization | None
    variable: bool = False  # state kept between invocations: zeros at the first

    @property
    def dynamic_batch(self) -> bool:
        """Whether the first dimension is the converter's dynamic batch (-1
        in the signature; `shape` holds the batch-1 instance, TFLM's)."""
        return bool(self.signature) and self.signature[0] < 0

    @property
    def dynamic(self) -> bool:
        """Whether a dimension other than the batch is unknown."""
        return any(d < 0 for d in self.signature[1:])


@dataclass
class Operator:
    index: int
    kind: str  # the builtin operator's name, e.g. CONV_2D
    inputs: list[int]  # tensor indices; -1 for an omitted optional input
    outputs: list[int]
    options: dict[str, Any] = field(default_factory=dict)


#: The builtin options tinyml reads, per operator: the options class and
#: the fields (their accessor names).
OPTIONS: dict[str, tuple[str, tuple[str, ...]]] = {
    "CONV_2D": ("Conv2DOptions", ("Padding", "StrideH", "StrideW", "DilationHFactor",
                                  "DilationWFactor", "FusedActivationFunction")),
    "DEPTHWISE_CONV_2D": ("DepthwiseConv2DOptions", (
        "Padding", "StrideH", "StrideW", "DilationHFactor", "DilationWFactor",
        "DepthMultiplier", "FusedActivationFunction")),
    "FULLY_CONNECTED": ("FullyConnectedOptions", ("FusedActivationFunction", "WeightsFormat",
                                                  "KeepNumDims")),
    "AVERAGE_POOL_2D": ("Pool2DOptions", ("Padding", "StrideH", "StrideW", "FilterHeight",
                                          "FilterWidth", "FusedActivationFunction")),
    "MAX_POOL_2D": ("Pool2DOptions", ("Padding", "StrideH", "StrideW", "FilterHeight",
                                      "FilterWidth", "FusedActivationFunction")),
    "ADD": ("AddOptions", ("FusedActivationFunction",)),
    "SUB": ("SubOptions", ("FusedActivationFunction",)),
    "MUL": ("MulOptions", ("FusedActivationFunction",)),
    "CONCATENATION": ("ConcatenationOptions", ("Axis", "FusedActivationFunction")),
    "SOFTMAX": ("SoftmaxOptions", ("Beta",)),
    "MEAN": ("ReducerOptions", ("KeepDims",)),
    "SQUEEZE": ("SqueezeOptions", ("SqueezeDimsAsNumpy",)),
    "STRIDED_SLICE": ("StridedSliceOptions", ("BeginMask", "EndMask", "EllipsisMask",
                                              "NewAxisMask", "ShrinkAxisMask", "Offset")),
    "PACK": ("PackOptions", ("ValuesCount", "Axis")),
    "GATHER": ("GatherOptions", ("Axis", "BatchDims")),
    "LEAKY_RELU": ("LeakyReluOptions", ("Alpha",)),
    "UNIDIRECTIONAL_SEQUENCE_LSTM": ("UnidirectionalSequenceLSTMOptions", (
        "FusedActivationFunction", "CellClip", "ProjClip", "TimeMajor",
        "AsymmetricQuantizeInputs", "DiagonalRecurrentTensors")),
}


def _names(enum) -> dict[int, str]:
    return {value: name for name, value in vars(enum).items() if not name.startswith("_")}


def read_model(data: bytes, filename: str):
    """The model's one subgraph as (tensors, operators, inputs, outputs). A file that is not a
    TFLite flatbuffer, or whose structure reaches outside the file (`verifier.py`), fails
    with one line naming the table and field."""
    import tflite

    if not is_tflite(data):
        raise FrontendError(f"{filename}: not a TFLite model (no '{TFLITE_IDENTIFIER.decode()}' "
                            "file identifier)")
    verify(data, filename)
    graph = _read(tflite, data, filename)
    for tensor in graph[0]:
        problem = _quantization_problem(tensor)
        if problem:
            raise FrontendError(f"{filename}: tensor '{tensor.name}': {problem}")
    return graph


def dequantized(tensor: Tensor) -> np.ndarray:
    """A quantized constant's real values, as TFLite's DEQUANTIZE computes
    them: scale * (q - zero point) in float32."""
    q = tensor.quantization
    assert q is not None and tensor.data is not None, "a quantized constant"
    shape = [1] * tensor.data.ndim
    if q.axis is not None:
        shape[q.axis] = -1
    scales = q.scales.astype(np.float32).reshape(shape)
    zero_points = q.zero_points.reshape(shape)
    return ((tensor.data.astype(np.int64) - zero_points).astype(np.float32) * scales)


#: Operators whose recurrent state TFLite keeps in variable tensors: the
#: positions of those inputs (UNIDIRECTIONAL_SEQUENCE_LSTM's output and
#: cell states).
STATE_INPUTS = {"UNIDIRECTIONAL_SEQUENCE_LSTM": (18, 19)}


def _check_variables(tensors: list[Tensor], operators: list[Operator], filename: str) -> None:
    """A variable tensor (state kept between invocations) may only be a
    recurrent operator's state, which tinyml starts from zeros, as TFLM's
    first invocation does; any other is refused."""
    states = {op.inputs[position] for op in operators
              for position in STATE_INPUTS.get(op.kind, ()) if position < len(op.inputs)}
    for tensor in tensors:
        if not tensor.variable:
            continue
        readers = [(op, position) for op in operators
                   for position, index in enumerate(op.inputs) if index == tensor.index]
        written = any(tensor.index in op.outputs for op in operators)
        if tensor.index not in states or written or any(
                position not in STATE_INPUTS.get(op.kind, ()) for op, position in readers):
            raise FrontendError(f"{filename}: tensor '{tensor.name}': is a variable (state kept "
                                "between invocations), which tinyml supports only as a "
                                "recurrent operator's state")


def _quantization_problem(tensor: Tensor) -> str | None:
    """What is wrong with a tensor's quantization parameters, if anything."""
    q = tensor.quantization
    if q is None or tensor.type_name == "INT32":
        # An int32 tensor is a bias, whose own parameters TFLM never reads
        # (its scale is the input's times the filter's, see `operators.bias`);
        # converters write some that do not fit its shape.
        return None
    if q.zero_points.shape != q.scales.shape:
        return f"{q.zero_points.size} zero points for {q.scales.size} scales"
    if not np.all(np.isfinite(q.scales)) or np.any(q.scales <= 0):
        return "scales must be positive and finite"
    if q.axis is not None and not (0 <= q.axis < len(tensor.shape)
                                   and tensor.shape[q.axis] == q.scales.size):
        return (f"{q.scales.size} scales along dimension {q.axis} of shape "
                f"{shape_text(tensor.shape)}")
    low, high = (-128, 127) if tensor.type_name == "INT8" else (-2 ** 31, 2 ** 31 - 1)
    if np.any(q.zero_points < low) or np.any(q.zero_points > high):
        return f"zero points outside [{low}, {high}]"
    return None


def _read(tflite, data: bytes, filename: str):
    model = tflite.Model.GetRootAsModel(data, 0)
    operator_names = _names(tflite.BuiltinOperator)
    if model.SubgraphsLength() != 1:
        raise FrontendError(f"{filename}: {_subgraphs_problem(tflite, model, operator_names)}")
    type_names = _names(tflite.TensorType)
    graph = model.Subgraphs(0)
    tensors = []
    for index in range(graph.TensorsLength()):
        t = graph.Tensors(index)
        # TFLM never reads names: one that is not UTF-8 is still a name.
        name = t.Name().decode("utf-8", "replace") if t.Name() is not None \
            else f"tensor_{index}"
        shape = tuple(int(d) for d in t.ShapeAsNumpy()) if t.ShapeLength() else ()
        signature = tuple(int(d) for d in t.ShapeSignatureAsNumpy()) \
            if t.ShapeSignatureLength() else ()
        type_name = type_names.get(t.Type(), f"type {t.Type()}")
        if t.Buffer() >= model.BuffersLength():
            raise FrontendError(f"{filename}: tensor '{name}': buffer {t.Buffer()} of "
                                f"{model.BuffersLength()}")
        raw = _buffer(model.Buffers(t.Buffer()), data)
        if raw is None:
            raise FrontendError(f"{filename}: tensor '{name}': its buffer {t.Buffer()} lies "
                                f"outside the file ({len(data)} bytes)")
        tensors.append(Tensor(index, name, shape, signature, type_name,
                              _constant_value(raw, type_name, shape, filename, name),
                              _quantization(t), bool(t.IsVariable())))
    read_operators = []
    for index in range(graph.OperatorsLength()):
        op = graph.Operators(index)
        if op.OpcodeIndex() >= model.OperatorCodesLength():
            raise FrontendError(f"{filename}: operator {index}: operator code {op.OpcodeIndex()}"
                                f" of {model.OperatorCodesLength()}")
        code = model.OperatorCodes(op.OpcodeIndex())
        builtin = _builtin_code(tflite, code, op.OpcodeIndex(), filename)
        kind = operator_names.get(builtin, f"operator code {builtin}")
        if kind == "CUSTOM":
            custom = code.CustomCode()
            kind = f"CUSTOM '{custom.decode('utf-8', 'replace')}'" if custom else kind
        where = f"{filename}: operator {index} ({kind})"
        op_inputs = [int(i) for i in op.InputsAsNumpy()] if op.InputsLength() else []
        op_outputs = [int(i) for i in op.OutputsAsNumpy()] if op.OutputsLength() else []
        for tensor_index in op_inputs + op_outputs:
            if not -1 <= tensor_index < len(tensors):
                raise FrontendError(f"{where}: tensor {tensor_index} of {len(tensors)}")
        read_operators.append(Operator(index, kind, op_inputs, op_outputs,
                                       _options(tflite, op, kind, where)))
    _check_variables(tensors, read_operators, filename)
    inputs = [int(i) for i in graph.InputsAsNumpy()] if graph.InputsLength() else []
    outputs = [int(i) for i in graph.OutputsAsNumpy()] if graph.OutputsLength() else []
    for what, indices in (("input", inputs), ("output", outputs)):
        for index in indices:
            if not 0 <= index < len(tensors):
                raise FrontendError(f"{filename}: graph {what} {index} is not one of the "
                                    f"{len(tensors)} tensors")
    return tensors, read_operators, inputs, outputs


def _buffer(buffer, data: bytes) -> bytes | None:
    """A buffer's bytes (empty for a tensor computed at run time); None when
    they lie outside the file."""
    if buffer.Offset() > 1:  # stored after the flatbuffer (models over 2 GB)
        end = buffer.Offset() + buffer.Size()
        return data[buffer.Offset():end] if end <= len(data) else None
    return buffer.DataAsNumpy().tobytes() if buffer.DataLength() else b""


def _constant_value(raw: bytes, type_name: str, shape, filename: str,
                    name: str) -> np.ndarray | None:
    """A constant tensor's value; None for a tensor computed at run time."""
    if not raw:
        return None
    dtype = DTYPES.get(type_name)
    if dtype is None:
        return np.frombuffer(raw, np.uint8)  # refused where an operator reads it
    count = int(np.prod(shape, dtype=np.int64))
    if len(raw) != count * np.dtype(dtype).itemsize:
        raise FrontendError(f"{filename}: tensor '{name}': a buffer of {len(raw)} bytes for a "
                            f"{type_name} tensor of shape {shape_text(shape)}")
    return np.frombuffer(raw, dtype).reshape(shape)


def _quantization(tensor) -> Quantization | None:
    q = tensor.Quantization()
    if q is None or q.ScaleLength() == 0:
        return None
    scales = q.ScaleAsNumpy().astype(np.float32)
    # No zero points is not "all zero": TFLite requires one per scale.
    zero_points = q.ZeroPointAsNumpy() if q.ZeroPointLength() else np.zeros(0)
    axis = int(q.QuantizedDimension()) if scales.size > 1 else None
    return Quantization(scales, np.asarray(zero_points, np.int64), axis)


#: The operators whose options have no usable defaults: without the table
#: TFLM leaves their parameters zero (a stride of 0).
NEEDS_OPTIONS = {"CONV_2D", "DEPTHWISE_CONV_2D", "AVERAGE_POOL_2D", "MAX_POOL_2D"}


#: Operators that run other subgraphs: control flow.
CONTROL_FLOW = ("WHILE", "IF", "CALL_ONCE")


def _subgraphs_problem(tflite, model, operator_names: dict[int, str]) -> str:
    """Why a model with other than one subgraph is refused: the control-flow
    operator of its main subgraph that runs the others when it has one
    (Keras 3's LSTM and GRU, Keras 2's GRU, convert to a WHILE loop)."""
    count = model.SubgraphsLength()
    kinds = _operator_kinds(model, model.Subgraphs(0), operator_names) if count else []
    for index, kind in enumerate(kinds):
        if kind in CONTROL_FLOW:
            return (f"operator {index} ({kind}): control flow over the model's {count} "
                    "subgraphs is not supported (a recurrent layer a converter wrote as a "
                    "loop: Keras 3's LSTM and GRU, Keras 2's GRU)")
    return f"the model has {count} subgraphs; only models with one are supported"


def _operator_kinds(model, graph, operator_names: dict[int, str]) -> list[str | None]:
    """The builtin operator of each of `graph`'s operators, up to the first
    whose operator code is out of range (refused later, naming it)."""
    kinds = []
    for index in range(graph.OperatorsLength()):
        op_index = graph.Operators(index).OpcodeIndex()
        if op_index >= model.OperatorCodesLength():
            break
        code = model.OperatorCodes(op_index)
        kinds.append(operator_names.get(max(code.BuiltinCode(), code.DeprecatedBuiltinCode())))
    return kinds


def _builtin_code(tflite, code, index: int, filename: str) -> int:
    """The operator an OperatorCode names, as TFLM's GetBuiltinCode reads it:
    the larger of `builtin_code` and `deprecated_builtin_code`. Converters
    keep deprecated_builtin_code = min(builtin_code, 127); a file that
    does not names two operators, and is refused. (The `tflite` package's
    BuiltinCode() answers the deprecated field below 127: the field is read
    raw.)"""
    field = code._tab.Offset(10)  # OperatorCode.builtin_code
    raw = code._tab.Get(flatbuffers.number_types.Int32Flags, field + code._tab.Pos) \
        if field else 0
    deprecated = code.DeprecatedBuiltinCode()
    if deprecated != min(raw, 127) and raw != 0:
        raise FrontendError(f"{filename}: operator code {index}: builtin_code {raw} and "
                            f"deprecated_builtin_code {deprecated} name different operators")
    return max(raw, deprecated)


def _default_options(tflite, class_name: str, fields) -> dict[str, Any]:
    """The schema's defaults of an options table, which TFLM's parser uses
    when the table is absent: the fields read from an empty table."""
    builder = flatbuffers.Builder(16)
    getattr(tflite, f"{class_name}Start")(builder)
    builder.Finish(getattr(tflite, f"{class_name}End")(builder))
    options = getattr(tflite, class_name).GetRootAs(builder.Output(), 0)
    return {name: getattr(options, name)() for name in fields}


def _options(tflite, op, kind: str, where: str) -> dict[str, Any]:
    """The fields of `OPTIONS` read from the operator's options table, whose
    type must be the operator's (TFLM reads a table of another type as
    none)."""
    if not kind.startswith("CUSTOM") and (op.CustomOptionsLength()
                                          or op.LargeCustomOptionsSize()):
        raise FrontendError(f"{where}: a builtin operator with custom options")
    if kind not in OPTIONS:
        return {}
    class_name, fields = OPTIONS[kind]
    given = op.BuiltinOptionsType()
    if given == tflite.BuiltinOptions.NONE or op.BuiltinOptions() is None:
        if kind in NEEDS_OPTIONS:
            raise FrontendError(f"{where}: has no builtin options ({class_name})")
        return _default_options(tflite, class_name, fields)
    if given != getattr(tflite.BuiltinOptions, class_name):
        given_name = _names(tflite.BuiltinOptions).get(given, f"type {given}")
        raise FrontendError(f"{where}: its builtin options are {given_name}; {kind} takes "
                            f"{class_name}")
    table = op.BuiltinOptions()
    options = getattr(tflite, class_name)()
    options.Init(table.Bytes, table.Pos)
    return {name: getattr(options, name)() for name in fields}


# op kind -> handler(importer, operator) -> list of result values (float).
HANDLERS: dict[str, Callable] = {}


def handles(*kinds: str):
    def register(fn):
        for kind in kinds:
            HANDLERS[kind] = fn
        return fn
    return register


class TfliteImporter(Importer):
    """Builds the function of a read TFLite subgraph. The IR helpers are
    the ONNX importer's; what differs is where values come from: tensors
    by index, int8 ones through dequantize, results quantized back."""

    def __init__(self, filename: str, name: str, graph, batch: int = 1):
        self.filename = filename
        self.func_name = function_name(name)
        self.tensors, self.operators, self.inputs, self.outputs = graph
        if batch < 1:
            raise self.fail(f"batch must be at least 1, got {batch}")
        self.batch = batch
        # A converter writes a dynamic batch as -1 in the signature and the
        # batch-1 instance in the shape; batch N scales that first dimension
        # (a flattened [-1] tensor holds N times its batch-1 elements).
        self.has_dynamic_batch = any(t.dynamic_batch for t in self.tensors)
        for tensor in self.tensors:
            if tensor.dynamic_batch and tensor.shape and tensor.data is None:
                tensor.shape = (tensor.shape[0] * batch, *tensor.shape[1:])
        # Keyed by tensor index, where the ONNX importer's are by name.
        self.values: dict[int, ir.Value] = {}  # type: ignore[assignment]
        self.float_values: dict[int, ir.Value] = {}
        self.cache: dict[str, ir.Value] = {}
        self.where = ""
        self.loc = None
        self.operator: Operator | None = None

    def run(self) -> ir.Module:
        if not self.outputs:
            raise self.fail("the subgraph has no outputs: it computes nothing")
        for what, indices in (("input", self.inputs), ("output", self.outputs)):
            repeated = next((i for n, i in enumerate(indices) if i in indices[:n]), None)
            if repeated is not None:
                raise self.fail(f"tensor '{self.tensors[repeated].name}' is listed twice as a "
                                f"graph {what}")
        for index in self.inputs:
            if self.tensors[index].data is not None:
                raise self.fail(f"input '{self.tensors[index].name}' has constant data: a graph "
                                "input is given at run time, not stored in the file")
        file_loc = ir.Location.file(self.filename, 0, 0)
        module = ir.Module.create(file_loc)
        arg_types = [self._io_type(self.tensors[i], "input") for i in self.inputs]
        with ir.InsertionPoint(module.body):
            fn = func.FuncOp(self.func_name, (arg_types, []), loc=file_loc)
        block = fn.add_entry_block()
        for index, arg in zip(self.inputs, block.arguments):
            self.values[index] = arg
        with ir.InsertionPoint(block):
            for operator in self.operators:
                self._import(operator)
            self.where, self.loc = "", file_loc
            results = []
            for index in self.outputs:
                tensor = self.tensors[index]
                self.where = f"output '{tensor.name}'"
                self._io_type(tensor, "output")
                if index not in self.values:
                    raise self.fail("no operator computes it")
                results.append(self.values[index])
            func.ReturnOp(results, loc=file_loc)
        fn.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(
            arg_types, [r.type for r in results]))
        fn.attributes["arg_attrs"] = ir.ArrayAttr.get(
            [ir.DictAttr.get({"tinyml.name": ir.StringAttr.get(self.tensors[i].name)})
             for i in self.inputs])
        fn.attributes["res_attrs"] = ir.ArrayAttr.get(
            [ir.DictAttr.get({"tinyml.name": ir.StringAttr.get(self.tensors[i].name)})
             for i in self.outputs])
        fn.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
        if self.has_dynamic_batch:
            mark_batch(fn, self.batch)
        return module

    def _io_type(self, tensor: Tensor, what: str) -> ir.Type:
        self.where = f"{what} '{tensor.name}'"
        if tensor.dynamic:
            raise self.fail(self.dynamic_dimension(tensor))
        if tensor.type_name not in ("FLOAT32", "INT8"):
            raise self.fail(f"has element type {tensor.type_name}; only float32 and int8 "
                            "inputs and outputs are supported")
        q = tensor.quantization
        if tensor.type_name == "INT8" and q is None:
            raise self.fail("is int8 without quantization parameters")
        if tensor.type_name == "INT8" and q is not None and q.axis is not None:
            # TFLM's kernels read one scale of an activation; only weights
            # are quantized per channel.
            raise self.fail(f"is quantized per axis ({q.scales.size} scales "
                            f"along dimension {q.axis}); a graph "
                            f"{what} takes one scale and zero point")
        self.check_size(tensor.shape, TensorProto.FLOAT, what)
        element = ir.F32Type.get() if tensor.type_name == "FLOAT32" \
            else ir.IntegerType.get_signless(8)
        return ir.RankedTensorType.get(list(tensor.shape), element)

    @staticmethod
    def dynamic_dimension(tensor: Tensor) -> str:
        axis = next(a for a, d in enumerate(tensor.signature) if a and d < 0)
        return (f"has a dynamic dimension {axis} (shape signature "
                f"{shape_text(tensor.signature)}); only the batch dimension (0) may be "
                "dynamic")

    def fail(self, message: str, where: str | None = None) -> FrontendError:
        where = self.where if where is None else where
        prefix = f"{self.filename}: {where}: " if where else f"{self.filename}: "
        return FrontendError((prefix + message).replace("\n", " "))

    def _import(self, operator: Operator) -> None:
        self.operator = operator
        self.where = f"operator {operator.index} ({operator.kind})"
        check_operands(self, operator)
        first = self.tensors[operator.outputs[0]].name if operator.outputs else operator.kind
        self.loc = ir.Location.name(first)
        for index in operator.outputs:
            tensor = self.tensors[index]
            if tensor.dynamic:
                raise self.fail(f"output '{tensor.name}' {self.dynamic_dimension(tensor)}")
        if fold_shape_computation(self, operator):
            return
        handler = HANDLERS.get(operator.kind)
        if handler is None:
            raise self.fail("is not supported")
        check_types(self, operator)
        check_rescaling(self, operator)
        results = handler(self, operator)
        # A data-movement operator on int8 returns (results, True): they are
        # the stored int8 values themselves.
        results, stored = results if isinstance(results, tuple) else (results, False)
        for index, value in zip(operator.outputs, results):
            self.store(index, value, stored)

    # -- operands and results ------------------------------------------------

    def input(self, position: int, optional: bool = False):
        """The operator's input `position`: a float32 SSA value (an int8
        tensor dequantized), a `Const`, or a `QuantConst` (an int8/int32
        constant and its quantization); None for an omitted optional one."""
        operator = self.operator
        assert operator is not None, "called while an operator is imported"
        index = operator.inputs[position] if position < len(operator.inputs) else -1
        if index < 0:
            if optional:
                return None
            raise self.fail(f"input {position} is missing")
        tensor = self.tensors[index]
        if tensor.dynamic:
            raise self.fail(f"input '{tensor.name}' {self.dynamic_dimension(tensor)}")
        if tensor.variable:
            # A recurrent state's value at the first invocation (TFLM zeroes
            # its variables when it allocates them).
            return Const(np.zeros(tensor.shape, np.float32))
        if tensor.data is not None:
            return self._constant(tensor)
        if index not in self.values:
            raise self.fail(f"input '{tensor.name}' is not computed before it is used")
        if tensor.type_name == "FLOAT32":
            return self.values[index]
        if tensor.type_name != "INT8" or tensor.quantization is None:
            raise self.fail(f"input '{tensor.name}' has element type {tensor.type_name}"
                            f"{' without quantization' if tensor.type_name == 'INT8' else ''}; "
                            "only float32 and quantized int8 tensors are supported")
        if index not in self.float_values:
            q = tensor.quantization
            element = uniform_type(list(q.scales), list(q.zero_points), np.int8, q.axis)
            self.float_values[index] = dequantize(
                storage_cast(self.values[index], element, self.loc), self.loc)
        return self.float_values[index]

    def _constant(self, tensor: Tensor):
        assert tensor.data is not None, "input() reads a constant here"
        if tensor.type_name == "FLOAT32":
            return Const(tensor.data.astype(np.float32), f"tensor_{tensor.index}")
        if tensor.type_name == "INT8" and tensor.quantization is not None \
                and self._computes_in_float():
            # A hybrid (dynamic-range) operator: float activations, int8
            # weights. Its weights are their real values, in flash.
            return Const(dequantized(tensor), f"tensor_{tensor.index}")
        if tensor.type_name in ("INT8", "INT32") and tensor.quantization is not None:
            q = tensor.quantization
            return QuantConst(tensor.data, q.scales, q.zero_points, q.axis,
                              f"tensor_{tensor.index}")
        if tensor.type_name in ("INT32", "INT64"):
            return tensor.data  # shapes, axes, paddings: read at import time
        raise self.fail(f"constant '{tensor.name}' has element type {tensor.type_name}"
                        f"{' without quantization' if tensor.type_name == 'INT8' else ''}; "
                        "only float32 constants and quantized int8/int32 ones are "
                        "supported")

    def _computes_in_float(self) -> bool:
        """Whether the current operator's data input is a float32 tensor
        computed at run time."""
        inputs = self.operator.inputs if self.operator is not None else []
        data = self.tensors[inputs[0]] if inputs and inputs[0] >= 0 else None
        return data is not None and data.type_name == "FLOAT32" and data.data is None

    def int_input(self, position: int, what: str) -> np.ndarray:
        """A constant integer input read at import time (a shape, axes)."""
        value = self.input(position)
        if not isinstance(value, np.ndarray):
            raise self.fail(f"{what} must be a constant int32 tensor")
        return value

    def store(self, index: int, value, stored: bool = False) -> None:
        """An operator's result as tensor `index`: a float result quantized
        to the tensor's parameters when the tensor is int8; a `stored` one
        (int8 already) as it is."""
        tensor = self.tensors[index]
        value = self.tensor(value)
        if tensor.shape != self.shape(value):
            raise self.fail(f"output '{tensor.name}' has shape {shape_text(tensor.shape)}, "
                            f"the operator computes {shape_text(self.shape(value))}")
        if stored or tensor.type_name == "FLOAT32":
            self.values[index] = value
            if not stored:
                self.float_values[index] = value
            return
        q = tensor.quantization
        if tensor.type_name != "INT8" or q is None or q.axis is not None:
            per_axis = " quantized per axis" if q is not None and q.axis is not None else ""
            raise self.fail(f"output '{tensor.name}' has element type {tensor.type_name}"
                            f"{per_axis}; only float32 and per-tensor int8 results are "
                            "supported")
        element = uniform_type(list(q.scales), list(q.zero_points), np.int8, None)
        quantized = quantize(value, element, self.loc)
        # TFLite rounds halves away from zero where it quantizes float values.
        quantized.owner.attributes["ties_away_from_zero"] = ir.UnitAttr.get()
        self.values[index] = storage_cast(quantized, ir.IntegerType.get_signless(8), self.loc)


def import_tflite(model, context: ir.Context | None = None,
                  name: str | None = None, batch: int = 1) -> ir.Module:
    """Imports a `.tflite` file (a path) into a verified module of one
    `func.func`, named `name` or after the file. `batch` is the value of a
    dynamic batch dimension (-1 first in a shape signature, as
    TFLiteConverter writes Keras models; TFLM runs them at 1). Raises
    `FrontendError` on bad input."""
    filename = os.fspath(model)
    try:
        data = Path(filename).read_bytes()
    except OSError as error:
        raise FrontendError(f"{filename}: cannot read: {error.strerror}") from None
    context = context or ir.Context.current or make_context()
    module = import_tflite_bytes(data, filename, context,
                                 name or Path(filename).name.split(".")[0], batch)
    with context:
        try:
            module.operation.verify()
        except ir.MLIRError as error:
            detail = error.error_diagnostics[0].message if error.error_diagnostics \
                else str(error)
            raise FrontendError(f"{filename}: the imported IR does not verify: {detail}") \
                from None
    return module


def import_tflite_bytes(data: bytes, filename: str, context: ir.Context,
                        name: str | None = None, batch: int = 1) -> ir.Module:
    """Imports a TFLite flatbuffer; the module is not verified (the caller
    does it). Raises `FrontendError` on bad input."""
    graph = read_model(data, filename)
    with context, ir.Location.unknown(context):
        return TfliteImporter(filename, name or Path(filename).name.split(".")[0], graph,
                              batch).run()

