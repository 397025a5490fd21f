"""The compile-time half of TFLite's integer arithmetic, against values
worked out from quantization_util.cc and kernel_util.cc by hand (the
kernels themselves are checked bit for bit in test_int8.py)."""
from __future__ import annotations

import pytest

from tinyml.conversion.quantized_lowering import mean_multiplier
from tinyml.ir.fixed_point import activation_range, quantize_multiplier, roundf


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
