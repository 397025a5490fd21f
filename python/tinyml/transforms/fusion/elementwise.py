"""Element-wise fusion: maximal DAGs of element-wise ops over one iteration
space become one `tinyml.fused elementwise` group, grown backwards from
the op whose result leaves it (its root)."""
from __future__ import annotations

from mlir import ir
from mlir.rewrite import PatternRewriter

from ...dialects import tinyml as tm
from ...ir.ops import CHEAP, ELEMENTWISE
from ...ir.patterns import NO_MATCH, Pattern
from ...ir.values import shape_of, users
from ...ir.walk import in_graph
from .groups import (absorb_producer, float_only, in_one_block, is_elementwise, is_group,
                     new_group, outside_producers, same, size)

KIND = "elementwise"


def elementwise_patterns(max_ops: int = 32,
                         rematerialize: bool = True) -> list[tuple[str, Pattern]]:
    """(root op, pattern) pairs: an element-wise op that no consumer takes
    in becomes a group when it has a producer to absorb; a same-shaped
    element-wise producer (or group) whose every use is inside a group joins
    it, and, with `rematerialize`, a cheap producer whose every user is
    element-wise is copied into each, so that its buffer disappears. A group
    takes its producers nearest first, and none grows past `max_ops` ops."""

    def acts_elementwise(op: ir.Operation) -> bool:
        return is_elementwise(op) or is_group(op, KIND)

    def recomputable(op: ir.Operation) -> bool:
        # Only when every consumer can take a copy does the buffer go away.
        return (rematerialize and op.name in CHEAP
                and all(acts_elementwise(user) and shape_of(user.results[0]) == shape_of(op.results[0])
                        for user in users(op)))

    def fits(op: ir.Operation | None, consumer: ir.Operation) -> bool:
        return (op is not None and acts_elementwise(op) and in_graph(op)
                and in_one_block(op, consumer)
                and shape_of(op.results[0]) == shape_of(consumer.results[0])
                and size(op) + size(consumer) <= max_ops)

    def movable(op: ir.Operation | None, consumer: ir.Operation) -> bool:
        return fits(op, consumer) and set(users(op)) == {consumer}

    def copyable(op: ir.Operation | None, consumer: ir.Operation) -> bool:
        return fits(op, consumer) and is_elementwise(op) and recomputable(op)

    def taken_by_consumer(op: ir.Operation) -> bool:
        consumers = set(users(op))
        if len(consumers) == 1:
            consumer = next(iter(consumers))
            return acts_elementwise(consumer) and movable(op, consumer)
        return recomputable(op) and all(size(user) < max_ops for user in consumers)

    def nearest_absorbable(consumer: ir.Operation) -> ir.Operation | None:
        # Copies come last: an op copied in while one of its users is still
        # on its way into the group would be computed there twice.
        producers = outside_producers(consumer)
        return next((op for op in producers if movable(op, consumer)),
                    next((op for op in producers if copyable(op, consumer)), None))

    def root_becomes_group(op: ir.OpView, rewriter: PatternRewriter):
        op = op.operation
        if (not in_graph(op) or taken_by_consumer(op)
                or nearest_absorbable(op) is None):
            return NO_MATCH
        new_group(rewriter, op, KIND)

    def producer_joins_group(op: ir.OpView, rewriter: PatternRewriter):
        op = op.operation
        if not acts_elementwise(op) or not in_graph(op):
            return NO_MATCH
        # One group when `op` moves; every group it is copied into at once.
        groups = [user for user in users(op)
                  if is_group(user, KIND) and same(nearest_absorbable(user), op)]
        if not groups:
            return NO_MATCH
        for group in groups:
            absorb_producer(rewriter, group, op)

    return ([(name, float_only(root_becomes_group)) for name in sorted(ELEMENTWISE)]
            + [(name, float_only(producer_joins_group))
               for name in sorted(ELEMENTWISE | {tm.FusedOp.OPERATION_NAME})])

