"""Model families whose size is one number, for compile-time scaling
(tools/bench_scaling.py) and its correctness test (test_compile_scaling.py).

    conv_chain(n)      n chained 3x3 convolutions, 4 -> 4 channels, padding 1,
                       no bias, on a 1x4x8x8 NCHW input
    concat_fan_out(n)  one 1x4 input, n Relu branches of it, one Concat of
                       all n (axis 1)
    concat_branches(n) the same with n different branches, Relu(x * (i + 1)):
                       nothing merges them, each writes its own slice
"""
from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

CONV_CHANNELS = 4
CONV_SIZE = 8
CONCAT_WIDTH = 4


def conv_chain(n: int, seed: int = 0) -> onnx.ModelProto:
    """N chained 3x3 convs (padding 1, no bias), as the 300-conv case is
    built; the weights are scaled so the activations stay near 1."""
    rng = np.random.default_rng(seed)
    shape = [1, CONV_CHANNELS, CONV_SIZE, CONV_SIZE]
    nodes, initializers = [], []
    for i in range(n):
        weight = rng.standard_normal((CONV_CHANNELS, CONV_CHANNELS, 3, 3)).astype(np.float32)
        weight /= np.sqrt(CONV_CHANNELS * 9)
        initializers.append(numpy_helper.from_array(weight, f"w{i}"))
        source = "x" if i == 0 else f"t{i - 1}"
        target = "y" if i == n - 1 else f"t{i}"
        nodes.append(helper.make_node("Conv", [source, f"w{i}"], [target], pads=[1, 1, 1, 1],
                                      name=f"Conv_{i}"))
    graph = helper.make_graph(
        nodes, f"conv_chain_{n}",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)], initializers)
    return _model(graph)


def concat_fan_out(n: int) -> onnx.ModelProto:
    """One input, N Relu branches of it, one Concat of every branch."""
    nodes = [helper.make_node("Relu", ["x"], [f"b{i}"], name=f"Relu_{i}") for i in range(n)]
    nodes.append(helper.make_node("Concat", [f"b{i}" for i in range(n)], ["y"], axis=1,
                                  name="Concat_all"))
    graph = helper.make_graph(
        nodes, f"concat_fan_out_{n}",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, CONCAT_WIDTH])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, CONCAT_WIDTH * n])])
    return _model(graph)


def concat_branches(n: int) -> onnx.ModelProto:
    """One input, N different branches Relu(x * (i + 1)), one Concat of all."""
    nodes, initializers = [], []
    for i in range(n):
        initializers.append(numpy_helper.from_array(
            np.full((1, CONCAT_WIDTH), i + 1, np.float32), f"c{i}"))
        nodes.append(helper.make_node("Mul", ["x", f"c{i}"], [f"m{i}"], name=f"Mul_{i}"))
        nodes.append(helper.make_node("Relu", [f"m{i}"], [f"b{i}"], name=f"Relu_{i}"))
    nodes.append(helper.make_node("Concat", [f"b{i}" for i in range(n)], ["y"], axis=1,
                                  name="Concat_all"))
    graph = helper.make_graph(
        nodes, f"concat_branches_{n}",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, CONCAT_WIDTH])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, CONCAT_WIDTH * n])],
        initializers)
    return _model(graph)


def _model(graph: onnx.GraphProto) -> onnx.ModelProto:
    # The lowest IR version for opset 13, so any onnxruntime can run it.
    opsets = [helper.make_opsetid("", 13)]
    return helper.make_model(graph, opset_imports=opsets,
                             ir_version=helper.find_min_ir_version_for(opsets))
