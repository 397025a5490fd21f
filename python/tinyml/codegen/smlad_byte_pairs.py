"""Byte-pair SMLAD: an int8 contraction on a core with the DSP extension
whose weight words multiply as they are loaded, one `SXTB16` a word where
the plain form (tinyml-contract-to-smlad) takes two.

`SMLAD` multiplies halfwords. A weight word (w0, w1, w2, w3) read as two
halfwords is (w0 + 256 w1, w2 + 256 w3) when each even byte is stored as
its unsigned bit pattern and the odd byte after it is stored one lower
where the even byte is negative (the pattern of a negative w0 reads as
w0 + 256). `SXTB16` of the same word gives (w0, w2). For four inputs
(x0, x1, x2, x3), two words of the input packed once,

    P = (x1, x3),   Q = (256 x0 - x1 + 127, 256 x2 - x3 + 127),

give `SMLAD(P, W) + SMLAD(Q, SXTB16(W))` =
`256 (x0 w0 + x1 w1 + x2 w2 + x3 w3) + 127 (w0 + w2)`: 256 times the
dot product, plus a term of the weights alone. The 127 keeps Q's halves
inside int16 for every pair of int8 inputs; it is the only offset that
does. So the accumulator starts at `256 bias - 127 sum(w[k] for even k)`
over every weight slice the layer's loops multiply into it (a constant
per output channel, computed here at compile time by running the loops'
counters), the SMLADs run, and an arithmetic shift right by 8 gives
`bias + x . w` exactly: every partial sum is the same modulo 2^32, and
the final one is 256 times a value that fits in 24 bits.

Per four inputs and output channel this is a weight load, one `SXTB16`
and two `SMLAD`, against a load, two `SXTB16` and two `SMLAD`. The input's
words are loads shared by the tile's channels:

- a conv's window, which tinyml-widen-conv-inputs stages extended to
  int16, holds the P and Q words instead (the same two bytes a value; its
  extension marked `tinyml.byte_pairs`);
- a matrix-vector product's row is packed into a new int16 tensor before
  the layer's loops: two bytes a value of arena while the layer runs, and
  about 10 instructions a word, so a layer of few output channels (a
  classifier's 2) keeps the plain form.

A chain of contractions (each the next one's accumulator, the chain's
tile carried by its loops) qualifies when every output channel's
accumulator is exact in 24 bits (`|bias| + 128 sum |w|` below 2^23), no
odd weight would go below -128 (-128 after a negative even byte), the
tile starts from a read of a bias constant, and every weight slice's
place is a sum of the loops' counters and constants. Anything else takes
the plain form.
"""
from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from mlir import ir
from mlir.dialects import arith, llvm, scf, tensor, vector

from ..ir.values import constant_int, producer

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
    into P and Q words along its last dimension, a new int16 tensor of its
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
    """The chains of contractions accumulating into one tile (in each, a
    contraction is the next one's accumulator; each chain a part of the
    tile) over the loops that carry the tile, innermost first (at
    `position` in the outermost, whose initial tile is written from a read
    of `bias_slice`, a `tensor.extract_slice` of the bias constant
    `bias`)."""
    chains: list[list[ir.Operation]]
    loops: list[ir.Operation]
    position: int
    bias_slice: ir.Operation
    bias: ir.Operation

    @property
    def contracts(self) -> list[ir.Operation]:
        return [contract for chain in self.chains for contract in chain]


@dataclass
class WeightUse:
    """Where one contraction of a chain reads its weights: per dimension
    of the weight constant, the terms of the sum that is its first index
    (ints and loop induction variables), the reduction's dimension and
    length, and the output channels' dimension."""
    offsets: list[list[ir.Value | int]]
    reduction_dim: int
    reduction: int
    channel_dim: int


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


def at_origin(transfer: ir.Operation, indices_from: int) -> bool:
    """Whether a transfer's indices (operands from `indices_from` on,
    before its padding for a read) are all the constant 0."""
    last = len(transfer.operands) - (1 if transfer.name == "vector.transfer_read" else 0)
    return all(constant_int(v) == 0 for v in list(transfer.operands)[indices_from:last])


def chain_from(head: ir.Operation) -> list[ir.Operation]:
    """The contractions from `head` on, each the next one's accumulator."""
    chain = [head]
    while len(uses := list(chain[-1].results[0].uses)) == 1 \
            and uses[0].owner.name == "vector.contract" \
            and uses[0].owner.operands[2] == chain[-1].results[0]:
        chain.append(uses[0].owner.operation)
    return chain


def strided_offsets(op: ir.Operation) -> list[int]:
    return [ir.IntegerAttr(o).value for o in ir.ArrayAttr(op.attributes["offsets"])]


def tile_chains(read: ir.Operation) -> tuple[list[list[ir.Operation]], ir.Operation] | None:
    """The chains of contractions accumulating into the tile `read` reads
    (each from a part of it, `vector.extract_strided_slice`, or all of it),
    and the `transfer_write` of their results, inserted where they were
    read (`vector.insert_strided_slice`): the parts must cover the tile
    once; None if anything else reads or writes it."""
    parts: list[tuple[list[int], list[int], list[ir.Operation]]] = []
    base = None
    for use in read.results[0].uses:
        user = use.owner.operation
        if user.name == "vector.extract_strided_slice" and all(
                ir.IntegerAttr(s).value == 1 for s in ir.ArrayAttr(user.attributes["strides"])):
            heads = [u.owner.operation for u in user.results[0].uses]
            if len(heads) != 1 or heads[0].name != "vector.contract" \
                    or heads[0].operands[2] != user.results[0]:
                return None
            shape = list(ir.VectorType(user.results[0].type).shape)
            parts.append((strided_offsets(user), shape, chain_from(heads[0])))
        elif user.name == "vector.contract" and user.operands[2] == read.results[0]:
            parts.append(([0] * ir.VectorType(read.results[0].type).rank,
                          list(ir.VectorType(read.results[0].type).shape), chain_from(user)))
        elif user.name == "vector.insert_strided_slice" and user.operands[1] == read.results[0] \
                and base is None:
            base = user
        else:
            return None
    shape = list(ir.VectorType(read.results[0].type).shape)
    covered = np.zeros(shape, np.int64)
    for offsets, sizes, _ in parts:
        covered[tuple(slice(o, o + n) for o, n in zip(offsets, sizes))] += 1
    if not parts or (covered != 1).any():
        return None
    # The chains' results go back where they were read: inserts from the
    # read on, one per chain, to the write (or one chain's result written).
    remaining = [(offsets, chain[-1]) for offsets, _, chain in parts]
    value = read.results[0]
    current = base
    if base is None:
        if len(parts) != 1:
            return None
        value, remaining = parts[0][2][-1].results[0], []
        current = next(iter(u.owner.operation for u in value.uses), None)
    while current is not None and current.name == "vector.insert_strided_slice":
        source = producer(current.operands[0])
        matched = [item for item in remaining
                   if item[1] == source and item[0] == strided_offsets(current)]
        if current.operands[1] != value or not matched:
            return None
        remaining.remove(matched[0])
        value = current.results[0]
        uses = list(value.uses)
        current = uses[0].owner.operation if len(uses) == 1 else None
    if remaining or current is None or current.name != "vector.transfer_write" \
            or current.operands[0] != value or len(list(value.uses)) != 1 \
            or not at_origin(current, 2):
        return None
    return [chain for _, _, chain in parts], current


def accumulation(contract: ir.Operation) \
        -> tuple[list[list[ir.Operation]], list[ir.Operation], int] | None:
    """The chains of contractions accumulating into the tile `contract`'s
    accumulator is read from (`tile_chains`), the loops carrying the tile
    (innermost first: each step reads it whole and writes it back whole)
    and its position in the outermost; None if the tile is not carried
    so, or a loop's bounds are not constants."""
    first = contract.operation
    while (before := producer(first.operands[2])) is not None and before.name == "vector.contract":
        first = before
    accumulator = producer(first.operands[2])
    read = producer(accumulator.operands[0]) if accumulator is not None \
        and accumulator.name == "vector.extract_strided_slice" else accumulator
    if read is None or read.name != "vector.transfer_read" or not at_origin(read, 1):
        return None
    tile = whole(read.operands[0])
    found = tile_chains(read)
    if found is None or not isinstance(tile.owner, ir.Block) \
            or tile.owner.owner.name != "scf.for":
        return None
    chains, write = found
    block = tile.owner
    loop = block.owner
    position = ir.BlockArgument(tile).arg_number - 1
    if whole(write.operands[1]) != tile or not yields_whole(
            write, tile, block.operations[len(block.operations) - 1].operands[position]):
        return None
    loops = [loop]
    while True:
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
        loops.append(loop)
    if any(constant_int(v) is None for loop in loops for v in loop.operands[:3]):
        return None
    return chains, loops, position


def yields_whole(write: ir.Operation, tile: ir.Value, yielded: ir.Value) -> bool:
    """Whether the loop body yields `write`'s result as the whole tile
    (inserted whole into slices of it)."""
    value = yielded
    while value != write.results[0]:
        insert = producer(value)
        if insert is None or insert.name != "tensor.insert_slice" \
                or whole(insert.operands[1]) != tile \
                or any(o != 0 for o in ir.DenseI64ArrayAttr(insert.attributes["static_offsets"])):
            return False
        value = insert.operands[0]
    return True


def bias_start(loop: ir.Operation, position: int, channels: int,
               channel_terms: list[ir.Value | int]) -> tuple[ir.Operation, ir.Operation] | None:
    """The `tensor.extract_slice` of a bias constant, and the constant,
    whose read (of `channels` values, at the weights' channel offset) the
    loop's initial tile at `position` is written from."""
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
            or offsets is None or not same_sum(offsets, channel_terms):
        return None
    return bias_slice, bias


#: Most contraction runs a chain's start is computed over (its loops'
#: trip counts times its contractions).
MAX_RUNS = 1 << 16


def scaled_start(chain: ScaledChain, weights: np.ndarray,
                 uses: list[WeightUse]) -> np.ndarray | None:
    """The accumulators' start per output channel of one of the tile's
    chains, `256 bias - 127 sum(w[even k])` over every weight slice its
    contractions multiply, run by run of the loops (`uses`, one per
    contraction, index `weights`); None when a slice's place depends on
    anything but the loops' counters and constants, or an accumulator
    could leave 24 bits."""
    induction = [loop.regions[0].blocks[0].arguments[0] for loop in chain.loops]
    ranges = [range(*(constant_int(v) or 0 for v in loop.operands[:3])) for loop in chain.loops]
    if int(np.prod([len(r) for r in ranges])) * len(uses) > MAX_RUNS:
        return None
    channel_dim = uses[0].channel_dim
    if any(term == iv for use in uses for term in use.offsets[channel_dim]
           if not isinstance(term, int) for iv in induction):
        return None
    bias = np.array(ir.DenseIntElementsAttr(chain.bias.attributes["value"])).astype(np.int64)
    correction = np.zeros(weights.shape[channel_dim], np.int64)
    magnitude = np.zeros(weights.shape[channel_dim], np.int64)
    for counters in itertools.product(*ranges):
        for use in uses:
            index: list[int | slice] = []
            for dim, terms in enumerate(use.offsets):
                if dim == channel_dim:
                    index.append(slice(None))
                    continue
                first = evaluated(terms, induction, counters)
                length = use.reduction if dim == use.reduction_dim else 1
                if first is None or first < 0 or first + length > weights.shape[dim]:
                    return None
                index.append(slice(first, first + length))
            block = np.moveaxis(weights[tuple(index)], [use.reduction_dim, channel_dim],
                                [0, 1]).reshape(use.reduction, -1).astype(np.int64)
            correction += OFFSET * block[0::2].sum(axis=0)
            magnitude += np.abs(block).sum(axis=0)
    if (np.abs(bias) + 128 * magnitude).max(initial=0) >= EXACT_BOUND:
        return None
    return ((bias << SCALE_BITS) - correction).astype(np.int32)


def evaluated(terms: list[ir.Value | int], induction: list[ir.Value],
              counters: tuple[int, ...]) -> int | None:
    """The sum of `terms` when each loop counter in `induction` takes its
    value in `counters`; None if a term is anything else."""
    total = 0
    for term in terms:
        if isinstance(term, int):
            total += term
            continue
        matches = [value for iv, value in zip(induction, counters) if iv == term]
        if not matches:
            return None
        total += matches[0]
    return total


def slice_offsets(slice_op: ir.Operation) -> list[ir.Value | int] | None:
    """A 1-D unit-stride `extract_slice`'s offset, as the terms of a sum."""
    static = list(ir.DenseI64ArrayAttr(slice_op.attributes["static_offsets"]))
    if len(static) != 1 or list(ir.DenseI64ArrayAttr(slice_op.attributes["static_strides"])) != [1]:
        return None
    if static[0] != ir.ShapedType.get_dynamic_stride_or_offset():
        return [static[0]]
    return index_terms(slice_op.operands[1])


def scale_chain(chain: ScaledChain, start_values: np.ndarray,
                cache: dict[tuple, ir.Value]) -> None:
    """Start the chain's accumulator at `start_values` (a constant per
    channel, built once per set of values in `cache`, sliced as the bias
    was) and shift the outermost loop's final tile right by `SCALE_BITS`."""
    key = ("scaled-bias", chain.bias, start_values.tobytes())
    if key not in cache:
        with ir.InsertionPoint(chain.bias), chain.bias.location:
            constant_type = ir.RankedTensorType.get(list(start_values.shape), i32())
            cache[key] = arith.ConstantOp(
                constant_type, ir.DenseElementsAttr.get(start_values, type=constant_type)).result
    chain.bias_slice.operands[0] = cache[key]
    loop = chain.loops[-1]
    end = loop.results[chain.position]

    def shifted_back(value: ir.Value) -> ir.Value:
        bits = arith.constant(value.type, ir.DenseElementsAttr.get_splat(
            value.type, ir.IntegerAttr.get(i32(), SCALE_BITS)))
        return arith.shrsi(value, bits)

    with ir.InsertionPoint.after(loop), loop.location:
        value, shifted = rewritten_tile(end, shifted_back)
    end.replace_all_uses_except(shifted, [producer(value), producer(shifted)])


def rewritten_tile(tile: ir.Value,
                   change: Callable[[ir.Value], ir.Value]) -> tuple[ir.Value, ir.Value]:
    """The int32 tensor `tile` read whole as a vector and written back
    `change`d, at the insertion point: (the vector read, the tensor
    written)."""
    tile_type = ir.RankedTensorType(tile.type)
    origin = [arith.constant(ir.IndexType.get(), 0)] * tile_type.rank
    vector_type = ir.VectorType.get(list(tile_type.shape), i32())
    identity = ir.AffineMap.get_minor_identity(tile_type.rank, tile_type.rank)
    value = vector.transfer_read(vector_type, tile, origin, identity,
                                 arith.constant(i32(), 0), [True] * tile_type.rank)
    return value, vector.transfer_write(tile.type, change(value), tile, origin, identity,
                                        [True] * tile_type.rank)


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
