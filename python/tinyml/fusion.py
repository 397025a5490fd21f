"""What the fusion passes share: which ops fuse, and how a chosen group of
ops becomes one `tinyml.fused` region.

A group has one result, produced by its last op (the root), so it can never
feed a value back into itself through an outside op: every other member's
result is used only inside the group, or the member is rematerialized (a
copy goes into the group while the original stays for its other users).
"""
from __future__ import annotations

from mlir import ir

ELEMENTWISE = frozenset({
    "tinyml.add", "tinyml.sub", "tinyml.mul", "tinyml.div", "tinyml.maximum",
    "tinyml.minimum", "tinyml.neg", "tinyml.exp", "tinyml.relu", "tinyml.sigmoid",
    "tinyml.tanh", "tinyml.clamp", "tinyml.batch_norm",
})

# Producers worth recomputing in every consumer rather than storing: one or
# two instructions per element on a Cortex-M, no transcendental functions.
CHEAP = frozenset({
    "tinyml.add", "tinyml.sub", "tinyml.mul", "tinyml.maximum", "tinyml.minimum",
    "tinyml.neg", "tinyml.relu", "tinyml.clamp",
})

CONTRACTIONS = frozenset({"tinyml.conv2d", "tinyml.depthwise_conv2d", "tinyml.matmul"})

REDUCTIONS = frozenset({
    "tinyml.reduce_sum", "tinyml.reduce_mean", "tinyml.reduce_max",
    "tinyml.global_avg_pool", "tinyml.softmax",
})


def shape(value: ir.Value) -> tuple[int, ...]:
    return tuple(ir.RankedTensorType(value.type).shape)


def producer(value: ir.Value) -> ir.Operation | None:
    """The op defining `value`, or None for a block argument."""
    owner = value.owner
    return None if isinstance(owner, ir.Block) else owner.operation


def users(op: ir.Operation) -> list[ir.Operation]:
    return [use.owner.operation for result in op.results for use in result.uses]


def top_level_ops(func: ir.Operation) -> list[ir.Operation]:
    return [op.operation for op in func.regions[0].blocks[0].operations]


def is_elementwise(op: ir.Operation | None) -> bool:
    return op is not None and op.name in ELEMENTWISE


def only_user(op: ir.Operation) -> ir.Operation | None:
    """The single op using `op`'s single result, if there is exactly one use."""
    if len(op.results) != 1:
        return None
    uses = list(op.results[0].uses)
    return uses[0].owner.operation if len(uses) == 1 else None


def outline(members: list[ir.Operation], kind: str) -> ir.Operation:
    """Replaces `members` (in program order; the last is the root) by one
    `tinyml.fused` op of `kind` placed at the root. Constants are copied into
    the body; every other outside value becomes an input. Members whose
    results are still used outside (rematerialized ones) are kept."""
    root = members[-1]
    member_set = set(members)
    inputs: list[ir.Value] = []
    for op in members:
        for value in op.operands:
            definer = producer(value)
            if definer in member_set or _is_constant(definer) or value in inputs:
                continue
            inputs.append(value)

    fused = ir.Operation.create(
        "tinyml.fused", results=[root.results[0].type], operands=inputs,
        attributes={"kind": ir.StringAttr.get(kind)}, regions=1, loc=root.location,
        ip=ir.InsertionPoint(root))
    body = fused.regions[0].blocks.append(*[v.type for v in inputs],
                                          arg_locs=[root.location] * len(inputs))
    mapping = dict(zip(inputs, body.arguments))
    with ir.InsertionPoint(body):
        for op in members:
            for value in op.operands:
                definer = producer(value)
                if _is_constant(definer) and value not in mapping:
                    mapping[value] = definer.clone().results[0]
            copy = op.clone()
            for i, value in enumerate(op.operands):
                copy.operands[i] = mapping[value]
            mapping[op.results[0]] = copy.results[0]
        ir.Operation.create("tinyml.yield", operands=[mapping[root.results[0]]], loc=root.location)

    root.results[0].replace_all_uses_with(fused.results[0])
    for op in reversed(members):
        if not users(op):
            op.erase()
    return fused


def _is_constant(op: ir.Operation | None) -> bool:
    return op is not None and op.name == "arith.constant"


def group_root(fused: ir.Operation) -> ir.Operation | None:
    """The contraction or reduction a fused group is built around."""
    return next((op.operation for op in fused.regions[0].blocks[0].operations
                 if op.operation.name in CONTRACTIONS | REDUCTIONS), None)
