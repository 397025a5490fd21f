"""tinyml-lower-copies: `memref.copy` becomes `linalg.copy`, which lowers to
a loop nest like every other kernel. A copy into a strided view (a padded
buffer, a concat slot) would otherwise become a call to `memrefCopy`, a
host runtime function that no Cortex-M image has."""
from mlir import ir
from mlir.dialects import linalg

from .registry import Pass, functions, register


@register
class LowerCopies(Pass):
    name = "tinyml-lower-copies"
    summary = "Rewrite memref.copy as linalg.copy so that copies become loops"

    def apply(self, module):
        for func in functions(module):
            copies = []

            def collect(op):
                if op.operation.name == "memref.copy":
                    copies.append(op.operation)
                return ir.WalkResult.ADVANCE

            func.walk(collect, ir.WalkOrder.PRE_ORDER)
            for copy in copies:
                with ir.InsertionPoint(copy), copy.location:
                    linalg.copy(copy.operands[0], outs=[copy.operands[1]])
                copy.erase()
