"""tinyml-number-kernels: give every kernel of a function a number that its
code keeps down to the object file.

A kernel is one top-level tinyml op of a function: a `tinyml.fused` group
(its loop nests once lowered) or an op left alone (a pooling, a softmax, a
concat, a reshape...); the loops over rows the memory passes build
(tinyml-fuse-row-bands, tinyml-fuse-line-buffer: `scf.for` ops holding
tinyml ops, each loop carrying the one before's result) and a recurrent
layer's time loop are one kernel of the layers they compute, named after
all of them, their MACs counted once per iteration; after bufferization also
a `memref.copy` (a result copied into its out-parameter). The pass numbers those not numbered yet in
execution order, after the function's highest number (from `first` when
there is none), and sets the location of each and of every op nested in it to

    loc(fused["tinyml.kernel":<number>:0, <the location of each member>])

so the location names every ONNX node the kernel computes (a group's own
location names only its root; a copy, lacking names of its own, those of
the kernel whose result it copies) and carries the number. Lowerings build
their ops under the location of the op they lower, so the number reaches the
LLVM dialect, where `tinyml-kernel-lines` turns it into a line of a DWARF
line table. The kernels it numbered (`Kernel`) are appended, in order, to
the function's `tinyml.kernels` attribute (`report_attributes.KERNELS`),
which the compile report's kernel map is read from; running it again
numbers nothing.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from mlir import ir

from ..dialects import tinyml as tm
from ..ir import analysis
from ..ir.diagnostics import node_name
from ..ir.values import constant_int
from ..ir.walk import functions
from ..pipeline.registry import Option, Pass, PassError, register
from ..report_attributes import KERNELS, append_to

MARKER_FILE = "tinyml.kernel"


@dataclass
class Kernel:
    """One numbered kernel: its number, the ONNX node names it computes, its
    kind (see `analysis.kernel_kind`) and its multiply-accumulates."""

    number: int
    names: list[str]
    kind: str
    macs: int

    def to_json(self) -> dict:
        return {"kernel": self.number, "names": self.names, "kind": self.kind,
                "macs": self.macs}


def _leaves(location: ir.Location) -> list[ir.Location]:
    """The locations a (possibly fused) location is made of."""
    if location.is_a_fused():
        return [leaf for inner in location.locations for leaf in _leaves(inner)]
    return [location]


# Locations are read from their printed form (see `ir.diagnostics.node_name`).
_MARKER = re.compile(r'loc\("' + re.escape(MARKER_FILE) + r'":(\d+):0\)\Z')


def _marker_number(location: ir.Location) -> int | None:
    match = _MARKER.match(str(location))
    return int(match.group(1)) if match else None


def is_marker(location: ir.Location) -> bool:
    """Whether `location` is a kernel number (`loc("tinyml.kernel":N:0)`)."""
    return _marker_number(location) is not None


def kernel_number(location: ir.Location) -> int | None:
    """The kernel number a location carries; None when it carries none, or
    several (an op an upstream pass merged from two kernels)."""
    numbers = {_marker_number(leaf) for leaf in _leaves(location)} - {None}
    return numbers.pop() if len(numbers) == 1 else None


def _member_locations(op: ir.Operation) -> list[ir.Location]:
    """The op's own location, or for a group its members' in order (the
    constants copied into the body and the yield are not members); for a
    copy without a name, also the location of its source's producer."""
    if op.name == "memref.copy" and not any(map(node_name, _leaves(op.location))):
        source = op.operands[0].owner
        return [op.location] + ([] if isinstance(source, ir.Block)
                                else [source.operation.location])
    if op.name != tm.FusedOp.OPERATION_NAME:
        return [op.location]
    return [inner.operation.location for inner in op.regions[0].blocks[0].operations
            if inner.operation.name.startswith("tinyml.")
            and inner.operation.name != tm.YieldOp.OPERATION_NAME]


def _is_kernel(op: ir.Operation) -> bool:
    return op.name.startswith("tinyml.") or op.name == "memref.copy" or _is_row_loop(op)


def _is_row_loop(op: ir.Operation) -> bool:
    return op.name == "scf.for" and bool(_nested_layers(op))


#: A layer in a row loop, with the branches (`scf.if`, and whether in its
#: `then` region) it is nested in: a line buffer's steps compute in branches
#: taken on some of the loop's iterations.
Nested = tuple[ir.Operation, list[tuple[ir.Operation, bool]]]


def _layers_in(block: ir.Block, branches: list[tuple[ir.Operation, bool]]) -> list[Nested]:
    found: list[Nested] = []
    for inner in block.operations:
        inner = inner.operation
        if inner.name.startswith("tinyml.") or inner.name == "linalg.generic":
            # linalg.generic: a frontend's own kernel (the integer LSTM's).
            found.append((inner, branches))
        elif inner.name == "scf.if":
            for region, taken in zip(inner.regions, (True, False)):
                for nested in region.blocks:
                    found += _layers_in(nested, branches + [(inner, taken)])
    return found


def _nested(loop: ir.Operation) -> list[Nested]:
    return _layers_in(loop.regions[0].blocks[0], [])


def _nested_layers(loop: ir.Operation) -> list[ir.Operation]:
    """The tinyml ops (groups and ops left alone) of a loop's body, those in
    its branches included."""
    return [layer for layer, _ in _nested(loop)]


_COMPARISONS = {0: lambda a, b: a == b, 1: lambda a, b: a != b, 2: lambda a, b: a < b,
                3: lambda a, b: a <= b, 4: lambda a, b: a > b, 5: lambda a, b: a >= b}
_ARITHMETIC = {"arith.addi": lambda a, b: a + b, "arith.subi": lambda a, b: a - b,
               "arith.muli": lambda a, b: a * b, "arith.andi": lambda a, b: a & b,
               "arith.ori": lambda a, b: a | b, "arith.xori": lambda a, b: a ^ b}


def _evaluate(value: ir.Value, induction: ir.Value, index: int) -> int | None:
    """`value` at the loop iteration whose induction variable is `index`,
    where it is integer arithmetic on that variable and constants (a line
    buffer's branch conditions); None otherwise."""
    if value == induction:
        return index
    owner = value.owner
    if isinstance(owner, ir.Block):
        return None
    op = owner.operation
    if op.name == "arith.constant":
        return constant_int(value)
    if op.name not in _ARITHMETIC and op.name != "arith.cmpi":
        return None
    a, b = (_evaluate(operand, induction, index) for operand in op.operands)
    if a is None or b is None:
        return None
    if op.name != "arith.cmpi":
        return _ARITHMETIC[op.name](a, b)
    predicate = ir.IntegerAttr(op.attributes["predicate"]).value
    if predicate >= 6:  # unsigned: slt..sge are 2..5, ult..uge 6..9
        a, b = a % (1 << 64), b % (1 << 64)
        predicate -= 4
    return int(_COMPARISONS[predicate](a, b))


def _executions(loop: ir.Operation, branches: list[tuple[ir.Operation, bool]]) -> int:
    """How many of the loop's iterations run a layer under `branches`: all
    of them where it is in none; else those whose conditions hold, where
    they can be evaluated (the trip count where not)."""
    bounds = analysis.loop_bounds(loop)
    if not branches or bounds is None:
        return analysis.trip_count(loop)
    induction = loop.regions[0].blocks[0].arguments[0]
    count = 0
    for index in range(*bounds):
        taken = [_evaluate(branch.operands[0], induction, index) for branch, _ in branches]
        if None in taken:
            return analysis.trip_count(loop)
        count += all(bool(value) == then for value, (_, then) in zip(taken, branches))
    return count


def _units(ops: list[ir.Operation]) -> list[list[ir.Operation]]:
    """The kernels among `ops`: one op each, or a chain of row loops (each
    carrying the result of the one before)."""
    units: list[list[ir.Operation]] = []
    for op in ops:
        if _is_row_loop(op) and units and _is_row_loop(units[-1][-1]) \
                and op.operands[3] == units[-1][-1].results[0]:
            units[-1].append(op)
        else:
            units.append([op])
    return units


def _describe(unit: list[ir.Operation]) -> tuple[list[ir.Location], str, int]:
    """(member locations, kind, MACs) of a kernel."""
    if not _is_row_loop(unit[0]):
        op = unit[0]
        return _member_locations(op), analysis.kernel_kind(op), analysis.group_macs(op)
    layers = _nested_layers(unit[0])
    members = [location for layer in layers for location in _member_locations(layer)]
    kind = "+".join(dict.fromkeys(analysis.kernel_kind(layer) for layer in layers))
    macs = sum(_executions(loop, branches) * analysis.group_macs(layer)
               for loop in unit for layer, branches in _nested(loop))
    return members, kind, macs


def _unmarked(location: ir.Location) -> list[ir.Location]:
    return [leaf for leaf in _leaves(location) if not is_marker(leaf)]


def _mark(location: ir.Location, number: int) -> ir.Location:
    return ir.Location.fused([ir.Location.file(MARKER_FILE, number, 0), *_unmarked(location)])


def _mark_nested(op: ir.Operation, number: int) -> None:
    def visit(inner):
        inner = inner.operation
        if inner != op:
            inner.location = _mark(inner.location, number)
        return ir.WalkResult.ADVANCE

    op.walk(visit, ir.WalkOrder.PRE_ORDER)


#: The largest kernel number: a location's line, which the bindings take as
#: a C int.
MAX_KERNEL_NUMBER = (1 << 31) - 1


@register
class NumberKernels(Pass):
    name = "tinyml-number-kernels"
    summary = "Number each top-level tinyml op (a kernel) in its location, naming all its ONNX nodes"
    options = (
        Option("first", int, 1, "the number of a function's first kernel (line 0 of the "
                                "line table means code outside every kernel)", low=1,
               high=MAX_KERNEL_NUMBER),
    )
    # The options' values, set by `Pass.__init__`.
    first: int

    def apply(self, module):
        for func in functions(module):
            append_to(func, KERNELS, [kernel.to_json() for kernel in self.number(func)])

    def number(self, func: ir.Operation) -> list[Kernel]:
        kernels = []
        top = [op.operation for op in func.regions[0].blocks[0].operations]
        numbers = [kernel_number(op.location) for op in top]
        ops = [op for op, number in zip(top, numbers) if number is None and _is_kernel(op)]
        last = max((n for n in numbers if n is not None), default=self.first - 1)
        units = _units(ops)
        if last + len(units) > MAX_KERNEL_NUMBER:
            raise PassError(f"{len(units)} kernels numbered after {last} would run past "
                            f"{MAX_KERNEL_NUMBER}, the largest number a location's line "
                            "holds", func.location)
        for number, unit in enumerate(units, start=last + 1):
            locations, kind, macs = _describe(unit)
            members = [leaf for location in locations for leaf in _unmarked(location)]
            names = list(dict.fromkeys(filter(None, map(node_name, members))))
            kernels.append(Kernel(number, names, kind, macs))
            for op in unit:
                _mark_nested(op, number)
                op.location = ir.Location.fused([ir.Location.file(MARKER_FILE, number, 0),
                                                 *members])
        return kernels
