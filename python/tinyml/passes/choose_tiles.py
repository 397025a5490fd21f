"""tinyml-choose-tiles: pick each conv/matmul group's register tile (output
pixels of a row x output channels computed per iteration) for the target's
floating-point registers, and record it on the group as `tile = [pixels,
channels]`, the lowering configuration the group's lowering follows."""
from mlir import ir

from ..fusion import group_root, interior_columns, shape, top_level_ops
from .registry import Option, Pass, functions, register

TILED_ROOTS = ("tinyml.conv2d", "tinyml.depthwise_conv2d", "tinyml.matmul")


@register
class ChooseTiles(Pass):
    name = "tinyml-choose-tiles"
    summary = "Choose each conv/matmul group's register tile (pixels x channels) for the target"
    options = (
        Option("max-accumulators", int, 20,
               "accumulators a tile may keep in registers (pixels x channels); an FPv4/FPv5 "
               "has 32 single-precision registers, some needed for the loads", low=1, high=64),
        Option("max-channels", int, 4, "output channels per tile", low=1, high=16),
        Option("max-pixels", int, 5, "output pixels of a row per tile", low=1, high=16),
    )

    def apply(self, module):
        for func in functions(module):
            for op in top_level_ops(func):
                root = group_root(op) if op.name == "tinyml.fused" else None
                if root is not None and root.name in TILED_ROOTS:
                    tile = self.tile(root)
                    if tile != (1, 1):  # one element per iteration: no tile
                        op.attributes["tile"] = ir.DenseI64ArrayAttr.get(list(tile))

    def tile(self, root: ir.Operation) -> tuple[int, int]:
        out_channels = shape(root.results[0])[-1]
        if root.name == "tinyml.depthwise_conv2d" and shape(root.operands[1])[3] > 1:
            return 1, 1  # a multiplier maps channels to inputs unevenly
        channels = max(c for c in range(1, min(self.max_channels, self.max_accumulators) + 1)
                       if out_channels % c == 0)
        if root.name == "tinyml.matmul":
            return 1, channels
        _, count = interior_columns(root)
        # Among real tiles (2+ pixels), the one covering most columns (the
        # rest run a pixel at a time), then the larger.
        fits = [p for p in range(2, self.max_pixels + 1)
                if p <= count and p * channels <= self.max_accumulators]
        return max(fits, key=lambda p: (count // p * p, p), default=1), channels
