"""The models users bring: Keras networks converted by TFLiteConverter with
its default settings in its four modes (test/models/users, written by
tools/build_user_models.py), every file with the converter's dynamic batch.

- float, full int8, and int8 with float input and output: compiled for the
  host and the M4 (int8 ones for the M0 too, float edges included) and
  compared with tflite-micro, bit for bit where the model is int8 inside;
  no int8 layer computes in float (LOGISTIC, TANH, LEAKY_RELU, HARD_SWISH,
  MUL, PAD, TRANSPOSE and a depthwise conv with a channel multiplier
  included).
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
from tinyml.frontend.tflite.reader import dequantized, read_model

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
    return ["host", "cortex-m4", "cortex-m0"] if mode.startswith("int8") \
        else ["host", "cortex-m4"]


@pytest.mark.parametrize("mode", ["float", "int8", "int8_float_io"])
@pytest.mark.parametrize("network", NETWORKS)
def test_a_converted_keras_model_matches_tflite_micro(network, mode):
    path = USERS / f"{network}.{mode}.tflite"
    x = _sample(path)
    want = _reference(path, x)
    for target in _targets(mode):
        model = tinyml.compile(str(path), target=target)
        assert model.report.dynamic_batch == 1
        # Every int8 layer has an integer kernel: none computes in float.
        assert model.report.float_layers == []
        got = model.run(x).outputs[0]
        assert got.dtype == want.dtype
        if mode == "float":
            assert np.abs(got - want).max() <= 1e-5 * max(1.0, float(np.abs(want).max())), \
                target
        else:
            # int8 inside: float outputs are a DEQUANTIZE of the same int8.
            np.testing.assert_array_equal(got, want, err_msg=target)


def _dense_reference(path: Path, x: np.ndarray) -> np.ndarray:
    """A chain of FULLY_CONNECTED layers in numpy, with each int8 weight
    dequantized (scale * q) and the fused activation applied."""
    graph = read_model(path.read_bytes(), str(path))[0]
    tensors = graph.tensors
    for op in graph.operators:
        assert op.kind == "FULLY_CONNECTED"
        w = tensors[op.inputs[1]]
        weights = dequantized(w) if w.type_name == "INT8" else w.data
        x = x @ weights.T + tensors[op.inputs[2]].data
        if op.options["FusedActivationFunction"] == 1:  # RELU
            x = np.maximum(x, 0)
    return x


@pytest.mark.parametrize("network", NETWORKS)
def test_a_dynamic_range_model_computes_in_float_with_its_weights_in_flash(network):
    """A hybrid model costs what its float twin costs: the same arena (no
    weights expanded at run time) and no dequantize left in the code; its
    outputs are its float twin's up to the weights' quantization."""
    hybrid, twin = USERS / f"{network}.dynamic_range.tflite", USERS / f"{network}.float.tflite"
    x = _sample(twin)
    want = _reference(twin, x)
    for target in ("host", "cortex-m4"):
        model = tinyml.compile(str(hybrid), target=target, emit_stages=True)
        assert "tinyml.dequantize" not in model.stages["input"]
        assert model.arena_bytes == tinyml.compile(str(twin), target=target).arena_bytes
        got = model.run(x).outputs[0]
        assert np.abs(got - want).max() <= 0.02 * max(1.0, float(np.abs(want).max())), target


def test_a_dynamic_range_dense_model_is_exact_to_its_dequantized_weights():
    path = USERS / "dense_autoencoder.dynamic_range.tflite"
    x = _sample(USERS / "dense_autoencoder.float.tflite", seed=3)
    want = _dense_reference(path, x.astype(np.float64))
    got = tinyml.compile(str(path), target="cortex-m4").run(x).outputs[0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * float(np.abs(want).max()))
