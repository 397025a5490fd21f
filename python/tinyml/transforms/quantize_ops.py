"""tinyml-quantize-ops: turn the float op between a dequantize and a
quantize into the op's quantized (integer) form.

A quantized model as ONNX writes it (QDQ) computes each layer in float
between `DequantizeLinear` and `QuantizeLinear`; TFLite, which made it,
computes the layer in integers. This pass rewrites the pattern into the
integer op, whose semantics (TFLite's, see each op's ODS description) the
lowering implements:

    quantize(contraction(dequantize(x), dequantize(w), dequantize(b)))
        -> contraction(x, w, b)                  conv2d, depthwise_conv2d, matmul
    quantize(relu(contraction(...)))      -> clamp[0, inf](contraction(...))
    quantize(clamp[lo, hi](contraction(...))) -> clamp[lo, hi](contraction(...))

where every operand and the result keep their quantized types (the
activation becomes the quantized clamp, TFLite's fused activation range).
The float intermediates must have one user each, and the types must be a
quantization TFLite uses (int8 data per tensor, int8 weights per tensor or
per output channel, int32 bias with zero point 0). A pattern that does not
fit leaves the dequantize and quantize ops: they stay explicit, computed in
float on the target.

Run after `tinyml-cancel-transposes` (the layout transposes sit between the
casts and the op until then), followed by `tinyml-dce`, which removes the
dequantize ops left without users.
"""
from __future__ import annotations

import numpy as np
from mlir import ir
from mlir.dialects import quant

from ..ir.patterns import NO_MATCH, attributes_of, create, producer_named, rewrite_greedily
from ..ir.quant import is_per_axis, is_quantized
from ..ir.values import element_of, producer, shape_of
from ..pipeline.registry import Pass, register

CONTRACTIONS = ("tinyml.conv2d", "tinyml.depthwise_conv2d", "tinyml.matmul")
F32_MAX = float(np.finfo(np.float32).max)


def _only_use(value: ir.Value) -> bool:
    return len(list(value.uses)) == 1


def _storage_bits(element: ir.Type) -> int:
    if is_per_axis(element):
        return quant.UniformQuantizedPerAxisType(element).storage_type_integral_width
    return quant.UniformQuantizedType(element).storage_type_integral_width


def _zero_points(element: ir.Type) -> list[int]:
    if is_per_axis(element):
        return list(quant.UniformQuantizedPerAxisType(element).zero_points)
    return [quant.UniformQuantizedType(element).zero_point]


def _int8_per_tensor(element: ir.Type) -> bool:
    return is_quantized(element) and not is_per_axis(element) and _storage_bits(element) == 8


def _activation(value: ir.Value):
    """(the value an activation reads, (min, max)) when `value` is a relu or
    clamp with one user; else (value, None)."""
    relu = producer_named(value, "tinyml.relu")
    if relu is not None and _only_use(value):
        return relu.operands[0], (0.0, F32_MAX)
    clamp = producer_named(value, "tinyml.clamp")
    if clamp is not None and _only_use(value):
        bounds = (ir.FloatAttr(clamp.attributes["min"]).value,
                  ir.FloatAttr(clamp.attributes["max"]).value)
        return clamp.operands[0], bounds
    return value, None


def _quantized_operands(contraction: ir.Operation) -> list[ir.Value] | None:
    """The quantized values the contraction's operands dequantize, when each
    is a `tinyml.dequantize` of a quantization TFLite uses."""
    sources = []
    for value in contraction.operands:
        dequantize = producer_named(value, "tinyml.dequantize")
        if dequantize is None:
            return None
        sources.append(dequantize.operands[0])
    data, weights = element_of(sources[0]), element_of(sources[1])
    if not _int8_per_tensor(data) or _storage_bits(weights) != 8:
        return None
    if len(sources) > 2:
        bias = element_of(sources[2])
        if _storage_bits(bias) != 32 or any(_zero_points(bias)):
            return None
    return sources


def quantize_contraction(op, rewriter):
    """quantize(act?(contraction(dequantize(x), dequantize(w), dequantize(b))))
    -> act?(contraction(x, w, b)), all quantized"""
    op = op.operation
    element = element_of(op.results[0])
    if not _int8_per_tensor(element):
        return NO_MATCH
    result, bounds = _activation(op.operands[0])
    contraction = producer(result)
    if contraction is None or contraction.name not in CONTRACTIONS or not _only_use(result):
        return NO_MATCH
    if contraction.name == "tinyml.depthwise_conv2d" and shape_of(contraction.operands[1])[3] != 1:
        return NO_MATCH  # TFLite quantizes depthwise with channel multiplier 1 only here
    operands = _quantized_operands(contraction)
    if operands is None:
        return NO_MATCH
    shape = shape_of(op.results[0])
    with rewriter.ip:
        y = create(contraction.name, shape, operands, attributes_of(contraction),
                   contraction.location, element)
        if bounds is not None:
            y = create("tinyml.clamp", shape, [y], {
                "min": ir.FloatAttr.get_f32(bounds[0]), "max": ir.FloatAttr.get_f32(bounds[1])},
                op.location, element)
        rewriter.replace_op(op, [y])


@register
class QuantizeOps(Pass):
    name = "tinyml-quantize-ops"
    summary = "Turn dequantize -> float op -> quantize into the op's quantized (integer) form"
    options = ()

    def apply(self, module):
        rewrite_greedily(module, [("tinyml.quantize", quantize_contraction)])
