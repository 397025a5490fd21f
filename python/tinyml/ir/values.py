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


def constant_int(value: ir.Value) -> int | None:
    """The integer an `arith.constant` (a scalar, or a splat) gives `value`;
    None if it is no such constant."""
    op = producer(value)
    if op is None or op.name != "arith.constant":
        return None
    attribute = op.attributes["value"]
    if isinstance(attribute, ir.DenseIntElementsAttr) and attribute.is_splat:
        attribute = attribute.get_splat_value()
    return ir.IntegerAttr(attribute).value if isinstance(attribute, ir.IntegerAttr) else None


def sole_user(value: ir.Value, name: str) -> ir.Operation | None:
    """The op using `value`, when that is its only use and the op is a `name`."""
    uses = list(value.uses)
    if len(uses) != 1 or uses[0].owner.operation.name != name:
        return None
    return uses[0].owner.operation


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


def element_bytes(element: ir.Type) -> int | None:
    """Bytes per element in memory (LLVM's alloc size), None if unknown."""
    if isinstance(element, (ir.IntegerType, ir.FloatType)):
        width = element.width
    elif isinstance(element, ir.ComplexType):
        inner = element_bytes(element.element_type)
        return None if inner is None else 2 * inner
    elif isinstance(element, ir.VectorType) and element.has_static_shape:
        inner = element_bytes(element.element_type)
        count = 1
        for d in element.shape:
            count *= d
        if inner is None:
            return None
        size = inner * count
        return size if size & (size - 1) == 0 else None
    else:
        return None
    size = max(1, (width + 7) // 8)
    power = 1
    while power < size:
        power *= 2
    return power

