"""Models TFLM refuses are refused, in one line naming what is wrong.

Each case is a class of bad input (issue #30): a flatbuffer whose structure
reaches outside the file, even in a table tinyml never reads (TFLM runs
the flatbuffers verifier); an operator with the wrong number of operands,
missing, mistyped or custom options, operand types its TFLM kernel does
not take, inputs computed after it, constant data on a result or a graph
input; quantization without zero points, or an int8 filter with one that
is not 0; a depthwise multiplier the
weights contradict; a rescaling TFLite's fixed-point arithmetic cannot
represent; an operator that writes a tensor another has written. Valid
models these checks touch still match tflite-micro.
"""
from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest
import tflite

import tinyml
from conftest import assert_one_line_error, cli, tflite_micro_output
from tflite_builder import (TfliteModel, concatenation_options, conv_options,
                            depthwise_options, fully_connected_options, leaky_relu_options,
                            pool_options, reducer_options)
from tinyml.frontend import FrontendError
from tinyml.frontend.tflite import import_tflite
from tinyml.frontend.tflite.verifier import verify

MODELS = Path(__file__).resolve().parents[1] / "models"
Q = ([0.05], [0], 0)  # a per-tensor int8 quantization


def _int8_conv(output_dtype=np.int8, bias_dtype=np.int32, output_scale=0.05,
               extra_inputs=(), extra_outputs=(), options=None, filter_q=([0.1], [0], 0),
               **input_options) -> bytes:
    m = TfliteModel()
    x = m.tensor("input", [1, 4, 4, 2], np.int8, **{"quantization": Q, **input_options})
    w = m.tensor("w", [3, 1, 1, 2], np.int8, data=np.ones((3, 1, 1, 2)), quantization=filter_q)
    b = m.tensor("b", [3], bias_dtype, data=np.zeros(3))
    y = m.tensor("output", [1, 4, 4, 3], output_dtype,
                 quantization=([output_scale], [0], 0) if output_dtype == np.int8 else None)
    inputs = [x, w, b] + [m.tensor(f"extra{i}", [1]) for i in extra_inputs]
    outputs = [y] + [m.tensor(f"extra_out{i}", [1]) for i in extra_outputs]
    m.operator("CONV_2D", inputs, outputs, options or conv_options())
    return m.build([x], [y])


def _depthwise(weight_shape, multiplier, channels=2) -> bytes:
    m = TfliteModel()
    x = m.tensor("input", [1, 4, 4, channels])
    filters = weight_shape[-1]
    w = m.tensor("w", weight_shape, data=np.linspace(-1, 1, int(np.prod(weight_shape)))
                 .reshape(weight_shape))
    y = m.tensor("output", [1, 4, 4, filters])
    m.operator("DEPTHWISE_CONV_2D", [x, w], [y], depthwise_options(multiplier=multiplier))
    return m.build([x], [y])


def _unary(kind, input_dtype, output_dtype, input_q=Q, output_q=Q) -> bytes:
    m = TfliteModel()
    x = m.tensor("input", [1, 8], input_dtype,
                 quantization=input_q if input_dtype == np.int8 else None)
    y = m.tensor("output", [1, 8], output_dtype,
                 quantization=output_q if output_dtype == np.int8 else None)
    m.operator(kind, [x], [y])
    return m.build([x], [y])


def _cases() -> dict[str, tuple[bytes, str]]:
    cases = {}
    cases["extra input"] = (_int8_conv(extra_inputs=[0]),
                            r"operator 0 \(CONV_2D\): takes 2 to 3 inputs, has 4")
    cases["extra output"] = (_int8_conv(extra_outputs=[0]),
                             r"operator 0 \(CONV_2D\): takes 1 output, has 2")
    m = TfliteModel()
    y = m.tensor("output", [1, 4])
    m.operator("CONCATENATION", [], [y])
    cases["no inputs"] = (m.build([], [y]), r"CONCATENATION\): takes at least 1 input, has 0")
    m = TfliteModel()
    x = m.tensor("input", [1, 4])
    m.operator("RESHAPE", [x, m.tensor("shape", [2], np.int32, data=[1, 4])], [])
    cases["no outputs"] = (m.build([x], [x]), r"RESHAPE\): takes 1 output, has 0")
    m = TfliteModel()
    x, h, y = m.tensor("input", [1, 4]), m.tensor("hidden", [1, 4]), m.tensor("output", [1, 4])
    m.operator("RELU", [h], [y])
    m.operator("RELU", [x], [h])
    cases["operators out of order"] = (m.build([x], [y]), r"operator 0 \(RELU\): input "
                                                          r"'hidden' is not computed before")
    m = TfliteModel()
    x, y = m.tensor("input", [1, 4, 4, 2]), m.tensor("output", [1, 4, 4, 2])
    m.operator("MAX_POOL_2D", [x], [y])
    cases["missing options"] = (m.build([x], [y]), r"MAX_POOL_2D\): has no builtin options "
                                                   r"\(Pool2DOptions\)")
    m = TfliteModel()
    x, y = m.tensor("input", [1, 4, 4, 2]), m.tensor("output", [1, 4, 4, 2])
    m.operator("AVERAGE_POOL_2D", [x], [y], (tflite.BuiltinOptions.DepthwiseConv2DOptions,
                                             depthwise_options()[1]))
    cases["options of another operator"] = (
        m.build([x], [y]), r"AVERAGE_POOL_2D\): its builtin options are DepthwiseConv2DOptions; "
                           r"AVERAGE_POOL_2D takes Pool2DOptions")
    m = TfliteModel()
    x, y = m.tensor("input", [1, 4, 4, 2]), m.tensor("output", [1, 4, 4, 2])
    m.operator("AVERAGE_POOL_2D", [x], [y], pool_options(1, 1), custom_options=b"\x01\x02")
    cases["custom options"] = (m.build([x], [y]), r"AVERAGE_POOL_2D\): a builtin operator "
                                                  r"with custom options")
    cases["int8 conv, float output"] = (_int8_conv(output_dtype=np.float32),
                                        r"CONV_2D\): input 'input' is INT8 and output 'output' "
                                        r"FLOAT32")
    cases["int8 conv, float bias"] = (_int8_conv(bias_dtype=np.float32),
                                      r"CONV_2D\): bias 'b' is FLOAT32; a INT8 CONV_2D takes "
                                      r"a INT32 bias")
    cases["dequantize to int8"] = (_unary("DEQUANTIZE", np.int8, np.int8),
                                   r"DEQUANTIZE\): input 'input' is INT8 and output 'output' "
                                   r"INT8; DEQUANTIZE takes INT8 to FLOAT32")
    cases["int8 logistic, float output"] = (_unary("LOGISTIC", np.int8, np.float32),
                                            r"LOGISTIC\): input 'input' is INT8")
    cases["no zero points"] = (_int8_conv(quantization=([0.05], None, 0)),
                               r"tensor 'input': 0 zero points for 1 scales")
    cases["filter zero point"] = (_int8_conv(filter_q=([0.1, 0.1, 0.1], [0, 0, 1], 0)),
                                  r"CONV_2D\): filter 'w' has zero_point\[2\] = 1; TFLite's "
                                  r"int8 filters are symmetric")
    cases["constant graph input"] = (_int8_conv(data=np.ones((1, 4, 4, 2))),
                                     r"input 'input' has constant data")
    m = TfliteModel()
    x = m.tensor("input", [1, 4])
    y = m.tensor("output", [1, 4], data=np.ones((1, 4)))
    m.operator("RELU", [x], [y])
    cases["constant operator output"] = (m.build([x], [y]), r"operator 0 \(RELU\): output "
                                                            r"'output' has constant data")
    cases["depth multiplier"] = (_depthwise([1, 3, 3, 2], multiplier=3),
                                 r"DEPTHWISE_CONV_2D\): depth multiplier 3, but the weights "
                                 r"\[1, 3, 3, 2\] give 1")
    cases["depthwise weights"] = (_depthwise([4, 1, 1, 2], multiplier=1),
                                  r"DEPTHWISE_CONV_2D\): weights \[4, 1, 1, 2\] are not "
                                  r"\[1, height, width")
    cases["output scale 1e-45"] = (_int8_conv(output_scale=1e-45),
                                   r"CONV_2D\): rescaling 0.005 to the output scale 1.4013e-45 "
                                   r"takes a multiplier of .*; TFLite's fixed-point")
    m = TfliteModel()
    x = m.tensor("input", [1, 3, 3, 4], np.int8, quantization=([1e38], [0], 0))
    y = m.tensor("output", [1, 4], np.int8, quantization=([0.004], [0], 0))
    m.operator("MEAN", [x, m.tensor("axes", [2], np.int32, data=[1, 2])], [y],
               reducer_options(keep_dims=False))
    cases["input scale 1e38"] = (m.build([x], [y]), r"MEAN\): rescaling 1e\+38 to the output "
                                                    r"scale 0.004 takes a multiplier")
    m = TfliteModel()
    x, y = m.tensor("input", [1, 4, 4, 2]), m.tensor("output", [1, 4, 4, 2])
    m.operator("CONV_2D", [x, m.tensor("w", [2, 1, 1, 2], data=np.ones((2, 1, 1, 2)))], [y],
               conv_options())
    cases["two subgraphs"] = (m.build([x], [y], subgraphs=2),
                              r"^[^ ]*m.tflite: the model has 2 subgraphs; only models with "
                              r"one, or whose others are the condition and body of WHILE "
                              r"loops, are supported \(subgraph 1 is neither\)$")
    m = TfliteModel()
    x, y = m.tensor("input", [1, 4]), m.tensor("output", [1, 3])
    m.operator("FULLY_CONNECTED", [x, -1], [y], fully_connected_options())
    cases["omitted weights"] = (m.build([x], [y]), r"operator 0 \(FULLY_CONNECTED\): input 1 "
                                                  r"is omitted \(-1\)")
    m = TfliteModel()
    x, y = m.tensor("input", [1, 4]), m.tensor("output", [1, 8])
    m.operator("CONCATENATION", [x, -1], [y], concatenation_options(1))
    cases["omitted concatenation input"] = (m.build([x], [y]), r"CONCATENATION\): input 1 is "
                                                               r"omitted \(-1\)")
    m = TfliteModel()
    x, y = m.tensor("input", [1, 4]), m.tensor("output", [1, 4])
    m.operator("RELU", [x], [y])
    cases["output listed twice"] = (m.build([x], [y, y]), r"tensor 'output' is listed twice as "
                                                         r"a graph output")
    cases["no outputs"] = (m.build([x], []), r"the subgraph has no outputs")
    m = TfliteModel()
    a = m.tensor("a", [1, 4], np.int8, quantization=([0.1], [3], 0))
    b = m.tensor("b", [1, 4], np.int8, quantization=([0.2], [-5], 0))
    y = m.tensor("y", [1, 8], np.int8, quantization=([0.1], [3], 0))
    m.operator("CONCATENATION", [a, b], [y], concatenation_options(1))
    cases["concatenation of two scales"] = (
        m.build([a, b], [y]), r"CONCATENATION\): integer inputs whose scale or zero point differ")
    m = TfliteModel()
    x, y = m.tensor("input", [1, 5, 5, 1]), m.tensor("output", [1, 5, 5, 1])
    m.operator("CONV_2D", [x, m.tensor("w", [1, 3, 3, 1], data=np.ones((1, 3, 3, 1)))], [y],
               conv_options(dilation=2 ** 31 - 1))
    cases["huge dilation"] = (m.build([x], [y]), r"CONV_2D\): a dilated window of "
                                                 r"\[4294967295, 4294967295\] is more than")
    m = TfliteModel()
    x, y = m.tensor("input", [1, 4, 4, 2]), m.tensor("output", [1, 4, 4, 2])
    m.operator("RELU", [x], [x])
    cases["output is its input"] = (m.build([x], [x]), r"operator 0 \(RELU\): output 'input' "
                                                       r"is already a graph input")
    m = TfliteModel()
    x, h, y = m.tensor("input", [1, 4]), m.tensor("hidden", [1, 4]), m.tensor("output", [1, 4])
    m.operator("RELU", [x], [h])
    m.operator("RELU", [x], [h])
    m.operator("RELU", [h], [y])
    cases["a tensor written twice"] = (m.build([x], [y]), r"operator 1 \(RELU\): output "
                                                          r"'hidden' is already .* an earlier")
    m = TfliteModel()
    x = m.tensor("input", [1, 2], np.int8, quantization=([0.1, 0.2], [0, 0], 1))
    y = m.tensor("output", [1, 2], np.int8, quantization=Q)
    m.operator("RELU", [x], [y])
    cases["per-axis graph input"] = (m.build([x], [y]), r"input 'input': is quantized per "
                                                        r"axis \(2 scales along dimension 1\)")
    m = TfliteModel()
    x, y = m.tensor("input", [1, 4]), m.tensor("output", [1, 4])
    m.operator("LEAKY_RELU", [x], [y], leaky_relu_options(float("inf")))
    cases["leaky relu alpha inf"] = (m.build([x], [y]), r"LEAKY_RELU\): alpha inf is not a "
                                                        r"finite number")
    m = TfliteModel()
    x, y = m.tensor("input", [1, 4]), m.tensor("output", [1, 4], variable=True)
    m.operator("RELU", [x], [y])
    cases["variable tensor"] = (m.build([x], [y]), r"tensor 'output': is a variable \(state "
                                                   r"kept between invocations\)")
    m = TfliteModel()
    x, y = m.tensor("input", [1, 4]), m.tensor("output", [1, 4])
    m.operator("RELU", [x], [y])
    m.deprecated_codes["RELU"] = 3
    cases["operator codes that disagree"] = (
        m.build([x], [y]), r"operator code 0: builtin_code 19 and deprecated_builtin_code 3 "
                           r"name different operators")
    return cases


CASES = _cases()


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_model_tflm_refuses_is_refused_in_one_line(tmp_path, case):
    data, message = CASES[case]
    path = tmp_path / "m.tflite"
    path.write_bytes(data)
    with pytest.raises(FrontendError, match=message) as refused:
        import_tflite(path)
    text = str(refused.value)
    assert "\n" not in text and "Error" not in text and "m.tflite" in text


@pytest.mark.parametrize("case", ["extra input", "depth multiplier"])
def test_tinyml_compile_refuses_them_with_exit_code_1(tmp_path, case):
    (tmp_path / "m.tflite").write_bytes(CASES[case][0])
    done = cli("compile", tmp_path / "m.tflite", "-o", tmp_path / "out")
    assert_one_line_error(done, "compile", "m.tflite: operator 0")


def test_a_depth_multiplier_the_weights_agree_with_matches_tflite_micro(tmp_path):
    path = tmp_path / "dw.tflite"
    path.write_bytes(_depthwise([1, 3, 3, 4], multiplier=2))
    x = np.random.default_rng(5).standard_normal((1, 4, 4, 2)).astype(np.float32)
    want = tflite_micro_output(path.read_bytes(), x)
    got = tinyml.compile(str(path), target="host").run(x).outputs[0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


# -- the structural verifier ---------------------------------------------------

ZOO = sorted(MODELS.glob("**/*.tflite"))


@pytest.mark.parametrize("path", ZOO, ids=lambda p: p.name)
def test_every_model_of_the_zoos_verifies(path):
    verify(path.read_bytes(), path.name)


def _small_model() -> bytes:
    m = TfliteModel()
    x = m.tensor("input", [1, 8], np.int8, quantization=Q)
    w = m.tensor("w", [4, 8], np.int8, data=np.ones((4, 8)), quantization=Q)
    y = m.tensor("output", [1, 4], np.int8, quantization=([0.5], [0], 0))
    m.operator("FULLY_CONNECTED", [x, w], [y], fully_connected_options())
    return m.build([x], [y])


def _field(data: bytes, table: int, slot: int) -> int:
    """The position of field `slot` of the table at `table`."""
    vtable = table - struct.unpack_from("<i", data, table)[0]
    return table + struct.unpack_from("<H", data, vtable + 4 + 2 * slot)[0]


def _uoffset(data: bytes, position: int) -> int:
    return position + struct.unpack_from("<I", data, position)[0]


def _patched(data: bytes, position: int, value: int) -> bytes:
    patched = bytearray(data)
    struct.pack_into("<I", patched, position, value)
    return bytes(patched)


def test_an_offset_out_of_the_file_in_a_field_tinyml_never_reads_is_refused():
    """The subgraph's name (tinyml never reads it) pointed past the end of
    the file, or at a misaligned length: TFLM's verifier refuses the file,
    and so does tinyml, naming the table and field."""
    data = _small_model()
    model = _uoffset(data, 0)
    subgraph = _uoffset(data, _uoffset(data, _field(data, model, 2)) + 4)
    name = _field(data, subgraph, 4)
    with pytest.raises(FrontendError, match=r"corrupt or truncated flatbuffer: subgraph 0, "
                                            r"name: the target of the string offset at byte "
                                            r"\d+ \(1 bytes\) is outside the file"):
        verify(_patched(data, name, len(data) - name + 8), "m.tflite")
    with pytest.raises(FrontendError, match=r"subgraph 0, name: the string length at byte "
                                            r"\d+ is not 4-byte aligned"):
        verify(_patched(data, name, 2), "m.tflite")


def test_a_vector_longer_than_the_file_is_refused():
    data = _small_model()
    model = _uoffset(data, 0)
    buffers = _uoffset(data, _field(data, model, 4))
    with pytest.raises(FrontendError, match=r"buffers: a vector of 100000 at byte \d+ .* is "
                                            r"outside the file"):
        verify(_patched(data, buffers, 100000), "m.tflite")


def test_every_corrupted_byte_is_read_or_refused_in_one_line(tmp_path):
    """Every single byte of a small model flipped: the file either imports
    or is refused with a FrontendError in the model's terms (never another
    exception, never a Python exception's name)."""
    data = _small_model()
    for position in range(len(data)):
        corrupt = bytearray(data)
        corrupt[position] ^= 0xAB
        path = tmp_path / "m.tflite"
        path.write_bytes(bytes(corrupt))
        try:
            import_tflite(path)
        except FrontendError as error:
            assert "\n" not in str(error) and "Error" not in str(error), (position, error)


def test_missing_options_are_the_schemas_defaults_as_in_tflite_micro(tmp_path):
    """A FULLY_CONNECTED without its options table: TFLM's parser takes the
    schema's defaults (no activation, default weights format)."""
    rng = np.random.default_rng(2)
    m = TfliteModel()
    x, y = m.tensor("input", [1, 4]), m.tensor("output", [1, 3])
    m.operator("FULLY_CONNECTED", [x, m.tensor("w", [3, 4], data=rng.standard_normal((3, 4)))],
               [y])
    path = tmp_path / "fc.tflite"
    path.write_bytes(m.build([x], [y]))
    sample = rng.standard_normal((1, 4)).astype(np.float32)
    want = tflite_micro_output(path.read_bytes(), sample)
    got = tinyml.compile(str(path), target="host").run(sample).outputs[0]
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("kind", ["RESHAPE", "TRANSPOSE"])
def test_int8_data_movement_moves_the_bytes_as_tflite_micro(tmp_path, kind):
    """TFLM's int8 RESHAPE and TRANSPOSE copy the stored bytes even where
    the output's scale and zero point differ from the input's."""
    m = TfliteModel()
    x = m.tensor("input", [1, 2, 3], np.int8, quantization=([0.1], [3], 0))
    shape = [1, 3, 2]
    y = m.tensor("output", shape, np.int8, quantization=([0.05], [-7], 0))
    second = m.tensor("shape", [3], np.int32, data=shape) if kind == "RESHAPE" \
        else m.tensor("perm", [3], np.int32, data=[0, 2, 1])
    m.operator(kind, [x, second], [y])
    path = tmp_path / "move.tflite"
    path.write_bytes(m.build([x], [y]))
    sample = np.arange(-3, 3, dtype=np.int8).reshape(1, 2, 3)
    want = tflite_micro_output(path.read_bytes(), sample)
    for target in ("host", "cortex-m0"):
        got = tinyml.compile(str(path), target=target).run(sample).outputs[0]
        np.testing.assert_array_equal(got, want, err_msg=target)


def test_a_fused_activation_that_leaves_one_value_matches_tflite_micro(tmp_path):
    """A RELU fused into an int8 FULLY_CONNECTED whose output zero point is
    127 clamps to [127, 127]: no quantized type holds that range, and the
    layer computes in float the constant TFLM computes."""
    m = TfliteModel()
    x = m.tensor("input", [1, 8], np.int8, quantization=([0.05], [-3], 0))
    w = m.tensor("w", [4, 8], np.int8, data=np.arange(32).reshape(4, 8) % 7 - 3,
                 quantization=([0.01], [0], 0))
    y = m.tensor("output", [1, 4], np.int8, quantization=([0.02], [127], 0))
    m.operator("FULLY_CONNECTED", [x, w], [y], fully_connected_options("RELU"))
    path = tmp_path / "fc.tflite"
    path.write_bytes(m.build([x], [y]))
    sample = np.arange(-60, 68, 16, dtype=np.int8).reshape(1, 8)
    want = tflite_micro_output(path.read_bytes(), sample)
    compiled = tinyml.compile(str(path), target="host")
    np.testing.assert_array_equal(compiled.run(sample).outputs[0], want)
    assert compiled.report.float_layers


def test_an_int8_concatenation_of_a_constant_matches_tflite_micro(tmp_path):
    m = TfliteModel()
    q = ([0.1], [3], 0)
    x = m.tensor("input", [1, 2, 2, 3], np.int8, quantization=q)
    c = m.tensor("constant", [1, 2, 2, 1], np.int8, data=np.array([-128, -1, 5, 127]).reshape(
        1, 2, 2, 1), quantization=q)
    y = m.tensor("output", [1, 2, 2, 4], np.int8, quantization=q)
    m.operator("CONCATENATION", [x, c], [y], concatenation_options(3))
    path = tmp_path / "concat.tflite"
    path.write_bytes(m.build([x], [y]))
    sample = np.arange(-6, 6, dtype=np.int8).reshape(1, 2, 2, 3)
    want = tflite_micro_output(path.read_bytes(), sample)
    got = tinyml.compile(str(path), target="host").run(sample).outputs[0]
    np.testing.assert_array_equal(got, want)
