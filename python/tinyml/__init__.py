"""tinyml: an ahead-of-time compiler from ONNX to Cortex-M objects.

The package follows the compiler's phases (ARCHITECTURE.md): `frontend`
(ONNX -> tinyml), `transforms` (tinyml -> tinyml: clean-ups, fusion),
`conversion` (tinyml -> linalg), `codegen` (tiling, vectorization, loops),
`memory` (schedule, bufferization, the arena), `targets`; `pipeline` holds
the pass registry, the pipeline builder and the named stages, `ir` what
every phase shares.
"""
from . import codegen, conversion, memory, transforms  # noqa: F401  (registers every pass)
from .ir.context import make_context
from .pipeline import Pipeline

__all__ = ["make_context", "Pipeline", "compile", "CompiledModel"]


def __getattr__(name: str):
    # The compiler brings the targets and the toolchain with it; tinyml-opt,
    # started once per lit RUN line, needs only the passes.
    if name in ("compile", "CompiledModel"):
        from . import compiler
        return getattr(compiler, name)
    raise AttributeError(f"module 'tinyml' has no attribute {name!r}")
