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
from conftest import assert_import_refused

import tinyml
import zoo
from test_frontend import cleaned, run_module
from tinyml import make_context
from tinyml import CompileError
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


# ---------------------------------------------------------------------------
# What the importer and the compiler refuse in a quantized model, in one line
# ---------------------------------------------------------------------------

def _qdq_model(nodes, inputs, inits, output_type=onnx.TensorProto.FLOAT, opset=13):
    graph = onnx.helper.make_graph(
        nodes, "qdq", [onnx.helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
        [onnx.helper.make_tensor_value_info("y", output_type, None)],
        [onnx.numpy_helper.from_array(np.asarray(v), n) for n, v in inits.items()])
    model = onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", opset)])
    model.ir_version = 8 if opset < 21 else 10
    return model


I8, F32 = onnx.TensorProto.INT8, onnx.TensorProto.FLOAT
REFUSED = {
    # uint8 data inside the graph is read as int8; at its edges it is not.
    "uint8_output": (
        _qdq_model([onnx.helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"])],
                   [("x", F32, [1, 4])], {"s": np.float32(0.5), "z": np.uint8(128)},
                   onnx.TensorProto.UINT8),
        r"output 'y' has element type UINT8; only float32 and int8 are supported"),
    "int16_constant": (
        _qdq_model([onnx.helper.make_node("DequantizeLinear", ["c", "s", "z"], ["d"]),
                    onnx.helper.make_node("Add", ["x", "d"], ["y"])],
                   [("x", F32, [1, 4])], {"c": np.int16([1, 2, 3, 4]), "s": np.float32(0.5),
                                          "z": np.int16(0)}, opset=21),
        r"node 'DequantizeLinear_0' \(DequantizeLinear\): dequantizes a constant of type "
        r"int16; only int8 and uint8 \(and int32 biases\) are supported"),
    "per_axis_quantize": (
        _qdq_model([onnx.helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"], axis=1)],
                   [("x", F32, [1, 2])],
                   {"s": np.float32([0.5, 0.25]), "z": np.int8([0, 0])}, I8),
        "per-axis quantization is not supported"),
    "per_axis_dequantize_of_a_tensor": (
        _qdq_model([onnx.helper.make_node("DequantizeLinear", ["x", "s", "z"], ["y"], axis=1)],
                   [("x", I8, [1, 2])], {"s": np.float32([0.5, 0.25]), "z": np.int8([0, 0])}),
        r"per-axis dequantization of a tensor \(not a constant\) is not supported"),
    "reshape_splits_the_axis": (
        _qdq_model([onnx.helper.make_node("DequantizeLinear", ["w", "s", "z"], ["d"], axis=0),
                    onnx.helper.make_node("Reshape", ["d", "shape"], ["r"]),
                    onnx.helper.make_node("Add", ["x", "r"], ["y"])],
                   [("x", F32, [2, 4])],
                   {"w": np.int8([[1, 2], [3, 4], [5, 6], [7, 8]]), "s": np.float32([1, 2, 3, 4]),
                    "z": np.int8([0, 0, 0, 0]), "shape": np.int64([2, 4])}),
        r"cannot reshape \[4, 2\] to \[2, 4\]: it splits the quantization axis 0"),
}


@pytest.mark.parametrize("case", REFUSED)
def test_quantized_input_is_refused_in_one_line(case):
    assert_import_refused(*REFUSED[case])


def test_quantized_weights_that_are_not_constant_are_refused():
    """A quantized conv needs its weights at compile time (their sums fold
    the input offset into the bias)."""
    model = _qdq_model(
        [onnx.helper.make_node("DequantizeLinear", ["x", "sx", "zx"], ["xf"]),
         onnx.helper.make_node("DequantizeLinear", ["w", "sw", "zw"], ["wf"]),
         onnx.helper.make_node("MatMul", ["xf", "wf"], ["m"]),
         onnx.helper.make_node("QuantizeLinear", ["m", "sy", "zy"], ["y"])],
        [("x", I8, [1, 4]), ("w", I8, [4, 2])],
        {"sx": np.float32(0.5), "zx": np.int8(0), "sw": np.float32(0.25), "zw": np.int8(0),
         "sy": np.float32(1.0), "zy": np.int8(0)}, I8)
    with pytest.raises(CompileError, match=r"quantized weights must be a constant"):
        tinyml.compile(model, target="host")


def _quantize_static(model: onnx.ModelProto, per_channel: bool, path: Path) -> onnx.ModelProto:
    """onnxruntime's post-training quantization of `model` (int8 weights
    and activations, QDQ form), calibrated on random inputs."""
    from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                          quantize_static)

    class RandomInputs(CalibrationDataReader):
        def __init__(self):
            self.feeds = iter([zoo.random_inputs(model, seed) for seed in range(4)])

        def get_next(self):
            return next(self.feeds, None)

    onnx.save(model, path / "float.onnx")
    quantize_static(path / "float.onnx", path / "qdq.onnx", RandomInputs(),
                    quant_format=QuantFormat.QDQ, activation_type=QuantType.QInt8,
                    weight_type=QuantType.QInt8, per_channel=per_channel)
    return onnx.load(path / "qdq.onnx")


@pytest.mark.parametrize("per_channel", [False, True])
@pytest.mark.parametrize("name", ["op_conv", "op_conv_depthwise", "op_conv_strided", "op_gemm"])
def test_onnxruntime_quantize_static_model_compiles(tmp_path, name, per_channel):
    """onnxruntime's quantize_static output (a per-tensor scale of shape [1]
    beside a scalar zero point, int32 biases, float graph input and output)
    compiles to integer kernels, and computes the QDQ graph's float
    simulation (onnxruntime with its graph optimizations off runs each
    DequantizeLinear, float op and QuantizeLinear as written) to one step.
    onnxruntime's own fused int8 kernels are no reference: on these models
    its per-channel conv is off by tens of steps from both."""
    import onnxruntime as ort
    model = _quantize_static(zoo.build(name), per_channel, tmp_path)
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(model.SerializeToString(), options)
    output_quantize = model.graph.node[-2]
    assert output_quantize.op_type == "QuantizeLinear"
    step = float(next(onnx.numpy_helper.to_array(i) for i in model.graph.initializer
                      if i.name == output_quantize.input[1]))
    compiled = tinyml.compile(model, target="host")
    for seed in range(3):
        feeds = zoo.random_inputs(model, seed)
        want = session.run(None, feeds)[0]
        got = compiled.run(*feeds.values()).outputs[0]
        assert np.abs(got - want).max() <= step * 1.001, seed
