"""Sets of tinyml ops that several phases treat alike, and the helpers
that build such sets and tables from the op classes generated from ODS
(`tinyml.dialects.tinyml`), so that each op's name is written once, in the
ODS."""
from __future__ import annotations

from typing import TypeVar

from mlir import ir

from ..dialects import tinyml as tm

T = TypeVar("T")


def op_names(*ops: type[ir.OpView]) -> tuple[str, ...]:
    """The names of the op classes `ops` (generated from ODS), in order."""
    return tuple(op.OPERATION_NAME for op in ops)


def keyed_by_name(table: dict[type[ir.OpView], T]) -> dict[str, T]:
    """`table`, a dict keyed by op classes, keyed by the ops' names."""
    return {op.OPERATION_NAME: value for op, value in table.items()}


ELEMENTWISE = frozenset(op_names(
    tm.AddOp, tm.SubOp, tm.MulOp, tm.DivOp, tm.MaximumOp, tm.MinimumOp, tm.NegOp, tm.ExpOp,
    tm.ReluOp, tm.SigmoidOp, tm.TanhOp, tm.ClampOp, tm.BatchNormOp,
))

# Element-wise ops worth recomputing in every consumer rather than storing:
# one or two instructions per element on a Cortex-M, no transcendental
# functions.
CHEAP = frozenset(op_names(
    tm.AddOp, tm.SubOp, tm.MulOp, tm.MaximumOp, tm.MinimumOp, tm.NegOp, tm.ReluOp, tm.ClampOp,
))

# The ops a register tile and a transform script are built around.
CONTRACTIONS = frozenset(op_names(*tm.CONTRACTION_OPS))

REDUCTIONS = frozenset(op_names(*tm.REDUCTION_OPS))
