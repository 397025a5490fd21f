"""tinyml-cancel-transposes: move layout transposes down the graph until
they meet their inverse and cancel.

The ONNX frontend wraps every NCHW op in `transpose NCHW->NHWC`, the NHWC op,
`transpose NHWC->NCHW`. Between two convolutions that leaves
`T_back -> relu -> add(bias) -> T_fwd`. This pass sinks a transpose `T(x)`
(`T(x)[i] = x[perm[i]]`) below the ops that commute with it:

    unary(T(x))               = T(unary(x))              relu, clamp, sigmoid, ...
    binary(T(x), T(y))        = T(binary(x, y))          add, sub, mul, ...
    binary(T(x), c)           = T(binary(x, c'))         c' = c, rank-expanded,
                                                         permuted by perm^-1
    concat(T(x), T(y), a)     = T(concat(x, y, perm[a]))
    pad(T(x), lo, hi)         = T(pad(x, lo', hi'))      lo'[perm[i]] = lo[i]
    reduce(T(x), axes)        = T'(reduce(x, perm[axes]))
    softmax(T(x), a)          = T(softmax(x, perm[a]))
    batch_norm(T(x))          = T(batch_norm(x))         when perm keeps the
                                                         channel (last) axis

and the dialect's folder turns `T2(T1(x))` into one transpose or nothing. A
transpose is only sunk when the op is its sole user (sinking a shared one
would duplicate it). Finally a transpose that moves only size-1 dimensions is
a `tinyml.reshape` (option `unit-dims-to-reshape`), which folds with its
neighbouring reshapes.

Run it between `canonicalize`s and follow it with `tinyml-dce` (see
`tinyml.frontend`).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
from mlir import ir
from mlir.rewrite import RewritePatternSet, apply_patterns_and_fold_greedily

from .registry import Option, Pass, register

UNARY = ("tinyml.relu", "tinyml.clamp", "tinyml.sigmoid", "tinyml.tanh", "tinyml.exp",
         "tinyml.neg")
BINARY = ("tinyml.add", "tinyml.sub", "tinyml.mul", "tinyml.div", "tinyml.maximum",
          "tinyml.minimum")
REDUCE = ("tinyml.reduce_sum", "tinyml.reduce_mean", "tinyml.reduce_max")

# A pattern function returns None when it rewrote the op and NO_MATCH when it
# did not (the Python rewrite API treats a truthy result as failure).
NO_MATCH = True


# --- small helpers ------------------------------------------------------------

def shape_of(value: ir.Value) -> list[int]:
    return list(ir.RankedTensorType(value.type).shape)


def tensor_type(shape: Sequence[int]) -> ir.RankedTensorType:
    return ir.RankedTensorType.get(list(shape), ir.F32Type.get())


def inverse(perm: Sequence[int]) -> list[int]:
    result = [0] * len(perm)
    for i, p in enumerate(perm):
        result[p] = i
    return result


def permuted(values: Sequence, perm: Sequence[int]) -> list:
    """`values` of T(x) read as those of x: out[perm[i]] = values[i]."""
    out = [None] * len(perm)
    for i, p in enumerate(perm):
        out[p] = values[i]
    return out


def attributes_of(op: ir.Operation) -> dict:
    return {name: op.attributes[name] for name in op.attributes}


def producer(value: ir.Value) -> ir.Operation | None:
    if isinstance(value, ir.OpResult):
        return value.owner.operation
    return None


def transpose_input(value: ir.Value, user: ir.Operation):
    """(x, perm) when `value` is `transpose(x, perm)` used only by `user`."""
    op = producer(value)
    if op is None or op.name != "tinyml.transpose":
        return None
    if any(use.owner.operation != user for use in value.uses):
        return None
    return op.operands[0], list(op.attributes["permutation"])


def constant_array(value: ir.Value) -> np.ndarray | None:
    op = producer(value)
    if op is None or op.name != "arith.constant":
        return None
    attr = op.attributes["value"]
    if not isinstance(attr, ir.DenseElementsAttr):
        return None
    array = np.array(attr)
    return array.reshape(shape_of(value))


def create(name: str, shape, operands, attributes: dict, loc) -> ir.Value:
    return ir.Operation.create(name, results=[tensor_type(shape)], operands=list(operands),
                               attributes=attributes, loc=loc).result


def transpose(value: ir.Value, perm: Sequence[int], loc) -> ir.Value:
    shape = shape_of(value)
    return create("tinyml.transpose", [shape[p] for p in perm], [value],
                  {"permutation": ir.DenseI64ArrayAttr.get(list(perm))}, loc)


def constant(array: np.ndarray, loc) -> ir.Value:
    attr = ir.DenseElementsAttr.get(np.ascontiguousarray(array, dtype=np.float32))
    return ir.Operation.create("arith.constant", results=[attr.type],
                               attributes={"value": attr}, loc=loc).result


def i64s(values) -> ir.DenseI64ArrayAttr:
    return ir.DenseI64ArrayAttr.get([int(v) for v in values])


# --- patterns: each reads as the identity it applies ----------------------------

def sink_through_unary(op, rewriter):
    """unary(T(x)) -> T(unary(x))"""
    op = op.operation
    source = transpose_input(op.operands[0], op)
    if source is None:
        return NO_MATCH
    x, perm = source
    with rewriter.ip:
        y = create(op.name, shape_of(x), [x], attributes_of(op), op.location)
        rewriter.replace_op(op, [transpose(y, perm, op.location)])


def sink_through_binary(op, rewriter):
    """binary(T(x), T(y)) -> T(binary(x, y)); constants are permuted."""
    op = op.operation
    rank = len(shape_of(op.results[0]))
    perm, operands = None, []
    for value in op.operands:
        source = transpose_input(value, op)
        if source is not None:
            x, p = source
            if len(p) != rank or (perm is not None and p != perm):
                return NO_MATCH
            perm = p
            operands.append(x)
            continue
        array = constant_array(value)
        if array is None:
            return NO_MATCH
        # A scalar broadcasts the same in any layout: keep it as it is.
        operands.append(value if array.size == 1 and array.ndim <= 1 else array)
    if perm is None:
        return NO_MATCH
    with rewriter.ip:
        new_operands = []
        for operand in operands:
            if isinstance(operand, np.ndarray):
                expanded = operand.reshape((1,) * (rank - operand.ndim) + operand.shape)
                operand = constant(expanded.transpose(inverse(perm)), op.location)
            new_operands.append(operand)
        shape = permuted(shape_of(op.results[0]), perm)
        y = create(op.name, shape, new_operands, attributes_of(op), op.location)
        rewriter.replace_op(op, [transpose(y, perm, op.location)])


def sink_through_concat(op, rewriter):
    """concat(T(x), T(y), axis) -> T(concat(x, y, perm[axis]))"""
    op = op.operation
    sources = [transpose_input(v, op) for v in op.operands]
    if any(s is None for s in sources) or len({tuple(p) for _, p in sources}) != 1:
        return NO_MATCH
    perm = sources[0][1]
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    with rewriter.ip:
        y = create(op.name, permuted(shape_of(op.results[0]), perm), [x for x, _ in sources],
                   {"axis": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), perm[axis])},
                   op.location)
        rewriter.replace_op(op, [transpose(y, perm, op.location)])


def sink_through_pad(op, rewriter):
    """pad(T(x), low, high) -> T(pad(x, low permuted, high permuted))"""
    op = op.operation
    source = transpose_input(op.operands[0], op)
    if source is None:
        return NO_MATCH
    x, perm = source
    padding = list(op.attributes["padding"])
    rank = len(perm)
    low, high = permuted(padding[:rank], perm), permuted(padding[rank:], perm)
    attributes = attributes_of(op)
    attributes["padding"] = i64s(low + high)
    with rewriter.ip:
        y = create(op.name, permuted(shape_of(op.results[0]), perm), [x], attributes,
                   op.location)
        rewriter.replace_op(op, [transpose(y, perm, op.location)])


def sink_through_reduce(op, rewriter):
    """reduce(T(x), axes) -> T'(reduce(x, perm[axes])), T' the order of the
    kept dimensions (nothing when they stay in order)."""
    op = op.operation
    source = transpose_input(op.operands[0], op)
    if source is None:
        return NO_MATCH
    x, perm = source
    axes = list(op.attributes["axes"])
    keep = "keep_dims" in op.attributes
    x_axes = sorted(perm[a] for a in axes)
    x_shape = shape_of(x)
    attributes = attributes_of(op)
    attributes["axes"] = i64s(x_axes)
    with rewriter.ip:
        if keep:
            shape = [1 if d in x_axes else n for d, n in enumerate(x_shape)]
            y = create(op.name, shape, [x], attributes, op.location)
            rewriter.replace_op(op, [transpose(y, perm, op.location)])
            return None
        kept_x = [d for d in range(len(x_shape)) if d not in x_axes]
        order = [kept_x.index(perm[i]) for i in range(len(perm)) if i not in axes]
        y = create(op.name, [x_shape[d] for d in kept_x], [x], attributes, op.location)
        if order != list(range(len(order))):
            y = transpose(y, order, op.location)
        rewriter.replace_op(op, [y])


def sink_through_softmax(op, rewriter):
    """softmax(T(x), axis) -> T(softmax(x, perm[axis]))"""
    op = op.operation
    source = transpose_input(op.operands[0], op)
    if source is None:
        return NO_MATCH
    x, perm = source
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    with rewriter.ip:
        y = create(op.name, shape_of(x), [x],
                   {"axis": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), perm[axis])},
                   op.location)
        rewriter.replace_op(op, [transpose(y, perm, op.location)])


def sink_through_batch_norm(op, rewriter):
    """batch_norm(T(x)) -> T(batch_norm(x)) when T keeps the channel axis last"""
    op = op.operation
    source = transpose_input(op.operands[0], op)
    if source is None:
        return NO_MATCH
    x, perm = source
    if perm[-1] != len(perm) - 1:
        return NO_MATCH
    with rewriter.ip:
        y = create(op.name, shape_of(x), [x, *list(op.operands)[1:]], attributes_of(op),
                   op.location)
        rewriter.replace_op(op, [transpose(y, perm, op.location)])


def unit_transpose_to_reshape(op, rewriter):
    """A transpose that keeps the order of the dimensions larger than 1 only
    moves size-1 dimensions: it is a reshape."""
    op = op.operation
    shape = shape_of(op.operands[0])
    moved = [p for p in op.attributes["permutation"] if shape[p] != 1]
    if moved != sorted(moved):
        return NO_MATCH
    with rewriter.ip:
        y = create("tinyml.reshape", shape_of(op.results[0]), [op.operands[0]], {},
                   op.location)
        rewriter.replace_op(op, [y])


def sinking_patterns(context: ir.Context) -> RewritePatternSet:
    patterns = RewritePatternSet(context)
    for name in UNARY:
        patterns.add(name, sink_through_unary)
    for name in BINARY:
        patterns.add(name, sink_through_binary)
    for name in REDUCE:
        patterns.add(name, sink_through_reduce)
    patterns.add("tinyml.concat", sink_through_concat)
    patterns.add("tinyml.pad", sink_through_pad)
    patterns.add("tinyml.softmax", sink_through_softmax)
    patterns.add("tinyml.batch_norm", sink_through_batch_norm)
    return patterns


@register
class CancelTransposes(Pass):
    name = "tinyml-cancel-transposes"
    summary = "Sink transposes through element-wise ops until inverse pairs cancel"
    options = (
        Option("unit-dims-to-reshape", bool, True,
               "turn transposes that move only size-1 dimensions into reshapes"),
    )

    def apply(self, module):
        context = module.context
        with context, ir.Location.unknown(context):
            apply_patterns_and_fold_greedily(module, sinking_patterns(context).freeze())
            if self.unit_dims_to_reshape:
                patterns = RewritePatternSet(context)
                patterns.add("tinyml.transpose", unit_transpose_to_reshape)
                apply_patterns_and_fold_greedily(module, patterns.freeze())
