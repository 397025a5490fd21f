"""gemmlowp's fixed point (fixedpoint.h) and TFLite's rounding on int32
scalars, built as arith ops: what the int8 kernels' requantizations and
softmax compute at run time. ir/fixed_point.py runs the same arithmetic
in Python at compile time (and is what the tests check these against)."""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, tosa

from ..ir.fixed_point import INT32_MAX, INT32_MIN
from .linalg_builders import int_scalar, int_type


def double_round() -> ir.Attribute:
    """TOSA's rounding of `tosa.apply_scale` that is TFLite's (its SRDHM
    then RoundingDivideByPOT)."""
    return ir.Attribute.parse("#tosa.rounding_mode<DOUBLE_ROUND>")


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
