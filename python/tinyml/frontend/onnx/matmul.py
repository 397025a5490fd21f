"""Gemm and MatMul: tinyml.matmul with the constant weights in one
canonical [K, N] form."""
from __future__ import annotations

import math

import numpy as np

from .importer import Const, Importer, QuantConst, handles, shape_text


@handles("Gemm")
def _gemm(im: Importer, node) -> list:
    a, b, c = im.arg(0), im.arg(1), im.arg(2, optional=True)
    alpha, beta = float(im.attr("alpha", 1.0)), float(im.attr("beta", 1.0))
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
    bias = addend = None
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
                c = im.emit("tinyml.mul", c_shape, [c, Const(np.full([1], beta, np.float32))])
            if c_shape in ((n,), (1, n)):
                bias = im.reshape(c, (n,))
            else:
                addend = c
    if alpha != 1.0 and bias is not None:
        bias, addend = None, bias
    y = im.emit("tinyml.matmul", (m, n), [a, b, bias], transpose_lhs=trans_a,
                transpose_rhs=trans_b)
    if alpha != 1.0:
        y = im.emit("tinyml.mul", (m, n), [y, Const(np.full([1], alpha, np.float32))])
    if addend is not None:
        y = im.emit("tinyml.add", (m, n), [y, addend])
    return [y]


@handles("MatMul")
def _matmul(im: Importer, node) -> list:
    a, b = im.arg(0), im.arg(1)
    a_shape, b_shape = im.shape(a), im.shape(b)
    if isinstance(a, Const) and isinstance(b, Const):
        return [np.matmul(a.array, b.array)]
    if len(a_shape) < 2 or len(b_shape) != 2:
        raise im.fail(f"only a [..., K] x [K, N] product with a 2-D right operand is "
                      f"supported, got {shape_text(a_shape)} x {shape_text(b_shape)}")
    if a_shape[-1] != b_shape[0]:
        raise im.fail(f"contraction sizes differ: {shape_text(a_shape)} x "
                      f"{shape_text(b_shape)}")
    rows = math.prod(a_shape[:-1])
    lhs = im.reshape(im.tensor(a), (rows, a_shape[-1]))
    y = im.emit("tinyml.matmul", (rows, b_shape[1]), [lhs, b])
    return [im.reshape(y, (*a_shape[:-1], b_shape[1]))]

