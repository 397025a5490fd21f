"""`tinyml.compile`: the driver, from a model (an ONNX, TFLite or tinyml MLIR
file, an onnx.ModelProto or an ir.Module) to a `CompiledModel`.

Every target lowers through `pipeline.stages.compile_stages()` to the LLVM
dialect. The compiled function takes its inputs, then its outputs
(caller-owned out-params), then the arena, in the model's own layout and
dtype (`abi`). The host runs it with the MLIR ExecutionEngine (JIT); a
Cortex-M target builds one Thumb object and a C header, and runs in the
emulator.

The driver runs the stages and reads what they found off the IR alone:
each stage's `measure`, and the attributes the passes leave on the model's
function (`report_attributes`: the kernels, the memory plan), so that the
report built here is the one a stage run alone would give.

    model = tinyml.compile("kws.onnx")
    (scores,) = model(x)              # numpy in, list of numpy out
    model.save("out/")                # out/<name>.o, .h, ... + out/report.json
    again = tinyml.load("out/")
"""
from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any, Sequence

from mlir import ir

from .abi import TensorInfo, name_entry, signature, signature_record
from .compiled_model import CompiledModel
from .dialects import tinyml as tm
from .errors import CompileError, mlir_error, one_line
from .frontend.loading import entry_function, load_model
from .ir.context import make_context
from .ir.diagnostics import location_prefix
from .ir.ops import op_names
from .ir.quant import is_per_axis
from .ir.values import element_of
from .bufferization.plan_memory import recorded_plan
from .bufferization.planner import MemoryPlan
from .pipeline.builder import Pipeline
from .pipeline.registry import PassError, PipelineError, pass_named
from .pipeline.stages import compile_stages
from .report import CompileReport, Flash, FloatLayer, KernelEntry, artefact_digests, stage_file
from .report_attributes import ARENA_BYTES, BATCH, KERNELS, PEAK_OP, SIGNATURE, read
from .targets import DEFAULT_TARGET, Target, TargetError, lookup_target
from .targets.cortexm import OPT_LEVELS, signature_asm


def compile(model: Any, target: str = DEFAULT_TARGET, *, batch: int = 1,
            entry: str | None = None, fuse: bool = True, in_place: bool = True,
            sram_budget: int | None = None, memory: dict[str, Any] | None = None,
            opt_level: str = "Os", emit_stages: bool = False, emit_assembly: bool = False,
            name: str | None = None, warm_up: bool = True) -> CompiledModel:
    """Compiles `model` (an .onnx, .tflite or .mlir path, an onnx.ModelProto, or an
    ir.Module in the tinyml dialect) for `target` (see `targets.TARGETS`).

    `batch` fixes a symbolic batch dimension of an ONNX model; `entry`
    picks the function of a multi-function module; `fuse=False` turns all
    fusion off; `in_place=False` computes no layer over its input and no
    layer inside its consumer's loop over rows (tinyml-compute-in-place,
    tinyml-fuse-row-bands, tinyml-fuse-line-buffer: a few percent faster, a
    larger arena); `sram_budget` (bytes) fails the compile when the arena does
    not fit; `memory` passes options to the memory planner; `opt_level`
    (O1, O2, O3, Os, Oz) is LLVM's for a Cortex-M object; `emit_stages`
    keeps the IR after every stage (`CompiledModel.stages`); `warm_up`
    JIT-compiles a host model before returning."""
    try:
        spec = lookup_target(target)
    except TargetError as error:
        raise CompileError(str(error)) from None
    if opt_level not in OPT_LEVELS:
        raise CompileError(f"unknown optimization level '{opt_level}' "
                           f"(known: {', '.join(OPT_LEVELS)})")
    start = time.perf_counter()
    context = make_context()
    module, default_name = load_model(model, context, batch)
    stages: dict[str, str] = {}
    measured: dict[str, Any] = {}  # what the stages' `measure` read off the module
    stage_seconds: dict[str, float] = {}
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
        if emit_stages:
            stages["input"] = str(module)
        for stage in compile_stages(
                spec.index_bitwidth, bare_ptr=not spec.is_host, fuse=fuse, memory=memory,
                max_accumulators=spec.max_accumulators, int_tile=spec.int_tile, dsp=spec.dsp,
                in_place=in_place, fpu=spec.fpu):
            stage_start = time.perf_counter()
            _run_stage(stage.name, stage.pipeline, module)
            if stage.name == "cleanup":
                if not spec.fpu:
                    _refuse_float_layers(func, spec.name)
                float_layers = _float_layers(func)
            stage_seconds[stage.name] = round(time.perf_counter() - stage_start, 4)
            if emit_stages:
                stages[stage.name] = str(module)
            if stage.measure:
                measured.update(stage.measure(module))
            if stage.name == "plan-memory":  # before the last stages, to fail fast
                _check_budget(_symbol(module, name), sram_budget)
        compiled_function = _symbol(module, name)
        recorded = recorded_plan(compiled_function)
        assert recorded is not None, "tinyml-plan-memory records its plan"
        plan, step_kernels = recorded
        kernel_map = _kernel_map(read(compiled_function, KERNELS, []), plan, step_kernels)
        _record_signature(module, signature_record(inputs, outputs, plan.arena_bytes),
                          spec.is_host)
        llvm_mlir = str(module)
        if not spec.is_host:
            translation_input = _with_kernel_lines(module, name)
    artefacts: dict[str, str | bytes] = {"memory.json": plan.timeline_json(),
                                         "memory.svg": plan.timeline_svg()}
    flash = stack_frames = None
    if spec.is_host:
        artefacts[f"{name}.mlir"] = llvm_mlir
    else:
        built, flash, stack_frames = _build_cortex_m(
            llvm_mlir, translation_input, name, spec, inputs, outputs, plan, dynamic_batch,
            emit_assembly, opt_level)
        artefacts.update(built)
    report = CompileReport(
        model=name, target=target, function=function, artefacts=artefact_digests(artefacts),
        inputs=inputs, outputs=outputs, fusion=fuse, dynamic_batch=dynamic_batch,
        float_layers=float_layers, **measured,
        arena_bytes=plan.arena_bytes, arena_alignment=plan.alignment,
        naive_arena_bytes=plan.naive_bytes, greedy_arena_bytes=plan.greedy_arena_bytes,
        lower_bound_bytes=plan.lower_bound_bytes, peak_op=plan.peak_op,
        memory_timeline=["memory.json", "memory.svg"], kernel_map=kernel_map,
        stage_seconds=stage_seconds, flash=flash, stack_frames=stack_frames,
        options={"batch": batch, "fusion": fuse, "in_place": in_place,
                 **({} if spec.is_host else {"opt_level": opt_level}),
                 **({"entry": entry} if entry else {}),
                 **({"sram_budget": sram_budget} if sram_budget is not None else {})},
        stages=[stage_file(i, stage) for i, stage in enumerate(stages)])
    compiled = CompiledModel(report, artefacts, stages,
                             module=module if spec.is_host else None)
    if spec.is_host and warm_up:
        try:
            compiled.warm_up()
        except RuntimeError as error:  # the JIT failed (e.g. an unresolved symbol)
            raise CompileError(f"the host JIT failed: {one_line(error)}") from None
    report.compile_seconds = time.perf_counter() - start
    return compiled


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


def _computes_in_float(op: ir.Operation) -> bool:
    return op.name != "arith.constant" and any(
        isinstance(v.type, ir.RankedTensorType) and isinstance(v.type.element_type, ir.F32Type)
        for v in list(op.operands) + list(op.results))


def _refuse_float_layers(func: ir.Operation, target: str) -> None:
    """A target without an FPU runs integer models only: the first op that
    computes in float32 (a float model, or a layer of a quantized model
    with no integer kernel yet) is the error. Per-tensor quantize and
    dequantize (a float-edged model's edges) lower with integers there."""
    for op in func.regions[0].blocks[0].operations:
        op = op.operation
        conversion = op.name == tm.QuantizeOp.OPERATION_NAME or (
            op.name == tm.DequantizeOp.OPERATION_NAME
            and not is_per_axis(element_of(op.operands[0])))
        if _computes_in_float(op) and not conversion and op.name != "func.return":
            raise CompileError(f"{target} has no FPU: only int8 models whose every layer "
                               f"has an integer kernel compile for it; '{op.name}' at "
                               f"{location_prefix(op.location)} computes in float32")


#: Ops that compute in float32 in a quantized model exactly as TFLite and
#: onnxruntime do: the conversions at a float-edged model's boundary.
_EXACT_CONVERSIONS = op_names(tm.QuantizeOp, tm.DequantizeOp)


def _float_layers(func: ir.Operation) -> list[FloatLayer]:
    """The layers of a quantized model that compute in float32 where its
    reference (TFLM's int8 kernels) computes in integers: each op with no
    integer kernel left between a dequantize and a quantize, by layer (its
    location) and op. Empty for a float model."""
    ops = [op.operation for op in func.regions[0].blocks[0].operations]
    if not any(op.name in _EXACT_CONVERSIONS for op in ops):
        return []
    return [FloatLayer(location_prefix(op.location).strip('"'), op.name) for op in ops
            if _computes_in_float(op) and op.name not in (*_EXACT_CONVERSIONS, "func.return")]


def _check_budget(func: ir.Operation, budget: int | None) -> None:
    arena = read(func, ARENA_BYTES)
    if budget is not None and arena > budget:
        raise CompileError(
            f"the arena needs {arena} bytes, {arena - budget} over the SRAM budget of "
            f"{budget}; the peak is at {read(func, PEAK_OP) or 'an unknown op'}")


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
    asm: str = module.operation.get_asm(enable_debug_info=True)
    return asm


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
                                        dynamic_batch)}
        if files.assembly is not None:
            artefacts[f"{name}.s"] = files.assembly.read_text()
    return artefacts, flash, stack_frames
