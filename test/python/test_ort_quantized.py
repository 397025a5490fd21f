"""onnxruntime's `quantize_static` output (test/models/ort_quantized, written
by tools/build_ort_quantized_models.py: three small NCHW networks, the
third of MobileNetV2's inverted residual blocks, float input and output,
in QDQ form with int8 or uint8 activations and weights, and in
QOperator form with int8 or uint8 activations) compiles, and computes what
onnxruntime computes from the same file with its graph optimizations off,
to one step of the output's quantization.

The exception is onnxruntime's own uint8 QLinearConv on an x86-64 core
without VNNI: its u8s8 kernel saturates pairs of products in 16 bits (on
`branches` its first conv is up to 30 steps from the conv it describes), so
a uint8 QOperator model is held to one step of onnxruntime running its QDQ
twin (the same quantization, QDQ's float kernels), and to three steps of
onnxruntime on the file itself."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from conftest import assert_import_refused
from onnx import TensorProto, helper, numpy_helper

import tinyml
from test_frontend import cleaned, run_module
from tinyml import make_context
from tinyml.frontend import import_onnx
from tinyml.pipeline.stages import cleanup

MODELS_DIR = Path(__file__).resolve().parents[1] / "models" / "ort_quantized"
NETWORKS = ["residual_cnn", "branches", "inverted_residuals"]
FORMATS = ["qdq_int8", "qdq_uint8", "qdq_uint8_weights", "qoperator_uint8", "qoperator_int8"]
MODELS = [f"{n}.{f}" for n in NETWORKS for f in FORMATS]
# uint8 weights are asymmetric (zero point != 0): tinyml-quantize-ops gives
# their conv/matmul an integer kernel that ignores the weights' zero point.
ASYMMETRIC_WEIGHTS = [m for m in MODELS if m.endswith("qdq_uint8_weights")]
SEEDS = range(3)


def _path(name: str) -> Path:
    return MODELS_DIR / f"{name}.onnx"


def _session(name: str) -> ort.InferenceSession:
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.intra_op_num_threads = 1
    return ort.InferenceSession(str(_path(name)), options, providers=["CPUExecutionProvider"])


def _output_step(name: str) -> float:
    """The scale of the quantized tensor the graph output dequantizes."""
    model = onnx.load(_path(name))
    output = model.graph.output[0].name
    dequantize = next(n for n in model.graph.node if output in n.output)
    assert dequantize.op_type == "DequantizeLinear"
    scale = next(i for i in model.graph.initializer if i.name == dequantize.input[1])
    return float(numpy_helper.to_array(scale))


def _inputs(seed: int) -> np.ndarray:
    return np.random.default_rng(100 + seed).standard_normal((1, 3, 16, 16)).astype(np.float32)


def _steps(got: np.ndarray, want: np.ndarray, step: float) -> float:
    return float(np.abs(got - want).max()) / step


def test_the_models_are_there_and_small():
    assert sorted(p.name for p in MODELS_DIR.glob("*.onnx")) == sorted(
        f"{m}.onnx" for m in MODELS)
    for name in MODELS:
        assert _path(name).stat().st_size < 50_000, name


def test_the_formats_are_what_they_say():
    for network in NETWORKS:
        def ops(fmt):
            return {n.op_type for n in onnx.load(_path(f"{network}.{fmt}")).graph.node}

        def types(fmt):
            return {i.data_type for i in onnx.load(_path(f"{network}.{fmt}")).graph.initializer}
        assert "QLinearConv" in ops("qoperator_uint8") and "Conv" not in ops("qoperator_uint8")
        assert "Conv" in ops("qdq_uint8")
        assert TensorProto.UINT8 in types("qdq_uint8") and TensorProto.INT8 in types("qdq_uint8")
        assert TensorProto.INT8 not in types("qdq_uint8_weights")
        assert TensorProto.UINT8 not in types("qdq_int8") | types("qoperator_int8")


@pytest.mark.parametrize("name", [m for m in MODELS if "uint8" in m])
def test_uint8_is_imported_as_int8_with_the_zero_point_moved(name):
    """x's zero point (uint8 in the file) is 128 more than the IR's."""
    model = onnx.load(_path(name))
    inits = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    scale, zero_point = float(inits["x_scale"]), int(inits["x_zero_point"])
    with make_context():
        text = str(import_onnx(model))
    assert "ui8" not in text
    types = set(re.findall(r"!quant\.uniform<i8:f32, ([0-9.eE+-]+):(-?\d+)>", text))
    assert any(abs(float(s) - scale) <= 1e-9 and int(z) == zero_point - 128
               for s, z in types), (scale, zero_point, types)


@pytest.mark.parametrize("name", MODELS)
def test_the_import_computes_what_onnxruntime_does(name):
    """The imported IR, interpreted in float64 before the quantization
    passes (the QDQ float simulation, every rounding as ONNX says)."""
    session, step = _session(name), _output_step(name)
    tolerance = 3 if name.endswith("qoperator_uint8") else 1
    with make_context():
        module = cleaned(import_onnx(_path(name)))
        for seed in SEEDS:
            x = _inputs(seed)
            got = run_module(module, [x])[0]
            assert _steps(got, session.run(None, {"x": x})[0], step) <= tolerance * 1.001, seed


@pytest.mark.parametrize("target", ["host", "cortex-m4"])
@pytest.mark.parametrize("name", [m for m in MODELS if m not in ASYMMETRIC_WEIGHTS])
def test_compiled_model_matches_onnxruntime(name, target):
    session, step = _session(name), _output_step(name)
    compiled = tinyml.compile(str(_path(name)), target=target)
    twin = _session(name.replace("qoperator", "qdq")) \
        if name.endswith("qoperator_uint8") else None
    for seed in SEEDS:
        x = _inputs(seed)
        got = compiled.run(x).outputs[0]
        want = session.run(None, {"x": x})[0]
        if twin is None:
            assert _steps(got, want, step) <= 1.001, (seed, _steps(got, want, step))
        else:
            assert _steps(got, want, step) <= 3.001, (seed, _steps(got, want, step))
            assert _steps(got, twin.run(None, {"x": x})[0], step) <= 1.001, seed


@pytest.mark.parametrize("name", ASYMMETRIC_WEIGHTS)
def test_asymmetric_uint8_weights_compile_to_what_onnxruntime_computes(name):
    session, step = _session(name), _output_step(name)
    compiled = tinyml.compile(str(_path(name)), target="host")
    x = _inputs(0)
    assert _steps(compiled.run(x).outputs[0], session.run(None, {"x": x})[0], step) <= 1.001


def test_qoperator_contractions_become_integer_kernels():
    """QLinearConv, QLinearMatMul, QGemm, QLinearAdd and the MaxPool of a
    quantized tensor get the integer kernels their QDQ twins get."""
    def integer_ops(name):
        with make_context():
            module = import_onnx(_path(name))
            cleanup().run(module)
            return sorted(re.findall(r"= (tinyml\.\w+) [^\n]*-> tensor<[^\n]*!quant\.uniform",
                                     str(module)))
    for network in NETWORKS:
        qdq = integer_ops(f"{network}.qdq_uint8")
        qoperator = integer_ops(f"{network}.qoperator_uint8")
        assert "tinyml.conv2d" in qoperator and "tinyml.matmul" in qoperator
        # onnxruntime's QDQ AveragePool keeps its input's quantization; its
        # QLinearAveragePool has one of its own, which TFLite's pool has not.
        assert qoperator == [op for op in qdq if op != "tinyml.avg_pool2d"], network


# ---------------------------------------------------------------------------
# What is refused, in one line naming the node
# ---------------------------------------------------------------------------

def _model(nodes, inputs, output_type, inits, domains=("com.microsoft",)):
    graph = helper.make_graph(
        nodes, "q", [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
        [helper.make_tensor_value_info("y", output_type, None)],
        [numpy_helper.from_array(np.asarray(v), n) for n, v in inits.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)] + [
        helper.make_opsetid(d, 1) for d in domains])
    model.ir_version = 8
    return model


F32, U8 = TensorProto.FLOAT, TensorProto.UINT8
_QPARAMS = {"s": np.float32(0.5), "z": np.uint8(128)}


def _pool(**attrs):
    return _model([helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"]),
                   helper.make_node("QLinearAveragePool", ["q", "s", "z", "s", "z"], ["p"],
                                    domain="com.microsoft", name="pool", **attrs),
                   helper.make_node("DequantizeLinear", ["p", "s", "z"], ["y"])],
                  [("x", F32, [1, 2, 4, 4])], F32, _QPARAMS)


REFUSED = {
    "uint8_input": (
        _model([helper.make_node("DequantizeLinear", ["x", "s", "z"], ["y"])],
               [("x", U8, [1, 4])], F32, _QPARAMS, ()),
        r"input 'x' has element type UINT8; only float32 and int8 are supported"),
    "channels_last": (
        _pool(kernel_shape=[2, 2], channels_last=1),
        r"node 'pool' \(com\.microsoft\.QLinearAveragePool\): channels_last=1 is not "
        r"supported"),
    "unknown_attribute": (
        _pool(kernel_shape=[2, 2], dilations=[1, 1]),
        r"node 'pool' \(com\.microsoft\.QLinearAveragePool\): unknown attribute 'dilations' "
        r"\(not one of com\.microsoft\.QLinearAveragePool's\)"),
    "attribute_type": (
        _pool(kernel_shape=[2, 2], channels_last=1.0),
        r"node 'pool' \(com\.microsoft\.QLinearAveragePool\): attribute 'channels_last' must "
        r"be an int, got FLOAT"),
    "qgemm_alpha": (
        _model([helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"]),
                helper.make_node("QGemm", ["q", "s", "z", "w", "s", "z", "", "s", "z"], ["g"],
                                 domain="com.microsoft", name="gemm", alpha=2.0),
                helper.make_node("DequantizeLinear", ["g", "s", "z"], ["y"])],
               [("x", F32, [1, 4])], F32, {**_QPARAMS, "w": np.full((4, 2), 130, np.uint8)}),
        r"node 'gemm' \(com\.microsoft\.QGemm\): alpha=2\.0 is not supported \(only 1\)"),
    "max_pool_of_an_int8_input": (
        _model([helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2], name="pool")],
               [("x", TensorProto.INT8, [1, 2, 4, 4])], TensorProto.INT8, {}, ()),
        r"node 'pool' \(MaxPool\): reads an int8 tensor whose quantization is unknown"),
}


@pytest.mark.parametrize("case", REFUSED)
def test_refused_in_one_line(case):
    assert_import_refused(*REFUSED[case])
