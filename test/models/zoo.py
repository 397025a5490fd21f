"""The tinyml model zoo: ONNX models built in code, for tests and benchmarks.

Every model is assembled with `onnx.helper` from fixed-seed random weights, so
the zoo needs no downloads and building a model twice gives identical bytes.
The weights are untrained but scaled (He-style) so activations stay O(1)
through the deep networks and the softmax outputs are far from one-hot: an
argmax comparison between the compiler and the reference is meaningful.

Three kinds of model; the first two are the compiled zoo, what `names()`
lists and every end-to-end test compiles:

- ``"mlperf"``: the four MLPerf Tiny benchmark networks, with the
  architectures of the reference Keras models and the graph shapes real
  exporters produce for them:

  ``kws_dscnn``       DS-CNN keyword spotting, tf2onnx style (NHWC input with
                      a symbolic batch, one Transpose to NCHW, BN folded into
                      the convolutions, MatMul+Add classifier).
  ``vww_mobilenet``   MobileNetV1 alpha 0.25 visual wake words, tf2onnx style
                      (as above, ReLU6 as opset-13 Clip, Gemm classifier).
  ``resnet8``         ResNet-8 for CIFAR-10, torch.onnx.export style (NCHW,
                      fixed batch, BN folded, Flatten + Gemm transB=1).
  ``fc_autoencoder``  ToyADMOS anomaly-detection autoencoder, tf2onnx style
                      with the BatchNormalization nodes left unfolded.

- ``"small"``: a few nodes each.  ``op_*`` models exercise one supported op
  in one variant (attribute forms, opset differences, broadcasting, padding
  modes).  ``style_*`` models come in pairs that compute the same function
  in two exporter styles, built from the same seed so their outputs agree:
  NCHW vs NHWC+Transpose (which also pairs Softmax opset 11 vs 13), Gemm vs
  MatMul+Add, BatchNormalization folded vs not; plus a symbolic-batch model,
  and ``style_vww_mobilenet_nchw``, the VWW network with an NCHW input as
  tflite2onnx and torch.onnx.export write it (the same weights as
  ``vww_mobilenet``), the one full-size network of the kind.

- ``"frontend"``: the import fixtures of the frontend's lit tests
  (`frontend_cases.py`), some refused on purpose; listed by
  ``names("frontend")`` only.

Each model's seed is derived from its name (pairs share one), each model
declares the lowest IR version its opset allows, and graph outputs carry the
types ONNX shape inference gives them; intermediate value_info is left out,
as most exporters do, so the frontend infers shapes itself.

API: `MODELS` (name -> builder), `build`, `names`, `random_inputs`,
`reference` (onnxruntime on CPU).  `tools/build_zoo.py` writes the zoo out.
"""
from __future__ import annotations

import collections
import dataclasses
import functools
import math
import zlib
from typing import Callable, Iterable, Sequence

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import frontend_cases

__all__ = ["MODELS", "KINDS", "COMPILED_KINDS", "TF_BATCH", "Graph", "build", "names",
           "random_inputs", "reference", "same_pads"]

MODELS: collections.OrderedDict[str, Callable[[], onnx.ModelProto]] = (
    collections.OrderedDict())
_KIND: dict[str, str] = {}
KINDS = ("mlperf", "small", "frontend")
COMPILED_KINDS = ("mlperf", "small")

# tf2onnx names unknown dimensions unk__<n>; the frontend must not rely on
# the batch being a literal 1.
TF_BATCH = "unk__0"


def _seed(key: str) -> int:
    # Stable across runs and Python versions, unlike hash().
    return zlib.crc32(key.encode())


def _pair(v) -> list[int]:
    return list(v) if isinstance(v, (tuple, list)) else [v, v]


def same_pads(in_hw: Sequence[int], kernel, stride=1, dilation=1) -> list[int]:
    """TensorFlow SAME padding as explicit ONNX pads [top, left, bottom,
    right]: the odd pixel goes at the end, which is what tf2onnx writes when
    the input shape is known."""
    begins, ends = [], []
    for size, k, s, d in zip(in_hw, _pair(kernel), _pair(stride), _pair(dilation)):
        out = -(-size // s)
        total = max((out - 1) * s + (k - 1) * d + 1 - size, 0)
        begins.append(total // 2)
        ends.append(total - total // 2)
    return begins + ends


class Graph:
    """Accumulates nodes and initializers of one model.

    Layer helpers draw their weights from the graph's own generator in a
    fixed order, so two graphs with the same seed and the same sequence of
    layer calls get the same weights whatever exporter style they emit.
    """

    def __init__(self, name: str, opset: int, seed: int, doc: str = ""):
        self.name, self.opset, self.doc = name, opset, doc
        self.rng = np.random.default_rng(seed)
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self.inputs: list[onnx.ValueInfoProto] = []
        self._counts: collections.Counter = collections.Counter()
        self._shapes: dict[str, list] = {}
        self._shapes_valid_for = -1

    # -- plumbing ---------------------------------------------------------

    def fresh(self, prefix: str) -> str:
        n = self._counts[prefix]
        self._counts[prefix] += 1
        return f"{prefix}_{n}"

    def input(self, name: str, shape: Sequence, elem_type=TensorProto.FLOAT) -> str:
        self.inputs.append(helper.make_tensor_value_info(name, elem_type, list(shape)))
        return name

    def const(self, value, prefix: str = "const", dtype=np.float32) -> str:
        name = self.fresh(prefix)
        self.initializers.append(
            numpy_helper.from_array(np.asarray(value, dtype=dtype), name))
        return name

    def ints(self, value, prefix: str = "shape") -> str:
        return self.const(value, prefix, np.int64)

    def node(self, op: str, inputs: Iterable[str], **attrs) -> str:
        out = self.fresh(op)
        self.nodes.append(helper.make_node(op, list(inputs), [out], name=out, **attrs))
        return out

    def _graph(self, outputs) -> onnx.GraphProto:
        return helper.make_graph(self.nodes, self.name, self.inputs, outputs,
                                 initializer=self.initializers)

    def _model(self, graph: onnx.GraphProto) -> onnx.ModelProto:
        opsets = [helper.make_opsetid("", self.opset)]
        return helper.make_model(
            graph, opset_imports=opsets, producer_name="tinyml.zoo",
            ir_version=helper.find_min_ir_version_for(opsets),
            doc_string=self.doc)

    def _inferred(self) -> dict[str, onnx.TypeProto]:
        model = onnx.shape_inference.infer_shapes(
            self._model(self._graph([])), strict_mode=True)
        g = model.graph
        return {vi.name: vi.type for vi in [*g.input, *g.value_info]}

    def shape(self, name: str) -> list:
        """Shape of a value built so far (ints, or strings for symbolic
        dims); lets layer helpers size their weights from their input."""
        if self._shapes_valid_for != len(self.nodes):
            self._shapes = {
                n: [d.dim_param or d.dim_value for d in t.tensor_type.shape.dim]
                for n, t in self._inferred().items()}
            for init in self.initializers:
                self._shapes[init.name] = list(init.dims)
            self._shapes_valid_for = len(self.nodes)
        return self._shapes[name]

    def model(self, *outputs: str) -> onnx.ModelProto:
        types = self._inferred()
        outs = [helper.make_value_info(o, types[o]) for o in outputs]
        return self._model(self._graph(outs))

    # -- weights ------------------------------------------------------------

    def normal(self, shape, std: float) -> np.ndarray:
        return (self.rng.standard_normal(shape) * std).astype(np.float32)

    def he(self, shape, fan_in: int, gain: float = 2.0) -> np.ndarray:
        # gain 2 keeps the second moment through ReLU layers; gain 1 for
        # layers feeding a residual add, a softmax or the output.
        return self.normal(shape, math.sqrt(gain / fan_in))

    def bn_params(self, c: int) -> tuple[np.ndarray, ...]:
        """gamma, beta, mean, var of a plausibly trained BatchNorm."""
        gamma = self.rng.uniform(0.8, 1.2, c).astype(np.float32)
        beta = self.normal(c, 0.1)
        mean = self.normal(c, 0.1)
        var = self.rng.uniform(0.5, 1.5, c).astype(np.float32)
        return gamma, beta, mean, var

    # -- layers ---------------------------------------------------------------

    def batchnorm(self, x: str, epsilon: float = 1e-3, params=None) -> str:
        """BatchNormalization over axis 1; `params` as from bn_params, drawn
        here when not given."""
        if params is None:
            params = self.bn_params(self.shape(x)[1])
        names = [self.const(p, n) for p, n in zip(params, ("gamma", "beta", "mean", "var"))]
        return self.node("BatchNormalization", [x, *names], epsilon=epsilon)

    def conv(self, x: str, cout: int, kernel, *, stride=1, dilation=1, group=1,
             pads=None, auto_pad: str | None = None, bias: bool = True,
             bn: str | None = None, epsilon: float = 1e-3, gain: float = 2.0) -> str:
        """Conv over NCHW `x`.

        pads: explicit ONNX pads, or "same" for TensorFlow SAME written out
        explicitly.  bn: None, "node" (a BatchNormalization node after the
        conv) or "fold" (the same BN folded into weights and bias, as
        exporters do in inference mode).
        """
        _, cin, *hw = self.shape(x)
        kh, kw = _pair(kernel)
        fan_in = cin // group * kh * kw
        w = self.he((cout, cin // group, kh, kw), fan_in, gain)
        b = self.normal(cout, 0.1) if bias else np.zeros(cout, np.float32)
        bn_params = self.bn_params(cout) if bn else None
        if bn == "fold":
            gamma, beta, mean, var = bn_params
            scale = gamma / np.sqrt(var + epsilon)
            w = (w * scale[:, None, None, None]).astype(np.float32)
            b = (beta + (b - mean) * scale).astype(np.float32)
            bias = True
        attrs = {"kernel_shape": [kh, kw], "strides": _pair(stride)}
        if dilation != 1:
            attrs["dilations"] = _pair(dilation)
        if group != 1:
            attrs["group"] = group
        if pads == "same":
            pads = same_pads(hw, kernel, stride, dilation)
        if pads is not None:
            attrs["pads"] = list(pads)
        if auto_pad is not None:
            attrs["auto_pad"] = auto_pad
        inputs = [x, self.const(w, "W")] + ([self.const(b, "B")] if bias else [])
        y = self.node("Conv", inputs, **attrs)
        if bn == "node":
            y = self.batchnorm(y, epsilon, bn_params)
        return y

    def separable_conv(self, x: str, cout: int, activation: Callable[[str], str],
                       stride=1) -> str:
        """MobileNet's depthwise separable block: a 3x3 depthwise conv, then a
        1x1 conv to `cout` channels, each with BN folded, SAME padding and
        `activation` after it."""
        cin = self.shape(x)[1]
        x = activation(self.conv(x, cin, 3, stride=stride, group=cin, pads="same", bn="fold"))
        return activation(self.conv(x, cout, 1, pads="same", bn="fold"))

    def dense(self, x: str, n_out: int, style: str, gain: float = 2.0) -> str:
        """Fully connected layer on the last axis of `x`.

        style: "matmul" (MatMul + Add, tf2onnx), "gemm" (Gemm with W as
        [in, out]) or "gemm_t" (Gemm transB=1 with W as [out, in], torch).
        """
        n_in = self.shape(x)[-1]
        w = self.he((n_in, n_out), n_in, gain)
        b = self.normal(n_out, 0.1)
        if style == "matmul":
            return self.node("Add", [self.node("MatMul", [x, self.const(w, "W")]),
                                     self.const(b, "B")])
        if style == "gemm":
            return self.node("Gemm", [x, self.const(w, "W"), self.const(b, "B")])
        if style == "gemm_t":
            return self.node("Gemm", [x, self.const(w.T, "W"), self.const(b, "B")],
                             transB=1)
        raise ValueError(f"unknown dense style {style!r}")

    def relu(self, x: str) -> str:
        return self.node("Relu", [x])

    def relu6(self, x: str) -> str:
        # Clip took min/max as attributes before opset 11, inputs after.
        if self.opset < 11:
            return self.node("Clip", [x], min=0.0, max=6.0)
        return self.node("Clip", [x, self.const(0.0, "min"), self.const(6.0, "max")])

    def to_nchw(self, x: str) -> str:
        return self.node("Transpose", [x], perm=[0, 3, 1, 2])

    def to_nhwc(self, x: str) -> str:
        return self.node("Transpose", [x], perm=[0, 2, 3, 1])

    def reshape(self, x: str, shape: Sequence[int]) -> str:
        return self.node("Reshape", [x, self.ints(shape)])

    def keras_flatten(self, x: str) -> str:
        """Keras Flatten of NCHW `x` as tf2onnx writes it: Keras flattens
        NHWC, so tf2onnx transposes back first."""
        return self.reshape(self.to_nhwc(x), [-1, math.prod(self.shape(x)[1:])])


def _register(name: str, kind: str, seed_key: str | None = None, **kwargs):
    """Registers `fn(name, seed, **kwargs)` under `name`.  Models sharing a
    seed_key get the same weights (exporter-style pairs)."""
    assert kind in KINDS and name not in MODELS

    def deco(fn):
        MODELS[name] = functools.partial(fn, name, _seed(seed_key or name), **kwargs)
        _KIND[name] = kind
        return fn
    return deco


# ---------------------------------------------------------------------------
# MLPerf Tiny networks
# ---------------------------------------------------------------------------

@_register("kws_dscnn", "mlperf")
def _kws_dscnn(name: str, seed: int) -> onnx.ModelProto:
    g = Graph(name, 13, seed, "MLPerf Tiny KWS DS-CNN (tf2onnx style, BN folded)")
    x = g.to_nchw(g.input("input_1", [TF_BATCH, 49, 10, 1]))
    x = g.relu(g.conv(x, 64, (10, 4), stride=2, pads="same", bn="fold"))
    for _ in range(4):
        x = g.separable_conv(x, 64, g.relu)
    # Keras AveragePooling2D(pool_size=(25, 5)) over the whole 25x5 map.
    x = g.node("AveragePool", [x], kernel_shape=[25, 5], strides=[25, 5])
    x = g.keras_flatten(x)
    x = g.dense(x, 12, "matmul", gain=1.0)
    return g.model(g.node("Softmax", [x], axis=-1))


@_register("vww_mobilenet", "mlperf", nchw=False)
@_register("style_vww_mobilenet_nchw", "small", seed_key="vww_mobilenet", nchw=True)
def _vww_mobilenet(name: str, seed: int, nchw: bool) -> onnx.ModelProto:
    """tf2onnx style, or (`nchw`) the same network with an NCHW input, as
    tflite2onnx and torch.onnx.export write it."""
    style = "NCHW input" if nchw else "tf2onnx style"
    g = Graph(name, 13, seed, f"MLPerf Tiny VWW MobileNetV1-0.25 ({style})")
    if nchw:
        x = g.input("input_1", [1, 3, 96, 96])
    else:
        x = g.to_nchw(g.input("input_1", [TF_BATCH, 96, 96, 3]))
    x = g.relu6(g.conv(x, 8, 3, stride=2, pads="same", bn="fold"))
    blocks = [(16, 1), (32, 2), (32, 1), (64, 2), (64, 1), (128, 2),
              *[(128, 1)] * 5, (256, 2), (256, 1)]
    for cout, stride in blocks:
        x = g.separable_conv(x, cout, g.relu6, stride)
    x = g.node("AveragePool", [x], kernel_shape=[3, 3], strides=[3, 3])
    x = g.keras_flatten(x)
    # tf2onnx rewrites MatMul+Add into Gemm when it can; W stays [in, out].
    x = g.dense(x, 2, "gemm", gain=1.0)
    return g.model(g.node("Softmax", [x], axis=-1))


@_register("resnet8", "mlperf")
def _resnet8(name: str, seed: int) -> onnx.ModelProto:
    g = Graph(name, 17, seed, "MLPerf Tiny ResNet-8 CIFAR-10 (torch.onnx.export style)")
    x = g.input("input", [1, 3, 32, 32])
    x = g.relu(g.conv(x, 16, 3, pads=[1] * 4, bn="fold"))
    for cout, stride in [(16, 1), (32, 2), (64, 2)]:
        y = g.relu(g.conv(x, cout, 3, stride=stride, pads=[1] * 4, bn="fold"))
        # Gain 1 on both branches so the sum keeps the variance of x.
        y = g.conv(y, cout, 3, pads=[1] * 4, bn="fold", gain=1.0)
        if stride != 1 or g.shape(x)[1] != cout:
            # The reference projects the shortcut with a bare 1x1 conv (no BN).
            x = g.conv(x, cout, 1, stride=stride, pads=[0] * 4, gain=1.0)
        x = g.relu(g.node("Add", [x, y]))
    x = g.node("AveragePool", [x], kernel_shape=[8, 8], strides=[8, 8], pads=[0] * 4)
    x = g.dense(g.node("Flatten", [x], axis=1), 10, "gemm_t", gain=1.0)
    return g.model(g.node("Softmax", [x], axis=1))


@_register("fc_autoencoder", "mlperf")
def _fc_autoencoder(name: str, seed: int) -> onnx.ModelProto:
    g = Graph(name, 13, seed,
              "MLPerf Tiny anomaly-detection FC autoencoder (tf2onnx style, BN not folded)")
    x = g.input("input_1", [1, 640])
    for width in [128] * 4 + [8] + [128] * 4:
        x = g.relu(g.batchnorm(g.dense(x, width, "matmul")))
    return g.model(g.dense(x, 640, "matmul", gain=1.0))


# ---------------------------------------------------------------------------
# Single-op models
# ---------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class _In:
    """A graph input of this shape."""
    shape: tuple


@dataclasses.dataclass(frozen=True)
class _Rand:
    """A float32 initializer drawn uniformly from [low, high)."""
    shape: tuple
    low: float = -1.0
    high: float = 1.0


X = _In((1, 4, 8, 8))
_f32, _i64 = np.float32, np.int64


def _single_op(name: str, seed: int, opset: int, op: str, inputs: tuple, attrs: dict):
    """One `op` node whose operands are graph inputs (_In), random (_Rand) or
    fixed (ndarray) initializers, or absent optional inputs (None)."""
    g = Graph(name, opset, seed)
    names = []
    for i, spec in enumerate(inputs):
        if spec is None:
            names.append("")
        elif isinstance(spec, _In):
            names.append(g.input("x" if i == 0 else f"x{i}", spec.shape))
        elif isinstance(spec, _Rand):
            names.append(g.const(g.rng.uniform(spec.low, spec.high, spec.shape)))
        else:
            names.append(g.const(spec, dtype=spec.dtype))
    return g.model(g.node(op, names, **attrs))


# name, opset, op, inputs, attributes
_SINGLE_OPS = [
    # Elementwise arithmetic, numpy broadcasting.
    ("op_add_rank_lower", 13, "Add", (X, _Rand((4, 1, 1))), {}),
    ("op_add_bidirectional", 13, "Add", (_In((1, 4, 1, 8)), _In((1, 1, 8, 1))), {}),
    ("op_sub_scalar", 13, "Sub", (X, _f32(0.5)), {}),
    ("op_sub_scalar_first", 13, "Sub", (_f32(1.0), X), {}),
    ("op_mul_last_axis", 13, "Mul", (X, _Rand((8,))), {}),
    ("op_mul_same_rank", 13, "Mul", (X, _Rand((1, 4, 1, 1))), {}),
    ("op_div_broadcast", 13, "Div", (X, _Rand((1, 4, 1, 1), 0.5, 2.0)), {}),
    ("op_div_scalar", 13, "Div", (X, _f32(4.0)), {}),
    # Activations.
    ("op_relu", 13, "Relu", (X,), {}),
    ("op_clip_attr", 10, "Clip", (X,), {"min": -1.0, "max": 1.0}),
    ("op_clip", 13, "Clip", (X, _f32(0.0), _f32(6.0)), {}),
    ("op_clip_min_only", 13, "Clip", (X, _f32(-0.5)), {}),
    ("op_clip_max_only", 13, "Clip", (X, None, _f32(0.5)), {}),
    ("op_leakyrelu", 13, "LeakyRelu", (X,), {"alpha": 0.1}),
    ("op_sigmoid", 13, "Sigmoid", (X,), {}),
    ("op_tanh", 13, "Tanh", (X,), {}),
    ("op_hardsigmoid", 13, "HardSigmoid", (X,), {"alpha": 1 / 6, "beta": 0.5}),
    ("op_hardswish", 14, "HardSwish", (X,), {}),
    # Pooling.  Padded 3x3/2 windows make count_include_pad observable.
    ("op_averagepool_exclude_pad", 13, "AveragePool", (X,),
     {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1],
      "count_include_pad": 0}),
    ("op_averagepool_include_pad", 13, "AveragePool", (X,),
     {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1],
      "count_include_pad": 1}),
    ("op_maxpool", 13, "MaxPool", (X,),
     {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 0, 1, 0]}),
    ("op_globalaveragepool", 13, "GlobalAveragePool", (X,), {}),
    # Reductions: axes became an input in opset 13 (ReduceSum) and 18 (rest).
    ("op_reducemean_attr", 13, "ReduceMean", (X,), {"axes": [2, 3], "keepdims": 1}),
    ("op_reducemax_attr", 13, "ReduceMax", (X,), {"axes": [1], "keepdims": 0}),
    ("op_reducesum_attr", 11, "ReduceSum", (X,), {"axes": [-1], "keepdims": 0}),
    ("op_reducesum_input", 13, "ReduceSum", (X, _i64([2, 3])), {"keepdims": 1}),
    ("op_reducemean_input", 18, "ReduceMean", (X, _i64([1])), {"keepdims": 0}),
    ("op_reducemax_input", 18, "ReduceMax", (X, _i64([-2, -1])), {"keepdims": 1}),
    # Softmax before 13 flattens to 2-D at `axis`; from 13 it is one axis.
    ("op_softmax11_2d", 11, "Softmax", (_In((1, 10)),), {"axis": 1}),
    ("op_softmax11_4d", 11, "Softmax", (X,), {"axis": 1}),
    ("op_softmax13_4d", 13, "Softmax", (X,), {"axis": 1}),
    ("op_softmax13_default_axis", 13, "Softmax", (_In((1, 10)),), {}),
    # Data movement.
    ("op_reshape", 13, "Reshape", (X, _i64([0, -1, 16])), {}),
    ("op_flatten", 13, "Flatten", (X,), {"axis": 1}),
    ("op_transpose", 13, "Transpose", (X,), {"perm": [0, 2, 3, 1]}),
    ("op_squeeze_attr", 11, "Squeeze", (_In((1, 4, 1, 8)),), {"axes": [2]}),
    ("op_squeeze_input", 13, "Squeeze", (_In((1, 4, 1, 8)), _i64([0, 2])), {}),
    ("op_unsqueeze_attr", 11, "Unsqueeze", (_In((1, 4, 8)),), {"axes": [2]}),
    ("op_unsqueeze_input", 13, "Unsqueeze", (_In((1, 32)), _i64([2, 3])), {}),
    ("op_pad", 13, "Pad", (X, _i64([0, 0, 1, 2, 0, 0, 2, 1]), _f32(0.5)),
     {"mode": "constant"}),
    ("op_concat", 13, "Concat", (_In((1, 2, 8, 8)), _In((1, 3, 8, 8))), {"axis": 1}),
    ("op_identity", 13, "Identity", (X,), {}),
    ("op_dropout", 13, "Dropout", (X, _f32(0.3)), {}),
]

for _name, _opset, _op, _inputs, _attrs in _SINGLE_OPS:
    _register(_name, "small", opset=_opset, op=_op, inputs=_inputs, attrs=_attrs)(_single_op)


# ---------------------------------------------------------------------------
# Small models with weights or several nodes
# ---------------------------------------------------------------------------

def _conv_model(name: str, seed: int, cout=8, kernel=3, **conv_args) -> onnx.ModelProto:
    g = Graph(name, 13, seed)
    return g.model(g.conv(g.input("x", list(X.shape)), cout, kernel, **conv_args))


_CONVS = {
    "op_conv": dict(pads=[1, 1, 1, 1]),
    "op_conv_nobias": dict(pads=[1, 1, 1, 1], bias=False),
    "op_conv_depthwise": dict(cout=4, group=4, pads=[1, 1, 1, 1]),
    # Stride 2 over an even size needs one pad pixel: SAME_UPPER puts it at
    # the end, SAME_LOWER at the start.
    "op_conv_same_upper": dict(stride=2, auto_pad="SAME_UPPER"),
    "op_conv_same_lower": dict(stride=2, auto_pad="SAME_LOWER"),
    "op_conv_valid": dict(auto_pad="VALID"),
    "op_conv_pads_asym": dict(pads=[0, 1, 2, 1]),
    "op_conv_strided": dict(stride=(2, 1), pads=[1, 1, 1, 1]),
    "op_conv_dilated": dict(dilation=2, pads=[2, 2, 2, 2]),
    "op_conv_1x1": dict(kernel=1, cout=16),
}
for _name, _args in _CONVS.items():
    _register(_name, "small", **_args)(_conv_model)


def _gemm_model(name: str, seed: int, trans_a=0, trans_b=0, alpha=1.0, beta=1.0,
                c_shape=(8,)) -> onnx.ModelProto:
    g = Graph(name, 13, seed)
    m, k, n = 1, 16, 8
    a = g.input("x", [k, m] if trans_a else [m, k])
    b = g.he([n, k] if trans_b else [k, n], k, 1.0)
    inputs = [a, g.const(b, "W")]
    if c_shape is not None:
        inputs.append(g.const(g.normal(c_shape, 0.1), "C"))
    attrs = {"transA": trans_a, "transB": trans_b, "alpha": alpha, "beta": beta}
    defaults = {"transA": 0, "transB": 0, "alpha": 1.0, "beta": 1.0}
    attrs = {k_: v for k_, v in attrs.items() if v != defaults[k_]}
    return g.model(g.node("Gemm", inputs, **attrs))


_GEMMS = {
    "op_gemm": dict(trans_b=1),
    "op_gemm_transa": dict(trans_a=1),
    "op_gemm_alpha_beta": dict(alpha=0.5, beta=2.0, c_shape=(1, 8)),
    "op_gemm_no_c": dict(trans_b=1, c_shape=None),
}
for _name, _args in _GEMMS.items():
    _register(_name, "small", **_args)(_gemm_model)


def _matmul_model(name: str, seed: int, shape: Sequence[int]) -> onnx.ModelProto:
    g = Graph(name, 13, seed)
    x = g.input("x", shape)
    w = g.const(g.he((shape[-1], 8), shape[-1], 1.0), "W")
    return g.model(g.node("MatMul", [x, w]))


_register("op_matmul", "small", shape=(1, 16))(_matmul_model)
_register("op_matmul_batched", "small", shape=(1, 4, 16))(_matmul_model)


@_register("op_batchnorm", "small")
def _batchnorm(name: str, seed: int) -> onnx.ModelProto:
    g = Graph(name, 13, seed)
    return g.model(g.batchnorm(g.input("x", list(X.shape)), epsilon=1e-5))


@_register("op_constant", "small")
def _constant(name: str, seed: int) -> onnx.ModelProto:
    g = Graph(name, 13, seed)
    value = numpy_helper.from_array(g.normal((4, 1, 1), 1.0), "value")
    c = g.node("Constant", [], value=value)
    return g.model(g.node("Add", [g.input("x", list(X.shape)), c]))


@_register("op_cast", "small")
def _cast(name: str, seed: int) -> onnx.ModelProto:
    # A float->float Cast is a no-op exporters still emit; an int32 constant
    # cast to float is what index arithmetic leaves behind.
    g = Graph(name, 13, seed)
    x = g.node("Cast", [g.input("x", list(X.shape))], to=TensorProto.FLOAT)
    scale = g.const(g.rng.integers(1, 4, 8), "scale", np.int32)
    return g.model(g.node("Mul", [x, g.node("Cast", [scale], to=TensorProto.FLOAT)]))


# ---------------------------------------------------------------------------
# Exporter-style pairs
# ---------------------------------------------------------------------------

@_register("style_nhwc_transpose", "small", seed_key="style_layout", nhwc=True)
@_register("style_nchw", "small", seed_key="style_layout", nhwc=False)
def _tiny_convnet(name: str, seed: int, nhwc: bool) -> onnx.ModelProto:
    """A small CNN as torch/tflite2onnx (NCHW, opset 11) or tf2onnx (NHWC
    input, Transpose, symbolic batch, opset 13) export it."""
    g = Graph(name, 13 if nhwc else 11, seed)
    if nhwc:
        x = g.to_nchw(g.input("input_1", [TF_BATCH, 16, 16, 3]))
    else:
        x = g.input("input", [1, 3, 16, 16])
    x = g.relu(g.conv(x, 8, 3, pads=[1] * 4))
    x = g.node("MaxPool", [x], kernel_shape=[2, 2], strides=[2, 2])
    x = g.relu(g.conv(x, 16, 3, pads=[1] * 4))
    x = g.node("GlobalAveragePool", [x])
    if nhwc:
        x = g.keras_flatten(x)
    else:
        x = g.node("Flatten", [x], axis=1)
    x = g.dense(x, 10, "gemm" if nhwc else "gemm_t", gain=1.0)
    return g.model(g.node("Softmax", [x], axis=1))


@_register("style_matmul_add", "small", seed_key="style_dense", style="matmul")
@_register("style_gemm", "small", seed_key="style_dense", style="gemm_t")
def _tiny_mlp(name: str, seed: int, style: str) -> onnx.ModelProto:
    g = Graph(name, 13, seed)
    x = g.relu(g.dense(g.input("input", [1, 32]), 64, style))
    return g.model(g.dense(x, 10, style, gain=1.0))


@_register("style_bn_folded", "small", seed_key="style_bn", bn="fold")
@_register("style_bn_unfolded", "small", seed_key="style_bn", bn="node")
def _conv_bn_relu(name: str, seed: int, bn: str) -> onnx.ModelProto:
    g = Graph(name, 13, seed)
    x = g.input("input", [1, 3, 16, 16])
    x = g.relu(g.conv(x, 8, 3, pads=[1] * 4, bias=False, bn=bn, epsilon=1e-5))
    return g.model(g.relu(g.conv(x, 8, 3, stride=2, pads=[1] * 4, bias=False,
                                 bn=bn, epsilon=1e-5)))


@_register("style_symbolic_batch", "small")
def _symbolic_batch(name: str, seed: int) -> onnx.ModelProto:
    """torch.onnx.export with dynamic_axes: a named batch dim, carried
    through Reshape by its 0 (copy) entry."""
    g = Graph(name, 13, seed)
    x = g.relu(g.conv(g.input("input", ["batch", 3, 8, 8]), 4, 3, stride=2,
                      pads=[1] * 4))
    x = g.reshape(x, [0, -1])
    return g.model(g.dense(x, 10, "gemm_t", gain=1.0))


for _name, _builder in frontend_cases.CASES.items():
    assert _name not in MODELS
    MODELS[_name], _KIND[_name] = _builder, "frontend"


# ---------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------

def build(name: str) -> onnx.ModelProto:
    """The zoo model `name` (a fresh ModelProto each call)."""
    try:
        builder = MODELS[name]
    except KeyError:
        raise KeyError(f"no zoo model {name!r}; known: {', '.join(MODELS)}") from None
    return builder()


def names(*kinds: str) -> list[str]:
    """Model names of `kinds` (default: the compiled zoo) in zoo order."""
    for kind in kinds:
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
    kinds = kinds or COMPILED_KINDS
    return [n for n in MODELS if _KIND[n] in kinds]


def _graph_inputs(model: onnx.ModelProto) -> list[onnx.ValueInfoProto]:
    inits = {i.name for i in model.graph.initializer}
    return [i for i in model.graph.input if i.name not in inits]


def random_inputs(model: onnx.ModelProto, seed: int = 0) -> dict[str, np.ndarray]:
    """Standard-normal float32 inputs (uniform over all values for int8
    ones), every symbolic dim set to 1.

    Global pooling averages such inputs towards their expectation, so the
    classifiers tend to pick the same class for every seed: compare outputs
    with a tolerance, not only by argmax."""
    rng = np.random.default_rng(seed)
    feeds = {}
    for vi in _graph_inputs(model):
        t = vi.type.tensor_type
        shape = [d.dim_value if d.HasField("dim_value") else 1 for d in t.shape.dim]
        if t.elem_type == TensorProto.INT8:
            feeds[vi.name] = rng.integers(-128, 128, shape).astype(np.int8)
        else:
            feeds[vi.name] = rng.standard_normal(shape).astype(np.float32)
    return feeds


def reference(model: onnx.ModelProto, inputs: dict[str, np.ndarray]) -> list[np.ndarray]:
    """Outputs of onnxruntime (CPU, graph optimizations off so the graph runs
    as written) on `inputs`, in graph output order."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(model.SerializeToString(), options,
                                   providers=["CPUExecutionProvider"])
    return session.run(None, inputs)
