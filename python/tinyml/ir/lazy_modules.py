"""Modules that tinyml imports on first use rather than at start-up."""
from __future__ import annotations

import importlib.util
import sys
from types import ModuleType


def lazy_module(name: str) -> ModuleType:
    """The module `name`, executed when one of its attributes is first
    read (`importlib.util.LazyLoader`)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ModuleNotFoundError(f"No module named '{name}'", name=name)
    loader = spec.loader = importlib.util.LazyLoader(spec.loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    # What the import system does for a submodule: `import a.b` then `a.b`.
    parent, _, child = name.rpartition(".")
    if parent:
        setattr(sys.modules[parent], child, module)
    return module


#: Importing `mlir.dialects.linalg` builds every OpDSL named op (0.14 s, a
#: fifth of tinyml-opt's start-up, which lit pays once per RUN line); only
#: the passes that build linalg ops need it.
linalg = lazy_module("mlir.dialects.linalg")
