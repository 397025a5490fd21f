"""tinyml-pair-depthwise-taps: an int8 depthwise tile's kernel row of 3
taps over stride-1 pixels, two pixels at a time in one word of input, on a
core with the DSP extension (CMSIS-NN's depthwise kernels pair taps the
same way).

A quantized depthwise tile is a row of P pixels of one channel (tinyml-
choose-tiles); per kernel row it reads P + 2 consecutive input bytes and
adds, for each tap t, `extsi(x[p + t]) * extsi(w[t])` to pixel p's
accumulator: one byte load per value and one `SMLABB` per MAC. One word
loaded at pixel p holds x[p .. p + 3]; `SXTB16` of it is the halfword pair
(x[p], x[p + 2]), of it rotated by 8 (x[p + 1], x[p + 3]). With the kernel
row's taps 0 and 2 packed into one word (w0, w2):

    acc[p]     += SMLAD(A, (w0, w2)) + SMLABB(B, w1)     x[p] w0 + x[p+2] w2 + x[p+1] w1
    acc[p + 1] += SMLAD(B, (w0, w2)) + SMLATB(A, w1)     x[p+1] w0 + x[p+3] w2 + x[p+2] w1

for A = SXTB16(word), B = SXTB16(word ROR 8): six MACs in one load, two
extensions and four multiply-accumulates, where the byte form takes three
loads (shared along the row) and six `SMLABB`s. int32 addition in any
order is the same modulo 2^32: bit for bit the same sums. A row's last
pixel of an odd count keeps its byte form (its word would read past the
row).

The pattern, before tinyml-lower-vectors: the three taps' products
`muli(extsi(extract_strided_slice(R, [t, 0], [P, 1])), extsi(broadcast(w_t)))`,
each added in turn to the accumulator `vector<Px1xi32>`, where R is
`from_elements` of P + 2 single-byte reads of one memref at consecutive
indices of a dimension along which its bytes are consecutive. Any other
row is left as it is. The kernel-row loops of the rows paired (of at most
`UNROLLED_ROWS` rows) are then unrolled (`transform.loop.unroll`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from mlir import ir
from mlir.dialects import arith, llvm, vector
from mlir.dialects.transform import interpreter

from ..ir.values import constant_int, producer, sole_user
from ..ir.walk import ops_named
from ..pipeline.registry import Pass, register
from .attach_transform_script import ANY
from .contract_to_smlad import SMLAD, halfword_pairs, i32
from .lower_copies import collapsed, contiguous_from

SMLABB = "llvm.arm.smlabb"
SMLATB = "llvm.arm.smlatb"
#: Taps a kernel row pairs: 0 and 2 in a word, 1 alone.
TAPS = 3
#: The attribute marking a kernel-row loop to unroll (its trip count): with
#: the intrinsics llc's unroller leaves it rolled, and its accumulators go
#: through the stack (KWS's depthwise layers 221.5 K instructions each in
#: bytes, 272.8 K paired but rolled, 221.5 K unrolled on the M4).
UNROLL = "tinyml.unroll"
#: The most kernel rows a loop is unrolled over.
UNROLLED_ROWS = 8


@register
class PairDepthwiseTaps(Pass):
    name = "tinyml-pair-depthwise-taps"
    summary = ("Pair an int8 depthwise row's taps 0 and 2 over two stride-1 pixels in SMLADs "
               "(Cortex-M DSP extension)")

    def apply(self, module):
        loops = []
        for row in kernel_rows(module):
            rewrite(row)
            loop = row.last.parent
            trips = trip_count(loop)
            if trips is not None and trips <= UNROLLED_ROWS and loop not in loops:
                loop.attributes[UNROLL] = ir.IntegerAttr.get(
                    ir.IntegerType.get_signless(64), trips)
                loops.append(loop)
        unroll_marked(module, {trip_count(loop) for loop in loops})


def trip_count(loop: ir.Operation) -> int | None:
    """The iterations of the `scf.for` `loop` when its bounds and step are constants."""
    if loop.name != "scf.for":
        return None
    lower, upper, step = (constant_int(v) for v in list(loop.operands)[:3])
    if lower is None or upper is None or not step:
        return None
    return max(0, -(-(upper - lower) // step))


def unroll_marked(module: ir.Operation, counts: set[int | None]) -> None:
    """Fully unroll each `scf.for` marked `UNROLL` (its trip count)."""
    lines = ["module attributes {transform.with_named_sequence} {",
             f"  transform.named_sequence @unroll(%module: {ANY} {{transform.readonly}}) {{"]
    for count in sorted(c for c in counts if c):
        lines += [f"    %loops_{count} = transform.structured.match ops{{[\"scf.for\"]}} "
                  f"attributes{{{UNROLL} = {count} : i64}} in %module : ({ANY}) -> {ANY}",
                  f"    transform.foreach %loops_{count} : {ANY} {{",
                  f"    ^bb0(%loop: {ANY}):",
                  f"      transform.loop.unroll %loop {{factor = {count}}} : {ANY}",
                  "    }"]
    lines += ["    transform.yield", "  }", "}"]
    script = ir.Module.parse("\n".join(lines), module.context)
    interpreter.apply_named_sequence(module, script.body.operations[0], script)


@dataclass
class KernelRow:
    """One kernel row's multiply-accumulates of a depthwise tile."""
    accumulator: ir.Value        # vector<Px1xi32> the row adds to
    last: ir.Operation           # the addi giving the row's sum
    weights: list[ir.Value]      # vector<1xi8> per tap
    reads: list[ir.Operation]    # the P + 2 single-byte reads of the input row


def kernel_rows(module: ir.Operation) -> list[KernelRow]:
    rows = []
    for first in ops_named(module, "vector.extract_strided_slice"):
        if slice_offset(first) == 0:
            row = kernel_row(first)
            if row is not None:
                rows.append(row)
    return rows


def slice_offset(op: ir.Operation) -> int | None:
    """The row offset of a `[P, 1]` slice of a `[P + 2, 1]` byte row, if `op` is one."""
    source = ir.VectorType(op.operands[0].type)
    result = ir.VectorType(op.results[0].type)
    if len(result.shape) != 2 or result.shape[1] != 1 or source.shape[0] != result.shape[0] + 2 \
            or ir.IntegerType(result.element_type).width != 8:
        return None
    offsets = [ir.IntegerAttr(a).value for a in ir.ArrayAttr(op.attributes["offsets"])]
    strides = [ir.IntegerAttr(a).value for a in ir.ArrayAttr(op.attributes["strides"])]
    return offsets[0] if offsets[1] == 0 and strides == [1, 1] else None


def tap_product(tap_slice: ir.Operation) -> tuple[ir.Operation, ir.Value] | None:
    """(the muli, the tap's weight vector<1xi8>) of a row slice's product."""
    extension = sole_user(tap_slice.results[0], "arith.extsi")
    if extension is None \
            or ir.IntegerType(ir.VectorType(extension.results[0].type).element_type).width != 32:
        return None
    product = sole_user(extension.results[0], "arith.muli")
    if product is None:
        return None
    other = [v for v in product.operands if v != extension.results[0]]
    weight_extension = producer(other[0]) if len(other) == 1 else None
    if weight_extension is None or weight_extension.name != "arith.extsi":
        return None
    broadcast = producer(weight_extension.operands[0])
    if broadcast is None or broadcast.name != "vector.broadcast" \
            or ir.VectorType(broadcast.operands[0].type).shape != [1]:
        return None
    return product, broadcast.operands[0]


def kernel_row(first: ir.Operation) -> KernelRow | None:
    source = first.operands[0]
    slices = {slice_offset(use.owner.operation): use.owner.operation for use in source.uses
              if use.owner.operation.name == "vector.extract_strided_slice"}
    if sorted(k for k in slices if k is not None) != list(range(TAPS)) or len(slices) != TAPS:
        return None
    products = [p for p in (tap_product(slices[t]) for t in range(TAPS)) if p is not None]
    if len(products) != TAPS:
        return None
    chain = accumulation([multiply for multiply, _ in products])
    reads = byte_reads(source)
    if chain is None or reads is None:
        return None
    accumulator, last = chain
    return KernelRow(accumulator, last, [weight for _, weight in products], reads)


def accumulation(products: list[ir.Operation]) -> tuple[ir.Value, ir.Operation] | None:
    """(the accumulator, the last add) when `products` are added one by one
    to an accumulator, each sum used only by the next add."""
    adds = [a for a in (sole_user(p.results[0], "arith.addi") for p in products)
            if a is not None]
    if len(adds) != len(products):
        return None
    sums = [add.results[0] for add in adds]

    def other(add: ir.Operation, product: ir.Operation) -> ir.Value:
        lhs, rhs = add.operands
        return rhs if lhs == product.results[0] else lhs

    starts = [(add, other(add, p)) for add, p in zip(adds, products) if other(add, p) not in sums]
    if len(starts) != 1:
        return None
    add, accumulator = starts[0]
    for _ in range(len(products) - 1):
        following = sole_user(add.results[0], "arith.addi")
        if following is None or following not in adds:
            return None
        add = following
    return accumulator, add


def byte_reads(row: ir.Value) -> list[ir.Operation] | None:
    """The single-byte reads `row` is made of, in order, when they read
    consecutive bytes of one memref (indices that step by one along a
    dimension whose elements are consecutive)."""
    made = producer(row)
    if made is None or made.name != "vector.from_elements":
        return None
    reads = []
    for element in made.operands:
        split = producer(element)
        read = producer(split.operands[0]) if split is not None \
            and split.name == "vector.to_elements" else None
        if read is None or read.name != "vector.transfer_read" \
                or ir.VectorType(read.results[0].type).shape != [1]:
            return None
        reads.append(read)
    source = reads[0].operands[0]
    t = ir.MemRefType(source.type)
    indices = [list(r.operands[1:1 + t.rank]) for r in reads]
    if any(r.operands[0] != source for r in reads):
        return None
    varying = [d for d in range(t.rank) if any(ix[d] != indices[0][d] for ix in indices)]
    if len(varying) != 1:
        return None
    dimension = varying[0]
    steps = [index_offset(ix[dimension], indices[0][dimension]) for ix in indices]
    if steps != list(range(len(reads))) or contiguous_from(t) > dimension \
            or int(np.prod(t.shape[dimension + 1:])) != 1:
        return None
    return reads


def index_offset(index: ir.Value, base: ir.Value) -> int | None:
    """`index - base` when it is a known constant."""
    if index == base:
        return 0
    a, b = constant_int(index), constant_int(base)
    if a is not None and b is not None:
        return a - b
    op = producer(index)
    if op is not None and op.name == "arith.addi" and base in list(op.operands):
        step = [v for v in op.operands if v != base]
        return constant_int(step[0]) if step else None
    if op is not None and op.name == "affine.apply" and list(op.operands) == [base]:
        return shift_of(ir.AffineMapAttr(op.attributes["map"]).value)
    return None


def shift_of(map: ir.AffineMap) -> int | None:
    """c, when `map` is (d0) -> (d0 + c)."""
    if map.n_dims != 1 or map.n_symbols != 0 or len(map.results) != 1:
        return None
    add = map.results[0]
    if isinstance(add, ir.AffineAddExpr) and isinstance(add.lhs, ir.AffineDimExpr) \
            and isinstance(add.rhs, ir.AffineConstantExpr):
        return add.rhs.value
    return None


def rewrite(row: KernelRow) -> None:
    last = row.last
    result_type = ir.VectorType(last.results[0].type)
    pixels = result_type.shape[0]
    read = row.reads[0]
    source = read.operands[0]
    t = ir.MemRefType(source.type)
    first = contiguous_from(t)
    index = ir.IndexType.get()
    with ir.InsertionPoint(last), last.location:
        flat = collapsed(source, first)
        indices = list(read.operands[1:1 + t.rank])
        linear = arith.constant(index, 0)
        for d in range(first, t.rank):
            scale = arith.constant(index, int(np.prod(t.shape[d + 1:])))
            linear = arith.addi(linear, arith.muli(indices[d], scale))
        outer = indices[:first]
        w = [arith.extsi(i32(), vector.extract(weight, [], [0])) for weight in row.weights]
        low = arith.andi(w[0], arith.constant(i32(), 0xFFFF))
        outer_taps = arith.ori(low, arith.shli(w[2], arith.constant(i32(), 16)))
        sums = [vector.extract(row.accumulator, [], [p, 0]) for p in range(pixels)]
        for p in range(0, pixels - 1, 2):
            at = arith.addi(linear, arith.constant(index, p))
            loaded = vector.load(ir.VectorType.get([4], t.element_type), flat, outer + [at])
            word = vector.extract(vector.bitcast(ir.VectorType.get([1], i32()), loaded), [], [0])
            even, odd = halfword_pairs(word)
            sums[p] = intrinsic(SMLABB, odd, w[1], intrinsic(SMLAD, even, outer_taps, sums[p]))
            sums[p + 1] = intrinsic(SMLATB, even, w[1],
                                    intrinsic(SMLAD, odd, outer_taps, sums[p + 1]))
        if pixels % 2:
            p = pixels - 1
            for tap in range(TAPS):
                value = vector.extract(row.reads[p + tap].results[0], [], [0])
                sums[p] = arith.addi(sums[p], arith.muli(arith.extsi(i32(), value), w[tap]))
        result = vector.from_elements(result_type, sums)
    last.results[0].replace_all_uses_with(result)


def intrinsic(name: str, *operands: ir.Value) -> ir.Value:
    return llvm.call_intrinsic(i32(), name, list(operands), [], [])
