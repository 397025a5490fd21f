"""tinyml-cancel-transposes: move layout transposes down the graph until
they meet their inverse and cancel.

The ONNX frontend wraps every NCHW op in `transpose NCHW->NHWC`, the NHWC op,
`transpose NHWC->NCHW`. Between two convolutions that leaves
`T_back -> relu -> add(bias) -> T_fwd`. This pass sinks a transpose `T(x)`
(`T(x)[i] = x[perm[i]]`) below the ops that commute with it:

    unary(T(x))               = T(unary(x))              relu, clamp, sigmoid, lookup, ...
    binary(T(x), T(y))        = T(binary(x, y))          add, sub, mul, ...
    binary(T(x), c)           = T(binary(x, c'))         c' = c, rank-expanded,
                                                         permuted by perm^-1
    concat(T(x), T(y), a)     = T(concat(x, y, perm[a]))
    pad(T(x), lo, hi)         = T(pad(x, lo', hi'))      lo'[perm[i]] = lo[i]
    reduce(T(x), axes)        = T'(reduce(x, perm[axes]))
    softmax(T(x), a)          = T(softmax(x, perm[a]))
    batch_norm(T(x))          = T(batch_norm(x))         when perm keeps the
                                                         channel (last) axis

and the dialect's folder turns `T2(T1(x))` into one transpose or nothing. A
transpose is only sunk when the op is its sole user (sinking a shared one
would duplicate it). Finally a transpose that moves only size-1 dimensions is
a `tinyml.reshape` (option `unit-dims-to-reshape`), which folds with its
neighbouring reshapes.

Run it between `canonicalize`s, the second of which erases the transposes
left unused (see `tinyml.frontend`).
"""
from __future__ import annotations

import functools
from typing import Sequence

import numpy as np
from mlir import ir

from .fold_constants import constant, constant_array
from ..dialects import tinyml as tm
from ..ir.attributes import inverse_permutation
from ..ir.patterns import NO_MATCH, attributes_of, create, producer_named, rewrite_greedily
from ..ir.quant import QUANT_CASTS, is_per_axis, quant_cast
from ..ir.values import element_of, shape_of
from ..pipeline.registry import Option, Pass, register

UNARY = (tm.ReluOp, tm.ClampOp, tm.SigmoidOp, tm.TanhOp, tm.ExpOp, tm.NegOp, tm.LookupOp)
BINARY = (tm.AddOp, tm.SubOp, tm.MulOp, tm.DivOp, tm.MaximumOp, tm.MinimumOp)
REDUCE = (tm.ReduceSumOp, tm.ReduceMeanOp, tm.ReduceMaxOp)


# --- small helpers ------------------------------------------------------------

def permuted(values: Sequence, perm: Sequence[int]) -> list:
    """`values` of T(x) read as those of x: out[perm[i]] = values[i]."""
    out = [None] * len(perm)
    for i, p in enumerate(perm):
        out[p] = values[i]
    return out


def transpose_input(value: ir.Value, user: ir.Operation):
    """(x, perm) when `value` is `transpose(x, perm)` used only by `user`."""
    op = producer_named(value, tm.TransposeOp)
    if op is None:
        return None
    if any(use.owner.operation != user for use in value.uses):
        return None
    return op.operands[0], list(op.attributes["permutation"])


def transpose(value: ir.Value, perm: Sequence[int], loc) -> ir.Value:
    shape = shape_of(value)
    return create(tm.TransposeOp, [shape[p] for p in perm], [value],
                  {"permutation": ir.DenseI64ArrayAttr.get(list(perm))}, loc, element_of(value))


def i64(value: int) -> ir.IntegerAttr:
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), value)


def i64s(values) -> ir.DenseI64ArrayAttr:
    return ir.DenseI64ArrayAttr.get([int(v) for v in values])


def rebuild_under_transpose(op: ir.Operation, rewriter, perm: Sequence[int], shape,
                            operands, attributes: dict) -> None:
    """Replaces `op` by T(op'), where op' is `op` rebuilt on `operands` (the
    inputs of the transposes) with result `shape` and `attributes`."""
    with rewriter.ip:
        y = create(op.name, shape, operands, attributes, op.location, element_of(op.results[0]))
        rewriter.replace_op(op, [transpose(y, perm, op.location)])


def when_input_transposed(sink):
    """The pattern that calls `sink(op, rewriter, x, perm)` when the op's
    first operand is T(x) and the op is its only user."""
    @functools.wraps(sink)
    def pattern(op, rewriter):
        op = op.operation
        source = transpose_input(op.operands[0], op)
        if source is None:
            return NO_MATCH
        return sink(op, rewriter, *source)
    return pattern


# --- patterns: each reads as the identity it applies ----------------------------

@when_input_transposed
def sink_through_unary(op, rewriter, x, perm):
    """unary(T(x)) -> T(unary(x))"""
    rebuild_under_transpose(op, rewriter, perm, shape_of(x), [x], attributes_of(op))


def sink_through_binary(op, rewriter):
    """binary(T(x), T(y)) -> T(binary(x, y)); constants are permuted."""
    op = op.operation
    rank = len(shape_of(op.results[0]))
    perm, operands = None, []
    for value in op.operands:
        source = transpose_input(value, op)
        if source is not None:
            x, p = source
            if len(p) != rank or (perm is not None and p != perm):
                return NO_MATCH
            perm = p
            operands.append(x)
            continue
        array = constant_array(value)
        if array is None:
            return NO_MATCH
        # A scalar broadcasts the same in any layout: keep it as it is.
        operands.append(value if array.size == 1 and array.ndim <= 1 else array)
    if perm is None:
        return NO_MATCH
    with rewriter.ip:
        new_operands = []
        for operand in operands:
            if isinstance(operand, np.ndarray):
                expanded = operand.reshape((1,) * (rank - operand.ndim) + operand.shape)
                operand = constant(expanded.transpose(inverse_permutation(perm)), op.location)
            new_operands.append(operand)
    rebuild_under_transpose(op, rewriter, perm, permuted(shape_of(op.results[0]), perm),
                            new_operands, attributes_of(op))


def sink_through_concat(op, rewriter):
    """concat(T(x), T(y), axis) -> T(concat(x, y, perm[axis]))"""
    op = op.operation
    sources = [transpose_input(v, op) for v in op.operands]
    if any(s is None for s in sources) or len({tuple(p) for _, p in sources}) != 1:
        return NO_MATCH
    perm = sources[0][1]
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    rebuild_under_transpose(op, rewriter, perm, permuted(shape_of(op.results[0]), perm),
                            [x for x, _ in sources], {"axis": i64(perm[axis])})


@when_input_transposed
def sink_through_pad(op, rewriter, x, perm):
    """pad(T(x), low, high) -> T(pad(x, low permuted, high permuted))"""
    padding = list(op.attributes["padding"])
    rank = len(perm)
    low, high = permuted(padding[:rank], perm), permuted(padding[rank:], perm)
    attributes = attributes_of(op)
    attributes["padding"] = i64s(low + high)
    rebuild_under_transpose(op, rewriter, perm, permuted(shape_of(op.results[0]), perm), [x],
                            attributes)


@when_input_transposed
def sink_through_reduce(op, rewriter, x, perm):
    """reduce(T(x), axes) -> T'(reduce(x, perm[axes])), T' the order of the
    kept dimensions (nothing when they stay in order)."""
    axes = list(op.attributes["axes"])
    x_axes = sorted(perm[a] for a in axes)
    x_shape = shape_of(x)
    attributes = attributes_of(op)
    attributes["axes"] = i64s(x_axes)
    if "keep_dims" in op.attributes:
        shape = [1 if d in x_axes else n for d, n in enumerate(x_shape)]
        rebuild_under_transpose(op, rewriter, perm, shape, [x], attributes)
        return None
    kept_x = [d for d in range(len(x_shape)) if d not in x_axes]
    order = [kept_x.index(perm[i]) for i in range(len(perm)) if i not in axes]
    with rewriter.ip:
        y = create(op.name, [x_shape[d] for d in kept_x], [x], attributes, op.location,
                   element_of(op.results[0]))
        if order != list(range(len(order))):
            y = transpose(y, order, op.location)
        rewriter.replace_op(op, [y])


@when_input_transposed
def sink_through_softmax(op, rewriter, x, perm):
    """softmax(T(x), axis) -> T(softmax(x, perm[axis]))"""
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    rebuild_under_transpose(op, rewriter, perm, shape_of(x), [x], {"axis": i64(perm[axis])})


@when_input_transposed
def sink_through_batch_norm(op, rewriter, x, perm):
    """batch_norm(T(x)) -> T(batch_norm(x)) when T keeps the channel axis last"""
    if perm[-1] != len(perm) - 1:
        return NO_MATCH
    rebuild_under_transpose(op, rewriter, perm, shape_of(x), [x, *list(op.operands)[1:]],
                            attributes_of(op))


@when_input_transposed
def sink_through_quant_cast(op, rewriter, x, perm):
    """cast(T(x)) -> T(cast(x)) for quant.scast, quantize and dequantize: each
    acts on each element alone, with one scale and zero point for the tensor
    (a per-axis type would need its axis permuted: only constants have one)."""
    element = element_of(op.results[0])
    if is_per_axis(element) or is_per_axis(element_of(x)):
        return NO_MATCH
    with rewriter.ip:
        y = quant_cast(op.name, x, element, op.location)
        rewriter.replace_op(op, [transpose(y, perm, op.location)])


def unit_transpose_to_reshape(op, rewriter):
    """A transpose that keeps the order of the dimensions larger than 1 only
    moves size-1 dimensions: it is a reshape."""
    op = op.operation
    shape = shape_of(op.operands[0])
    moved = [p for p in op.attributes["permutation"] if shape[p] != 1]
    if moved != sorted(moved):
        return NO_MATCH
    with rewriter.ip:
        y = create(tm.ReshapeOp, shape_of(op.results[0]), [op.operands[0]], {},
                   op.location, element_of(op.results[0]))
        rewriter.replace_op(op, [y])


SINKING_PATTERNS = [
    *((op, sink_through_unary) for op in UNARY),
    *((op, sink_through_binary) for op in BINARY),
    *((op, sink_through_reduce) for op in REDUCE),
    (tm.ConcatOp, sink_through_concat),
    (tm.PadOp, sink_through_pad),
    (tm.SoftmaxOp, sink_through_softmax),
    (tm.BatchNormOp, sink_through_batch_norm),
    *((name, sink_through_quant_cast) for name in QUANT_CASTS),
]


@register
class CancelTransposes(Pass):
    name = "tinyml-cancel-transposes"
    summary = "Sink transposes through element-wise ops until inverse pairs cancel"
    options = (
        Option("unit-dims-to-reshape", bool, True,
               "turn transposes that move only size-1 dimensions into reshapes"),
    )

    def apply(self, module):
        rewrite_greedily(module, SINKING_PATTERNS)
        if self.unit_dims_to_reshape:
            rewrite_greedily(module, [(tm.TransposeOp, unit_transpose_to_reshape)])
