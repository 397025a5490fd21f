"""Integer SVDF networks in the form of TFLM's keyword benchmark model
(its file is TFLM's and not copied here): an int16 input requantized to
int8, SVDF layers with int16 (or int8) histories and fully connected
layers between them, an int8 softmax to int16 and that requantized to
int32. Built with the `tflite` package's builders, seeded, with random
weights and scales that keep every layer's values in range:
`keyword_svdf(...)` gives the flatbuffer's bytes.

    python test/models/svdf_models.py   # writes recurrent/svdf_keyword.tflite
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from tflite_builder import TfliteModel, fully_connected_options, softmax_options, svdf_options

HERE = Path(__file__).resolve().parent


def keyword_svdf(state: type = np.int16, rank: int = 1, batch: int = 1, bias: bool = True,
                 layers: int = 2, seed: int = 0) -> bytes:
    """An int16 [batch, 24] input through `layers` SVDF layers (8 filters
    per rank, 4 memory columns; `state` the history's type, int8 with a
    zero point) each followed by a fully connected layer, to a softmax of
    3 classes, int32 out."""
    rng = np.random.default_rng(seed)
    m = TfliteModel()
    size = 24
    x16 = m.tensor("input", [batch, size], np.int16, quantization=([0.000625], [0], 0))
    x = m.tensor("input_int8", [batch, size], np.int8, quantization=([0.08], [-128], 0))
    m.operator("QUANTIZE", [x16], [x])
    # Each scale spans about three standard deviations of the values it
    # quantizes: a product of n int8 terms of rms a and b has rms sqrt(n) a b.
    scale, spread = 0.08, 100.0  # spread: the rms of the int8 input less its zero point
    for layer in range(layers):
        filters, memory, units = 8 * rank, 4, 8
        features = m.tensor(f"svdf{layer}/features", [filters, size], np.int8,
                            data=rng.integers(-127, 128, (filters, size)),
                            quantization=([0.01], [0], 0))
        projection = np.sqrt(size) * spread * 73.0 * scale * 0.01
        state_scale = 3.0 * projection / np.iinfo(state).max
        state_zero = 0 if state == np.int16 else int(rng.integers(-20, 20))
        times = m.tensor(f"svdf{layer}/times", [filters, memory], state,
                         data=rng.integers(-100, 100, (filters, memory)),
                         quantization=([0.004], [0], 0))
        history = m.tensor(f"svdf{layer}/state", [batch, filters * memory], state,
                           variable=True, quantization=([state_scale], [state_zero], 0))
        inputs = [x, features, times, -1, history]
        if bias:
            inputs[3] = m.tensor(f"svdf{layer}/bias", [units], np.int32,
                                 data=rng.integers(-2000, 2000, units),
                                 quantization=([state_scale * 0.004], [0], 0))
        out_scale = 3.0 * projection * 58.0 * 0.004 * np.sqrt(rank) / 128.0
        y = m.tensor(f"svdf{layer}/out", [batch, units], np.int8,
                     quantization=([out_scale], [int(rng.integers(-10, 10))], 0))
        m.operator("SVDF", inputs, [y], svdf_options(rank))
        size, spread = 16, 43.0
        w = m.tensor(f"fc{layer}/weights", [size, units], np.int8,
                     data=rng.integers(-127, 128, (size, units)),
                     quantization=([0.02], [0], 0))
        b = m.tensor(f"fc{layer}/bias", [size], np.int32, data=rng.integers(-500, 500, size),
                     quantization=([out_scale * 0.02], [0], 0))
        scale = 3.0 * np.sqrt(units) * spread * 73.0 * out_scale * 0.02 / 128.0
        x = m.tensor(f"fc{layer}/out", [batch, size], np.int8,
                     quantization=([scale], [int(rng.integers(-10, 10))], 0))
        m.operator("FULLY_CONNECTED", [y, w, b], [x], fully_connected_options())
    # Logits of rms 1.5, so that the softmax neither saturates nor flattens.
    logits_weight_scale = 1.5 / (np.sqrt(size) * spread * 73.0 * scale)
    w = m.tensor("logits/weights", [3, size], np.int8, data=rng.integers(-127, 128, (3, size)),
                 quantization=([logits_weight_scale], [0], 0))
    logits = m.tensor("logits", [batch, 3], np.int8, quantization=([4.5 / 128], [2], 0))
    m.operator("FULLY_CONNECTED", [x, w], [logits], fully_connected_options())
    probabilities = m.tensor("probabilities", [batch, 3], np.int16,
                             quantization=([1.0 / 65536], [-32768], 0))
    m.operator("SOFTMAX", [logits], [probabilities], softmax_options())
    y32 = m.tensor("output", [batch, 3], np.int32, quantization=([1.0 / 32768], [0], 0))
    m.operator("QUANTIZE", [probabilities], [y32])
    return m.build([x16], [y32])


if __name__ == "__main__":
    (HERE / "recurrent" / "svdf_keyword.tflite").write_bytes(keyword_svdf())
