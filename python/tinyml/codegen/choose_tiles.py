"""tinyml-choose-tiles: pick each conv/matmul group's (and average pool's) lowering configuration
for the target's registers (the FPU's for float, the core's for the int32
accumulators of a quantized group), and record it on the group as
`lowering = #tinyml.lowering<tile = [...], reduction = [...]>`.

The register tile is the part of the output computed per iteration, all of
it held in accumulators: for a conv, output pixels of a row x output
channels (`tile = [1, 1, pixels, channels]`); for a matmul, output columns
of one row (`tile = [1, channels]`). A group lowered through the transform
dialect needs tiles that divide its output (no partial tiles to mask; an
unpadded conv's script peels its pixel loop instead, so an SMLAD tile's
pixels need not divide the row), and
gets reduction steps the vectorizer turns into straight-line FMAs: a conv
walks its window a row at a time, all kw taps of it at once (the 1-D conv
vectorizer reuses each loaded input across them) and as many input channels
as keep a step near `reduction-taps` input values (8 for a 1x1 conv, 4 for
a 3x3 one: more unrolls code for little, fewer pays the loop per few FMAs);
a depthwise conv one window row per step, a matmul `matmul-step` k (a
quantized one `int-reduction-taps`, `int-matvec-taps` on a DSP core). On
a core with the DSP extension (`dsp`) a quantized conv's tile is the
squarest that fits the registers (`smlad_tile`; a one-channel conv whose
kernel rows are whole words reads each row's taps as channels; a conv of
3 (or another number not whole words) input channels whose window is at
most `int-pointwise-taps` values and one from whole words reads the
window as channels, its reduction one step; a 1x1
conv whose reduction is one step takes every output channel where they
fit one pixel's tile, beyond `max-channels`), a
quantized depthwise conv's a row of pixels of one channel. A padded
quantized conv whose kernel rows are 3 wide, of horizontal stride 1,
whose transformed weights fit `int-winograd-weight-bytes` takes two
pixels by 4 channels (2 under 8 kernel rows x input channels), for
tinyml-winograd-rows' F(2, 3). A depthwise conv with a channel multiplier
is not tiled."""
from typing import Sequence

from mlir import ir

from ..conversion.quantized_lowering import window_values
from ..dialects import tinyml as tm
from ..ir.attributes import window_attributes
from ..ir.ops import CONTRACTIONS, op_names
from ..ir.quant import has_quantized_data
from ..ir.values import shape_of
from ..ir.lowering_config import ATTRIBUTE, LoweringConfig
from ..ir.walk import functions, graph_ops
from ..pipeline.registry import Option, Pass, register
from .winograd_rows import transformed_bytes

POOLS = op_names(tm.AvgPool2DOp, tm.GlobalAvgPoolOp)
#: A quantized conv's reduction (values per output) below which
#: `int-short-reduction-accumulators` sets its tile.
SHORT_REDUCTION = 10
#: Kernel rows x input channels below which a conv's F(2, 3) tile takes 2
#: output channels, not 4: each of its four matrix-vector products is then
#: one straight-line step, and 4 x 4 sums M_e spill where 4 x 2 stay in
#: registers (M4: audio_dscnn's one-channel 5x3 stem 74.8 -> 70.1 K
#: instructions; 9 rows, an RGB stem, measured better with 4: small_cnn
#: 192.6 K against 196.6 K).
SHORT_WINOGRAD_ROWS = 8


@register
class ChooseTiles(Pass):
    name = "tinyml-choose-tiles"
    summary = "Choose each conv/matmul group's lowering configuration (register tile, reduction steps)"
    options = (
        Option("max-accumulators", int, 20,
               "accumulators a tile may keep in registers (pixels x channels); an FPv4/FPv5 "
               "has 32 single-precision registers, some needed for the loads", low=1, high=64),
        Option("max-int-accumulators", int, 8,
               "int32 accumulators a quantized (int8) tile may keep in the core's registers: "
               "a Cortex-M has 13, some needed for the loads and pointers", low=1, high=64),
        Option("int-reduction-taps", int, 16,
               "input values per reduction step of a quantized conv (each loaded value "
               "takes a core register too)", low=1, high=64),
        Option("int-pointwise-taps", int, 32,
               "input values per reduction step of a quantized 1x1 conv on a core with the "
               "DSP extension: no window row shares the step's registers, so it takes more "
               "than int-reduction-taps (M4: KWS 5.60 -> 5.45 M, VWW 16.48 -> 16.08 M; 64 "
               "spills)", low=1, high=128),
        Option("int-matvec-taps", int, 32,
               "input values per reduction step of a quantized matrix-vector product on a "
               "core with the DSP extension: its tile holds one input word's pairs and its "
               "columns' accumulators, so longer steps fit (M4, FC autoencoder: 16 491,602, "
               "32 465,284, 64 468,966 instructions)", low=1, high=128),
        Option("max-int-columns", int, 4,
               "output columns per quantized matrix-vector tile (each weight is used once: "
               "wider tiles only add registers)", low=1, high=32),
        Option("dsp", bool, False,
               "tile quantized convs for a core with the DSP extension: convs for SMLAD dot "
               "products (tinyml-contract-to-smlad), depthwise convs for SMLABB"),
        Option("int-short-reduction-accumulators", int, 0,
               "int32 accumulators of a quantized conv's tile whose reduction (kh x kw x "
               "input channels) is shorter than 10 values, where reusing each input and "
               "weight across a wide tile saves more than any per-MAC form (0: "
               "max-int-accumulators; the M0 takes 20: VWW's 1x1 convs of 8 channels and a "
               "one-channel 3x3 conv, VWW 44.41 -> 43.60 M; below 16 also took a 5x3 "
               "one-channel conv, 1% slower)", low=0, high=64),
        Option("int-one-channel-accumulators", int, 0,
               "int32 accumulators of a quantized conv's tile whose input has one channel "
               "and whose reduction is not short (a stem over a spectrogram): each step "
               "reads one value per kernel column, and its loop, which walks the stage and "
               "the weights at two strides, leaves fewer registers for accumulators (0: "
               "max-int-accumulators; the M0 takes 2: KWS's 10x4 stem 1.85 -> 1.70 M)",
               low=0, high=64),
        Option("int-winograd-weight-bytes", int, 0,
               "tile a padded quantized conv whose kernel rows are 3 wide, of horizontal "
               "stride 1, two pixels by 4 channels, for tinyml-winograd-rows (ARMv6-M, or "
               "the DSP extension: before its SMLAD tiles), when its transformed weights (8 "
               "bytes per kernel row and input-output channel pair, int8 took 3) fit this "
               "many bytes (0: never)", low=0, high=1 << 30),
        Option("int-winograd-min-channels", int, 1,
               "the fewest input channels of a conv tiled for tinyml-winograd-rows (the "
               "ARMv6-M form stages V per pixel pair in a loop of about 30 instructions per "
               "kernel row and channel, which few output channels a channel do not repay: "
               "with 1, M0 ResNet-8's RGB stem 2.61 -> 3.14 M instructions, torch small_cnn "
               "652 -> 696 K)", low=1, high=1 << 16),
        Option("int-depthwise-rows", bool, False,
               "tile a quantized depthwise conv as a row of pixels of one channel, as with "
               "`dsp` (on the M0 too: KWS 15.7 -> 13.8 instructions per MAC with the M0's "
               "source-order scheduling)"),
        Option("int-depthwise-row-pixels", int, 0,
               "pixels of a quantized depthwise conv's row of one channel (0: max-pixels; "
               "the M0 takes 8, its scalar multiply-accumulates holding one accumulator at "
               "a time: VWW 43.60 -> 43.03 M, with 16 42.93 M for 2.6 KB more code; the "
               "M4's SMLABB tiles are slower with 8, VWW 13.46 -> 14.71 M)", low=0, high=64),
        Option("smlad-registers", int, 10,
               "core registers an SMLAD tile may hold: its accumulators and each pixel's two "
               "input halfword pairs", low=3, high=64),
        Option("max-channels", int, 4, "output channels per tile", low=1, high=16),
        Option("max-pixels", int, 5, "output pixels of a row per tile", low=1, high=16),
        Option("max-columns", int, 8, "output columns per matmul tile", low=1, high=32),
        Option("matmul-step", int, 4, "k per reduction step of a matmul", low=1, high=64),
        Option("reduction-taps", int, 12,
               "input values (window columns x channels) per reduction step of a conv",
               low=1, high=64),
    )
    # The options' values, set by `Pass.__init__`.
    max_accumulators: int
    max_int_accumulators: int
    int_reduction_taps: int
    int_pointwise_taps: int
    int_matvec_taps: int
    max_int_columns: int
    dsp: bool
    int_short_reduction_accumulators: int
    int_one_channel_accumulators: int
    int_winograd_weight_bytes: int
    int_winograd_min_channels: int
    int_depthwise_rows: bool
    int_depthwise_row_pixels: int
    smlad_registers: int
    max_channels: int
    max_pixels: int
    max_columns: int
    matmul_step: int
    reduction_taps: int

    def apply(self, module):
        for func in functions(module):
            for op in graph_ops(func):
                root = op.opview.root if op.name == tm.FusedOp.OPERATION_NAME else None
                if root is not None and root.name in CONTRACTIONS:
                    config = self.config(root, peelable(op, root), reads_transpose(op, root))
                elif op.name in POOLS:
                    config = self.pool_config(op)
                else:
                    config = None
                if config is not None:
                    op.attributes[ATTRIBUTE] = config.attribute()

    def pool_config(self, pool: ir.Operation) -> LoweringConfig | None:
        """An average pool (unpadded) computes `channels` outputs at a time,
        summing its window a row per step: the sum and the division are one
        loop nest."""
        if "padding" in pool.attributes and any(ir.DenseI64ArrayAttr(pool.attributes["padding"])):
            return None
        channels = largest_divisor(shape_of(pool.results[0])[-1], self.max_channels)
        if pool.name == tm.GlobalAvgPoolOp.OPERATION_NAME:
            return LoweringConfig((1, channels), (1, 0))  # the mean over [n, c]
        return LoweringConfig((1, 1, 1, channels), (1, 0))

    def config(self, root: ir.Operation, peelable: bool = False,
               transposed: bool = False) -> LoweringConfig | None:
        out_shape = shape_of(root.results[0])
        quantized = has_quantized_data(root)
        accumulators = self.max_int_accumulators if quantized else self.max_accumulators
        if quantized and self.int_short_reduction_accumulators and root.name not in (
                tm.MatmulOp.OPERATION_NAME, tm.DepthwiseConv2DOp.OPERATION_NAME):
            kh, kw = shape_of(root.operands[1])[:2]
            if kh * kw * shape_of(root.operands[0])[3] < SHORT_REDUCTION:
                accumulators = self.int_short_reduction_accumulators
            elif shape_of(root.operands[0])[3] == 1 and self.int_one_channel_accumulators:
                accumulators = self.int_one_channel_accumulators
        taps = self.int_reduction_taps if quantized else self.reduction_taps
        channels = largest_divisor(out_shape[-1], min(self.max_channels, accumulators))
        if root.name == tm.MatmulOp.OPERATION_NAME:
            # One row (a matrix-vector product): each weight is used once,
            # so wider tiles only amortise the row's load and the loop.
            limit = self.max_int_columns if quantized else min(self.max_columns, accumulators)
            columns = largest_divisor(out_shape[-1], limit)
            k = shape_of(root.operands[0])[0 if "transpose_lhs" in root.attributes else 1]
            step = (self.int_matvec_taps if self.dsp else taps) if quantized \
                else self.matmul_step
            return LoweringConfig((1, columns), (largest_divisor(k, step),))
        if root.name == tm.DepthwiseConv2DOp.OPERATION_NAME and shape_of(root.operands[1])[3] > 1:
            return None  # a multiplier maps channels to inputs unevenly
        pixels = largest_divisor(out_shape[2], min(self.max_pixels, accumulators // channels))
        if root.name == tm.DepthwiseConv2DOp.OPERATION_NAME:
            if quantized and (self.dsp or self.int_depthwise_rows):
                # One channel: its taps' weights serve the tile's pixels (and
                # each input byte the taps over it), where a tile of channels
                # loads every weight for one output each; SMLABB makes each
                # MAC one instruction, so the loads are what counts (M4, KWS
                # 7.59 M -> 7.07 M, MobileNet-0.25 20.8 M -> 19.3 M).
                row = self.int_depthwise_row_pixels or self.max_pixels
                return LoweringConfig((1, 1, largest_divisor(out_shape[2], row), 1), (1, 0))
            return LoweringConfig((1, 1, pixels, channels), (1, 0))
        kw = shape_of(root.operands[1])[1]
        in_channels = shape_of(root.operands[0])[3]
        _, dilations, _ = window_attributes(root.attributes)
        if quantized and self.dsp and in_channels == 1 and kw % 4 == 0 and dilations[1] == 1:
            # A kernel row's kw taps read as kw channels of one tap, stride
            # 1 (the lowering's taps-as-channels window): whole SMLAD words
            # where one input channel makes a multiply of each tap (KWS's
            # 10x4 first conv 2.96 -> 2.37 instructions per MAC, on the M4).
            pixels, channels = self.smlad_tile(out_shape[2], out_shape[3])
            return LoweringConfig((1, 1, pixels, channels), (1, 1, kw))
        winograd = quantized and self.winograd_rows(root)
        kh = shape_of(root.operands[1])[0]
        window = window_values(kh, kw, in_channels)
        if quantized and self.dsp and window and in_channels % 4 and not winograd \
                and not transposed and window <= self.int_pointwise_taps \
                and dilations == [1, 1]:
            # The whole window read as channels, one step of whole words
            # (the lowering's window-as-channels input, int16): an RGB 3x3
            # conv's 27 values and a zero one take 14 SMLADs an output
            # where 3 channels read as 4 take 18 (M4, VWW's stem, stride
            # 2, 1.11 -> 1.00 M instructions; a Keras MobileNet block's
            # 30.9 -> 28.0 K; a Keras CIFAR CNN's, VALID, 145.0 -> 126.7 K
            # the network).
            pixels, channels = self.smlad_tile(out_shape[2], out_shape[3])
            return LoweringConfig((1, 1, pixels, channels), (1, 1, window))
        if quantized and self.dsp and in_channels % 4 == 3 and not winograd:
            # One zero channel more makes the steps whole words, two MACs
            # per SMLAD for a third more MACs (an RGB image's first conv
            # whose window is not read as channels); the lowering pads to
            # a multiple of the step.
            in_channels += 1
        if quantized and self.dsp and kh == kw == 1:
            taps = self.int_pointwise_taps
        step = largest_divisor(in_channels, max(1, taps // kw))
        if winograd:
            short = kh * in_channels < SHORT_WINOGRAD_ROWS
            pixels, channels = 2, largest_divisor(out_shape[3], 2 if short else self.max_channels)
        elif quantized and self.dsp:
            # A 1x1 conv whose reduction is one step: a tile of every output
            # channel, where it fits, has no loop but the pixels' (M4, a
            # Keras MobileNet block's 8 -> 8 channel convs on a 4x4 map
            # 3,004 -> 2,554 instructions each). Not a 3x3 conv: VWW's RGB
            # stem, 36 values, took 15% more so.
            whole = self.best_smlad_tile(out_shape[2], out_shape[3], peelable, [out_shape[3]]) \
                if kh == kw == 1 and step == in_channels else None
            pixels, channels = whole or self.smlad_tile(out_shape[2], out_shape[3], peelable)
        return LoweringConfig((1, 1, pixels, channels), (1, kw, step))

    def winograd_rows(self, conv: ir.Operation) -> bool:
        """Whether the quantized conv `conv` takes two-pixel tiles for
        tinyml-winograd-rows' F(2, 3): kernel rows of 3, horizontal stride
        1, no dilation, padding (an unpadded conv reads its input in place,
        where the pass takes a tile's staged window), at least
        `int-winograd-min-channels` input channels, rows of an even width
        and weights within `int-winograd-weight-bytes` transformed."""
        strides, dilations, padding = window_attributes(conv.attributes)
        weights = shape_of(conv.operands[1])
        return (conv.name == tm.Conv2DOp.OPERATION_NAME and weights[1] == 3
                and strides[1] == 1 and dilations == [1, 1] and any(padding)
                and weights[2] >= self.int_winograd_min_channels
                and shape_of(conv.results[0])[2] % 2 == 0
                and transformed_bytes(*weights) <= self.int_winograd_weight_bytes)

    def smlad_tile(self, width: int, out_channels: int, partial: bool = False) -> tuple[int, int]:
        """`best_smlad_tile` of up to max-channels channels (one pixel of one
        channel always fits)."""
        tile = self.best_smlad_tile(width, out_channels, partial,
                                    range(1, self.max_channels + 1))
        assert tile is not None
        return tile

    def best_smlad_tile(self, width: int, out_channels: int, partial: bool,
                        channel_counts: Sequence[int]) -> tuple[int, int] | None:
        """(pixels, channels) of an SMLAD tile. Per input word each pixel
        loads and sign-extends one word of input, each channel one of
        weights, and every accumulator takes two SMLADs: loads and
        extensions per MAC fall as 1/pixels + 1/channels, so the squarest
        tile whose accumulators and input pairs fit the registers wins
        (M4, MobileNet-0.25: 2x2 20.6 M instructions, 1x4 21.9 M, 2x4 22.4 M;
        ResNet-8: 22.7 M, 26.8 M, 24.7 M). A conv whose steps are not whole
        words (3 input channels) measured best with the same tiles. With
        `partial` (an unpadded conv: its script peels the pixel loop) the
        pixels need not divide the row: a row's cost counts its last,
        narrower tile (KWS's 5-pixel rows: 2x2 tiles and a 1x2 one, 1.1
        words a MAC, against 1x4 tiles' 1.25). `channel_counts`: the
        channels a tile may take; None when no tile of them fits."""
        def words(tile: tuple[int, int]) -> float:
            p, c = tile
            whole, rest = divmod(width, p)
            return (whole * (p + c) + (rest + c if rest else 0)) / (width * c)

        fits = [(p, c) for p in range(1, self.max_pixels + 1) if partial or width % p == 0
                for c in channel_counts if out_channels % c == 0
                and p * c + 2 * p <= self.smlad_registers]
        return min(fits, key=lambda tile: (words(tile), -tile[1])) if fits else None


def peelable(group: ir.Operation, root: ir.Operation) -> bool:
    """Whether the script of the conv group `group` (its conv `root`) can
    peel its pixel loop: an unpadded conv, whose input is no transpose
    (tinyml-fuse-input-transpose would make the group's script the
    two-level one, which peels nothing)."""
    _, _, padding = window_attributes(root.attributes)
    return root.name == tm.Conv2DOp.OPERATION_NAME and not any(padding) \
        and not reads_transpose(group, root)


def reads_transpose(group: ir.Operation, root: ir.Operation) -> bool:
    """Whether the conv `root` of `group` reads the group's input through a
    transpose (an NCHW input, which tinyml-fuse-input-transpose fuses into
    the conv's tiles: a window read as channels could not read it so)."""
    source = root.operands[0]
    if isinstance(source.owner, ir.Block) and source.owner.owner == group:
        source = group.operands[source.arg_number]
    return not isinstance(source.owner, ir.Block) \
        and source.owner.operation.name == tm.TransposeOp.OPERATION_NAME


def largest_divisor(size: int, limit: int) -> int:
    """The largest divisor of `size` not above `limit`."""
    return max(d for d in range(1, min(size, limit) + 1) if size % d == 0)
