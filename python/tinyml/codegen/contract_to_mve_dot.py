"""tinyml-contract-to-mve-dot: an int8 tile's inner product on a core with
Helium (MVE, the Cortex-M55) as one vector dot product per accumulator and
reduction step,

    acc[p, c] += reduce_add(sext(x[p, k:k+K]) * sext(w[c, k:k+K]))

which LLVM's MVE instruction selection turns into `VMLADAVA.S8`: sixteen
int8 products summed into a 32-bit accumulator by one instruction, with one
128-bit load per input row and per channel's weights (the reduction of a
`vector.contract` lowered by upstream's "dot" strategy, but on int8 rows
loaded as they are, not on the contraction's int32-extended operands). The
tile's rows and weights are those `tinyml-contract-to-smlad` reads: the
weights packed at compile time with the reduction innermost, so each
channel's K values are one contiguous load; the same contractions qualify
(int8 weights sliced from a constant, input rows with the reduction
innermost, K a multiple of 4). LLVM matches the pattern on one 128-bit
vector only (a longer reduction is split into int32 quarters first, four
lanes per instruction), so a step is reduced in pieces of 16 values, then 8
(`VMLADAVA.S16` on rows extended by their loads), then 4. int32 addition
is the same modulo 2^32 in any order: the result is bit-exact to the
multiply-add chain it replaces.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, vector

from ..ir.walk import ops_named
from ..pipeline.registry import Pass, register
from .contract_to_smlad import (WORD, DotProduct, accumulator_elements, i32, input_row,
                                int8_dot_product, weight_tile)

#: int8 values in one Helium vector register.
LANES = 16


@register
class ContractToMveDot(Pass):
    name = "tinyml-contract-to-mve-dot"
    summary = ("Lower int8 vector contractions to one vector dot product per accumulator "
               "(Helium VMLADAVA) over compile-time packed weights")

    def apply(self, module):
        packed: dict[tuple, ir.Value] = {}
        for contract in ops_named(module, "vector.contract"):
            product = int8_dot_product(contract)
            if product is not None:
                lower_to_dot_products(contract, product, packed)


def lower_to_dot_products(contract: ir.Operation, product: DotProduct,
                          cache: dict[tuple, ir.Value]) -> None:
    """Replace `contract` by a sign-extended multiply and an add reduction
    per accumulator and piece of the reduction (`pieces`)."""
    with ir.InsertionPoint(contract), contract.location:
        tile = weight_tile(product, cache)
        weights = [vector.extract(tile, [], [c]) for c in range(product.channels)]
        inputs = {row: input_row(product, row) for row in product.rows}
        sums = accumulator_elements(contract.operands[2])
        for start, size in pieces(product.reduction):
            weight_pieces = [extended_piece(w, start, size) for w in weights]
            input_pieces = {row: extended_piece(x, start, size) for row, x in inputs.items()}
            for flat, row in enumerate(product.row_of):
                products = arith.muli(input_pieces[row], weight_pieces[product.channel_of[flat]])
                sums[flat] = vector.reduction(i32(), vector.CombiningKind.ADD, products,
                                              acc=sums[flat])
        result = vector.from_elements(contract.results[0].type, sums)
    contract.results[0].replace_all_uses_with(result)
    contract.erase()


def extended_piece(row: ir.Value, start: int, size: int) -> ir.Value:
    """Values [start, start + size) of the 1-D `row`, sign-extended to int32."""
    row_type = ir.VectorType(row.type)
    if size < row_type.shape[0]:
        row = vector.extract_strided_slice(ir.VectorType.get([size], row_type.element_type),
                                           row, [start], [size], [1])
    return arith.extsi(ir.VectorType.get([size], i32()), row)


def pieces(reduction: int) -> list[tuple[int, int]]:
    """(start, size) of the pieces a reduction of `reduction` values (a
    multiple of 4) is summed in: 16 values, then 8, then 4."""
    result, start = [], 0
    for size in (LANES, LANES // 2, WORD):
        while reduction - start >= size:
            result.append((start, size))
            start += size
    return result
