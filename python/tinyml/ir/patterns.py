"""What the rewrite-pattern passes on tinyml ops (cancel-transposes,
fold-constants, simplify, fold-batch-norm) share: reading the IR around an
op, creating tinyml ops, and running a list of patterns.

A pattern is a function `(op, rewriter)` that rewrites the op through
`rewriter` and returns None, or returns NO_MATCH and leaves the IR alone.
"""
from __future__ import annotations

from typing import Callable, Iterable

from mlir import ir
from mlir.rewrite import (GreedyRewriteConfig, GreedySimplifyRegionLevel, PatternRewriter,
                          RewritePatternSet, apply_patterns_and_fold_greedily)

from .builders import build
from .values import producer

# The Python rewrite API treats a truthy result as failure.
NO_MATCH = True

Pattern = Callable[[ir.OpView, PatternRewriter], bool | None]


def producer_named(value: ir.Value, op_class: type[ir.OpView]) -> ir.Operation | None:
    """The op producing `value` when it is an `op_class` op."""
    op = producer(value)
    return op if op is not None and op.name == op_class.OPERATION_NAME else None


def attributes_of(op: ir.Operation) -> dict:
    return {name: op.attributes[name] for name in op.attributes}


def create(op: type[ir.OpView] | str, shape, operands, attributes: dict, loc,
           element: ir.Type | None = None) -> ir.Value:
    """The tinyml op `op` (its class, or its name) with one result of
    `shape` and `element` (default float32)."""
    result_type = ir.RankedTensorType.get(list(shape), element or ir.F32Type.get())
    return build(op, [result_type], operands, attributes, loc=loc).result


def rewrite_greedily(module: ir.Operation,
                     patterns: Iterable[tuple[type[ir.OpView] | str, Pattern]],
                     fold: bool = True, max_sweeps: int | None = 10) -> None:
    """Applies `patterns`, (root op class or name, pattern) pairs, to
    `module` until none of them changes it any more; with `fold`, also the
    ops' folders, constant deduplication and region simplification. An op a
    pattern creates from Python is not on the driver's worklist until its
    next sweep over the module, so a chain of n rewrites can take n sweeps:
    patterns that provably stop (fusion) may lift `max_sweeps` (None: no
    limit)."""
    context = module.context
    with context, ir.Location.unknown(context):
        pattern_set = RewritePatternSet(context)
        for root, pattern in patterns:
            pattern_set.add(root, pattern)
        config = GreedyRewriteConfig()
        config.max_iterations = -1 if max_sweeps is None else max_sweeps
        if not fold:
            config.enable_folding = False
            config.enable_constant_cse = False
            config.region_simplification_level = GreedySimplifyRegionLevel.DISABLED
        apply_patterns_and_fold_greedily(module, pattern_set.freeze(), config)
