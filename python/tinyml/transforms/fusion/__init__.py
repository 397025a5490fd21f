"""Fusion as rewrite patterns (dispatch-region formation): each function
here returns the (root op name, pattern) pairs of one kind of fusion, ready
to add to a `mlir.rewrite.RewritePatternSet` and run by the greedy driver,
as the `tinyml-fuse-*` passes do:

    patterns = RewritePatternSet(context)
    for root, pattern in tinyml.transforms.fusion.elementwise_patterns(max_ops=8):
        patterns.add(root, pattern)

Each set forms groups of one kind; run them one set at a time, contraction
epilogues first (they claim the activations), as `pipeline.stages.fusion()` does.
"""
from .conv_epilogue import conv_epilogue_patterns
from .elementwise import elementwise_patterns
from .reduction import reduction_patterns

__all__ = ["conv_epilogue_patterns", "elementwise_patterns", "reduction_patterns"]
