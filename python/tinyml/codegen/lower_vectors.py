"""tinyml-lower-vectors: after bufferization, the vector ops of the tiled
groups (transfers already unrolled to 1-D by convert-vector-to-scf) become
what the LLVM conversions take and an FPv4 runs well: 1-D loads and stores,
element-wise arithmetic, extracts and inserts, and one fused multiply-add
per accumulator element. The upstream patterns run from a fixed transform
script (`LOWER_VECTORS`); `fma_to_math` is the one rewrite upstream lacks."""
from mlir import ir
from mlir.dialects import math
from mlir.dialects.transform import interpreter

from ..ir.walk import ops_named
from ..pipeline.registry import Pass, register
from .attach_transform_script import ANY

#: Vector ops after bufferization (transfers already unrolled to 1-D by
#: convert-vector-to-scf) down to what the LLVM conversions take: 1-D loads
#: and stores, element-wise arithmetic, FMAs, extracts and inserts.
LOWER_VECTORS = f"""
module attributes {{transform.with_named_sequence}} {{
  transform.named_sequence @lower_vectors(%module: {ANY} {{transform.readonly}}) {{
    %functions = transform.structured.match ops{{["func.func"]}} in %module : ({ANY}) -> {ANY}
    transform.apply_patterns to %functions {{
      transform.apply_patterns.vector.lower_contraction lowering_strategy = "outerproduct"
      transform.apply_patterns.vector.lower_outerproduct
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.vector.lower_multi_reduction lowering_strategy = "innerparallel"
      transform.apply_patterns.vector.cast_away_vector_leading_one_dim
      transform.apply_patterns.vector.lower_transfer max_transfer_rank = 1
      transform.apply_patterns.vector.lower_shape_cast
      transform.apply_patterns.vector.lower_transpose
      transform.apply_patterns.canonicalization
    }} : {ANY}
    // lower_broadcast and canonicalization undo each other (an insert into
    // a unit dimension folds back into a broadcast): apply it alone.
    transform.apply_patterns to %functions {{
      transform.apply_patterns.vector.lower_broadcast
      transform.apply_patterns.vector.lower_shape_cast
      transform.apply_patterns.vector.unroll_from_elements
      transform.apply_patterns.vector.unroll_to_elements
    }} : {ANY}
    transform.yield
  }}
}}
"""


@register
class LowerVectors(Pass):
    name = "tinyml-lower-vectors"
    summary = "Lower the vector ops of tiled groups to 1-D loads, stores and FMAs (after bufferization)"

    def apply(self, module):
        script = ir.Module.parse(LOWER_VECTORS, module.context)
        sequence = script.body.operations[0]
        interpreter.apply_named_sequence(module, sequence, script)
        fma_to_math(module)


def fma_to_math(module: ir.Operation) -> None:
    """`vector.fma` -> `math.fma`. The first becomes `llvm.fmuladd`, which
    llc splits into VMUL + VADD on a Cortex-M4 (its CPU model marks VFMA
    slow); the second becomes `llvm.fma`, always one VFMA.F32 per element.
    Upstream has no such pattern."""
    for op in ops_named(module, "vector.fma"):
        lhs, rhs, accumulator = op.operands
        with ir.InsertionPoint(op), op.location:
            fused = math.fma(lhs, rhs, accumulator)
        op.results[0].replace_all_uses_with(fused)
        op.erase()
