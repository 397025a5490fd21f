"""The quantized forms of tinyml ops, lowered to integer linalg: TFLite's
int8 reference kernels (tensorflow/lite/kernels/internal/reference/
integer_ops/conv.h, depthwise_conv.h, fully_connected.h), bit for bit.

    conv2d / depthwise_conv2d / matmul
        acc[f] = sum x * w                 int8 x int8 -> int32; padding holds
                                           the input zero point
               + bias[f] - zp_x * sum w[.., f]   the input offset, folded into
                                           the bias at compile time
        y = clamp(zp_y + apply_scale(acc, m[f], 31 - shift[f]), -128, 127)
    add        TFLite's: both operands, offset and shifted left by 20, scaled
               to a common scale, summed, scaled to the result (add.h)
    avg_pool2d sum / count of the stored values, rounded half away from
               zero (pooling.h); max_pool2d the maximum of the stored values
    clamp      the stored values clamped to TFLite's activation range
    quantize / dequantize   float arithmetic: an explicit Q or DQ that no
                            integer op absorbed

`tosa.apply_scale` with DOUBLE_ROUND is TFLite's default
MultiplyByQuantizedMultiplier (SaturatingRoundingDoublingHighMul, then
RoundingDivideByPOT); `tosa-to-arith` lowers it with 64-bit products. `m`
and `shift` are TFLite's QuantizeMultiplier of the effective scale
(quantization_util.cc), computed here at compile time. Quantized values
are read through `quant.scast` to their storage type and the result is
cast back, so the casts cancel pairwise once every op is lowered.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np
from mlir import ir
from mlir.dialects import arith, linalg, quant, tosa

from ..ir.attributes import window_attributes
from ..ir.patterns import attributes_of, create
from ..ir.quant import is_per_axis, storage_cast
from ..ir.values import element_of, producer, shape_of
from ..pipeline.registry import PassError
from .lower_to_linalg import (ScalarBuilder, broadcast_to, build_elementwise, build_generic,
                              collapse, dense_const, empty, identity_map, lower_op, pad_nhwc,
                              pool_window, projection_map, window_counts)

INT8_MIN, INT8_MAX = -128, 127


# ---------------------------------------------------------------------------
# Compile-time arithmetic (TFLite's, to the bit)
# ---------------------------------------------------------------------------

def quantize_multiplier(real: float) -> tuple[int, int]:
    """TFLite's QuantizeMultiplier: (m, shift) with `real = m * 2^(shift -
    31)`, m in [2^30, 2^31); shift > 0 is a left shift. Rounding is half
    away from zero (Python's `round` is half to even: not used)."""
    if real == 0.0:
        return 0, 0
    fraction, shift = math.frexp(real)
    scaled = fraction * (1 << 31)
    q = int(math.floor(abs(scaled) + 0.5)) * (1 if scaled >= 0 else -1)
    if q == 1 << 31:
        q //= 2
        shift += 1
    if shift < -31:
        return 0, 0
    return q, shift


def round_half_away(value: np.float32) -> int:
    """C's `roundf` on a float32."""
    value = np.float32(value)
    return int(np.sign(value) * np.floor(np.abs(value) + np.float32(0.5)))


def activation_range(element: ir.Type, low: float, high: float) -> tuple[int, int]:
    """TFLite's CalculateActivationRangeQuantized (kernel_util.cc) for a
    clamp to [low, high] of an int8 per-tensor quantized tensor, in float32."""
    params = quant.UniformQuantizedType(element)
    scale, zero_point = np.float32(params.scale), params.zero_point

    def quantized(bound: float) -> int:
        with np.errstate(over="ignore"):
            scaled = np.float32(bound) / scale
        if not np.isfinite(scaled):
            return INT8_MAX if scaled > 0 else INT8_MIN
        return int(np.clip(zero_point + round_half_away(scaled), INT8_MIN, INT8_MAX))

    return max(INT8_MIN, quantized(low)), min(INT8_MAX, quantized(high))


def _scales(element: ir.Type) -> np.ndarray:
    if is_per_axis(element):
        return np.asarray(quant.UniformQuantizedPerAxisType(element).scales, np.float32)
    return np.asarray([quant.UniformQuantizedType(element).scale], np.float32)


def _zero_point(element: ir.Type) -> int:
    return quant.UniformQuantizedType(element).zero_point


def effective_scales(x: ir.Type, w: ir.Type, y: ir.Type, channels: int,
                     float_product: bool = False) -> list[float]:
    """`x_scale * w_scale[c] / y_scale` per output channel, in double, as
    TFLite's per-channel kernels compute it; `float_product`: the per-tensor
    fully-connected kernel's `double(float(x_scale * w_scale)) / y_scale`."""
    sx, sy = _scales(x)[0], _scales(y)[0]
    sw = np.broadcast_to(_scales(w), (channels,))
    if float_product:
        return [float(np.float32(sx * s)) / float(sy) for s in sw]
    return [float(sx) * float(s) / float(sy) for s in sw]


# ---------------------------------------------------------------------------
# IR helpers
# ---------------------------------------------------------------------------

def _i(bits: int) -> ir.IntegerType:
    return ir.IntegerType.get_signless(bits)


def _storage_element(element: ir.Type) -> ir.Type:
    if is_per_axis(element):
        return quant.UniformQuantizedPerAxisType(element).storage_type
    return quant.UniformQuantizedType(element).storage_type


def _stored(value: ir.Value) -> ir.Value:
    """A quantized tensor's integer storage."""
    return storage_cast(value, _storage_element(element_of(value)))


def _constant_storage(value: ir.Value, what: str, op) -> np.ndarray:
    """The integer array behind a quantized constant (`quant.scast` of an
    `arith.constant`)."""
    cast = producer(value)
    source = producer(cast.operands[0]) if cast is not None and cast.name == "quant.scast" \
        else None
    if source is None or source.name != "arith.constant":
        raise PassError(f"quantized {what} must be a constant", op.location)
    return np.array(source.attributes["value"])


def _int_constant(array: np.ndarray, bits: int) -> ir.Value:
    array = np.ascontiguousarray(array, dtype={8: np.int8, 32: np.int32}[bits])
    tensor_type = ir.RankedTensorType.get(list(array.shape), _i(bits))
    return arith.ConstantOp(tensor_type, ir.DenseElementsAttr.get(array, type=tensor_type)).result


def _scalar(value: int, bits: int) -> ir.Value:
    return arith.ConstantOp(_i(bits), ir.IntegerAttr.get(_i(bits), int(value))).result


def _apply_scale(value: ir.Value, real: float) -> ir.Value:
    """MultiplyByQuantizedMultiplier(value, QuantizeMultiplier(real)) on int32."""
    multiplier, shift = quantize_multiplier(real)
    return tosa.ApplyScaleOp(_i(32), value, _scalar(multiplier, 32), _scalar(31 - shift, 8),
                             _double_round()).result


def _double_round() -> ir.Attribute:
    return ir.Attribute.parse("#tosa.rounding_mode<DOUBLE_ROUND>")


def _saturate_to_int8(value: ir.Value) -> ir.Value:
    clamped = arith.minsi(arith.maxsi(value, _scalar(INT8_MIN, 32)), _scalar(INT8_MAX, 32))
    return arith.trunci(_i(8), clamped)


def _requantize(acc: ir.Value, scales: Sequence[float], zero_point: int) -> ir.Value:
    """int32 accumulators [.., C] -> int8: apply_scale per channel (the last
    axis), plus the zero point, saturated."""
    shape = shape_of(acc)
    pairs = [quantize_multiplier(s) for s in scales]
    multipliers = np.array([m for m, _ in pairs], np.int32)
    shifts = np.array([31 - s for _, s in pairs], np.int8)
    rank = len(shape)
    per_channel = len(set(pairs)) > 1
    channel_map = ir.AffineMap.get(rank, 0, [ir.AffineDimExpr.get(rank - 1)])
    inputs = [(acc, identity_map(rank))]
    if per_channel:
        inputs += [(_int_constant(multipliers, 32), channel_map),
                   (_int_constant(shifts, 8), channel_map)]

    def body(b, args):
        value = args[0]
        if per_channel:
            multiplier, shift = args[1], args[2]
        else:
            multiplier, shift = _scalar(multipliers[0], 32), _scalar(shifts[0], 8)
        scaled = tosa.ApplyScaleOp(_i(32), value, multiplier, shift, _double_round()).result
        return _saturate_to_int8(arith.addi(scaled, _scalar(zero_point, 32)))

    (result,) = build_generic(inputs, [(empty(shape, _i(8)), identity_map(rank))],
                              ["parallel"] * rank, body)
    return result


def _accumulator_init(bias_folded: np.ndarray, shape: Sequence[int]) -> ir.Value:
    if not np.all((bias_folded >= -2 ** 31) & (bias_folded < 2 ** 31)):
        raise ValueError("the bias with the input offset folded in overflows int32")
    return broadcast_to(_int_constant(bias_folded, 32), shape, list(range(len(shape) - 1)))


def _with_quantized_result(op, stored: ir.Value) -> ir.Value:
    return storage_cast(stored, element_of(op.results[0]))


# ---------------------------------------------------------------------------
# Lowerings
# ---------------------------------------------------------------------------

def lower_quantized_conv2d(op) -> ir.Value:
    x, w, bias = list(op.operands)[0], op.operands[1], \
        (op.operands[2] if len(op.operands) > 2 else None)
    strides, dilations, padding = window_attributes(op.attributes)
    x_type, w_type, y_type = element_of(x), element_of(w), element_of(op.results[0])
    weights = _constant_storage(w, "weights", op).astype(np.int64)
    out_shape = shape_of(op.results[0])
    channels = out_shape[-1]
    folded = _bias(bias, channels, op) - _zero_point(x_type) * weights.sum(axis=(0, 1, 2))
    x8 = pad_nhwc(_stored(x), padding, _zero_point(x_type))
    acc = linalg.conv_2d_nhwc_hwcf(x8, _stored(w), outs=[_accumulator_init(folded, out_shape)],
                                   strides=strides, dilations=dilations)
    scales = effective_scales(x_type, w_type, y_type, channels)
    return _with_quantized_result(op, _requantize(acc, scales, _zero_point(y_type)))


def lower_quantized_depthwise_conv2d(op) -> ir.Value:
    x, w, bias = list(op.operands)[0], op.operands[1], \
        (op.operands[2] if len(op.operands) > 2 else None)
    strides, dilations, padding = window_attributes(op.attributes)
    x_type, w_type, y_type = element_of(x), element_of(w), element_of(op.results[0])
    weights = _constant_storage(w, "weights", op).astype(np.int64)  # [KH, KW, C, 1]
    out_shape = shape_of(op.results[0])
    channels = out_shape[-1]
    folded = _bias(bias, channels, op) - _zero_point(x_type) * weights.sum(axis=(0, 1, 3))
    x8 = pad_nhwc(_stored(x), padding, _zero_point(x_type))
    w8 = collapse(_stored(w), [[0], [1], [2, 3]])
    acc = linalg.depthwise_conv_2d_nhwc_hwc(x8, w8, outs=[_accumulator_init(folded, out_shape)],
                                            strides=strides, dilations=dilations)
    scales = effective_scales(x_type, w_type, y_type, channels)
    return _with_quantized_result(op, _requantize(acc, scales, _zero_point(y_type)))


def lower_quantized_matmul(op) -> ir.Value:
    lhs, rhs = op.operands[0], op.operands[1]
    bias = op.operands[2] if len(op.operands) > 2 else None
    transpose_lhs = "transpose_lhs" in op.attributes
    transpose_rhs = "transpose_rhs" in op.attributes
    x_type, w_type, y_type = element_of(lhs), element_of(rhs), element_of(op.results[0])
    weights = _constant_storage(rhs, "weights", op).astype(np.int64)
    out_shape = shape_of(op.results[0])
    channels = out_shape[-1]
    column_sums = weights.sum(axis=1 if transpose_rhs else 0)
    folded = _bias(bias, channels, op) - _zero_point(x_type) * column_sums
    m_, n_, k_ = (ir.AffineDimExpr.get(d) for d in range(3))
    maps = [ir.AffineMap.get(3, 0, exprs) for exprs in (
        [k_, m_] if transpose_lhs else [m_, k_], [n_, k_] if transpose_rhs else [k_, n_],
        [m_, n_])]
    acc = linalg.matmul(_stored(lhs), _stored(rhs), outs=[_accumulator_init(folded, out_shape)],
                        indexing_maps=maps)
    scales = effective_scales(x_type, w_type, y_type, channels,
                              float_product=not is_per_axis(w_type))
    return _with_quantized_result(op, _requantize(acc, scales, _zero_point(y_type)))


def _bias(bias: ir.Value | None, channels: int, op) -> np.ndarray:
    if bias is None:
        return np.zeros(channels, np.int64)
    return _constant_storage(bias, "bias", op).astype(np.int64).reshape(channels)


def lower_quantized_add(op) -> ir.Value:
    """TFLite's integer add (reference/integer_ops/add.h, add.cc's Prepare)."""
    lhs, rhs = op.operands[0], op.operands[1]
    types = [element_of(lhs), element_of(rhs), element_of(op.results[0])]
    s1, s2, s_out = (float(np.float32(quant.UniformQuantizedType(t).scale)) for t in types)
    z1, z2, z_out = (_zero_point(t) for t in types)
    left_shift = 20
    twice_max = 2.0 * max(s1, s2)
    result_type = ir.RankedTensorType.get(shape_of(op.results[0]), _i(8))

    def body(_, args):
        def scaled(value, zero_point, real):
            offset = arith.addi(arith.extsi(_i(32), value), _scalar(-zero_point, 32))
            return _apply_scale(arith.muli(offset, _scalar(1 << left_shift, 32)), real)
        total = arith.addi(scaled(args[0], z1, s1 / twice_max), scaled(args[1], z2, s2 / twice_max))
        out = _apply_scale(total, twice_max / ((1 << left_shift) * s_out))
        return _saturate_to_int8(arith.addi(out, _scalar(z_out, 32)))

    stored = build_elementwise(result_type, [_stored(lhs), _stored(rhs)], body)
    return _with_quantized_result(op, stored)


def lower_quantized_avg_pool2d(op) -> ir.Value:
    """TFLite's integer average pool (reference/integer_ops/pooling.h):
    padding not counted, the quotient rounded half away from zero."""
    x = op.operands[0]
    kernel, strides, padding = pool_window(op)
    n, h, w, c = shape_of(x)
    out_shape = shape_of(op.results[0])
    _, oh, ow, _ = out_shape
    padded = pad_nhwc(_stored(x), padding, 0)
    zeros = linalg.fill(_scalar(0, 32), outs=[empty(out_shape, _i(32))])
    sums = linalg.pooling_nhwc_sum(padded, empty(kernel), outs=[zeros], strides=strides,
                                   dilations=[1, 1])
    rows = _int_constant(window_counts(h, oh, kernel[0], strides[0], padding[0]), 32)
    cols = _int_constant(window_counts(w, ow, kernel[1], strides[1], padding[1]), 32)

    def body(b, args):
        total, count = args[0], arith.muli(args[1], args[2])
        half = arith.divsi(count, _scalar(2, 32))
        positive = arith.cmpi(arith.CmpIPredicate.sgt, total, _scalar(0, 32))
        nudged = arith.select(positive, arith.addi(total, half), arith.subi(total, half))
        return _saturate_to_int8(arith.divsi(nudged, count))  # C division: truncates

    (stored,) = build_generic(
        [(sums, identity_map(4)), (rows, projection_map(4, [1])), (cols, projection_map(4, [2]))],
        [(empty(out_shape, _i(8)), identity_map(4))], ["parallel"] * 4, body)
    return _with_quantized_result(op, stored)


def lower_quantized_max_pool2d(op) -> ir.Value:
    """The maximum of the stored values; padding holds -128, which never
    exceeds a real element."""
    x = op.operands[0]
    kernel, strides, padding = pool_window(op)
    out_shape = shape_of(op.results[0])
    padded = pad_nhwc(_stored(x), padding, INT8_MIN)
    lowest = linalg.fill(_scalar(INT8_MIN, 8), outs=[empty(out_shape, _i(8))])
    stored = linalg.pooling_nhwc_max(padded, empty(kernel), outs=[lowest], strides=strides,
                                     dilations=[1, 1])
    return _with_quantized_result(op, stored)


def lower_quantized_clamp(op) -> ir.Value:
    element = element_of(op.results[0])
    low, high = activation_range(element, ir.FloatAttr(op.attributes["min"]).value,
                                 ir.FloatAttr(op.attributes["max"]).value)
    result_type = ir.RankedTensorType.get(shape_of(op.results[0]), _i(8))
    stored = build_elementwise(result_type, [_stored(op.operands[0])], lambda b, args: arith.minsi(
        arith.maxsi(args[0], _scalar(low, 8)), _scalar(high, 8)))
    return _with_quantized_result(op, stored)


def lower_quantize(op) -> ir.Value:
    """ONNX QuantizeLinear: clamp(round_half_even(x / scale) + zp), float32."""
    element = element_of(op.results[0])
    scale, zero_point = float(_scales(element)[0]), _zero_point(element)
    result_type = ir.RankedTensorType.get(shape_of(op.results[0]), _i(8))

    def body(_, args):
        b = ScalarBuilder()  # float32: the generic's own builder is int8
        scaled = b.div(args[0], b.const(scale))
        # Saturate first: the float-to-int conversion of an out-of-range
        # value is poison.
        low, high = b.const(INT8_MIN - zero_point), b.const(INT8_MAX - zero_point)
        bounded = b.select(b.cmp("olt", scaled, low), low,
                           b.select(b.cmp("ogt", scaled, high), high, scaled))
        rounded = arith.fptosi(_i(32), _round_half_even(b, bounded))
        return arith.trunci(_i(8), arith.addi(rounded, _scalar(zero_point, 32)))

    return _with_quantized_result(op, build_elementwise(result_type, [op.operands[0]], body))


def _round_half_even(b, value: ir.Value) -> ir.Value:
    """Ties to even for |value| < 2^22, with float32 arithmetic only: adding
    and subtracting 1.5 * 2^23 rounds in the FPU's default mode (nearest,
    ties to even), which needs no libm `roundevenf` on a Cortex-M."""
    magic = b.const(12582912.0)
    return b.sub(b.add(value, magic), magic)


def lower_dequantize(op) -> ir.Value:
    """ONNX DequantizeLinear: scale * (q - zero_point), per tensor or axis."""
    source = op.operands[0]
    element = element_of(source)
    shape = shape_of(source)
    result_type = ir.RankedTensorType.get(shape, ir.F32Type.get())
    if is_per_axis(element):
        per_axis = quant.UniformQuantizedPerAxisType(element)
        axis = per_axis.quantized_dimension
        scales = np.asarray(per_axis.scales, np.float32)
        zero_points = np.asarray(per_axis.zero_points, np.float32)
    else:
        axis, scales, zero_points = None, _scales(element), np.float32([_zero_point(element)])
    stored = _stored(source)
    rank = len(shape)
    if axis is None:
        def body(b, args):
            real = arith.sitofp(ir.F32Type.get(), args[0])
            return b.mul(b.sub(real, b.const(float(zero_points[0]))), b.const(float(scales[0])))
        return build_elementwise(result_type, [stored], body)
    axis_map = ir.AffineMap.get(rank, 0, [ir.AffineDimExpr.get(axis)])

    def per_axis_body(b, args):
        real = arith.sitofp(ir.F32Type.get(), args[0])
        return b.mul(b.sub(real, args[2]), args[1])

    (result,) = build_generic(
        [(stored, identity_map(rank)), (dense_const(scales), axis_map),
         (dense_const(zero_points), axis_map)],
        [(empty(shape), identity_map(rank))], ["parallel"] * rank, per_axis_body)
    return result


def lower_on_storage(op) -> ir.Value:
    """Data movement of quantized tensors (reshape, transpose, concat): the
    same op on their integer storage."""
    result_element = element_of(op.results[0])
    stored = create(op.name, shape_of(op.results[0]), [_stored(v) for v in op.operands],
                    attributes_of(op), op.location, _storage_element(result_element))
    (value,) = lower_op(producer(stored))
    return storage_cast(value, result_element)


#: How each op on quantized data lowers, by op name.
QUANTIZED_LOWERINGS = {
    "tinyml.conv2d": lower_quantized_conv2d,
    "tinyml.depthwise_conv2d": lower_quantized_depthwise_conv2d,
    "tinyml.matmul": lower_quantized_matmul,
    "tinyml.clamp": lower_quantized_clamp,
    "tinyml.add": lower_quantized_add,
    "tinyml.avg_pool2d": lower_quantized_avg_pool2d,
    "tinyml.max_pool2d": lower_quantized_max_pool2d,
    "tinyml.quantize": lower_quantize,
    "tinyml.dequantize": lower_dequantize,
    "tinyml.reshape": lower_on_storage,
    "tinyml.transpose": lower_on_storage,
    "tinyml.concat": lower_on_storage,
}
