"""tinyml-fuse-conv-epilogue: a conv2d, depthwise_conv2d or matmul absorbs
the element-wise chain that consumes it (bias add, activation, residual add),
so the epilogue runs on the accumulator before the single store. The
patterns are `tinyml.transforms.fusion.conv_epilogue_patterns`."""
from .fusion import conv_epilogue_patterns
from ..ir.patterns import rewrite_greedily
from ..pipeline.registry import Option, Pass, register


@register
class FuseConvEpilogue(Pass):
    name = "tinyml-fuse-conv-epilogue"
    summary = "Fuse bias, activation and residual add into the conv/matmul that feeds them"
    options = (
        Option("max-epilogue-ops", int, 8, "longest element-wise chain absorbed",
               low=1, high=64),
        Option("residual", bool, True,
               "absorb an add whose other operand is a full-size tensor (residual)"),
        Option("standalone", bool, True,
               "also make a group of a contraction with no epilogue, so that every "
               "conv/matmul gets the register-tiled kernel of a group"),
    )

    def apply(self, module):
        rewrite_greedily(module, conv_epilogue_patterns(self.max_epilogue_ops, self.residual,
                                                        self.standalone), fold=False,
                         max_sweeps=None)
