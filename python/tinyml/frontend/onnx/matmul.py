"""Gemm and MatMul: tinyml.matmul with the constant weights in one
canonical [K, N] form."""
from __future__ import annotations

import math

import numpy as np

from ...dialects import tinyml as tm
from .importer import Const, Importer, QuantConst, Value, handles, shape_text


@handles("Gemm")
def _gemm(im: Importer, node) -> list:
    return [gemm(im, im.arg(0), im.arg(1), im.arg(2, optional=True),
                 float(im.attr("beta", 1.0)))]


def gemm(im: Importer, a, b, c, beta: float):
    """alpha * A' * B' + beta * C with the current node's alpha, transA
    and transB."""
    alpha = float(im.attr("alpha", 1.0))
    trans_a, trans_b = bool(im.attr("transA", 0)), bool(im.attr("transB", 0))
    a_shape, b_shape = im.shape(a), im.shape(b)
    if len(a_shape) != 2 or len(b_shape) != 2:
        raise im.fail(f"needs 2-D operands, got {shape_text(a_shape)} and "
                      f"{shape_text(b_shape)}")
    m, k = (a_shape[1], a_shape[0]) if trans_a else a_shape
    kb, n = (b_shape[1], b_shape[0]) if trans_b else b_shape
    if k != kb:
        raise im.fail(f"contraction sizes differ: A {shape_text(a_shape)} and B "
                      f"{shape_text(b_shape)} (transA={int(trans_a)}, transB={int(trans_b)})")
    if trans_b and isinstance(b, (Const, QuantConst)):
        # One canonical form for constant weights: [K, N], no flag (torch's
        # Linear and tflite2onnx give [N, K] with transB=1, tf2onnx [K, N]).
        b, trans_b = im.transpose(b, (1, 0)), False
    if alpha != 1.0 and isinstance(b, Const):
        b, alpha = Const((b.array * np.float32(alpha)).astype(np.float32)), 1.0
    elif alpha != 1.0 and isinstance(a, Const):
        a, alpha = Const((a.array * np.float32(alpha)).astype(np.float32)), 1.0
    bias: Value | None = None
    addend: Value | None = None
    if c is not None and beta != 0.0:
        c_shape = im.shape(c)
        try:
            broadcast = np.broadcast_shapes(c_shape, (m, n))
        except ValueError:
            broadcast = None
        if broadcast != (m, n):
            raise im.fail(f"C of shape {shape_text(c_shape)} does not broadcast to "
                          f"[{m}, {n}]")
        if isinstance(c, Const):
            scaled = (c.array * np.float32(beta)).astype(c.array.dtype) if beta != 1.0 \
                else c
            c = scaled if isinstance(scaled, Const) else Const(scaled)
            row = len(c_shape) <= 2 and np.broadcast_shapes(c_shape, (1, n)) == (1, n)
            if row:
                bias = Const(np.broadcast_to(c.array, (1, n)).reshape(n))
            else:
                addend = c
        else:
            if beta != 1.0:
                c = im.emit(tm.MulOp, c_shape, [c, Const(np.full([1], beta, np.float32))])
            if c_shape in ((n,), (1, n)):
                bias = im.reshape(c, (n,))
            else:
                addend = c
    if alpha != 1.0 and bias is not None:
        bias, addend = None, bias
    y = im.emit(tm.MatmulOp, (m, n), [a, b, bias], transpose_lhs=trans_a,
                transpose_rhs=trans_b)
    if alpha != 1.0:
        y = im.emit(tm.MulOp, (m, n), [y, Const(np.full([1], alpha, np.float32))])
    if addend is not None:
        y = im.emit(tm.AddOp, (m, n), [y, addend])
    return y


@handles("MatMul")
def _matmul(im: Importer, node) -> list:
    return [matmul(im, im.arg(0), im.arg(1))]


def matmul(im: Importer, a, b):
    """numpy's matmul of a and b: a 1-D operand is a row (left) or a column
    (right) dropped from the result, the batch dimensions broadcast; each
    product of the batch is one tinyml.matmul, a 2-D right operand one for
    all rows."""
    a_shape, b_shape = im.shape(a), im.shape(b)
    if isinstance(a, Const) and isinstance(b, Const):
        return Const(np.matmul(a.array, b.array))
    if not a_shape or not b_shape:
        raise im.fail(f"needs operands of rank >= 1, got {shape_text(a_shape)} x "
                      f"{shape_text(b_shape)}")
    row, column = (1,) if len(a_shape) == 1 else (), (1,) if len(b_shape) == 1 else ()
    a_mat = a_shape if len(a_shape) > 1 else (1, *a_shape)
    b_mat = b_shape if len(b_shape) > 1 else (*b_shape, 1)
    (m, k), (kb, n) = a_mat[-2:], b_mat[-2:]
    if k != kb:
        raise im.fail(f"contraction sizes differ: {shape_text(a_shape)} x "
                      f"{shape_text(b_shape)}")
    try:
        batch = tuple(np.broadcast_shapes(a_mat[:-2], b_mat[:-2]))
    except ValueError:
        raise im.fail(f"batch dimensions of {shape_text(a_shape)} and {shape_text(b_shape)} "
                      "do not broadcast") from None
    out = [*batch, *([] if row else [m]), *([] if column else [n])]
    if math.prod(b_mat[:-2]) == 1:
        # Every row of every batch meets the same [K, N] matrix.
        rows = math.prod(a_mat[:-1])
        y = im.emit(tm.MatmulOp, (rows, n),
                    [im.reshape(a, (rows, k)), im.reshape(b, (k, n))])
        return im.reshape(y, out)
    lhs, rhs = _batches(im, a, a_mat), _batches(im, b, b_mat)
    products = []
    for index in np.ndindex(*batch):
        products.append(im.reshape(im.emit(tm.MatmulOp, (m, n), [
            _batch(im, lhs, a_mat, index), _batch(im, rhs, b_mat, index)]), (1, m, n)))
    y = products[0] if len(products) == 1 else \
        im.emit(tm.ConcatOp, (len(products), m, n), products, axis=0)
    return im.reshape(y, out)


def _batches(im: Importer, value, shape):
    """`value` as [batch, rows, columns]: its batch dimensions flattened."""
    return im.reshape(value, (math.prod(shape[:-2]), *shape[-2:]))


def _batch(im: Importer, stacked, shape, index):
    """The matrix of `stacked` (from _batches) that broadcasts to the batch
    `index` of the result."""
    own = shape[:-2]
    position = np.ravel_multi_index(
        [i if d > 1 else 0 for i, d in zip(index[len(index) - len(own):], own)], own) \
        if own else 0
    rows, columns = shape[-2:]
    if isinstance(stacked, Const):
        return Const(stacked.array[position])
    return im.reshape(im.slice(im.tensor(stacked), [position, 0, 0], [1, rows, columns],
                               [1, 1, 1]), (rows, columns))
