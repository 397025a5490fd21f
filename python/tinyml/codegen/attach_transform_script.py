"""tinyml-attach-transform-script: the transform-dialect script that tiles and
vectorizes every configured group, attached to the module for the upstream
`transform-interpreter` pass to run; tinyml-erase-transform-script removes
it again. Between the two, `tinyml-opt` shows the script each group gets.

A group's script starts from the op carrying its `#tinyml.lowering`, the
epilogue `linalg.generic` whose first input is the group's contraction:

1. tile it to the register tile (`tile_using_for`, one loop per tiled dim;
   an unpadded conv whose pixel tile leaves part of a row has its pixel
   loop peeled once the next step is done, `peeled_pixel_loop`);
2. fuse the contraction and the op initialising its accumulator (the bias
   broadcast or zero fill, the group's own: `own_init`) into the innermost
   tile loop; a padded conv is
   tiled in two levels and its `tensor.pad` fused into the outer one, so
   that a padded window is staged in a small buffer once for the inner
   tiles reading it, no padded copy of the whole input exists and the
   reduction loops have no test per tap. A conv's outer level is a pixel
   tile (all output channels share its window); a depthwise conv's is a
   band of output rows of the tile's channels (a channel's window serves
   only that channel: the band amortises the staging instead, each input
   row staged once per band it falls in), as many rows as fit beside the
   conv's operands under the function's peak of live bytes; a conv reading
   its input through a `linalg.transpose` (an NCHW input,
   tinyml-fuse-input-transpose; padded before it is transposed) or through
   the taps-as-channels generic of a one-channel int8 conv
   (`TAPS_AS_CHANNELS`), the window-as-channels one of an RGB conv
   (`WINDOW_AS_CHANNELS`) or through its int16 extension (`WIDENED`) is
   tiled in two levels too, that reader of the window fused into the outer
   one, then the pad of the input it reads; an unpadded conv's extension
   stages whole rows instead where the pixel loop is peeled (the outer
   tile is the row) or the group runs in place (its band is the row);
3. tile the contraction's reduction dimensions to their steps, so a tile's
   accumulators stay live across the reduction loops;
4. decompose a conv whose window row is one step into a 1-D conv;
5. vectorize the tile's ops.

Then, for the whole module (a second entry point, `LOWER_CONTRACTIONS`, so
that a target's own lowering of some contractions can run in between):
contractions become outer products and those FMAs (`lower_contraction`, `lower_outerproduct`); the accumulator's
transfer_read/write pair is hoisted out of the reduction loops
(`hoist_loop_invariant_subsets`), which keeps it in registers; last, the
slices between a tile's vector writes and reads fold away, so the bias and
the accumulators reach the epilogue in registers, not through memory.
"""
from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from ..ir.lowering_config import (ATTRIBUTE, IN_PLACE, TAPS_AS_CHANNELS, WIDENED,
                                  WINDOW_AS_CHANNELS, LoweringConfig)
from ..ir.values import element_bytes, shape_of
from ..ir.walk import ops_named
from ..pipeline.registry import Pass, PassError, register
from ..schedule.compute_in_place import IN_PLACE_PEAK
from ..schedule.schedule_for_memory import PEAK, tensor_bytes

#: The symbol of the attached script module.
SCRIPT = "tinyml_transform_script"
#: The script's second entry point, run after the first (tiling and
#: vectorizing) once the target's own contraction lowerings have had their
#: turn (tinyml-contract-to-smlad): the remaining contractions become FMAs,
#: accumulators are hoisted into registers.
LOWER_CONTRACTIONS = "tinyml_lower_contractions"
#: The attribute telling which of the script's sequences tiles an epilogue.
MARK = "tinyml.script"

#: (parallel, reduction) loop counts of each named producer a script fuses:
#: its parallel loops come first (a generic's iterator types say it).
LOOPS = {
    "linalg.conv_2d_nhwc_hwcf": (4, 3),
    "linalg.depthwise_conv_2d_nhwc_hwc": (4, 2),
    "linalg.matmul": (2, 1),
    "linalg.pooling_nhwc_sum": (4, 2),
}
#: The convs a script fuses a padded or transposed input window into.
CONVS = ("linalg.conv_2d_nhwc_hwcf", "linalg.depthwise_conv_2d_nhwc_hwc")
#: Windowed producers whose kh=1 tiles decompose to their 1-D form.
DECOMPOSABLE = ("linalg.conv_2d_nhwc_hwcf", "linalg.depthwise_conv_2d_nhwc_hwc",
                "linalg.pooling_nhwc_sum")


ANY = "!transform.any_op"


def _sizes(sizes) -> str:
    return "[" + ", ".join(str(s) for s in sizes) + "]"


def _handles(count: int) -> str:
    return ", ".join([ANY] * count)


@dataclass(frozen=True)
class Group:
    """What a group's sequence depends on: the op computing its epilogue's
    first input (a contraction, pooling or reduction), that op's loops
    (True for a reduction loop), the operand initialising it, and the
    group's configuration."""
    producer: str
    reductions: tuple[bool, ...]
    init_operand: int
    config: LoweringConfig
    padded: bool  # the producer reads a tensor.pad (a padded conv)
    band: int = 1  # output rows per staged window of a padded depthwise conv
    in_place: bool = False  # the epilogue writes over the group's input (IN_PLACE)
    reread: bool = False  # the conv reads its pad through a window reader (`window_reader`)
    init: str = ""  # the name of the op initialising the accumulator
    partial: bool = False  # the pixel tile leaves part of a row: its loop is peeled
    # The window reader (an unpadded conv's int16 extension, WIDENED) stages
    # whole rows: the band of an in-place group, or the outer tile of one
    # whose pixel loop is peeled.
    staged_rows: bool = False


def group_sequence(name: str, group: Group) -> list[str]:
    """The named sequence tiling one group: its epilogue generic (the op
    carrying the configuration) over the group's producer."""
    config = group.config
    loops = sum(1 for s in config.tile if s)
    steps = iter(config.reduction)
    step_sizes = [next(steps, 0) if reduction else 0 for reduction in group.reductions]
    step_loops = sum(1 for s in step_sizes if s)
    lines = [f"  transform.named_sequence @{name}(%epilogue: {ANY} {{transform.consumed}}) {{"]
    emit = lines.append
    emit(f"    %producer = transform.get_producer_of_operand %epilogue[0] : ({ANY}) -> {ANY}")
    emit(f"    %init = transform.get_producer_of_operand %producer[{group.init_operand}] : "
         f"({ANY}) -> {ANY}")
    if group.reread:
        emit(f"    %reader = transform.get_producer_of_operand %producer[0] : "
             f"({ANY}) -> {ANY}")
    if group.padded:
        reader = "%reader" if group.reread else "%producer"
        emit(f"    %pad = transform.get_producer_of_operand {reader}[0] : ({ANY}) -> {ANY}")
    epilogue, producer, init, pad = "%epilogue", "%producer", "%init", "%pad"
    if group.in_place:
        # A loop over bands carrying the group's input, which the epilogue
        # overwrites band by band (tinyml-read-in-place then makes each band
        # read the input through the loop): rows of a pointwise conv, a
        # depthwise conv's channels of one tile.
        band = ([0, 0, 0, config.tile[3]] if group.producer == "linalg.depthwise_conv_2d_nhwc_hwc"
                else [0, 1, 0, 0])
        emit(f"    %band, %band_loop = transform.structured.tile_using_for %epilogue "
             f"tile_sizes {_sizes(band)} : ({ANY}) -> ({ANY}, {ANY})")
        emit(f'    transform.annotate %band_loop "{IN_PLACE}" : {ANY}')
        emit(f"    %band_producer, %b1 = transform.structured.fuse_into_containing_op "
             f"%producer into %band_loop : ({ANY}, {ANY}) -> ({ANY}, {ANY})")
        emit(f"    %band_init, %b2 = transform.structured.fuse_into_containing_op "
             f"%init into %b1 : ({ANY}, {ANY}) -> ({ANY}, {ANY})")
        epilogue, producer, init = "%band", "%band_producer", "%band_init"
        if group.staged_rows:
            lines += fused_window_reader("%b2", "%b3")
        if group.padded:
            emit(f"    %band_pad, %b3 = transform.structured.fuse_into_containing_op "
                 f"%pad into %b2 : ({ANY}, {ANY}) -> ({ANY}, {ANY})")
            # The band's pad comes guarded against an empty slice (an
            # scf.if), which never happens to whole rows and columns: folded
            # away, the pad is again the conv's producer for the next level.
            emit("    transform.apply_patterns to %b3 {")
            emit("      transform.apply_patterns.canonicalization")
            emit(f"    }} : {ANY}")
            pad = "%band_pad"
    if (group.padded or group.reread) and not (group.in_place and group.staged_rows):
        # Two levels: the outer tile stages its padded (or transposed, or
        # unfolded, or extended) input window once, for the inner tiles
        # that read it.
        if group.producer == "linalg.depthwise_conv_2d_nhwc_hwc" and group.padded:
            outer = [1, group.band, 0, config.tile[3]]
            inner = [0, 1, config.tile[2], 0]
        elif group.staged_rows:
            outer = list(config.tile[:-2]) + [0, 0]
            inner = [0] * (len(config.tile) - 2) + list(config.tile[-2:])
        else:
            outer = list(config.tile[:-1]) + [0]
            inner = [0] * (len(config.tile) - 1) + [config.tile[-1]]
        outer_loops = sum(1 for s in outer if s)
        emit(f"    %pixels, %pixel_loops:{outer_loops} = transform.structured.tile_using_for "
             f"{epilogue} tile_sizes {_sizes(outer)} : ({ANY}) -> ({_handles(outer_loops + 1)})")
        emit(f"    %pixel_producer, %p1 = transform.structured.fuse_into_containing_op "
             f"{producer} into %pixel_loops#{outer_loops - 1} : ({ANY}, {ANY}) -> ({ANY}, {ANY})")
        emit(f"    %pixel_init, %p2 = transform.structured.fuse_into_containing_op "
             f"{init} into %p1 : ({ANY}, {ANY}) -> ({ANY}, {ANY})")
        staged = "%p2"
        if group.reread:
            lines += fused_window_reader("%p2", "%p3")
            staged = "%p3"
        if group.padded:
            emit(f"    %window, %p4 = transform.structured.fuse_into_containing_op "
                 f"{pad} into {staged} : ({ANY}, {ANY}) -> ({ANY}, {ANY})")
        inner_loops = sum(1 for s in inner if s)
        emit(f"    %tiled, %loops:{inner_loops} = transform.structured.tile_using_for %pixels "
             f"tile_sizes {_sizes(inner)} : ({ANY}) -> ({_handles(inner_loops + 1)})")
        emit(f"    %tile_producer, %loop = transform.structured.fuse_into_containing_op "
             f"%pixel_producer into %loops#{inner_loops - 1} : ({ANY}, {ANY}) -> ({ANY}, {ANY})")
        emit(f"    %tile_init, %loop_2 = transform.structured.fuse_into_containing_op "
             f"%pixel_init into %loop : ({ANY}, {ANY}) -> ({ANY}, {ANY})")
    else:
        emit(f"    %tiled, %loops:{loops} = transform.structured.tile_using_for {epilogue} "
             f"tile_sizes {_sizes(config.tile)} : ({ANY}) -> ({_handles(loops + 1)})")
        emit(f"    %tile_producer, %loop = transform.structured.fuse_into_containing_op "
             f"{producer} into %loops#{loops - 1} : ({ANY}, {ANY}) -> ({ANY}, {ANY})")
        emit(f"    %tile_init, %loop_2 = transform.structured.fuse_into_containing_op "
             f"{init} into %loop : ({ANY}, {ANY}) -> ({ANY}, {ANY})")
    tile_producer, tile_init, tiled = "%tile_producer", "%tile_init", "%tiled"
    if group.partial and group.staged_rows and not group.in_place:
        lines += peeled_pixel_loop(group, "%loops#0", f"%pixel_loops#{outer_loops - 1}")
        tile_producer, tile_init, tiled = "%producers", "%inits", "%epilogues"
    elif group.partial:
        lines += peeled_pixel_loop(group, f"%loops#{loops - 2}", f"%loops#{loops - 3}")
        tile_producer, tile_init, tiled = "%producers", "%inits", "%epilogues"
    body = tile_producer
    if step_loops:
        emit(f"    %stepped, %steps:{step_loops} = transform.structured.tile_using_for "
             f"{body} tile_sizes {_sizes(step_sizes)} : ({ANY}) -> ({_handles(step_loops + 1)})")
        body = "%stepped"
    if group.producer in DECOMPOSABLE and config.reduction[0] == 1:
        emit(f"    %decomposed = transform.structured.decompose {body} : ({ANY}) -> {ANY}")
        body = "%decomposed"
    # A matmul vectorizes to a vector.contract (by default a multiply and a
    # multi-reduction, which become dot products: 3.8 instructions per MAC).
    contraction = " {create_named_contraction}" if group.producer == "linalg.matmul" else ""
    emit(f"    transform.structured.vectorize {body}{contraction} : {ANY}")
    for handle in (tile_init, tiled):
        emit(f"    transform.structured.vectorize {handle} : {ANY}")
    emit("    transform.yield")
    emit("  }")
    return lines


def fused_window_reader(loop: str, fused: str) -> list[str]:
    """The group's window reader fused into `loop` (the new handle `fused`):
    the window transposed (or unfolded, or extended) from the group's
    (padded) input in that tile, never stored whole."""
    return [
        f"    %window_reader, {fused} = transform.structured.fuse_into_containing_op "
        f"%reader into {loop} : ({ANY}, {ANY}) -> ({ANY}, {ANY})",
        # It writes into a slice of the whole window's tensor.empty: an
        # empty tensor of the tile's size instead, or bufferization would
        # allocate the whole.
        f"    transform.apply_patterns to {fused} {{",
        "      transform.apply_patterns.tensor.fold_tensor_empty",
        f"    }} : {ANY}",
    ]


def peeled_pixel_loop(group: Group, pixel_loop: str, row_loop: str) -> list[str]:
    """A pixel tile that leaves part of each row (2 pixels of a 5-pixel
    row): the pixel loop peeled into its whole tiles and one last partial
    tile, both of static sizes once the single-trip loop of the partial one
    folds; then the tile's ops, in both, found again inside the row loop
    (peeling consumed the handles)."""
    return [
        f'    %pixel_loop = transform.cast {pixel_loop} : {ANY} to !transform.op<"scf.for">',
        f'    %whole, %partial = transform.loop.peel %pixel_loop : '
        f'(!transform.op<"scf.for">) -> ({ANY}, {ANY})',
        f"    transform.apply_patterns to {row_loop} {{",
        "      transform.apply_patterns.scf.for_loop_canonicalization",
        "      transform.apply_patterns.canonicalization",
        f"    }} : {ANY}",
        *(f'    {handle} = transform.structured.match ops{{["{name}"]}}{attributes} '
          f'in {row_loop} : ({ANY}) -> {ANY}'
          for handle, name, attributes in (
              ("%producers", group.producer, ""), ("%inits", group.init, ""),
              # The epilogues by their configuration: the row loop may hold
              # the window's int16 extension, a generic too.
              ("%epilogues", "linalg.generic",
               f" attributes{{{ATTRIBUTE} = {group.config.attribute()}}}"))),
    ]


def build_script(groups: list[Group]) -> str:
    """The script for `groups`: `__transform_main` runs sequence N on every
    epilogue marked `tinyml.script = N`; `LOWER_CONTRACTIONS` is the
    module-wide vector lowering and hoisting."""
    lines = [f"module @{SCRIPT} attributes {{transform.with_named_sequence}} {{"]
    main = [f"  transform.named_sequence @__transform_main(%module: {ANY} {{transform.readonly}}) {{"]
    for index, group in enumerate(groups):
        name = f"tile_group_{index}"
        lines += group_sequence(name, group)
        main.append(f"    %epilogues_{index} = transform.structured.match ops{{[\"linalg.generic\"]}} "
                    f"attributes{{{MARK} = {index} : i64}} in %module : ({ANY}) -> {ANY}")
        main.append(f"    transform.foreach %epilogues_{index} : {ANY} {{")
        main.append(f"    ^bb0(%epilogue: {ANY}):")
        main.append(f"      transform.include @{name} failures(propagate) (%epilogue) : ({ANY}) -> ()")
        main.append("    }")
    main += ["    transform.yield", "  }"]
    lower = [
        f"  transform.named_sequence @{LOWER_CONTRACTIONS}(%module: {ANY} {{transform.readonly}}) {{",
        f"    %functions = transform.structured.match ops{{[\"func.func\"]}} in %module : ({ANY}) -> {ANY}",
        "    transform.apply_patterns to %functions {",
        "      transform.apply_patterns.vector.reduction_to_contract",
        "      transform.apply_patterns.vector.transfer_permutation_patterns",
        "      transform.apply_patterns.vector.lower_contraction lowering_strategy = \"outerproduct\"",
        "      transform.apply_patterns.vector.lower_outerproduct",
        "      transform.apply_patterns.linalg.tiling_canonicalization",
        "      transform.apply_patterns.scf.for_loop_canonicalization",
        "      transform.apply_patterns.canonicalization",
        f"    }} : {ANY}",
        f"    %loops = transform.structured.match ops{{[\"scf.for\"]}} in %module : ({ANY}) -> {ANY}",
        f"    transform.loop.hoist_loop_invariant_subsets %loops : {ANY}",
        # After hoisting: folding the slices first would hide the read/write
        # pairs the hoisting matches.
        "    transform.apply_patterns to %functions {",
        "      transform.apply_patterns.tensor.fold_tensor_subset_ops_into_vector_transfers",
        "      transform.apply_patterns.vector.cast_away_vector_leading_one_dim",
        "      transform.apply_patterns.canonicalization",
        f"    }} : {ANY}",
        "    transform.yield",
        "  }",
    ]
    return "\n".join(lines + main + lower + ["}"])


def group_of(epilogue: ir.Operation, config: LoweringConfig) -> Group:
    """The group a configured epilogue generic belongs to."""
    producer = epilogue.operands[0].owner
    if isinstance(producer, ir.Block):
        raise PassError(f"'{ATTRIBUTE}' on a generic whose first input is a block argument",
                        epilogue.location)
    producer = producer.operation
    if producer.name in LOOPS:
        parallel, reduction = LOOPS[producer.name]
        reductions = (False,) * parallel + (True,) * reduction
    elif producer.name == "linalg.generic":
        reductions = tuple(str(kind) == "#linalg.iterator_type<reduction>"
                           for kind in ir.ArrayAttr(producer.attributes["iterator_types"]))
    else:
        raise PassError(f"'{ATTRIBUTE}' on a generic reading '{producer.name}', which "
                        "no script tiles", epilogue.location)
    if sum(reductions) != len(config.reduction):
        raise PassError(f"{len(config.reduction)} reduction steps for the "
                        f"{sum(reductions)} reduction loops of '{producer.name}'",
                        epilogue.location)
    reader = window_reader(producer) if producer.name in CONVS else None
    pad = _producer_named((reader or producer).operands[0], "tensor.pad")
    padded = pad is not None and window_always_overlaps(pad, producer, reader)
    if padded and producer.name not in CONVS:
        raise PassError(f"no script tiles a padded '{producer.name}'", epilogue.location)
    in_place = IN_PLACE in epilogue.attributes
    band = 1
    if padded and producer.name == "linalg.depthwise_conv_2d_nhwc_hwc":
        band = depthwise_band(producer, epilogue.results[0], config.tile[3], in_place)
    init_operand = len(producer.operands) - 1
    init = producer.operands[init_operand].owner
    init_name = "" if isinstance(init, ir.Block) else init.operation.name
    partial = shape_of(epilogue.results[0])[-2] % config.tile[-2] != 0
    widened = reader is not None and WIDENED in reader.attributes and not padded
    if partial and (producer.name != "linalg.conv_2d_nhwc_hwcf" or padded
                    or (reader and not widened) or init_name in ("", "linalg.generic")):
        raise PassError(f"a pixel tile of {config.tile[-2]} leaves part of a row, which only "
                        "an unpadded conv whose accumulator a named op initialises may",
                        epilogue.location)
    return Group(producer.name, reductions, init_operand, config, padded, band, in_place,
                 reader is not None, init_name, partial, widened and (partial or in_place))


def own_init(producer: ir.Operation, operand: int) -> None:
    """Give `producer` (a group's contraction) its own copy of the op
    initialising its accumulator where other ops read that op's result too
    (CSE makes one zero fill of the float convs of one shape, as in a model
    of asymmetric uint8 weights, which computes in float): fusing a shared
    fill into an in-place group's band loop fails an assertion in upstream's
    fuse_into_containing_op (a cast of the `scf.for` to `scf.forall`)."""
    init = producer.operands[operand].owner
    if isinstance(init, ir.Block) or len(list(init.results[0].uses)) == 1:
        return
    own = init.operation.clone(ir.InsertionPoint(producer))
    producer.operands[operand] = own.results[0]


def window_reader(conv: ir.Operation) -> ir.Operation | None:
    """The op through which `conv` reads its (padded) input window, fused
    into its tiles: a `linalg.transpose` (an NCHW input) or a
    taps-as-channels or int16-extending `linalg.generic`; None if it reads
    the input itself."""
    reader = _producer_named(conv.operands[0], "linalg.transpose") or \
        _producer_named(conv.operands[0], "linalg.generic")
    if reader is None or (reader.name == "linalg.generic" and not any(
            mark in reader.attributes for mark in (TAPS_AS_CHANNELS, WINDOW_AS_CHANNELS, WIDENED))):
        return None
    return reader


def _producer_named(value: ir.Value, name: str) -> ir.Operation | None:
    owner = value.owner
    if isinstance(owner, ir.Block) or owner.operation.name != name:
        return None
    return owner.operation


def depthwise_band(conv: ir.Operation, output: ir.Value, channels: int,
                   in_place: bool = False) -> int:
    """Output rows per staged window of a padded depthwise conv: the most
    (dividing the output's height) whose padded input rows, all columns of
    a tile's channels, fit beside the conv's input and its group's `output`
    (an int8 conv's, not its int32 accumulators, which no buffer holds
    whole: counting those left every int8 one out of place one row, M4
    torch depthwise_net 68.0 -> 62.9 K instructions, VWW 13.46 -> 13.39 M;
    when the
    group runs `in_place`, the output overwrites the input and beside it
    lives the band's copy of the tile's input channels) under
    the function's peak of live bytes, which the staging buffer then does
    not raise (the peak with the groups in place and in row bands, when
    tinyml-compute-in-place ran), and one at least. Each input row is copied once per band it
    falls in. Other tensors live across the conv (a residual) are not
    counted: then the staging can raise the arena."""
    func = conv.parent
    while func.name != "func.func":
        func = func.parent
    # The peak once groups run in place and in row bands, when they do.
    attribute = next((name for name in (IN_PLACE_PEAK, PEAK) if name in func.attributes), None)
    peak = ir.IntegerAttr(func.attributes[attribute]).value if attribute else 0
    stride = int(ir.DenseIntElementsAttr(conv.attributes["strides"])[0])
    dilation = int(ir.DenseIntElementsAttr(conv.attributes["dilations"])[0])
    kernel = ir.RankedTensorType(conv.operands[1].type).shape[0]
    window = conv.operands[0].owner.operation  # the tensor.pad, or a transpose of it
    if window.name == "linalg.transpose":
        window = window.operands[0].owner.operation
    source = window.operands[0]
    source_bytes = tensor_bytes(source)
    beside = source_bytes * channels // ir.RankedTensorType(source.type).shape[3] if in_place \
        else tensor_bytes(output)
    headroom = peak - source_bytes - beside
    window_type = ir.RankedTensorType(conv.operands[0].type)
    width = window_type.shape[2]
    height = ir.RankedTensorType(conv.results[0].type).shape[1]
    value_bytes = element_bytes(window_type.element_type)
    assert value_bytes, "a conv's window holds numbers"
    row_bytes = width * channels * value_bytes
    fits = [rows for rows in range(1, height + 1) if height % rows == 0
            and ((rows - 1) * stride + (kernel - 1) * dilation + 1) * row_bytes <= headroom]
    return max(fits, default=1)


def window_always_overlaps(pad: ir.Operation, conv: ir.Operation,
                           reader: ir.Operation | None = None) -> bool:
    """Whether every output row's and column's window overlaps the unpadded
    input: each padding amount is less than the window's extent. Then a
    tile's padded window is never all padding, the guard for that case is
    proved dead, and the window can be staged per tile in a buffer
    allocated once; otherwise the pad stays a whole tensor (a copy). The
    conv reads the pad through `reader` if given (`window_reader`): a
    transpose permutes the pad's dimensions, a taps-as-channels generic
    makes a kernel row's taps its channels."""
    transpose = reader if reader is not None and reader.name == "linalg.transpose" else None
    perm = list(range(4)) if transpose is None else \
        list(ir.DenseI64ArrayAttr(transpose.attributes["permutation"]))
    low = [list(ir.DenseI64ArrayAttr(pad.attributes["static_low"]))[p] for p in perm[1:3]]
    high = [list(ir.DenseI64ArrayAttr(pad.attributes["static_high"]))[p] for p in perm[1:3]]
    dilations = [int(d) for d in ir.DenseIntElementsAttr(conv.attributes["dilations"])]
    kh, kw, channels = ir.RankedTensorType(conv.operands[1].type).shape[:3]
    kernel = [kh, kw if reader is None or transpose is not None else channels]
    if reader is not None and WINDOW_AS_CHANNELS in reader.attributes:
        kernel = list(ir.DenseI64ArrayAttr(reader.attributes[WINDOW_AS_CHANNELS]))
    extents = [(k - 1) * d + 1 for k, d in zip(kernel, dilations)]
    return all(lo < extent and hi < extent for lo, hi, extent in zip(low, high, extents))


@register
class AttachTransformScript(Pass):
    name = "tinyml-attach-transform-script"
    summary = "Attach the transform script that tiles and vectorizes each configured group"

    def apply(self, module):
        groups: list[Group] = []
        # Grouped outside the walk: an error raised in a walk's callback
        # would reach the user as an internal error.
        epilogues = [(op, group_of(op, config)) for op in ops_named(module, "linalg.generic")
                     if (config := LoweringConfig.of(op)) is not None]
        for op, group in epilogues:
            own_init(op.operands[0].owner.operation, group.init_operand)
            if group not in groups:
                groups.append(group)
            op.attributes[MARK] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64),
                                                     groups.index(group))
        script = ir.Module.parse(build_script(groups), module.context)
        module.regions[0].blocks[0].append(script.operation.clone())
