"""Byte-pair SMLAD: an int8 matrix-vector product on a core with the DSP
extension whose weight words multiply as they are loaded, one `SXTB16` a
word where the plain form (tinyml-contract-to-smlad) takes two.

`SMLAD` multiplies halfwords. A weight word (w0, w1, w2, w3) read as two
halfwords is (w0 + 256 w1, w2 + 256 w3) when each even byte is stored as
its unsigned bit pattern and the odd byte after it is stored one lower
where the even byte is negative (the pattern of a negative w0 reads as
w0 + 256). `SXTB16` of the same word gives (w0, w2). For four inputs
(x0, x1, x2, x3), two words of the input packed once per layer,

    P = (x1, x3),   Q = (256 x0 - x1 + 127, 256 x2 - x3 + 127),

give `SMLAD(P, W) + SMLAD(Q, SXTB16(W))` =
`256 (x0 w0 + x1 w1 + x2 w2 + x3 w3) + 127 (w0 + w2)`: 256 times the
dot product, plus a term of the weights alone. The 127 keeps Q's halves
inside int16 for every pair of int8 inputs; it is the only offset that
does. So the accumulator starts at `256 bias - 127 sum(w[k] for even k)`
(a constant per output channel, computed here at compile time), the
SMLADs run, and an arithmetic shift right by 8 gives `bias + x . w`
exactly: every partial sum is the same modulo 2^32, and the final one is
256 times a value that fits in 24 bits.

Per four inputs and output channel this is a weight load, one `SXTB16`
and two `SMLAD`, against a load, two `SXTB16` and two `SMLAD`; the
input's two words are loads shared by the tile's channels, against a load
and two `SXTB16`. The packed input takes two bytes a value in the arena
while the layer runs; its packing costs about 10 instructions a word,
so a layer of few output channels (a classifier's 2) keeps the plain form.

A product qualifies when every output channel's accumulator is exact
in 24 bits (`|bias| + 128 sum |w|` below 2^23), no odd weight would go
below -128 (-128 after a negative even byte), the accumulator starts
from a read of a bias constant and runs over the whole reduction (one
contraction, or a loop of them from 0 to the reduction's end), and the
input is one row read from a tensor defined outside the layer's loops.
Anything else takes the plain form.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from mlir import ir
from mlir.dialects import arith, llvm, scf, tensor, vector

from ..ir.values import constant_int, producer

if TYPE_CHECKING:
    from .contract_to_smlad import TracedRead

SXTB16 = "llvm.arm.sxtb16"
SADD16 = "llvm.arm.sadd16"
SSUB16 = "llvm.arm.ssub16"
#: int8 values per 32-bit word.
WORD = 4
#: The offset that keeps `256 x0 - x1 + OFFSET` in int16 for all int8 x0, x1.
OFFSET = 127
#: The accumulator's scale: the dot product is in its top 24 bits.
SCALE_BITS = 8
EXACT_BOUND = 1 << (31 - SCALE_BITS)
#: Instructions the packing loop takes a word (load, SXTB16, AND, SSUB16,
#: SADD16, two stores and the loop's three, on the M4): a layer packs its
#: input where its channel tiles save as much: an instruction for each
#: word and channel, and one for each tile's input word.
PACKING_COST = 10


def pays(channels: int, tile_channels: int) -> bool:
    """Whether packing an input read by `channels` output channels, in
    tiles of `tile_channels`, saves at least what it costs."""
    return channels // tile_channels * (tile_channels + 1) >= PACKING_COST


def i16() -> ir.IntegerType:
    return ir.IntegerType.get_signless(16)


def i32() -> ir.IntegerType:
    return ir.IntegerType.get_signless(32)


def pair_encoded(weights: np.ndarray) -> np.ndarray | None:
    """`weights` (reduction innermost, of even length) as stored for
    byte-pair SMLADs: each odd value one lower where the even value before
    it is negative; None where one would leave int8."""
    encoded = weights.astype(np.int16)
    encoded[..., 1::2] -= encoded[..., 0::2] < 0
    if encoded.min(initial=0) < -128:
        return None
    return encoded.astype(np.int8)


def scaled_bias(bias: np.ndarray, weights: np.ndarray) -> np.ndarray | None:
    """The accumulators' start, `256 bias - 127 sum(w[even k])` per output
    channel (`weights` `[channel, reduction]`), or None when an
    accumulator could leave 24 bits for some int8 input."""
    wide = weights.astype(np.int64)
    bound = np.abs(bias.astype(np.int64)) + 128 * np.abs(wide).sum(axis=-1)
    if bound.max(initial=0) >= EXACT_BOUND:
        return None
    start = (bias.astype(np.int64) << SCALE_BITS) - OFFSET * wide[..., 0::2].sum(axis=-1)
    return start.astype(np.int32)


def input_words(word: ir.Value) -> tuple[ir.Value, ir.Value]:
    """P = (x1, x3) and Q = (256 x0 - x1 + 127, 256 x2 - x3 + 127) of the
    int8 word (x0, x1, x2, x3): `SXTB16` of the word rotated by 8, the even
    bytes shifted into the top of each halfword, and two halfword
    subtractions (modulo 2^16 each: the end result is in range)."""
    rotated = arith.ori(arith.shrui(word, arith.constant(i32(), 8)),
                        arith.shli(word, arith.constant(i32(), 24)))
    odd = llvm.call_intrinsic(i32(), SXTB16, [rotated], [], [])
    even_high = arith.andi(arith.shli(word, arith.constant(i32(), 8)),
                           arith.constant(i32(), -0xFF0100))  # 0xFF00FF00
    offsets = arith.constant(i32(), OFFSET << 16 | OFFSET)
    difference = llvm.call_intrinsic(i32(), SSUB16, [even_high, odd], [], [])
    return odd, llvm.call_intrinsic(i32(), SADD16, [difference, offsets], [], [])


def packed_input(source: ir.Value, before: ir.Operation) -> ir.Value:
    """`source` (int8, its last dimension a whole number of words) packed
    into P and Q words along its last dimension, an int16 tensor of its
    shape: loops over its other dimensions and its words, built before
    `before`."""
    source_type = ir.RankedTensorType(source.type)
    index = ir.IndexType.get()
    shape = list(source_type.shape)
    row_map = ir.AffineMap.get_minor_identity(source_type.rank, 1)
    with ir.InsertionPoint(before), before.location:
        zero = arith.constant(index, 0)
        init = tensor.empty(shape, i16())

        def pack(dim: int, at: list[ir.Value], target: ir.Value) -> ir.Value:
            step = WORD if dim == len(shape) - 1 else 1
            loop = scf.ForOp(zero, arith.constant(index, shape[dim]), arith.constant(index, step),
                             [target])
            with ir.InsertionPoint(loop.body):
                here = at + [loop.induction_variable]
                if dim < len(shape) - 1:
                    written = pack(dim + 1, here, loop.inner_iter_args[0])
                else:
                    loaded = vector.transfer_read(
                        ir.VectorType.get([WORD], source_type.element_type), source, here,
                        row_map, arith.constant(source_type.element_type, 0), [True])
                    word = vector.extract(vector.bitcast(ir.VectorType.get([1], i32()), loaded),
                                          [], [0])
                    pair = vector.from_elements(ir.VectorType.get([2], i32()),
                                                list(input_words(word)))
                    written = vector.transfer_write(
                        init.type, vector.bitcast(ir.VectorType.get([WORD], i16()), pair),
                        loop.inner_iter_args[0], here, row_map, [True])
                scf.YieldOp([written])
            return loop.results[0]

        return pack(0, [], init)


@dataclass
class ScaledChain:
    """A contraction's accumulator through the loop over its reduction
    (its tile a tensor the loop carries, at `position`, read and written
    whole by each step): the bias read whose value the loop's initial tile
    is written from, the `tensor.extract_slice` of the bias constant it
    reads, and where the input row is read from."""
    loop: ir.Operation
    position: int
    bias_slice: ir.Operation
    bias: ir.Operation
    input: TracedRead


def index_terms(index: ir.Value) -> list[ir.Value | int]:
    """An index as the terms of a sum: its constant, or itself."""
    constant = constant_int(index)
    return [index] if constant is None else [constant]


def same_sum(a: list[ir.Value | int], b: list[ir.Value | int]) -> bool:
    """Whether two sums of terms are the same: the same values in order,
    and the same sum of constants."""
    values_a = [t for t in a if not isinstance(t, int)]
    values_b = [t for t in b if not isinstance(t, int)]
    return len(values_a) == len(values_b) and all(x == y for x, y in zip(values_a, values_b)) \
        and sum(t for t in a if isinstance(t, int)) == sum(t for t in b if isinstance(t, int))


def whole(value: ir.Value) -> ir.Value:
    """`value` without the `tensor.extract_slice`s that take all of it
    (rank-reducing ones too)."""
    while (op := producer(value)) is not None and op.name == "tensor.extract_slice" \
            and all(o == 0 for o in ir.DenseI64ArrayAttr(op.attributes["static_offsets"])) \
            and list(ir.DenseI64ArrayAttr(op.attributes["static_sizes"])) \
            == list(ir.RankedTensorType(op.operands[0].type).shape):
        value = op.operands[0]
    return value


def whole_vector(value: ir.Value) -> ir.Value:
    """`value` without a `vector.extract_strided_slice` that takes all of it."""
    op = producer(value)
    if op is not None and op.name == "vector.extract_strided_slice" \
            and op.results[0].type == op.operands[0].type:
        return op.operands[0]
    return value


def at_origin(transfer: ir.Operation, indices_from: int) -> bool:
    """Whether a transfer's indices (operands from `indices_from` on,
    before its padding for a read) are all the constant 0."""
    last = len(transfer.operands) - (1 if transfer.name == "vector.transfer_read" else 0)
    return all(constant_int(v) == 0 for v in list(transfer.operands)[indices_from:last])


def written_back(contract: ir.Operation, read: ir.Operation, tile: ir.Value,
                 yielded: ir.Value) -> bool:
    """Whether the loop body yields `tile` as `contract`'s result written
    over all of it (a `transfer_write` at its origin, maybe of the result
    inserted whole into the accumulator it read, inserted whole into
    slices of the tile)."""
    uses = list(contract.results[0].uses)
    if len(uses) != 1:
        return False
    write = uses[0].owner
    if write.name == "vector.insert_strided_slice" \
            and write.results[0].type == contract.results[0].type \
            and whole_vector(write.operands[1]) == read.results[0]:
        uses = list(write.results[0].uses)
        if len(uses) != 1:
            return False
        write = uses[0].owner
    if write.name != "vector.transfer_write" or not at_origin(write, 2) \
            or whole(write.operands[1]) != tile:
        return False
    value = yielded
    while value != write.results[0]:
        insert = producer(value)
        if insert is None or insert.name != "tensor.insert_slice" \
                or whole(insert.operands[1]) != tile \
                or any(o != 0 for o in ir.DenseI64ArrayAttr(insert.attributes["static_offsets"])):
            return False
        value = insert.operands[0]
    return True


def accumulator_loops(contract: ir.Operation, total: int, reduction: int,
                      reduction_terms: list[ir.Value | int]) -> tuple[ir.Operation, int] | None:
    """The outermost loop carrying `contract`'s accumulator tile and the
    tile's position in it, if the tile is read and written whole by each
    step, the loops carrying it run over the whole reduction once (one of
    them from 0 to `total` by `reduction`, over the weights' reduction
    offset, or none when the contraction is the whole reduction) and
    every other one once."""
    read = producer(whole_vector(contract.operands[2]))
    if read is None or read.name != "vector.transfer_read" or not at_origin(read, 1):
        return None
    tile = whole(read.operands[0])
    if not isinstance(tile.owner, ir.Block) or tile.owner.owner.name != "scf.for":
        return None
    block = tile.owner
    loop = block.owner
    position = ir.BlockArgument(tile).arg_number - 1
    if not written_back(contract, read, tile,
                        block.operations[len(block.operations) - 1].operands[position]):
        return None
    stepped = reduction == total and same_sum([], reduction_terms)
    while True:
        body = loop.regions[0].blocks[0]
        bounds = [constant_int(v) for v in loop.operands[:3]]
        if bounds == [0, total, reduction] and same_sum([body.arguments[0]], reduction_terms) \
                and not stepped:
            stepped = True
        elif bounds != [0, 1, 1]:
            return None
        start = loop.operands[3 + position]
        if not isinstance(start.owner, ir.Block) or start.owner.owner.name != "scf.for" \
                or len(list(start.uses)) != 1:
            break
        outer = start.owner
        outer_position = ir.BlockArgument(start).arg_number - 1
        if outer.operations[len(outer.operations) - 1].operands[outer_position] \
                != loop.results[position]:
            break
        loop, position = outer.owner, outer_position
    return (loop, position) if stepped else None


def scaled_chain(contract: ir.Operation, row: TracedRead | None, reduction: int, channels: int,
                 channel_of: list[int], weight_offsets: list[list[ir.Value | int]],
                 reduction_dim: int, channel_dim: int,
                 weight_shape: list[int]) -> ScaledChain | None:
    """The chain of `contract`'s accumulator, if byte-pair SMLADs can run it
    (see the module's docstring): the contraction reads `reduction` values
    of each input row (read from `row.source`, the reduction its last
    dimension) against `channels` weight columns, its weights sliced at
    `weight_offsets` from a constant of `weight_shape`."""
    total = weight_shape[reduction_dim]
    if any(size != 1 for d, size in enumerate(weight_shape)
           if d not in (reduction_dim, channel_dim)) \
            or channel_of != [flat % channels for flat in range(len(channel_of))]:
        return None
    if row is None or not isinstance(row.source.type, ir.RankedTensorType):
        return None
    row_shape = ir.RankedTensorType(row.source.type).shape
    reduction_terms = weight_offsets[reduction_dim]
    if row.dims[-1] != len(row_shape) - 1 or row_shape[-1] != total \
            or not same_sum(row.offsets[-1], reduction_terms):
        return None
    carried = accumulator_loops(contract, total, reduction, reduction_terms)
    if carried is None:
        return None
    loop, position = carried
    # The loop's initial tile is written from a read of a bias slice.
    start = producer(loop.operands[3 + position])
    if start is None or start.name != "vector.transfer_write" or not at_origin(start, 2):
        return None
    bias_read = producer(start.operands[0])
    if bias_read is None or bias_read.name != "vector.transfer_read" \
            or not at_origin(bias_read, 1) or len(bias_read.operands) != 3 \
            or len(list(bias_read.results[0].uses)) != 1:
        return None
    bias_slice = producer(bias_read.operands[0])
    if bias_slice is None or bias_slice.name != "tensor.extract_slice" \
            or ir.RankedTensorType(bias_slice.results[0].type).shape != [channels] \
            or len(list(bias_slice.results[0].uses)) != 1:
        return None
    bias = producer(bias_slice.operands[0])
    offsets = slice_offsets(bias_slice)
    if bias is None or bias.name != "arith.constant" \
            or not isinstance(bias.attributes["value"], ir.DenseIntElementsAttr) \
            or offsets is None or not same_sum(offsets, weight_offsets[channel_dim]):
        return None
    return ScaledChain(loop, position, bias_slice, bias, row)


def slice_offsets(slice_op: ir.Operation) -> list[ir.Value | int] | None:
    """A 1-D unit-stride `extract_slice`'s offset, as the terms of a sum."""
    static = list(ir.DenseI64ArrayAttr(slice_op.attributes["static_offsets"]))
    if len(static) != 1 or list(ir.DenseI64ArrayAttr(slice_op.attributes["static_strides"])) != [1]:
        return None
    if static[0] != ir.ShapedType.get_dynamic_stride_or_offset():
        return [static[0]]
    return index_terms(slice_op.operands[1])


def bias_of(chain: ScaledChain) -> np.ndarray:
    """The bias constant the chain's accumulator starts from."""
    return np.array(ir.DenseIntElementsAttr(chain.bias.attributes["value"]))


def scale_chain(chain: ScaledChain, start_values: np.ndarray,
                cache: dict[tuple, ir.Value]) -> None:
    """Start the chain's accumulator at `start_values` (a constant per
    channel, built once per set of values in `cache`, sliced as the bias
    was) and shift the loop's final tile right by `SCALE_BITS`."""
    key = ("scaled-bias", chain.bias, start_values.tobytes())
    if key not in cache:
        with ir.InsertionPoint(chain.bias), chain.bias.location:
            constant_type = ir.RankedTensorType.get(list(start_values.shape), i32())
            cache[key] = arith.ConstantOp(
                constant_type, ir.DenseElementsAttr.get(start_values, type=constant_type)).result
    chain.bias_slice.operands[0] = cache[key]
    end = chain.loop.results[chain.position]
    end_type = ir.RankedTensorType(end.type)
    with ir.InsertionPoint.after(chain.loop), chain.loop.location:
        index = ir.IndexType.get()
        origin = [arith.constant(index, 0)] * end_type.rank
        vector_type = ir.VectorType.get(list(end_type.shape), i32())
        identity = ir.AffineMap.get_minor_identity(end_type.rank, end_type.rank)
        value = vector.transfer_read(vector_type, end, origin, identity,
                                     arith.constant(i32(), 0), [True] * end_type.rank)
        bits = arith.constant(vector_type, ir.DenseElementsAttr.get_splat(
            vector_type, ir.IntegerAttr.get(i32(), SCALE_BITS)))
        shifted = vector.transfer_write(end.type, arith.shrsi(value, bits), end, origin,
                                        identity, [True] * end_type.rank)
    end.replace_all_uses_except(shifted, [producer(value), producer(shifted)])


def ancestor_in(op: ir.Operation, block: ir.Block) -> ir.Operation | None:
    """The op of `block` that is `op` or holds it, if any."""
    op = op.operation
    while True:
        if op.block == block:
            return op
        parent = op.parent
        if parent is None or parent.name == "builtin.module":
            return None
        op = parent.operation
