"""tinyml-scalarize-epilogues: a tile's element-wise vector epilogue (the
requantization of its accumulators) written lane by lane as scalar ops,
each lane's per-channel operands read where that lane uses them (ARMv6-M).

A conv tile's accumulators leave its reduction loop as one vector and are
requantized by a chain of element-wise ops over it: `muli` by the
multiplier's pieces, shifts, adds, `maxsi`/`minsi`, `trunci`, with the
per-channel pieces and shift read as vectors. The M0 has no vectors, so
LLVM splits each op into its lanes op by op: every lane's pieces are loaded
ahead of the first multiply and all four lanes of every intermediate are
live together, which the M0's eight low registers cannot hold (a 1 x 4
pointwise tile of KWS spilled 16 of them). Written lane after lane, each
lane's chain needs its accumulator and a few temporaries, and llc in source
order (the M0's) keeps that order.

An op is part of an epilogue when it is an element-wise `arith` op on
vectors whose results are used only by other such ops, except its root,
the last one, which something else (a `vector.transfer_write`) uses. Its
leaves become per-lane scalars: a constant's element, a broadcast scalar,
an element `tensor.extract`ed where a vector is read from a tensor (through
the reads `scalarize_multiply_accumulates.element_read` traces), or a
`vector.extract` of any other vector. Each lane computes the same scalar
ops as its vector form, so the result is the same bit for bit.
"""
from __future__ import annotations

import itertools

from mlir import ir
from mlir.dialects import arith, vector

from ..ir.values import producer
from ..pipeline.registry import Pass, register
from .scalarize_multiply_accumulates import Index, element_read

#: The element-wise ops an epilogue is made of: each lane of the result is
#: the scalar op of the operands' lanes.
ELEMENTWISE = frozenset(f"arith.{name}" for name in (
    "addi", "subi", "muli", "shrsi", "shrui", "shli", "maxsi", "minsi", "maxui", "minui",
    "andi", "ori", "xori", "extsi", "extui", "trunci", "select", "cmpi"))


def is_elementwise_vector_op(op: ir.Operation | None) -> bool:
    return op is not None and op.name in ELEMENTWISE and len(op.results) == 1 \
        and isinstance(op.results[0].type, ir.VectorType) \
        and all(isinstance(operand.type, ir.VectorType) for operand in op.operands)


def elementwise_producer(value: ir.Value) -> ir.Operation | None:
    """The element-wise vector op defining `value`, if one does."""
    op = producer(value)
    return op if is_elementwise_vector_op(op) else None


def inner(value: ir.Value) -> bool:
    """Whether every use of `value` is an element-wise vector op."""
    return all(is_elementwise_vector_op(use.owner.operation) for use in value.uses)


def epilogue_leaves(root: ir.Operation) -> list[ir.Value]:
    """The values the epilogue ending at `root` computes from."""
    leaves: list[ir.Value] = []
    seen: list[ir.Value] = []
    stack = list(root.operands)
    while stack:
        value = stack.pop()
        if value in seen:
            continue
        seen.append(value)
        op = elementwise_producer(value)
        if op is not None and inner(value):
            stack.extend(op.operands)
        else:
            leaves.append(value)
    return leaves


def is_scalar_broadcast(value: ir.Value) -> bool:
    op = producer(value)
    return op is not None and op.name == "vector.broadcast" \
        and not isinstance(op.operands[0].type, ir.VectorType)


def reads_per_lane(root: ir.Operation) -> bool:
    """Whether the epilogue ending at `root` reads tensors and each lane
    elements of its own (a 1 x 4 tile's four channels): lane by lane, each
    is loaded where its lane uses it. Where lanes share a value (a
    depthwise row of one channel, a wide tile's pixels of one channel, the
    input value a row of vector multiply-accumulates broadcasts), it stays
    live across the lanes that use it, and op by op, which loads it once
    for all, spills less (on the M0: KWS's depthwise convs 2.85 -> 2.92 M
    lane by lane, VWW's unrolled 4 x 4 tiles of 8 input channels +10%)."""
    reads = 0
    for leaf in epilogue_leaves(root):
        if is_scalar_broadcast(leaf):
            return False
        read = element_read(leaf)
        if read is None:
            continue
        lanes = list(itertools.product(*(range(n) for n in ir.VectorType(leaf.type).shape)))
        if len({read.source_index(index) for index in lanes}) < len(lanes):
            return False
        reads += 1
    return reads > 0


def epilogue_roots(module: ir.Operation) -> list[ir.Operation]:
    """The last op of each epilogue of more than one op whose lanes read
    operands of their own, in walk order."""
    roots: list[ir.Operation] = []

    def visit(op):
        op = op.operation
        if is_elementwise_vector_op(op) and not inner(op.results[0]) \
                and any(elementwise_producer(o) is not None and inner(o) for o in op.operands) \
                and reads_per_lane(op):
            roots.append(op)
        return ir.WalkResult.ADVANCE

    module.walk(visit)
    return roots


def scalar_type(vector_type: ir.Type) -> ir.Type:
    return ir.VectorType(vector_type).element_type


class LaneBuilder:
    """The scalar ops of one epilogue, lane by lane, at the insertion point."""

    def __init__(self, root: ir.Operation) -> None:
        self.root = root
        self.lanes: dict[tuple[ir.Value, Index], ir.Value] = {}

    def lane(self, value: ir.Value, index: Index) -> ir.Value:
        key = (value, index)
        if key not in self.lanes:
            self.lanes[key] = self.build(value, index)
        return self.lanes[key]

    def build(self, value: ir.Value, index: Index) -> ir.Value:
        op = elementwise_producer(value)
        if op is not None and (op == self.root or inner(value)):
            operands = [self.lane(operand, index) for operand in op.operands]
            attributes = {name: op.attributes[name] for name in op.attributes}
            return ir.Operation.create(op.name, results=[scalar_type(value.type)],
                                       operands=operands, attributes=attributes).result
        return self.leaf(value, index)

    @staticmethod
    def leaf(value: ir.Value, index: Index) -> ir.Value:
        op = producer(value)
        element = scalar_type(value.type)
        if op is not None and op.name == "arith.constant":
            attribute = op.attributes["value"]
            if isinstance(attribute, ir.DenseElementsAttr) and attribute.is_splat:
                return arith.ConstantOp(element, attribute.get_splat_value()).result
        if op is not None and is_scalar_broadcast(value):
            return op.operands[0]
        read = element_read(value)
        if read is not None:
            return read.element(read.source_index(index))
        return vector.extract(value, [], list(index))


def scalarize(root: ir.Operation) -> None:
    """Replace the epilogue ending at `root` by its scalar ops, one lane
    after the other, and the lanes gathered into a vector for `root`'s uses."""
    result_type = ir.VectorType(root.results[0].type)
    with ir.InsertionPoint(root), root.location:
        builder = LaneBuilder(root)
        lanes = [builder.lane(root.results[0], index)
                 for index in itertools.product(*(range(n) for n in result_type.shape))]
        result = vector.from_elements(result_type, lanes)
    root.results[0].replace_all_uses_with(result)


@register
class ScalarizeEpilogues(Pass):
    name = "tinyml-scalarize-epilogues"
    summary = ("Write each tile's element-wise vector epilogue (its requantization) lane by "
               "lane as scalar ops (ARMv6-M)")

    def apply(self, module):
        for root in epilogue_roots(module):
            scalarize(root)
