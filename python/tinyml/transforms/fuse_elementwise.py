"""tinyml-fuse-elementwise: maximal DAGs of element-wise ops over one
iteration space become one `tinyml.fused elementwise` group. The patterns
are `tinyml.transforms.fusion.elementwise_patterns`."""
from .fusion import elementwise_patterns
from ..ir.patterns import rewrite_greedily
from ..pipeline.registry import Option, Pass, register


@register
class FuseElementwise(Pass):
    name = "tinyml-fuse-elementwise"
    summary = "Group DAGs of element-wise ops of one shape into single loop nests"
    options = (
        Option("max-ops", int, 32, "largest number of ops in one group", low=2, high=1024),
        Option("rematerialize", bool, True,
               "recompute a cheap multi-use producer in each consumer group "
               "when that removes its buffer"),
    )

    def apply(self, module):
        rewrite_greedily(module, elementwise_patterns(self.max_ops, self.rematerialize), fold=False,
                         max_sweeps=None)
