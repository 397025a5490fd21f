"""tinyml-unsigned-weights: an int8 tile's products on a core without the DSP
extension (ARMv6-M: the Cortex-M0) over weights stored 128 higher, so that
each weight is one zero-extending byte load.

Thumb-1 has no sign-extending load with an immediate offset (`LDRSB` takes
a register offset, which costs a register or a `MOVS` a load), and the M0
has eight low registers: a tile of one pixel and four output channels
holds its accumulators, one input value, one weight and two pointers. Its
multiply-accumulate is then `LDRB w, [weights, #imm]`, `MULS w, x`,
`ADDS acc, w` when the weight is unsigned. Stored as `w + 128` (0..255),
each product is `x (w + 128) = x w + 128 x`, so a pixel's accumulators are
`bias + x . w + 128 sum(x)`, the same extra term for every channel: the
tile starts from `bias - 128 sum(x)`, `sum(x)` computed by a loop of the
tile's reduction over its inputs alone, built outside the loops over
channel tiles (once per pixel). The result is bit-exact: every partial sum
is far inside int32 (a product is below 2^15 in magnitude).

The stored weights are laid out for the tile: channel tile first, its
channels innermost (`[cout / R][kh][kw][cin][R]` for a conv's
`[kh][kw][cin][cout]`, R the tile's channels), so that a reduction step's
weights are consecutive bytes at immediate offsets from one base.

The loops that sum a conv tile's inputs also stage them (`unsigned-inputs`,
on by default), each byte XORed by 0x80, `u = x + 128` (0..255), in the
order the tile's loops walk them, and the tile reads `u`: one
zero-extending byte load at an immediate offset where `x` took a `MOVS`
and a register-offset `LDRSB` (on the M0, a 1x1 conv's inner loop of 3.94
instructions per MAC becomes 3.50; VWW 42.48 -> 40.42 M, ResNet-8 64.45 ->
57.23 M, KWS 14.33 -> 14.00 M). Since `u (w + 128) = x w + 128 w + 128 u`,
the tile starts from `bias - 128 sum(w) - 128 sum(u)`: the bias constant
lowered by `128 sum(w)` at compile time, which needs the tile's loops to
walk each weight once. The stage takes arena, a window of the tile's
values (ResNet-8's 3x3 x 64 channels: 576 B, its arena 20,064 -> 20,640 B);
a compile under an SRAM budget no plan meets with it builds again
without. A matrix-vector product's row is its whole input, as much arena
again (the FC autoencoder's 640 values: 272 -> 768 B): it is read signed.

A contraction qualifies when its tile is one input row (one pixel, or a
matrix-vector product's row), its weights are an int8 constant read along
its reduction (the constant's last dimension but its channels) at a
multiple of its channel count, its tile is carried by loops of constant
bounds, and its inputs can be read outside every loop over its channel
tiles. A constant is stored +128 only when every read of it is such a
contraction's, with one channel count: it is never stored twice.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from mlir import ir
from mlir.dialects import arith, scf, tensor, vector

from ..ir.values import constant_int, producer
from ..ir.walk import is_inside, ops_named
from ..pipeline.registry import Option, Pass, register
from . import smlad_byte_pairs as byte_pairs
from .contract_to_smlad import (DotProduct, accumulator_elements, index_sum, int8_dot_product,
                                reads_only, sign_extended, traced_read)

#: What each weight is stored above its value: int8 becomes 0..255.
WEIGHT_OFFSET = 128
#: Ops an input read may go through to be read again outside the tile's
#: loops: pure, without regions.
CLONABLE = ("arith.", "affine.apply", "tensor.extract_slice", "vector.transfer_read",
            "vector.extract", "vector.extract_strided_slice", "vector.broadcast",
            "vector.shape_cast", "ub.poison")


def i8() -> ir.IntegerType:
    return ir.IntegerType.get_signless(8)


def i32() -> ir.IntegerType:
    return ir.IntegerType.get_signless(32)


@dataclass(eq=False)
class Tile:
    """A one-row tile: its contractions, each one's dot product and weight
    read, the loops carrying its accumulator (innermost first), the
    accumulator's position among the outermost one's iter_args, the op
    its input sum is computed before and the ops that sum reads again."""
    contracts: list[ir.Operation]
    products: list[DotProduct]
    weight_reads: list[ir.Operation]
    loops: list[ir.Operation]
    position: int
    anchor: ir.Operation | None = None
    input_ops: list[ir.Operation] = field(default_factory=list)
    stage: Stage | None = None
    staged: ir.Value | None = None


@dataclass(frozen=True)
class Stage:
    """A tile's input values staged unsigned, in the order its loops walk
    them: per iteration of the tile's loops (`loops`, innermost first, the
    innermost fastest), each contraction's row of `rows[i]` values in turn."""
    loops: tuple[ir.Operation, ...]
    rows: tuple[int, ...]

    @property
    def length(self) -> int:
        return int(np.prod([trips(loop) for loop in self.loops])) * sum(self.rows)

    def index(self, counters: list[ir.Value], row: int, value: int) -> ir.Value:
        """Where value `value` of contraction `row` is staged in the
        iteration the loops' induction variables `counters` are at: each
        counter's iteration number times the values staged per iteration
        of its loop, `(counter - low) * (per_iteration / step)` where that
        divides (the counter moves in steps)."""
        index = ir.IndexType.get()
        terms: list[ir.Value | int] = [sum(self.rows[:row]) + value]
        per_iteration = sum(self.rows)
        for loop, counter in zip(self.loops, counters):
            low, step = constant_int(loop.operands[0]), constant_int(loop.operands[2])
            assert low is not None and step is not None, "stage_of() checked the bounds"
            if trips(loop) > 1:
                moved = arith.subi(counter, arith.constant(index, low)) if low else counter
                if per_iteration % step:
                    moved = arith.divui(moved, arith.constant(index, step))
                    scale = per_iteration
                else:
                    scale = per_iteration // step
                terms.append(moved if scale == 1 else
                             arith.muli(moved, arith.constant(index, scale)))
            per_iteration *= trips(loop)
        return index_sum(terms)


@register
class UnsignedWeights(Pass):
    name = "tinyml-unsigned-weights"
    summary = ("Multiply one-pixel int8 tiles by weights stored +128 (zero-extending byte "
               "loads), each tile started at bias - 128 sum(x) (ARMv6-M)")
    options = (
        Option("unsigned-inputs", bool, True,
               "stage a conv tile's input values XORed by 0x80 and read them unsigned too "
               "(the stage takes arena: a 3x3 conv's window of 64 channels, 576 bytes)"),
    )
    unsigned_inputs: bool

    def apply(self, module):
        tiles = [tile for tile in one_row_tiles(module) if placed(tile)]
        # An op's hash follows its operands, which the rewrite changes: the
        # constants and their readers go by lists.
        readers: list[tuple[ir.Operation, list[Tile]]] = []
        for tile in tiles:
            for product in tile.products:
                constant = product.weights.constant
                entry = next((e for e in readers if e[0] == constant), None)
                if entry is None:
                    readers.append(entry := (constant, []))
                if tile not in entry[1]:
                    entry[1].append(tile)
        # A constant read by a refused tile keeps its layout, so every
        # tile reading it is refused too, until none is.
        refused: list[Tile] = []
        while changed := [tile for constant, group in readers
                          if any(t in refused for t in group) or not packable(constant, group)
                          for tile in group if tile not in refused]:
            refused += changed
        stored: list[tuple[ir.Operation, ir.Value]] = []
        for tile in tiles:
            if tile not in refused:
                tile.stage = stage_of(tile) if self.unsigned_inputs else None
                total, tile.staged = input_sum(tile)
                start_from(tile, total)
                for number, (contract, product) in enumerate(zip(tile.contracts, tile.products)):
                    use_unsigned_weights(tile, number, contract, product, stored)


def one_row_tiles(module: ir.Operation) -> list[Tile]:
    """The tiles whose every contraction is an int8 dot product of one
    input row, carried by loops of constant bounds."""
    tiles: list[Tile] = []
    for chains, products, loops, position in carried_int8_tiles(module, one_row=True):
        members = [member for chain in chains for member in chain]
        reads = [read for member in members if (read := weight_read(member)) is not None]
        if len(chains) == 1 and len(reads) == len(members):
            tiles.append(Tile(members, products, reads, loops, position))
    return tiles


def carried_int8_tiles(module: ir.Operation, one_row: bool = False, widened: bool = False) \
        -> list[tuple[list[list[ir.Operation]], list[DotProduct], list[ir.Operation], int]]:
    """Each tile whose contractions are all int8 dot products (`one_row`:
    of one input row each; `widened`: their inputs may be int8 values
    extended to int16), carried by loops of constant bounds
    (`byte_pairs.accumulation`): its chains of contractions, their dot
    products in chain order, the loops (innermost first) and the
    accumulator's position among the outermost one's iter_args."""
    inputs = (i8(), ir.IntegerType.get_signless(16)) if widened else (i8(),)
    products = [(c.operation, p) for c in ops_named(module, "vector.contract")
                if (p := int8_dot_product(c, multiple=1)) is not None
                and (len(p.rows) == 1 or not one_row)
                and ir.VectorType(p.lhs.type).element_type in inputs]
    tiles = []
    seen: list[ir.Operation] = []
    for contract, _ in products:
        if contract in seen:
            continue
        carried = byte_pairs.accumulation(contract)
        if carried is None:
            continue
        chains, loops, position = carried
        members = [member for chain in chains for member in chain]
        seen += members
        found = [p for member in members for c, p in products if c == member]
        if len(found) == len(members):
            tiles.append((chains, found, loops, position))
    return tiles


def weight_read(contract: ir.Operation) -> ir.Operation | None:
    """The `vector.transfer_read` of a contraction's int8 weights."""
    weights = sign_extended(contract.operands[1], i8())
    read = None if weights is None else traced_read(weights)
    return None if read is None else read.read


def placed(tile: Tile) -> bool:
    """Find where the tile's input sum can be computed: before the
    outermost op holding the tile's loops whose inputs are all defined
    outside it (reading them again there), which must hold every loop
    over the tile's channels; False if there is none, or the weights are
    not laid out for the tile (`layout_of`) or an input row is not read
    from a tensor as `traced_read` follows."""
    outer = tile.loops[-1]
    candidates = [outer]
    while (parent := candidates[-1].parent) is not None and parent.name == "scf.for":
        candidates.append(parent.operation)
    channel_loops = [loop for product in tile.products
                     for loop in induction_loops(
                         product.weights.offsets[product.weights.channel_dim])]
    for anchor in reversed(candidates):
        ops = input_slice(tile, anchor)
        if ops is not None and all(loop == anchor or is_inside(loop, anchor)
                                   for loop in channel_loops):
            tile.anchor, tile.input_ops = anchor, ops
            break
    return tile.anchor is not None and all(layout_of(p) is not None
                                           and traced_read(p.lhs) is not None
                                           for p in tile.products)


def stage_of(tile: Tile) -> Stage | None:
    """How the conv tile's input values can be staged unsigned: every
    contraction multiplies a row of one weight constant, and the tile's
    loops walk as many values as each channel has weights (each weight
    once: each channel's weights sum to its correction), from a bias that
    stays in int32 lowered by 128 sum(w); None otherwise."""
    constant = tile.products[0].weights.constant
    weights = ir.RankedTensorType(constant.results[0].type).shape
    if len(weights) != 4:
        return None  # a matrix-vector product's row is its whole input: more arena
    rows = []
    for product in tile.products:
        shape = ir.VectorType(product.lhs.type).shape
        if product.weights.constant != constant or int(np.prod(shape)) != shape[-1]:
            return None
        rows.append(shape[-1])
    if any(constant_int(v) is None for loop in tile.loops for v in loop.operands[:3]):
        return None
    stage = Stage(tuple(tile.loops), tuple(rows))
    per_channel = int(np.prod(weights)) // weights[tile.products[0].weights.channel_dim]
    if stage.length != per_channel or lowered_bias(tile) is None:
        return None
    return stage


def bias_chain(tile: Tile) -> list[ir.Operation] | None:
    """The transfers and slices the tile's accumulators start from, from
    the tile's first value back to the op reading a constant of one value
    per channel of the weights (the bias), each reading the one before."""
    weights = tile.products[0].weights
    channels = ir.RankedTensorType(weights.constant.results[0].type).shape[weights.channel_dim]
    value = tile.loops[-1].operands[3 + tile.position]
    chain: list[ir.Operation] = []
    followed = ("vector.transfer_write", "vector.transfer_read", "tensor.extract_slice")
    while (op := producer(value)) is not None and op.name in followed:
        chain.append(op)
        value = op.operands[0]
        source = producer(value)
        if source is not None and source.name == "arith.constant" \
                and op.name != "vector.transfer_write":
            return chain if ir.RankedTensorType(value.type).shape == [channels] else None
    return None


def lowered_bias(tile: Tile) -> ir.DenseElementsAttr | None:
    """The bias the tile starts from (`bias_chain`), `WEIGHT_OFFSET *
    sum(w)` lower for each channel, if it stays in int32."""
    chain = bias_chain(tile)
    bias = None if chain is None else producer(chain[-1].operands[0])
    if bias is None:
        return None
    weights = tile.products[0].weights
    array = np.array(ir.DenseIntElementsAttr(weights.constant.attributes["value"]))
    sums = array.astype(np.int64).sum(
        axis=tuple(d for d in range(array.ndim) if d != weights.channel_dim))
    lowered = np.array(ir.DenseIntElementsAttr(bias.attributes["value"])).astype(np.int64) \
        - WEIGHT_OFFSET * sums
    if not np.all((lowered >= -2 ** 31) & (lowered < 2 ** 31)):
        return None
    return ir.DenseElementsAttr.get(lowered.astype(np.int32),
                                    type=ir.RankedTensorType(bias.results[0].type))


def induction_loops(terms: list[ir.Value | int]) -> list[ir.Operation]:
    """The `scf.for` loops whose induction variables (not iter_args) are
    among `terms`."""
    loops = []
    for term in terms:
        if isinstance(term, ir.Value) and isinstance(term.owner, ir.Block) \
                and term.owner.owner.name == "scf.for" \
                and ir.BlockArgument(term).arg_number == 0:
            loops.append(term.owner.owner)
    return loops


def input_slice(tile: Tile, anchor: ir.Operation) -> list[ir.Operation] | None:
    """The ops inside `anchor` the tile's int8 input rows are computed by,
    in program order, if they can be computed again before it: clonable
    ops reading values defined outside `anchor` or the induction
    variables of the tile's loops."""
    inside: list[ir.Operation] = []
    pending = [product.lhs for product in tile.products]
    while pending:
        value = pending.pop()
        if isinstance(value.owner, ir.Block):
            holder = value.owner.owner
            if holder == anchor or is_inside(holder, anchor):
                if not (holder in tile.loops and ir.BlockArgument(value).arg_number == 0):
                    return None
            continue
        op = value.owner.operation
        if not (op == anchor or is_inside(op, anchor)) or op in inside:
            continue
        if not op.name.startswith(CLONABLE) or len(op.regions):
            return None
        inside.append(op)
        pending += list(op.operands)
    order: list[ir.Operation] = []

    def visit(op):
        if op.operation in inside:
            order.append(op.operation)
        return ir.WalkResult.ADVANCE

    anchor.walk(visit, ir.WalkOrder.PRE_ORDER)
    return order


@dataclass(frozen=True)
class Layout:
    """How a weight constant is stored for one-row tiles of `channels`
    output channels stepping `step` values along the reduction: channel
    tile first, then the dimensions the tile's loops walk (`walked`, in
    order), the reduction's step, the dimensions each step unrolls
    (`unrolled`), the step's values and the tile's channels, so that one
    iteration of the loops reads one run of consecutive bytes."""
    channel_dim: int
    reduction_dim: int
    walked: tuple[int, ...]
    unrolled: tuple[int, ...]
    step: int
    channels: int

    def stored(self, array: np.ndarray) -> np.ndarray:
        """`array` (the constant's values) in this layout."""
        order = [self.channel_dim, *self.walked, self.reduction_dim, *self.unrolled]
        values = np.transpose(array, order)
        shape = values.shape
        walked, unrolled = len(self.walked), len(self.unrolled)
        values = values.reshape(shape[0] // self.channels, self.channels, *shape[1:1 + walked],
                                shape[1 + walked] // self.step, self.step, *shape[2 + walked:])
        # [tiles, channels, walked.., steps, step, unrolled..] -> [tiles, walked.., steps,
        # unrolled.., step, channels]
        axes = [0, *range(2, 2 + walked), 2 + walked,
                *range(4 + walked, 4 + walked + unrolled), 3 + walked, 1]
        return np.ascontiguousarray(np.transpose(values, axes))

    def indices(self, offsets: list[list[ir.Value | int]], value: int,
                channel: int) -> list[ir.Value]:
        """The stored index of the weight `value` values into the step
        that starts at `offsets` (the constant's index, per dimension the
        terms of a sum), for the tile's `channel`."""
        index = ir.IndexType.get()

        def divided(terms: list[ir.Value | int], by: int) -> ir.Value:
            return arith.divui(index_sum(terms), arith.constant(index, by))

        return [divided(offsets[self.channel_dim], self.channels),
                *(index_sum(offsets[d]) for d in self.walked),
                divided(offsets[self.reduction_dim], self.step),
                *(index_sum(offsets[d]) for d in self.unrolled),
                arith.constant(index, value), arith.constant(index, channel)]


def layout_of(product: DotProduct) -> Layout | None:
    """The layout `product`'s weights are read in, if each of its channel
    and reduction offsets is a multiple of the tile's channels and step
    (constants, and counters of loops stepping by multiples of them)."""
    weights = product.weights
    rank = ir.RankedTensorType(weights.constant.results[0].type).rank
    step = ir.VectorType(product.lhs.type).shape[-1]
    if not (aligned(weights.offsets[weights.channel_dim], product.channels)
            and aligned(weights.offsets[weights.reduction_dim], step)):
        return None
    others = [d for d in range(rank) if d not in (weights.channel_dim, weights.reduction_dim)]
    walked = tuple(d for d in others if any(trips(loop) > 1 for loop in induction_loops(
        [t for t in weights.offsets[d] if isinstance(t, ir.Value)])))
    unrolled = tuple(d for d in others if d not in walked)
    return Layout(weights.channel_dim, weights.reduction_dim, walked, unrolled, step,
                  product.channels)


def trips(loop: ir.Operation) -> int:
    """How many times an `scf.for` runs (2, more than once, when its
    bounds are not constants)."""
    low, high, step = (constant_int(v) for v in loop.operands[:3])
    if low is None or high is None or step is None:
        return 2
    return -(-(high - low) // step)


def aligned(terms: list[ir.Value | int], multiple: int) -> bool:
    """Whether the index sum of `terms` is always a multiple of `multiple`."""
    for term in terms:
        if isinstance(term, int):
            if term % multiple:
                return False
            continue
        loops = induction_loops([term])
        if not loops or any(bound is None or bound % multiple for bound in (
                constant_int(loops[0].operands[0]), constant_int(loops[0].operands[2]))):
            return False
    return True


def packable(constant: ir.Operation, tiles: list[Tile]) -> bool:
    """Whether `constant` can be stored +128 for `tiles`: every read of it
    is one of theirs, all in one layout."""
    if not tiles:
        return False
    layouts = {layout_of(p) for tile in tiles for p in tile.products
               if p.weights.constant == constant}
    reads = [read for tile in tiles for read, p in zip(tile.weight_reads, tile.products)
             if p.weights.constant == constant]
    return len(layouts) == 1 and reads_only(constant.results[0], reads)


def input_sum(tile: Tile) -> tuple[ir.Value, ir.Value | None]:
    """`sum(x)` over every input value the tile's loops multiply, by loops
    of the same bounds built before the tile's anchor; with a staged row,
    `sum(u)` and the staged row."""
    index = ir.IndexType.get()
    loops = list(reversed(tile.loops))
    anchor = tile.anchor
    assert anchor is not None, "placed() found where the sum goes"
    with ir.InsertionPoint(anchor), anchor.location:
        def nest(level: int, carried: list[ir.Value],
                 mapping: list[tuple[ir.Value, ir.Value]]) -> list[ir.Value]:
            loop = loops[level]
            bounds = [arith.constant(index, constant_int(v)) for v in loop.operands[:3]]
            new = scf.ForOp(*bounds, carried)
            with ir.InsertionPoint(new.body):
                mapping = mapping + [(induction_variable(loop), new.induction_variable)]
                inner = list(new.inner_iter_args)
                if level + 1 < len(loops):
                    results = nest(level + 1, inner, mapping)
                else:
                    results = summed_inputs(tile, inner, mapping)
                scf.YieldOp(results)
            return list(new.results)

        carried = [arith.constant(i32(), 0)]
        if tile.stage is not None:
            carried.append(tensor.empty([tile.stage.length], i8()))
        results = nest(0, carried, [])
    return results[0], (results[1] if tile.stage is not None else None)


def induction_variable(loop: ir.Operation) -> ir.Value:
    return loop.regions[0].blocks[0].arguments[0]


def summed_inputs(tile: Tile, carried: list[ir.Value],
                  mapping: list[tuple[ir.Value, ir.Value]]) -> list[ir.Value]:
    """The total `carried[0]` plus every input value of one step of the
    tile's loops: the tile's input ops built again at the insertion point,
    the old loop counters replaced by the new ones (`mapping`); with a
    staged row, the step's values XORed by 0x80 written into it
    (`carried[1]`) and summed as unsigned."""
    def mapped(value: ir.Value) -> ir.Value:
        return next((new for old, new in mapping if old == value), value)

    for op in tile.input_ops:
        clone = op.clone(ir.InsertionPoint.current)
        for number, operand in enumerate(list(clone.operands)):
            clone.operands[number] = mapped(operand)
        mapping = mapping + list(zip(op.results, clone.results))
    total, staged = carried[0], carried[1:]
    for number, product in enumerate(tile.products):
        row = mapped(product.lhs)
        count = int(np.prod(ir.VectorType(row.type).shape))
        bytes_type = ir.VectorType.get([count], i8())
        flat = vector.shape_cast(bytes_type, row)
        words_type = ir.VectorType.get([count], i32())
        if tile.stage is None:
            wide = arith.extsi(words_type, flat)
        else:
            # XORed as words: the byte read zero-extended is already the
            # word, so the sum needs no extension of the XORed byte.
            wide = arith.xori(arith.extui(words_type, flat), arith.ConstantOp(
                words_type, ir.DenseElementsAttr.get_splat(
                    words_type, ir.IntegerAttr.get(i32(), WEIGHT_OFFSET))).result)
            at = tile.stage.index([mapped(induction_variable(loop)) for loop in tile.loops],
                                  number, 0)
            staged = [vector.transfer_write(staged[0].type, arith.trunci(bytes_type, wide),
                                            staged[0], [at],
                                            ir.AffineMap.get_minor_identity(1, 1), [True])]
        total = vector.reduction(i32(), vector.CombiningKind.ADD, wide, acc=total)
    return [total, *staged]


def start_from(tile: Tile, total: ir.Value) -> None:
    """Start the tile's accumulators `WEIGHT_OFFSET * total` lower, and
    with a staged row `WEIGHT_OFFSET` times each channel's weight sum."""
    if tile.stage is not None:
        lower_bias(tile)
    outer = tile.loops[-1]
    with ir.InsertionPoint(outer), outer.location:
        offset = arith.muli(total, arith.constant(i32(), WEIGHT_OFFSET))
        _, lowered = byte_pairs.rewritten_tile(
            outer.operands[3 + tile.position],
            lambda value: arith.subi(value, vector.broadcast(value.type, offset)))
    outer.operands[3 + tile.position] = lowered


def lower_bias(tile: Tile) -> None:
    """Start the tile from its `lowered_bias`: a constant of its own, read
    through copies of the transfers and slices the tile read the bias
    through (others may read those)."""
    chain, lowered = bias_chain(tile), lowered_bias(tile)
    assert chain is not None and lowered is not None, "stage_of() checked the bias"
    bias = chain[-1].operands[0]
    with ir.InsertionPoint(bias.owner), bias.owner.location:
        value = arith.ConstantOp(bias.type, lowered).result
    for op in reversed(chain):
        copy = op.clone(ir.InsertionPoint(op))
        copy.operands[0] = value
        value = copy.results[0]
    tile.loops[-1].operands[3 + tile.position] = value


def stored_weights(product: DotProduct, layout: Layout,
                   stored: list[tuple[ir.Operation, ir.Value]]) -> ir.Value:
    """The weight constant +128 in `layout`, built once."""
    constant = product.weights.constant
    found = next((value for c, value in stored if c == constant), None)
    if found is not None:
        return found
    array = layout.stored(np.array(ir.DenseIntElementsAttr(constant.attributes["value"])))
    values = (array.astype(np.int16) + WEIGHT_OFFSET).astype(np.uint8).view(np.int8)
    tensor_type = ir.RankedTensorType.get(list(values.shape), i8())
    with ir.InsertionPoint(constant), constant.location:
        value = arith.ConstantOp(tensor_type,
                                 ir.DenseElementsAttr.get(values, type=tensor_type)).result
    stored.append((constant, value))
    return value


def use_unsigned_weights(tile: Tile, number: int, contract: ir.Operation, product: DotProduct,
                         stored: list[tuple[ir.Operation, ir.Value]]) -> None:
    """Replace `contract` by scalar multiply-accumulates, input value by
    input value and channel by channel (the order the registers hold: the
    accumulators, one input value and one weight), each weight read +128
    from the stored constant and zero-extended, each input value from the
    tile's stage (zero-extended, the tile's `number`th row) if it has one."""
    layout = layout_of(product)
    assert layout is not None, "placed() checked the layout"
    row = traced_read(product.lhs)
    assert row is not None, "a one-row tile's input is a read (input_slice)"
    with ir.InsertionPoint(contract), contract.location:
        values = stored_weights(product, layout, stored)
        sums = accumulator_elements(contract.operands[2])
        for step in range(layout.step):
            if tile.staged is not None and tile.stage is not None:
                at = tile.stage.index([induction_variable(loop) for loop in tile.loops],
                                      number, step)
                value = arith.extui(i32(), tensor.extract(tile.staged, [at]))
            else:
                at = [index_sum(terms + ([step] if dim == row.dims[-1] else []))
                      for dim, terms in enumerate(row.offsets)]
                value = arith.extsi(i32(), tensor.extract(row.source, at))
            for channel in range(product.channels):
                weight = tensor.extract(values, layout.indices(product.weights.offsets, step,
                                                               channel))
                flat = product.channel_of.index(channel)
                sums[flat] = arith.addi(sums[flat],
                                        arith.muli(value, arith.extui(i32(), weight)))
        result = vector.from_elements(contract.results[0].type, sums)
    contract.results[0].replace_all_uses_with(result)
    contract.erase()
