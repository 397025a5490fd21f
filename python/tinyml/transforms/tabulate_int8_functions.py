"""tinyml-tabulate-int8-functions: an element-wise float function between a
dequantize and a quantize becomes the table of its 256 results.

A QDQ model computes an activation with no integer kernel (Sigmoid,
HardSigmoid, HardSwish, LeakyRelu, Exp...) in float between
`DequantizeLinear` and `QuantizeLinear`: onnxruntime's reference does. Its
int8 input has only 256 values, so the whole float computation is one
`tinyml.lookup`:

    quantize(f(dequantize(x)))  ->  lookup(x) {table[q] = quantize(f(dequantize(q)))}

where `f` is a DAG of element-wise ops whose one run-time input is the
dequantized `x` (every other operand a one-element constant). The table
is computed with `tinyml-fold-constants`' numpy math (float64, rounded to
float32 after each op) and the quantize's own rounding, so each entry is
the float computation's result up to the last bit of float32 arithmetic:
within one step of onnxruntime, as the float code on the target is, but
integer, and one load an element, on every core.

Not fired: a per-axis type, an intermediate with users outside `f`, an
operand that is neither `x` nor a one-element constant, or a quantize that
rounds ties away from zero: that is a TFLite model's, whose reference
(TFLM) has no float layers to reproduce, so a float layer left there stays
visible as one (the report's `float_layers`). Run after
`tinyml-quantize-ops`, which gives ops with an integer kernel of their own
(a clamp, a ReLU) their quantized form first.
"""
from __future__ import annotations

import numpy as np
from mlir import ir
from mlir.dialects import quant

from ..dialects import tinyml as tm
from ..ir.ops import op_names
from ..ir.patterns import NO_MATCH, create, rewrite_greedily
from ..ir.quant import is_int8_per_tensor, quantized_values
from ..ir.values import element_of, producer, shape_of
from ..pipeline.registry import Pass, register
from .fold_constants import EVALUATE, constant_array, dense_attr

#: Element-wise ops a tabulated function may contain.
ELEMENTWISE = op_names(tm.AddOp, tm.SubOp, tm.MulOp, tm.DivOp, tm.MaximumOp, tm.MinimumOp,
                       tm.NegOp, tm.ExpOp, tm.ReluOp, tm.SigmoidOp, tm.TanhOp, tm.ClampOp)


def _function_of_one_input(root: ir.Value):
    """(the dequantize `f` reads, the ops of `f` in evaluation order) when
    `root` is computed by element-wise ops from one per-tensor int8
    dequantize and one-element constants; else None."""
    ops: list[ir.Operation] = []
    source = None

    def visit(value: ir.Value) -> bool:
        nonlocal source
        op = producer(value)
        if op is None:
            return False
        if op.name == tm.DequantizeOp.OPERATION_NAME:
            if source is not None and source != op:
                return False
            source = op
            return is_int8_per_tensor(element_of(op.operands[0])) \
                and shape_of(value) == shape_of(root)
        if dense_attr(value) is not None:
            return int(np.prod(shape_of(value))) == 1
        if op.name not in ELEMENTWISE or shape_of(value) != shape_of(root):
            return False
        if op not in ops:
            if not all(visit(operand) for operand in op.operands):
                return False
            ops.append(op)
        return True

    if not visit(root) or source is None or not ops:
        return None
    for op in ops:
        if op.results[0] != root and any(use.owner.operation not in ops
                                         for use in op.results[0].uses):
            return None
    return source, ops


def _evaluate(source: ir.Operation, ops: list[ir.Operation], x: np.ndarray) -> np.ndarray:
    values = {source.results[0]: x}

    def of(value):
        return values[value] if value in values else constant_array(value).reshape(-1)

    with np.errstate(all="ignore"):
        for op in ops:
            result = EVALUATE[op.name](op.attributes,
                                       *(np.asarray(of(v), np.float64) for v in op.operands))
            values[op.results[0]] = np.asarray(result, np.float64).astype(np.float32)
    return values[ops[-1].results[0]]


def tabulate(op, rewriter):
    """quantize(f(dequantize(x))) -> lookup(x) with table quantize(f(dequantize(q)))"""
    op = op.operation
    if not is_int8_per_tensor(element_of(op.results[0])) or "ties_away_from_zero" in op.attributes:
        return NO_MATCH
    found = _function_of_one_input(op.operands[0])
    if found is None:
        return NO_MATCH
    source, ops = found
    x_type = quant.UniformQuantizedType(element_of(source.operands[0]))
    q = np.arange(-128, 128, dtype=np.float32)
    x = (q - np.float32(x_type.zero_point)) * np.float32(x_type.scale)
    y = _evaluate(source, ops, x)
    y_type = quant.UniformQuantizedType(element_of(op.results[0]))
    table = quantized_values(y, y_type.scale, y_type.zero_point).tolist()
    with rewriter.ip:
        looked_up = create(tm.LookupOp, shape_of(op.results[0]), [source.operands[0]],
                           {"table": ir.DenseI8ArrayAttr.get(table)}, op.location,
                           element_of(op.results[0]))
        rewriter.replace_op(op, [looked_up])


@register
class TabulateInt8Functions(Pass):
    name = "tinyml-tabulate-int8-functions"
    summary = ("Turn an element-wise float function between an int8 dequantize and "
               "quantize into a lookup table of its 256 results")
    options = ()

    def apply(self, module):
        rewrite_greedily(module, [(tm.QuantizeOp, tabulate)])
