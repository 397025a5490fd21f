"""tinyml-stage-window-channels: the tile of a conv's window read as
channels (`WINDOW_AS_CHANNELS`, lower_quantized_conv2d: u[n, i, j, q] =
x[n, i * sh + r, j * sw + k, c] for q = (r * kw + k) * C + c) is staged
value by value, each at indices known at compile time.

The generic's read map takes each channel q through `floordiv` and `mod`;
as a loop nest every value computes them (multiplies and shifts for each
index: 148 instructions for 9 values of an RGB stem's 2 x 28 stage, where
a value's load and store are 2; the Keras MobileNet block's stem took
42.9 K instructions so on the M4, 28.0 K staged by this pass). A tile's
stage is small (pixels x the window's values), so the pass writes it out
whole: one load, sign extension and store a value, the map applied to
constant indices, which fold."""
from __future__ import annotations

import itertools
import math

from mlir import ir
from mlir.dialects import affine, arith, memref

from ..ir.lowering_config import WINDOW_AS_CHANNELS
from ..ir.walk import ops_named
from ..pipeline.registry import Option, Pass, register


@register
class StageWindowChannels(Pass):
    name = "tinyml-stage-window-channels"
    summary = ("Stage each tile of a conv's window read as channels value by value, "
               "at constant indices")
    options = (Option("max-values", int, 256,
                      "the most values a stage may have to be written out value by value (a "
                      "larger one stays a loop nest)", low=1, high=1 << 16),)
    # The option's value, set by `Pass.__init__`.
    max_values: int

    def apply(self, module):
        for generic in ops_named(module, "linalg.generic"):
            if WINDOW_AS_CHANNELS not in generic.attributes:
                continue
            source, stage = generic.operands[0], generic.operands[1]
            body = [op.name for op in generic.regions[0].blocks[0].operations]
            if not isinstance(stage.type, ir.MemRefType) or body != ["arith.extsi", "linalg.yield"]:
                continue
            shape = ir.MemRefType(stage.type).shape
            if ir.ShapedType(stage.type).has_static_shape and math.prod(shape) <= self.max_values:
                stage_values(generic, source, stage, shape)
                generic.erase()


def stage_values(generic: ir.Operation, source: ir.Value, stage: ir.Value,
                 shape: list[int]) -> None:
    """Each value of `stage` loaded from `source` at the generic's read map
    of its indices, sign-extended as the generic's body does."""
    read = ir.AffineMapAttr(ir.ArrayAttr(generic.attributes["indexing_maps"])[0]).value
    element = ir.MemRefType(stage.type).element_type
    index = ir.IndexType.get()
    with ir.InsertionPoint(generic), generic.location:
        constants: dict[int, ir.Value] = {}

        def constant(value: int) -> ir.Value:
            if value not in constants:
                constants[value] = arith.constant(index, value)
            return constants[value]

        for point in itertools.product(*(range(size) for size in shape)):
            at = [constant(i) for i in point]
            reads = [affine.apply(ir.AffineMap.get(read.n_dims, 0, [result]), at)
                     for result in read.results]
            value = memref.load(source, reads)
            memref.store(arith.extsi(element, value), stage, at)
