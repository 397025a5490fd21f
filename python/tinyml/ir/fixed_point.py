"""TFLite's integer arithmetic, run at compile time in Python: what the
kernels' parameters and tables are made of, to the bit.

- `quantize_multiplier` (quantization_util.cc QuantizeMultiplier), the
  multiplier and shift of every requantization;
- `activation_range` (kernel_util.cc CalculateActivationRangeQuantized),
  the stored values a fused ReLU, ReLU6 or clamp keeps;
- `wide_multiplier`, the 64-bit MultiplyByQuantizedMultiplier's
  parameters (common.cc), which the 16x8 kernels rescale with;
- gemmlowp's fixed point (fixedpoint/fixedpoint.h) and TFLite's softmax
  preparation (quantization_util.cc PreprocessSoftmaxScaling,
  CalculateInputRadius; micro/kernels/softmax_common.cc), from which
  `softmax_tables` computes the exp of every possible int8 difference
  (reference/softmax.h), so that the kernel only looks them up.

Values are Python ints with C's int32 semantics made explicit (wrapping,
division truncating towards zero, arithmetic shifts). Checked against the
C sources and TFLM (test_quantized_arithmetic.py, test_int8.py).
"""
from __future__ import annotations

import ctypes
import ctypes.util
import functools
import math
import struct
from typing import Callable

import numpy as np

INT32_MIN = -(1 << 31)
INT32_MAX = (1 << 31) - 1
SCALED_DIFF_INTEGER_BITS = 5     # softmax.h kScaledDiffIntegerBits
ACCUMULATION_INTEGER_BITS = 12   # softmax.h kAccumulationIntegerBits


def round_half_away(value: float) -> int:
    """std::round / TfLiteRound: halves away from zero (Python's `round`
    is half to even)."""
    magnitude = abs(value)
    floor = math.floor(magnitude)
    rounded = floor + 1 if magnitude - floor >= 0.5 else floor
    return int(-rounded if value < 0 else rounded)


def roundf(value: np.float32) -> int:
    """C's `roundf`: a float32, rounded half away from zero."""
    value = np.float32(value)
    return int(np.sign(value) * np.floor(np.abs(value) + np.float32(0.5)))


def activation_range(scale: float, zero_point: int, low: float,
                     high: float, bits: int = 8) -> tuple[int, int]:
    """TFLite's CalculateActivationRangeQuantized (kernel_util.cc): the
    stored values (int8, or int16 with `bits`) of scale and zero point that
    a clamp to [low, high] keeps, computed in float32."""
    scale = np.float32(scale)
    least, most = -(1 << (bits - 1)), (1 << (bits - 1)) - 1

    def quantized(bound: float) -> int:
        with np.errstate(over="ignore"):
            scaled = np.float32(bound) / scale
        if not np.isfinite(scaled):
            return most if scaled > 0 else least
        return int(np.clip(zero_point + roundf(scaled), least, most))

    return max(least, quantized(low)), min(most, quantized(high))


def quantize_multiplier(real: float) -> tuple[int, int]:
    """QuantizeMultiplier: (m, shift) with `real = m * 2^(shift - 31)`,
    m in [2^30, 2^31); shift > 0 is a left shift."""
    if real == 0.0:
        return 0, 0
    fraction, shift = math.frexp(real)
    q = round_half_away(fraction * (1 << 31))
    if q == 1 << 31:
        q //= 2
        shift += 1
    if shift < -31:
        return 0, 0
    return q, shift


def wide_multiplier(real: float) -> tuple[int, int]:
    """The multiplier and right shift of MultiplyByQuantizedMultiplier's
    64-bit form (common.cc), which the 16x8 kernels rescale their int64
    accumulators with: QuantizeMultiplier's m rounded to 15 bits, and
    15 - shift. `(x * m15 + 2^(s - 1)) >> s` is the result."""
    multiplier, shift = quantize_multiplier(real)
    reduced = (multiplier + (1 << 15)) >> 16 if multiplier < 0x7FFF0000 else 0x7FFF
    return reduced, 15 - shift


def wrap32(x):
    """C semantics helper: two's-complement wrap to int32 (C cast / wrapping arithmetic)."""
    return ((x + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)


def c_div(a, b):
    """C semantics helper: integer division truncating toward zero (Python // floors)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q



def to_float32(x):
    """C semantics helper: round to IEEE float32 (C `float`), returned as double."""
    return struct.unpack("<f", struct.pack("<f", float(x)))[0]



def mask_if_non_zero(a):
    """fixedpoint.h MaskIfNonZero: all ones (-1) if a != 0 else 0."""
    return -1 if a else 0


def mask_if_zero(a):
    """fixedpoint.h MaskIfZero."""
    return mask_if_non_zero(not a)


def mask_if_greater_than(a, b):
    """fixedpoint.h MaskIfGreaterThan."""
    return mask_if_non_zero(a > b)


def mask_if_less_than(a, b):
    """fixedpoint.h MaskIfLessThan."""
    return mask_if_non_zero(a < b)


def select_using_mask(if_mask, then_val, else_val):
    """fixedpoint.h SelectUsingMask: (mask & then) ^ (~mask & else)."""
    return wrap32((if_mask & then_val) ^ (~if_mask & else_val))


def add(a, b):
    """fixedpoint.h Add (int32 a + b; overflow wraps as on real targets)."""
    return wrap32(a + b)


def sub(a, b):
    """fixedpoint.h Sub (int32 a - b, wrapping)."""
    return wrap32(a - b)


def shift_left(a, offset):
    """fixedpoint.h ShiftLeft: a * (int32(1) << offset), wrapping."""
    return wrap32(a * wrap32(1 << offset))


def shift_right(a, offset):
    """fixedpoint.h ShiftRight: arithmetic right shift (Python >> matches)."""
    return a >> offset


def saturating_rounding_doubling_high_mul(a, b):
    """fixedpoint.h SaturatingRoundingDoublingHighMul<int32> (VQRDMULH)."""
    if a == b == INT32_MIN:
        return INT32_MAX
    ab_64 = a * b  # fits in int64 for int32 operands
    nudge = (1 << 30) if ab_64 >= 0 else (1 - (1 << 30))
    return wrap32(c_div(ab_64 + nudge, 1 << 31))


def rounding_divide_by_pot(x, exponent):
    """fixedpoint.h RoundingDivideByPOT: rounding arithmetic right shift."""
    assert 0 <= exponent <= 31
    mask = wrap32((1 << exponent) - 1)  # int32 from int64 (1ll << e) - 1
    remainder = x & mask
    threshold = add(shift_right(mask, 1), mask_if_less_than(x, 0) & 1)
    return add(shift_right(x, exponent),
               mask_if_greater_than(remainder, threshold) & 1)


def narrow_requantization(accumulator_bound: int, pairs) -> bool:
    """Whether MultiplyByQuantizedMultiplier is exactly
    `narrow_multiply_by_quantized_multiplier` for every accumulator within
    +-`accumulator_bound` and every (multiplier, shift) of `pairs`: each
    multiplier positive, each shift a right shift (at least 1), and the
    doubled accumulator within int32."""
    return all(multiplier > 0 and shift < 0 for multiplier, shift in pairs) \
        and 2 * accumulator_bound < 1 << 31


def narrow_multiply_by_quantized_multiplier(x, multiplier, shift, with_sign_word=True):
    """MultiplyByQuantizedMultiplier where `narrow_requantization` holds.
    SaturatingRoundingDoublingHighMul is one rounded high product, h = (2x *
    m + 2^31) >> 32 (ARM's SMMULR; the nudge's floor and TFLite's
    truncation agree), below 2^30; RoundingDivideByPOT by e = -shift is
    (h + 2^(e-1) - [x < 0]) >> e (half the divisor added, one less below
    zero: h has x's sign, or is 0, which the shift takes to 0 either way),
    which is ((h + (x >> 31)) >> (e - 1)) + 1) >> 1: shifts and adds of
    immediates, with e - 1 the table's. Without the sign word
    (`with_sign_word` false) a negative x gives at most 0, as with it: the
    same once saturated at zero or above (a ReLU)."""
    high = (2 * x * multiplier + (1 << 31)) >> 32
    sign = x >> 31 if with_sign_word else 0
    return (((high + sign) >> (-shift - 1)) + 1) >> 1


#: Most 16-bit pieces a multiplier is cut into for `high_product_pieces`:
#: with more, the 32-bit products cost as much as the four of the general
#: expansion (tinyml-expand-wide-multiplies).
MOST_PIECES = 4


def high_product_pieces(accumulator_bound: int) -> tuple[int, int] | None:
    """(pieces, width): how the narrow form's rounded high product
    `(x * b + 2^31) >> 32` of an int32 multiplier b and any x within
    +-`accumulator_bound` is computed from 32-bit products alone (a core
    without a 32 x 32 -> 64-bit multiply): b cut into `pieces - 1` unsigned
    pieces of `width` bits and a signed top piece, each product x times a
    piece within +-2^30 (the sum of x's bits and the piece's at most 30),
    and every piece within 16 bits (tables of halfwords). None where more
    than `MOST_PIECES` would be needed."""
    bits = accumulator_bound.bit_length()
    for pieces in range(2, MOST_PIECES + 1):
        # The top piece b >> (pieces - 1) width has 31 - (pieces - 1) width
        # bits: at most 30 - bits, and at most 15 (a signed halfword).
        low = max(-(-(bits + 1) // (pieces - 1)), -(-16 // (pieces - 1)))
        high = min(30 - bits, 16)
        if low <= high:
            return pieces, high
    return None


def multiplier_pieces(multiplier: int, pieces: int, width: int) -> list[int]:
    """The int32 `multiplier` as `high_product_pieces` cuts it: the low
    pieces unsigned, least significant first, then the signed top one."""
    mask = (1 << width) - 1
    return [(multiplier >> (i * width)) & mask for i in range(pieces - 1)] + \
        [multiplier >> ((pieces - 1) * width)]


def high_product_of_pieces(x: int, pieces: list[int], width: int) -> int:
    """`(x * b + 2^31) >> 32` from the pieces of b (`multiplier_pieces`):
    each partial product's carry into the next shifted in by arithmetic
    shifts (exact: the bits shifted out never reach the rounded high
    word), the rounding constant added before the last shift."""
    carried = x * pieces[0]
    for piece in pieces[1:-1]:
        carried = x * piece + (carried >> width)
    top = len(pieces) - 1
    return (x * pieces[-1] + (carried >> width) + (1 << (31 - top * width))) >> (32 - top * width)


def saturating_rounding_multiply_by_pot(x, exponent):
    """fixedpoint.h SaturatingRoundingMultiplyByPOT<Exponent> (int32)."""
    if exponent == 0:
        return x
    if exponent < 0:
        return rounding_divide_by_pot(x, -exponent)
    threshold = (1 << (32 - 1 - exponent)) - 1
    positive_mask = mask_if_greater_than(x, threshold)
    negative_mask = mask_if_less_than(x, -threshold)
    result = shift_left(x, exponent)
    result = select_using_mask(positive_mask, INT32_MAX, result)
    return select_using_mask(negative_mask, INT32_MIN, result)


# ---------------------------------------------------------------------------
# gemmlowp fixedpoint.h, Parts 2-3: FixedPoint<int32, N> on raw values
# ---------------------------------------------------------------------------

def fractional_bits(integer_bits):
    """fixedpoint.h FixedPoint::kFractionalBits = 31 - kIntegerBits."""
    return 31 - integer_bits


def constant_pot(integer_bits, exponent):
    """fixedpoint.h FixedPoint::ConstantPOT<Exponent>().raw()."""
    return 1 << (fractional_bits(integer_bits) + exponent)


def fp_one(integer_bits):
    """fixedpoint.h FixedPoint::One().raw()."""
    return INT32_MAX if integer_bits == 0 else 1 << fractional_bits(integer_bits)


def fp_mul(a, b):
    """fixedpoint.h operator*(FixedPoint, FixedPoint): SRDHM on raws."""
    return saturating_rounding_doubling_high_mul(a, b)


def rescale(x, src_integer_bits, dst_integer_bits):
    """fixedpoint.h Rescale<dst>(FixedPoint<int32, src>).raw()."""
    return saturating_rounding_multiply_by_pot(x, src_integer_bits - dst_integer_bits)


def exp_on_interval_between_negative_one_quarter_and_0_excl(a):
    """fixedpoint.h exp_on_interval_between_negative_one_quarter_and_0_excl (Q0.31)."""
    constant_term = 1895147668      # exp(-1/8)
    constant_1_over_3 = 715827883   # 1/3
    x = add(a, constant_pot(0, -3))
    x2 = fp_mul(x, x)
    x3 = fp_mul(x2, x)
    x4 = fp_mul(x2, x2)
    x4_over_4 = saturating_rounding_multiply_by_pot(x4, -2)
    x4_over_24_plus_x3_over_6_plus_x2_over_2 = saturating_rounding_multiply_by_pot(
        add(fp_mul(add(x4_over_4, x3), constant_1_over_3), x2), -1)
    return add(constant_term,  # AddSaturatingIf16Bit == plain Add for int32
               fp_mul(constant_term, add(x, x4_over_24_plus_x3_over_6_plus_x2_over_2)))


_EXP_BARREL = ((-2, 1672461947), (-1, 1302514674), (0, 790015084),
               (1, 290630308), (2, 39332535), (3, 720401), (4, 242))


def exp_on_negative_values(a, integer_bits=SCALED_DIFF_INTEGER_BITS):
    """fixedpoint.h exp_on_negative_values: FixedPoint<int32,N> -> Q0.31 raw."""
    k_frac = fractional_bits(integer_bits)
    k_one_quarter = constant_pot(integer_bits, -2)
    mask = sub(k_one_quarter, 1)
    a_mod_quarter_minus_one_quarter = sub(a & mask, k_one_quarter)
    result = exp_on_interval_between_negative_one_quarter_and_0_excl(
        rescale(a_mod_quarter_minus_one_quarter, integer_bits, 0))
    remainder = sub(a_mod_quarter_minus_one_quarter, a)
    for exponent, multiplier in _EXP_BARREL:  # GEMMLOWP_EXP_BARREL_SHIFTER
        if integer_bits > exponent:
            bit = wrap32(1 << (k_frac + exponent))
            result = select_using_mask(mask_if_non_zero(remainder & bit),
                                       fp_mul(result, multiplier), result)
    if integer_bits > 5:
        clamp = -(1 << (36 - integer_bits))  # -32.0
        result = select_using_mask(mask_if_less_than(a, clamp), 0, result)
    return select_using_mask(mask_if_zero(a), fp_one(0), result)


def multiply_by_quantized_multiplier_greater_than_one(x, quantized_multiplier, left_shift):
    """common.h MultiplyByQuantizedMultiplierGreaterThanOne: SRDHM(x * (1 << left_shift), m)."""
    # int32 `x * (1 << left_shift)` wraps (and 1 << 31 is INT32_MIN) on real targets.
    return saturating_rounding_doubling_high_mul(wrap32(x * wrap32(1 << left_shift)),
                                                 quantized_multiplier)



def preprocess_softmax_scaling(beta, input_scale, input_integer_bits):
    """quantization_util.cc PreprocessSoftmaxScaling (non-TFLITE_EMULATE_FLOAT path)."""
    max_real_multiplier = float((1 << 31) - 1)
    input_beta_real_multiplier = min(
        beta * input_scale * float(1 << (31 - input_integer_bits)), max_real_multiplier)
    return quantize_multiplier(input_beta_real_multiplier)


def calculate_input_radius(input_integer_bits, input_left_shift, total_signed_bits=31):
    """quantization_util.cc CalculateInputRadius (double path, floor)."""
    max_input_rescaled = (1.0 * ((1 << input_integer_bits) - 1)
                          * float(1 << (total_signed_bits - input_integer_bits))
                          / float(1 << input_left_shift))
    return int(math.floor(max_input_rescaled))



def softmax_params(input_scale, beta=1.0):
    """softmax_common.cc CalculateSoftmaxParams (int8): (input_multiplier,
    input_left_shift, diff_min)."""
    # TfLiteQuantizationParams.scale and TfLiteSoftmaxParams.beta are C floats,
    # promoted to double.
    input_multiplier, input_left_shift = preprocess_softmax_scaling(
        to_float32(beta), to_float32(input_scale), SCALED_DIFF_INTEGER_BITS)
    # op_data->diff_min (int32) = -1.0 * CalculateInputRadius(...): exact int.
    diff_min = -calculate_input_radius(SCALED_DIFF_INTEGER_BITS, input_left_shift)
    return input_multiplier, input_left_shift, diff_min


def softmax_tables(input_scale: float, beta: float = 1.0) -> tuple[list[int], list[int]]:
    """For d = 0..255 (the row maximum minus an int8 input): the Q0.31 exp
    TFLite's softmax computes for the difference -d, and that exp rescaled
    to the Q12.19 accumulator of the sum; both 0 where -d < diff_min (TFLite
    skips those inputs: they add nothing and output -128)."""
    multiplier, left_shift, diff_min = softmax_params(input_scale, beta)
    exps, accumulated = [], []
    for d in range(256):
        if -d < diff_min:
            exps.append(0)
            accumulated.append(0)
            continue
        rescaled = multiply_by_quantized_multiplier_greater_than_one(-d, multiplier, left_shift)
        value = exp_on_negative_values(rescaled, SCALED_DIFF_INTEGER_BITS)
        exps.append(value)
        accumulated.append(rescale(value, 0, ACCUMULATION_INTEGER_BITS))
    return exps, accumulated


# ---------------------------------------------------------------------------
# int8 element-wise kernels as tables: a function of one int8 value has 256
# results, so evaluating TFLite's integer kernel on each is the kernel.
# ---------------------------------------------------------------------------

INT8_VALUES = range(-128, 128)


def multiply_by_quantized_multiplier(x, quantized_multiplier, shift):
    """common.h MultiplyByQuantizedMultiplier (double rounding): SRDHM of
    x shifted left by a positive `shift`, then a rounding right shift by a
    negative one."""
    left_shift, right_shift = max(shift, 0), max(-shift, 0)
    return rounding_divide_by_pot(
        saturating_rounding_doubling_high_mul(wrap32(x * wrap32(1 << left_shift)),
                                              quantized_multiplier), right_shift)


def add_multipliers(scales, left_shift: int) -> list[float]:
    """add_common.cc's Prepare: the real multipliers of TFLite's integer
    add of two inputs offset and shifted left by `left_shift` (int8: 20,
    int16: 15): each input's scale over twice the larger, then twice the
    larger over the output's times 2^left_shift; scales as float32,
    divided in double."""
    s1, s2, s_out = (float(np.float32(s)) for s in scales)
    twice_max = 2.0 * max(s1, s2)
    return [s1 / twice_max, s2 / twice_max, twice_max / ((1 << left_shift) * s_out)]


def multiply_by_quantized_multiplier_array(x: np.ndarray, quantized_multiplier: int,
                                           shift: int) -> np.ndarray:
    """`multiply_by_quantized_multiplier` of every element of the int64
    array `x` (int32 values; a multiplier in [2^30, 2^31), so
    SaturatingRoundingDoublingHighMul never saturates)."""
    assert 1 << 30 <= quantized_multiplier < 1 << 31
    x = wrap32(x.astype(np.int64) << max(shift, 0))
    product = x * quantized_multiplier
    nudged = product + np.where(product >= 0, 1 << 30, 1 - (1 << 30))
    high = np.where(nudged >= 0, nudged >> 31, -((-nudged) >> 31))  # C division by 2^31
    exponent = max(-shift, 0)
    mask = (1 << exponent) - 1
    threshold = (mask >> 1) + (high < 0)
    return (high >> exponent) + ((high & mask) > threshold)


def integer_add_outputs(scales, zero_points, subtract: bool = False) -> np.ndarray:
    """reference/integer_ops/add.h (sub.h with `subtract`) for every pair of
    stored int8 values, before the saturation: [256, 256], the lhs value
    + 128 down, the rhs value + 128 across."""
    reals = add_multipliers(scales, 20)
    z1, z2, z_out = zero_points
    values = np.arange(-128, 128, dtype=np.int64)
    scaled = [multiply_by_quantized_multiplier_array((values - z) << 20, *quantize_multiplier(r))
              for z, r in ((z1, reals[0]), (z2, reals[1]))]
    total = scaled[0][:, None] + (-1 if subtract else 1) * scaled[1][None, :]
    return multiply_by_quantized_multiplier_array(total, *quantize_multiplier(reals[2])) + z_out


def mul_multiplier(scales) -> float:
    """mul_common.cc's real multiplier of an integer MUL: s1 * s2 / s_out,
    each scale a float32, in double."""
    s1, s2, s_out = (float(np.float32(s)) for s in scales)
    return s1 * s2 / s_out


def integer_mul(a: int, b: int, scales, zero_points, stored_range: tuple[int, int]) -> int:
    """reference/integer_ops/mul.h MulElementwise of two stored values: the
    product of the offset inputs scaled to the output, plus its zero point,
    saturated to `stored_range`."""
    multiplier, shift = quantize_multiplier(mul_multiplier(scales))
    z1, z2, z_out = zero_points
    out = multiply_by_quantized_multiplier((a - z1) * (b - z2), multiplier, shift) + z_out
    return min(max(out, stored_range[0]), stored_range[1])


def rounding_half_sum(a, b):
    """fixedpoint.h RoundingHalfSum<int32>: (a + b + sign) / 2 in int64."""
    total = a + b
    return wrap32(c_div(total + (1 if total >= 0 else -1), 2))


def _newton_reciprocal_of_half_denominator(a):
    """The Newton-Raphson iteration of fixedpoint.h's one_over_one_plus_x_
    for_x_in_0_1 and one_minus_x_over_one_plus_x_for_x_in_0_1: 1 / ((1 + a)
    / 2) in Q2.29, for a Q0.31 `a`."""
    half_denominator = rounding_half_sum(a, fp_one(0))
    x = add(1515870810, fp_mul(half_denominator, -1010580540))  # 48/17 - 32/17 * d
    for _ in range(3):
        one_minus = sub(fp_one(2), fp_mul(half_denominator, x))
        x = add(x, rescale(fp_mul(x, one_minus), 4, 2))
    return x


def one_over_one_plus_x_for_x_in_0_1(a):
    """fixedpoint.h one_over_one_plus_x_for_x_in_0_1 (Q0.31 in and out)."""
    return rescale(_newton_reciprocal_of_half_denominator(a), 1, 0)  # ExactMulByPot<-1>


def one_minus_x_over_one_plus_x_for_x_in_0_1(a):
    """fixedpoint.h one_minus_x_over_one_plus_x_for_x_in_0_1 (Q0.31)."""
    return rescale(sub(_newton_reciprocal_of_half_denominator(a), fp_one(2)), 2, 0)


def fixed_point_logistic(a, integer_bits):
    """fixedpoint.h logistic: FixedPoint<int32, integer_bits> -> Q0.31."""
    positive = mask_if_greater_than(a, 0)
    absolute = select_using_mask(positive, a, wrap32(-a))
    if_positive = one_over_one_plus_x_for_x_in_0_1(
        exp_on_negative_values(wrap32(-absolute), integer_bits))
    if_negative = sub(fp_one(0), if_positive)
    return select_using_mask(mask_if_zero(a), 1 << 30,
                             select_using_mask(positive, if_positive, if_negative))


def fixed_point_tanh(a, integer_bits):
    """fixedpoint.h tanh: FixedPoint<int32, integer_bits> -> Q0.31; the exp
    of 2x is the same raw value with one more integer bit."""
    negative = mask_if_less_than(a, 0)
    n = select_using_mask(negative, a, wrap32(-a))
    t = one_minus_x_over_one_plus_x_for_x_in_0_1(exp_on_negative_values(n, integer_bits + 1))
    return select_using_mask(mask_if_zero(a), 0, select_using_mask(negative, wrap32(-t), t))


def _squashing_input(input_scale: float) -> tuple[int, int, int]:
    """logistic_common.cc / tanh.cc: the int8 input's (multiplier, left
    shift, range radius) onto Q4.27."""
    real = float(np.float32(input_scale)) * float(1 << (31 - 4))
    fraction, left_shift = math.frexp(real)
    multiplier = wrap32(round_half_away(fraction * (1 << 31)))
    return multiplier, left_shift, calculate_input_radius(4, left_shift, 31)


def _squashing_table(input_scale: float, input_zero_point: int, function, output_bits: int,
                     output_zero_point: int) -> list[int]:
    """reference_integer_ops/logistic.h and tanh.h: saturated outside the
    input radius, else `function` of the input on Q4.27, its Q0.31 result
    rounded to `output_bits` fractional bits plus the zero point."""
    multiplier, left_shift, radius = _squashing_input(input_scale)
    table = []
    for q in INT8_VALUES:
        x = q - input_zero_point
        if x <= -radius:
            table.append(-128)
        elif x >= radius:
            table.append(127)
        else:
            q4 = multiply_by_quantized_multiplier(x, multiplier, left_shift)
            y = rounding_divide_by_pot(function(q4, 4), 31 - output_bits)
            table.append(min(max(y + output_zero_point, -128), 127))
    return table


def logistic_table(input_scale: float, input_zero_point: int) -> list[int]:
    """The int8 LOGISTIC of every input (output scale 1/256, zero point -128)."""
    return _squashing_table(input_scale, input_zero_point, fixed_point_logistic, 8, -128)


def tanh_table(input_scale: float, input_zero_point: int) -> list[int]:
    """The int8 TANH of every input (output scale 1/128, zero point 0)."""
    return _squashing_table(input_scale, input_zero_point, fixed_point_tanh, 7, 0)


def leaky_relu_table(input_scale: float, input_zero_point: int, alpha: float,
                     output_scale: float, output_zero_point: int) -> list[int]:
    """leaky_relu_common.cc + reference/leaky_relu.h QuantizeLeakyRelu: the
    identity or alpha multiplier by the input's sign."""
    identity, scaled_alpha = leaky_relu_multipliers(input_scale, alpha, output_scale)
    identity_multiplier = quantize_multiplier(identity)
    alpha_multiplier = quantize_multiplier(scaled_alpha)
    table = []
    for q in INT8_VALUES:
        x = q - input_zero_point
        y = output_zero_point + multiply_by_quantized_multiplier(
            x, *(identity_multiplier if x >= 0 else alpha_multiplier))
        table.append(min(max(y, -128), 127))
    return table


def int16_table(transform: Callable[[np.float32], np.float32], input_scale: float,
                input_zero_point: int, output_scale: float,
                output_zero_point: int) -> np.ndarray:
    """common.h LUTPopulateInt16<float>: the 513 values an int16 kernel
    interpolates `transform` between (`LUTLookup`), sampled over the whole
    int16 input range, each sample less half its interpolation error at
    the midpoint, all in float32 as TFLM computes them."""
    f = np.float32
    low, high = -(1 << 15), (1 << 15) - 1
    input_min = f(input_scale) * f(low - input_zero_point)
    input_max = f(input_scale) * f(high - input_zero_point)
    output_span = f(output_scale) * f(high - output_zero_point) \
        - f(output_scale) * f(low - output_zero_point)
    step = (input_max - input_min) / f(512)
    inverse = f(1 << 16) / output_span
    table = []
    for i in range(512):
        at = input_min + f(i) * step
        value, midpoint, following = (transform(v) for v in (at, at + step / f(2),
                                                              input_min + f(i + 1) * step))
        interpolated = roundf((following * inverse + f(roundf(value * inverse))) / f(2))
        bias = roundf(f(interpolated - roundf(midpoint * inverse)) / f(2))
        table.append(roundf(value * inverse) - bias)
    table.append(roundf(transform(input_max) * inverse))
    return np.clip(np.array(table), low, high).astype(np.int16)


def sigmoid_table() -> np.ndarray:
    """common.h sigmoid_table_uint16, which TFLite's int16 LOGISTIC and TANH
    interpolate: sigmoid(i / 24) for i = 0..254 in 0.16 fixed point, each
    less half the error of the interpolation at its interval's midpoint,
    then the saturated 65535."""
    def scaled(x: float) -> float:
        return 65536.0 / (1.0 + math.exp(-x))

    table = [round(scaled(i / 24) - ((scaled(i / 24) + scaled((i + 1) / 24)) / 2
                                     - scaled((i + 0.5) / 24)) / 2) for i in range(255)]
    return np.array(table + [65535], np.uint16)


def checked_log2(value: float) -> int | None:
    """quantization_util.cc CheckedLog2 in float32: log2 of a power of two
    (within 1e-3 of an integer), else None."""
    log2 = np.float32(np.log(np.float32(value))) * (np.float32(1) / np.log(np.float32(2)))
    rounded = roundf(log2)
    return rounded if abs(log2 - np.float32(rounded)) < np.float32(1e-3) else None


def expf(value: np.float32) -> np.float32:
    """C's `expf`, the C library's (the one TFLM's tables are computed with
    on the build machine)."""
    return np.float32(_libm().expf(float(value)))


@functools.cache
def _libm() -> ctypes.CDLL:
    libm = ctypes.CDLL(ctypes.util.find_library("m"))
    libm.expf.restype, libm.expf.argtypes = ctypes.c_float, [ctypes.c_float]
    return libm


def leaky_relu_multipliers(input_scale: float, alpha: float,
                           output_scale: float) -> tuple[float, float]:
    """The reals LEAKY_RELU rescales by, the identity's and alpha's:
    leaky_relu_common.cc divides in float32 (then widens to double)."""
    s_in, s_out = np.float32(input_scale), np.float32(output_scale)
    return float(s_in / s_out), float(s_in * np.float32(alpha) / s_out)


def _wrap16(x):
    return ((x + (1 << 15)) & 0xFFFF) - (1 << 15)


def _saturating_rounding_doubling_high_mul16(a, b):
    """fixedpoint.h SaturatingRoundingDoublingHighMul<int16>."""
    if a == b == -(1 << 15):
        return (1 << 15) - 1
    product = a * b
    nudge = (1 << 14) if product >= 0 else 1 - (1 << 14)
    return _wrap16(c_div(product + nudge, 1 << 15))


def _saturating_doubling_high_mul16(a, b):
    """hard_swish.h SaturatingDoublingHighMul: SQDMULH, truncating."""
    if a == b == -(1 << 15):
        return (1 << 15) - 1
    return _wrap16(c_div(a * b, 1 << 15))


def _saturating_left_shift16(value, amount):
    return min(max(value * (1 << amount), -(1 << 15)), (1 << 15) - 1)


def _int16_multiplier(real: float) -> tuple[int, int]:
    """QuantizeMultiplier, then DownScaleInt32ToInt16Multiplier."""
    multiplier, exponent = quantize_multiplier(real)
    if multiplier >= INT32_MAX - (1 << 15):
        return (1 << 15) - 1, exponent
    return (multiplier + (1 << 15)) >> 16, exponent


def hard_swish_table(input_scale: float, input_zero_point: int, output_scale: float,
                     output_zero_point: int) -> list[int]:
    """hard_swish_common.cc + reference/hard_swish.h: the int8 HARD_SWISH
    of every input, in TFLite's 16-bit fixed point."""
    hires_input_scale = np.float32(1.0 / 128.0) * np.float32(input_scale)
    output_multiplier, output_exponent = _int16_multiplier(
        float(hires_input_scale / np.float32(output_scale)))
    reluish_multiplier, reluish_exponent = _int16_multiplier(
        float(hires_input_scale / np.float32(3.0 / 32768.0)))
    table = []
    for q in INT8_VALUES:
        hires = _wrap16((q - input_zero_point) * (1 << 7))
        preshift_output = _saturating_rounding_doubling_high_mul16(hires, output_multiplier)
        reluish = hires
        if reluish_exponent > 0:
            reluish = _saturating_left_shift16(reluish, reluish_exponent - 1)
        reluish = _saturating_rounding_doubling_high_mul16(reluish, reluish_multiplier)
        if reluish_exponent > 0:
            reluish = _saturating_left_shift16(reluish, 1)
        if reluish_exponent < 0:
            reluish = rounding_divide_by_pot(reluish, -reluish_exponent)
        reluish = (reluish + (1 << 15)) >> 1
        output = rounding_divide_by_pot(_saturating_doubling_high_mul16(reluish, preshift_output),
                                        -output_exponent)
        table.append(min(max(_wrap16(output + output_zero_point), -128), 127))
    return table
