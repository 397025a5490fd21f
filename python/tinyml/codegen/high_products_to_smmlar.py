"""tinyml-high-products-to-smmlar: the rounded high product of two int32
values, `(a * b + 2^31) >> 32`, as one `SMMULR` (plus an addend: one
`SMMLAR`) on a core with the DSP extension, lane by lane.

A requantization's narrow multiply (conversion/fixed_point_ops.py) is
that product of sign-extended int32 values in 64 bits. llc makes it one
`SMMLAR` only when it sees both sign extensions in the multiply's block:
where the multiplier is invariant in the tile's loop (a depthwise tile of
one channel, whose rows share its multiplier), opt's LICM hoists the
multiplier's extension ahead of the loop, and llc then multiplies 64 x 64
bits (`UMULL`, `MLA`, `MUL`, `ADDS`, `ADC`: a Keras MobileNet block's
second depthwise conv 4,695 -> 4,015 instructions on the M4). Written as
the instruction itself (inline assembly: LLVM has no intrinsic for it), it
is one instruction wherever the operands come from.

Only a product in a loop, one of whose factors is invariant in it, is
rewritten: elsewhere llc selects the same `SMMLAR` and schedules around it
better than around inline assembly (every product rewritten, grayscale_cnn's
one-channel stem took 10% more instructions, audio_dscnn 0.7%).

The pattern is `trunci(shr(addi(muli(x, y), 2^31), 32))` to i32 of i64
values (a scalar or a vector), with `x` and `y` each an `extsi` of a
32-bit or narrower integer or an int32 constant; `shrui` and `shrsi` keep
the same low 32 bits. When the product's only user adds it to a value,
that value is the `SMMLAR`'s addend (`(a * b + (c << 32) + 2^31) >> 32`,
the same sum modulo 2^32). Each lane computes what its 64-bit form did:
bit for bit the same.
"""
from __future__ import annotations

import itertools

import numpy as np
from mlir import ir
from mlir.dialects import arith, llvm, vector

from ..ir.values import constant_int, producer, sole_user
from ..ir.walk import ops_named
from ..pipeline.registry import Pass, register
from .contract_to_smlad import i32

ROUNDING = 1 << 31
HIGH_WORD = 32
LOOPS = frozenset({"scf.for", "scf.while", "affine.for"})
SIDE_EFFECTS = frozenset({"memref.store", "vector.store", "vector.transfer_write",
                          "llvm.inline_asm", "llvm.call_intrinsic", "func.call"})


@register
class HighProductsToSmmlar(Pass):
    name = "tinyml-high-products-to-smmlar"
    summary = "Rounded high products of int32 pairs as SMMULR/SMMLAR (Cortex-M DSP extension)"

    def apply(self, module):
        for trunc in ops_named(module, "arith.trunci"):
            factors = high_product_factors(trunc)
            loop = innermost_loop(trunc)
            if factors is not None and loop is not None \
                    and any(invariant(extended(factor), loop) for factor in factors):
                rewrite(trunc, *factors)


def high_product_factors(trunc: ir.Operation) -> tuple[ir.Value, ir.Value] | None:
    """The two 64-bit factors of the rounded high product `trunc` takes
    the low word of, if it is one of int32 values."""
    if element_width(trunc.results[0].type) != 32:
        return None
    shifted = producer(trunc.operands[0])
    if shifted is None or shifted.name not in ("arith.shrui", "arith.shrsi") \
            or constant_int(shifted.operands[1]) != HIGH_WORD:
        return None
    rounded = producer(shifted.operands[0])
    if rounded is None or rounded.name != "arith.addi":
        return None
    product, rounding = rounded.operands
    if constant_int(rounding) != ROUNDING:
        product, rounding = rounding, product
    multiply = producer(product)
    if constant_int(rounding) != ROUNDING or multiply is None or multiply.name != "arith.muli":
        return None
    x, y = multiply.operands
    if element_width(x.type) != 64 or not (is_int32(x) and is_int32(y)) \
            or (int32_elements(x) is not None and int32_elements(y) is not None):
        return None
    return x, y


def innermost_loop(op: ir.Operation) -> ir.Operation | None:
    parent = op.parent
    while parent is not None and parent.name not in LOOPS:
        parent = parent.parent
    return parent


def encloses(loop: ir.Operation, op: ir.Operation) -> bool:
    parent = op.parent
    while parent is not None:
        if parent == loop:
            return True
        parent = parent.parent
    return False


def extended(factor: ir.Value) -> ir.Value | None:
    """The narrow value the factor `factor` extends; None for a constant."""
    extension = producer(factor)
    return extension.operands[0] if extension is not None and extension.name == "arith.extsi" \
        else None


def invariant(value: ir.Value | None, loop: ir.Operation,
              known: dict[ir.Value, bool] | None = None) -> bool:
    """Whether `value` is the same in every iteration of `loop`, as opt's
    LICM finds it: defined outside, or computed inside from such values by
    ops without regions or side effects (loads of constants included).
    `known` memoizes the values seen."""
    if value is None:
        return False
    known = {} if known is None else known
    if value not in known:
        if isinstance(value.owner, ir.Block):
            owner = value.owner.owner
            known[value] = owner != loop and not encloses(loop, owner)
        else:
            op = value.owner.operation
            known[value] = not encloses(loop, op) or (
                len(op.regions) == 0 and op.name not in SIDE_EFFECTS
                and all(invariant(operand, loop, known) for operand in op.operands))
    return known[value]


def element_width(t: ir.Type) -> int | None:
    element = ir.VectorType(t).element_type if isinstance(t, ir.VectorType) else t
    return ir.IntegerType(element).width if isinstance(element, ir.IntegerType) else None


def is_int32(value: ir.Value) -> bool:
    """Whether the i64 `value` is an int32 value in every lane: sign-extended
    from 32 bits or fewer, or a constant within int32."""
    narrow = extended(value)
    if narrow is not None:
        return (element_width(narrow.type) or 64) <= 32
    return int32_elements(value) is not None


def int32_elements(value: ir.Value) -> np.ndarray | None:
    """The elements of the constant `value` (a scalar, a splat or a dense
    vector), if it is one and each is within int32."""
    splat = constant_int(value)
    if splat is not None:
        elements = np.array([splat], np.int64)
    else:
        op = producer(value)
        if op is None or op.name != "arith.constant" \
                or not isinstance(op.attributes["value"], ir.DenseIntElementsAttr):
            return None
        elements = np.array(op.attributes["value"], np.int64).reshape(-1)
    return elements if np.all((elements >= -2 ** 31) & (elements < 2 ** 31)) else None


def lanes(t: ir.Type) -> list[tuple[int, ...]]:
    """The positions of a vector type's lanes in order; a scalar's one, ()."""
    if not isinstance(t, ir.VectorType):
        return [()]
    return list(itertools.product(*(range(n) for n in ir.VectorType(t).shape)))


def lane(value: ir.Value, position: tuple[int, ...], flat: int) -> ir.Value:
    """Lane `position` (`flat` in row-major order) of the int32 value the
    i64 `value` holds, as an i32 scalar."""
    elements = int32_elements(value)
    if elements is not None:
        return arith.constant(i32(), int(elements[flat % elements.size]))
    narrow = extended(value)
    assert narrow is not None, "a factor is an extension or a constant"
    element = element_at(narrow, position)
    return element if element_width(element.type) == 32 else arith.extsi(i32(), element)


def element_at(value: ir.Value, position: tuple[int, ...]) -> ir.Value:
    """The element of the vector `value` at `position`; a scalar itself (position ())."""
    return vector.extract(value, [], list(position)) if position else value


def addend_of(trunc: ir.Operation) -> tuple[ir.Operation, ir.Value] | None:
    """(the add, its other operand) when `trunc`'s only user adds it to a value."""
    add = sole_user(trunc.results[0], "arith.addi")
    if add is None:
        return None
    lhs, rhs = add.operands
    return add, (rhs if lhs == trunc.results[0] else lhs)


def rewrite(trunc: ir.Operation, x: ir.Value, y: ir.Value) -> None:
    folded = addend_of(trunc)
    replaced = folded[0] if folded is not None else trunc
    result_type = trunc.results[0].type
    with ir.InsertionPoint(replaced), replaced.location:
        high = []
        for flat, position in enumerate(lanes(result_type)):
            operands = [lane(x, position, flat), lane(y, position, flat)]
            if folded is None:
                high.append(llvm.inline_asm(i32(), operands, "smmulr $0, $1, $2", "=r,r,r"))
            else:
                operands.append(element_at(folded[1], position))
                high.append(llvm.inline_asm(i32(), operands, "smmlar $0, $1, $2, $3",
                                            "=r,r,r,r"))
        result = vector.from_elements(result_type, high) \
            if isinstance(result_type, ir.VectorType) else high[0]
    replaced.results[0].replace_all_uses_with(result)
    replaced.erase()
    if folded is not None:
        trunc.erase()
