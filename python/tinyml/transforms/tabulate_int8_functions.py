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

An integer element-wise kernel whose operands are all computed from one
int8 tensor is a function of it too, and one table: a swish or hard swish
is `mul(x, lookup(x))` (PyTorch's QDQ HardSwish: a HardSigmoid table
times its input; Keras' swish: TFLite's LOGISTIC then MUL), about 27
instructions an element where a lookup takes 4:

    mul(g(x), h(x))      ->  lookup(x) {table[q] = mul(g(q), h(q))}
    lookup[t](g(x))      ->  lookup(x) {table[q] = t[g(q)]}

where `g` and `h` are `x` itself or such functions, over int8 per-tensor
types of one shape. Each entry is TFLite's integer MUL of the stored
values (`fixed_point.integer_mul`, the arithmetic the lowering builds), so
the table is bit for bit what the kernels computed.
"""
from __future__ import annotations

import numpy as np
from mlir import ir
from mlir.dialects import quant

from ..dialects import tinyml as tm
from ..ir.fixed_point import INT8_VALUES, integer_mul
from ..ir.ops import op_names
from ..ir.patterns import NO_MATCH, create, rewrite_greedily
from ..ir.quant import is_int8_per_tensor, quantized_values, scales, zero_points
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


#: Integer element-wise ops a composed table may contain.
INTEGER_FUNCTIONS = op_names(tm.MulOp, tm.LookupOp)


def _integer_function(root: ir.Operation):
    """(the int8 tensor x, the ops computing `root`'s result from it in
    evaluation order) when `root` and every op it reads through are integer
    lookups and muls on int8 per-tensor types of one shape, reading nothing
    but x; None otherwise, or when `root` is already one lookup of x."""
    shape = shape_of(root.results[0])
    ops: list[ir.Operation] = []
    sources: dict = {}

    def visit(value: ir.Value) -> bool:
        if not is_int8_per_tensor(element_of(value)) or shape_of(value) != shape:
            return False
        op = producer(value)
        if op is None or op.name not in INTEGER_FUNCTIONS:
            # Casts of one stored tensor to one type are one x (CSE has not
            # merged them yet).
            stored = op.operands[0] if op is not None and op.name == "quant.scast" else value
            sources[(stored, element_of(value))] = value
            return len(sources) == 1
        if op not in ops:
            if not all(visit(operand) for operand in op.operands):
                return False
            ops.append(op)
        return True

    if not visit(root.results[0]) or len(ops) < 2 and root.name == tm.LookupOp.OPERATION_NAME:
        return None
    return next(iter(sources.values())), ops


def _evaluate_integer(ops: list[ir.Operation]) -> list[int]:
    values: dict = {}
    for op in ops:
        operands = [values.get(v, list(INT8_VALUES)) for v in op.operands]
        if op.name == tm.LookupOp.OPERATION_NAME:
            table = list(ir.DenseI8ArrayAttr(op.attributes["table"]))
            values[op.results[0]] = [table[q + 128] for q in operands[0]]
        else:
            types = [element_of(v) for v in (*op.operands, op.results[0])]
            out = quant.UniformQuantizedType(types[2])
            type_scales = [scales(t)[0] for t in types]
            type_zero_points = [zero_points(t)[0] for t in types]
            stored_range = (out.storage_type_min, out.storage_type_max)
            values[op.results[0]] = [integer_mul(a, b, type_scales, type_zero_points, stored_range)
                                     for a, b in zip(*operands)]
    return values[ops[-1].results[0]]


def compose(op, rewriter):
    """f(x) -> lookup(x) {table[q] = f(q)} for f of integer lookups and muls"""
    op = op.operation
    found = _integer_function(op)
    if found is None:
        return NO_MATCH
    x, ops = found
    with rewriter.ip:
        looked_up = create(tm.LookupOp, shape_of(op.results[0]), [x],
                           {"table": ir.DenseI8ArrayAttr.get(_evaluate_integer(ops))},
                           op.location, element_of(op.results[0]))
        rewriter.replace_op(op, [looked_up])


@register
class TabulateInt8Functions(Pass):
    name = "tinyml-tabulate-int8-functions"
    summary = ("Turn an element-wise function of one int8 tensor (float between a dequantize "
               "and a quantize, or integer muls and lookups) into a table of its 256 results")
    options = ()

    def apply(self, module):
        rewrite_greedily(module, [(tm.QuantizeOp, tabulate), (tm.MulOp, compose),
                                  (tm.LookupOp, compose)])
