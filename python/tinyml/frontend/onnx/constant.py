"""Compile-time values: Constant, ConstantOfShape, and the shape arithmetic
(Cast, Shape, Gather, Slice) folded at import time."""
from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper

from .importer import Const, Importer, dtype_name, handles


@handles("Constant")
def _constant(im: Importer, node) -> list:
    if "value" in im.attrs:
        return [im.array(im.attr("value"), "attribute 'value'")]
    for key, dtype in (("value_float", np.float32), ("value_floats", np.float32),
                       ("value_int", np.int64), ("value_ints", np.int64)):
        if key in im.attrs:
            return [np.array(im.attr(key), dtype)]
    raise im.fail(f"value kind {sorted(im.attrs)} is not supported")


@handles("ConstantOfShape")
def _constant_of_shape(im: Importer, node) -> list:
    shape = im.int_const(0, "the shape").reshape(-1).tolist()
    value = im.attr("value")
    fill = im.array(value, "attribute 'value'").reshape(-1) if value is not None \
        else np.zeros([1], np.float32)
    if fill.size != 1:
        raise im.fail(f"attribute 'value' must hold one element, got {fill.size}")
    im.check_size(shape, helper.np_dtype_to_tensor_dtype(fill.dtype), "the result",
                  allow_empty=True)
    return [np.full(shape, fill[0], fill.dtype)]


@handles("Cast")
def _cast(im: Importer, node) -> list:
    to = int(im.attr("to"))
    x = im.arg(0)
    if isinstance(x, Const):
        try:
            return [x.array.astype(helper.tensor_dtype_to_np_dtype(to))]
        except (KeyError, TypeError, ValueError):
            raise im.fail(f"cannot cast a constant to {dtype_name(to)}") from None
    if to != TensorProto.FLOAT:
        raise im.fail(f"cast of a tensor to {dtype_name(to)} is not supported; only "
                      "float32 tensors are")
    return [x]


@handles("Shape")
def _shape(im: Importer, node) -> list:
    shape = np.array(im.shape(im.arg(0)), np.int64)
    start, end = im.attr("start", 0), im.attr("end", None)
    return [shape[start:end]]


@handles("Gather")
def _gather(im: Importer, node) -> list:
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


@handles("Slice")
def _slice(im: Importer, node) -> list:
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


