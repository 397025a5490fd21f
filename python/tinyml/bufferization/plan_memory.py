"""tinyml-plan-memory: every intermediate buffer of a bufferized function
becomes a view at a static offset in one arena the caller passes in.

Runs after one-shot bufferization (and buffer-results-to-out-params). For
each public `func.func` with a body:

1. Collect the `memref.alloc` / `memref.alloca` ops of the top-level block.
   A function it cannot plan is an error naming the op: an allocation inside
   a region (a loop: unbounded), a dynamic shape, a layout other than the
   row-major one, an element type without a fixed size (`index`), a memory
   space, a buffer that escapes through `func.return`, a buffer freed by
   anything but `memref.dealloc`, a function with several blocks.
2. Liveness in execution order: each top-level op that touches a buffer is a
   step (an op with regions is one step using everything used inside it). A
   use of a view (`subview`, `expand_shape`, `collapse_shape`, `cast`,
   `reinterpret_cast`, `view`, ... any memref result of an op using the
   buffer) is a use of the buffer. A buffer lives from its first use to its
   last; `memref.dealloc` is not a use (it is erased).
   One-shot bufferization reuses a dead buffer for later tensors (`outs` of
   a broadcast, a fill, a conv...), which would make one allocation live
   across the whole network. With `split` (default) an allocation is cut
   where a top-level op overwrites all of it without reading it
   (`linalg.fill` / `broadcast` / `transpose` / `copy` / element-wise ops
   whose body ignores the output, an all-parallel `linalg.generic` with a
   permutation output map and an unused output argument, `memref.copy`
   into it) and no view made before the cut is used after it: each piece
   (`b3.0`, `b3.1`, ...) is a buffer of its own with its own view.
3. In-place pairs (option `inplace`): the op at step t reads buffer A for
   the last time and writes buffer B for the first time, element by element
   with the same indexing (a `linalg.generic` with only parallel iterators
   and equal permutation maps for A's input and B's output, an element-wise
   named linalg op, `linalg.map`, `linalg.copy`, `memref.copy`), A and B (or
   contiguous reshapes of them) with the same shape, element width and
   bytes: B may take A's offset.
4. Plan (`tinyml.bufferization.planner`, `algorithm=best` or TFLM's `greedy-by-size`),
   verify (no two live buffers overlap), rewrite: a new last argument
   `%arena: memref<N x i8>` marked `{tinyml.arena}`, every allocation a
   `memref.view %arena[%offset][]`, the deallocs gone. N may be 0 (a
   function with no intermediate buffer): the argument is still added so
   every planned function has the same calling convention, and the caller
   may pass any pointer (or NULL) for it.

Only public functions with a body are planned (private helpers keep their
allocations); a public function that is called inside the module is refused
(its callers would miss the arena), and a function that already has an
arena argument and no allocation is left alone (planning twice is a no-op).

The alignment option is the alignment of every offset and the one the caller
must give the arena; it replaces the `alignment` attribute of the
allocations (bufferization's default of 64 is a cache-line habit, not a
requirement of the element type). An element type larger than the
alignment (e.g. f64 with alignment=4) is refused.

The function gets `tinyml.arena_bytes`, `tinyml.arena_alignment`,
`tinyml.greedy_arena_bytes` (TFLM's planner on the same buffers),
`tinyml.naive_arena_bytes` (sum of all), `tinyml.lower_bound_bytes` (max
bytes that must be live at one op), `tinyml.peak_op` (the op where that
maximum is reached) and `tinyml.memory_plan`: the buffers, their offsets,
and each step's op and kernel number (0: none), from which
`recorded_plan` rebuilds the `tinyml.bufferization.planner.MemoryPlan` (timeline
JSON and SVG) and the profile finds each kernel's steps. With `report-dir`
the pass also writes `<function>.memory.json` / `.svg` there.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from mlir import ir
from mlir.dialects import arith, memref

from ..ir.diagnostics import location_prefix
from ..ir.values import element_bytes
from ..ir.walk import functions, is_terminator
from .planner import ALGORITHMS, Buffer, MemoryPlan, PlanError, make_plan
from ..safe_io import OutputError, write_file
from ..conversion.number_kernels import is_marker, kernel_number
from ..pipeline.registry import Option, Pass, PassError, PipelineError, register
from ..report_attributes import (ARENA_ALIGNMENT, ARENA_BYTES, GREEDY_ARENA_BYTES,
                                 LOWER_BOUND_BYTES, MEMORY_PLAN, NAIVE_ARENA_BYTES, PEAK_OP,
                                 read, to_attribute)

ALLOC_OPS = ("memref.alloc", "memref.alloca")
# Ops that free or resize a buffer behind the planner's back.
UNSUPPORTED_USERS = {
    "memref.realloc": "resizes",
    "bufferization.dealloc": "frees",
}
RESHAPE_OPS = ("memref.expand_shape", "memref.collapse_shape")
ELEMENTWISE_NAMED = {
    "linalg.add", "linalg.sub", "linalg.mul", "linalg.div", "linalg.div_unsigned",
    "linalg.max", "linalg.min", "linalg.powf", "linalg.exp", "linalg.log", "linalg.abs",
    "linalg.ceil", "linalg.floor", "linalg.negf", "linalg.reciprocal", "linalg.round",
    "linalg.sqrt", "linalg.rsqrt", "linalg.square", "linalg.tanh", "linalg.erf",
    "linalg.select", "linalg.copy", "linalg.map", "linalg.elementwise",
}
ARENA_ATTR = "tinyml.arena"


def _where(location: ir.Location) -> str:
    """`Conv_3` for a name location (the ONNX node), `file:3:5` for a file
    location, '' when unknown."""
    try:
        if location.is_a_name():
            return location.name_str
        if location.is_a_fused():  # a kernel's number is no place
            return "+".join(filter(None, (_where(loc) for loc in location.locations
                                          if not is_marker(loc))))
        if location.is_a_callsite():
            return _where(location.callee)
    except (AttributeError, ValueError):
        pass
    text = location_prefix(location)
    return "" if text == "unknown" else text


def describe(op: ir.Operation) -> str:
    """`linalg.generic at Conv_3` (the op and where it comes from)."""
    where = _where(op.location)
    return f"{op.name} at {where}" if where else op.name


def _is_memref(value: ir.Value) -> bool:
    return isinstance(value.type, ir.MemRefType)


def _row_major(memref_type: ir.MemRefType) -> bool:
    """Identity layout or an explicit layout equal to it."""
    layout = memref_type.layout
    if isinstance(layout, ir.AffineMapAttr):
        return layout.value == ir.AffineMap.get_identity(memref_type.rank)
    try:
        strides, offset = memref_type.get_strides_and_offset()
    except Exception:  # noqa: BLE001 - any layout the bindings cannot read
        return False
    expected, running = [], 1
    for d in reversed(memref_type.shape):
        expected.append(running)
        running *= d
    return offset == 0 and list(strides) == list(reversed(expected))


@dataclass
class _Version:
    """One live range of an allocation: from a full overwrite (or its first
    use) to the last use before the next full overwrite. Each version is a
    planned buffer of its own."""

    alloc: "_Alloc"
    name: str
    raw_steps: list[int]


@dataclass
class _Alloc:
    op: ir.Operation
    type: ir.MemRefType
    index: int
    size: int
    steps: set[int] = field(default_factory=set)
    # Raw top-level index -> [(operand number, or -1 if nested, value)].
    uses_at: dict = field(default_factory=dict)
    deallocs: list[ir.Operation] = field(default_factory=list)
    # Alias value -> True when it is the buffer itself or a chain of
    # expand/collapse_shape of it (same bytes, same row-major order).
    aliases: dict = field(default_factory=dict)
    # Raw steps spanned by each alias other than the buffer: (def, last use).
    alias_spans: dict = field(default_factory=dict)
    versions: list[_Version] = field(default_factory=list)
    # (owner op, raw step) of every use of the allocation's own result.
    direct_uses: list = field(default_factory=list)

    def version_at(self, raw_step: int) -> _Version | None:
        for version in self.versions:
            if version.raw_steps[0] <= raw_step <= version.raw_steps[-1]:
                return version
        return None


@dataclass
class FunctionAnalysis:
    """Buffers, steps and in-place pairs of one function."""

    name: str
    allocs: list[_Alloc]
    buffers: list[Buffer]
    step_ops: list[ir.Operation]
    inplace_pairs: list[tuple[str, str]]


def _top_level(op: ir.Operation, func: ir.Operation) -> ir.Operation:
    while op.parent is not None and op.parent != func:
        op = op.parent
    return op


def _check_nested(func: ir.Operation) -> None:
    """Refuses allocations inside regions (loops, ifs, ...)."""
    for top in func.regions[0].blocks[0].operations:
        for region in top.operation.regions:
            _check_region(region, top.operation)


def _check_region(region: ir.Region, holder: ir.Operation) -> None:
    for block in region.blocks:
        for op in block.operations:
            op = op.operation
            if op.name in ALLOC_OPS or op.name == "memref.realloc":
                raise PassError(
                    f"cannot plan {op.name} inside {holder.name}: an allocation in a loop or "
                    "region is not bounded by the static arena (hoist it out first)",
                    op.location)
            for inner in op.regions:
                _check_region(inner, holder)


def _alloc_size(op: ir.Operation, alignment: int) -> tuple[ir.MemRefType, int]:
    memref_type = op.result.type
    if not isinstance(memref_type, ir.MemRefType):
        raise PassError(f"cannot plan {op.name}: result is not a memref", op.location)
    if not memref_type.has_static_shape or len(op.operands):
        raise PassError(f"cannot plan {op.name} with dynamic shape {memref_type}: "
                        "the arena needs static sizes", op.location)
    if memref_type.memory_space is not None:
        raise PassError(f"cannot plan {op.name} in memory space {memref_type.memory_space}",
                        op.location)
    if not _row_major(memref_type):
        raise PassError(f"cannot plan {op.name} with layout {memref_type.layout}: "
                        "only row-major buffers live in the arena", op.location)
    per_element = element_bytes(memref_type.element_type)
    if per_element is None:
        raise PassError(f"cannot plan {op.name} of element type {memref_type.element_type}: "
                        "its size in memory is target-dependent", op.location)
    if per_element > alignment:
        raise PassError(f"cannot plan {op.name}: elements of {per_element} bytes need more "
                        f"than the arena alignment of {alignment}", op.location)
    count = 1
    for d in memref_type.shape:
        count *= d
    return memref_type, count * per_element


def analyze_function(func: ir.Operation, alignment: int, inplace: bool,
                     split: bool = True) -> FunctionAnalysis:
    """Liveness of every top-level allocation of `func` (errors as
    `PassError`). With `split`, an allocation that one-shot bufferization
    reused for several tensors is cut into one buffer per tensor at the ops
    that overwrite it entirely."""
    name = ir.StringAttr(func.attributes["sym_name"]).value
    if len(func.regions[0].blocks) != 1:
        raise PassError(f"cannot plan @{name}: the function has "
                        f"{len(func.regions[0].blocks)} blocks (execution order is not linear)",
                        func.location)
    _check_nested(func)
    block = func.regions[0].blocks[0]
    top_ops = [op.operation for op in block.operations]
    index = {op: i for i, op in enumerate(top_ops)}

    allocs: list[_Alloc] = []
    for op in top_ops:
        if op.name not in ALLOC_OPS:
            continue
        memref_type, size = _alloc_size(op, alignment)
        alloc = _Alloc(op, memref_type, len(allocs), size)
        _collect_uses(alloc, func, index)
        _split_versions(alloc, top_ops, split)
        allocs.append(alloc)

    # Steps: the top-level ops touching a buffer, in block order.
    touched = sorted({s for a in allocs for s in a.steps})
    step_of = {raw: k for k, raw in enumerate(touched)}
    step_ops = [top_ops[raw] for raw in touched]
    buffers = [Buffer(v.name, a.size, step_of[v.raw_steps[0]], step_of[v.raw_steps[-1]])
               for a in allocs for v in a.versions]
    pairs = _inplace_pairs(allocs, buffers, step_ops, touched) if inplace else []
    return FunctionAnalysis(name, allocs, buffers, step_ops, pairs)


def _collect_uses(alloc: _Alloc, func: ir.Operation, index: dict) -> None:
    alloc.aliases = {alloc.op.result: True}
    work = [alloc.op.result]
    while work:
        value = work.pop()
        for use in value.uses:
            owner = use.owner.operation
            top = _top_level(owner, func)
            if owner.name == "memref.dealloc" and owner == top:
                alloc.deallocs.append(owner)
                continue
            if owner.name == "func.return":
                raise PassError(f"cannot plan {alloc.op.name}: the buffer escapes through "
                                "func.return (results must be caller-owned: run "
                                "buffer-results-to-out-params first)", alloc.op.location)
            if owner.name in UNSUPPORTED_USERS:
                raise PassError(f"cannot plan {alloc.op.name}: {owner.name} "
                                f"{UNSUPPORTED_USERS[owner.name]} the buffer", owner.location)
            step = index[top]
            alloc.steps.add(step)
            if value == alloc.op.result:
                alloc.direct_uses.append((owner, step))
            alloc.uses_at.setdefault(step, []).append(
                (use.operand_number if owner == top else -1, value))
            if value in alloc.alias_spans:
                first, last = alloc.alias_spans[value]
                alloc.alias_spans[value] = (first, max(last, step))
            derived = [r for r in owner.results if _is_memref(r)]
            if not owner.results and owner != top and is_terminator(owner):
                # A terminator yielding the buffer: the enclosing op's
                # results may be the buffer.
                derived = [r for r in owner.parent.results if _is_memref(r)]
            contiguous = alloc.aliases[value] and owner.name in RESHAPE_OPS
            for result in derived:
                if result not in alloc.aliases:
                    alloc.aliases[result] = contiguous
                    alloc.alias_spans[result] = (step, step)
                    work.append(result)


# ---------------------------------------------------------------------------
# Versions: full overwrites end a buffer's contents
# ---------------------------------------------------------------------------

# Ops whose outputs are written entirely (permutation or identity maps) when
# their body ignores the output's old value.
FULL_WRITE_NAMED = ELEMENTWISE_NAMED | {"linalg.fill", "linalg.broadcast", "linalg.transpose"}


def _overwrites(op: ir.Operation, alloc: _Alloc, uses: list[tuple[int, ir.Value]]) -> bool:
    """`op` writes every byte of the buffer and reads none: its only use of
    the buffer is one output operand, the buffer itself."""
    if len(uses) != 1 or uses[0][1] != alloc.op.result:
        return False
    operand = uses[0][0]
    if op.name == "memref.copy":
        return operand == 1
    segments = _segments(op)
    if segments is None or op.name not in FULL_WRITE_NAMED | {"linalg.generic"}:
        return False
    n_in, n_out = segments
    if not n_in <= operand < n_in + n_out:
        return False
    if op.name == "linalg.generic":
        maps = _operand_maps(op, n_in + n_out)
        operand_map = None if maps is None else maps[operand]  # a generic's maps are all given
        if operand_map is None or not operand_map.is_permutation:
            return False
    # The body must not read the output's old value.
    if len(op.regions) and len(op.regions[0].blocks):
        arguments = op.regions[0].blocks[0].arguments
        if operand < len(arguments) and list(arguments[operand].uses):
            return False
    return True


def _split_versions(alloc: _Alloc, top_ops: list[ir.Operation], split: bool) -> None:
    steps = sorted(alloc.steps)
    cuts = set()
    if split:
        for step in steps[1:]:
            if not _overwrites(top_ops[step], alloc, alloc.uses_at[step]):
                continue
            # A view made before the overwrite and used after it must keep
            # seeing the same bytes: no cut inside an alias's span.
            if any(first < step <= last for first, last in alloc.alias_spans.values()):
                continue
            cuts.add(step)
    groups: list[list[int]] = []
    for step in steps:
        if not groups or step in cuts:
            groups.append([])
        groups[-1].append(step)
    base = f"b{alloc.index}"
    alloc.versions = [_Version(alloc, base if len(groups) == 1 else f"{base}.{k}", group)
                      for k, group in enumerate(groups)]


# ---------------------------------------------------------------------------
# In-place detection
# ---------------------------------------------------------------------------

def _segments(op: ir.Operation) -> tuple[int, int] | None:
    if op.name == "memref.copy":
        return 1, 1
    if op.name == "linalg.map":
        return len(op.operands) - 1, 1
    if op.name in ("linalg.broadcast", "linalg.transpose"):
        return 1, 1
    if "operandSegmentSizes" not in op.attributes:
        return None
    sizes = list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))
    return (sizes[0], sizes[1]) if len(sizes) >= 2 else None


def _operand_maps(op: ir.Operation, count: int) -> list[ir.AffineMap | None] | None:
    """The indexing map of each operand (None: identity), or None when the
    op is not element-wise."""
    if op.name == "linalg.generic":
        iterators = op.attributes["iterator_types"]
        if any("parallel" not in str(it) for it in iterators):
            return None
        return [ir.AffineMapAttr(m).value for m in op.attributes["indexing_maps"]]
    if op.name in ELEMENTWISE_NAMED or op.name == "memref.copy":
        if "indexing_maps" in op.attributes:
            return [ir.AffineMapAttr(m).value for m in op.attributes["indexing_maps"]]
        return [None] * count
    return None


def _same_map(a: ir.AffineMap | None, b: ir.AffineMap | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return a == b and a.is_permutation


def _inplace_pairs(allocs: list[_Alloc], buffers: list[Buffer], step_ops: list[ir.Operation],
                   raw_steps: list[int]) -> list[tuple[str, str]]:
    alloc_of = {}
    for alloc in allocs:
        for value in alloc.aliases:
            alloc_of[value] = alloc
    buffer_of = {b.name: b for b in buffers}
    pairs = []
    for step, op in enumerate(step_ops):
        segments = _segments(op)
        if segments is None:
            continue
        n_in, n_out = segments
        operands = list(op.operands)[:n_in + n_out]
        maps = _operand_maps(op, len(operands))
        if maps is None or len(maps) < len(operands):
            continue
        raw = raw_steps[step]

        def version(value: ir.Value) -> _Version | None:
            alloc = alloc_of.get(value)
            return None if alloc is None else alloc.version_at(raw)

        for out_index in range(n_in, n_in + n_out):
            target = version(operands[out_index])
            if target is None or buffer_of[target.name].first != step:
                continue
            if not _clean(target.alloc.uses_at[raw], {out_index}, target.alloc):
                continue
            out_type = operands[out_index].type
            for in_index in range(n_in):
                source = version(operands[in_index])
                if source is None or source.alloc is target.alloc \
                        or buffer_of[source.name].last != step:
                    continue
                if not _compatible(source.alloc, target.alloc, operands[in_index].type, out_type):
                    continue
                allowed = {i for i in range(n_in) if operands[i] in source.alloc.aliases
                           and _same_map(maps[i], maps[out_index])
                           and list(operands[i].type.shape) == list(out_type.shape)}
                if in_index in allowed and _clean(source.alloc.uses_at[raw], allowed,
                                                  source.alloc):
                    pairs.append((source.name, target.name))
                    break
    return pairs


def _clean(uses: list[tuple[int, ir.Value]], allowed: set[int], alloc: _Alloc) -> bool:
    """Every use at this step is a direct operand in `allowed`, through the
    buffer or a contiguous reshape of it."""
    return bool(uses) and all(index in allowed and alloc.aliases[value] for index, value in uses)


def _compatible(source: _Alloc, target: _Alloc, in_type: ir.MemRefType,
                out_type: ir.MemRefType) -> bool:
    return (source.size == target.size
            and list(in_type.shape) == list(out_type.shape)
            and _row_major(in_type) and _row_major(out_type)
            and element_bytes(in_type.element_type) == element_bytes(out_type.element_type))


# ---------------------------------------------------------------------------
# The pass
# ---------------------------------------------------------------------------

def _is_public(func: ir.Operation) -> bool:
    if "sym_visibility" not in func.attributes:
        return True
    return ir.StringAttr(func.attributes["sym_visibility"]).value == "public"


def _calls(module: ir.Operation) -> dict[str, ir.Operation]:
    """Callee name -> first `func.call` of it in the module."""
    found: dict[str, ir.Operation] = {}

    def visit(op: ir.Operation) -> None:
        if op.name == "func.call":
            found.setdefault(ir.FlatSymbolRefAttr(op.attributes["callee"]).value, op)
        for region in op.regions:
            for block in region.blocks:
                for inner in block.operations:
                    visit(inner.operation)

    visit(module)
    return found


def _arena_index(func: ir.Operation) -> int | None:
    if "arg_attrs" not in func.attributes:
        return None
    for i, attrs in enumerate(ir.ArrayAttr(func.attributes["arg_attrs"])):
        if ARENA_ATTR in ir.DictAttr(attrs):
            return i
    return None


@register
class PlanMemory(Pass):
    name = "tinyml-plan-memory"
    summary = "Place every intermediate buffer at a static offset in one caller-given arena"
    options = (
        Option("alignment", int, 16, "byte alignment of the arena and of every offset "
               "(power of two)", low=4, high=64),
        Option("algorithm", str, "best", "offset assignment: best (several heuristics + "
               "search, never worse than greedy-by-size) or greedy-by-size (TFLM)",
               choices=ALGORITHMS),
        Option("inplace", bool, True, "let an element-wise op write over an input that "
               "dies there"),
        Option("split", bool, True, "plan each tensor of an allocation that bufferization "
               "reused (cut where an op overwrites it entirely) as a buffer of its own"),
        Option("report-dir", str, "", "if set, write <function>.memory.json and .svg there"),
    )
    # The options' values, set by `Pass.__init__`.
    alignment: int
    algorithm: str
    inplace: bool
    split: bool
    report_dir: str

    def __init__(self, **values):
        super().__init__(**values)
        if self.alignment & (self.alignment - 1):
            raise PipelineError(f"option 'alignment' of pass '{self.name}' must be a power "
                                f"of two, got {self.alignment}")

    def apply(self, module):
        calls = _calls(module)
        for func in list(functions(module)):
            if not _is_public(func):
                continue
            name = ir.StringAttr(func.attributes["sym_name"]).value
            if name in calls and _arena_index(func) is None:
                raise PassError(f"cannot plan @{name}: it is called from this module and the "
                                "call would miss the arena argument", calls[name].location)
            self.plan_function(func)

    def plan_function(self, func: ir.Operation) -> None:
        function_type = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
        if any(isinstance(t, (ir.RankedTensorType, ir.UnrankedTensorType))
               for t in list(function_type.inputs) + list(function_type.results)):
            name = ir.StringAttr(func.attributes["sym_name"]).value
            raise PassError(f"cannot plan @{name}: it still takes or returns tensors (run "
                            "one-shot bufferization first)", func.location)
        analysis = analyze_function(func, self.alignment, self.inplace, self.split)
        if _arena_index(func) is not None:
            if analysis.allocs:
                raise PassError(f"@{analysis.name} already has an arena argument but still "
                                "allocates", analysis.allocs[0].op.location)
            return
        op_names = [describe(op) for op in analysis.step_ops]
        details = {v.name: {"type": str(a.type), "alloc": describe(a.op)}
                   for a in analysis.allocs for v in a.versions}
        try:
            plan = make_plan(analysis.buffers, self.alignment, self.algorithm,
                             analysis.inplace_pairs, op_names, analysis.name, details)
        except PlanError as error:  # a defect of the planner: never emit the plan
            raise PassError(f"memory plan of @{analysis.name} failed verification: {error}",
                            func.location) from None
        self._rewrite(func, analysis, plan)
        if self.report_dir:
            stem = os.path.join(self.report_dir, f"{analysis.name}.memory")
            try:
                write_file(stem + ".json", plan.timeline_json())
                write_file(stem + ".svg", plan.timeline_svg())
            except OutputError as error:  # a folder the user named: their error to fix
                raise PassError(f"report-dir: {error}", func.location) from None

    def _rewrite(self, func: ir.Operation, analysis: FunctionAnalysis, plan: MemoryPlan) -> None:
        context = func.context
        with context:
            i8 = ir.IntegerType.get_signless(8)
            arena_type = ir.MemRefType.get([plan.arena_bytes], i8)
            block = func.regions[0].blocks[0]
            old_inputs = len(block.arguments)
            arena = block.add_argument(arena_type, func.location)
            function_type = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
            func.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(
                list(function_type.inputs) + [arena_type], list(function_type.results)))
            arg_attrs = list(ir.ArrayAttr(func.attributes["arg_attrs"])) \
                if "arg_attrs" in func.attributes else \
                [ir.DictAttr.get({}) for _ in range(old_inputs)]
            arg_attrs.append(ir.DictAttr.get({ARENA_ATTR: ir.UnitAttr.get()}))
            func.attributes["arg_attrs"] = ir.ArrayAttr.get(arg_attrs)

            index_type = ir.IndexType.get()
            for alloc in analysis.allocs:
                for dealloc in alloc.deallocs:
                    dealloc.erase()
                views = {}
                for version in alloc.versions:
                    with ir.InsertionPoint(alloc.op), alloc.op.location:
                        shift = arith.ConstantOp(index_type, plan.offsets[version.name]).result
                        view_type = ir.MemRefType.get(list(alloc.type.shape),
                                                      alloc.type.element_type)
                        value = memref.view(view_type, arena, shift, [])
                        if view_type != alloc.type:
                            value = memref.cast(alloc.type, value)
                    views[version.name] = value
                for owner, step in alloc.direct_uses:
                    used = alloc.version_at(step)
                    assert used is not None, "a use is in the steps of one version"
                    owner.replace_uses_of_with(alloc.op.result, views[used.name])
                alloc.op.erase()  # every use now goes to a view (none left if dead)

            for name, value in ((ARENA_BYTES, plan.arena_bytes),
                                (ARENA_ALIGNMENT, plan.alignment),
                                (GREEDY_ARENA_BYTES, plan.greedy_arena_bytes),
                                (NAIVE_ARENA_BYTES, plan.naive_bytes),
                                (LOWER_BOUND_BYTES, plan.lower_bound_bytes),
                                (PEAK_OP, plan.peak_op or ""),
                                (MEMORY_PLAN, _plan_record(plan, analysis))):
                func.attributes[name] = to_attribute(value)


def _plan_record(plan: MemoryPlan, analysis: FunctionAnalysis) -> dict:
    """What `tinyml.memory_plan` holds: the plan less the numbers that have
    attributes of their own."""
    record: dict[str, Any] = {
        "algorithm": plan.algorithm,
        "heuristic": plan.heuristic,
        "buffers": [{"name": b.name, "size": b.size, "first": b.first, "last": b.last,
                     "offset": plan.offsets[b.name]} for b in plan.buffers],
        "inplace_pairs": [list(pair) for pair in plan.inplace_pairs],
        "steps": plan.op_names,
        "step_kernels": [kernel_number(op.location) or 0 for op in analysis.step_ops],
    }
    if plan.peak_step is not None:
        record["peak_step"] = plan.peak_step
    return record


def recorded_plan(func: ir.Operation) -> tuple[MemoryPlan, list[int]] | None:
    """The plan `tinyml-plan-memory` recorded on `func` (None when it
    planned none) and the kernel number of each of its steps (0: none); the
    buffers' types and allocations are not recorded."""
    record = read(func, MEMORY_PLAN)
    if record is None:
        return None

    def number(name: str) -> int:
        return ir.IntegerAttr(func.attributes[name]).value

    buffers = record["buffers"]
    plan = MemoryPlan(
        function=ir.StringAttr(func.attributes["sym_name"]).value,
        buffers=[Buffer(b["name"], b["size"], b["first"], b["last"]) for b in buffers],
        offsets={b["name"]: b["offset"] for b in buffers},
        arena_bytes=number(ARENA_BYTES), alignment=number(ARENA_ALIGNMENT),
        algorithm=record["algorithm"], heuristic=record["heuristic"],
        inplace_pairs=tuple(tuple(pair) for pair in record["inplace_pairs"]),
        greedy_arena_bytes=number(GREEDY_ARENA_BYTES), naive_bytes=number(NAIVE_ARENA_BYTES),
        lower_bound_bytes=number(LOWER_BOUND_BYTES), peak_step=record.get("peak_step"),
        op_names=record["steps"])
    return plan, record["step_kernels"]
