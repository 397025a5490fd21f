"""tinyml-lower-to-linalg: every tinyml op to linalg on tensors (+ tensor,
arith, math), in place, by the lowering of its name: `LOWERINGS` on float
data, `LOWERINGS_ON_QUANTIZED` on quantized data.

The lowerings live beside this pass, each module built on those before it:

    linalg_builders.py     scalar math, `linalg.generic`, maps, tensor helpers
    float_lowering.py      each op on floats (`FLOAT_LOWERINGS`)
    fixed_point_ops.py     gemmlowp's fixed point on int32, as arith ops
    quantized_lowering.py  the int8 kernels (`QUANTIZED_LOWERINGS`)
    fused_lowering.py      a `tinyml.fused` group as one kernel (`lower_fused`)
    lower_to_linalg.py     this pass: which lowering each op takes
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import bufferization

from ..dialects import tinyml as tm
from ..ir.quant import has_quantized_data
from ..ir.walk import functions
from ..pipeline.registry import Option, Pass, PassError, register
from .float_lowering import FLOAT_LOWERINGS
from .fused_lowering import lower_fused
from .linalg_builders import Lowering, apply_lowering
from .quantized_lowering import QUANTIZED_LOWERINGS, WIDE_MULTIPLY

#: How each tinyml op lowers, by op name: on float data, and on quantized
#: data. A group is one kernel either way (a quantized one holds a
#: quantized contraction alone).
LOWERINGS: dict[str, Lowering] = {**FLOAT_LOWERINGS, tm.FusedOp.OPERATION_NAME: lower_fused}
LOWERINGS_ON_QUANTIZED: dict[str, Lowering] = {**QUANTIZED_LOWERINGS,
                                               tm.FusedOp.OPERATION_NAME: lower_fused}


def lower_op(op: ir.Operation) -> list[ir.Value]:
    """Lowers one tinyml op in place with its lowering (`apply_lowering`).
    Returns the replacement values."""
    lowering = (LOWERINGS_ON_QUANTIZED if has_quantized_data(op) else LOWERINGS).get(op.name)
    if lowering is None:
        raise PassError(f"no lowering to linalg for '{op.name}'", op.location)
    return apply_lowering(op, lowering)


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
    options = (Option("wide-multiply", bool, True,
                      "the target multiplies 32 x 32 -> 64 bits; without (ARMv6-M), a "
                      "requantization whose accumulators are bounded well enough takes its "
                      "high product from 32-bit products of its multiplier's pieces"),)
    # The option's value, set by `Pass.__init__`.
    wide_multiply: bool

    def apply(self, module):
        token = WIDE_MULTIPLY.set(self.wide_multiply)
        try:
            for func in functions(module):
                lower_function(func)
        finally:
            WIDE_MULTIPLY.reset(token)
