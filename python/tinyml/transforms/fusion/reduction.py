"""Reduction fusion: element-wise producers fuse into a reduction or softmax
as its prologue (the square of a sum of squares is computed as the input is
read), element-wise consumers of its result as its epilogue (mean = sum / N
then a scale)."""
from __future__ import annotations

from mlir import ir
from mlir.rewrite import PatternRewriter

from ...dialects import tinyml as tm
from ...ir.ops import ELEMENTWISE, REDUCTIONS
from ...ir.patterns import NO_MATCH, Pattern
from ...ir.values import shape_of, users
from ...ir.walk import in_graph
from .groups import (EpilogueChains, absorb_producer, float_only, in_one_block,
                     is_elementwise, is_group, new_group, only_user, outside_producers, same,
                     size)

KIND = "reduction"


def reduction_patterns(max_ops: int = 16) -> list[tuple[str, Pattern]]:
    """(root op, pattern) pairs: a reduction with something to fuse becomes
    a group; the group absorbs the element-wise chain consuming its result
    (the epilogue) first, then, nearest first, the same-shaped element-wise
    ops feeding its input that have no other user (the prologue), up to
    `max_ops` ops in all."""

    chains = EpilogueChains(KIND, REDUCTIONS, max_ops - 1)

    def reduction_becomes_group(op: ir.OpView, rewriter: PatternRewriter):
        op = op.operation
        if (not in_graph(op)
                or not (chains.takes(op, only_user(op)) or prologue(op, op))):
            return NO_MATCH
        new_group(rewriter, op, KIND)

    def prologue_joins_group(op: ir.OpView, rewriter: PatternRewriter):
        op = op.operation
        consumers = set(users(op))
        group = consumers.pop() if len(consumers) == 1 else None
        # The epilogue comes first: while a consumer may still join, wait.
        if (not is_group(group, KIND) or chains.takes(group, only_user(group))
                or not same(prologue(group, group.opview.root), op)):
            return NO_MATCH
        absorb_producer(rewriter, group, op)

    def prologue(group: ir.Operation, reduction: ir.Operation) -> ir.Operation | None:
        """The nearest producer that may join `group` as prologue of
        `reduction` (its copy inside `group`, or `group` itself when it is
        still a bare reduction). An op on the element-wise chain of another
        reduction's result is that reduction's epilogue, never a prologue."""
        if size(group) >= max_ops:
            return None
        space = shape_of(reduction.operands[0])
        start = reduction if group.name == tm.FusedOp.OPERATION_NAME else None
        return next((op for op in outside_producers(group, start)
                     if is_elementwise(op) and in_one_block(op, group)
                     and shape_of(op.results[0]) == space
                     and set(users(op)) == {group}
                     and chains.claimant(op) is None), None)

    return ([(name, float_only(reduction_becomes_group)) for name in sorted(REDUCTIONS)]
            + [(name, float_only(chains.epilogue_joins_group)) for name in sorted(ELEMENTWISE)]
            + [(name, float_only(prologue_joins_group)) for name in sorted(ELEMENTWISE)])
