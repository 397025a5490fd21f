"""TFLM's integer kernels that are no tinyml op, built in linalg on the
stored integers: the shared arithmetic (saturation, int8 products), a
QUANTIZE between two integer types (reference_ops::Requantize) and the
integer SVDF (micro/kernels/svdf_common.cc EvalIntegerSvdfReference).

An SVDF layer keeps, per filter, the last `memory` values of its feature
projection: each invocation shifts that history left by one, writes the
new projection (int8 products requantized to the state's int8 or int16)
into its last column, weights the history by the time weights, sums the
`rank` filters of each unit with the bias and requantizes to int8. TFLM
keeps the history in a variable tensor from one invocation to the next;
the compiled function starts it, as TFLM's first invocation does, from
its reset value (an int8 state's zero point, else 0), or, where the model
streams, from the caller's state, and gives the history after it."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
from mlir import ir
from mlir.dialects import arith, tensor

from ...conversion.linalg_builders import (build_generic, empty, identity_map, int_constant,
                                           int_scalar, int_type)
from ...conversion.quantized_lowering import accumulator_init, apply_scale


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


def saturated(value: ir.Value, bits: int) -> ir.Value:
    """An int32 saturated to signed `bits` and stored in them."""
    if bits == 32:
        return value
    low, high = integer_range(bits)
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


@dataclass
class Svdf:
    """An integer SVDF layer's constants, as TFLM's Prepare reads them:
    feature weights [F, I] and time weights [F, M] (int8; time weights
    int8 or int16, the state's type), the int32 bias [U] (None: none),
    the two requantizations' real multipliers, and the zero points."""
    feature_weights: np.ndarray
    time_weights: np.ndarray
    bias: np.ndarray | None
    rank: int
    feature_scale: float
    output_scale: float
    input_zero_point: int
    state_zero_point: int
    output_zero_point: int

    @property
    def state_bits(self) -> int:
        return self.time_weights.dtype.itemsize * 8


def integer_svdf(x: ir.Value, layer: Svdf,
                 history: ir.Value | None = None) -> tuple[ir.Value, ir.Value]:
    """The int8 output [B, U] of one invocation on `x` [B, I] (int8) and the
    history after it; the history before it is `history` (a streaming
    model's state), else TFLM's reset value. A history is TFLite's [B, F *
    M], each filter's M values in a row."""
    batch = ir.RankedTensorType(x.type).shape[0]
    filters, memory = layer.time_weights.shape
    if history is None:
        reset = layer.state_zero_point if layer.state_bits == 8 else 0
        history = int_constant(np.full((batch, filters * memory), reset,
                                       layer.time_weights.dtype), layer.state_bits)
    bits = layer.state_bits
    feature_bias = -layer.input_zero_point * layer.feature_weights.astype(np.int64).sum(axis=1)
    projection = product(x, np.ascontiguousarray(layer.feature_weights.T), feature_bias)
    # The state's zero point is added after the saturation and the sum is
    # stored as it is (a static_cast in TFLM: it wraps).
    newest = elementwise([projection], bits, lambda v: arith.trunci(int_type(bits), arith.addi(
        clamped(apply_scale(v, layer.feature_scale), *integer_range(bits)),
        int_scalar(layer.state_zero_point, 32))))
    shifted = _shifted(history, newest, memory)
    weighted = _time_weighted(shifted, layer)
    units = filters // layer.rank
    grouped = tensor.expand_shape(
        ir.RankedTensorType.get([batch, units, layer.rank], int_type(32)), weighted,
        [[0], [1, 2]], [], [batch, units, layer.rank])
    bias = layer.bias if layer.bias is not None else np.zeros(units, np.int64)
    maps = [ir.AffineMap.get(3, 0, [ir.AffineDimExpr.get(d) for d in dims])
            for dims in ((0, 1, 2), (0, 1))]
    (sums,) = build_generic([(grouped, maps[0])],
                            [(accumulator_init(bias.astype(np.int64), [batch, units]), maps[1])],
                            ["parallel", "parallel", "reduction"],
                            lambda b, a: arith.addi(a[1], a[0]))
    return requantized(sums, layer.output_scale, 0, layer.output_zero_point, 8), shifted


def _shifted(history: ir.Value, newest: ir.Value, memory: int) -> ir.Value:
    """The history [B, F * M] moved one place left as TFLM moves it (each
    filter's oldest value goes), `newest` [B, F] written at each filter's
    last place: built flat, so that a streaming model's next state is
    computed in the caller's buffer."""
    batch, size = ir.RankedTensorType(history.type).shape
    element = ir.RankedTensorType(history.type).element_type
    older = tensor.extract_slice(ir.RankedTensorType.get([batch, size - 1], element), history,
                                 [], [], [], [0, 1], [batch, size - 1], [1, 1])
    moved = tensor.insert_slice(older, empty([batch, size], element), [], [], [],
                                [0, 0], [batch, size - 1], [1, 1])
    return tensor.insert_slice(newest, moved, [], [], [], [0, memory - 1],
                               [batch, size // memory], [1, memory])


def _time_weighted(history: ir.Value, layer: Svdf) -> ir.Value:
    """int32 [B, F]: each filter's history (less the state's zero point),
    read in place of the flat [B, F * M], dotted with its time weights."""
    batch = ir.RankedTensorType(history.type).shape[0]
    filters, memory = layer.time_weights.shape
    b, f, j = (ir.AffineDimExpr.get(d) for d in range(3))
    maps = [ir.AffineMap.get(3, 0, exprs) for exprs in ([b, f * memory + j], [f, j], [b, f])]
    zero_point = layer.state_zero_point
    weights = int_constant(layer.time_weights, layer.state_bits)
    init = accumulator_init(np.zeros(filters, np.int64), [batch, filters])
    (acc,) = build_generic(
        [(history, maps[0]), (weights, maps[1])], [(init, maps[2])],
        ["parallel", "parallel", "reduction"],
        lambda b, a: arith.addi(a[2], arith.muli(
            arith.subi(widened(a[0]), int_scalar(zero_point, 32)), widened(a[1]))))
    return acc
