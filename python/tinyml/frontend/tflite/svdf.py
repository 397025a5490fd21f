"""TFLite's SVDF as TFLM computes it (micro/kernels/svdf_common.cc), built
in linalg: a layer keeps, per filter, the last `memory` values of its
feature projection. Each invocation moves that history one place left,
writes the new projection into each filter's last place, weights the
history by the time weights, sums the `rank` filters of each unit with
the bias, then applies the fused activation (float) or requantizes to
int8 (integer: int8 products requantized to the history's int8 or int16,
EvalIntegerSvdfReference, which ignores the activation).

TFLM keeps the history in a variable tensor from one invocation to the
next; the compiled function starts it, as TFLM's first invocation does,
from its reset value (an int8 history's zero point, else 0), or, where
the model streams, from the caller's state, and gives the history after
it. A history is TFLite's [B, F * M], each filter's M values in a row."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
from mlir import ir
from mlir.dialects import arith, linalg, tensor

from ...conversion.linalg_builders import broadcast_to, build_generic, dense_const, empty, \
    int_constant, int_scalar, int_type
from ...conversion.fixed_point_ops import apply_scale
from ..onnx.importer import Const, shape_text
from .importer import TfliteImporter, handles
from .integer_kernels import clamped, elementwise, integer_range, product, requantized, widened
from .integer_operators import check_multiplier, per_tensor
from .operators import activation
from .reader import Operator, Tensor


@dataclass
class Arithmetic:
    """How a layer sums its history: in float, or in int32 accumulators
    with the history's zero point taken off each value."""
    accumulator: ir.Type
    zero: Callable[[], ir.Value]
    term: Callable[[ir.Value, ir.Value], ir.Value]  # a history value x its time weight
    add: Callable[[ir.Value, ir.Value], ir.Value]


def _float_arithmetic() -> Arithmetic:
    f32 = ir.F32Type.get()
    return Arithmetic(f32, lambda: arith.constant(f32, 0.0), arith.mulf, arith.addf)


def _integer_arithmetic(zero_point: int) -> Arithmetic:
    def term(h: ir.Value, w: ir.Value) -> ir.Value:
        return arith.muli(arith.subi(widened(h), int_scalar(zero_point, 32)), widened(w))
    return Arithmetic(int_type(32), lambda: int_scalar(0, 32), term, arith.addi)


@handles("SVDF")
def _svdf(im: TfliteImporter, op: Operator) -> list | tuple[list, bool]:
    """An SVDF layer: float, or integer (int8 input, feature weights and
    output; int8 or int16 time weights and history; an int32 bias)."""
    x, features, times, state, y = (im.tensors[i] for i in (*op.inputs[:3], op.inputs[4],
                                                            op.outputs[0]))
    bias = im.tensors[op.inputs[3]] if op.inputs[3] >= 0 else None
    rank = int(op.options["Rank"])
    _check_shapes(im, x, features, times, bias, state, y, rank)
    if not state.variable:
        raise im.fail(f"state '{state.name}' must be a variable tensor (TFLM keeps the "
                      "history in it)")
    if x.type_name == "FLOAT32":
        return [_float_svdf(im, op, rank)]
    if x.type_name != "INT8":
        raise im.fail(f"input '{x.name}' is {x.type_name}; SVDF takes float32 or int8")
    return [_integer_svdf(im, x, features, times, bias, state, y, rank)], True


def _check_shapes(im: TfliteImporter, x: Tensor, features: Tensor, times: Tensor,
                  bias: Tensor | None, state: Tensor, y: Tensor, rank: int) -> None:
    filters, memory = times.shape if len(times.shape) == 2 else (-1, -1)
    size = x.shape[1] if len(x.shape) == 2 else -1
    batch = x.shape[0] if x.shape else -1
    if rank < 1 or features.shape != (filters, size) or filters % rank or memory < 1 \
            or state.shape != (batch, filters * memory) \
            or y.shape != (batch, filters // rank) \
            or (bias is not None and bias.shape != (filters // rank,)):
        raise im.fail(f"shapes do not fit an SVDF of rank {rank}: input {shape_text(x.shape)}, "
                      f"feature weights {shape_text(features.shape)}, time weights "
                      f"{shape_text(times.shape)}, state {shape_text(state.shape)}, output "
                      f"{shape_text(y.shape)}")


def _float_svdf(im: TfliteImporter, op: Operator, rank: int) -> ir.Value:
    """EvalFloatSvdfReference: the projection, history and sums in float32,
    then the fused activation."""
    weights = [im.input(p) for p in (1, 2)]
    if not all(isinstance(w, Const) for w in weights):
        raise im.fail("SVDF weights must be constant float32 tensors")
    features, times = (w.array for w in weights)
    bias = im.input(3, optional=True)
    if bias is not None and not isinstance(bias, Const):
        raise im.fail("an SVDF bias must be a constant float32 tensor")
    x = im.tensor(im.input(0))
    state = im.tensors[op.inputs[4]]
    assert im.loc is not None, "set while an operator is imported"
    with im.loc:
        newest = _float_product(x, np.ascontiguousarray(features.T))
        history = im.states.get(state.index)
        if history is None:
            history = dense_const(np.zeros(state.shape, np.float32))
        units = times.shape[0] // rank
        y, after = _svdf_step(history, newest, dense_const(times),
                              dense_const(np.zeros(units, np.float32) if bias is None
                                          else bias.array), rank, _float_arithmetic())
    im.carry(state.index, after)
    return activation(im, y, op.options["FusedActivationFunction"])


def _integer_svdf(im: TfliteImporter, x: Tensor, features: Tensor, times: Tensor,
                  bias: Tensor | None, state: Tensor, y: Tensor, rank: int) -> ir.Value:
    """EvalIntegerSvdfReference on the stored int8 input."""
    if features.type_name != "INT8" or features.data is None:
        raise im.fail(f"feature weights '{features.name}' must be constant int8")
    if times.type_name not in ("INT8", "INT16") or times.data is None \
            or state.type_name != times.type_name:
        raise im.fail(f"time weights '{times.name}' ({times.type_name}) and state "
                      f"'{state.name}' ({state.type_name}) must be int8 or int16 alike, the "
                      "weights constant")
    if bias is not None and (bias.type_name != "INT32" or bias.data is None):
        raise im.fail(f"bias '{bias.name}' must be a constant int32 tensor")
    assert features.data is not None and times.data is not None, "checked above"
    (x_scale, x_zero), (f_scale, f_zero), (t_scale, t_zero), (s_scale, s_zero), \
        (y_scale, y_zero) = (per_tensor(im, t) for t in (x, features, times, state, y))
    if f_zero or t_zero:
        raise im.fail("SVDF weights must have zero point 0 (TFLM reads them so)")
    if state.type_name == "INT16" and s_zero:
        raise im.fail(f"state '{state.name}' is int16 with zero point {s_zero}; TFLM's int16 "
                      "SVDF assumes 0")
    # TFLM multiplies and divides the float scales in float, then widens.
    feature_scale = float(np.float32(x_scale) * np.float32(f_scale) / np.float32(s_scale))
    output_scale = float(np.float32(s_scale) * np.float32(t_scale) / np.float32(y_scale))
    check_multiplier(im, feature_scale, "the feature projection's rescaling")
    check_multiplier(im, output_scale, "the output's rescaling")
    bits = times.data.dtype.itemsize * 8
    filters = times.shape[0]
    assert im.loc is not None, "set while an operator is imported"
    with im.loc:  # the layer's ops carry its name (its kernels in the profile)
        projection = product(im.values[x.index], np.ascontiguousarray(features.data.T),
                             -x_zero * features.data.astype(np.int64).sum(axis=1))
        # The history's zero point is added after the saturation and the sum
        # is stored as it is (a static_cast in TFLM: it wraps).
        newest = elementwise([projection], bits, lambda v: arith.trunci(int_type(bits), arith.addi(
            clamped(apply_scale(v, feature_scale), *integer_range(bits)),
            int_scalar(s_zero, 32))))
        history = im.states.get(state.index)
        if history is None:
            reset = s_zero if bits == 8 else 0  # TFLM's ResetTensorData
            history = int_constant(np.full(state.shape, reset, times.data.dtype), bits)
        units = filters // rank
        sums, after = _svdf_step(
            history, newest, int_constant(times.data, bits),
            int_constant(np.zeros(units, np.int32) if bias is None or bias.data is None
                         else bias.data, 32), rank,
            _integer_arithmetic(s_zero))
        y_stored = requantized(sums, output_scale, 0, y_zero, 8)
    im.carry(state.index, after)
    return y_stored


def _svdf_step(history: ir.Value, newest: ir.Value, times: ir.Value, bias: ir.Value,
               rank: int, arithmetic: Arithmetic) -> tuple[ir.Value, ir.Value]:
    """The unit sums [B, U] (bias included; accumulators) and the history
    after this invocation [B, F * M]."""
    filters, memory = ir.RankedTensorType(times.type).shape
    after = _shifted(history, newest, memory)
    batch = ir.RankedTensorType(history.type).shape[0]
    b, f, j = (ir.AffineDimExpr.get(d) for d in range(3))
    filled = linalg.fill(arithmetic.zero(), outs=[empty([batch, filters], arithmetic.accumulator)])
    maps = [ir.AffineMap.get(3, 0, exprs) for exprs in ([b, f * memory + j], [f, j], [b, f])]
    (weighted,) = build_generic(
        [(after, maps[0]), (times, maps[1])], [(filled, maps[2])],
        ["parallel", "parallel", "reduction"],
        lambda _, a: arithmetic.add(a[2], arithmetic.term(a[0], a[1])))
    units = filters // rank
    grouped = tensor.expand_shape(
        ir.RankedTensorType.get([batch, units, rank], arithmetic.accumulator), weighted,
        [[0], [1, 2]], [], [batch, units, rank])
    initial = broadcast_to(bias, [batch, units], [0])
    (sums,) = build_generic([(grouped, ir.AffineMap.get(3, 0, [b, f, j]))],
                            [(initial, ir.AffineMap.get(3, 0, [b, f]))],
                            ["parallel", "parallel", "reduction"],
                            lambda _, a: arithmetic.add(a[1], a[0]))
    return sums, after


def _float_product(row: ir.Value, weights: np.ndarray) -> ir.Value:
    """[B, H]: row [B, K] @ weights [K, H] in float32, each sum from 0 in
    the order of K (TFLM's loop)."""
    batch = ir.RankedTensorType(row.type).shape[0]
    f32 = ir.F32Type.get()
    init = linalg.fill(arith.constant(f32, 0.0), outs=[empty([batch, weights.shape[1]], f32)])
    maps = [ir.AffineMap.get(3, 0, [ir.AffineDimExpr.get(d) for d in dims])
            for dims in ((0, 2), (2, 1), (0, 1))]
    (acc,) = build_generic([(row, maps[0]), (dense_const(weights), maps[1])], [(init, maps[2])],
                           ["parallel", "parallel", "reduction"],
                           lambda _, a: arith.addf(a[2], arith.mulf(a[0], a[1])))
    return acc


def _shifted(history: ir.Value, newest: ir.Value, memory: int) -> ir.Value:
    """The history [B, F * M] moved one place left as TFLM moves it (each
    filter's oldest value goes), `newest` [B, F] written at each filter's
    last place: built flat, so that a streaming model's next state is
    computed in the caller's buffer."""
    batch, size = ir.RankedTensorType(history.type).shape
    element = ir.RankedTensorType(history.type).element_type
    older = tensor.extract_slice(ir.RankedTensorType.get([batch, size - 1], element), history,
                                 [], [], [], [0, 1], [batch, size - 1], [1, 1])
    moved = tensor.insert_slice(older, empty([batch, size], element), [], [], [],
                                [0, 0], [batch, size - 1], [1, 1])
    return tensor.insert_slice(newest, moved, [], [], [], [0, memory - 1],
                               [batch, size // memory], [1, memory])
