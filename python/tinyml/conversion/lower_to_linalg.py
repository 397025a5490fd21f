"""tinyml-lower-to-linalg: every tinyml op to linalg on tensors (+ tensor,
arith, math).

Structure, meant for reuse by the fusion lowering:

- `ScalarBuilder` emits arith/math ops on f32 scalars at the current
  insertion point; its methods read like the formula (`b.add(x, y)`,
  `b.exp(x)`, `b.max(x, y)`).
- `SCALAR_BODIES[op_name](b, attrs, args) -> Value` is the math of each
  element-wise tinyml op on scalars. `attrs` maps attribute names to
  `ir.Attribute`s (an op's `.attributes` works), `args` are the scalar
  operands in the op's operand order.
- `build_generic(...)` builds one `linalg.generic` from operands with their
  indexing maps, inits and a body callback; `broadcast_map` gives the numpy
  broadcasting map of an operand; `build_elementwise` composes the two for a
  result type.
- `LOWERINGS[op_name](op) -> Value` (or a list of values, one per result)
  lowers one op in place (called with the insertion point and location of
  the op); a `tinyml.fused` group is one kernel, built by fused_lowering.py.

Chaining scalar bodies into one loop nest, e.g. `relu(x + z)`:

    def body(b, args):                      # args: x, z, then the init
        s = SCALAR_BODIES["tinyml.add"](b, add_op.attributes, args[:2])
        return SCALAR_BODIES["tinyml.relu"](b, relu_op.attributes, [s])
    (y,) = build_generic(
        [(x, broadcast_map(shape_of(x), shape)), (z, broadcast_map(shape_of(z), shape))],
        [(empty(shape), identity_map(len(shape)))], ["parallel"] * len(shape), body)

Max-like reductions (relu, maximum, max pool, reduce_max, softmax) use
`arith.cmpf` + `arith.select`, never `arith.maximumf`: that lowers to a
`fmaximumf` call that Cortex-M runtimes lack. For the same
reason max pooling is a `linalg.generic` with the pooling maps rather than
`linalg.pooling_nhwc_max`, whose body is `arith.maximumf`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import numpy as np
from mlir import ir
from mlir.dialects import arith, bufferization, math, memref, tensor

from ..ir.attributes import attr_flag, attr_float, attr_int, attr_ints, window_attributes
from ..ir.lazy_modules import linalg
from ..ir.lowering_config import ATTRIBUTE
from ..ir.quant import has_quantized_data
from ..ir.values import shape_of
from ..pipeline.registry import Pass, PassError, functions, register

# The lowest finite float32: the identity of max that padding never beats.
F32_LOWEST = float(np.finfo(np.float32).min)


# ---------------------------------------------------------------------------
# Scalars
# ---------------------------------------------------------------------------

class ScalarBuilder:
    """Builds f32 scalar arith/math ops at the current insertion point
    (`const` also makes integer constants, for an integer element type)."""

    def __init__(self, element_type: ir.Type | None = None):
        self.type = element_type or ir.F32Type.get()

    def const(self, value: float) -> ir.Value:
        if isinstance(self.type, ir.IntegerType):
            return arith.ConstantOp(self.type, ir.IntegerAttr.get(self.type, int(value))).result
        return arith.ConstantOp(self.type, ir.FloatAttr.get(self.type, float(value))).result

    def add(self, x, y):
        return arith.addf(x, y)

    def sub(self, x, y):
        return arith.subf(x, y)

    def mul(self, x, y):
        return arith.mulf(x, y)

    def div(self, x, y):
        return arith.divf(x, y)

    def neg(self, x):
        return arith.negf(x)

    def exp(self, x):
        return math.exp(x)

    def tanh(self, x):
        return math.tanh(x)

    def sqrt(self, x):
        return math.sqrt(x)

    def select(self, cond, x, y):
        return arith.select(cond, x, y)

    def cmp(self, predicate: str, x, y):
        return arith.cmpf(getattr(arith.CmpFPredicate, predicate.upper()), x, y)

    def max(self, x, y):
        """`x > y ? x : y` with compare + select (a NaN in `x` propagates)."""
        return self.select(self.cmp("ugt", x, y), x, y)

    def min(self, x, y):
        """`x < y ? x : y` with compare + select (a NaN in `x` propagates)."""
        return self.select(self.cmp("ult", x, y), x, y)


def _sigmoid(b, attrs, args):
    (x,) = args
    one = b.const(1.0)
    return b.div(one, b.add(one, b.exp(b.neg(x))))


def _clamp(b, attrs, args):
    (x,) = args
    low, high = b.const(attr_float(attrs, "min")), b.const(attr_float(attrs, "max"))
    # x < low ? low : x, then > high ? high : ... ; a NaN passes through.
    raised = b.select(b.cmp("olt", x, low), low, x)
    return b.select(b.cmp("ogt", raised, high), high, raised)


def _batch_norm(b, attrs, args):
    x, scale, bias, mean, variance = args
    eps = b.const(attr_float(attrs, "epsilon", 1.0e-5))
    return b.add(b.mul(b.div(b.sub(x, mean), b.sqrt(b.add(variance, eps))), scale), bias)


ScalarBody = Callable[[ScalarBuilder, Mapping[str, ir.Attribute], Sequence[ir.Value]], ir.Value]

#: The math of every element-wise tinyml op, on scalars.
SCALAR_BODIES: dict[str, ScalarBody] = {
    "tinyml.add": lambda b, attrs, a: b.add(a[0], a[1]),
    "tinyml.sub": lambda b, attrs, a: b.sub(a[0], a[1]),
    "tinyml.mul": lambda b, attrs, a: b.mul(a[0], a[1]),
    "tinyml.div": lambda b, attrs, a: b.div(a[0], a[1]),
    "tinyml.maximum": lambda b, attrs, a: b.max(a[0], a[1]),
    "tinyml.minimum": lambda b, attrs, a: b.min(a[0], a[1]),
    "tinyml.neg": lambda b, attrs, a: b.neg(a[0]),
    "tinyml.exp": lambda b, attrs, a: b.exp(a[0]),
    "tinyml.relu": lambda b, attrs, a: b.max(a[0], b.const(0.0)),
    "tinyml.sigmoid": _sigmoid,
    "tinyml.tanh": lambda b, attrs, a: b.tanh(a[0]),
    "tinyml.clamp": _clamp,
    # Parameters are 1-D over the last axis: numpy broadcasting lines them up.
    "tinyml.batch_norm": _batch_norm,
}


# ---------------------------------------------------------------------------
# linalg.generic construction
# ---------------------------------------------------------------------------

def iterator_attr(kind: str) -> ir.Attribute:
    return ir.Attribute.parse(f"#linalg.iterator_type<{kind}>")


def identity_map(rank: int) -> ir.AffineMap:
    return ir.AffineMap.get_identity(rank)


def projection_map(rank: int, kept: Sequence[int]) -> ir.AffineMap:
    """(d0, ..., d{rank-1}) -> (d{kept[0]}, ...)."""
    return ir.AffineMap.get(rank, 0, [ir.AffineDimExpr.get(d) for d in kept])


def broadcast_map(operand_shape: Sequence[int], result_shape: Sequence[int]) -> ir.AffineMap:
    """The numpy broadcasting map of an operand onto a loop nest over
    `result_shape`: dimensions align from the right, a size-1 operand
    dimension against a larger result one reads index 0."""
    rank, offset = len(result_shape), len(result_shape) - len(operand_shape)
    if offset < 0:
        raise ValueError(f"operand shape {list(operand_shape)} has a higher rank than "
                         f"result {list(result_shape)}")
    exprs = []
    for i, size in enumerate(operand_shape):
        dim = offset + i
        if size == result_shape[dim]:
            exprs.append(ir.AffineDimExpr.get(dim))
        elif size == 1:
            exprs.append(ir.AffineConstantExpr.get(0))
        else:
            raise ValueError(f"operand shape {list(operand_shape)} does not broadcast to "
                             f"{list(result_shape)}")
    return ir.AffineMap.get(rank, 0, exprs)


GenericBody = Callable[[ScalarBuilder, Sequence[ir.Value]], "ir.Value | Sequence[ir.Value]"]


def build_generic(inputs: Sequence[tuple[ir.Value, ir.AffineMap]],
                  outputs: Sequence[tuple[ir.Value, ir.AffineMap]],
                  iterator_types: Sequence[str],
                  body: GenericBody) -> list[ir.Value]:
    """One `linalg.generic` at the current insertion point.

    `inputs` and `outputs` are (tensor value, indexing map) pairs; outputs
    are the inits. `body(b, args)` gets a `ScalarBuilder` and the block
    arguments (one scalar per input, then one per output, the current
    accumulator value) and returns the yielded value(s). Returns the
    results."""
    in_values = [value for value, _ in inputs]
    out_values = [value for value, _ in outputs]
    maps = [ir.AffineMapAttr.get(m) for _, m in list(inputs) + list(outputs)]
    op = linalg.GenericOp(
        [value.type for value in out_values], in_values, out_values,
        ir.ArrayAttr.get(maps),
        ir.ArrayAttr.get([iterator_attr(kind) for kind in iterator_types]))
    element_types = [ir.ShapedType(v.type).element_type for v in in_values + out_values]
    block = op.regions[0].blocks.append(*element_types)
    with ir.InsertionPoint(block):
        yielded = body(ScalarBuilder(element_types[-1]), list(block.arguments))
        if isinstance(yielded, ir.Value):
            yielded = [yielded]
        linalg.YieldOp(list(yielded))
    return list(op.results)


def build_elementwise(result_type: ir.RankedTensorType, operands: Sequence[ir.Value],
                      scalar_fn: Callable[[ScalarBuilder, Sequence[ir.Value]], ir.Value],
                      init: ir.Value | None = None) -> ir.Value:
    """An all-parallel generic over `result_type` whose operands broadcast
    numpy-style; `scalar_fn(b, scalars)` computes one element."""
    shape = list(result_type.shape)
    init = init if init is not None else empty(shape, result_type.element_type)
    inputs = [(v, broadcast_map(ir.RankedTensorType(v.type).shape, shape)) for v in operands]
    (result,) = build_generic(inputs, [(init, identity_map(len(shape)))],
                              ["parallel"] * len(shape),
                              lambda b, args: scalar_fn(b, args[:-1]))
    return result


# ---------------------------------------------------------------------------
# Small tensor helpers
# ---------------------------------------------------------------------------

def as_value(result) -> ir.Value:
    """The single value of what a builder returned (value, op or list)."""
    if isinstance(result, ir.Value):
        return result
    if isinstance(result, (ir.OpView, ir.Operation)):
        return result.result
    (value,) = list(result)
    return value


def f32() -> ir.Type:
    return ir.F32Type.get()


def empty(shape: Sequence[int], element_type: ir.Type | None = None) -> ir.Value:
    return tensor.empty(list(shape), element_type or f32())


def scalar_const(value: float, element_type: ir.Type | None = None) -> ir.Value:
    return ScalarBuilder(element_type or f32()).const(value)


def filled(shape: Sequence[int], value: float) -> ir.Value:
    return linalg.fill(scalar_const(value), outs=[empty(shape)])


def dense_const(array: np.ndarray) -> ir.Value:
    array = np.ascontiguousarray(array, dtype=np.float32)
    ty = ir.RankedTensorType.get(list(array.shape), f32())
    return arith.ConstantOp(ty, ir.DenseElementsAttr.get(array, type=ty)).result


def reassociation_attr(groups: Sequence[Sequence[int]]) -> ir.ArrayAttr:
    i64 = ir.IntegerType.get_signless(64)
    return ir.ArrayAttr.get([ir.ArrayAttr.get([ir.IntegerAttr.get(i64, d) for d in group])
                             for group in groups])


def collapse(value: ir.Value, groups: Sequence[Sequence[int]]) -> ir.Value:
    src = shape_of(value)
    shape = [int(np.prod([src[d] for d in group], dtype=np.int64)) for group in groups]
    result_type = ir.RankedTensorType.get(shape, ir.RankedTensorType(value.type).element_type)
    return tensor.CollapseShapeOp(result_type, value, reassociation_attr(groups)).result


def expand(value: ir.Value, shape: Sequence[int], groups: Sequence[Sequence[int]]) -> ir.Value:
    result_type = ir.RankedTensorType.get(list(shape), ir.RankedTensorType(value.type).element_type)
    return tensor.ExpandShapeOp(result_type, value, reassociation_attr(groups), [],
                                list(shape)).result


def pad(value: ir.Value, low: Sequence[int], high: Sequence[int], fill: float) -> ir.Value:
    """`tensor.pad` with a constant; returns `value` itself for no padding."""
    if not any(low) and not any(high):
        return value
    src = shape_of(value)
    shape = [s + lo + hi for s, lo, hi in zip(src, low, high)]
    element_type = ir.RankedTensorType(value.type).element_type
    result_type = ir.RankedTensorType.get(shape, element_type)
    fill_value = scalar_const(fill, element_type)
    op = tensor.PadOp(result_type, value, [], [], list(low), list(high))
    index = ir.IndexType.get()
    block = op.regions[0].blocks.append(*([index] * len(src)))
    with ir.InsertionPoint(block):
        tensor.YieldOp(fill_value)
    return op.result


def broadcast_to(value: ir.Value, shape: Sequence[int], dimensions: Sequence[int]) -> ir.Value:
    """`linalg.broadcast` adding the `dimensions` of `shape`."""
    init = empty(shape, ir.RankedTensorType(value.type).element_type)
    return linalg.broadcast(value, outs=[init], dimensions=list(dimensions)).result


def reshape_groups(big: Sequence[int], small: Sequence[int]) -> list[list[int]] | None:
    """A reassociation grouping the dims of `big` into those of `small`
    (each group's product equals its small dim), or None."""
    if len(small) == 0:
        return [] if all(d == 1 for d in big) else None
    groups, i = [], 0
    for target in small:
        if i >= len(big):
            return None
        group, product = [i], big[i]
        i += 1
        while product != target:
            if i >= len(big) or product > target:
                return None
            group.append(i)
            product *= big[i]
            i += 1
        groups.append(group)
    # Trailing size-1 dims of `big` join the last group.
    while i < len(big):
        if big[i] != 1:
            return None
        groups[-1].append(i)
        i += 1
    return groups


def reshape(value: ir.Value, shape: Sequence[int]) -> ir.Value:
    """Row-major reshape: one collapse or expand when a reassociation
    exists, else collapse to 1-D and expand."""
    src, shape = shape_of(value), list(shape)
    if src == shape:
        return value
    if len(src) > len(shape):
        groups = reshape_groups(src, shape)
        if groups is not None:
            return collapse(value, groups)
    elif len(src) < len(shape):
        groups = reshape_groups(shape, src)
        if groups is not None:
            return expand(value, shape, groups)
    flat = value if len(src) == 1 else collapse(value, [list(range(len(src)))])
    if len(shape) == 1:
        return flat
    return expand(flat, shape, [list(range(len(shape)))])


# ---------------------------------------------------------------------------
# Op lowerings
# ---------------------------------------------------------------------------

def _result_type(op) -> ir.RankedTensorType:
    return ir.RankedTensorType(op.results[0].type)


def _operands(op) -> list[ir.Value]:
    return list(op.operands)


def lower_elementwise(op) -> ir.Value:
    body = SCALAR_BODIES[op.name]
    attrs = op.attributes
    return build_elementwise(_result_type(op), _operands(op),
                             lambda b, args: body(b, attrs, args))


def _conv_operands(op):
    """input, filter, bias (or None), strides, dilations, padding."""
    attrs = op.attributes
    operands = list(op.operands)
    bias = operands[2] if len(operands) > 2 else None
    return (operands[0], operands[1], bias, *window_attributes(attrs))


def pad_nhwc(value, padding, fill):
    top, left, bottom, right = padding
    return pad(value, [0, top, left, 0], [0, bottom, right, 0], fill)


def lower_conv2d(op) -> ir.Value:
    x, w, bias, strides, dilations, padding = _conv_operands(op)
    out_shape = list(_result_type(op).shape)
    x = pad_nhwc(x, padding, 0.0)
    init = broadcast_to(bias, out_shape, [0, 1, 2]) if bias is not None else filled(out_shape, 0.0)
    return linalg.conv_2d_nhwc_hwcf(x, w, outs=[init], strides=strides, dilations=dilations)


def lower_depthwise_conv2d(op) -> ir.Value:
    x, w, bias, strides, dilations, padding = _conv_operands(op)
    out_shape = list(_result_type(op).shape)
    kh, kw, c, m = shape_of(w)
    x = pad_nhwc(x, padding, 0.0)
    if m == 1:
        w = collapse(w, [[0], [1], [2, 3]])
        init = broadcast_to(bias, out_shape, [0, 1, 2]) if bias is not None \
            else filled(out_shape, 0.0)
        return linalg.depthwise_conv_2d_nhwc_hwc(x, w, outs=[init], strides=strides,
                                                 dilations=dilations)
    n, oh, ow, _ = out_shape
    shape5 = [n, oh, ow, c, m]
    if bias is not None:
        init = broadcast_to(expand(bias, [c, m], [[0, 1]]), shape5, [0, 1, 2])
    else:
        init = filled(shape5, 0.0)
    y = linalg.depthwise_conv_2d_nhwc_hwcm(x, w, outs=[init], strides=strides,
                                           dilations=dilations)
    return collapse(y, [[0], [1], [2], [3, 4]])


def lower_matmul(op) -> ir.Value:
    operands = _operands(op)
    lhs, rhs = operands[0], operands[1]
    bias = operands[2] if len(operands) > 2 else None
    attrs = op.attributes
    out_shape = list(_result_type(op).shape)
    init = broadcast_to(bias, out_shape, [0]) if bias is not None else filled(out_shape, 0.0)
    if not attr_flag(attrs, "transpose_lhs") and not attr_flag(attrs, "transpose_rhs"):
        return linalg.matmul(lhs, rhs, outs=[init])
    # Transposes are permuted indexing maps: no copy of the (often
    # constant) operand is made. Loops are (m, n, k).
    m_, n_, k_ = (ir.AffineDimExpr.get(d) for d in range(3))
    lhs_map = [k_, m_] if attr_flag(attrs, "transpose_lhs") else [m_, k_]
    rhs_map = [n_, k_] if attr_flag(attrs, "transpose_rhs") else [k_, n_]
    maps = [ir.AffineMap.get(3, 0, exprs) for exprs in (lhs_map, rhs_map, [m_, n_])]
    return linalg.matmul(lhs, rhs, outs=[init], indexing_maps=maps)


def pool_window(op):
    strides, _, padding = window_attributes(op.attributes)
    return attr_ints(op.attributes, "kernel"), strides, padding


def window_counts(size: int, out: int, kernel: int, stride: int, low: int) -> np.ndarray:
    """How many window taps of each output position fall inside [0, size)."""
    starts = np.arange(out) * stride - low
    return np.minimum(starts + kernel, size) - np.maximum(starts, 0)


def configured(op, epilogue: ir.Value) -> ir.Value:
    """`epilogue` (a generic whose first input is the op's reduction) with
    the op's lowering configuration, for its transform script."""
    if ATTRIBUTE in op.attributes:
        epilogue.owner.operation.attributes[ATTRIBUTE] = op.attributes[ATTRIBUTE]
    return epilogue


def lower_avg_pool2d(op) -> ir.Value:
    (x,) = _operands(op)
    kernel, strides, padding = pool_window(op)
    out_shape = list(_result_type(op).shape)
    n, h, w, c = shape_of(x)
    _, oh, ow, _ = out_shape
    padded = pad_nhwc(x, padding, 0.0)
    sums = linalg.pooling_nhwc_sum(padded, empty(kernel), outs=[filled(out_shape, 0.0)],
                                   strides=strides, dilations=[1, 1])
    include_pad = attr_flag(op.attributes, "count_include_pad") or not any(padding)
    if include_pad:
        count = float(kernel[0] * kernel[1])
        return configured(op, build_elementwise(_result_type(op), [sums],
                                                lambda b, a: b.div(a[0], b.const(count))))
    # The divisor of position (y, x) is rows(y) * cols(x): two small
    # constant vectors computed now.
    rows = dense_const(window_counts(h, oh, kernel[0], strides[0], padding[0]))
    cols = dense_const(window_counts(w, ow, kernel[1], strides[1], padding[1]))
    (result,) = build_generic(
        [(sums, identity_map(4)), (rows, projection_map(4, [1])), (cols, projection_map(4, [2]))],
        [(empty(out_shape), identity_map(4))], ["parallel"] * 4,
        lambda b, a: b.div(a[0], b.mul(a[1], a[2])))
    return result


def lower_max_pool2d(op) -> ir.Value:
    (x,) = _operands(op)
    kernel, strides, padding = pool_window(op)
    out_shape = list(_result_type(op).shape)
    padded = pad_nhwc(x, padding, F32_LOWEST)
    d = [ir.AffineDimExpr.get(i) for i in range(6)]  # n, oh, ow, c, kh, kw
    in_map = ir.AffineMap.get(6, 0, [d[0], d[1] * strides[0] + d[4],
                                     d[2] * strides[1] + d[5], d[3]])
    # The window operand only gives the kh/kw loops their extent.
    (result,) = build_generic(
        [(padded, in_map), (empty(kernel), projection_map(6, [4, 5]))],
        [(filled(out_shape, F32_LOWEST), projection_map(6, [0, 1, 2, 3]))],
        ["parallel"] * 4 + ["reduction"] * 2,
        lambda b, a: b.max(a[0], a[2]))
    return result


@dataclass(frozen=True)
class Elements:
    """A tensor of `shape` as a reduction reads it, element by element:
    generic `inputs` (tensors with maps over the tensor's loops) and
    `scalar(b, args)`, one element from their values. A tensor reads
    itself; a fused reduction group's input is its element-wise prologue,
    computed as the reduction reads it instead of stored first."""
    shape: list[int]
    inputs: list[tuple[ir.Value, ir.AffineMap]]
    scalar: Callable[[ScalarBuilder, Sequence[ir.Value]], ir.Value]

    @staticmethod
    def of(value: ir.Value) -> "Elements":
        shape = shape_of(value)
        return Elements(shape, [(value, identity_map(len(shape)))], lambda b, args: args[0])


def reduce(elements: Elements, axes: Sequence[int], init: float,
           combine: Callable[[ScalarBuilder, ir.Value, ir.Value], ir.Value],
           extra: Sequence[tuple[ir.Value, ir.AffineMap]] = (),
           element: Callable[[ScalarBuilder, ir.Value, Sequence[ir.Value]], ir.Value] | None = None
           ) -> ir.Value:
    """A generic reducing `elements` over `axes` (dropped from the result).
    `combine(b, element, acc)`; `element(b, x, extras)` transforms each
    element first, reading `extra` operands given with maps over the
    input's loops."""
    shape = elements.shape
    rank = len(shape)
    axes = sorted(set(axes))
    kept = [d for d in range(rank) if d not in axes]
    out_shape = [shape[d] for d in kept]
    count = len(elements.inputs)

    def body(b, args):
        x, extras, acc = elements.scalar(b, args[:count]), args[count:-1], args[-1]
        if element is not None:
            x = element(b, x, extras)
        return combine(b, x, acc)

    (result,) = build_generic(
        list(elements.inputs) + list(extra),
        [(filled(out_shape, init), projection_map(rank, kept))],
        ["reduction" if d in axes else "parallel" for d in range(rank)], body)
    return result


def _keep_dims(value: ir.Value, in_shape: Sequence[int], axes: Sequence[int]) -> ir.Value:
    """Reinserts the reduced axes as size-1 dims."""
    kept_shape = [1 if d in axes else s for d, s in enumerate(in_shape)]
    return reshape(value, kept_shape)


def _reduce_op(init, combine, mean=False):
    def lower(op, elements: Elements) -> ir.Value:
        axes = attr_ints(op.attributes, "axes")
        result = reduce(elements, axes, init, combine)
        if mean:
            count = float(np.prod([elements.shape[a] for a in axes], dtype=np.int64))
            result = build_elementwise(ir.RankedTensorType(result.type), [result],
                                       lambda b, a: b.div(a[0], b.const(count)))
        if attr_flag(op.attributes, "keep_dims"):
            result = _keep_dims(result, elements.shape, axes)
        return result
    return lower


def global_avg_pool(op, elements: Elements) -> ir.Value:
    n, h, w, c = elements.shape
    sums = reduce(elements, [1, 2], 0.0, lambda b, v, acc: b.add(acc, v))
    count = float(h * w)
    mean = configured(op, build_elementwise(ir.RankedTensorType(sums.type), [sums],
                                            lambda b, a: b.div(a[0], b.const(count))))
    return expand(mean, [n, 1, 1, c], [[0, 1, 2], [3]])


def softmax(op, elements: Elements) -> ir.Value:
    """The running maximum, the sum of exp(x - max), then each exp(x - max)
    divided by the sum: three generics, as upstream's decomposition of
    `linalg.softmax` (with its subtraction and exponential fused into the
    sum)."""
    axis = attr_int(op.attributes, "axis")
    shape = elements.shape
    rank = len(shape)
    row_map = projection_map(rank, [d for d in range(rank) if d != axis])
    peak = reduce(elements, [axis], F32_LOWEST, lambda b, v, acc: b.max(v, acc))
    total = reduce(elements, [axis], 0.0, lambda b, v, acc: b.add(acc, v),
                   extra=[(peak, row_map)],
                   element=lambda b, v, ex: b.exp(b.sub(v, ex[0])))
    count = len(elements.inputs)

    def normalise(b, args):
        x = elements.scalar(b, args[:count])
        return b.div(b.exp(b.sub(x, args[count])), args[count + 1])
    (result,) = build_generic(
        list(elements.inputs) + [(peak, row_map), (total, row_map)],
        [(empty(shape), identity_map(rank))], ["parallel"] * rank, normalise)
    return result


#: The reductions, by op name, as functions of the op and the elements
#: they reduce (their operand, or a fused group's prologue of it).
REDUCTION_LOWERINGS: dict[str, Callable[[ir.Operation, Elements], ir.Value]] = {
    "tinyml.reduce_sum": _reduce_op(0.0, lambda b, x, acc: b.add(acc, x)),
    "tinyml.reduce_mean": _reduce_op(0.0, lambda b, x, acc: b.add(acc, x), mean=True),
    "tinyml.reduce_max": _reduce_op(F32_LOWEST, lambda b, x, acc: b.max(x, acc)),
    "tinyml.global_avg_pool": global_avg_pool,
    "tinyml.softmax": softmax,
}


def _of_operand(reduction):
    return lambda op: reduction(op, Elements.of(_operands(op)[0]))


def lower_reshape(op) -> ir.Value:
    return reshape(_operands(op)[0], list(_result_type(op).shape))


def lower_transpose(op) -> ir.Value:
    (x,) = _operands(op)
    perm = attr_ints(op.attributes, "permutation")
    result_type = _result_type(op)
    return linalg.transpose(x, outs=[empty(list(result_type.shape), result_type.element_type)],
                            permutation=perm).result


def lower_slice(op) -> ir.Value:
    """`tensor.extract_slice` of the elements read (forwards), then a copy
    into a tensor of its own that reverses the dimensions of a negative
    stride: the kernels' bare-pointer arguments carry no strided views."""
    (x,) = _operands(op)
    offsets = attr_ints(op.attributes, "offsets")
    strides = attr_ints(op.attributes, "strides")
    result_type = _result_type(op)
    sizes = list(result_type.shape)
    firsts = [o if s > 0 else o + (n - 1) * s for o, n, s in zip(offsets, sizes, strides)]
    window = tensor.ExtractSliceOp(result_type, x, [], [], [], firsts, sizes,
                                   [abs(s) for s in strides]).result
    rank = len(sizes)
    in_map = ir.AffineMap.get(rank, 0, [
        ir.AffineDimExpr.get(d) if s > 0 else n - 1 - ir.AffineDimExpr.get(d)
        for d, (n, s) in enumerate(zip(sizes, strides))])
    (result,) = build_generic([(window, in_map)], [(empty(sizes), identity_map(rank))],
                              ["parallel"] * rank, lambda b, a: a[0])
    return result


def lower_pad(op) -> ir.Value:
    (x,) = _operands(op)
    attrs = op.attributes
    amounts = attr_ints(attrs, "padding")
    rank = len(shape_of(x))
    value = attr_float(attrs, "value", 0.0)
    return pad(x, amounts[:rank], amounts[rank:], value)


def lower_concat(op) -> ir.Value:
    """Concat in destination-passing style: one buffer for the result, each
    operand materialized into its slice (`memref.subview` +
    `bufferization.materialize_in_destination`), the result a `to_tensor`
    of the buffer.

    The tensor form, a chain of one `tensor.insert_slice` per operand, puts
    all N partial results in one alias set, and one-shot bufferization's
    conflict analysis costs about N^3 on it (minutes for N = 500). Here each
    operand is an alias set of its own. Each slice is taken right before the
    `tensor.empty` its operand is computed in, so eliminate-empty-tensors
    still lets that producer write straight into the slice (no copy, and the
    buffer lives from there, as with the chain)."""
    inputs = _operands(op)
    axis = attr_int(op.attributes, "axis")
    result_type = _result_type(op)
    buffer_type = ir.MemRefType.get(list(result_type.shape), result_type.element_type)
    concat = op.operation
    anchors = []
    seen = set()
    for value in inputs:
        # A repeated operand is computed once: only its first slice can
        # take the producer's writes, the others are copies at the concat.
        anchor = None if value in seen else _empty_destination(value, concat)
        seen.add(value)
        anchors.append(anchor or concat)
    earliest = anchors[0]
    for anchor in anchors[1:]:
        if anchor.is_before_in_block(earliest):
            earliest = anchor
    with ir.InsertionPoint(earliest):
        buffer = memref.alloc(buffer_type, [], [])
    offset = 0
    first_slots = {}
    for value, anchor in zip(inputs, anchors):
        shape = shape_of(value)
        offsets = [0] * len(shape)
        offsets[axis] = offset
        with ir.InsertionPoint(anchor):
            slot = memref.subview(buffer, offsets, shape, [1] * len(shape))
        if value in first_slots:
            # A repeat is copied from the first slice: the tensor keeps one
            # reader (bufferization's cost grows with the square of those).
            memref.copy(first_slots[value], slot)
        else:
            bufferization.MaterializeInDestinationOp(None, value, slot, restrict=True,
                                                     writable=True)
            first_slots[value] = slot
        offset += shape[axis]
    return bufferization.ToTensorOp(result_type, buffer, restrict=True, writable=True).result


def _empty_destination(value: ir.Value, user: ir.Operation) -> ir.Operation | None:
    """The `tensor.empty` (in `user`'s block) whose buffer `value` is
    computed in, following the init a destination-style op or a loop writes
    its result into; None when `value` has no such origin."""
    while isinstance(value, ir.OpResult):
        owner = value.owner.operation
        if owner.block != user.block:
            return None
        if owner.name == "tensor.empty":
            return owner
        value = _tied_init(owner, value.result_number)
        if value is None:
            return None
    return None


def _tied_init(op: ir.Operation, result_number: int) -> ir.Value | None:
    """The operand a result of `op` is written into, for the ops the
    lowerings emit: linalg ops (outs), scf.for (iter_args), tensor.insert
    and tensor.insert_slice (dest)."""
    operands = list(op.operands)
    if op.name.startswith("linalg."):
        return operands[len(operands) - len(op.results) + result_number]
    if op.name == "scf.for":
        return operands[3 + result_number]
    if op.name in ("tensor.insert", "tensor.insert_slice"):
        return operands[1]
    return None


Lowering = Callable[[ir.OpView], ir.Value]

#: How each tinyml op lowers, by op name.
def _lower_group(op) -> ir.Value:
    # fused_lowering.py builds a group from the lowerings of this module,
    # so it is imported when the first group is lowered, not with this one.
    from .fused_lowering import lower_fused
    return lower_fused(op)


LOWERINGS: dict[str, Lowering] = {
    **{name: lower_elementwise for name in SCALAR_BODIES},
    "tinyml.conv2d": lower_conv2d,
    "tinyml.depthwise_conv2d": lower_depthwise_conv2d,
    "tinyml.matmul": lower_matmul,
    "tinyml.avg_pool2d": lower_avg_pool2d,
    "tinyml.max_pool2d": lower_max_pool2d,
    **{name: _of_operand(reduction) for name, reduction in REDUCTION_LOWERINGS.items()},
    "tinyml.reshape": lower_reshape,
    "tinyml.transpose": lower_transpose,
    "tinyml.pad": lower_pad,
    "tinyml.slice": lower_slice,
    "tinyml.concat": lower_concat,
    "tinyml.fused": _lower_group,
}



def lower_op(op: ir.Operation, lowering=None) -> list[ir.Value]:
    """Lowers one tinyml op in place with `lowering` (default: the op's in
    LOWERINGS, or QUANTIZED_LOWERINGS): builds the replacement before it,
    redirects its uses and erases it. Returns the replacement values."""
    name = op.name
    if lowering is None:
        lowering = LOWERINGS.get(name)
        if has_quantized_data(op):
            # Built on this module's helpers: imported when first needed.
            from .quantized_lowering import QUANTIZED_LOWERINGS
            lowering = QUANTIZED_LOWERINGS.get(name)
    if lowering is None:
        raise PassError(f"no lowering to linalg for '{name}'", op.location)
    # A lowering raises PassError where the input is at fault; anything else
    # it raises is a defect of tinyml's and must reach the user as one.
    with ir.InsertionPoint(op), op.location:
        replacement = lowering(op.opview)
    if len(op.results) == 1:
        replacements = [as_value(replacement)]
    else:
        replacements = list(replacement)
        if len(replacements) != len(op.results):
            raise RuntimeError(f"lowering of '{name}' gave {len(replacements)} values for "
                               f"{len(op.results)} results")
    for result, value in zip(op.results, replacements):
        result.replace_all_uses_with(value)
    op.erase()
    return replacements


def _tinyml_ops(block: ir.Block) -> list[ir.Operation]:
    """The tinyml ops of `block`, and of the regions of its other ops (the
    loops of tinyml-fuse-row-bands), in order."""
    found = []
    for op in block.operations:
        op = op.operation
        if op.name.startswith("tinyml."):
            found.append(op)
            continue
        for region in op.regions:
            for inner in region.blocks:
                found += _tinyml_ops(inner)
    return found


def copy_repeated_results(func: ir.Operation) -> None:
    """A value returned twice (two ONNX outputs of one tensor) gets a copy
    for each repeat: every result must own a buffer, and bufferization's
    results-to-out-params crashes on a repeated one."""
    for block in func.regions[0].blocks:
        terminator = block.operations[len(block.operations) - 1].operation
        if terminator.name != "func.return":
            continue
        seen = []
        for i, value in enumerate(terminator.operands):
            if value in seen:
                with ir.InsertionPoint(terminator), terminator.location:
                    # alloc_tensor with `copy`: a linalg.copy into an empty
                    # tensor would bufferize in place, into the same buffer.
                    copy = bufferization.alloc_tensor(value.type, [], copy=value)
                terminator.operands[i] = copy
            seen.append(value)


def lower_function(func: ir.Operation) -> None:
    copy_repeated_results(func)
    for block in func.regions[0].blocks:
        for op in _tinyml_ops(block):
            lower_op(op)


@register
class LowerToLinalg(Pass):
    name = "tinyml-lower-to-linalg"
    summary = "Lower every tinyml op to linalg on tensors (+ tensor, arith, math)"

    def apply(self, module):
        for func in functions(module):
            lower_function(func)
