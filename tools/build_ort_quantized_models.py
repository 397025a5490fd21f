#!/usr/bin/env python3
"""Builds small float ONNX models with the onnx helper API and quantizes
each with onnxruntime's `quantize_static`, the way its tutorials do, in
five formats:

    <name>.qdq_int8.onnx           QDQ, activation_type=weight_type=QInt8
    <name>.qdq_uint8.onnx          QDQ, uint8 activations, int8 weights (the
                                   default before onnxruntime 1.17 and in most
                                   tutorials)
    <name>.qdq_uint8_weights.onnx  QDQ, uint8 activations and weights
                                   (asymmetric weights, zero point not 0)
    <name>.qoperator_uint8.onnx    QuantFormat.QOperator, uint8 activations,
                                   int8 weights (QLinearConv, QLinearMatMul,
                                   the com.microsoft QLinear* ops, QGemm)
    <name>.qoperator_int8.onnx     QuantFormat.QOperator, int8 activations

    tools/build_ort_quantized_models.py [OUT_DIR]   (default: test/models/ort_quantized)

Needs only onnx and onnxruntime (in the dev virtualenv). Everything else is
onnxruntime's default (this onnxruntime's own defaults are int8 activations
and weights, which qdq_int8 and qoperator_int8 are): per-tensor weights, MinMax calibration on eight
seeded standard-normal inputs. Weights are seeded by the model's name, so a
rebuild with the same onnxruntime gives the same files; the committed files
are the ones the tests read.
"""
from __future__ import annotations

import os
import sys
import tempfile
import zlib

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "..", "test", "models", "ort_quantized")
INPUT_SHAPE = [1, 3, 16, 16]
CALIBRATION_SAMPLES = 8


class _Graph:
    """Nodes and seeded initializers of one float model."""

    def __init__(self, name: str):
        self.name = name
        self.rng = np.random.default_rng(zlib.crc32(name.encode()))
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []

    def weight(self, name: str, shape, scale: float | None = None) -> str:
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else int(shape[0])
        scale = scale if scale is not None else 1.0 / np.sqrt(fan_in)
        array = (self.rng.standard_normal(shape) * scale).astype(np.float32)
        self.initializers.append(numpy_helper.from_array(array, name))
        return name

    def constant(self, name: str, value: float) -> str:
        self.initializers.append(numpy_helper.from_array(np.float32(value), name))
        return name

    def node(self, op_type: str, inputs, output: str, **attrs) -> str:
        self.nodes.append(helper.make_node(op_type, list(inputs), [output], name=output,
                                           **attrs))
        return output

    def conv(self, x: str, name: str, channels_in: int, channels_out: int, kernel: int,
             stride: int = 1, group: int = 1) -> str:
        w = self.weight(f"{name}.w", [channels_out, channels_in // group, kernel, kernel])
        b = self.weight(f"{name}.b", [channels_out], 0.1)
        pad = kernel // 2
        return self.node("Conv", [x, w, b], name, kernel_shape=[kernel, kernel],
                         strides=[stride, stride], pads=[pad] * 4, group=group)

    def model(self, output: str, output_shape) -> onnx.ModelProto:
        graph = helper.make_graph(
            self.nodes, self.name,
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, INPUT_SHAPE)],
            [helper.make_tensor_value_info(output, TensorProto.FLOAT, output_shape)],
            self.initializers)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                                  producer_name="tools/build_ort_quantized_models.py")
        model.ir_version = 8
        onnx.checker.check_model(model, full_check=True)
        return model


def residual_cnn() -> onnx.ModelProto:
    """Conv+Relu -> MaxPool -> Conv+Relu -> Add residual -> AveragePool ->
    GlobalAveragePool -> Flatten -> Gemm."""
    g = _Graph("residual_cnn")
    a = g.node("Relu", [g.conv("x", "conv1", 3, 8, 3)], "relu1")
    p = g.node("MaxPool", [a], "maxpool", kernel_shape=[2, 2], strides=[2, 2])
    b = g.node("Relu", [g.conv(p, "conv2", 8, 8, 3)], "relu2")
    r = g.node("Add", [b, p], "residual")
    s = g.node("AveragePool", [r], "avgpool", kernel_shape=[2, 2], strides=[2, 2])
    f = g.node("Flatten", [g.node("GlobalAveragePool", [s], "gap")], "flatten")
    y = g.node("Gemm", [f, g.weight("fc.w", [10, 8]), g.weight("fc.b", [10], 0.1)], "y",
               transB=1)
    return g.model(y, [1, 10])


def branches() -> onnx.ModelProto:
    """A strided conv whose output goes three ways (LeakyRelu, x*Sigmoid(x),
    a depthwise conv + Relu), concatenated, then 1x1 conv -> GlobalAveragePool
    -> Flatten -> MatMul + Add."""
    g = _Graph("branches")
    c = g.conv("x", "conv1", 3, 8, 3, stride=2)
    leaky = g.node("LeakyRelu", [c], "leaky", alpha=0.1)
    swish = g.node("Mul", [c, g.node("Sigmoid", [c], "sigmoid")], "swish")
    depthwise = g.node("Relu", [g.conv(c, "depthwise", 8, 8, 3, group=8)], "dw_relu")
    cat = g.node("Concat", [leaky, swish, depthwise], "concat", axis=1)
    pointwise = g.conv(cat, "pointwise", 24, 8, 1)
    f = g.node("Flatten", [g.node("GlobalAveragePool", [pointwise], "gap")], "flatten")
    m = g.node("MatMul", [f, g.weight("fc.w", [8, 10])], "matmul")
    y = g.node("Add", [m, g.weight("fc.b", [10], 0.1)], "y")
    return g.model(y, [1, 10])


def inverted_residuals() -> onnx.ModelProto:
    """MobileNetV2's layers at 0.5 width on a small image: a strided
    Conv + Clip(0, 6) stem, three inverted residual blocks (1x1 expansion
    by 6 + Clip, 3x3 depthwise + Clip, linear 1x1 projection; an Add of the
    block's input where the shape is kept, the middle one of stride 2),
    a 1x1 Conv + Clip head -> GlobalAveragePool -> Flatten -> Gemm."""
    g = _Graph("inverted_residuals")

    def relu6(x: str, name: str) -> str:
        return g.node("Clip", [x, g.constant(f"{name}.min", 0.0), g.constant(f"{name}.max", 6.0)],
                      name)

    def block(x: str, name: str, channels_in: int, channels_out: int, stride: int) -> str:
        expanded = relu6(g.conv(x, f"{name}.expand", channels_in, 6 * channels_in, 1),
                         f"{name}.expand_relu6")
        depthwise = relu6(g.conv(expanded, f"{name}.depthwise", 6 * channels_in,
                                 6 * channels_in, 3, stride=stride, group=6 * channels_in),
                          f"{name}.depthwise_relu6")
        projected = g.conv(depthwise, f"{name}.project", 6 * channels_in, channels_out, 1)
        if stride == 1 and channels_in == channels_out:
            return g.node("Add", [projected, x], f"{name}.add")
        return projected

    stem = relu6(g.conv("x", "stem", 3, 8, 3, stride=2), "stem_relu6")
    b = block(block(block(stem, "block1", 8, 8, 1), "block2", 8, 16, 2), "block3", 16, 16, 1)
    head = relu6(g.conv(b, "head", 16, 64, 1), "head_relu6")
    f = g.node("Flatten", [g.node("GlobalAveragePool", [head], "gap")], "flatten")
    y = g.node("Gemm", [f, g.weight("fc.w", [10, 64]), g.weight("fc.b", [10], 0.1)], "y",
               transB=1)
    return g.model(y, [1, 10])


MODELS = {"residual_cnn": residual_cnn, "branches": branches,
          "inverted_residuals": inverted_residuals}


def quantize(model: onnx.ModelProto, out_dir: str) -> None:
    from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                          quantize_static)

    class Calibration(CalibrationDataReader):
        def __init__(self):
            rng = np.random.default_rng(0)
            self.samples = iter([{"x": rng.standard_normal(INPUT_SHAPE).astype(np.float32)}
                                 for _ in range(CALIBRATION_SAMPLES)])

        def get_next(self):
            return next(self.samples, None)

    int8, uint8 = QuantType.QInt8, QuantType.QUInt8
    formats = {
        "qdq_int8": (QuantFormat.QDQ, int8, int8),
        "qdq_uint8": (QuantFormat.QDQ, uint8, int8),
        "qdq_uint8_weights": (QuantFormat.QDQ, uint8, uint8),
        "qoperator_uint8": (QuantFormat.QOperator, uint8, int8),
        "qoperator_int8": (QuantFormat.QOperator, int8, int8),
    }
    name = model.graph.name
    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(tmp, f"{name}.onnx")
        onnx.save(model, source)
        for suffix, (quant_format, activations, weights) in formats.items():
            target = os.path.join(out_dir, f"{name}.{suffix}.onnx")
            quantize_static(source, target, Calibration(), quant_format=quant_format,
                            activation_type=activations, weight_type=weights)
            print(f"{target}: {os.path.getsize(target)} bytes")


def main(argv: list[str]) -> int:
    out_dir = os.path.abspath(argv[0] if argv else DEFAULT_OUT)
    os.makedirs(out_dir, exist_ok=True)
    for build in MODELS.values():
        quantize(build(), out_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
