"""The ONNX frontend and tinyml-cancel-transposes.

- Every good model of the zoo, the frontend's lit fixtures included, is
  imported and run with a numpy interpreter of the tinyml dialect, before
  and after the clean-up pipeline, against onnxruntime.
- Every kind of bad input gives one clear line: FrontendError from the
  Python API, `tinyml-opt: error: ...` and exit 1 from the driver.
- A tf2onnx-style net (NHWC input + Transpose) and the NCHW version of it
  give the same core IR after the clean-up.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import onnx
import pytest
from mlir import ir
from mlir.dialects import quant

from tinyml import make_context

import frontend_cases
import zoo
from tinyml.frontend import FrontendError, import_onnx
from tinyml.ir.quant import is_per_axis
from tinyml.frontend.onnx import SUPPORTED_OPS
from tinyml.frontend.onnx import FrontendError as OnnxFrontendError
from tinyml import Pipeline

from conftest import cli

CLEANUP = "builtin.module(canonicalize,tinyml-cancel-transposes,canonicalize)"


# ---------------------------------------------------------------------------
# A numpy interpreter of the tinyml dialect (reference semantics of the ops)
# ---------------------------------------------------------------------------

def _ints(op, name, default):
    return list(op.attributes[name]) if name in op.attributes else list(default)


def _float(op, name, default):
    return ir.FloatAttr(op.attributes[name]).value if name in op.attributes else default


def _int(op, name):
    return ir.IntegerAttr(op.attributes[name]).value


def _windows(x, kh, kw, strides, dilations, oh, ow):
    """Yields (ky, kx, x[:, window rows, window cols, :]) for every kernel tap."""
    sh, sw = strides
    dh, dw = dilations
    for ky in range(kh):
        for kx in range(kw):
            yield ky, kx, x[:, ky * dh: ky * dh + (oh - 1) * sh + 1: sh,
                            kx * dw: kx * dw + (ow - 1) * sw + 1: sw, :]


def _pad_hw(x, padding, value=0.0):
    top, left, bottom, right = padding
    return np.pad(x, ((0, 0), (top, bottom), (left, right), (0, 0)), constant_values=value)


def _conv(op, x, w, bias, depthwise):
    strides = _ints(op, "strides", [1, 1])
    dilations = _ints(op, "dilations", [1, 1])
    x = _pad_hw(x, _ints(op, "padding", [0, 0, 0, 0])).astype(np.float64)
    kh, kw = w.shape[:2]
    oh, ow = op.results[0].type.shape[1:3]
    out = np.zeros(op.results[0].type.shape, np.float64)
    for ky, kx, patch in _windows(x, kh, kw, strides, dilations, oh, ow):
        if depthwise:
            c, m = w.shape[2:]
            out += (patch[..., :, None] * w[ky, kx]).reshape(*patch.shape[:3], c * m)
        else:
            out += patch @ w[ky, kx]
    return out + (0 if bias is None else bias)


def _pool(op, x, kind):
    kh, kw = _ints(op, "kernel", [])
    strides = _ints(op, "strides", [1, 1])
    padding = _ints(op, "padding", [0, 0, 0, 0])
    oh, ow = op.results[0].type.shape[1:3]
    if kind == "max":
        xp = _pad_hw(x, padding, -np.inf)
        return np.max([p for _, _, p in _windows(xp, kh, kw, strides, [1, 1], oh, ow)], axis=0)
    total = sum(p for _, _, p in _windows(_pad_hw(x, padding), kh, kw, strides, [1, 1], oh, ow))
    if "count_include_pad" in op.attributes:
        return total / (kh * kw)
    ones = _pad_hw(np.ones_like(x), padding)
    count = sum(p for _, _, p in _windows(ones, kh, kw, strides, [1, 1], oh, ow))
    return total / count


def _softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


_BINARY = {"tinyml.add": np.add, "tinyml.sub": np.subtract, "tinyml.mul": np.multiply,
           "tinyml.div": np.divide, "tinyml.maximum": np.maximum,
           "tinyml.minimum": np.minimum}
_UNARY = {"tinyml.relu": lambda x: np.maximum(x, 0), "tinyml.neg": np.negative,
          "tinyml.exp": np.exp, "tinyml.tanh": np.tanh,
          "tinyml.sigmoid": lambda x: 1 / (1 + np.exp(-x))}
_REDUCE = {"tinyml.reduce_sum": np.sum, "tinyml.reduce_mean": np.mean,
           "tinyml.reduce_max": np.max}


def evaluate(op, args):
    name = op.name
    shape = list(op.results[0].type.shape) if len(op.results) else None
    if name == "arith.constant":
        return np.array(op.attributes["value"]).reshape(shape)
    if name == "tinyml.conv2d" or name == "tinyml.depthwise_conv2d":
        return _conv(op, args[0], args[1], args[2] if len(args) > 2 else None,
                     name == "tinyml.depthwise_conv2d")
    if name == "tinyml.matmul":
        a = args[0].T if "transpose_lhs" in op.attributes else args[0]
        b = args[1].T if "transpose_rhs" in op.attributes else args[1]
        return a.astype(np.float64) @ b + (args[2] if len(args) > 2 else 0)
    if name in _BINARY:
        return _BINARY[name](args[0], args[1])
    if name in _UNARY:
        return _UNARY[name](args[0])
    if name == "tinyml.clamp":
        return np.clip(args[0], _float(op, "min", None), _float(op, "max", None))
    if name == "tinyml.batch_norm":
        x, scale, bias, mean, var = args
        return (x - mean) / np.sqrt(var + _float(op, "epsilon", 1e-5)) * scale + bias
    if name == "tinyml.avg_pool2d":
        return _pool(op, args[0], "avg")
    if name == "tinyml.max_pool2d":
        return _pool(op, args[0], "max")
    if name == "tinyml.global_avg_pool":
        return args[0].mean(axis=(1, 2), keepdims=True)
    if name in _REDUCE:
        return _REDUCE[name](args[0], axis=tuple(_ints(op, "axes", [])),
                             keepdims="keep_dims" in op.attributes)
    if name == "tinyml.softmax":
        return _softmax(args[0], _int(op, "axis"))
    if name == "tinyml.reshape":
        return args[0].reshape(shape)
    if name == "tinyml.transpose":
        return args[0].transpose(_ints(op, "permutation", []))
    if name == "tinyml.pad":
        padding = _ints(op, "padding", [])
        rank = args[0].ndim
        return np.pad(args[0], list(zip(padding[:rank], padding[rank:])),
                      constant_values=_float(op, "value", 0.0))
    if name == "tinyml.concat":
        return np.concatenate(args, axis=_int(op, "axis"))
    if name == "tinyml.slice":
        return args[0][np.ix_(*[o + s * np.arange(n) for o, s, n in zip(
            _ints(op, "offsets", []), _ints(op, "strides", []), shape)])]
    if name == "quant.scast":
        return args[0]
    if name == "tinyml.dequantize":
        scales, zero_points = _quantization(op.operands[0])
        return (args[0] - zero_points) * scales
    if name == "tinyml.quantize":
        # ONNX QuantizeLinear: a float32 division, ties to even, saturation.
        scales, zero_points = _quantization(op.results[0])
        q = np.rint(args[0].astype(np.float32) / scales.astype(np.float32)) + zero_points
        return np.clip(q, -128, 127)
    raise NotImplementedError(name)


def _quantization(value) -> tuple[np.ndarray, np.ndarray]:
    """Scales and zero points of a quantized tensor, shaped to broadcast."""
    shaped = ir.RankedTensorType(value.type)
    element = shaped.element_type
    if is_per_axis(element):
        per_axis = quant.UniformQuantizedPerAxisType(element)
        shape = [1] * shaped.rank
        shape[per_axis.quantized_dimension] = -1
        return (np.reshape(per_axis.scales, shape),
                np.reshape(per_axis.zero_points, shape))
    per_tensor = quant.UniformQuantizedType(element)
    return np.float64(per_tensor.scale), np.int64(per_tensor.zero_point)


def run_module(module: ir.Module, inputs: list[np.ndarray]) -> list[np.ndarray]:
    (fn,) = [op for op in module.body.operations if op.operation.name == "func.func"]
    block = fn.regions[0].blocks[0]
    env = {}
    for arg, value in zip(block.arguments, inputs):
        assert list(arg.type.shape) == list(value.shape)
        env[arg] = value.astype(np.float64)
    for op in block.operations:
        op = op.operation
        args = [env[v] for v in op.operands]
        if op.name == "func.return":
            return [np.asarray(a, np.float32) for a in args]
        result = np.asarray(evaluate(op, args))
        assert list(result.shape) == list(op.results[0].type.shape), op.name
        env[op.results[0]] = result
    raise AssertionError("no return")


def cleaned(module: ir.Module) -> ir.Module:
    Pipeline.parse(CLEANUP).run(module)
    module.operation.verify()
    return module


def ops_of(module: ir.Module) -> list:
    (fn,) = [op for op in module.body.operations if op.operation.name == "func.func"]
    return [op.operation for op in fn.regions[0].blocks[0].operations]


# ---------------------------------------------------------------------------
# Imported models compute what onnxruntime computes
# ---------------------------------------------------------------------------

GOOD_MODELS = [n for n in zoo.names("frontend")
               if not n.startswith("bad_") and n != "conv_grouped"]


def _check_against_onnxruntime(model: onnx.ModelProto, cleanup: bool):
    feeds = zoo.random_inputs(model)
    expected = zoo.reference(model, feeds)
    with make_context():
        module = import_onnx(model)
        if cleanup:
            cleaned(module)
        got = run_module(module, [feeds[i.name] for i in _graph_inputs(model)])
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e.reshape(g.shape), rtol=2e-4, atol=2e-5)


def _graph_inputs(model):
    initializers = {t.name for t in model.graph.initializer}
    return [i for i in model.graph.input if i.name not in initializers]


@pytest.mark.parametrize("cleanup", [False, True], ids=["imported", "cleaned"])
@pytest.mark.parametrize("name", GOOD_MODELS)
def test_test_models_match_onnxruntime(name, cleanup):
    _check_against_onnxruntime(zoo.build(name), cleanup)


@pytest.mark.parametrize("cleanup", [False, True], ids=["imported", "cleaned"])
@pytest.mark.parametrize("name", zoo.names())
def test_zoo_models_match_onnxruntime(name, cleanup):
    _check_against_onnxruntime(zoo.build(name), cleanup)


# ---------------------------------------------------------------------------
# Layout: tf2onnx NHWC+Transpose and NCHW give the same core IR
# ---------------------------------------------------------------------------

def core_ir(module: ir.Module) -> list[str]:
    """The body as text independent of SSA names and constant order, starting
    after the leading layout op (transpose or reshape) of an NCHW input."""
    ops = [op for op in ops_of(module) if op.name != "arith.constant"]
    names: dict = {}
    first = ops[0]
    if first.name in ("tinyml.transpose", "tinyml.reshape") and \
            isinstance(first.operands[0], ir.BlockArgument):
        names[first.results[0]] = "%input"
        ops = ops[1:]

    def name_of(value):
        if isinstance(value, ir.BlockArgument):
            return "%input"
        owner = value.owner.operation
        if owner.name == "arith.constant":
            return f"const({owner.attributes['value']})"
        return names[value]

    lines = []
    for op in ops:
        operands = ", ".join(name_of(v) for v in op.operands)
        attrs = ", ".join(f"{k}={op.attributes[k]}" for k in sorted(op.attributes))
        types = ", ".join(str(r.type) for r in op.results)
        lines.append(f"{op.name}({operands}) {{{attrs}}} -> {types}")
        for i, r in enumerate(op.results):
            names[r] = f"%{len(lines)}.{i}"
    return lines


def _count(module, name):
    return sum(op.name == name for op in ops_of(module))


def test_tf2onnx_and_nchw_give_the_same_core_ir():
    with make_context():
        nhwc = cleaned(import_onnx(zoo.MODELS["dscnn_tf2onnx"]()))
        nchw = cleaned(import_onnx(zoo.MODELS["dscnn_nchw"]()))
        assert _count(nhwc, "tinyml.transpose") == 0
        assert _count(nchw, "tinyml.transpose") == 0   # C=1: the input transpose is a reshape
        assert core_ir(nhwc) == core_ir(nchw)
        assert len(core_ir(nhwc)) == 12  # 11 ops and the return


def test_zoo_style_pair_gives_the_same_core_ir():
    with make_context():
        nhwc = cleaned(import_onnx(zoo.MODELS["style_nhwc_transpose"]()))
        nchw = cleaned(import_onnx(zoo.MODELS["style_nchw"]()))
        assert _count(nhwc, "tinyml.transpose") == 0
        assert _count(nchw, "tinyml.transpose") <= 1
        assert core_ir(nhwc) == core_ir(nchw)


@pytest.mark.parametrize("name, transposes", [("kws_dscnn", 0), ("vww_mobilenet", 0),
                                               ("resnet8", 1), ("fc_autoencoder", 0)])
def test_mlperf_models_keep_only_the_input_transpose(name, transposes):
    with make_context():
        module = cleaned(import_onnx(zoo.MODELS[name]()))
        assert _count(module, "tinyml.transpose") == transposes
        if transposes:
            first = [op for op in ops_of(module) if op.name != "arith.constant"][0]
            assert first.name == "tinyml.transpose"
            assert isinstance(first.operands[0], ir.BlockArgument)


def test_resnet_block_keeps_one_transpose_and_a_residual_add():
    with make_context():
        module = cleaned(import_onnx(zoo.MODELS["resnet_block"]()))
        assert _count(module, "tinyml.transpose") == 1
        assert _count(module, "tinyml.add") == 1


# ---------------------------------------------------------------------------
# The imported function
# ---------------------------------------------------------------------------

def test_function_signature_names_and_batch():
    model = zoo.MODELS["dscnn_tf2onnx"]()
    with make_context():
        module = import_onnx(model, batch=4, name="kws")
        (fn,) = list(module.body.operations)
        assert fn.name.value == "kws"
        assert "llvm.emit_c_interface" in fn.attributes
        assert str(fn.attributes["function_type"]) == \
            "(tensor<4x10x10x1xf32>) -> tensor<4x4xf32>"
        assert str(fn.attributes["arg_attrs"]) == '[{tinyml.name = "input_1"}]'
        assert str(fn.attributes["res_attrs"]) == '[{tinyml.name = "probs"}]'
        assert "sym_visibility" not in fn.attributes  # public


def test_function_named_after_the_sanitized_graph_name():
    with make_context():
        module = import_onnx(zoo.MODELS["dscnn_nchw"]())  # graph "nchw model"
        assert list(module.body.operations)[0].name.value == "nchw_model"


def test_locations_name_the_onnx_nodes():
    with make_context():
        module = import_onnx(zoo.MODELS["dscnn_tf2onnx"]())
        locs = {op.name: str(op.location) for op in ops_of(module)}
        assert '"dense/MatMul"' in locs["tinyml.matmul"] or \
            '"dense/BiasAdd"' in locs["tinyml.matmul"]
        assert '"softmax"' in locs["tinyml.softmax"]
        assert "tf2onnx" in locs["tinyml.softmax"]  # the file (graph) name


def test_import_accepts_path_pathlike_and_proto(tmp_path):
    model = zoo.MODELS["gemm_torch"]()
    path = tmp_path / "m.onnx"
    onnx.save(model, path)
    with make_context():
        texts = {str(import_onnx(m)) for m in (model, path, str(path))}
    assert len(texts) == 1


def test_import_uses_its_own_context_when_none_is_given():
    module = import_onnx(zoo.MODELS["gemm_torch"]())
    assert module.operation.verify()


def test_supported_ops_cover_the_required_list():
    required = {"Conv", "Gemm", "MatMul", "Add", "Sub", "Mul", "Div", "Relu", "Clip",
                "LeakyRelu", "Sigmoid", "Tanh", "HardSigmoid", "HardSwish",
                "BatchNormalization", "AveragePool", "MaxPool", "GlobalAveragePool",
                "ReduceMean", "ReduceSum", "ReduceMax", "Softmax", "Reshape", "Flatten",
                "Transpose", "Squeeze", "Unsqueeze", "Pad", "Concat", "Identity", "Dropout",
                "Constant", "Cast"}
    assert required <= set(SUPPORTED_OPS)
    assert list(SUPPORTED_OPS) == sorted(SUPPORTED_OPS)


def test_weights_are_elided_by_tinyml_opt(tmp_path):
    path = tmp_path / "conv.onnx"
    onnx.save(zoo.MODELS["conv_pads"](), path)
    out = _tinyml_opt(path)
    assert out.returncode == 0
    assert "dense_resource<__elided__> : tensor<3x3x3x4xf32>" in out.stdout
    full = _tinyml_opt(path, "--mlir-elide-elementsattrs-if-larger=1000")
    assert "__elided__" not in full.stdout


# ---------------------------------------------------------------------------
# Bad input: one clear line
# ---------------------------------------------------------------------------

def _tinyml_opt(*args):
    return cli("opt", *args, env={**os.environ, "TINYML_DEBUG": ""})


def _write_bad(tmp_path, kind) -> tuple[Path, str]:
    """A bad input file and a regular expression its error must match."""
    path = tmp_path / f"{kind}.onnx"
    if kind == "not_onnx":
        path.write_text("this is not a model\n" * 10)
        return path, r"not_onnx\.onnx: is not an ONNX model"
    if kind == "empty":
        path.write_bytes(b"")
        return path, r"empty\.onnx: is not an ONNX model \(the file is empty\)"
    if kind == "truncated":
        data = zoo.MODELS["conv_pads"]().SerializeToString()
        path.write_bytes(data[: len(data) // 2])
        return path, r"truncated\.onnx: is a truncated or corrupt ONNX model"
    builders = {
        "unsupported_op": (r"unsupported_op\.onnx: node 'my_erf' \(Erf\): unsupported op; "
                           r"supported ops: Add, AveragePool, BatchNormalization, .*Conv, .*"
                           r"Unsqueeze, com\.microsoft\.QGemm, .*com\.microsoft\.QLinearSigmoid$",
                           "bad_unsupported_op"),
        "dynamic_dim": (r"dynamic_dim\.onnx: input 'x' has a dynamic dimension 2 \('height'\); "
                        r"only the batch dimension \(0\) may be dynamic", "bad_dynamic_dim"),
        "int32_input": (r"int32_input\.onnx: input 'x' has element type INT32; only float32 "
                        r"and int8 are supported", "bad_int_input"),
        "no_outputs": (r"no_outputs\.onnx: the graph has no outputs", "bad_no_outputs"),
        "int64_initializer": (r"node 'add_int' \(Add\): invalid ONNX model: B has "
                              r"inconsistent type tensor\(int64\)", "bad_int_initializer"),
        "grouped_conv": (r"node 'grouped' \(Conv\): grouped convolution \(group=2, 4 "
                         r"channels\) is not supported", "conv_grouped"),
        "int8_add": (r"node 'add_i8' \(Add\): input 'a' is an integer \(i8\) tensor; Add "
                     r"computes on float32 only", "bad_int8_add"),
    }
    pattern, builder = builders[kind]
    onnx.save(zoo.build(builder), path)
    return path, pattern


BAD_KINDS = ["not_onnx", "empty", "truncated", "unsupported_op", "dynamic_dim", "int32_input",
             "no_outputs", "int64_initializer", "grouped_conv", "int8_add"]


@pytest.mark.parametrize("kind", BAD_KINDS)
def test_bad_input_via_tinyml_opt(tmp_path, kind):
    path, pattern = _write_bad(tmp_path, kind)
    out = _tinyml_opt(path)
    assert out.returncode == 1, out.stderr
    assert out.stdout == ""
    lines = out.stderr.splitlines()
    assert len(lines) == 1, out.stderr
    assert "Traceback" not in out.stderr
    assert lines[0].startswith("tinyml-opt: error: ")
    assert re.search(pattern, lines[0]), lines[0]


@pytest.mark.parametrize("kind", BAD_KINDS)
def test_bad_input_via_python_api(tmp_path, kind):
    path, pattern = _write_bad(tmp_path, kind)
    with pytest.raises(FrontendError, match=pattern) as info:
        import_onnx(path)
    assert isinstance(info.value, ValueError)
    assert info.value.__class__ is OnnxFrontendError
    assert "\n" not in str(info.value)


def test_unsupported_op_lists_every_supported_op():
    with pytest.raises(FrontendError) as info:
        import_onnx(zoo.MODELS["bad_unsupported_op"]())
    listed = str(info.value).split("supported ops: ")[1].split(", ")
    assert listed == list(SUPPORTED_OPS)


def test_unsupported_op_in_another_domain_names_the_domain():
    model = zoo.MODELS["bad_unsupported_op"]()
    model.graph.node[1].domain = "com.microsoft"
    model.opset_import.append(onnx.helper.make_opsetid("com.microsoft", 1))
    with pytest.raises(FrontendError, match=r"node 'my_erf' \(com\.microsoft\.Erf\): "
                                            r"unsupported op"):
        import_onnx(model)


def test_dead_unsupported_nodes_are_ignored():
    model = zoo.MODELS["bad_unsupported_op"]()
    model.graph.output[0].name = "r"  # the Erf result is no longer needed
    with make_context():
        module = import_onnx(model)
    assert [op.name for op in ops_of(module)] == ["tinyml.relu", "func.return"]


def test_non_constant_reshape_shape_is_an_error():
    from onnx import helper
    model = frontend_cases.make(
        [helper.make_node("Reshape", ["x", "s"], ["y"], name="dyn_reshape")],
        [frontend_cases.tin("x", [2, 3]), frontend_cases.tin("s", [2], onnx.TensorProto.INT64)],
        [frontend_cases.tout("y")])
    with pytest.raises(FrontendError, match="input 's' has element type INT64"):
        import_onnx(model)


def test_errors_from_later_passes_name_the_node(tmp_path):
    path = tmp_path / "m.onnx"
    onnx.save(zoo.MODELS["conv_pads"](), path)
    with make_context():
        module = import_onnx(path)
        conv = [op for op in ops_of(module) if op.name == "tinyml.conv2d"][0]
        assert str(conv.location) == f'loc("conv"("{path}":0:0))'


def test_symbolic_batch_only_on_dimension_zero():
    model = zoo.MODELS["matmul_add"]()  # x: [unk__0, 8]
    with make_context():
        module = import_onnx(model, batch=3)
        assert "(tensor<3x8xf32>) -> tensor<3x3xf32>" in str(
            list(module.body.operations)[0].attributes["function_type"])


# ---------------------------------------------------------------------------
# tinyml-cancel-transposes preserves what every lit-test function computes
# ---------------------------------------------------------------------------

PASS_TESTS = Path(__file__).resolve().parents[1] / "transforms" / "cancel-transposes"


def _lit_functions():
    for path in sorted(PASS_TESTS.glob("*.mlir")):
        for index, chunk in enumerate(path.read_text().split("// -----")):
            if "func.func" in chunk:
                yield pytest.param(chunk, id=f"{path.stem}-{index}")


LIT_FUNCTIONS = list(_lit_functions())
assert LIT_FUNCTIONS, f"no lit cases found in {PASS_TESTS}"


@pytest.mark.parametrize("source", LIT_FUNCTIONS)
def test_cancel_transposes_preserves_semantics(source):
    rng = np.random.default_rng(0)
    with make_context():
        before = ir.Module.parse(source)
        (fn,) = list(before.body.operations)
        inputs = [rng.standard_normal(list(a.type.shape)).astype(np.float32)
                  for a in fn.regions[0].blocks[0].arguments]
        if any(op.name == "tinyml.batch_norm" for op in ops_of(before)):
            inputs = [np.abs(x) + 0.5 for x in inputs]  # positive variances
        expected = run_module(before, inputs)
        after = ir.Module.parse(source)
        Pipeline.parse("builtin.module(tinyml-cancel-transposes)").run(after)
        after.operation.verify()
        got = run_module(after, inputs)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)


def test_import_uses_the_current_context():
    context = make_context()
    with context:
        module = import_onnx(zoo.MODELS["gemm_torch"]())
    assert module.context is context or module.context == context
