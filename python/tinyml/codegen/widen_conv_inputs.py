"""tinyml-widen-conv-inputs: an int8 conv on a core with the DSP extension
reads its input through a sign extension to int16 (a `linalg.generic`
marked `WIDENED`), which its transform script fuses into the tile that
stages the input window: the window is extended once, for all the output
channel tiles that read it, where tinyml-contract-to-smlad would otherwise
extend each input word again for every channel tile (`SXTB16` twice).

Per four input values of a tile of p pixels x c channels, an SMLAD
reduction then costs 2p halfword-pair loads, c weight loads and 2c
`SXTB16`, and 2pc `SMLAD`, against 3p + 3c + 2pc reading int8 inputs: a
2x2 tile 18 instructions in place of 20 (CMSIS-NN's convolutions extend
their im2col columns to int16 the same way, `arm_nn_mat_mult_kernel_s8_s16`).
The extension is exact; the arena holds the int16 window (a row, or a
pixel tile's padded window) in place of nothing or of its int8 copy.

A conv qualifies when its input, filter and accumulator are int8, int8
(a constant) and int32, its group is configured (the epilogue reading it
carries `#tinyml.lowering`) with a reduction step of whole words, and it
reads its input directly or through its `tensor.pad`: a conv reading a
transpose or its taps as channels stages an int8 window already. And the
window must serve enough output channel tiles (`min-channel-tiles`) to
pay for its extension, about 7 instructions a word against one saved
per channel tile and tap reading it: a Keras grayscale CNN's conv of 8
channels to 8, stride 2 (4 tiles of 2), measured 12% slower widened. A window padded
with a channel (an RGB image's 3 read as 4) is widened whatever its
tiles: its int8 copy goes byte by byte, and the extension takes its
place (VWW's first conv 1.43 -> 1.27 M).
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, tensor

from ..conversion.linalg_builders import int_type
from ..ir.lazy_modules import linalg
from ..ir.lowering_config import TAPS_AS_CHANNELS, WIDENED, LoweringConfig
from ..ir.values import element_of, producer, shape_of, users
from ..ir.walk import ops_named
from ..pipeline.registry import Option, Pass, register

#: int8 values per SMLAD word.
WORD = 4


@register
class WidenConvInputs(Pass):
    name = "tinyml-widen-conv-inputs"
    summary = ("Read each configured int8 conv's input through a sign extension to int16, "
               "staged with its window (Cortex-M DSP extension)")
    options = (Option("min-channel-tiles", int, 8,
                      "output channel tiles a staged window must serve: extending a word of it "
                      "costs about 7 instructions, each channel tile's read of it saves 1 per "
                      "tap over it", low=1, high=1024),)
    # The option's value, set by `Pass.__init__`.
    min_channel_tiles: int

    def apply(self, module):
        for conv in ops_named(module, "linalg.conv_2d_nhwc_hwcf"):
            if widens(conv, self.min_channel_tiles):
                widen_input(conv)


def widens(conv: ir.Operation, min_channel_tiles: int) -> bool:
    """Whether `conv` qualifies (see the module's docstring) and its
    configuration tiles its output channels `min_channel_tiles` times or
    more, or its window is padded with channels (3 read as 4: the int8
    window's copy goes byte by byte, and the extension takes its place)."""
    x, w, acc = conv.operands[0], conv.operands[1], conv.operands[2]
    if (element_of(x), element_of(w), element_of(acc)) != (int_type(8), int_type(8), int_type(32)):
        return False
    filter_op = producer(w)
    if filter_op is None or filter_op.name != "arith.constant":
        return False
    readers = users(conv)
    if len(readers) != 1 or (config := LoweringConfig.of(readers[0])) is None \
            or readers[0].operands[0] != conv.results[0]:
        return False
    if config.reduction[-1] % WORD:
        return False
    source = producer(x)
    pads_channels = False
    if source is not None and source.name == "tensor.pad":
        pads_channels = list(ir.DenseI64ArrayAttr(source.attributes["static_high"]))[-1] > 0
        source = producer(source.operands[0])
    if shape_of(acc)[-1] < min_channel_tiles * config.tile[-1] and not pads_channels:
        return False
    return source is None or (source.name != "linalg.transpose"
                              and TAPS_AS_CHANNELS not in source.attributes)


def widen_input(conv: ir.Operation) -> None:
    """`conv` rebuilt over `extended(x)`."""
    with ir.InsertionPoint(conv), conv.location:
        wide = linalg.conv_2d_nhwc_hwcf(extended(conv.operands[0]), conv.operands[1],
                                        outs=[conv.operands[2]],
                                        strides=_ints(conv.attributes["strides"]),
                                        dilations=_ints(conv.attributes["dilations"]))
    conv.results[0].replace_all_uses_with(wide)
    conv.erase()


def extended(x: ir.Value, sizes: list[int | ir.Value] | None = None) -> ir.Value:
    """`extsi(x)` to int16, a `linalg.generic` marked `WIDENED`; `sizes`
    are `x`'s, given where they are dynamic."""
    rank = len(shape_of(x))
    identity = ir.AffineMapAttr.get(ir.AffineMap.get_identity(rank))
    init = tensor.empty(shape_of(x) if sizes is None else sizes, int_type(16))
    extend = linalg.GenericOp(
        [init.type], [x], [init], ir.ArrayAttr.get([identity, identity]),
        ir.ArrayAttr.get([ir.Attribute.parse("#linalg.iterator_type<parallel>")] * rank))
    block = extend.regions[0].blocks.append(int_type(8), int_type(16))
    with ir.InsertionPoint(block):
        linalg.YieldOp([arith.extsi(int_type(16), block.arguments[0])])
    extend.attributes[WIDENED] = ir.UnitAttr.get()
    return extend.result


def _ints(attribute: ir.Attribute) -> list[int]:
    return [int(v) for v in ir.DenseIntElementsAttr(attribute)]
