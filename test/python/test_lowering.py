"""Every tinyml op lowered to linalg, compiled for the host and run against a
numpy reference. The tinyml IR is written by hand."""
from __future__ import annotations

import numpy as np
import pytest
from mlir import ir

import tinyml
from tinyml import RunError, compile
from tinyml.conversion import linalg_builders
from tinyml.conversion import lower_to_linalg as lowering

RNG = np.random.default_rng(0)


def ttype(shape) -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + "f32>"


def run(body: str, inputs: list[np.ndarray], outputs: list[tuple]) -> list[np.ndarray]:
    """Wraps `body` (which uses %a0, %a1, ... and yields %r0, %r1, ...) in a
    function, compiles it for the host and runs it on `inputs`."""
    args = ", ".join(f"%a{i}: {ttype(x.shape)}" for i, x in enumerate(inputs))
    results = ", ".join(ttype(s) for s in outputs)
    returns = ", ".join(f"%r{i}" for i in range(len(outputs)))
    text = (f"func.func @f({args}) -> ({results}) {{\n{body}\n"
            f"  return {returns} : {results}\n}}\n")
    with tinyml.make_context() as context:
        module = ir.Module.parse(text, context)
    compiled = compile(module)
    got = compiled(*inputs)
    for value, shape in zip(got, outputs):
        assert value.shape == tuple(shape)
    return got


def run_op(op: str, inputs: list[np.ndarray], result_shape, attrs: str = "") -> np.ndarray:
    """Runs the one op `%r0 = tinyml.<op> %a0, %a1, ... <attrs>` on `inputs`."""
    operands = ", ".join(f"%a{i}" for i in range(len(inputs)))
    types = ", ".join(ttype(x.shape) for x in inputs)
    body = f"  %r0 = tinyml.{op} {operands} {attrs} : ({types}) -> {ttype(result_shape)}"
    (got,) = run(body, inputs, [result_shape])
    return got


def rand(*shape, low=-1.0, high=1.0) -> np.ndarray:
    return RNG.uniform(low, high, size=shape).astype(np.float32)


def close(got, want, tol=1e-5):
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


# ---------------------------------------------------------------------------
# numpy references
# ---------------------------------------------------------------------------

def ref_pad_nhwc(x, padding, value=0.0):
    top, left, bottom, right = padding
    return np.pad(x, [(0, 0), (top, bottom), (left, right), (0, 0)], constant_values=value)


def ref_conv(x, w, b, strides=(1, 1), dilations=(1, 1), padding=(0, 0, 0, 0)):
    xp = ref_pad_nhwc(x, padding)
    n, h, wd, c = xp.shape
    kh, kw, _, f = w.shape
    sh, sw = strides
    dh, dw = dilations
    oh = (h - (kh - 1) * dh - 1) // sh + 1
    ow = (wd - (kw - 1) * dw - 1) // sw + 1
    y = np.zeros((n, oh, ow, f), np.float64)
    for i in range(kh):
        for j in range(kw):
            patch = xp[:, i * dh: i * dh + (oh - 1) * sh + 1: sh,
                       j * dw: j * dw + (ow - 1) * sw + 1: sw, :]
            y += np.einsum("nhwc,cf->nhwf", patch, w[i, j])
    if b is not None:
        y += b
    return y.astype(np.float32)


def ref_depthwise(x, w, b, strides=(1, 1), dilations=(1, 1), padding=(0, 0, 0, 0)):
    kh, kw, c, m = w.shape
    # A depthwise conv is a conv whose filter is block-diagonal.
    full = np.zeros((kh, kw, c, c * m), np.float32)
    for ci in range(c):
        full[:, :, ci, ci * m:(ci + 1) * m] = w[:, :, ci, :]
    return ref_conv(x, full, b, strides, dilations, padding)


def ref_pool(x, kernel, strides, padding, reducer, pad_value):
    xp = ref_pad_nhwc(x, padding, pad_value)
    n, h, w, c = xp.shape
    oh = (h - kernel[0]) // strides[0] + 1
    ow = (w - kernel[1]) // strides[1] + 1
    y = np.zeros((n, oh, ow, c), np.float32)
    for i in range(oh):
        for j in range(ow):
            window = xp[:, i * strides[0]:i * strides[0] + kernel[0],
                        j * strides[1]:j * strides[1] + kernel[1], :]
            y[:, i, j, :] = reducer(window)
    return y


def ref_avg_pool(x, kernel, strides, padding, include_pad):
    sums = ref_pool(x, kernel, strides, padding, lambda w: w.sum(axis=(1, 2)), 0.0)
    if include_pad:
        return sums / (kernel[0] * kernel[1])
    counts = ref_pool(np.ones_like(x), kernel, strides, padding, lambda w: w.sum(axis=(1, 2)), 0.0)
    return sums / counts


def attrs_conv(strides, dilations, padding):
    return (f"{{strides = array<i64: {strides[0]}, {strides[1]}>, "
            f"dilations = array<i64: {dilations[0]}, {dilations[1]}>, "
            f"padding = array<i64: {', '.join(map(str, padding))}>}}")


# ---------------------------------------------------------------------------
# Convolutions and matmul
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("strides,dilations,padding,bias", [
    ((1, 1), (1, 1), (0, 0, 0, 0), True),
    ((1, 1), (1, 1), (1, 1, 1, 1), True),
    ((2, 2), (1, 1), (1, 1, 1, 1), False),
    ((2, 1), (1, 1), (0, 1, 2, 1), True),
    ((1, 1), (2, 2), (2, 2, 2, 2), True),
    ((2, 2), (2, 1), (1, 0, 1, 2), True),
])
def test_conv2d(strides, dilations, padding, bias):
    x, w, b = rand(1, 7, 6, 3), rand(3, 3, 3, 4), rand(4)
    want = ref_conv(x, w, b if bias else None, strides, dilations, padding)
    inputs = [x, w, b] if bias else [x, w]
    got = run_op("conv2d", inputs, want.shape, attrs_conv(strides, dilations, padding))
    close(got, want)


@pytest.mark.parametrize("m", [1, 2])
@pytest.mark.parametrize("strides,dilations,padding,bias", [
    ((1, 1), (1, 1), (1, 1, 1, 1), True),
    ((2, 2), (1, 1), (0, 0, 1, 1), False),
    ((1, 2), (2, 1), (2, 1, 2, 1), True),
])
def test_depthwise_conv2d(m, strides, dilations, padding, bias):
    c = 3
    x, w, b = rand(1, 6, 7, c), rand(3, 3, c, m), rand(c * m)
    want = ref_depthwise(x, w, b if bias else None, strides, dilations, padding)
    inputs = [x, w, b] if bias else [x, w]
    got = run_op("depthwise_conv2d", inputs, want.shape, attrs_conv(strides, dilations, padding))
    close(got, want)


@pytest.mark.parametrize("trans_lhs", [False, True])
@pytest.mark.parametrize("trans_rhs", [False, True])
@pytest.mark.parametrize("bias", [False, True])
def test_matmul(trans_lhs, trans_rhs, bias):
    m, k, n = 3, 5, 4
    lhs = rand(k, m) if trans_lhs else rand(m, k)
    rhs = rand(n, k) if trans_rhs else rand(k, n)
    b = rand(n)
    want = (lhs.T if trans_lhs else lhs) @ (rhs.T if trans_rhs else rhs) + (b if bias else 0)
    inputs = [lhs, rhs, b] if bias else [lhs, rhs]
    flags = [name for name, on in (("transpose_lhs", trans_lhs), ("transpose_rhs", trans_rhs)) if on]
    attrs = f"{{{', '.join(flags)}}}" if flags else ""
    got = run_op("matmul", inputs, (m, n), attrs)
    close(got, want)


# ---------------------------------------------------------------------------
# Element-wise
# ---------------------------------------------------------------------------

BINARIES = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
    "maximum": np.maximum, "minimum": np.minimum,
}


@pytest.mark.parametrize("op", sorted(BINARIES))
@pytest.mark.parametrize("lhs_shape,rhs_shape", [
    ((2, 3, 4), (2, 3, 4)),
    ((2, 1, 4), (3, 1)),
    ((4,), (2, 3, 4)),
    ((1, 1), (2, 3)),
    ((2, 3, 1, 5), (1, 3, 4, 1)),
    ((), (2, 2)),
])
def test_binary(op, lhs_shape, rhs_shape):
    lhs, rhs = rand(*lhs_shape), rand(*rhs_shape)
    if op == "div":
        rhs = np.where(np.abs(rhs) < 0.1, 0.5, rhs).astype(np.float32)
    want = BINARIES[op](lhs, rhs)
    got = run_op(op, [lhs, rhs], want.shape)
    close(got, want)


UNARIES = {
    "neg": lambda x: -x,
    "exp": np.exp,
    "relu": lambda x: np.maximum(x, 0),
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "tanh": np.tanh,
}


@pytest.mark.parametrize("op", sorted(UNARIES))
def test_unary(op):
    x = rand(2, 3, 5, low=-4, high=4)
    body = f"  %r0 = tinyml.{op} %a0 : {ttype(x.shape)}"
    (got,) = run(body, [x], [x.shape])
    close(got, UNARIES[op](x.astype(np.float64)))


@pytest.mark.parametrize("low,high", [(0.0, 6.0), (-0.5, 0.25)])
def test_clamp(low, high):
    x = rand(4, 7, low=-8, high=8)
    body = f"  %r0 = tinyml.clamp %a0 {{min = {low} : f32, max = {high} : f32}} : {ttype(x.shape)}"
    (got,) = run(body, [x], [x.shape])
    close(got, np.clip(x, low, high))


def test_relu_keeps_nan_and_uses_no_maximumf():
    x = np.array([[-1.0, np.nan, 2.0, 0.0]], np.float32)
    (got,) = run(f"  %r0 = tinyml.relu %a0 : {ttype(x.shape)}", [x], [x.shape])
    assert got[0, 0] == 0 and np.isnan(got[0, 1]) and got[0, 2] == 2 and got[0, 3] == 0


@pytest.mark.parametrize("epsilon", [None, 1e-3])
def test_batch_norm(epsilon):
    x = rand(1, 3, 4, 5)
    scale, bias, mean = rand(5), rand(5), rand(5)
    var = rand(5, low=0.1, high=2.0)
    eps = 1e-5 if epsilon is None else epsilon
    want = (x - mean) / np.sqrt(var + eps) * scale + bias
    attrs = f"{{epsilon = {epsilon} : f32}}" if epsilon is not None else ""
    got = run_op("batch_norm", [x, scale, bias, mean, var], x.shape, attrs)
    close(got, want)


# ---------------------------------------------------------------------------
# Pooling and reductions
# ---------------------------------------------------------------------------

POOLS = [
    ((2, 2), (2, 2), (0, 0, 0, 0)),
    ((3, 3), (1, 1), (1, 1, 1, 1)),
    ((3, 3), (2, 2), (1, 1, 1, 1)),
    ((3, 2), (2, 1), (0, 1, 2, 0)),
]


def pool_attrs(kernel, strides, padding, extra=""):
    return (f"{{kernel = array<i64: {kernel[0]}, {kernel[1]}>, "
            f"strides = array<i64: {strides[0]}, {strides[1]}>, "
            f"padding = array<i64: {', '.join(map(str, padding))}>{extra}}}")


@pytest.mark.parametrize("kernel,strides,padding", POOLS)
@pytest.mark.parametrize("include_pad", [False, True])
def test_avg_pool2d(kernel, strides, padding, include_pad):
    x = rand(1, 7, 6, 3)
    want = ref_avg_pool(x, kernel, strides, padding, include_pad)
    attrs = pool_attrs(kernel, strides, padding, ", count_include_pad" if include_pad else "")
    got = run_op("avg_pool2d", [x], want.shape, attrs)
    close(got, want)


@pytest.mark.parametrize("kernel,strides,padding", POOLS)
def test_max_pool2d(kernel, strides, padding):
    x = rand(1, 7, 6, 3) - 2.0  # all negative: padding must never win
    want = ref_pool(x, kernel, strides, padding, lambda w: w.max(axis=(1, 2)), -np.inf)
    got = run_op("max_pool2d", [x], want.shape, pool_attrs(kernel, strides, padding))
    close(got, want)


def test_global_avg_pool():
    x = rand(2, 5, 4, 3)
    want = x.mean(axis=(1, 2), keepdims=True)
    got = run_op("global_avg_pool", [x], want.shape)
    close(got, want)


REDUCERS = {"reduce_sum": np.sum, "reduce_mean": np.mean, "reduce_max": np.max}


@pytest.mark.parametrize("op", sorted(REDUCERS))
@pytest.mark.parametrize("axes", [(0,), (1,), (2,), (0, 2), (1, 2), (0, 1, 2)])
@pytest.mark.parametrize("keep_dims", [False, True])
def test_reduce(op, axes, keep_dims):
    x = rand(2, 3, 4)
    want = REDUCERS[op](x, axis=axes, keepdims=keep_dims)
    attrs = f"{{axes = array<i64: {', '.join(map(str, axes))}>{', keep_dims' if keep_dims else ''}}}"
    got = run_op(op, [x], want.shape, attrs)
    close(got, want)


@pytest.mark.parametrize("shape,axis", [((2, 5), 1), ((2, 5), 0), ((2, 3, 4), 1), ((7,), 0)])
def test_softmax(shape, axis):
    x = rand(*shape, low=-5, high=5)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    want = e / e.sum(axis=axis, keepdims=True)
    body = f"  %r0 = tinyml.softmax %a0 {{axis = {axis}}} : {ttype(x.shape)}"
    (got,) = run(body, [x], [x.shape])
    close(got, want)


# ---------------------------------------------------------------------------
# Data movement
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("src,dst", [
    ((2, 3, 4), (6, 4)),        # collapse
    ((2, 3, 4), (2, 12)),
    ((1, 1, 1, 8), (1, 8)),
    ((24,), (2, 3, 4)),         # expand
    ((1, 8), (1, 1, 1, 8)),
    ((2, 3, 4), (4, 6)),        # no reassociation: collapse + expand
    ((2, 6), (3, 4)),
    ((2, 3, 4), (3, 2, 4)),
    ((1, 1), ()),               # rank 0
    ((), (1, 1, 1)),
])
def test_reshape(src, dst):
    x = rand(*src)
    got = run_op("reshape", [x], dst)
    close(got, x.reshape(dst))


@pytest.mark.parametrize("perm", [(1, 0, 2), (2, 0, 1), (0, 3, 1, 2), (0, 2, 3, 1)])
def test_transpose(perm):
    x = rand(*(2, 3, 4, 5)[:len(perm)])
    want = np.transpose(x, perm)
    attrs = f"{{permutation = array<i64: {', '.join(map(str, perm))}>}}"
    got = run_op("transpose", [x], want.shape, attrs)
    close(got, want)


@pytest.mark.parametrize("pads,value", [((0, 1, 2, 0, 1, 0), 0.0), ((1, 0, 0, 2, 3, 1), -2.5)])
def test_pad(pads, value):
    x = rand(2, 3, 4)
    want = np.pad(x, list(zip(pads[:3], pads[3:])), constant_values=value)
    attrs = f"{{padding = array<i64: {', '.join(map(str, pads))}>, value = {value} : f32}}"
    got = run_op("pad", [x], want.shape, attrs)
    close(got, want)


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_concat(axis):
    shapes = [[2, 3, 4], [2, 3, 4], [2, 3, 4]]
    for i, shape in enumerate(shapes):
        shape[axis] = i + 1
    xs = [rand(*s) for s in shapes]
    want = np.concatenate(xs, axis=axis)
    got = run_op("concat", xs, want.shape, f"{{axis = {axis}}}")
    close(got, want)


# ---------------------------------------------------------------------------
# Graphs, fused groups, errors
# ---------------------------------------------------------------------------

def test_small_graph_with_constants_and_two_results():
    x = rand(1, 4, 4, 2)
    w = rand(3, 3, 2, 3)
    w_text = ", ".join(f"{v:.9e}" for v in w.ravel())
    body = f"""
  %w = arith.constant dense<[{w_text}]> : tensor<54xf32>
  %w4 = tinyml.reshape %w : (tensor<54xf32>) -> tensor<3x3x2x3xf32>
  %c = tinyml.conv2d %a0, %w4 {{padding = array<i64: 1, 1, 1, 1>}} : (tensor<1x4x4x2xf32>, tensor<3x3x2x3xf32>) -> tensor<1x4x4x3xf32>
  %r0 = tinyml.relu %c : tensor<1x4x4x3xf32>
  %g = tinyml.global_avg_pool %r0 : (tensor<1x4x4x3xf32>) -> tensor<1x1x1x3xf32>
  %f = tinyml.reshape %g : (tensor<1x1x1x3xf32>) -> tensor<1x3xf32>
  %r1 = tinyml.softmax %f {{axis = 1}} : tensor<1x3xf32>"""
    conv = np.maximum(ref_conv(x, w, None, padding=(1, 1, 1, 1)), 0)
    pooled = conv.mean(axis=(1, 2))
    e = np.exp(pooled - pooled.max())
    got_conv, got_sm = run(body, [x], [(1, 4, 4, 3), (1, 3)])
    close(got_conv, conv)
    close(got_sm, e / e.sum())


def test_fused_elementwise_group_is_lowered():
    a, b = rand(2, 4), rand(4)
    body = f"""
  %r0 = tinyml.fused elementwise (%a0, %a1) : ({ttype((2, 4))}, {ttype((4,))}) -> {ttype((2, 4))} {{
  ^bb0(%x: {ttype((2, 4))}, %y: {ttype((4,))}):
    %s = tinyml.add %x, %y : ({ttype((2, 4))}, {ttype((4,))}) -> {ttype((2, 4))}
    %t = tinyml.relu %s : {ttype((2, 4))}
    tinyml.yield %t : {ttype((2, 4))}
  }}"""
    (got,) = run(body, [a, b], [(2, 4)])
    close(got, np.maximum(a + b, 0))


def test_scalar_bodies_cover_every_elementwise_op():
    assert set(BINARIES) | set(UNARIES) | {"clamp", "batch_norm"} == \
        {name.split(".")[1] for name in linalg_builders.SCALAR_BODIES}


def test_lowered_ir_has_no_tinyml_and_no_maximumf():
    text = """
func.func @f(%x: tensor<1x6x6x2xf32>, %y: tensor<1x6x6x2xf32>) -> tensor<1x3x3x2xf32> {
  %m = tinyml.maximum %x, %y : (tensor<1x6x6x2xf32>, tensor<1x6x6x2xf32>) -> tensor<1x6x6x2xf32>
  %r = tinyml.relu %m : tensor<1x6x6x2xf32>
  %p = tinyml.max_pool2d %r {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x6x6x2xf32>) -> tensor<1x3x3x2xf32>
  return %p : tensor<1x3x3x2xf32>
}"""
    with tinyml.make_context() as context, ir.Location.unknown():
        module = ir.Module.parse(text, context)
        tinyml.Pipeline(["tinyml-lower-to-linalg"]).run(module)
        lowered = str(module)
    assert "tinyml." not in lowered
    assert "maximumf" not in lowered and "linalg.pooling_nhwc_max" not in lowered


def test_input_validation():
    x = rand(2, 3)
    with tinyml.make_context() as context:
        module = ir.Module.parse(
            "func.func @f(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {\n"
            "  %r = tinyml.neg %a : tensor<2x3xf32>\n  return %r : tensor<2x3xf32>\n}", context)
    compiled = compile(module)
    with pytest.raises(RunError, match="shape"):
        compiled(rand(3, 2))
    with pytest.raises(RunError, match="float32"):
        compiled(x.astype(np.float64))
    with pytest.raises(RunError, match="1 input"):
        compiled(x, x)
    (got,) = compiled(x)
    close(got, -x)


def test_reshape_groups():
    assert linalg_builders.reshape_groups([2, 3, 4], [6, 4]) == [[0, 1], [2]]
    assert linalg_builders.reshape_groups([2, 1, 1, 3], [2, 3]) == [[0], [1, 2, 3]]
    assert linalg_builders.reshape_groups([4, 1, 1], [4, 1]) == [[0], [1, 2]]
    assert linalg_builders.reshape_groups([2, 3, 4], [4, 6]) is None
    assert linalg_builders.reshape_groups([1, 1], []) == []


def test_unlowerable_op_is_a_pass_error(monkeypatch):
    monkeypatch.delitem(lowering.LOWERINGS, "tinyml.tanh")
    text = ("func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
            "  %r = tinyml.tanh %a : tensor<2xf32>\n  return %r : tensor<2xf32>\n}")
    with tinyml.make_context() as context, ir.Location.unknown():
        module = ir.Module.parse(text, context)
        with pytest.raises(ir.MLIRError) as info:
            tinyml.Pipeline(["tinyml-lower-to-linalg"]).run(module)
    messages = [d.message for d in info.value.error_diagnostics]
    assert any("no lowering to linalg for 'tinyml.tanh'" in m for m in messages), messages


def test_stages_run_one_by_one_with_tinyml_opt(tmp_path):
    """Every stage is a pipeline tinyml-opt runs alone; chained, they end in
    the LLVM dialect with results as out-params."""
    import subprocess
    import sys

    from tinyml.pipeline import stages as pipelines

    stages = pipelines.compile_stages()
    assert {stage.name for stage in stages} <= set(pipelines.STAGES)
    text = ("func.func @f(%a: tensor<1x4x4x2xf32>) -> tensor<1x2x2x2xf32> {\n"
            "  %r = tinyml.max_pool2d %a {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}"
            " : (tensor<1x4x4x2xf32>) -> tensor<1x2x2x2xf32>\n"
            "  return %r : tensor<1x2x2x2xf32>\n}\n")
    for name, stage in [(stage.name, stage.pipeline) for stage in stages]:
        done = subprocess.run([sys.executable, "-m", "tinyml.cli.opt",
                               f"--pass-pipeline={stage}", "-"],
                              input=text, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, f"{name}: {done.stderr}"
        text = done.stdout
        if name == "bufferize":
            assert "func.func @f(%arg0: memref<1x4x4x2xf32>, %arg1: memref<1x2x2x2xf32>)" in text
        if name == "plan-memory":
            assert "memref.alloc" not in text and "{tinyml.arena}" in text
    assert "llvm.func @f(" in text and "func.func" not in text


def test_stage_options():
    from tinyml.pipeline import stages as pipelines

    text = str(pipelines.lower_to_llvm(index_bitwidth=32, bare_ptr=True))
    assert "convert-func-to-llvm{index-bitwidth=32 use-bare-ptr-memref-call-conv=1}" in text
    assert "index-bitwidth=64" not in text
    assert "buffer-deallocation-pipeline" not in str(pipelines.bufferize(deallocate=False))
    assert "convert-linalg-to-affine-loops" in str(pipelines.lower_to_loops(affine=True))


def test_a_defect_in_a_lowering_is_an_internal_error(monkeypatch, tmp_path, capsys):
    # Only a PassError is a verdict on the input; a KeyError raised by a
    # lowering is tinyml's own defect: exit 2, "internal error", not exit 1.
    from tinyml.cli.opt import run_command

    def broken(op):
        return {}["defect"]

    monkeypatch.setitem(lowering.LOWERINGS, "tinyml.relu", broken)
    source = tmp_path / "relu.mlir"
    source.write_text("func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
                      "  %0 = tinyml.relu %a : tensor<4xf32>\n"
                      "  return %0 : tensor<4xf32>\n}\n")
    monkeypatch.delenv("TINYML_DEBUG", raising=False)
    assert run_command([str(source), "--tinyml-lower-to-linalg"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "tinyml-opt: internal error: KeyError: 'defect' (set TINYML_DEBUG=1 for the traceback)"]
