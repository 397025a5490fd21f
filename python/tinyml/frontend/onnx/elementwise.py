"""Element-wise ops: binary ops with broadcasting, unary ops, and the
activations built from them (Clip, LeakyRelu, HardSigmoid, HardSwish)."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
from mlir import ir
from onnx import helper

from ...dialects import tinyml as tm
from ...ir.builders import build
from .importer import Const, Importer, QuantConst, handles, shape_text

F32_MAX = float(np.finfo(np.float32).max)


def _broadcast(im: Importer, *shapes) -> tuple[int, ...]:
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise im.fail(f"operand shapes {' and '.join(shape_text(s) for s in shapes)} "
                      "do not broadcast") from None


def _fold_div(a, b):
    if np.issubdtype(a.dtype, np.integer) and np.issubdtype(b.dtype, np.integer):
        return (np.trunc(a / b)).astype(np.result_type(a, b))
    return a / b


_BINARY: dict[str, tuple[type[ir.OpView], Callable[[np.ndarray, np.ndarray], Any]]] = {
    "Add": (tm.AddOp, np.add),
    "Sub": (tm.SubOp, np.subtract),
    "Mul": (tm.MulOp, np.multiply),
    "Div": (tm.DivOp, _fold_div),
    "Max": (tm.MaximumOp, np.maximum),
    "Min": (tm.MinimumOp, np.minimum),
}


def _fuse_matmul_bias(im: Importer, value, other) -> ir.Value | None:
    """MatMul followed by Add of a row vector (what tf2onnx emits for a
    Dense layer) becomes one matmul with a bias; in a quantized model the
    row vector is an int32 bias behind a DequantizeLinear."""
    if not isinstance(value, ir.Value) or not isinstance(other, (Const, QuantConst)):
        return None
    owner = value.owner
    if not isinstance(owner, ir.OpView) and not isinstance(owner, ir.Operation):
        return None
    op = owner.operation if isinstance(owner, ir.OpView) else owner
    if op.name != tm.MatmulOp.OPERATION_NAME or len(op.operands) != 2 or list(value.uses) \
            or im.refs(value) != 1:
        return None
    m, n = im.shape(value)
    if isinstance(other, QuantConst):
        if other.array.shape != (n,) or other.array.dtype != np.int32:
            return None
        bias = im.tensor(other)
    else:
        if other.array.dtype != np.float32 or other.array.ndim > 2 \
                or np.broadcast_shapes(other.array.shape, (1, n)) != (1, n):
            return None
        bias = im.tensor(Const(np.broadcast_to(other.array, (1, n)).reshape(n)))
    attrs = {key: op.attributes[key] for key in op.attributes}
    fused = build(tm.MatmulOp, [value.type], [op.operands[0], op.operands[1], bias], attrs,
                  loc=op.location).result
    op.erase()
    return fused


@handles(*_BINARY)
def _binary(im: Importer, node) -> list:
    operands = [im.arg(i) for i in range(len(node.input))]
    if not operands:
        raise im.fail("needs at least one input")
    result = operands[0]
    for operand in operands[1:]:
        result = binary(im, node.op_type, result, operand)
    return [result]


def binary(im: Importer, op_type: str, a, b):
    """The element-wise `op_type` (Add, Sub, Mul, ...) of a and b, broadcast."""
    op, fold = _BINARY[op_type]
    shape = _broadcast(im, im.shape(a), im.shape(b))
    if isinstance(a, Const) and isinstance(b, Const):
        dtype = np.result_type(a.array, b.array)
        im.check_size(shape, helper.np_dtype_to_tensor_dtype(dtype), "the result",
                      allow_empty=True)
        if op_type == "Div" and np.issubdtype(dtype, np.integer) and not b.array.all():
            raise im.fail("integer division by zero")
        return Const(fold(a.array, b.array))
    if op_type == "Add":
        for value, other in ((a, b), (b, a)):
            fused = _fuse_matmul_bias(im, value, other)
            if fused is not None and im.shape(fused) == shape:
                return fused
    # A scalar constant broadcasts the same as a [1]-shaped one.
    a, b = (Const(v.array.reshape(1)) if isinstance(v, Const) and v.array.ndim == 0
            and len(shape) else v for v in (a, b))
    return im.emit(op, shape, [a, b])


def _sigmoid(x):
    return (1.0 / (1.0 + np.exp(-x))).astype(x.dtype)


_UNARY: dict[str, tuple[type[ir.OpView], Callable[[np.ndarray], Any]]] = {
    "Relu": (tm.ReluOp, lambda x: np.maximum(x, 0).astype(x.dtype)),
    "Sigmoid": (tm.SigmoidOp, _sigmoid),
    "Tanh": (tm.TanhOp, np.tanh),
    "Exp": (tm.ExpOp, np.exp),
    "Neg": (tm.NegOp, np.negative),
}


@handles(*_UNARY)
def _unary(im: Importer, node) -> list:
    op, fold = _UNARY[node.op_type]
    x = im.arg(0)
    if isinstance(x, Const):
        return [fold(x.array)]
    return [im.emit(op, im.shape(x), [x])]


def _clamp(im: Importer, x, low: float, high: float):
    # ONNX's Clip is min(max(x, low), high): with low > high, every
    # element is high.
    low = min(low, high)
    if isinstance(x, Const):
        return Const(np.clip(x.array, low, high).astype(x.array.dtype))
    return im.emit(tm.ClampOp, im.shape(x), [x], min=float(low), max=float(high))


@handles("Clip")
def _clip(im: Importer, node) -> list:
    if im.opset < 11:
        low, high = float(im.attr("min", -F32_MAX)), float(im.attr("max", F32_MAX))
    else:
        low, high = im.scalar(1, "min", -F32_MAX), im.scalar(2, "max", F32_MAX)
    low, high = max(low, -F32_MAX), min(high, F32_MAX)
    return [_clamp(im, im.arg(0), low, high)]


def _scale_shift(im: Importer, x, scale: float, shift: float):
    shape = im.shape(x)
    y = im.emit(tm.MulOp, shape, [x, Const(np.full([1], scale, np.float32))])
    if shift:
        y = im.emit(tm.AddOp, shape, [y, Const(np.full([1], shift, np.float32))])
    return y


@handles("LeakyRelu")
def _leaky_relu(im: Importer, node) -> list:
    return [leaky_relu(im, im.arg(0), float(im.attr("alpha", 0.01)))]


def leaky_relu(im: Importer, x, alpha: float) -> ir.Value:
    x = im.tensor(x)
    shape = im.shape(x)
    scaled = im.emit(tm.MulOp, shape, [x, Const(np.full([1], alpha, np.float32))])
    if 0.0 <= alpha <= 1.0:          # max(x, alpha*x)
        return im.emit(tm.MaximumOp, shape, [x, scaled])
    if alpha > 1.0:                  # min(x, alpha*x)
        return im.emit(tm.MinimumOp, shape, [x, scaled])
    # alpha < 0: relu(x) + alpha * min(x, 0)
    negative = im.emit(tm.MinimumOp, shape, [x, Const(np.zeros([1], np.float32))])
    negative = im.emit(tm.MulOp, shape, [negative, Const(np.full([1], alpha, np.float32))])
    return im.emit(tm.AddOp, shape, [im.emit(tm.ReluOp, shape, [x]), negative])


@handles("HardSigmoid")
def _hard_sigmoid(im: Importer, node) -> list:
    x = im.tensor(im.arg(0))
    alpha, beta = float(im.attr("alpha", 0.2)), float(im.attr("beta", 0.5))
    return [_clamp(im, _scale_shift(im, x, alpha, beta), 0.0, 1.0)]


@handles("HardSwish")
def _hard_swish(im: Importer, node) -> list:
    return [hard_swish(im, im.arg(0))]


def hard_swish(im: Importer, x) -> ir.Value:
    x = im.tensor(x)
    gate = _clamp(im, _scale_shift(im, x, 1.0 / 6.0, 0.5), 0.0, 1.0)
    return im.emit(tm.MulOp, im.shape(x), [x, gate])

