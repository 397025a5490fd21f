"""Reductions over axes, and Softmax."""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np
from mlir import ir

from ...dialects import tinyml as tm
from .importer import Const, Importer, handles


_REDUCE: dict[str, tuple[type[ir.OpView], Callable[..., Any]]] = {
    "ReduceMean": (tm.ReduceMeanOp, np.mean),
    "ReduceSum": (tm.ReduceSumOp, np.sum),
    "ReduceMax": (tm.ReduceMaxOp, np.max),
}


@handles(*_REDUCE)
def _reduce(im: Importer, node) -> list:
    op, fold = _REDUCE[node.op_type]
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
    return [im.emit(op, out, [x], axes=axes, keep_dims=keep)]


@handles("Softmax")
def _softmax(im: Importer, node) -> list:
    x = im.tensor(im.arg(0))
    shape = im.shape(x)
    rank = len(shape)
    axis = int(im.attr("axis", 1 if im.opset < 13 else -1))
    if not -rank <= axis < rank:
        raise im.fail(f"axis {axis} out of range for rank {rank}")
    axis %= rank
    if im.opset >= 13 or axis == rank - 1:
        return [im.emit(tm.SoftmaxOp, shape, [x], axis=axis)]
    # Before opset 13 the input is coerced to 2-D at `axis`.
    flat = (math.prod(shape[:axis]), math.prod(shape[axis:]))
    y = im.emit(tm.SoftmaxOp, flat, [im.reshape(x, flat)], axis=1)
    return [im.reshape(y, shape)]

