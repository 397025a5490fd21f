"""`tinyml.compile`: the driver, from a model (an ONNX, TFLite or tinyml MLIR
file, an onnx.ModelProto or an ir.Module) to a `CompiledModel`.

Every target lowers through `pipeline.stages.compile_stages()` to the LLVM dialect.
The compiled function takes its inputs, then its outputs (caller-owned out-params),
then the arena, in the model's own layout and dtype (`abi`). The host runs it with
the MLIR ExecutionEngine (JIT); a Cortex-M target builds one Thumb object and a C
header, and runs in the emulator.

The driver runs the stages and reads what they found off the IR alone
(each stage's `measure`, the attributes the passes leave on the function:
`report_attributes`): the report is the one a stage run alone would give.

    model = tinyml.compile("kws.onnx")
    (scores,) = model(x)              # numpy in, list of numpy out
    model.save("out/")                # out/<name>.o, .h, ... + out/report.json; tinyml.load
"""
from __future__ import annotations

import functools
import hashlib
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from mlir import ir

from .abi import TensorInfo, name_entry, signature, signature_record
from .bufferization.plan_memory import recorded_plan
from .bufferization.planner import MemoryPlan
from .compiled_model import CompiledModel
from .errors import CompileError, mlir_error, one_line
from .float_layers import float_layers, refuse_float_layers
from .frontend.loading import entry_function, load_model
from .ir.context import make_context
from .memory_choice import Candidate, candidate_plans, choose, fits, picture
from .pipeline.builder import Pipeline
from .pipeline.registry import PassError, PipelineError, pass_named
from .pipeline.stages import Stage, compile_stages
from .report import CompileReport, Flash, KernelEntry, artefact_digests, stage_file
from .report_attributes import ARENA_BYTES, BATCH, KERNELS, PEAK_OP, SIGNATURE, read
from .targets import DEFAULT_TARGET, Target, TargetError, lookup_target
from .targets.cortexm import OPT_LEVELS, signature_asm


def compile(model: Any, target: str = DEFAULT_TARGET, *, float_abi: str | None = None,
            batch: int = 1, streaming: bool = False, entry: str | None = None, fuse: bool = True,
            in_place: bool = True, memory_plan: str | None = None, sram_budget: int | None = None,
            flash_budget: int | None = None, memory: dict[str, Any] | None = None,
            opt_level: str = "Os", emit_stages: bool = False, emit_assembly: bool = False,
            name: str | None = None, warm_up: bool = True) -> CompiledModel:
    """Compiles `model` (an .onnx, .tflite or .mlir path, an onnx.ModelProto or an
    ir.Module in the tinyml dialect) for `target` (see `targets.TARGETS`),
    its objects of `float_abi` (`targets.FLOAT_ABIS`; default: the core's).

    `batch` fixes a symbolic batch dimension of an ONNX model; `streaming` makes a TFLite
    model's variables (the state TFLM keeps between calls) inputs it writes the next state over;
    `entry` picks the function of a multi-function module; `fuse=False` turns all fusion off.
    The memory plan (`MEMORY_PLANS`: which layers compute over their input or inside their
    consumer's loop over rows, for less arena and more code) is `memory_plan`, or chosen
    (`memory_choice`): the least code whose arena fits `sram_budget` (bytes), the least arena
    whose flash fits `flash_budget`, or with neither the least arena for at most 15% more code
    than the plan "none"; `in_place=False` is the plan "none". `memory` passes options to the
    memory planner; `opt_level` (O1, O2, O3, Os, Oz) is LLVM's for a Cortex-M object;
    `emit_stages` keeps the IR after every stage (`CompiledModel.stages`); `warm_up`
    JIT-compiles a host model before returning."""
    try:
        spec = lookup_target(target, float_abi)
    except TargetError as error:
        raise CompileError(str(error)) from None
    if opt_level not in OPT_LEVELS:
        raise CompileError(f"unknown optimization level '{opt_level}' "
                           f"(known: {', '.join(OPT_LEVELS)})")
    plans = candidate_plans(memory_plan if in_place else "none", spec, sram_budget,
                            flash_budget)
    start = time.perf_counter()
    context = make_context()
    module, default_name = load_model(model, context, batch, streaming)
    with context, ir.Location.unknown(context):
        func = entry_function(module, entry)
        function, inputs, outputs = signature(func)
        # A model whose batch dimension is dynamic says which one was built.
        dynamic_batch = read(func, BATCH)
        name = function = name_entry(module, func, name, default_name or function)
        if spec.is_host:
            func.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
        elif "llvm.emit_c_interface" in func.attributes:
            del func.attributes["llvm.emit_c_interface"]
        build = _Build(spec, name, inputs, outputs, dynamic_batch, emit_stages, emit_assembly,
                       opt_level, Candidate(""))
        if emit_stages:
            build.front.stages["input"] = str(module)
        stages_for = functools.partial(
            compile_stages, spec.index_bitwidth, bare_ptr=not spec.is_host, fuse=fuse,
            memory=memory, fpu=spec.fpu, max_accumulators=spec.max_accumulators,
            int_tile=spec.int_tile, dsp=spec.dsp, mve=spec.mve, armv6m=spec.armv6m,
            winograd_rows=not spec.is_host and not spec.mve)
        # Byte-pair SMLADs and int16 weights (a DSP core), unsigned input
        # stages (ARMv6-M) and Winograd rows (every Cortex-M but Helium's) trade memory for
        # instructions: budgets that no plan meets with them are tried again
        # without, from the tiling on.
        trades = () if spec.is_host or spec.mve else TRADES["dsp"] if spec.dsp else \
            TRADES["armv6m"] if spec.armv6m else TRADES["armv7m"]
        retry = bool(trades) and (sram_budget is not None or flash_budget is not None)
        front = stages_for()
        untiled = None
        for stage in front[:_schedule_index(front)]:
            if retry and stage.name == "tiling":
                untiled = module.operation.clone()
            build.run(stage, module, build.front)
            if stage.name == "cleanup":
                if not spec.fpu:
                    refuse_float_layers(func, spec)
                build.front.measured["float_layers"] = float_layers(func)
        fronted = module.operation.clone() if retry and untiled is None else untiled
        built = _build_plans(build, plans, module, stages_for, sram_budget)
        traded = True
        if retry and not any(fits(c, sram_budget, flash_budget) for c in built):
            traded = False
            without = functools.partial(stages_for, **{trade: False for trade in trades})
            if untiled is not None:
                tiling = next(stage for stage in without() if stage.name == "tiling")
                build.run(tiling, untiled, build.front)
            built = _build_plans(build, plans, fronted, without, sram_budget)
        chosen = choose(built, sram_budget, flash_budget)
        chosen.artefacts["memory.svg"] = picture(chosen, built)
    report = CompileReport(
        model=name, target=target, function=function,
        artefacts=artefact_digests(chosen.artefacts), inputs=inputs, outputs=outputs,
        fusion=fuse, dynamic_batch=dynamic_batch, **chosen.measured,
        memory_plans=[candidate.entry(candidate is chosen) for candidate in built],
        options={"batch": batch, "fusion": fuse, "in_place": chosen.plan != "none",
                 "memory_plan": chosen.plan, **{key: value for key, value in (
                     ("opt_level", None if spec.is_host else opt_level),
                     ("float_abi", None if spec.is_host else spec.float_abi),
                     ("streaming", streaming or None), ("entry", entry or None),
                     ("sram_budget", sram_budget), ("flash_budget", flash_budget),
                     *((trade, None if traded else False) for trade in trades))
                     if value is not None}},
        stages=[stage_file(i, stage) for i, stage in enumerate(chosen.stages)])
    compiled = CompiledModel(report, chosen.artefacts, chosen.stages, module=chosen.module)
    if spec.is_host and warm_up:
        try:
            compiled.warm_up()
        except RuntimeError as error:  # the JIT failed (e.g. an unresolved symbol)
            raise CompileError(f"the host JIT failed: {one_line(error)}") from None
    report.compile_seconds = time.perf_counter() - start
    return compiled


#: What each kind of core trades memory for instructions with
#: (`compile_stages`' flags, all on by default): a compile whose budgets no
#: plan meets with them is built again without.
TRADES: dict[str, tuple[str, ...]] = {
    "dsp": ("byte_pairs", "winograd_rows", "halfword_weights"),
    "armv6m": ("unsigned_inputs", "winograd_rows"),
    "armv7m": ("winograd_rows",),  # without the DSP extension: the M3
}


def _build_plans(build: "_Build", plans: list[str], module: Any,
                 stages_for: Callable[..., list[Stage]],
                 sram_budget: int | None) -> list[Candidate]:
    """Each plan's compile of `module` (after the front stages), but those
    whose schedule another plan gave."""
    built: list[Candidate] = []
    scheduled: set[bytes] = set()
    for plan in plans:
        stages = stages_for(memory_plan=plan)
        # The last plan takes the module itself, each other one a copy.
        planned = module if plan == plans[-1] else module.operation.clone()
        candidate = build.plan(plan, planned, stages[_schedule_index(stages):],
                               sram_budget, scheduled)
        if candidate is not None:
            built.append(candidate)
    return built


def _schedule_index(stages: list[Stage]) -> int:
    """Where the memory plans part: the schedule stage's index."""
    return next(i for i, stage in enumerate(stages) if stage.name == "schedule")


@dataclass
class _Build:
    """What every memory plan of one compile shares: the target, the
    signature, and the stages before the schedule (`front`)."""

    spec: Target
    name: str
    inputs: list[TensorInfo]
    outputs: list[TensorInfo]
    dynamic_batch: int | None
    emit_stages: bool
    emit_assembly: bool
    opt_level: str
    front: Candidate

    def run(self, stage: Stage, module: Any, candidate: Candidate) -> None:
        stage_start = time.perf_counter()
        _run_stage(stage.name, stage.pipeline, module)
        candidate.stage_seconds[stage.name] = round(time.perf_counter() - stage_start, 4)
        if self.emit_stages:
            candidate.stages[stage.name] = str(module)
        if stage.measure:
            candidate.measured.update(stage.measure(module))

    def plan(self, plan: str, module: Any, stages: list[Stage], sram_budget: int | None,
             scheduled: set[bytes]) -> Candidate | None:
        """`plan`'s compile of `module` (the front stages' copy) through
        `stages`, the schedule and on; None when its schedule gives IR
        another plan gave (its digest in `scheduled`); its arena alone when
        that is over `sram_budget` (no back end for a plan that cannot be
        kept)."""
        candidate = self.front.branch(plan)
        self.run(stages[0], module, candidate)
        # A digest, not the text: the text holds every weight.
        digest = hashlib.sha256(module.operation.get_asm(enable_debug_info=True,
                                                         binary=True)).digest()
        if digest in scheduled:
            return None
        scheduled.add(digest)
        for stage in stages[1:]:
            self.run(stage, module, candidate)
            if stage.name == "plan-memory":  # before the last stages, to fail fast
                func = _symbol(module, self.name)
                candidate.arena_bytes, candidate.peak_op = read(func, ARENA_BYTES), read(func, PEAK_OP)
                if sram_budget is not None and candidate.arena_bytes > sram_budget:
                    return candidate
        func = _symbol(module, self.name)
        recorded = recorded_plan(func)
        assert recorded is not None, "tinyml-plan-memory records its plan"
        memory_plan, step_kernels = recorded
        kernel_map = _kernel_map(read(func, KERNELS, []), memory_plan, step_kernels)
        _record_signature(module, signature_record(self.inputs, self.outputs,
                                                   memory_plan.arena_bytes), self.spec.is_host)
        llvm_mlir = str(module)
        candidate.artefacts, candidate.buffers = \
            {"memory.json": memory_plan.timeline_json()}, memory_plan
        stack_frames = None
        if self.spec.is_host:
            candidate.artefacts[f"{self.name}.mlir"] = llvm_mlir
            # The JIT takes a Module; a copy is a ModuleOp, read back as CompiledModel.load does.
            candidate.module = module if isinstance(module, ir.Module) else ir.Module.parse(
                llvm_mlir)
        else:
            built, candidate.flash, stack_frames = _build_cortex_m(
                llvm_mlir, _with_kernel_lines(module, self.name), self.name, self.spec,
                self.inputs, self.outputs, memory_plan, self.dynamic_batch, self.emit_assembly,
                self.opt_level)
            candidate.artefacts.update(built)
        candidate.measured.update(
            arena_bytes=memory_plan.arena_bytes, arena_alignment=memory_plan.alignment,
            naive_arena_bytes=memory_plan.naive_bytes,
            greedy_arena_bytes=memory_plan.greedy_arena_bytes,
            lower_bound_bytes=memory_plan.lower_bound_bytes, peak_op=memory_plan.peak_op,
            memory_timeline=["memory.json", "memory.svg"], kernel_map=kernel_map,
            stage_seconds=candidate.stage_seconds, flash=candidate.flash,
            stack_frames=stack_frames)
        return candidate


def _run_stage(stage_name: str, stage: Pipeline, module: ir.Module) -> None:
    try:
        stage.run(module)
    except ir.MLIRError as error:
        raise mlir_error(f"stage '{stage_name}' failed: ", error) from None
    except (PassError, PipelineError) as error:
        raise CompileError(f"stage '{stage_name}' failed: {error}") from None


def _symbol(module: ir.Module, name: str) -> ir.Operation:
    """The function `name` of the module, whichever dialect it is in now."""
    return next(op.operation for op in module.body.operations
                if "sym_name" in op.operation.attributes
                and ir.StringAttr(op.operation.attributes["sym_name"]).value == name)


def _kernel_map(kernels: list[dict[str, Any]], plan: MemoryPlan,
                step_kernels: list[int]) -> list[KernelEntry]:
    """Every kernel (see `tinyml-number-kernels`) with the arena bytes live
    while it runs: the most of the planner's steps that belong to it."""
    live: dict[int, int] = {}
    for step, number in zip(plan.timeline()["steps"], step_kernels):
        if number:
            live[number] = max(live.get(number, 0), step["live_bytes"])
    return [KernelEntry(**kernel, live_bytes=live.get(kernel["kernel"], 0))
            for kernel in kernels]


def _record_signature(module: ir.Module, record: str, host: bool) -> None:
    """The host's artefact is the module itself; a Cortex-M object gets the
    record in a section of its own (`cortexm.SIGNATURE_SECTION`)."""
    attributes = module.operation.attributes
    attributes[SIGNATURE] = ir.StringAttr.get(record)
    if not host:
        attributes["llvm.module_asm"] = ir.ArrayAttr.get(
            [ir.StringAttr.get(line) for line in signature_asm(record)])


def _with_kernel_lines(module: ir.Module, name: str) -> str:
    """The LLVM-dialect module as `mlir-translate` reads it for a Cortex-M
    object: every location made its kernel's line of `<name>.kernels`, in a
    line-table-only debug scope, so the object maps code to kernels (in
    `.debug_line`, which takes no flash) for the profile."""
    pipeline = Pipeline([pass_named("tinyml-kernel-lines")(file=f"{name}.kernels"),
                         "ensure-debug-info-scope-on-llvm-func{emission-kind=LineTablesOnly}"])
    _run_stage("kernel-lines", pipeline, module)
    return str(module.operation.get_asm(enable_debug_info=True))


def _build_cortex_m(llvm_mlir: str, translation_input: str, name: str, spec: Target,
                    inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo],
                    plan: MemoryPlan, dynamic_batch: int | None, emit_assembly: bool,
                    opt_level: str) -> tuple[dict[str, str | bytes], Flash, dict[str, int]]:
    """The object, its LLVM IR, the module and the C header; the object's
    flash sizes and stack frames."""
    from .targets import cortexm
    from .targets.toolchain import ToolchainError
    with tempfile.TemporaryDirectory(prefix="tinyml-build-") as tmp:
        try:
            files = cortexm.build_object(translation_input, spec, Path(tmp), emit_assembly,
                                         opt_level)
            flash = Flash(**cortexm.object_sizes(files.obj))
            stack_frames = cortexm.stack_frame_sizes(files.obj)
        except ToolchainError as error:
            raise CompileError(f"the Cortex-M back end failed: {error}") from None
        artefacts: dict[str, str | bytes] = {
            f"{name}.o": files.obj.read_bytes(),
            f"{name}.ll": files.llvm_ir.read_text(),
            f"{name}.mlir": llvm_mlir,
            f"{name}.h": cortexm.header(name, inputs, outputs, plan.arena_bytes, plan.alignment,
                                        dynamic_batch, spec.float_abi)}
        if files.assembly is not None:
            artefacts[f"{name}.s"] = files.assembly.read_text()
    return artefacts, flash, stack_frames
