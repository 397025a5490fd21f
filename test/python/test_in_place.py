"""Pointwise and depthwise convs computed in place (tinyml-compute-in-place,
tinyml-read-in-place) and a widening pointwise conv computed in row bands
inside its strided consumer's loop (tinyml-fuse-row-bands), and convs
computed row by row into a rolling buffer inside their stride-1
consumer's loop (tinyml-fuse-line-buffer): outputs against
onnxruntime on the host and in the emulator with a poisoned arena, on
shapes that stress the bands (heights and widths no tile divides, kernels
1, 3 and 5, stride 2, padding above and below or below only), and an
arena below the lower bound of the same layers computed op by op."""
import json
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest

import tinyml
import zoo
from conftest import TOLERANCE, cli

# name -> (channels, height, width, layers after the first conv, row
# bands?): "dw<k>" a k x k depthwise conv with SAME padding, "dw<k>s2" the
# same with stride 2, "pw" a 1x1 conv to as many channels, "pw<n>" to n
# channels; each with a ReLU.
CASES = {
    "dw3-pw-odd-height": (8, 7, 5, ["dw3", "pw", "dw3", "pw"], False),
    "dw5-wide": (12, 9, 6, ["dw5", "pw"], False),
    "dw1-pw": (8, 6, 3, ["dw1", "pw", "pw"], False),
    "stride-2-between": (8, 10, 6, ["dw3", "pw", "dw3s2", "pw", "dw3"], False),
    # A pointwise conv doubling the channels before a stride-2 depthwise
    # conv: SAME pads an even height below only, an odd one above and below.
    "bands-even-height": (8, 10, 6, ["dw3", "pw16", "dw3s2", "pw"], True),
    "bands-odd-height": (4, 9, 7, ["pw16", "dw3s2"], True),
}


def chain_model(name: str):
    channels, height, width, layers, _ = CASES[name]
    g = zoo.Graph(name, 13, 7, f"in-place chain {name}")
    x = g.relu(g.conv(g.input("x", [1, 3, height, width]), channels, 3, pads="same"))
    for layer in layers:
        if layer.startswith("pw"):
            channels = int(layer[2:] or channels)
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
    _, height, width, _, bands = CASES[name]
    x = np.random.default_rng(1).standard_normal((1, 3, height, width)).astype(np.float32)
    expected = ort.InferenceSession(model.SerializeToString()).run(None, {"x": x})[0]
    compiled = tinyml.compile(model, target=target, memory_plan="line-buffers")
    got = compiled.run(x, arena_fill=b"\xff").outputs[0]
    np.testing.assert_allclose(got, expected, atol=TOLERANCE, rtol=TOLERANCE)
    assert compiled.report.in_place_groups + compiled.report.recomputed_macs > 0
    assert (compiled.report.recomputed_macs > 0) == bands
    if target == "host":
        # Below the op-by-op bound (the same plan on every target): the
        # same layers one after the other need more.
        op_by_op = tinyml.compile(model, target=target, in_place=False)
        assert compiled.report.arena_bytes < op_by_op.report.lower_bound_bytes
        assert op_by_op.report.in_place_groups == 0
        assert op_by_op.report.recomputed_macs == 0


# name -> (channels, height, width, block): residual blocks whose second
# conv reads the first through a rolling buffer of its rows. The rows are
# wide enough for the buffer and its temporaries to be worth it (the cost
# model leaves smaller maps alone).
BLOCKS = {
    "identity-block-odd-height": (8, 7, 12, "identity"),
    "downsampling-block": (8, 32, 8, "downsampling"),
    "downsampling-block-odd-height": (8, 31, 7, "downsampling"),
    "kernel-5-after-3": (8, 12, 14, "kernel5"),
    "widening-pair-no-residual": (8, 24, 6, "widening"),
}


def block_model(name: str):
    channels, height, width, kind = BLOCKS[name]
    g = zoo.Graph(name, 13, 11, f"line-buffered block {name}")
    x = g.relu(g.conv(g.input("x", [1, 3, height, width]), channels, 3, pads="same"))
    if kind == "downsampling":
        shortcut = g.conv(x, 2 * channels, 1, stride=2, pads="same")
        y = g.relu(g.conv(g.relu(g.conv(x, 2 * channels, 3, stride=2, pads="same")),
                          2 * channels, 3, pads="same"))
        return g.model(g.relu(g.node("Add", [y, shortcut])))
    if kind == "widening":
        y = g.relu(g.conv(x, 2 * channels, 3, pads="same"))
        return g.model(g.relu(g.conv(y, channels, 3, pads="same")))
    y = g.relu(g.conv(x, channels, 3, pads="same"))
    y = g.conv(y, channels, 5 if kind == "kernel5" else 3, pads="same")
    return g.model(g.relu(g.node("Add", [y, x])))


@pytest.mark.parametrize("target", ["host", "cortex-m4"])
@pytest.mark.parametrize("name", sorted(BLOCKS))
def test_line_buffered_block_matches_onnxruntime(name, target):
    model = block_model(name)
    _, height, width, _ = BLOCKS[name]
    x = np.random.default_rng(2).standard_normal((1, 3, height, width)).astype(np.float32)
    expected = ort.InferenceSession(model.SerializeToString()).run(None, {"x": x})[0]
    compiled = tinyml.compile(model, target=target, memory_plan="line-buffers")
    got = compiled.run(x, arena_fill=b"\xff").outputs[0]
    np.testing.assert_allclose(got, expected, atol=TOLERANCE, rtol=TOLERANCE)
    assert compiled.report.line_buffers > 0
    if target == "host":
        op_by_op = tinyml.compile(model, target=target, in_place=False)
        assert compiled.report.arena_bytes < op_by_op.report.lower_bound_bytes
        assert op_by_op.report.line_buffers == 0


def test_no_in_place_flag_keeps_every_layer_op_by_op(tmp_path):
    """`tinyml-compile --no-in-place` (the bundled example, DS-CNN KWS):
    no group in place, the arena at the op-by-op bound; without the flag
    the arena is smaller. Both recorded in report.json."""
    model = Path(__file__).resolve().parents[2] / "examples" / "kws_dscnn.onnx"
    reports = {}
    for flags in ([], ["--no-in-place"]):
        out = tmp_path / ("plain" if flags else "placed")
        done = cli("compile", model, "-o", out, "--target", "host", *flags)
        assert done.returncode == 0, done.stderr
        reports[bool(flags)] = json.loads((out / "report.json").read_text())
    plain, placed = reports[True], reports[False]
    assert plain["options"]["in_place"] is False and placed["options"]["in_place"] is True
    assert plain["in_place_groups"] == 0 and placed["in_place_groups"] > 0
    assert plain["arena_bytes"] == plain["lower_bound_bytes"] > placed["arena_bytes"]


# name -> (height, width, first layer): a model with an NCHW input, as torch
# and tflite2onnx export it, whose first layer reads the input through the
# frontend's NCHW -> NHWC transpose; then a 2x2 max pool, so that the
# transposed input is live at the peak. "conv3s2": VWW's first layer (3x3,
# stride 2, SAME padding below and right only), "conv3": ResNet's (3x3,
# padding 1), "conv1": unpadded, "dw3": a depthwise conv, "pool": no conv
# reads the transpose.
NCHW_INPUTS = {
    "conv3s2-odd": (13, 11, "conv3s2"),
    "conv3": (9, 10, "conv3"),
    "conv1": (8, 6, "conv1"),
    "dw3": (9, 7, "dw3"),
    "pool": (8, 8, "pool"),
}


def nchw_input_model(name: str, nhwc: bool = False):
    """The model, or (`nhwc`) its tf2onnx twin: the same weights, an NHWC
    input transposed to NCHW."""
    height, width, first = NCHW_INPUTS[name]
    g = zoo.Graph(name, 13, 5, f"NCHW input {name}")
    x = g.to_nchw(g.input("x", [1, height, width, 3])) if nhwc else \
        g.input("x", [1, 3, height, width])
    if first == "pool":
        x = g.node("MaxPool", [x], kernel_shape=[2, 2], strides=[2, 2])
        return g.model(g.relu(g.conv(x, 8, 3, pads="same")))
    if first == "dw3":
        x = g.relu(g.conv(x, 3, 3, group=3, pads="same"))
    else:
        kernel, _, stride = first[4:].partition("s")
        x = g.relu(g.conv(x, 8, int(kernel), stride=int(stride or 1), pads="same"))
    return g.model(g.node("MaxPool", [x], kernel_shape=[2, 2], strides=[2, 2]))


@pytest.mark.parametrize("target", ["host", "cortex-m4"])
@pytest.mark.parametrize("name", sorted(NCHW_INPUTS))
def test_nchw_input_read_through_its_transpose(name, target):
    """The first conv reads the NCHW input a transposed window at a time
    (tinyml-fuse-input-transpose): the arena is its NHWC twin's, the
    outputs onnxruntime's and bit for bit the twin's. A max pool reading
    the transpose leaves it whole."""
    model, twin = nchw_input_model(name), nchw_input_model(name, nhwc=True)
    height, width, first = NCHW_INPUTS[name]
    x = np.random.default_rng(3).standard_normal((1, 3, height, width)).astype(np.float32)
    expected = ort.InferenceSession(model.SerializeToString()).run(None, {"x": x})[0]
    compiled = tinyml.compile(model, target=target)
    compiled_twin = tinyml.compile(twin, target=target)
    got = compiled.run(x, arena_fill=b"\xff").outputs[0]
    np.testing.assert_allclose(got, expected, atol=TOLERANCE, rtol=TOLERANCE)
    if first == "pool":
        assert compiled.report.arena_bytes > compiled_twin.report.arena_bytes
        return
    assert compiled.report.arena_bytes == compiled_twin.report.arena_bytes
    twin_got = compiled_twin.run(x.transpose(0, 2, 3, 1), arena_fill=b"\xff").outputs[0]
    np.testing.assert_array_equal(got, twin_got)


def test_vww_nchw_export_needs_the_arena_of_its_nhwc_twin(compiled_zoo):
    """MobileNetV1 VWW with an NCHW input: without the fusion its transposed
    input (96x96x3 f32, 110,592 B) sat next to the first conv's output at
    the peak; now the arena is the tf2onnx twin's, the instructions no
    more than 2% over it, the outputs the same bits."""
    nchw = compiled_zoo("style_vww_mobilenet_nchw", target="cortex-m4")
    nhwc = compiled_zoo("vww_mobilenet", target="cortex-m4")
    assert nchw.report.arena_bytes == nhwc.report.arena_bytes
    x = zoo.random_inputs(zoo.build("style_vww_mobilenet_nchw"))["input_1"]
    run, run_twin = nchw.run(x, arena_fill=b"\xff"), \
        nhwc.run(x.transpose(0, 2, 3, 1), arena_fill=b"\xff")
    np.testing.assert_array_equal(run.outputs[0], run_twin.outputs[0])
    assert run.instructions <= 1.02 * run_twin.instructions
