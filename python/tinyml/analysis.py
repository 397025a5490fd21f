"""Numbers the reports and the benchmark read off the IR."""
from __future__ import annotations

import math

from mlir import ir

LOOPS = frozenset({"scf.for", "scf.parallel", "scf.forall", "affine.for", "affine.parallel"})


def _shape(value: ir.Value) -> list[int]:
    return list(ir.ShapedType(value.type).shape)


def op_macs(op: ir.Operation) -> int:
    """Multiply-accumulates of one tinyml op (0 for ops without a product)."""
    if op.name == "tinyml.conv2d":
        kh, kw, cin, _ = _shape(op.operands[1])
        return math.prod(_shape(op.results[0])) * kh * kw * cin
    if op.name == "tinyml.depthwise_conv2d":
        kh, kw, _, _ = _shape(op.operands[1])
        return math.prod(_shape(op.results[0])) * kh * kw
    if op.name == "tinyml.matmul":
        lhs = _shape(op.operands[0])
        k = lhs[0] if "transpose_lhs" in op.attributes else lhs[1]
        return math.prod(_shape(op.results[0])) * k
    return 0


def macs(module: ir.Module | ir.Operation) -> int:
    """Multiply-accumulates per inference of a module in the tinyml dialect
    (fused groups included)."""
    total = 0

    def visit(op):
        nonlocal total
        total += op_macs(op.operation)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    return total


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
