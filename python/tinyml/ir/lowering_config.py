"""The lowering configuration of a fusion group (`#tinyml.lowering`, declared
in ODS with its verifier in dialect/include/tinyml/TinymlAttrs.td): the
register tile of the group's output and the step of its reduction loops,
chosen by tinyml-choose-tiles and read by the group's lowering and its
transform script."""
from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from .._tinyml import lowering_config_sizes

#: The attribute of a `tinyml.fused` group (and, after lowering, of the
#: linalg op its transform script starts from) that holds its configuration.
ATTRIBUTE = "lowering"
#: The unit attribute of a group (tinyml-compute-in-place) whose output
#: overwrites its input, kept by its epilogue generic and by the band loop
#: its transform script makes (see tinyml-read-in-place).
IN_PLACE = "tinyml.in_place"
#: The unit attribute of the `linalg.generic` through which a one-channel
#: quantized conv reads its input with a kernel row's taps as channels
#: (lower_quantized_conv2d), fused into its tiles' windows like a transpose.
TAPS_AS_CHANNELS = "tinyml.taps_as_channels"
#: The attribute of the `linalg.generic` through which a quantized conv
#: reads its input with its whole window as channels, extended to int16
#: (lower_quantized_conv2d): the window's [kh, kw], an `array<i64>`. It is
#: fused into the conv's tiles like `TAPS_AS_CHANNELS`.
WINDOW_AS_CHANNELS = "tinyml.window_as_channels"
#: The unit attribute of the `linalg.generic` sign-extending an int8 conv's
#: input to int16 (tinyml-widen-conv-inputs), fused into its tiles' windows
#: like a transpose.
WIDENED = "tinyml.widened"
#: The unit attribute that makes a `WIDENED` generic's int16 result the
#: byte-pair words of its input (P = (x1, x3), Q = (256 x0 - x1 + 127,
#: 256 x2 - x3 + 127) per four values along the last dimension; see
#: codegen/smlad_byte_pairs), which tinyml-contract-to-smlad's tiles read,
#: not the extension its body computes. Only tinyml-lower-int16-extensions
#: lowers it; it fails on one it cannot.
BYTE_PAIRS = "tinyml.byte_pairs"

@dataclass(frozen=True)
class LoweringConfig:
    tile: tuple[int, ...]
    reduction: tuple[int, ...]

    def attribute(self) -> ir.Attribute:
        """The `#tinyml.lowering` attribute (the dialect's verifier checks it)."""
        return ir.Attribute.parse(
            f"#tinyml.lowering<tile = [{', '.join(map(str, self.tile))}], "
            f"reduction = [{', '.join(map(str, self.reduction))}]>")

    @classmethod
    def of(cls, op: ir.Operation) -> "LoweringConfig | None":
        """The configuration `op` carries, or None."""
        if ATTRIBUTE not in op.attributes:
            return None
        sizes = lowering_config_sizes(op.attributes[ATTRIBUTE])
        if sizes is None:
            raise ValueError(f"'{ATTRIBUTE}' is not a #tinyml.lowering attribute")
        tile, reduction = sizes
        return cls(tuple(tile), tuple(reduction))
