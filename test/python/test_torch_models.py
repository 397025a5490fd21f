"""The PyTorch part of the users' corpus (test/models/torch, written by
tools/build_torch_models.py): small networks exported by both exporters
with a dynamic batch, and quantized by onnxruntime's `quantize_static` with
its defaults in QDQ and QOperator formats.

Float exports match onnxruntime within float rounding on the host and the
M4; quantized ones within one step of the output's scale (onnxruntime's
float reference between DequantizeLinear and QuantizeLinear, against
TFLite's integer kernels and tables), on the host, the M4 and the M0, with
no layer left in float.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest

import tinyml

TORCH = Path(__file__).resolve().parents[1] / "models" / "torch"
NETWORKS = sorted({p.name.split(".")[0] for p in TORCH.glob("*.onnx")})


def _reference(path: Path, x: np.ndarray) -> np.ndarray:
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    return session.run(None, {session.get_inputs()[0].name: x})[0]


def _sample(path: Path) -> np.ndarray:
    dims = onnx.load(str(path)).graph.input[0].type.tensor_type.shape.dim
    shape = [d.dim_value or 1 for d in dims]
    return np.random.default_rng(1).standard_normal(shape).astype(np.float32)


def _output_scale(path: Path) -> float:
    """The scale of the quantization the output is dequantized from."""
    model = onnx.load(str(path))
    values = {t.name: onnx.numpy_helper.to_array(t) for t in model.graph.initializer}
    output = model.graph.output[0].name
    node = next(n for n in model.graph.node if output in n.output)
    return float(values[node.input[1]])


@pytest.mark.parametrize("exporter", ["torchscript", "dynamo"])
@pytest.mark.parametrize("network", NETWORKS)
def test_a_pytorch_export_matches_onnxruntime(network, exporter):
    path = TORCH / f"{network}.{exporter}.onnx"
    x = _sample(path)
    want = _reference(path, x)
    for target in ("host", "cortex-m4"):
        model = tinyml.compile(str(path), target=target)
        assert model.report.dynamic_batch == 1
        got = model.run(x).outputs[0]
        assert np.abs(got - want).max() <= 1e-5 * max(1.0, float(np.abs(want).max())), target


@pytest.mark.parametrize("fmt", ["qdq", "qoperator"])
@pytest.mark.parametrize("network", NETWORKS)
def test_an_onnxruntime_quantized_export_is_within_one_step(network, fmt):
    path = TORCH / f"{network}.{fmt}.onnx"
    x = _sample(path)
    want = _reference(path, x)
    step = _output_scale(path)
    for target in ("host", "cortex-m4", "cortex-m0"):
        model = tinyml.compile(str(path), target=target)
        assert model.report.float_layers == [], target
        got = model.run(x).outputs[0]
        assert np.abs(got - want).max() <= step * 1.001, target
