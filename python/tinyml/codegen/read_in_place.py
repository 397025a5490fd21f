"""tinyml-read-in-place: an in-place group's band loop reads its input
through the loop-carried tensor, so that bufferization can write the
output over the input.

The transform script of a group marked `tinyml.in_place` (see
tinyml-compute-in-place) tiles it into a loop over bands (rows of a
pointwise conv, channels of a depthwise conv) whose loop-carried tensor
starts as the group's input `%in`, and fuses the contraction into it:

    %out = scf.for %b ... iter_args(%acc = %in) {    // {tinyml.in_place}
      %x = tensor.extract_slice %in[S]                // the band's input
      %y = ... the band of the group computed from %x ...
      %r = tensor.insert_slice %y into %acc[S]
      scf.yield %r
    }

Read as is, `%in` must survive the loop, so one-shot bufferization copies
it whole. But iteration `b` reads exactly the slice S(b) it then writes,
and the slices of the iterations are disjoint (the loop steps over the
tiled dimension by the band size), so S(b) of `%acc` still holds the input
when iteration `b` reads it: reading `%acc[S]` is the same. This pass
makes that rewrite when every use of `%in` in the loop is an
`extract_slice` with the offsets, sizes and strides of the yielded
`insert_slice`; otherwise it leaves the loop alone (bufferization then
copies, which is correct, only not smaller). The unit attribute is removed
either way.

The band is then read and written in the same iteration (a depthwise
conv's next output row needs the input row the current one overwrites).
The pass copies it first into a tensor of its own
(`bufferization.alloc_tensor() copy(...)`, one allocation that
buffer-loop-hoisting takes out of the loop): the one-band temporary, which
the computation reads while it writes the band in place. Left to itself,
bufferization would put the temporary on the written side instead, which
costs a copy in and a copy out per band. A band read only by the int16
extension of tinyml-widen-conv-inputs, fused into the band loop, needs no
temporary: that extension is its copy, made whole before the band's
first output.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import bufferization

from ..ir.lowering_config import IN_PLACE, WIDENED
from ..ir.walk import is_inside, ops_named
from ..pipeline.registry import Pass, register


def _slice_position(op: ir.Operation) -> tuple:
    """What selects a slice: static offsets, sizes and strides and the
    dynamic values filling them (operands after source, and dest)."""
    skip = 1 if op.name == "tensor.extract_slice" else 2
    return (str(op.attributes["static_offsets"]), str(op.attributes["static_sizes"]),
            str(op.attributes["static_strides"]), tuple(list(op.operands)[skip:]))


def read_band_through_loop(loop: ir.Operation) -> bool:
    """The rewrite on one band loop; whether it applied."""
    body = loop.regions[0].blocks[0]
    if len(loop.results) != 1:
        return False
    source, carried = loop.operands[3], body.arguments[1]
    yielded = body.operations[len(body.operations) - 1].operands[0].owner
    if isinstance(yielded, ir.Block) or yielded.operation.name != "tensor.insert_slice" \
            or yielded.operation.operands[1] != carried:
        return False
    written = _slice_position(yielded.operation)
    reads = []
    for use in source.uses:
        user = use.owner.operation
        if not is_inside(user, loop):
            continue  # the loop's own init, or an op after it
        if user.name != "tensor.extract_slice" or _slice_position(user) != written:
            return False
        reads.append(user)
    for read in reads:
        read.operands[0] = carried
        band = read.results[0]
        if all(WIDENED in use.owner.attributes for use in band.uses):
            continue  # the band's int16 copy, made before any output of the band
        with ir.InsertionPoint.after(read), read.location:
            copy = bufferization.alloc_tensor(band.type, [], copy=band)
        band.replace_all_uses_except(copy, copy.owner.operation)
    return bool(reads)


@register
class ReadInPlace(Pass):
    name = "tinyml-read-in-place"
    summary = "Make an in-place group's band loop read its input through the loop-carried tensor"

    def apply(self, module):
        for loop in ops_named(module, "scf.for"):
            if IN_PLACE in loop.attributes:
                read_band_through_loop(loop)
                del loop.attributes[IN_PLACE]
