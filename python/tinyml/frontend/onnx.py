"""The ONNX frontend: an ONNX model becomes one `func.func` of `tinyml` ops.

    import_onnx(model, batch=1, context=None, name=None) -> ir.Module
    import_onnx_bytes(data, filename, context) -> ir.Module   (tinyml-opt)

What comes out:
- One public `func.func` named after the model (the sanitized graph name, or
  `name`), with `llvm.emit_c_interface`. Its arguments and results are the
  graph's inputs and outputs in the model's own layout (an NCHW model keeps
  NCHW arguments), all float32, each carrying `tinyml.name = "<onnx name>"`.
  A symbolic (or unknown) leading dimension becomes `batch`; any other
  dynamic dimension is an error.
- Initializers and `Constant` nodes are compile-time numpy arrays. Shape
  arithmetic on them (Shape, Gather, Slice, Concat, Unsqueeze, Cast, ...) is
  folded at import time; an array becomes an `arith.constant` only where an
  op consumes it as a tensor. Only float32 arrays may become tensors; int64
  shapes, axes and pads are read at import time.
- The dialect is NHWC. An NCHW op (Conv, pools, BatchNormalization on 4-D)
  is imported as `transpose NCHW->NHWC`, the NHWC op, `transpose
  NHWC->NCHW`; conv weights are re-laid out (OIHW -> HWCF, depthwise ->
  HWCM) at import time. Each op's location names its ONNX node.

The transposes come in pairs that cancel. The recommended cleanup is

    Pipeline.parse("builtin.module(canonicalize,tinyml-cancel-transposes,"
                   "canonicalize,tinyml-dce)")

after which a tf2onnx model (NHWC input, Transpose, NCHW convs) has no
transposes left and an NCHW model keeps only the transpose of its input
(and one before a Flatten whose spatial size is not 1x1).

Errors raise `FrontendError` with one line: `<file>: <where>: <problem>`,
where `<where>` is `node '<name>' (<OpType>)`, `input '<name>'`, ...

Before anything is built the model must be valid ONNX: every string is
UTF-8; ir_version and each opset exist; graph inputs, outputs and
initializers are listed once, and an initializer that sets an input matches
it; each node's input and output counts and attribute types fit the op's
schema (attributes are only read through `_Importer._attribute_value`);
then the ONNX checker and strict shape and type inference pass. No tensor
(input, initializer, inferred intermediate, output, or built value) may
have a negative dimension or reach 2 GiB, which no 32-bit target holds; a
tensor built as an MLIR value also has no zero dimension.
"""
from __future__ import annotations

import math
import os
import re
from collections import Counter
from typing import Callable, Sequence, Union

import numpy as np
import onnx
from google.protobuf.message import DecodeError
from mlir import ir
from mlir.dialects import arith, func
from onnx import TensorProto, helper, numpy_helper

from ..ir.attributes import DEFAULT_DILATIONS, DEFAULT_PADDING, DEFAULT_STRIDES
from ..ir.builders import build
from ..ir.context import make_context
from ..ir.values import f32_tensor_type
from . import FrontendError

__all__ = ["FrontendError", "SUPPORTED_OPS", "import_onnx", "import_onnx_bytes"]

F32_MAX = float(np.finfo(np.float32).max)
# A Cortex-M target has a 32-bit address space: no tensor can reach 2 GiB.
MAX_TENSOR_BYTES = 2 ** 31
NCHW_TO_NHWC = (0, 2, 3, 1)
NHWC_TO_NCHW = (0, 3, 1, 2)


class Const:
    """A compile-time value: a numpy array and the ONNX name it came from."""

    __slots__ = ("array", "name")

    def __init__(self, array, name: str | None = None):
        self.array = np.asarray(array)
        self.name = name


Value = Union[Const, ir.Value]

# op type -> handler(importer, node) -> list of output values.
_HANDLERS: dict[str, Callable] = {}


def _handles(*op_types: str):
    def register(fn):
        for op_type in op_types:
            _HANDLERS[op_type] = fn
        return fn
    return register


def _dtype_name(elem_type: int) -> str:
    try:
        return TensorProto.DataType.Name(elem_type)
    except ValueError:
        return f"type {elem_type}"


def _attr_type_name(attr_type: int) -> str:
    try:
        return onnx.AttributeProto.AttributeType.Name(attr_type)
    except ValueError:
        return f"type {attr_type}"


# What an attribute of each AttributeProto type must be, for messages.
_ATTR_KINDS = {
    onnx.AttributeProto.FLOAT: "a float", onnx.AttributeProto.INT: "an int",
    onnx.AttributeProto.STRING: "a string", onnx.AttributeProto.TENSOR: "a tensor",
    onnx.AttributeProto.GRAPH: "a graph", onnx.AttributeProto.FLOATS: "a list of floats",
    onnx.AttributeProto.INTS: "a list of ints", onnx.AttributeProto.STRINGS: "a list of strings",
    onnx.AttributeProto.TENSORS: "a list of tensors",
}


# The TensorProto field that holds the values of each element type tinyml
# reads (when they are not in raw_data).
_TENSOR_FIELDS = {
    TensorProto.FLOAT: "float_data", TensorProto.DOUBLE: "double_data",
    TensorProto.INT64: "int64_data", TensorProto.UINT64: "uint64_data",
    TensorProto.UINT32: "uint64_data", TensorProto.INT32: "int32_data",
    TensorProto.INT16: "int32_data", TensorProto.INT8: "int32_data",
    TensorProto.UINT16: "int32_data", TensorProto.UINT8: "int32_data",
    TensorProto.BOOL: "int32_data", TensorProto.FLOAT16: "int32_data",
}


def _itemsize(elem_type: int) -> int:
    """Bytes per element of an ONNX element type (1 for types numpy lacks)."""
    try:
        return np.dtype(helper.tensor_dtype_to_np_dtype(elem_type)).itemsize
    except (KeyError, TypeError, ValueError):
        return 1


def _one_line(text: str) -> str:
    """`text` on one line: unprintable characters (a line break in a name
    of the model) are escaped."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _non_utf8_string(message, path: str) -> tuple[str, bytes] | None:
    """The first string field under `message` that is not valid UTF-8
    (protobuf hands those over as bytes), as (field path, raw value)."""
    for field, value in message.ListFields():
        if field.type not in (field.TYPE_STRING, field.TYPE_MESSAGE):
            continue
        items = list(enumerate(value)) if field.is_repeated else [(None, value)]
        for index, item in items:
            where = f"{path}.{field.name}" + ("" if index is None else f"[{index}]")
            if field.type == field.TYPE_STRING:
                if isinstance(item, bytes):
                    return where, item
            else:
                found = _non_utf8_string(item, where)
                if found:
                    return found
    return None


def _checker_problem(text: str) -> tuple[str | None, str | None, str]:
    """(node name, op type, problem) from an ONNX checker or shape inference
    message; the node parts are None when the message names no node."""
    node = re.search(r"\(op_type:([^,]*), node name: (.*?)\): ", text)
    op_type, name = node.groups() if node else (None, None)
    if node is None:
        node = re.search(r"==> Context: Bad node spec for node\. Name: (.*) OpType: (\S*)", text)
        name, op_type = node.groups() if node else (None, None)
    lines = [line for line in text.splitlines() if line.strip() and "==> Context" not in line]
    problem = lines[0] if lines else text
    problem = re.sub(r"^.*\(op_type:[^,]*, node name: .*?\): ", "", problem)
    problem = re.sub(r"\[\w+Error\] |Inference error\(s\): ", "", problem).strip()
    return name, op_type, problem


def _sanitize(name: str) -> str:
    name = re.sub(r"[^A-Za-z0-9_]", "_", name or "").strip("_")
    if not name:
        return "model"
    return f"m_{name}" if name[0].isdigit() else name


def _shape_text(shape) -> str:
    return "[" + ", ".join(str(d) for d in shape) + "]"


def _attr(value):
    """Python value -> MLIR attribute, for the few kinds tinyml ops use."""
    if isinstance(value, ir.Attribute):
        return value
    if value is True:
        return ir.UnitAttr.get()
    if isinstance(value, float):
        return ir.FloatAttr.get_f32(value)
    if isinstance(value, (int, np.integer)):
        return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(value))
    if isinstance(value, (list, tuple)):
        return ir.DenseI64ArrayAttr.get([int(v) for v in value])
    raise TypeError(f"no attribute for {value!r}")


def _inverse(perm: Sequence[int]) -> list[int]:
    inverse = [0] * len(perm)
    for i, p in enumerate(perm):
        inverse[p] = i
    return inverse


# ---------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------

def import_onnx(model, batch: int = 1, context: ir.Context | None = None,
                name: str | None = None) -> ir.Module:
    """Imports an ONNX model (path or `onnx.ModelProto`) into a verified
    module of one `func.func`, in `context` (default: the current context,
    else a new one from `make_context()`). `batch` replaces a symbolic or
    unknown leading input dimension; `name` names the function (default:
    the graph name). Raises `FrontendError` on bad input."""
    if isinstance(model, onnx.ModelProto):
        name_is_text = isinstance(model.graph.name, str)  # not when it is not UTF-8
        filename = model.graph.name if name_is_text and model.graph.name else "<onnx model>"
        proto, base_dir = model, None
    else:
        filename = os.fspath(model)
        try:
            with open(filename, "rb") as f:
                data = f.read()
        except OSError as error:
            raise FrontendError(f"{filename}: cannot read: {error.strerror}") from None
        proto, base_dir = _parse(data, filename), os.path.dirname(os.path.abspath(filename))
    context = context or ir.Context.current or make_context()
    with context, ir.Location.unknown(context):
        module = _Importer(proto, filename, batch, name, base_dir).run()
        try:
            module.operation.verify()
        except ir.MLIRError as error:
            detail = error.error_diagnostics[0].message if error.error_diagnostics \
                else error.message
            raise FrontendError(f"{filename}: imported IR does not verify: "
                                f"{detail.splitlines()[0]}") from None
    return module


def import_onnx_bytes(data: bytes, filename: str, context: ir.Context) -> ir.Module:
    """Imports serialized ONNX; the module is not verified (the caller does
    it and reports the diagnostics). Raises `FrontendError` on bad input."""
    proto = _parse(data, filename)
    base_dir = os.path.dirname(os.path.abspath(filename)) if os.path.exists(filename) else None
    with context, ir.Location.unknown(context):
        return _Importer(proto, filename, 1, None, base_dir).run()


def _parse(data: bytes, filename: str) -> onnx.ModelProto:
    if isinstance(data, str):
        data = data.encode()
    model = onnx.ModelProto()
    try:
        model.ParseFromString(data)
    except DecodeError:
        # A model starts with ir_version (field 1, varint): tag byte 0x08.
        what = "is a truncated or corrupt ONNX model" if data[:1] == b"\x08" \
            else "is not an ONNX model"
        raise FrontendError(f"{filename}: {what} (the protobuf does not parse)") from None
    if not data:
        raise FrontendError(f"{filename}: is not an ONNX model (the file is empty)")
    if not model.HasField("graph") or model.ir_version <= 0:
        raise FrontendError(f"{filename}: is not an ONNX model (no graph or IR version)")
    if not model.opset_import:
        raise FrontendError(f"{filename}: is a truncated or corrupt ONNX model "
                            "(no opset_import)")
    return model


# ---------------------------------------------------------------------------
# The importer
# ---------------------------------------------------------------------------

class _Importer:
    def __init__(self, model: onnx.ModelProto, filename: str, batch: int,
                 name: str | None, base_dir: str | None):
        self.model = model
        self.graph = model.graph
        self.filename = filename
        self.batch = batch
        self.name = name
        self.func_name = ""  # set once the graph name is known to be text
        self.base_dir = base_dir
        self.opset = 0
        self.schemas: dict[str, onnx.defs.OpSchema | None] = {}
        self.values: dict[str, Value] = {}
        self.cache: dict[str, ir.Value] = {}
        self.nhwc_cache: dict[ir.Value, ir.Value] = {}
        self.consumers: Counter = Counter()
        self.inferred: dict[str, tuple[int, tuple | None]] = {}
        self.where = ""
        self.node: onnx.NodeProto | None = None
        self.loc = None

    # -- errors --------------------------------------------------------------

    def fail(self, message: str, where: str | None = None) -> FrontendError:
        where = self.where if where is None else where
        prefix = f"{self.filename}: {where}: " if where else f"{self.filename}: "
        return FrontendError(_one_line(prefix + message))

    # -- driver --------------------------------------------------------------

    def run(self) -> ir.Module:
        graph = self.graph
        if self.batch < 1:
            raise self.fail(f"batch must be at least 1, got {self.batch}")
        self._check_text()
        if not graph.output:
            raise self.fail("the graph has no outputs")
        self._check_versions()
        self._check_unique_names()
        initializers = {t.name for t in graph.initializer}
        inputs = [i for i in graph.input if i.name not in initializers]
        arg_shapes = [self._input_shape(i) for i in inputs]
        self._check_outputs()
        self._check_initializers()
        for index, node in enumerate(graph.node):
            self._check_node(index, node)
        self._load_external_data()
        self._check_onnx()
        self._infer_shapes(inputs, arg_shapes)
        self._load_initializers()
        for node in graph.node:
            for name in node.input:
                if name:
                    self.consumers[name] += 1
        for output in graph.output:
            self.consumers[output.name] += 1
        live = self._live_nodes()

        file_loc = ir.Location.file(self.filename, 0, 0)
        module = ir.Module.create(file_loc)
        with ir.InsertionPoint(module.body):
            fn = func.FuncOp(self.func_name, ([f32_tensor_type(s) for s in arg_shapes], []),
                             loc=file_loc)
        block = fn.add_entry_block()
        for info, arg in zip(inputs, block.arguments):
            self.values[info.name] = arg
        with ir.InsertionPoint(block):
            for index, node in enumerate(graph.node):
                if index in live:
                    self._import_node(index, node)
            self.where, self.loc = "", file_loc
            results = []
            for output in graph.output:
                if output.name not in self.values:
                    raise self.fail(f"output '{output.name}' is not computed by any node")
                self.where = f"output '{output.name}'"
                results.append(self.tensor(self.values[output.name]))
            func.ReturnOp(results, loc=file_loc)
        fn.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(
            [f32_tensor_type(s) for s in arg_shapes], [r.type for r in results]))
        fn.attributes["arg_attrs"] = ir.ArrayAttr.get(
            [ir.DictAttr.get({"tinyml.name": ir.StringAttr.get(i.name)}) for i in inputs])
        fn.attributes["res_attrs"] = ir.ArrayAttr.get(
            [ir.DictAttr.get({"tinyml.name": ir.StringAttr.get(o.name)}) for o in graph.output])
        fn.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
        return module

    # -- validation: nothing is built from a model that is not valid ONNX ----

    def _check_text(self) -> None:
        # protobuf does not enforce UTF-8 on ONNX's (proto2) strings; a name
        # that is not text cannot name a function, a location or an error.
        found = _non_utf8_string(self.model, "model")
        if found:
            path, value = found
            match = re.match(r"model\.graph\.node\[(\d+)\]", path)
            node = self.graph.node[int(match.group(1))] if match else None
            where = ""
            if node is not None and isinstance(node.name, str) \
                    and isinstance(node.op_type, str):
                where = f"node '{self._label(int(match.group(1)), node)}' ({node.op_type})"
            raise self.fail(f"{path} is not valid UTF-8: {value!r}", where)
        self.func_name = _sanitize(self.name or self.graph.name)

    def _check_versions(self) -> None:
        if self.model.ir_version > onnx.IR_VERSION:
            raise self.fail(f"ir_version {self.model.ir_version} is newer than this ONNX "
                            f"({onnx.__version__}) reads (at most {onnx.IR_VERSION})")
        known = onnx.defs.C.schema_version_map()
        seen = set()
        for opset in self.model.opset_import:
            domain = "" if opset.domain == "ai.onnx" else opset.domain
            label = f"'{opset.domain}'" if domain else "the default domain (ai.onnx)"
            if domain in seen:
                raise self.fail(f"opset_import lists {label} more than once")
            seen.add(domain)
            if domain in known:
                low, high = known[domain]
                if not low <= opset.version <= high:
                    raise self.fail(f"opset {opset.version} of {label} does not exist "
                                    f"(this ONNX ({onnx.__version__}) knows {low} to {high})")
            if domain == "":
                self.opset = opset.version
        if self.opset == 0:
            raise self.fail("the model imports no default-domain (ai.onnx) opset")

    def _check_unique_names(self) -> None:
        for what, names in (("input", [i.name for i in self.graph.input]),
                            ("output", [o.name for o in self.graph.output]),
                            ("initializer", [t.name for t in self.graph.initializer])):
            for name, count in Counter(names).items():
                if count > 1:
                    raise self.fail(f"the graph lists {what} '{name}' {count} times")

    def _float_tensor_type(self, info: onnx.ValueInfoProto, where: str):
        """The tensor type of a graph input or output, which must be float32."""
        if not info.type.HasField("tensor_type"):
            raise self.fail(f"{where} is not a tensor")
        tensor_type = info.type.tensor_type
        if tensor_type.elem_type != TensorProto.FLOAT:
            raise self.fail(f"{where} has element type {_dtype_name(tensor_type.elem_type)}; "
                            "only float32 is supported")
        return tensor_type

    def _input_shape(self, info: onnx.ValueInfoProto) -> tuple[int, ...]:
        where = f"input '{info.name}'"
        tensor_type = self._float_tensor_type(info, where)
        if not tensor_type.HasField("shape"):
            raise self.fail(f"{where} has no shape (rank unknown)")
        shape = []
        for axis, dim in enumerate(tensor_type.shape.dim):
            if dim.HasField("dim_value"):
                shape.append(dim.dim_value)
            elif axis == 0:
                shape.append(self.batch)
            else:
                what = f"'{dim.dim_param}'" if dim.HasField("dim_param") else "unknown"
                raise self.fail(f"{where} has a dynamic dimension {axis} ({what}); only "
                                "the batch dimension (0) may be dynamic")
        self.check_size(shape, TensorProto.FLOAT, where)
        return tuple(shape)

    def _check_outputs(self) -> None:
        for output in self.graph.output:
            where = f"output '{output.name}'"
            tensor_type = self._float_tensor_type(output, where)
            dims = tensor_type.shape.dim
            if any(d.HasField("dim_value") and d.dim_value < 1 for d in dims):
                shape = [d.dim_value if d.HasField("dim_value") else d.dim_param or "?"
                         for d in dims]
                raise self.fail(f"{where} declares shape {_shape_text(shape)}; dimensions "
                                "must be positive")

    def _check_initializers(self) -> None:
        declared = {i.name: i.type.tensor_type for i in self.graph.input}
        total = 0
        for tensor in self.graph.initializer:
            where = f"initializer '{tensor.name}'"
            total += self.check_size(tensor.dims, tensor.data_type, where, allow_empty=True)
            if tensor.name in declared:
                # An initializer with the name of an input is that input's value.
                input_type = declared[tensor.name]
                dims = [d.dim_value if d.HasField("dim_value") else None
                        for d in input_type.shape.dim]
                if input_type.elem_type != tensor.data_type or len(dims) != len(tensor.dims) \
                        or any(d is not None and d != t for d, t in zip(dims, tensor.dims)):
                    raise self.fail(
                        f"{where} ({_dtype_name(tensor.data_type)} "
                        f"{_shape_text(tensor.dims)}) does not match input '{tensor.name}' "
                        f"({_dtype_name(input_type.elem_type)} "
                        f"{_shape_text(d if d is not None else '?' for d in dims)}) it sets")
        if total >= MAX_TENSOR_BYTES:
            raise self.fail(f"the initializers hold {total} bytes; a 32-bit target holds "
                            f"less than {MAX_TENSOR_BYTES} bytes")
        for tensor in self.graph.sparse_initializer:
            raise self.fail(f"sparse initializer '{tensor.values.name}' is not supported")

    def check_size(self, dims, elem_type: int, what: str, allow_empty: bool = False) -> int:
        """The byte size of a tensor of `dims`; fails for a negative (or,
        unless `allow_empty`, zero) dimension and for 2 GiB or more, which
        no 32-bit target holds."""
        dims = [int(d) for d in dims]
        if any(d < 0 or (d == 0 and not allow_empty) for d in dims):
            least = "non-negative" if allow_empty else "positive"
            raise self.fail(f"{what} has shape {_shape_text(dims)}; dimensions must be {least}")
        nbytes = math.prod(dims) * _itemsize(elem_type)
        if nbytes >= MAX_TENSOR_BYTES:
            raise self.fail(f"{what} has shape {_shape_text(dims)} ({nbytes} bytes); a tensor "
                            f"on a 32-bit target must be smaller than {MAX_TENSOR_BYTES} bytes")
        return nbytes

    def _schema(self, node: onnx.NodeProto):
        """The default-domain op schema of `node` at the model's opset, or
        None (another domain, or an op ONNX does not define)."""
        if node.domain not in ("", "ai.onnx"):
            return None
        if node.op_type not in self.schemas:
            try:
                schema = onnx.defs.get_schema(node.op_type, self.opset, "")
            except onnx.defs.SchemaError:
                schema = None
            self.schemas[node.op_type] = schema
        return self.schemas[node.op_type]

    def _check_node(self, index: int, node: onnx.NodeProto) -> None:
        """Input and output counts and attribute types against the op's
        schema (what the ONNX checker checks, said with the node's name)."""
        schema = self._schema(node)
        if schema is None:
            return  # the checker or the unsupported-op error names it
        self.where = f"node '{self._label(index, node)}' ({node.op_type})"
        for what, count, low, high in (
                ("inputs", len(node.input), schema.min_input, schema.max_input),
                ("outputs", len(node.output), schema.min_output, schema.max_output)):
            if not low <= count <= high:
                takes = f"{low}" if low == high else f"at least {low}" \
                    if high >= 2 ** 31 - 1 else f"{low} to {high}"
                raise self.fail(f"has {count} {what}; {node.op_type} (opset "
                                f"{schema.since_version}) takes {takes}")
        names = Counter(a.name for a in node.attribute)
        for attribute in node.attribute:
            if names[attribute.name] > 1:
                raise self.fail(f"attribute '{attribute.name}' is given "
                                f"{names[attribute.name]} times")
            self._attribute_value(node, attribute)
        self.where = ""

    def _attribute_value(self, node: onnx.NodeProto, attribute: onnx.AttributeProto):
        """The value of `attribute` once its type is the one the op's schema
        gives it: every attribute is read through here."""
        schema = self._schema(node)
        if attribute.name not in schema.attributes:
            raise self.fail(f"unknown attribute '{attribute.name}' (not one of "
                            f"{node.op_type}'s in opset {schema.since_version})")
        expected = schema.attributes[attribute.name].type.value
        if attribute.type != expected:
            raise self.fail(f"attribute '{attribute.name}' must be "
                            f"{_ATTR_KINDS.get(expected, _attr_type_name(expected))}, got "
                            f"{_attr_type_name(attribute.type)}")
        value = helper.get_attribute_value(attribute)
        if attribute.type == onnx.AttributeProto.STRING:
            try:
                return value.decode()
            except UnicodeDecodeError:
                raise self.fail(f"attribute '{attribute.name}' is not valid UTF-8: "
                                f"{value!r}") from None
        return value

    def _load_external_data(self) -> None:
        if not any(t.data_location == TensorProto.EXTERNAL for t in self.graph.initializer):
            return
        if self.base_dir is None:
            raise self.fail("the model keeps initializers in external data files; "
                            "import it from its path")
        try:
            onnx.external_data_helper.load_external_data_for_model(self.model, self.base_dir)
        except (OSError, ValueError, onnx.checker.ValidationError) as error:
            raise self.fail(f"cannot load external data: {error}") from None

    def _check_onnx(self) -> None:
        """The ONNX checker's verdict on the model."""
        model = onnx.ModelProto()
        model.CopyFrom(self.model)
        for output in model.graph.output:
            # ONNX lets an output's shape be unknown, but the checker wants
            # the field; shape inference (next) checks the real shapes.
            output.type.tensor_type.shape.SetInParent()
        try:
            onnx.checker.check_model(model)
        except onnx.checker.ValidationError as error:
            raise self._invalid(str(error)) from None

    def _invalid(self, text: str) -> FrontendError:
        """A FrontendError from an ONNX checker or shape inference message,
        naming the node when the message does."""
        name, op_type, problem = _checker_problem(text)
        where = ""
        if op_type is not None:
            matches = [(i, n) for i, n in enumerate(self.graph.node)
                       if n.name == name and n.op_type == op_type]
            label = self._label(*matches[0]) if len(matches) == 1 else name
            where = f"node '{label}' ({op_type})"
        return self.fail(f"invalid ONNX model: {problem}", where)

    def _infer_shapes(self, inputs, arg_shapes) -> None:
        """Runs strict ONNX shape and type inference with the batch fixed:
        an inconsistent model is an error, and the shapes it infers check
        the sizes here and the shapes the importer computes later."""
        model = onnx.ModelProto()
        model.CopyFrom(self.model)
        by_name = {info.name: shape for info, shape in zip(inputs, arg_shapes)}
        for info in model.graph.input:
            if info.name in by_name:
                for dim, size in zip(info.type.tensor_type.shape.dim, by_name[info.name]):
                    dim.Clear()
                    dim.dim_value = size
        try:
            inferred = onnx.shape_inference.infer_shapes(model, check_type=True,
                                                         strict_mode=True, data_prop=True)
        except (onnx.shape_inference.InferenceError, onnx.checker.ValidationError,
                ValueError) as error:  # ValueError: e.g. an unknown tensor data type
            raise self._invalid(str(error)) from None
        producers = {name: (index, node) for index, node in enumerate(self.graph.node)
                     for name in node.output}
        for info in list(inferred.graph.value_info) + list(inferred.graph.output):
            tensor_type = info.type.tensor_type
            dims = None
            if tensor_type.HasField("shape") and all(
                    d.HasField("dim_value") for d in tensor_type.shape.dim):
                dims = tuple(d.dim_value for d in tensor_type.shape.dim)
                where = f"tensor '{info.name}'"
                if info.name in producers:
                    index, node = producers[info.name]
                    where += f" (of node '{self._label(index, node)}' ({node.op_type}))"
                self.check_size(dims, tensor_type.elem_type, where, allow_empty=True)
            self.inferred[info.name] = (tensor_type.elem_type, dims)

    def _load_initializers(self) -> None:
        for tensor in self.graph.initializer:
            self.values[tensor.name] = Const(
                self.array(tensor, f"initializer '{tensor.name}'"), tensor.name)

    def array(self, tensor: onnx.TensorProto, what: str) -> np.ndarray:
        """A tensor (initializer or attribute) as a numpy array, once its
        type is one numpy has and its data fills its shape exactly (the
        checker only refuses too little data)."""
        self.check_size(tensor.dims, tensor.data_type, what, allow_empty=True)
        field = _TENSOR_FIELDS.get(tensor.data_type)
        if field is None:
            raise self.fail(f"{what} has element type {_dtype_name(tensor.data_type)}; only "
                            "float, integer and bool tensors are supported")
        needed = math.prod(tensor.dims)
        if tensor.HasField("raw_data"):
            held = len(tensor.raw_data) / _itemsize(tensor.data_type)
        else:
            held = len(getattr(tensor, field))
        if held != needed:
            raise self.fail(f"{what} holds {held:g} values but its shape "
                            f"{_shape_text(tensor.dims)} needs {needed}")
        return numpy_helper.to_array(tensor)

    @staticmethod
    def _label(index: int, node: onnx.NodeProto) -> str:
        return node.name or f"{node.op_type}_{index}"

    def _live_nodes(self) -> set[int]:
        needed = {o.name for o in self.graph.output}
        live = set()
        for index in reversed(range(len(self.graph.node))):
            node = self.graph.node[index]
            if any(o in needed for o in node.output if o):
                live.add(index)
                needed.update(i for i in node.input if i)
        return live

    def _import_node(self, index: int, node: onnx.NodeProto) -> None:
        label = self._label(index, node)
        self.node = node
        self.where = f"node '{label}' ({node.op_type})"
        self.loc = ir.Location.name(label, childLoc=ir.Location.file(self.filename, 0, 0))
        self.attrs = {a.name: a for a in node.attribute}
        handler = _HANDLERS.get(node.op_type) if node.domain in ("", "ai.onnx") else None
        if handler is None:
            op = node.op_type if node.domain in ("", "ai.onnx") \
                else f"{node.domain}.{node.op_type}"
            raise self.fail(f"unsupported op; supported ops: {', '.join(SUPPORTED_OPS)}",
                            f"node '{label}' ({op})")
        for name in node.input:
            if name and name not in self.values:
                raise self.fail(f"input '{name}' is not defined before this node")
        # Folding follows IEEE arithmetic (inf, nan) without numpy's warnings.
        with self.loc, np.errstate(all="ignore"):
            outputs = handler(self, node)
        for position, name in enumerate(node.output):
            if not name:
                continue
            if position >= len(outputs):
                if self.consumers[name]:
                    raise self.fail(f"output {position} ('{name}') is not supported")
                continue
            value = outputs[position]
            if not isinstance(value, (ir.Value, Const)):
                value = Const(np.asarray(value), name)
            elif isinstance(value, Const) and value.name is None:
                value.name = name
            self._check_inferred(name, value)
            self.values[name] = value

    def _check_inferred(self, name: str, value: Value) -> None:
        if isinstance(value, Const) or name not in self.inferred:
            return
        elem, dims = self.inferred[name]
        if elem not in (0, TensorProto.FLOAT):
            raise self.fail(f"output '{name}' has element type {_dtype_name(elem)}; only "
                            "float32 tensors are supported")
        shape = self.shape(value)
        if dims is not None and tuple(dims) != tuple(shape):
            raise self.fail(f"output '{name}' has shape {_shape_text(shape)} but ONNX shape "
                            f"inference says {_shape_text(dims)}")

    # -- node inputs and attributes -----------------------------------------

    def attr(self, key: str, default=None):
        """Attribute `key` of the current node (`default` when absent), of
        the type the op's schema gives it."""
        attribute = self.attrs.get(key)
        return default if attribute is None else self._attribute_value(self.node, attribute)

    def has_input(self, i: int) -> bool:
        return i < len(self.node.input) and bool(self.node.input[i])

    def arg(self, i: int, optional: bool = False) -> Value | None:
        if not self.has_input(i):
            if optional:
                return None
            raise self.fail(f"input {i} is missing")
        return self.values[self.node.input[i]]

    def const(self, i: int, what: str, optional: bool = False) -> np.ndarray | None:
        value = self.arg(i, optional)
        if value is None:
            return None
        if not isinstance(value, Const):
            raise self.fail(f"{what} (input {i}, '{self.node.input[i]}') must be a "
                            "compile-time constant")
        return value.array

    def int_const(self, i: int, what: str, optional: bool = False) -> np.ndarray | None:
        """Input i as a compile-time array of integers (a shape, axes, pads)."""
        value = self.const(i, what, optional)
        if value is not None and not np.issubdtype(value.dtype, np.integer):
            raise self.fail(f"{what} (input {i}, '{self.node.input[i]}') must be integers, "
                            f"got {value.dtype}")
        return value

    def ints(self, i: int, attr: str, what: str) -> list[int] | None:
        """An int list given as input i (newer opsets) or attribute `attr`."""
        if self.has_input(i):
            return self.int_const(i, what).reshape(-1).tolist()
        value = self.attr(attr)
        return None if value is None else [int(v) for v in value]

    # -- values --------------------------------------------------------------

    @staticmethod
    def shape(value) -> tuple[int, ...]:
        if isinstance(value, Const):
            return tuple(value.array.shape)
        if isinstance(value, np.ndarray):
            return tuple(value.shape)
        return tuple(ir.RankedTensorType(value.type).shape)

    def tensor(self, value) -> ir.Value:
        """The value as an SSA tensor, materializing compile-time arrays."""
        if isinstance(value, ir.Value):
            return value
        name = value.name if isinstance(value, Const) else None
        array = value.array if isinstance(value, Const) else np.asarray(value)
        if name is not None and name in self.cache:
            return self.cache[name]
        what = f"constant '{name}'" if name else "a constant"
        if array.dtype != np.float32:
            raise self.fail(f"{what} has element type {array.dtype} where a float32 tensor "
                            "is needed; only float32 tensors are supported")
        self.check_size(array.shape, TensorProto.FLOAT, what)
        attr = ir.DenseElementsAttr.get(np.ascontiguousarray(array))
        result = arith.ConstantOp(attr.type, attr, loc=self.loc).result
        if name is not None:
            self.cache[name] = result
        return result

    def emit(self, op_name: str, shape, operands, **attrs) -> ir.Value:
        attributes = {key: _attr(value) for key, value in attrs.items()
                      if value is not None and value is not False}
        # The last check before an MLIR type exists: its dimensions must fit
        # the target (MLIR aborts on some that overflow).
        self.check_size(shape, TensorProto.FLOAT, f"the result of {op_name}")
        return build(op_name, [f32_tensor_type(shape)],
                     [self.tensor(o) for o in operands if o is not None], attributes,
                     loc=self.loc).result

    def transpose(self, value, perm) -> Value:
        perm = [int(p) for p in perm]
        if perm == list(range(len(perm))):
            return value
        if not isinstance(value, ir.Value):
            return Const(np.transpose(self._array(value), perm))
        shape = self.shape(value)
        return self.emit("tinyml.transpose", [shape[p] for p in perm], [value],
                         permutation=perm)

    def reshape(self, value, shape) -> Value:
        shape = tuple(int(d) for d in shape)
        if self.shape(value) == shape:
            return value
        if not isinstance(value, ir.Value):
            return Const(self._array(value).reshape(shape))
        return self.emit("tinyml.reshape", shape, [value])

    @staticmethod
    def _array(value) -> np.ndarray:
        return value.array if isinstance(value, Const) else np.asarray(value)

    def refs(self, value: ir.Value) -> int:
        """How many node inputs and graph outputs refer to `value`."""
        return sum(self.consumers[name] for name, v in self.values.items() if v is value)

    # -- helpers shared by the window ops --------------------------------------

    def window_padding(self, sizes, kernel, strides, dilations) -> list[int]:
        """ONNX pads [b0, b1, ..., e0, e1, ...] from pads or auto_pad."""
        spatial = len(sizes)
        auto_pad = self.attr("auto_pad", "NOTSET")
        if auto_pad == "NOTSET":
            pads = [int(p) for p in self.attr("pads", [0] * 2 * spatial)]
            if len(pads) != 2 * spatial:
                raise self.fail(f"pads has {len(pads)} entries, expected {2 * spatial}")
            if any(p < 0 for p in pads):
                raise self.fail(f"negative pads {pads} are not supported")
            return pads
        if auto_pad == "VALID":
            return [0] * 2 * spatial
        if auto_pad not in ("SAME_UPPER", "SAME_LOWER"):
            raise self.fail(f"unknown auto_pad '{auto_pad}'")
        begin, end = [], []
        for size, k, s, d in zip(sizes, kernel, strides, dilations):
            out = -(-size // s)
            total = max((out - 1) * s + (k - 1) * d + 1 - size, 0)
            small, big = total // 2, total - total // 2
            begin.append(small if auto_pad == "SAME_UPPER" else big)
            end.append(big if auto_pad == "SAME_UPPER" else small)
        return begin + end

    def window_output(self, sizes, kernel, strides, dilations, pads, ceil=False) -> list[int]:
        spatial = len(sizes)
        out = []
        for axis in range(spatial):
            span = (kernel[axis] - 1) * dilations[axis] + 1
            padded = sizes[axis] + pads[axis] + pads[axis + spatial]
            if padded < span:
                raise self.fail(f"kernel {_shape_text(kernel)} does not fit the padded input "
                                f"of spatial size {sizes[axis]} + padding")
            steps = padded - span
            count = (-(-steps // strides[axis]) if ceil else steps // strides[axis]) + 1
            if ceil and (count - 1) * strides[axis] >= sizes[axis] + pads[axis]:
                count -= 1
            out.append(count)
        return out

    def spatial_attrs(self, rank: int, kernel):
        spatial = rank - 2
        strides = [int(s) for s in self.attr("strides", [1] * spatial)]
        dilations = [int(d) for d in self.attr("dilations", [1] * spatial)]
        if len(strides) != spatial or len(dilations) != spatial:
            raise self.fail(f"strides/dilations need {spatial} entries")
        if any(s <= 0 for s in strides) or any(d <= 0 for d in dilations):
            raise self.fail("strides and dilations must be positive")
        return strides, dilations

    def nhwc(self, x: ir.Value) -> ir.Value:
        # One NHWC copy per value, however many NCHW ops read it.
        if x not in self.nhwc_cache:
            self.nhwc_cache[x] = self.transpose(x, NCHW_TO_NHWC)
        return self.nhwc_cache[x]

    def nchw(self, y: ir.Value) -> ir.Value:
        return self.transpose(y, NHWC_TO_NCHW)


# ---------------------------------------------------------------------------
# Op handlers: each maps one ONNX node to tinyml ops or to a folded array.
# ---------------------------------------------------------------------------

def _pair(values):
    return [int(v) for v in values]


@_handles("Conv")
def _conv(im: _Importer, node) -> list:
    x, w = im.arg(0), im.arg(1)
    bias = im.arg(2, optional=True)
    x_shape, w_shape = im.shape(x), im.shape(w)
    rank = len(x_shape)
    if rank not in (3, 4):
        raise im.fail(f"only 1-D and 2-D convolutions are supported (input rank 3 or 4), "
                      f"got input shape {_shape_text(x_shape)}")
    if len(w_shape) != rank:
        raise im.fail(f"weights of shape {_shape_text(w_shape)} do not match the input rank")
    kernel = list(w_shape[2:])
    if im.attr("kernel_shape") is not None and _pair(im.attr("kernel_shape")) != kernel:
        raise im.fail(f"kernel_shape {_pair(im.attr('kernel_shape'))} differs from the "
                      f"weights' {kernel}")
    strides, dilations = im.spatial_attrs(rank, kernel)
    pads = im.window_padding(x_shape[2:], kernel, strides, dilations)
    out_spatial = im.window_output(x_shape[2:], kernel, strides, dilations, pads)
    if rank == 3:  # 1-D: a 2-D convolution over a height of 1
        x = im.reshape(im.tensor(x), (x_shape[0], x_shape[1], 1, x_shape[2]))
        w = im.reshape(w, (w_shape[0], w_shape[1], 1, w_shape[2]))
        kernel, strides, dilations = [1] + kernel, [1] + strides, [1] + dilations
        pads = [0, pads[0], 0, pads[1]]
        out_spatial = [1] + out_spatial
    batch, channels = x_shape[0], x_shape[1]
    filters = im.shape(w)[0]
    group = int(im.attr("group", 1))
    if im.shape(w)[1] * group != channels:
        raise im.fail(f"weights {_shape_text(w_shape)} with group={group} do not fit "
                      f"{channels} input channels")
    if bias is not None and im.shape(bias) != (filters,):
        raise im.fail(f"bias of shape {_shape_text(im.shape(bias))} does not match "
                      f"{filters} output channels")
    if group == 1:
        op_name, filt = "tinyml.conv2d", im.transpose(w, (2, 3, 1, 0))       # OIHW -> HWCF
    elif group == channels:
        if filters % channels:
            raise im.fail(f"depthwise convolution with {filters} filters for {channels} "
                          "channels")
        multiplier = filters // channels
        kh, kw = im.shape(w)[2:]
        filt = im.reshape(w, (channels, multiplier, kh, kw))
        op_name, filt = "tinyml.depthwise_conv2d", im.transpose(filt, (2, 3, 0, 1))  # HWCM
    else:
        raise im.fail(f"grouped convolution (group={group}, {channels} channels) is not "
                      "supported; only group=1 and depthwise (group=channels)")
    y = im.emit(op_name, [batch, *out_spatial, filters], [im.nhwc(im.tensor(x)), filt, bias],
                strides=None if tuple(strides) == DEFAULT_STRIDES else strides,
                dilations=None if tuple(dilations) == DEFAULT_DILATIONS else dilations,
                padding=None if tuple(pads) == DEFAULT_PADDING else pads)
    y = im.nchw(y)
    if rank == 3:
        y = im.reshape(y, (batch, filters, out_spatial[1]))
    return [y]


def _pool(im: _Importer, node, op_name: str) -> list:
    x = im.tensor(im.arg(0))
    x_shape = im.shape(x)
    rank = len(x_shape)
    if rank not in (3, 4):
        raise im.fail(f"only 1-D and 2-D pooling is supported (input rank 3 or 4), got "
                      f"input shape {_shape_text(x_shape)}")
    kernel = _pair(im.attr("kernel_shape", []))
    if len(kernel) != rank - 2:
        raise im.fail(f"kernel_shape {kernel} does not match the input rank {rank}")
    strides, dilations = im.spatial_attrs(rank, kernel)
    if any(d != 1 for d in dilations):
        raise im.fail(f"dilated pooling (dilations={dilations}) is not supported")
    if len(node.output) > 1 and node.output[1] and im.consumers[node.output[1]]:
        raise im.fail("the Indices output of MaxPool is not supported")
    pads = im.window_padding(x_shape[2:], kernel, strides, dilations)
    out = im.window_output(x_shape[2:], kernel, strides, dilations, pads)
    if im.attr("ceil_mode", 0) and im.attr("auto_pad", "NOTSET") == "NOTSET":
        ceil = im.window_output(x_shape[2:], kernel, strides, dilations, pads, ceil=True)
        if ceil != out:
            raise im.fail(f"ceil_mode=1 changes the output size ({out} -> {ceil}); "
                          "not supported")
    spatial = rank - 2
    if any(pads[a] >= kernel[a] or pads[a + spatial] >= kernel[a] for a in range(spatial)):
        raise im.fail(f"pads {pads} must be smaller than the kernel {kernel}")
    if rank == 3:
        x = im.reshape(x, (x_shape[0], x_shape[1], 1, x_shape[2]))
        kernel, strides, pads, out = [1] + kernel, [1] + strides, [0, pads[0], 0, pads[1]], \
            [1] + out
    extra = {}
    if op_name == "tinyml.avg_pool2d" and any(pads) and im.attr("count_include_pad", 0):
        extra["count_include_pad"] = True
    y = im.emit(op_name, [x_shape[0], *out, x_shape[1]], [im.nhwc(x)], kernel=kernel,
                strides=None if tuple(strides) == DEFAULT_STRIDES else strides,
                padding=None if tuple(pads) == DEFAULT_PADDING else pads, **extra)
    y = im.nchw(y)
    if rank == 3:
        y = im.reshape(y, (x_shape[0], x_shape[1], out[1]))
    return [y]


@_handles("AveragePool")
def _avg_pool(im, node):
    return _pool(im, node, "tinyml.avg_pool2d")


@_handles("MaxPool")
def _max_pool(im, node):
    return _pool(im, node, "tinyml.max_pool2d")


@_handles("GlobalAveragePool", "GlobalMaxPool")
def _global_pool(im: _Importer, node) -> list:
    x = im.tensor(im.arg(0))
    shape = im.shape(x)
    if len(shape) < 3:
        raise im.fail(f"needs an input of rank >= 3, got {_shape_text(shape)}")
    if node.op_type == "GlobalAveragePool" and len(shape) == 4:
        y = im.emit("tinyml.global_avg_pool", [shape[0], 1, 1, shape[1]], [im.nhwc(x)])
        return [im.nchw(y)]
    axes = list(range(2, len(shape)))
    op_name = "tinyml.reduce_mean" if node.op_type == "GlobalAveragePool" \
        else "tinyml.reduce_max"
    return [im.emit(op_name, [*shape[:2]] + [1] * len(axes), [x], axes=axes, keep_dims=True)]


@_handles("BatchNormalization")
def _batch_norm(im: _Importer, node) -> list:
    if im.attr("training_mode", 0):
        raise im.fail("training_mode=1 is not supported (inference only)")
    if not im.attr("spatial", 1):
        raise im.fail("spatial=0 is not supported")
    for position, name in enumerate(node.output[1:], start=1):
        if name and im.consumers[name]:
            raise im.fail(f"training output {position} ('{name}') is not supported")
    x = im.tensor(im.arg(0))
    shape = im.shape(x)
    if len(shape) < 2:
        raise im.fail(f"needs an input of rank >= 2, got {_shape_text(shape)}")
    channels = shape[1]
    params = []
    for i, what in enumerate(("scale", "bias", "mean", "variance"), start=1):
        param = im.arg(i)
        if isinstance(param, Const):
            param = Const(param.array.reshape(-1), param.name) \
                if param.array.size == channels and param.array.ndim != 1 else param
        if im.shape(param) != (channels,):
            raise im.fail(f"{what} has shape {_shape_text(im.shape(param))}, expected "
                          f"[{channels}]")
        params.append(param)
    epsilon = float(im.attr("epsilon", 1e-5))
    rank = len(shape)
    to_last = [0] + list(range(2, rank)) + [1]
    xt = im.transpose(x, to_last)
    y = im.emit("tinyml.batch_norm", im.shape(xt), [xt, *params], epsilon=epsilon)
    return [im.transpose(y, _inverse(to_last))]


@_handles("Gemm")
def _gemm(im: _Importer, node) -> list:
    a, b, c = im.arg(0), im.arg(1), im.arg(2, optional=True)
    alpha, beta = float(im.attr("alpha", 1.0)), float(im.attr("beta", 1.0))
    trans_a, trans_b = bool(im.attr("transA", 0)), bool(im.attr("transB", 0))
    a_shape, b_shape = im.shape(a), im.shape(b)
    if len(a_shape) != 2 or len(b_shape) != 2:
        raise im.fail(f"needs 2-D operands, got {_shape_text(a_shape)} and "
                      f"{_shape_text(b_shape)}")
    m, k = (a_shape[1], a_shape[0]) if trans_a else a_shape
    kb, n = (b_shape[1], b_shape[0]) if trans_b else b_shape
    if k != kb:
        raise im.fail(f"contraction sizes differ: A {_shape_text(a_shape)} and B "
                      f"{_shape_text(b_shape)} (transA={int(trans_a)}, transB={int(trans_b)})")
    if trans_b and isinstance(b, Const):
        # One canonical form for constant weights: [K, N], no flag (torch's
        # Linear and tflite2onnx give [N, K] with transB=1, tf2onnx [K, N]).
        b, trans_b = Const(np.ascontiguousarray(b.array.T)), False
    if alpha != 1.0 and isinstance(b, Const):
        b, alpha = Const((b.array * np.float32(alpha)).astype(np.float32)), 1.0
    elif alpha != 1.0 and isinstance(a, Const):
        a, alpha = Const((a.array * np.float32(alpha)).astype(np.float32)), 1.0
    bias = addend = None
    if c is not None and beta != 0.0:
        c_shape = im.shape(c)
        try:
            broadcast = np.broadcast_shapes(c_shape, (m, n))
        except ValueError:
            broadcast = None
        if broadcast != (m, n):
            raise im.fail(f"C of shape {_shape_text(c_shape)} does not broadcast to "
                          f"[{m}, {n}]")
        if isinstance(c, Const):
            scaled = (c.array * np.float32(beta)).astype(c.array.dtype) if beta != 1.0 \
                else c
            c = scaled if isinstance(scaled, Const) else Const(scaled)
            row = len(c_shape) <= 2 and np.broadcast_shapes(c_shape, (1, n)) == (1, n)
            if row:
                bias = Const(np.broadcast_to(c.array, (1, n)).reshape(n))
            else:
                addend = c
        else:
            if beta != 1.0:
                c = im.emit("tinyml.mul", c_shape, [c, Const(np.full([1], beta, np.float32))])
            if c_shape in ((n,), (1, n)):
                bias = im.reshape(c, (n,))
            else:
                addend = c
    if alpha != 1.0 and bias is not None:
        bias, addend = None, bias
    y = im.emit("tinyml.matmul", (m, n), [a, b, bias], transpose_lhs=trans_a,
                transpose_rhs=trans_b)
    if alpha != 1.0:
        y = im.emit("tinyml.mul", (m, n), [y, Const(np.full([1], alpha, np.float32))])
    if addend is not None:
        y = im.emit("tinyml.add", (m, n), [y, addend])
    return [y]


@_handles("MatMul")
def _matmul(im: _Importer, node) -> list:
    a, b = im.arg(0), im.arg(1)
    a_shape, b_shape = im.shape(a), im.shape(b)
    if isinstance(a, Const) and isinstance(b, Const):
        return [np.matmul(a.array, b.array)]
    if len(a_shape) < 2 or len(b_shape) != 2:
        raise im.fail(f"only a [..., K] x [K, N] product with a 2-D right operand is "
                      f"supported, got {_shape_text(a_shape)} x {_shape_text(b_shape)}")
    if a_shape[-1] != b_shape[0]:
        raise im.fail(f"contraction sizes differ: {_shape_text(a_shape)} x "
                      f"{_shape_text(b_shape)}")
    rows = math.prod(a_shape[:-1])
    lhs = im.reshape(im.tensor(a), (rows, a_shape[-1]))
    y = im.emit("tinyml.matmul", (rows, b_shape[1]), [lhs, b])
    return [im.reshape(y, (*a_shape[:-1], b_shape[1]))]


def _broadcast(im: _Importer, *shapes) -> tuple[int, ...]:
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise im.fail(f"operand shapes {' and '.join(_shape_text(s) for s in shapes)} "
                      "do not broadcast") from None


def _fold_div(a, b):
    if np.issubdtype(a.dtype, np.integer) and np.issubdtype(b.dtype, np.integer):
        return (np.trunc(a / b)).astype(np.result_type(a, b))
    return a / b


_BINARY = {
    "Add": ("tinyml.add", np.add),
    "Sub": ("tinyml.sub", np.subtract),
    "Mul": ("tinyml.mul", np.multiply),
    "Div": ("tinyml.div", _fold_div),
    "Max": ("tinyml.maximum", np.maximum),
    "Min": ("tinyml.minimum", np.minimum),
}


def _fuse_matmul_bias(im: _Importer, value, other) -> ir.Value | None:
    """MatMul followed by Add of a row vector (what tf2onnx emits for a
    Dense layer) becomes one matmul with a bias."""
    if not isinstance(value, ir.Value) or not isinstance(other, Const):
        return None
    owner = value.owner
    if not isinstance(owner, ir.OpView) and not isinstance(owner, ir.Operation):
        return None
    op = owner.operation if isinstance(owner, ir.OpView) else owner
    if op.name != "tinyml.matmul" or len(op.operands) != 2 or list(value.uses) \
            or im.refs(value) != 1 or other.array.dtype != np.float32:
        return None
    m, n = im.shape(value)
    if other.array.ndim > 2 or np.broadcast_shapes(other.array.shape, (1, n)) != (1, n):
        return None
    bias = im.tensor(Const(np.broadcast_to(other.array, (1, n)).reshape(n)))
    attrs = {key: op.attributes[key] for key in op.attributes}
    fused = build("tinyml.matmul", [value.type], [op.operands[0], op.operands[1], bias], attrs,
                  loc=op.location).result
    op.erase()
    return fused


@_handles(*_BINARY)
def _binary(im: _Importer, node) -> list:
    op_name, fold = _BINARY[node.op_type]
    operands = [im.arg(i) for i in range(len(node.input))]
    if not operands:
        raise im.fail("needs at least one input")
    result = operands[0]
    for operand in operands[1:]:
        result = _binary_pair(im, node, op_name, fold, result, operand)
    return [result]


def _binary_pair(im: _Importer, node, op_name, fold, a, b):
    shape = _broadcast(im, im.shape(a), im.shape(b))
    if isinstance(a, Const) and isinstance(b, Const):
        dtype = np.result_type(a.array, b.array)
        im.check_size(shape, helper.np_dtype_to_tensor_dtype(dtype), "the result",
                      allow_empty=True)
        if node.op_type == "Div" and np.issubdtype(dtype, np.integer) and not b.array.all():
            raise im.fail("integer division by zero")
        return Const(fold(a.array, b.array))
    if node.op_type == "Add":
        for value, other in ((a, b), (b, a)):
            fused = _fuse_matmul_bias(im, value, other)
            if fused is not None and im.shape(fused) == shape:
                return fused
    # A scalar constant broadcasts the same as a [1]-shaped one.
    a, b = (Const(v.array.reshape(1)) if isinstance(v, Const) and v.array.ndim == 0
            and len(shape) else v for v in (a, b))
    return im.emit(op_name, shape, [a, b])


def _sigmoid(x):
    return (1.0 / (1.0 + np.exp(-x))).astype(x.dtype)


_UNARY = {
    "Relu": ("tinyml.relu", lambda x: np.maximum(x, 0).astype(x.dtype)),
    "Sigmoid": ("tinyml.sigmoid", _sigmoid),
    "Tanh": ("tinyml.tanh", np.tanh),
    "Exp": ("tinyml.exp", np.exp),
    "Neg": ("tinyml.neg", np.negative),
}


@_handles(*_UNARY)
def _unary(im: _Importer, node) -> list:
    op_name, fold = _UNARY[node.op_type]
    x = im.arg(0)
    if isinstance(x, Const):
        return [fold(x.array)]
    return [im.emit(op_name, im.shape(x), [x])]


def _clamp(im: _Importer, x, low: float, high: float):
    if low > high:
        raise im.fail(f"min {low} is greater than max {high}")
    if isinstance(x, Const):
        return Const(np.clip(x.array, low, high).astype(x.array.dtype))
    return im.emit("tinyml.clamp", im.shape(x), [x], min=float(low), max=float(high))


def _scalar(im: _Importer, i: int, what: str, default: float) -> float:
    value = im.const(i, what, optional=True)
    if value is None:
        return default
    if value.size != 1:
        raise im.fail(f"{what} must be a scalar, got shape {_shape_text(value.shape)}")
    return float(value.reshape(()))


@_handles("Clip")
def _clip(im: _Importer, node) -> list:
    if im.opset < 11:
        low, high = float(im.attr("min", -F32_MAX)), float(im.attr("max", F32_MAX))
    else:
        low, high = _scalar(im, 1, "min", -F32_MAX), _scalar(im, 2, "max", F32_MAX)
    low, high = max(low, -F32_MAX), min(high, F32_MAX)
    return [_clamp(im, im.arg(0), low, high)]


def _scale_shift(im: _Importer, x, scale: float, shift: float):
    shape = im.shape(x)
    y = im.emit("tinyml.mul", shape, [x, Const(np.full([1], scale, np.float32))])
    if shift:
        y = im.emit("tinyml.add", shape, [y, Const(np.full([1], shift, np.float32))])
    return y


@_handles("LeakyRelu")
def _leaky_relu(im: _Importer, node) -> list:
    x, alpha = im.tensor(im.arg(0)), float(im.attr("alpha", 0.01))
    shape = im.shape(x)
    scaled = im.emit("tinyml.mul", shape, [x, Const(np.full([1], alpha, np.float32))])
    if 0.0 <= alpha <= 1.0:          # max(x, alpha*x)
        return [im.emit("tinyml.maximum", shape, [x, scaled])]
    if alpha > 1.0:                  # min(x, alpha*x)
        return [im.emit("tinyml.minimum", shape, [x, scaled])]
    # alpha < 0: relu(x) + alpha * min(x, 0)
    negative = im.emit("tinyml.minimum", shape, [x, Const(np.zeros([1], np.float32))])
    negative = im.emit("tinyml.mul", shape, [negative, Const(np.full([1], alpha, np.float32))])
    return [im.emit("tinyml.add", shape, [im.emit("tinyml.relu", shape, [x]), negative])]


@_handles("HardSigmoid")
def _hard_sigmoid(im: _Importer, node) -> list:
    x = im.tensor(im.arg(0))
    alpha, beta = float(im.attr("alpha", 0.2)), float(im.attr("beta", 0.5))
    return [_clamp(im, _scale_shift(im, x, alpha, beta), 0.0, 1.0)]


@_handles("HardSwish")
def _hard_swish(im: _Importer, node) -> list:
    x = im.tensor(im.arg(0))
    gate = _clamp(im, _scale_shift(im, x, 1.0 / 6.0, 0.5), 0.0, 1.0)
    return [im.emit("tinyml.mul", im.shape(x), [x, gate])]


_REDUCE = {"ReduceMean": ("tinyml.reduce_mean", np.mean),
           "ReduceSum": ("tinyml.reduce_sum", np.sum),
           "ReduceMax": ("tinyml.reduce_max", np.max)}


@_handles(*_REDUCE)
def _reduce(im: _Importer, node) -> list:
    op_name, fold = _REDUCE[node.op_type]
    x = im.arg(0)
    shape = im.shape(x)
    rank = len(shape)
    axes = im.ints(1, "axes", "axes")
    keep = bool(im.attr("keepdims", 1))
    if not axes:
        if im.attr("noop_with_empty_axes", 0):
            return [x]
        axes = list(range(rank))
    if any(not -rank <= a < rank for a in axes):
        raise im.fail(f"axes {axes} out of range for rank {rank}")
    axes = sorted({a % rank for a in axes})
    if isinstance(x, Const):
        return [np.asarray(fold(x.array, axis=tuple(axes), keepdims=keep)).astype(x.array.dtype)]
    out = [1 if i in axes else d for i, d in enumerate(shape) if keep or i not in axes]
    return [im.emit(op_name, out, [x], axes=axes, keep_dims=keep)]


@_handles("Softmax")
def _softmax(im: _Importer, node) -> list:
    x = im.tensor(im.arg(0))
    shape = im.shape(x)
    rank = len(shape)
    axis = int(im.attr("axis", 1 if im.opset < 13 else -1))
    if not -rank <= axis < rank:
        raise im.fail(f"axis {axis} out of range for rank {rank}")
    axis %= rank
    if im.opset >= 13 or axis == rank - 1:
        return [im.emit("tinyml.softmax", shape, [x], axis=axis)]
    # Before opset 13 the input is coerced to 2-D at `axis`.
    flat = (math.prod(shape[:axis]), math.prod(shape[axis:]))
    y = im.emit("tinyml.softmax", flat, [im.reshape(x, flat)], axis=1)
    return [im.reshape(y, shape)]


@_handles("Reshape")
def _reshape(im: _Importer, node) -> list:
    x = im.arg(0)
    in_shape = im.shape(x)
    if im.has_input(1):
        target = im.int_const(1, "the shape").reshape(-1).tolist()
    elif im.attr("shape") is not None:
        target = [int(v) for v in im.attr("shape")]
    else:
        raise im.fail("has no shape")
    allow_zero = bool(im.attr("allowzero", 0))
    shape = [in_shape[i] if d == 0 and not allow_zero and i < len(in_shape) else d
             for i, d in enumerate(target)]
    known = math.prod(d for d in shape if d != -1)
    total = math.prod(in_shape)
    if shape.count(-1) > 1:
        raise im.fail(f"shape {target} has more than one -1")
    if -1 in shape:
        if known == 0 or total % known:
            raise im.fail(f"cannot reshape {_shape_text(in_shape)} to {target}")
        shape[shape.index(-1)] = total // known
    if math.prod(shape) != total or any(d < 0 for d in shape):
        raise im.fail(f"cannot reshape {_shape_text(in_shape)} to {target}")
    return [im.reshape(x, shape)]


@_handles("Flatten")
def _flatten(im: _Importer, node) -> list:
    x = im.arg(0)
    shape = im.shape(x)
    axis = int(im.attr("axis", 1))
    if not -len(shape) <= axis <= len(shape):
        raise im.fail(f"axis {axis} out of range for rank {len(shape)}")
    if axis < 0:
        axis += len(shape)
    return [im.reshape(x, (math.prod(shape[:axis]), math.prod(shape[axis:])))]


@_handles("Squeeze")
def _squeeze(im: _Importer, node) -> list:
    x = im.arg(0)
    shape = im.shape(x)
    axes = im.ints(1, "axes", "axes")
    if axes is None:
        axes = [i for i, d in enumerate(shape) if d == 1]
    if any(not -len(shape) <= a < len(shape) for a in axes):
        raise im.fail(f"axes {axes} out of range for rank {len(shape)}")
    axes = {a % len(shape) for a in axes}
    if any(shape[a] != 1 for a in axes):
        raise im.fail(f"cannot squeeze axes {sorted(axes)} of shape {_shape_text(shape)}")
    return [im.reshape(x, [d for i, d in enumerate(shape) if i not in axes])]


@_handles("Unsqueeze")
def _unsqueeze(im: _Importer, node) -> list:
    x = im.arg(0)
    shape = list(im.shape(x))
    axes = im.ints(1, "axes", "axes")
    if not axes:
        raise im.fail("needs axes")
    rank = len(shape) + len(axes)
    if any(not -rank <= a < rank for a in axes):
        raise im.fail(f"axes {axes} out of range for rank {rank}")
    axes = sorted(a % rank for a in axes)
    for a in axes:
        shape.insert(a, 1)
    return [im.reshape(x, shape)]


@_handles("Transpose")
def _transpose(im: _Importer, node) -> list:
    x = im.arg(0)
    rank = len(im.shape(x))
    perm = [int(p) for p in im.attr("perm", list(reversed(range(rank))))]
    if sorted(perm) != list(range(rank)):
        raise im.fail(f"perm {perm} is not a permutation of 0..{rank - 1}")
    return [im.transpose(x, perm)]


@_handles("Pad")
def _pad(im: _Importer, node) -> list:
    mode = im.attr("mode", "constant")
    if mode != "constant":
        raise im.fail(f"mode '{mode}' is not supported (only constant)")
    x = im.arg(0)
    shape = im.shape(x)
    rank = len(shape)
    if im.opset < 11:
        pads = [int(p) for p in im.attr("pads", [])]
        value = float(im.attr("value", 0.0))
    else:
        pads = im.int_const(1, "pads").reshape(-1).tolist()
        value = _scalar(im, 2, "constant_value", 0.0)
        axes = im.int_const(3, "axes", optional=True)
        if axes is not None:
            axes = axes.reshape(-1).tolist()
            if any(not -rank <= a < rank for a in axes):
                raise im.fail(f"axes {axes} out of range for rank {rank}")
            axes = [a % rank for a in axes]
            if len(pads) != 2 * len(axes):
                raise im.fail(f"pads {pads} do not match axes {axes}")
            full = [0] * 2 * rank
            for j, a in enumerate(axes):
                full[a], full[a + rank] = pads[j], pads[j + len(axes)]
            pads = full
    if len(pads) != 2 * rank:
        raise im.fail(f"pads {pads} need {2 * rank} entries for rank {rank}")
    if any(p < 0 for p in pads):
        raise im.fail(f"negative pads {pads} (cropping) are not supported")
    if not any(pads):
        return [x]
    out = [d + pads[i] + pads[i + rank] for i, d in enumerate(shape)]
    if isinstance(x, Const):
        im.check_size(out, helper.np_dtype_to_tensor_dtype(x.array.dtype), "the result",
                      allow_empty=True)
        return [np.pad(x.array, list(zip(pads[:rank], pads[rank:])), constant_values=value)]
    return [im.emit("tinyml.pad", out, [x], padding=pads, value=value if value else None)]


@_handles("Concat")
def _concat(im: _Importer, node) -> list:
    inputs = [im.arg(i) for i in range(len(node.input)) if node.input[i]]
    if not inputs:
        raise im.fail("needs at least one input")
    shapes = [im.shape(v) for v in inputs]
    rank = len(shapes[0])
    if im.attr("axis") is None and im.opset >= 4:
        raise im.fail("needs an axis")
    axis = int(im.attr("axis", 1))
    if not -rank <= axis < rank:
        raise im.fail(f"axis {axis} out of range for rank {rank}")
    axis %= rank
    for s in shapes:
        if len(s) != rank or any(s[d] != shapes[0][d] for d in range(rank) if d != axis):
            raise im.fail(f"input shapes {', '.join(_shape_text(s) for s in shapes)} differ "
                          f"outside axis {axis}")
    if all(isinstance(v, Const) for v in inputs):
        return [np.concatenate([v.array for v in inputs], axis=axis)]
    inputs = [v for v, s in zip(inputs, shapes) if s[axis] > 0]
    out = list(shapes[0])
    out[axis] = sum(s[axis] for s in shapes)
    if len(inputs) == 1:
        return [inputs[0]]
    return [im.emit("tinyml.concat", out, inputs, axis=axis)]


@_handles("Identity")
def _identity(im: _Importer, node) -> list:
    return [im.arg(0)]


@_handles("Dropout")
def _dropout(im: _Importer, node) -> list:
    training = im.const(2, "training_mode", optional=True)
    if training is not None and bool(training.reshape(-1)[0]):
        raise im.fail("training_mode=true is not supported (inference only)")
    if len(node.output) > 1 and node.output[1] and im.consumers[node.output[1]]:
        raise im.fail("the mask output is not supported")
    return [im.arg(0)]


@_handles("Constant")
def _constant(im: _Importer, node) -> list:
    if "value" in im.attrs:
        return [im.array(im.attr("value"), "attribute 'value'")]
    for key, dtype in (("value_float", np.float32), ("value_floats", np.float32),
                       ("value_int", np.int64), ("value_ints", np.int64)):
        if key in im.attrs:
            return [np.array(im.attr(key), dtype)]
    raise im.fail(f"value kind {sorted(im.attrs)} is not supported")


@_handles("ConstantOfShape")
def _constant_of_shape(im: _Importer, node) -> list:
    shape = im.int_const(0, "the shape").reshape(-1).tolist()
    value = im.attr("value")
    fill = im.array(value, "attribute 'value'").reshape(-1) if value is not None \
        else np.zeros([1], np.float32)
    if fill.size != 1:
        raise im.fail(f"attribute 'value' must hold one element, got {fill.size}")
    im.check_size(shape, helper.np_dtype_to_tensor_dtype(fill.dtype), "the result",
                  allow_empty=True)
    return [np.full(shape, fill[0], fill.dtype)]


@_handles("Cast")
def _cast(im: _Importer, node) -> list:
    to = int(im.attr("to"))
    x = im.arg(0)
    if isinstance(x, Const):
        try:
            return [x.array.astype(helper.tensor_dtype_to_np_dtype(to))]
        except (KeyError, TypeError, ValueError):
            raise im.fail(f"cannot cast a constant to {_dtype_name(to)}") from None
    if to != TensorProto.FLOAT:
        raise im.fail(f"cast of a tensor to {_dtype_name(to)} is not supported; only "
                      "float32 tensors are")
    return [x]


@_handles("Shape")
def _shape(im: _Importer, node) -> list:
    shape = np.array(im.shape(im.arg(0)), np.int64)
    start, end = im.attr("start", 0), im.attr("end", None)
    return [shape[start:end]]


@_handles("Gather")
def _gather(im: _Importer, node) -> list:
    data = im.const(0, "the data (Gather is folded at import time only)")
    indices = im.int_const(1, "the indices")
    axis = int(im.attr("axis", 0))
    if not -data.ndim <= axis < data.ndim:
        raise im.fail(f"axis {axis} out of range for rank {data.ndim}")
    size = data.shape[axis]
    if indices.size and not (-size <= indices.min() and indices.max() < size):
        raise im.fail(f"indices {indices.reshape(-1).tolist()} out of range for a dimension "
                      f"of {size}")
    return [np.take(data, indices.astype(np.int64), axis=axis)]


@_handles("Slice")
def _slice(im: _Importer, node) -> list:
    data = im.const(0, "the data (Slice is folded at import time only)")
    if im.opset < 10:
        starts, ends = im.attr("starts"), im.attr("ends")
        axes, steps = im.attr("axes"), None
    else:
        starts = im.int_const(1, "starts").reshape(-1).tolist()
        ends = im.int_const(2, "ends").reshape(-1).tolist()
        axes = im.int_const(3, "axes", optional=True)
        steps = im.int_const(4, "steps", optional=True)
    axes = list(range(len(starts))) if axes is None else [int(a) for a in np.reshape(axes, -1)]
    steps = [1] * len(starts) if steps is None else [int(s) for s in np.reshape(steps, -1)]
    if not len(starts) == len(ends) == len(axes) == len(steps):
        raise im.fail(f"starts {starts}, ends {ends}, axes {axes} and steps {steps} differ "
                      "in length")
    if any(not -data.ndim <= a < data.ndim for a in axes) or 0 in steps:
        raise im.fail(f"axes {axes} or steps {steps} do not fit the data of rank {data.ndim}")
    index = [slice(None)] * data.ndim
    for a, s, e, st in zip(axes, starts, ends, steps):
        index[a % data.ndim] = slice(int(s), int(e), int(st))
    return [data[tuple(index)]]


SUPPORTED_OPS: tuple[str, ...] = tuple(sorted(_HANDLERS))
