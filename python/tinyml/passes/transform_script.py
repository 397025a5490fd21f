"""tinyml-attach-transform-script: the transform-dialect script that tiles and
vectorizes every configured group, attached to the module for the upstream
`transform-interpreter` pass to run; tinyml-erase-transform-script removes
it again. Between the two, `tinyml-opt` shows the script each group gets.

A group's script starts from the op carrying its `#tinyml.lowering`, the
epilogue `linalg.generic` whose first input is the group's contraction:

1. tile it to the register tile (`tile_using_for`, one loop per tiled dim);
2. fuse the contraction and the op initialising its accumulator (the bias
   broadcast or zero fill) into the innermost tile loop;
3. tile the contraction's reduction dimensions to their steps, so a tile's
   accumulators stay live across the reduction loops;
4. decompose a conv whose window row is one step into a 1-D conv;
5. vectorize the tile's ops.

Then, for the whole module: contractions become outer products and those
FMAs (`lower_contraction`, `lower_outerproduct`); the accumulator's
transfer_read/write pair is hoisted out of the reduction loops
(`hoist_loop_invariant_subsets`), which keeps it in registers.
"""
from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import math
from mlir.dialects.transform import interpreter

from ..lowering_config import ATTRIBUTE, LoweringConfig
from .registry import Pass, PassError, register

#: The symbol of the attached script module.
SCRIPT = "tinyml_transform_script"
#: The attribute telling which of the script's sequences tiles an epilogue.
MARK = "tinyml.script"

#: The loops of each named producer a script fuses: its parallel loops,
#: then its reduction loops (a generic's iterator types say it).
PARALLEL_DIMS = {
    "linalg.conv_2d_nhwc_hwcf": 4,
    "linalg.depthwise_conv_2d_nhwc_hwc": 4,
    "linalg.pooling_nhwc_sum": 4,
}
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
    emit(f"    %tiled, %loops:{loops} = transform.structured.tile_using_for %epilogue "
         f"tile_sizes {_sizes(config.tile)} : ({ANY}) -> ({_handles(loops + 1)})")
    emit(f"    %tile_producer, %loop = transform.structured.fuse_into_containing_op "
         f"%producer into %loops#{loops - 1} : ({ANY}, {ANY}) -> ({ANY}, {ANY})")
    emit(f"    %tile_init, %loop_2 = transform.structured.fuse_into_containing_op "
         f"%init into %loop : ({ANY}, {ANY}) -> ({ANY}, {ANY})")
    body = "%tile_producer"
    if step_loops:
        emit(f"    %stepped, %steps:{step_loops} = transform.structured.tile_using_for "
             f"{body} tile_sizes {_sizes(step_sizes)} : ({ANY}) -> ({_handles(step_loops + 1)})")
        body = "%stepped"
    if group.producer in DECOMPOSABLE and config.reduction[0] == 1:
        emit(f"    %decomposed = transform.structured.decompose {body} : ({ANY}) -> {ANY}")
        body = "%decomposed"
    for handle in (body, "%tile_init", "%tiled"):
        emit(f"    transform.structured.vectorize {handle} : {ANY}")
    emit("    transform.yield")
    emit("  }")
    return lines


def build_script(groups: list[Group]) -> str:
    """The script for `groups`: sequence N tiles every epilogue marked
    `tinyml.script = N`, then the module-wide vector lowering and hoisting."""
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
    main += [
        f"    %functions = transform.structured.match ops{{[\"func.func\"]}} in %module : ({ANY}) -> {ANY}",
        f"    transform.apply_patterns to %functions {{",
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
        "    transform.yield",
        "  }",
    ]
    return "\n".join(lines + main + ["}"])


def group_of(epilogue: ir.Operation, config: LoweringConfig) -> Group:
    """The group a configured epilogue generic belongs to."""
    producer = epilogue.operands[0].owner
    if isinstance(producer, ir.Block):
        raise PassError(f"'{ATTRIBUTE}' on a generic whose first input is a block argument",
                        epilogue.location)
    producer = producer.operation
    if producer.name in PARALLEL_DIMS:
        parallel = PARALLEL_DIMS[producer.name]
        loops = parallel + len(config.reduction)
        reductions = tuple(i >= parallel for i in range(loops))
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
    return Group(producer.name, reductions, len(producer.operands) - 1, config)


@register
class AttachTransformScript(Pass):
    name = "tinyml-attach-transform-script"
    summary = "Attach the transform script that tiles and vectorizes each configured group"

    def apply(self, module):
        groups: list[Group] = []
        epilogues = []

        def visit(op):
            op = op.operation
            config = LoweringConfig.of(op) if op.name == "linalg.generic" else None
            if config is not None:
                epilogues.append((op, group_of(op, config)))
            return ir.WalkResult.ADVANCE

        module.walk(visit, ir.WalkOrder.PRE_ORDER)
        for op, group in epilogues:
            if group not in groups:
                groups.append(group)
            op.attributes[MARK] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64),
                                                     groups.index(group))
        script = ir.Module.parse(build_script(groups), module.context)
        module.regions[0].blocks[0].append(script.operation.clone())


@register
class EraseTransformScript(Pass):
    name = "tinyml-erase-transform-script"
    summary = "Erase the transform script once the interpreter has run it"

    def apply(self, module):
        for op in list(module.regions[0].blocks[0].operations):
            if op.operation.name == "builtin.module" and \
                    "sym_name" in op.operation.attributes and \
                    ir.StringAttr(op.operation.attributes["sym_name"]).value == SCRIPT:
                op.operation.erase()

        def unmark(op):
            if MARK in op.operation.attributes:
                del op.operation.attributes[MARK]
            return ir.WalkResult.ADVANCE

        module.walk(unmark, ir.WalkOrder.PRE_ORDER)


#: Vector ops after bufferization (transfers already unrolled to 1-D by
#: convert-vector-to-scf) down to what the LLVM conversions take: 1-D loads
#: and stores, element-wise arithmetic, FMAs, extracts and inserts.
LOWER_VECTORS = f"""
module attributes {{transform.with_named_sequence}} {{
  transform.named_sequence @lower_vectors(%module: {ANY} {{transform.readonly}}) {{
    %functions = transform.structured.match ops{{["func.func"]}} in %module : ({ANY}) -> {ANY}
    transform.apply_patterns to %functions {{
      transform.apply_patterns.vector.lower_contraction lowering_strategy = "outerproduct"
      transform.apply_patterns.vector.lower_outerproduct
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.vector.lower_multi_reduction lowering_strategy = "innerparallel"
      transform.apply_patterns.vector.cast_away_vector_leading_one_dim
      transform.apply_patterns.vector.lower_transfer max_transfer_rank = 1
      transform.apply_patterns.vector.lower_shape_cast
      transform.apply_patterns.vector.lower_transpose
      transform.apply_patterns.canonicalization
    }} : {ANY}
    // lower_broadcast and canonicalization undo each other (an insert into
    // a unit dimension folds back into a broadcast): apply it alone.
    transform.apply_patterns to %functions {{
      transform.apply_patterns.vector.lower_broadcast
      transform.apply_patterns.vector.lower_shape_cast
      transform.apply_patterns.vector.unroll_from_elements
      transform.apply_patterns.vector.unroll_to_elements
    }} : {ANY}
    transform.yield
  }}
}}
"""


@register
class LowerVectors(Pass):
    name = "tinyml-lower-vectors"
    summary = "Lower the vector ops of tiled groups to 1-D loads, stores and FMAs (after bufferization)"

    def apply(self, module):
        script = ir.Module.parse(LOWER_VECTORS, module.context)
        sequence = script.body.operations[0]
        interpreter.apply_named_sequence(module, sequence, script)
        fma_to_math(module)


def fma_to_math(module: ir.Operation) -> None:
    """`vector.fma` -> `math.fma`. The first becomes `llvm.fmuladd`, which
    llc splits into VMUL + VADD on a Cortex-M4 (its CPU model marks VFMA
    slow); the second becomes `llvm.fma`, always one VFMA.F32 per element,
    as the hand-built kernels emit. Upstream has no such pattern."""
    found = []

    def visit(op):
        if op.operation.name == "vector.fma":
            found.append(op.operation)
        return ir.WalkResult.ADVANCE

    module.walk(visit, ir.WalkOrder.PRE_ORDER)
    for op in found:
        lhs, rhs, accumulator = op.operands
        with ir.InsertionPoint(op), op.location:
            fused = math.fma(lhs, rhs, accumulator)
        op.results[0].replace_all_uses_with(fused)
        op.erase()
