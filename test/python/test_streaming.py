"""Streaming (`compile(..., streaming=True)`, `tinyml-compile --streaming`):
a TFLite model's variable tensors (SVDF histories, LSTM states), which
TFLM keeps from one invocation to the next, become state inputs that the
function writes the next state over (one caller-owned buffer per state;
`RunResult.states` gives them back). Called frame after frame on its
states, the model matches one TFLM interpreter invoked as many times: bit
for bit for integer models, within 1e-5 for float ones."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tinyml
from conftest import assert_one_line_error, cli, tflite_micro_frames
from svdf_models import keyword_svdf
from tflite_builder import TfliteModel, fully_connected_options, lstm_options

MODELS = Path(__file__).resolve().parents[1] / "models"
RECURRENT = MODELS / "recurrent"


def _frames(model: tinyml.CompiledModel, count: int, seed: int) -> list[list[np.ndarray]]:
    rng = np.random.default_rng(seed)
    frames = []
    for _ in range(count):
        frame = []
        for info in model.inputs:
            if info.state is not None:
                continue
            dtype = np.dtype(info.dtype)
            frame.append(rng.integers(np.iinfo(dtype).min, np.iinfo(dtype).max + 1,
                                      info.shape).astype(dtype) if dtype.kind == "i"
                         else rng.standard_normal(info.shape).astype(np.float32))
        frames.append(frame)
    return frames


def _reset_states(model: tinyml.CompiledModel) -> list[np.ndarray]:
    """TFLM's reset values: an int8 variable's zero point, else 0."""
    return [np.full(info.shape, info.zero_point if info.dtype == "int8" else 0, info.dtype)
            for info in model.inputs if info.state is not None]


@pytest.mark.parametrize("name,targets", [
    ("svdf_keyword", ("host", "cortex-m0")),
    ("svdf_int8_state", ("host", "cortex-m4")),
    ("keras_lstm_int8", ("host", "cortex-m4")),
    ("keras_lstm", ("host",)),
    ("keras_lstm_stacked", ("host",)),
])
def test_a_streaming_model_matches_tflite_micro_call_after_call(tmp_path, name, targets):
    path = RECURRENT / f"{name}.tflite"
    if name == "svdf_int8_state":
        path = tmp_path / "svdf.tflite"
        path.write_bytes(keyword_svdf(state=np.int8, rank=2, batch=2, seed=1))
    data = path.read_bytes()
    for target in targets:
        model = tinyml.compile(str(path), target=target, streaming=True)
        assert any(info.state for info in model.inputs)
        assert not any(info.state for info in model.outputs)
        frames = _frames(model, 4, seed=2)
        wants = tflite_micro_frames(data, frames)
        state = _reset_states(model)
        for k, (frame, want) in enumerate(zip(frames, wants)):
            given = [array.copy() for array in state]
            result = model.run(*frame, *state)
            got = result.outputs[0]
            assert result.states is not None
            # The arrays passed in are the caller's: left as they were.
            assert all(np.array_equal(a, b) for a, b in zip(state, given))
            state = result.states
            if got.dtype == np.float32:
                assert np.max(np.abs(got - want)) <= 1e-5, (target, k)
            else:
                assert np.array_equal(got, want), (target, k)
    # Without streaming every call starts from the reset state: TFLM's
    # second invocation differs.
    fresh = tinyml.compile(str(path))
    assert not np.allclose(fresh.run(*frames[1]).outputs[0], wants[1], rtol=0, atol=1e-5)


def test_the_header_names_each_state_and_its_next_value(tmp_path):
    out = tmp_path / "out"
    done = cli("compile", RECURRENT / "svdf_keyword.tflite", "--streaming", "-o", out,
               "--target", "cortex-m4")
    assert done.returncode == 0, done.stderr
    header = (out / "svdf_keyword.h").read_text()
    assert ('    int16_t *svdf0_state /* "svdf0/state", 1x32, state: its reset value before the '
            "first call; each call writes the next */") in header
    assert "(int16_t *)(inputs)[1]" in header
    assert "#define TINYML_SVDF_KEYWORD_INPUT_IS_STATE {0u, 1u, 1u}" in header
    loaded = tinyml.load(out)
    assert [info.state for info in loaded.inputs] == [None, "svdf0/state", "svdf1/state"]
    assert loaded.report.options["streaming"] is True
    # tinyml-run writes the states as the call left them: the next call's inputs.
    x = _frames(loaded, 2, seed=4)
    state = _reset_states(loaded)
    wants = tflite_micro_frames((RECURRENT / "svdf_keyword.tflite").read_bytes(), x)
    for k, (frame, want) in enumerate(zip(x, wants)):
        paths = [tmp_path / f"{k}_{n}.npy" for n in ("x", "s0", "s1")]
        for path, array in zip(paths, frame + state):
            np.save(path, array)
        nexts = [tmp_path / f"{k}_next{n}.npy" for n in range(2)]
        done = cli("run", out, *[a for p in paths for a in ("--input", p)], "--output",
                   tmp_path / f"{k}_y.npy", *[a for p in nexts for a in ("--state-output", p)])
        assert done.returncode == 0, done.stderr
        assert np.array_equal(np.load(tmp_path / f"{k}_y.npy"), want), k
        state = [np.load(p) for p in nexts]
    # The example firmware on QEMU writes the states back alike.
    done = cli("run", out, *[a for p in paths for a in ("--input", p)], "--emulator", "qemu",
               "--output", tmp_path / "qemu_y.npy",
               *[a for n in range(2) for a in ("--state-output", tmp_path / f"qemu{n}.npy")])
    assert done.returncode == 0, done.stderr
    assert np.array_equal(np.load(tmp_path / "qemu_y.npy"), np.load(tmp_path / f"{k}_y.npy"))
    assert all(np.array_equal(np.load(tmp_path / f"qemu{n}.npy"), state[n]) for n in range(2))
    done = cli("run", out, *[a for p in paths for a in ("--input", p)],
               "--state-output", tmp_path / "one.npy")
    assert_one_line_error(done, "run", "'svdf_keyword' has 2 state input(s), got 1 "
                                       "--state-output")


def test_a_model_without_variables_streams_as_it_is():
    plain = tinyml.compile(str(MODELS / "int8" / "op_conv_relu.tflite"))
    streaming = tinyml.compile(str(MODELS / "int8" / "op_conv_relu.tflite"), streaming=True)
    assert streaming.inputs == plain.inputs and streaming.outputs == plain.outputs


def test_streaming_an_onnx_model_is_a_one_line_error(tmp_path):
    done = cli("compile", RECURRENT / "lstm_classifier.dynamo.onnx", "--streaming",
               "-o", tmp_path / "out")
    assert_one_line_error(done, "compile", "streaming applies to a TFLite model's variable "
                                           "tensors; an ONNX or MLIR model carries its state "
                                           "as inputs and outputs already")
    assert not (tmp_path / "out").exists()


def _one_step_lstm() -> bytes:
    """DTLN's form (TFLM's noise-suppression example, one frame a call):
    an integer LSTM over a sequence of one step, its hidden state into a
    fully connected layer that keeps the [1, 1, N] shape."""
    rng = np.random.default_rng(8)
    size, cells, units = 6, 5, 7
    m = TfliteModel()
    x = m.tensor("x", [1, 1, size], np.int8, quantization=([0.05], [-128], 0))
    h = m.tensor("h", [1, 1, cells], np.int8, quantization=([0.0078], [-4], 0))
    inputs = [x] + [-1] * 23
    for position in range(1, 9):
        width = size if position <= 4 else cells
        inputs[position] = m.tensor(f"w{position}", [cells, width], np.int8,
                                    data=rng.integers(-127, 128, (cells, width)),
                                    quantization=([0.02], [0], 0))
    for position in range(12, 16):
        inputs[position] = m.tensor(f"b{position}", [cells], np.int32,
                                    data=rng.integers(-3000, 3000, cells),
                                    quantization=([0.001], [0], 0))
    inputs[18] = m.tensor("output_state", [1, cells], np.int8, variable=True,
                          quantization=([0.0078], [-4], 0))
    inputs[19] = m.tensor("cell_state", [1, cells], np.int16, variable=True,
                          quantization=([2.0 ** -11], [0], 0))
    m.operator("UNIDIRECTIONAL_SEQUENCE_LSTM", inputs, [h], lstm_options())
    w = m.tensor("fc/w", [units, cells], np.int8, data=rng.integers(-127, 128, (units, cells)),
                 quantization=([0.03], [0], 0))
    b = m.tensor("fc/b", [units], np.int32, data=rng.integers(-100, 100, units),
                 quantization=([0.0078 * 0.03], [0], 0))
    y = m.tensor("y", [1, 1, units], np.int8, quantization=([0.04], [-2], 0))
    m.operator("FULLY_CONNECTED", [h, w, b], [y], fully_connected_options(keep_num_dims=True))
    return m.build([x], [y])


def test_a_one_step_lstm_streams_frame_by_frame(tmp_path):
    """One step a call: the loop folds away, so its reset state gets a
    buffer of its own to be written over; the fully connected layer keeping
    its dimensions computes in integers (its quantize moves above the
    reshape), and frame after frame the outputs are TFLM's."""
    path = tmp_path / "lstm.tflite"
    path.write_bytes(_one_step_lstm())
    frames = _frames(tinyml.compile(str(path)), 6, seed=3)
    wants = tflite_micro_frames(path.read_bytes(), frames)
    assert tinyml.compile(str(path)).report.float_layers == []
    for target in ("host", "cortex-m0"):
        model = tinyml.compile(str(path), target=target, streaming=True)
        state = _reset_states(model)
        for k, (frame, want) in enumerate(zip(frames, wants)):
            result = model.run(*frame, *state)
            assert np.array_equal(result.outputs[0], want), (target, k)
            assert result.states is not None
            state = result.states
