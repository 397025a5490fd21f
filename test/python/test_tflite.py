"""The TFLite frontend: `.tflite` files compile like their tf2onnx `.onnx`.

- Every model of the int8 zoo (test/models/int8: TFLiteConverter's
  `.tflite` and its tf2onnx `.onnx`) imports from the `.tflite` to the same
  IR as from the `.onnx` once both are cleaned up (op for op, compared as a
  graph: the files list independent ops in different orders), and runs
  bit-exact to tflite-micro on the host (the networks on the M4 too).
- The float zoo (test/models/float_tflite: the networks unquantized, with
  their tf2onnx `.onnx`) imports the same way, and it and float models
  written with test/models/tflite_builder.py match tflite-micro to float
  rounding on the host and the M4.
- A dynamic batch (TFLiteConverter's default) compiles at batch 1, or
  `batch`, its shape computation folded at compile time.
- A file is recognised by its content; names come from the file and the
  tensors; bad input (an unsupported operator, activation or type, a
  dynamic dimension other than the batch, several subgraphs, a hybrid model, a corrupt or truncated
  file) is one line and exit code 1.
"""
from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from mlir import ir
from tflite_micro.python.tflite_micro import runtime

import tinyml
from conftest import assert_one_line_error, cli
from tflite_builder import (TfliteModel, add_options, concatenation_options, conv_options,
                            depthwise_options, fully_connected_options, pack_options,
                            pool_options, reducer_options, softmax_options, split_options,
                            strided_slice_options)
from tinyml import make_context
from tinyml import CompileError
from tinyml.frontend import import_onnx
from tinyml.frontend.tflite import import_tflite
from tinyml.pipeline.stages import cleanup

INT8_ZOO = Path(__file__).resolve().parents[1] / "models" / "int8"
FLOAT_ZOO = Path(__file__).resolve().parents[1] / "models" / "float_tflite"
MODELS = sorted(p.stem for p in INT8_ZOO.glob("*.tflite"))
NETWORKS = ["fc_autoencoder", "kws_dscnn", "resnet8", "vww_mobilenet"]
#: Every .tflite of both zoos, with its tf2onnx .onnx beside it.
PAIRS = [INT8_ZOO / f"{name}.tflite" for name in MODELS] + \
    [FLOAT_ZOO / f"{name}.tflite" for name in NETWORKS]


def graph_signature(module: ir.Module) -> tuple[list[str], list[str]]:
    """The function as a graph: each op's name, attributes and types with
    its operands' signatures, whatever the order of independent ops; and
    the returned values' signatures."""
    signatures: dict = {}

    def of(value: ir.Value) -> str:
        if isinstance(value.owner, ir.Block):
            return f"arg{value.arg_number}:{value.type}"
        op = value.owner.operation if isinstance(value.owner, ir.OpView) else value.owner
        return f"{signatures[op]}#{value.result_number}"

    func = module.body.operations[0]
    ops = []
    for op in func.regions[0].blocks[0].operations:
        op = op.operation
        if op.name == "func.return":
            returned = [of(v) for v in op.operands]
            continue
        attributes = sorted(f"{name}={op.attributes[name]}" for name in op.attributes)
        text = f"{op.name}({','.join(of(v) for v in op.operands)}){attributes}" \
               f"->{[str(r.type) for r in op.results]}"
        signatures[op] = hashlib.sha256(text.encode()).hexdigest()[:16]
        ops.append(signatures[op])
    return sorted(ops), returned


def _cleaned(module: ir.Module) -> ir.Module:
    cleanup().run(module)
    return module


@pytest.mark.parametrize("path", PAIRS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_tflite_imports_the_same_ir_as_its_tf2onnx_conversion(path):
    with make_context():
        from_tflite = _cleaned(import_tflite(str(path)))
        from_onnx = _cleaned(import_onnx(str(path.with_suffix(".onnx"))))
        assert "tinyml.transpose" not in str(from_tflite)
        assert graph_signature(from_tflite) == graph_signature(from_onnx)


def _interpreter(data: bytes, arena_size: int | None = None) -> runtime.Interpreter:
    return runtime.Interpreter.from_bytes(data, arena_size=arena_size)


def _run_reference(data: bytes, *inputs: np.ndarray, arena_size: int | None = None) -> np.ndarray:
    """TFLM's first output for the model's inputs, in order."""
    interpreter = _interpreter(data, arena_size)
    for index, value in enumerate(inputs):
        interpreter.set_input(value, index)
    interpreter.invoke()
    return interpreter.get_output(0)


@pytest.mark.parametrize("name", MODELS)
def test_int8_tflite_is_bit_exact_to_tflite_micro(name):
    data = (INT8_ZOO / f"{name}.tflite").read_bytes()
    details = _interpreter(data).get_input_details(0)
    targets = ["host", "cortex-m4"] if name in NETWORKS else ["host"]
    rng = np.random.default_rng(0)
    x = rng.integers(-128, 128, size=details["shape"]).astype(np.int8)
    want = _run_reference(data, x)
    for target in targets:
        got = tinyml.compile(str(INT8_ZOO / f"{name}.tflite"), target=target).run(x).outputs[0]
        assert got.dtype == np.int8
        np.testing.assert_array_equal(got, want, err_msg=target)


@pytest.mark.parametrize("name", NETWORKS)
def test_float_network_tflite_matches_tflite_micro(name):
    """The float zoo (tools/build_int8_zoo.py --float: the same Keras
    networks, unquantized) within float rounding of tflite-micro."""
    data = (FLOAT_ZOO / f"{name}.tflite").read_bytes()
    shape = _interpreter(data).get_input_details(0)["shape"]
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    want = _run_reference(data, x)
    for target in ("host", "cortex-m4"):
        got = tinyml.compile(str(FLOAT_ZOO / f"{name}.tflite"), target=target).run(x).outputs[0]
        assert np.abs(got - want).max() <= 1e-5 * max(1.0, float(np.abs(want).max())), target


def _weights(rng, *shape) -> np.ndarray:
    return (rng.standard_normal(shape) * 0.5).astype(np.float32)


def float_models() -> dict[str, bytes]:
    """Float models of the operators the frontend reads, each a few ops."""
    rng = np.random.default_rng(1)
    models = {}

    m = TfliteModel()
    x = m.tensor("input", [1, 6, 6, 3])
    c = m.tensor("conv", [1, 3, 3, 8])
    d = m.tensor("depthwise", [1, 3, 3, 8])
    y = m.tensor("output", [1, 3, 3, 8])
    m.operator("CONV_2D", [x, m.tensor("w", [8, 3, 3, 3], data=_weights(rng, 8, 3, 3, 3)),
                           m.tensor("b", [8], data=_weights(rng, 8))], [c],
               conv_options("SAME", 2, "RELU6"))
    m.operator("DEPTHWISE_CONV_2D", [c, m.tensor("dw", [1, 3, 3, 8],
                                                 data=_weights(rng, 1, 3, 3, 8)),
                                     m.tensor("db", [8], data=_weights(rng, 8))], [d],
               depthwise_options("SAME", 1, "RELU"))
    m.operator("ADD", [d, c], [y], add_options("RELU_N1_TO_1"))
    models["conv_depthwise_add"] = m.build([x], [y])

    m = TfliteModel()
    x = m.tensor("input", [1, 8, 8, 4])
    a = m.tensor("avg", [1, 4, 4, 4])
    p = m.tensor("max", [1, 4, 4, 4])
    cat = m.tensor("concat", [1, 4, 4, 8])
    mean = m.tensor("mean", [1, 8])
    logits = m.tensor("logits", [1, 5])
    y = m.tensor("output", [1, 5])
    m.operator("AVERAGE_POOL_2D", [x], [a], pool_options(2, 2))
    m.operator("MAX_POOL_2D", [x], [p], pool_options(3, 2, "SAME"))
    m.operator("CONCATENATION", [a, p], [cat], concatenation_options(3))
    m.operator("MEAN", [cat, m.tensor("axes", [2], np.int32, data=[1, 2])], [mean],
               reducer_options(False))
    m.operator("FULLY_CONNECTED", [mean, m.tensor("fw", [5, 8], data=_weights(rng, 5, 8)),
                                   m.tensor("fb", [5], data=_weights(rng, 5))], [logits],
               fully_connected_options("NONE"))
    m.operator("SOFTMAX", [logits], [y], softmax_options())
    models["pool_mean_fc_softmax"] = m.build([x], [y])

    m = TfliteModel()
    x = m.tensor("input", [1, 4, 6])
    t = m.tensor("transposed", [1, 6, 4])
    s = m.tensor("sigmoid", [1, 6, 4])
    h = m.tensor("tanh", [1, 6, 4])
    r = m.tensor("reshaped", [1, 24])
    padded = m.tensor("padded", [1, 26])
    y = m.tensor("output", [1, 26])
    m.operator("TRANSPOSE", [x, m.tensor("perm", [3], np.int32, data=[0, 2, 1])], [t])
    m.operator("LOGISTIC", [t], [s])
    m.operator("TANH", [s], [h])
    m.operator("RESHAPE", [h, m.tensor("shape", [2], np.int32, data=[1, 24])], [r])
    m.operator("PAD", [r, m.tensor("pads", [2, 2], np.int32, data=[[0, 0], [1, 1]])], [padded])
    m.operator("MUL", [padded, m.tensor("scale", [26], data=_weights(rng, 26))], [y])
    models["movement_and_unary"] = m.build([x], [y])

    # Slices computed at run time: Keras's x[:, -1] (a shrunk axis) and one
    # walking backwards in steps of 2.
    m = TfliteModel()
    x = m.tensor("input", [1, 5, 6])
    last = m.tensor("last", [1, 6])
    every_other = m.tensor("every_other", [1, 3, 4])
    flat = m.tensor("flat", [1, 12])
    y = m.tensor("output", [1, 18])

    def ints(name, values):
        return m.tensor(name, [3], np.int32, data=values)
    m.operator("STRIDED_SLICE", [x, ints("b0", [0, -1, 0]), ints("e0", [0, 0, 0]),
                                 ints("s0", [1, 1, 1])], [last],
               strided_slice_options(shrink_axis_mask=2, begin_mask=5, end_mask=5))
    m.operator("STRIDED_SLICE", [x, ints("b1", [0, -1, 1]), ints("e1", [1, -6, 5]),
                                 ints("s1", [1, -2, 1])], [every_other],
               strided_slice_options())
    m.operator("RESHAPE", [every_other, m.tensor("shape", [2], np.int32, data=[1, 12])], [flat])
    m.operator("CONCATENATION", [last, flat], [y], concatenation_options(1))
    models["strided_slices"] = m.build([x], [y])
    # Keras's gates (SPLIT of one matmul) and Conv1D's EXPAND_DIMS.
    m = TfliteModel()
    x = m.tensor("input", [1, 6])
    parts = [m.tensor(f"part{n}", [1, 2]) for n in range(3)]
    last, first = m.tensor("last", [1, 1, 2]), m.tensor("first", [1, 1, 2])
    y = m.tensor("output", [1, 1, 4])
    m.operator("SPLIT", [m.tensor("axis", [], np.int32, data=1), x], parts, split_options(3))
    m.operator("EXPAND_DIMS", [parts[2], m.tensor("at", [], np.int32, data=1)], [last])
    m.operator("EXPAND_DIMS", [parts[0], m.tensor("before", [], np.int32, data=-2)], [first])
    m.operator("CONCATENATION", [last, first], [y], concatenation_options(2))
    models["split_expand_dims"] = m.build([x], [y])
    return models


FLOAT_MODELS = float_models()


@pytest.mark.parametrize("name", sorted(FLOAT_MODELS))
def test_float_tflite_matches_tflite_micro(tmp_path, name):
    data = FLOAT_MODELS[name]
    path = tmp_path / f"{name}.tflite"
    path.write_bytes(data)
    shape = _interpreter(data).get_input_details(0)["shape"]
    x = np.random.default_rng(2).standard_normal(shape).astype(np.float32)
    want = _run_reference(data, x)
    for target in ("host", "cortex-m4"):
        got = tinyml.compile(str(path), target=target).run(x).outputs[0]
        scale = max(1.0, float(np.abs(want).max()))
        assert np.abs(got - want).max() <= 1e-5 * scale, target


@pytest.mark.network
def test_a_tflite_file_is_recognised_by_its_content(tmp_path):
    """Named like anything, a TFLite flatbuffer is read as one; its function
    is named after the file and its arguments after the tensors."""
    path = tmp_path / "keyword_spotter.bin"
    shutil.copy(INT8_ZOO / "kws_dscnn.tflite", path)
    compiled = tinyml.compile(str(path), target="host")
    assert compiled.function == "keyword_spotter"
    assert [t.name for t in compiled.inputs] == ["serving_default_keras_tensor:0"]
    assert compiled.inputs[0].dtype == "int8" and compiled.inputs[0].zero_point == -7


def test_tinyml_opt_prints_the_imported_ir():
    done = cli("opt", INT8_ZOO / "op_conv_relu.tflite")
    assert done.returncode == 0, done.stderr
    assert "func.func @op_conv_relu(%arg0: tensor<1x9x9x3xi8>" in done.stdout
    assert "tinyml.conv2d" in done.stdout and "tinyml.transpose" not in done.stdout


def _bad_models() -> dict[str, tuple[bytes, str]]:
    """Malformed or unsupported models and the one line each gets."""
    def conv_model(**tensor_options) -> TfliteModel:
        m = TfliteModel()
        x = m.tensor("input", [1, 4, 4, 2], **tensor_options)
        y = m.tensor("output", [1, 4, 4, 2])
        m.operator("CONV_2D", [x, m.tensor("w", [2, 1, 1, 2], data=np.ones((2, 1, 1, 2)))],
                   [y], conv_options())
        return m

    cases = {}
    m = TfliteModel()
    x, y = m.tensor("input", [1, 4]), m.tensor("output", [1, 4])
    m.operator("ABS", [x], [y])
    cases["unsupported operator"] = (m.build([x], [y]), r"operator 0 \(ABS\): is not supported")
    cases["dynamic shape"] = (conv_model(signature=[1, 4, -1, 2]).build([0], [2]),
                              r"input 'input': has a dynamic dimension 2 \(shape signature "
                              r"\[1, 4, -1, 2\]\); only the batch dimension \(0\) may be "
                              r"dynamic")
    cases["unsupported type"] = (conv_model(dtype=np.float16).build([0], [2]),
                                 r"input 'input': has element type FLOAT16")
    cases["two subgraphs"] = (conv_model().build([0], [2], subgraphs=2),
                              r"the model has 2 subgraphs; only models with one")
    m = TfliteModel()
    x, y = m.tensor("input", [1, 4, 4, 2]), m.tensor("output", [1, 4, 4, 2])
    m.operator("CONV_2D", [x, m.tensor("w", [2, 1, 1, 2], data=np.ones((2, 1, 1, 2)))], [y],
               conv_options(activation="SIGN_BIT"))
    cases["fused sign bit"] = (m.build([x], [y]),
                               r"operator 0 \(CONV_2D\): fused activation SIGN_BIT is not "
                               r"supported")
    m = TfliteModel()
    x, y = m.tensor("input", [1, 4]), m.tensor("output", [1, 4])
    m.operator("SOFTMAX", [x], [y], softmax_options(beta=2.0))
    cases["unsupported option"] = (m.build([x], [y]),
                                   r"operator 0 \(SOFTMAX\): beta 2.0 is not supported")
    for case, (begin, end, message) in {
            "empty strided slice": ([0, 3, 0], [1, 3, 6], r"operator 0 \(STRIDED_SLICE\): begin "
                                    r"\[0, 3, 0\], end \[1, 3, 6\] and strides \[1, 1, 1\] "
                                    r"select nothing of \[1, 5, 6\]"),
            "short strided slice": ([0, 0], [1, 5], r"operator 0 \(STRIDED_SLICE\): begin "
                                    r"\[0, 0\], end \[1, 5\] and strides \[1, 1, 1\] do "
                                    r"not slice \[1, 5, 6\]")}.items():
        m = TfliteModel()
        x, y = m.tensor("input", [1, 5, 6]), m.tensor("output", [1, 1, 6])
        m.operator("STRIDED_SLICE", [x, m.tensor("b", [len(begin)], np.int32, data=begin),
                                     m.tensor("e", [len(end)], np.int32, data=end),
                                     m.tensor("s", [3], np.int32, data=[1, 1, 1])], [y],
                   strided_slice_options())
        cases[case] = (m.build([x], [y]), message)
    for case, (count, axis, expand_axis, message) in {
            "split of another count": (4, 1, 1, r"operator 0 \(SPLIT\): 4 splits into 3 "
                                       r"outputs of dimension 1 of \[1, 6\]"),
            "split axis out of range": (3, 2, 1, r"operator 0 \(SPLIT\): axis 2 out of range "
                                        r"for rank 2"),
            "expand at another axis": (3, 1, 2, r"operator 1 \(EXPAND_DIMS\): axis 2 of "
                                       r"\[1, 2\] does not give \[1, 1, 2\]")}.items():
        m = TfliteModel()
        x, y = m.tensor("input", [1, 6]), m.tensor("output", [1, 1, 2])
        parts = [m.tensor(f"part{n}", [1, 2]) for n in range(3)]
        m.operator("SPLIT", [m.tensor("axis", [], np.int32, data=axis), x], parts,
                   split_options(count))
        m.operator("EXPAND_DIMS", [parts[0], m.tensor("at", [], np.int32, data=expand_axis)],
                   [y])
        cases[case] = (m.build([x], [y]), message)
    m = TfliteModel()
    x = m.tensor("input", [1, 6])
    parts = [m.tensor(f"part{n}", [1, 3], np.int8, quantization=([0.1], [0], 0))
             for n in range(2)]
    m.operator("SPLIT", [m.tensor("axis", [], np.int32, data=1), x], parts, split_options(2))
    cases["split of another type"] = (m.build([x], parts[:1]), r"operator 0 \(SPLIT\): input "
                                      r"'input' is FLOAT32 and output 'part0' INT8; SPLIT "
                                      r"computes in its input's type")
    kws = (INT8_ZOO / "kws_dscnn.tflite").read_bytes()
    cases["truncated file"] = (kws[:len(kws) // 3], r"corrupt or truncated flatbuffer")
    return cases


BAD_MODELS = _bad_models()


@pytest.mark.parametrize("case", sorted(BAD_MODELS))
def test_bad_tflite_models_are_refused_in_one_line(tmp_path, case):
    data, message = BAD_MODELS[case]
    path = tmp_path / "m.tflite"
    path.write_bytes(data)
    with pytest.raises(CompileError, match=message) as refused:
        tinyml.compile(str(path), target="host")
    assert "\n" not in str(refused.value) and "m.tflite" in str(refused.value)


@pytest.mark.parametrize("case", ["unsupported operator", "truncated file"])
def test_tinyml_compile_refuses_a_bad_tflite_model_with_exit_code_1(tmp_path, case):
    data, message = BAD_MODELS[case]
    (tmp_path / "m.tflite").write_bytes(data)
    done = cli("compile", tmp_path / "m.tflite", "-o", tmp_path / "out")
    assert_one_line_error(done, "compile", "m.tflite")
    assert not (tmp_path / "out").exists()


def test_a_hybrid_model_computes_with_its_weights_dequantized(tmp_path):
    """int8 weights beside float activations (a hybrid model) are
    dequantized at compile time: the model computes in float with the
    weights' real values (TFLite's hybrid kernels, which quantize the
    activations on the fly, are not reproduced)."""
    weights = np.arange(-4, 4, dtype=np.int8).reshape(2, 1, 1, 4)
    m = TfliteModel()
    x, y = m.tensor("input", [1, 3, 3, 4]), m.tensor("output", [1, 3, 3, 2])
    m.operator("CONV_2D", [x, m.tensor("w", [2, 1, 1, 4], np.int8, data=weights,
                                       quantization=([0.5, 0.25], [0, 0], 0))], [y],
               conv_options())
    path = tmp_path / "hybrid.tflite"
    path.write_bytes(m.build([x], [y]))
    inputs = np.random.default_rng(3).standard_normal((1, 3, 3, 4)).astype(np.float32)
    real = weights[:, 0, 0, :].astype(np.float32) * np.array([[0.5], [0.25]], np.float32)
    got = tinyml.compile(str(path), target="host").run(inputs).outputs[0]
    np.testing.assert_allclose(got, inputs @ real.T, rtol=1e-6, atol=1e-6)


def _flatten_model(batch_signature: bool) -> bytes:
    """conv -> Flatten -> dense as TFLiteConverter writes it from a Keras model
    whose batch is dynamic: the new shape of the RESHAPE is computed at run
    time by SHAPE -> STRIDED_SLICE -> PACK from the conv output's batch."""
    rng = np.random.default_rng(7)
    sig = (lambda *dims: [-1, *dims]) if batch_signature else (lambda *dims: None)
    m = TfliteModel()
    x = m.tensor("input", [1, 4, 4, 2], signature=sig(4, 4, 2))
    c = m.tensor("conv", [1, 4, 4, 3], signature=sig(4, 4, 3))
    m.operator("CONV_2D", [x, m.tensor("w", [3, 1, 1, 2], data=_weights(rng, 3, 1, 1, 2))],
               [c], conv_options())
    shape = m.tensor("shape", [4], np.int32)
    m.operator("SHAPE", [c], [shape])
    batch = m.tensor("batch", [], np.int32)
    m.operator("STRIDED_SLICE", [shape, m.tensor("begin", [1], np.int32, data=[0]),
                                 m.tensor("end", [1], np.int32, data=[1]),
                                 m.tensor("strides", [1], np.int32, data=[1])], [batch],
               strided_slice_options(shrink_axis_mask=1))
    new_shape = m.tensor("new_shape", [2], np.int32)
    m.operator("PACK", [batch, m.tensor("rest", [], np.int32, data=48)], [new_shape],
               pack_options(values_count=2, axis=0))
    flat = m.tensor("flat", [1, 48], signature=sig(48))
    m.operator("RESHAPE", [c, new_shape], [flat])
    y = m.tensor("output", [1, 5], signature=sig(5))
    m.operator("FULLY_CONNECTED", [flat, m.tensor("fc", [5, 48], data=_weights(rng, 5, 48))],
               [y], fully_connected_options())
    return m.build([x], [y])


def test_a_dynamic_batch_compiles_at_batch_1_with_its_shape_computation_folded(tmp_path):
    """TFLM runs a dynamic-batch model at batch 1; so does tinyml, with the
    SHAPE -> STRIDED_SLICE -> PACK chain evaluated at compile time (none of
    it in the IR), and the report and header say the batch is dynamic."""
    path = tmp_path / "flat.tflite"
    path.write_bytes(_flatten_model(batch_signature=True))
    x = np.random.default_rng(1).standard_normal((1, 4, 4, 2)).astype(np.float32)
    want = _run_reference(path.read_bytes(), x)
    model = tinyml.compile(str(path), target="cortex-m4")
    got = model.run(x).outputs[0]
    assert np.abs(got - want).max() <= 1e-5 * max(1.0, float(np.abs(want).max()))
    assert model.report.dynamic_batch == 1
    assert "batch dimension is dynamic: this object computes batch 1" in \
        model.artefacts["flat.h"]
    imported = tinyml.compile(str(path), target="host", emit_stages=True).stages["input"]
    assert "tinyml.batch = 1" in imported and "tinyml.reshape" in imported
    assert not re.search(r"shape|slice|pack", imported.split("func.func")[1].split("{")[0])


def test_a_model_with_a_static_batch_has_no_batch_in_its_report(tmp_path):
    path = tmp_path / "flat.tflite"
    path.write_bytes(_flatten_model(batch_signature=False))
    model = tinyml.compile(str(path), target="cortex-m4")
    assert "dynamic_batch" not in model.report.to_json()
    assert "dynamic" not in model.artefacts["flat.h"]


def test_batch_sets_a_dynamic_tflite_batch(tmp_path):
    """`--batch 3` computes three samples, each what batch 1 computes."""
    path = tmp_path / "flat.tflite"
    path.write_bytes(_flatten_model(batch_signature=True))
    x = np.random.default_rng(2).standard_normal((3, 4, 4, 2)).astype(np.float32)
    model = tinyml.compile(str(path), target="host", batch=3)
    assert list(model.inputs[0].shape) == [3, 4, 4, 2] and model.report.dynamic_batch == 3
    got = model.run(x).outputs[0]
    single = tinyml.compile(str(path), target="host")
    want = np.concatenate([single.run(x[i:i + 1]).outputs[0] for i in range(3)])
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_batch_does_not_change_a_static_tflite_model():
    model = tinyml.compile(str(INT8_ZOO / "op_conv.tflite"), target="host", batch=2)
    assert model.inputs[0].shape[0] == 1 and "dynamic_batch" not in model.report.to_json()


def test_an_int32_bias_is_read_as_tflm_reads_it_whatever_its_own_quantization(tmp_path):
    """TFLM's person-detection model gives every conv bias per-channel
    parameters along a dimension the bias does not have; TFLM never reads
    them (the bias's scale is the input's times the filter's), nor does
    tinyml: bit-exact to tflite-micro."""
    rng = np.random.default_rng(11)
    m = TfliteModel()
    x = m.tensor("input", [1, 4, 4, 3], np.int8, quantization=([0.05], [3], 0))
    w = m.tensor("w", [2, 3, 3, 3], np.int8, data=rng.integers(-127, 128, (2, 3, 3, 3)),
                 quantization=([0.01, 0.02], [0, 0], 0))
    b = m.tensor("b", [2], np.int32, data=rng.integers(-500, 500, 2),
                 quantization=([0.7, 0.3], [0, 0], 3))
    y = m.tensor("output", [1, 4, 4, 2], np.int8, quantization=([0.1], [-5], 0))
    m.operator("CONV_2D", [x, w, b], [y], conv_options(activation="RELU"))
    path = tmp_path / "bias.tflite"
    path.write_bytes(m.build([x], [y]))
    sample = rng.integers(-128, 128, (1, 4, 4, 3)).astype(np.int8)
    want = _run_reference(path.read_bytes(), sample)
    for target in ("host", "cortex-m0"):
        got = tinyml.compile(str(path), target=target).run(sample).outputs[0]
        np.testing.assert_array_equal(got, want, err_msg=target)


def test_quantize_rounds_halves_away_from_zero_as_tflite_does(tmp_path):
    """TFLite's QUANTIZE rounds with std::round: x / scale = +-0.5, +-1.5,
    +-2.5 go away from zero, where ONNX's QuantizeLinear goes to even."""
    m = TfliteModel()
    x = m.tensor("input", [1, 8])
    y = m.tensor("output", [1, 8], np.int8, quantization=([0.5], [1], 0))
    m.operator("QUANTIZE", [x], [y])
    path = tmp_path / "quantize.tflite"
    path.write_bytes(m.build([x], [y]))
    ties = np.array([[0.25, -0.25, 0.75, -0.75, 1.25, -1.25, 0.3, -0.3]], np.float32)
    want = _run_reference(path.read_bytes(), ties)
    np.testing.assert_array_equal(want, [[2, 0, 3, -1, 4, -2, 2, 0]])
    for target in ("host", "cortex-m4"):
        got = tinyml.compile(str(path), target=target).run(ties).outputs[0]
        np.testing.assert_array_equal(got, want, err_msg=target)


@pytest.mark.parametrize("rhs_scale", [0.025, 0.03])
@pytest.mark.parametrize("kind", ["ADD", "SUB"])
def test_int8_add_with_power_of_two_scales_is_bit_exact_on_every_pair(tmp_path, kind,
                                                                       rhs_scale):
    """A residual add's scales are often powers of two apart (the output's
    the larger input's): a multiplier is then 2^30, which the lowering
    computes with shifts, no product (the larger input's 1/2, the sum's
    2^-19; with an rhs scale of 0.025 its 1/4 too, with 0.03 the sum is odd
    as often as not, where the rounding of the halving shows). With 0.03
    the result is then a table of the rhs plus the lhs, for every pair
    (`_separable_sum`: a table of 256 int16 in the lowering); with 0.025
    ties make the sum's rounding depend on both, and the arithmetic stays.
    All 65,536 pairs of int8 values, bit for bit to TFLM, with a RELU, on
    the host, the M4 and the M0."""
    m = TfliteModel()
    a = m.tensor("a", [1, 256, 256], np.int8, quantization=([0.05], [3], 0))
    b = m.tensor("b", [1, 256, 256], np.int8, quantization=([rhs_scale], [-7], 0))
    y = m.tensor("y", [1, 256, 256], np.int8, quantization=([0.05], [-20], 0))
    m.operator(kind, [a, b], [y], add_options("RELU", kind.capitalize()))
    path = tmp_path / f"{kind.lower()}_{rhs_scale}.tflite"
    path.write_bytes(m.build([a, b], [y]))
    values = np.arange(-128, 128, dtype=np.int8)
    x = [np.repeat(values, 256).reshape(1, 256, 256), np.tile(values, 256).reshape(1, 256, 256)]
    want = _run_reference(path.read_bytes(), *x, arena_size=1 << 20)
    for target in ("host", "cortex-m4", "cortex-m0"):
        model = tinyml.compile(str(path), target=target, emit_stages=True)
        assert ("tensor<256xi16>" in model.stages["lower-to-linalg"]) == (rhs_scale == 0.03)
        np.testing.assert_array_equal(model.run(*x).outputs[0], want, err_msg=target)


@pytest.mark.parametrize("kind", ["SUB", "MUL"])
def test_int8_sub_and_mul_are_bit_exact_to_tflite_micro(tmp_path, kind):
    """TFLite's integer SUB (the ADD arithmetic, the rhs subtracted) and MUL
    (the offset product rescaled), broadcasting a [1, 1, 1, 4] operand,
    with a fused RELU; on the M0 too."""
    m = TfliteModel()
    a = m.tensor("a", [1, 3, 3, 4], np.int8, quantization=([0.05], [3], 0))
    b = m.tensor("b", [1, 1, 1, 4], np.int8, quantization=([0.02], [-7], 0))
    y = m.tensor("y", [1, 3, 3, 4], np.int8, quantization=([0.03], [-20], 0))
    m.operator(kind, [a, b], [y], add_options("RELU", kind.capitalize()))
    path = tmp_path / f"{kind.lower()}.tflite"
    path.write_bytes(m.build([a, b], [y]))
    rng = np.random.default_rng(4)
    x = [rng.integers(-128, 128, (1, 3, 3, 4)).astype(np.int8),
         rng.integers(-128, 128, (1, 1, 1, 4)).astype(np.int8)]
    want = _run_reference(path.read_bytes(), *x)
    for target in ("host", "cortex-m4", "cortex-m0"):
        model = tinyml.compile(str(path), target=target)
        assert model.report.float_layers == []
        np.testing.assert_array_equal(model.run(*x).outputs[0], want, err_msg=target)


def _fully_connected(path: Path, weights: np.ndarray, bias: np.ndarray,
                     output_scale: float) -> bytes:
    """An int8 FULLY_CONNECTED layer of `weights` ([out, in]) and `bias`,
    per-tensor scales, an input zero point of -5."""
    out, length = weights.shape
    m = TfliteModel()
    x = m.tensor("x", [1, length], np.int8, quantization=([0.05], [-5], 0))
    w = m.tensor("w", [out, length], np.int8, data=weights, quantization=([0.004], [0], 0))
    b = m.tensor("b", [out], np.int32, data=bias, quantization=([0.0002], [0], 0))
    y = m.tensor("y", [1, out], np.int8, quantization=([output_scale], [3], 0))
    m.operator("FULLY_CONNECTED", [x, w, b], [y], fully_connected_options())
    path.write_bytes(m.build([x], [y]))
    return path.read_bytes()


@pytest.mark.parametrize("case", ["byte_pairs", "odd_weight_below_int8", "beyond_24_bits"])
def test_fully_connected_in_byte_pairs_is_bit_exact_to_tflite_micro(tmp_path, case):
    """A matrix-vector product on a DSP core multiplies its weight words as
    loaded (tinyml-contract-to-smlad's byte pairs: an accumulator 256 times
    the sum, shifted back). Weights of every int8 value, inputs at both
    ends and alternating, against TFLM on the host, the M4 and the M7; the
    layer takes the byte-pair form only where it is exact: not with a
    negative even weight before a -128, nor when 256 times a sum could
    leave 32 bits (640 weights of +-127)."""
    rng = np.random.default_rng(7)
    length = 640 if case == "beyond_24_bits" else 64
    if case == "beyond_24_bits":
        weights = rng.choice(np.array([-127, 127], np.int8), (16, length))
    else:
        weights = rng.integers(-128, 128, (16, length)).astype(np.int8)
        weights[:, 0::2] = np.where(weights[:, 1::2] == -128, 3, weights[:, 0::2])
        weights[:4, :8] = [[-1, 127, -128, 127, 0, -128, 127, -127]] * 4
        if case == "odd_weight_below_int8":
            weights[5, 10:12] = [-1, -128]
    bias = rng.integers(-40_000, 40_000, 16).astype(np.int32)
    data = _fully_connected(tmp_path / f"{case}.tflite", weights, bias,
                            0.6 if case == "beyond_24_bits" else 0.08)
    inputs = [np.full((1, length), -128, np.int8), np.full((1, length), 127, np.int8),
              np.resize(np.array([-128, 127], np.int8), (1, length)),
              rng.integers(-128, 128, (1, length)).astype(np.int8)]
    for target in ("host", "cortex-m4", "cortex-m7"):
        model = tinyml.compile(str(tmp_path / f"{case}.tflite"), target=target,
                               emit_stages=True)
        if target != "host":
            assert ("llvm.arm.ssub16" in model.stages["tile-and-vectorize"]) \
                == (case == "byte_pairs"), target
        for x in inputs:
            want = _run_reference(data, x)
            np.testing.assert_array_equal(model.run(x).outputs[0], want, err_msg=target)


@pytest.mark.parametrize("case,kernel,stride", [("byte_pairs", 1, 1), ("byte_pairs", 3, 1),
                                                ("byte_pairs", 3, 2),
                                                ("odd_weight_below_int8", 1, 1)])
def test_conv_in_byte_pairs_is_bit_exact_to_tflite_micro(tmp_path, case, kernel, stride):
    """A conv on a DSP core reads its input window packed into byte pairs
    where it would extend it to int16 (tinyml-contract-to-smlad), when
    every tile reading the window can: a 1x1 conv, a 3x3 conv whose SAME
    padding (the input zero point, 7) is filled with its byte-pair words,
    and one of stride 2 (each pixel of a tile its own chain); per-channel
    weights of every int8 value, inputs at both ends and random, against
    TFLM on the host, the M4 and the M7. One negative even weight before a
    -128 keeps the whole window in the extended form."""
    rng = np.random.default_rng(11)
    weights = rng.integers(-128, 128, (32, kernel, kernel, 16)).astype(np.int8)
    weights[..., 0::2] = np.where(weights[..., 1::2] == -128, 5, weights[..., 0::2])
    weights[:4, 0, 0, :8] = [-1, 127, -128, 127, 0, -128, 127, -127]
    if case == "odd_weight_below_int8":
        weights[9, 0, 0, 2:4] = [-3, -128]
    m = TfliteModel()
    x = m.tensor("x", [1, 5, 5, 16], np.int8, quantization=([0.05], [7], 0))
    w = m.tensor("w", [32, kernel, kernel, 16], np.int8, data=weights,
                 quantization=(list(rng.uniform(0.002, 0.006, 32)), [0] * 32, 0))
    b = m.tensor("b", [32], np.int32, data=rng.integers(-30_000, 30_000, 32),
                 quantization=([0.0002] * 32, [0] * 32, 0))
    side = 5 if stride == 1 else 3
    y = m.tensor("y", [1, side, side, 32], np.int8, quantization=([0.12 * kernel], [-4], 0))
    m.operator("CONV_2D", [x, w, b], [y], conv_options(stride=stride))
    path = tmp_path / f"{case}_{kernel}_{stride}.tflite"
    path.write_bytes(m.build([x], [y]))
    inputs = [np.full((1, 5, 5, 16), -128, np.int8), np.full((1, 5, 5, 16), 127, np.int8),
              rng.integers(-128, 128, (1, 5, 5, 16)).astype(np.int8)]
    for target in ("host", "cortex-m4", "cortex-m7"):
        model = tinyml.compile(str(path), target=target, emit_stages=True)
        if target != "host":
            vectorized = model.stages["tile-and-vectorize"]
            assert ("tinyml.byte_pairs" in vectorized) == (case == "byte_pairs"), target
            assert "arm.smlad" in vectorized
        for value in inputs:
            want = _run_reference(path.read_bytes(), value)
            np.testing.assert_array_equal(model.run(value).outputs[0], want, err_msg=target)


@pytest.mark.parametrize("kernel,padding,stride,width,zero_point", [
    (3, "SAME", 2, 8, 7), (3, "SAME", 2, 7, -128), (3, "VALID", 1, 7, 127),
    (2, "VALID", 2, 8, 7), (3, "SAME", 1, 8, 7)])
def test_window_as_channels_is_bit_exact_to_tflite_micro(tmp_path, kernel, padding, stride,
                                                         width, zero_point):
    """On a DSP core an RGB conv reads its whole window as channels, 27
    values and one more under a zero weight (3x3) or 12 (2x2), extended to
    int16 and staged per pixel tile value by value (the choose-tiles
    configuration, lower_quantized_conv2d, tinyml-stage-window-channels):
    SAME of stride 2 padded right and below (an even width) or on both
    sides (odd), VALID of stride 1 (5 columns: one-pixel tiles) and a 2x2
    conv of stride 2; a padded 3x3 conv of stride 1 takes F(2, 3) rows
    instead (tinyml-winograd-rows). Weights of every int8 value, the zero
    point in the padding (7, the lowest and the highest int8), inputs at
    both ends, alternating and random, against TFLM on the M4 and the M7."""
    rng = np.random.default_rng(43)
    weights = rng.integers(-128, 128, (8, kernel, kernel, 3)).astype(np.int8)
    weights[0] = -128
    weights[1] = np.resize(np.array([127, -128], np.int8), (kernel, kernel, 3))
    m = TfliteModel()
    x = m.tensor("x", [1, 6, width, 3], np.int8, quantization=([0.05], [zero_point], 0))
    w = m.tensor("w", [8, kernel, kernel, 3], np.int8, data=weights,
                 quantization=(list(rng.uniform(0.002, 0.006, 8)), [0] * 8, 0))
    b = m.tensor("b", [8], np.int32, data=rng.integers(-30_000, 30_000, 8),
                 quantization=([0.0002] * 8, [0] * 8, 0))
    side = (lambda n: -(-n // stride)) if padding == "SAME" \
        else (lambda n: (n - kernel) // stride + 1)
    y = m.tensor("y", [1, side(6), side(width), 8], np.int8,
                 quantization=([0.06 * kernel], [-4], 0))
    m.operator("CONV_2D", [x, w, b], [y], conv_options(padding, stride))
    data = m.build([x], [y])
    (tmp_path / "rgb.tflite").write_bytes(data)
    shape = (1, 6, width, 3)
    alternating = np.resize(np.array([127, -128], np.int8), shape)
    values = [np.full(shape, -128, np.int8), np.full(shape, 127, np.int8), alternating,
              rng.integers(-128, 128, shape).astype(np.int8)]
    for target in ("cortex-m4", "cortex-m7"):
        model = tinyml.compile(str(tmp_path / "rgb.tflite"), target=target, emit_stages=True)
        taken = "tinyml.window_as_channels" in model.stages["tile-and-vectorize"]
        assert taken == (padding == "VALID" or stride == 2), target
        for value in values:
            want = _run_reference(data, value)
            np.testing.assert_array_equal(model.run(value).outputs[0], want, err_msg=target)


@pytest.mark.parametrize("stride,zero_point", [(1, 7), (2, -128), (1, 127)])
def test_unsigned_planes_on_the_m0_are_bit_exact_to_tflite_micro(tmp_path, stride, zero_point):
    """On the M0 a depthwise conv stages each channel's padded plane +128
    (XORed by 0x80, its padding the zero point XORed) and starts from its
    bias lowered by 128 sum(w) (tinyml-unsigned-planes). SAME padding
    (the zero point in the padding: 7, the lowest and the highest int8),
    stride 1 and 2, weights of every int8 value (-128 and 127 on one
    channel), biases near their int32 range for the layer, inputs at both
    ends and random, against TFLM."""
    rng = np.random.default_rng(29)
    m = TfliteModel()
    weights = rng.integers(-128, 128, (1, 3, 3, 8)).astype(np.int8)
    weights[0, :, :, 0] = [[-128, 127, -128], [127, -128, 127], [-128, 127, -128]]
    x = m.tensor("x", [1, 7, 6, 8], np.int8, quantization=([0.05], [zero_point], 0))
    w = m.tensor("w", [1, 3, 3, 8], np.int8, data=weights,
                 quantization=(list(rng.uniform(0.002, 0.006, 8)), [0] * 8, 3))
    b = m.tensor("b", [8], np.int32, data=rng.integers(-30_000, 30_000, 8),
                 quantization=([0.0002] * 8, [0] * 8, 0))
    y = m.tensor("y", [1, -(-7 // stride), -(-6 // stride), 8], np.int8,
                 quantization=([0.05], [-4], 0))
    m.operator("DEPTHWISE_CONV_2D", [x, w, b], [y], depthwise_options(stride=stride))
    data = m.build([x], [y])
    (tmp_path / "depthwise.tflite").write_bytes(data)
    model = tinyml.compile(str(tmp_path / "depthwise.tflite"), target="cortex-m0",
                           emit_stages=True)
    assert "arith.xori" in model.stages["tile-and-vectorize"]
    shape = (1, 7, 6, 8)
    for value in [np.full(shape, -128, np.int8), np.full(shape, 127, np.int8),
                  rng.integers(-128, 128, shape).astype(np.int8)]:
        want = _run_reference(data, value)
        np.testing.assert_array_equal(model.run(value).outputs[0], want)


@pytest.mark.parametrize("layer,kernel,stride,channels", [
    ("fc", 1, 1, 16), ("conv", 1, 1, 16), ("conv", 3, 1, 16), ("conv", 3, 2, 16),
    ("conv", 3, 1, 3), ("conv", 4, 1, 1)])
def test_unsigned_weights_on_the_m0_are_bit_exact_to_tflite_micro(tmp_path, layer, kernel,
                                                                   stride, channels):
    """On the M0 an int8 tile of one pixel multiplies its weights stored
    128 higher, one zero-extending load each, from a start 128 sum(x) lower
    (tinyml-unsigned-weights). Weights of every int8 value (-128 and 127 at
    both ends of a tile's channels), biases near their int32 range for the
    layer, inputs at both ends and random, against TFLM: a matrix-vector
    product, 1x1 and 3x3 convs (SAME padding: the input zero point, 7, in
    the sum), stride 2, an RGB-like stem of 3 input channels and a
    one-channel 4x4 one. The convs' input windows are staged unsigned
    (XORed by 0x80, in the order the tile's loops walk them, the bias
    lowered by 128 sum(w)); the matrix-vector product reads its row
    signed."""
    rng = np.random.default_rng(23)
    m = TfliteModel()
    if layer == "fc":
        weights = rng.integers(-128, 128, (32, 64)).astype(np.int8)
        weights[:4, :4] = [[-128, 127, -128, 127]] * 4
        data = _fully_connected(tmp_path / "fc.tflite", weights,
                                rng.integers(-40_000, 40_000, 32).astype(np.int32), 0.08)
        shape = (1, 64)
    else:
        weights = rng.integers(-128, 128, (32, kernel, kernel, channels)).astype(np.int8)
        weights[:4, 0, 0, 0] = [-128, 127, -128, 127]
        # Rows of 5: a 3x3 conv of stride 1 over an even row would take
        # tinyml-winograd-rows' two-pixel tiles instead.
        x = m.tensor("x", [1, 6, 5, channels], np.int8, quantization=([0.05], [7], 0))
        w = m.tensor("w", [32, kernel, kernel, channels], np.int8, data=weights,
                     quantization=(list(rng.uniform(0.002, 0.006, 32)), [0] * 32, 0))
        b = m.tensor("b", [32], np.int32, data=rng.integers(-30_000, 30_000, 32),
                     quantization=([0.0002] * 32, [0] * 32, 0))
        y = m.tensor("y", [1, -(-6 // stride), -(-5 // stride), 32], np.int8,
                     quantization=([0.02 * kernel * (1 + channels // 4)], [-4], 0))
        m.operator("CONV_2D", [x, w, b], [y], conv_options(stride=stride))
        data = m.build([x], [y])
        (tmp_path / "conv.tflite").write_bytes(data)
        shape = (1, 6, 5, channels)
    model = tinyml.compile(str(tmp_path / f"{layer}.tflite"), target="cortex-m0",
                           emit_stages=True)
    assert re.search(r"arith\.extui %\S+ : i8 to i32", model.stages["tile-and-vectorize"])
    assert ("arith.xori" in model.stages["tile-and-vectorize"]) == (layer == "conv")
    for value in [np.full(shape, -128, np.int8), np.full(shape, 127, np.int8),
                  rng.integers(-128, 128, shape).astype(np.int8)]:
        want = _run_reference(data, value)
        np.testing.assert_array_equal(model.run(value).outputs[0], want)


@pytest.mark.parametrize("channels,width,zero_point,kernel_rows,stride_h", [
    (8, 8, 7, 3, 1), (16, 6, -128, 3, 1), (8, 8, 127, 3, 1), (8, 7, 7, 3, 1),
    (1, 8, 7, 3, 1), (3, 6, -128, 3, 1), (1, 10, -19, 5, 2), (5, 4, 127, 5, 1)])
def test_winograd_rows_are_bit_exact_to_tflite_micro(tmp_path, channels, width, zero_point,
                                                     kernel_rows, stride_h):
    """On the M4 a padded conv whose kernel rows are 3 wide, of horizontal
    stride 1 over rows of an even width, is computed two pixels at a time
    by F(2, 3) along each kernel row, in int32 (tinyml-winograd-rows); on
    the M0 and the M3 one of 8 input channels or more: V of the window
    staged, the weights transformed (on the M0 and the M3 stored +384 as
    halfwords, on the M4 in int16 pairs for SMLAD, an odd count of rows
    and channels paired across kernel rows, the last one with zero), each
    output half an exact sum; the others stay direct, and exact.
    SAME padding (the zero point in the padding: 7, the lowest and the
    highest int8); 3x3 over 8 and 16 input channels (the M4's tiles of 4
    output channels; 2 under 8 kernel rows x channels), a one-channel and an
    RGB stem, a 5x3 one of vertical stride 2 (an audio stem) and 5x3 over
    5 channels; weights of every int8 value, with channels whose
    transforms reach their ends (all -128: U = -256, -384; 127 and -128
    alternating: g0 - g1 + g2 = -383), inputs at both ends, alternating
    columns (|V| up to 256) and random, against TFLM. A row of 7 keeps the
    direct tiles (and stays exact)."""
    rng = np.random.default_rng(31)
    weights = rng.integers(-128, 128, (8, kernel_rows, 3, channels)).astype(np.int8)
    weights[0] = -128
    weights[1] = 127
    weights[2, :, 0::2] = -128
    weights[2, :, 1] = 127
    m = TfliteModel()
    x = m.tensor("x", [1, 5, width, channels], np.int8, quantization=([0.05], [zero_point], 0))
    w = m.tensor("w", [8, kernel_rows, 3, channels], np.int8, data=weights,
                 quantization=(list(rng.uniform(0.002, 0.006, 8)), [0] * 8, 0))
    b = m.tensor("b", [8], np.int32, data=rng.integers(-30_000, 30_000, 8),
                 quantization=([0.0002] * 8, [0] * 8, 0))
    y = m.tensor("y", [1, -(-5 // stride_h), width, 8], np.int8, quantization=([2.0], [-4], 0))
    m.operator("CONV_2D", [x, w, b], [y], conv_options(stride_h=stride_h))
    data = m.build([x], [y])
    (tmp_path / "conv.tflite").write_bytes(data)
    shape = (1, 5, width, channels)
    columns = np.resize(np.array([127, -128], np.int8), width)
    values = [np.full(shape, -128, np.int8), np.full(shape, 127, np.int8),
              np.broadcast_to(columns[None, None, :, None], shape).copy(),
              rng.integers(-128, 128, shape).astype(np.int8)]
    rows = kernel_rows * channels
    tile = 2 if rows < 8 else 4  # the M4's output channels a tile (choose-tiles)
    for target, transformed, fewest in [
            ("cortex-m0", f"tensor<2x4x{rows}x4xi16>", 8),
            ("cortex-m3", f"tensor<2x4x{rows}x4xi16>", 8),
            ("cortex-m4", f"tensor<{8 // tile}x4x{(rows + 1) // 2}x{tile}xi32>", 1)]:
        model = tinyml.compile(str(tmp_path / "conv.tflite"), target=target, emit_stages=True)
        taken = transformed in model.stages["tile-and-vectorize"]
        if channels >= fewest or target != "cortex-m3":
            assert taken == (width % 2 == 0 and channels >= fewest), target
        # else the M3's own tile (no DSP: 2 pixels x 4 channels) may be a
        # pixel pair, which the pass takes as it finds it.
        for value in values:
            want = _run_reference(data, value)
            np.testing.assert_array_equal(model.run(value).outputs[0], want, err_msg=target)


@pytest.mark.parametrize("width,padding,stride,zero_point", [
    (8, "SAME", 1, 7), (5, "SAME", 1, -128), (6, "VALID", 1, 127), (7, "VALID", 1, 7),
    (8, "SAME", 2, 7)])
def test_paired_depthwise_taps_are_bit_exact_to_tflite_micro(tmp_path, width, padding, stride,
                                                             zero_point):
    """On a DSP core a depthwise conv of stride 1 takes two pixels of a
    kernel row from one word of input: taps 0 and 2 in one SMLAD, tap 1 in
    an SMLABB or SMLATB (tinyml-pair-depthwise-taps); a row's last pixel of
    an odd count stays in bytes. A padded conv's tile reads its staged
    plane of one channel, whose row is consecutive bytes; an unpadded one
    (VALID) reads its input in place, a channel's bytes 8 apart, and stride
    2 pairs nothing: both are left as they are, and exact. Tiles of 4
    pixels (8 outputs a row, SAME; 4, VALID over 6) and of 5 (5 outputs,
    SAME over 5 and VALID over 7), the zero point in the padding (7, the
    lowest and the highest int8); weights
    of every int8 value (-128 and 127 alternating along a kernel row, all
    -128), inputs at both ends, alternating and random, against TFLM on the
    M4 and the M7."""
    rng = np.random.default_rng(37)
    weights = rng.integers(-128, 128, (1, 3, 3, 8)).astype(np.int8)
    weights[0, :, :, 0] = [[-128, 127, -128], [127, -128, 127], [-128, 127, -128]]
    weights[0, :, :, 1] = -128
    m = TfliteModel()
    x = m.tensor("x", [1, 5, width, 8], np.int8, quantization=([0.05], [zero_point], 0))
    w = m.tensor("w", [1, 3, 3, 8], np.int8, data=weights,
                 quantization=(list(rng.uniform(0.002, 0.006, 8)), [0] * 8, 3))
    b = m.tensor("b", [8], np.int32, data=rng.integers(-30_000, 30_000, 8),
                 quantization=([0.0002] * 8, [0] * 8, 0))
    side = (lambda n: -(-n // stride)) if padding == "SAME" else (lambda n: (n - 3) // stride + 1)
    y = m.tensor("y", [1, side(5), side(width), 8], np.int8, quantization=([0.05], [-4], 0))
    m.operator("DEPTHWISE_CONV_2D", [x, w, b], [y], depthwise_options(padding, stride))
    data = m.build([x], [y])
    (tmp_path / "depthwise.tflite").write_bytes(data)
    shape = (1, 5, width, 8)
    columns = np.resize(np.array([127, -128], np.int8), width)
    values = [np.full(shape, -128, np.int8), np.full(shape, 127, np.int8),
              np.broadcast_to(columns[None, None, :, None], shape).copy(),
              rng.integers(-128, 128, shape).astype(np.int8)]
    for target in ("cortex-m4", "cortex-m7"):
        model = tinyml.compile(str(tmp_path / "depthwise.tflite"), target=target,
                               emit_stages=True)
        paired = stride == 1 and padding == "SAME"
        assert ("llvm.arm.smlatb" in model.stages["lower-to-loops"]) == paired, target
        for value in values:
            want = _run_reference(data, value)
            np.testing.assert_array_equal(model.run(value).outputs[0], want, err_msg=target)
