"""TFLite's integer arithmetic: the compile-time half against values
worked out from quantization_util.cc and kernel_util.cc by hand, and the
requantization's left and right shifts run on every target against a
Python transcription of common.h (the kernels themselves are checked bit
for bit against TFLM in test_int8.py)."""
from __future__ import annotations

import numpy as np
import pytest

import tinyml
from tinyml.conversion.quantized_lowering import mean_multiplier
from tinyml.conversion.fixed_point_ops import narrow_multiplier
from tinyml.ir.fixed_point import (activation_range, high_product_of_pieces, high_product_pieces,
                                   multiplier_pieces, narrow_multiply_by_quantized_multiplier,
                                   narrow_requantization, quantize_multiplier,
                                   rounding_divide_by_pot, roundf,
                                   saturating_rounding_doubling_high_mul, wrap32)


@pytest.mark.parametrize("real, expected", [
    (0.5, (1 << 30, 0)),
    (1.0, (1 << 30, 1)),
    (0.2, (1717986918, -2)),          # 0.8 * 2^31 = 1717986918.4
    (-0.2, (-1717986918, -2)),
    ((2 ** 30 + 0.5) / 2 ** 31, (2 ** 30 + 1, 0)),   # a tie rounds away from zero
    (1.0 - 2.0 ** -40, (1 << 30, 1)),  # rounds up to 2^31: halved, shift + 1
    (2.0 ** -40, (0, 0)),              # below 2^-32: zero
    (0.0, (0, 0)),
])
def test_quantize_multiplier(real, expected):
    assert quantize_multiplier(real) == expected


def test_roundf_rounds_halves_away_from_zero():
    assert [roundf(v) for v in (0.5, 1.5, 2.5, -0.5, -2.5, 2.4999)] == \
        [1, 2, 3, -1, -3, 2]


@pytest.mark.parametrize("scale, zero_point, low, high, expected", [
    (0.1, -128, 0.0, 6.0, (-128, -68)),              # relu6: zp + roundf(6 / 0.1)
    (0.1, -10, 0.0, 3.4e38, (-10, 127)),             # relu: the top saturates
    (0.05, 5, -1.0, 1.0, (-15, 25)),                 # clamp to [-1, 1]
    (0.023529412224888802, -128, 0.0, 6.0, (-128, 127)),  # 6 / s = 255: saturates
])
def test_activation_range(scale, zero_point, low, high, expected):
    assert activation_range(scale, zero_point, low, high) == expected


@pytest.mark.parametrize("input_scale, output_scale, count, expected", [
    # QuantizedMeanOrSum's pre-shifted multiplier, as TFLM computes it.
    (1.875788967592542, 508.461624962849, 100, (1298002650, -14)),
    (1.6661629195463332, 0.12257724381630727, 2, (1824389286, 3)),
    (1.3194222442236918, 27363.565672493634, 9, (1508024454, -17)),
    (0.09809516436775453, 0.0004671526108167136, 1000, (901879863, -1)),
])
def test_mean_multiplier(input_scale, output_scale, count, expected):
    assert mean_multiplier(input_scale, output_scale, count) == expected


# A 1x1 conv whose three channels requantize by 5 (a left shift of 3), 0.3
# (a right shift of 1) and 0.0002 (a right shift of 12): 0.5 * w_scale / 0.25.
SHIFTS_CONV = """
func.func @requantize_shifts(%x8: tensor<1x16x16x1xi8>) -> tensor<1x16x16x3xi8> {
  %x = quant.scast %x8 : tensor<1x16x16x1xi8> to tensor<1x16x16x1x!quant.uniform<i8:f32, 0.5:-3>>
  %wc = arith.constant dense<[[[[3, -2, 1]]]]> : tensor<1x1x1x3xi8>
  %w = quant.scast %wc : tensor<1x1x1x3xi8> to tensor<1x1x1x3x!quant.uniform<i8:f32:3, {2.5, 0.15, 0.0001}>>
  %bc = arith.constant dense<[7, -100, 20000]> : tensor<3xi32>
  %b = quant.scast %bc : tensor<3xi32> to tensor<3x!quant.uniform<i32:f32:0, {1.25, 0.075, 0.00005}>>
  %y = tinyml.conv2d %x, %w, %b : (tensor<1x16x16x1x!quant.uniform<i8:f32, 0.5:-3>>,
      tensor<1x1x1x3x!quant.uniform<i8:f32:3, {2.5, 0.15, 0.0001}>>,
      tensor<3x!quant.uniform<i32:f32:0, {1.25, 0.075, 0.00005}>>)
      -> tensor<1x16x16x3x!quant.uniform<i8:f32, 0.25:5>>
  %y8 = quant.scast %y : tensor<1x16x16x3x!quant.uniform<i8:f32, 0.25:5>> to tensor<1x16x16x3xi8>
  return %y8 : tensor<1x16x16x3xi8>
}
"""


def _multiply_by_quantized_multiplier(x: int, multiplier: int, shift: int) -> int:
    """TFLite's MultiplyByQuantizedMultiplier (common.h), in Python ints."""
    high = saturating_rounding_doubling_high_mul(wrap32(x * (1 << max(shift, 0))), multiplier)
    return rounding_divide_by_pot(high, max(-shift, 0))


@pytest.mark.parametrize("target", ["host", "cortex-m4", "cortex-m0"])
def test_requantization_shifts_left_and_right(tmp_path, target):
    """Every int8 input through the conv: each channel's output is TFLite's
    arithmetic on the accumulator, left shift or right shift alike."""
    path = tmp_path / "shifts.mlir"
    path.write_text(SHIFTS_CONV)
    x = np.arange(-128, 128, dtype=np.int8).reshape(1, 16, 16, 1)
    got = tinyml.compile(str(path), target=target).run(x).outputs[0]
    want = np.empty(got.shape, np.int64)
    for channel, (weight, bias, scale) in enumerate(zip([3, -2, 1], [7, -100, 20000],
                                                        [2.5, 0.15, 0.0001])):
        multiplier, shift = quantize_multiplier(0.5 * scale / 0.25)
        for index, value in np.ndenumerate(x[..., 0]):
            acc = weight * (int(value) + 3) + bias
            want[index + (channel,)] = min(127, max(-128, 5 + _multiply_by_quantized_multiplier(
                acc, multiplier, shift)))
    assert quantize_multiplier(0.5 * 2.5 / 0.25)[1] == 3  # the left shift is exercised
    np.testing.assert_array_equal(got, want)


def test_narrow_form_is_multiply_by_quantized_multiplier():
    """Within `narrow_requantization`'s conditions the narrow form gives
    MultiplyByQuantizedMultiplier's bits: random accumulators up to the
    bound, the bound itself, zero, and (with the multiplier 2^30, whose
    high product of 2t is t) exact ties of the right shift, both signs."""
    rng = np.random.default_rng(5)
    bound = (1 << 30) - 1
    for _ in range(20000):
        e = int(rng.integers(1, 32))
        cases = [(int(rng.integers(1 << 30, 1 << 31)), x)
                 for x in (int(rng.integers(-bound, bound + 1)), bound, -bound, 0)]
        if e < 29:  # twice the tie within the bound
            tie = (int(rng.integers(0, 1 << (28 - e))) << e) + (1 << (e - 1))
            cases += [(1 << 30, 2 * tie), (1 << 30, -2 * tie)]
        for multiplier, x in cases:
            assert abs(x) <= bound and narrow_requantization(bound, [(multiplier, -e)])
            assert narrow_multiply_by_quantized_multiplier(x, multiplier, -e) == \
                _multiply_by_quantized_multiplier(x, multiplier, -e), (x, multiplier, e)


def test_a_power_of_two_multipliers_high_product_is_a_halving():
    """With the multiplier 2^30 (a scale that is a power of two) the narrow
    form's high product of 2x, (2x * 2^30 + 2^31) >> 32, is (x + 1) >> 1,
    which is what the lowering emits (`narrow_multiply`): odd x where the
    rounding of the halving meets a tie of the right shift, both signs, and
    random x, give MultiplyByQuantizedMultiplier's bits."""
    rng = np.random.default_rng(7)
    bound = (1 << 30) - 1
    for e in range(1, 31):
        ties = [k * (1 << (e + 1)) + (1 << e) - 1 for k in range(-3, 3)]
        cases = ties + [-t for t in ties] + [int(v) for v in rng.integers(-bound, bound, 200)]
        for x in (c for c in cases if abs(c) <= bound):
            halved = (x + 1) >> 1
            assert halved == (2 * x * (1 << 30) + (1 << 31)) >> 32
            got = (((halved + (x >> 31)) >> (e - 1)) + 1) >> 1
            assert got == narrow_multiply_by_quantized_multiplier(x, 1 << 30, -e) == \
                _multiply_by_quantized_multiplier(x, 1 << 30, -e), (x, e)


def test_narrow_form_without_sign_word_where_saturation_starts_at_zero():
    """A ReLU's saturation starts at the zero point: there the narrow form
    may leave out the accumulator's sign word (a negative accumulator gives
    at most 0 either way, which saturates to the low end)."""
    rng = np.random.default_rng(6)
    bound = (1 << 30) - 1
    for _ in range(20000):
        e = int(rng.integers(1, 32))
        multiplier = int(rng.integers(1 << 30, 1 << 31))
        zero_point = int(rng.integers(-128, 128))
        low = int(rng.integers(zero_point, 128))
        for x in (int(rng.integers(-bound, bound + 1)), int(rng.integers(-(1 << 12), 1)),
                  -bound, -1):
            want = _multiply_by_quantized_multiplier(x, multiplier, -e)
            got = narrow_multiply_by_quantized_multiplier(x, multiplier, -e, with_sign_word=False)
            assert min(127, max(low, zero_point + got)) == \
                min(127, max(low, zero_point + want)), (x, multiplier, e, zero_point, low)


def test_high_product_of_pieces_is_the_64_bit_high_product():
    """Without a 64-bit product (the M0) the narrow form's high product
    `(x b + 2^31) >> 32`, b = 2m - 2^32, is taken from 32-bit products of
    b's pieces: for accumulators of every bit length up to 22 (2 pieces up
    to 14 bits, 3 up to 19, 4 up to 22), random and extreme x and m, each
    piece a halfword and each partial sum within int32; from 23 bits on no
    cut is offered."""
    rng = np.random.default_rng(9)
    for bits in range(1, 23):
        bound = (1 << bits) - 1
        count, width = high_product_pieces(bound)
        assert count == (2 if bits <= 14 else 3 if bits <= 19 else 4)
        for _ in range(3000):
            m = int(rng.choice([int(rng.integers(1 << 30, 1 << 31)), 1 << 30, (1 << 31) - 1]))
            b = narrow_multiplier(m)
            pieces = multiplier_pieces(b, count, width)
            assert all(0 <= p < 1 << 16 for p in pieces[:-1]) and -(1 << 15) <= pieces[-1] < 0
            for x in (int(rng.integers(-bound, bound + 1)), bound, -bound, 0, -1):
                assert all(abs(x * p) < 1 << 30 for p in pieces)
                assert high_product_of_pieces(x, pieces, width) == (x * b + (1 << 31)) >> 32
    assert high_product_pieces((1 << 23) - 1) is None


@pytest.mark.parametrize("bound, pairs", [
    (1 << 30, [(1 << 30, -1)]),             # twice the accumulator overflows
    (100, [(1 << 30, -1), (1 << 30, 0)]),   # a channel with no right shift
    (100, [(1 << 30, 3)]),                   # a left shift
    (100, [(-(1 << 30), -2)]),               # a negative multiplier
    (100, [(0, 0)]),                         # a scale below 2^-32
])
def test_narrow_form_is_refused_where_it_could_differ(bound, pairs):
    assert not narrow_requantization(bound, pairs)


# A 1x1 conv whose accumulators reach +-2^29 (the biases) and whose three
# channels all shift right, by 1 (0.3: ties at every odd accumulator) to 27:
# the narrow form of the requantization, near its bound and at its ties.
NARROW_CONV = """
func.func @narrow(%x8: tensor<1x16x16x1xi8>) -> tensor<1x16x16x3xi8> {
  %x = quant.scast %x8 : tensor<1x16x16x1xi8> to tensor<1x16x16x1x!quant.uniform<i8:f32, 0.5:-3>>
  %wc = arith.constant dense<[[[[1, -3, 2]]]]> : tensor<1x1x1x3xi8>
  %w = quant.scast %wc : tensor<1x1x1x3xi8> to tensor<1x1x1x3x!quant.uniform<i8:f32:3, {0.15, 1.0e-7, 2.0e-8}>>
  %bc = arith.constant dense<[7, 536870912, -536870912]> : tensor<3xi32>
  %b = quant.scast %bc : tensor<3xi32> to tensor<3x!quant.uniform<i32:f32:0, {0.075, 5.0e-8, 1.0e-8}>>
  %y = tinyml.conv2d %x, %w, %b : (tensor<1x16x16x1x!quant.uniform<i8:f32, 0.5:-3>>,
      tensor<1x1x1x3x!quant.uniform<i8:f32:3, {0.15, 1.0e-7, 2.0e-8}>>,
      tensor<3x!quant.uniform<i32:f32:0, {0.075, 5.0e-8, 1.0e-8}>>)
      -> tensor<1x16x16x3x!quant.uniform<i8:f32, 0.25:5>>
  %y8 = quant.scast %y : tensor<1x16x16x3x!quant.uniform<i8:f32, 0.25:5>> to tensor<1x16x16x3xi8>
  return %y8 : tensor<1x16x16x3xi8>
}
"""


@pytest.mark.parametrize("bias, pieces", [((1 << 14) - 394, 2), ((1 << 19) - 394, 3),
                                          ((1 << 22) - 394, 4), (1 << 23, None)])
def test_requantization_in_pieces_on_the_m0(tmp_path, bias, pieces):
    """On the M0 a narrow requantization takes its high product from 32-bit
    products of the multiplier's pieces: accumulators bounded by 2^14,
    2^19 and 2^22 (2, 3 and 4 pieces; 2^23 and more: the general expansion),
    per-channel multipliers, every input value, against the 64-bit
    arithmetic (the largest accumulator, -bias - 9 - 3 * 128 with the input
    offset folded in, one below the power of two)."""
    text = NARROW_CONV.replace("[7, 536870912, -536870912]", f"[{bias}, {-bias}, {bias // 3}]")
    path = tmp_path / "pieces.mlir"
    path.write_text(text)
    x = np.arange(-128, 128, dtype=np.int8).reshape(1, 16, 16, 1)
    model = tinyml.compile(str(path), target="cortex-m0", emit_stages=True)
    channels = list(zip([1, -3, 2], [bias, -bias, bias // 3], [0.15, 1.0e-7, 2.0e-8]))
    # The input zero point, -3, folds 3 w into each bias.
    bound = max(abs(b + 3 * w) + 128 * abs(w) for w, b, _ in channels)
    cut = high_product_pieces(bound)
    assert (cut and cut[0]) == pieces
    assert model.stages["lower-to-linalg"].count(": tensor<3xi16>") == (pieces or 0)
    pairs = [quantize_multiplier(0.5 * scale / 0.25) for _, _, scale in channels]
    want = np.empty((1, 16, 16, 3), np.int64)
    for channel, ((weight, b, _), (multiplier, shift)) in enumerate(zip(channels, pairs)):
        for index, value in np.ndenumerate(x[..., 0]):
            acc = weight * (int(value) + 3) + b
            want[index + (channel,)] = min(127, max(-128, 5 + _multiply_by_quantized_multiplier(
                acc, multiplier, shift)))
    np.testing.assert_array_equal(model.run(x).outputs[0], want)


@pytest.mark.parametrize("target", ["host", "cortex-m4", "cortex-m0"])
def test_narrow_requantization_on_every_target(tmp_path, target):
    path = tmp_path / "narrow.mlir"
    path.write_text(NARROW_CONV)
    x = np.arange(-128, 128, dtype=np.int8).reshape(1, 16, 16, 1)
    got = tinyml.compile(str(path), target=target).run(x).outputs[0]
    channels = list(zip([1, -3, 2], [7, 1 << 29, -(1 << 29)], [0.15, 1.0e-7, 2.0e-8]))
    pairs = [quantize_multiplier(0.5 * scale / 0.25) for _, _, scale in channels]
    bound = max(abs(bias) + 128 * abs(weight) for weight, bias, _ in channels)
    assert narrow_requantization(bound, pairs)  # the form under test
    assert [shift for _, shift in pairs] == [-1, -22, -24]
    want = np.empty(got.shape, np.int64)
    for channel, ((weight, bias, _), (multiplier, shift)) in enumerate(zip(channels, pairs)):
        for index, value in np.ndenumerate(x[..., 0]):
            acc = weight * (int(value) + 3) + bias
            want[index + (channel,)] = min(127, max(-128, 5 + _multiply_by_quantized_multiplier(
                acc, multiplier, shift)))
    np.testing.assert_array_equal(got, want)
