"""The MLIR context every part of tinyml works in."""
from mlir import ir
from mlir._mlir_libs import _mlir as _cext

from .._tinyml import register_dialect

# Lets `op.opview` come back as the generated tinyml op classes.
_cext.globals.append_dialect_search_prefix("tinyml.dialects")


def make_context() -> ir.Context:
    """A context with every upstream dialect and the tinyml dialect loaded."""
    context = ir.Context()
    register_dialect(context)
    context.allow_unregistered_dialects = False
    return context
