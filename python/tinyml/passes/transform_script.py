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

from mlir import ir
from mlir.dialects import math
from mlir.dialects.transform import interpreter

from ..lowering_config import ATTRIBUTE, LoweringConfig
from .registry import Pass, PassError, register

#: The symbol of the attached script module.
SCRIPT = "tinyml_transform_script"

#: The parallel dimensions of each contraction, before its reduction ones.
PARALLEL_DIMS = {
    "linalg.conv_2d_nhwc_hwcf": 4,
    "linalg.depthwise_conv_2d_nhwc_hwc": 4,
    "linalg.matmul": 2,
}
#: The operand of a contraction (ins, ins, outs) that initialises it.
INIT_OPERAND = 2
DECOMPOSABLE = ("linalg.conv_2d_nhwc_hwcf", "linalg.depthwise_conv_2d_nhwc_hwc")

ANY = "!transform.any_op"


def _sizes(sizes) -> str:
    return "[" + ", ".join(str(s) for s in sizes) + "]"


def _handles(count: int) -> str:
    return ", ".join([ANY] * count)


def group_sequence(name: str, contraction: str, config: LoweringConfig) -> list[str]:
    """The named sequence tiling one group: its epilogue generic (the op
    carrying `config`) over a `contraction`."""
    parallel = PARALLEL_DIMS[contraction]
    loops = sum(1 for s in config.tile if s)
    steps = [0] * parallel + list(config.reduction)
    step_loops = sum(1 for s in config.reduction if s)
    lines = [f"  transform.named_sequence @{name}(%epilogue: {ANY} {{transform.consumed}}) {{"]
    emit = lines.append
    emit(f"    %contraction = transform.get_producer_of_operand %epilogue[0] : ({ANY}) -> {ANY}")
    emit(f"    %init = transform.get_producer_of_operand %contraction[{INIT_OPERAND}] : ({ANY}) -> {ANY}")
    emit(f"    %tiled, %loops:{loops} = transform.structured.tile_using_for %epilogue "
         f"tile_sizes {_sizes(config.tile)} : ({ANY}) -> ({_handles(loops + 1)})")
    emit(f"    %tile_contraction, %loop = transform.structured.fuse_into_containing_op "
         f"%contraction into %loops#{loops - 1} : ({ANY}, {ANY}) -> ({ANY}, {ANY})")
    emit(f"    %tile_init, %loop_2 = transform.structured.fuse_into_containing_op "
         f"%init into %loop : ({ANY}, {ANY}) -> ({ANY}, {ANY})")
    body = "%tile_contraction"
    if step_loops:
        emit(f"    %stepped, %steps:{step_loops} = transform.structured.tile_using_for "
             f"{body} tile_sizes {_sizes(steps)} : ({ANY}) -> ({_handles(step_loops + 1)})")
        body = "%stepped"
    if contraction in DECOMPOSABLE and config.reduction[0] == 1:
        emit(f"    %decomposed = transform.structured.decompose {body} : ({ANY}) -> {ANY}")
        body = "%decomposed"
    for handle in (body, "%tile_init", "%tiled"):
        emit(f"    transform.structured.vectorize {handle} : {ANY}")
    emit("    transform.yield")
    emit("  }")
    return lines


def build_script(groups: list[tuple[str, LoweringConfig]]) -> str:
    """The script for `groups` (contraction name, config): one sequence per
    distinct pair, applied to every epilogue carrying that configuration,
    then the module-wide vector lowering and hoisting."""
    lines = [f"module @{SCRIPT} attributes {{transform.with_named_sequence}} {{"]
    main = [f"  transform.named_sequence @__transform_main(%module: {ANY} {{transform.readonly}}) {{"]
    for index, (contraction, config) in enumerate(groups):
        name = f"tile_group_{index}"
        lines += group_sequence(name, contraction, config)
        main.append(f"    %epilogues_{index} = transform.structured.match ops{{[\"linalg.generic\"]}} "
                    f"attributes{{{ATTRIBUTE} = {config.attribute()}}} in %module : "
                    f"({ANY}) -> {ANY}")
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


def configured_groups(module: ir.Operation) -> list[tuple[str, LoweringConfig]]:
    """(contraction, config) of every distinct configured epilogue in the
    module, in order of first appearance."""
    found: list[tuple[str, LoweringConfig]] = []

    def visit(op):
        op = op.operation
        config = LoweringConfig.of(op) if op.name == "linalg.generic" else None
        if config is None:
            return ir.WalkResult.ADVANCE
        producer = op.operands[0].owner
        contraction = None if isinstance(producer, ir.Block) else producer.operation.name
        if contraction not in PARALLEL_DIMS:
            raise PassError(f"'{ATTRIBUTE}' on a generic whose first input is not a contraction",
                            op.location)
        if (contraction, config) not in found:
            found.append((contraction, config))
        return ir.WalkResult.ADVANCE

    module.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found


@register
class AttachTransformScript(Pass):
    name = "tinyml-attach-transform-script"
    summary = "Attach the transform script that tiles and vectorizes each configured group"

    def apply(self, module):
        script = ir.Module.parse(build_script(configured_groups(module)), module.context)
        body = module.regions[0].blocks[0]
        body.append(script.operation.clone())


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
