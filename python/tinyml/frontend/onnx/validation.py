"""The checks that nothing is built from an ONNX model that is not valid
ONNX (see the package's docstring): the protobuf parses, every string is
UTF-8, the versions and opsets exist, names are unique, each node fits its
op's schema, the ONNX checker and strict shape inference pass, and no
tensor reaches 2 GiB. Apart from `importer.py` because none of it builds
IR: `ModelValidation` reads the model and fails, and the `Importer` that
builds is one (it supplies `fail`, `model`, `graph` and `opset`)."""
from __future__ import annotations

import math
import re
from collections import Counter
from typing import TYPE_CHECKING

import numpy as np
import onnx
from google.protobuf.message import DecodeError
from onnx import TensorProto, helper, numpy_helper

from .. import FrontendError, function_name

# A Cortex-M target has a 32-bit address space: no tensor can reach 2 GiB.
MAX_TENSOR_BYTES = 2 ** 31

#: The element types of graph inputs, outputs and built tensors: float32,
#: and the int8 data of a quantized model.
TENSOR_ELEMENT_TYPES = (TensorProto.FLOAT, TensorProto.INT8)

#: The ONNX ops whose input X is a sequence, [T, B, I] in layout 0.
RECURRENT_OPS = frozenset({"LSTM", "GRU", "RNN"})

# The attribute types of the ops read from other domains, which ONNX has no
# schema for: "domain.OpType" -> {attribute name: AttributeProto type}
# (filled by `importer.handles`).
DOMAIN_ATTRIBUTES: dict[str, dict[str, int]] = {}


def op_key(node: onnx.NodeProto) -> str:
    """The node's op as HANDLERS names it."""
    return node.op_type if node.domain in ("", "ai.onnx") else f"{node.domain}.{node.op_type}"


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
_ATTR_KINDS: dict[int, str] = {
    onnx.AttributeProto.FLOAT: "a float", onnx.AttributeProto.INT: "an int",
    onnx.AttributeProto.STRING: "a string", onnx.AttributeProto.TENSOR: "a tensor",
    onnx.AttributeProto.GRAPH: "a graph", onnx.AttributeProto.FLOATS: "a list of floats",
    onnx.AttributeProto.INTS: "a list of ints", onnx.AttributeProto.STRINGS: "a list of strings",
    onnx.AttributeProto.TENSORS: "a list of tensors",
}


# The TensorProto field that holds the values of each element type tinyml
# reads (when they are not in raw_data).
_TENSOR_FIELDS: dict[int, str] = {
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


class ModelValidation:
    """The validation half of the `Importer`: the checks it runs before it
    builds anything, and the readers (`check_size`, `array`, the attribute
    values) that check what they read."""

    # What the Importer supplies (it sets them in its __init__).
    model: onnx.ModelProto
    graph: onnx.GraphProto
    name: str | None
    func_name: str
    batch: int
    has_dynamic_batch: bool
    base_dir: str | None
    opset: int
    schemas: dict[str, onnx.defs.OpSchema | None]
    inferred: dict[str, tuple[int, tuple[int, ...] | None]]
    where: str

    if TYPE_CHECKING:
        def fail(self, message: str, where: str | None = None) -> FrontendError:
            """The error to raise, prefixed with the file and `where` (by
            default, what is being checked or imported)."""

    def _check_text(self) -> None:
        # protobuf does not enforce UTF-8 on ONNX's (proto2) strings; a name
        # that is not text cannot name a function, a location or an error.
        found = _non_utf8_string(self.model, "model")
        if found:
            path, value = found
            match = re.match(r"model\.graph\.node\[(\d+)\]", path)
            where = ""
            if match:
                index = int(match.group(1))
                node = self.graph.node[index]
                if isinstance(node.name, str) and isinstance(node.op_type, str):
                    where = f"node '{self._label(index, node)}' ({node.op_type})"
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
        batch_axis = self._batch_axis(info.name)
        for axis, dim in enumerate(tensor_type.shape.dim):
            if dim.HasField("dim_value"):
                shape.append(dim.dim_value)
            elif axis == batch_axis:
                shape.append(self.batch)
                self.has_dynamic_batch = True
            else:
                what = f"'{dim.dim_param}'" if dim.HasField("dim_param") else "unknown"
                raise self.fail(f"{where} has a dynamic dimension {axis} ({what}); only "
                                f"the batch dimension ({batch_axis}) may be dynamic")
        self.check_size(shape, tensor_type.elem_type, where)
        return tuple(shape)

    def _batch_axis(self, name: str) -> int:
        """The batch dimension of input `name`: 0, or 1 where only
        recurrent nodes read it, as their time-first sequence X (layout 0:
        [T, B, I], PyTorch's default for nn.LSTM and nn.GRU), besides the
        Shape nodes that read its batch size for their initial states."""
        readers = [(node, i) for node in self.graph.node if node.op_type != "Shape"
                   for i, operand in enumerate(node.input) if operand == name]
        time_first = [node.op_type in RECURRENT_OPS and node.domain in ("", "ai.onnx") and i == 0
                      and all(a.name != "layout" or a.i == 0 for a in node.attribute)
                      for node, i in readers]
        return 1 if time_first and all(time_first) else 0

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
