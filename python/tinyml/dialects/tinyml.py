"""The tinyml dialect's op classes: `tinyml.dialects.tinyml.Conv2DOp`, ...,
generated from the ODS, and what Python adds to them: the classes of the ops
a fused group is built around, and `FusedOp`'s accessors of its body (as
upstream's `mlir.dialects.scf` extends its generated `ForOp`). The enum of a
group's kind, `FusionKind`, comes generated from the ODS too; importing it
registers the builder that turns one into the op's `kind` attribute."""
from __future__ import annotations

from mlir import ir

from .._tinyml import fusion_kind_value
from ._ods_common import _cext
from ._tinyml_enum_gen import *  # noqa: F401,F403
from ._tinyml_enum_gen import FusionKind
from ._tinyml_ops_gen import *  # noqa: F401,F403
from ._tinyml_ops_gen import (_Dialect, Conv2DOp, DepthwiseConv2DOp, GlobalAvgPoolOp, MatmulOp,
                              ReduceMaxOp, ReduceMeanOp, ReduceSumOp, SoftmaxOp)
from ._tinyml_ops_gen import FusedOp as _GeneratedFusedOp

#: The ops a register tile and a transform script are built around.
CONTRACTION_OPS = (Conv2DOp, DepthwiseConv2DOp, MatmulOp)
REDUCTION_OPS = (ReduceSumOp, ReduceMeanOp, ReduceMaxOp, GlobalAvgPoolOp, SoftmaxOp)

_ROOT_NAMES = frozenset(op.OPERATION_NAME for op in CONTRACTION_OPS + REDUCTION_OPS)


@_cext.register_operation(_Dialect, replace=True)
class FusedOp(_GeneratedFusedOp):
    """`tinyml.fused`: a group of ops that becomes one kernel."""

    @property
    def body_ops(self) -> list[ir.Operation]:
        """The ops of the body, without the terminator."""
        return [op.operation for op in self.regions[0].blocks[0].operations][:-1]

    @property
    def root(self) -> ir.Operation | None:
        """The contraction or reduction the group is built around, if any."""
        return next((op for op in self.body_ops if op.name in _ROOT_NAMES), None)

    @property
    def fusion_kind(self) -> FusionKind:
        """The fusion that formed the group."""
        value = fusion_kind_value(self.kind)
        if value is None:
            raise TypeError(f"tinyml.fused kind {self.kind} is no #tinyml<fusion_kind ...>")
        return FusionKind(value)

    @property
    def kind_name(self) -> str:
        """The fusion that formed the group (`elementwise`, ...)."""
        return str(self.fusion_kind)
