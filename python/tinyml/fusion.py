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


def interior_columns(conv: ir.Operation) -> tuple[int, int]:
    """(first, count) of the output columns of a conv2d/depthwise_conv2d
    whose window needs no horizontal padding: every pixel of a tile of them
    reads the same taps."""
    attrs = conv.attributes
    _, stride = list(ir.DenseI64ArrayAttr(attrs["strides"])) if "strides" in attrs else [1, 1]
    _, dilation = list(ir.DenseI64ArrayAttr(attrs["dilations"])) if "dilations" in attrs else [1, 1]
    left = list(ir.DenseI64ArrayAttr(attrs["padding"]))[1] if "padding" in attrs else 0
    kernel, width = shape(conv.operands[1])[1], shape(conv.operands[0])[2]
    out_width = shape(conv.results[0])[2]
    first = -(-left // stride)
    last = min((width - 1 + left - (kernel - 1) * dilation) // stride, out_width - 1)
    return first, max(0, last - first + 1)


def upstream_tiled(root: ir.Operation) -> bool:
    """Whether a contraction is tiled and vectorized by upstream MLIR (its
    group's transform script) rather than by the hand-built generator: a
    matmul, a conv, or a depthwise conv without padding or channel
    multiplier. A padded depthwise conv waits for a border split: staging
    each tile's padded window, as a padded conv does, costs a depthwise conv
    (which reuses no input across channels) 50% more instructions on VWW."""
    if root.name in ("tinyml.matmul", "tinyml.conv2d"):
        return True
    padding = list(ir.DenseI64ArrayAttr(root.attributes["padding"])) \
        if "padding" in root.attributes else [0] * 4
    return not any(padding) and shape(root.operands[1])[3] == 1


def group_root(fused: ir.Operation) -> ir.Operation | None:
    """The contraction or reduction a fused group is built around."""
    return next((op.operation for op in fused.regions[0].blocks[0].operations
                 if op.operation.name in CONTRACTIONS | REDUCTIONS), None)
