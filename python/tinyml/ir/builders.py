"""Building tinyml ops through the op classes generated from ODS
(`tinyml.dialects.tinyml`), also where the op is chosen by name at run time
(a pattern rebuilding an op it matched): an unknown name fails here, at the
line that builds it."""
from __future__ import annotations

from typing import Sequence

import numpy as np
from mlir import ir

from ..dialects import tinyml as tm

OP_CLASSES: dict[str, type[ir.OpView]] = {
    cls.OPERATION_NAME: cls for cls in vars(tm).values()
    if isinstance(cls, type) and issubclass(cls, ir.OpView) and hasattr(cls, "OPERATION_NAME")
}


def build(op: type[ir.OpView] | str, result_types: Sequence[ir.Type],
          operands: Sequence[ir.Value], attributes: dict[str, ir.Attribute],
          loc: ir.Location | None = None) -> ir.Operation:
    """The tinyml op `op` (its class, or its name), at the current insertion
    point."""
    cls = OP_CLASSES[op] if isinstance(op, str) else op
    return cls.build_generic(results=list(result_types), operands=list(operands),
                             attributes=attributes, loc=loc).operation


def attribute(value) -> ir.Attribute:
    """Python value -> MLIR attribute, for the few kinds tinyml ops use."""
    if isinstance(value, ir.Attribute):
        return value
    if value is True:
        return ir.UnitAttr.get()
    if isinstance(value, float):
        return ir.FloatAttr.get_f32(value)
    if isinstance(value, (int, np.integer)):
        return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(value))
    if isinstance(value, (list, tuple)):
        return ir.DenseI64ArrayAttr.get([int(v) for v in value])
    raise TypeError(f"no attribute for {value!r}")
