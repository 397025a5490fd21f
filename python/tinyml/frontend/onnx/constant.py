"""Compile-time values: Constant, ConstantOfShape, and the shape arithmetic
(Cast, Shape, Gather, Slice) folded at import time; Gather and Slice of a
tensor, with constant indices, are tinyml.slice (and concat)."""
from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper

from ...dialects import tinyml as tm
from .importer import Const, Importer, dtype_name, handles, shape_text


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
    data = im.arg(0)
    indices = im.int_const(1, "the indices").astype(np.int64)
    shape = im.shape(data)
    rank = len(shape)
    axis = int(im.attr("axis", 0))
    if not -rank <= axis < rank:
        raise im.fail(f"axis {axis} out of range for rank {rank}")
    axis %= rank
    size = shape[axis]
    if indices.size and not (-size <= indices.min() and indices.max() < size):
        raise im.fail(f"indices {indices.reshape(-1).tolist()} out of range for a dimension "
                      f"of {size}")
    if isinstance(data, Const):
        return [np.take(data.array, indices, axis=axis)]
    out = [*shape[:axis], *indices.shape, *shape[axis + 1:]]
    if not indices.size:
        raise im.fail(f"the result has shape {shape_text(out)}; it must not be empty")
    x = im.tensor(data)
    pieces = []
    for first, count, step in _progressions(indices.reshape(-1) % size):
        offsets, sizes, strides = [0] * rank, list(shape), [1] * rank
        offsets[axis], sizes[axis], strides[axis] = first, count, step
        pieces.append(im.slice(x, offsets, sizes, strides))
    if len(pieces) > 1:
        joined = list(shape)
        joined[axis] = indices.size
        pieces = [im.emit(tm.ConcatOp, joined, pieces, axis=axis)]
    return [im.reshape(pieces[0], out)]


def _progressions(flat: np.ndarray) -> list[tuple[int, int, int]]:
    """`flat` as few runs of evenly spaced indices as a greedy split gives:
    (first, count, step) each, one tinyml.slice apiece."""
    runs, i = [], 0
    while i < len(flat):
        step = int(flat[i + 1] - flat[i]) if i + 1 < len(flat) else 1
        end = i + 1
        if step:
            while end < len(flat) and flat[end] - flat[end - 1] == step:
                end += 1
        runs.append((int(flat[i]), end - i, step or 1))
        i = end
    return runs


@handles("Slice")
def _slice(im: Importer, node) -> list:
    data = im.arg(0)
    shape = im.shape(data)
    rank = len(shape)
    if im.opset < 10:
        starts, ends = im.attr("starts"), im.attr("ends")
        given_axes, given_steps = im.attr("axes"), None
    else:
        starts = im.int_const(1, "starts").reshape(-1).tolist()
        ends = im.int_const(2, "ends").reshape(-1).tolist()
        given_axes = im.int_const(3, "axes", optional=True)
        given_steps = im.int_const(4, "steps", optional=True)
    axes = list(range(len(starts))) if given_axes is None \
        else [int(a) for a in np.reshape(given_axes, -1)]
    steps = [1] * len(starts) if given_steps is None \
        else [int(s) for s in np.reshape(given_steps, -1)]
    if not len(starts) == len(ends) == len(axes) == len(steps):
        raise im.fail(f"starts {starts}, ends {ends}, axes {axes} and steps {steps} differ "
                      "in length")
    if any(not -rank <= a < rank for a in axes) or 0 in steps:
        raise im.fail(f"axes {axes} or steps {steps} do not fit the data of rank {rank}")
    index = [slice(None)] * rank
    for a, s, e, st in zip(axes, starts, ends, steps):
        index[a % rank] = slice(int(s), int(e), int(st))
    if isinstance(data, Const):
        return [data.array[tuple(index)]]
    # Python's slice clamps starts and ends to the dimension as ONNX does.
    ranges = [range(*part.indices(size)) for part, size in zip(index, shape)]
    sizes = [len(r) for r in ranges]
    if 0 in sizes:
        raise im.fail(f"the result has shape {shape_text(sizes)}; it must not be empty")
    return [im.slice(im.tensor(data), [r.start for r in ranges], sizes,
                     [r.step for r in ranges])]
