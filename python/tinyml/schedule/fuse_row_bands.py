"""tinyml-fuse-row-bands: a pointwise conv group and the windowed conv group
reading it become one loop over the consumer's output rows, so the
pointwise conv's output never exists whole.

Below the op-by-op lower bound (MCUNetV2's patch-based inference,
arXiv:2110.15352, by rows): a pointwise conv `P` (1x1, stride 1, no
padding) whose only reader is a conv or depthwise conv group `D` (kernel
height kh, row stride s, top padding pt) is computed band by band. A band
of R output rows of `D` from row r reads rows [r*s - pt, r*s - pt + n) of
P's output, n = (R - 1) * s + kh, which P computes from the same rows of
its own input; so

    %out = scf.for %r = ... step R iter_args(%acc = tensor.empty) {
      %rows = tensor.extract_slice %x[0, r*s - pt, 0, 0] [1, n, W, Cin]
      %band = tinyml.fused P on %rows           // n rows of P's output
      %part = tinyml.fused D on %band           // R output rows of D
      %next = tensor.insert_slice %part into %acc[0, r, 0, 0] [1, R, Wo, C]
      scf.yield %next
    }

Rows of the window outside P's output are D's padding: the first and last
bands read fewer rows of P, with D's top or bottom padding instead, and
the last may have fewer output rows, each a loop of its own (static shapes
for the tiles). The band is n rows of P's output where the whole tensor
was H rows; P computes the kh - s rows consecutive bands share again (the
recomputed MACs, on the function as `tinyml.recomputed_macs`): a share
(kh - s) / (R * s) of P. R is `band-rows` (2 by default: on VWW, 25% of
its first pointwise conv again and a 15 KB band, where one row costs 50%
and 9 KB; benchmark_memory.py). The groups inside the loop keep their
lowering configuration: their transform scripts tile them there as
anywhere else.

Cost model (tinyml-schedule-for-memory's live bytes per op, the groups
tinyml-compute-in-place marked in place): a pair is fused when the step of
P or of D is at the function's peak, the loop's step (P's, with D's output
and P's band in place of P's output) is below it, and the bands recompute
at most `max-recompute` of P's MACs; then, with the peak recomputed,
again, until no pair lowers it. Runs after tinyml-compute-in-place (which
lowers a peak without recomputing anything, where it can) and before it
again (the new peak may be a layer it can run in place).
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, scf, tensor

from ..dialects import tinyml as tm
from ..ir.analysis import RECOMPUTED
from ..ir.attributes import window_attributes
from ..ir.values import shape_of
from ..ir.walk import functions
from ..pipeline.registry import Option, Pass, register
from .compute_in_place import (live_during, marked_groups, overwritten_index,
                               overwritten_input, savings)
from .row_loops import (as_element, clone_on_rows, conv_of, extract_rows, index, input_window,
                        insert_rows, row_conv, stored)
from .schedule_for_memory import build_graph, tensor_bytes


def _is_pointwise(group: ir.Operation) -> bool:
    root = row_conv(group)
    if root is None or root.name != tm.Conv2DOp.OPERATION_NAME:
        return False
    strides, _, padding = window_attributes(root.attributes)
    return shape_of(root.operands[1])[:2] == [1, 1] and list(strides) == [1, 1] \
        and not any(padding)


def recompute_fraction(consumer: ir.Operation, band_rows: int) -> float:
    """The share of P's rows a band of `band_rows` output rows computes
    again: the rows its window shares with the next band's, over the rows
    it moves on by."""
    root = conv_of(consumer)
    strides, _, _ = window_attributes(root.attributes)
    return (shape_of(root.operands[1])[0] - strides[0]) / (band_rows * strides[0])


def candidate_pairs(func: ir.Operation, max_recompute: float,
                    band_rows: int) -> list[tuple[ir.Operation, ir.Operation]]:
    """(P, D): P a pointwise conv group read only by D, as D's conv input,
    whose bands of `band_rows` output rows recompute at most
    `max_recompute` of P."""
    pairs = []
    for op in func.regions[0].blocks[0].operations:
        op = op.operation
        if op.name != tm.FusedOp.OPERATION_NAME or not _is_pointwise(op) or len(op.results) != 1:
            continue
        uses = list(op.results[0].uses)
        if len(uses) != 1:
            continue
        consumer = uses[0].owner.operation
        if consumer.name == tm.FusedOp.OPERATION_NAME and row_conv(consumer) is not None \
                and overwritten_input(consumer) == op.results[0] \
                and recompute_fraction(consumer, band_rows) <= max_recompute:
            pairs.append((op, consumer))
    return pairs


def fuse_pair(pointwise: ir.Operation, consumer: ir.Operation, band_rows: int) -> int:
    """Replaces the pair by its loops over bands of `band_rows` output rows
    of the consumer; returns the MACs computed again."""
    root = conv_of(consumer)
    strides, _, padding = window_attributes(root.attributes)
    stride, (top, left, _, right) = strides[0], padding
    kernel = shape_of(root.operands[1])[0]
    p_index, d_index = overwritten_index(pointwise), overwritten_index(consumer)
    assert p_index is not None and d_index is not None, "row convs read their input"
    source = pointwise.operands[p_index]
    _, height, width, in_channels = shape_of(source)
    p_channels = shape_of(pointwise.results[0])[3]
    out_shape = shape_of(consumer.results[0])
    _, out_height, out_width, out_channels = out_shape

    # Consecutive bands of as many output rows, reading as many of P's rows
    # (and of padding above and below), make one loop.
    segments: list[list[int]] = []  # [first row, end row, rows, pad above, pad below]
    for r in range(0, out_height, band_rows):
        rows = min(band_rows, out_height - r)
        _, _, above, below = input_window(root, r, r + rows)
        if segments and segments[-1][1] == r and segments[-1][2:] == [rows, above, below]:
            segments[-1][1] = r + rows
        else:
            segments.append([r, r + rows, rows, above, below])

    in_element = ir.RankedTensorType(source.type).element_type
    out_element = ir.RankedTensorType(consumer.results[0].type).element_type
    computed_rows = 0
    with ir.InsertionPoint(consumer), consumer.location:
        stored_source = as_element(source, stored(in_element))
        acc = tensor.empty(out_shape, stored(out_element))
        for first_row, end_row, out_rows, above, below in segments:
            rows = (out_rows - 1) * stride + kernel - above - below
            computed_rows += rows * (end_row - first_row) // out_rows
            loop = scf.ForOp(index(first_row), index(end_row), index(out_rows), [acc])
            with ir.InsertionPoint(loop.body):
                r = loop.induction_variable
                start = arith.addi(arith.muli(r, index(stride)), index(above - top))
                band_in = as_element(extract_rows(stored_source, start, rows), in_element)
                band = clone_on_rows(pointwise, ir.InsertionPoint(loop.body), {p_index: band_in},
                                     [1, rows, width, p_channels])
                row = clone_on_rows(consumer, ir.InsertionPoint(loop.body),
                                    {d_index: band.results[0]},
                                    [1, out_rows, out_width, out_channels],
                                    [above, left, below, right])
                scf.YieldOp([insert_rows(as_element(row.results[0], stored(out_element)),
                                         loop.inner_iter_args[0], r)])
            acc = loop.results[0]
        result = as_element(acc, out_element)
    consumer.results[0].replace_all_uses_with(result)
    consumer.erase()
    pointwise.erase()
    return (computed_rows - height) * width * p_channels * in_channels


def fuse_row_bands_in(func: ir.Operation, max_recompute: float, band_rows: int) -> int:
    """Fuses a pair at the peak whose loop lowers it, again until none does;
    returns the MACs computed again."""
    recomputed = 0
    while True:
        graph, _, _ = build_graph(func)
        saved = savings(graph)
        during = live_during(graph, saved, marked_groups(graph, saved))
        peak = max(during, default=0)
        position = {op: i for i, op in enumerate(graph.ops)}
        plain = live_during(graph, saved, set())
        for pointwise, consumer in candidate_pairs(func, max_recompute, band_rows):
            p, d = position[pointwise], position[consumer]
            if peak not in (during[p], during[d]):
                continue
            # While the loop runs: what P's step holds, with the consumer's
            # output and P's band in place of P's whole output.
            root = conv_of(consumer)
            strides, _, _ = window_attributes(root.attributes)
            band = (band_rows - 1) * strides[0] + shape_of(root.operands[1])[0]
            p_out = tensor_bytes(pointwise.results[0])
            looped = (plain[p] - p_out + tensor_bytes(consumer.results[0])
                      + p_out // shape_of(pointwise.results[0])[1] * band)
            if looped < peak:
                recomputed += fuse_pair(pointwise, consumer, band_rows)
                break
        else:
            return recomputed


@register
class FuseRowBands(Pass):
    name = "tinyml-fuse-row-bands"
    summary = "Compute a pointwise conv band by band inside the loop over its consumer's rows"
    options = (
        Option("max-recompute", float, 0.5, "the largest share of the pointwise conv's MACs "
               "its bands may compute again (a 3x3 stride-2 consumer: 0.5, stride 1: 2)",
               low=0.0),
        Option("band-rows", int, 2, "output rows of the consumer per band: more rows "
               "compute less again, for a larger band", low=1, high=1024),
    )

    def apply(self, module):
        for func in list(functions(module)):
            if len(func.regions[0].blocks) != 1:
                continue
            recomputed = fuse_row_bands_in(func, self.max_recompute, self.band_rows)
            if recomputed:
                with func.context:
                    func.attributes[RECOMPUTED] = ir.IntegerAttr.get(
                        ir.IntegerType.get_signless(64), recomputed)
