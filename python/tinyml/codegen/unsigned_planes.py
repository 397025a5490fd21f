"""tinyml-unsigned-planes: a depthwise tile's staged, padded input plane
stored +128 (each byte XORed by 0x80) and read unsigned, the tile
started from its bias lowered by 128 sum(w) (ARMv6-M).

On the M0 a depthwise conv of one channel stages the channel's plane with
its padding (tinyml-decompose-pads: a copy, then fills of the padding
strips) and multiplies each value, sign-extended, by a weight. Thumb-1's
`LDRSB` takes a register offset only; stored as `u = x + 128` (0..255),
each value is one `LDRB` at an immediate offset. Since `u w = x w + 128 w`,
each output is `128 sum(w)` (over its channel's taps) too high: its bias
is lowered by that much at compile time. The result is bit-exact (M0: KWS
13.25 -> 13.10 M, VWW 39.67 -> 39.49 M, code smaller).

A plane qualifies when it is built as a copy into an empty tensor and
fills of slices of it, every read of it is a scalar `tensor.extract`
sign-extended to int32 and multiplied by the sign-extended element of an
int8 weight constant, the multiply-accumulates are inside one loop whose
accumulators start from a bias constant read at the channel the weights
are read at, and the loop walks each weight of the channel once per
accumulator.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from mlir import ir
from mlir.dialects import arith, tensor

from ..conversion.linalg_builders import build_generic, identity_map
from ..ir.values import constant_int, producer
from ..ir.walk import ops_named
from ..pipeline.registry import Pass, register
from .unsigned_weights import WEIGHT_OFFSET, i8, i32, trips


@dataclass
class Plane:
    """A staged plane: the insert of its copy, its fills, its reads'
    extensions, the loop of its multiply-accumulates, that loop's bias read
    and the bias lowered by 128 sum(w) per channel."""
    copy: ir.Operation
    fills: list[ir.Operation]
    extensions: list[ir.Operation]
    loop: ir.Operation
    bias_read: ir.Operation
    lowered_bias: np.ndarray


def built_plane(copy: ir.Operation) -> tuple[list[ir.Operation], ir.Value] | None:
    """The fills after the copy insert `copy` and the plane they leave,
    if every intermediate value is only sliced for a fill and filled."""
    fills: list[ir.Operation] = []
    value = copy.results[0]
    while True:
        uses = [use.owner.operation for use in value.uses]
        slices = [u for u in uses if u.name == "tensor.extract_slice"]
        inserts = [u for u in uses if u.name == "tensor.insert_slice" and u.operands[1] == value]
        if not slices and not inserts:
            return fills, value
        if len(slices) != 1 or len(inserts) != 1 or len(uses) != 2:
            return (fills, value) if all(u.name == "tensor.extract" for u in uses) else None
        fill = producer(inserts[0].operands[0])
        if fill is None or fill.name != "linalg.fill" or fill.operands[1] != slices[0].results[0]:
            return None
        fills.append(fill)
        value = inserts[0].results[0]


def weight_read(multiply: ir.Operation, extension: ir.Operation) -> ir.Operation | None:
    """The `tensor.extract` of an int8 constant that `multiply` multiplies
    the plane value `extension` by, sign-extended."""
    other = multiply.operands[1] if multiply.operands[0] == extension.results[0] \
        else multiply.operands[0]
    widen = producer(other)
    if widen is None or widen.name != "arith.extsi" or widen.operands[0].type != i8():
        return None
    read = producer(widen.operands[0])
    if read is None or read.name != "tensor.extract":
        return None
    constant = producer(read.operands[0])
    return read if constant is not None and constant.name == "arith.constant" else None


def bias_of(loop: ir.Operation) -> ir.Operation | None:
    """The `vector.transfer_read` of a 1-D int32 constant the loop's one
    accumulator vector starts from (broadcast)."""
    if len(loop.results) != 1:
        return None
    start = producer(loop.operands[3])
    if start is None or start.name != "vector.broadcast":
        return None
    read = producer(start.operands[0])
    if read is None or read.name != "vector.transfer_read" or len(read.operands) != 3:
        return None
    source = producer(read.operands[0])
    if source is None or source.name != "arith.constant" \
            or ir.RankedTensorType(read.operands[0].type).rank != 1:
        return None
    return read


def plane_of(copy: ir.Operation) -> Plane | None:
    """The plane whose copy insert is `copy`, if it qualifies."""
    built = built_plane(copy)
    if built is None:
        return None
    fills, plane = built
    extensions, multiplies, weights_reads = [], [], []
    for use in plane.uses:
        read = use.owner.operation
        if read.name != "tensor.extract":
            return None
        for widen_use in read.results[0].uses:
            widen = widen_use.owner.operation
            if widen.name != "arith.extsi" or widen.results[0].type != i32():
                return None
            extensions.append(widen)
            for multiply_use in widen.results[0].uses:
                multiply = multiply_use.owner.operation
                found = weight_read(multiply, widen) if multiply.name == "arith.muli" else None
                if found is None:
                    return None
                multiplies.append(multiply)
                weights_reads.append(found)
    if not multiplies:
        return None
    loop = multiplies[0].parent
    if loop is None or loop.name != "scf.for" \
            or any(m.parent != loop for m in multiplies):
        return None
    loop = loop.operation
    bias_read = bias_of(loop)
    constants = {producer(r.operands[0]) for r in weights_reads}
    if bias_read is None or len(constants) != 1:
        return None
    weights = producer(weights_reads[0].operands[0])
    assert weights is not None, "weight_read() found a constant"
    channel = bias_read.operands[1]
    dims = [d for d in range(len(weights_reads[0].operands) - 1)
            if all(r.operands[1 + d] == channel for r in weights_reads)]
    shape = ir.RankedTensorType(weights.results[0].type).shape
    bias_shape = ir.RankedTensorType(bias_read.operands[0].type).shape
    if len(dims) != 1 or shape[dims[0]] != bias_shape[0]:
        return None
    # Each accumulator takes each of its channel's weights once: the loop's
    # steps times the weights a step reads, every one by every lane.
    lanes = int(np.prod(ir.VectorType(loop.results[0].type).shape))
    taps: list[list[ir.Value]] = []
    for read in weights_reads:
        if not any(all(a == b for a, b in zip(tap, read.operands[1:])) for tap in taps):
            taps.append(list(read.operands[1:]))
    if len(multiplies) != lanes * len(taps) \
            or trips(loop) * len(taps) * shape[dims[0]] != int(np.prod(shape)) \
            or any(constant_int(fill.operands[0]) is None for fill in fills):
        return None
    values = np.array(ir.DenseIntElementsAttr(weights.attributes["value"])).astype(np.int64)
    sums = values.sum(axis=tuple(d for d in range(values.ndim) if d != dims[0]))
    bias = producer(bias_read.operands[0])
    assert bias is not None, "bias_of() found a constant"
    lowered = np.array(ir.DenseIntElementsAttr(bias.attributes["value"])).astype(np.int64) \
        - WEIGHT_OFFSET * sums
    if not np.all((lowered >= -2 ** 31) & (lowered < 2 ** 31)):
        return None
    return Plane(copy, fills, extensions, loop, bias_read, lowered)


def store_unsigned(plane: Plane) -> None:
    """Rewrite `plane` as described in the module docstring."""
    # The copy: its source XORed by 0x80 (through the copy a bufferization
    # copy makes of it, which the XOR's new tensor replaces).
    source = plane.copy.operands[0]
    origin = producer(source)
    if origin is not None and origin.name == "bufferization.alloc_tensor" \
            and len(origin.operands) == 1:
        source = origin.operands[0]
    source_type = ir.RankedTensorType(source.type)
    rank = source_type.rank
    with ir.InsertionPoint(plane.copy), plane.copy.location:
        flip = arith.constant(i8(), -WEIGHT_OFFSET)
        # tensor.empty takes a size for each dynamic dimension (a band of rows).
        sizes = [tensor.dim(source, arith.constant(ir.IndexType.get(), d)) if n < 0 else n
                 for d, n in enumerate(source_type.shape)]
        (flipped,) = build_generic(
            [(source, identity_map(rank))], [(tensor.empty(sizes, i8()), identity_map(rank))],
            ["parallel"] * rank, lambda b, args: arith.xori(args[0], flip))
    plane.copy.operands[0] = flipped
    if origin is not None and origin.name == "bufferization.alloc_tensor" \
            and not list(origin.results[0].uses):
        origin.erase()
    for fill in plane.fills:
        value = constant_int(fill.operands[0])
        assert value is not None, "plane_of() checked the fills"
        with ir.InsertionPoint(fill), fill.location:
            fill.operands[0] = arith.constant(i8(), value ^ -WEIGHT_OFFSET)
    for extension in plane.extensions:
        with ir.InsertionPoint(extension), extension.location:
            unsigned = arith.extui(i32(), extension.operands[0])
        extension.results[0].replace_all_uses_with(unsigned)
        extension.erase()
    bias = plane.bias_read.operands[0]
    bias_type = ir.RankedTensorType(bias.type)
    with ir.InsertionPoint(bias.owner), bias.owner.location:
        plane.bias_read.operands[0] = arith.ConstantOp(bias_type, ir.DenseElementsAttr.get(
            plane.lowered_bias.astype(np.int32), type=bias_type)).result


@register
class UnsignedPlanes(Pass):
    name = "tinyml-unsigned-planes"
    summary = ("Store a depthwise tile's staged input plane +128 and read it unsigned, from its "
               "bias lowered by 128 sum(w) (ARMv6-M)")

    def apply(self, module):
        planes = [plane for insert in ops_named(module, "tensor.insert_slice")
                  if (origin := producer(insert.operands[1])) is not None
                  and origin.name == "tensor.empty"
                  and (plane := plane_of(insert)) is not None]
        for plane in planes:
            store_unsigned(plane)
