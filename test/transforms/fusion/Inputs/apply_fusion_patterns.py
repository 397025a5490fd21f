"""A user's own pass built from tinyml's fusion pattern sets: reads MLIR,
adds the named sets (in the order given, each `set[:option=value]...`) to
one RewritePatternSet each, runs them with the greedy driver and prints the
result.

    apply_fusion_patterns.py elementwise:max_ops=2 conv_epilogue < in.mlir
"""
import sys

from mlir import ir
from mlir.rewrite import RewritePatternSet, apply_patterns_and_fold_greedily

import tinyml
from tinyml.transforms import fusion

SETS = {"conv_epilogue": fusion.conv_epilogue_patterns,
        "reduction": fusion.reduction_patterns,
        "elementwise": fusion.elementwise_patterns}


def options(text: str) -> dict:
    values = {}
    for item in text.split(":") if text else []:
        key, value = item.split("=")
        values[key] = {"true": True, "false": False}.get(value) if value in ("true", "false") \
            else int(value)
    return values


with tinyml.make_context() as context, ir.Location.unknown():
    module = ir.Module.parse(sys.stdin.read())
    for argument in sys.argv[1:]:
        name, _, rest = argument.partition(":")
        patterns = RewritePatternSet(context)
        for root, pattern in SETS[name](**options(rest)):
            patterns.add(root, pattern)
        apply_patterns_and_fold_greedily(module, patterns.freeze())
    print(module)
