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

One body computes every band (one copy of each group's code): P always
computes n rows, moved inside its input where the window overhangs it, and
D reads its window from them with the overhang as its padding (a
`tensor.pad` of dynamic amounts, which the transform script fuses into D's
tiles); a last band that would run past the output moves up and computes
some rows of the one before again. P computes again the kh - s rows
consecutive bands share (the recomputed MACs, on the function as
`tinyml.recomputed_macs`): a share (kh - s) / (R * s) of P, and a few more
rows for the moved bands. R is `band-rows` (2 by default: on VWW, 25% of
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
from .row_loops import (as_element, clone_on_rows, conv_of, extract_rows, index, insert_rows,
                        padding_value, row_conv, stored, window_rows)
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
    whose bands of `band_rows` output rows read fewer rows than P has and
    recompute at most `max_recompute` of P."""
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
                and band_span(consumer, band_rows) < shape_of(op.results[0])[1] \
                and recompute_fraction(consumer, band_rows) <= max_recompute:
            pairs.append((op, consumer))
    return pairs


def band_rows_of(consumer: ir.Operation, band_rows: int) -> int:
    """The output rows of the consumer each band computes."""
    return min(band_rows, shape_of(consumer.results[0])[1])


def band_span(consumer: ir.Operation, band_rows: int) -> int:
    """The rows of P's output a band reads."""
    strides, _, _ = window_attributes(conv_of(consumer).attributes)
    return (band_rows_of(consumer, band_rows) - 1) * strides[0] \
        + shape_of(conv_of(consumer).operands[1])[0]


def fuse_pair(pointwise: ir.Operation, consumer: ir.Operation, band_rows: int) -> int:
    """Replaces the pair by its loop over bands of `band_rows` output rows
    of the consumer; returns the MACs computed again."""
    root = conv_of(consumer)
    strides, _, (top, left, _, right) = window_attributes(root.attributes)
    stride = strides[0]
    p_index, d_index = overwritten_index(pointwise), overwritten_index(consumer)
    assert p_index is not None and d_index is not None, "row convs read their input"
    source = pointwise.operands[p_index]
    _, height, width, in_channels = shape_of(source)
    p_channels = shape_of(pointwise.results[0])[3]
    out_shape = shape_of(consumer.results[0])
    _, out_height, out_width, out_channels = out_shape
    out_rows, span = band_rows_of(consumer, band_rows), band_span(consumer, band_rows)
    bands = -(-out_height // out_rows)

    in_element = ir.RankedTensorType(source.type).element_type
    p_element = ir.RankedTensorType(pointwise.results[0].type).element_type
    out_element = ir.RankedTensorType(consumer.results[0].type).element_type
    with ir.InsertionPoint(consumer), consumer.location:
        stored_source = as_element(source, stored(in_element))
        acc = tensor.empty(out_shape, stored(out_element))
        loop = scf.ForOp(index(0), index(out_height), index(out_rows), [acc])
        with ir.InsertionPoint(loop.body):
            r = loop.induction_variable
            if out_height % out_rows:
                # The last band ends at the last row: one that would run
                # past it computes some of the rows before it again.
                r = arith.minsi(r, index(out_height - out_rows))
            # P computes the band's rows of its output from the same rows of
            # its input, moved inside the input where the band overhangs it
            # (the overhang is D's padding, which `window_rows` supplies).
            first = arith.subi(arith.muli(r, index(stride)), index(top))
            computed = arith.minsi(arith.maxsi(first, index(0)), index(height - span))
            band_in = as_element(extract_rows(stored_source, computed, span), in_element)
            band = clone_on_rows(pointwise, ir.InsertionPoint(loop.body), {p_index: band_in},
                                 [1, span, width, p_channels])
            stored_band = as_element(band.results[0], stored(p_element))

            def read(at: ir.Value, count: ir.Value | int) -> ir.Value:
                return extract_rows(stored_band, arith.subi(at, computed), count)

            window = as_element(window_rows(root, r, read, padding_value(p_element), out_rows),
                                p_element)
            rows = clone_on_rows(consumer, ir.InsertionPoint(loop.body), {d_index: window},
                                 [1, out_rows, out_width, out_channels], [0, left, 0, right])
            scf.YieldOp([insert_rows(as_element(rows.results[0], stored(out_element)),
                                     loop.inner_iter_args[0], r)])
        result = as_element(loop.results[0], out_element)
    consumer.results[0].replace_all_uses_with(result)
    consumer.erase()
    pointwise.erase()
    return (bands * span - height) * width * p_channels * in_channels


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
            band = band_span(consumer, band_rows)
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
