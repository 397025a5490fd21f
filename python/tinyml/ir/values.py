"""Reading values and ops in tinyml IR, the same way in every phase."""
from __future__ import annotations

from typing import Iterable

from mlir import ir


def shape_of(value: ir.Value) -> list[int]:
    return list(ir.RankedTensorType(value.type).shape)


def element_of(value: ir.Value) -> ir.Type:
    return ir.RankedTensorType(value.type).element_type


def producer(value: ir.Value) -> ir.Operation | None:
    """The op defining `value`, or None for a block argument."""
    owner = value.owner
    return None if isinstance(owner, ir.Block) else owner.operation


def users(op: ir.Operation) -> list[ir.Operation]:
    """The ops using `op`'s results, each once, in use order."""
    return distinct(use.owner.operation for result in op.results for use in result.uses)


def distinct(ops: Iterable[ir.Operation | None]) -> list[ir.Operation]:
    """`ops` without repeats and without None, in order."""
    found = []
    for op in ops:
        if op is not None and op not in found:
            found.append(op)
    return found
