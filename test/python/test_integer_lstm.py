"""TFLite's integer LSTM (frontend/tflite/integer_lstm.py: int8 input,
weights and hidden state, int16 cell state) against tflite-micro, bit for
bit, on the host, the M4 and the M0: the Keras 2 LSTM converted fully
integer (in test_recurrent.py's Keras corpus) and, here, its whole output
sequence, and layers written with the forms Keras does not give: time
major, a batch of two, a hidden state with a zero point, a cell clip that
binds and cell-state scales of other powers of two. What TFLM's integer
cell cannot take is a one-line error naming the operator."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tflite_struct
import tinyml
from conftest import assert_one_line_error, cli, tflite_micro_output
from tflite_builder import TfliteModel, lstm_options

KERAS_INT8 = Path(__file__).resolve().parents[1] / "models" / "recurrent" / \
    "keras_lstm_int8.tflite"
TARGETS = ("host", "cortex-m4", "cortex-m0")


def _integer_lstm(time_major: bool, cell_clip: float, hidden_zero_point: int,
                  cell_power: int) -> bytes:
    """An integer LSTM layer of 3 inputs, 4 cells, 5 steps and a batch of 2
    (TFLM's input order: x, the 8 weights, 4 biases, the 2 states)."""
    rng = np.random.default_rng(5)
    steps, batch, size, cells = 5, 2, 3, 4
    m = TfliteModel()
    shape = [steps, batch] if time_major else [batch, steps]
    x = m.tensor("x", shape + [size], np.int8, quantization=([0.05], [-7], 0))
    y = m.tensor("y", shape + [cells], np.int8, quantization=([0.0078], [hidden_zero_point], 0))
    inputs = [x] + [-1] * 23
    for position in range(1, 9):
        width = size if position <= 4 else cells
        inputs[position] = m.tensor(f"w{position}", [cells, width], np.int8,
                                    data=rng.integers(-127, 128, (cells, width)),
                                    quantization=([0.01 + 0.002 * position], [0], 0))
    for position in range(12, 16):
        inputs[position] = m.tensor(f"b{position}", [cells], np.int32,
                                    data=rng.integers(-3000, 3000, cells),
                                    quantization=([0.0005], [0], 0))
    inputs[18] = m.tensor("output_state", [batch, cells], np.int8, variable=True,
                          quantization=([0.0078], [hidden_zero_point], 0))
    inputs[19] = m.tensor("cell_state", [batch, cells], np.int16, variable=True,
                          quantization=([2.0 ** cell_power], [0], 0))
    m.operator("UNIDIRECTIONAL_SEQUENCE_LSTM", inputs, [y],
               lstm_options(cell_clip=cell_clip, time_major=time_major))
    return m.build([x], [y])


@pytest.mark.parametrize("time_major,cell_clip,zero_point,power", [
    (True, 0.0, 0, -11), (False, 0.6, -5, -13), (True, 10.0, 3, -15)])
def test_an_integer_lstm_matches_tflite_micro_bit_for_bit(tmp_path, time_major, cell_clip,
                                                          zero_point, power):
    data = _integer_lstm(time_major, cell_clip, zero_point, power)
    path = tmp_path / "lstm.tflite"
    path.write_bytes(data)
    x = np.random.default_rng(6).integers(-128, 128, (5, 2, 3) if time_major
                                          else (2, 5, 3)).astype(np.int8)
    want = tflite_micro_output(data, x)
    for target in TARGETS:
        assert np.array_equal(tinyml.compile(str(path), target=target).run(x).outputs[0],
                              want), target
    if cell_clip == 0.6:
        # The clip binds: without it the outputs differ.
        assert not np.array_equal(tflite_micro_output(
            _integer_lstm(time_major, 0.0, zero_point, power), x), want)


def test_the_keras_integer_lstm_sequence_matches_tflite_micro(tmp_path):
    """Every step's hidden state of the Keras LSTM (the model's STRIDED_SLICE
    and FULLY_CONNECTED removed, the LSTM's output made the model's)."""
    model = tflite_struct.read_model(KERAS_INT8.read_bytes())
    graph = model.subgraphs[0]
    sequence = int(graph.operators[0].outputs[0])
    graph.operators = graph.operators[:1]
    graph.outputs = np.array([sequence], np.int32)
    path = tmp_path / "sequence.tflite"
    path.write_bytes(tflite_struct.write_model(model))
    for seed in range(2):
        x = np.random.default_rng(seed).integers(-128, 128, (1, 12, 10)).astype(np.int8)
        want = tflite_micro_output(path.read_bytes(), x)
        for target in TARGETS:
            assert np.array_equal(tinyml.compile(str(path), target=target).run(x).outputs[0],
                                  want), (seed, target)


def _cell_scale(model, scale: float) -> None:
    cell = model.subgraphs[0].tensors[int(model.subgraphs[0].operators[0].inputs[19])]
    cell.quantization.scale = np.array([scale], np.float32)


def _per_channel(model) -> None:
    weights = model.subgraphs[0].tensors[int(model.subgraphs[0].operators[0].inputs[2])]
    weights.quantization.scale = np.full(16, weights.quantization.scale[0], np.float32)
    weights.quantization.zero_point = np.zeros(16, np.int64)


def _int64_bias(model) -> None:
    """The forget gate's bias as int64 (what TFLite's 16x8 LSTM takes)."""
    graph = model.subgraphs[0]
    bias = graph.tensors[int(graph.operators[0].inputs[13])]
    values = np.frombuffer(model.buffers[bias.buffer], np.int32).astype(np.int64)
    model.buffers.append(values.tobytes())
    bias.buffer, bias.type = len(model.buffers) - 1, 4  # INT64


def _int8_cell(model) -> None:
    cell = model.subgraphs[0].tensors[int(model.subgraphs[0].operators[0].inputs[19])]
    cell.type = 9  # INT8


@pytest.mark.parametrize("change,words", [
    (lambda m: _cell_scale(m, 0.0001), "the cell state's scale 0.0001 is not a power of two"),
    (_per_channel, "must be constant int8 of one scale and zero point 0"),
    (_int64_bias, "must be a constant int32 tensor"),
    (_int8_cell, "is INT8; an integer LSTM takes an int8 input and hidden state and an "
                 "int16 cell state"),
], ids=["cell scale", "per-channel weights", "int64 bias", "int8 cell state"])
def test_an_integer_lstm_tflm_cannot_compute_is_a_one_line_error(tmp_path, change, words):
    path = tmp_path / "lstm.tflite"
    path.write_bytes(tflite_struct.changed(KERAS_INT8.read_bytes(), change))
    done = cli("compile", path, "-o", tmp_path / "out")
    line = assert_one_line_error(done, "compile", words)
    assert "operator 0 (UNIDIRECTIONAL_SEQUENCE_LSTM)" in line
    assert not (tmp_path / "out").exists()
