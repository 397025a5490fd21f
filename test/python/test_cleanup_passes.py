"""The graph clean-up passes (tinyml-fold-constants, tinyml-simplify,
tinyml-fold-batch-norm) keep the numbers: on every zoo model against
onnxruntime, folded against unfolded batch norms, and the numpy evaluation
of every foldable op against the compiled lowering of the same op."""
from __future__ import annotations

import re

import numpy as np
import pytest

from mlir import ir

import tinyml
from tinyml import Pipeline
import zoo
from tinyml.frontend.onnx import import_onnx
from tinyml.ir.context import make_context

from conftest import TOLERANCE, argmax_rows

LAYOUT = "canonicalize,tinyml-cancel-transposes,canonicalize"
CLEANUP = (LAYOUT + ",tinyml-fold-constants,tinyml-simplify,tinyml-fold-batch-norm,"
           "tinyml-fold-constants,canonicalize")


def imported(model, pipeline: str) -> ir.Module:
    module = import_onnx(model)
    Pipeline.parse(pipeline).run(module)
    assert module.operation.verify()
    return module


def op_counts(module: ir.Module) -> dict[str, int]:
    names = re.findall(r"= (tinyml\.\w+)", str(module))
    return {name: names.count(name) for name in set(names)}


def max_error(got, want) -> float:
    return max((float(np.abs(g - w).max()) if g.size else 0.0) for g, w in zip(got, want))


@pytest.mark.network
@pytest.mark.parametrize("name", zoo.names())
def test_zoo_model_after_cleanup_matches_onnxruntime(name):
    model = zoo.build(name)
    inputs = zoo.random_inputs(model)
    compiled = tinyml.compile(imported(model, CLEANUP))
    got = compiled(*inputs.values())
    want = zoo.reference(model, inputs)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        error = float(np.abs(g - w).max()) if g.size else 0.0
        assert error <= TOLERANCE, f"{name}: max abs error {error:.3g}"
        assert np.array_equal(argmax_rows(g), argmax_rows(w)), f"{name}: argmax"


# Models with a BatchNormalization node, and whether every batch norm folds
# into a contraction (else it becomes mul + add).
BN_MODELS = {"fc_autoencoder": True, "style_bn_unfolded": True, "op_batchnorm": False}


@pytest.mark.parametrize("name", BN_MODELS)
def test_folded_batch_norm_matches_unfolded(name):
    model = zoo.build(name)
    inputs = zoo.random_inputs(model)
    unfolded = imported(model, LAYOUT)
    folded = imported(model, LAYOUT + ",tinyml-fold-batch-norm,canonicalize")
    before, after = op_counts(unfolded), op_counts(folded)
    assert before.get("tinyml.batch_norm", 0) > 0
    assert "tinyml.batch_norm" not in after
    if BN_MODELS[name]:
        # Into the contractions: nothing element-wise was added.
        assert after.get("tinyml.mul", 0) == before.get("tinyml.mul", 0)
        assert after.get("tinyml.add", 0) == before.get("tinyml.add", 0)
    else:
        assert after.get("tinyml.mul", 0) == before.get("tinyml.mul", 0) + 1
    want = zoo.reference(model, inputs)
    got_unfolded = tinyml.compile(unfolded)(*inputs.values())
    got_folded = tinyml.compile(folded)(*inputs.values())
    assert max_error(got_unfolded, want) <= TOLERANCE
    assert max_error(got_folded, want) <= TOLERANCE
    assert max_error(got_folded, got_unfolded) <= TOLERANCE


# ---------------------------------------------------------------------------
# Every foldable op: numpy at compile time vs the compiled lowering
# ---------------------------------------------------------------------------

def tensor(shape) -> str:
    return f"tensor<{'x'.join(map(str, shape))}{'x' if shape else ''}f32>"


def dense(array: np.ndarray) -> str:
    array = np.asarray(array, np.float32)
    return f'arith.constant dense<"0x{array.tobytes().hex().upper()}"> : {tensor(array.shape)}'


def every_op_module(rng) -> str:
    """One function computing every op that fold-constants evaluates, on
    constants only: (result name, op text) lines."""
    def rand(*shape, low=-2.0, high=2.0):
        return rng.uniform(low, high, shape).astype(np.float32)

    constants = {
        "a": rand(2, 3), "b": rand(3), "c": rand(1, 3), "p": rand(2, 3, low=0.5),
        "x": rand(1, 5, 5, 2), "w": rand(3, 3, 2, 3), "b3": rand(3), "dw": rand(3, 3, 2, 2),
        "b4": rand(4), "m": rand(3, 4), "k": rand(4, 5), "kt": rand(5, 4), "mt": rand(4, 3),
        "b5": rand(5), "s2": rand(2), "be2": rand(2), "mu2": rand(2),
        "var2": rand(2, low=0.1),
    }
    a, b, x = tensor([2, 3]), tensor([3]), tensor([1, 5, 5, 2])
    pooled = tensor([1, 3, 3, 2])
    window = "kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>"
    ops = [
        (f"tinyml.add %a, %b : ({a}, {b}) -> {a}", a),
        (f"tinyml.sub %b, %a : ({b}, {a}) -> {a}", a),
        (f"tinyml.mul %a, %b : ({a}, {b}) -> {a}", a),
        (f"tinyml.div %a, %p : ({a}, {a}) -> {a}", a),
        (f"tinyml.maximum %a, %b : ({a}, {b}) -> {a}", a),
        (f"tinyml.minimum %a, %b : ({a}, {b}) -> {a}", a),
        (f"tinyml.neg %a : {a}", a),
        (f"tinyml.exp %a : {a}", a),
        (f"tinyml.relu %a : {a}", a),
        (f"tinyml.sigmoid %a : {a}", a),
        (f"tinyml.tanh %a : {a}", a),
        (f"tinyml.clamp %a {{min = -0.5 : f32, max = 0.5 : f32}} : {a}", a),
        (f"tinyml.batch_norm %x, %s2, %be2, %mu2, %var2 {{epsilon = 1.0e-3 : f32}} : "
         f"({x}, {tensor([2])}, {tensor([2])}, {tensor([2])}, {tensor([2])}) -> {x}", x),
        (f"tinyml.matmul %m, %k, %b5 : ({tensor([3, 4])}, {tensor([4, 5])}, {tensor([5])}) "
         f"-> {tensor([3, 5])}", tensor([3, 5])),
        (f"tinyml.matmul %m, %kt {{transpose_rhs}} : ({tensor([3, 4])}, {tensor([5, 4])}) "
         f"-> {tensor([3, 5])}", tensor([3, 5])),
        (f"tinyml.matmul %mt, %k {{transpose_lhs}} : ({tensor([4, 3])}, {tensor([4, 5])}) "
         f"-> {tensor([3, 5])}", tensor([3, 5])),
        (f"tinyml.conv2d %x, %w, %b3 {{strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>}}"
         f" : ({x}, {tensor([3, 3, 2, 3])}, {tensor([3])}) -> {tensor([1, 3, 3, 3])}",
         tensor([1, 3, 3, 3])),
        (f"tinyml.conv2d %x, %w {{dilations = array<i64: 2, 2>, padding = array<i64: 0, 1, 2, 1>}}"
         f" : ({x}, {tensor([3, 3, 2, 3])}) -> {tensor([1, 3, 3, 3])}", tensor([1, 3, 3, 3])),
        (f"tinyml.depthwise_conv2d %x, %dw, %b4 {{padding = array<i64: 1, 1, 1, 1>}} : "
         f"({x}, {tensor([3, 3, 2, 2])}, {tensor([4])}) -> {tensor([1, 5, 5, 4])}",
         tensor([1, 5, 5, 4])),
        (f"tinyml.max_pool2d %x {{{window}}} : ({x}) -> {pooled}", pooled),
        (f"tinyml.avg_pool2d %x {{{window}}} : ({x}) -> {pooled}", pooled),
        (f"tinyml.avg_pool2d %x {{{window}, count_include_pad}} : ({x}) -> {pooled}", pooled),
        (f"tinyml.global_avg_pool %x : ({x}) -> {tensor([1, 1, 1, 2])}", tensor([1, 1, 1, 2])),
        (f"tinyml.reduce_sum %a {{axes = array<i64: 1>, keep_dims}} : ({a}) -> {tensor([2, 1])}",
         tensor([2, 1])),
        (f"tinyml.reduce_mean %x {{axes = array<i64: 1, 2>}} : ({x}) -> {tensor([1, 2])}",
         tensor([1, 2])),
        (f"tinyml.reduce_max %a {{axes = array<i64: 0>}} : ({a}) -> {b}", b),
        (f"tinyml.softmax %a {{axis = 1 : i64}} : {a}", a),
        (f"tinyml.transpose %x {{permutation = array<i64: 0, 3, 1, 2>}} : ({x}) -> "
         f"{tensor([1, 2, 5, 5])}", tensor([1, 2, 5, 5])),
        (f"tinyml.reshape %a : ({a}) -> {tensor([3, 2])}", tensor([3, 2])),
        (f"tinyml.pad %a {{padding = array<i64: 1, 0, 0, 2>, value = 0.5 : f32}} : ({a}) -> "
         f"{tensor([3, 5])}", tensor([3, 5])),
        (f"tinyml.concat %a, %c {{axis = 0 : i64}} : ({a}, {tensor([1, 3])}) -> {tensor([3, 3])}",
         tensor([3, 3])),
    ]
    lines = [f"    %{name} = {dense(array)}" for name, array in constants.items()]
    lines += [f"    %r{i} = {text}" for i, (text, _) in enumerate(ops)]
    results = ", ".join(f"%r{i}" for i in range(len(ops)))
    types = ", ".join(t for _, t in ops)
    return (f"func.func @every_op() -> ({types}) attributes {{llvm.emit_c_interface}} {{\n"
            + "\n".join(lines) + f"\n    return {results} : {types}\n}}\n")


def test_folded_ops_match_their_lowering():
    text = every_op_module(np.random.default_rng(7))
    with make_context() as context:
        lowered = ir.Module.parse(text, context)
        folded = ir.Module.parse(text, context)
        Pipeline.parse("tinyml-fold-constants,canonicalize").run(folded)
        assert not op_counts(folded), f"left unfolded: {op_counts(folded)}"
        assert op_counts(lowered)  # the unfolded module really computes
        want = tinyml.compile(lowered)()
        got = tinyml.compile(folded)()
    assert len(got) == len(want) == 31
    for i, (g, w) in enumerate(zip(got, want)):
        assert g.shape == w.shape, f"result {i}"
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5, err_msg=f"result {i}")


# ---------------------------------------------------------------------------
# simplify keeps the numbers
# ---------------------------------------------------------------------------

SIMPLIFIABLE = """
func.func @simplifiable(%x: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>) attributes {llvm.emit_c_interface} {
  %one = arith.constant dense<1.0> : tensor<1xf32>
  %zero = arith.constant dense<0.0> : tensor<8xf32>
  %minus_one = arith.constant dense<-1.0> : tensor<1xf32>
  %0 = tinyml.mul %x, %one : (tensor<2x8xf32>, tensor<1xf32>) -> tensor<2x8xf32>
  %1 = tinyml.add %zero, %0 : (tensor<8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %2 = tinyml.sub %1, %zero : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  %3 = tinyml.div %2, %one : (tensor<2x8xf32>, tensor<1xf32>) -> tensor<2x8xf32>
  %4 = tinyml.neg %3 : tensor<2x8xf32>
  %5 = tinyml.neg %4 : tensor<2x8xf32>
  %6 = tinyml.relu %5 : tensor<2x8xf32>
  %7 = tinyml.relu %6 : tensor<2x8xf32>
  %8 = tinyml.clamp %7 {min = -1.0 : f32, max = 6.0 : f32} : tensor<2x8xf32>
  %9 = tinyml.clamp %x {min = -2.0 : f32, max = 3.0 : f32} : tensor<2x8xf32>
  %10 = tinyml.relu %9 : tensor<2x8xf32>
  %11 = tinyml.clamp %x {min = -1.0 : f32, max = 6.0 : f32} : tensor<2x8xf32>
  %12 = tinyml.clamp %11 {min = -3.0 : f32, max = 4.0 : f32} : tensor<2x8xf32>
  %13 = tinyml.sub %zero, %x : (tensor<8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %14 = tinyml.mul %minus_one, %9 : (tensor<1xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %3, %8, %10, %12, %13, %14 : tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>
}
"""


def test_simplify_keeps_the_numbers():
    x = (np.random.default_rng(3).standard_normal((2, 8)) * 5).astype(np.float32)
    with make_context() as context:
        plain = ir.Module.parse(SIMPLIFIABLE, context)
        simple = ir.Module.parse(SIMPLIFIABLE, context)
        Pipeline.parse("tinyml-simplify,canonicalize").run(simple)
        assert op_counts(simple) == {"tinyml.clamp": 4, "tinyml.neg": 2}
        want = tinyml.compile(plain)(x)
        got = tinyml.compile(simple)(x)
    assert len(got) == len(want) == 6
    np.testing.assert_array_equal(got[0], x)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_options_print_and_parse():
    pipeline = Pipeline.parse("tinyml-fold-constants{max-elements=16},"
                              "tinyml-fold-batch-norm{decompose=false},tinyml-simplify")
    assert str(pipeline) == ("builtin.module(tinyml-fold-constants{max-elements=16},"
                             "tinyml-fold-batch-norm{decompose=false},tinyml-simplify)")
    assert str(Pipeline.parse(CLEANUP)).count("tinyml-fold-constants") == 2
