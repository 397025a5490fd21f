"""tinyml-fuse-input-transpose: a conv or depthwise conv group takes in the
transpose it alone reads as its conv's input, where the transposed tensor
is live at the function's peak of live bytes.

An NCHW model (a PyTorch export, a tflite2onnx conversion) has its input
transposed to NHWC once: tinyml-cancel-transposes sinks that transpose to
the first layer. Materialized, the transposed copy is as large as the
input and lives next to the first layer's output, often the peak. In the
group, the conv reads the NCHW tensor: its transform script pads and
transposes one input window at a time, in the tile that reads it
(tinyml-attach-transform-script), so the transposed tensor never exists.
Each tile transposes its window as it stages it (tinyml-decompose-pads), in
place of the copy that staged it from the transposed tensor; an element in
several windows (the rows and columns neighbours share) is transposed
several times, which can cost more than one whole transpose (ResNet-8's
stride-1 first conv: 0.03% of the run), hence only where it lowers the
peak.

Candidates: a transpose whose only user is a conv group reading it once,
as its conv's input (a storage cast between them, an int8 group's input,
which tinyml-quantize-ops leaves below the transpose, first moves above
the transpose). A group marked to write its output over the transposed
tensor (tinyml-compute-in-place) is no longer: the caller's input is not
its to overwrite. Cost model (tinyml-schedule-for-memory's live bytes per
op, the groups tinyml-compute-in-place marked in place): a transpose is
fused when a step where its output is live is at the peak and the peak
without that tensor is lower; again until none lowers it. Runs after the
other memory passes (the peak is theirs), before tinyml-compute-in-place
runs again at the new peak.
"""
from __future__ import annotations

from mlir import ir
from mlir.rewrite import PatternRewriter

from ..dialects import tinyml as tm
from ..ir.lowering_config import IN_PLACE
from ..ir.ops import op_names
from ..ir.patterns import NO_MATCH, rewrite_greedily
from ..ir.walk import functions
from ..pipeline.registry import Pass, register
from ..transforms.cancel_transposes import sink_through_quant_cast
from ..transforms.fusion.conv_epilogue import KIND
from ..transforms.fusion.groups import absorb_producer, is_group, only_user, same
from .compute_in_place import live_during, marked_groups, savings
from .schedule_for_memory import build_graph

#: The roots whose tiles read their input as windows of it.
WINDOWED = op_names(tm.Conv2DOp, tm.DepthwiseConv2DOp)


def reads_as_conv_input(group: ir.Operation, value: ir.Value) -> bool:
    """Whether `group` reads `value` once, as its conv's input and nowhere
    else in its body."""
    root = group.opview.root
    if root is None or root.name not in WINDOWED:
        return False
    index = [i for i, operand in enumerate(group.operands) if operand == value]
    if len(index) != 1:
        return False
    argument = group.regions[0].blocks[0].arguments[index[0]]
    return [use.owner.operation for use in argument.uses] == [root] \
        and root.operands[0] == argument


def reading_group(transpose: ir.Operation) -> ir.Operation | None:
    """The conv group reading `transpose` alone as its conv's input,
    directly or through a storage cast that only it reads."""
    value, user = transpose.results[0], only_user(transpose)
    if user is not None and user.name == "quant.scast":
        value, user = user.results[0], only_user(user)
    if is_group(user, KIND) and reads_as_conv_input(user, value):
        return user
    return None


def fuse(func: ir.Operation, group: ir.Operation) -> None:
    """The transpose feeding `group` joins it (its storage cast first moved
    above it)."""

    def cast_moves_above_transpose(op: ir.OpView, rewriter: PatternRewriter):
        if not same(only_user(op.operation), group):
            return NO_MATCH
        return sink_through_quant_cast(op, rewriter)

    def transpose_joins_group(op: ir.OpView, rewriter: PatternRewriter):
        if not same(only_user(op.operation), group):
            return NO_MATCH
        absorb_producer(rewriter, group, op.operation)

    # Reading the caller's input, it cannot write over it.
    if IN_PLACE in group.attributes:
        del group.attributes[IN_PLACE]
    rewrite_greedily(func, [("quant.scast", cast_moves_above_transpose),
                            (tm.TransposeOp.OPERATION_NAME, transpose_joins_group)], fold=False)


def fuse_function(func: ir.Operation) -> int:
    """Fuses a transpose whose fusion lowers the peak, again until none
    does; returns the number fused."""
    fused = 0
    while True:
        graph, _, _ = build_graph(func)
        saved = savings(graph)
        marked = marked_groups(graph, saved)
        peak = max(live_during(graph, saved, marked), default=0)
        position = {op: i for i, op in enumerate(graph.ops)}
        for i, op in enumerate(graph.ops):
            group = reading_group(op) if op.name == tm.TransposeOp.OPERATION_NAME else None
            if group is None or len(graph.produces[i]) != 1:
                continue
            # Without the transposed tensor, and the group out of place.
            (transposed,) = graph.produces[i]
            last = graph.users[transposed].bit_length() - 1
            during = live_during(graph, saved, marked - {position[group]})
            without = [step - graph.sizes[transposed] if i <= k <= last else step
                       for k, step in enumerate(during)]
            if max(without) < peak:
                fuse(func, group)
                fused += 1
                break
        else:
            return fused


@register
class FuseInputTranspose(Pass):
    name = "tinyml-fuse-input-transpose"
    summary = ("Fuse a transpose read only as a conv group's input into that group, where "
               "the transposed tensor is live at the peak")

    def apply(self, module):
        for func in list(functions(module)):
            if len(func.regions[0].blocks) == 1:
                fuse_function(func)
