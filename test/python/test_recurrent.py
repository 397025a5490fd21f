"""ONNX LSTM and GRU (frontend/onnx/recurrent.py): each direction a time
loop whose body fuses like any graph.

PyTorch's exports (test/models/recurrent, written by
tools/build_recurrent_models.py with both exporters' defaults) match
onnxruntime within float rounding on the host, the M4 and the M7; the
specification's other forms (test/models/recurrent_models.py: reverse and
bidirectional, layout 1, a batch of two, states as inputs, every output)
on the host and the M4. The report counts a loop's MACs once per step, the
profile gives the loop to its node, and the forms tinyml does not compute
are one-line errors naming the node.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest

import recurrent_models
import tinyml

from conftest import assert_one_line_error, cli

RECURRENT = Path(__file__).resolve().parents[1] / "models" / "recurrent"
EXPORTS = sorted(RECURRENT.glob("*.onnx"))


def _close(got: np.ndarray, want: np.ndarray) -> bool:
    return float(np.abs(got.reshape(want.shape) - want).max()) \
        <= 1e-5 * max(1.0, float(np.abs(want).max()))


def _feeds(model: onnx.ModelProto) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(1)
    return {i.name: rng.standard_normal([d.dim_value or 1 for d in
                                         i.type.tensor_type.shape.dim]).astype(np.float32)
            for i in model.graph.input}


@pytest.mark.parametrize("path", EXPORTS, ids=[p.name for p in EXPORTS])
def test_a_pytorch_export_matches_onnxruntime(path):
    exported = onnx.load(str(path))
    feeds = _feeds(exported)
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    (want,) = session.run(None, feeds)
    # The dynamo exporter specializes the batch of an LSTM or GRU to the
    # example's 1; TorchScript keeps it dynamic, on axis 1 of a time-first X.
    dynamic = any(d.dim_param for d in exported.graph.input[0].type.tensor_type.shape.dim)
    for target in ("host", "cortex-m4", "cortex-m7"):
        model = tinyml.compile(str(path), target=target)
        assert model.report.dynamic_batch == (1 if dynamic else None)
        assert _close(model.run(*feeds.values()).outputs[0], want), target


@pytest.mark.parametrize("name", list(recurrent_models.SPECS))
def test_every_form_matches_onnxruntime(name):
    model = recurrent_models.build(name)
    feeds = _feeds(model)
    given = {key: value.copy() for key, value in feeds.items()}
    want = recurrent_models.reference(name, feeds)
    for target in ("host", "cortex-m4"):
        got = tinyml.compile(model, target=target).run(*feeds.values()).outputs
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert _close(g, w), target
        # The loop writes its state over a copy of an initial state given
        # as an input, never over the caller's buffer.
        assert all(np.array_equal(feeds[key], given[key]) for key in feeds)


def test_the_time_loop_counts_once_per_step_and_is_its_nodes_layer():
    # Two stacked layers of 4 gates, 12 steps of 10 then 20 inputs, 20
    # hidden: the input projections, the recurrent products, the head.
    path = RECURRENT / "lstm_classifier.dynamo.onnx"
    model = tinyml.compile(str(path), target="cortex-m4")
    steps, hidden = 12, 20
    recurrent = steps * 4 * hidden * hidden
    macs = steps * 4 * hidden * 10 + recurrent + steps * 4 * hidden * hidden + recurrent \
        + hidden * 4
    assert model.report.macs == macs
    profile = model.run(*_feeds(onnx.load(str(path))).values(), profile=True).profile
    lstm_layers = [layer for layer in profile["layers"] if any(
        "LSTM" in node for node in layer["nodes"])]
    assert len(lstm_layers) == 2
    loops = [kernel for layer in lstm_layers for kernel in layer["kernels"]
             if kernel["macs"] == recurrent]
    assert len(loops) == 2 and all(kernel["instructions"] > recurrent for kernel in loops)


@pytest.mark.parametrize("name", list(recurrent_models.REFUSED))
def test_a_form_not_computed_is_a_one_line_error(name, tmp_path):
    path = tmp_path / f"{name}.onnx"
    onnx.save(recurrent_models.build(name), str(path))
    done = cli("compile", path, "-o", tmp_path / "out")
    words = recurrent_models.REFUSED[name][1]
    line = assert_one_line_error(done, "compile", words)
    assert "(LSTM)" in line or "(GRU)" in line
    assert not (tmp_path / "out").exists()


def test_only_the_batch_of_a_time_first_sequence_may_be_dynamic(tmp_path):
    # X [T, B, I] of an LSTM: its batch is axis 1; a dynamic sequence
    # length (axis 0) has no static loop to compile to.
    model = recurrent_models.build("lstm_forward")
    dims = model.graph.input[0].type.tensor_type.shape.dim
    dims[0].dim_param, dims[1].dim_param = "steps", "batch"
    path = tmp_path / "dynamic_steps.onnx"
    onnx.save(model, str(path))
    done = cli("compile", path, "-o", tmp_path / "out")
    assert_one_line_error(done, "compile", "input 'x' has a dynamic dimension 0 ('steps'); "
                                           "only the batch dimension (1) may be dynamic")
