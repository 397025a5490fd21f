"""tinyml-simplify: algebraic identities on tinyml ops.

Each pattern is one identity (`c` is a constant whose elements all equal
the number shown):

    x * 1 = 1 * x = x          x + 0 = 0 + x = x       x - 0 = x      x / 1 = x
    0 - x = neg(x)             x * -1 = -1 * x = neg(x)
    neg(neg(x)) = x
    relu(relu(x)) = relu(x)
    clamp(relu(x), lo, hi) = relu(clamp(x, lo, hi)) = clamp(x, max(lo, 0), hi)
    clamp(clamp(x, a, b), c, d) = clamp(x, max(a, c), min(b, d))

An identity on a binary op only applies when the result has the type of
`x`: `x + zeros` that broadcasts `x` to a larger shape is a broadcast, not
`x`. The clamp merges are one pattern that intersects the ranges of the two
ops (relu's is [0, inf)); they only apply when the intersection is not empty
(otherwise the result is a constant, which this pass does not make).

The greedy driver also runs the dialect folders, so within this pass (as in
`canonicalize`) `reshape(reshape(x))` becomes one reshape, a reshape or
transpose to the same shape/identity permutation disappears and
`transpose(transpose(x))` composes into one transpose. A transpose that only
moves size-1 dimensions becomes a reshape in `tinyml-cancel-transposes`
(option `unit-dims-to-reshape`), not here.
"""
from __future__ import annotations

import math

from mlir import ir

from .fold_constants import splat_value
from ..dialects import tinyml as tm
from ..ir.attributes import attr_float
from ..ir.ops import op_names
from ..ir.patterns import NO_MATCH, create, producer_named, rewrite_greedily
from ..ir.values import producer, shape_of
from ..pipeline.registry import Pass, register

# The ops that limit their input to a range [low, high].
RANGE_OPS = op_names(tm.ReluOp, tm.ClampOp)


# --- helpers --------------------------------------------------------------------

def value_range(op: ir.Operation) -> tuple[float, float]:
    """The [low, high] a relu or clamp limits its input to."""
    if op.name == tm.ReluOp.OPERATION_NAME:
        return 0.0, math.inf
    return attr_float(op.attributes, "min"), attr_float(op.attributes, "max")


def clamp(x: ir.Value, low: float, high: float, loc) -> ir.Value:
    return create(tm.ClampOp, shape_of(x), [x],
                  {"min": ir.FloatAttr.get_f32(low), "max": ir.FloatAttr.get_f32(high)}, loc)


def binary_with_constant(op: ir.Operation, number: float, constant_at: tuple[int, ...]):
    """(x, position of c) when the operand at one of `constant_at` is a
    constant all equal to `number` and the result has the type of the
    other operand `x`."""
    for position in constant_at:
        c, x = op.operands[position], op.operands[1 - position]
        if splat_value(c) == number and x.type == op.results[0].type:
            return x
    return None


def keep_x(op, rewriter, number: float, constant_at: tuple[int, ...]):
    """binary(x, c) -> x when c is the neutral `number` at `constant_at`."""
    op = op.operation
    x = binary_with_constant(op, number, constant_at)
    if x is None:
        return NO_MATCH
    rewriter.replace_op(op, [x])


def negate_x(op, rewriter, number: float, constant_at: tuple[int, ...]):
    """binary(x, c) -> neg(x) when c is `number` at `constant_at`."""
    op = op.operation
    x = binary_with_constant(op, number, constant_at)
    if x is None:
        return NO_MATCH
    with rewriter.ip:
        rewriter.replace_op(op, [create(tm.NegOp, shape_of(x), [x], {}, op.location)])


# --- patterns: each reads as the identity it applies ------------------------------

def times_one(op, rewriter):
    """x * 1 = 1 * x = x"""
    return keep_x(op, rewriter, 1.0, (1, 0))


def plus_zero(op, rewriter):
    """x + 0 = 0 + x = x"""
    return keep_x(op, rewriter, 0.0, (1, 0))


def minus_zero(op, rewriter):
    """x - 0 = x"""
    return keep_x(op, rewriter, 0.0, (1,))


def over_one(op, rewriter):
    """x / 1 = x"""
    return keep_x(op, rewriter, 1.0, (1,))


def zero_minus(op, rewriter):
    """0 - x = neg(x)"""
    return negate_x(op, rewriter, 0.0, (0,))


def times_minus_one(op, rewriter):
    """x * -1 = -1 * x = neg(x)"""
    return negate_x(op, rewriter, -1.0, (1, 0))


def neg_neg(op, rewriter):
    """neg(neg(x)) = x"""
    op = op.operation
    inner = producer_named(op.operands[0], tm.NegOp)
    if inner is None:
        return NO_MATCH
    rewriter.replace_op(op, [inner.operands[0]])


def relu_relu(op, rewriter):
    """relu(relu(x)) = relu(x)"""
    op = op.operation
    inner = producer_named(op.operands[0], tm.ReluOp)
    if inner is None:
        return NO_MATCH
    rewriter.replace_op(op, [inner.results[0]])


def merge_ranges(op, rewriter):
    """outer(inner(x)) = clamp(x, max(lows), min(highs))   for a relu or clamp
    of a relu or clamp, not both relu, when max(lows) <= min(highs)"""
    op = op.operation
    inner = producer(op.operands[0])
    if inner is None or inner.name not in RANGE_OPS \
            or op.name == inner.name == tm.ReluOp.OPERATION_NAME:
        return NO_MATCH
    # max and min return the first of two bounds that are equal (0.0, -0.0)
    # or do not compare (NaN): a clamp's bounds go first to be kept as written.
    first, second = sorted((inner, op), key=lambda ranged: ranged.name == tm.ReluOp.OPERATION_NAME)
    (first_low, first_high), (second_low, second_high) = value_range(first), value_range(second)
    low, high = max(first_low, second_low), min(first_high, second_high)
    if low > high:
        return NO_MATCH
    with rewriter.ip:
        rewriter.replace_op(op, [clamp(inner.operands[0], low, high, op.location)])


SIMPLIFICATIONS = [
    (tm.MulOp, times_one),
    (tm.MulOp, times_minus_one),
    (tm.AddOp, plus_zero),
    (tm.SubOp, minus_zero),
    (tm.SubOp, zero_minus),
    (tm.DivOp, over_one),
    (tm.NegOp, neg_neg),
    (tm.ReluOp, relu_relu),
    *((name, merge_ranges) for name in RANGE_OPS),
]


@register
class Simplify(Pass):
    name = "tinyml-simplify"
    summary = "Apply algebraic identities: x*1, x+0, neg(neg(x)), relu/clamp merges, ..."

    def apply(self, module):
        rewrite_greedily(module, SIMPLIFICATIONS)
