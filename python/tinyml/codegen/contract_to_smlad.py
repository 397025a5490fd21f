"""tinyml-contract-to-smlad: an int8 tile's inner product on a core with the
DSP extension (Cortex-M4/M7) as dual 16-bit multiply-accumulates, two MACs
per instruction, the way CMSIS-NN's kernels compute it.

A vectorized quantized contraction is `vector.contract` of two sign-extended
int8 vectors into int32 accumulators. Four int8 values of one row of the
reduction are one 32-bit word; `SXTB16 x` sign-extends its bytes 0 and 2
into two halfwords and `SXTB16 x, ROR #8` its bytes 1 and 3, and `SMLAD a,
b, acc` adds both halfword products to the accumulator. Extracting the
input's words and the weights' words the same way pairs them element by
element, so a reduction step of K values costs, per input row and per
output channel, K/4 word loads and K/2 SXTB16, and K/2 SMLAD per
accumulator. The input's offset is already in the bias (the raw int8 values
are multiplied), and int32 addition is the same modulo 2^32 in any order:
the result is bit-exact to the multiply-add chain it replaces.

An input read through its int16 extension (tinyml-widen-conv-inputs,
staged once per tile for all its channel tiles) is its halfword pairs
already: its words, (x0, x1) and (x2, x3), multiply directly, and its
weights are packed with each word's values in the order 0, 2, 1, 3, so
that their two `SXTB16`s give (w0, w1) and (w2, w3). A step of K values
then costs, per input row, K/2 word loads and no extension. With
`halfword-weight-bytes`, weights that take at most that many bytes as
int16 are stored so, and their words are those pairs as loaded: no
`SXTB16` at all, for twice their flash (an RGB stem of stride 2, 3 x 3 x
4 x 8 weights, 288 bytes more: M4 VWW 13.39 -> 13.22 M instructions, a
Keras MobileNet block's stem 35.6 -> 30.9 K).

With the option `byte-pairs` (the default), the contractions that can
multiply each weight word as it is loaded, with one `SXTB16` a word, do:
their accumulators scaled by 256 from a bias constant scaled at compile
time, their windows staged as byte-pair words in place of the extension,
a matrix-vector product's row packed before its loops
(`smlad_byte_pairs`, which says which qualify).

The weights must be contiguous along the reduction for their words to be
loads: the pass packs each weight constant it reads at compile time, its
reduction dimension innermost and its output channel dimension next
(`[kh][kw][cout][cin]` for a conv's `[kh][kw][cin][cout]`), and reads the
tile's weights from the packed copy. A contraction whose reduction is not a
multiple of 4, whose input rows do not have the reduction innermost, or
whose weights are not sliced from a constant is left to the generic
lowering. The intrinsics are emitted with `llvm.call_intrinsic`, the
upstream way to reach a target intrinsic without a dialect for it
(`llvm.arm.sxtb16`, `llvm.arm.smlad`); llc fails on them for a core
without the DSP extension, so only DSP targets run this pass.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
from mlir import ir
from mlir.dialects import arith, llvm, vector

from ..ir.lowering_config import BYTE_PAIRS, WIDENED
from ..ir.values import constant_int, producer
from ..ir.walk import ops_named
from ..pipeline.registry import Option, Pass, register
from . import smlad_byte_pairs as byte_pairs

SXTB16 = "llvm.arm.sxtb16"
SMLAD = "llvm.arm.smlad"
#: int8 values per 32-bit word.
WORD = 4


def i8() -> ir.IntegerType:
    return ir.IntegerType.get_signless(8)


def i16() -> ir.IntegerType:
    return ir.IntegerType.get_signless(16)


def i32() -> ir.IntegerType:
    return ir.IntegerType.get_signless(32)


@register
class ContractToSmlad(Pass):
    name = "tinyml-contract-to-smlad"
    summary = ("Lower int8 vector contractions to SXTB16 + SMLAD dual multiply-accumulates "
               "over compile-time packed weights (Cortex-M DSP extension)")

    options = (Option("byte-pairs", bool, True,
                      "multiply weight words as loaded, one SXTB16 a word, over inputs packed "
                      "into byte pairs where exact (see smlad_byte_pairs)"),
               Option("halfword-weight-bytes", int, 0,
                      "store the weights of a contraction over an int16 row as halfwords, no "
                      "SXTB16 at run time, when they take at most this many bytes so (twice "
                      "their int8 bytes; 0: never)", low=0, high=1 << 30))
    # The options' values, set by `Pass.__init__`.
    byte_pairs: bool
    halfword_weight_bytes: int

    def apply(self, module):
        packed: dict[tuple, ir.Value] = {}
        products = {contract.operation: product
                    for contract in ops_named(module, "vector.contract")
                    if (product := int8_dot_product(contract)) is not None}
        chains = byte_pair_chains(products, packed) if self.byte_pairs else []
        # An op's hash follows its operands, which lowering a chain changes:
        # the lowering goes by a list.
        remaining = list(products.items())
        for form in chains:
            byte_pairs.scale_chain(form.chain, form.start_values, packed)
            for contract in form.chain.contracts:
                [index] = [i for i, (op, _) in enumerate(remaining) if op == contract]
                emit_byte_pairs(contract, remaining.pop(index)[1], packed, form.packed_row)
        for contract, product in remaining:
            lower_to_smlad(contract, product, packed, self.halfword_weight_bytes)


@dataclass
class WeightSlice:
    """Where a contraction's weights come from: a constant, which of its
    dimensions the weight vector's reduction and channel dimensions are,
    and the constant's index of the vector's first element (per dimension,
    the terms of a sum: the offsets of the slices and of the read)."""
    constant: ir.Operation
    reduction_dim: int
    channel_dim: int
    offsets: list[list[ir.Value | int]]

    def packed_order(self) -> list[int]:
        """The constant's dimensions in the packed layout: the others in
        their order, then the channel, then the reduction."""
        rank = ir.RankedTensorType(self.constant.results[0].type).rank
        kept = [d for d in range(rank) if d not in (self.channel_dim, self.reduction_dim)]
        return kept + [self.channel_dim, self.reduction_dim]


@dataclass
class DotProduct:
    """A contraction `acc[p, c] += sum_k lhs[p, k] * rhs[k, c]` of int8
    values: `lhs` (the input rows, reduction innermost), the weights'
    source, and for each accumulator its input row and channel."""
    lhs: ir.Value
    weights: WeightSlice
    reduction: int
    channels: int
    rows: list[tuple[int, ...]]
    row_of: list[tuple[int, ...]]
    channel_of: list[int]


def sign_extended(value: ir.Value, *element_types: ir.Type) -> ir.Value | None:
    """The vector of one of `element_types` a contraction operand
    multiplies: `arith.extsi` of one, or one itself (a contraction promotes
    narrower integer operands by sign extension, as a vectorized
    `linalg.matmul` leaves them)."""
    op = producer(value)
    if op is not None and op.name == "arith.extsi":
        value = op.operands[0]
    if ir.VectorType(value.type).element_type not in element_types:
        return None
    return value


def int8_dot_product(contract: ir.Operation, multiple: int = WORD) -> DotProduct | None:
    """The dot product `contract` computes, if its reduction is a multiple
    of `multiple` values (this pass's: whole words)."""
    if str(contract.attributes["kind"]) != "#vector.kind<add>":
        return None
    acc_type = contract.results[0].type
    if not isinstance(acc_type, ir.VectorType) or acc_type.element_type != i32():
        return None
    lhs, rhs = sign_extended(contract.operands[0], i8(), i16()), \
        sign_extended(contract.operands[1], i8())
    if lhs is None or rhs is None:
        return None
    iterators = [str(t) for t in ir.ArrayAttr(contract.attributes["iterator_types"])]
    reductions = [i for i, kind in enumerate(iterators) if "reduction" in kind]
    maps = ir.ArrayAttr(contract.attributes["indexing_maps"])
    lhs_map, rhs_map, acc_map = (dims_of(m) for m in maps)
    if lhs_map is None or rhs_map is None or acc_map is None or len(reductions) != 1 \
            or len(rhs_map) != 2:
        return None
    reduction_dim = reductions[0]
    if lhs_map[-1] != reduction_dim or reduction_dim not in rhs_map:
        return None
    reduction = ir.VectorType(lhs.type).shape[-1]
    if reduction % multiple:
        return None
    channel_dim = next(d for d in rhs_map if d != reduction_dim)
    weights = weight_slice(rhs, rhs_map.index(reduction_dim), rhs_map.index(channel_dim))
    if weights is None:
        return None
    rows = list(itertools.product(*(range(n) for n in ir.VectorType(lhs.type).shape[:-1])))
    row_of, channel_of = [], []
    for index in itertools.product(*(range(n) for n in acc_type.shape)):
        position = dict(zip(acc_map, index))
        row_of.append(tuple(position[d] for d in lhs_map[:-1]))
        channel_of.append(position[channel_dim])
    channels = ir.VectorType(rhs.type).shape[rhs_map.index(channel_dim)]
    return DotProduct(lhs, weights, reduction, channels, rows, row_of, channel_of)


def dims_of(map_attr: ir.Attribute) -> list[int] | None:
    """The loop dimension of each result of a projected-permutation map."""
    dims = []
    for expr in ir.AffineMapAttr(map_attr).value.results:
        if not isinstance(expr, ir.AffineDimExpr):
            return None
        dims.append(ir.AffineDimExpr(expr).position)
    return dims


@dataclass
class TracedRead:
    """The tensor a vector is read from, through `tensor.extract_slice`s:
    the vector's first element's index in it (per dimension, the terms of
    a sum: the offsets of the slices and of the read) and the tensor
    dimension of each of the vector's dimensions."""
    source: ir.Value
    offsets: list[list[ir.Value | int]]
    dims: list[int]
    read: ir.Operation


def traced_read(value: ir.Value) -> TracedRead | None:
    """Trace a vector back to the tensor it is read from: an optional
    `vector.extract` of a `vector.transfer_read` (in bounds, minor
    identity) of unit-stride `tensor.extract_slice`s of it, maybe through a
    unit-stride `vector.extract_strided_slice` (a conv tile's row of one
    kernel column)."""
    positions: list[int] = []
    strided: list[int] = []
    op = producer(value)
    if op is not None and op.name == "vector.extract_strided_slice":
        if any(ir.IntegerAttr(s).value != 1 for s in ir.ArrayAttr(op.attributes["strides"])):
            return None
        strided = [ir.IntegerAttr(o).value for o in ir.ArrayAttr(op.attributes["offsets"])]
        op = producer(op.operands[0])
    if op is not None and op.name == "vector.extract":
        if list(op.operands[1:]):
            return None  # a dynamic position
        positions = list(ir.DenseI64ArrayAttr(op.attributes["static_position"]))
        op = producer(op.operands[0])
    if op is None or op.name != "vector.transfer_read":
        return None
    read = op.opview
    rank = read.base.type.rank if isinstance(read.base.type, ir.RankedTensorType) else None
    read_rank = ir.VectorType(read.result.type).rank
    if (rank is None or read.mask is not None or not in_bounds(read)
            or ir.AffineMapAttr(read.attributes["permutation_map"]).value
            != ir.AffineMap.get_minor_identity(rank, read_rank)):
        return None
    first = rank - read_rank
    offsets = [[static_or_value(index)] for index in read.indices]
    for i, position in enumerate(positions):
        offsets[first + i].append(position)
    for i, offset in enumerate(strided):
        offsets[first + len(positions) + i].append(offset)
    dims = [first + len(positions) + i for i in range(read_rank - len(positions))]
    source = read.base
    while (slice_op := producer(source)) is not None and slice_op.name == "tensor.extract_slice":
        mapping = sliced_dims(slice_op)
        if mapping is None:
            return None
        outer = [[offset] for offset in slice_offsets_of(slice_op)]
        for result_dim, source_dim in enumerate(mapping):
            outer[source_dim] += offsets[result_dim]
        offsets, dims = outer, [mapping[d] for d in dims]
        source = slice_op.operands[0]
    return TracedRead(source, offsets, dims, op)


def weight_slice(weights: ir.Value, reduction_axis: int, channel_axis: int) -> WeightSlice | None:
    """Trace a 2-D weight vector back to the int8 constant it is read from
    (`traced_read`)."""
    read = traced_read(weights)
    if read is None:
        return None
    constant = producer(read.source)
    if (constant is None or constant.name != "arith.constant"
            or not isinstance(constant.attributes["value"], ir.DenseIntElementsAttr)):
        return None
    return WeightSlice(constant, read.dims[reduction_axis], read.dims[channel_axis], read.offsets)


def in_bounds(read) -> bool:
    """Whether a minor-identity `transfer_read` reads inside its tensor: it
    says so, or its indices are constants that leave room for the vector
    (before canonicalization infers the flags)."""
    if all(ir.BoolAttr(b).value for b in read.in_bounds):
        return True
    shape = read.base.type.shape
    sizes = ir.VectorType(read.result.type).shape
    for index, size, extent in zip(list(read.indices)[len(shape) - len(sizes):], sizes,
                                   shape[len(shape) - len(sizes):]):
        start = static_or_value(index)
        if not isinstance(start, int) or start + size > extent:
            return False
    return True


def sliced_dims(slice_op: ir.Operation) -> list[int] | None:
    """For each dimension of an `extract_slice`'s result, the source
    dimension it is (rank reduction drops unit dimensions, matched in order
    as upstream's `computeRankReductionMask` does); None for non-unit strides
    or dynamic sizes."""
    strides = list(ir.DenseI64ArrayAttr(slice_op.attributes["static_strides"]))
    sizes = list(ir.DenseI64ArrayAttr(slice_op.attributes["static_sizes"]))
    if any(s != 1 for s in strides) or any(s < 0 for s in sizes):
        return None
    result_shape = ir.RankedTensorType(slice_op.results[0].type).shape
    mapping, next_dim = [], 0
    for dim, size in enumerate(sizes):
        if next_dim < len(result_shape) and result_shape[next_dim] == size:
            mapping.append(dim)
            next_dim += 1
        elif size != 1:
            return None
    return mapping if next_dim == len(result_shape) else None


def slice_offsets_of(slice_op: ir.Operation) -> list[ir.Value | int]:
    """An `extract_slice`'s offsets, static ones as ints."""
    dynamic = iter(slice_op.operands[1:])  # sizes and strides are static
    dynamic_marker = ir.ShapedType.get_dynamic_stride_or_offset()
    return [static_or_value(next(dynamic)) if o == dynamic_marker else o
            for o in ir.DenseI64ArrayAttr(slice_op.attributes["static_offsets"])]


def static_or_value(index: ir.Value) -> ir.Value | int:
    """An index as an int when it is a constant."""
    constant = constant_int(index)
    return index if constant is None else constant


def index_sum(terms: list[ir.Value | int]) -> ir.Value:
    """The index `sum(terms)`, its static terms added at compile time."""
    static = sum(t for t in terms if isinstance(t, int))
    total = None
    for term in [t for t in terms if not isinstance(t, int)]:
        total = term if total is None else arith.addi(total, term)
    if total is None:
        return arith.constant(ir.IndexType.get(), static)
    return arith.addi(total, arith.constant(ir.IndexType.get(), static)) if static else total


def transposed_weights(weights: WeightSlice) -> np.ndarray:
    """The weight constant's values in `weights.packed_order()`."""
    array = np.array(ir.DenseIntElementsAttr(weights.constant.attributes["value"]))
    return np.transpose(array, weights.packed_order())


def packed_weights(weights: WeightSlice, cache: dict[tuple, ir.Value],
                   layout: str = "plain") -> ir.Value:
    """The weight constant in `weights.packed_order()`, built once per
    constant and layout; "interleaved", each word's values in the order
    0, 2, 1, 3, so that its two `SXTB16`s give the pairs (0, 1) and (2, 3)
    that multiply an int16 row's words; "halfwords", int16 values, whose
    words are those pairs as loaded; "byte-pairs", as
    `smlad_byte_pairs.pair_encoded` stores them (the caller checked that
    it can)."""
    key = (weights.constant, weights.reduction_dim, weights.channel_dim, layout)
    if key not in cache:
        packed = transposed_weights(weights)
        if layout == "halfwords":
            packed = packed.astype(np.int16)
        elif layout == "interleaved":
            quads = packed.reshape(*packed.shape[:-1], -1, 2, 2)
            packed = np.swapaxes(quads, -1, -2).reshape(packed.shape)
        elif layout == "byte-pairs":
            encoded = byte_pairs.pair_encoded(packed)
            assert encoded is not None, "the caller checked the weights encode"
            packed = encoded
        packed = np.ascontiguousarray(packed)
        tensor_type = ir.RankedTensorType.get(packed.shape,
                                              i16() if layout == "halfwords" else i8())
        with ir.InsertionPoint(weights.constant), weights.constant.location:
            cache[key] = arith.ConstantOp(
                tensor_type, ir.DenseElementsAttr.get(packed, type=tensor_type)).result
    return cache[key]


def words(row: ir.Value, count: int) -> list[ir.Value]:
    """The `count` 32-bit words of a 1-D int8 or int16 vector."""
    as_words = vector.bitcast(ir.VectorType.get([count], i32()), row)
    return [vector.extract(as_words, [], [q]) for q in range(count)]


def halfword_pairs(word: ir.Value) -> tuple[ir.Value, ir.Value]:
    """(bytes 0 and 2, bytes 1 and 3) of `word`, each sign-extended to two
    halfwords: `SXTB16 word` and `SXTB16 word, ROR #8`."""
    rotated = arith.ori(arith.shrui(word, arith.constant(i32(), 8)),
                        arith.shli(word, arith.constant(i32(), 24)))
    return (llvm.call_intrinsic(i32(), SXTB16, [word], [], []),
            llvm.call_intrinsic(i32(), SXTB16, [rotated], [], []))


def weight_tile(product: DotProduct, cache: dict[tuple, ir.Value],
                layout: str = "plain") -> ir.Value:
    """The contraction's weights as a `[channels, reduction]` int8 vector
    read from the packed constant (`packed_weights`): each channel's row is
    contiguous. Built at the current insertion point."""
    weights = product.weights
    packed = packed_weights(weights, cache, layout)
    indices = [index_sum(weights.offsets[d]) for d in weights.packed_order()]
    element = i16() if layout == "halfwords" else i8()
    return vector.transfer_read(ir.VectorType.get([product.channels, product.reduction], element),
                                packed, indices,
                                ir.AffineMap.get_minor_identity(packed.type.rank, 2),
                                arith.constant(element, 0), [True, True])


def input_row(product: DotProduct, row: tuple[int, ...]) -> ir.Value:
    """The 1-D input row `row` of the contraction's rows."""
    return vector.extract(product.lhs, [], list(row)) if row else product.lhs


def accumulator_elements(accumulators: ir.Value) -> list[ir.Value]:
    """Each element of the accumulator vector, in row-major order (the
    order of `DotProduct.row_of`)."""
    shape = ir.VectorType(accumulators.type).shape
    return [vector.extract(accumulators, [], [int(i) for i in np.unravel_index(flat, shape)])
            for flat in range(int(np.prod(shape)))]


def lower_to_smlad(contract: ir.Operation, product: DotProduct,
                   cache: dict[tuple, ir.Value], halfword_weight_bytes: int = 0) -> None:
    """Replace `contract` by SMLADs on the words of its input rows and of
    its weights, read from the packed constant (over an int16 row, as
    halfwords when they take at most `halfword_weight_bytes` so)."""
    quads = product.reduction // WORD
    # An int16 row (tinyml-widen-conv-inputs) is its halfword pairs already.
    wide = ir.VectorType(product.lhs.type).element_type == i16()
    weight_count = int(np.prod(ir.RankedTensorType(product.weights.constant.results[0].type).shape))
    halves = wide and 2 * weight_count <= halfword_weight_bytes
    with ir.InsertionPoint(contract), contract.location:
        tile = weight_tile(product, cache,
                           "halfwords" if halves else "interleaved" if wide else "plain")
        weight_words = [words(vector.extract(tile, [], [c]), 2 * quads if halves else quads)
                        for c in range(product.channels)]
        input_words = {row: words(input_row(product, row), 2 * quads if wide else quads)
                       for row in product.rows}
        sums = accumulator_elements(contract.operands[2])
        # Word by word, each word's halfword pairs made just before their
        # multiply-accumulates: the registers hold the accumulators and
        # one word's pairs, not the whole step's.
        for q in range(quads):
            inputs = {row: (input_words[row][2 * q], input_words[row][2 * q + 1]) if wide
                      else halfword_pairs(input_words[row][q]) for row in product.rows}
            for channel in range(product.channels):
                weight = (weight_words[channel][2 * q], weight_words[channel][2 * q + 1]) \
                    if halves else halfword_pairs(weight_words[channel][q])
                for flat, row in enumerate(product.row_of):
                    if product.channel_of[flat] != channel:
                        continue
                    for x_half, w_half in zip(inputs[row], weight):
                        sums[flat] = llvm.call_intrinsic(i32(), SMLAD,
                                                         [x_half, w_half, sums[flat]], [], [])
        result = vector.from_elements(contract.results[0].type, sums)
    contract.results[0].replace_all_uses_with(result)
    contract.erase()


@dataclass(eq=False)
class BytePairForm:
    """How byte-pair SMLADs compute a chain of contractions: the chain, its
    channels' scaled starts (smlad_byte_pairs) and, for a matrix-vector
    product, its row's packed words (None for a conv's packed window,
    which its contractions read as they read the extension)."""
    chain: byte_pairs.ScaledChain
    start_values: np.ndarray
    packed_row: ir.Value | None = None


def byte_pair_form(chains: list[list[ir.Operation]], loops: list[ir.Operation], position: int,
                   products: dict[ir.Operation, DotProduct]) -> BytePairForm | None:
    """The byte-pair form of the chains of contractions into one tile, if
    they have one: every one an int8 product over the same weights, reading
    its rows along the reduction, the tile started from a bias, every
    accumulator exact in 24 bits, every weight pair encodable, and every
    chain's start the same (a conv tile's pixels)."""
    contracts = [contract for chain in chains for contract in chain]
    if any(contract not in products for contract in contracts):
        return None
    chain_products = [products[contract] for contract in contracts]
    first = chain_products[0]
    weights = first.weights
    for product in chain_products:
        row = traced_read(product.lhs)
        same = product.weights
        if row is None or row.dims[-1] != ir.RankedTensorType(row.source.type).rank - 1 \
                or not byte_pairs.same_sum(row.offsets[-1], same.offsets[same.reduction_dim]) \
                or (same.constant, same.reduction_dim, same.channel_dim, product.channels,
                    product.channel_of) != (weights.constant, weights.reduction_dim,
                                            weights.channel_dim, first.channels,
                                            first.channel_of) \
                or product.channel_of != [f % product.channels
                                          for f in range(len(product.channel_of))]:
            return None
    started = byte_pairs.bias_start(loops[-1], position, first.channels,
                                    weights.offsets[weights.channel_dim])
    if started is None or byte_pairs.pair_encoded(transposed_weights(weights)) is None:
        return None
    scaled = byte_pairs.ScaledChain(chains, loops, position, *started)
    array = np.array(ir.DenseIntElementsAttr(weights.constant.attributes["value"]))
    starts = [byte_pairs.scaled_start(scaled, array, [
        byte_pairs.WeightUse(p.weights.offsets, p.weights.reduction_dim, p.reduction,
                             p.weights.channel_dim) for p in map(products.__getitem__, chain)])
        for chain in chains]
    first_start = starts[0]
    if first_start is None or any(start is None or not np.array_equal(start, first_start)
                                  for start in starts):
        return None
    return BytePairForm(scaled, first_start)


def byte_pair_chains(products: dict[ir.Operation, DotProduct],
                     cache: dict[tuple, ir.Value]) -> list[BytePairForm]:
    """The chains of contractions that take the byte-pair form, their
    inputs packed: a matrix-vector product's int8 row into a new int16
    tensor, once per row, before the layer's loops (where its channels
    save what the packing costs); a conv's int16 window (tinyml-widen-conv-
    inputs) in place of its extension, the extension marked `BYTE_PAIRS`
    (the same two bytes a value, staged as the extension was), where every
    chain reading the window takes the form (a chain whose every window is
    packed)."""
    forms: dict[ir.Operation, BytePairForm | None] = {}
    for contract in products:
        if contract not in forms:
            carried = byte_pairs.accumulation(contract)
            form = None if carried is None else byte_pair_form(*carried, products)
            forms.update({member: form for chain in (carried[0] if carried else [])
                          for member in chain})
            forms[contract] = form
    rows = {contract: traced_read(product.lhs) for contract, product in products.items()}
    # The window each contraction over an int16 window reads.
    window_of: dict[ir.Operation, ir.Operation] = {}
    for contract, product in products.items():
        row = rows[contract]
        if ir.VectorType(product.lhs.type).element_type == i16():
            extension = None if row is None else producer(row.source)
            tiles = ir.RankedTensorType(product.weights.constant.results[0].type).shape[
                product.weights.channel_dim] // product.channels
            if extension is None or WIDENED not in extension.attributes or (
                    tiles < PADDED_WINDOW_TILES and pads_channels(extension.operands[0])):
                forms[contract] = None
            else:
                window_of[contract] = extension
    readers: dict[ir.Operation, list[ir.Operation]] = {}
    for contract, extension in window_of.items():
        readers.setdefault(extension, []).append(contract)
    windows = {extension for extension, contracts in readers.items()
               if reads_only(extension.results[0],
                             [row.read for c in contracts if (row := rows[c]) is not None])}
    # A window is packed if every chain reading it takes the form; a
    # chain over windows takes it if each of its windows is packed.
    while True:
        refused = {forms[c] for c in products
                   if forms[c] is not None and c in window_of and window_of[c] not in windows}
        dropped = {extension for extension in windows
                   if any(forms[c] is None or forms[c] in refused for c in readers[extension])}
        for contract, form in forms.items():
            if form in refused:
                forms[contract] = None
        windows -= dropped
        if not refused and not dropped:
            break
    chosen: list[BytePairForm] = []
    packed_rows: list[tuple[ir.Value, ir.Value]] = []
    for contract, product in products.items():
        form, row = forms[contract], rows[contract]
        if form is None or form in chosen or contract in window_of:
            continue
        if row is not None and len(product.rows) == 1 and len(form.chain.contracts) == 1 \
                and all(n == 1 for n in ir.RankedTensorType(row.source.type).shape[:-1]):
            form.packed_row = matrix_vector_row(contract, product, form, row, packed_rows)
            if form.packed_row is not None:
                chosen.append(form)
    for extension in windows:
        chosen += [form for c in readers[extension] if (form := forms[c]) is not None]
        extension.attributes[BYTE_PAIRS] = ir.UnitAttr.get()
    return list(dict.fromkeys(chosen))


def matrix_vector_row(contract: ir.Operation, product: DotProduct, form: BytePairForm,
                      row: TracedRead, packed_rows: list[tuple[ir.Value, ir.Value]]) \
        -> ir.Value | None:
    """A matrix-vector product's row packed into P and Q words, once per row
    tensor (`packed_rows`), before the loops of the layer reading it; None
    where its channels would save less than the packing costs."""
    source = row.source
    packed_row = next((packed for value, packed in packed_rows if value == source), None)
    if packed_row is not None:
        return packed_row
    if not byte_pairs.pays(form.start_values.shape[0], product.channels):
        return None
    owner = source.owner if isinstance(source.owner, ir.Block) else source.owner.operation.block
    first = byte_pairs.ancestor_in(contract, owner)
    if first is None:
        return None
    packed_row = byte_pairs.packed_input(source, first)
    packed_rows.append((source, packed_row))
    return packed_row


#: Output channel tiles a window padded with channels must serve to be
#: packed: a group of four spans source and padding, so it is packed from
#: a padded int8 copy, which costs more than the byte pairs save on few
#: channels (a Keras MobileNet block's 3x3 stem, 4 tiles of 2 channels:
#: +0.2%; ResNet-8's, 8 tiles: -0.2%).
PADDED_WINDOW_TILES = 8


def pads_channels(window: ir.Value) -> bool:
    """Whether a window is padded with channels (an RGB image's 3 read as
    4), through the tile's branches and casts."""
    op = producer(window)
    if op is None:
        return False
    if op.name == "tensor.cast":
        return pads_channels(op.operands[0])
    if op.name == "scf.if":
        number = ir.OpResult(window).result_number
        return any(pads_channels(region.blocks[0].operations[
            len(region.blocks[0].operations) - 1].operands[number]) for region in op.regions)
    return op.name == "tensor.pad" and any(
        list(ir.DenseI64ArrayAttr(op.attributes[side]))[-1] != 0
        for side in ("static_low", "static_high"))


def reads_only(value: ir.Value, reads: list[ir.Operation]) -> bool:
    """Whether every live use of `value`, through `tensor.extract_slice`s,
    is one of `reads`."""
    for use in value.uses:
        user = use.owner
        if user.name == "tensor.extract_slice":
            if not reads_only(user.results[0], reads):
                return False
        elif not (user in reads or (len(user.results) and all(not list(r.uses)
                                                              for r in user.results))):
            return False  # a use, or a terminator (which has no results) passing it on
    return True


def emit_byte_pairs(contract: ir.Operation, product: DotProduct,
                    cache: dict[tuple, ir.Value], packed_row: ir.Value | None) -> None:
    """Replace `contract` by byte-pair SMLADs: each input row's P and Q
    words read from `packed_row` (a matrix-vector product's row packed
    apart) or from the contraction's own int16 rows (a packed window),
    each weight word multiplied as loaded and through one `SXTB16`. Its
    chain's accumulator is the caller's to rescale."""
    quads = product.reduction // WORD
    with ir.InsertionPoint(contract), contract.location:
        tile = weight_tile(product, cache, "byte-pairs")
        weight_words = [words(vector.extract(tile, [], [c]), quads)
                        for c in range(product.channels)]
        if packed_row is None:
            input_words = {r: words(input_row(product, r), 2 * quads) for r in product.rows}
        else:
            row = traced_read(product.lhs)
            assert row is not None, "a packed row is read where the contraction read it"
            rank = ir.RankedTensorType(packed_row.type).rank
            halves = vector.transfer_read(
                ir.VectorType.get([product.reduction], i16()), packed_row,
                [index_sum(terms) for terms in row.offsets],
                ir.AffineMap.get_minor_identity(rank, 1), arith.constant(i16(), 0), [True])
            input_words = {product.rows[0]: words(halves, 2 * quads)}
        sums = accumulator_elements(contract.operands[2])
        for q in range(quads):
            for channel in range(product.channels):
                weight = weight_words[channel][q]
                even = llvm.call_intrinsic(i32(), SXTB16, [weight], [], [])
                for flat, position in enumerate(product.row_of):
                    if product.channel_of[flat] != channel:
                        continue
                    p_word, q_word = input_words[position][2 * q], input_words[position][2 * q + 1]
                    sums[flat] = llvm.call_intrinsic(i32(), SMLAD, [p_word, weight, sums[flat]],
                                                     [], [])
                    sums[flat] = llvm.call_intrinsic(i32(), SMLAD, [q_word, even, sums[flat]],
                                                     [], [])
        result = vector.from_elements(contract.results[0].type, sums)
    contract.results[0].replace_all_uses_with(result)
    contract.erase()
