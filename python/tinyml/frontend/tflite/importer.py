"""Building the function of a `.tflite` flatbuffer.

The file is first read whole into plain `Tensor`s and `Operator`s
(`reader.py`: a corrupt or truncated flatbuffer fails there, with one
line); the function is then built from those, operator by operator
(`operators.py`; a WHILE loop's body subgraph in `control_flow.py`), with the
IR helpers the ONNX importer builds with (`Importer.tensor`, `emit`,
`transpose`, `reshape`), so that both frontends emit the same ops."""
from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Callable

import numpy as np
from mlir import ir
from mlir.dialects import bufferization, func
from onnx import TensorProto

from ...ir.context import make_context
from ...ir.quant import dequantize, quantize, storage_cast, uniform_type
from ...report_attributes import NAME, SCALE, STATE, ZERO_POINT
from .. import FrontendError, function_name, mark_batch
from ..onnx.importer import Const, Importer, QuantConst, shape_text
from .constraints import check_operands, check_rescaling, check_types
from .reader import DTYPES, Operator, Subgraph, Tensor, dequantized, read_model
from .shape_folding import fold_shape_computation


# op kind -> handler(importer, operator) -> list of result values (float).
HANDLERS: dict[str, Callable] = {}
# op kind -> handler of the operator with int16 activations (TFLite's 16x8
# quantization), which returns the stored int16 results.
INT16_HANDLERS: dict[str, Callable] = {}


def handles(*kinds: str, int16: bool = False):
    def register(fn):
        for kind in kinds:
            (INT16_HANDLERS if int16 else HANDLERS)[kind] = fn
        return fn
    return register


class TfliteImporter(Importer):
    """Builds the function of a read TFLite subgraph. The IR helpers are
    the ONNX importer's; what differs is where values come from: tensors
    by index, int8 ones through dequantize, results quantized back."""

    def __init__(self, filename: str, name: str, subgraphs: list[Subgraph], batch: int = 1,
                 index: int = 0, streaming: bool = False):
        self.filename = filename
        # Streaming: each variable tensor (a recurrent operator's state, which
        # TFLM keeps from one invocation to the next) is an input after the
        # model's, which the function reads and then writes over with the
        # state's next value; else it starts from TFLM's reset value at
        # every call.
        self.streaming = streaming
        self.states: dict[int, ir.Value] = {}
        self.carried: set[int] = set()
        self.func_name = function_name(name)
        self.subgraphs = subgraphs
        self.subgraph = subgraphs[index]
        # Copies: import sets shapes (the batch) and folded values on them,
        # and a loop body is imported once per WHILE that runs it.
        self.tensors = [dataclasses.replace(t) for t in self.subgraph.tensors]
        self.operators = self.subgraph.operators
        self.active = {index}  # the subgraphs being imported: a loop may not run its own
        self.inputs, self.outputs = self.subgraph.inputs, self.subgraph.outputs
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
        states = [t.index for t in self.tensors if t.variable] if self.streaming else []
        arg_types = [self._io_type(self.tensors[i], "input") for i in self.inputs] + \
            [self._io_type(self.tensors[i], "state") for i in states]
        with ir.InsertionPoint(module.body):
            fn = func.FuncOp(self.func_name, (arg_types, []), loc=file_loc)
        block = fn.add_entry_block()
        for index, arg in zip(self.inputs, block.arguments):
            self.values[index] = arg
        self.states = dict(zip(states, block.arguments[len(self.inputs):]))
        with ir.InsertionPoint(block):
            self.import_operators()
            self.where, self.loc = "", file_loc
            results = []
            for index in self.outputs:
                tensor = self.tensors[index]
                self.where = f"output '{tensor.name}'"
                self._io_type(tensor, "output")
                if index not in self.values:
                    raise self.fail("no operator computes it")
                results.append(self.values[index])
            for index in states:
                if index not in self.carried:
                    raise self.fail(f"state '{self.tensors[index].name}' is not carried by the "
                                    "operator that reads it", "")
            func.ReturnOp(results, loc=file_loc)
        fn.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(
            arg_types, [r.type for r in results]))
        fn.attributes["arg_attrs"] = ir.ArrayAttr.get(
            [_io_attributes(self.tensors[i]) for i in self.inputs]
            + [_io_attributes(self.tensors[i], state=True) for i in states])
        fn.attributes["res_attrs"] = ir.ArrayAttr.get(
            [_io_attributes(self.tensors[i]) for i in self.outputs])
        fn.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
        if self.has_dynamic_batch:
            mark_batch(fn, self.batch)
        return module

    def _io_type(self, tensor: Tensor, what: str) -> ir.Type:
        self.where = f"{what} '{tensor.name}'"
        if tensor.dynamic:
            raise self.fail(self.dynamic_dimension(tensor))
        if tensor.type_name not in IO_ELEMENTS:
            raise self.fail(f"has element type {tensor.type_name}; only float32, int8, int16 "
                            "and int32 inputs and outputs are supported")
        q = tensor.quantization
        integer = tensor.type_name != "FLOAT32"
        if integer and q is None:
            raise self.fail(f"is {tensor.type_name.lower()} without quantization parameters")
        if integer and q is not None and q.axis is not None:
            # TFLM's kernels read one scale of an activation; only weights
            # are quantized per channel.
            raise self.fail(f"is quantized per axis ({q.scales.size} scales "
                            f"along dimension {q.axis}); a graph "
                            f"{what} takes one scale and zero point")
        self.check_size(tensor.shape, TensorProto.FLOAT, what)
        return ir.RankedTensorType.get(list(tensor.shape), IO_ELEMENTS[tensor.type_name]())

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

    def import_operators(self) -> None:
        for operator in self.operators:
            self.operator = operator
            self.where = f"{self.subgraph.label}operator {operator.index} ({operator.kind})"
            check_operands(self, operator)
            first = self.tensors[operator.outputs[0]].name if operator.outputs \
                else operator.kind
            self.loc = ir.Location.name(first)
            self.convert(operator)

    def take(self, index: int, other: TfliteImporter, other_index: int) -> None:
        """Tensor `index` is `other`'s tensor `other_index` (a loop value
        passed through): its constant value, or its SSA values."""
        source = other.tensors[other_index]
        if source.data is not None:
            self.tensors[index].data = source.data
            return
        self.values[index] = other.values[other_index]
        if other_index in other.float_values:
            self.float_values[index] = other.float_values[other_index]

    def carry(self, index: int, value: ir.Value) -> None:
        """`value` is variable tensor `index` after the operator: where the
        model streams, written over the state input once the operator has
        read it (every read of the state is an operand of `value`, so the
        write comes after them in any schedule)."""
        if index in self.carried:
            raise self.fail(f"state '{self.tensors[index].name}' is written by two operators")
        self.carried.add(index)
        if not self.streaming:
            return
        state = self.states[index]
        state_type = ir.RankedTensorType(state.type)
        buffer = bufferization.ToBufferOp(
            ir.MemRefType.get(state_type.shape, state_type.element_type), state).result
        bufferization.MaterializeInDestinationOp(
            None, self.reshape(value, state_type.shape), buffer, restrict=True, writable=True)

    def computed(self, index: int) -> bool:
        """Whether tensor `index` is computed by now (a graph input or an
        earlier operator's result)."""
        return index in self.values

    def convert(self, operator: Operator) -> None:
        """The IR of `operator`, its operands checked."""
        for index in operator.outputs:
            tensor = self.tensors[index]
            if tensor.dynamic:
                raise self.fail(f"output '{tensor.name}' {self.dynamic_dimension(tensor)}")
        if fold_shape_computation(self, operator):
            return
        handler = INT16_HANDLERS.get(operator.kind) if self._int16_activations(operator) \
            else None
        handler = handler or HANDLERS.get(operator.kind)
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

    def _int16_activations(self, operator: Operator) -> bool:
        """Whether the operator computes int16 from int16 (16x8 quantization)."""
        data = [self.tensors[i] for i in operator.inputs if i >= 0]
        return self.tensors[operator.outputs[0]].type_name == "INT16" and any(
            t.type_name == "INT16" and t.data is None for t in data)

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
            # A float recurrent state: the caller's (streaming), or its value
            # at the first invocation (TFLM zeroes a float variable).
            return self.states.get(index, Const(np.zeros(tensor.shape, np.float32)))
        if tensor.data is not None:
            return self._constant(tensor)
        if index not in self.values:
            raise self.fail(f"input '{tensor.name}' is not computed before it is used")
        if tensor.type_name == "FLOAT32":
            return self.values[index]
        if tensor.type_name == "INT16" and operator.kind != "DEQUANTIZE":
            raise self.fail(f"input '{tensor.name}' is int16: {operator.kind} with int16 "
                            "activations (TFLite's 16x8 quantization) is not supported")
        if tensor.type_name not in ("INT8", "INT16") or tensor.quantization is None:
            raise self.fail(f"input '{tensor.name}' has element type {tensor.type_name}"
                            f"{' without quantization' if tensor.type_name == 'INT8' else ''}; "
                            "only float32 and quantized int8 tensors are supported")
        if index not in self.float_values:
            q = tensor.quantization
            element = uniform_type(list(q.scales), list(q.zero_points),
                                   DTYPES[tensor.type_name], q.axis)
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
        # int16: an int8 softmax's result (check_types allows no other).
        if tensor.type_name not in ("INT8", "INT16") or q is None or q.axis is not None:
            per_axis = " quantized per axis" if q is not None and q.axis is not None else ""
            raise self.fail(f"output '{tensor.name}' has element type {tensor.type_name}"
                            f"{per_axis}; only float32 and per-tensor int8 results are "
                            "supported")
        dtype = DTYPES[tensor.type_name]
        element = uniform_type(list(q.scales), list(q.zero_points), dtype, None)
        quantized = quantize(value, element, self.loc)
        # TFLite rounds halves away from zero where it quantizes float values.
        quantized.owner.attributes["ties_away_from_zero"] = ir.UnitAttr.get()
        self.values[index] = storage_cast(
            quantized, ir.IntegerType.get_signless(np.dtype(dtype).itemsize * 8), self.loc)


#: The element types of a graph input or output (the compiled function's).
IO_ELEMENTS = {"FLOAT32": ir.F32Type.get, "INT8": lambda: ir.IntegerType.get_signless(8),
               "INT16": lambda: ir.IntegerType.get_signless(16),
               "INT32": lambda: ir.IntegerType.get_signless(32)}


def _io_attributes(tensor: Tensor, state: bool = False) -> ir.Attribute:
    """A graph input's or output's name, and an integer one's scale and
    zero point, which a caller quantizes and dequantizes with; a state input
    is marked with its name."""
    attributes = {NAME: ir.StringAttr.get(tensor.name)}
    if state:
        attributes[STATE] = ir.StringAttr.get(tensor.name)
    q = tensor.quantization
    if tensor.type_name != "FLOAT32" and q is not None:
        attributes[SCALE] = ir.FloatAttr.get_f64(float(q.scales[0]))
        attributes[ZERO_POINT] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64),
                                                    int(q.zero_points[0]))
    return ir.DictAttr.get(attributes)


def import_tflite(model, context: ir.Context | None = None,
                  name: str | None = None, batch: int = 1, streaming: bool = False) -> ir.Module:
    """Imports a `.tflite` file (a path) into a verified module of one
    `func.func`, named `name` or after the file. `batch` is the value of a
    dynamic batch dimension (-1 first in a shape signature, as
    TFLiteConverter writes Keras models; TFLM runs them at 1); `streaming`
    makes the variable tensors state inputs and outputs (`TfliteImporter`).
    Raises `FrontendError` on bad input."""
    filename = os.fspath(model)
    try:
        data = Path(filename).read_bytes()
    except OSError as error:
        raise FrontendError(f"{filename}: cannot read: {error.strerror}") from None
    context = context or ir.Context.current or make_context()
    module = import_tflite_bytes(data, filename, context,
                                 name or Path(filename).name.split(".")[0], batch, streaming)
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
                        name: str | None = None, batch: int = 1,
                        streaming: bool = False) -> ir.Module:
    """Imports a TFLite flatbuffer; the module is not verified (the caller
    does it). Raises `FrontendError` on bad input."""
    subgraphs = read_model(data, filename)
    with context, ir.Location.unknown(context):
        return TfliteImporter(filename, name or Path(filename).name.split(".")[0], subgraphs,
                              batch, streaming=streaming).run()

