"""tinyml-erase-transform-script: the transform script that
tinyml-attach-transform-script appended, and its marks on the ops, removed
once the interpreter has run it."""
from mlir import ir

from ..pipeline.registry import Pass, register
from .attach_transform_script import MARK, SCRIPT


@register
class EraseTransformScript(Pass):
    name = "tinyml-erase-transform-script"
    summary = "Erase the transform script once the interpreter has run it"

    def apply(self, module):
        for op in list(module.regions[0].blocks[0].operations):
            if op.operation.name == "builtin.module" and \
                    "sym_name" in op.operation.attributes and \
                    ir.StringAttr(op.operation.attributes["sym_name"]).value == SCRIPT:
                op.operation.erase()

        def unmark(op):
            if MARK in op.operation.attributes:
                del op.operation.attributes[MARK]
            return ir.WalkResult.ADVANCE

        module.walk(unmark, ir.WalkOrder.PRE_ORDER)
