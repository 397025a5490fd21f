"""The float forms of tinyml ops, lowered to linalg on tensors (+ tensor,
arith, math), built with linalg_builders.py: `FLOAT_LOWERINGS[op_name](op)
-> Value` (or a list of values, one per result) lowers one op, called with
the insertion point and location of the op; `REDUCTION_LOWERINGS` are the
reductions as functions of the elements they reduce, which a fused
reduction group (fused_lowering.py) computes from its prologue.

Max-like reductions (relu, maximum, max pool, reduce_max, softmax) use the
builders' compare + select, never `arith.maximumf` (a `fmaximumf` call that
Cortex-M runtimes lack). For the same reason max pooling is a
`linalg.generic` with the pooling maps rather than
`linalg.pooling_nhwc_max`, whose body is `arith.maximumf`.
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np
from mlir import ir
from mlir.dialects import bufferization, memref, tensor

from ..dialects import tinyml as tm
from ..ir.attributes import attr_flag, attr_float, attr_int, attr_ints, window_attributes
from ..ir.lazy_modules import linalg
from ..ir.lowering_config import ATTRIBUTE
from ..ir.ops import keyed_by_name
from ..ir.values import shape_of
from .linalg_builders import (SCALAR_BODIES, Elements, Lowering, broadcast_to, build_elementwise,
                              build_generic, collapse, dense_const, empty, expand, filled,
                              identity_map, pad, pad_nhwc, pool_geometry, projection_map, reduce,
                              reshape, window_counts)

# The lowest finite float32: the identity of max that padding never beats.
F32_LOWEST = float(np.finfo(np.float32).min)


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


def configured(op, epilogue: ir.Value) -> ir.Value:
    """`epilogue` (a generic whose first input is the op's reduction) with
    the op's lowering configuration, for its transform script."""
    if ATTRIBUTE in op.attributes:
        epilogue.owner.operation.attributes[ATTRIBUTE] = op.attributes[ATTRIBUTE]
    return epilogue


def lower_avg_pool2d(op) -> ir.Value:
    (x,) = _operands(op)
    kernel, strides, padding = pool_geometry(op)
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
    kernel, strides, padding = pool_geometry(op)
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
REDUCTION_LOWERINGS: dict[str, Callable[[ir.Operation, Elements], ir.Value]] = keyed_by_name({
    tm.ReduceSumOp: _reduce_op(0.0, lambda b, x, acc: b.add(acc, x)),
    tm.ReduceMeanOp: _reduce_op(0.0, lambda b, x, acc: b.add(acc, x), mean=True),
    tm.ReduceMaxOp: _reduce_op(F32_LOWEST, lambda b, x, acc: b.max(x, acc)),
    tm.GlobalAvgPoolOp: global_avg_pool,
    tm.SoftmaxOp: softmax,
})


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
    first_slots: dict[ir.Value, ir.Value] = {}
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


#: How each tinyml op on float data lowers, by op name (a `tinyml.fused`
#: group is fused_lowering.py's).
FLOAT_LOWERINGS: dict[str, Lowering] = {
    **{name: lower_elementwise for name in SCALAR_BODIES},
    **keyed_by_name({
        tm.Conv2DOp: lower_conv2d,
        tm.DepthwiseConv2DOp: lower_depthwise_conv2d,
        tm.MatmulOp: lower_matmul,
        tm.AvgPool2DOp: lower_avg_pool2d,
        tm.MaxPool2DOp: lower_max_pool2d,
    }),
    **{name: _of_operand(reduction) for name, reduction in REDUCTION_LOWERINGS.items()},
    **keyed_by_name({
        tm.ReshapeOp: lower_reshape,
        tm.TransposeOp: lower_transpose,
        tm.PadOp: lower_pad,
        tm.SliceOp: lower_slice,
        tm.ConcatOp: lower_concat,
    }),
}
