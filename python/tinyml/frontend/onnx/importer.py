"""The ONNX importer: the model's values and the helpers op handlers build
with. Handlers live in one module per op family and register themselves
with `@handles("OpType", ...)`; the checks the model passes before anything
is built are `validation.py`'s."""
from __future__ import annotations

import math
from collections import Counter
from typing import Callable, Literal, Union, overload

import numpy as np
import onnx
from mlir import ir
from mlir.dialects import arith, func, tensor
from onnx import TensorProto

from ...dialects import tinyml as tm
from ...ir.builders import attribute, build
from ...ir.quant import dequantize, storage_cast, uniform_type
from .. import FrontendError, mark_batch
from .validation import (DOMAIN_ATTRIBUTES, TENSOR_ELEMENT_TYPES, ModelValidation, dtype_name,
                         op_key, shape_text)

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


def element_type(elem_type: int) -> ir.Type:
    """The MLIR element type of an ONNX one of TENSOR_ELEMENT_TYPES."""
    return ir.F32Type.get() if elem_type == TensorProto.FLOAT else ir.IntegerType.get_signless(8)


# op type ("domain.OpType" outside the default domain) -> handler(importer,
# node) -> list of output values.
HANDLERS: dict[str, Callable] = {}


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


def _one_line(text: str) -> str:
    """`text` on one line: unprintable characters (a line break in a name
    of the model) are escaped."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


# ---------------------------------------------------------------------------
# The importer


class Importer(ModelValidation):
    """Imports one ONNX model: the checks of `ModelValidation` first, then
    the function, node by node through the handlers."""

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
        self.inferred: dict[str, tuple[int, tuple[int, ...] | None]] = {}
        self.where = ""
        self.node: onnx.NodeProto | None = None
        self.loc: ir.Location | None = None

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

    def _load_initializers(self) -> None:
        for tensor in self.graph.initializer:
            self.values[tensor.name] = Const(
                self.array(tensor, f"initializer '{tensor.name}'"), tensor.name)

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
        loc = self.loc = ir.Location.name(label, childLoc=ir.Location.file(self.filename, 0, 0))
        self.attrs = {a.name: a for a in node.attribute}
        handler = HANDLERS.get(op_key(node))
        if handler is None:
            raise self.fail(f"unsupported op; supported ops: {', '.join(sorted(HANDLERS))}",
                            f"node '{label}' ({op_key(node)})")
        for name in node.input:
            if name and name not in self.values:
                raise self.fail(f"input '{name}' is not defined before this node")
        # Folding follows IEEE arithmetic (inf, nan) without numpy's warnings.
        with loc, np.errstate(all="ignore"):
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

    @property
    def current_node(self) -> onnx.NodeProto:
        """The node being imported: the handlers, and the helpers here they
        call, run inside `_import_node`, which sets it."""
        node = self.node
        assert node is not None, "called while a node is imported"
        return node

    def attr(self, key: str, default=None):
        """Attribute `key` of the current node (`default` when absent), of
        the type the op's schema gives it."""
        attribute = self.attrs.get(key)
        return default if attribute is None \
            else self._attribute_value(self.current_node, attribute)

    def has_input(self, i: int) -> bool:
        node = self.current_node
        return i < len(node.input) and bool(node.input[i])

    @overload
    def arg(self, i: int, optional: Literal[False] = ...) -> Value: ...
    @overload
    def arg(self, i: int, optional: bool) -> Value | None: ...

    def arg(self, i: int, optional: bool = False) -> Value | None:
        if not self.has_input(i):
            if optional:
                return None
            raise self.fail(f"input {i} is missing")
        return self.values[self.current_node.input[i]]

    @overload
    def const(self, i: int, what: str, optional: Literal[False] = ...) -> np.ndarray: ...
    @overload
    def const(self, i: int, what: str, optional: bool) -> np.ndarray | None: ...

    def const(self, i: int, what: str, optional: bool = False) -> np.ndarray | None:
        value = self.arg(i, optional)
        if value is None:
            return None
        if not isinstance(value, Const):
            raise self.fail(f"{what} (input {i}, '{self.current_node.input[i]}') must be a "
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

    @overload
    def int_const(self, i: int, what: str, optional: Literal[False] = ...) -> np.ndarray: ...
    @overload
    def int_const(self, i: int, what: str, optional: bool) -> np.ndarray | None: ...

    def int_const(self, i: int, what: str, optional: bool = False) -> np.ndarray | None:
        """Input i as a compile-time array of integers (a shape, axes, pads)."""
        value = self.const(i, what, optional)
        if value is not None and not np.issubdtype(value.dtype, np.integer):
            raise self.fail(f"{what} (input {i}, '{self.current_node.input[i]}') must be "
                            f"integers, got {value.dtype}")
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

    def emit(self, op: type[ir.OpView], shape, operands, element: ir.Type | None = None,
             **attrs) -> ir.Value:
        """The tinyml op `op` (its class) with a result of `shape` and
        element type `element` (default float32)."""
        attributes = {key: attribute(value) for key, value in attrs.items()
                      if value is not None and value is not False}
        # The last check before an MLIR type exists: its dimensions must fit
        # the target (MLIR aborts on some that overflow).
        self.check_size(shape, TensorProto.FLOAT, f"the result of {op.OPERATION_NAME}")
        result_type = ir.RankedTensorType.get(list(shape), element or ir.F32Type.get())
        operands = [self.tensor(o) for o in operands if o is not None]
        if element is None:
            self._check_float(operands)
        return build(op, [result_type], operands, attributes, loc=self.loc).result

    def _check_float(self, operands) -> None:
        """Only data movement (which passes its element type) reads raw
        int8 storage; arithmetic needs a DequantizeLinear in between."""
        for operand in operands:
            element = self.element(operand)
            if isinstance(element, ir.IntegerType):
                node = self.current_node
                names = [n for n in node.input if self.values.get(n) is operand]
                what = f"input '{names[0]}'" if names else "an input"
                raise self.fail(f"{what} is an integer ({element}) tensor; {node.op_type} "
                                "computes on float32 only (a quantized model's "
                                "DequantizeLinear makes int8 data float first)")

    def slice(self, value: ir.Value, offsets, sizes, strides) -> ir.Value:
        """In each dimension d, sizes[d] elements of `value`, every
        strides[d]-th from offsets[d] (a negative stride walks backwards)."""
        shape = self.shape(value)
        if all(o == 0 and n == d and (s == 1 or n == 1)
               for o, n, s, d in zip(offsets, sizes, strides, shape)):
            return value
        if isinstance(self.element(value), ir.IntegerType) and min(strides) > 0:
            # Stored int8 moved as it is: tinyml.slice computes on float.
            return tensor.ExtractSliceOp(
                ir.RankedTensorType.get(list(sizes), self.element(value)), value, [], [], [],
                list(offsets), list(sizes), list(strides), loc=self.loc).result
        return self.emit(tm.SliceOp, sizes, [value], offsets=list(offsets),
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
        return self.emit(tm.TransposeOp, [shape[p] for p in perm], [value],
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
        return self.emit(tm.ReshapeOp, shape, [value], self.element(value))

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
