"""tinyml-set-index-width: record the target's index width in the module's
data layout (`dlti.dl_spec`), which the interface-based `convert-to-llvm`
reads; the per-dialect conversions take it as an option instead."""
from mlir import ir

from ..pipeline.registry import Option, Pass, register


@register
class SetIndexWidth(Pass):
    name = "tinyml-set-index-width"
    summary = "Set the module's data-layout index width (bits) for the LLVM conversions"
    options = (Option("bits", int, 64, "width of `index` on the target", low=16, high=64),)

    def apply(self, module):
        module.attributes["dlti.dl_spec"] = ir.Attribute.parse(
            f"#dlti.dl_spec<index = {self.bits} : i64>")
