"""The quantized forms of tinyml ops, lowered to integer linalg: TFLite's
int8 reference kernels (tensorflow/lite/kernels/internal/reference/
integer_ops/conv.h, depthwise_conv.h, fully_connected.h), bit for bit.

    conv2d / depthwise_conv2d / matmul
        acc[f] = sum x * w                 int8 x int8 -> int32; padding holds
                                           the input zero point
               + bias[f] - zp_x * sum w[.., f]   the input offset, folded into
                                           the bias at compile time
        y = zp_y + MultiplyByQuantizedMultiplier(acc, m[f], shift[f]),
            saturated to the result type's stored range (int8, or a fused
            activation's)
    add        TFLite's: both operands, offset and shifted left by 20, scaled
               to a common scale, summed, scaled to the result (add.h)
    avg_pool2d sum / count of the stored values, rounded half away from
               zero (pooling.h); max_pool2d the maximum of the stored values
    softmax    TFLite's (reference/softmax.h): the exp of each difference to
               the row maximum from tables made at compile time
               (ir/fixed_point.py's softmax_tables), the reciprocal of their sum per
               row in gemmlowp fixed point (GetReciprocal), each output the
               scaled exp, rounded, minus 128
    reduce_mean TFLite's (reference/reduce.h QuantizedMeanOrSum): the sum
               minus n input zero points, requantized with the multiplier
               pre-divided by n
    clamp      the stored values clamped to TFLite's activation range
    quantize / dequantize   float arithmetic: an explicit Q or DQ that no
                            integer op absorbed

MultiplyByQuantizedMultiplier is TFLite's default (common.h): the
accumulator shifted left by max(shift, 0), SaturatingRoundingDoublingHighMul
by m (one 64-bit product, shifted by a constant 31), then
RoundingDivideByPOT by max(-shift, 0) in 32-bit arithmetic. Upstream's
`tosa.apply_scale` (DOUBLE_ROUND) computes the same value with a 64-bit
shift by a per-channel amount, about 40 Cortex-M4 instructions per output
against 15; it stays for the mean, whose pre-shifted exponent can exceed
31. Where a conv's or matmul's accumulators are bounded well enough (from
its weights and bias, at compile time) and every shift is a right shift,
the same bits take a narrow form (fixed_point.py's
narrow_multiply_by_quantized_multiplier): SMMLAR and three or four
instructions (`narrow_multiply`).
`m` and `shift` are TFLite's QuantizeMultiplier of the effective scale
(quantization_util.cc), computed here at compile time. Quantized values
are read through `quant.scast` to their storage type and the result is
cast back, so the casts cancel pairwise once every op is lowered.
"""
from __future__ import annotations

from contextvars import ContextVar
from typing import Callable, Sequence

import numpy as np
from mlir import ir
from mlir.dialects import arith, quant, tensor, tosa

from ..dialects import tinyml as tm
from ..ir.attributes import attr_float, attr_ints, window_attributes
from ..ir.fixed_point import (ACCUMULATION_INTEGER_BITS, INT32_MIN, activation_range,
                              add_multipliers, high_product_pieces, integer_add_outputs,
                              mul_multiplier, multiplier_pieces, narrow_requantization,
                              quantize_multiplier, softmax_tables)
from ..ir.lazy_modules import linalg
from ..ir.lowering_config import TAPS_AS_CHANNELS, WINDOW_AS_CHANNELS
from ..ir.ops import keyed_by_name
from ..ir.patterns import attributes_of, create
from ..ir.quant import is_per_axis, scales, storage_cast, storage_type, zero_points
from ..ir.values import element_of, producer, shape_of
from ..pipeline.registry import PassError
from .fixed_point_ops import (apply_scale, count_leading_zeros, double_round,
                              doubling_high_mul, multiply_by_quantized_multiplier,
                              narrow_multiplier, narrow_multiply, reciprocal_of_one_plus,
                              rounding_shift_right)
from .float_lowering import FLOAT_LOWERINGS
from .linalg_builders import (ScalarBuilder, apply_lowering, broadcast_to, build_elementwise,
                              build_generic, collapse, dense_const, empty, identity_map,
                              int_constant, int_scalar, int_type, pad, pad_nhwc, pool_geometry,
                              projection_map, reshape, window_counts)

INT8_MIN, INT8_MAX = -128, 127

#: Whether the target multiplies 32 x 32 -> 64 bits (tinyml-lower-to-linalg's
#: option `wide-multiply`, set while it runs): without, a narrow
#: requantization takes its high product from 32-bit products of the
#: multiplier's pieces (fixed_point.py's high_product_pieces), where the
#: accumulators' bound allows it.
WIDE_MULTIPLY: ContextVar[bool] = ContextVar("wide_multiply", default=True)


# ---------------------------------------------------------------------------
# Compile-time parameters (the arithmetic is ir/fixed_point.py's)
# ---------------------------------------------------------------------------

def _scales(element: ir.Type) -> np.ndarray:
    return np.asarray(scales(element), np.float32)


def _zero_point(element: ir.Type) -> int:
    """The zero point of a per-tensor type."""
    return zero_points(element)[0]


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

def storage_of(value: ir.Value) -> ir.Value:
    """A quantized tensor's integer storage."""
    return storage_cast(value, storage_type(element_of(value)))


def _constant_storage(value: ir.Value, what: str, op) -> np.ndarray:
    """The integer array behind a quantized constant (`quant.scast` of an
    `arith.constant`)."""
    cast = producer(value)
    source = producer(cast.operands[0]) if cast is not None and cast.name == "quant.scast" \
        else None
    if source is None or source.name != "arith.constant":
        raise PassError(f"quantized {what} must be a constant", op.location)
    return np.array(source.attributes["value"])


def accumulator_bound(folded: np.ndarray, weights: np.ndarray, axes: tuple[int, ...],
                      largest_input: int = 128) -> int:
    """The most any output's accumulator can be from zero: its folded bias
    plus its weights' absolute sum times the largest input (int8: 128)."""
    return int(np.max(np.abs(folded) + largest_input * np.abs(weights).sum(axis=axes)))


def _saturate(value: ir.Value, element: ir.Type | None = None) -> ir.Value:
    """int32 -> the storage of `element`, saturated to its stored range (a
    fused activation narrows it; default: all of int8)."""
    low, high, bits = INT8_MIN, INT8_MAX, 8
    if element is not None:
        params = quant.UniformQuantizedType(element)
        low, high = params.storage_type_min, params.storage_type_max
        bits = params.storage_type.width
    clamped = arith.minsi(arith.maxsi(value, int_scalar(low, 32)), int_scalar(high, 32))
    return arith.trunci(int_type(bits), clamped)


def requantize(acc: ir.Value, scales: Sequence[float], result: ir.Type, bound: int,
               overwritten: ir.Value | None = None) -> ir.Value:
    """int32 accumulators [.., C], each within +-`bound`, -> `result`'s
    storage (int8; int16 for a 16x8 kernel of int32 accumulators):
    MultiplyByQuantizedMultiplier per channel (the last axis), in its
    narrow form where the bound makes that exact, plus the zero point,
    saturated; written into a new tensor, or over `overwritten` (an
    in-place group's input), not read."""
    shape = shape_of(acc)
    pairs = [quantize_multiplier(s) for s in scales]
    narrow = narrow_requantization(bound, pairs)
    per_channel = len(set(pairs)) > 1
    # Without a 64-bit product the narrow form's multiplier is cut into
    # pieces (a power-of-two scale's needs no product at all).
    cut = None if WIDE_MULTIPLY.get() or not narrow \
        or (not per_channel and pairs[0][0] == 1 << 30) else high_product_pieces(bound)
    tables: dict[str, tuple[np.ndarray, int]] = {
        "multiplier": (np.array([narrow_multiplier(m) if narrow else m for m, _ in pairs],
                                np.int32), 32),
        "left": (np.array([max(s, 0) for _, s in pairs], np.int8), 8),
        # The narrow form shifts right by one less, then by one.
        "right": (np.array([max(-s, 0) - narrow for _, s in pairs], np.int8), 8)}
    if not tables["left"][0].any():
        del tables["left"]
    if cut is not None:
        del tables["multiplier"]
        count, width = cut
        pieces = np.array([multiplier_pieces(narrow_multiplier(m), count, width)
                           for m, _ in pairs], np.int64)
        # Halfwords: the low pieces unsigned (zero-extended), the top one signed.
        for i in range(count):
            tables[f"piece{i}"] = (pieces[:, i].astype(np.uint16 if i < count - 1
                                                        else np.int16).view(np.int16), 16)
    rank = len(shape)
    channel_map = ir.AffineMap.get(rank, 0, [ir.AffineDimExpr.get(rank - 1)])
    inputs = [(acc, identity_map(rank))]
    if per_channel:
        inputs += [(int_constant(array, bits), channel_map) for array, bits in tables.values()]

    def unsigned(name: str) -> bool:
        return cut is not None and name.startswith("piece") and name != f"piece{cut[0] - 1}"

    def body(b, args):
        if per_channel:
            params = dict(zip(tables, args[1:]))
            params = {k: v if k == "multiplier" else
                      (arith.extui if unsigned(k) else arith.extsi)(int_type(32), v)
                      for k, v in params.items()}
        else:
            params = {k: int_scalar(int(array[0]) & 0xFFFF if unsigned(k) else int(array[0]),
                                    32) for k, (array, _) in tables.items()}
        zero_point = _zero_point(result)
        if narrow:
            low = quant.UniformQuantizedType(result).storage_type_min
            pieces = None if cut is None else \
                ([params[f"piece{i}"] for i in range(cut[0])], cut[1])
            return _saturate(narrow_multiply(args[0], params.get("multiplier"), params["right"],
                                              zero_point, low >= zero_point, pieces), result)
        scaled = multiply_by_quantized_multiplier(args[0], params["multiplier"],
                                                   params.get("left"), params["right"])
        return _saturate(arith.addi(scaled, int_scalar(zero_point, 32)), result)

    outs = empty(shape, storage_type(result)) if overwritten is None else overwritten
    (result,) = build_generic(inputs, [(outs, identity_map(rank))], ["parallel"] * rank, body)
    return result


def accumulator_init(bias_folded: np.ndarray, shape: Sequence[int]) -> ir.Value:
    if not np.all((bias_folded >= -2 ** 31) & (bias_folded < 2 ** 31)):
        raise ValueError("the bias with the input offset folded in overflows int32")
    return broadcast_to(int_constant(bias_folded, 32), shape, list(range(len(shape) - 1)))


def with_quantized_result(op, stored: ir.Value) -> ir.Value:
    """`stored`, the integer result computed for `op`, as `op`'s quantized result."""
    return storage_cast(stored, element_of(op.results[0]))


# ---------------------------------------------------------------------------
# Lowerings
# ---------------------------------------------------------------------------

def lower_quantized_conv2d(op, in_place: bool = False, channel_step: int = 1) -> ir.Value:
    """The conv; with a `channel_step` (its configuration's) that the input
    channels are not a multiple of, the input padded to the next multiple
    with its zero point and the weights with zeros (3 channels read as
    4: whole words for SMLAD), which adds nothing to any accumulator. A
    one-channel conv whose step is its kernel's width reads a kernel row's
    taps as channels (`taps_as_channels`); a conv whose step is its
    `window_values` reads its whole window as channels
    (`window_as_channels`), a 1x1 conv over them."""
    x, w, bias = list(op.operands)[0], op.operands[1], \
        (op.operands[2] if len(op.operands) > 2 else None)
    strides, dilations, padding = window_attributes(op.attributes)
    x_type, w_type, y_type = element_of(x), element_of(w), element_of(op.results[0])
    weights = _constant_storage(w, "weights", op).astype(np.int64)
    out_shape = shape_of(op.results[0])
    channels = out_shape[-1]
    folded = _bias(bias, channels, op) - _zero_point(x_type) * weights.sum(axis=(0, 1, 2))
    stored = storage_of(x)
    top, left, bottom, right = padding
    kh, kw, in_channels, _ = weights.shape
    unfold = in_channels == 1 and kw > 1 and channel_step == kw and dilations[1] == 1
    window = window_values(kh, kw, in_channels) == channel_step and dilations == [1, 1]
    extra = 0 if unfold or window else -in_channels % channel_step
    x8 = pad(stored, [0, top, left, 0], [0, bottom, right, extra], _zero_point(x_type))
    w8 = storage_of(w) if not extra else \
        int_constant(np.pad(weights, [(0, 0), (0, 0), (0, extra), (0, 0)]), 8)
    if unfold:
        x8 = taps_as_channels(x8, kw, strides[1], out_shape[2])
        w8 = int_constant(weights.reshape(kh, 1, kw, channels), 8)
        strides = [strides[0], 1]
    elif window:
        x8 = window_as_channels(x8, (kh, kw), strides, out_shape[1:3])
        w8 = int_constant(np.pad(weights.reshape(1, 1, kh * kw * in_channels, channels),
                                 [(0, 0), (0, 0), (0, channel_step - kh * kw * in_channels),
                                  (0, 0)]), 8)
        strides = [1, 1]
    acc = linalg.conv_2d_nhwc_hwcf(x8, w8, outs=[accumulator_init(folded, out_shape)],
                                   strides=strides, dilations=dilations)
    scales = effective_scales(x_type, w_type, y_type, channels)
    return with_quantized_result(op, requantize(
        acc, scales, y_type, accumulator_bound(folded, weights, (0, 1, 2)),
        stored if in_place else None))


def taps_as_channels(x8: ir.Value, kw: int, stride: int, width: int) -> ir.Value:
    """The one-channel NHWC input `x8` of a conv with a kernel `kw` wide and
    `stride` across, `width` output columns, as `width` columns of `kw`
    channels, u[n, h, j, k] = x[n, h, j * stride + k]: the conv is then one
    kw-channel tap per kernel row, stride 1 across, whose kw products are
    whole SMLAD words where each would be a multiply of its own. The
    generic (marked `TAPS_AS_CHANNELS`) is fused into the conv's tiles,
    which stage its window: it is never stored whole."""
    n, h, _, _ = shape_of(x8)
    d = [ir.AffineDimExpr.get(i) for i in range(4)]
    zero = ir.AffineConstantExpr.get(0)
    read = ir.AffineMap.get(4, 0, [d[0], d[1], d[2] * stride + d[3], zero])
    init = empty([n, h, width, kw], int_type(8))
    (unfolded,) = build_generic([(x8, read)], [(init, identity_map(4))],
                                ["parallel"] * 4, lambda b, args: args[0])
    unfolded.owner.attributes[TAPS_AS_CHANNELS] = ir.UnitAttr.get()
    return unfolded


def window_values(kh: int, kw: int, in_channels: int) -> int:
    """The channels of a conv's window read as channels (`window_as_channels`):
    its kh x kw x in_channels values rounded up to whole SMLAD words, where
    that adds one value at most; 0 where the window is not read so (one
    input channel, a 1x1 kernel, or 2 or 3 values to add)."""
    values = kh * kw * in_channels
    padded = -(-values // 4) * 4
    return padded if padded - values <= 1 and in_channels > 1 and kh * kw > 1 else 0


def window_as_channels(x8: ir.Value, kernel: Sequence[int], strides: Sequence[int],
                       out_size: Sequence[int]) -> ir.Value:
    """The NHWC input `x8` of a conv with a `kernel` window moved by
    `strides`, as `out_size` pixels of `window_values` channels extended to
    int16, u[n, i, j, (r * kw + k) * C + c] = x[n, i * sh + r, j * sw + k, c]
    (im2col): the conv is then 1x1 over them, its whole reduction whole
    SMLAD words where C channels a tap are not. A value added to make the
    words whole reads the window's last value again, under a zero weight.
    The read map is affine (floordiv and mod by constants); its least and
    greatest indices are those of the first and last channel, as linalg's
    tiling takes them to be. The generic (marked `WINDOW_AS_CHANNELS` with
    the kernel) is fused into the conv's tiles, which stage its window:
    it is never stored whole."""
    n, _, _, channels = shape_of(x8)
    kh, kw = kernel
    values = kh * kw * channels

    def floordiv(expr: ir.AffineExpr, divisor: int) -> ir.AffineExpr:
        return ir.AffineExpr.get_floor_div(expr, ir.AffineExpr.get_constant(divisor))

    q = ir.AffineDimExpr.get(3)
    added = floordiv(q, values)  # 1 for the value added, else 0
    row = floordiv(q % values, kw * channels) + added * (kh - 1)
    column = floordiv(q % (kw * channels), channels) + added * (kw - 1)
    channel = q % channels + added * (channels - 1)
    n_, i, j = (ir.AffineDimExpr.get(d) for d in range(3))
    read = ir.AffineMap.get(4, 0, [n_, i * strides[0] + row, j * strides[1] + column, channel])
    init = empty([n, *out_size, window_values(kh, kw, channels)], int_type(16))
    (unfolded,) = build_generic([(x8, read)], [(init, identity_map(4))], ["parallel"] * 4,
                                lambda b, args: arith.extsi(int_type(16), args[0]))
    unfolded.owner.attributes[WINDOW_AS_CHANNELS] = ir.DenseI64ArrayAttr.get([kh, kw])
    return unfolded


def lower_quantized_depthwise_conv2d(op, in_place: bool = False) -> ir.Value:
    x, w, bias = list(op.operands)[0], op.operands[1], \
        (op.operands[2] if len(op.operands) > 2 else None)
    strides, dilations, padding = window_attributes(op.attributes)
    x_type, w_type, y_type = element_of(x), element_of(w), element_of(op.results[0])
    weights = _constant_storage(w, "weights", op).astype(np.int64)  # [KH, KW, C, 1]
    out_shape = shape_of(op.results[0])
    channels = out_shape[-1]
    folded = _bias(bias, channels, op) - _zero_point(x_type) * weights.sum(axis=(0, 1, 3))
    stored = storage_of(x)
    x8 = pad_nhwc(stored, padding, _zero_point(x_type))
    w8 = collapse(storage_of(w), [[0], [1], [2, 3]])
    acc = linalg.depthwise_conv_2d_nhwc_hwc(x8, w8, outs=[accumulator_init(folded, out_shape)],
                                            strides=strides, dilations=dilations)
    scales = effective_scales(x_type, w_type, y_type, channels)
    return with_quantized_result(op, requantize(
        acc, scales, y_type, accumulator_bound(folded, weights, (0, 1, 3)),
        stored if in_place else None))


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
    acc = linalg.matmul(storage_of(lhs), storage_of(rhs),
                        outs=[accumulator_init(folded, out_shape)], indexing_maps=maps)
    scales = effective_scales(x_type, w_type, y_type, channels,
                              float_product=not is_per_axis(w_type))
    bound = accumulator_bound(folded, weights, (1,) if transpose_rhs else (0,))
    return with_quantized_result(op, requantize(acc, scales, y_type, bound))


def _bias(bias: ir.Value | None, channels: int, op) -> np.ndarray:
    if bias is None:
        return np.zeros(channels, np.int64)
    return _constant_storage(bias, "bias", op).astype(np.int64).reshape(channels)


def lower_quantized_add(op) -> ir.Value:
    """TFLite's integer add and sub (`_rescaled_sum`); an int8 one that is a
    sum of a function of each input, a table and a multiple (`_separable_sum`)."""
    lhs, rhs = op.operands[0], op.operands[1]
    types = [element_of(lhs), element_of(rhs), element_of(op.results[0])]
    params = quant.UniformQuantizedType(types[2])
    bits = params.storage_type.width
    subtract = op.name == tm.SubOp.OPERATION_NAME
    scales = [quant.UniformQuantizedType(t).scale for t in types]
    zero_points = [_zero_point(t) for t in types]
    stored_range = (params.storage_type_min, params.storage_type_max)
    body = (_separable_sum(scales, zero_points, subtract, stored_range) if bits == 8 else None) \
        or _rescaled_sum(subtract, scales, zero_points, stored_range, bits)
    result_type = ir.RankedTensorType.get(shape_of(op.results[0]), int_type(bits))
    stored = build_elementwise(result_type, [storage_of(lhs), storage_of(rhs)],
                               lambda _, args: body(args[0], args[1]))
    return with_quantized_result(op, stored)


def _separable_sum(scales: Sequence[float], zero_points: Sequence[int], subtract: bool,
                   stored_range: tuple[int, int]) -> Callable[..., ir.Value] | None:
    """TFLite's int8 add or sub as `table[x + 128] + k * y`, saturated, x one
    input and y the other, when that is its result for every one of the
    65,536 pairs of stored values (checked here, against
    `integer_add_outputs`): where the output scale is a power of two times
    the larger input's (a residual add's often is), that input's term is
    exact and the other's rounding depends on the other input alone, but
    at ties. One table load and a shifted add an element, where the three
    requantizations take about 16 instructions (M4). None where it is not
    so."""
    outputs = integer_add_outputs(scales, zero_points, subtract)
    values = np.arange(-128, 128, dtype=np.int64)
    for tabulated, per_row in ((0, outputs), (1, outputs.T)):
        # per_row[i, j]: the tabulated input's value i - 128, the other's j - 128.
        step = int(per_row[0, 1] - per_row[0, 0])
        table = per_row[:, 0] + 128 * step
        if np.array_equal(per_row, table[:, None] + step * values[None, :]) \
                and np.all((table >= -(1 << 15)) & (table < 1 << 15)):
            return _table_and_multiple(tabulated, table.astype(np.int16), step, stored_range)
    return None


def _table_and_multiple(tabulated: int, table: np.ndarray, step: int,
                        stored_range: tuple[int, int]) -> Callable[..., ir.Value]:
    """(lhs, rhs) -> `table[x + 128] + step * y` saturated to
    `stored_range`, x the operand at `tabulated`, y the other."""
    low, high = stored_range
    lookup = int_constant(table, 16)

    def body(lhs: ir.Value, rhs: ir.Value) -> ir.Value:
        x, y = (lhs, rhs) if tabulated == 0 else (rhs, lhs)
        offset = arith.addi(arith.extsi(int_type(32), x), int_scalar(128, 32))
        term = arith.extsi(int_type(32), tensor.extract(
            lookup, [arith.index_cast(ir.IndexType.get(), offset)]))
        out = arith.addi(term, arith.muli(arith.extsi(int_type(32), y), int_scalar(step, 32)))
        clamped = arith.minsi(arith.maxsi(out, int_scalar(low, 32)), int_scalar(high, 32))
        return arith.trunci(int_type(8), clamped)

    return body


def _rescaled_sum(subtract: bool, scales: Sequence[float], zero_points: Sequence[int],
                 stored_range: tuple[int, int], bits: int) -> Callable[..., ir.Value]:
    """TFLite's quantized add, or sub, of two stored int8 or int16 values
    (reference/add.h AddElementwise, sub.h; add_common.cc's and
    sub_common.cc's Prepare): both operands offset, shifted left by 20
    (int16: 15), scaled to twice the larger input scale and summed, the
    sum scaled to the output, plus its zero point, saturated to
    `stored_range`; the multipliers divided in double, as TFLM's are."""
    z1, z2, z_out = zero_points
    left_shift = 20 if bits == 8 else 15
    reals = add_multipliers(scales, left_shift)
    # Each offset input is within 2^bits - 1 of zero, shifted left; each
    # scaled by at most 1/2 (and rounded): the bounds of the narrow forms.
    shifted_bound = ((1 << bits) - 1) << left_shift
    total_bound = sum(int(shifted_bound * r) + 1 for r in reals[:2])
    low, high = stored_range

    def body(lhs: ir.Value, rhs: ir.Value) -> ir.Value:
        def scaled(value, zero_point, real):
            offset = arith.addi(arith.extsi(int_type(32), value), int_scalar(-zero_point, 32))
            if quantize_multiplier(real) == (1 << 30, 0):
                # The larger scale's input is scaled by 1/2: SRDHM(offset *
                # 2^s, 2^30) halves an even product exactly, and the shift
                # of 0 rounds nothing: offset * 2^(s - 1), where the general
                # form takes a 64-bit product.
                return arith.shli(offset, int_scalar(left_shift - 1, 32))
            return apply_scale(arith.muli(offset, int_scalar(1 << left_shift, 32)), real,
                               shifted_bound)
        combine = arith.subi if subtract else arith.addi
        total = combine(scaled(lhs, z1, reals[0]), scaled(rhs, z2, reals[1]))
        out = apply_scale(total, reals[2], total_bound, z_out)
        clamped = arith.minsi(arith.maxsi(out, int_scalar(low, 32)), int_scalar(high, 32))
        return arith.trunci(int_type(bits), clamped)

    return body


def lower_quantized_mul(op) -> ir.Value:
    """TFLite's integer mul (reference/integer_ops/mul.h, mul_common.cc's
    Prepare; int8, or int16): the product of the offset inputs scaled by
    s1 * s2 / s_out."""
    lhs, rhs = op.operands[0], op.operands[1]
    types = [element_of(lhs), element_of(rhs), element_of(op.results[0])]
    real = mul_multiplier([quant.UniformQuantizedType(t).scale for t in types])
    z1, z2, z_out = (_zero_point(t) for t in types)
    result_type = ir.RankedTensorType.get(shape_of(op.results[0]), storage_type(types[2]))

    def body(_, args):
        a, b = (arith.addi(arith.extsi(int_type(32), value), int_scalar(-zero_point, 32))
                for value, zero_point in ((args[0], z1), (args[1], z2)))
        return _saturate(apply_scale(arith.muli(a, b), real, zero_point=z_out), types[2])

    stored = build_elementwise(result_type, [storage_of(lhs), storage_of(rhs)], body)
    return with_quantized_result(op, stored)


def lower_quantized_avg_pool2d(op) -> ir.Value:
    """TFLite's integer average pool (reference/integer_ops/pooling.h, int8
    or int16): padding not counted, the quotient rounded half away from
    zero."""
    x = op.operands[0]
    kernel, strides, padding = pool_geometry(op)
    n, h, w, c = shape_of(x)
    out_shape = shape_of(op.results[0])
    _, oh, ow, _ = out_shape
    padded = pad_nhwc(storage_of(x), padding, 0)
    zeros = linalg.fill(int_scalar(0, 32), outs=[empty(out_shape, int_type(32))])
    sums = linalg.pooling_nhwc_sum(padded, empty(kernel), outs=[zeros], strides=strides,
                                   dilations=[1, 1])
    rows = int_constant(window_counts(h, oh, kernel[0], strides[0], padding[0]), 32)
    cols = int_constant(window_counts(w, ow, kernel[1], strides[1], padding[1]), 32)
    result = element_of(op.results[0])

    def body(b, args):
        total, count = args[0], arith.muli(args[1], args[2])
        half = arith.divsi(count, int_scalar(2, 32))
        positive = arith.cmpi(arith.CmpIPredicate.sgt, total, int_scalar(0, 32))
        nudged = arith.select(positive, arith.addi(total, half), arith.subi(total, half))
        return _saturate(arith.divsi(nudged, count), result)  # C division: truncates

    (stored,) = build_generic(
        [(sums, identity_map(4)), (rows, projection_map(4, [1])), (cols, projection_map(4, [2]))],
        [(empty(out_shape, storage_type(result)), identity_map(4))], ["parallel"] * 4, body)
    return with_quantized_result(op, stored)


def lower_quantized_max_pool2d(op) -> ir.Value:
    """The maximum of the stored values (int8 or int16); padding holds the
    lowest, which never exceeds a real element."""
    x = op.operands[0]
    kernel, strides, padding = pool_geometry(op)
    out_shape = shape_of(op.results[0])
    storage = storage_type(element_of(x))
    least = -(1 << (storage.width - 1))
    padded = pad_nhwc(storage_of(x), padding, least)
    lowest = linalg.fill(int_scalar(least, storage.width), outs=[empty(out_shape, storage)])
    stored = linalg.pooling_nhwc_max(padded, empty(kernel), outs=[lowest], strides=strides,
                                     dilations=[1, 1])
    return with_quantized_result(op, stored)


def lower_quantized_softmax(op) -> ir.Value:
    """TFLite's int8 softmax along the last axis (reference/softmax.h), to
    int8 or int16 (the same exps; the output's width sets the last shift
    and its offset)."""
    x = op.operands[0]
    y_type = element_of(op.results[0])
    bits = quant.UniformQuantizedType(y_type).storage_type.width
    shape = shape_of(x)
    rank = len(shape)
    rows = shape[:-1]
    row_map = projection_map(rank, list(range(rank - 1)))
    exps, accumulated = softmax_tables(quant.UniformQuantizedType(element_of(x)).scale)
    exp_table = int_constant(np.array(exps, np.int32), 32)
    sum_table = int_constant(np.array(accumulated, np.int32), 32)
    x8 = storage_of(x)

    def filled(value: int, sizes) -> ir.Value:
        return linalg.fill(int_scalar(value, 32), outs=[empty(sizes, int_type(32))])

    def lookup(table: ir.Value, value: ir.Value, row_max: ir.Value) -> ir.Value:
        difference = arith.subi(row_max, arith.extsi(int_type(32), value))  # 0..255
        return tensor.extract(table, [arith.index_cast(ir.IndexType.get(), difference)])

    iterators = ["parallel"] * (rank - 1) + ["reduction"]
    (row_max,) = build_generic([(x8, identity_map(rank))], [(filled(INT8_MIN, rows), row_map)],
                               iterators,
                               lambda b, a: arith.maxsi(arith.extsi(int_type(32), a[0]), a[1]))
    (sums,) = build_generic([(x8, identity_map(rank)), (row_max, row_map)],
                            [(filled(0, rows), row_map)], iterators,
                            lambda b, a: arith.addi(a[2], lookup(sum_table, a[0], a[1])))

    def reciprocal(b, args):
        """GetReciprocal(sum, 12) -> (shifted_scale, the output's shift)."""
        total = args[0]
        headroom = count_leading_zeros(total)
        shifted_minus_one = arith.subi(arith.shli(total, headroom), int_scalar(INT32_MIN, 32))
        bits_over_unit = arith.subi(int_scalar(ACCUMULATION_INTEGER_BITS, 32), headroom)
        return [reciprocal_of_one_plus(shifted_minus_one),
                arith.addi(bits_over_unit, int_scalar(31 - bits, 32))]

    row_identity = identity_map(rank - 1)
    scales, shifts = build_generic([(sums, row_identity)],
                                   [(empty(rows, int_type(32)), row_identity),
                                    (empty(rows, int_type(32)), row_identity)],
                                   ["parallel"] * (rank - 1), reciprocal)

    def output(b, args):
        value, row_max, scale, shift = args[:4]
        scaled = doubling_high_mul(scale, lookup(exp_table, value, row_max))
        return _saturate(arith.addi(rounding_shift_right(scaled, shift),
                                    int_scalar(-(1 << (bits - 1)), 32)), y_type)

    (stored,) = build_generic(
        [(x8, identity_map(rank)), (row_max, row_map), (scales, row_map), (shifts, row_map)],
        [(empty(shape, int_type(bits)), identity_map(rank))], ["parallel"] * rank, output)
    return with_quantized_result(op, stored)


def mean_multiplier(input_scale: float, output_scale: float, count: int) -> tuple[int, int]:
    """QuantizedMeanOrSum's (m, shift): QuantizeMultiplier of the scale
    ratio, the multiplier then shifted left by p = min(floor(log2 n), 32,
    31 + shift) and divided by n (truncating), the shift lowered by p."""
    multiplier, shift = quantize_multiplier(float(np.float32(input_scale))
                                            / float(np.float32(output_scale)))
    pre_shift = min(count.bit_length() - 1, 32, 31 + shift)
    return int((multiplier << pre_shift) // count), shift - pre_shift


def lower_quantized_reduce_mean(op) -> ir.Value:
    """TFLite's integer mean over axes (reference/reduce.h), int8 or int16."""
    x = op.operands[0]
    in_type, out_type = element_of(x), element_of(op.results[0])
    shape = shape_of(x)
    axes = [int(a) for a in ir.DenseI64ArrayAttr(op.attributes["axes"])]
    count = int(np.prod([shape[a] for a in axes]))
    multiplier, shift = mean_multiplier(_scales(in_type)[0], _scales(out_type)[0], count)
    kept = [d for d in range(len(shape)) if d not in axes]
    sums_shape = [shape[d] for d in kept]
    zeros = linalg.fill(int_scalar(0, 32), outs=[empty(sums_shape, int_type(32))])
    (sums,) = build_generic(
        [(storage_of(x), identity_map(len(shape)))], [(zeros, projection_map(len(shape), kept))],
        ["reduction" if d in axes else "parallel" for d in range(len(shape))],
        lambda b, a: arith.addi(a[1], arith.extsi(int_type(32), a[0])))
    offset = _zero_point(in_type) * count

    def requantize(_, args):
        value = arith.subi(args[0], int_scalar(offset, 32))
        scaled = tosa.ApplyScaleOp(int_type(32), value, int_scalar(multiplier, 32),
                                   int_scalar(31 - shift, 8), double_round()).result
        return _saturate(arith.addi(scaled, int_scalar(_zero_point(out_type), 32)), out_type)

    result_type = ir.RankedTensorType.get(sums_shape, storage_type(out_type))
    stored = build_elementwise(result_type, [sums], requantize)
    return with_quantized_result(op, reshape(stored, shape_of(op.results[0])))


def lower_quantized_clamp(op) -> ir.Value:
    element = element_of(op.results[0])
    low, high = activation_range(_scales(element)[0], _zero_point(element),
                                 ir.FloatAttr(op.attributes["min"]).value,
                                 ir.FloatAttr(op.attributes["max"]).value)
    result_type = ir.RankedTensorType.get(shape_of(op.results[0]), int_type(8))
    stored = build_elementwise(
        result_type, [storage_of(op.operands[0])],
        lambda b, args: arith.minsi(arith.maxsi(args[0], int_scalar(low, 8)), int_scalar(high, 8)))
    return with_quantized_result(op, stored)


def lower_quantize(op) -> ir.Value:
    """ONNX QuantizeLinear: clamp(round_half_even(x / scale) + zp), float32;
    TFLite's QUANTIZE rounds halves away from zero."""
    element = element_of(op.results[0])
    scale, zero_point = float(_scales(element)[0]), _zero_point(element)
    params = quant.UniformQuantizedType(element)
    result_type = ir.RankedTensorType.get(shape_of(op.results[0]), storage_type(element))
    rounded = _rounded_half_away if "ties_away_from_zero" in op.attributes \
        else _rounded_half_even

    def body(_, args):
        b = ScalarBuilder()  # float32: the generic's own builder is int8
        offset = arith.addi(rounded(b, b.div(args[0], b.const(scale))),
                            int_scalar(zero_point, 32))
        clamped = arith.minsi(arith.maxsi(offset, int_scalar(params.storage_type_min, 32)),
                              int_scalar(params.storage_type_max, 32))
        return arith.trunci(params.storage_type, clamped)

    return with_quantized_result(op, build_elementwise(result_type, [op.operands[0]], body))


#: 1.5 * 2^23, and its float32 bits: for 0 <= v < 2^22 (or |v| < 2^22),
#: v + ROUNDING_MAGIC is in [2^23, 2^24), whose float32 values are the
#: integers, so the add rounds v in the FPU's default mode (nearest, ties to
#: even) and the sum's bits are ROUNDING_MAGIC_BITS plus the rounded v. No
#: libm, no float compare, no float-to-int conversion.
ROUNDING_MAGIC = 12582912.0
ROUNDING_MAGIC_BITS = 0x4B400000
#: The float32 bits of 0.5.
HALF_BITS = 0x3F000000


def _rounded_half_even(b, value: ir.Value) -> ir.Value:
    """round_half_even(value) as an int32, read from the bits of value +
    1.5 * 2^23 (on the M4, 7 instructions a quantized value where float
    clamps and VCVT took 16). A larger value, an infinity or a NaN lands
    beyond any storage range on its sign's side: a negative sum's bits are
    a negative int32, which max(bits, 0) keeps from wrapping the
    subtraction."""
    bits = arith.bitcast(int_type(32), b.add(value, b.const(ROUNDING_MAGIC)))
    return arith.subi(arith.maxsi(bits, int_scalar(0, 32)),
                      int_scalar(ROUNDING_MAGIC_BITS, 32))


def _rounded_half_away(b, value: ir.Value) -> ir.Value:
    """round_half_away_from_zero(value) (TfLiteRound) as an int32: |value|
    rounded to even by the magic sum, one more where that rounded a tie
    down (|value| is exactly half above the result), then value's sign
    applied as (n ^ s) - s with s its sign word. Beyond 2^22, at an
    infinity or a NaN the magnitude is beyond any storage range, and the
    sign puts it on its side."""
    magnitude = b.abs(value)
    shifted = b.add(magnitude, b.const(ROUNDING_MAGIC))
    nearest = b.sub(shifted, b.const(ROUNDING_MAGIC))
    tie = arith.cmpi(arith.CmpIPredicate.eq,
                     arith.bitcast(int_type(32), b.sub(magnitude, nearest)),
                     int_scalar(HALF_BITS, 32))
    even = arith.subi(arith.bitcast(int_type(32), shifted), int_scalar(ROUNDING_MAGIC_BITS, 32))
    away = arith.addi(even, arith.extui(int_type(32), tie))
    sign = arith.shrsi(arith.bitcast(int_type(32), value), int_scalar(31, 32))
    return arith.subi(arith.xori(away, sign), sign)


def lower_dequantize(op) -> ir.Value:
    """ONNX DequantizeLinear: scale * (q - zero_point), per tensor or axis."""
    source = op.operands[0]
    element = element_of(source)
    shape = shape_of(source)
    result_type = ir.RankedTensorType.get(shape, ir.F32Type.get())
    scale, zero_point = _scales(element), np.array(zero_points(element), np.float32)
    stored = storage_of(source)
    rank = len(shape)
    if not is_per_axis(element):
        def body(b, args):
            real = arith.sitofp(ir.F32Type.get(), args[0])
            return b.mul(b.sub(real, b.const(float(zero_point[0]))), b.const(float(scale[0])))
        return build_elementwise(result_type, [stored], body)
    axis = quant.UniformQuantizedPerAxisType(element).quantized_dimension
    axis_map = ir.AffineMap.get(rank, 0, [ir.AffineDimExpr.get(axis)])

    def per_axis_body(b, args):
        real = arith.sitofp(ir.F32Type.get(), args[0])
        return b.mul(b.sub(real, args[2]), args[1])

    (result,) = build_generic(
        [(stored, identity_map(rank)), (dense_const(scale), axis_map),
         (dense_const(zero_point), axis_map)],
        [(empty(shape), identity_map(rank))], ["parallel"] * rank, per_axis_body)
    return result


def lower_quantized_pad(op) -> ir.Value:
    """TFLite's int8 PAD: new elements hold `value` quantized (the verifier
    checks it is stored exactly; the zero point for 0)."""
    (x,) = op.operands
    element = element_of(x)
    amounts = attr_ints(op.attributes, "padding")
    rank = len(shape_of(x))
    fill = _zero_point(element) + round(attr_float(op.attributes, "value", 0.0)
                                        / float(_scales(element)[0]))
    return with_quantized_result(op, pad(storage_of(x), amounts[:rank], amounts[rank:], fill))


def lower_lookup(op) -> ir.Value:
    """`table[x + 128]` for every stored x (what tosa-to-linalg makes of an
    int8 `tosa.table`): a load from a 256-byte constant in flash."""
    table = int_constant(np.asarray(ir.DenseI8ArrayAttr(op.attributes["table"]), np.int8), 8)
    result_type = ir.RankedTensorType.get(shape_of(op.results[0]), int_type(8))

    def body(_, args):
        offset = arith.addi(arith.extsi(int_type(32), args[0]), int_scalar(128, 32))
        return tensor.extract(table, [arith.index_cast(ir.IndexType.get(), offset)])

    return with_quantized_result(op, build_elementwise(result_type, [storage_of(op.operands[0])],
                                                        body))


def lower_on_storage(op) -> ir.Value:
    """Data movement of quantized tensors (reshape, transpose, concat): the
    same op on their integer storage."""
    result_element = element_of(op.results[0])
    stored = create(op.name, shape_of(op.results[0]), [storage_of(v) for v in op.operands],
                    attributes_of(op), op.location, storage_type(result_element))
    (value,) = apply_lowering(producer(stored), FLOAT_LOWERINGS[op.name])
    return storage_cast(value, result_element)


#: How each op on quantized data lowers, by op name.
#: Some take `in_place` too (see fused_lowering).
QUANTIZED_LOWERINGS: dict[str, Callable[..., ir.Value]] = keyed_by_name({
    tm.Conv2DOp: lower_quantized_conv2d,
    tm.DepthwiseConv2DOp: lower_quantized_depthwise_conv2d,
    tm.MatmulOp: lower_quantized_matmul,
    tm.ClampOp: lower_quantized_clamp,
    tm.AddOp: lower_quantized_add,
    tm.SubOp: lower_quantized_add,
    tm.MulOp: lower_quantized_mul,
    tm.AvgPool2DOp: lower_quantized_avg_pool2d,
    tm.MaxPool2DOp: lower_quantized_max_pool2d,
    tm.SoftmaxOp: lower_quantized_softmax,
    tm.ReduceMeanOp: lower_quantized_reduce_mean,
    tm.QuantizeOp: lower_quantize,
    tm.DequantizeOp: lower_dequantize,
    tm.PadOp: lower_quantized_pad,
    tm.LookupOp: lower_lookup,
    tm.ReshapeOp: lower_on_storage,
    tm.TransposeOp: lower_on_storage,
    tm.ConcatOp: lower_on_storage,
})
