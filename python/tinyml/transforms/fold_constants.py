"""tinyml-fold-constants: compute tinyml ops whose operands are all constants.

A tinyml op whose operands are all `arith.constant` dense tensors is
evaluated with numpy at compile time and replaced by one `arith.constant`:

    add(c1, c2)                 -> c1 + c2             (numpy broadcasting)
    relu(c), clamp(c), ...      -> the math on c
    transpose(c, perm)          -> c.transpose(perm)
    reshape(c)                  -> c.reshape(shape)
    pad(c), concat(c1, c2)      -> np.pad, np.concatenate
    matmul(a, b, bias)          -> op(a) @ op(b) + bias
    conv2d / depthwise_conv2d   -> sum over the window taps of x * w, + bias
    pools, reductions, softmax, batch_norm

Numbers are computed in float64 and rounded once to float32. A result with
more than `max-elements` elements is left alone: a broadcast or a pad can
turn small constants into a large one that costs flash and compile time.

`EVALUATE[op_name](attrs, *operands) -> np.ndarray` holds the math; other
passes (and tests) may reuse it. `constant_array` / `constant` read and
create dense constants.
"""
from __future__ import annotations

from functools import partial
from typing import Any, Callable, Mapping, Sequence

import numpy as np
from mlir import ir
from mlir.dialects import arith

from ..dialects import tinyml as tm
from ..ir.attributes import attr_flag, attr_float, attr_int, attr_ints, window_attributes
from ..ir.ops import keyed_by_name
from ..ir.patterns import NO_MATCH, producer_named, rewrite_greedily
from ..ir.values import shape_of
from ..pipeline.registry import Option, Pass, register


# --- constants ------------------------------------------------------------------

def dense_attr(value: ir.Value) -> ir.DenseFPElementsAttr | None:
    """The attribute of `value` when it is an `arith.constant` dense f32
    tensor, else None (cheap: no elements are read)."""
    op = producer_named(value, arith.ConstantOp)
    if op is None:
        return None
    attr = op.attributes["value"]
    if not isinstance(attr, ir.DenseFPElementsAttr):
        return None
    if not isinstance(ir.ShapedType(attr.type).element_type, ir.F32Type):
        return None
    return attr


def constant_array(value: ir.Value) -> np.ndarray | None:
    """The elements of `value` when it is an `arith.constant` dense f32
    tensor (a splat is expanded), else None."""
    attr = dense_attr(value)
    return None if attr is None else np.array(attr).reshape(shape_of(value))


def constant_arrays(values: Sequence[ir.Value]) -> list[np.ndarray] | None:
    """`constant_array` of each value when all are such constants, else
    None. The attributes are looked at first: reading a large filter for a
    conv whose input is not constant would be wasted."""
    attrs = [dense_attr(value) for value in values]
    if any(attr is None for attr in attrs):
        return None
    return [np.array(attr).reshape(shape_of(value)) for attr, value in zip(attrs, values)]


def splat_value(value: ir.Value) -> float | None:
    """The value of every element of a constant whose elements are all
    equal, else None."""
    attr = dense_attr(value)
    if attr is None:
        return None
    if attr.is_splat:
        return float(ir.FloatAttr(attr.get_splat_value()).value)
    array = np.array(attr)
    if array.size == 0 or not np.all(array == array.flat[0]):
        return None
    return float(array.flat[0])


def constant(array: np.ndarray, loc: ir.Location | None = None) -> ir.Value:
    """An `arith.constant` of `array` (float32) at the current insertion
    point; all-equal elements become a splat."""
    array = np.array(array, dtype=np.float32, order="C")  # (ascontiguousarray makes 0-d 1-d)
    if array.size > 1 and np.all(array == array.flat[0]):
        attr = ir.DenseElementsAttr.get_splat(
            ir.RankedTensorType.get(list(array.shape), ir.F32Type.get()),
            ir.FloatAttr.get_f32(float(array.flat[0])))
    else:
        attr = ir.DenseElementsAttr.get(array)
    return arith.ConstantOp(attr.type, attr, loc=loc).result


# --- the math of each op, in numpy ------------------------------------------------

Attrs = Mapping[str, ir.Attribute]


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def clamp(attrs: Attrs, x):
    return np.minimum(np.maximum(x, attr_float(attrs, "min")), attr_float(attrs, "max"))


def batch_norm(attrs: Attrs, x, scale, bias, mean, variance):
    epsilon = attr_float(attrs, "epsilon", 1.0e-5)
    return (x - mean) / np.sqrt(variance + epsilon) * scale + bias


def matmul(attrs: Attrs, lhs, rhs, bias=None):
    lhs = lhs.T if attr_flag(attrs, "transpose_lhs") else lhs
    rhs = rhs.T if attr_flag(attrs, "transpose_rhs") else rhs
    product = lhs @ rhs
    return product if bias is None else product + bias


def window_taps(x, kernel, strides, dilations, padding, pad_value=0.0):
    """Yields ((ky, kx), taps) with `taps[n, oy, ox, c] = padded x[n, oy*sh
    + ky*dh, ox*sw + kx*dw, c]`: the input each kernel position sees."""
    top, left, bottom, right = padding
    padded = np.pad(x, ((0, 0), (top, bottom), (left, right), (0, 0)),
                    constant_values=pad_value)
    (kh, kw), (sh, sw), (dh, dw) = kernel, strides, dilations
    out_h = (padded.shape[1] - dh * (kh - 1) - 1) // sh + 1
    out_w = (padded.shape[2] - dw * (kw - 1) - 1) // sw + 1
    for ky in range(kh):
        for kx in range(kw):
            yield (ky, kx), padded[:, ky * dh: ky * dh + sh * (out_h - 1) + 1: sh,
                                   kx * dw: kx * dw + sw * (out_w - 1) + 1: sw, :]


def conv_window(attrs: Attrs, x, kernel):
    return (x, kernel, *window_attributes(attrs))


def conv2d(attrs: Attrs, x, w, bias=None):
    """y[n, oy, ox, f] = bias[f] + sum_{ky, kx, c} taps(ky, kx)[n, oy, ox, c] * w[ky, kx, c, f]"""
    y = sum(taps @ w[ky, kx] for (ky, kx), taps in window_taps(*conv_window(attrs, x, w.shape[:2])))
    return y if bias is None else y + bias


def depthwise_conv2d(attrs: Attrs, x, w, bias=None):
    """y[n, oy, ox, c*M + m] = bias[c*M + m] + sum_{ky, kx} taps(ky, kx)[n, oy, ox, c] * w[ky, kx, c, m]"""
    y = sum(taps[..., :, None] * w[ky, kx]
            for (ky, kx), taps in window_taps(*conv_window(attrs, x, w.shape[:2])))
    y = y.reshape(*y.shape[:3], -1)
    return y if bias is None else y + bias


def pool_window(attrs: Attrs, x) -> tuple[Any, list[int], list[int], list[int], list[int]]:
    return (x, attr_ints(attrs, "kernel"), *window_attributes(attrs))


def max_pool2d(attrs: Attrs, x):
    """The largest tap of each window; padding never wins."""
    return np.max([taps for _, taps in window_taps(*pool_window(attrs, x), pad_value=-np.inf)],
                  axis=0)


def avg_pool2d(attrs: Attrs, x):
    """The sum of each window over its size (with `count_include_pad`, or no
    padding) or over its taps inside the input."""
    _, _, padding = window_attributes(attrs)
    sums = sum(taps for _, taps in window_taps(*pool_window(attrs, x)))
    if attr_flag(attrs, "count_include_pad") or not any(padding):
        kh, kw = attr_ints(attrs, "kernel")
        return sums / (kh * kw)
    inside = np.ones(x.shape[:3] + (1,))
    return sums / sum(taps for _, taps in window_taps(*pool_window(attrs, inside)))


def reduction(fn: Callable) -> Callable:
    def evaluate(attrs: Attrs, x):
        return fn(x, axis=tuple(attr_ints(attrs, "axes")),
                  keepdims=attr_flag(attrs, "keep_dims"))
    return evaluate


def softmax(attrs: Attrs, x):
    axis = attr_int(attrs, "axis")
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def pad(attrs: Attrs, x):
    padding = attr_ints(attrs, "padding")
    low, high = padding[:x.ndim], padding[x.ndim:]
    return np.pad(x, list(zip(low, high)), constant_values=attr_float(attrs, "value", 0.0))


#: The math of every foldable op: `EVALUATE[name](attrs, *operands)`.
EVALUATE: dict[str, Callable[..., np.ndarray]] = keyed_by_name({
    tm.AddOp: lambda attrs, a, b: a + b,
    tm.SubOp: lambda attrs, a, b: a - b,
    tm.MulOp: lambda attrs, a, b: a * b,
    tm.DivOp: lambda attrs, a, b: a / b,
    tm.MaximumOp: lambda attrs, a, b: np.maximum(a, b),
    tm.MinimumOp: lambda attrs, a, b: np.minimum(a, b),
    tm.NegOp: lambda attrs, x: -x,
    tm.ExpOp: lambda attrs, x: np.exp(x),
    tm.ReluOp: lambda attrs, x: np.maximum(x, 0.0),
    tm.SigmoidOp: lambda attrs, x: sigmoid(x),
    tm.TanhOp: lambda attrs, x: np.tanh(x),
    tm.ClampOp: clamp,
    tm.BatchNormOp: batch_norm,
    tm.MatmulOp: matmul,
    tm.Conv2DOp: conv2d,
    tm.DepthwiseConv2DOp: depthwise_conv2d,
    tm.MaxPool2DOp: max_pool2d,
    tm.AvgPool2DOp: avg_pool2d,
    tm.GlobalAvgPoolOp: lambda attrs, x: x.mean(axis=(1, 2), keepdims=True),
    tm.ReduceSumOp: reduction(np.sum),
    tm.ReduceMeanOp: reduction(np.mean),
    tm.ReduceMaxOp: reduction(np.max),
    tm.SoftmaxOp: softmax,
    tm.TransposeOp: lambda attrs, x: x.transpose(attr_ints(attrs, "permutation")),
    # Row-major, so the elements stay; the pattern gives them the result's
    # shape. (The dialect's folder cannot: tinyml has no constant
    # materializer.)
    tm.ReshapeOp: lambda attrs, x: x,
    tm.PadOp: pad,
    tm.ConcatOp: lambda attrs, *xs: np.concatenate(xs, axis=attr_int(attrs, "axis")),
})


# --- the pattern --------------------------------------------------------------------

def fold_to_constant(op, rewriter, max_elements: int):
    """op(c1, ..., cn) -> constant(EVALUATE[op](c1, ..., cn))"""
    op = op.operation
    if len(op.results) != 1:
        return NO_MATCH
    shape = shape_of(op.results[0])
    if int(np.prod(shape, dtype=np.int64)) > max_elements:
        return NO_MATCH
    operands = constant_arrays(op.operands)
    if operands is None:
        return NO_MATCH
    with np.errstate(all="ignore"):
        value = np.asarray(EVALUATE[op.name](op.attributes,
                                             *(a.astype(np.float64) for a in operands)))
    if op.name == tm.ReshapeOp.OPERATION_NAME:
        value = value.reshape(shape)
    if list(value.shape) != shape:
        # The numpy math and the op disagree (e.g. a pool window that runs
        # past the padded input): leave the op to the lowering.
        return NO_MATCH
    with rewriter.ip:
        rewriter.replace_op(op, [constant(value, op.location)])


@register
class FoldConstants(Pass):
    name = "tinyml-fold-constants"
    summary = "Evaluate tinyml ops whose operands are all constants into one constant"
    options = (
        Option("max-elements", int, 1 << 20,
               "do not fold an op whose result has more elements than this", low=0),
    )

    def apply(self, module):
        fold = partial(fold_to_constant, max_elements=self.max_elements)
        rewrite_greedily(module, [(name, fold) for name in EVALUATE])
