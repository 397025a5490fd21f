"""TFLite's 16x8 quantization (int16 activations, int8 weights) as TFLM
computes it, built in linalg on the stored integers:

    conv / depthwise / fully connected (reference/integer_ops/conv.h,
    depthwise_conv.h, fully_connected.h, their int16 forms)
        acc[c] = bias[c] + sum x * w   each int16 x int8 product within 23
                                       bits, summed in int64 where the bias
                                       is int64 or absent, else in int32
        y = MultiplyByQuantizedMultiplier(acc, x_scale * w_scale[c] / y_scale)
                                       the 64-bit form for int64 (common.cc:
                                       a 15-bit multiplier, one rounding),
                                       the int32 kernels' for int32,
            saturated to the fused activation's int16 range
    add, sub, mul, mean, pools   the tinyml op on the int16 values as
                 their quantized types: its lowering is TFLM's integer
                 kernel (add and sub shift left by 15 where int8 shifts by 20)
    relu, relu6, leaky_relu   each offset value rescaled (leaky: by the
                 identity's multiplier, or alpha's below zero), plus the zero
                 point, clamped (QuantizeLeakyRelu, ReluQuantized); RELU6
                 clamps the stored values
    logistic, tanh  the interpolated sigmoid table of TFLite's int16 kernels
    softmax      SoftmaxInt16: exp and reciprocal through TFLM's 513-entry
                 interpolated tables (common.h LUTPopulateInt16, LUTLookup)
    pad          the zero point around the stored values

TFLite's 16x8 activations are symmetric: a contraction whose int16 input
or output has a zero point (TFLM's int16 conv ignores it) is refused.
Data movement moves the stored int16 values (`operators.moved_as_stored`);
QUANTIZE between integer types is `integer_operators.py`'s. Another
operator on int16 is refused, naming it."""
from __future__ import annotations

import math

import numpy as np
from mlir import ir
from mlir.dialects import arith, tensor

from ...conversion.fixed_point_ops import (apply_scale, count_leading_zeros,
                                           wide_multiply_by_quantized_multiplier)
from ...conversion.linalg_builders import (broadcast_to, build_generic, empty,
                                           identity_map, int_constant, int_scalar, int_type, pad,
                                           reshape)
from ...conversion.quantized_lowering import accumulator_bound, effective_scales, requantize
from ...dialects import tinyml as tm
from ...ir.attributes import DEFAULT_DILATIONS
from ...ir.fixed_point import (activation_range, checked_log2, expf, int16_table,
                               leaky_relu_multipliers, sigmoid_table, wide_multiplier)
from ...ir.lazy_modules import linalg
from ...ir.quant import storage_cast, uniform_type, with_storage_range
from ...ir.values import element_of, shape_of
from ..onnx.importer import shape_text
from .importer import TfliteImporter, handles
from .integer_kernels import clamped, elementwise, integer_range, saturated, widened
from .integer_operators import check_multiplier, per_tensor
from .operators import ACTIVATIONS, reduction, window, window_keywords
from .reader import Operator, Tensor

INT16_MIN, INT16_MAX = integer_range(16)
#: A fused activation's real range (TFLite's CalculateActivationRangeQuantized).
ACTIVATION_BOUNDS = {"NONE": (-math.inf, math.inf), "RELU": (0.0, math.inf),
                     "RELU6": (0.0, 6.0), "RELU_N1_TO_1": (-1.0, 1.0)}
#: MultiplyByQuantizedMultiplier's 64-bit form takes a shift below 8.
LARGEST_WIDE_MULTIPLIER = 2.0 ** 7


def _stored(im: TfliteImporter, op: Operator, position: int) -> tuple[ir.Value, Tensor]:
    """Input `position`, an int16 tensor computed at run time, as stored."""
    operand = im.tensors[op.inputs[position]]
    if operand.type_name != "INT16" or operand.data is not None or operand.quantization is None:
        kind = "a constant" if operand.data is not None else operand.type_name
        raise im.fail(f"input '{operand.name}' is {kind}; with int16 activations {op.kind} "
                      "takes quantized int16 tensors computed at run time")
    per_tensor(im, operand)
    return im.values[operand.index], operand


def _int16_type(im: TfliteImporter, operand: Tensor) -> ir.Type:
    """The quantized int16 type of a per-tensor int16 tensor."""
    scale, zero_point = per_tensor(im, operand)
    return uniform_type([scale], [zero_point], np.int16)


def _symmetric(im: TfliteImporter, *tensors: Tensor) -> None:
    for operand in tensors:
        if per_tensor(im, operand)[1]:
            raise im.fail(f"int16 tensor '{operand.name}' has zero point "
                          f"{per_tensor(im, operand)[1]}; TFLite's 16x8 kernels take "
                          "symmetric int16 (zero point 0)")


def _activation_range(im: TfliteImporter, op: Operator, y: Tensor) -> tuple[int, int]:
    kind = ACTIVATIONS.get(op.options.get("FusedActivationFunction", 0), "unknown")
    if kind not in ACTIVATION_BOUNDS:
        raise im.fail(f"fused activation {kind} is not supported with int16 activations")
    scale, zero_point = per_tensor(im, y)
    return activation_range(scale, zero_point, *ACTIVATION_BOUNDS[kind], bits=16)


# -- contractions -------------------------------------------------------------

def _filter_and_bias(im: TfliteImporter, op: Operator, channels: int
                     ) -> tuple[np.ndarray, np.ndarray, int]:
    """The int8 filter's scales per output channel, the bias (zeros when
    omitted) and the accumulator's width: 64 bits unless the bias is int32."""
    w = im.tensors[op.inputs[1]]
    if w.type_name != "INT8" or w.data is None or w.quantization is None:
        raise im.fail(f"filter '{w.name}' must be a constant quantized int8 tensor")
    if len(w.quantization.scales) not in (1, channels):
        raise im.fail(f"filter '{w.name}' has {len(w.quantization.scales)} scales for "
                      f"{channels} output channels")
    scales = np.broadcast_to(np.asarray(w.quantization.scales, np.float32), (channels,))
    index = op.inputs[2] if len(op.inputs) > 2 else -1
    if index < 0:
        return scales, np.zeros(channels, np.int64), 64
    bias = im.tensors[index]
    kinds = ("INT64",) if op.kind == "DEPTHWISE_CONV_2D" else ("INT32", "INT64")
    if bias.type_name not in kinds or bias.data is None or bias.data.size != channels:
        raise im.fail(f"bias '{bias.name}' must be a constant {' or '.join(kinds)} tensor of "
                      f"{channels} values (TFLM's int16 {op.kind} reads it so)")
    return scales, bias.data.astype(np.int64).reshape(channels), \
        64 if bias.type_name == "INT64" else 32


def _contraction(im: TfliteImporter, op: Operator, x: ir.Value, weights: np.ndarray,
                 maps: list[ir.AffineMap], iterators: list[str], acc_shape: list[int],
                 channel_axes: int = 1, per_tensor_product: bool = False) -> ir.Value:
    """bias + the sum of the int16 x int8 products `maps` index (input,
    filter, accumulator), requantized to int16 [.., channels]: the
    accumulator's last `channel_axes` axes as one (a depthwise conv's
    channel and multiplier)."""
    y = im.tensors[op.outputs[0]]
    kept = len(acc_shape) - channel_axes
    channels = math.prod(acc_shape[kept:])
    w_scales, bias, bits = _filter_and_bias(im, op, channels)
    x_tensor = im.tensors[op.inputs[0]]
    _symmetric(im, x_tensor, y)
    (x_scale, _), (y_scale, _) = per_tensor(im, x_tensor), per_tensor(im, y)
    scales = effective_scales(uniform_type([x_scale], [0], np.int16),
                              uniform_type(w_scales, np.zeros(channels, np.int64), np.int8, 0),
                              uniform_type([y_scale], [0], np.int16), channels,
                              float_product=per_tensor_product)
    limit = LARGEST_WIDE_MULTIPLIER if bits == 64 else 2.0 ** 30
    if not max(scales) < limit:
        raise im.fail(f"rescaling the accumulator takes a multiplier of {max(scales):.3g}; "
                      f"TFLM's {bits}-bit rescaling computes below 2^{int(math.log2(limit))}")
    # An int64 accumulator sums in int32 where no sum of products can
    # overflow it, the bias added in int64 as the accumulator is rescaled:
    # the same value, in half the memory and single-word additions.
    column_weights = weights.reshape(-1, channels)
    sums_in_int32 = bits == 32 or accumulator_bound(
        np.zeros(channels, np.int64), column_weights, (0,), -INT16_MIN) < 2 ** 31
    initial = bias if bits == 32 or not sums_in_int32 else np.zeros_like(bias)
    acc_bits = 32 if sums_in_int32 else 64
    init = broadcast_to(int_constant(initial.reshape(acc_shape[kept:]), acc_bits), acc_shape,
                        list(range(kept)))

    def multiply_add(_, args):
        product = arith.muli(widened(args[0]), widened(args[1]))
        return arith.addi(args[2], product if acc_bits == 32 else
                          arith.extsi(int_type(64), product))

    (acc,) = build_generic([(x, maps[0]), (int_constant(weights, 8), maps[1])],
                           [(init, maps[2])], iterators, multiply_add)
    acc = reshape(acc, [*acc_shape[:kept], channels])
    low, high = _activation_range(im, op, y)
    if bits == 64:
        return _wide_requantized(acc, scales, low, high, bias if sums_in_int32 else None)
    result = with_storage_range(uniform_type([y_scale], [0], np.int16), low, high)
    bound = accumulator_bound(bias, column_weights, (0,), -INT16_MIN)
    return requantize(acc, scales, result, bound)


def _wide_requantized(acc: ir.Value, scales: list[float], low: int, high: int,
                      bias: np.ndarray | None) -> ir.Value:
    """int64 accumulators [.., C] (or int32 sums of products, plus `bias`
    in int64) -> int16: the 64-bit MultiplyByQuantizedMultiplier per
    channel, saturated to [low, high]."""
    pairs = [wide_multiplier(s) for s in scales]
    shape = ir.RankedTensorType(acc.type).shape
    rank = len(shape)
    channel = ir.AffineMap.get(rank, 0, [ir.AffineDimExpr.get(rank - 1)])
    tables = [int_constant(np.array([m for m, _ in pairs]), 32),
              int_constant(np.array([s for _, s in pairs]), 8)]
    if bias is not None:
        tables.append(int_constant(bias, 64))

    def body(_, args):
        value = args[0] if bias is None else arith.addi(arith.extsi(int_type(64), args[0]),
                                                        args[3])
        scaled = wide_multiply_by_quantized_multiplier(value, args[1], args[2])
        return saturated(scaled, 16, (low, high))

    (result,) = build_generic([(acc, identity_map(rank))] + [(t, channel) for t in tables],
                              [(empty(shape, int_type(16)), identity_map(rank))],
                              ["parallel"] * rank, body)
    return result


def _dims(*indices: int | tuple[int, int, int, int]) -> list[ir.AffineExpr]:
    """Affine expressions of the loop dimensions: an int is a dimension, a
    (output, stride, tap, dilation) tuple the input position they read."""
    d = ir.AffineDimExpr.get
    return [d(i) if isinstance(i, int) else d(i[0]) * i[1] + d(i[2]) * i[3] for i in indices]


def _window_input(im: TfliteImporter, op: Operator, x: ir.Value, kernel: tuple[int, int]
                  ) -> tuple[ir.Value, list, list, list[int]]:
    """The input padded with zeros (its zero point) as the window needs, the
    strides, dilations and output [height, width]."""
    shape = im.shape(x)
    if len(shape) != 4:
        raise im.fail(f"needs a 4-D NHWC input, got {shape_text(shape)}")
    strides, dilations, padding, out = window(im, shape, kernel, op.options)
    top, left, bottom, right = padding
    return pad(x, [0, top, left, 0], [0, bottom, right, 0], 0), strides, dilations, out


@handles("CONV_2D", int16=True)
def _conv(im: TfliteImporter, op: Operator) -> tuple[list, bool]:
    x, _ = _stored(im, op, 0)
    w = im.tensors[op.inputs[1]]
    if len(w.shape) != 4 or w.shape[3] != im.shape(x)[-1] or w.data is None:
        raise im.fail(f"filter {shape_text(w.shape)} is not a constant fitting the input "
                      f"{shape_text(im.shape(x))}")
    filters, kh, kw, _ = w.shape
    x, (sh, sw), (dh, dw), out = _window_input(im, op, x, (kh, kw))
    # Loops n, oh, ow, f, kh, kw, c.
    maps = [ir.AffineMap.get(7, 0, _dims(0, (1, sh, 4, dh), (2, sw, 5, dw), 6)),
            ir.AffineMap.get(7, 0, _dims(4, 5, 6, 3)), ir.AffineMap.get(7, 0, _dims(0, 1, 2, 3))]
    weights = w.data.transpose(1, 2, 3, 0)  # HWIO
    return [_contraction(im, op, x, weights, maps, ["parallel"] * 4 + ["reduction"] * 3,
                         [im.shape(x)[0], *out, filters])], True


@handles("DEPTHWISE_CONV_2D", int16=True)
def _depthwise(im: TfliteImporter, op: Operator) -> tuple[list, bool]:
    x, _ = _stored(im, op, 0)
    w = im.tensors[op.inputs[1]]
    channels = im.shape(x)[-1]
    multiplier = int(op.options["DepthMultiplier"])
    if len(w.shape) != 4 or w.shape[0] != 1 or w.shape[3] != channels * multiplier \
            or w.data is None:
        raise im.fail(f"filter {shape_text(w.shape)} is not a constant [1, height, width, "
                      f"{channels} channels * {multiplier}]")
    _, kh, kw, _ = w.shape
    x, (sh, sw), (dh, dw), out = _window_input(im, op, x, (kh, kw))
    # Loops n, oh, ow, c, m, kh, kw; output channel c * multiplier + m.
    maps = [ir.AffineMap.get(7, 0, _dims(0, (1, sh, 5, dh), (2, sw, 6, dw), 3)),
            ir.AffineMap.get(7, 0, _dims(5, 6, 3, 4)),
            ir.AffineMap.get(7, 0, _dims(0, 1, 2, 3, 4))]
    shape = [im.shape(x)[0], *out, channels, multiplier]
    y = _contraction(im, op, x, w.data.reshape(kh, kw, channels, multiplier), maps,
                     ["parallel"] * 5 + ["reduction"] * 2, shape, channel_axes=2)
    return [y], True


@handles("FULLY_CONNECTED", int16=True)
def _fully_connected(im: TfliteImporter, op: Operator) -> tuple[list, bool]:
    x, _ = _stored(im, op, 0)
    w = im.tensors[op.inputs[1]]
    if len(w.shape) != 2 or w.data is None or math.prod(im.shape(x)) % w.shape[1]:
        raise im.fail(f"filter {shape_text(w.shape)} does not fit the input "
                      f"{shape_text(im.shape(x))}")
    if op.options.get("WeightsFormat", 0) != 0:
        raise im.fail("shuffled weights are not supported")
    units, depth = w.shape
    rows = math.prod(im.shape(x)) // depth
    # Loops b, o, k.
    maps = [ir.AffineMap.get(3, 0, _dims(0, 2)), ir.AffineMap.get(3, 0, _dims(2, 1)),
            ir.AffineMap.get(3, 0, _dims(0, 1))]
    per_tensor_product = len(w.quantization.scales) == 1 if w.quantization else False
    y = _contraction(im, op, im.reshape(x, (rows, depth)), w.data.T, maps,
                     ["parallel", "parallel", "reduction"], [rows, units],
                     per_tensor_product=per_tensor_product)
    return [im.reshape(y, im.tensors[op.outputs[0]].shape)], True


# -- element-wise ---------------------------------------------------------------

_BINARY = {"ADD": tm.AddOp, "SUB": tm.SubOp, "MUL": tm.MulOp}


@handles(*_BINARY, int16=True)
def _binary(im: TfliteImporter, op: Operator) -> tuple[list, bool]:
    """The tinyml op on the int16 values as their quantized types (a
    constant operand too): its integer lowering is TFLM's (the int8
    arithmetic, ADD's and SUB's left shift 15), operands broadcast."""
    a, b = _quantized(im, op, 0, constant=True), _quantized(im, op, 1, constant=True)
    try:
        shape = list(np.broadcast_shapes(im.shape(a), im.shape(b)))
    except ValueError:
        raise im.fail(f"operand shapes {shape_text(im.shape(a))} and "
                      f"{shape_text(im.shape(b))} do not broadcast") from None
    y = im.tensors[op.outputs[0]]
    low, high = _activation_range(im, op, y)
    element = _int16_type(im, y)
    result = im.emit(_BINARY[op.kind], shape, [a, b], with_storage_range(element, low, high))
    return [storage_cast(result, int_type(16), im.loc)], True


@handles("MEAN", int16=True)
def _mean(im: TfliteImporter, op: Operator) -> tuple[list, bool]:
    """The tinyml mean on the int16 values as their quantized type: its
    integer lowering is TFLM's QuantizedMeanOrSum."""
    x = _quantized(im, op, 0)
    axes, keep, out = reduction(im, op, im.shape(x))
    element = _int16_type(im, im.tensors[op.outputs[0]])
    result = im.emit(tm.ReduceMeanOp, out, [x], element, axes=axes, keep_dims=keep)
    return [storage_cast(result, int_type(16), im.loc)], True


def _quantized(im: TfliteImporter, op: Operator, position: int,
               constant: bool = False) -> ir.Value:
    """Input `position` as its quantized int16 type; a constant one as a
    constant where `constant`."""
    tensor_ = im.tensors[op.inputs[position]]
    if constant and tensor_.type_name == "INT16" and tensor_.data is not None:
        stored = int_constant(tensor_.data, 16)
    else:
        stored, tensor_ = _stored(im, op, position)
    return storage_cast(stored, _int16_type(im, tensor_),
                        im.loc)


@handles("LEAKY_RELU", int16=True)
def _leaky_relu(im: TfliteImporter, op: Operator) -> tuple[list, bool]:
    x, x_tensor = _stored(im, op, 0)
    (x_scale, x_zero), (y_scale, y_zero) = (per_tensor(im, t) for t in
                                            (x_tensor, im.tensors[op.outputs[0]]))
    identity, scaled_alpha = leaky_relu_multipliers(x_scale, op.options.get("Alpha", 0.2),
                                                    y_scale)
    for real, what in ((identity, "identity"), (abs(scaled_alpha), "alpha")):
        check_multiplier(im, real, f"the {what} rescaling")

    def body(value: ir.Value) -> ir.Value:
        offset = arith.subi(widened(value), int_scalar(x_zero, 32))
        negative = arith.cmpi(arith.CmpIPredicate.slt, offset, int_scalar(0, 32))
        scaled = arith.select(negative, apply_scale(offset, scaled_alpha),
                              apply_scale(offset, identity))
        return saturated(arith.addi(scaled, int_scalar(y_zero, 32)), 16)
    return [elementwise([x], 16, body)], True


@handles("RELU", "RELU6", int16=True)
def _relu(im: TfliteImporter, op: Operator) -> tuple[list, bool]:
    """activations.cc, int16: RELU rescales each value (symmetric) to the
    output's scale and clamps it from 0 (ReluQuantized); RELU6 clamps the
    stored values to the input's 0 and 6 (Relu6Quantized)."""
    x, x_tensor = _stored(im, op, 0)
    (x_scale, x_zero), (y_scale, _) = (per_tensor(im, t) for t in
                                       (x_tensor, im.tensors[op.outputs[0]]))
    if op.kind == "RELU6":
        low, high = activation_range(x_scale, x_zero, 0.0, 6.0, bits=16)
        return [elementwise([x], 16, lambda v: saturated(widened(v), 16, (low, high)))], True
    _symmetric(im, x_tensor, im.tensors[op.outputs[0]])
    real = float(np.float32(x_scale) / np.float32(y_scale))
    check_multiplier(im, real, "the rescaling")

    def body(value: ir.Value) -> ir.Value:
        return saturated(apply_scale(widened(value), real), 16, (0, INT16_MAX))
    return [elementwise([x], 16, body)], True


@handles("AVERAGE_POOL_2D", "MAX_POOL_2D", int16=True)
def _pool(im: TfliteImporter, op: Operator) -> tuple[list, bool]:
    """The tinyml pool on the int16 values as their quantized type: its
    integer lowering is TFLM's (reference/integer_ops/pooling.h), which
    keeps the input's scale and zero point."""
    x, x_tensor = _stored(im, op, 0)
    y = im.tensors[op.outputs[0]]
    if per_tensor(im, x_tensor) != per_tensor(im, y):
        raise im.fail(f"input '{x_tensor.name}' and output '{y.name}' are quantized "
                      f"differently; TFLM's int16 {op.kind} keeps the scale and zero point")
    kernel = [int(op.options["FilterHeight"]), int(op.options["FilterWidth"])]
    strides, _, padding, out = window(im, im.shape(x), kernel, op.options)
    pool = tm.AvgPool2DOp if op.kind == "AVERAGE_POOL_2D" else tm.MaxPool2DOp
    attributes = window_keywords(strides, DEFAULT_DILATIONS, padding)
    del attributes["dilations"]
    source = _quantized(im, op, 0)
    pooled = im.emit(pool, [im.shape(x)[0], *out, im.shape(x)[3]], [source],
                     element_of(source), kernel=kernel, **attributes)
    stored = storage_cast(pooled, int_type(16), im.loc)
    low, high = _activation_range(im, op, y)
    if (low, high) == (INT16_MIN, INT16_MAX):
        return [stored], True
    return [elementwise([stored], 16, lambda v: saturated(widened(v), 16, (low, high)))], True


@handles("PAD", int16=True)
def _pad(im: TfliteImporter, op: Operator) -> tuple[list, bool]:
    x, x_tensor = _stored(im, op, 0)
    y = im.tensors[op.outputs[0]]
    if per_tensor(im, x_tensor) != per_tensor(im, y):
        raise im.fail(f"input '{x_tensor.name}' and output '{y.name}' are quantized "
                      "differently; TFLM's PAD keeps the scale and zero point")
    pads = im.int_input(1, "the paddings")
    rank = len(im.shape(x))
    if pads.shape != (rank, 2) or (pads < 0).any():
        raise im.fail(f"paddings of shape {shape_text(pads.shape)} for rank {rank} must be "
                      f"[{rank}, 2] and non-negative")
    return [pad(x, pads[:, 0].tolist(), pads[:, 1].tolist(), per_tensor(im, y)[1])], True


# -- logistic and tanh ---------------------------------------------------------

@handles("LOGISTIC", "TANH", int16=True)
def _squashing(im: TfliteImporter, op: Operator) -> tuple[list, bool]:
    """reference/integer_ops/logistic.h and tanh.h, int16: the input
    rescaled to 1/(3 * 4096) per step (tanh: twice that), its magnitude
    interpolated in TFLite's sigmoid table (`sigmoid_table`; tanh(x) =
    2 sigmoid(2x) - 1), mirrored below zero, in Q0.15."""
    x, x_tensor = _stored(im, op, 0)
    y = im.tensors[op.outputs[0]]
    _symmetric(im, x_tensor, y)
    if checked_log2(per_tensor(im, y)[0]) != -15:
        raise im.fail(f"output '{y.name}' has scale {per_tensor(im, y)[0]:g}; TFLM's int16 "
                      f"{op.kind} writes scale 1/32768")
    multiplier, left_shift = _squashing_rescale(per_tensor(im, x_tensor)[0], op.kind == "TANH")
    tanh = op.kind == "TANH"
    fraction = 8 if tanh else 9  # the interpolation's fraction bits
    table = int_constant(sigmoid_table().view(np.int16), 16)

    def body(value: ir.Value) -> ir.Value:
        rounding = (1 << (left_shift - 1)) if left_shift > 0 else 0
        scaled = arith.shrsi(arith.addi(arith.muli(widened(value), int_scalar(multiplier, 32)),
                                        int_scalar(rounding, 32)), int_scalar(left_shift, 32))
        magnitude = arith.maxsi(scaled, arith.subi(int_scalar(0, 32), scaled))
        high = arith.shrsi(magnitude, int_scalar(fraction, 32))
        index = arith.index_cast(ir.IndexType.get(), arith.minsi(high, int_scalar(254, 32)))
        below, above = (arith.extui(int_type(32), tensor.extract(table, [i])) for i in (
            index, arith.addi(index, arith.constant(ir.IndexType.get(), 1))))
        low_bits = arith.andi(magnitude, int_scalar((1 << fraction) - 1, 32))
        interpolated = arith.addi(arith.shli(below, int_scalar(fraction, 32)),
                                  arith.muli(low_bits, arith.subi(above, below)))
        saturated_value = int_scalar(0xFFFF << 8 if tanh else 0x7FFF << 10, 32)
        result = arith.select(arith.cmpi(arith.CmpIPredicate.sge, high, int_scalar(255, 32)),
                              saturated_value, interpolated)
        negative = arith.cmpi(arith.CmpIPredicate.slt, scaled, int_scalar(0, 32))
        # Below zero: 1 - sigmoid(|x|), and -tanh(|x|); each rounded as TFLite does.
        if tanh:
            half, quarter = int_scalar(1 << 23, 32), int_scalar(1 << 7, 32)
            positive_result = arith.addi(arith.subi(result, half), quarter)
            negative_result = arith.subi(arith.addi(arith.subi(half, result), quarter),
                                         int_scalar(1, 32))
            shift = 8
        else:
            one, half = int_scalar(1 << 25, 32), int_scalar(1 << 9, 32)
            positive_result = arith.addi(result, half)
            negative_result = arith.subi(arith.addi(arith.subi(one, result), half),
                                         int_scalar(1, 32))
            shift = 10
        chosen = arith.select(negative, negative_result, positive_result)
        return arith.trunci(int_type(16), arith.shrsi(chosen, int_scalar(shift, 32)))

    return [elementwise([x], 16, body)], True


def _squashing_rescale(input_scale: float, tanh: bool) -> tuple[int, int]:
    """LOGISTIC's and TANH's Prepare, int16: (multiplier, right shift) that
    take an input to steps of 1/(3 * 4096): 3 << shift for a power-of-two
    scale of 2^-12 (tanh also 2^-11), else the scale times 3 * 4096 doubled
    until above 16383.5, truncated."""
    log2 = checked_log2(input_scale)
    if log2 is not None and 12 + log2 in ((0, 1) if tanh else (0,)):
        return 3 << (12 + log2), 0
    multiplier, left_shift = float(np.float32(input_scale)) * 4096.0 * 3.0, 0
    while multiplier <= 32767.0 / 2.0 and left_shift <= 30:
        left_shift += 1
        multiplier *= 2.0
    return int(multiplier), left_shift


# -- softmax ------------------------------------------------------------------

#: TFLM's int16 softmax tables span an int16 range of 65535 steps.
INT16_SPAN = np.float32(INT16_MAX - INT16_MIN)


@handles("SOFTMAX", int16=True)
def _softmax(im: TfliteImporter, op: Operator) -> tuple[list, bool]:
    """TFLM's SoftmaxInt16 (reference/softmax.h) over the last axis: each
    difference to the row maximum, rescaled so that [-65535, 0] is
    [-10, 0], through the exp table; the sum's reciprocal through the
    1 / (1 + x) table, normalised by its leading zeros; each exp times it,
    in Q0.15 (scale 1/32768)."""
    x, x_tensor = _stored(im, op, 0)
    y = im.tensors[op.outputs[0]]
    _symmetric(im, x_tensor, y)
    if abs(per_tensor(im, y)[0] - 1 / 32768) > 0.001 / 32768:
        raise im.fail(f"output '{y.name}' has scale {per_tensor(im, y)[0]:g}; TFLM's int16 "
                      "SOFTMAX writes scale 1/32768")
    real = float(np.float32(per_tensor(im, x_tensor)[0])) \
        * float(np.float32(op.options.get("Beta", 1.0))) / (10.0 / 65535.0)
    check_multiplier(im, real, "rescaling the input")
    exp_table = int_constant(int16_table(expf, np.float32(10) / INT16_SPAN, INT16_MAX,
                                         np.float32(2) / INT16_SPAN, 0), 16)
    reciprocal_table = int_constant(int16_table(
        lambda v: np.float32(1) / (np.float32(1) + v), np.float32(1) / INT16_SPAN, INT16_MIN,
        np.float32(2) / INT16_SPAN, 0), 16)
    shape = im.shape(x)
    rows = reshape(x, [math.prod(shape[:-1]), shape[-1]])
    row_map = ir.AffineMap.get(2, 0, [ir.AffineDimExpr.get(0)])
    by_row = ["parallel", "reduction"]

    def row_of(init: ir.Value, body) -> ir.Value:
        return build_generic([(rows, identity_map(2))], [(init, row_map)], by_row, body)[0]

    count = shape_of(rows)[0]
    lowest = linalg.fill(int_scalar(INT16_MIN, 16), outs=[empty([count], int_type(16))])
    row_max = row_of(lowest, lambda _, args: arith.maxsi(args[0], args[1]))

    def exp(_, args):
        scaled = apply_scale(arith.subi(widened(args[0]), widened(args[1])), real)
        centred = clamped(arith.addi(scaled, int_scalar(INT16_MAX, 32)), INT16_MIN, INT16_MAX)
        return _lookup(exp_table, centred)

    (exps,) = build_generic([(rows, identity_map(2)), (row_max, row_map)],
                            [(empty(shape_of(rows), int_type(16)), identity_map(2))],
                            ["parallel", "parallel"], exp)
    zeros = linalg.fill(int_scalar(0, 32), outs=[empty([count], int_type(32))])
    (sums,) = build_generic([(exps, identity_map(2))], [(zeros, row_map)], by_row,
                            lambda _, args: arith.addi(args[1], widened(args[0])))

    def normalised(_, args):
        exp_value, total = args[0], args[1]
        headroom = count_leading_zeros(total)  # plus one: the sum is positive
        wide = int_type(64)
        shifted = arith.shrsi(arith.addi(arith.shli(arith.extsi(wide, total), arith.extsi(
            wide, arith.subi(headroom, int_scalar(1, 32)))), int_scalar(1 << 13, 64)),
            int_scalar(14, 64))
        centred = clamped(arith.addi(arith.trunci(int_type(32), shifted),
                                     int_scalar(-((1 << 15) + (1 << 16)), 32)),
                          INT16_MIN, INT16_MAX)
        reciprocal = _lookup(reciprocal_table, centred)
        right_shift = arith.extsi(wide, arith.subi(int_scalar(31, 32), headroom))
        rounding = arith.shli(int_scalar(1, 64), arith.subi(right_shift, int_scalar(1, 64)))
        product = arith.muli(arith.extsi(wide, exp_value), arith.extsi(wide, reciprocal))
        result = arith.trunci(int_type(32), arith.shrsi(arith.addi(product, rounding),
                                                       right_shift))
        return saturated(result, 16, (0, INT16_MAX))

    (out,) = build_generic([(exps, identity_map(2)), (sums, row_map)],
                           [(empty(shape_of(rows), int_type(16)), identity_map(2))],
                           ["parallel", "parallel"], normalised)
    return [reshape(out, shape)], True


def _lookup(table: ir.Value, value: ir.Value) -> ir.Value:
    """common.h LUTLookup of an int16 (held in int32) in a 513-entry table:
    the entry of its top 9 bits, plus the slope to the next times its low
    7 bits, rounded."""
    index = arith.addi(arith.shrsi(value, int_scalar(7, 32)), int_scalar(256, 32))
    offset = arith.andi(value, int_scalar(0x7F, 32))
    base, following = (widened(tensor.extract(table, [arith.index_cast(ir.IndexType.get(), i)]))
                       for i in (index, arith.addi(index, int_scalar(1, 32))))
    slope = widened(arith.trunci(int_type(16), arith.subi(following, base)))
    delta = arith.shrsi(arith.addi(arith.muli(slope, offset), int_scalar(64, 32)),
                        int_scalar(7, 32))
    return arith.trunci(int_type(16), arith.addi(base, delta))
