"""tinyml-quantize-ops: turn the float op between a dequantize and a
quantize into the op's quantized (integer) form.

A quantized model as ONNX writes it (QDQ) computes each layer in float
between `DequantizeLinear` and `QuantizeLinear`; TFLite, which made it,
computes the layer in integers. This pass rewrites the pattern into the
integer op, whose semantics (TFLite's, see each op's ODS description) the
lowering implements:

    quantize(op(dequantize(x), dequantize(w), ...)) -> op(x, w, ...)
    quantize(relu(op(...)))          -> op(...) : i8<lo:hi>    conv, depthwise, matmul, add,
                                                               sub, mul
    quantize(clamp[a, b](op(...)))   -> op(...) : i8<lo:hi>
    quantize(relu(op(...)))          -> clamp[0, inf](op(...))  the other ops

for op in conv2d, depthwise_conv2d, matmul, add, sub, mul, avg_pool2d, max_pool2d, pad,
softmax, reduce_mean (a global_avg_pool becomes a reduce_mean over H and W),
where every operand and the result keep their quantized types. An
activation is TFLite's fused activation range: the stored range [lo, hi]
of the op's result type (`!quant.uniform<i8<lo:hi>:f32, ...>`, cast back to
the full range for its users) where the op saturates its result anyway,
else the quantized clamp.
The float intermediates must have one user each, and the types must be a
quantization TFLite uses: int8 data per tensor; for a contraction int8
weights per tensor or per output channel and an int32 bias with zero
point 0; for a pool, and a pad whose value the type stores exactly, one
type in and out; for softmax the last axis and TFLite's output type
(int8 of scale 1/256 and zero point -128, or int16 of 1/65536 and
-32768). A pattern that does not fit leaves the dequantize and quantize
ops: they stay explicit, computed in float on the target.

A reshape or transpose between a cast and the op first moves above the
cast (tf2onnx writes the transpose of a one-channel input as a reshape,
where it meets the reshape on the other side of the cast and folds;
`tinyml-cancel-transposes` leaves an int8 TRANSPOSE below its dequantize),
so that the op reads a dequantize again and the data moves as int8:

    reshape(dequantize(x)) -> dequantize(reshape(x))     per-tensor types
    reshape(quant.scast(x)) -> quant.scast(reshape(x))
    quantize(reshape(x)) -> reshape(quantize(x))
    transpose(dequantize(x)) -> dequantize(transpose(x)), and through quant.scast

Run after `tinyml-cancel-transposes` (the layout transposes sit between the
casts and the op until then), followed by `canonicalize`, which erases the
dequantize ops left without users.
"""
from __future__ import annotations

import numpy as np
from mlir import ir
from mlir.dialects import quant

from ..dialects import tinyml as tm
from ..ir.ops import CONTRACTIONS, keyed_by_name, op_names
from ..ir.patterns import NO_MATCH, attributes_of, create, producer_named, rewrite_greedily
from ..ir.fixed_point import activation_range
from ..ir.quant import (is_int8_per_tensor, is_per_axis, quant_cast, storage_cast,
                        storage_type, with_storage_range, zero_points)
from ..ir.values import element_of, producer, shape_of
from ..pipeline.registry import Pass, register

#: Ops whose integer kernel saturates its result: an activation narrows that.
SATURATING = (*CONTRACTIONS, *op_names(tm.AddOp, tm.SubOp, tm.MulOp))
F32_MAX = float(np.finfo(np.float32).max)


def _only_use(value: ir.Value) -> bool:
    return len(list(value.uses)) == 1


def _storage_bits(element: ir.Type) -> int:
    return storage_type(element).width


def _activation(value: ir.Value):
    """(the value an activation reads, (min, max)) when `value` is a relu or
    clamp with one user; else (value, None)."""
    relu = producer_named(value, tm.ReluOp)
    if relu is not None and _only_use(value):
        return relu.operands[0], (0.0, F32_MAX)
    clamp = producer_named(value, tm.ClampOp)
    if clamp is not None and _only_use(value):
        bounds = (ir.FloatAttr(clamp.attributes["min"]).value,
                  ir.FloatAttr(clamp.attributes["max"]).value)
        return clamp.operands[0], bounds
    return value, None


def _dequantized(op: ir.Operation) -> list[ir.Value] | None:
    """The quantized values `op`'s operands dequantize, when all are
    `tinyml.dequantize` results."""
    sources = [producer_named(value, tm.DequantizeOp) for value in op.operands]
    quantized = [source.operands[0] for source in sources if source is not None]
    return quantized if len(quantized) == len(sources) else None


def _contraction_operands(op: ir.Operation, result: ir.Type) -> list[ir.Value] | None:
    sources = _dequantized(op)
    if sources is None:
        return None
    data, weights = element_of(sources[0]), element_of(sources[1])
    if not is_int8_per_tensor(data) or _storage_bits(weights) != 8 or any(zero_points(weights)):
        return None  # TFLite's kernels take symmetric weights (zero point 0)
    if op.name == tm.DepthwiseConv2DOp.OPERATION_NAME and shape_of(op.operands[1])[3] != 1:
        return None  # a channel multiplier: no quantized form
    if len(sources) > 2:
        bias = element_of(sources[2])
        if _storage_bits(bias) != 32 or any(zero_points(bias)):
            return None
    return sources


def _pool_operands(op: ir.Operation, result: ir.Type) -> list[ir.Value] | None:
    sources = _dequantized(op)
    if sources is None or element_of(sources[0]) != result:
        return None  # TFLite pools keep the input's scale and zero point
    if "count_include_pad" in op.attributes:
        return None
    return sources


def _pad_operands(op: ir.Operation, result: ir.Type) -> list[ir.Value] | None:
    sources = _dequantized(op)
    if sources is None or element_of(sources[0]) != result or not is_int8_per_tensor(result):
        return None  # TFLite's PAD keeps the input's scale and zero point
    params = quant.UniformQuantizedType(result)
    steps = ir.FloatAttr(op.attributes["value"]).value / params.scale \
        if "value" in op.attributes else 0.0
    if steps != round(steps) or not -128 <= params.zero_point + steps <= 127:
        return None  # a pad value the int8 type does not hold
    return sources


def _binary_operands(op: ir.Operation, result: ir.Type) -> list[ir.Value] | None:
    sources = _dequantized(op)
    if sources is None or not all(is_int8_per_tensor(element_of(s)) for s in sources):
        return None
    return sources


def _mean_operands(op: ir.Operation, result: ir.Type) -> list[ir.Value] | None:
    sources = _dequantized(op)
    if sources is None or not is_int8_per_tensor(element_of(sources[0])):
        return None
    return sources


def _softmax_operands(op: ir.Operation, result: ir.Type) -> list[ir.Value] | None:
    sources = _dequantized(op)
    if sources is None or not is_int8_per_tensor(element_of(sources[0])):
        return None
    rank = len(shape_of(op.operands[0]))
    params = quant.UniformQuantizedType(result)
    if ir.IntegerAttr(op.attributes["axis"]).value != rank - 1 \
            or not _softmax_output(params.storage_type.width, params.scale, params.zero_point):
        return None
    return sources


def _softmax_output(bits: int, scale: float, zero_point: int) -> bool:
    """TFLite's int8 softmax writes int8 of scale 1/256 exactly, or int16 of
    scale 1/65536 within 0.1% (TFLM checks both so), at the lowest value
    for 0."""
    if bits == 8:
        return scale == 1.0 / 256 and zero_point == -128
    return bits == 16 and abs(scale - 1.0 / 65536) <= 0.001 / 65536 and zero_point == -32768


#: The ops with a quantized form, and the quantized operands of a float op
#: whose result is quantized to a given type (None: no quantized form fits).
QUANTIZED_OPERANDS = {
    **dict.fromkeys(CONTRACTIONS, _contraction_operands),
    **keyed_by_name({
        tm.AvgPool2DOp: _pool_operands,
        tm.MaxPool2DOp: _pool_operands,
        tm.PadOp: _pad_operands,
        tm.AddOp: _binary_operands,
        tm.SubOp: _binary_operands,
        tm.MulOp: _binary_operands,
        tm.SoftmaxOp: _softmax_operands,
        tm.ReduceMeanOp: _mean_operands,
        tm.GlobalAvgPoolOp: _mean_operands,
    }),
}


def quantize_op(op, rewriter):
    """quantize(act?(op(dequantize(a), dequantize(b), ...))) -> act?(op(a, b, ...)),
    all quantized"""
    op = op.operation
    element = element_of(op.results[0])
    result, bounds = _activation(op.operands[0])
    float_op = producer(result)
    if float_op is None or float_op.name not in QUANTIZED_OPERANDS or not _only_use(result):
        return NO_MATCH
    # int8 results; and the int16 one of TFLite's int8 softmax.
    if not is_int8_per_tensor(element) and not (
            float_op.name == tm.SoftmaxOp.OPERATION_NAME and not is_per_axis(element)
            and _storage_bits(element) == 16):
        return NO_MATCH
    operands = QUANTIZED_OPERANDS[float_op.name](float_op, element)
    if operands is None:
        return NO_MATCH
    name, attributes = float_op.name, attributes_of(float_op)
    if name == tm.GlobalAvgPoolOp.OPERATION_NAME:  # TFLite's int8 MEAN over H and W
        name, attributes = tm.ReduceMeanOp.OPERATION_NAME, {
            "axes": ir.DenseI64ArrayAttr.get([1, 2]), "keep_dims": ir.UnitAttr.get()}
    shape = shape_of(op.results[0])
    fused_activation = bounds is not None and float_op.name in SATURATING
    result_element = element
    if fused_activation:
        params = quant.UniformQuantizedType(element)
        low, high = activation_range(params.scale, params.zero_point, *bounds)
        if low >= high:
            # A range of one value (a zero point at the end of the range) has
            # no quantized type; the float op computes the same constant.
            return NO_MATCH
        result_element = with_storage_range(element, low, high)
    with rewriter.ip:
        y = create(name, shape, operands, attributes, float_op.location, result_element)
        if fused_activation:
            int8 = storage_cast(y, ir.IntegerType.get_signless(8), op.location)
            y = storage_cast(int8, element, op.location)
        elif bounds is not None:
            y = create(tm.ClampOp, shape, [y], {
                "min": ir.FloatAttr.get_f32(bounds[0]), "max": ir.FloatAttr.get_f32(bounds[1])},
                op.location, element)
        rewriter.replace_op(op, [y])


def move_above_cast(op, rewriter):
    """reshape(cast(x)) -> cast(reshape(x)), and the same for a transpose,
    for dequantize and quant.scast of per-tensor types"""
    op = op.operation
    cast = producer(op.operands[0])
    if cast is None or cast.name not in (tm.DequantizeOp.OPERATION_NAME, "quant.scast") \
            or not _only_use(op.operands[0]):
        return NO_MATCH
    source = cast.operands[0]
    if is_per_axis(element_of(source)) or is_per_axis(element_of(op.results[0])):
        return NO_MATCH
    with rewriter.ip:
        moved = create(op.name, shape_of(op.results[0]), [source], attributes_of(op),
                       op.location, element_of(source))
        rewriter.replace_op(op, [quant_cast(cast.name, moved, element_of(op.results[0]),
                                            cast.location)])


def quantize_before_reshape(op, rewriter):
    """quantize(reshape(x)) -> reshape(quantize(x)), per tensor, so that the
    quantize meets the op before the reshape (a TFLite FULLY_CONNECTED
    keeping its input's dimensions is a matmul and a reshape)"""
    op = op.operation
    reshape = producer_named(op.operands[0], tm.ReshapeOp)
    element = element_of(op.results[0])
    if reshape is None or not _only_use(op.operands[0]) or is_per_axis(element):
        return NO_MATCH
    source = reshape.operands[0]
    with rewriter.ip:
        quantized = create(tm.QuantizeOp, shape_of(source), [source], attributes_of(op),
                           op.location, element)
        rewriter.replace_op(op, [create(tm.ReshapeOp, shape_of(op.results[0]), [quantized], {},
                                        reshape.location, element)])


@register
class QuantizeOps(Pass):
    name = "tinyml-quantize-ops"
    summary = "Turn dequantize -> float op -> quantize into the op's quantized (integer) form"
    options = ()

    def apply(self, module):
        rewrite_greedily(module, [(tm.ReshapeOp, move_above_cast),
                                  (tm.TransposeOp, move_above_cast),
                                  (tm.QuantizeOp, quantize_before_reshape),
                                  (tm.QuantizeOp, quantize_op)])
