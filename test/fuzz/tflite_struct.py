"""Structural damage of `.tflite` models, for the fuzzer's `tflite-struct`
kind (test/fuzz/fuzz.py).

A model is read whole into plain Python objects (`ModelDesc` and the
dataclasses below) with the `tflite` package's generated readers, as
tinyml's importer reads it; a mutation edits those objects (a shape, a
type, a quantization, an operator code, a builtin options table, an
operand list, a buffer, the graph's inputs and outputs); `write_model`
serializes them again with the `tflite` package's generated builders. The
writer writes whatever the objects hold, including what no converter
writes: an options table of another operator, a padding of 7, a tensor
index of -5, a buffer index past the end, a non-UTF-8 name. Only the
fields tinyml and TFLM read are kept (signature defs and sparsity are
dropped, which a valid model does not need).

    desc = read_model(data)
    rng = random.Random(1)
    damaged, done = damage_tflite(rng, desc)   # bytes, what was done
"""
from __future__ import annotations

import copy
import inspect
import math
import random
import re
import struct
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable

import flatbuffers
import numpy as np
import tflite

# ---------------------------------------------------------------------------
# The model as plain objects
# ---------------------------------------------------------------------------


@dataclass
class QuantDesc:
    scale: np.ndarray | None  # float32
    zero_point: np.ndarray | None  # int64
    quantized_dimension: int = 0
    min: np.ndarray | None = None
    max: np.ndarray | None = None


@dataclass
class TensorDesc:
    shape: np.ndarray | None  # int32
    type: int
    buffer: int
    name: bytes | None
    quantization: QuantDesc | None
    is_variable: bool = False
    shape_signature: np.ndarray | None = None
    has_rank: bool = False


@dataclass
class OptionsDesc:
    """A builtin options table: the class it was read as (e.g.
    "Conv2DOptions") and its fields (accessor name -> value; a vector
    field is a numpy array)."""
    class_name: str
    fields: dict[str, Any]


@dataclass
class OperatorDesc:
    opcode_index: int
    inputs: np.ndarray | None  # int32
    outputs: np.ndarray | None
    options_type: int  # the BuiltinOptions union's type field
    options: OptionsDesc | None  # the table (of any class, whatever options_type says)
    custom_options: bytes | None = None
    custom_options_format: int = 0
    intermediates: np.ndarray | None = None


@dataclass
class OpCodeDesc:
    deprecated_builtin_code: int
    custom_code: bytes | None
    version: int
    builtin_code: int


@dataclass
class SubGraphDesc:
    tensors: list[TensorDesc]
    inputs: np.ndarray | None
    outputs: np.ndarray | None
    operators: list[OperatorDesc]
    name: bytes | None


@dataclass
class ModelDesc:
    version: int
    operator_codes: list[OpCodeDesc]
    subgraphs: list[SubGraphDesc]
    description: bytes | None
    buffers: list[bytes | None]  # None: no data vector
    metadata: list[tuple[bytes | None, int]] = field(default_factory=list)
    metadata_buffer: np.ndarray | None = None


def _names(enum) -> dict[int, str]:
    return {value: name for name, value in vars(enum).items() if not name.startswith("_")}


OPTIONS_CLASSES = _names(tflite.BuiltinOptions)  # union type -> table class name
OPERATORS = _names(tflite.BuiltinOperator)
PREPEND = re.compile(r"Prepend(\w+)Slot\(")


@lru_cache(maxsize=None)
def options_fields(class_name: str) -> tuple[tuple[str, str], ...]:
    """(accessor, flatbuffers type) of each field of an options table the
    fuzzer can write: scalars ("Int8", "Int32", "Bool", "Float32", ...)
    and numeric vectors ("vector")."""
    reader = getattr(tflite, class_name, None)
    if reader is None:
        return ()
    prefix = f"{class_name}Add"
    found = []
    for name in sorted(vars(tflite)):
        if not name.startswith(prefix):
            continue
        accessor = name[len(prefix):]
        try:
            kind = PREPEND.search(inspect.getsource(getattr(tflite, name))).group(1)
        except (OSError, TypeError, AttributeError):
            continue
        if kind == "UOffsetTRelative":
            if not hasattr(reader, f"{accessor}AsNumpy"):
                continue  # a string or a table: not written
            kind = "vector"
        if hasattr(reader, accessor):
            found.append((accessor, kind))
    return tuple(found)


def _array(value, dtype) -> np.ndarray | None:
    return None if isinstance(value, int) else np.array(value, dtype)


def _read_options(op) -> OptionsDesc | None:
    table = op.BuiltinOptions()
    class_name = OPTIONS_CLASSES.get(op.BuiltinOptionsType())
    if table is None or class_name is None or class_name == "NONE":
        return None
    reader = getattr(tflite, class_name)()
    reader.Init(table.Bytes, table.Pos)
    fields = {}
    for accessor, kind in options_fields(class_name):
        if kind == "vector":
            value = getattr(reader, f"{accessor}AsNumpy")()
            if not isinstance(value, int):
                fields[accessor] = np.array(value)
        else:
            fields[accessor] = getattr(reader, accessor)()
    return OptionsDesc(class_name, fields)


def _read_quantization(q) -> QuantDesc | None:
    if q is None:
        return None
    return QuantDesc(_array(q.ScaleAsNumpy(), np.float32), _array(q.ZeroPointAsNumpy(), np.int64),
                     q.QuantizedDimension(), _array(q.MinAsNumpy(), np.float32),
                     _array(q.MaxAsNumpy(), np.float32))


def read_model(data: bytes) -> ModelDesc:
    """A valid `.tflite` file as plain objects."""
    m = tflite.Model.GetRootAsModel(data, 0)
    codes = [OpCodeDesc(c.DeprecatedBuiltinCode(), c.CustomCode(), c.Version(), c.BuiltinCode())
             for c in (m.OperatorCodes(i) for i in range(m.OperatorCodesLength()))]
    buffers = []
    for i in range(m.BuffersLength()):
        b = m.Buffers(i)
        buffers.append(b.DataAsNumpy().tobytes() if b.DataLength() else None)
    subgraphs = []
    for s in range(m.SubgraphsLength()):
        g = m.Subgraphs(s)
        tensors = []
        for i in range(g.TensorsLength()):
            t = g.Tensors(i)
            tensors.append(TensorDesc(
                _array(t.ShapeAsNumpy(), np.int32), t.Type(), t.Buffer(), t.Name(),
                _read_quantization(t.Quantization()), bool(t.IsVariable()),
                _array(t.ShapeSignatureAsNumpy(), np.int32), bool(t.HasRank())))
        operators = []
        for i in range(g.OperatorsLength()):
            op = g.Operators(i)
            custom = op.CustomOptionsAsNumpy()
            operators.append(OperatorDesc(
                op.OpcodeIndex(), _array(op.InputsAsNumpy(), np.int32),
                _array(op.OutputsAsNumpy(), np.int32), op.BuiltinOptionsType(),
                _read_options(op), None if isinstance(custom, int) else custom.tobytes(),
                op.CustomOptionsFormat(), _array(op.IntermediatesAsNumpy(), np.int32)))
        subgraphs.append(SubGraphDesc(tensors, _array(g.InputsAsNumpy(), np.int32),
                                      _array(g.OutputsAsNumpy(), np.int32), operators, g.Name()))
    metadata = [(md.Name(), md.Buffer()) for md in (m.Metadata(i)
                                                     for i in range(m.MetadataLength()))]
    return ModelDesc(m.Version(), codes, subgraphs, m.Description(), buffers, metadata,
                     _array(m.MetadataBufferAsNumpy(), np.int32))


# ---------------------------------------------------------------------------
# Writing the objects back
# ---------------------------------------------------------------------------

def _vector(b, start, offsets) -> int:
    start(b, len(offsets))
    for offset in reversed(offsets):
        b.PrependUOffsetTRelative(offset)
    return b.EndVector()


def _numbers(b, values, dtype) -> int | None:
    if values is None:
        return None
    return b.CreateNumpyVector(np.asarray(values, dtype).reshape(-1))


def _bytes(b, data: bytes) -> int:
    """A [ubyte] vector aligned to 16 bytes, as the converter aligns buffers."""
    b.StartVector(1, len(data), 16)
    b.head = b.head - len(data)
    b.Bytes[b.head:b.head + len(data)] = data
    return b.EndVector()


def _string(b, value: bytes | None) -> int | None:
    return None if value is None else b.CreateString(value)


def _scalar(kind: str, value):
    if kind == "Bool":
        return bool(value)
    if kind.startswith("Float"):
        return float(value)
    return int(value)


def _write_options(b, options: OptionsDesc) -> int:
    name = options.class_name
    kinds = dict(options_fields(name))
    vectors = {accessor: b.CreateNumpyVector(np.asarray(value).reshape(-1))
               for accessor, value in options.fields.items()
               if kinds.get(accessor) == "vector" and value is not None}
    getattr(tflite, f"{name}Start")(b)
    for accessor, value in options.fields.items():
        kind = kinds.get(accessor)
        if kind is None or value is None:
            continue
        add = getattr(tflite, f"{name}Add{accessor}")
        add(b, vectors[accessor] if kind == "vector" else _scalar(kind, value))
    return getattr(tflite, f"{name}End")(b)


def _write_quantization(b, q: QuantDesc) -> int:
    vectors = [_numbers(b, q.min, np.float32), _numbers(b, q.max, np.float32),
               _numbers(b, q.scale, np.float32), _numbers(b, q.zero_point, np.int64)]
    tflite.QuantizationParametersStart(b)
    for add, vector in zip((tflite.QuantizationParametersAddMin,
                            tflite.QuantizationParametersAddMax,
                            tflite.QuantizationParametersAddScale,
                            tflite.QuantizationParametersAddZeroPoint), vectors):
        if vector is not None:
            add(b, vector)
    tflite.QuantizationParametersAddQuantizedDimension(b, q.quantized_dimension)
    return tflite.QuantizationParametersEnd(b)


def _write_tensor(b, t: TensorDesc) -> int:
    name = _string(b, t.name)
    shape = _numbers(b, t.shape, np.int32)
    signature = _numbers(b, t.shape_signature, np.int32)
    quantization = None if t.quantization is None else _write_quantization(b, t.quantization)
    tflite.TensorStart(b)
    if shape is not None:
        tflite.TensorAddShape(b, shape)
    tflite.TensorAddType(b, t.type)
    tflite.TensorAddBuffer(b, t.buffer)
    if name is not None:
        tflite.TensorAddName(b, name)
    if quantization is not None:
        tflite.TensorAddQuantization(b, quantization)
    tflite.TensorAddIsVariable(b, t.is_variable)
    if signature is not None:
        tflite.TensorAddShapeSignature(b, signature)
    tflite.TensorAddHasRank(b, t.has_rank)
    return tflite.TensorEnd(b)


def _write_operator(b, op: OperatorDesc) -> int:
    options = None if op.options is None else _write_options(b, op.options)
    inputs = _numbers(b, op.inputs, np.int32)
    outputs = _numbers(b, op.outputs, np.int32)
    intermediates = _numbers(b, op.intermediates, np.int32)
    custom = None if op.custom_options is None else _bytes(b, op.custom_options)
    tflite.OperatorStart(b)
    tflite.OperatorAddOpcodeIndex(b, op.opcode_index)
    if inputs is not None:
        tflite.OperatorAddInputs(b, inputs)
    if outputs is not None:
        tflite.OperatorAddOutputs(b, outputs)
    tflite.OperatorAddBuiltinOptionsType(b, op.options_type)
    if options is not None:
        tflite.OperatorAddBuiltinOptions(b, options)
    if custom is not None:
        tflite.OperatorAddCustomOptions(b, custom)
        tflite.OperatorAddCustomOptionsFormat(b, op.custom_options_format)
    if intermediates is not None:
        tflite.OperatorAddIntermediates(b, intermediates)
    return tflite.OperatorEnd(b)


def _write_subgraph(b, g: SubGraphDesc) -> int:
    tensors = [_write_tensor(b, t) for t in g.tensors]
    operators = [_write_operator(b, op) for op in g.operators]
    tensor_vector = _vector(b, tflite.SubGraphStartTensorsVector, tensors)
    operator_vector = _vector(b, tflite.SubGraphStartOperatorsVector, operators)
    inputs = _numbers(b, g.inputs, np.int32)
    outputs = _numbers(b, g.outputs, np.int32)
    name = _string(b, g.name)
    tflite.SubGraphStart(b)
    tflite.SubGraphAddTensors(b, tensor_vector)
    tflite.SubGraphAddOperators(b, operator_vector)
    if inputs is not None:
        tflite.SubGraphAddInputs(b, inputs)
    if outputs is not None:
        tflite.SubGraphAddOutputs(b, outputs)
    if name is not None:
        tflite.SubGraphAddName(b, name)
    return tflite.SubGraphEnd(b)


def changed(data: bytes, change: Callable[[ModelDesc], None]) -> bytes:
    """The `.tflite` flatbuffer `data` with `change(model)` applied to its
    objects: a model with one thing wrong, for a test."""
    model = read_model(data)
    change(model)
    return write_model(model)


def write_model(model: ModelDesc) -> bytes:
    """The objects as a `.tflite` flatbuffer (identifier TFL3)."""
    b = flatbuffers.Builder(1 << 16)
    buffers = []
    for data in model.buffers:
        vector = None if data is None else _bytes(b, data)
        tflite.BufferStart(b)
        if vector is not None:
            tflite.BufferAddData(b, vector)
        buffers.append(tflite.BufferEnd(b))
    codes = []
    for c in model.operator_codes:
        custom = _string(b, c.custom_code)
        tflite.OperatorCodeStart(b)
        tflite.OperatorCodeAddDeprecatedBuiltinCode(b, c.deprecated_builtin_code)
        if custom is not None:
            tflite.OperatorCodeAddCustomCode(b, custom)
        tflite.OperatorCodeAddVersion(b, c.version)
        tflite.OperatorCodeAddBuiltinCode(b, c.builtin_code)
        codes.append(tflite.OperatorCodeEnd(b))
    graphs = [_write_subgraph(b, g) for g in model.subgraphs]
    metadata = []
    for name, buffer in model.metadata:
        name_offset = _string(b, name)
        tflite.MetadataStart(b)
        if name_offset is not None:
            tflite.MetadataAddName(b, name_offset)
        tflite.MetadataAddBuffer(b, buffer)
        metadata.append(tflite.MetadataEnd(b))
    code_vector = _vector(b, tflite.ModelStartOperatorCodesVector, codes)
    graph_vector = _vector(b, tflite.ModelStartSubgraphsVector, graphs)
    buffer_vector = _vector(b, tflite.ModelStartBuffersVector, buffers)
    metadata_vector = _vector(b, tflite.ModelStartMetadataVector, metadata) if metadata else None
    metadata_buffer = _numbers(b, model.metadata_buffer, np.int32)
    description = _string(b, model.description)
    tflite.ModelStart(b)
    tflite.ModelAddVersion(b, model.version)
    tflite.ModelAddOperatorCodes(b, code_vector)
    tflite.ModelAddSubgraphs(b, graph_vector)
    if description is not None:
        tflite.ModelAddDescription(b, description)
    tflite.ModelAddBuffers(b, buffer_vector)
    if metadata_buffer is not None:
        tflite.ModelAddMetadataBuffer(b, metadata_buffer)
    if metadata_vector is not None:
        tflite.ModelAddMetadata(b, metadata_vector)
    b.Finish(tflite.ModelEnd(b), file_identifier=b"TFL3")
    return bytes(b.Output())


# ---------------------------------------------------------------------------
# Mutations: each edits the model in place and says what it did ("what:
# details"), or returns None when it does not apply to this model
# ---------------------------------------------------------------------------

INT32_MAX, INT32_MIN = 2**31 - 1, -2**31
DIMS = (0, -1, 1, 2, 3, 7, 1000, 65536, INT32_MAX, -5)
TYPES = _names(tflite.TensorType)
# Each scalar type's values worth trying (all within the type's range).
SCALARS = {
    "Bool": (False, True),
    "Int8": (0, 1, 2, 3, 4, 5, 6, 7, -1, 127, -128),
    "Uint8": (0, 1, 2, 255),
    "Int16": (0, 1, -1, 32767, -32768),
    "Uint16": (0, 1, 65535),
    "Int32": (0, 1, 2, 3, -1, -2, 4, 8, 100, INT32_MAX, INT32_MIN),
    "Uint32": (0, 1, 2, 2**32 - 1),
    "Int64": (0, 1, -1, 2**40, -2**63),
    "Uint64": (0, 1, 2**64 - 1),
    "Float32": (0.0, 1.0, -1.0, 0.5, 1e-30, 1e30, math.nan, math.inf, -math.inf),
}
NAMES = (b"", b"x", b"input", b"keep.txt", b"../keep.txt", b"a/b", b"int", b"\xff\xfe\xc3(",
         b"a" * 300, b"%0", b"a\nb", b"a\x00b", None)


def _graph(model: ModelDesc) -> SubGraphDesc | None:
    return model.subgraphs[0] if model.subgraphs else None


def _tensor_name(g: SubGraphDesc, index: int) -> str:
    if not 0 <= index < len(g.tensors):
        return f"#{index}"
    name = g.tensors[index].name
    return f"#{index} '{(name or b'').decode('utf-8', 'replace')[:40]}'"


def _op_name(model: ModelDesc, op: OperatorDesc) -> str:
    if 0 <= op.opcode_index < len(model.operator_codes):
        c = model.operator_codes[op.opcode_index]
        return OPERATORS.get(max(c.builtin_code, c.deprecated_builtin_code), "?")
    return f"opcode #{op.opcode_index}"


def _pick_operator(rng, model) -> tuple[int, OperatorDesc] | tuple[None, None]:
    g = _graph(model)
    if g is None or not g.operators:
        return None, None
    index = rng.randrange(len(g.operators))
    return index, g.operators[index]


def _constants(model: ModelDesc, g: SubGraphDesc) -> list[int]:
    return [i for i, t in enumerate(g.tensors)
            if 0 <= t.buffer < len(model.buffers) and model.buffers[t.buffer]]


def _activations(model, g) -> list[int]:
    constants = set(_constants(model, g))
    return [i for i in range(len(g.tensors)) if i not in constants]


def _pick_tensor(rng, model, g, prefer_activations=0.6) -> int | None:
    if not g.tensors:
        return None
    pool = _activations(model, g) if rng.random() < prefer_activations else []
    return rng.choice(pool) if pool else rng.randrange(len(g.tensors))


def _mutate_shape(rng, model):
    g = _graph(model)
    index = _pick_tensor(rng, model, g) if g else None
    if index is None:
        return None
    t = g.tensors[index]
    dims = [] if t.shape is None else [int(d) for d in t.shape]
    action = rng.choice(("dim", "dim", "dim", "add dim", "remove dim", "scalar", "no shape",
                         "swap dims"))
    if action == "dim" and dims:
        dims[rng.randrange(len(dims))] = rng.choice(DIMS)
    elif action == "add dim":
        dims.insert(rng.randrange(len(dims) + 1), rng.choice((1, 1, 2, 0)))
    elif action == "remove dim" and dims:
        del dims[rng.randrange(len(dims))]
    elif action == "swap dims" and len(dims) > 1:
        i, j = rng.sample(range(len(dims)), 2)
        dims[i], dims[j] = dims[j], dims[i]
    elif action == "scalar":
        dims = []
    elif action == "no shape":
        t.shape = None
        return f"shape: tensor {_tensor_name(g, index)} has no shape vector"
    else:
        return None
    t.shape = np.array(dims, np.int32)
    return f"shape: tensor {_tensor_name(g, index)} {action} -> {dims}"


def _mutate_signature(rng, model):
    g = _graph(model)
    index = _pick_tensor(rng, model, g) if g else None
    if index is None:
        return None
    t = g.tensors[index]
    dims = [int(d) for d in (t.shape if t.shape is not None else [])]
    action = rng.choice(("dynamic batch", "dynamic dim", "remove", "other length", "value",
                         "all dynamic"))
    if action == "remove":
        t.shape_signature = None
        return f"signature: tensor {_tensor_name(g, index)} no shape signature"
    signature = [int(d) for d in t.shape_signature] if t.shape_signature is not None else dims
    if action == "dynamic batch" and signature:
        signature[0] = -1
    elif action == "dynamic dim" and signature:
        signature[rng.randrange(len(signature))] = -1
    elif action == "other length":
        signature = signature + [1] if rng.random() < 0.5 or not signature else signature[:-1]
    elif action == "value" and signature:
        signature[rng.randrange(len(signature))] = rng.choice((0, -2, 2, 5, INT32_MAX))
    elif action == "all dynamic":
        signature = [-1] * len(signature)
    else:
        return None
    t.shape_signature = np.array(signature, np.int32)
    return f"signature: tensor {_tensor_name(g, index)} {action} -> {signature} (shape {dims})"


def _mutate_type(rng, model):
    g = _graph(model)
    index = _pick_tensor(rng, model, g, prefer_activations=0.5) if g else None
    if index is None:
        return None
    t = g.tensors[index]
    old = t.type
    t.type = rng.choice(sorted(TYPES) + [99, -1, 127])
    return f"type: tensor {_tensor_name(g, index)} {TYPES.get(old, old)} -> " \
           f"{TYPES.get(t.type, t.type)}"


def _mutate_quantization(rng, model):
    g = _graph(model)
    if g is None or not g.tensors:
        return None
    quantized = [i for i, t in enumerate(g.tensors) if t.quantization is not None
                 and t.quantization.scale is not None and t.quantization.scale.size]
    if quantized and rng.random() < 0.85:
        index = rng.choice(quantized)
    else:
        index = rng.randrange(len(g.tensors))
    t = g.tensors[index]
    where = f"quantization: tensor {_tensor_name(g, index)}"
    q = t.quantization
    if q is None or q.scale is None or not q.scale.size:
        t.quantization = QuantDesc(np.array([rng.choice((0.5, 0.0, 1e-9, -1.0))], np.float32),
                                   np.array([rng.choice((0, 5, -128, 300))], np.int64))
        return f"{where} added scale {float(t.quantization.scale[0])} " \
               f"zero point {int(t.quantization.zero_point[0])}"
    action = rng.choice(("scale", "scale", "zero point", "zero point", "no zero points",
                         "quantized dimension", "quantized dimension", "more scales",
                         "fewer scales", "remove", "empty scales", "per-tensor to per-axis"))
    if action == "scale":
        value = rng.choice((0.0, -0.5, math.nan, math.inf, 1e-30, 1e30, 2.0 * float(q.scale[0]),
                            1.0))
        position = rng.randrange(q.scale.size)
        q.scale = q.scale.copy()
        q.scale[position] = value
        return f"{where} scale[{position}] = {value}"
    if action == "zero point":
        value = rng.choice((1, -1, 127, -128, 128, -129, 300, 2**40, -2**63, 0))
        if q.zero_point is None or not q.zero_point.size:
            q.zero_point = np.zeros(q.scale.shape, np.int64)
        position = rng.randrange(q.zero_point.size)
        q.zero_point = q.zero_point.copy()
        q.zero_point[position] = value
        return f"{where} zero_point[{position}] = {value}"
    if action == "no zero points":
        q.zero_point = None
        return f"{where} no zero points"
    if action == "quantized dimension":
        q.quantized_dimension = rng.choice((-1, 0, 1, 2, 3, 4, 100, INT32_MAX))
        return f"{where} quantized_dimension = {q.quantized_dimension} " \
               f"({q.scale.size} scales)"
    if action == "more scales":
        count = rng.choice((1, 2, 7))
        q.scale = np.concatenate([q.scale, np.full(count, q.scale[0], np.float32)])
        if rng.random() < 0.5 and q.zero_point is not None:
            q.zero_point = np.concatenate([q.zero_point, np.zeros(count, np.int64)])
        return f"{where} {q.scale.size} scales, {None if q.zero_point is None else q.zero_point.size} zero points"
    if action == "fewer scales":
        q.scale = q.scale[:max(0, q.scale.size - rng.choice((1, 1, 2)))]
        return f"{where} {q.scale.size} scales, {None if q.zero_point is None else q.zero_point.size} zero points"
    if action == "remove":
        t.quantization = None
        return f"{where} removed"
    if action == "empty scales":
        q.scale = np.zeros((0,), np.float32)
        return f"{where} empty scale vector"
    # one scale per element of a dimension, on a per-tensor tensor
    dims = [] if t.shape is None else [int(d) for d in t.shape]
    if not dims or q.scale.size != 1:
        return None
    axis = rng.randrange(len(dims))
    count = max(1, min(dims[axis], 4096))
    q.scale = np.full(count, q.scale[0], np.float32) * \
        np.linspace(0.5, 1.5, count).astype(np.float32)
    q.zero_point = np.zeros(count, np.int64)
    q.quantized_dimension = axis
    return f"{where} per-axis along {axis} ({count} scales)"


def _mutate_opcode(rng, model):
    if not model.operator_codes:
        return None
    index = rng.randrange(len(model.operator_codes))
    c = model.operator_codes[index]
    old = OPERATORS.get(max(c.builtin_code, c.deprecated_builtin_code), "?")
    where = f"opcode: #{index} ({old})"
    action = rng.choice(("builtin", "builtin", "deprecated", "both", "custom", "custom",
                         "version", "opcode index"))
    known = sorted(OPERATORS)
    if action == "builtin":
        c.builtin_code = rng.choice(known + [999, -1, 32, 127, 128])
        return f"{where} builtin_code = {OPERATORS.get(c.builtin_code, c.builtin_code)} " \
               f"(deprecated {c.deprecated_builtin_code})"
    if action == "deprecated":
        c.deprecated_builtin_code = rng.choice((0, 1, 3, 4, 9, 32, 127, -1, -128))
        return f"{where} deprecated_builtin_code = {c.deprecated_builtin_code} " \
               f"(builtin {c.builtin_code})"
    if action == "both":
        code = rng.choice(known)
        c.builtin_code, c.deprecated_builtin_code = code, min(code, 127)
        return f"{where} -> {OPERATORS[code]}"
    if action == "custom":
        c.builtin_code = c.deprecated_builtin_code = tflite.BuiltinOperator.CUSTOM
        c.custom_code = rng.choice((b"TFLite_Detection_PostProcess", b"", b"CONV_2D",
                                    b"\xff\xfe", None, b"x" * 200))
        return f"{where} -> CUSTOM {c.custom_code!r}"
    if action == "version":
        c.version = rng.choice((0, -1, 2, 7, 99, INT32_MAX))
        return f"{where} version {c.version}"
    _, op = _pick_operator(rng, model)
    if op is None:
        return None
    op.opcode_index = rng.choice((len(model.operator_codes), 2**32 - 1, INT32_MAX,
                                  rng.randrange(len(model.operator_codes))))
    return f"opcode: an operator's opcode_index = {op.opcode_index} " \
           f"(of {len(model.operator_codes)})"


def _options_value(rng, accessor: str, kind: str):
    if kind == "vector":
        return np.array(rng.choice(((), (0,), (-1,), (1, 2), (5,), (1, 1, 1, 1, 1),
                                    (INT32_MAX,))), np.int32)
    if accessor == "Padding":
        return rng.choice((0, 1, 2, 3, -1, 127))
    if accessor == "FusedActivationFunction":
        return rng.choice((0, 1, 2, 3, 4, 5, 6, -1, 100))
    return rng.choice(SCALARS.get(kind, (0,)))


def _mutate_options(rng, model):
    index, op = _pick_operator(rng, model)
    if op is None:
        return None
    where = f"options: operator {index} ({_op_name(model, op)})"
    action = rng.choice(("field", "field", "field", "field", "missing", "wrong type",
                         "other table", "type only"))
    if action == "missing":
        op.options, op.options_type = None, 0
        return f"{where} no options"
    if action == "type only":  # the union says one table, the table is another
        op.options_type = rng.choice(sorted(OPTIONS_CLASSES) + [250, 255])
        return f"{where} builtin_options_type = " \
               f"{OPTIONS_CLASSES.get(op.options_type, op.options_type)}, table unchanged"
    if action in ("wrong type", "other table"):
        class_name = rng.choice(("Conv2DOptions", "DepthwiseConv2DOptions", "Pool2DOptions",
                                 "FullyConnectedOptions", "SoftmaxOptions",
                                 "ConcatenationOptions", "AddOptions", "ReshapeOptions",
                                 "ReducerOptions", "SqueezeOptions", "MulOptions",
                                 "LeakyReluOptions", "StridedSliceOptions"))
        fields = {accessor: _options_value(rng, accessor, kind)
                  for accessor, kind in options_fields(class_name) if rng.random() < 0.7}
        op.options = OptionsDesc(class_name, fields)
        if action == "wrong type":  # a consistent union of the wrong table
            op.options_type = getattr(tflite.BuiltinOptions, class_name)
        return f"{where} {action} {class_name} {_shown(fields)}"
    if op.options is None:
        return None
    fields = options_fields(op.options.class_name)
    if not fields:
        return None
    accessor, kind = rng.choice(fields)
    if rng.random() < 0.1:
        op.options.fields.pop(accessor, None)
        return f"{where} {op.options.class_name}.{accessor} absent (default)"
    value = _options_value(rng, accessor, kind)
    op.options.fields[accessor] = value
    return f"{where} {op.options.class_name}.{accessor} = {_shown(value)}"


def _shown(value) -> str:
    if isinstance(value, np.ndarray):
        return str(value.tolist())
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_shown(v)}" for k, v in value.items()) + "}"
    return repr(value)


def _index_value(rng, g: SubGraphDesc) -> int:
    count = len(g.tensors)
    return rng.choice((-1, -1, -2, count, count + 7, INT32_MAX, INT32_MIN,
                       rng.randrange(max(1, count))))


def _mutate_operands(rng, model):
    index, op = _pick_operator(rng, model)
    if op is None:
        return None
    g = _graph(model)
    side = rng.choice(("inputs", "inputs", "outputs"))
    values = [] if getattr(op, side) is None else [int(v) for v in getattr(op, side)]
    action = rng.choice(("extra", "missing", "duplicate", "-1", "out of range", "other tensor",
                         "empty", "none", "constant output", "input as output"))
    if action == "extra":
        values.append(rng.choice((-1, rng.randrange(len(g.tensors)),
                                  values[0] if values else 0)))
    elif action == "missing" and values:
        del values[rng.randrange(len(values))]
    elif action == "duplicate" and values:
        values.insert(rng.randrange(len(values) + 1), rng.choice(values))
    elif action == "-1" and values:
        values[rng.randrange(len(values))] = -1
    elif action == "out of range" and values:
        values[rng.randrange(len(values))] = _index_value(rng, g)
    elif action == "other tensor" and values:
        values[rng.randrange(len(values))] = rng.randrange(len(g.tensors))
    elif action == "empty":
        values = []
    elif action == "none":
        setattr(op, side, None)
        return f"operands: operator {index} ({_op_name(model, op)}) no {side} vector"
    elif action == "constant output" and op.outputs is not None and len(op.outputs):
        constants = _constants(model, g)
        if not constants:
            return None
        side, values = "outputs", [int(v) for v in op.outputs]
        values[0] = rng.choice(constants)
    elif action == "input as output" and op.inputs is not None and len(op.inputs) \
            and op.outputs is not None and len(op.outputs):
        side, values = "outputs", [int(v) for v in op.outputs]
        values[0] = int(op.inputs[0])
    else:
        return None
    setattr(op, side, np.array(values, np.int32))
    return f"operands: operator {index} ({_op_name(model, op)}) {side} {action} -> {values}"


def _mutate_order(rng, model):
    g = _graph(model)
    if g is None or not g.operators:
        return None
    ops = g.operators
    action = rng.choice(("move first", "swap", "reverse", "duplicate", "delete", "repeat"))
    if action == "move first" and len(ops) > 1:
        index = rng.randrange(1, len(ops))
        ops.insert(0, ops.pop(index))
        return f"order: operator {index} moved first"
    if action == "swap" and len(ops) > 1:
        i, j = sorted(rng.sample(range(len(ops)), 2))
        ops[i], ops[j] = ops[j], ops[i]
        return f"order: operators {i} and {j} swapped"
    if action == "reverse" and len(ops) > 1:
        ops.reverse()
        return "order: operators reversed"
    if action == "duplicate":
        index = rng.randrange(len(ops))
        ops.insert(rng.randrange(len(ops) + 1), copy.deepcopy(ops[index]))
        return f"order: operator {index} ({_op_name(model, ops[index])}) duplicated"
    if action == "delete":
        index = rng.randrange(len(ops))
        name = _op_name(model, ops[index])
        del ops[index]
        return f"order: operator {index} ({name}) deleted"
    if action == "repeat":  # the same operator many times (writes its output again)
        index = rng.randrange(len(ops))
        count = rng.choice((2, 50))
        ops[index + 1:index + 1] = [copy.deepcopy(ops[index]) for _ in range(count)]
        return f"order: operator {index} ({_op_name(model, ops[index])}) {count} more times"
    return None


def _mutate_buffer(rng, model):
    g = _graph(model)
    if g is None or not g.tensors:
        return None
    action = rng.choice(("size", "size", "empty", "on input", "on output", "index",
                         "sentinel", "share"))
    constants = _constants(model, g)
    if action in ("size", "empty"):
        if not constants:
            return None
        index = rng.choice(constants)
        t = g.tensors[index]
        data = model.buffers[t.buffer]
        if action == "empty":
            model.buffers[t.buffer] = b""
            return f"buffer: tensor {_tensor_name(g, index)} buffer {t.buffer} empty"
        change = rng.choice((-1, 1, -4, 4, -len(data) // 2, 64, 3))
        model.buffers[t.buffer] = data[:change] if change < 0 else data + bytes(change)
        return f"buffer: tensor {_tensor_name(g, index)} buffer {t.buffer} " \
               f"{len(data)} -> {len(model.buffers[t.buffer])} bytes"
    if action in ("on input", "on output"):
        if action == "on input":
            pool = [] if g.inputs is None else [int(i) for i in g.inputs]
        else:
            pool = [int(i) for op in g.operators if op.outputs is not None for i in op.outputs]
        pool = [i for i in pool if 0 <= i < len(g.tensors)]
        if not pool:
            return None
        index = rng.choice(pool)
        t = g.tensors[index]
        count = 1 if t.shape is None else int(np.prod(np.maximum(t.shape, 0), dtype=np.int64))
        size = min(count, 1 << 20) * 4 if t.type in (0, 2) else min(count, 1 << 20)
        if rng.random() < 0.3:
            size = rng.choice((0, 1, size + 1))
        pattern = bytes(rng.randrange(256) for _ in range(64))
        model.buffers.append((pattern * (size // 64 + 1))[:size])
        t.buffer = len(model.buffers) - 1
        return f"buffer: {action.split()[1]} tensor {_tensor_name(g, index)} gets a " \
               f"{size}-byte buffer"
    index = rng.randrange(len(g.tensors))
    t = g.tensors[index]
    if action == "index":
        t.buffer = rng.choice((len(model.buffers), len(model.buffers) + 5, 2**32 - 1))
        return f"buffer: tensor {_tensor_name(g, index)} buffer index {t.buffer} " \
               f"(of {len(model.buffers)})"
    if action == "sentinel":
        model.buffers[0] = bytes(rng.choice((1, 4, 16)))
        return "buffer: buffer 0 (the empty sentinel) has data"
    if not constants:
        return None
    other = rng.choice(constants)
    t.buffer = g.tensors[other].buffer
    return f"buffer: tensor {_tensor_name(g, index)} shares the buffer of " \
           f"{_tensor_name(g, other)}"


def _mutate_graph_io(rng, model):
    g = _graph(model)
    if g is None:
        return None
    side = rng.choice(("inputs", "outputs"))
    values = [] if getattr(g, side) is None else [int(v) for v in getattr(g, side)]
    action = rng.choice(("delete", "duplicate", "add intermediate", "add constant", "clear",
                         "-1", "out of range", "swap with the other side", "none"))
    if action == "delete" and values:
        del values[rng.randrange(len(values))]
    elif action == "duplicate" and values:
        values.append(rng.choice(values))
    elif action == "add intermediate":
        produced = [int(i) for op in g.operators if op.outputs is not None for i in op.outputs
                    if 0 <= int(i) < len(g.tensors)]
        if not produced:
            return None
        values.append(rng.choice(produced))
    elif action == "add constant":
        constants = _constants(model, g)
        if not constants:
            return None
        values.append(rng.choice(constants))
    elif action == "clear":
        values = []
    elif action == "-1" and values:
        values[rng.randrange(len(values))] = -1
    elif action == "out of range":
        values.append(_index_value(rng, g)) if not values else \
            values.__setitem__(rng.randrange(len(values)), _index_value(rng, g))
    elif action == "swap with the other side":
        g.inputs, g.outputs = g.outputs, g.inputs
        return "graph io: inputs and outputs swapped"
    elif action == "none":
        setattr(g, side, None)
        return f"graph io: no {side} vector"
    else:
        return None
    setattr(g, side, np.array(values, np.int32))
    return f"graph io: {side} {action} -> {values}"


def _mutate_model(rng, model):
    action = rng.choice(("two subgraphs", "no subgraphs", "version", "tensor name",
                         "subgraph name", "variable", "no operators", "description"))
    g = _graph(model)
    if action == "two subgraphs" and g is not None:
        model.subgraphs.append(copy.deepcopy(g))
        return "model: a second subgraph"
    if action == "no subgraphs":
        model.subgraphs = []
        return "model: no subgraphs"
    if action == "version":
        model.version = rng.choice((0, 1, 2, 4, 99, 2**32 - 1))
        return f"model: version {model.version}"
    if action == "description":
        model.description = rng.choice(NAMES)
        return f"model: description {model.description!r:.40}"
    if g is None:
        return None
    if action == "tensor name" and g.tensors:
        index = rng.randrange(len(g.tensors))
        g.tensors[index].name = rng.choice(NAMES + (g.tensors[0].name,))
        return f"model: tensor #{index} name {g.tensors[index].name!r:.60}"
    if action == "subgraph name":
        g.name = rng.choice(NAMES)
        return f"model: subgraph name {g.name!r:.60}"
    if action == "variable" and g.tensors:
        index = _pick_tensor(rng, model, g)
        g.tensors[index].is_variable = True
        return f"model: tensor {_tensor_name(g, index)} is_variable"
    if action == "no operators":
        g.operators = []
        return "model: no operators"
    return None


STRUCT_MUTATIONS: tuple[tuple[Callable, int], ...] = (
    (_mutate_shape, 4), (_mutate_signature, 2), (_mutate_type, 2), (_mutate_quantization, 5),
    (_mutate_opcode, 2), (_mutate_options, 6), (_mutate_operands, 3), (_mutate_order, 2),
    (_mutate_buffer, 3), (_mutate_graph_io, 2), (_mutate_model, 1))


def damage_tflite(rng: random.Random, model: ModelDesc) -> tuple[bytes, list[str]]:
    """Applies 0-3 structural mutations to a copy of `model` (0 a few times
    in a hundred: the seed itself, for the numeric comparison) and perhaps
    truncates the result; returns the bytes and what was done."""
    done: list[str] = []
    functions, weights = zip(*STRUCT_MUTATIONS)
    wanted = rng.choice((0,) + (1,) * 12 + (2,) * 5 + (3,) * 2)
    data = write_model(model)
    for _ in range(wanted * 4):  # a mutation may not apply to this model
        if len(done) >= wanted:
            break
        changed = copy.deepcopy(model)
        what = rng.choices(functions, weights)[0](rng, changed)
        if not what:
            continue
        try:
            data = write_model(changed)
        except (TypeError, ValueError, OverflowError, struct.error):
            continue  # a value its field cannot hold (a defect here): not applied
        model = changed
        done.append(what)
    if rng.random() < 0.05:
        at = rng.randrange(len(data))
        done.append(f"truncate: at {at} of {len(data)} bytes")
        data = data[:at]
    return data, done
