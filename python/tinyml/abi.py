"""The compiled function's interface: what a caller passes and gets back.

A compiled model is one C function `name(inputs..., outputs..., arena)`:
each input and output a buffer in the model's own shape, dtype and layout,
caller-owned, then the arena. This module reads that interface off the
tensor-level function before it is compiled (`signature`: names, shapes,
dtypes, the layout of 4-D tensors, the scale and zero point of int8 ones),
names the function (the model's name is its C symbol), and writes the
record of it that the artefact carries (`signature_record`), which `load`
trusts over report.json.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
from mlir import ir
from mlir.dialects import quant

from .dialects import tinyml as tm
from .errors import CompileError
from .ir.ops import op_names
from .ir.values import producer
from .report_attributes import LAYOUT, NAME, SCALE, STATE, ZERO_POINT
from .targets.cortexm import c_identifier

#: The element types a compiled function takes and returns.
TENSOR_DTYPES = ("float32", "int8", "int16", "int32")
#: The layouts a 4-D input or output is declared or inferred in.
LAYOUTS = ("NCHW", "NHWC")
#: The largest buffer a 32-bit target can index.
MAX_TENSOR_BYTES = (1 << 31) - 1

_DTYPES = {"f32": "float32", "f64": "float64", "f16": "float16", "i32": "int32",
           "i64": "int64", "i16": "int16", "i8": "int8", "i1": "bool"}


@dataclass
class TensorInfo:
    """One input or output of a compiled model, as the model declares it."""

    name: str
    shape: list[int]
    dtype: str = "float32"
    layout: str | None = None
    # An integer tensor's real value is scale * (q - zero_point).
    scale: float | None = None
    zero_point: int | None = None
    # A streaming model's state input, named: the function writes the
    # state's next value over it.
    state: str | None = None


def byte_size(info: TensorInfo) -> int:
    return int(np.prod(info.shape, dtype=object)) * np.dtype(info.dtype).itemsize


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
        if info.dtype not in TENSOR_DTYPES:
            raise CompileError(f"'{info.name}' has element type {info.dtype}: "
                               f"only {', '.join(TENSOR_DTYPES)} are supported")
    return name, inputs, outputs


def signature_record(inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo],
                     arena_bytes: int) -> str:
    """What the compiled function reads and writes: each input's and output's
    element type and byte size, and the arena's size, e.g.
    `inputs=float32:768;outputs=float32:2048;arena_bytes=3072`. The artefact
    records it, so that `load` trusts no report that would make a run
    overrun a buffer (printable ASCII without quotes, an assembler string)."""
    def tensors(infos: Sequence[TensorInfo]) -> str:
        return ",".join(f"{info.dtype}:{byte_size(info)}" for info in infos)
    return f"inputs={tensors(inputs)};outputs={tensors(outputs)};arena_bytes={arena_bytes}"


def model_name(name: str) -> str:
    """`name` made the model's name: a C identifier, because it is also the
    symbol of the model's function (see `cortexm.c_identifier`)."""
    return c_identifier(name, "model")


def name_entry(module: ir.Module, func: ir.Operation, name: str | None, default: str) -> str:
    """The model's name, `name` when given (it must be a usable C
    identifier), else `default` made one. The entry function (and every use
    of it) is renamed to it, so that the artefacts and the C symbol agree
    and two models in one firmware do not clash."""
    if name is None:
        name = model_name(default)
    elif model_name(name) != name:
        raise CompileError(
            f"the model name {name!r} is not a usable C identifier: use ASCII letters, digits "
            f"and single '_', not starting with a digit or '_', and no C/C++ keyword or "
            f"standard C name (e.g. {model_name(name)!r})")
    old = ir.StringAttr(func.attributes["sym_name"]).value
    if name != old:
        if name in ir.SymbolTable(module.operation):
            raise CompileError(f"cannot name the model '{name}': the module already has a "
                               f"symbol '{name}'")
        ir.SymbolTable.replace_all_symbol_uses(old, name, module.operation)
        ir.SymbolTable.set_symbol_name(func, name)
    return name


def argument_attributes(attrs: ir.Attribute | None, index: int) -> dict[str, ir.Attribute]:
    """Entry `index` of a function's `arg_attrs` or `res_attrs` (None: it has
    none) as a dict."""
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
        entry = argument_attributes(attrs, i)
        name = ir.StringAttr(entry[NAME]).value if NAME in entry else f"{prefix}{i}"
        layout = ir.StringAttr(entry[LAYOUT]).value if LAYOUT in entry else None
        dtype = _DTYPES.get(str(tensor.element_type), str(tensor.element_type))
        info = TensorInfo(name, list(tensor.shape), dtype, layout)
        if STATE in entry:
            info.state = ir.StringAttr(entry[STATE]).value
        if SCALE in entry and ZERO_POINT in entry:
            info.scale = ir.FloatAttr(entry[SCALE]).value
            info.zero_point = ir.IntegerAttr(entry[ZERO_POINT]).value
        infos.append(info)
    return infos


# The layout of an undeclared 4-D input or output is read off the imported
# IR, whose activations are NHWC: the frontend wraps an NCHW model's ops in
# transposes to and from NHWC, and these ops take (and give) an NHWC
# activation as their first operand (and result). A tensor that meets none
# of them has no layout.
_NHWC_OPS = frozenset(op_names(
    tm.Conv2DOp, tm.DepthwiseConv2DOp, tm.AvgPool2DOp, tm.MaxPool2DOp, tm.GlobalAvgPoolOp,
))
_TO_NHWC, _TO_NCHW = [0, 2, 3, 1], [0, 3, 1, 2]


def _permutation(op: ir.Operation) -> list[int] | None:
    if op.name != tm.TransposeOp.OPERATION_NAME:
        return None
    return list(ir.DenseI64ArrayAttr(op.attributes["permutation"]))


def _arg_layout(arg: ir.Value) -> str | None:
    """NCHW or NHWC for a 4-D argument, from its users."""
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


_DATA_MOVEMENT = op_names(tm.TransposeOp, tm.ReshapeOp)


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
    """The scale and zero point of int8 inputs and outputs the model does
    not declare."""
    block = func.regions[0].blocks[0]
    terminator = list(block.operations)[-1].operation
    for info, value, forward in [(i, a, True) for i, a in zip(inputs, block.arguments)] + \
            [(o, v, False) for o, v in zip(outputs, terminator.operands)]:
        element = _quantized_type_of(value, forward) \
            if info.dtype == "int8" and info.scale is None else None
        if element is not None:
            info.scale, info.zero_point = float(element.scale), int(element.zero_point)
