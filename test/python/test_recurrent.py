"""ONNX LSTM and GRU (frontend/onnx/recurrent.py) and TFLite's
UNIDIRECTIONAL_SEQUENCE_LSTM: each direction a time loop whose body fuses
like any graph.

PyTorch's exports (test/models/recurrent, written by
tools/build_recurrent_models.py with both exporters' defaults) match
onnxruntime within float rounding on the host, the M4 and the M7; the
specification's other forms (test/models/recurrent_models.py: reverse and
bidirectional, layout 1, a batch of two, states as inputs, every output)
on the host and the M4. The Keras corpus (test/models/recurrent/*.tflite,
from tools/build_keras_recurrent_models.py: Keras 2 LSTMs converted as
TFLM's LSTM example converts them, Keras 3 LSTMs and GRUs and Keras 2's GRU
as WHILE loops, Conv1D networks float and int8) and TFLite LSTMs written
here (time major, a cell clip that binds) match tflite-micro within float
rounding on the host and the M4, bit for bit when int8 (and on the M0);
the one model TFLM miscomputes, TensorFlow Lite's committed output. The report counts a loop's MACs once per step, the
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
from tflite_builder import TfliteModel, lstm_options

from conftest import assert_one_line_error, cli, tflite_micro_output

RECURRENT = Path(__file__).resolve().parents[1] / "models" / "recurrent"
EXPORTS = sorted(p for p in RECURRENT.glob("*.onnx") if ".qdq." not in p.name)
KERAS = sorted(RECURRENT.glob("keras*.tflite"))


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
    # hidden; the head. Each layer is one kernel, its time loop.
    path = RECURRENT / "lstm_classifier.dynamo.onnx"
    model = tinyml.compile(str(path), target="cortex-m4")
    steps, hidden = 12, 20
    layers = [steps * 4 * hidden * (size + hidden) for size in (10, hidden)]
    assert model.report.macs == sum(layers) + hidden * 4
    profile = model.run(*_feeds(onnx.load(str(path))).values(), profile=True).profile
    lstm_layers = [layer for layer in profile["layers"]
                   if any("LSTM" in node for node in layer["nodes"])]
    assert [layer["macs"] for layer in lstm_layers] == layers
    for layer in lstm_layers:
        (loop,) = [kernel for kernel in layer["kernels"] if kernel["macs"]]
        assert loop["macs"] == layer["macs"] and loop["instructions"] > loop["macs"]


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


@pytest.mark.parametrize("path", KERAS, ids=lambda p: p.name)
def test_a_keras_model_matches_its_reference(path):
    """Float within rounding, int8 bit for bit (on the M0 too), against
    tflite-micro; against TensorFlow Lite where TFLM miscomputes the model
    (the reference the build script committed beside it)."""
    from tflite_micro.python.tflite_micro import runtime
    data = path.read_bytes()
    committed = path.with_suffix(".reference.npz")
    if committed.exists():
        reference = np.load(committed)
        x, want = reference["input"], reference["output"]
    else:
        given = runtime.Interpreter.from_bytes(data).get_input_details(0)
        rng = np.random.default_rng(1)
        x = rng.standard_normal(given["shape"]).astype(np.float32) \
            if given["dtype"] == np.float32 else \
            rng.integers(-128, 128, given["shape"]).astype(np.int8)
        want = tflite_micro_output(data, x)
    integer = want.dtype == np.int8
    for target in ("host", "cortex-m4") + (("cortex-m0",) if integer else ()):
        got = tinyml.compile(str(path), target=target).run(x).outputs[0]
        assert np.array_equal(got.reshape(want.shape), want) if integer \
            else _close(got, want), target


def _tflite_lstm(time_major: bool = True, cell_clip: float = 0.0,
                 omit: tuple[int, ...] = (), extra: dict[int, tuple] | None = None,
                 activation: str = "TANH", given: tuple[int, ...] = ()) -> bytes:
    """A TFLite LSTM layer of 3 inputs, 4 cells, 5 steps and a batch of 2,
    its weights large enough for the cell state to pass 1, inputs `omit`
    left out (-1), `extra` optional inputs given (position: shape) and the
    inputs at `given` graph inputs rather than constants."""
    rng = np.random.default_rng(3)
    steps, batch, size, cells = 5, 2, 3, 4
    m = TfliteModel()
    x = m.tensor("x", [steps, batch, size] if time_major else [batch, steps, size])
    y = m.tensor("y", [steps, batch, cells] if time_major else [batch, steps, cells])
    shapes = {**{p: (cells, size) for p in (1, 2, 3, 4)},
              **{p: (cells, cells) for p in (5, 6, 7, 8)},
              **{p: (cells,) for p in (12, 13, 14, 15)}, **(extra or {})}
    inputs = [x] + [-1] * 23
    for position, shape in shapes.items():
        if position not in omit:
            data = rng.uniform(-1.5, 1.5, shape).astype(np.float32)
            inputs[position] = m.tensor(f"w{position}", shape,
                                        data=None if position in given else data)
    inputs[18] = m.tensor("output_state", [batch, cells], variable=True)
    inputs[19] = m.tensor("cell_state", [batch, cells], variable=True)
    m.operator("UNIDIRECTIONAL_SEQUENCE_LSTM", inputs, [y],
               lstm_options(cell_clip=cell_clip, time_major=time_major, activation=activation))
    return m.build([x] + [inputs[p] for p in given], [y])


@pytest.mark.parametrize("time_major,cell_clip", [(True, 0.0), (True, 0.8), (False, 0.8)])
def test_a_tflite_lstm_matches_tflite_micro(tmp_path, time_major, cell_clip):
    data = _tflite_lstm(time_major, cell_clip)
    path = tmp_path / "lstm.tflite"
    path.write_bytes(data)
    x = np.random.default_rng(4).standard_normal(
        (5, 2, 3) if time_major else (2, 5, 3)).astype(np.float32)
    want = tflite_micro_output(data, x)
    for target in ("host", "cortex-m4"):
        assert _close(tinyml.compile(str(path), target=target).run(x).outputs[0], want), target
    if cell_clip:
        # The clip binds: without it the outputs differ.
        unclipped = tflite_micro_output(_tflite_lstm(time_major, 0.0), x)
        assert not _close(unclipped, want)


@pytest.mark.parametrize("case,words", [
    ("peepholes", "has peephole weights (input 9)"),
    ("cifg", "couples its input gate to the forget gate (CIFG, no input 1)"),
    ("projection", "has projection weights (input 16)"),
    ("layer_norm", "has layer normalization weights (input 20)"),
    ("relu", "cell activation RELU is not supported; only TANH (Keras's default)"),
    ("computed weights", "needs constant weights and biases (weights computed at run time "
                         "are not supported)"),
])
def test_a_tflite_lstm_form_not_computed_is_a_one_line_error(tmp_path, case, words):
    data = {"peepholes": lambda: _tflite_lstm(extra={9: (4,)}),
            "cifg": lambda: _tflite_lstm(omit=(1, 5, 12)),
            "projection": lambda: _tflite_lstm(extra={16: (4, 4)}),
            "layer_norm": lambda: _tflite_lstm(extra={20: (4,)}),
            "relu": lambda: _tflite_lstm(activation="RELU"),
            "computed weights": lambda: _tflite_lstm(given=(2,))}[case]()
    path = tmp_path / f"{case}.tflite"
    path.write_bytes(data)
    done = cli("compile", path, "-o", tmp_path / "out")
    line = assert_one_line_error(done, "compile", words)
    assert "(UNIDIRECTIONAL_SEQUENCE_LSTM)" in line
    assert not (tmp_path / "out").exists()


def test_the_firmware_on_qemu_gives_the_emulators_bits():
    # The example firmware (arm-none-eabi-gcc, QEMU's mps2-an386) runs the
    # time loop as unicorn does, arena poisoned in both.
    path = RECURRENT / "lstm_classifier.torchscript.onnx"
    model = tinyml.compile(str(path), target="cortex-m4")
    x = np.random.default_rng(0).standard_normal(model.inputs[0].shape).astype(np.float32)
    emulated = model.run(x, arena_fill=b"\xff").outputs
    firmware = model.run(x, arena_fill=b"\xff", emulator="qemu").outputs
    assert all(a.tobytes() == b.tobytes() for a, b in zip(emulated, firmware))


def test_a_state_input_and_output_carry_a_stream_across_calls():
    # A streaming model: its initial state an input, its final state an
    # output (Y_h). Two calls over 5 steps each, the first's Y_h given to
    # the second as h0, compute the 10-step sequence's final state.
    model = tinyml.compile(recurrent_models.build("gru_linear_before_reset_state"),
                           target="cortex-m4")
    rng = np.random.default_rng(5)
    x = rng.standard_normal((10, 1, 4)).astype(np.float32)
    h0 = rng.standard_normal((1, 1, 6)).astype(np.float32)
    _, first = model.run(x[:5], h0).outputs
    _, second = model.run(x[5:], first.reshape(1, 1, 6)).outputs
    whole = recurrent_models.build("gru_linear_before_reset_state", steps=10)
    session = ort.InferenceSession(whole.SerializeToString(), providers=["CPUExecutionProvider"])
    _, want = session.run(None, {"x": x, "h0": h0})
    assert _close(second, want)


def test_an_onnxruntime_quantized_lstm_names_its_float_layers():
    # quantize_static quantizes the Linear head and leaves the LSTM float
    # between its DequantizeLinear and QuantizeLinear, as onnxruntime
    # computes it: tinyml computes it so, and the report names each layer.
    path = RECURRENT / "lstm_classifier.qdq.onnx"
    x = np.random.default_rng(1).standard_normal((1, 12, 10)).astype(np.float32)
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    (want,) = session.run(None, {"x": x})
    scale = next(onnx.numpy_helper.to_array(t) for t in onnx.load(str(path)).graph.initializer
                 if t.name == "y_scale")
    for target in ("host", "cortex-m4"):
        model = tinyml.compile(str(path), target=target)
        assert np.abs(model.run(x).outputs[0] - want).max() <= float(scale)
        layers = [(layer.layer, layer.op) for layer in model.report.float_layers]
        assert ("/rnn/LSTM", "scf.for") in layers and ("/rnn/LSTM_1", "scf.for") in layers


def _mutated(change) -> onnx.ModelProto:
    """lstm_forward with `change(node, initializers)` applied."""
    model = recurrent_models.build("lstm_forward")
    node = model.graph.node[0]
    change(node, {t.name: t for t in model.graph.initializer})
    return model


def _set(node, key, value):
    for attribute in [a for a in node.attribute if a.name == key]:
        node.attribute.remove(attribute)
    node.attribute.append(onnx.helper.make_attribute(key, value))


def _short_bias(node, initializers):
    bias = initializers[node.input[3]]
    bias.CopyFrom(onnx.numpy_helper.from_array(onnx.numpy_helper.to_array(bias)[:, :5], bias.name))


@pytest.mark.parametrize("case,words", [
    ("input_forget", "couples the input and forget gates (input_forget=1); not supported"),
    ("direction", "direction 'sideways' is not forward, reverse or bidirectional"),
    ("hidden_size", "W [1, 28, 5] and R [1, 28, 7] do not match 1 direction(s) of 4 gates "
                    "of hidden_size 0 over inputs of 5"),
    ("bias", "B [1, 5] is not [1, 56]"),
])
def test_a_malformed_lstm_is_a_one_line_error_naming_it(tmp_path, case, words):
    change = {"input_forget": lambda node, _: _set(node, "input_forget", 1),
              "direction": lambda node, _: _set(node, "direction", "sideways"),
              "hidden_size": lambda node, _: _set(node, "hidden_size", 0),
              "bias": _short_bias}[case]
    path = tmp_path / f"{case}.onnx"
    onnx.save(_mutated(change), str(path))
    done = cli("compile", path, "-o", tmp_path / "out")
    line = assert_one_line_error(done, "compile", words)
    assert "node 'lstm' (LSTM)" in line
    assert not (tmp_path / "out").exists()


def test_a_variable_read_by_another_operator_is_refused(tmp_path):
    # A variable is only ever a recurrent operator's state.
    m = TfliteModel()
    x, y = m.tensor("x", [1, 4]), m.tensor("y", [1, 4])
    m.operator("ADD", [x, m.tensor("state", [1, 4], variable=True)], [y])
    path = tmp_path / "variable.tflite"
    path.write_bytes(m.build([x], [y]))
    done = cli("compile", path, "-o", tmp_path / "out")
    assert_one_line_error(done, "compile", "tensor 'state': is a variable (state kept between "
                          "invocations), which tinyml supports only as a recurrent "
                          "operator's state")
