"""Numbers the reports and the benchmark read off the IR."""
from __future__ import annotations

import math

from mlir import ir

from ..dialects import tinyml as tm
from .lowering_config import IN_PLACE
from .ops import keyed_by_name, op_names
from .values import constant_int

#: tinyml-fuse-row-bands' function attribute (schedule/fuse_row_bands.py).
RECOMPUTED = "tinyml.recomputed_macs"
#: tinyml-fuse-line-buffer's function attribute (schedule/fuse_line_buffer.py).
LINE_BUFFERS = "tinyml.line_buffers"

LOOPS = frozenset({"scf.for", "scf.parallel", "scf.forall", "affine.for", "affine.parallel"})


def _shape(value: ir.Value) -> list[int]:
    return list(ir.ShapedType(value.type).shape)


def op_macs(op: ir.Operation) -> int:
    """Multiply-accumulates of one tinyml op (0 for ops without a product)."""
    if op.name == tm.Conv2DOp.OPERATION_NAME:
        kh, kw, cin, _ = _shape(op.operands[1])
        return math.prod(_shape(op.results[0])) * kh * kw * cin
    if op.name == tm.DepthwiseConv2DOp.OPERATION_NAME:
        kh, kw, _, _ = _shape(op.operands[1])
        return math.prod(_shape(op.results[0])) * kh * kw
    if op.name == tm.MatmulOp.OPERATION_NAME:
        lhs = _shape(op.operands[0])
        k = lhs[0] if "transpose_lhs" in op.attributes else lhs[1]
        return math.prod(_shape(op.results[0])) * k
    if op.name == "linalg.generic":
        return _contraction_macs(op)
    return 0


def _contraction_macs(op: ir.Operation) -> int:
    """A linalg.generic that reduces (a frontend's own integer product, as
    the integer LSTM's): one MAC per point of its iteration space."""
    if "reduction" not in str(op.attributes["iterator_types"]):
        return 0
    return iteration_points(op)


def iteration_points(op: ir.Operation) -> int:
    """The points of a linalg.generic's iteration space (the loops' sizes,
    read from its operands' shapes through the indexing maps)."""
    sizes: dict[int, int] = {}
    maps = ir.ArrayAttr(op.attributes["indexing_maps"])
    for operand, attr in zip(op.operands, maps):
        affine_map = ir.AffineMapAttr(attr).value
        for size, expr in zip(_shape(operand), affine_map.results):
            dim = expr.maybe_downcast()
            if isinstance(dim, ir.AffineDimExpr):
                sizes[dim.position] = size
    return math.prod(sizes.values())


def loop_bounds(loop: ir.Operation) -> tuple[int, int, int] | None:
    """(lower, upper, step) of an `scf.for` whose bounds are constants."""
    lower, upper, step = (constant_int(value) for value in loop.operands[:3])
    if lower is None or upper is None or step is None:
        return None
    return lower, upper, step


def trip_count(loop: ir.Operation) -> int:
    """Iterations of an `scf.for`: 1 where its bounds are not constants."""
    bounds = loop_bounds(loop)
    if bounds is None:
        return 1
    lower, upper, step = bounds
    return max(0, -(-(upper - lower) // step))


def executions(op: ir.Operation) -> int:
    """How many times `op` runs per inference: the product of the trip
    counts of the `scf.for` loops around it (a recurrent layer's time loop)."""
    count = 1
    parent = op.parent
    while parent is not None:
        if parent.name == "scf.for":
            count *= trip_count(parent)
        parent = parent.parent
    return count


def macs(module: ir.Module | ir.Operation) -> int:
    """Multiply-accumulates per inference of a module in the tinyml dialect
    (fused groups included, an op in a time loop once per step)."""
    total = 0

    def visit(op):
        nonlocal total
        if product := op_macs(op.operation):
            total += product * executions(op.operation)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    return total


def in_place_groups(module: ir.Module | ir.Operation) -> int:
    """Groups marked to write their output over their input
    (tinyml-compute-in-place), in the module's public functions."""
    count = 0
    for func in module.operation.regions[0].blocks[0].operations:
        if func.operation.name != "func.func":
            continue
        for block in func.regions[0].blocks:
            count += sum(1 for op in block.operations if IN_PLACE in op.operation.attributes)
    return count


def _function_attribute_sum(module: ir.Module | ir.Operation, name: str) -> int:
    total = 0
    for func in module.operation.regions[0].blocks[0].operations:
        if func.operation.name == "func.func" and name in func.operation.attributes:
            total += ir.IntegerAttr(func.operation.attributes[name]).value
    return total


def recomputed_macs(module: ir.Module | ir.Operation) -> int:
    """MACs the row bands of tinyml-fuse-row-bands compute again, over the
    module's functions (their `tinyml.recomputed_macs`)."""
    return _function_attribute_sum(module, RECOMPUTED)


def line_buffers(module: ir.Module | ir.Operation) -> int:
    """Conv pairs tinyml-fuse-line-buffer made one loop with a rolling
    buffer, over the module's functions (their `tinyml.line_buffers`)."""
    return _function_attribute_sum(module, LINE_BUFFERS)


def loop_nests(module: ir.Module | ir.Operation) -> int:
    """Loop nests launched per inference in a module lowered to loops: the
    outermost loops of each function, plus buffer copies (each a loop in
    memcpy)."""
    count = 0
    for func in module.operation.regions[0].blocks[0].operations:
        if func.operation.name != "func.func":
            continue
        for block in func.regions[0].blocks:
            for op in block.operations:
                if op.operation.name in LOOPS or op.operation.name == "memref.copy":
                    count += 1
    return count


def group_macs(op: ir.Operation) -> int:
    """Multiply-accumulates of one top-level op: a fused group's members'."""
    total = 0

    def visit(inner):
        nonlocal total
        total += op_macs(inner.operation)
        return ir.WalkResult.ADVANCE

    op.walk(visit, ir.WalkOrder.PRE_ORDER)
    return total


_POOLS = frozenset(op_names(tm.AvgPool2DOp, tm.MaxPool2DOp, tm.GlobalAvgPoolOp))
_KINDS = {**keyed_by_name({tm.DepthwiseConv2DOp: "depthwise", tm.MatmulOp: "fc",
                           tm.SoftmaxOp: "softmax", tm.ReshapeOp: "reshape", tm.PadOp: "pad",
                           tm.TransposeOp: "transpose", tm.ConcatOp: "concat",
                           tm.SliceOp: "slice"}),
          "memref.copy": "copy",
          **dict.fromkeys(_POOLS, "pool"),
          **dict.fromkeys(op_names(tm.ReduceSumOp, tm.ReduceMeanOp, tm.ReduceMaxOp),
                          "reduction")}


def kernel_kind(op: ir.Operation) -> str:
    """What a top-level op (a kernel) computes, for the profile: `pointwise`
    (1x1 conv), `conv3x3` (any KxK conv), `depthwise`, `fc` (matmul), `pool`,
    `reduction`, `softmax`, `elementwise`, or the data movement it is
    (`reshape`, `pad`, `transpose`, `concat`, `slice`, `copy`). A fused group is
    the kind of its contraction or reduction, else `elementwise`."""
    root = op.opview.root if op.name == tm.FusedOp.OPERATION_NAME else op
    if root is None:
        return "elementwise"
    if root.name == "linalg.generic":
        return "fc" if _contraction_macs(root) else "elementwise"
    if root.name == tm.Conv2DOp.OPERATION_NAME:
        kh, kw = _shape(root.operands[1])[:2]
        return "pointwise" if (kh, kw) == (1, 1) else f"conv{kh}x{kw}"
    return _KINDS.get(root.name, "elementwise")
