"""tinyml-fold-batch-norm: fold inference batch normalisation into the
preceding convolution or matrix product.

With constant parameters a batch norm is an affine map per channel:

    batch_norm(y) = (y - mean) / sqrt(var + eps) * scale + beta = y * s + t
        s = scale / sqrt(var + eps)
        t = beta - mean * s

and when `y = contraction(x, w, b)` is linear in `w` and `b` per output
channel, the affine map moves into the weights:

    batch_norm(conv2d(x, w, b))           = conv2d(x, w * s, b * s + t)
    batch_norm(depthwise_conv2d(x, w, b)) = depthwise_conv2d(x, w * s', b * s + t)
    batch_norm(matmul(x, w, b))           = matmul(x, w * s, b * s + t)

where the filter is scaled along its output channel: the last axis of an
HWCF filter, the [C, M] pair of an HWCM depthwise filter (`s' = s` reshaped
to [C, M], output channel c*M + m), the column j of `op(rhs)` of a matmul
(the row j of `rhs` with `transpose_rhs`). A missing bias counts as zero.
This needs the contraction to have the batch norm as its only user and a
constant filter and bias.

A batch norm that cannot be folded (its input is an argument, a
contraction with other users or a non-constant filter, another op, ...) but
has constant parameters becomes `mul(y, s)`, `add(., t)` with precomputed
`s` and `t` (option `decompose`): two element-wise ops that fuse with their
neighbours later. Folding is tried on every batch norm first.

Run it after `tinyml-cancel-transposes` (the frontend puts transposes
between an NCHW Conv and its BatchNormalization) and follow it with
`canonicalize`, which erases what it leaves unused.
"""
from __future__ import annotations

import numpy as np
from mlir import ir

from .fold_constants import constant, constant_array, constant_arrays
from ..dialects import tinyml as tm
from ..ir.attributes import attr_float, attr_flag
from ..ir.ops import keyed_by_name
from ..ir.patterns import NO_MATCH, attributes_of, create, rewrite_greedily
from ..ir.values import producer, shape_of
from ..pipeline.registry import Option, Pass, register


def normalization(batch_norm: ir.Operation) -> tuple[np.ndarray, np.ndarray] | None:
    """(s, t) with `batch_norm(y) = y * s + t`, in float64, when the four
    parameters are constants; else None."""
    params = constant_arrays(list(batch_norm.operands)[1:])
    if params is None:
        return None
    scale, beta, mean, variance = (p.astype(np.float64) for p in params)
    epsilon = attr_float(batch_norm.attributes, "epsilon", 1.0e-5)
    s = scale / np.sqrt(variance + epsilon)
    return s, beta - mean * s


# How each contraction's filter scales by s per output channel.

def scale_hwcf(op: ir.Operation, w: np.ndarray, s: np.ndarray) -> np.ndarray:
    """output channel f is w[:, :, :, f]"""
    return w * s


def scale_hwcm(op: ir.Operation, w: np.ndarray, s: np.ndarray) -> np.ndarray:
    """output channel c*M + m is w[:, :, c, m]"""
    return w * s.reshape(w.shape[2:])


def scale_columns(op: ir.Operation, w: np.ndarray, s: np.ndarray) -> np.ndarray:
    """output column j is column j of op(rhs): rhs[:, j], or rhs[j, :] transposed"""
    return w * s[:, None] if attr_flag(op.attributes, "transpose_rhs") else w * s


SCALE_FILTER = keyed_by_name({
    tm.Conv2DOp: scale_hwcf,
    tm.DepthwiseConv2DOp: scale_hwcm,
    tm.MatmulOp: scale_columns,
})


def fold_into_contraction(op, rewriter):
    """batch_norm(contraction(x, w, b)) = contraction(x, w * s, b * s + t)"""
    op = op.operation
    contraction = producer(op.operands[0])
    if contraction is None or contraction.name not in SCALE_FILTER:
        return NO_MATCH
    if len(list(contraction.results[0].uses)) != 1:
        return NO_MATCH
    affine = normalization(op)
    w = constant_array(contraction.operands[1])
    has_bias = len(contraction.operands) > 2
    b = constant_array(contraction.operands[2]) if has_bias else np.zeros(1)
    if affine is None or w is None or b is None:
        return NO_MATCH
    s, t = affine
    scaled = SCALE_FILTER[contraction.name](contraction, w.astype(np.float64), s)
    bias = b.astype(np.float64) * s + t
    loc = ir.Location.fused([contraction.location, op.location])
    with rewriter.ip:
        x = contraction.operands[0]
        folded = create(contraction.name, shape_of(op.results[0]),
                        [x, constant(scaled, loc), constant(bias, loc)],
                        attributes_of(contraction), loc)
        rewriter.replace_op(op, [folded])


def scale_and_shift(op, rewriter):
    """batch_norm(y) = y * s + t"""
    op = op.operation
    affine = normalization(op)
    if affine is None:
        return NO_MATCH
    s, t = affine
    y = op.operands[0]
    shape = shape_of(op.results[0])
    with rewriter.ip:
        scaled = create(tm.MulOp, shape, [y, constant(s, op.location)], {}, op.location)
        shifted = create(tm.AddOp, shape, [scaled, constant(t, op.location)], {}, op.location)
        rewriter.replace_op(op, [shifted])


@register
class FoldBatchNorm(Pass):
    name = "tinyml-fold-batch-norm"
    summary = "Fold batch_norm into the preceding conv/matmul, or into mul + add"
    options = (
        Option("decompose", bool, True,
               "turn a batch_norm that cannot be folded (but has constant parameters) "
               "into mul + add"),
    )

    def apply(self, module):
        rewrite_greedily(module, [(tm.BatchNormOp, fold_into_contraction)])
        if self.decompose:
            rewrite_greedily(module, [(tm.BatchNormOp, scale_and_shift)])
