"""The ONNX importer: validation of the model, its values and the helpers
op handlers build with. Handlers live in one module per op family and
register themselves with `@handles("OpType", ...)`."""
from __future__ import annotations

import math
import re
from collections import Counter
from typing import Callable, Union

import numpy as np
import onnx
from google.protobuf.message import DecodeError
from mlir import ir
from mlir.dialects import arith, func
from onnx import TensorProto, helper, numpy_helper

from ...ir.builders import attribute, build
from ...ir.quant import dequantize, storage_cast, uniform_type
from .. import FrontendError, function_name, mark_batch

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


class QuantConst:
    """A quantized compile-time tensor (a weight or bias behind a
    DequantizeLinear): its integer storage, its scales and zero points, and
    the axis they run along (None: per tensor). It is re-laid out at import
    time like a Const, and becomes `arith.constant` + `quant.scast` +
    `tinyml.dequantize` where an op reads it: its value is `scale * (q - zp)`.
    Not a Const: folding arithmetic on its storage would be wrong."""

    __slots__ = ("array", "scales", "zero_points", "axis", "name")

    def __init__(self, array, scales, zero_points, axis: int | None, name: str | None = None):
        self.array = np.asarray(array)
        self.scales = [float(s) for s in np.reshape(scales, -1)]
        self.zero_points = [int(z) for z in np.reshape(zero_points, -1)]
        self.axis = axis
        self.name = name

    def element_type(self) -> ir.Type:
        return uniform_type(self.scales, self.zero_points, self.array.dtype, self.axis)


Value = Union[Const, QuantConst, ir.Value]

#: The element types of graph inputs, outputs and built tensors: float32,
#: and the int8 data of a quantized model.
TENSOR_ELEMENT_TYPES = (TensorProto.FLOAT, TensorProto.INT8)


def element_type(elem_type: int) -> ir.Type:
    """The MLIR element type of an ONNX one of TENSOR_ELEMENT_TYPES."""
    return ir.F32Type.get() if elem_type == TensorProto.FLOAT else ir.IntegerType.get_signless(8)

# op type ("domain.OpType" outside the default domain) -> handler(importer,
# node) -> list of output values.
HANDLERS: dict[str, Callable] = {}
# The attribute types of the ops read from other domains, which ONNX has no
# schema for: "domain.OpType" -> {attribute name: AttributeProto type}.
DOMAIN_ATTRIBUTES: dict[str, dict[str, int]] = {}


def op_key(node: onnx.NodeProto) -> str:
    """The node's op as HANDLERS names it."""
    return node.op_type if node.domain in ("", "ai.onnx") else f"{node.domain}.{node.op_type}"


def handles(*op_types: str, domain: str = "", attributes: dict[str, int] | None = None):
    """Registers a handler; an op of another `domain` declares the types of
    its `attributes`."""
    def register(fn):
        for op_type in op_types:
            key = f"{domain}.{op_type}" if domain else op_type
            HANDLERS[key] = fn
            if domain:
                DOMAIN_ATTRIBUTES[key] = attributes or {}
        return fn
    return register


def dtype_name(elem_type: int) -> str:
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


def shape_text(shape) -> str:
    return "[" + ", ".join(str(d) for d in shape) + "]"


def parse_model(data: bytes, filename: str) -> onnx.ModelProto:
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


class Importer:
    def __init__(self, model: onnx.ModelProto, filename: str, batch: int,
                 name: str | None, base_dir: str | None):
        self.model = model
        self.graph = model.graph
        self.filename = filename
        self.batch = batch
        self.has_dynamic_batch = False
        self.name = name
        self.func_name = ""  # set once the graph name is known to be text
        self.base_dir = base_dir
        self.opset = 0
        self.schemas: dict[str, onnx.defs.OpSchema | None] = {}
        self.values: dict[str, Value] = {}
        self.cache: dict[str, ir.Value] = {}
        self.nhwc_cache: dict[ir.Value, ir.Value] = {}
        self.dequantize_cache: dict[tuple[ir.Value, ir.Type], ir.Value] = {}
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
        arg_types = [ir.RankedTensorType.get(shape, element_type(i.type.tensor_type.elem_type))
                     for i, shape in zip(inputs, arg_shapes)]
        with ir.InsertionPoint(module.body):
            fn = func.FuncOp(self.func_name, (arg_types, []), loc=file_loc)
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
            arg_types, [r.type for r in results]))
        fn.attributes["arg_attrs"] = ir.ArrayAttr.get(
            [ir.DictAttr.get({"tinyml.name": ir.StringAttr.get(i.name)}) for i in inputs])
        fn.attributes["res_attrs"] = ir.ArrayAttr.get(
            [ir.DictAttr.get({"tinyml.name": ir.StringAttr.get(o.name)}) for o in graph.output])
        fn.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
        if self.has_dynamic_batch:
            mark_batch(fn, self.batch)
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
        self.func_name = function_name(self.name or self.graph.name)

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

    def _io_tensor_type(self, info: onnx.ValueInfoProto, where: str):
        """The tensor type of a graph input or output: float32 or int8."""
        if not info.type.HasField("tensor_type"):
            raise self.fail(f"{where} is not a tensor")
        tensor_type = info.type.tensor_type
        if tensor_type.elem_type not in TENSOR_ELEMENT_TYPES:
            raise self.fail(f"{where} has element type {dtype_name(tensor_type.elem_type)}; "
                            "only float32 and int8 are supported")
        return tensor_type

    def _input_shape(self, info: onnx.ValueInfoProto) -> tuple[int, ...]:
        where = f"input '{info.name}'"
        tensor_type = self._io_tensor_type(info, where)
        if not tensor_type.HasField("shape"):
            raise self.fail(f"{where} has no shape (rank unknown)")
        shape = []
        for axis, dim in enumerate(tensor_type.shape.dim):
            if dim.HasField("dim_value"):
                shape.append(dim.dim_value)
            elif axis == 0:
                shape.append(self.batch)
                self.has_dynamic_batch = True
            else:
                what = f"'{dim.dim_param}'" if dim.HasField("dim_param") else "unknown"
                raise self.fail(f"{where} has a dynamic dimension {axis} ({what}); only "
                                "the batch dimension (0) may be dynamic")
        self.check_size(shape, tensor_type.elem_type, where)
        return tuple(shape)

    def _check_outputs(self) -> None:
        for output in self.graph.output:
            where = f"output '{output.name}'"
            tensor_type = self._io_tensor_type(output, where)
            dims = tensor_type.shape.dim
            if any(d.HasField("dim_value") and d.dim_value < 1 for d in dims):
                shape = [d.dim_value if d.HasField("dim_value") else d.dim_param or "?"
                         for d in dims]
                raise self.fail(f"{where} declares shape {shape_text(shape)}; dimensions "
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
                        f"{where} ({dtype_name(tensor.data_type)} "
                        f"{shape_text(tensor.dims)}) does not match input '{tensor.name}' "
                        f"({dtype_name(input_type.elem_type)} "
                        f"{shape_text(d if d is not None else '?' for d in dims)}) it sets")
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
            raise self.fail(f"{what} has shape {shape_text(dims)}; dimensions must be {least}")
        nbytes = math.prod(dims) * _itemsize(elem_type)
        if nbytes >= MAX_TENSOR_BYTES:
            raise self.fail(f"{what} has shape {shape_text(dims)} ({nbytes} bytes); a tensor "
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
        self.where = f"node '{self._label(index, node)}' ({op_key(node)})"
        if schema is None:
            # The checker or the unsupported-op error names an unknown op.
            if op_key(node) in DOMAIN_ATTRIBUTES:
                self._check_attributes(node)
            self.where = ""
            return
        for what, count, low, high in (
                ("inputs", len(node.input), schema.min_input, schema.max_input),
                ("outputs", len(node.output), schema.min_output, schema.max_output)):
            if not low <= count <= high:
                takes = f"{low}" if low == high else f"at least {low}" \
                    if high >= 2 ** 31 - 1 else f"{low} to {high}"
                raise self.fail(f"has {count} {what}; {node.op_type} (opset "
                                f"{schema.since_version}) takes {takes}")
        self._check_attributes(node)
        self.where = ""

    def _check_attributes(self, node: onnx.NodeProto) -> None:
        names = Counter(a.name for a in node.attribute)
        for proto in node.attribute:
            if names[proto.name] > 1:
                raise self.fail(f"attribute '{proto.name}' is given "
                                f"{names[proto.name]} times")
            self._attribute_value(node, proto)

    def _attribute_value(self, node: onnx.NodeProto, attribute: onnx.AttributeProto):
        """The value of `attribute` once its type is the one the op's schema
        (or its DOMAIN_ATTRIBUTES entry) gives it: every attribute is read
        through here."""
        schema = self._schema(node)
        if schema is None:
            types, whose = DOMAIN_ATTRIBUTES[op_key(node)], f"{op_key(node)}'s"
        else:
            types = {name: a.type.value for name, a in schema.attributes.items()}
            whose = f"{node.op_type}'s in opset {schema.since_version}"
        if attribute.name not in types:
            raise self.fail(f"unknown attribute '{attribute.name}' (not one of {whose})")
        expected = types[attribute.name]
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
            raise self.fail(f"{what} has element type {dtype_name(tensor.data_type)}; only "
                            "float, integer and bool tensors are supported")
        needed = math.prod(tensor.dims)
        if tensor.HasField("raw_data"):
            held = len(tensor.raw_data) / _itemsize(tensor.data_type)
        else:
            held = len(getattr(tensor, field))
        if held != needed:
            raise self.fail(f"{what} holds {held:g} values but its shape "
                            f"{shape_text(tensor.dims)} needs {needed}")
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
        self.where = f"node '{label}' ({op_key(node)})"
        self.loc = ir.Location.name(label, childLoc=ir.Location.file(self.filename, 0, 0))
        self.attrs = {a.name: a for a in node.attribute}
        handler = HANDLERS.get(op_key(node))
        if handler is None:
            raise self.fail(f"unsupported op; supported ops: {', '.join(sorted(HANDLERS))}",
                            f"node '{label}' ({op_key(node)})")
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
            if not isinstance(value, (ir.Value, Const, QuantConst)):
                value = Const(np.asarray(value), name)
            elif isinstance(value, (Const, QuantConst)) and value.name is None:
                value.name = name
            self._check_inferred(name, value)
            self.values[name] = value

    def _check_inferred(self, name: str, value: Value) -> None:
        if isinstance(value, Const) or name not in self.inferred:
            return
        elem, dims = self.inferred[name]
        # A uint8 tensor (quantized data) is built as int8, its zero point
        # moved by -128: see quantization.py.
        if elem not in (0, *TENSOR_ELEMENT_TYPES, TensorProto.UINT8):
            raise self.fail(f"output '{name}' has element type {dtype_name(elem)}; only "
                            "float32, int8 and uint8 tensors are supported")
        shape = self.shape(value)
        if dims is not None and tuple(dims) != tuple(shape):
            raise self.fail(f"output '{name}' has shape {shape_text(shape)} but ONNX shape "
                            f"inference says {shape_text(dims)}")

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

    def scalar(self, i: int, what: str, default: float) -> float:
        """Optional input i as one float (a Clip bound, a Pad value)."""
        value = self.const(i, what, optional=True)
        if value is None:
            return default
        if value.size != 1:
            raise self.fail(f"{what} must be a scalar, got shape {shape_text(value.shape)}")
        return float(value.reshape(()))

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
        if isinstance(value, (Const, QuantConst)):
            return tuple(value.array.shape)
        if isinstance(value, np.ndarray):
            return tuple(value.shape)
        return tuple(ir.RankedTensorType(value.type).shape)

    @staticmethod
    def element(value) -> ir.Type:
        """The element type `value` has as a tensor (constants: float32)."""
        if isinstance(value, ir.Value):
            return ir.RankedTensorType(value.type).element_type
        return ir.F32Type.get()

    def tensor(self, value) -> ir.Value:
        """The value as an SSA tensor, materializing compile-time arrays."""
        if isinstance(value, ir.Value):
            return value
        if isinstance(value, QuantConst):
            return self._quantized_constant(value)
        name = value.name if isinstance(value, Const) else None
        array = value.array if isinstance(value, Const) else np.asarray(value)
        if name is not None and name in self.cache:
            return self.cache[name]
        what = f"constant '{name}'" if name else "a constant"
        if array.dtype != np.float32:
            raise self.fail(f"{what} has element type {array.dtype} where a float32 tensor "
                            "is needed; only float32 constants are supported (int8 and "
                            "int32 ones behind a DequantizeLinear)")
        self.check_size(array.shape, TensorProto.FLOAT, what)
        attr = ir.DenseElementsAttr.get(np.ascontiguousarray(array))
        result = arith.ConstantOp(attr.type, attr, loc=self.loc).result
        if name is not None:
            self.cache[name] = result
        return result

    def _quantized_constant(self, value: QuantConst) -> ir.Value:
        if value.name is not None and value.name in self.cache:
            return self.cache[value.name]
        self.check_size(value.array.shape, TensorProto.INT32, f"constant '{value.name}'")
        attr = ir.DenseElementsAttr.get(np.ascontiguousarray(value.array))
        storage = arith.ConstantOp(attr.type, attr, loc=self.loc).result
        result = dequantize(storage_cast(storage, value.element_type(), self.loc), self.loc)
        if value.name is not None:
            self.cache[value.name] = result
        return result

    def emit(self, op_name: str, shape, operands, element: ir.Type | None = None,
             **attrs) -> ir.Value:
        """The tinyml op `op_name` with a result of `shape` and element type
        `element` (default float32)."""
        attributes = {key: attribute(value) for key, value in attrs.items()
                      if value is not None and value is not False}
        # The last check before an MLIR type exists: its dimensions must fit
        # the target (MLIR aborts on some that overflow).
        self.check_size(shape, TensorProto.FLOAT, f"the result of {op_name}")
        result_type = ir.RankedTensorType.get(list(shape), element or ir.F32Type.get())
        operands = [self.tensor(o) for o in operands if o is not None]
        if element is None:
            self._check_float(operands)
        return build(op_name, [result_type], operands, attributes, loc=self.loc).result

    def _check_float(self, operands) -> None:
        """Only data movement (which passes its element type) reads raw
        int8 storage; arithmetic needs a DequantizeLinear in between."""
        for operand in operands:
            element = self.element(operand)
            if isinstance(element, ir.IntegerType):
                names = [n for n in self.node.input if self.values.get(n) is operand]
                what = f"input '{names[0]}'" if names else "an input"
                raise self.fail(f"{what} is an integer ({element}) tensor; {self.node.op_type} "
                                "computes on float32 only (a quantized model's "
                                "DequantizeLinear makes int8 data float first)")

    def slice(self, value: ir.Value, offsets, sizes, strides) -> ir.Value:
        """In each dimension d, sizes[d] elements of `value`, every
        strides[d]-th from offsets[d] (a negative stride walks backwards)."""
        shape = self.shape(value)
        if all(o == 0 and n == d and (s == 1 or n == 1)
               for o, n, s, d in zip(offsets, sizes, strides, shape)):
            return value
        return self.emit("tinyml.slice", sizes, [value], offsets=list(offsets),
                         strides=list(strides))

    def transpose(self, value, perm) -> Value:
        perm = [int(p) for p in perm]
        if perm == list(range(len(perm))):
            return value
        if isinstance(value, QuantConst):
            axis = None if value.axis is None else perm.index(value.axis)
            return QuantConst(np.transpose(value.array, perm), value.scales,
                              value.zero_points, axis)
        if not isinstance(value, ir.Value):
            return Const(np.transpose(self._array(value), perm))
        shape = self.shape(value)
        return self.emit("tinyml.transpose", [shape[p] for p in perm], [value],
                         self.element(value), permutation=perm)

    def reshape(self, value, shape) -> Value:
        shape = tuple(int(d) for d in shape)
        if self.shape(value) == shape:
            return value
        if isinstance(value, QuantConst):
            return QuantConst(value.array.reshape(shape), value.scales, value.zero_points,
                              self._reshaped_axis(value, shape))
        if not isinstance(value, ir.Value):
            return Const(self._array(value).reshape(shape))
        return self.emit("tinyml.reshape", shape, [value], self.element(value))

    def _reshaped_axis(self, value: QuantConst, shape) -> int | None:
        """Where the quantized axis of `value` is after a reshape to `shape`:
        the reshape must keep that dimension whole."""
        if value.axis is None:
            return None
        before = math.prod(value.array.shape[:value.axis])
        size = value.array.shape[value.axis]
        for axis in range(len(shape)):
            if math.prod(shape[:axis]) == before and shape[axis] == size:
                return axis
        raise self.fail(f"cannot reshape {shape_text(value.array.shape)} to "
                        f"{shape_text(shape)}: it splits the quantization axis {value.axis}")

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
        if self.attr("pads", None) is not None:
            # The spec allows one or the other; onnxruntime refuses both.
            raise self.fail(f"has both auto_pad '{auto_pad}' and pads")
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
                raise self.fail(f"kernel {shape_text(kernel)} does not fit the padded input "
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


