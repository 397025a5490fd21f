"""Reading a `.tflite` flatbuffer whole into plain `Tensor`s and
`Operator`s, one `Subgraph` per subgraph: a corrupt or truncated
flatbuffer, a table reaching outside the file (`verifier.py`), parameters
TFLM would read out of range, fail here with one line naming the table and
field, before any IR is built."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import flatbuffers
import numpy as np

from .. import TFLITE_IDENTIFIER, FrontendError, is_tflite
from ..onnx.importer import shape_text
from .verifier import verify

#: TFLite tensor types tinyml reads, as numpy dtypes.
DTYPES = {"FLOAT32": np.float32, "INT8": np.int8, "INT16": np.int16, "INT32": np.int32,
          "INT64": np.int64}


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
    "SPLIT": ("SplitOptions", ("NumSplits",)),
    "WHILE": ("WhileOptions", ("CondSubgraphIndex", "BodySubgraphIndex")),
    "UNIDIRECTIONAL_SEQUENCE_LSTM": ("UnidirectionalSequenceLSTMOptions", (
        "FusedActivationFunction", "CellClip", "ProjClip", "TimeMajor",
        "AsymmetricQuantizeInputs", "DiagonalRecurrentTensors")),
    "SVDF": ("SVDFOptions", ("Rank", "FusedActivationFunction", "AsymmetricQuantizeInputs")),
}


def _names(enum) -> dict[int, str]:
    return {value: name for name, value in vars(enum).items() if not name.startswith("_")}


@dataclass
class Subgraph:
    """One subgraph: the main one (index 0) is the model's function; the
    others are the condition and body of its WHILE loops."""
    index: int
    name: str
    tensors: list[Tensor]
    operators: list[Operator]
    inputs: list[int]
    outputs: list[int]

    @property
    def label(self) -> str:
        """How a message names a place in this subgraph: nothing for the
        main one, `subgraph <i> ('<name>'): ` for another."""
        return f"subgraph {self.index} ('{self.name}'): " if self.index else ""


def read_model(data: bytes, filename: str) -> list[Subgraph]:
    """The model's subgraphs, the main one first. A file that is not a
    TFLite flatbuffer, or whose structure reaches outside the file
    (`verifier.py`), fails with one line naming the table and field."""
    import tflite

    if not is_tflite(data):
        raise FrontendError(f"{filename}: not a TFLite model (no '{TFLITE_IDENTIFIER.decode()}' "
                            "file identifier)")
    verify(data, filename)
    model = tflite.Model.GetRootAsModel(data, 0)
    if model.SubgraphsLength() == 0:
        raise FrontendError(f"{filename}: the model has no subgraphs")
    subgraphs = [_read(tflite, model, data, filename, index)
                 for index in range(model.SubgraphsLength())]
    for graph in subgraphs:
        for tensor in graph.tensors:
            problem = _quantization_problem(tensor)
            if problem:
                raise FrontendError(f"{filename}: {graph.label}tensor '{tensor.name}': "
                                    f"{problem}")
    _check_control_flow(subgraphs, filename)
    return subgraphs


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
#: cell states, SVDF's activation history).
STATE_INPUTS = {"UNIDIRECTIONAL_SEQUENCE_LSTM": (18, 19), "SVDF": (4,)}


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
    bits = {"INT8": 8, "INT16": 16}.get(tensor.type_name, 32)
    low, high = -2 ** (bits - 1), 2 ** (bits - 1) - 1
    if np.any(q.zero_points < low) or np.any(q.zero_points > high):
        return f"zero points outside [{low}, {high}]"
    return None


def _read(tflite, model, data: bytes, filename: str, graph_index: int) -> Subgraph:
    operator_names = _names(tflite.BuiltinOperator)
    type_names = _names(tflite.TensorType)
    graph = model.Subgraphs(graph_index)
    graph_name = graph.Name().decode("utf-8", "replace") if graph.Name() else ""
    place = f"{filename}: subgraph {graph_index} ('{graph_name}')" if graph_index else filename
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
            raise FrontendError(f"{place}: tensor '{name}': buffer {t.Buffer()} of "
                                f"{model.BuffersLength()}")
        raw = _buffer(model.Buffers(t.Buffer()), data)
        if raw is None:
            raise FrontendError(f"{place}: tensor '{name}': its buffer {t.Buffer()} lies "
                                f"outside the file ({len(data)} bytes)")
        tensors.append(Tensor(index, name, shape, signature, type_name,
                              _constant_value(raw, type_name, shape, place, name),
                              _quantization(t), bool(t.IsVariable())))
    read_operators = []
    for index in range(graph.OperatorsLength()):
        op = graph.Operators(index)
        if op.OpcodeIndex() >= model.OperatorCodesLength():
            raise FrontendError(f"{place}: operator {index}: operator code {op.OpcodeIndex()}"
                                f" of {model.OperatorCodesLength()}")
        code = model.OperatorCodes(op.OpcodeIndex())
        builtin = _builtin_code(tflite, code, op.OpcodeIndex(), place)
        kind = operator_names.get(builtin, f"operator code {builtin}")
        if kind == "CUSTOM":
            custom = code.CustomCode()
            kind = f"CUSTOM '{custom.decode('utf-8', 'replace')}'" if custom else kind
        where = f"{place}: operator {index} ({kind})"
        op_inputs = [int(i) for i in op.InputsAsNumpy()] if op.InputsLength() else []
        op_outputs = [int(i) for i in op.OutputsAsNumpy()] if op.OutputsLength() else []
        for tensor_index in op_inputs + op_outputs:
            if not -1 <= tensor_index < len(tensors):
                raise FrontendError(f"{where}: tensor {tensor_index} of {len(tensors)}")
        read_operators.append(Operator(index, kind, op_inputs, op_outputs,
                                       _options(tflite, op, kind, where)))
    _check_variables(tensors, read_operators, place)
    inputs = [int(i) for i in graph.InputsAsNumpy()] if graph.InputsLength() else []
    outputs = [int(i) for i in graph.OutputsAsNumpy()] if graph.OutputsLength() else []
    for what, indices in (("input", inputs), ("output", outputs)):
        for index in indices:
            if not 0 <= index < len(tensors):
                raise FrontendError(f"{place}: graph {what} {index} is not one of the "
                                    f"{len(tensors)} tensors")
    return Subgraph(graph_index, graph_name, tensors, read_operators, inputs, outputs)


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


#: Operators that run other subgraphs and tinyml does not compile (a WHILE
#: loop it does: `control_flow.py`).
UNSUPPORTED_CONTROL_FLOW = ("IF", "CALL_ONCE")


def _check_control_flow(subgraphs: list[Subgraph], filename: str) -> None:
    """Every subgraph but the main one must be the condition or body of a
    WHILE (Keras 3's LSTM and GRU and Keras 2's GRU convert to one): IF
    and CALL_ONCE are refused, and so is a subgraph nothing runs."""
    run: set[int] = set()
    for graph in subgraphs:
        for op in graph.operators:
            where = f"{filename}: {graph.label}operator {op.index} ({op.kind})"
            if op.kind in UNSUPPORTED_CONTROL_FLOW:
                raise FrontendError(f"{where}: control flow over the model's "
                                    f"{len(subgraphs)} subgraphs is not supported (only "
                                    "WHILE is)")
            if op.kind != "WHILE":
                continue
            for role, option in (("condition", "CondSubgraphIndex"),
                                 ("body", "BodySubgraphIndex")):
                index = int(op.options[option])
                if not 0 < index < len(subgraphs) or index == graph.index:
                    raise FrontendError(f"{where}: its {role} subgraph {index} is not another "
                                        f"of the model's {len(subgraphs)} subgraphs")
                run.add(index)
    unused = [graph.index for graph in subgraphs[1:] if graph.index not in run]
    if unused:
        raise FrontendError(f"{filename}: the model has {len(subgraphs)} subgraphs; only "
                            "models with one, or whose others are the condition and body of "
                            f"WHILE loops, are supported (subgraph {unused[0]} is neither)")


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
