"""tinyml-fuse-line-buffer: a conv group and the stride-1 conv group reading
it become one loop over the consumer's output rows; the producer's output
lives as a rolling buffer of as many rows as the consumer's window is high.

Below the op-by-op lower bound, without computing anything twice (the line
buffer of image-processing pipelines; MCUNetV2, arXiv:2110.15352, computes
overlapping patches again instead): a conv group `P` whose only reader is
a conv group `D` of row stride 1 and kernel height k produces each of its
output rows once, at the step of `D`'s first output row that needs it.
Row r of `P`'s output padded with `D`'s top and bottom padding (pt zero
rows above, pb below; int8: `D`'s input zero point) is padded row r + pt;
step j of the loop puts padded row j at the bottom of the rolling buffer
of k rows and, once the buffer holds a window (j >= k - 1), computes
`D`'s output row i = j - (k - 1) from all of it, so `D` needs no row
padding of its own. The loop carries `D`'s output as rows of W * C
elements:

    %out, %ring = scf.for %j = 0 to H_out + k - 1 iter_args(%o = %init, %b = tensor.empty) {
      %b1 = (rows 1..k-1 of %b moved up a row, one row at a time)
      %b2 = scf.if (0 <= j - pt < H_P) {
        %in = (the rows of P's input P's row j - pt reads: of %x, or of %o,
               see below; padded with as many rows as fall outside it)
        %row = tinyml.fused P on %in                        // P's newest row
        scf.yield (tensor.insert_slice %row into %b1[0, k-1, 0, 0])
      } else {
        scf.yield (%b1 with row k-1 filled with D's padding value)
      }
      %o1 = scf.if (j >= k - 1) {
        %o_i = tinyml.fused D on %b2 (and row i of its residual)
        scf.yield (tensor.insert_slice (%o_i as one row) into %o[0, i, 0])
      } else {
        scf.yield %o
      }
      scf.yield %o1, %b2
    }

Every step runs the same code, one copy of `P`'s and `D`'s (each several
KB of Thumb code once tiled and vectorized): a loop per kind of step
(the first, which computes the rows the first window needs, the ones
whose window crosses an edge...) made a copy of them each. `P`'s own
top and bottom padding, which its edge rows need, is a `tensor.pad` of
the rows it reads by amounts that depend on j (bounded by the most any
row has, so that integer range analysis proves a tile's window never all
padding): the transform script fuses it into the tiles like the padding
of any conv, which stage their padded windows anyway.

Residual blocks. `D` may add a residual `E` of its output's shape, in its
group or (int8, where the add rescales both operands) in a `tinyml.add`
that is `D`'s only reader; the loop then computes the add's row too.
- `E` computed elsewhere, read by nothing after the loop: `%init` is `E`,
  and output row i is stored over row i of `E`, just after reading it.
- `E` is `P`'s input (an identity block), or a conv group `S` computes it
  from `P`'s input for `D` alone (a downsampling block's shortcut, then
  computed in the loop a row at a time): `%init` is `P`'s input, which `P`
  (and `S`) read from `%o`, and output row i is stored over its row i (an
  output row of a downsampling block has as many bytes as an input row).
  That is safe when every row read at the step storing row i is at or
  below row i, which no step before has overwritten: the pass checks it
  per row, else the output is a new tensor.

The groups inside the loop keep their lowering configuration: their
transform scripts tile them there as anywhere else (the buffers their
tiles stage windows in, allocated in the branches, tinyml-hoist-branch-allocs
allocates once, out of the loop). The roll moves k-1
rows of `P`'s output per output row of `D`; bufferization does not see
that a row and the one above it are disjoint and moves each through a
one-row temporary, which tinyml-forward-copies removes.

Cost model (tinyml-schedule-for-memory's live bytes per op, the groups
tinyml-compute-in-place marked in place): a pair is fused when a step
where `P`'s output is live is at the function's peak and the peak of the
same schedule once fused is lower: `P`'s output there is the loop's bytes
(the rolling buffer, the new row, the output row and the rows of `S`
and `D` before they are stored, and a row to spare), `P`'s input lives
up to the loop, `D`'s output costs nothing over `E` or `P`'s input. Then
again, with the peak recomputed, until no pair lowers it. The function
gets `tinyml.line_buffers`, the number of pairs fused.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, scf, tensor

from ..conversion.linalg_builders import collapse, expand
from ..dialects import tinyml as tm
from ..ir.analysis import LINE_BUFFERS
from ..ir.attributes import window_attributes
from ..ir.lazy_modules import linalg
from ..ir.values import shape_of
from ..ir.walk import functions
from ..pipeline.registry import Pass, register
from .compute_in_place import live_during, marked_groups, overwritten_index, savings
from .row_loops import (as_element, clone_on_rows, conv_of, extract_rows, index,
                        input_window, insert_rows, padding_value, row_conv, stored,
                        window_rows)
from .schedule_for_memory import Graph, build_graph, tensor_bytes

#: NHWC as rows of W * C elements.
ROWS = [[0], [1], [2, 3]]


@dataclass(frozen=True)
class LineBuffer:
    """A conv group `producer` (P) read only by `consumer` (D); the index
    of D's residual operand, or the residual `add` reading D's output
    alone (where D's epilogue does not hold it: an int8 add rescales both
    operands); the `shortcut` group (S) computing that residual from P's
    input, if it is computed in the loop too."""

    producer: ir.Operation
    consumer: ir.Operation
    shortcut: ir.Operation | None
    residual: int | None
    add: ir.Operation | None = None

    @property
    def last(self) -> ir.Operation:
        """The op whose result the loop computes."""
        return self.add or self.consumer

    @property
    def output(self) -> ir.Value:
        return self.last.results[0]

    @property
    def residual_value(self) -> ir.Value | None:
        if self.add is not None:
            return next(v for v in self.add.operands if v != self.consumer.results[0])
        return None if self.residual is None else self.consumer.operands[self.residual]

    @property
    def inner(self) -> list[ir.Operation]:
        """The ops the loop computes before its last."""
        return [self.producer] + ([self.shortcut] if self.shortcut is not None else []) \
            + ([self.consumer] if self.add is not None else [])

    @property
    def source(self) -> ir.Value:
        return self.producer.operands[overwritten_index(self.producer)]

    def overwrites_unread_rows(self) -> bool:
        """Every row of P's input that P or S read at a step is at or
        below the output row it stores: rows above it hold D's output by
        then. P's row r is computed at step r + pt, which stores D's row
        r + pt - (k - 1) (pt: D's top padding, k: its kernel height); S's
        row i at the step storing row i."""
        p_root, d_root = conv_of(self.producer), conv_of(self.consumer)
        _, _, (top, _, _, _) = window_attributes(d_root.attributes)
        kernel = shape_of(d_root.operands[1])[0]
        if any(input_window(p_root, r, r + 1)[0] < r + top - (kernel - 1)
               for r in range(shape_of(p_root.results[0])[1])):
            return False
        if self.shortcut is None:
            return True
        s_root = conv_of(self.shortcut)
        return all(input_window(s_root, i, i + 1)[0] >= i
                   for i in range(shape_of(s_root.results[0])[1]))

    def rows_fit(self) -> bool:
        """D's output rows take no more room than P's input rows, and are
        as many bytes each (they can be stored over them)."""
        source, out = self.source, self.output
        return tensor_bytes(source) // shape_of(source)[1] == \
            tensor_bytes(out) // shape_of(out)[1] and shape_of(out)[1] <= shape_of(source)[1]

    def loop_bytes(self) -> int:
        """The bytes the loop holds besides its input and output: the
        rolling buffer, and the temporaries bufferization gives it (P's new
        row, the shortcut's row and D's output row before they are
        stored), with a row of P's to spare."""
        kernel = shape_of(conv_of(self.consumer).operands[1])[0]
        p_out, d_out = self.producer.results[0], self.output
        p_row = tensor_bytes(p_out) // shape_of(p_out)[1]
        d_row = tensor_bytes(d_out) // shape_of(d_out)[1]
        # A row of output, and one of S's and D's where the loop goes on
        # to compute from them (every inner op but P).
        return p_row * (kernel + 2) + d_row * len(self.inner)


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


def _shortcut(residual: ir.Value, source: ir.Value) -> ir.Operation | None:
    """The conv group computing `residual` from `source` alone, if the
    residual is all it is read for."""
    owner = residual.owner
    if isinstance(owner, ir.Block) or owner.operation.name != tm.FusedOp.OPERATION_NAME:
        return None
    group = owner.operation
    if len(group.results) != 1 or len(list(residual.uses)) != 1 or row_conv(group) is None \
            or group.operands[overwritten_index(group)] != source:
        return None
    return group


def _residual_add(consumer: ir.Operation) -> ir.Operation | None:
    """The `tinyml.add` that is the only reader of a residual-free D, adding
    a tensor of D's output's shape."""
    if row_conv(consumer) is None:
        return None
    uses = list(consumer.results[0].uses)
    if len(uses) != 1 or uses[0].owner.operation.name != tm.AddOp.OPERATION_NAME:
        return None
    add = uses[0].owner.operation
    if len(add.operands) != 2 or add.operands[0] == add.operands[1] or any(
            shape_of(v) != shape_of(consumer.results[0]) for v in (*add.operands, add.results[0])):
        return None
    return add


def candidates(func: ir.Operation) -> list[LineBuffer]:
    """P a conv group read only by D, as D's conv input; D a conv group of
    row stride 1 that reads besides only its weights and at most a
    residual of its output's shape (computed in the loop if a conv group
    computes it from P's input for D alone)."""
    found = []
    for op in func.regions[0].blocks[0].operations:
        op = op.operation
        if op.name != tm.FusedOp.OPERATION_NAME or len(op.results) != 1 or row_conv(op) is None:
            continue
        uses = list(op.results[0].uses)
        if len(uses) != 1:
            continue
        consumer = uses[0].owner.operation
        if consumer.name != tm.FusedOp.OPERATION_NAME or len(consumer.results) != 1:
            continue
        d_index = overwritten_index(consumer)
        if d_index is None or consumer.operands[d_index] != op.results[0]:
            continue
        residual = _residual(consumer)
        others = () if residual is None else (consumer.operands[residual],)
        root = row_conv(consumer, *others)
        if root is None or window_attributes(root.attributes)[0][0] != 1:
            continue
        fusion = LineBuffer(op, consumer, None, residual, _residual_add(consumer))
        residual_value = fusion.residual_value
        if residual_value is not None:
            fusion = dataclasses.replace(fusion,
                                         shortcut=_shortcut(residual_value, fusion.source))
        found.append(fusion)
    return found


def _tensor(graph: Graph, op: int, excluded: set[int]) -> int | None:
    """The one tensor of the scheduling graph `op` reads besides the
    `excluded` ones (None for a function argument's or a constant's)."""
    tensors = {t for t in graph.consumes[op] if t not in excluded}
    return tensors.pop() if len(tensors) == 1 else None


def _output_over(graph: Graph, position: dict, fusion: LineBuffer) -> str | None:
    """Where the loop can store D's output: "input" over P's input (row i
    over row i, once no step reads it), "residual" over D's residual (row
    by row), or None (a new tensor). Either must be a tensor of this
    function that nothing reads after D."""
    p, d = position[fusion.producer], position[fusion.last]
    if len(graph.produces[d]) != 1:
        return None
    computed = {t for op in fusion.inner for t in graph.produces[position[op]]}
    residual = fusion.residual_value
    if residual is not None and residual != fusion.source and fusion.shortcut is None:
        tensor = _tensor(graph, d, computed)
        if tensor is not None and graph.users[tensor] >> (d + 1) == 0:
            return "residual"
        return None
    source = _tensor(graph, p, set())
    if source is not None and graph.users[source] >> (d + 1) == 0 and fusion.rows_fit() \
            and fusion.overwrites_unread_rows():
        return "input"
    return None


def _fused_graph(graph: Graph, position: dict, fusion: LineBuffer,
                 over: str | None) -> Graph:
    """The scheduling graph once P (and S) run inside D's step, their
    outputs the loop's bytes (and D's output stored `over` a tensor)."""
    p, d = position[fusion.producer], position[fusion.last]
    inner = [position[op] for op in fusion.inner]
    produces = [list(ts) for ts in graph.produces]
    consumes = [list(ts) for ts in graph.consumes]
    sizes, users = list(graph.sizes), list(graph.users)
    (out,) = graph.produces[d]
    for op in inner:
        (result,) = graph.produces[op]
        produces[op], produces[d] = [], produces[d] + [result]
        consumes[d] = [t for t in consumes[d] if t != result] + consumes[op]
        for t in consumes[op]:
            users[t] |= 1 << d
        consumes[op] = []
        sizes[result], users[result] = 0, 1 << d
    sizes[graph.produces[p][0]] = fusion.loop_bytes()
    if over is not None:
        kept = _tensor(graph, p, set()) if over == "input" else \
            _tensor(graph, d, {t for op in inner for t in graph.produces[op]})
        assert kept is not None, "_output_over found it"
        users[kept] |= users[out]
        sizes[out] = 0
    return dataclasses.replace(graph, produces=produces, consumes=consumes, sizes=sizes,
                               users=users)


def _add_rows(add: ir.Operation, consumer_output: ir.Value, row: ir.Value,
              residual_row: ir.Value) -> ir.Value:
    """The residual `add` on one row: D's `row` where it read D's output,
    `residual_row` for the other operand."""
    clone = add.clone(ir.InsertionPoint.current)
    for n, operand in enumerate(add.operands):
        clone.operands[n] = row if operand == consumer_output else residual_row
    out_type = ir.RankedTensorType(add.results[0].type)
    clone.results[0].set_type(ir.RankedTensorType.get(
        shape_of(row), out_type.element_type))
    return clone.results[0]


def fuse(fusion: LineBuffer, over: str | None) -> None:
    """Replaces P, D (and S) by the loop over D's output rows."""
    producer, consumer, shortcut = fusion.producer, fusion.consumer, fusion.shortcut
    p_root, d_root = conv_of(producer), conv_of(consumer)
    _, _, (_, p_left, _, p_right) = window_attributes(p_root.attributes)
    _, _, (top, left, _, right) = window_attributes(d_root.attributes)
    kernel = shape_of(d_root.operands[1])[0]
    p_index, d_index, residual = overwritten_index(producer), overwritten_index(consumer), \
        fusion.residual
    assert p_index is not None and d_index is not None, "row convs read their input"
    source = fusion.source
    _, height, width, in_channels = shape_of(source)
    _, p_rows, p_width, p_channels = shape_of(producer.results[0])
    residual_value, last = fusion.residual_value, fusion.last
    out_shape = shape_of(fusion.output)
    _, out_height, out_width, out_channels = out_shape
    in_element = ir.RankedTensorType(source.type).element_type
    p_element = ir.RankedTensorType(producer.results[0].type).element_type
    out_element = ir.RankedTensorType(fusion.output.type).element_type
    residual_element = None if residual_value is None else \
        ir.RankedTensorType(residual_value.type).element_type

    with ir.InsertionPoint(last), last.location:
        # The loop carries D's output as rows of W * C elements: over P's
        # input those are its rows (as many bytes, see rows_fit).
        stored_source = as_element(source, stored(in_element))
        if over == "input":
            acc = collapse(stored_source, ROWS)
        elif over == "residual":
            acc = collapse(as_element(residual_value, stored(out_element)), ROWS)
        else:
            acc = tensor.empty([1, out_height, out_width * out_channels], stored(out_element))
        buffer = tensor.empty([1, kernel, p_width, p_channels], stored(p_element))
        # Step j puts row j of P's output padded with D's top and bottom
        # padding at the bottom of the buffer, then computes D's row
        # j - (k - 1) from the whole buffer.
        loop = scf.ForOp(index(0), index(out_height + kernel - 1), index(1), [acc, buffer])
        with ir.InsertionPoint(loop.body):
            j = loop.induction_variable
            out, rows = loop.inner_iter_args

            def read(first: ir.Value, count: ir.Value | int) -> ir.Value:
                """Rows of P's input, in the type loops carry."""
                if over != "input":
                    return extract_rows(stored_source, first, count)
                # Sliced once expanded: a tile's pad then knows how many
                # rows it reads (tensor.dim of a slice folds to its size).
                return extract_rows(expand(out, [1, height, width, in_channels], ROWS), first,
                                    count)

            def input_rows(root: ir.Operation, row: ir.Value) -> ir.Value:
                return as_element(window_rows(root, row, read, padding_value(in_element)),
                                  in_element)

            # Row by row: bufferization moves each within the buffer.
            for row in range(kernel - 1):
                rows = insert_rows(extract_rows(rows, row + 1, 1), rows, row)
            p_row = arith.subi(j, index(top))
            # Unsigned: a row above P's first wraps around to a large one.
            computes = arith.cmpi(arith.CmpIPredicate.ult, p_row, index(p_rows))
            new_row = scf.IfOp(computes, [rows.type], has_else=True)
            with ir.InsertionPoint(new_row.then_block):
                new = clone_on_rows(producer, ir.InsertionPoint(new_row.then_block),
                                    {p_index: input_rows(p_root, p_row)},
                                    [1, 1, p_width, p_channels], [0, p_left, 0, p_right])
                scf.YieldOp([insert_rows(as_element(new.results[0], stored(p_element)), rows,
                                         kernel - 1)])
            with ir.InsertionPoint(new_row.else_block):
                padding = linalg.fill(padding_value(p_element),
                                      outs=[extract_rows(rows, kernel - 1, 1)])
                scf.YieldOp([insert_rows(padding, rows, kernel - 1)])
            rows = new_row.results[0]

            i = arith.subi(j, index(kernel - 1))
            stores = arith.cmpi(arith.CmpIPredicate.sge, j, index(kernel - 1))
            out_row = scf.IfOp(stores, [out.type], has_else=True)
            with ir.InsertionPoint(out_row.then_block):
                sources = {d_index: as_element(rows, p_element)}
                residual_row = None
                if shortcut is not None:
                    s_index = overwritten_index(shortcut)
                    assert s_index is not None, "a row conv reads its input"
                    _, _, (_, s_left, _, s_right) = \
                        window_attributes(conv_of(shortcut).attributes)
                    residual_row = clone_on_rows(
                        shortcut, ir.InsertionPoint(out_row.then_block),
                        {s_index: input_rows(conv_of(shortcut), i)},
                        [1, 1, out_width, out_channels], [0, s_left, 0, s_right]).results[0]
                elif residual_value is not None:
                    if over is not None:
                        row = expand(extract_rows(out, i, 1), [1, 1, out_width, out_channels],
                                     ROWS)
                    else:
                        row = extract_rows(as_element(residual_value, stored(residual_element)),
                                           i, 1)
                    residual_row = as_element(row, residual_element)
                if residual is not None:
                    sources[residual] = residual_row
                row = clone_on_rows(consumer, ir.InsertionPoint(out_row.then_block), sources,
                                    [1, 1, out_width, out_channels],
                                    [0, left, 0, right]).results[0]
                if fusion.add is not None:
                    row = _add_rows(fusion.add, consumer.results[0], row, residual_row)
                stored_row = collapse(as_element(row, stored(out_element)), ROWS)
                scf.YieldOp([insert_rows(stored_row, out, i)])
            with ir.InsertionPoint(out_row.else_block):
                scf.YieldOp([out])
            scf.YieldOp([out_row.results[0], rows])
        acc = loop.results[0]
        if shape_of(acc)[1] != out_height:
            acc = extract_rows(acc, 0, out_height)
        result = as_element(expand(acc, out_shape, ROWS), out_element)
    fusion.output.replace_all_uses_with(result)
    for op in (fusion.add, consumer, producer, shortcut):
        if op is not None:
            op.erase()


def fuse_line_buffers_in(func: ir.Operation) -> int:
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
        for fusion in candidates(func):
            ops = fusion.inner + [fusion.last]
            first, d = min(position[op] for op in ops), position[fusion.last]
            if any(len(graph.produces[position[op]]) != 1 for op in ops) \
                    or peak not in during[first:d + 1]:
                continue
            over = _output_over(graph, position, fusion)
            fused_graph = _fused_graph(graph, position, fusion, over)
            if max(live_during(fused_graph, saved, marked - {position[op] for op in ops})) \
                    < peak:
                fuse(fusion, over)
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
            fused = fuse_line_buffers_in(func)
            if fused:
                with func.context:
                    func.attributes[LINE_BUFFERS] = ir.IntegerAttr.get(
                        ir.IntegerType.get_signless(64), fused)
