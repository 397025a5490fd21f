"""tinyml-forward-copies: a copy into a temporary buffer that is copied on
at once becomes one copy from the source to the destination.

One-shot bufferization cannot tell that two slices of one buffer are
disjoint: where a loop moves rows within a buffer (tinyml-fuse-line-buffer's
rolling buffer, row i + 1 to row i), it copies each row out to a temporary
and back in:

    memref.copy %row_below, %temporary
    memref.copy %temporary, %row

When the temporary (a `memref.alloc`) has no other use, the second copy
follows the first with nothing in between that touches memory (views and
constants only), and the source and destination are views of one buffer
whose static layouts cover disjoint elements (or views of two different
allocations), the pair becomes `memref.copy %row_below, %row` and the
temporary goes: one copy instead of two, and one buffer less in the arena.
"""
from __future__ import annotations

from typing import Iterable

from mlir import ir
from mlir.dialects import memref

from ..ir.walk import functions
from ..pipeline.registry import Pass, register

#: Ops that may sit between the two copies: they only compute views and
#: indices.
_VIEWS = ("memref.subview", "memref.expand_shape", "memref.collapse_shape")
_PURE = _VIEWS + ("arith.constant",)


def _base(value: ir.Value) -> ir.Value:
    """The buffer `value` is a view of."""
    while not isinstance(value.owner, ir.Block) and value.owner.operation.name in _VIEWS:
        value = value.owner.operation.operands[0]
    return value


def _extent(value: ir.Value) -> tuple[int, int] | None:
    """The first and last element of its buffer a statically laid out
    memref covers, or None."""
    t = ir.MemRefType(value.type)
    strides, offset = t.get_strides_and_offset()
    if not t.has_static_shape or any(t.is_dynamic_stride_or_offset(v)
                                     for v in (*strides, offset)):
        return None
    return offset, offset + sum((size - 1) * stride for size, stride in zip(t.shape, strides))


def _is_alloc(value: ir.Value) -> bool:
    return not isinstance(value.owner, ir.Block) and value.owner.operation.name == "memref.alloc"


def _disjoint(a: ir.Value, b: ir.Value) -> bool:
    """Whether the memrefs `a` and `b` share no element."""
    base_a, base_b = _base(a), _base(b)
    if base_a != base_b:
        return _is_alloc(base_a) and _is_alloc(base_b)
    extent_a, extent_b = _extent(a), _extent(b)
    if extent_a is None or extent_b is None:
        return False
    return extent_a[1] < extent_b[0] or extent_b[1] < extent_a[0]


def _forwarded(copy_in: ir.Operation,
               following: Iterable[tuple[int, ir.Operation]]) -> int | None:
    """Of `following` (the ops after `copy_in` in its block, by position),
    the position of the copy out of `copy_in`'s temporary, if the pair can
    be one copy."""
    source, temporary = copy_in.operands
    if not _is_alloc(temporary) or len(list(temporary.uses)) != 2:
        return None
    for position, op in following:
        if op.name == "memref.copy" and op.operands[0] == temporary:
            return position if _disjoint(source, op.operands[1]) else None
        if op.name not in _PURE:
            return None
    return None


@register
class ForwardCopies(Pass):
    name = "tinyml-forward-copies"
    summary = "Copy straight from source to destination where a copy only goes through a temporary"

    def apply(self, module):
        blocks = []

        def visit(op):
            for region in op.regions:
                blocks.extend(region.blocks)
            return ir.WalkResult.ADVANCE

        for func in functions(module):
            func.walk(visit, ir.WalkOrder.PRE_ORDER)
        for block in blocks:
            ops = [op.operation for op in block.operations]
            erased = set()
            for i, copy_in in enumerate(ops):
                if i in erased or copy_in.name != "memref.copy":
                    continue
                position = _forwarded(copy_in, ((j, ops[j]) for j in range(i + 1, len(ops))
                                                if j not in erased))
                if position is None:
                    continue
                copy_out, temporary = ops[position], copy_in.operands[1]
                with ir.InsertionPoint(copy_out), copy_out.location:
                    memref.CopyOp(copy_in.operands[0], copy_out.operands[1])
                erased.add(position)
                copy_out.erase()
                copy_in.erase()
                temporary.owner.operation.erase()
