"""The int8 zoo (test/models/int8, TFLite models quantized post-training and
converted by tf2onnx: tools/build_int8_zoo.py) imports: its QDQ graph
becomes quant casts around float ops, the clean-up removes every layout
transpose, and the imported IR computes what onnxruntime computes from the
same ONNX file (at most one step of the int8 output: the interpreter
accumulates in float64, onnxruntime in float32, and a rounding may flip)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest

import zoo
from test_frontend import cleaned, run_module
from tinyml import make_context
from tinyml.frontend import import_onnx

INT8_ZOO = Path(__file__).resolve().parents[1] / "models" / "int8"
MODELS = sorted(p.stem for p in INT8_ZOO.glob("*.onnx"))


def test_the_int8_zoo_is_there():
    assert {"kws_dscnn", "vww_mobilenet", "resnet8", "fc_autoencoder"} <= set(MODELS)
    for name in MODELS:
        assert (INT8_ZOO / f"{name}.tflite").is_file(), name


@pytest.mark.parametrize("name", MODELS)
def test_int8_model_imports_like_onnxruntime(name):
    model = onnx.load(INT8_ZOO / f"{name}.onnx")
    feeds = zoo.random_inputs(model)
    expected = zoo.reference(model, feeds)
    with make_context():
        module = cleaned(import_onnx(model))
        text = str(module)
        assert "tinyml.transpose" not in text
        assert "tinyml.dequantize" in text and "tinyml.quantize" in text
        got = run_module(module, list(feeds.values()))
    for g, e in zip(got, expected):
        assert e.dtype == np.int8
        assert np.abs(g - e.reshape(g.shape).astype(np.float32)).max() <= 1, name
