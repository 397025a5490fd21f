"""The linalg builders that the lowerings of tinyml ops compose (float,
quantized and fused: float_lowering.py, quantized_lowering.py,
fused_lowering.py): scalar math, `linalg.generic`, affine maps and small
tensor ops, at the current insertion point. This module imports no
lowering, so each lowering imports it and the ones it builds on, and the
tinyml-lower-to-linalg pass imports them all: no cycle.

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
- `Elements` is a tensor as a reduction reads it, element by element, and
  `reduce` the generic reducing it.
- `apply_lowering(op, lowering)` replaces an op by what a lowering builds.

Chaining scalar bodies into one loop nest, e.g. `relu(x + z)`:

    def body(b, args):                      # args: x, z, then the init
        s = SCALAR_BODIES[add_op.name](b, add_op.attributes, args[:2])
        return SCALAR_BODIES[relu_op.name](b, relu_op.attributes, [s])
    (y,) = build_generic(
        [(x, broadcast_map(shape_of(x), shape)), (z, broadcast_map(shape_of(z), shape))],
        [(empty(shape), identity_map(len(shape)))], ["parallel"] * len(shape), body)

`ScalarBuilder.max` and `.min` are `arith.cmpf` + `arith.select`, never
`arith.maximumf`: that lowers to a `fmaximumf` call that Cortex-M runtimes
lack.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import numpy as np
from mlir import ir
from mlir.dialects import arith, math, tensor

from ..dialects import tinyml as tm
from ..ir.attributes import attr_float, attr_ints, window_attributes
from ..ir.lazy_modules import linalg
from ..ir.ops import keyed_by_name
from ..ir.values import shape_of


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

    def abs(self, x):
        return math.absf(x)

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
SCALAR_BODIES: dict[str, ScalarBody] = keyed_by_name({
    tm.AddOp: lambda b, attrs, a: b.add(a[0], a[1]),
    tm.SubOp: lambda b, attrs, a: b.sub(a[0], a[1]),
    tm.MulOp: lambda b, attrs, a: b.mul(a[0], a[1]),
    tm.DivOp: lambda b, attrs, a: b.div(a[0], a[1]),
    tm.MaximumOp: lambda b, attrs, a: b.max(a[0], a[1]),
    tm.MinimumOp: lambda b, attrs, a: b.min(a[0], a[1]),
    tm.NegOp: lambda b, attrs, a: b.neg(a[0]),
    tm.ExpOp: lambda b, attrs, a: b.exp(a[0]),
    tm.ReluOp: lambda b, attrs, a: b.max(a[0], b.const(0.0)),
    tm.SigmoidOp: _sigmoid,
    tm.TanhOp: lambda b, attrs, a: b.tanh(a[0]),
    tm.ClampOp: _clamp,
    # Parameters are 1-D over the last axis: numpy broadcasting lines them up.
    tm.BatchNormOp: _batch_norm,
})


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


def int_type(bits: int) -> ir.IntegerType:
    """The signless integer type of `bits` bits."""
    return ir.IntegerType.get_signless(bits)


def int_constant(array: np.ndarray, bits: int) -> ir.Value:
    """A dense integer tensor constant of `array`, as int8, int16, int32 or int64."""
    array = np.ascontiguousarray(array, dtype={8: np.int8, 16: np.int16, 32: np.int32,
                                               64: np.int64}[bits])
    tensor_type = ir.RankedTensorType.get(list(array.shape), int_type(bits))
    return arith.ConstantOp(tensor_type, ir.DenseElementsAttr.get(array, type=tensor_type)).result


def int_scalar(value: int, bits: int) -> ir.Value:
    """A signless integer scalar constant of `bits` bits."""
    return scalar_const(value, int_type(bits))


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
    return as_value(linalg.broadcast(value, outs=[init], dimensions=list(dimensions)).result)


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
# NHWC windows (convolutions and pools)
# ---------------------------------------------------------------------------

def pad_before_transpose(padded: ir.Operation) -> ir.Value:
    """`tensor.pad(linalg.transpose(x))` as `linalg.transpose(tensor.pad(x))`,
    the padding permuted; replaces the pad and returns the new transpose.
    Tiled, a window of the transposed tensor is then a transpose of a
    static-sized tile: a pad's tiles at the edges have dynamic sizes, and
    fusing a transpose into such a tile aborts upstream
    (`fuse_into_containing_op`, MLIR 22). The transpose may be seen through
    storage casts (int8); canonicalization erases what is left unused."""
    transpose = padded.operands[0].owner.operation
    while transpose.name == "quant.scast":  # int8: the transpose is of the storage
        transpose = transpose.operands[0].owner.operation
    x = transpose.operands[0]
    perm = attr_ints(transpose.attributes, "permutation")
    low, high = [0] * len(perm), [0] * len(perm)
    for i, p in enumerate(perm):
        low[p] = list(ir.DenseI64ArrayAttr(padded.attributes["static_low"]))[i]
        high[p] = list(ir.DenseI64ArrayAttr(padded.attributes["static_high"]))[i]
    with ir.InsertionPoint(padded), padded.location:
        moved = padded.clone()
        moved.operands[0] = x
        moved.attributes["static_low"] = ir.DenseI64ArrayAttr.get(low)
        moved.attributes["static_high"] = ir.DenseI64ArrayAttr.get(high)
        element_type = ir.RankedTensorType(x.type).element_type
        moved.results[0].set_type(ir.RankedTensorType.get(
            [n + lo + hi for n, lo, hi in zip(shape_of(x), low, high)], element_type))
        result = as_value(linalg.transpose(
            moved.results[0], outs=[empty(shape_of(padded.results[0]), element_type)],
            permutation=perm).result)
    padded.results[0].replace_all_uses_with(result)
    padded.erase()
    return result


def pad_nhwc(value, padding, fill):
    top, left, bottom, right = padding
    return pad(value, [0, top, left, 0], [0, bottom, right, 0], fill)


def pool_geometry(op):
    """(kernel, strides, padding) of a pool op."""
    strides, _, padding = window_attributes(op.attributes)
    return attr_ints(op.attributes, "kernel"), strides, padding


def window_counts(size: int, out: int, kernel: int, stride: int, low: int) -> np.ndarray:
    """How many window taps of each output position fall inside [0, size)."""
    starts = np.arange(out) * stride - low
    return np.minimum(starts + kernel, size) - np.maximum(starts, 0)


# ---------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------

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


# ---------------------------------------------------------------------------
# Replacing an op by its lowering
# ---------------------------------------------------------------------------

Lowering = Callable[[ir.OpView], ir.Value]


def as_value(result) -> ir.Value:
    """The single value of what a builder returned (value, op or list)."""
    if isinstance(result, ir.Value):
        return result
    if isinstance(result, (ir.OpView, ir.Operation)):
        return result.result
    (value,) = list(result)
    return value


def apply_lowering(op: ir.Operation, lowering: Lowering) -> list[ir.Value]:
    """Lowers one op in place with `lowering` (called with the insertion
    point and location of the op): builds the replacement before it,
    redirects its uses and erases it. Returns the replacement values."""
    # A lowering raises PassError where the input is at fault; anything else
    # it raises is a defect of tinyml's and must reach the user as one.
    with ir.InsertionPoint(op), op.location:
        replacement = lowering(op.opview)
    if len(op.results) == 1:
        replacements = [as_value(replacement)]
    else:
        replacements = list(replacement)
        if len(replacements) != len(op.results):
            raise RuntimeError(f"lowering of '{op.name}' gave {len(replacements)} values for "
                               f"{len(op.results)} results")
    for result, value in zip(op.results, replacements):
        result.replace_all_uses_with(value)
    op.erase()
    return replacements
