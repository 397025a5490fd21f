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
`x`. The clamp merges only apply when the merged range is not empty
(otherwise the result is a constant, which this pass does not make).

The greedy driver also runs the dialect folders, so within this pass (as in
`canonicalize`) `reshape(reshape(x))` becomes one reshape, a reshape or
transpose to the same shape/identity permutation disappears and
`transpose(transpose(x))` composes into one transpose. A transpose that only
moves size-1 dimensions becomes a reshape in `tinyml-cancel-transposes`
(option `unit-dims-to-reshape`), not here.
"""
from __future__ import annotations

from mlir import ir
from mlir.rewrite import RewritePatternSet, apply_patterns_and_fold_greedily

from .fold_constants import splat_value
from .layout import NO_MATCH, create, producer, shape_of
from .lower_to_linalg import attr_float
from .registry import Pass, register


# --- helpers --------------------------------------------------------------------

def operand_of(value: ir.Value, name: str) -> ir.Operation | None:
    """The op producing `value` when it is a `name` op."""
    op = producer(value)
    return op if op is not None and op.name == name else None


def clamp_bounds(op: ir.Operation) -> tuple[float, float]:
    return attr_float(op.attributes, "min"), attr_float(op.attributes, "max")


def clamp(x: ir.Value, low: float, high: float, loc) -> ir.Value:
    return create("tinyml.clamp", shape_of(x), [x],
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
        rewriter.replace_op(op, [create("tinyml.neg", shape_of(x), [x], {}, op.location)])


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
    inner = operand_of(op.operands[0], "tinyml.neg")
    if inner is None:
        return NO_MATCH
    rewriter.replace_op(op, [inner.operands[0]])


def relu_relu(op, rewriter):
    """relu(relu(x)) = relu(x)"""
    op = op.operation
    inner = operand_of(op.operands[0], "tinyml.relu")
    if inner is None:
        return NO_MATCH
    rewriter.replace_op(op, [inner.results[0]])


def relu_of_clamp(op, rewriter):
    """relu(clamp(x, lo, hi)) = clamp(x, max(lo, 0), hi)   when max(lo, 0) <= hi"""
    op = op.operation
    inner = operand_of(op.operands[0], "tinyml.clamp")
    if inner is None:
        return NO_MATCH
    low, high = clamp_bounds(inner)
    if max(low, 0.0) > high:
        return NO_MATCH
    with rewriter.ip:
        rewriter.replace_op(op, [clamp(inner.operands[0], max(low, 0.0), high, op.location)])


def clamp_of_relu(op, rewriter):
    """clamp(relu(x), lo, hi) = clamp(x, max(lo, 0), hi)   when max(lo, 0) <= hi"""
    op = op.operation
    inner = operand_of(op.operands[0], "tinyml.relu")
    if inner is None:
        return NO_MATCH
    low, high = clamp_bounds(op)
    if max(low, 0.0) > high:
        return NO_MATCH
    with rewriter.ip:
        rewriter.replace_op(op, [clamp(inner.operands[0], max(low, 0.0), high, op.location)])


def clamp_of_clamp(op, rewriter):
    """clamp(clamp(x, a, b), c, d) = clamp(x, max(a, c), min(b, d))   when max(a, c) <= min(b, d)"""
    op = op.operation
    inner = operand_of(op.operands[0], "tinyml.clamp")
    if inner is None:
        return NO_MATCH
    (a, b), (c, d) = clamp_bounds(inner), clamp_bounds(op)
    low, high = max(a, c), min(b, d)
    if low > high:
        return NO_MATCH
    with rewriter.ip:
        rewriter.replace_op(op, [clamp(inner.operands[0], low, high, op.location)])


def simplify_patterns(context: ir.Context) -> RewritePatternSet:
    patterns = RewritePatternSet(context)
    patterns.add("tinyml.mul", times_one)
    patterns.add("tinyml.mul", times_minus_one)
    patterns.add("tinyml.add", plus_zero)
    patterns.add("tinyml.sub", minus_zero)
    patterns.add("tinyml.sub", zero_minus)
    patterns.add("tinyml.div", over_one)
    patterns.add("tinyml.neg", neg_neg)
    patterns.add("tinyml.relu", relu_relu)
    patterns.add("tinyml.relu", relu_of_clamp)
    patterns.add("tinyml.clamp", clamp_of_relu)
    patterns.add("tinyml.clamp", clamp_of_clamp)
    return patterns


@register
class Simplify(Pass):
    name = "tinyml-simplify"
    summary = "Apply algebraic identities: x*1, x+0, neg(neg(x)), relu/clamp merges, ..."

    def apply(self, module):
        context = module.context
        with context, ir.Location.unknown(context):
            apply_patterns_and_fold_greedily(module, simplify_patterns(context).freeze())
