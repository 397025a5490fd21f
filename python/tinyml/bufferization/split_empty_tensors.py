"""tinyml-split-empty-tensors: before bufferization, each group of
consecutive uses of one `tensor.empty` gets its own."""
from __future__ import annotations

import functools

from mlir import ir

from ..ir.walk import functions
from ..pipeline.registry import Option, Pass, register


@register
class SplitEmptyTensors(Pass):
    """CSE merges equal `tensor.empty` ops into one that every producer of
    that shape writes into. One-shot bufferization analyses all those
    producers as one alias set, at a cost that grows faster than the square
    of their number (a chain of 300 convolutions spent a minute there). The
    sharing also lets bufferization reuse a buffer in place (a reduction
    computed straight into the result it is then divided in), so it is kept
    within groups of `group-size` consecutive uses: a graph with fewer
    producers of one shape bufferizes exactly as before, a larger one in
    time linear in their number. Only the `tensor.empty` ops at the top
    level of a function are split (the lowerings put them there)."""

    name = "tinyml-split-empty-tensors"
    summary = "Give each group of consecutive uses of a tensor.empty its own (before bufferization)"
    options = (
        Option("group-size", int, 16, "uses of one tensor.empty kept together", low=1),
    )
    # The options' values, set by `Pass.__init__`.
    group_size: int

    def apply(self, module):
        for func in functions(module):
            for block in func.regions[0].blocks:
                for op in list(block.operations):
                    if op.operation.name == "tensor.empty":
                        self.split(op.operation)

    def split(self, empty: ir.Operation) -> None:
        block = empty.block
        uses = [(_ancestor_in(use.owner.operation, block), use.owner.operation,
                 use.operand_number) for use in empty.result.uses]
        if len(uses) <= self.group_size:
            return
        uses.sort(key=functools.cmp_to_key(_block_order))  # execution order
        for start in range(self.group_size, len(uses), self.group_size):
            group = uses[start:start + self.group_size]
            with ir.InsertionPoint(group[0][0]):
                clone = empty.clone().result
            for _, owner, index in group:
                owner.operands[index] = clone


def _block_order(a: tuple, b: tuple) -> int:
    """Uses by the position of their top-level op (ties: any order)."""
    if a[0] == b[0]:
        return 0
    return -1 if a[0].is_before_in_block(b[0]) else 1


def _ancestor_in(op: ir.Operation, block: ir.Block) -> ir.Operation:
    """`op` or the op enclosing it that lies in `block`."""
    while op.block != block:
        op = op.parent.operation
    return op
