"""tinyml-schedule-for-memory: reorder the ops of a tensor-level function so
that fewer tensor bytes are live at once.

Runs on the tinyml graph before lowering. The ops of the function body form
a DAG; any topological order computes the same results, but the largest sum
of live tensor bytes (the lower bound of the arena the memory planner can
reach) depends on it: in a residual block, computing the shortcut branch
(e.g. a 1x1 convolution) first keeps its result alive across the whole main
branch, computing it just before the add does not.

Cost model (the same as the planner's, before bufferization): a tensor takes
product(shape) x element bytes (a quantized element: its storage type's); it
is live from the op that produces it to its last user, both included (an
op's inputs and outputs are live together).
Function arguments (caller-owned inputs), returned values (caller-owned
outputs) and constants (flash) cost nothing; a reshape (`tinyml.reshape`,
`tensor.expand_shape` / `collapse_shape`, `tensor.cast`, a
`tensor.extract_slice`) is a view of its input, so it costs nothing and
extends its input's life; so is a storage cast (`quant.scast`) between a
quantized tensor and its integers.

Search: an exact dynamic program over the sets of executed ops (the peak
after a set depends only on the set), layer by layer, while the number of
states stays under `max-states`; past that, a beam search over the same
states (width `max-states / ops`, so about `max-states` states are kept in
all) and a greedy pick (width 1). Each state looks at every op, so the
searches also stop at `max-moves` (state, op) pairs: the exact search gives
up and the beam narrows to `max-moves / ops^2`. Up to 100 ops (with the
defaults) neither bound bites; a graph of a thousand ops is scheduled in
seconds, not hours. The original order is
always a candidate and wins ties: the pass never makes the peak worse and
leaves a function alone when it cannot improve it.

Ops that are not known to be side-effect free keep their relative order;
ops without operands (constants, `tensor.empty`) are not scheduled: when the
pass reorders a function it puts them first, in their original order.

The function gets `tinyml.schedule_peak_bytes` (after) and
`tinyml.schedule_original_peak_bytes` (before), `tinyml.schedule_method`
(`exact`, `beam` or `original` when nothing better was found).
"""
from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from ..dialects import tinyml as tm
from ..ir.quant import is_quantized, storage_type
from ..ir.values import element_bytes
from ..ir.walk import functions
from ..pipeline.registry import Option, Pass, PassError, register

PURE_DIALECTS = ("tinyml", "arith", "math", "tensor", "quant")
ALIAS_OPS = (tm.ReshapeOp.OPERATION_NAME, "tensor.expand_shape", "tensor.collapse_shape",
             "tensor.cast", "tensor.extract_slice", "quant.scast")


#: The function attributes the pass writes: the peak of live bytes of the
#: schedule it chose, the peak of the order it was given, and how it chose.
PEAK = "tinyml.schedule_peak_bytes"
ORIGINAL_PEAK = "tinyml.schedule_original_peak_bytes"
METHOD = "tinyml.schedule_method"


def tensor_bytes(value: ir.Value) -> int:
    """Bytes of a statically shaped tensor value, 0 for anything else."""
    t = value.type
    if not isinstance(t, ir.RankedTensorType) or not t.has_static_shape:
        return 0
    element = storage_type(t.element_type) if is_quantized(t.element_type) else t.element_type
    per_element = element_bytes(element) or 0
    count = 1
    for d in t.shape:
        count *= d
    return count * per_element


def _is_pure(op: ir.Operation) -> bool:
    if op.name.split(".")[0] in PURE_DIALECTS:
        return True
    if op.name.startswith("linalg."):
        # On tensors linalg ops only produce values.
        return all(isinstance(v.type, ir.RankedTensorType)
                   for v in list(op.operands) + list(op.results)
                   if isinstance(v.type, (ir.ShapedType,)))
    return False


def _used_values(op: ir.Operation):
    """Operands of `op` and of every op nested in its regions."""
    yield from op.operands
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                yield from _used_values(inner.operation)


@dataclass
class Graph:
    """The scheduling problem: ops 0..n-1 in original order, dependences as
    bitmasks, tensors (alias roots) with size, producer and consumers."""

    ops: list[ir.Operation]
    deps: list[int]             # op -> mask of ops it must follow
    produces: list[list[int]]   # op -> tensors it produces
    consumes: list[list[int]]   # op -> tensors whose life it may end
    sizes: list[int]            # tensor -> bytes
    users: list[int]            # tensor -> mask of ops using it (or its views)

    def peak_of(self, order: list[int]) -> int:
        done, live, peak = 0, 0, 0
        for op in order:
            live, step = self.step(done, live, op)
            peak = max(peak, step)
            done |= 1 << op
        return peak

    def __post_init__(self):
        # Per op, precomputed for `step` (the searches' inner loop).
        self._produced_bytes = [sum(self.sizes[t] for t in ts) for ts in self.produces]
        self._touched = [tuple(set(c) | set(p)) for c, p in zip(self.consumes, self.produces)]

    def step(self, done: int, live: int, op: int) -> tuple[int, int]:
        """(live bytes after `op`, live bytes while `op` runs)."""
        during = live + self._produced_bytes[op]
        after = during
        now = done | (1 << op)
        for t in self._touched[op]:
            if self.users[t] & ~now == 0:
                after -= self.sizes[t]
        return after, during


def build_graph(func: ir.Operation) -> tuple[Graph, list[ir.Operation], ir.Operation]:
    block = func.regions[0].blocks[0]
    all_ops = [op.operation for op in block.operations]
    terminator = all_ops[-1]
    body = all_ops[:-1]
    free = [op for op in body if _is_pure(op) and len(op.operands) == 0
            and not len(op.regions)]
    free_set = set(free)
    ops = [op for op in body if op not in free_set]
    producer: dict[ir.Value, int] = {}
    for i, op in enumerate(ops):
        for result in op.results:
            producer[result] = i
    returned = set(terminator.operands)

    # Tensors: alias roots of scheduled results.
    root: dict[ir.Value, ir.Value] = {}
    for op in ops:
        for index, result in enumerate(op.results):
            if op.name == "scf.for" and root.get(op.operands[3 + index]) is not None:
                # A loop's result is its loop-carried tensor, updated in
                # place (tinyml-fuse-row-bands' loops over output rows).
                root[result] = root[op.operands[3 + index]]
            elif op.name in ALIAS_OPS and len(op.operands) and op.operands[0] in root:
                root[result] = root[op.operands[0]]
            elif op.name in ALIAS_OPS:
                root[result] = None  # a view of an argument or constant
            else:
                root[result] = result
    tensors: dict[ir.Value, int] = {}
    sizes: list[int] = []
    for op in ops:
        for result in op.results:
            if (root[result] is not None and root[result] == result and result not in returned
                    and tensor_bytes(result)):
                tensors[result] = len(sizes)
                sizes.append(tensor_bytes(result))

    deps = [0] * len(ops)
    produces: list[list[int]] = [[] for _ in ops]
    consumes: list[list[int]] = [[] for _ in ops]
    users = [0] * len(sizes)
    last_impure = None
    for i, op in enumerate(ops):
        for value in _used_values(op):
            j = producer.get(value)
            if j is not None and j != i:
                deps[i] |= 1 << j
            r = root.get(value)
            if r is not None and r in tensors:
                t = tensors[r]
                users[t] |= 1 << i
                consumes[i].append(t)
        for result in op.results:
            if result in tensors:
                produces[i].append(tensors[result])
        if not _is_pure(op):
            if last_impure is not None:
                deps[i] |= 1 << last_impure
            last_impure = i
    # A view's users keep its root alive; a view op itself uses the root.
    return Graph(ops, deps, produces, consumes, sizes, users), free, terminator


def _exact(graph: Graph, max_states: int) -> tuple[int, list[int]] | None:
    """Minimal peak over all topological orders; None past `max_states`
    states."""
    n = len(graph.ops)
    full = (1 << n) - 1
    layer: dict[int, tuple] = {0: (0, 0, None, None)}  # state -> (peak, live, parent state, op)
    history = [layer]
    states = 1
    for _ in range(n):
        nxt: dict[int, tuple] = {}
        for state, (peak, live, _, _) in layer.items():
            for op in range(n):
                if state >> op & 1 or graph.deps[op] & ~state:
                    continue
                after, during = graph.step(state, live, op)
                new = state | (1 << op)
                candidate = (max(peak, during), after, state, op)
                old = nxt.get(new)
                if old is None:
                    states += 1
                    if states > max_states:
                        return None
                    nxt[new] = candidate
                elif candidate[0] < old[0]:
                    nxt[new] = candidate
        layer = nxt
        history.append(layer)
    peak = layer[full][0]
    order, state = [], full
    for depth in range(n, 0, -1):
        _, _, parent, op = history[depth][state]
        order.append(op)
        state = parent
    return peak, order[::-1]


def _beam(graph: Graph, width: int) -> tuple[int, list[int]]:
    """Keeps the `width` best partial orders (by peak, then live bytes)."""
    n = len(graph.ops)
    beam = [(0, 0, 0, None)]  # (peak, live, state, (op, parent link))
    for _ in range(n):
        seen: dict[int, tuple] = {}
        for peak, live, state, link in beam:
            for op in range(n):
                if state >> op & 1 or graph.deps[op] & ~state:
                    continue
                after, during = graph.step(state, live, op)
                new = state | (1 << op)
                candidate = (max(peak, during), after, new, (op, link))
                old = seen.get(new)
                if old is None or candidate[:2] < old[:2]:
                    seen[new] = candidate
        beam = sorted(seen.values(), key=lambda c: (c[0], c[1]))[:width]
    peak, _, _, link = beam[0]
    order: list[int] = []
    while link is not None:
        order.append(link[0])
        link = link[1]
    return peak, order[::-1]


def schedule(graph: Graph, max_states: int,
             max_moves: int = 2_000_000) -> tuple[int, int, list[int], str]:
    """(original peak, new peak, order, method). Every state the searches
    keep looks at all n ops: `max_moves` bounds those (state, op) pairs."""
    n = len(graph.ops)
    original = list(range(n))
    original_peak = graph.peak_of(original)
    found = _exact(graph, min(max_states, max_moves // max(1, n))) if n else (0, [])
    method = "exact"
    if found is None:
        width = max(1, min(max_states // n, max_moves // (n * n)))
        found = _beam(graph, 1)
        if width > 1:
            found = min(_beam(graph, width), found, key=lambda f: f[0])
        method = "beam"
    peak, order = found
    if peak >= original_peak:
        return original_peak, original_peak, original, "original"
    return original_peak, peak, order, method


@register
class ScheduleForMemory(Pass):
    name = "tinyml-schedule-for-memory"
    summary = "Reorder tensor-level ops (a valid topological order) to lower the peak of live bytes"
    options = (
        Option("max-states", int, 20000, "search states before the exact search gives way "
               "to a beam search", low=1, high=10_000_000),
        Option("max-moves", int, 2_000_000, "(state, op) pairs the searches may look at; "
               "bounds the time on large graphs", low=1, high=1_000_000_000),
    )
    # The options' values, set by `Pass.__init__`.
    max_states: int
    max_moves: int

    def apply(self, module):
        for func in list(functions(module)):
            if len(func.regions[0].blocks) != 1:
                raise PassError("cannot schedule a function with several blocks", func.location)
            self.schedule_function(func)

    def schedule_function(self, func: ir.Operation) -> None:
        graph, free, terminator = build_graph(func)
        original_peak, peak, order, method = schedule(graph, self.max_states, self.max_moves)
        if order != list(range(len(graph.ops))):
            for op in free:
                op.move_before(terminator)
            for i in order:
                graph.ops[i].move_before(terminator)
        with func.context:
            i64 = ir.IntegerType.get_signless(64)
            func.attributes[PEAK] = ir.IntegerAttr.get(i64, peak)
            func.attributes[ORIGINAL_PEAK] = ir.IntegerAttr.get(i64, original_peak)
            func.attributes[METHOD] = ir.StringAttr.get(method)
