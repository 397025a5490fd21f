"""The QOperator form of a quantized model (onnxruntime's `quantize_static`
with `quant_format=QuantFormat.QOperator`): QLinearConv and QLinearMatMul,
and the `com.microsoft` ops QGemm, QLinearAdd, QLinearMul,
QLinearAveragePool, QLinearGlobalAveragePool, QLinearConcat,
QLinearLeakyRelu and QLinearSigmoid.

Each is imported as the QDQ form of the same layer (dequantize -> float op
-> quantize, see quantization.py), so tinyml-quantize-ops makes an integer
kernel of it where one exists; a layer without one (sigmoid, leaky relu,
mul) runs in float between its casts. An int32 bias has scale
x_scale * w_scale and zero point 0. Tensors between the ops are int8
(uint8 moved by -128). onnxruntime also leaves MaxPool, Flatten, Reshape and
the like on quantized tensors, which their own handlers read.
"""
from __future__ import annotations

import numpy as np
from onnx import AttributeProto

from ...dialects import tinyml as tm
from .conv import convolution, global_pool, pool
from .elementwise import binary, leaky_relu
from .importer import Importer, QuantConst, handles, shape_text
from .matmul import gemm, matmul
from .quantization import dequantized, quantized
from .shape import concat

MICROSOFT = "com.microsoft"
_INT, _INTS, _FLOAT, _STRING = (AttributeProto.INT, AttributeProto.INTS, AttributeProto.FLOAT,
                                AttributeProto.STRING)


def _bias(im: Importer, index: int, x_scale_index: int,
          weights: QuantConst) -> QuantConst | None:
    """The int32 bias input `index`, of scale x_scale * weights' scales (the
    input's scale, input `x_scale_index`, is checked by its dequantize)."""
    bias = im.const(index, "the bias", optional=True)
    if bias is None:
        return None
    if bias.dtype != np.int32 or bias.ndim != 1:
        raise im.fail(f"the bias is {bias.dtype} of shape {shape_text(bias.shape)}; it must "
                      "be int32 and 1-D")
    x_scale = im.const(x_scale_index, "the input scale").reshape(-1)
    scales = x_scale * np.asarray(weights.scales, np.float32)
    return QuantConst(bias, scales, np.zeros(scales.size, np.int32),
                      None if scales.size == 1 else 0)


def _weights(im: Importer, index: int, axis: int) -> QuantConst:
    """The constant quantized weights of input `index` (its scale and zero
    point the next two inputs), per axis `axis` when the scale is."""
    weights = dequantized(im, index, index + 1, index + 2, axis)
    if not isinstance(weights, QuantConst):
        raise im.fail(f"the weights (input {index}, '{im.current_node.input[index]}') must be a "
                      "compile-time constant")
    return weights


@handles("QLinearConv")
def _qlinear_conv(im: Importer, node) -> list:
    weights = _weights(im, 3, 0)
    y = convolution(im, dequantized(im, 0, 1, 2), weights, _bias(im, 8, 1, weights))
    return [quantized(im, y, 6, 7)]


@handles("QLinearMatMul")
def _qlinear_matmul(im: Importer, node) -> list:
    a = dequantized(im, 0, 1, 2)
    b = im.arg(3)
    b = dequantized(im, 3, 4, 5, len(im.shape(b)) - 1)
    return [quantized(im, matmul(im, a, b), 6, 7)]


@handles("QGemm", domain=MICROSOFT, attributes={"alpha": _FLOAT, "transA": _INT,
                                                 "transB": _INT})
def _qgemm(im: Importer, node) -> list:
    # onnxruntime folds beta into the int32 bias; alpha would scale the
    # product but not the bias, which a Gemm cannot say.
    if float(im.attr("alpha", 1.0)) != 1.0:
        raise im.fail(f"alpha={im.attr('alpha')} is not supported (only 1)")
    weights = _weights(im, 3, 0 if im.attr("transB", 0) else 1)
    y = gemm(im, dequantized(im, 0, 1, 2), weights, _bias(im, 6, 1, weights), 1.0)
    # Without an output scale QGemm's result is float.
    return [quantized(im, y, 7, 8) if im.has_input(7) else y]


def _unary(im: Importer, compute) -> list:
    """X, X_scale, X_zero_point, Y_scale, Y_zero_point: compute(x) quantized."""
    return [quantized(im, compute(dequantized(im, 0, 1, 2)), 3, 4)]


@handles("QLinearAdd", "QLinearMul", domain=MICROSOFT)
def _qlinear_binary(im: Importer, node) -> list:
    op_type = node.op_type.removeprefix("QLinear")
    y = binary(im, op_type, dequantized(im, 0, 1, 2), dequantized(im, 3, 4, 5))
    return [quantized(im, y, 6, 7)]


def _channels_first(im: Importer) -> None:
    if im.attr("channels_last", 0):
        raise im.fail("channels_last=1 is not supported (only NCHW data)")


@handles("QLinearAveragePool", domain=MICROSOFT, attributes={
    "auto_pad": _STRING, "ceil_mode": _INT, "channels_last": _INT,
    "count_include_pad": _INT, "kernel_shape": _INTS, "pads": _INTS, "strides": _INTS})
def _qlinear_average_pool(im: Importer, node) -> list:
    _channels_first(im)
    return _unary(im, lambda x: pool(im, node, tm.AvgPool2DOp, x))


@handles("QLinearGlobalAveragePool", domain=MICROSOFT, attributes={"channels_last": _INT})
def _qlinear_global_average_pool(im: Importer, node) -> list:
    _channels_first(im)
    return _unary(im, lambda x: global_pool(im, "GlobalAveragePool", x))


@handles("QLinearLeakyRelu", domain=MICROSOFT, attributes={"alpha": _FLOAT})
def _qlinear_leaky_relu(im: Importer, node) -> list:
    return _unary(im, lambda x: leaky_relu(im, x, float(im.attr("alpha", 0.01))))


@handles("QLinearSigmoid", domain=MICROSOFT)
def _qlinear_sigmoid(im: Importer, node) -> list:
    return _unary(im, lambda x: im.emit(tm.SigmoidOp, im.shape(x), [x]))


@handles("QLinearConcat", domain=MICROSOFT, attributes={"axis": _INT})
def _qlinear_concat(im: Importer, node) -> list:
    # Y_scale, Y_zero_point, then X, X_scale, X_zero_point for each input.
    if len(node.input) < 5 or (len(node.input) - 2) % 3:
        raise im.fail(f"has {len(node.input)} inputs; QLinearConcat takes the output's "
                      "scale and zero point, then a (tensor, scale, zero point) triple each")
    inputs = [dequantized(im, i, i + 1, i + 2) for i in range(2, len(node.input), 3)]
    return [quantized(im, concat(im, inputs), 0, 1)]
