"""int8 kernels computed at compile time, checked over their whole domain.

- LOGISTIC, TANH, LEAKY_RELU and HARD_SWISH on int8 are tables of TFLite's
  integer arithmetic (`tinyml.ir.fixed_point`): each table equals what
  tflite-micro computes for all 256 inputs, for many scales and zero
  points; a model of each runs bit-exact on the host, the M4 and the M0.
- A MUL whose operands are all computed from one int8 tensor (Keras'
  swish: LOGISTIC then MUL) is one table of TFLite's integer MUL too.
- Without an FPU, quantize is a search of compile-time thresholds and
  dequantize a table (`tinyml-integer-conversions`): they give what the
  float computation gives for every int8 value, at exact ties (both
  roundings) and at every threshold's neighbours. With an FPU, quantize
  reads the rounded value from the bits of a float sum: the same results,
  at ties, beyond the range, at infinities and NaNs.
"""
from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper

import tinyml
from conftest import tflite_micro_output
from tflite_builder import TfliteModel, add_options, leaky_relu_options
from tinyml.conversion.integer_conversions import _floats_of_keys, quantize_thresholds
from tinyml.ir.quant import quantized_values
from tinyml.ir import fixed_point

ALL_INT8 = np.arange(-128, 128, dtype=np.int8).reshape(1, 256)


def _unary_model(kind: str, x_params, y_params, options=None) -> bytes:
    m = TfliteModel()
    x = m.tensor("x", [1, 256], np.int8, quantization=([x_params[0]], [x_params[1]], 0))
    y = m.tensor("y", [1, 256], np.int8, quantization=([y_params[0]], [y_params[1]], 0))
    m.operator(kind, [x], [y], options)
    return m.build([x], [y])


def _cases(seed: int, count: int):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        yield (float(np.float32(10 ** rng.uniform(-2.5, 0))), int(rng.integers(-128, 128)),
               float(np.float32(10 ** rng.uniform(-2.5, 0))), int(rng.integers(-128, 0)),
               float(np.float32(rng.uniform(0.01, 0.5))))


#: kind -> (output parameters given the drawn ones, table, builtin options)
KERNELS = {
    "LOGISTIC": (lambda so, zo: (1 / 256, -128),
                 lambda s, z, so, zo, a: fixed_point.logistic_table(s, z), lambda a: None),
    "TANH": (lambda so, zo: (1 / 128, 0),
             lambda s, z, so, zo, a: fixed_point.tanh_table(s, z), lambda a: None),
    "LEAKY_RELU": (lambda so, zo: (so, zo),
                   lambda s, z, so, zo, a: fixed_point.leaky_relu_table(s, z, a, so, zo),
                   leaky_relu_options),
    "HARD_SWISH": (lambda so, zo: (so, zo),
                   lambda s, z, so, zo, a: fixed_point.hard_swish_table(s, z, so, zo),
                   lambda a: None),
}


@pytest.mark.parametrize("kind", sorted(KERNELS))
def test_a_table_is_tflite_micros_kernel_on_every_input(kind):
    output, table, options = KERNELS[kind]
    for s, z, so, zo, alpha in _cases(seed=len(kind), count=40):
        if kind == "HARD_SWISH":
            so = s * 0.6  # TFLM's HARD_SWISH needs an output scale under 128x the input's
        y_params = output(so, zo)
        want = tflite_micro_output(_unary_model(kind, (s, z), y_params, options(alpha)), ALL_INT8)
        got = table(s, z, *y_params, alpha)
        assert got == want[0].tolist(), (kind, s, z, y_params, alpha)


@pytest.mark.parametrize("kind", sorted(KERNELS))
def test_a_tabulated_layer_runs_bit_exact_on_every_target(tmp_path, kind):
    output, _, options = KERNELS[kind]
    y_params = output(0.05, -20)
    data = _unary_model(kind, (0.04, 7), y_params, options(0.1))
    path = tmp_path / f"{kind.lower()}.tflite"
    path.write_bytes(data)
    want = tflite_micro_output(data, ALL_INT8)
    for target in ("host", "cortex-m4", "cortex-m0"):
        model = tinyml.compile(str(path), target=target, emit_stages=True)
        assert "tinyml.lookup" in model.stages["cleanup"] and model.report.float_layers == []
        np.testing.assert_array_equal(model.run(ALL_INT8).outputs[0], want, err_msg=target)


@pytest.mark.parametrize("activation", ["NONE", "RELU"])
@pytest.mark.parametrize("form", ["swish", "square"])
def test_a_product_of_one_tensors_functions_is_one_table(tmp_path, form, activation):
    """x * LOGISTIC(x) (Keras' swish as the converter writes it) and x * x:
    tinyml-tabulate-int8-functions composes the MUL with what it reads
    into one lookup, and every input gives TFLM's integer MUL bit for bit."""
    m = TfliteModel()
    x = m.tensor("x", [1, 256], np.int8, quantization=([0.043], [9], 0))
    y = m.tensor("y", [1, 256], np.int8, quantization=([0.021], [-37], 0))
    other = x
    if form == "swish":
        other = m.tensor("s", [1, 256], np.int8, quantization=([1 / 256], [-128], 0))
        m.operator("LOGISTIC", [x], [other])
    m.operator("MUL", [x, other], [y], add_options(activation, "Mul"))
    data = m.build([x], [y])
    path = tmp_path / f"{form}.tflite"
    path.write_bytes(data)
    want = tflite_micro_output(data, ALL_INT8)
    for target in ("host", "cortex-m4", "cortex-m0"):
        model = tinyml.compile(str(path), target=target, emit_stages=True)
        cleaned = model.stages["cleanup"]
        assert cleaned.count("tinyml.lookup") == 1 and "tinyml.mul" not in cleaned
        np.testing.assert_array_equal(model.run(ALL_INT8).outputs[0], want, err_msg=target)


@pytest.mark.parametrize("ties_away", [False, True])
@pytest.mark.parametrize("scale,zero_point", [(0.5, 1), (0.0123, -128), (3.7e-5, 17),
                                               (1e-45, 0), (2.0 ** 100, -3)])
def test_quantize_thresholds_give_the_float_result_everywhere(scale, zero_point, ties_away):
    """Each threshold is where the float computation steps: its float
    quantizes to the value, the one below it (in float32 order) to the one
    below; and random floats, ties and NaNs land where the division puts
    them."""
    thresholds = quantize_thresholds(scale, zero_point, ties_away).astype(np.int64)[1:]
    values = np.arange(-127, 128)
    at = quantized_values(_floats_of_keys(thresholds), scale, zero_point, ties_away)
    below = quantized_values(_floats_of_keys(thresholds - 1), scale, zero_point, ties_away)
    reached = at >= values
    assert reached.all() and (below < values).all()
    rng = np.random.default_rng(5)
    x = np.concatenate([rng.standard_normal(5000) * scale * 100,
                        (np.arange(-300, 300) + 0.5) * np.float32(scale),
                        [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0]]).astype(np.float32)
    bits = x.view(np.int32).astype(np.int64)
    keys = np.where(bits >= 0, bits, bits ^ 0x7FFFFFFF)
    searched = -128 + np.searchsorted(thresholds, keys, side="right")
    np.testing.assert_array_equal(searched, quantized_values(x, scale, zero_point, ties_away))


def test_a_float_edged_model_runs_on_the_m0_astflite_micro_output(tmp_path):
    """QUANTIZE at exact ties (rounded away from zero, as TFLite does) and
    DEQUANTIZE of every int8 value, without an FPU."""
    m = TfliteModel()
    x = m.tensor("x", [1, 264])
    q = m.tensor("q", [1, 264], np.int8, quantization=([0.25], [3], 0))
    y = m.tensor("y", [1, 264])
    m.operator("QUANTIZE", [x], [q])
    m.operator("DEQUANTIZE", [q], [y])
    path = tmp_path / "edges.tflite"
    path.write_bytes(m.build([x], [y]))
    inputs = np.concatenate([(np.arange(-128, 128) - 3) * 0.25 + 0.125,   # every tie
                             # (beyond int32 after the division TFLM's cast is undefined)
                             [-1e6, 1e6, -0.0, 0.0, 1e-30, -1e-30, 40.0, -40.0]])
    inputs = inputs.astype(np.float32).reshape(1, 264)
    want = tflite_micro_output(path.read_bytes(), inputs)
    model = tinyml.compile(str(path), target="cortex-m0")
    np.testing.assert_array_equal(model.run(inputs).outputs[0], want)


def _edge_floats(scale: float, zero_point: int, bits: int) -> np.ndarray:
    low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    ties = (np.arange(low - 2, high + 3) - zero_point + 0.5) * scale
    huge = np.array([2.0 ** 21, 2.0 ** 22, 2.0 ** 23, 2.0 ** 24, 3e9, 1e30]) * scale
    return np.concatenate([ties, np.nextafter(ties.astype(np.float32), np.float32(np.inf)),
                           huge, -huge, [0.0, -0.0, 1e-40, -1e-40, np.inf, -np.inf,
                                         np.nan, -np.nan]]).astype(np.float32)


@pytest.mark.parametrize("ties_away,bits", [(False, 8), (True, 8), (True, 16)])
def test_quantize_with_an_fpu_is_the_float_computation_everywhere(tmp_path, ties_away, bits):
    """ONNX QuantizeLinear (ties to even) and TFLite QUANTIZE (ties away;
    int8 and int16), on the host and the M4: every tie, its neighbour,
    values beyond the range up to where the FPU's sum leaves [2^23, 2^24),
    infinities, denormals and NaNs of either sign (to the end of their
    sign) give `quantized_values`."""
    scale, zero_point = 0.0371, (-7 if bits == 8 else 0)
    dtype = np.int8 if bits == 8 else np.int16
    x = _edge_floats(scale, zero_point, bits).reshape(1, -1)
    if ties_away:
        m = TfliteModel()
        xi = m.tensor("x", x.shape)
        y = m.tensor("y", x.shape, dtype, quantization=([scale], [zero_point], 0))
        m.operator("QUANTIZE", [xi], [y])
        source = tmp_path / "quantize.tflite"
        source.write_bytes(m.build([xi], [y]))
    else:
        graph = helper.make_graph(
            [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"])], "quantize",
            [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, list(x.shape))],
            [helper.make_tensor_value_info("y", onnx.TensorProto.INT8, list(x.shape))],
            [numpy_helper.from_array(np.float32(scale), "s"),
             numpy_helper.from_array(dtype(zero_point), "z")])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
        model.ir_version = 10
        source = tmp_path / "quantize.onnx"
        onnx.save(model, source)
    low, high = np.iinfo(dtype).min, np.iinfo(dtype).max
    want = np.clip(quantized_values(x, scale, zero_point, ties_away) if bits == 8 else
                   _quantized16(x, scale, ties_away), low, high)
    for target in ("host", "cortex-m4"):
        got = tinyml.compile(str(source), target=target).run(x).outputs[0]
        np.testing.assert_array_equal(got, want, err_msg=target)


def _quantized16(x: np.ndarray, scale: float, ties_away: bool) -> np.ndarray:
    """`quantized_values`' arithmetic to int16 (zero point 0)."""
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        scaled = x / np.float32(scale)
        rounded = np.where(np.abs(scaled - np.trunc(scaled)) == 0.5,
                           np.trunc(scaled) + np.sign(scaled), np.rint(scaled)) \
            if ties_away else np.rint(scaled)
        rounded = np.where(np.isnan(rounded), np.where(np.signbit(x), -np.inf, np.inf), rounded)
        return np.clip(rounded, -32768, 32767).astype(np.int64)
