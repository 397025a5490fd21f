"""tinyml-decompose-pads: each `tensor.pad` with a constant padding value
becomes its source inserted into an uninitialised tensor plus a
`linalg.fill` of each strip of padding around it.

Upstream's decomposition (`linalg.decompose_pad`, and the pad's own
bufferization) fills the whole result before copying the source over it.
A padded window staged per tile is mostly source: filling all of it too
costs as many stores as the copy, on every tile; the strips are a
column or two and the rows a tile's window overhangs.

A pad whose only user transposes it (the window of an NCHW input a conv
reads as NHWC, tinyml-fuse-input-transpose) becomes its source
transposed straight into the window and the strips filled there: one
staged window, as for an NHWC input, where pad then transpose would
stage two. So does a pad whose only user extends it to int16
(tinyml-widen-conv-inputs): its source is extended straight into an
int16 window; an extension that packs byte pairs (`tinyml.byte_pairs`)
packs it straight into the window, its strips filled with the padding
value's byte-pair words, unless the pad adds channels (a group of four
then spans source and padding: the padded int8 copy is packed).
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, tensor

from ..ir.lazy_modules import linalg
from ..ir.walk import ops_named
from ..ir.lowering_config import BYTE_PAIRS, WIDENED
from ..pipeline.registry import Pass, register
from . import smlad_byte_pairs as byte_pairs
from .widen_conv_inputs import extended

DYNAMIC = ir.ShapedType.get_dynamic_size()


def padding_value(pad: ir.Operation) -> ir.Value | None:
    """The value a pad yields everywhere, if it is the same for every index."""
    block = pad.regions[0].blocks[0]
    value = block.operations[len(block.operations) - 1].operands[0]
    owner = value.owner
    if isinstance(owner, ir.Block):
        # The pad's own arguments are the position: a padding depending on it.
        return None if owner == block else value
    if owner.operation.parent == pad:
        if owner.operation.name != "arith.constant":
            return None
        return owner.operation.clone(ir.InsertionPoint(pad)).results[0]
    return value


def mixed(static: list[int], dynamic) -> list[int | ir.Value]:
    """An op's static sizes with each dynamic one replaced by its operand."""
    values = iter(dynamic)
    return [next(values) if size == DYNAMIC else size for size in static]


def add(a: int | ir.Value, b: int | ir.Value) -> int | ir.Value:
    if isinstance(a, int) and isinstance(b, int):
        return a + b
    index = ir.IndexType.get()
    a, b = (arith.constant(index, v) if isinstance(v, int) else v for v in (a, b))
    return arith.addi(a, b)


def split(values: list[int | ir.Value]) -> tuple[list[ir.Value], list[int]]:
    """(dynamic operands, static attribute) of mixed slice offsets or sizes."""
    return ([v for v in values if not isinstance(v, int)],
            [v if isinstance(v, int) else DYNAMIC for v in values])


def extract(source: ir.Value, offsets, sizes) -> ir.Value:
    shape = [s if isinstance(s, int) else DYNAMIC for s in sizes]
    result = ir.RankedTensorType.get(shape, ir.RankedTensorType(source.type).element_type)
    dyn_offsets, static_offsets = split(offsets)
    dyn_sizes, static_sizes = split(sizes)
    return tensor.ExtractSliceOp(result, source, dyn_offsets, dyn_sizes, [], static_offsets,
                                 static_sizes, [1] * len(sizes)).result


def insert(source: ir.Value, dest: ir.Value, offsets, sizes) -> ir.Value:
    dyn_offsets, static_offsets = split(offsets)
    dyn_sizes, static_sizes = split(sizes)
    return tensor.InsertSliceOp(source, dest, dyn_offsets, dyn_sizes, [], static_offsets,
                                static_sizes, [1] * len(sizes)).result


def decompose(pad: ir.Operation, value: ir.Value,
              reader: ir.Operation | None = None) -> ir.Value:
    """The pad as its source inserted into an empty tensor and fills of the
    strips around it; with a `reader`, the pad's only user, what it reads
    from the padded tensor: with a transpose, the source transposed into
    the empty tensor (its transpose writes there, once empty tensors are
    eliminated) and the strips filled in the transposed layout; with an
    int16 extension, the source extended into it and the strips filled
    with the padding value extended."""
    result_type = ir.RankedTensorType(pad.results[0].type)
    source = pad.operands[0]
    rank = result_type.rank
    segments = list(ir.DenseI32ArrayAttr(pad.attributes["operandSegmentSizes"]))
    low_operands = list(pad.operands)[1:1 + segments[1]]
    high_operands = list(pad.operands)[1 + segments[1]:]
    low = mixed(list(ir.DenseI64ArrayAttr(pad.attributes["static_low"])), low_operands)
    high = mixed(list(ir.DenseI64ArrayAttr(pad.attributes["static_high"])), high_operands)
    source_shape = ir.RankedTensorType(source.type).shape
    sizes = [size if size != DYNAMIC else tensor.dim(source, arith.constant(ir.IndexType.get(), d))
             for d, size in enumerate(source_shape)]
    if reader is not None and reader.name == "linalg.transpose":
        perm = list(ir.DenseI64ArrayAttr(reader.attributes["permutation"]))
        low, high, sizes = ([values[p] for p in perm] for values in (low, high, sizes))
        result_type = ir.RankedTensorType(reader.results[0].type)
        source = linalg.transpose(source, outs=[tensor.empty(sizes, result_type.element_type)],
                                  permutation=perm).results[0]
    elif reader is not None:
        result_type = ir.RankedTensorType(reader.results[0].type)
        source = extended(source, sizes)
        if BYTE_PAIRS in reader.attributes:
            source.owner.attributes[BYTE_PAIRS] = ir.UnitAttr.get()
        value = arith.extsi(result_type.element_type, value)
    full = list(result_type.shape)
    padded = tensor.empty(full, result_type.element_type)
    padded = insert(source, padded, low, sizes)
    for d in range(rank):
        for offset, size in ((0, low[d]), (add(low[d], sizes[d]), high[d])):
            if isinstance(size, int) and size == 0:
                continue  # a dynamic amount may be 0 too: its fill is empty
            offsets = [0] * rank
            offsets[d] = offset
            strip_sizes = list(full)
            strip_sizes[d] = size
            strip = extract(padded, offsets, strip_sizes)
            filled = byte_pair_fill(value, strip) if reader is not None \
                and BYTE_PAIRS in reader.attributes else linalg.fill(value, outs=[strip])
            padded = insert(filled, padded, offsets, strip_sizes)
    return padded


@register
class DecomposePads(Pass):
    name = "tinyml-decompose-pads"
    summary = "Decompose each constant tensor.pad into a copy of its source and fills of the padding strips"

    def apply(self, module):
        for pad in ops_named(module, "tensor.pad"):
            reader = window_reader(pad)
            with ir.InsertionPoint(pad), pad.location:
                value = padding_value(pad)
            if value is None:
                continue
            replaced = reader or pad
            with ir.InsertionPoint(replaced), replaced.location:
                replaced.results[0].replace_all_uses_with(decompose(pad, value, reader))
            if reader is not None:
                reader.erase()
            pad.erase()


def byte_pair_fill(value: ir.Value, strip: ir.Value) -> ir.Value:
    """`strip` (int16, its last dimension whole groups of four) filled with
    the byte-pair words of a padding value z everywhere
    (`smlad_byte_pairs`): P = (z, z) and Q = (255 z + 127, 255 z + 127),
    by each element's place in its group of four."""
    strip_type = ir.RankedTensorType(strip.type)
    rank = strip_type.rank
    identity = ir.AffineMapAttr.get(ir.AffineMap.get_identity(rank))
    fill = linalg.GenericOp(
        [strip_type], [], [strip], ir.ArrayAttr.get([identity]),
        ir.ArrayAttr.get([ir.Attribute.parse("#linalg.iterator_type<parallel>")] * rank))
    block = fill.regions[0].blocks.append(strip_type.element_type)
    i16 = strip_type.element_type
    with ir.InsertionPoint(block):
        place = arith.remui(linalg.IndexOp(rank - 1).result,
                            arith.constant(ir.IndexType.get(), 4))
        in_p = arith.cmpi(arith.CmpIPredicate.ult, place, arith.constant(ir.IndexType.get(), 2))
        q_value = arith.addi(arith.muli(value, arith.constant(i16, 255)),
                             arith.constant(i16, byte_pairs.OFFSET))
        linalg.YieldOp([arith.select(in_p, value, q_value)])
    return fill.result


def window_reader(pad: ir.Operation) -> ir.Operation | None:
    """The pad's only user, if it is a `linalg.transpose` (a conv's window
    of an NCHW input, tinyml-fuse-input-transpose, padded then transposed)
    or the int16 extension of a conv's window (tinyml-widen-conv-inputs,
    padded then extended)."""
    users = [use.owner.operation for use in pad.results[0].uses]
    if len(users) != 1 or users[0].operands[0] != pad.results[0]:
        return None
    if BYTE_PAIRS in users[0].attributes \
            and list(ir.DenseI64ArrayAttr(pad.attributes["static_high"]))[-1] != 0:
        # A window padded with channels packs its groups of four across the
        # padding: it is packed from its padded int8 copy.
        return None
    if users[0].name == "linalg.transpose" or WIDENED in users[0].attributes:
        return users[0]
    return None
