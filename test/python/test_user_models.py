"""The models users bring: Keras networks converted by TFLiteConverter with
its default settings in its four modes (test/models/users, written by
tools/build_user_models.py), every file with the converter's dynamic batch.

- float, full int8, and int8 with float input and output: compiled for the
  host and the M4 (int8 ones for the M0 too) and compared with tflite-micro,
  bit for bit where the output is int8.
- dynamic range (a hybrid model, which TFLM does not run): its int8
  weights are dequantized at compile time, so it computes what its float
  twin computes with the weights' quantized values, in the float twin's
  arena.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from tflite_micro.python.tflite_micro import runtime

import tinyml

USERS = Path(__file__).resolve().parents[1] / "models" / "users"
NETWORKS = sorted({p.name.split(".")[0] for p in USERS.glob("*.tflite")})


def _reference(path: Path, x: np.ndarray) -> np.ndarray:
    interpreter = runtime.Interpreter.from_bytes(path.read_bytes())
    interpreter.set_input(x, 0)
    interpreter.invoke()
    return interpreter.get_output(0)


def _sample(path: Path, seed: int = 0) -> np.ndarray:
    details = runtime.Interpreter.from_bytes(path.read_bytes()).get_input_details(0)
    rng = np.random.default_rng(seed)
    if details["dtype"] == np.int8:
        return rng.integers(-128, 128, size=details["shape"]).astype(np.int8)
    return rng.standard_normal(details["shape"]).astype(np.float32)


def _targets(mode: str) -> list[str]:
    return ["host", "cortex-m4", "cortex-m0"] if mode == "int8" else ["host", "cortex-m4"]


@pytest.mark.parametrize("mode", ["float", "int8", "int8_float_io"])
@pytest.mark.parametrize("network", NETWORKS)
def test_a_converted_keras_model_matches_tflite_micro(network, mode):
    path = USERS / f"{network}.{mode}.tflite"
    x = _sample(path)
    want = _reference(path, x)
    for target in _targets(mode):
        model = tinyml.compile(str(path), target=target)
        assert model.report()["dynamic_batch"] == 1
        got = model.run(x).outputs[0]
        assert got.dtype == want.dtype
        if mode == "float":
            assert np.abs(got - want).max() <= 1e-5 * max(1.0, float(np.abs(want).max())), \
                target
        else:
            # int8 inside: float outputs are a DEQUANTIZE of the same int8.
            np.testing.assert_array_equal(got, want, err_msg=target)
