"""tinyml: an ahead-of-time compiler from ONNX to Cortex-M objects.

The package follows the compiler's phases (ARCHITECTURE.md): `frontend`
(ONNX -> tinyml), `transforms` (tinyml -> tinyml: clean-ups, fusion),
`conversion` (tinyml -> linalg), `codegen` (tiling, vectorization, loops),
`memory` (schedule, bufferization, the arena), `targets`; `pipeline` holds
the pass registry, the pipeline builder and the named stages, `ir` what
every phase shares.
"""
from . import codegen, conversion, memory, transforms  # noqa: F401  (registers every pass)
from .compiler import CompiledModel, compile
from .ir.context import make_context
from .pipeline import Pipeline

__all__ = ["make_context", "Pipeline", "compile", "CompiledModel"]
