"""tinyml: an ahead-of-time compiler from ONNX to Cortex-M objects."""
from .context import make_context
from . import passes
from .pipeline import Pipeline
from .compiler import CompiledModel, compile

__all__ = ["make_context", "passes", "Pipeline", "compile", "CompiledModel"]
