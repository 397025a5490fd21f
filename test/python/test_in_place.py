"""Pointwise and depthwise convs computed in place (tinyml-compute-in-place,
tinyml-read-in-place): outputs against onnxruntime on the host and in the
emulator with a poisoned arena, on shapes that stress the bands (heights
and widths no tile divides, kernels 1, 3 and 5, a stride-2 layer between),
and the arena holding one whole feature map where out of place it holds
two."""
import numpy as np
import onnxruntime as ort
import pytest

import tinyml
import zoo
from conftest import TOLERANCE

# name -> (channels, height, width, layers after the first conv): "dw<k>" a
# k x k depthwise conv with SAME padding, "dw<k>s2" the same with stride 2,
# "pw" a 1x1 conv to as many channels; each with a ReLU.
CASES = {
    "dw3-pw-odd-height": (8, 7, 5, ["dw3", "pw", "dw3", "pw"]),
    "dw5-wide": (12, 9, 6, ["dw5", "pw"]),
    "dw1-pw": (8, 6, 3, ["dw1", "pw", "pw"]),
    "stride-2-between": (8, 10, 6, ["dw3", "pw", "dw3s2", "pw", "dw3"]),
}


def chain_model(name: str):
    channels, height, width, layers = CASES[name]
    g = zoo.Graph(name, 13, 7, f"in-place chain {name}")
    x = g.relu(g.conv(g.input("x", [1, 3, height, width]), channels, 3, pads="same"))
    for layer in layers:
        if layer == "pw":
            x = g.relu(g.conv(x, channels, 1, pads="same"))
        else:
            kernel, _, stride = layer[2:].partition("s")
            x = g.relu(g.conv(x, channels, int(kernel), stride=int(stride or 1),
                              group=channels, pads="same"))
    return g.model(x)


@pytest.mark.parametrize("target", ["host", "cortex-m4"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_in_place_chain_matches_onnxruntime(name, target):
    model = chain_model(name)
    channels, height, width, _ = CASES[name]
    x = np.random.default_rng(1).standard_normal((1, 3, height, width)).astype(np.float32)
    expected = ort.InferenceSession(model.SerializeToString()).run(None, {"x": x})[0]
    compiled = tinyml.compile(model, target=target)
    got = compiled.run(x, arena_fill=b"\xff").outputs[0]
    np.testing.assert_allclose(got, expected, atol=TOLERANCE, rtol=TOLERANCE)
    # Every layer after the first reads and writes a full-size map: in
    # place, one map and a band are live, never two maps.
    map_bytes = channels * height * width * 4
    assert compiled.report_data["arena_bytes"] < 2 * map_bytes
