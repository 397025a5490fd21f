"""TFLM's integer arithmetic where no tinyml op computes it, built in
linalg on the stored integers: element-wise kernels, saturation, int8
products, and a QUANTIZE between two integer types
(reference_ops::Requantize). The integer LSTM (`integer_lstm.py`) and
SVDF (`svdf.py`) are made of them."""
from __future__ import annotations

from typing import Callable

import numpy as np
from mlir import ir
from mlir.dialects import arith

from ...conversion.linalg_builders import (build_generic, empty, identity_map, int_constant,
                                           int_scalar, int_type)
from ...conversion.fixed_point_ops import apply_scale
from ...conversion.quantized_lowering import accumulator_init


def elementwise(operands: list[ir.Value], bits: int,
                body: Callable[..., ir.Value]) -> ir.Value:
    """`body` of each element of `operands` (one shape), stored in `bits`."""
    shape = ir.RankedTensorType(operands[0].type).shape
    rank = len(shape)
    (result,) = build_generic([(v, identity_map(rank)) for v in operands],
                              [(empty(shape, int_type(bits)), identity_map(rank))],
                              ["parallel"] * rank, lambda b, args: body(*args[:-1]))
    return result


def widened(value: ir.Value) -> ir.Value:
    """A stored int8 or int16 as int32."""
    return arith.extsi(int_type(32), value)


def clamped(value: ir.Value, low: int, high: int) -> ir.Value:
    """An int32 within [low, high]."""
    return arith.minsi(arith.maxsi(value, int_scalar(low, 32)), int_scalar(high, 32))


def saturated(value: ir.Value, bits: int, bounds: tuple[int, int] | None = None) -> ir.Value:
    """An int32 saturated to signed `bits` (or to `bounds` within them, a
    fused activation's) and stored in them."""
    if bits == 32 and bounds is None:
        return value
    low, high = bounds or integer_range(bits)
    return arith.trunci(int_type(bits), clamped(value, low, high))


def integer_range(bits: int) -> tuple[int, int]:
    return -(1 << (bits - 1)), (1 << (bits - 1)) - 1


def product(row: ir.Value, weights: np.ndarray, bias: np.ndarray) -> ir.Value:
    """int32 [B, H]: bias + row @ weights, int8 operands (`weights` [K, H])."""
    batch = ir.RankedTensorType(row.type).shape[0]
    init = accumulator_init(bias, [batch, weights.shape[1]])
    maps = [ir.AffineMap.get(3, 0, [ir.AffineDimExpr.get(d) for d in dims])
            for dims in ((0, 2), (2, 1), (0, 1))]
    (acc,) = build_generic([(row, maps[0]), (int_constant(weights, 8), maps[1])],
                           [(init, maps[2])], ["parallel", "parallel", "reduction"],
                           lambda b, a: arith.addi(a[2], arith.muli(widened(a[0]),
                                                                     widened(a[1]))))
    return acc


def requantized(x: ir.Value, real: float, input_zero_point: int, output_zero_point: int,
                bits: int) -> ir.Value:
    """reference_ops::Requantize: (x - input zero point) rescaled by `real`
    (MultiplyByQuantizedMultiplier), plus the output's zero point,
    saturated to signed `bits`."""
    def body(v: ir.Value) -> ir.Value:
        value = v if ir.IntegerType(v.type).width == 32 else widened(v)
        scaled = apply_scale(arith.subi(value, int_scalar(input_zero_point, 32)), real)
        return saturated(arith.addi(scaled, int_scalar(output_zero_point, 32)), bits)
    return elementwise([x], bits, body)
