"""tinyml-dce: erase side-effect-free ops whose results are all unused."""
from mlir import ir

from ..pipeline.registry import Pass, functions, register

# Ops known to be free of side effects: every tinyml op, and the builtin
# constants the frontend creates.
_PURE_DIALECTS = {"tinyml"}
_PURE_OPS = {"arith.constant", "tensor.empty"}


def is_dead(op: ir.Operation) -> bool:
    pure = op.name in _PURE_OPS or op.name.split(".")[0] in _PURE_DIALECTS
    return pure and op.name != "tinyml.yield" and len(op.results) > 0 and all(
        not list(result.uses) for result in op.results)


@register
class DeadCodeElimination(Pass):
    name = "tinyml-dce"
    summary = "Erase tinyml ops and constants whose results are unused"

    def apply(self, module):
        for func in functions(module):
            for block in func.regions[0].blocks:
                # Reverse order: erasing a user can make its producers dead.
                for op in reversed(list(block.operations)):
                    if is_dead(op.operation):
                        op.operation.erase()
