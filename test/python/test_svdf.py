"""Integer SVDF networks (TFLM's keyword benchmark model's form, built by
test/models/svdf_models.py) and QUANTIZE between integer types against
tflite-micro, bit for bit, on the host, the M4 and the M0; float SVDF
layers within 1e-5; the int16 input and int32 output through the CLI, the
header and `tinyml-run`; and what TFLM's SVDF cannot take, as a one-line
error naming the operator."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tflite_struct
import tinyml
from conftest import assert_one_line_error, cli, tflite_micro_frames, tflite_micro_output
from svdf_models import keyword_svdf
from tflite_builder import TfliteModel, svdf_options

KEYWORD = Path(__file__).resolve().parents[1] / "models" / "recurrent" / "svdf_keyword.tflite"


def _inputs(shape, seed: int, count: int = 3) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.integers(-32768, 32768, shape).astype(np.int16) for _ in range(count)]


@pytest.mark.parametrize("state,rank,batch,layers,seed,targets", [
    (np.int16, 1, 1, 2, 0, ("host", "cortex-m4", "cortex-m0")),
    (np.int8, 2, 2, 2, 1, ("host", "cortex-m4", "cortex-m0")),
    (np.int16, 3, 2, 3, 4, ("host",)),
], ids=["int16 state", "int8 state, rank 2, batch 2", "int16 state, rank 3, 3 layers"])
def test_an_svdf_network_matches_tflite_micro_bit_for_bit(tmp_path, state, rank, batch, layers,
                                                          seed, targets):
    data = keyword_svdf(state=state, rank=rank, batch=batch, layers=layers, seed=seed)
    path = tmp_path / "svdf.tflite"
    path.write_bytes(data)
    inputs = _inputs((batch, 24), seed)
    wants = [tflite_micro_output(data, x) for x in inputs]
    # The outputs vary with the input: a network saturated to a constant
    # would match whatever its layers computed.
    assert len({want.tobytes() for want in wants}) == len(wants)
    for target in targets:
        compiled = tinyml.compile(str(path), target=target)
        assert compiled.report.float_layers == []
        for x, want in zip(inputs, wants):
            got = compiled.run(x).outputs[0]
            assert got.dtype == np.int32 and np.array_equal(got, want), target


def _without_bias(model) -> None:
    graph = model.subgraphs[0]
    svdf = next(op for op in graph.operators if len(op.inputs) == 5)
    svdf.inputs[3] = -1


def _zero_bias(model) -> None:
    graph = model.subgraphs[0]
    svdf = next(op for op in graph.operators if len(op.inputs) == 5)
    bias = graph.tensors[int(svdf.inputs[3])]
    model.buffers[bias.buffer] = bytes(len(model.buffers[bias.buffer] or b""))


def test_an_svdf_without_a_bias_adds_none(tmp_path):
    """TFLM's Prepare reads the bias's scale unchecked and crashes without
    one; tinyml computes an omitted bias as zeros, as TFLite does."""
    results = []
    for name, change in (("none", _without_bias), ("zeros", _zero_bias)):
        path = tmp_path / f"{name}.tflite"
        path.write_bytes(tflite_struct.changed(KEYWORD.read_bytes(), change))
        results.append([tinyml.compile(str(path)).run(x).outputs[0]
                        for x in _inputs((1, 24), 3)])
    assert all(np.array_equal(a, b) for a, b in zip(*results))
    assert tflite_micro_output(tmp_path.joinpath("zeros.tflite").read_bytes(),
                               _inputs((1, 24), 3)[0]).tolist() == results[1][0].tolist()


def _requantize_model(source, result, source_q, result_q) -> bytes:
    m = TfliteModel()
    x = m.tensor("x", [1, 256], source, quantization=source_q)
    y = m.tensor("y", [1, 256], result, quantization=result_q)
    m.operator("QUANTIZE", [x], [y])
    return m.build([x], [y])


@pytest.mark.parametrize("source,result,source_q,result_q", [
    (np.int8, np.int8, ([0.05], [3], 0), ([0.07], [-9], 0)),
    (np.int8, np.int8, ([0.05], [3], 0), ([0.011], [100], 0)),
    (np.int8, np.int16, ([0.05], [-7], 0), ([0.0003], [0], 0)),
    (np.int8, np.int32, ([0.05], [-7], 0), ([0.0001], [5], 0)),
    (np.int16, np.int8, ([0.000625], [0], 0), ([0.0592], [-128], 0)),
    (np.int16, np.int16, ([0.000625], [0], 0), ([0.0011], [0], 0)),
    (np.int16, np.int32, ([1.0 / 65536], [-32768], 0), ([1.0 / 32768], [0], 0)),
], ids=["int8 to int8", "int8 to int8 saturating", "int8 to int16", "int8 to int32",
        "int16 to int8", "int16 to int16", "int16 to int32 (keyword output)"])
def test_an_integer_quantize_is_tflm_requantize(tmp_path, source, result, source_q, result_q):
    """Every int8 value, and random int16 ones, requantized as TFLM's
    reference_ops::Requantize does (fixed point; no float)."""
    data = _requantize_model(source, result, source_q, result_q)
    path = tmp_path / "requantize.tflite"
    path.write_bytes(data)
    x = np.arange(-128, 128, dtype=np.int8).reshape(1, 256) if source == np.int8 \
        else _inputs((1, 256), 7, 1)[0]
    want = tflite_micro_output(data, x)
    for target in ("host", "cortex-m0"):
        got = tinyml.compile(str(path), target=target).run(x).outputs[0]
        assert got.dtype == result and np.array_equal(got, want), target


def test_the_int16_input_and_int32_output_through_the_cli(tmp_path):
    out = tmp_path / "out"
    done = cli("compile", KEYWORD, "-o", out, "--target", "cortex-m4")
    assert done.returncode == 0, done.stderr
    header = (out / "svdf_keyword.h").read_text()
    assert "const int16_t *input" in header and "int32_t *output" in header
    assert "#define TINYML_SVDF_KEYWORD_INPUT0_ZERO_POINT 0" in header
    assert "#define TINYML_SVDF_KEYWORD_OUTPUT0_SCALE 3.0517578125e-05f" in header
    x = _inputs((1, 24), 9, 1)[0]
    np.save(tmp_path / "x.npy", x)
    done = cli("run", out, "--input", tmp_path / "x.npy", "--output", tmp_path / "y.npy")
    assert done.returncode == 0, done.stderr
    got = np.load(tmp_path / "y.npy")
    assert got.dtype == np.int32
    assert np.array_equal(got, tflite_micro_output(KEYWORD.read_bytes(), x))
    # The example firmware on QEMU passes int16 in and int32 out alike.
    done = cli("run", out, "--input", tmp_path / "x.npy", "--output", tmp_path / "q.npy",
               "--emulator", "qemu")
    assert done.returncode == 0, done.stderr
    assert np.array_equal(np.load(tmp_path / "q.npy"), got)
    np.save(tmp_path / "x8.npy", x.astype(np.int8))
    done = cli("run", out, "--input", tmp_path / "x8.npy")
    assert_one_line_error(done, "run", "has dtype int8, the model expects int16")


def _float_svdf(rank: int, activation: str, batch: int) -> bytes:
    rng = np.random.default_rng(rank)
    filters, memory, size = 4 * rank, 5, 6
    m = TfliteModel()
    x = m.tensor("x", [batch, size])
    features = m.tensor("features", [filters, size], data=rng.standard_normal((filters, size)))
    times = m.tensor("times", [filters, memory], data=rng.standard_normal((filters, memory)))
    bias = m.tensor("bias", [4], data=rng.standard_normal(4))
    state = m.tensor("state", [batch, filters * memory], variable=True)
    y = m.tensor("y", [batch, 4])
    m.operator("SVDF", [x, features, times, bias, state], [y], svdf_options(rank, activation))
    return m.build([x], [y])


@pytest.mark.parametrize("rank,activation,batch", [(2, "NONE", 1), (1, "RELU6", 2),
                                                   (3, "TANH", 1)])
def test_a_float_svdf_matches_tflite_micro(tmp_path, rank, activation, batch):
    """EvalFloatSvdfReference: the same sums in float32, then the fused
    activation; one call, and four streamed."""
    data = _float_svdf(rank, activation, batch)
    path = tmp_path / "svdf.tflite"
    path.write_bytes(data)
    rng = np.random.default_rng(0)
    frames = [rng.standard_normal((batch, 6)).astype(np.float32) for _ in range(4)]
    wants = tflite_micro_frames(data, [[x] for x in frames])
    one_call = tinyml.compile(str(path)).run(frames[0]).outputs[0]
    assert np.max(np.abs(one_call - wants[0])) <= 1e-5
    streaming = tinyml.compile(str(path), streaming=True)
    state = np.zeros((batch, 4 * rank * 5), np.float32)
    for k, (x, want) in enumerate(zip(frames, wants)):
        result = streaming.run(x, state)
        assert result.states is not None
        (got,), (state,) = result.outputs, result.states
        assert np.max(np.abs(got - want)) <= 1e-5, k


def _svdf_operator(model):
    graph = model.subgraphs[0]
    return graph, next(op for op in graph.operators if len(op.inputs) == 5)


def _state_zero_point(model) -> None:
    graph, svdf = _svdf_operator(model)
    graph.tensors[int(svdf.inputs[4])].quantization.zero_point = np.array([5], np.int64)


def _rank_three(model) -> None:
    _, svdf = _svdf_operator(model)
    svdf.options.fields["Rank"] = 3


def _per_axis_features(model) -> None:
    graph, svdf = _svdf_operator(model)
    q = graph.tensors[int(svdf.inputs[1])].quantization
    q.scale = np.full(8, q.scale[0], np.float32)
    q.zero_point = np.zeros(8, np.int64)


def _huge_output_multiplier(model) -> None:
    graph, svdf = _svdf_operator(model)
    graph.tensors[int(svdf.outputs[0])].quantization.scale = np.array([1e-20], np.float32)


@pytest.mark.parametrize("change,words", [
    (_state_zero_point, "state 'svdf0/state' is int16 with zero point 5; TFLM's int16 SVDF "
                        "assumes 0"),
    (_rank_three, "shapes do not fit an SVDF of rank 3"),
    (_per_axis_features, "'svdf0/features' must be quantized with one scale and zero point"),
    (_huge_output_multiplier, "the output's rescaling takes a multiplier of"),
], ids=["int16 state zero point", "rank", "per-axis weights", "multiplier"])
def test_an_svdf_tflm_cannot_compute_is_a_one_line_error(tmp_path, change, words):
    path = tmp_path / "svdf.tflite"
    path.write_bytes(tflite_struct.changed(KEYWORD.read_bytes(), change))
    done = cli("compile", path, "-o", tmp_path / "out")
    line = assert_one_line_error(done, "compile", words)
    assert "operator 1 (SVDF)" in line
    assert not (tmp_path / "out").exists()


def test_a_quantize_tflm_does_not_compute_is_a_one_line_error(tmp_path):
    path = tmp_path / "q.tflite"
    path.write_bytes(_requantize_model(np.int16, np.float32, ([0.01], [0], 0), None))
    done = cli("compile", path, "-o", tmp_path / "out")
    assert_one_line_error(done, "compile", "operator 0 (QUANTIZE): input 'x' is INT16 and "
                                           "output 'y' FLOAT32; QUANTIZE takes FLOAT32 to INT8 or "
                                           "INT16")

