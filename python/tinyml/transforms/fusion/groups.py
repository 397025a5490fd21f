"""What the fusion patterns share: which ops fuse, and the three rewrites
every fusion pattern ends in (an op becomes a group, a group absorbs a
producer, a group absorbs a consumer).

A group has one result, produced by its root (the last op of its body). An
op joins a group only when every use of its result is inside the group, or
when it is rematerialized: copied in while the original stays for its
other users. So no path leaves a group and comes back in: fusing can never
create a cycle, whatever order the patterns fire in.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Callable, TypeGuard

from mlir import ir
from mlir.rewrite import PatternRewriter

from ...dialects import tinyml as tm
from ...ir.ops import ELEMENTWISE
from ...ir.patterns import NO_MATCH
from ...ir.quant import has_quantized_data
from ...ir.values import distinct, producer, shape_of, users
from ...ir.walk import in_graph


def is_elementwise(op: ir.Operation | None) -> TypeGuard[ir.Operation]:
    return op is not None and op.name in ELEMENTWISE and not has_quantized_data(op)


def float_only(pattern):
    """`pattern`, never matching an op on quantized data: quantized ops have
    no fused lowering yet, so each stays a kernel of its own."""
    @functools.wraps(pattern)
    def guarded(op, rewriter):
        if has_quantized_data(op.operation):
            return NO_MATCH
        return pattern(op, rewriter)
    return guarded


def only_user(op: ir.Operation) -> ir.Operation | None:
    """The single op using `op`'s single result, if there is exactly one use."""
    if len(op.results) != 1:
        return None
    uses = list(op.results[0].uses)
    return uses[0].owner.operation if len(uses) == 1 else None


def same(op: ir.Operation | None, other: ir.Operation | None) -> bool:
    """Whether two possibly missing ops are one op (the bindings' == rejects None)."""
    return op is not None and other is not None and op == other


def in_one_block(op: ir.Operation, other: ir.Operation) -> bool:
    """Whether two ops are in one block: fusion never moves an op into a
    time loop's body (a loop-invariant producer would run every step) nor
    out of it."""
    return op.block == other.block


def is_only_user(op: ir.Operation, of: ir.Operation) -> bool:
    return same(only_user(of), op)


def is_group(op: ir.Operation | None, kind: str) -> TypeGuard[ir.Operation]:
    return (op is not None and op.name == tm.FusedOp.OPERATION_NAME
            and op.opview.kind_name == kind)


def size(op: ir.Operation) -> int:
    """How many ops `op` brings into a group: a group counts its members
    (the constants copied into it are not members)."""
    if op.name != tm.FusedOp.OPERATION_NAME:
        return 1
    return sum(1 for member in op.opview.body_ops if not _is_constant(member))


@dataclass(frozen=True)
class EpilogueChains:
    """The chains of single-use element-wise ops of one shape that consume
    the result of a `heads` op (or of a group of `kind` built around one),
    at most `max_links` long: each chain is that head's epilogue, and its
    ops join the head's group in turn. `accepts(consumer, group)` may
    refuse a consumer besides."""

    kind: str
    heads: frozenset[str]
    max_links: int
    accepts: Callable[[ir.Operation, ir.Operation], bool] = lambda consumer, group: True

    def joins(self, consumer: ir.Operation | None, group: ir.Operation) -> bool:
        """Whether `consumer` may be the next op of `group`'s (or of a bare
        head's) epilogue."""
        return (is_elementwise(consumer) and in_graph(consumer)
                and shape_of(consumer.results[0]) == shape_of(group.results[0])
                and size(group) - 1 < self.max_links and self.accepts(consumer, group))

    def takes(self, head: ir.Operation, consumer: ir.Operation | None) -> bool:
        """Whether `consumer` will join the epilogue of `head` (a head or a
        group): it continues that chain rather than another, and may join."""
        return (consumer is not None and same(self.claimant(consumer), head)
                and self.joins(consumer, head))

    def epilogue_joins_group(self, op: ir.OpView, rewriter: PatternRewriter):
        """Pattern: an element-wise op joins the group whose epilogue it continues."""
        op = op.operation
        group = self.claimant(op)
        if not is_group(group, self.kind) or not self.joins(op, group):
            return NO_MATCH
        absorb_consumer(rewriter, group, op)

    def claimant(self, consumer: ir.Operation) -> ir.Operation | None:
        """The producer of the operand through which `consumer` continues an
        epilogue chain (a head, a group, or the chain's last op while it is
        still on its way into the group), if it continues one. Of several (a
        residual add of two branches), the one with more heads on its
        longest path from the function's arguments, the block's main branch,
        takes it, the first operand's on a tie. Ranks are counted as if no
        op were grouped, so the choice is the same in whatever order the
        driver visits ops."""
        if not is_elementwise(consumer):
            return None
        chained = [value for value in consumer.operands
                   if self._leads_from(value, consumer, self.max_links)]
        if len(chained) > 1:
            ranks = [head_rank(value, self.heads) for value in chained]
            chained = [chained[ranks.index(max(ranks))]]
        return producer(chained[0]) if chained else None

    def _leads_from(self, value: ir.Value, consumer: ir.Operation, links: int) -> bool:
        definer = producer(value)
        if (definer is None or not in_graph(definer) or not in_one_block(definer, consumer)
                or not is_only_user(consumer, definer)
                or shape_of(value) != shape_of(consumer.results[0])):
            return False
        if definer.name in self.heads:
            return True
        if is_group(definer, self.kind):
            return size(definer) - 1 <= links
        return (is_elementwise(definer) and links > 0
                and any(self._leads_from(operand, definer, links - 1)
                        for operand in definer.operands))


def head_rank(value: ir.Value, heads: frozenset[str]) -> int:
    """How many `heads` ops lie on the longest path from the function's
    arguments to `value`, in the graph as it was before fusion: a group
    stands for the ops of its body, so forming groups never changes a rank."""
    ranks: dict[ir.Value, int] = {}
    pending = [value]
    while pending:
        current = pending[-1]
        inputs, own = _ungrouped_inputs(current, heads)
        waiting = [v for v in inputs if v not in ranks]
        if waiting:
            pending.extend(waiting)
            continue
        pending.pop()
        ranks[current] = own + max((ranks[v] for v in inputs), default=0)
    return ranks[value]


def _ungrouped_inputs(value: ir.Value, heads: frozenset[str]) -> tuple[list[ir.Value], int]:
    """The values `value` is computed from as if no op were grouped, and
    whether its op counts as a head (1) or not (0)."""
    if isinstance(value.owner, ir.Block):
        region_owner = value.owner.owner.operation
        if region_owner.name == tm.FusedOp.OPERATION_NAME:
            return [region_owner.operands[ir.BlockArgument(value).arg_number]], 0
        return [], 0
    op = value.owner.operation
    if op.name == tm.FusedOp.OPERATION_NAME:
        return [_terminator(op).operands[0]], 0
    return list(op.operands), int(op.name in heads)


def outside_producers(op: ir.Operation, start: ir.Operation | None = None) -> list[ir.Operation]:
    """The ops outside `op` that produce its operands, nearest first: for a
    group, breadth-first from `start` (default: its terminator) back through
    its body. The order depends only on the graph, never on op positions."""
    if op.name != tm.FusedOp.OPERATION_NAME:
        return distinct(producer(value) for value in op.operands)
    found, frontier, seen = [], [start or _terminator(op)], set()
    while frontier:
        member = frontier.pop(0)
        for value in member.operands:
            if isinstance(value.owner, ir.Block):
                found.append(producer(op.operands[ir.BlockArgument(value).arg_number]))
            elif value.owner.operation not in seen:
                seen.add(value.owner.operation)
                frontier.append(value.owner.operation)
    return distinct(found)


def new_group(rewriter: PatternRewriter, op: ir.Operation, kind: str) -> None:
    """`op` becomes a one-op group of `kind`."""
    rewriter.replace_op(op, _build([(op, None)], set(), op, kind))


def absorb_producer(rewriter: PatternRewriter, group: ir.Operation, op: ir.Operation) -> None:
    """`group` takes in `op` (an op, or a group of the same kind), which
    feeds it. `op` lands just before its first user in the body, so the body
    stays in the order the model computes it. An `op` still used outside
    (rematerialized) stays for those users. The group keeps its attributes
    (a lowering configuration, when a later stage fuses)."""
    members = _members(group)
    first_user = next(i for i, (member, arguments) in enumerate(members)
                      if any(_outside(value, arguments) in op.results for value in member.operands))
    flat = members[:first_user] + _members(op) + members[first_user:]
    merged = {group, op} if op.name == tm.FusedOp.OPERATION_NAME else {group}
    fused = _build(flat, merged, group, group.opview.kind_name)
    for name in group.attributes:
        if name not in fused.attributes:
            fused.attributes[name] = group.attributes[name]
    rewriter.replace_op(group, fused)
    if not users(op):
        rewriter.erase_op(op)


def absorb_consumer(rewriter: PatternRewriter, group: ir.Operation, op: ir.Operation) -> None:
    """`group` takes in `op`, the only user of its result; the group's result
    becomes `op`'s."""
    flat = _members(group) + [(op, None)]
    rewriter.replace_op(op, _build(flat, {group}, op, group.opview.kind_name))
    rewriter.erase_op(group)


# A member of a group being built: an op, with the outside values of its
# block arguments when it comes from the body of a group being merged.
Member = tuple[ir.Operation, list[ir.Value] | None]


def _members(op: ir.Operation) -> list[Member]:
    """The ops `op` brings into a group. A group's constants are left out:
    the new body copies them again just before their first use."""
    if op.name != tm.FusedOp.OPERATION_NAME:
        return [(op, None)]
    arguments = list(op.operands)
    return [(member, arguments) for member in op.opview.body_ops if not _is_constant(member)]


def _outside(value: ir.Value, arguments: list[ir.Value] | None) -> ir.Value:
    """The value outside every group that a member reads as `value`."""
    if arguments is not None and isinstance(value.owner, ir.Block):
        return arguments[ir.BlockArgument(value).arg_number]
    return value


def _terminator(group: ir.Operation) -> ir.Operation:
    return list(group.regions[0].blocks[0].operations)[-1].operation


def _build(members: list[Member], merged: set[ir.Operation], root: ir.Operation,
           kind: str) -> ir.Operation:
    """A `tinyml.fused` op of `kind` (the name of a `tm.FusionKind`: a
    module's `KIND`), placed before `root` (the op it will
    replace), whose body computes `members` in order and yields `root`'s
    result; `merged`
    are the groups whose bodies are among the members. Constants are copied
    in before their first use; every other value from outside becomes an
    input."""

    def source(value: ir.Value, arguments) -> ir.Value:
        value = _outside(value, arguments)
        definer = producer(value)
        return _terminator(definer).operands[0] if definer in merged else value

    produced, inputs = set(), []
    for member, arguments in members:
        for value in member.operands:
            value = source(value, arguments)
            if value not in produced and value not in inputs and not _is_constant(producer(value)):
                inputs.append(value)
        produced.update(member.results)

    fused = tm.FusedOp([root.results[0].type], tm.FusionKind[kind], inputs, loc=root.location,
                       ip=ir.InsertionPoint(root))
    body = fused.body.blocks.append(*[v.type for v in inputs],
                                    arg_locs=[root.location] * len(inputs))
    mapping = dict(zip(inputs, body.arguments))
    with ir.InsertionPoint(body):
        for member, arguments in members:
            sources = [source(value, arguments) for value in member.operands]
            for value in sources:
                if value not in mapping and _is_constant(definer := producer(value)):
                    mapping[value] = definer.clone().results[0]
            copy = member.clone()
            for i, value in enumerate(sources):
                copy.operands[i] = mapping[value]
            mapping.update(zip(member.results, copy.results))
        tm.YieldOp([mapping[source(root.results[0], None)]], loc=root.location)
    return fused.operation


def _is_constant(op: ir.Operation | None) -> TypeGuard[ir.Operation]:
    return op is not None and op.name == "arith.constant"
