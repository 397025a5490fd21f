"""tinyml-interleave-channel-tables: constant per-channel tables that are
always read at the same index become the columns of one table, each
channel's values side by side (ARMv6-M).

Without a 64-bit multiply, a requantization reads three or four halfword
pieces of its channel's multiplier and a shift, each from a table of its
own (tinyml-lower-to-linalg's `wide-multiply=false`). The M0's eight low
registers hold no five table pointers: a tile's requantization reloaded
each pointer from the stack before each load. Interleaved, a channel's
values are halfwords at immediate offsets from one base, and the kernel
takes one argument for them (M0: KWS 13.77 -> 13.40 M, VWW 40.34 -> 39.67
M, ResNet-8 57.23 -> 56.75 M, code 3-4% smaller; the FC autoencoder's
1.082 -> 1.086 M; an int8 table's values take two bytes).

Tables qualify when they are 1-D int8 or int16 constants of one length,
every use of each is a scalar `memref.load`, and they are loaded at the
same indices (the same SSA values, or the same pure arithmetic of
them). The table becomes `[channels][k]`
halfwords; an int8 table's loads, all sign- or all zero-extended by their
users, read its values extended the same way to 16 bits, so every
extension gives the same int32.
"""
from __future__ import annotations

import numpy as np
from mlir import ir
from mlir.dialects import arith, memref

from ..ir.values import producer
from ..ir.walk import constant_globals
from ..pipeline.registry import Pass, register

#: The extensions an int8 table's loads may go through.
EXTENSIONS = ("arith.extsi", "arith.extui")


def i16() -> ir.IntegerType:
    return ir.IntegerType.get_signless(16)


class Table:
    """A constant 1-D global, its values, and its scalar loads."""

    def __init__(self, op: ir.Operation, loads: list[ir.Operation]):
        self.op = op
        self.name = ir.StringAttr(op.attributes["sym_name"]).value
        self.values = np.array(ir.DenseIntElementsAttr(op.attributes["initial_value"]))
        self.width = ir.IntegerType(self.memref_type.element_type).width
        self.loads = loads

    @property
    def memref_type(self) -> ir.MemRefType:
        return ir.MemRefType(ir.TypeAttr(self.op.attributes["type"]).value)

    def indices(self) -> list[ir.Value]:
        return [load.operands[1] for load in self.loads]

    def extension(self) -> str | None:
        """How the table's values are widened: a 16-bit table's as loaded
        (None), an int8 table's by the one extension all its loads' users
        apply ("" when they differ: the table does not qualify)."""
        if self.width == 16:
            return None
        names = {use.owner.operation.name for load in self.loads for use in load.results[0].uses}
        return names.pop() if len(names) == 1 and names <= set(EXTENSIONS) else ""

    def column(self) -> np.ndarray:
        """The table's values as int16 bit patterns, extended as read."""
        if self.extension() == "arith.extui":
            return (self.values.astype(np.int64) & 0xFF).astype(np.int16)
        return self.values.astype(np.int16)


def tables(module: ir.Operation) -> list[Table]:
    """The module's constant 1-D int8/int16 globals every use of which is a
    scalar load."""
    found = []
    for op, readers in constant_globals(module):
        memref_type = ir.MemRefType(ir.TypeAttr(op.attributes["type"]).value)
        element = memref_type.element_type
        if memref_type.rank != 1 or not isinstance(element, ir.IntegerType) \
                or ir.IntegerType(element).width not in (8, 16):
            continue
        uses = [use.owner.operation for get in readers for use in get.results[0].uses]
        if readers and all(use.name == "memref.load" for use in uses):
            table = Table(op, uses)
            if table.extension() != "":
                found.append(table)
    return found


def same_value(a: ir.Value, b: ir.Value) -> bool:
    """Whether `a` and `b` are one value, or the results of two pure ops of
    one kind with attributes and operands the same (each lane of a
    requantization computes its channel's index anew)."""
    if a == b:
        return True
    left, right = producer(a), producer(b)
    if left is None or right is None or left.name != right.name \
            or not left.name.startswith("arith.") or len(left.results) != 1 \
            or len(left.operands) != len(right.operands) \
            or {n: str(left.attributes[n]) for n in left.attributes} \
            != {n: str(right.attributes[n]) for n in right.attributes}:
        return False
    return all(same_value(x, y) for x, y in zip(left.operands, right.operands))


def same_indices(a: Table, b: Table) -> bool:
    """Whether `a` and `b` are loaded at the same indices, and are as long."""
    if a.memref_type.shape != b.memref_type.shape:
        return False
    left, right = a.indices(), b.indices()
    return all(any(same_value(i, j) for j in right) for i in left) \
        and all(any(same_value(j, i) for i in left) for j in right)


def interleave(group: list[Table], module: ir.Operation) -> None:
    """Replace the tables of `group` by one `[channels][len(group)]` table
    of halfwords, each load by a load of its column."""
    first = group[0].op
    name = f"{group[0].name}_interleaved"
    values = np.stack([table.column() for table in group], axis=1)
    memref_type = ir.MemRefType.get(list(values.shape), i16())
    tensor_type = ir.RankedTensorType.get(list(values.shape), i16())
    with ir.InsertionPoint(first), first.location:
        memref.GlobalOp(name, ir.TypeAttr.get(memref_type), sym_visibility="private",
                        initial_value=ir.DenseElementsAttr.get(values, type=tensor_type),
                        constant=True, alignment=ir.IntegerAttr.get(
                            ir.IntegerType.get_signless(64), 2))
    # One read of the new global per block that read the old ones, before
    # the first of them (outside the loop nests, which take it as one
    # argument once outlined).
    gets: list[ir.Operation] = []
    for table in group:
        for load in table.loads:
            get = load.operands[0].owner.operation
            if not any(other == get for other in gets):
                gets.append(get)
    merged: list[tuple[ir.Value, ir.Value]] = []
    for block in distinct_blocks(gets):
        first = next(op.operation for op in block.operations if op.operation in gets)
        with ir.InsertionPoint(first), first.location:
            value = memref.get_global(memref_type, name)
        merged += [(get.results[0], value) for get in gets if get.block == block]
    for column, table in enumerate(group):
        for load in table.loads:
            source = next(new for old, new in merged if old == load.operands[0])
            with ir.InsertionPoint(load), load.location:
                at = arith.constant(ir.IndexType.get(), column)
                value = memref.load(source, [load.operands[1], at])
            if table.width == 16:
                load.results[0].replace_all_uses_with(value)
            else:
                for use in list(load.results[0].uses):
                    extension = use.owner.operation
                    with ir.InsertionPoint(extension), extension.location:
                        wide = ir.Operation.create(extension.name,
                                                   results=[extension.results[0].type],
                                                   operands=[value]).results[0]
                    extension.results[0].replace_all_uses_with(wide)
                    extension.erase()
            load.erase()
    for old, _ in merged:
        old.owner.erase()
    for table in group:
        table.op.erase()


def distinct_blocks(ops: list[ir.Operation]) -> list[ir.Block]:
    blocks: list[ir.Block] = []
    for op in ops:
        if not any(block == op.block for block in blocks):
            blocks.append(op.block)
    return blocks


@register
class InterleaveChannelTables(Pass):
    name = "tinyml-interleave-channel-tables"
    summary = ("Make constant per-channel tables always read at the same index the columns of "
               "one table of halfwords (ARMv6-M's requantization pieces)")

    def apply(self, module):
        remaining = tables(module)
        while remaining:
            table = remaining.pop(0)
            group = [table] + [other for other in remaining if same_indices(table, other)]
            remaining = [other for other in remaining if other not in group]
            if len(group) > 1:
                interleave(group, module)
