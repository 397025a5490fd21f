"""gemmlowp's fixed point (fixedpoint.h) and TFLite's rounding on int32
scalars, built as arith ops: what the int8 kernels' requantizations and
softmax compute at run time. ir/fixed_point.py runs the same arithmetic
in Python at compile time (and is what the tests check these against)."""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, tosa

from ..ir.fixed_point import INT32_MAX, INT32_MIN, narrow_requantization, quantize_multiplier
from .linalg_builders import int_scalar, int_type


def double_round() -> ir.Attribute:
    """TOSA's rounding of `tosa.apply_scale` that is TFLite's (its SRDHM
    then RoundingDivideByPOT)."""
    return ir.Attribute.parse("#tosa.rounding_mode<DOUBLE_ROUND>")


def wide_multiply_by_quantized_multiplier(x: ir.Value, multiplier: ir.Value,
                                          shift: ir.Value) -> ir.Value:
    """MultiplyByQuantizedMultiplier of an int64 `x` (common.cc), given
    ir/fixed_point.py's wide_multiplier (an int32 15-bit multiplier and an
    int8 right shift): (x * m + 2^(shift - 1)) >> shift, truncated to int32,
    which is `tosa.apply_scale` with single rounding."""
    rounding = ir.Attribute.parse("#tosa.rounding_mode<SINGLE_ROUND>")
    return tosa.ApplyScaleOp(int_type(32), x, multiplier, shift, rounding).result


def doubling_high_mul(a: ir.Value, b: ir.Value) -> ir.Value:
    """SaturatingRoundingDoublingHighMul: (a * b + 2^30) >> 31 with TFLite's
    rounding, which is apply_scale's at shift 31 (no operand here is
    INT32_MIN, the one case SRDHM saturates)."""
    return tosa.ApplyScaleOp(int_type(32), a, b, int_scalar(31, 8), double_round()).result


def rounding_shift_right(x: ir.Value, exponent: ir.Value) -> ir.Value:
    """RoundingDivideByPOT with a run-time exponent in [0, 31]."""
    one = int_scalar(1, 32)
    mask = arith.subi(arith.shli(one, exponent), one)
    remainder = arith.andi(x, mask)
    negative = arith.cmpi(arith.CmpIPredicate.slt, x, int_scalar(0, 32))
    threshold = arith.addi(arith.shrsi(mask, one), arith.extui(int_type(32), negative))
    up = arith.cmpi(arith.CmpIPredicate.sgt, remainder, threshold)
    return arith.addi(arith.shrsi(x, exponent), arith.extui(int_type(32), up))


def saturating_shift_left(x: ir.Value, exponent: int) -> ir.Value:
    """SaturatingRoundingMultiplyByPOT<exponent> for exponent > 0."""
    threshold = (1 << (31 - exponent)) - 1
    shifted = arith.shli(x, int_scalar(exponent, 32))
    high = arith.cmpi(arith.CmpIPredicate.sgt, x, int_scalar(threshold, 32))
    low = arith.cmpi(arith.CmpIPredicate.slt, x, int_scalar(-threshold, 32))
    return arith.select(low, int_scalar(INT32_MIN, 32),
                        arith.select(high, int_scalar(INT32_MAX, 32), shifted))


def count_leading_zeros(x: ir.Value) -> ir.Value:
    """Of a non-zero int32, by halving steps: ARMv6-M has no CLZ."""
    count = int_scalar(0, 32)
    for bits in (16, 8, 4, 2, 1):
        small = arith.cmpi(arith.CmpIPredicate.ule, x, int_scalar((1 << (32 - bits)) - 1, 32))
        x = arith.select(small, arith.shli(x, int_scalar(bits, 32)), x)
        count = arith.select(small, arith.addi(count, int_scalar(bits, 32)), count)
    return count


def reciprocal_of_one_plus(a: ir.Value) -> ir.Value:
    """one_over_one_plus_x_for_x_in_0_1: Newton-Raphson in Q2.29, 3 steps,
    from RoundingHalfSum(a, One) ((a + One + sign) / 2 in int64)."""
    total = arith.addi(arith.extsi(int_type(64), a), int_scalar(INT32_MAX, 64))
    negative = arith.cmpi(arith.CmpIPredicate.slt, total, int_scalar(0, 64))
    sign = arith.select(negative, int_scalar(-1, 64), int_scalar(1, 64))
    half_denominator = arith.trunci(int_type(32),
                                    arith.divsi(arith.addi(total, sign), int_scalar(2, 64)))
    x = arith.addi(int_scalar(1515870810, 32),
                   doubling_high_mul(half_denominator, int_scalar(-1010580540, 32)))
    for _ in range(3):
        one_minus = arith.subi(int_scalar(1 << 29, 32), doubling_high_mul(half_denominator, x))
        x = arith.addi(x, saturating_shift_left(doubling_high_mul(x, one_minus), 2))
    return saturating_shift_left(x, 1)


def apply_scale(value: ir.Value, real: float, bound: int | None = None,
                zero_point: int = 0) -> ir.Value:
    """MultiplyByQuantizedMultiplier(value, QuantizeMultiplier(real)) plus
    `zero_point` on int32; in its narrow form where `value` is known to be
    within +-`bound` and that makes it exact (`narrow_requantization`)."""
    multiplier, shift = quantize_multiplier(real)
    if bound is not None and narrow_requantization(bound, [(multiplier, shift)]):
        return narrow_multiply(value, narrow_multiplier(multiplier), int_scalar(-shift - 1, 32),
                               zero_point)
    scaled = multiply_by_quantized_multiplier(value, int_scalar(multiplier, 32),
                                              int_scalar(shift, 32) if shift > 0 else None,
                                              int_scalar(max(-shift, 0), 32))
    return arith.addi(scaled, int_scalar(zero_point, 32)) if zero_point else scaled


def multiply_by_quantized_multiplier(value: ir.Value, multiplier: ir.Value,
                                      left_shift: ir.Value | None,
                                      right_shift: ir.Value) -> ir.Value:
    """TFLite's MultiplyByQuantizedMultiplier: RoundingDivideByPOT(
    SaturatingRoundingDoublingHighMul(value << left_shift, multiplier),
    right_shift); no `left_shift` when it is 0 everywhere."""
    if left_shift is not None:
        value = arith.shli(value, left_shift)
    return rounding_shift_right(doubling_high_mul(value, multiplier), right_shift)


def high_product_of_pieces(value: ir.Value, pieces: list[ir.Value], width: int) -> ir.Value:
    """fixed_point.py's high_product_of_pieces: `(value * b + 2^31) >> 32`
    from 32-bit products of `value` and b's pieces (int32 values), for a
    core without a 64-bit product."""
    carried = arith.muli(value, pieces[0])
    for piece in pieces[1:-1]:
        carried = arith.addi(arith.muli(value, piece),
                             arith.shrsi(carried, int_scalar(width, 32)))
    top = len(pieces) - 1
    total = arith.addi(arith.addi(arith.muli(value, pieces[-1]),
                                  arith.shrsi(carried, int_scalar(width, 32))),
                       int_scalar(1 << (31 - top * width), 32))
    return arith.shrsi(total, int_scalar(32 - top * width, 32))


def narrow_multiply(value: ir.Value, doubled_multiplier: ir.Value | int,
                    shift_less_one: ir.Value, zero_point: int,
                    clamps_below_zero: bool = False,
                    pieces: tuple[list[ir.Value], int] | None = None) -> ir.Value:
    """fixed_point.py's narrow_multiply_by_quantized_multiplier plus
    `zero_point`, given the right shift less one and the multiplier m as
    2m - 2^32 (`narrow_multiplier`): four instructions, where
    MultiplyByQuantizedMultiplier takes about 20. The high product of 2x
    and m is (x (2m - 2^32) + 2^31) >> 32, plus x (x 2^32 is a whole high
    word), so that x plus its sign word is SMMLAR's addend (one ADD with
    an ASR #31 operand) and x needs no doubling; the zero point joins the
    last rounding add, twice over (((s + 1) >> 1) + z = (s + 1 + 2z) >> 1),
    so that the shift by one is the saturating instruction's own (SSAT's
    ASR #1). With `clamps_below_zero` (the saturation's low end is the zero
    point or above: a fused ReLU) the sign word is left out: it only moves a
    negative accumulator's result, which is at most the zero point with it
    or without it, and is clamped to the low end either way. A multiplier
    given as a number and equal to 2^30 (a power-of-two scale, as a
    residual add's often is) needs no product: the high product of 2x and
    2^30 is (x + 1) >> 1. With `pieces` (the pieces of 2m - 2^32 and their
    width, fixed_point.py's high_product_pieces) the high product is taken
    from 32-bit products of them (`high_product_of_pieces`)."""
    wide, one = int_type(64), int_scalar(1, 32)
    if pieces is None and doubled_multiplier == narrow_multiplier(1 << 30):
        high = arith.shrsi(arith.addi(value, one), one)
        signed = high if clamps_below_zero else \
            arith.addi(high, arith.shrsi(value, int_scalar(31, 32)))
    else:
        if pieces is not None:
            high = high_product_of_pieces(value, *pieces)
        else:
            if isinstance(doubled_multiplier, int):
                doubled_multiplier = int_scalar(doubled_multiplier, 32)
            product = arith.muli(arith.extsi(wide, value), arith.extsi(wide, doubled_multiplier))
            high = arith.trunci(int_type(32), arith.shrsi(
                arith.addi(product, int_scalar(1 << 31, 64)), int_scalar(32, 64)))
        addend = value if clamps_below_zero else \
            arith.addi(value, arith.shrsi(value, int_scalar(31, 32)))
        signed = arith.addi(high, addend)
    rounded = arith.addi(arith.shrsi(signed, shift_less_one), int_scalar(1 + 2 * zero_point, 32))
    return arith.shrsi(rounded, one)


def narrow_multiplier(multiplier: int) -> int:
    """The multiplier m of the narrow form as `narrow_multiply` takes it:
    2m - 2^32, within int32 for m in [2^30, 2^31)."""
    return 2 * multiplier - (1 << 32)
