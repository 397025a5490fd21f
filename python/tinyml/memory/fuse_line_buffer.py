"""tinyml-fuse-line-buffer: a conv group and the stride-1 conv group reading
it become one loop over the consumer's output rows; the producer's output
lives as a rolling buffer of as many rows as the consumer's window is high.

Below the op-by-op lower bound, without computing anything twice (the line
buffer of image-processing pipelines; MCUNetV2, arXiv:2110.15352, computes
overlapping patches again instead): a conv group `P` whose only reader is a conv group `D` of row
stride 1 and kernel height k produces each of its output rows once, at the
step of `D`'s first output row that needs it. The rolling buffer holds the
k rows `D`'s window reads, position j = P's row i - pt + j at step i (pt:
`D`'s top padding):

    %out, %ring = scf.for %i = ... iter_args(%o = %init, %b = tensor.empty) {
      %b1 = (rows 1..k-1 of %b moved up a row, one row at a time)
      %in = tensor.extract_slice %x[0, i*s + c, 0, 0] [...]   // P's window rows
      %row = tinyml.fused P on %in                             // P's newest row
      %b2 = tensor.insert_slice %row into %b1[0, k-1, 0, 0]
      %o_i = tinyml.fused D on %b2 (and row i of its residual)
      %o1 = tensor.insert_slice %o_i into %o[0, i, 0, 0]
      scf.yield %o1, %b2
    }

The first steps compute the rows the first window needs, the last ones
none, and windows over the top or bottom edge read fewer rows of the
buffer with `D`'s padding instead: each kind of step is a loop of its own
(static shapes for the tiles).

Where `D` adds a residual `E` of its output's shape (a ResNet block) that
nothing else reads, the output is written over `E` row by row (`%init` is
`E`; row i of the residual is read from `%o` just before row i is
written). When `E` is also `P`'s input (an identity block), `P` reads it
from `%o` too: that is safe because every row `P` reads at step i is at or
below row i, which no step before i has overwritten; the pass checks this
per step, else it writes a new tensor.

The groups inside the loop keep their lowering configuration: their
transform scripts tile them there as anywhere else. The roll moves k-1
rows of `P`'s output per output row of `D`, each twice: bufferization
does not see that a row and the one above it are disjoint, and goes
through a one-row temporary (ResNet-8: +1.4% instructions in all).

Cost model (tinyml-schedule-for-memory's live bytes per op, the groups
tinyml-compute-in-place marked in place): a pair is fused when a step
where `P`'s output is live is at the function's peak and the peak of the
same schedule with `P`'s output as the rolling buffer at `D`'s step (and
the loop's temporaries: a row the roll moves, the new rows and the output
row before they are stored; `D`'s output in `E`) is lower; then again, with the peak recomputed, until
no pair lowers it. The function gets `tinyml.line_buffers`, the number
of pairs fused.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, scf, tensor

from ..ir.analysis import LINE_BUFFERS
from ..ir.attributes import window_attributes
from ..ir.values import shape_of
from ..pipeline.registry import Pass, functions, register
from ..transforms.fusion import group_root
from .compute_in_place import live_during, marked_groups, overwritten_index, savings
from .row_loops import (as_element, clone_on_rows, extract_rows, index, insert_rows,
                        row_conv, stored)
from .schedule_for_memory import Graph, build_graph, tensor_bytes


@dataclass(frozen=True)
class Step:
    """What the loop does at output row i of `D`; consecutive rows that do
    the same make one loop."""

    rolls: bool                  # moves the buffer up by a row first
    new_rows: int                # rows of P it computes (none, one, or the first window's)
    window: tuple[int, int]      # P's input rows it reads: first - i * P's row stride, count
    p_padding: tuple[int, int]   # P's padding above and below those rows
    buffer_row: int              # where the new rows go in the buffer
    d_padding: tuple[int, int]   # D's padding above and below the rows it reads


def _steps(producer_root: ir.Operation, consumer_root: ir.Operation) -> list[Step]:
    (stride, _), _, (p_top, _, _, _) = window_attributes(producer_root.attributes)
    _, _, (top, _, _, _) = window_attributes(consumer_root.attributes)
    p_kernel = shape_of(producer_root.operands[1])[0]
    kernel = shape_of(consumer_root.operands[1])[0]
    height = shape_of(producer_root.operands[0])[1]
    rows = shape_of(producer_root.results[0])[1]
    steps, computed = [], 0
    for i in range(shape_of(consumer_root.results[0])[1]):
        first, end = max(0, i - top), min(rows, i - top + kernel)
        in_first = computed * stride - p_top
        in_end = (end - 1) * stride - p_top + p_kernel
        p_above, p_below = max(0, -in_first), max(0, in_end - height)
        new = end - computed
        steps.append(Step(
            rolls=i > 0 and kernel > 1, new_rows=new,
            window=(in_first + p_above - i * stride, in_end - p_below - in_first - p_above)
            if new else (0, 0),
            p_padding=(p_above, p_below) if new else (0, 0),
            buffer_row=computed - (i - top) if new else 0,
            d_padding=(first - (i - top), (i - top + kernel) - end)))
        computed = max(computed, end)
    return steps


def _residual(consumer: ir.Operation) -> int | None:
    """The index of the consumer's one operand besides its conv's input
    and constants (its residual), if it has its output's shape."""
    if row_conv(consumer) is not None:
        return None
    d_index = overwritten_index(consumer)
    others = [i for i, operand in enumerate(consumer.operands)
              if i != d_index and row_conv(consumer, operand) is not None]
    if len(others) != 1 or shape_of(consumer.operands[others[0]]) != \
            shape_of(consumer.results[0]):
        return None
    return others[0]


def candidate_pairs(func: ir.Operation) -> list[tuple[ir.Operation, ir.Operation]]:
    """(P, D): P a conv group read only by D, as D's conv input; D a conv
    group of row stride 1 that reads besides only its weights and at most
    a residual of its output's shape."""
    pairs = []
    for op in func.regions[0].blocks[0].operations:
        op = op.operation
        if op.name != "tinyml.fused" or len(op.results) != 1 or row_conv(op) is None:
            continue
        uses = list(op.results[0].uses)
        if len(uses) != 1:
            continue
        consumer = uses[0].owner.operation
        if consumer.name != "tinyml.fused" or len(consumer.results) != 1:
            continue
        d_index = overwritten_index(consumer)
        if d_index is None or consumer.operands[d_index] != op.results[0]:
            continue
        residual = _residual(consumer)
        others = () if residual is None else (consumer.operands[residual],)
        root = row_conv(consumer, *others)
        if root is not None and window_attributes(root.attributes)[0][0] == 1:
            pairs.append((op, consumer))
    return pairs


def _overwrites_unread_rows(steps: list[Step], p_stride: int) -> bool:
    """Every row P reads at step i is at or below row i (rows above it
    are D's output by then)."""
    return all(step.window[0] + i * p_stride >= i
               for i, step in enumerate(steps) if step.new_rows)


def _in_place(graph: Graph, position: dict, producer: ir.Operation,
              consumer: ir.Operation) -> bool:
    """D's output can be written over its residual: the residual is a
    tensor of this function that nothing but D (and P, reading the rows
    ahead) reads."""
    residual = _residual(consumer)
    p, d = position[producer], position[consumer]
    if residual is None or len(graph.produces[d]) != 1:
        return False
    tensors = [t for t in graph.consumes[d] if t not in graph.produces[p]]
    if len(set(tensors)) != 1:
        return False  # a function argument's or constant's (or a second input)
    readers = graph.users[tensors[0]] & ~(1 << d)
    source = producer.operands[overwritten_index(producer)]
    if source == consumer.operands[residual]:
        readers &= ~(1 << p)
        root = group_root(producer)
        if not _overwrites_unread_rows(_steps(root, group_root(consumer)),
                                       window_attributes(root.attributes)[0][0]):
            return False
    return readers == 0


def _fused_graph(graph: Graph, p: int, d: int, buffer: int, in_place: bool) -> Graph:
    """The scheduling graph once P runs inside D's step, its output
    `buffer` bytes of the loop's (and D's output, `in_place`, its residual)."""
    (p_out,) = graph.produces[p]
    produces = [list(ts) for ts in graph.produces]
    consumes = [list(ts) for ts in graph.consumes]
    sizes, users = list(graph.sizes), list(graph.users)
    produces[p], produces[d] = [], produces[d] + [p_out]
    consumes[d] = [t for t in consumes[d] if t != p_out] + consumes[p]
    for t in consumes[p]:
        users[t] |= 1 << d
    consumes[p] = []
    sizes[p_out], users[p_out] = buffer, 1 << d
    if in_place:
        (out,) = graph.produces[d]
        (residual,) = {t for t in graph.consumes[d] if t != p_out}
        users[residual] |= users[out]
        sizes[out] = 0
    return dataclasses.replace(graph, produces=produces, consumes=consumes, sizes=sizes,
                               users=users)


def _loop_bytes(producer: ir.Operation, consumer: ir.Operation) -> int:
    """The bytes the loop holds besides its input and output: the rolling
    buffer, and the temporaries bufferization gives it (a row the roll
    moves, P's new rows and D's output row before they are stored)."""
    p_root, d_root = group_root(producer), group_root(consumer)
    kernel = shape_of(d_root.operands[1])[0]
    p_row = tensor_bytes(producer.results[0]) // shape_of(producer.results[0])[1]
    d_row = tensor_bytes(consumer.results[0]) // shape_of(consumer.results[0])[1]
    new_rows = max(step.new_rows for step in _steps(p_root, d_root))
    return p_row * (kernel + 1 + new_rows) + d_row


def fuse_pair(producer: ir.Operation, consumer: ir.Operation, in_place: bool) -> None:
    """Replaces the pair by its loops over the consumer's output rows."""
    p_root, d_root = group_root(producer), group_root(consumer)
    steps = _steps(p_root, d_root)
    p_stride = window_attributes(p_root.attributes)[0][0]
    _, _, (_, p_left, _, p_right) = window_attributes(p_root.attributes)
    _, _, (_, left, _, right) = window_attributes(d_root.attributes)
    kernel = shape_of(d_root.operands[1])[0]
    p_index, d_index = overwritten_index(producer), overwritten_index(consumer)
    residual = _residual(consumer)
    source = producer.operands[p_index]
    _, _, p_width, p_channels = shape_of(producer.results[0])
    out_shape = shape_of(consumer.results[0])
    _, _, out_width, out_channels = out_shape
    in_element = ir.RankedTensorType(source.type).element_type
    p_element = ir.RankedTensorType(producer.results[0].type).element_type
    out_element = ir.RankedTensorType(consumer.results[0].type).element_type

    segments: list[list] = []  # [first output row, end row, step]
    for i, step in enumerate(steps):
        if segments and segments[-1][2] == step:
            segments[-1][1] = i + 1
        else:
            segments.append([i, i + 1, step])

    with ir.InsertionPoint(consumer), consumer.location:
        stored_source = as_element(source, stored(in_element))
        if in_place:
            acc = as_element(consumer.operands[residual], stored(out_element))
        else:
            acc = tensor.empty(out_shape, stored(out_element))
            if residual is not None:
                stored_residual = as_element(consumer.operands[residual], stored(out_element))
        buffer = tensor.empty([1, kernel, p_width, p_channels], stored(p_element))
        for first_row, end_row, step in segments:
            loop = scf.ForOp(index(first_row), index(end_row), index(1), [acc, buffer])
            with ir.InsertionPoint(loop.body):
                i = loop.induction_variable
                out, rows = loop.inner_iter_args
                if step.rolls:
                    # Row by row: source and destination never overlap, so
                    # bufferization moves them within the buffer.
                    for row in range(kernel - 1):
                        rows = insert_rows(extract_rows(rows, row + 1, 1), rows, row)
                if step.new_rows:
                    # P reads its input from the loop-carried tensor where
                    # the output overwrites it.
                    read = out if in_place and source == consumer.operands[residual] \
                        else stored_source
                    start = arith.addi(arith.muli(i, index(p_stride)), index(step.window[0]))
                    window = as_element(extract_rows(read, start, step.window[1]), in_element)
                    new = clone_on_rows(producer, ir.InsertionPoint(loop.body),
                                        {p_index: window},
                                        [1, step.new_rows, p_width, p_channels],
                                        [step.p_padding[0], p_left, step.p_padding[1],
                                         p_right])
                    rows = insert_rows(as_element(new.results[0], stored(p_element)), rows,
                                       step.buffer_row)
                above, below = step.d_padding
                sources = {d_index: as_element(extract_rows(rows, above, kernel - above - below),
                                               p_element)}
                if residual is not None:
                    sources[residual] = as_element(
                        extract_rows(out if in_place else stored_residual, i, 1),
                        ir.RankedTensorType(consumer.operands[residual].type).element_type)
                row = clone_on_rows(consumer, ir.InsertionPoint(loop.body), sources,
                                    [1, 1, out_width, out_channels],
                                    [above, left, below, right])
                scf.YieldOp([insert_rows(as_element(row.results[0], stored(out_element)),
                                         out, i), rows])
            acc, buffer = loop.results[0], loop.results[1]
        result = as_element(acc, out_element)
    consumer.results[0].replace_all_uses_with(result)
    consumer.erase()
    producer.erase()


def fuse_function(func: ir.Operation) -> int:
    """Fuses a pair whose loop lowers the peak, again until none does;
    returns the number of pairs fused."""
    fused = 0
    while True:
        graph, _, _ = build_graph(func)
        saved = savings(graph)
        marked = marked_groups(graph, saved)
        during = live_during(graph, saved, marked)
        peak = max(during, default=0)
        position = {op: i for i, op in enumerate(graph.ops)}
        for producer, consumer in candidate_pairs(func):
            p, d = position[producer], position[consumer]
            if len(graph.produces[p]) != 1 or peak not in during[p:d + 1]:
                continue
            buffer = _loop_bytes(producer, consumer)
            in_place = _in_place(graph, position, producer, consumer)
            fused_graph = _fused_graph(graph, p, d, buffer, in_place)
            if max(live_during(fused_graph, saved, marked - {p, d})) < peak:
                fuse_pair(producer, consumer, in_place)
                fused += 1
                break
        else:
            return fused


@register
class FuseLineBuffer(Pass):
    name = "tinyml-fuse-line-buffer"
    summary = ("Compute a conv group row by row inside the loop over its stride-1 consumer's "
               "rows, keeping a window's height of its rows")

    def apply(self, module):
        for func in list(functions(module)):
            if len(func.regions[0].blocks) != 1:
                continue
            fused = fuse_function(func)
            if fused:
                with func.context:
                    func.attributes[LINE_BUFFERS] = ir.IntegerAttr.get(
                        ir.IntegerType.get_signless(64), fused)
