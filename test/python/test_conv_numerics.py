"""Convolutions whose tiles the transform script stages and vectorizes, on
the host, against onnxruntime: strides, dilations, asymmetric padding, a
padding as wide as the window (some tiles see only padding: the pad stays a
whole tensor), one channel (a splat bias), depthwise (padded, strided,
dilated, with a channel multiplier), residual epilogues, and a depthwise conv
staging bands of several rows."""
import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

import tinyml

# (in channels, out channels, height x width, kernel, strides, dilations,
#  pads [top, left, bottom, right], group, epilogue)
CASES = {
    "pad-wider-than-kernel-rows": (3, 5, (3, 6), (1, 4), (2, 1), (1, 1), [2, 2, 1, 2], 1, "Add"),
    "pad-wider-than-dilated-cols": (6, 12, (5, 10), (2, 1), (1, 1), (1, 2), [2, 0, 1, 2], 1, None),
    "strided-dilated-asymmetric": (7, 9, (9, 8), (2, 2), (2, 1), (2, 1), [1, 1, 1, 2], 1, "Add"),
    "one-channel-splat-bias": (1, 1, (9, 9), (2, 2), (1, 2), (1, 2), [0, 0, 0, 0], 1, None),
    "padded-3x3-relu": (8, 16, (8, 8), (3, 3), (1, 1), (1, 1), [1, 1, 1, 1], 1, "Relu"),
    "padded-3x3-stride-2": (3, 8, (12, 12), (3, 3), (2, 2), (1, 1), [1, 1, 1, 1], 1, "Relu"),
    "padded-depthwise": (4, 4, (6, 6), (3, 3), (1, 1), (1, 1), [1, 1, 1, 1], 4, "Relu"),
    "unpadded-depthwise": (8, 8, (7, 5), (3, 3), (1, 1), (1, 1), [0, 0, 0, 0], 8, None),
    "depthwise-stride-2-same": (8, 8, (9, 9), (3, 3), (2, 2), (1, 1), [0, 0, 1, 1], 8, "Relu"),
    "depthwise-dilated": (4, 4, (7, 6), (3, 3), (1, 1), (2, 2), [2, 2, 2, 2], 4, "Add"),
    "depthwise-pad-wider-than-kernel": (4, 4, (4, 5), (3, 3), (1, 1), (1, 1), [3, 0, 3, 1], 4, None),
    "depthwise-multiplier-2": (3, 6, (5, 5), (3, 3), (1, 1), (1, 1), [1, 1, 1, 1], 3, "Relu"),
    "pointwise-residual": (16, 8, (5, 5), (1, 1), (1, 1), (1, 1), [0, 0, 0, 0], 1, "Add"),
}


def conv_model(cin, cout, hw, kernel, strides, dilations, pads, group, epilogue, rng):
    h, w = hw
    weights = rng.standard_normal((cout, cin // group, *kernel)).astype(np.float32)
    bias = rng.standard_normal((cout,)).astype(np.float32)
    extent = [(k - 1) * d + 1 for k, d in zip(kernel, dilations)]
    out = [(size + lo + hi - e) // s + 1
           for size, lo, hi, e, s in zip((h, w), pads[:2], pads[2:], extent, strides)]
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c" if epilogue else "y"],
                              kernel_shape=list(kernel), strides=list(strides),
                              dilations=list(dilations), pads=pads, group=group)]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, cin, h, w])]
    feed = {"x": rng.standard_normal((1, cin, h, w)).astype(np.float32)}
    if epilogue == "Relu":
        nodes.append(helper.make_node("Relu", ["c"], ["y"]))
    elif epilogue == "Add":
        inputs.append(helper.make_tensor_value_info("r", TensorProto.FLOAT, [1, cout, *out]))
        feed["r"] = rng.standard_normal((1, cout, *out)).astype(np.float32)
        nodes.append(helper.make_node("Add", ["c", "r"], ["y"]))
    graph = helper.make_graph(nodes, "conv", inputs,
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              [numpy_helper.from_array(weights, "w"),
                               numpy_helper.from_array(bias, "b")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model, feed


@pytest.mark.parametrize("case", sorted(CASES))
def test_conv_matches_onnxruntime(case):
    model, feed = conv_model(*CASES[case], np.random.default_rng(0))
    expected = ort.InferenceSession(model.SerializeToString()).run(None, feed)[0]
    (actual,) = tinyml.compile(model, target="host")(*feed.values())
    np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-5)


def test_depthwise_band_matches_onnxruntime():
    """A padded depthwise conv after a 4 -> 32 -> 4 channel pair of 1x1 convs:
    the peak of live bytes is at the wide map, so the depthwise conv stages
    bands of several rows beside its input and output."""
    rng = np.random.default_rng(1)
    c, wide, h, w = 4, 32, 8, 6

    def init(name, *shape):
        return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)
    nodes = [helper.make_node("Conv", ["x", "w1"], ["a"], kernel_shape=[1, 1]),
             helper.make_node("Conv", ["a", "w2"], ["b"], kernel_shape=[1, 1]),
             helper.make_node("Conv", ["b", "w3", "b3"], ["y"], kernel_shape=[3, 3],
                              pads=[1, 1, 1, 1], group=c)]
    graph = helper.make_graph(
        nodes, "band", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, c, h, w])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [init("w1", wide, c, 1, 1), init("w2", c, wide, 1, 1), init("w3", c, 1, 3, 3),
         init("b3", c)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    x = rng.standard_normal((1, c, h, w)).astype(np.float32)
    expected = ort.InferenceSession(model.SerializeToString()).run(None, {"x": x})[0]
    (actual,) = tinyml.compile(model, target="host")(x)
    np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-5)
