"""Conv/matmul epilogue fusion: a conv2d, depthwise_conv2d or matmul absorbs
the element-wise chain that consumes it (bias add, activation, residual
add), so the epilogue runs on the accumulator before the single store."""
from __future__ import annotations

from mlir import ir
from mlir.rewrite import PatternRewriter

from ...ir.ops import CONTRACTIONS, ELEMENTWISE
from ...ir.patterns import NO_MATCH, Pattern
from ...ir.quant import has_quantized_data
from ...ir.values import shape_of
from ...ir.walk import in_graph
from .groups import EpilogueChains, float_only, new_group, only_user

KIND = "conv_epilogue"


def conv_epilogue_patterns(max_epilogue_ops: int = 8, residual: bool = True,
                           standalone: bool = True) -> list[tuple[str, Pattern]]:
    """(root op, pattern) pairs: a contraction becomes a group, and the
    group absorbs its result's only consumer while that is an element-wise
    op of the same shape, up to `max_epilogue_ops` of them. `residual`: the
    consumer may read a second full-size tensor (a residual add);
    `standalone`: a contraction with no epilogue is a group too."""

    def residual_allowed(consumer: ir.Operation, group: ir.Operation) -> bool:
        return residual or not reads_full_tensor_besides(consumer, group)

    chains = EpilogueChains(KIND, CONTRACTIONS, max_epilogue_ops, residual_allowed)

    def contraction_becomes_group(op: ir.OpView, rewriter: PatternRewriter):
        op = op.operation
        if not in_graph(op) or not (standalone or chains.takes(op, only_user(op))):
            return NO_MATCH
        new_group(rewriter, op, KIND)

    return ([(name, float_only(contraction_becomes_group)) for name in sorted(CONTRACTIONS)]
            + [(name, quantized_contraction_becomes_group) for name in sorted(CONTRACTIONS)]
            + [(name, float_only(chains.epilogue_joins_group)) for name in sorted(ELEMENTWISE)])


def quantized_contraction_becomes_group(op: ir.OpView, rewriter: PatternRewriter):
    """A quantized contraction is a group of its own: its activation is its
    result type's range and its requantization the epilogue the group
    lowers to, in the contraction's loop nest."""
    op = op.operation
    if not in_graph(op) or not has_quantized_data(op):
        return NO_MATCH
    new_group(rewriter, op, KIND)


def reads_full_tensor_besides(op: ir.Operation, chained: ir.Operation) -> bool:
    iteration_space = shape_of(chained.results[0])
    return any(value != chained.results[0] and shape_of(value) == iteration_space
               for value in op.operands)
