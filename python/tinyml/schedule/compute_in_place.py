"""tinyml-compute-in-place: mark the conv groups whose output can overwrite
their input, where that lowers the function's peak of live bytes.

Below the op-by-op lower bound: a layer whose input and output have the
same shape needs both whole tensors live at once only if it writes an
output element before it has read every input element that needs it.
Two layer kinds can avoid that with a temporary of one band
(TinyEngine's in-place depthwise, MCUNetV2, arXiv:2110.15352):

- a pointwise conv (1x1, stride 1, no padding, as many output channels as
  input channels): an output row depends on the same input row only; a
  band is one row, computed into a one-row temporary, then stored over it;
- a depthwise conv (stride 1, output the input's shape): an output channel
  depends on the same input channel only; a band is the channels of one
  register tile, over the whole height and width.

The group gets the unit attribute `tinyml.in_place`: its lowering makes the
epilogue write over the input, its transform script loops over bands
(tinyml-attach-transform-script), tinyml-read-in-place lets the bands read
the input through that loop, and bufferization then needs one buffer for
input and output, plus the band's temporary.

A group qualifies when it is a pointwise or depthwise conv group (float or
int8) with a lowering configuration (the band is a tile of it), whose conv
reads its input and nothing else of the group does; that input is
computed in this function (never a function argument: that is the
caller's), is not a view, and is read by no op after the group.

Cost model: per op in execution order the live tensor bytes while it runs
(tinyml-schedule-for-memory's model); in place, a group's step holds its
output and its temporary, not its input as well. With `int16-bands` (a
core with the DSP extension, whose tinyml-widen-conv-inputs stages an
int8 pointwise band extended to int16) that temporary counts twice its
int8 bytes, so that the peak the function gets is the one its arena
needs: a padded depthwise conv stages as many rows at once as fit under
it (tinyml-attach-transform-script), an audio DS-CNN's 13 where the
int8 count left room for 1 (M4: 68.6 -> 55.8 K instructions a layer). With `only-at-peak`
(default) the pass marks a qualifying group at the current peak, lowers
that step, and repeats until the peak is at a step it cannot lower: other
groups keep their faster out-of-place form (in place costs a copy of each
band). Without it, every qualifying group is marked. Runs after
tinyml-schedule-for-memory, on the order it chose; the function gets
`tinyml.in_place_peak_bytes`, the peak with the marked groups in place.
"""
from __future__ import annotations

from mlir import ir

from ..dialects import tinyml as tm
from ..ir.attributes import window_attributes
from ..ir.lowering_config import IN_PLACE, LoweringConfig
from ..ir.ops import op_names
from ..ir.values import shape_of
from ..ir.walk import functions
from ..pipeline.registry import Option, Pass, register
from .schedule_for_memory import Graph, build_graph, tensor_bytes

#: The function attribute with the peak of live bytes once the marked
#: groups run in place.
IN_PLACE_PEAK = "tinyml.in_place_peak_bytes"


def overwritten_index(group: ir.Operation) -> int | None:
    """The index of the group operand its conv reads as input, if the group
    reads that operand nowhere else."""
    root = group.opview.root
    if root is None or root.name not in op_names(tm.Conv2DOp, tm.DepthwiseConv2DOp):
        return None
    argument = root.operands[0]
    if not isinstance(argument.owner, ir.Block) or len(list(argument.uses)) != 1:
        return None
    index = ir.BlockArgument(argument).arg_number
    if sum(1 for operand in group.operands if operand == group.operands[index]) != 1:
        return None
    return index


def overwritten_input(group: ir.Operation) -> ir.Value | None:
    """The group operand at `overwritten_index`, or None."""
    index = overwritten_index(group)
    return None if index is None else group.operands[index]


def band_bytes(group: ir.Operation, int16_bands: bool = False) -> int | None:
    """The bytes of one band of `group` if it can run in place (see the
    module's docstring; `int16_bands`: an int8 pointwise band staged as
    int16), else None."""
    root = group.opview.root
    config = LoweringConfig.of(group)
    if config is None or root is None or overwritten_input(group) is None:
        return None
    strides, dilations, padding = window_attributes(root.attributes)
    in_shape, out_shape = shape_of(root.operands[0]), shape_of(root.results[0])
    if list(strides) != [1, 1] or list(dilations) != [1, 1] or in_shape != out_shape \
            or shape_of(group.results[0]) != out_shape:
        return None
    _, height, _, channels = out_shape
    whole = tensor_bytes(root.results[0])
    if root.name == tm.Conv2DOp.OPERATION_NAME:
        if shape_of(root.operands[1])[:2] != [1, 1] or any(padding):
            return None
        int8 = whole == height * out_shape[2] * channels  # a byte an element
        return whole // height * (2 if int16_bands and int8 else 1)
    return whole // channels * config.tile[3]


def savings(graph: Graph, int16_bands: bool = False) -> dict[int, int]:
    """Op index -> the bytes its step saves in place, for the groups of the
    scheduling graph that can run in place."""
    saved: dict[int, int] = {}
    position = {op: i for i, op in enumerate(graph.ops)}
    for i, op in enumerate(graph.ops):
        if op.name != tm.FusedOp.OPERATION_NAME:
            continue
        band = band_bytes(op, int16_bands)
        if band is None:
            continue
        source = overwritten_input(op)
        if source is None or isinstance(source.owner, ir.Block):
            continue  # a function argument: the caller's
        producer = position.get(source.owner.operation)
        produced = [] if producer is None else graph.produces[producer]
        if len(produced) != 1 or produced[0] not in graph.consumes[i] \
                or graph.users[produced[0]] >> (i + 1):
            continue  # a view (or a constant), or read after the group
        saved[i] = graph.sizes[produced[0]] - band
    return saved


def live_during(graph: Graph, saved: dict[int, int], marked: set[int]) -> list[int]:
    """The live bytes while each op runs, the `marked` groups in place."""
    done, live, during = 0, 0, []
    for i in range(len(graph.ops)):
        live, step = graph.step(done, live, i)
        during.append(step - (saved[i] if i in marked else 0))
        done |= 1 << i
    return during


def marked_groups(graph: Graph, saved: dict[int, int]) -> set[int]:
    """The groups an earlier run marked."""
    return {i for i in saved if IN_PLACE in graph.ops[i].attributes}


def mark_function(func: ir.Operation, only_at_peak: bool, int16_bands: bool = False) -> int:
    """Marks the groups of `func` to run in place; returns the peak of live
    bytes with them in place."""
    graph, _, _ = build_graph(func)
    candidates = savings(graph, int16_bands)
    marked = marked_groups(graph, candidates) if only_at_peak else set(candidates)
    while only_at_peak:
        during = live_during(graph, candidates, marked)
        peak = max(during, default=0)
        at_peak = [i for i, step in enumerate(during) if step == peak]
        lowering = [i for i in at_peak if i in candidates and i not in marked]
        if not lowering or len(lowering) < len(at_peak):
            break  # some step at the peak cannot be lowered: marking gains nothing
        marked.update(lowering)
    for i in marked:
        graph.ops[i].attributes[IN_PLACE] = ir.UnitAttr.get()
    return max(live_during(graph, candidates, marked), default=0)


@register
class ComputeInPlace(Pass):
    name = "tinyml-compute-in-place"
    summary = "Mark pointwise and depthwise conv groups to write their output over their input"
    options = (
        Option("only-at-peak", bool, True, "mark only groups whose step is at the function's "
               "peak of live bytes, until the peak is at a step no marking lowers"),
        Option("int16-bands", bool, False, "count an int8 pointwise group's band twice: "
               "staged extended to int16 (tinyml-widen-conv-inputs, the DSP extension)"),
    )
    only_at_peak: bool
    int16_bands: bool

    def apply(self, module):
        for func in list(functions(module)):
            if len(func.regions[0].blocks) != 1:
                continue
            peak = mark_function(func, self.only_at_peak, self.int16_bands)
            with func.context:
                func.attributes[IN_PLACE_PEAK] = ir.IntegerAttr.get(
                    ir.IntegerType.get_signless(64), peak)
