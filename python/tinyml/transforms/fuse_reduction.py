"""tinyml-fuse-reduction: element-wise producers fuse into a reduction (the
sum of squares), element-wise consumers of its result fuse as its epilogue
(mean = sum / N then a scale; softmax then a scale). The patterns are
`tinyml.transforms.fusion.reduction_patterns`."""
from .fusion import reduction_patterns
from ..ir.patterns import rewrite_greedily
from ..pipeline.registry import Option, Pass, register


@register
class FuseReduction(Pass):
    name = "tinyml-fuse-reduction"
    summary = "Fuse element-wise producers and epilogues into reductions and softmax"
    options = (
        Option("max-ops", int, 16, "largest number of ops in one group", low=2, high=256),
    )

    def apply(self, module):
        rewrite_greedily(module, reduction_patterns(self.max_ops), fold=False,
                         max_sweeps=None)
