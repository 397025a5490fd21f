"""Ops that move data without arithmetic: Reshape, Flatten, (Un)Squeeze,
Transpose, Pad, Concat, and the pass-throughs Identity and Dropout."""
from __future__ import annotations

import math

import numpy as np
from onnx import helper

from ...dialects import tinyml as tm
from .importer import Const, Importer, handles, shape_text


@handles("Reshape")
def _reshape(im: Importer, node) -> list:
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
            raise im.fail(f"cannot reshape {shape_text(in_shape)} to {target}")
        shape[shape.index(-1)] = total // known
    if math.prod(shape) != total or any(d < 0 for d in shape):
        raise im.fail(f"cannot reshape {shape_text(in_shape)} to {target}")
    return [im.reshape(x, shape)]


@handles("Flatten")
def _flatten(im: Importer, node) -> list:
    x = im.arg(0)
    shape = im.shape(x)
    axis = int(im.attr("axis", 1))
    if not -len(shape) <= axis <= len(shape):
        raise im.fail(f"axis {axis} out of range for rank {len(shape)}")
    if axis < 0:
        axis += len(shape)
    return [im.reshape(x, (math.prod(shape[:axis]), math.prod(shape[axis:])))]


@handles("Squeeze")
def _squeeze(im: Importer, node) -> list:
    x = im.arg(0)
    shape = im.shape(x)
    axes = im.ints(1, "axes", "axes")
    if axes is None:
        axes = [i for i, d in enumerate(shape) if d == 1]
    if any(not -len(shape) <= a < len(shape) for a in axes):
        raise im.fail(f"axes {axes} out of range for rank {len(shape)}")
    squeezed = {a % len(shape) for a in axes}
    if any(shape[a] != 1 for a in squeezed):
        raise im.fail(f"cannot squeeze axes {sorted(squeezed)} of shape {shape_text(shape)}")
    return [im.reshape(x, [d for i, d in enumerate(shape) if i not in squeezed])]


@handles("Unsqueeze")
def _unsqueeze(im: Importer, node) -> list:
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


@handles("Transpose")
def _transpose(im: Importer, node) -> list:
    x = im.arg(0)
    rank = len(im.shape(x))
    perm = [int(p) for p in im.attr("perm", list(reversed(range(rank))))]
    if sorted(perm) != list(range(rank)):
        raise im.fail(f"perm {perm} is not a permutation of 0..{rank - 1}")
    return [im.transpose(x, perm)]


@handles("Pad")
def _pad(im: Importer, node) -> list:
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
        value = im.scalar(2, "constant_value", 0.0)
        axes_input = im.int_const(3, "axes", optional=True)
        if axes_input is not None:
            axes = axes_input.reshape(-1).tolist()
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
    return [im.emit(tm.PadOp, out, [x], padding=pads, value=value if value else None)]


@handles("Concat")
def _concat(im: Importer, node) -> list:
    return [concat(im, [im.arg(i) for i in range(len(node.input)) if node.input[i]])]


def concat(im: Importer, inputs: list):
    """`inputs` joined along the current node's axis."""
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
            raise im.fail(f"input shapes {', '.join(shape_text(s) for s in shapes)} differ "
                          f"outside axis {axis}")
    if all(isinstance(v, Const) for v in inputs):
        return np.concatenate([v.array for v in inputs], axis=axis)
    inputs = [v for v, s in zip(inputs, shapes) if s[axis] > 0]
    out = list(shapes[0])
    out[axis] = sum(s[axis] for s in shapes)
    if len(inputs) == 1:
        return inputs[0]
    return im.emit(tm.ConcatOp, out, inputs, im.element(inputs[0]), axis=axis)


@handles("Identity")
def _identity(im: Importer, node) -> list:
    return [im.arg(0)]


@handles("Dropout")
def _dropout(im: Importer, node) -> list:
    training = im.const(2, "training_mode", optional=True)
    if training is not None and bool(training.reshape(-1)[0]):
        raise im.fail("training_mode=true is not supported (inference only)")
    if len(node.output) > 1 and node.output[1] and im.consumers[node.output[1]]:
        raise im.fail("the mask output is not supported")
    return [im.arg(0)]
