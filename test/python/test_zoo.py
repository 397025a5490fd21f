"""Tests of the model zoo (`test/models/zoo.py`) and `tools/build_zoo.py`."""
import collections
import functools
import importlib.util
import pathlib

import numpy as np
import onnx
import pytest

import zoo

ROOT = pathlib.Path(__file__).resolve().parents[2]
ALL = zoo.names()


@functools.lru_cache(maxsize=None)
def _model(name: str) -> onnx.ModelProto:
    return zoo.build(name)


def _run(name: str, inputs=None):
    model = _model(name)
    inputs = zoo.random_inputs(model) if inputs is None else inputs
    return zoo.reference(model, inputs)


def _op_counts(name: str) -> collections.Counter:
    return collections.Counter(n.op_type for n in _model(name).graph.node)


def _dims(vi: onnx.ValueInfoProto) -> list:
    return [d.dim_param or d.dim_value for d in vi.type.tensor_type.shape.dim]


@pytest.mark.parametrize("name", ALL)
def test_passes_full_checker(name):
    onnx.checker.check_model(_model(name), full_check=True)


@pytest.mark.parametrize("name", ALL)
def test_runs_in_onnxruntime_with_finite_outputs(name):
    model = _model(name)
    outputs = _run(name)
    assert len(outputs) == len(model.graph.output)
    for out, vi in zip(outputs, model.graph.output):
        assert out.dtype == np.float32
        assert np.isfinite(out).all()
        # Declared static dims must match what actually comes out.
        for got, want in zip(out.shape, _dims(vi)):
            assert isinstance(want, str) or got == want, (out.shape, _dims(vi))


@pytest.mark.parametrize("name", ALL)
def test_building_twice_gives_identical_bytes(name):
    assert zoo.build(name).SerializeToString() == zoo.build(name).SerializeToString()


MLPERF_INPUTS = {
    "kws_dscnn": [zoo.TF_BATCH, 49, 10, 1],
    "vww_mobilenet": [zoo.TF_BATCH, 96, 96, 3],
    "resnet8": [1, 3, 32, 32],
    "fc_autoencoder": [1, 640],
}
MLPERF_OUTPUTS = {"kws_dscnn": 12, "vww_mobilenet": 2, "resnet8": 10, "fc_autoencoder": 640}


def test_kinds_partition_the_zoo():
    assert zoo.names("mlperf") == list(MLPERF_INPUTS)
    small = zoo.names("small")
    assert all(n.startswith(("op_", "style_")) for n in small)
    assert sorted(zoo.names("mlperf") + small) == sorted(ALL)
    assert zoo.names("mlperf", "small") == ALL
    assert sorted(ALL + zoo.names("frontend")) == sorted(zoo.MODELS)
    with pytest.raises(ValueError):
        zoo.names("large")
    with pytest.raises(KeyError):
        zoo.build("no_such_model")


@pytest.mark.parametrize("name", list(MLPERF_INPUTS))
def test_mlperf_input_and_output_shapes(name):
    (vi,) = _model(name).graph.input
    assert _dims(vi) == MLPERF_INPUTS[name]
    (inp,) = zoo.random_inputs(_model(name)).values()
    assert list(inp.shape) == [1 if isinstance(d, str) else d for d in MLPERF_INPUTS[name]]
    (out,) = _run(name)
    assert out.shape == (1, MLPERF_OUTPUTS[name])


@pytest.mark.parametrize("name", ["kws_dscnn", "vww_mobilenet", "resnet8"])
def test_mlperf_classifiers_are_not_saturated(name):
    # A near one-hot softmax would make argmax agreement meaningless.
    (probs,) = _run(name)
    assert probs.max() < 0.9
    np.testing.assert_allclose(probs.sum(), 1.0, rtol=1e-5)


def _convs(name):
    return [n for n in _model(name).graph.node if n.op_type == "Conv"]


def _group(node) -> int:
    return next((a.i for a in node.attribute if a.name == "group"), 1)


def test_mlperf_architectures():
    kws = _convs("kws_dscnn")
    assert len(kws) == 9 and [_group(c) for c in kws[1::2]] == [64] * 4
    assert _op_counts("kws_dscnn")["Transpose"] == 2

    vww = _convs("vww_mobilenet")
    assert len(vww) == 1 + 2 * 13
    assert sum(_group(c) > 1 for c in vww) == 13
    strides = [next(a.ints for a in c.attribute if a.name == "strides")[0] for c in vww[1::2]]
    assert strides == [1, 2, 1, 2, 1, 2, 1, 1, 1, 1, 1, 2, 1]
    assert _op_counts("vww_mobilenet")["Clip"] == 27

    counts = _op_counts("resnet8")
    assert counts["Conv"] == 7 + 2 and counts["Add"] == 3 and counts["Gemm"] == 1
    params = sum(int(np.prod(t.dims)) for t in _model("resnet8").graph.initializer)
    assert params == 77706  # the reference's trainable parameters, BN folded away

    counts = _op_counts("fc_autoencoder")
    assert counts["MatMul"] == 10 and counts["BatchNormalization"] == 9


# Every op the frontend claims to support has a small model exercising it.
SUPPORTED_OPS = {
    "Conv", "Gemm", "MatMul", "Add", "Sub", "Mul", "Div", "Relu", "Clip", "LeakyRelu",
    "Sigmoid", "Tanh", "HardSigmoid", "HardSwish", "BatchNormalization", "AveragePool",
    "MaxPool", "GlobalAveragePool", "ReduceMean", "ReduceSum", "ReduceMax", "Softmax",
    "Reshape", "Flatten", "Transpose", "Squeeze", "Unsqueeze", "Pad", "Concat",
    "Identity", "Dropout", "Constant", "Cast",
}


def test_small_models_cover_every_supported_op():
    used = set().union(*(_op_counts(n) for n in zoo.names("small")))
    assert SUPPORTED_OPS <= used, SUPPORTED_OPS - used


def test_nhwc_transpose_style_matches_nchw():
    x = zoo.random_inputs(_model("style_nchw"))["input"]
    (nchw,) = _run("style_nchw", {"input": x})
    (nhwc,) = _run("style_nhwc_transpose", {"input_1": x.transpose(0, 2, 3, 1)})
    np.testing.assert_allclose(nhwc, nchw, rtol=1e-5, atol=1e-6)


def test_vww_nchw_is_vww_with_an_nchw_input():
    x = zoo.random_inputs(_model("style_vww_mobilenet_nchw"))["input_1"]
    assert x.shape == (1, 3, 96, 96)
    (nchw,) = _run("style_vww_mobilenet_nchw", {"input_1": x})
    (nhwc,) = _run("vww_mobilenet", {"input_1": x.transpose(0, 2, 3, 1)})
    np.testing.assert_allclose(nchw, nhwc, rtol=1e-5, atol=1e-6)
    assert _op_counts("style_vww_mobilenet_nchw")["Transpose"] == \
        _op_counts("vww_mobilenet")["Transpose"] - 1


@pytest.mark.parametrize("a, b", [("style_gemm", "style_matmul_add"),
                                  ("style_bn_unfolded", "style_bn_folded")])
def test_style_pairs_compute_the_same_function(a, b):
    inputs = zoo.random_inputs(_model(a))
    np.testing.assert_allclose(_run(b, inputs)[0], _run(a, inputs)[0], rtol=1e-4, atol=1e-5)


def test_softmax_opset11_coerces_to_2d():
    (y11,) = _run("op_softmax11_4d")
    (y13,) = _run("op_softmax13_4d")
    np.testing.assert_allclose(y11.sum(), 1.0, rtol=1e-5)
    np.testing.assert_allclose(y13.sum(axis=1), 1.0, rtol=1e-5)


def test_random_inputs():
    model = _model("style_symbolic_batch")
    a, b = zoo.random_inputs(model, seed=3), zoo.random_inputs(model, seed=3)
    assert a["input"].shape == (1, 3, 8, 8) and a["input"].dtype == np.float32
    np.testing.assert_array_equal(a["input"], b["input"])
    assert not np.array_equal(a["input"], zoo.random_inputs(model, seed=4)["input"])
    # Initializers are not inputs to feed.
    assert set(zoo.random_inputs(_model("op_conv"))) == {"x"}


def test_build_zoo_script(tmp_path):
    spec = importlib.util.spec_from_file_location("build_zoo", ROOT / "tools" / "build_zoo.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    assert script.main([str(tmp_path), "--kind", "mlperf"]) == 0
    assert sorted(p.stem for p in tmp_path.glob("*.onnx")) == sorted(MLPERF_INPUTS)
    loaded = onnx.load(tmp_path / "resnet8.onnx")
    assert loaded.SerializeToString() == _model("resnet8").SerializeToString()
