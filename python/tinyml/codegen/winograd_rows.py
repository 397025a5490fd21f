"""tinyml-winograd-rows: an int8 conv tile of two pixels whose kernel rows
are 3 wide (a 3x3 conv, a spectrogram stem's 5x3) computed by Winograd's
minimal filtering F(2, 3) along each kernel row, in exact integer
arithmetic (ARMv6-M and the M3; with `smlad`, the DSP extension's dual
multiply-accumulates).

The M0 has one `MULS` per multiply: a direct conv's tile of two pixels
takes 2 x 3 products per kernel row, input channel and output channel.
F(2, 3) (Lavin and Gray, "Fast Algorithms for Convolutional Neural
Networks", 2016) takes 4: of the row's 4 input values d0..d3

    V = (d0 - d2, d1 + d2, d2 - d1, d1 - d3)
    U = (2 g0, g0 + g1 + g2, g0 - g1 + g2, 2 g2)    (the row's weights g,
                                                     doubled: no halves)
    M_e = sum over kernel rows and input channels of V_e U_e
    2 y0 = M_0 + M_1 + M_2,  2 y1 = M_1 - M_2 - M_3

so each output is exactly half an integer sum: the same int32 the direct
conv adds, bit for bit (|V| <= 255, |U + 384| <= 765: no partial sum
leaves int32 up to 3,669 kernel rows x input channels, which the pass
checks). The four sums M_e are four matrix-vector products over the
tile's reduction (kernel rows x input channels):
each is the M0's one-pixel inner loop, a value of V read once for four
output channels.

V is staged once per pixel pair, before the loop over channel tiles, as
int32 (`LDR` at an immediate offset). U is stored 384 higher, as
halfwords of 0..765, `[channel tile][e][kh * cin + c][channel]` (`LDRH`
at an immediate offset; Thumb-1's sign-extending loads take a register
offset): each `M_e` is then `384 sum(V_e)` too high, summed with the
stage. The weights take 8 bytes per kernel row and input-output channel
pair where int8 took 3 (tinyml-choose-tiles' `int-winograd-weight-bytes`
bounds them per conv).

With `smlad` (a core with the DSP extension) V and U are int16 pairs
along the reduction, two rows in a word (`[e][kh * C / 2 + c / 2]`,
`[channel tile][e][row pair][channel]`), each word pair one `SMLAD`: two
multiply-accumulates a load of U, the signed halfwords as they are (no
offset to take out). An odd channel count's last channel pairs its
kernel rows instead, after the others (an RGB stem: 9 rows in 5 words,
not a fourth, zero channel), the last row alone with a zero high half
(`row_pairs`). The window may then be the int16 one
tinyml-widen-conv-inputs stages.

A tile qualifies when its contractions read int8 values of one input
window `tensor<1xKHx4xCxi8>` (or its int16 extension) defined outside
the loop over its channel tiles and an int8 weight constant
`[KH][3][C][cout]` at that loop's counter, into an accumulator of two
pixels by its channels, and the products its loops make are, one for
one, the KHx3 conv's of the window (checked by enumerating them); and
when every read of the constant is such a tile's.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
from mlir import ir
from mlir.dialects import arith, llvm, scf, tensor, vector

from ..ir.values import constant_int
from ..ir.walk import is_inside
from ..pipeline.registry import Option, Pass, register
from . import smlad_byte_pairs as byte_pairs
from .contract_to_smlad import SMLAD, DotProduct, i16, reads_only, traced_read
from .unsigned_weights import carried_int8_tiles, i8, i32, induction_variable, weight_read

#: Bytes a conv's transformed weights take per kernel row and input-output
#: channel pair: 4 values of U, as halfwords (int8 took 3).
BYTES_PER_KERNEL_ROW = 8
#: What each transformed weight is stored above its value: -384..381
#: becomes 0..765, a halfword read zero-extended.
WEIGHT_OFFSET = 384
#: Rows of V a step of the matrix-vector loops reads, the most whose
#: loads all take immediate offsets from the step's two pointers: with
#: four output channels U's last halfword is at 62 bytes (`LDRH`'s most),
#: V's last word at 124 (`LDR`'s). M0 ResNet-8: 6 rows a step 48.91 M
#: instructions, 8 47.39 M, 12 56.17 M.
STEP = 8
#: Row pairs a step of the SMLAD loops reads (Thumb-2's `LDR` offsets
#: reach 4095 bytes: the step only amortizes the loop; M4 ResNet-8: 1 pair
#: 15.198 M instructions, 2 and 4 15.195 M, 6 15.129 M, text alike).
SMLAD_STEP = 6


@register
class WinogradRows(Pass):
    name = "tinyml-winograd-rows"
    summary = ("Compute two-pixel int8 conv tiles of 3-wide kernel rows by Winograd's F(2,3) "
               "along each row, in exact integer arithmetic (ARMv6-M, or SMLADs on the DSP "
               "extension)")
    options = (
        Option("smlad", bool, False,
               "multiply int16 pairs of V and U with SMLAD (a core with the DSP extension) "
               "instead of scalar multiply-accumulates over U stored +384 (ARMv6-M)"),
        Option("weight-bytes", int, 32768,
               "the most bytes a conv's transformed weights may take (8 per kernel row and "
               "input-output channel pair, where int8 takes 3): a larger conv is left direct",
               low=0, high=1 << 30),
    )
    smlad: bool
    weight_bytes: int

    def apply(self, module):
        tiles = [tile for tile in pixel_pair_tiles(module, self.smlad)
                 if transformed_bytes(*ir.RankedTensorType(tile.constant.results[0].type).shape)
                 <= self.weight_bytes]
        stored: list[tuple[ir.Operation, ir.Value]] = []
        stages: list[tuple[ir.Value, Stage]] = []
        for tile in tiles:
            readers = [t for t in tiles if t.constant == tile.constant]
            if not reads_only(tile.constant.results[0],
                              [read for t in readers for read in t.weight_reads]):
                continue
            stage = next((s for window, s in stages if window == tile.window), None)
            if stage is None:
                stage = staged(tile, self.smlad)
                stages.append((tile.window, stage))
            compute(tile, stage, transformed_weights(tile, stored, self.smlad), self.smlad)


def transformed_bytes(kernel_rows: int, kernel_columns: int, in_channels: int,
                      out_channels: int) -> int:
    """The bytes U takes for a conv of these weights' shape (KH x 3 x C x
    cout), its reduction's rows rounded up to SMLAD's pairs."""
    del kernel_columns  # F(2, 3)'s 3, which U's 4 values replace
    rows = kernel_rows * in_channels
    return BYTES_PER_KERNEL_ROW * (rows + rows % 2) * out_channels


def exact_in_int32(rows: int) -> bool:
    """Whether a reduction of `rows` kernel rows x channels keeps every
    sum in int32: |V| <= 255, U + 384 <= 765, and 2 y0 adds three M_e."""
    return 3 * rows * 255 * 765 < 2**31


@dataclass(eq=False)
class Tile:
    """A two-pixel conv tile: the loops carrying its accumulator (innermost
    first) and its position in the outermost one's iter_args, the loop
    over channel tiles (`channel_loop`) and its counter's offset into the
    weights' channels, the input window, the weight constant, its reads,
    and the tile's channels."""
    loops: list[ir.Operation]
    position: int
    channel_loop: ir.Operation
    window: ir.Value
    constant: ir.Operation
    weight_reads: list[ir.Operation]
    channels: int

    @property
    def input_channels(self) -> int:
        return ir.RankedTensorType(self.window.type).shape[3]

    @property
    def kernel_rows(self) -> int:
        return ir.RankedTensorType(self.window.type).shape[1]


@dataclass(frozen=True)
class Stage:
    """A window's V (`values[kh * C + c, e]`: a step's four values of one
    k at immediate offsets of one pointer) and the two outputs'
    corrections `384 (S0 + S1 + S2)` and `384 (S1 - S2 - S3)`, `S_e` the
    sum of `values[:, e]` (None for SMLAD's pairs: `[row pair, e]`, U
    stored as it is)."""
    values: ir.Value
    corrections: tuple[ir.Value, ir.Value] | None


def pixel_pair_tiles(module: ir.Operation, widened: bool = False) -> list[Tile]:
    """The tiles of int8 contractions that qualify (`widened`: their
    inputs may be int8 values extended to int16)."""
    tiles: list[Tile] = []
    for chains, products, loops, position in carried_int8_tiles(module, widened=widened):
        members = [member for chain in chains for member in chain]
        if (tile := qualified(members, products, loops, position)) is not None:
            tiles.append(tile)
    return tiles


def qualified(contracts: list[ir.Operation], products: list[DotProduct],
              loops: list[ir.Operation], position: int) -> Tile | None:
    """The tile of `contracts` (their dot products, carried by `loops` at
    `position`), if it qualifies (see the module's docstring)."""
    tile_type = ir.RankedTensorType(loops[-1].results[position].type)
    if len(loops[-1].results) != 1 or tile_type.element_type != i32() \
            or [d for d in tile_type.shape if d != 1] != [2, products[0].channels] \
            or tile_type.shape[-1] != products[0].channels:
        return None
    if any(int(np.prod(ir.VectorType(c.results[0].type).shape)) != 2 * products[0].channels
           for c in contracts):
        return None  # each contraction accumulates the whole tile
    reads = [read for p in products if (read := traced_read(p.lhs)) is not None]
    weight_reads = [read for c in contracts if (read := weight_read(c)) is not None]
    if len(reads) != len(products) or len(weight_reads) != len(contracts):
        return None
    window = reads[0].source
    constant = products[0].weights.constant
    window_type = ir.RankedTensorType(window.type)
    weight_type = ir.RankedTensorType(constant.results[0].type)
    if any(r.source != window for r in reads) \
            or any(p.weights.constant != constant for p in products) \
            or window_type.element_type not in (i8(), i16()) \
            or window_type.shape[0] != 1 or window_type.shape[2] != 4 \
            or list(weight_type.shape[:3]) != [window_type.shape[1], 3, window_type.shape[3]] \
            or weight_type.shape[3] % products[0].channels \
            or not exact_in_int32(window_type.shape[1] * window_type.shape[3]):
        return None
    channels = products[0].channels
    channel_loop = counter_loop(products[0].weights.offsets[3])
    if channel_loop is None or not is_inside(loops[-1], channel_loop) \
            or defined_inside(window, channel_loop) \
            or any(bound is None or bound % channels for bound in (
                constant_int(channel_loop.operands[0]), constant_int(channel_loop.operands[2]))):
        return None  # the channel tile, counter / channels, indexes the stored weights
    tile = Tile(loops, position, channel_loop, window, constant, weight_reads, channels)
    return tile if makes_conv_products(tile, products) else None


def counter_loop(terms: list[ir.Value | int]) -> ir.Operation | None:
    """The `scf.for` whose counter the index sum `terms` is, exactly."""
    values = [t for t in terms if isinstance(t, ir.Value)]
    if len(values) != 1 or sum(t for t in terms if isinstance(t, int)) != 0:
        return None
    value = values[0]
    if not isinstance(value.owner, ir.Block) or value.owner.owner.name != "scf.for" \
            or ir.BlockArgument(value).arg_number != 0:
        return None
    return value.owner.owner


def defined_inside(value: ir.Value, holder: ir.Operation) -> bool:
    owner = value.owner
    op = owner.owner if isinstance(owner, ir.Block) else owner.operation
    return op == holder or is_inside(op, holder)


def makes_conv_products(tile: Tile, products: list[DotProduct]) -> bool:
    """Whether the tile's loops, run, multiply exactly the pairs the conv
    does: for each pixel p and channel j, window[0, kh, p + kw, c] by
    weights[kh, kw, c, counter + j], each once."""
    counters = [induction_variable(loop) for loop in tile.loops] \
        + [induction_variable(tile.channel_loop)]
    trip_values = []
    for loop in tile.loops:
        low, high, step = (constant_int(v) for v in loop.operands[:3])
        if low is None or high is None or step is None:
            return False
        trip_values.append(range(low, high, step))
    reads = [traced_read(product.lhs) for product in products]
    sums = [(linear(read.offsets, counters), linear(product.weights.offsets, counters))
            for read, product in zip(reads, products) if read is not None]
    if len(sums) != len(products) or any(a is None or b is None for a, b in sums):
        return False
    made: list[tuple[int, ...]] = []
    for values in itertools.product(*trip_values, [0]):  # the channel tile at 0
        for product, read, (lhs_sums, weight_sums) in zip(products, reads, sums):
            assert read is not None and lhs_sums is not None and weight_sums is not None
            lhs_base = [c + sum(values[i] for i in terms) for c, terms in lhs_sums]
            weight_base = [c + sum(values[i] for i in terms) for c, terms in weight_sums]
            k_values = ir.VectorType(product.lhs.type).shape[-1]
            for element, (row, channel) in enumerate(zip(product.row_of, product.channel_of)):
                if channel != element % tile.channels:
                    return False
                for k in range(k_values):
                    source = list(lhs_base)
                    for dim, offset in zip(read.dims, (*row, k)):
                        source[dim] += offset
                    weight = list(weight_base)
                    weight[product.weights.reduction_dim] += k
                    weight[product.weights.channel_dim] += channel
                    made.append((element // tile.channels, channel, *source, *weight))
    wanted = [(p, j, 0, kh, p + kw, c, kh, kw, c, j)
              for p in range(2) for j in range(tile.channels) for kh in range(tile.kernel_rows)
              for kw in range(3) for c in range(tile.input_channels)]
    return len(made) == len(wanted) and sorted(made) == sorted(wanted)


def linear(offsets: list[list[ir.Value | int]],
           counters: list[ir.Value]) -> list[tuple[int, list[int]]] | None:
    """Each dimension's index sum as its constant and the positions in
    `counters` of the counters it adds; None if a term is anything else."""
    result = []
    for terms in offsets:
        constant, added = 0, []
        for term in terms:
            if isinstance(term, int):
                constant += term
                continue
            position = next((i for i, counter in enumerate(counters) if counter == term), None)
            if position is None:
                return None
            added.append(position)
        result.append((constant, added))
    return result


def transformed_weights(tile: Tile, stored: list[tuple[ir.Operation, ir.Value]],
                        smlad: bool) -> ir.Value:
    """The tile's weight constant as U + 384, `[cout / R][e][kh * C + c][R]`
    halfwords (R the tile's channels), or with `smlad` U itself, its rows
    in pairs, `[cout / R][e][row pair][R]` words; built once."""
    found = next((value for c, value in stored if c == tile.constant), None)
    if found is not None:
        return found
    g = np.array(ir.DenseIntElementsAttr(tile.constant.attributes["value"])).astype(np.int64)
    u = np.stack([2 * g[:, 0], g[:, 0] + g[:, 1] + g[:, 2], g[:, 0] - g[:, 1] + g[:, 2],
                  2 * g[:, 2]])  # [e][kh][c][cout]
    rows, channels = tile.kernel_rows * tile.input_channels, g.shape[3]
    u = u.reshape(4, rows, channels // tile.channels, tile.channels).transpose(2, 0, 1, 3)
    if smlad:
        halves = np.concatenate([u, np.zeros_like(u[:, :, :1])], axis=2).astype(np.uint32) \
            & 0xFFFF  # row `rows`: an unpaired row's zero high half
        low, high = zip(*((a, rows if b is None else b)
                          for a, b in row_pairs(tile.kernel_rows, tile.input_channels)))
        values = (halves[:, :, list(low)] | halves[:, :, list(high)] << 16).view(np.int32)
        element = i32()
    else:
        values = (u + WEIGHT_OFFSET).astype(np.int16)
        element = i16()
    tensor_type = ir.RankedTensorType.get(list(values.shape), element)
    with ir.InsertionPoint(tile.constant), tile.constant.location:
        value = arith.ConstantOp(tensor_type,
                                 ir.DenseElementsAttr.get(np.ascontiguousarray(values),
                                                          type=tensor_type)).result
    stored.append((tile.constant, value))
    return value


def staged(tile: Tile, smlad: bool) -> Stage:
    """V of the tile's window and its corrections (with `smlad`, V's rows
    in int16 pairs (`row_pairs`) and none), computed before the loop over
    channel tiles."""
    index, word = ir.IndexType.get(), i32()
    channels, kernel_rows = tile.input_channels, tile.kernel_rows
    anchor = tile.channel_loop
    with ir.InsertionPoint(anchor), anchor.location:
        def constant(value: int) -> ir.Value:
            return arith.constant(index, value)

        def transform(kh: ir.Value, c: ir.Value) -> tuple[list[ir.Value], list[ir.Value]]:
            """A kernel row's window values d and their V."""
            d = [arith.extsi(word, tensor.extract(tile.window, [constant(0), kh, constant(x), c]))
                 for x in range(4)]
            return d, [arith.subi(d[0], d[2]), arith.addi(d[1], d[2]),
                       arith.subi(d[2], d[1]), arith.subi(d[1], d[3])]

        def packed(low: list[ir.Value], high: list[ir.Value] | None) -> list[ir.Value]:
            """Two rows' V as int16 pairs, `high` in the high halfword (PKHBT)."""
            mask = arith.constant(word, 0xFFFF)
            return [arith.andi(a, mask) if high is None
                    else arith.ori(arith.andi(a, mask), arith.shli(b, arith.constant(word, 16)))
                    for a, b in zip(low, high or low)]

        zero = arith.constant(word, 0)
        pairs = row_pairs(kernel_rows, channels) if smlad else []
        per_row = channels // 2 if smlad else channels
        values = tensor.empty([len(pairs) if smlad else kernel_rows * channels, 4], word)
        sums = [] if smlad else [zero, zero]
        if per_row:
            rows = scf.ForOp(constant(0), constant(kernel_rows), constant(1), [values, *sums])
            with ir.InsertionPoint(rows.body):
                kh = rows.induction_variable
                columns = scf.ForOp(constant(0), constant(2 * per_row if smlad else channels),
                                    constant(2 if smlad else 1), list(rows.inner_iter_args))
                with ir.InsertionPoint(columns.body):
                    c = columns.induction_variable
                    d, v = transform(kh, c)
                    step = arith.divui(c, constant(2)) if smlad else c
                    at = arith.addi(arith.muli(kh, constant(per_row)), step)
                    values, *sums = columns.inner_iter_args
                    if smlad:
                        v = packed(v, transform(kh, arith.addi(c, constant(1)))[1])
                    for e in range(4):
                        values = tensor.insert(v[e], values, [at, constant(e)])
                    if not smlad:
                        # S0 + S1 + S2 = sum(d0 + d2), S1 - S2 - S3 = sum(d1 + d3).
                        even, odd = sums
                        sums = [arith.addi(even, arith.addi(d[0], d[2])),
                                arith.addi(odd, arith.addi(d[1], d[3]))]
                    scf.YieldOp([values, *sums])
                scf.YieldOp(list(columns.results))
            values, *sums = rows.results
        last = constant(channels - 1)
        for at, (low, high) in enumerate(pairs[kernel_rows * per_row:], kernel_rows * per_row):
            # An odd channel count's last channel: its kernel rows paired.
            v = packed(transform(constant(low // channels), last)[1],
                       None if high is None else transform(constant(high // channels), last)[1])
            for e in range(4):
                values = tensor.insert(v[e], values, [constant(at), constant(e)])
        if smlad:
            return Stage(values, None)
        offset = arith.constant(word, WEIGHT_OFFSET)
        first, second = (arith.muli(offset, total) for total in sums)
    return Stage(values, (first, second))


def row_pairs(kernel_rows: int, channels: int) -> list[tuple[int, int | None]]:
    """The reduction's rows (`kh * channels + c`) two to an SMLAD word, in
    the order the stage and U store them: each kernel row's channels in
    pairs, then an odd count's last channel over kernel rows in pairs (the
    last one alone when those are odd too)."""
    pairs: list[tuple[int, int | None]] = [
        (kh * channels + c, kh * channels + c + 1)
        for kh in range(kernel_rows) for c in range(0, channels - 1, 2)]
    if channels % 2:
        last = [kh * channels + channels - 1 for kh in range(kernel_rows)]
        pairs += [(last[k], last[k + 1] if k + 1 < kernel_rows else None)
                  for k in range(0, kernel_rows, 2)]
    return pairs


def compute(tile: Tile, stage: Stage, weights: ir.Value, smlad: bool) -> None:
    """Replace the tile's loops by its four matrix-vector products (with
    `smlad`, over row pairs) and their sums into the accumulators the loops
    started from."""
    index, word = ir.IndexType.get(), i32()
    outer = tile.loops[-1]
    rows = ir.RankedTensorType(stage.values.type).shape[0]  # of V: rows, or row pairs
    most = SMLAD_STEP if smlad else STEP
    step = max(s for s in range(1, most + 1) if rows % s == 0)
    with ir.InsertionPoint(outer), outer.location:
        def constant(value: int) -> ir.Value:
            return arith.constant(index, value)

        start = outer.operands[3 + tile.position]
        channel_tile = arith.divui(induction_variable(tile.channel_loop),
                                   constant(tile.channels))
        sums = []
        for e in range(4):
            zero = arith.constant(word, 0)
            loop = scf.ForOp(constant(0), constant(rows), constant(step),
                             [zero] * tile.channels)
            with ir.InsertionPoint(loop.body):
                accumulators = list(loop.inner_iter_args)
                for s in range(step):
                    at = arith.addi(loop.induction_variable, constant(s))
                    v = tensor.extract(stage.values, [at, constant(e)])
                    for j in range(tile.channels):
                        u = tensor.extract(weights, [channel_tile, constant(e), at, constant(j)])
                        accumulators[j] = llvm.call_intrinsic(
                            word, SMLAD, [v, u, accumulators[j]], [], []) if smlad \
                            else arith.addi(accumulators[j], arith.muli(v, arith.extui(word, u)))
                scf.YieldOp(accumulators)
            sums.append(list(loop.results))
        one = arith.constant(word, 1)
        first, second = stage.corrections or (arith.constant(word, 0),) * 2
        outputs = [arith.shrsi(arith.subi(arith.addi(arith.addi(m0, m1), m2), first), one)
                   for m0, m1, m2 in zip(sums[0], sums[1], sums[2])] \
            + [arith.shrsi(arith.subi(arith.subi(arith.subi(m1, m2), m3), second), one)
               for m1, m2, m3 in zip(sums[1], sums[2], sums[3])]
        _, result = byte_pairs.rewritten_tile(start, lambda before: arith.addi(
            before, vector.from_elements(before.type, outputs)))
    outer.results[tile.position].replace_all_uses_with(result)
    outer.erase()
