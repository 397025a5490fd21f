"""TFLite's 16x8 quantization (int16 activations, int8 weights) against
tflite-micro, bit for bit, on the host, the M4 and the M0: Keras networks
converted with the converter's 16x8 recipe (tools/build_int16_models.py),
networks built here of each int16 kernel tinyml computes (conv, depthwise
conv, fully connected with int64, int32 or no bias, add, sub, leaky ReLU,
pad, pools, data movement), and what TFLM does not compute so, refused in
one line naming the operator."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tinyml
from tinyml.frontend.tflite import import_tflite
from conftest import assert_one_line_error, cli, tflite_micro_output
from tflite_builder import (TfliteModel, add_options, concatenation_options, conv_options,
                            depthwise_options, fully_connected_options, leaky_relu_options,
                            pool_options)


def _int16(m: TfliteModel, name: str, shape, scale: float, zero_point: int = 0) -> int:
    return m.tensor(name, shape, np.int16, quantization=([scale], [zero_point], 0))


def _weights(m: TfliteModel, rng, name: str, shape, channels: int, per_channel: bool,
             axis: int = 0) -> int:
    scales = rng.uniform(0.004, 0.012, channels if per_channel else 1)
    return m.tensor(name, shape, np.int8, data=rng.integers(-127, 128, shape),
                    quantization=(scales, [0] * len(scales), axis))


def _bias(m: TfliteModel, rng, name: str, channels: int, dtype) -> int:
    return m.tensor(name, [channels], dtype, data=rng.integers(-2000000, 2000000, channels),
                    quantization=([1e-6] * channels, [0] * channels, 0))


def conv_network(bias=np.int64, activation: str = "NONE", per_channel: bool = True,
                 multiplier: int = 1, seed: int = 0) -> bytes:
    """int16 [1, 9, 10, 3] -> CONV_2D 3x3 stride 2 (SAME) -> DEPTHWISE_CONV_2D
    3x3 (VALID) -> RESHAPE -> FULLY_CONNECTED of 5, every output int16.
    `bias` the contractions' bias type (None: omitted; the depthwise conv's
    is int64 whenever it has one, as TFLM reads no other)."""
    rng = np.random.default_rng(seed)
    m = TfliteModel()
    x = _int16(m, "x", [1, 9, 10, 3], 1 / 8192)
    w = _weights(m, rng, "conv/w", [6, 3, 3, 3], 6, per_channel)
    # Each scale spans about three standard deviations of its values.
    conv = _int16(m, "conv", [1, 5, 5, 6], 1 / 1500)
    inputs = [x, w] + ([_bias(m, rng, "conv/b", 6, bias)] if bias else [])
    m.operator("CONV_2D", inputs, [conv], conv_options("SAME", 2, activation))
    channels = 6 * multiplier
    dw = _weights(m, rng, "dw/w", [1, 3, 3, channels], channels, per_channel, axis=3)
    depthwise = _int16(m, "dw", [1, 3, 3, channels], 1 / 900)
    inputs = [conv, dw] + ([_bias(m, rng, "dw/b", channels, np.int64)] if bias else [])
    m.operator("DEPTHWISE_CONV_2D", inputs, [depthwise],
               depthwise_options("VALID", 1, activation, multiplier))
    flat = _int16(m, "flat", [1, 9 * channels], 1 / 900)
    shape = m.tensor("shape", [2], np.int32, data=[1, 9 * channels])
    m.operator("RESHAPE", [depthwise, shape], [flat])
    fc = _weights(m, rng, "fc/w", [5, 9 * channels], 5, False)
    y = _int16(m, "y", [1, 5], 1 / 200)
    inputs = [flat, fc] + ([_bias(m, rng, "fc/b", 5, bias)] if bias else [])
    m.operator("FULLY_CONNECTED", inputs, [y], fully_connected_options(activation))
    return m.build([x], [y])


def wide_network(seed: int = 0) -> bytes:
    """int16 [1, 640] -> FULLY_CONNECTED of 4 with weights of magnitude 100
    to 127: 640 products of up to 2^15 * 127 each can leave int32, so the
    sums are int64 as TFLM's are."""
    rng = np.random.default_rng(seed)
    m = TfliteModel()
    x = _int16(m, "x", [1, 640], 1 / 8192)
    magnitudes = rng.integers(100, 128, (4, 640)) * rng.choice([-1, 1], (4, 640))
    w = m.tensor("w", [4, 640], np.int8, data=magnitudes, quantization=([0.01], [0], 0))
    y = _int16(m, "y", [1, 4], 1 / 165)
    m.operator("FULLY_CONNECTED", [x, w, _bias(m, rng, "b", 4, np.int64)], [y],
               fully_connected_options())
    return m.build([x], [y])


def elementwise_network(seed: int = 0) -> bytes:
    """int16 [1, 4, 6, 8]: ReLU (to another scale), ReLU6, a leaky ReLU,
    PAD, a 2x2 max pool and average
    pool (SAME), ADD of the two pools, SUB of a broadcast row of the input,
    concatenated with the input's last rows: every operand's scale its own."""
    rng = np.random.default_rng(seed)
    m = TfliteModel()
    # Inputs up to 16, the ReLU's output up to 8: the ReLU6 clamps at 6.
    x = _int16(m, "x", [1, 4, 6, 8], 1 / 2000)
    relu = _int16(m, "relu", [1, 4, 6, 8], 1 / 4000)
    m.operator("RELU", [x], [relu])
    relu6 = _int16(m, "relu6", [1, 4, 6, 8], 1 / 4000)
    m.operator("RELU6", [relu], [relu6])
    leaky = _int16(m, "leaky", [1, 4, 6, 8], 1 / 9000)
    m.operator("LEAKY_RELU", [relu6], [leaky], leaky_relu_options(0.3))
    padded = _int16(m, "padded", [1, 5, 7, 8], 1 / 9000)
    paddings = m.tensor("paddings", [4, 2], np.int32, data=[[0, 0], [1, 0], [0, 1], [0, 0]])
    m.operator("PAD", [leaky, paddings], [padded])
    pooled = {}
    for kind in ("MAX_POOL_2D", "AVERAGE_POOL_2D"):
        pooled[kind] = _int16(m, kind.lower(), [1, 3, 4, 8], 1 / 9000)
        m.operator(kind, [padded], [pooled[kind]], pool_options(2, 2, "SAME"))
    total = _int16(m, "total", [1, 3, 4, 8], 1 / 5000)
    m.operator("ADD", list(pooled.values()), [total], add_options())
    row = _int16(m, "row", [8], float(rng.uniform(1 / 20000, 1 / 10000)))
    difference = _int16(m, "difference", [1, 3, 4, 8], 1 / 4000)
    m.operator("SUB", [total, row], [difference], add_options(kind="Sub"))
    y = _int16(m, "y", [1, 3, 4, 16], 1 / 4000)
    m.operator("CONCATENATION", [difference, difference], [y], concatenation_options(3))
    return m.build([x, row], [y])


INT16_MODELS = Path(__file__).resolve().parents[1] / "models" / "int16"


@pytest.mark.parametrize("name,targets", [
    ("keras_cnn_16x8", ("host", "cortex-m4", "cortex-m0")),
    ("keras_cnn_16x8_float_io", ("host", "cortex-m4")),
    ("keras_conv1d_16x8", ("host", "cortex-m4", "cortex-m0")),
])
def test_keras_16x8_conversions_match_tflite_micro(name, targets):
    """Conv, depthwise, pools, dense, softmax (cnn); tanh, sigmoid, add,
    mul, requantize, concatenation, mean (conv1d): every output bit."""
    path = INT16_MODELS / f"{name}.tflite"
    data = path.read_bytes()
    rng = np.random.default_rng(7)
    compiled = {target: tinyml.compile(str(path), target=target) for target in targets}
    info = compiled["host"].inputs[0]
    for _ in range(3):
        x = rng.normal(size=info.shape).astype(np.float32) if info.dtype == "float32" else \
            rng.integers(-32768, 32768, info.shape).astype(np.int16)
        want = _run_tflm(data, [x])
        for target, model in compiled.items():
            assert model.report.float_layers == []
            assert np.array_equal(model.run(x).outputs[0], want), target


def _run_tflm(data: bytes, inputs: list[np.ndarray]) -> np.ndarray:
    from tflite_micro.python.tflite_micro import runtime
    interpreter = runtime.Interpreter.from_bytes(data, arena_size=1 << 20)
    for index, x in enumerate(inputs):
        interpreter.set_input(x, index)
    interpreter.invoke()
    return interpreter.get_output(0)


def _check(tmp_path, data: bytes, shapes, targets, count: int = 3, seed: int = 0) -> None:
    path = tmp_path / "model.tflite"
    path.write_bytes(data)
    rng = np.random.default_rng(seed)
    frames = [[rng.integers(-32768, 32768, s).astype(np.int16) for s in shapes]
              for _ in range(count)]
    wants = [_run_tflm(data, frame) for frame in frames]
    # A network saturated to a constant would match whatever it computed.
    assert len({want.tobytes() for want in wants}) == len(wants)
    assert all(int(want.max()) - int(want.min()) > 100 for want in wants)
    for target in targets:
        compiled = tinyml.compile(str(path), target=target)
        assert compiled.report.float_layers == []
        for frame, want in zip(frames, wants):
            got = compiled.run(*frame).outputs[0]
            assert got.dtype == np.int16 and np.array_equal(got, want), target


@pytest.mark.parametrize("bias,activation,per_channel,multiplier,targets", [
    (np.int64, "NONE", True, 1, ("host", "cortex-m4", "cortex-m0")),
    (np.int32, "RELU", True, 2, ("host", "cortex-m4")),
    (None, "RELU6", False, 1, ("host",)),
], ids=["int64 bias", "int32 bias, relu, multiplier 2", "no bias, relu6, per tensor"])
def test_a_16x8_conv_network_matches_tflite_micro(tmp_path, bias, activation, per_channel,
                                                  multiplier, targets):
    data = conv_network(bias, activation, per_channel, multiplier)
    _check(tmp_path, data, [(1, 9, 10, 3)], targets)


def test_16x8_sums_beyond_int32_accumulate_in_int64(tmp_path):
    data = wide_network()
    path = tmp_path / "wide.tflite"
    path.write_bytes(data)
    assert "tensor<1x4xi64>" in str(import_tflite(str(path)))
    _check(tmp_path, data, [(1, 640)], ("host", "cortex-m4", "cortex-m0"))


def test_16x8_elementwise_pools_and_data_movement_match_tflite_micro(tmp_path):
    _check(tmp_path, elementwise_network(), [(1, 4, 6, 8), (8,)],
           ("host", "cortex-m4", "cortex-m0"))


def test_a_16x8_model_reads_and_writes_int16_through_the_cli(tmp_path):
    data = conv_network()
    model = tmp_path / "model.tflite"
    model.write_bytes(data)
    x = np.random.default_rng(5).integers(-32768, 32768, (1, 9, 10, 3)).astype(np.int16)
    np.save(tmp_path / "x.npy", x)
    done = cli("compile", model, "-o", tmp_path / "out", "--target", "cortex-m4")
    assert done.returncode == 0, done.stderr
    done = cli("run", tmp_path / "out", "--input", tmp_path / "x.npy", "--output",
               tmp_path / "y.npy")
    assert done.returncode == 0, done.stderr
    assert np.array_equal(np.load(tmp_path / "y.npy"), tflite_micro_output(data, x))


def _zero_point_input() -> bytes:
    m = TfliteModel()
    x = _int16(m, "x", [1, 4], 1 / 8192, zero_point=3)
    w = m.tensor("w", [2, 4], np.int8, data=np.ones((2, 4)), quantization=([0.01], [0], 0))
    y = _int16(m, "y", [1, 2], 1 / 1024)
    m.operator("FULLY_CONNECTED", [x, w], [y], fully_connected_options())
    return m.build([x], [y])


def _depthwise_int32_bias() -> bytes:
    m = TfliteModel()
    x = _int16(m, "x", [1, 3, 3, 2], 1 / 8192)
    w = m.tensor("w", [1, 3, 3, 2], np.int8, data=np.ones((1, 3, 3, 2)),
                 quantization=([0.01], [0], 0))
    b = m.tensor("b", [2], np.int32, data=[1, 2], quantization=([1e-6], [0], 0))
    y = _int16(m, "y", [1, 1, 1, 2], 1 / 1024)
    m.operator("DEPTHWISE_CONV_2D", [x, w, b], [y], depthwise_options("VALID"))
    return m.build([x], [y])


def _int16_operator(kind: str, y_scale: float = 1 / 32768) -> bytes:
    m = TfliteModel()
    x = _int16(m, "x", [1, 4], 1 / 8192)
    y = _int16(m, "y", [1, 4], y_scale)
    m.operator(kind, [x], [y])
    return m.build([x], [y])


def _conv(activation: str = "NONE", axis: int = 0) -> bytes:
    """A 1x1 conv of 3 channels to 2, its filter quantized per output
    channel (`axis` 0) or per input channel (3: not TFLite's form)."""
    m = TfliteModel()
    x = _int16(m, "x", [1, 3, 3, 3], 1 / 8192)
    scales = 2 if axis == 0 else 3
    w = m.tensor("w", [2, 1, 1, 3], np.int8, data=np.ones((2, 1, 1, 3)),
                 quantization=([0.01] * scales, [0] * scales, axis))
    y = _int16(m, "y", [1, 3, 3, 2], 1 / 1024)
    m.operator("CONV_2D", [x, w], [y], conv_options("VALID", 1, activation))
    return m.build([x], [y])


def _pool_rescaling() -> bytes:
    m = TfliteModel()
    x = _int16(m, "x", [1, 4, 4, 2], 1 / 8192)
    y = _int16(m, "y", [1, 2, 2, 2], 1 / 4096)
    m.operator("MAX_POOL_2D", [x], [y], pool_options(2, 2))
    return m.build([x], [y])


def _large_multiplier() -> bytes:
    m = TfliteModel()
    x = _int16(m, "x", [1, 4], 1.0)
    w = m.tensor("w", [2, 4], np.int8, data=np.ones((2, 4)), quantization=([1.0], [0], 0))
    y = _int16(m, "y", [1, 2], 1 / 1024)
    m.operator("FULLY_CONNECTED", [x, w], [y], fully_connected_options())
    return m.build([x], [y])


@pytest.mark.parametrize("build,text", [
    (_zero_point_input, "FULLY_CONNECTED): int16 tensor 'x' has zero point 3; TFLite's 16x8 "
                        "kernels take symmetric int16"),
    (_depthwise_int32_bias, "bias 'b' is INT32; a INT16 DEPTHWISE_CONV_2D takes a INT64 bias"),
    (lambda: _int16_operator("HARD_SWISH"), "HARD_SWISH): input 'x' is int16: HARD_SWISH with "
                                            "int16 activations (TFLite's 16x8 quantization) is "
                                            "not supported"),
    (_large_multiplier, "takes a multiplier of 1.02e+03; TFLM's 64-bit rescaling computes "
                        "below 2^7"),
    (lambda: _int16_operator("SOFTMAX", 1 / 1024), "SOFTMAX): output 'y' has scale "
                                                   "0.000976562; TFLM's int16 SOFTMAX writes "
                                                   "scale 1/32768"),
    (lambda: _int16_operator("LOGISTIC", 1 / 1024), "LOGISTIC): output 'y' has scale "
                                                    "0.000976562; TFLM's int16 LOGISTIC writes "
                                                    "scale 1/32768"),
    (lambda: _conv(activation="TANH"), "CONV_2D): fused activation TANH is not supported "
                                       "with int16 activations"),
    (lambda: _conv(axis=3), "CONV_2D): filter 'w' has 3 scales for 2 output channels"),
    (_pool_rescaling, "MAX_POOL_2D): input 'x' and output 'y' are quantized differently; "
                      "TFLM's int16 MAX_POOL_2D keeps the scale and zero point"),
], ids=["input zero point", "depthwise int32 bias", "unsupported operator", "multiplier",
        "softmax scale", "logistic scale", "fused tanh", "filter scales", "pool rescaling"])
def test_what_tflm_does_not_compute_in_16x8_is_one_line(tmp_path, build, text):
    path = tmp_path / "model.tflite"
    path.write_bytes(build())
    assert_one_line_error(cli("compile", path, "-o", tmp_path / "out"), "compile", text)
    assert not (tmp_path / "out").exists()


def test_a_float_edged_16x8_model_on_a_core_without_an_fpu_is_one_line(tmp_path):
    """Its float input quantized to int16 would take float arithmetic (or a
    table of 64K entries) on the M0: the error says what to convert."""
    done = cli("compile", INT16_MODELS / "keras_cnn_16x8_float_io.tflite", "-o",
               tmp_path / "out", "--target", "cortex-m0")
    assert_one_line_error(done, "compile", "cortex-m0 has no FPU: 'tinyml.quantize' at ")
    assert "converts between float32 and int16; give the 16x8 model int16 inputs and " \
        "outputs" in done.stderr
    assert not (tmp_path / "out").exists()
