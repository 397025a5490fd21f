"""tinyml: an ahead-of-time compiler from ONNX to Cortex-M objects.

    model = tinyml.compile("kws.onnx")    # for cortex-m4, as tinyml-compile
    model.save("out/")
    again = tinyml.load("out/")

The package follows the compiler's phases (ARCHITECTURE.md): `frontend`
(ONNX -> tinyml), `transforms` (tinyml -> tinyml: clean-ups, fusion),
`conversion` (tinyml -> linalg), `codegen` (tiling, vectorization, loops),
`memory` (schedule, bufferization, the arena), `targets`; `pipeline` holds
the pass registry, the pipeline builder and the named stages, `ir` what
every phase shares. `compiler` drives the phases; `compiled_model`,
`report` and `abi` are what it returns.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import bufferization, codegen, conversion, schedule, transforms  # noqa: F401  (registers every pass)
from .ir.context import make_context
from .pipeline import Pipeline, stages  # noqa: F401  (registers the named stages)

if TYPE_CHECKING:
    from .compiled_model import CompiledModel, RunResult
    from .compiler import compile
    from .errors import CompileError, RunError
    from .report import CompileReport

    load = CompiledModel.load

__all__ = ["make_context", "Pipeline", "compile", "load", "CompiledModel", "CompileReport",
           "RunResult", "CompileError", "RunError"]

# The compiler brings the targets and the toolchain with it; tinyml-opt,
# started once per lit RUN line, needs only the passes: these names are
# imported on first use.
_LAZY = {"compile": "compiler", "CompiledModel": "compiled_model", "RunResult": "compiled_model",
         "CompileReport": "report", "CompileError": "errors", "RunError": "errors"}


def __getattr__(name: str) -> Any:
    if name == "load":
        from .compiled_model import CompiledModel
        return CompiledModel.load
    if name in _LAZY:
        from importlib import import_module
        return getattr(import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module 'tinyml' has no attribute {name!r}")
