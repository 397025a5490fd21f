"""The zoo's "frontend" kind: small ONNX models whose imported IR the
frontend's lit tests (test/frontend/) check line by line. They imitate what
real exporters emit: tf2onnx (NHWC input + Transpose, symbolic batch,
MatMul + Add, Reshape with a shape initializer), tflite2onnx (opset 11,
NCHW) and torch.onnx.export (NCHW, Gemm, Flatten, shape arithmetic). Some
are refused on purpose (`bad_*`, `conv_grouped`): the lit tests and
test_frontend.py check their errors.

`zoo.py` registers `CASES` as its "frontend" kind; `tools/build_zoo.py DIR
NAME...` writes them.
"""
from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT
CASES: dict = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def rand(rng, *shape, scale=0.5):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def init(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def make(nodes, inputs, outputs, inits=(), opset=13, name="test"):
    graph = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                          producer_name="tinyml-tests")
    m.ir_version = 8 if opset <= 17 else 9
    return m


def tin(name, shape, dtype=F):
    return helper.make_tensor_value_info(name, dtype, shape)


def tout(name, shape=None, dtype=F):
    return helper.make_tensor_value_info(name, dtype, shape)


# --- single-op models ---------------------------------------------------------

@case
def conv_pads():
    """Explicit asymmetric pads, stride 2, bias."""
    rng = np.random.default_rng(1)
    return make([helper.make_node("Conv", ["x", "w", "b"], ["y"], name="conv",
                                  pads=[1, 0, 2, 1], strides=[2, 2])],
                [tin("x", [1, 3, 8, 8])], [tout("y")],
                [init("w", rand(rng, 4, 3, 3, 3)), init("b", rand(rng, 4))], name="conv_pads")


@case
def conv_same_upper():
    rng = np.random.default_rng(2)
    return make([helper.make_node("Conv", ["x", "w"], ["y"], name="conv_su",
                                  auto_pad="SAME_UPPER", strides=[2, 2])],
                [tin("x", [1, 2, 7, 8])], [tout("y")], [init("w", rand(rng, 4, 2, 4, 4))],
                name="conv_same_upper")


@case
def conv_same_lower():
    rng = np.random.default_rng(3)
    return make([helper.make_node("Conv", ["x", "w"], ["y"], name="conv_sl",
                                  auto_pad="SAME_LOWER", kernel_shape=[2, 2])],
                [tin("x", [1, 2, 5, 5])], [tout("y")], [init("w", rand(rng, 3, 2, 2, 2))],
                name="conv_same_lower")


@case
def conv_valid_dilated():
    rng = np.random.default_rng(4)
    return make([helper.make_node("Conv", ["x", "w", "b"], ["y"], name="conv_vd",
                                  auto_pad="VALID", dilations=[2, 1], strides=[1, 2])],
                [tin("x", [2, 3, 9, 9])], [tout("y")],
                [init("w", rand(rng, 5, 3, 3, 3)), init("b", rand(rng, 5))],
                name="conv_valid_dilated")


@case
def conv_depthwise():
    """group = C with channel multiplier 2."""
    rng = np.random.default_rng(5)
    return make([helper.make_node("Conv", ["x", "w", "b"], ["y"], name="dw", group=4,
                                  pads=[1, 1, 1, 1])],
                [tin("x", [1, 4, 6, 6])], [tout("y")],
                [init("w", rand(rng, 8, 1, 3, 3)), init("b", rand(rng, 8))],
                name="conv_depthwise")


@case
def conv_1d():
    rng = np.random.default_rng(6)
    return make([helper.make_node("Conv", ["x", "w", "b"], ["y"], name="conv1d", pads=[1, 1],
                                  strides=[2])],
                [tin("x", [1, 3, 16])], [tout("y")],
                [init("w", rand(rng, 4, 3, 3)), init("b", rand(rng, 4))], name="conv_1d")


@case
def conv_grouped():
    rng = np.random.default_rng(7)
    return make([helper.make_node("Conv", ["x", "w"], ["y"], name="grouped", group=2)],
                [tin("x", [1, 4, 6, 6])], [tout("y")], [init("w", rand(rng, 4, 2, 3, 3))],
                name="conv_grouped")


@case
def gemm_torch():
    """torch.nn.Linear: Gemm transB=1 with a [N] bias."""
    rng = np.random.default_rng(8)
    return make([helper.make_node("Gemm", ["x", "w", "b"], ["y"], name="fc", transB=1)],
                [tin("x", [1, 6])], [tout("y")],
                [init("w", rand(rng, 4, 6)), init("b", rand(rng, 4))], name="gemm_torch")


@case
def gemm_alpha_beta():
    """alpha/beta scale the constants; transA; a [M, N] C becomes an add."""
    rng = np.random.default_rng(9)
    return make([helper.make_node("Gemm", ["x", "w", "c"], ["y"], name="gemm_ab", transA=1,
                                  alpha=0.5, beta=2.0)],
                [tin("x", [6, 2])], [tout("y")],
                [init("w", rand(rng, 6, 3)), init("c", rand(rng, 2, 3))], name="gemm_alpha_beta")


@case
def gemm_dynamic():
    """alpha with both operands dynamic: a mul after the matmul."""
    return make([helper.make_node("Gemm", ["a", "b", "c"], ["y"], name="gemm_dyn",
                                  alpha=3.0)],
                [tin("a", [2, 3]), tin("b", [3, 4]), tin("c", [4])], [tout("y")],
                name="gemm_dynamic")


@case
def matmul_add():
    """tf2onnx Dense: MatMul + Add of a [N] row vector -> one matmul with bias."""
    rng = np.random.default_rng(10)
    return make([helper.make_node("MatMul", ["x", "w"], ["m"], name="dense/MatMul"),
                 helper.make_node("Add", ["m", "b"], ["y"], name="dense/BiasAdd")],
                [tin("x", ["unk__0", 8])], [tout("y", ["unk__0", 3])],
                [init("w", rand(rng, 8, 3)), init("b", rand(rng, 3))], name="matmul_add")


@case
def matmul_3d():
    rng = np.random.default_rng(11)
    return make([helper.make_node("MatMul", ["x", "w"], ["y"], name="mm3")],
                [tin("x", [2, 5, 8])], [tout("y")], [init("w", rand(rng, 8, 3))],
                name="matmul_3d")


@case
def matmul_batched():
    """Two activations: one product per batch, each operand's matrix a slice."""
    return make([helper.make_node("MatMul", ["a", "b"], ["y"], name="bmm")],
                [tin("a", [2, 5, 8]), tin("b", [2, 8, 3])], [tout("y")], name="matmul_batched")


@case
def matmul_vector():
    """A 1-D right operand is a column dropped from the result."""
    rng = np.random.default_rng(13)
    return make([helper.make_node("MatMul", ["x", "v"], ["y"], name="mv")],
                [tin("x", [2, 3, 4])], [tout("y")], [init("v", rand(rng, 4))],
                name="matmul_vector")


@case
def binary_broadcast():
    """Add/Sub/Mul/Div with numpy broadcasting, constants of lower rank."""
    rng = np.random.default_rng(12)
    nodes = [helper.make_node("Add", ["x", "c1"], ["a"], name="add"),
             helper.make_node("Sub", ["a", "s"], ["b"], name="sub"),
             helper.make_node("Mul", ["b", "y"], ["c"], name="mul"),
             helper.make_node("Div", ["k", "c"], ["out"], name="div")]
    return make(nodes, [tin("x", [1, 3, 4, 4]), tin("y", [4])], [tout("out")],
                [init("c1", rand(rng, 3, 1, 1)), init("s", np.array(2.0, np.float32)),
                 init("k", np.array([1.0], np.float32))], name="binary_broadcast")


@case
def activations():
    nodes = [helper.make_node("Relu", ["x"], ["r"], name="relu"),
             helper.make_node("LeakyRelu", ["r"], ["l"], name="leaky", alpha=0.1),
             helper.make_node("Sigmoid", ["l"], ["s"], name="sigmoid"),
             helper.make_node("Tanh", ["s"], ["t"], name="tanh"),
             helper.make_node("HardSigmoid", ["t"], ["h"], name="hsig", alpha=0.25, beta=0.4),
             helper.make_node("HardSwish", ["h"], ["y"], name="hswish")]
    return make(nodes, [tin("x", [2, 5])], [tout("y")], opset=14, name="activations")


@case
def clip_input_form():
    """Clip opset >= 11: min/max as inputs; a missing max is +FLT_MAX."""
    nodes = [helper.make_node("Clip", ["x", "lo", "hi"], ["a"], name="relu6"),
             helper.make_node("Clip", ["a", "lo"], ["y"], name="lower_only")]
    return make(nodes, [tin("x", [1, 8])], [tout("y")],
                [init("lo", np.array(0.0, np.float32)), init("hi", np.array(6.0, np.float32))],
                name="clip_input_form")


@case
def clip_attr_form():
    """Clip opset 6: min/max attributes."""
    return make([helper.make_node("Clip", ["x"], ["y"], name="clip6", min=-1.0, max=1.0)],
                [tin("x", [1, 8])], [tout("y")], opset=6, name="clip_attr_form")


@case
def clip_min_above_max():
    """ONNX's Clip is min(max(x, min), max): with min > max, every output is max."""
    return make([helper.make_node("Clip", ["x", "lo", "hi"], ["y"], name="clip")],
                [tin("x", [1, 8])], [tout("y")],
                [init("lo", np.array(2.0, np.float32)), init("hi", np.array(1.0, np.float32))],
                name="clip_min_above_max")


@case
def batchnorm():
    rng = np.random.default_rng(13)
    c = 3
    params = [init("scale", rand(rng, c)), init("bias", rand(rng, c)),
              init("mean", rand(rng, c)), init("var", np.abs(rand(rng, c)) + 0.5)]
    nodes = [helper.make_node("BatchNormalization", ["x", "scale", "bias", "mean", "var"],
                              ["y"], name="bn4d", epsilon=1e-3),
             helper.make_node("BatchNormalization", ["z", "scale", "bias", "mean", "var"],
                              ["w"], name="bn2d")]
    return make(nodes, [tin("x", [1, c, 4, 4]), tin("z", [2, c])], [tout("y"), tout("w")],
                params, opset=15, name="batchnorm")


@case
def pools():
    nodes = [helper.make_node("AveragePool", ["x"], ["a"], name="avg", kernel_shape=[3, 3],
                              pads=[1, 1, 1, 1], strides=[2, 2], count_include_pad=1),
             helper.make_node("MaxPool", ["a"], ["m"], name="max", kernel_shape=[2, 2],
                              auto_pad="SAME_UPPER"),
             helper.make_node("AveragePool", ["m"], ["e"], name="avg_excl",
                              kernel_shape=[2, 2], pads=[0, 0, 1, 1]),
             helper.make_node("GlobalAveragePool", ["e"], ["y"], name="gap")]
    return make(nodes, [tin("x", [1, 2, 8, 8])], [tout("y")], opset=11, name="pools")


@case
def pools_ceil_dilated():
    """PyTorch's ceil_mode=True: the last windows run past the input (extra
    end padding; count_include_pad=1 then pads the input first); a dilated
    MaxPool is the maximum of one strided slice per kernel tap."""
    nodes = [helper.make_node("MaxPool", ["x"], ["m"], name="max_ceil", kernel_shape=[2, 2],
                              strides=[2, 2], ceil_mode=1),
             helper.make_node("AveragePool", ["x"], ["a"], name="avg_ceil", kernel_shape=[3, 3],
                              strides=[2, 2], pads=[0, 0, 1, 1], ceil_mode=1,
                              count_include_pad=1),
             helper.make_node("MaxPool", ["x"], ["d"], name="max_dilated", kernel_shape=[2, 2],
                              dilations=[2, 2], pads=[1, 1, 0, 0])]
    return make(nodes, [tin("x", [1, 2, 5, 5])], [tout("m"), tout("a"), tout("d")], opset=12,
                name="pools_ceil_dilated")


@case
def reduces():
    """ReduceMean (axes attribute, opset 13), ReduceSum (axes input, opset 13),
    ReduceMax with no axes (all)."""
    nodes = [helper.make_node("ReduceMean", ["x"], ["m"], name="mean", axes=[2, 3]),
             helper.make_node("ReduceSum", ["m", "ax"], ["s"], name="sum", keepdims=0),
             helper.make_node("ReduceMax", ["s"], ["y"], name="max", keepdims=1)]
    return make(nodes, [tin("x", [1, 3, 4, 5])], [tout("y")],
                [init("ax", np.array([-1], np.int64))], name="reduces")


@case
def reduce_opset18():
    nodes = [helper.make_node("ReduceMax", ["x", "ax"], ["y"], name="max18", keepdims=0)]
    return make(nodes, [tin("x", [2, 3, 4])], [tout("y")],
                [init("ax", np.array([0, 2], np.int64))], opset=18, name="reduce_opset18")


@case
def softmax_opset11():
    """Before opset 13, softmax at axis 1 of a 3-D tensor coerces to 2-D."""
    return make([helper.make_node("Softmax", ["x"], ["y"], name="sm11", axis=1)],
                [tin("x", [2, 3, 4])], [tout("y")], opset=11, name="softmax_opset11")


@case
def softmax_opset13():
    return make([helper.make_node("Softmax", ["x"], ["y"], name="sm13", axis=1)],
                [tin("x", [2, 3, 4])], [tout("y")], opset=13, name="softmax_opset13")


@case
def shape_ops():
    """Reshape (0 and -1), Flatten, Squeeze, Unsqueeze (input form),
    Transpose."""
    nodes = [helper.make_node("Reshape", ["x", "shape"], ["r"], name="reshape"),
             helper.make_node("Flatten", ["r"], ["f"], name="flatten", axis=2),
             helper.make_node("Unsqueeze", ["f", "ax"], ["u"], name="unsqueeze"),
             helper.make_node("Transpose", ["u"], ["t"], name="transpose", perm=[1, 0, 2, 3]),
             helper.make_node("Squeeze", ["t", "ax0"], ["y"], name="squeeze")]
    return make(nodes, [tin("x", [2, 3, 4])], [tout("y")],
                [init("shape", np.array([0, -1, 2], np.int64)),
                 init("ax", np.array([0, -1], np.int64)),
                 init("ax0", np.array([1], np.int64))], name="shape_ops")


@case
def shape_arith():
    """torch's x.view(x.size(0), -1): Shape, Gather, Unsqueeze, Concat -> a
    constant shape folded at import time."""
    nodes = [helper.make_node("Shape", ["x"], ["s"], name="shape"),
             helper.make_node("Constant", [], ["i0"], name="c0",
                              value=numpy_helper.from_array(np.array(0, np.int64))),
             helper.make_node("Gather", ["s", "i0"], ["n"], name="gather", axis=0),
             helper.make_node("Unsqueeze", ["n", "a0"], ["n1"], name="unsq"),
             helper.make_node("Concat", ["n1", "minus1"], ["shp"], name="cat", axis=0),
             helper.make_node("Reshape", ["x", "shp"], ["y"], name="view")]
    return make(nodes, [tin("x", ["batch", 2, 3, 3])], [tout("y")],
                [init("a0", np.array([0], np.int64)), init("minus1", np.array([-1], np.int64))],
                name="shape_arith")


@case
def slice_gather():
    """Slice and Gather of an activation with constant starts and indices:
    a reversed strided slice, then indices in two runs (a concat)."""
    nodes = [helper.make_node("Slice", ["x", "starts", "ends", "axes", "steps"], ["s"],
                              name="slice"),
             helper.make_node("Gather", ["s", "indices"], ["y"], name="gather", axis=1)]
    return make(nodes, [tin("x", [1, 4, 6])], [tout("y")],
                [init("starts", np.array([-1], np.int64)), init("ends", np.array([0], np.int64)),
                 init("axes", np.array([2], np.int64)), init("steps", np.array([-2], np.int64)),
                 init("indices", np.array([3, 2, 0], np.int64))], name="slice_gather")


@case
def pad_input_form():
    nodes = [helper.make_node("Pad", ["x", "pads", "v"], ["y"], name="pad11")]
    return make(nodes, [tin("x", [1, 2, 3, 3])], [tout("y")],
                [init("pads", np.array([0, 0, 1, 2, 0, 0, 0, 1], np.int64)),
                 init("v", np.array(0.5, np.float32))], opset=11, name="pad_input_form")


@case
def pad_attr_form():
    nodes = [helper.make_node("Pad", ["x"], ["y"], name="pad2", pads=[1, 0, 0, 2])]
    return make(nodes, [tin("x", [2, 3])], [tout("y")], opset=2, name="pad_attr_form")


@case
def concat_misc():
    """Concat (negative axis) of a tensor and a constant; Identity, Dropout,
    Constant and Cast forward or fold."""
    nodes = [helper.make_node("Identity", ["x"], ["i"], name="identity"),
             helper.make_node("Dropout", ["i"], ["d"], name="dropout"),
             helper.make_node("Constant", [], ["k"], name="const",
                              value=numpy_helper.from_array(np.ones([1, 2], np.float64))),
             helper.make_node("Cast", ["k"], ["kf"], name="cast_const", to=F),
             helper.make_node("Cast", ["d"], ["df"], name="cast_noop", to=F),
             helper.make_node("Concat", ["df", "kf"], ["y"], name="concat", axis=-1)]
    return make(nodes, [tin("x", [1, 3])], [tout("y")], name="concat_misc")


# --- whole networks -----------------------------------------------------------

def _dscnn_weights(cin=1):
    rng = np.random.default_rng(42)
    return {"w1": rand(rng, 8, cin, 3, 3), "b1": rand(rng, 8),
            "dw": rand(rng, 8, 1, 3, 3), "dwb": rand(rng, 8),
            "pw": rand(rng, 8, 8, 1, 1), "pwb": rand(rng, 8),
            "fc": rand(rng, 8, 4), "fcb": rand(rng, 4),
            "bias4": rand(rng, 8, 1, 1)}


def _dscnn_core(x, out):
    """The shared NCHW body: conv, relu, depthwise conv, clip (relu6), bias
    add, pointwise conv, relu, average pool to 1x1."""
    return [
        helper.make_node("Conv", [x, "w1", "b1"], ["c1"], name="conv1", pads=[1, 1, 1, 1],
                         strides=[2, 2]),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("Conv", ["r1", "dw", "dwb"], ["c2"], name="dwconv", group=8,
                         pads=[1, 1, 1, 1]),
        helper.make_node("Clip", ["c2", "zero", "six"], ["r2"], name="relu6"),
        helper.make_node("Add", ["r2", "bias4"], ["a2"], name="bias_add"),
        helper.make_node("Conv", ["a2", "pw", "pwb"], ["c3"], name="pwconv"),
        helper.make_node("Relu", ["c3"], ["r3"], name="relu3"),
        helper.make_node("AveragePool", ["r3"], [out], name="avgpool", kernel_shape=[5, 5]),
    ]


def _dscnn_inits(cin=1):
    w = _dscnn_weights(cin)
    inits = [init(k, v) for k, v in w.items()]
    inits += [init("zero", np.array(0.0, np.float32)), init("six", np.array(6.0, np.float32))]
    return inits


@case
def dscnn_tf2onnx():
    """tf2onnx style: NHWC input with a symbolic batch, a Transpose to NCHW,
    NCHW convs, a Transpose back before Reshape (shape initializer), MatMul +
    Add, Softmax. Opset 13."""
    nodes = [helper.make_node("Transpose", ["input_1"], ["x_nchw"], name="transpose_in",
                              perm=[0, 3, 1, 2])]
    nodes += _dscnn_core("x_nchw", "p")
    nodes += [helper.make_node("Transpose", ["p"], ["p_nhwc"], name="transpose_out",
                               perm=[0, 2, 3, 1]),
              helper.make_node("Reshape", ["p_nhwc", "flat_shape"], ["f"], name="flatten"),
              helper.make_node("MatMul", ["f", "fc"], ["m"], name="dense/MatMul"),
              helper.make_node("Add", ["m", "fcb"], ["logits"], name="dense/BiasAdd"),
              helper.make_node("Softmax", ["logits"], ["probs"], name="softmax", axis=-1)]
    inits = _dscnn_inits() + [init("flat_shape", np.array([-1, 8], np.int64))]
    return make(nodes, [tin("input_1", ["unk__7", 10, 10, 1])], [tout("probs", ["unk__8", 4])],
                inits, opset=13, name="tf2onnx")


@case
def dscnn_nchw():
    """tflite2onnx / torch style: the same network on an NCHW input, opset 11,
    Flatten + Gemm (transB=0), Softmax."""
    nodes = _dscnn_core("input", "p")
    nodes += [helper.make_node("Flatten", ["p"], ["f"], name="flatten"),
              helper.make_node("Gemm", ["f", "fc", "fcb"], ["logits"], name="fc"),
              helper.make_node("Softmax", ["logits"], ["probs"], name="softmax", axis=1)]
    return make(nodes, [tin("input", [1, 1, 10, 10])], [tout("probs", [1, 4])],
                _dscnn_inits(), opset=11, name="nchw model")


@case
def resnet_block():
    """A residual block in NCHW: conv-bn-relu-conv-bn + skip, relu, then
    GlobalAveragePool + Flatten + Gemm (torch style)."""
    rng = np.random.default_rng(17)
    c = 4
    inits = [init("w0", rand(rng, c, 2, 3, 3)), init("w1", rand(rng, c, c, 3, 3)),
             init("w2", rand(rng, c, c, 3, 3)), init("fc", rand(rng, 3, c)),
             init("fcb", rand(rng, 3))]
    for k in ("1", "2"):
        inits += [init("s" + k, rand(rng, c) + 1), init("o" + k, rand(rng, c)),
                  init("m" + k, rand(rng, c)), init("v" + k, np.abs(rand(rng, c)) + 0.5)]
    nodes = [
        helper.make_node("Conv", ["x", "w0"], ["h0"], name="stem", pads=[1, 1, 1, 1]),
        helper.make_node("Conv", ["h0", "w1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["c1", "s1", "o1", "m1", "v1"], ["b1"],
                         name="bn1"),
        helper.make_node("Relu", ["b1"], ["r1"], name="relu1"),
        helper.make_node("Conv", ["r1", "w2"], ["c2"], name="conv2", pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["c2", "s2", "o2", "m2", "v2"], ["b2"],
                         name="bn2"),
        helper.make_node("Add", ["b2", "h0"], ["s"], name="skip"),
        helper.make_node("Relu", ["s"], ["r"], name="relu"),
        helper.make_node("GlobalAveragePool", ["r"], ["g"], name="gap"),
        helper.make_node("Flatten", ["g"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", "fc", "fcb"], ["y"], name="fc", transB=1),
    ]
    return make(nodes, [tin("x", ["N", 2, 6, 6])], [tout("y")], inits, opset=13,
                name="resnet_block")


@case
def concat_channels():
    """Two conv branches concatenated on the NCHW channel axis."""
    rng = np.random.default_rng(19)
    nodes = [helper.make_node("Conv", ["x", "wa"], ["a"], name="branch_a"),
             helper.make_node("Conv", ["x", "wb"], ["b"], name="branch_b", pads=[1, 1, 1, 1]),
             helper.make_node("Concat", ["a", "b"], ["c"], name="concat", axis=1),
             helper.make_node("Relu", ["c"], ["r"], name="relu"),
             helper.make_node("Conv", ["r", "wc"], ["y"], name="merge")]
    return make(nodes, [tin("x", [1, 3, 5, 5])], [tout("y")],
                [init("wa", rand(rng, 2, 3, 1, 1)), init("wb", rand(rng, 3, 3, 3, 3)),
                 init("wc", rand(rng, 4, 5, 1, 1))], name="concat_channels")


# --- quantized (QDQ) models ---------------------------------------------------

I8 = TensorProto.INT8


@case
def qdq_conv_relu():
    """tf2onnx's QDQ form of an int8 TFLite conv: int8 input with a Transpose
    to NCHW, per-channel int8 weights and an int32 bias behind
    DequantizeLinear, Relu, QuantizeLinear, Transpose back to NHWC."""
    rng = np.random.default_rng(30)
    nodes = [
        helper.make_node("Transpose", ["x"], ["xt"], perm=[0, 3, 1, 2], name="to_nchw"),
        helper.make_node("DequantizeLinear", ["xt", "sx", "zx"], ["xf"], name="dq_x"),
        helper.make_node("DequantizeLinear", ["w", "sw", "zw"], ["wf"], axis=0, name="dq_w"),
        helper.make_node("DequantizeLinear", ["b", "sb", "zb"], ["bf"], axis=0, name="dq_b"),
        helper.make_node("Conv", ["xf", "wf", "bf"], ["c"], pads=[1, 1, 1, 1], name="conv"),
        helper.make_node("Relu", ["c"], ["r"], name="relu"),
        helper.make_node("QuantizeLinear", ["r", "sy", "zy"], ["q"], name="q_y"),
        helper.make_node("Transpose", ["q"], ["y"], perm=[0, 2, 3, 1], name="to_nhwc")]
    scales = np.array([0.01, 0.02, 0.03, 0.04], np.float32)
    inits = [init("w", rng.integers(-127, 128, (4, 3, 3, 3)).astype(np.int8)),
             init("sw", scales), init("zw", np.zeros(4, np.int8)),
             init("b", rng.integers(-500, 500, 4).astype(np.int32)),
             init("sb", (scales * np.float32(0.05)).astype(np.float32)),
             init("zb", np.zeros(4, np.int32)),
             init("sx", np.float32(0.05)), init("zx", np.int8(-3)),
             init("sy", np.float32(0.1)), init("zy", np.int8(-128))]
    return make(nodes, [tin("x", [1, 5, 5, 3], I8)], [tout("y", None, I8)], inits,
                name="qdq_conv_relu")


@case
def bad_uint8_quantize():
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"], name="q_u8")]
    return make(nodes, [tin("x", [1, 4])], [tout("y", None, TensorProto.UINT8)],
                [init("s", np.float32(0.1)), init("z", np.uint8(128))],
                name="bad_uint8_quantize")


# --- bad models ---------------------------------------------------------------

@case
def bad_unsupported_op():
    nodes = [helper.make_node("Relu", ["x"], ["r"], name="relu"),
             helper.make_node("Erf", ["r"], ["y"], name="my_erf")]
    return make(nodes, [tin("x", [1, 4])], [tout("y")], name="bad_unsupported_op")


@case
def bad_dynamic_dim():
    return make([helper.make_node("Relu", ["x"], ["y"], name="relu")],
                [tin("x", ["N", 3, "height", 4])], [tout("y")], name="bad_dynamic_dim")


@case
def bad_int_input():
    return make([helper.make_node("Relu", ["x"], ["y"], name="relu")],
                [tin("x", [1, 4], TensorProto.INT32)], [tout("y", None, TensorProto.INT32)],
                name="bad_int_input")


@case
def bad_int8_add():
    """Arithmetic on int8 tensors with no DequantizeLinear: not a QDQ model."""
    return make([helper.make_node("Add", ["a", "b"], ["y"], name="add_i8")],
                [tin("a", [1, 4], TensorProto.INT8), tin("b", [1, 4], TensorProto.INT8)],
                [tout("y", [1, 4], TensorProto.INT8)], opset=14, name="bad_int8_add")


@case
def bad_no_outputs():
    return make([helper.make_node("Relu", ["x"], ["y"], name="relu")],
                [tin("x", [1, 4])], [], name="bad_no_outputs")


@case
def bad_int_initializer():
    return make([helper.make_node("Add", ["x", "k"], ["y"], name="add_int")],
                [tin("x", [1, 4])], [tout("y")],
                [init("k", np.array([1, 2, 3, 4], np.int64))], name="bad_int_initializer")

