"""tinyml-lower-copies: `memref.copy` becomes `linalg.copy`, which lowers to
a loop nest like every other kernel. A copy into a strided view (a padded
buffer, a concat slot) would otherwise become a call to `memrefCopy`, a
host runtime function that no Cortex-M image has."""
from mlir import ir

from ..ir.lazy_modules import linalg
from ..ir.walk import functions, ops_named
from ..pipeline.registry import Pass, register


@register
class LowerCopies(Pass):
    name = "tinyml-lower-copies"
    summary = "Rewrite memref.copy as linalg.copy so that copies become loops"

    def apply(self, module):
        for func in functions(module):
            for copy in ops_named(func, "memref.copy"):
                with ir.InsertionPoint(copy), copy.location:
                    linalg.copy(copy.operands[0], outs=[copy.operands[1]])
                copy.erase()
