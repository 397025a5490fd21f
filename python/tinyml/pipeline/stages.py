"""The compilation pipeline as named stages (IREE-style).

Each stage is a function returning a `tinyml.Pipeline` that runs alone with
tinyml-opt (`tinyml-opt --tinyml-stage-bufferize in.mlir`) and composes with
the others:

    cleanup()          tinyml graph clean-up: canonicalize, transpose
                       cancelling, constant folding, BN folding, CSE
    lower_to_linalg()  tinyml -> linalg on tensors
    tile_and_vectorize()  each configured group's transform script: tiles,
                       fusion, reduction steps, vectors, registers
    bufferize()        tensors -> memrefs; results become caller-owned
                       out-params; deallocation
    lower_to_loops()   linalg -> scf (or affine) loops, vectors -> 1-D loads
                       and FMAs, each loop nest -> a function of its own
    lower_to_llvm()    everything -> the LLVM dialect

    fusion()           dispatch-region formation: tinyml.fused groups
    tiling()           the lowering configuration (register tile, reduction
                       steps) of each conv/matmul group and average pool
    schedule()         an execution order that lowers the peak of live bytes
    plan_memory()      every intermediate buffer -> a view of one arena

`compile_stages(...)` composes them for a target (a Cortex-M target uses
`lower_to_llvm(index_bitwidth=32, bare_ptr=True)`) as `Stage`s, each with
what the compile report reads off the module after it. `STAGES` maps each
stage's name to its function; each is also a named pipeline,
`tinyml-stage-<name>`, with the function's bool and int parameters as
options, which tinyml-opt and `Pipeline.parse` expand
(`tinyml-opt --tinyml-stage-bufferize='deallocate=false' in.mlir`).
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, Callable

from mlir import ir

from ..codegen.attach_transform_script import LOWER_CONTRACTIONS
from ..ir import analysis
from .builder import Pipeline
from .registry import NamedPipeline, Option, Pass, pass_named, register_pipeline


def cleanup() -> Pipeline:
    """Graph clean-up on tinyml: cancel the layout transposes, fold constant
    subgraphs, simplify algebra, fold batch norms into the contractions
    before them (what folding exposes is folded again), turn a quantized
    model's dequantize -> op -> quantize into integer ops (an element-wise
    function with no integer kernel into a table, below which a layout
    transpose may sink further), read a recurrent layer's
    last output from its final state, then canonicalize (which erases what
    is left unused) and CSE."""
    return Pipeline([
        "canonicalize", "tinyml-cancel-transposes", "canonicalize",
        "tinyml-fold-constants", "tinyml-simplify", "tinyml-fold-batch-norm",
        "tinyml-quantize-ops", "tinyml-fold-constants", "tinyml-tabulate-int8-functions",
        "tinyml-cancel-transposes", "tinyml-read-final-state", "canonicalize", "cse",
    ])


def fusion() -> Pipeline:
    """Dispatch-region formation: conv/matmul epilogues first (they claim the
    activations and residual adds), then reductions, then what element-wise
    chains remain, each pass a set of rewrite patterns (`tinyml.transforms.fusion`).
    Each `tinyml.fused` group becomes one kernel: one loop nest (a reduction
    group's reductions and epilogue: one each)."""
    return Pipeline(["tinyml-fuse-conv-epilogue", "tinyml-fuse-reduction",
                     "tinyml-fuse-elementwise"])


def lower_to_linalg(fpu: bool = True, wide_multiply: bool = True) -> Pipeline:
    """Every tinyml op (each a kernel, numbered in its location for the
    profile) to linalg/tensor/arith/math, then a tidy-up; the requantizing
    `tosa.apply_scale` of the int8 kernels becomes arith with 64-bit
    products (`use-32-bit` would leave `arith.mulsi_extended`, which has no
    LLVM lowering once vectorized). Without an `fpu`, quantize and
    dequantize first lower with integers only (tinyml-integer-conversions);
    without a `wide_multiply` (32 x 32 -> 64 bits), a requantization
    whose accumulators are bounded well enough multiplies its multiplier's
    pieces, and the other 64-bit products become 32-bit multiplies of
    halves (tinyml-expand-wide-multiplies)."""
    return Pipeline(["tinyml-number-kernels",
                     *([] if fpu else ["tinyml-integer-conversions"]),
                     pass_named("tinyml-lower-to-linalg")(wide_multiply=wide_multiply),
                     "func.func(tosa-to-arith{include-apply-rescale=true})",
                     *([] if wide_multiply else ["tinyml-expand-wide-multiplies"]),
                     "canonicalize", "cse"])


def tile_and_vectorize(dsp: bool = False, mve: bool = False, byte_pairs: bool = True,
                       armv6m: bool = False, unsigned_inputs: bool = True,
                       winograd_rows: bool = False, halfword_weights: bool = False) -> Pipeline:
    """Each configured group's transform script (tinyml-attach-transform-script)
    run by the upstream interpreter: tiled to its register tile, its
    reduction stepped, vectorized; on a core with the DSP extension (`dsp`)
    the int8 convs read their input windows extended to int16 once per tile
    (tinyml-widen-conv-inputs), a two-pixel 3x3 conv tile is computed by
    Winograd's F(2, 3) in SMLADs (tinyml-winograd-rows, with
    `winograd_rows`) and the other int8 contractions become SMLAD dual
    multiply-accumulates (tinyml-contract-to-smlad; weight words multiplied
    as loaded, over inputs packed into byte pairs, unless `byte_pairs` is
    off: see smlad_byte_pairs; with `halfword_weights`, the small weights
    of those over int16 windows stored as int16), on one with Helium
    (`mve`) Helium dot products of the int8 rows as they are
    (tinyml-contract-to-mve-dot), on an ARMv6-M core (`armv6m`) scalar
    multiply-accumulates over weights stored +128 (tinyml-unsigned-weights;
    with `unsigned_inputs`, a conv tile's inputs staged +128 as well); with
    `winograd_rows` (any core but Helium's) a two-pixel 3x3 conv tile's by
    Winograd's F(2, 3) (tinyml-winograd-rows, in SMLADs on a DSP core);
    then the script's second entry point lowers
    the other contractions to FMAs and hoists the accumulators into
    registers (on ARMv6-M the depthwise tiles' multiply-accumulates are
    then written as scalar ones, and the requantizations lane by lane:
    tinyml-scalarize-multiply-accumulates, tinyml-scalarize-epilogues);
    last, the padded windows the tiles stage are a copy plus fills of their
    padding only (tinyml-decompose-pads)."""
    winograd = [pass_named("tinyml-winograd-rows")(smlad=dsp, weight_bytes=WINOGRAD_WEIGHT_BYTES)
                ] if winograd_rows and not mve else []
    contractions = ["tinyml-contract-to-mve-dot"] if mve else \
        [*winograd, pass_named("tinyml-contract-to-smlad")(
            byte_pairs=byte_pairs,
            halfword_weight_bytes=HALFWORD_WEIGHT_BYTES if halfword_weights else 0)] if dsp else \
        [*winograd, pass_named("tinyml-unsigned-weights")(unsigned_inputs=unsigned_inputs)] \
        if armv6m else winograd
    return Pipeline([*(["tinyml-widen-conv-inputs"] if dsp else []),
                     "tinyml-attach-transform-script", "transform-interpreter",
                     "tinyml-read-in-place", *contractions,
                     f"transform-interpreter{{entry-point={LOWER_CONTRACTIONS}}}",
                     "tinyml-erase-transform-script", "canonicalize", "cse",
                     *(["tinyml-scalarize-multiply-accumulates", "tinyml-scalarize-epilogues"]
                       if armv6m else []),
                     # A padded tile's guard against an empty input window is
                     # never taken: integer ranges of the loop bounds prove it.
                     "lower-affine", "int-range-optimizations", "canonicalize",
                     "tinyml-decompose-pads", "canonicalize",
                     *(["tinyml-unsigned-planes"] if armv6m else [])])


def bufferize(deallocate: bool = True, out_params: bool = True,
              hoist_static_allocs: bool = True) -> Pipeline:
    """One-shot bufferization of the whole module with identity-layout
    function boundaries, after giving each group of uses of a CSE-merged
    `tensor.empty` its own (see tinyml-split-empty-tensors). With
    `out_params` the results become out-params the caller owns
    (`hoist_static_allocs`: the kernel writes straight into them instead of
    copying). With `deallocate` every remaining alloc is freed (the host JIT
    needs this; a planner that replaces allocs by arena views does not)."""
    pipeline = Pipeline([
        "tinyml-split-empty-tensors",
        "eliminate-empty-tensors",
        "one-shot-bufferize{bufferize-function-boundaries "
        "function-boundary-type-conversion=identity-layout-map}",
        # A tile's staging buffer (its padded input) once, not per iteration
        # (nor per branch: a line buffer's steps compute in branches).
        "func.func(buffer-loop-hoisting)", "tinyml-hoist-branch-allocs",
        # One subview per slice, so that the copies in-place bufferization
        # leaves between a slice and itself fold away.
        "cse",
        # A row moved within a buffer through a temporary: moved directly.
        "tinyml-forward-copies",
    ])
    if out_params:
        # Folding loop-carried buffers first lets a result computed by a loop
        # nest be recognised as the allocation it is, and hoisted.
        pipeline.add("canonicalize")
        options = "modify-public-functions" + (" hoist-static-allocs" if hoist_static_allocs else "")
        pipeline.add(f"buffer-results-to-out-params{{{options}}}")
    pipeline.add("canonicalize")
    if deallocate:
        pipeline.add("buffer-deallocation-pipeline")
        pipeline.add("canonicalize")
    return pipeline


#: An ARMv6-M conv tile over a reduction too short for
#: tinyml-unsigned-weights' one-pixel tiles to pay: the wide tile it had
#: before them (choose-tiles' `int-short-reduction-accumulators`).
ARMV6M_SHORT_REDUCTION_ACCUMULATORS = 20
#: The transformed weights a 3x3 conv may take to be computed by
#: tinyml-winograd-rows on ARMv6-M or the DSP extension (choose-tiles'
#: `int-winograd-weight-bytes`, the pass's `weight-bytes`; 24 bytes per
#: channel pair against int8's 9: ResNet-8's 16- and 32-channel convs, not
#: its 64-channel one, 98 KB).
WINOGRAD_WEIGHT_BYTES = 32768
#: The fewest input channels of a conv computed by tinyml-winograd-rows in
#: the scalar form (ARMv6-M, the M3; choose-tiles'
#: `int-winograd-min-channels`, measured there); SMLAD's takes any.
SCALAR_WINOGRAD_MIN_CHANNELS = 8
#: The most bytes a DSP conv's weights over an int16 window may take
#: stored as int16 (tinyml-contract-to-smlad's `halfword-weight-bytes`):
#: stems and small layers, at most 2 KB more flash each (measured there).
HALFWORD_WEIGHT_BYTES = 4096
#: An ARMv6-M depthwise tile's row of one channel (choose-tiles'
#: `int-depthwise-row-pixels`; measured there).
ARMV6M_DEPTHWISE_ROW_PIXELS = 8
#: An ARMv6-M tile of a one-channel conv (choose-tiles'
#: `int-one-channel-accumulators`; measured there).
ARMV6M_ONE_CHANNEL_ACCUMULATORS = 2


def tiling(max_accumulators: int = 20, int_tile: tuple[int, int, int] = (8, 16, 4),
           dsp: bool = False, armv6m: bool = False, winograd_rows: bool = False) -> Pipeline:
    """The register tile of every conv/matmul group, for a target with
    room for `max_accumulators` float accumulators; `int_tile` bounds a
    quantized group's (int32 accumulators, input values per step, columns
    of a matrix-vector tile); with `dsp` the quantized convs get tiles for
    the DSP extension's multiply-accumulates; with `dsp` or `armv6m` the
    quantized depthwise convs rows of one channel (longer on `armv6m`);
    with `armv6m` a conv of a short reduction a wide tile, and with
    `winograd_rows` a 3x3 conv of stride 1 two-pixel tiles for
    tinyml-winograd-rows."""
    return Pipeline([pass_named("tinyml-choose-tiles")(
        max_accumulators=max_accumulators, max_int_accumulators=int_tile[0],
        int_reduction_taps=int_tile[1], max_int_columns=int_tile[2], dsp=dsp,
        int_depthwise_rows=armv6m,
        int_depthwise_row_pixels=ARMV6M_DEPTHWISE_ROW_PIXELS if armv6m else 0,
        int_short_reduction_accumulators=ARMV6M_SHORT_REDUCTION_ACCUMULATORS if armv6m else 0,
        int_one_channel_accumulators=ARMV6M_ONE_CHANNEL_ACCUMULATORS if armv6m else 0,
        int_winograd_weight_bytes=WINOGRAD_WEIGHT_BYTES if winograd_rows else 0,
        int_winograd_min_channels=1 if dsp else SCALAR_WINOGRAD_MIN_CHANNELS)])


def schedule(in_place: bool = True, row_bands: bool = True,
             line_buffers: bool = True, int16_bands: bool = False) -> Pipeline:
    """An execution order of the (fused) graph with a lower peak of live
    bytes, e.g. where a residual block computes its shortcut; then, with
    `in_place`, the pointwise and depthwise groups at the peak marked to
    write their output over their input; with `row_bands`, where that
    cannot lower the peak, a pointwise conv computed in row bands inside
    its strided consumer's loop over rows; with `line_buffers`, a conv
    computed row by row into a rolling buffer inside its stride-1
    consumer's loop; then a conv reading its (NCHW) input through the
    transpose that feeds it, a window at a time, and groups in place again,
    at the new peak. Row bands, line buffers and input transposes build on
    the groups marked in place: without `in_place` none runs. Each lowers
    the arena and may add code: `MEMORY_PLANS` names the combinations a
    compile chooses among. `int16_bands`: a DSP target's in-place int8
    pointwise bands are staged as int16."""
    compute_in_place = pass_named("tinyml-compute-in-place")
    passes: list[Pass | str] = ["tinyml-schedule-for-memory"]
    if in_place:
        passes.append(compute_in_place(int16_bands=int16_bands))
        if row_bands:
            passes.append("tinyml-fuse-row-bands")
        if line_buffers:
            passes.append("tinyml-fuse-line-buffer")
        passes += ["tinyml-fuse-input-transpose", compute_in_place(int16_bands=int16_bands)]
    return Pipeline(passes)


#: The memory plans, by name: the transformations of the schedule stage,
#: from none (every layer op by op) to all, each adding to the one before;
#: less arena, more code, as the model allows.
MEMORY_PLANS: dict[str, dict[str, bool]] = {
    "none": {"in_place": False, "row_bands": False, "line_buffers": False},
    "in-place": {"in_place": True, "row_bands": False, "line_buffers": False},
    "row-bands": {"in_place": True, "row_bands": True, "line_buffers": False},
    "line-buffers": {"in_place": True, "row_bands": True, "line_buffers": True},
}


def plan_memory(**options) -> Pipeline:
    """Every intermediate buffer becomes a view into one arena argument."""
    return Pipeline([pass_named("tinyml-plan-memory")(**options)])


def lower_to_loops(affine: bool = False, unaligned: bool = True, dsp: bool = False,
                   depthwise_rows: bool = False, noalias_constants: bool = False,
                   channel_tables: bool = False) -> Pipeline:
    """linalg on memrefs (and buffer copies) to scf loops (or affine loops);
    runs of bytes copied by words on a core that loads `unaligned` words;
    with `dsp`, the int16 extensions of conv windows a word at a time, a
    depthwise row's taps two pixels a word in SMLADs and the rounded high
    products whose multiplier a loop shares as SMMLARs; with
    `dsp` or `depthwise_rows` (tiles of one channel), depthwise weights
    packed channel first; with `channel_tables`, per-channel tables read
    at the same indices (the requantization's pieces) interleaved into
    one; each loop nest a function, with `noalias_constants` its constant
    arguments marked as read only through them (tinyml-outline-kernels)."""
    return Pipeline([
        pass_named("tinyml-lower-copies")(words=unaligned),
        *(["tinyml-lower-int16-extensions", "tinyml-stage-window-channels"] if dsp else []),
        "func.func(convert-linalg-to-affine-loops)" if affine
        else "func.func(convert-linalg-to-loops)",
        # The tiles' vectors: transfers unrolled to 1-D, then lowered.
        "func.func(convert-vector-to-scf{full-unroll target-rank=1})",
        "canonicalize",
        *(["tinyml-pair-depthwise-taps", "tinyml-high-products-to-smmlar"] if dsp else []),
        "tinyml-lower-vectors",
        "canonicalize",
        *(["tinyml-pack-channel-weights"] if dsp or depthwise_rows else []),
        *(["tinyml-interleave-channel-tables"] if channel_tables else []),
        pass_named("tinyml-outline-kernels")(noalias_constants=noalias_constants),
        "canonicalize",
    ])


def lower_to_llvm(index_bitwidth: int = 64, bare_ptr: bool = False) -> Pipeline:
    """Loops, arith, math, memref, func and cf to the LLVM dialect.
    `index_bitwidth=32` for a 32-bit target; `bare_ptr` passes memrefs as
    bare pointers (static shapes only) instead of descriptors."""
    index = f"index-bitwidth={index_bitwidth}"
    func_options = index + (" use-bare-ptr-memref-call-conv=1" if bare_ptr else "")
    return Pipeline([
        "expand-strided-metadata",
        "lower-affine",
        "convert-scf-to-cf",
        f"tinyml-set-index-width{{bits={index_bitwidth}}}",
        "convert-math-to-llvm",
        f"convert-func-to-llvm{{{func_options}}}",
        # Memrefs and the 1-D vector loads and stores on them, with the
        # module's index width (convert-vector-to-llvm alone uses 64 bits).
        "convert-to-llvm{dynamic=true}",
        # What the interface-based conversion leaves: index-free vector ops.
        "convert-vector-to-llvm",
        f"convert-arith-to-llvm{{{index}}}",
        "convert-ub-to-llvm",
        f"convert-cf-to-llvm{{{index}}}",
        "reconcile-unrealized-casts",
    ])


STAGES: dict[str, Callable[..., Pipeline]] = {
    "cleanup": cleanup,
    "fusion": fusion,
    "tiling": tiling,
    "schedule": schedule,
    "lower-to-linalg": lower_to_linalg,
    "tile-and-vectorize": tile_and_vectorize,
    "bufferize": bufferize,
    "plan-memory": plan_memory,
    "lower-to-loops": lower_to_loops,
    "lower-to-llvm": lower_to_llvm,
}

_SUMMARIES = {
    "cleanup": "Graph clean-up: transposes, constants, batch norms, int8 ops",
    "fusion": "Dispatch-region formation: tinyml.fused groups",
    "tiling": "The register tile of every conv/matmul group",
    "schedule": "An execution order with a lower peak, groups in place",
    "lower-to-linalg": "Every tinyml op to linalg on tensors",
    "tile-and-vectorize": "Each group's transform script: tiles, vectors, registers",
    "bufferize": "Tensors to memrefs; results become caller-owned out-params",
    "plan-memory": "Every intermediate buffer a view of one arena",
    "lower-to-loops": "linalg on memrefs to loops, each loop nest a function",
    "lower-to-llvm": "Everything to the LLVM dialect",
}


def _stage_options(name: str, stage: Callable[..., Pipeline]) -> tuple[Option, ...]:
    """A stage's bool and int keyword parameters as the options of its named
    pipeline (`int_tile`, a tuple, is not one); a stage that passes
    `**options` on to its pass has that pass's options."""
    parameters = inspect.signature(stage).parameters.values()
    if any(p.kind is p.VAR_KEYWORD for p in parameters):
        return pass_named(f"tinyml-{name}").options
    return tuple(Option(p.name.replace("_", "-"), type(p.default), p.default,
                        f"`{p.name}` of tinyml.pipeline.stages.{stage.__name__}")
                 for p in parameters if type(p.default) in (bool, int))


for _name, _stage in STAGES.items():
    register_pipeline(NamedPipeline(f"tinyml-stage-{_name}", _SUMMARIES[_name],
                                    _stage_options(_name, _stage), _stage))


@dataclass(frozen=True)
class Stage:
    """One step of a compile: its name, its pipeline, and what the compile
    report reads off the module once it has run (`measure`)."""

    name: str
    pipeline: Pipeline
    measure: Callable[[ir.Module], dict[str, Any]] | None = None


def compile_stages(index_bitwidth: int = 64, bare_ptr: bool = False, fuse: bool = True,
                   memory: dict | None = None, max_accumulators: int = 20,
                   int_tile: tuple[int, int, int] = (8, 16, 4),
                   dsp: bool = False, mve: bool = False, memory_plan: str = "line-buffers",
                   fpu: bool = True, armv6m: bool = False,
                   byte_pairs: bool = True, unsigned_inputs: bool = True,
                   winograd_rows: bool = False, halfword_weights: bool = True) -> list[Stage]:
    """Every stage from tinyml to the LLVM dialect, in order: with `fuse`
    the fusion stage forms the groups and the tiling stage picks their
    register tiles (`max_accumulators` per tile); `dsp`: the target has the
    DSP extension's SIMD multiply-accumulates, `mve` Helium's int8 dot
    products (which replace the SMLAD design: its tiles, widened inputs and
    packed depthwise weights); `memory` holds the
    planner's options; `memory_plan`: the transformations of the
    schedule stage that lower the arena (`MEMORY_PLANS`); `fpu`: the target
    computes in float (without, the edges of a float-edged int8 model
    convert with integers); `armv6m`: an ARMv6-M core, which loads words
    only at word addresses and has no 32 x 32 -> 64-bit multiply; `byte_pairs`:
    a DSP target's int8 contractions multiply their weight words as loaded,
    over inputs packed into byte pairs (fewer instructions; a matrix-vector
    product's packed row takes arena); `unsigned_inputs`: an ARMv6-M
    target's conv tiles read their inputs staged +128 (fewer instructions;
    the stage takes arena); `winograd_rows`: a Cortex-M target's 3x3 convs
    of stride 1 computed by F(2, 3) (fewer instructions; a stage of arena
    and weights of 24 bytes per channel pair; not with `mve`);
    `halfword_weights`: a DSP target's small conv weights over int16
    windows stored as int16 (fewer instructions; twice their flash). No
    allocation is left: the planner
    turns every intermediate into a view of the arena argument."""
    smlad = dsp and not mve
    stages = [Stage("cleanup", cleanup(), lambda module: {"macs": analysis.macs(module)})]
    if fuse:
        stages += [Stage("fusion", fusion()),
                   Stage("tiling", tiling(max_accumulators, int_tile, smlad, armv6m,
                                          winograd_rows and not mve))]
    stages += [
        Stage("schedule", schedule(**MEMORY_PLANS[memory_plan], int16_bands=smlad),
              lambda module: {"in_place_groups": analysis.in_place_groups(module),
                              "recomputed_macs": analysis.recomputed_macs(module),
                              "line_buffers": analysis.line_buffers(module)}),
        Stage("lower-to-linalg", lower_to_linalg(fpu, wide_multiply=not armv6m)),
        Stage("tile-and-vectorize",
              tile_and_vectorize(smlad, mve, byte_pairs, armv6m, unsigned_inputs,
                                 winograd_rows, halfword_weights)),
        # Copies bufferization made into the results' out-params are kernels too.
        Stage("bufferize", bufferize(deallocate=False).add("tinyml-number-kernels")),
        Stage("plan-memory", plan_memory(**(memory or {}))),
        Stage("lower-to-loops", lower_to_loops(unaligned=not armv6m, dsp=smlad,
                                               depthwise_rows=armv6m, noalias_constants=armv6m,
                                               channel_tables=armv6m),
              lambda module: {"kernels": analysis.loop_nests(module)}),
        Stage("lower-to-llvm", lower_to_llvm(index_bitwidth, bare_ptr)),
    ]
    return stages

