"""TFLite's WHILE as a loop of known trip count: an `scf.for` whose body is
the body subgraph, imported operator by operator like the main one.

Converters write a recurrent layer as a WHILE (Keras 3's LSTM and GRU,
Keras 2's GRU: TFLite has no GRU operator). Its loop-carried values are of
three kinds, told apart by what the body does with each:
- counters: int32 scalars that start from a constant and that the body
  steps by a constant (the iteration number and the time index);
- invariants, which the body passes through unchanged (the input sequence);
- state: the rest (h, c, the output tensor array).
The condition may read only counters and constants, so the trip count is
found at compile time by running it (numpy) on the counters' values; a loop
whose condition reads anything else is refused. Each state is an `scf.for`
iter_arg written over itself (`materialize_in_destination`), as the ONNX
LSTM's is (`onnx/recurrent.py`); an invariant is the value from outside.

In the body a counter is `base + coef * k` of the loop's iteration k
(`Affine`, over arrays): the integer operators that compute offsets from it
(ADD, RESHAPE, CONCATENATION, ...) fold on base and coef alike. Two data
operators read one at run time:
- GATHER at a counter: the step's row of the sequence, a
  `tensor.extract_slice` at a dynamic offset;
- the tensor-array write as the converter lowers it: CONCATENATION of
  SLICE(a, 0, i), the new row and SLICE(a, i + 1, to the end), which is
  `tensor.insert_slice` of the row into `a` at i.
Anything else that reads a counter at run time is refused, naming it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from mlir import ir
from mlir.dialects import arith, bufferization, scf, tensor

from ...conversion.linalg_builders import int_constant
from ..onnx.importer import Const, shape_text
from ..onnx.recurrent import fresh_copy, slice_at
from .importer import TfliteImporter, handles
from .operators import moved_as_stored
from .reader import Operator, Subgraph
from .shape_folding import INTEGER_TYPES, evaluate

#: The longest loop tinyml unrolls its condition for, in iterations.
MAX_TRIPS = 1 << 16

#: The condition's operators beyond the shape computations.
_CONDITIONS = {"LESS": np.less, "LESS_EQUAL": np.less_equal, "GREATER": np.greater,
               "GREATER_EQUAL": np.greater_equal, "EQUAL": np.equal,
               "NOT_EQUAL": np.not_equal, "LOGICAL_AND": np.logical_and,
               "LOGICAL_OR": np.logical_or}

#: Integer operators linear in every input (ADD, SUB, the moves), or only
#: in their first (the rest are indices and shapes, which must be constant).
_LINEAR_IN_ALL = ("ADD", "SUB", "PACK", "CONCATENATION")
_LINEAR_IN_FIRST = ("RESHAPE", "SQUEEZE", "EXPAND_DIMS", "CAST", "STRIDED_SLICE", "GATHER")


@dataclass(frozen=True)
class Affine:
    """An integer tensor whose value at iteration k is `base + coef * k`."""
    base: np.ndarray
    coef: np.ndarray

    @staticmethod
    def constant(value) -> Affine:
        array = np.asarray(value, np.int64)
        return Affine(array, np.zeros_like(array))

    def at(self, k: int) -> np.ndarray:
        return self.base + self.coef * k

    def shifted(self, by: int) -> Affine:
        return Affine(self.base + by, self.coef)

    def negated(self) -> Affine:
        return Affine(-self.base, -self.coef)

    def __eq__(self, other) -> bool:
        return isinstance(other, Affine) and np.array_equal(self.base, other.base) \
            and np.array_equal(self.coef, other.coef)


@dataclass
class Window:
    """SLICE(source, begin, size) of a loop-carried tensor at offsets that
    move with the loop: kept until the CONCATENATION that reassembles the
    tensor around a new row reads it (size -1: to the end)."""
    source: int
    begin: Affine
    size: Affine


@dataclass
class Loop:
    """What a WHILE's positions are: counter (position -> its Affine over
    the iterations), invariant, or state."""
    counters: dict[int, Affine]
    invariants: list[int]
    state: list[int]
    trips: int


@handles("WHILE")
def _while(im: TfliteImporter, op: Operator) -> tuple[list, bool]:
    cond = im.subgraphs[int(op.options["CondSubgraphIndex"])]
    body = im.subgraphs[int(op.options["BodySubgraphIndex"])]
    if {cond.index, body.index} & im.active:
        raise im.fail(f"runs subgraph {body.index} within itself (recursion)")
    _check_signature(im, op, cond, body)
    loop = _classify(im, op, body)
    loop.trips = _trip_count(im, cond, loop.counters)
    index = ir.IndexType.get()
    initial = [_initial_state(im, op.inputs[p]) for p in loop.state]
    for_op = scf.ForOp(arith.constant(index, 0), arith.constant(index, loop.trips),
                       arith.constant(index, 1), initial, loc=im.loc)
    with ir.InsertionPoint(for_op.body):
        step = LoopBody(im, body, loop.trips, for_op.induction_variable)
        for p, counter in loop.counters.items():
            step.affine[body.inputs[p]] = counter
        for p in loop.invariants:
            step.take(body.inputs[p], im, op.inputs[p])
        for p, carried in zip(loop.state, for_op.inner_iter_args):
            step.values[body.inputs[p]] = carried
        step.import_operators()
        step.where = f"{body.label}its outputs"
        new = [step.state_result(body.outputs[p], old)
               for p, old in zip(loop.state, for_op.inner_iter_args)]
        # Written over the old state: one buffer for the whole loop.
        scf.YieldOp([bufferization.MaterializeInDestinationOp(old.type, value, old).result
                     for value, old in zip(new, for_op.inner_iter_args)])
    for p, counter in loop.counters.items():
        out = im.tensors[op.outputs[p]]
        out.data = counter.at(loop.trips).astype(INTEGER_TYPES[out.type_name])
    for p in loop.invariants:
        im.take(op.outputs[p], im, op.inputs[p])
    for p, result in zip(loop.state, for_op.results):
        im.store(op.outputs[p], result, stored=True)
    return [], False


def _check_signature(im: TfliteImporter, op: Operator, cond: Subgraph,
                     body: Subgraph) -> None:
    """TFLM's WHILE checks: as many inputs as outputs, condition inputs and
    body inputs and outputs, each position one shape and type; one boolean
    condition."""
    count = len(op.inputs)
    lists = {"outputs": op.outputs, f"condition subgraph {cond.index}'s inputs": cond.inputs,
             f"body subgraph {body.index}'s inputs": body.inputs,
             f"body subgraph {body.index}'s outputs": body.outputs}
    for what, indices in lists.items():
        if len(indices) != count:
            raise im.fail(f"{count} inputs and {len(indices)} {what}; a WHILE takes as many")
    for p, index in enumerate(op.inputs):
        given = im.tensors[index]
        for graph, position in ((cond, cond.inputs[p]), (body, body.inputs[p]),
                                (body, body.outputs[p]), (None, op.outputs[p])):
            other = (graph.tensors if graph else im.tensors)[position]
            if (other.shape, other.type_name) != (given.shape, given.type_name):
                raise im.fail(f"loop value {p} is {given.type_name} {shape_text(given.shape)} "
                              f"and '{other.name}' {other.type_name} "
                              f"{shape_text(other.shape)}; each loop value keeps one shape "
                              "and type")
    if len(cond.outputs) != 1 or cond.tensors[cond.outputs[0]].type_name != "BOOL" \
            or int(np.prod(cond.tensors[cond.outputs[0]].shape)) != 1:
        raise im.fail(f"its condition subgraph {cond.index} must compute one boolean")


def _classify(im: TfliteImporter, op: Operator, body: Subgraph) -> Loop:
    loop = Loop({}, [], [], 0)
    for p, index in enumerate(op.inputs):
        start = im.tensors[index]
        step = _step(body, p)
        if body.outputs[p] == body.inputs[p]:
            loop.invariants.append(p)
        elif step is not None and start.data is not None and start.data.size == 1 \
                and start.type_name == "INT32":
            loop.counters[p] = Affine(np.asarray(int(start.data.reshape(-1)[0]), np.int64),
                                      np.asarray(step, np.int64))
        elif start.type_name in ("FLOAT32", "INT8"):
            loop.state.append(p)
        else:
            raise im.fail(f"loop value {p} ('{start.name}') is {start.type_name} and neither "
                          "a counter (a constant the body steps by a constant) nor passed "
                          "through; only float32 and int8 tensors may change in the loop")
    return loop


def _step(body: Subgraph, p: int) -> int | None:
    """What the body adds to loop value `p`, when its next value is an ADD
    of it and an int32 constant."""
    for op in body.operators:
        if op.kind != "ADD" or op.outputs != [body.outputs[p]] or len(op.inputs) != 2:
            continue
        for mine, other in (op.inputs, op.inputs[::-1]):
            step = body.tensors[other]
            if mine == body.inputs[p] and step.data is not None and step.data.size == 1 \
                    and step.type_name == "INT32":
                return int(step.data.reshape(-1)[0])
    return None


def _trip_count(im: TfliteImporter, cond: Subgraph, counters: dict[int, Affine]) -> int:
    """The first iteration at which the condition is false, the condition
    run on the counters' values."""
    for k in range(MAX_TRIPS + 1):
        values = {cond.inputs[p]: counter.at(k) for p, counter in counters.items()}
        for cond_op in cond.operators:
            args = []
            for index in cond_op.inputs:
                tensor = cond.tensors[index]
                if index not in values and tensor.data is None:
                    raise im.fail(f"its condition reads '{tensor.name}', which the loop "
                                  "computes; only a loop whose trip count is known at compile "
                                  "time (a condition on counters) is supported")
                args.append(values[index] if index in values else tensor.data)
            values[cond_op.outputs[0]] = _condition_step(im, cond, cond_op, args)
        if not bool(np.asarray(values[cond.outputs[0]]).reshape(-1)[0]):
            return k
    raise im.fail(f"does not end within {MAX_TRIPS} iterations")


def _condition_step(im: TfliteImporter, cond: Subgraph, op: Operator, args) -> np.ndarray:
    where = f"its condition subgraph {cond.index}, operator {op.index} ({op.kind})"
    try:
        if op.kind in _CONDITIONS:
            return _CONDITIONS[op.kind](args[0], args[1])
        if op.kind == "LOGICAL_NOT":
            return np.logical_not(args[0])
        value = evaluate(op, args, cond.tensors[op.outputs[0]].shape)
    except (ValueError, IndexError, TypeError, ZeroDivisionError) as error:
        raise im.fail(f"{where}: cannot evaluate: {error}") from None
    if value is None:
        raise im.fail(f"{where}: is not supported in a loop condition")
    return value


def _initial_state(im: TfliteImporter, index: int) -> ir.Value:
    """A state's value before the loop, in a buffer of its own (the loop
    writes over it): as stored (int8 stays int8)."""
    source = im.tensors[index]
    if source.data is None:
        return fresh_copy(im.values[index])
    if source.type_name == "FLOAT32":
        return im.tensor(Const(source.data.astype(np.float32)))
    return int_constant(source.data, 8)


class LoopBody(TfliteImporter):
    """The importer of a WHILE's body subgraph, built at the `scf.for`
    body: counters are `Affine` (folded at import), the step's row of a
    sequence a slice at the induction variable."""

    def __init__(self, parent: TfliteImporter, body: Subgraph, trips: int,
                 iteration: ir.Value):
        super().__init__(parent.filename, parent.func_name, parent.subgraphs, parent.batch,
                         body.index)
        self.active = parent.active | {body.index}
        self.trips = trips
        self.iteration = iteration
        self.affine: dict[int, Affine] = {}
        self.windows: dict[int, Window] = {}

    def computed(self, index: int) -> bool:
        return super().computed(index) or index in self.affine or index in self.windows

    def convert(self, operator: Operator) -> None:
        reads = [i for i in operator.inputs if i in self.affine or i in self.windows]
        if self._fold_counters(operator):
            return
        if operator.kind == "GATHER" and operator.inputs[1] in self.affine:
            self._gather_row(operator)
        elif operator.kind == "SLICE" and operator.inputs[0] in self.values \
                and any(i in self.affine for i in operator.inputs[1:]):
            self._window(operator)
        elif operator.kind == "CONCATENATION" and any(i in self.windows
                                                       for i in operator.inputs):
            self._row_write(operator)
        elif reads:
            raise self.fail(f"reads '{self.tensors[reads[0]].name}', computed from the loop's "
                            f"counters, in a way tinyml does not compute")
        else:
            super().convert(operator)

    def state_result(self, index: int, old: ir.Value) -> ir.Value:
        """The body's output `index` as the state's next value."""
        source = self.tensors[index]
        if source.data is not None:
            value = _initial_state(self, index)
        elif index in self.values:
            value = self.values[index]
        else:
            raise self.fail(f"'{source.name}' is computed from the loop's counters; a loop "
                            "value that changes must be a float32 or int8 tensor")
        if value.type != old.type:
            raise self.fail(f"'{source.name}' is {value.type}, the loop value {old.type}")
        return value

    # -- the loop's counters -------------------------------------------------

    def _affine(self, index: int) -> Affine:
        return self.affine[index] if index in self.affine \
            else Affine.constant(self.tensors[index].data)

    def _fold_counters(self, op: Operator) -> bool:
        """An integer operator on a counter, folded on the counter's base
        and coefficient; whether it was one."""
        out = self.tensors[op.outputs[0]] if len(op.outputs) == 1 else None
        if out is None or out.type_name not in INTEGER_TYPES \
                or not any(i in self.affine for i in op.inputs):
            return False
        args = [self._affine(i) for i in op.inputs]
        linear = range(len(args)) if op.kind in _LINEAR_IN_ALL else \
            range(1) if op.kind in _LINEAR_IN_FIRST else ()
        if op.kind == "MUL" and (args[0].coef.any() != args[1].coef.any()):
            constant = args[1] if args[0].coef.any() else args[0]
            moving = args[0] if args[0].coef.any() else args[1]
            result = Affine(moving.base * constant.base, moving.coef * constant.base)
        elif linear and not any(a.coef.any() for p, a in enumerate(args) if p not in linear):
            coefs = [a.coef if p in linear else a.base for p, a in enumerate(args)]
            try:
                base = evaluate(op, [a.base for a in args], out.shape)
                coef = evaluate(op, coefs, out.shape)
            except (ValueError, IndexError, TypeError) as error:
                raise self.fail(f"cannot evaluate the counter computation: {error}") from None
            assert base is not None and coef is not None, "a folded kind"
            result = Affine(np.asarray(base, np.int64), np.asarray(coef, np.int64))
        else:
            raise self.fail("computes with the loop's counters in a way tinyml does not "
                            "fold (only sums, products by constants and moves)")
        if result.base.shape != tuple(out.shape):
            raise self.fail(f"output '{out.name}' has shape {shape_text(out.shape)}, the "
                            f"counter computation gives {shape_text(result.base.shape)}")
        self.affine[op.outputs[0]] = result
        return True

    def _offset(self, counter: Affine, what: str, low: int, high: int) -> ir.Value:
        """A scalar counter as an index value, checked within [low, high]
        on every iteration."""
        if counter.base.size != 1:
            raise self.fail(f"{what} must be a scalar, got {shape_text(counter.base.shape)}")
        base, coef = int(counter.base.reshape(-1)[0]), int(counter.coef.reshape(-1)[0])
        ends = [base, base + coef * max(self.trips - 1, 0)]
        if min(ends) < low or max(ends) > high:
            raise self.fail(f"{what} runs from {ends[0]} to {ends[1]} over the loop's "
                            f"{self.trips} iterations, outside [{low}, {high}]")
        index = ir.IndexType.get()
        value = self.iteration
        if coef != 1:
            value = arith.muli(value, arith.constant(index, coef))
        if base:
            value = arith.addi(value, arith.constant(index, base))
        return value

    # -- data operators reading a counter -------------------------------------

    def _gather_row(self, op: Operator) -> None:
        """GATHER at a counter: one slice of the data at the counter's
        offset along the axis, that axis dropped."""
        stored = moved_as_stored(self, op)
        x = self.values[op.inputs[0]] if stored else self.tensor(self.input(0))
        shape = list(self.shape(x))
        axis = int(op.options.get("Axis", 0))
        if op.options.get("BatchDims", 0) or not -len(shape) <= axis < len(shape):
            raise self.fail(f"axis {axis} (batch dimensions {op.options.get('BatchDims', 0)}) "
                            f"does not gather from {shape_text(shape)}")
        axis %= len(shape)
        offset = self._offset(self.affine[op.inputs[1]], "its index", 0, shape[axis] - 1)
        assert self.loc is not None, "set while an operator is imported"
        with self.loc:
            row = slice_at(x, axis, offset)
        self.store(op.outputs[0], row, stored)

    def _window(self, op: Operator) -> None:
        begin, size = self._affine(op.inputs[1]), self._affine(op.inputs[2])
        rank = len(self.tensors[op.inputs[0]].shape)
        if begin.base.shape != (rank,) or size.base.shape != (rank,):
            raise self.fail(f"begin and size must have {rank} elements")
        self.windows[op.outputs[0]] = Window(op.inputs[0], begin, size)

    def _row_write(self, op: Operator) -> None:
        """CONCATENATION of the parts of a tensor before and after a moving
        row, and a new row between them: the tensor with the row written
        (TFLite's lowering of a tensor-list write)."""
        refusal = self.fail("joins slices taken at the loop's counters in a way tinyml does "
                            "not compute (only a row written between the rows before and "
                            "after it)")
        parts = op.inputs
        rows = [n for n, i in enumerate(parts) if i not in self.windows]
        sources = {self.windows[i].source for i in parts if i in self.windows}
        if len(rows) != 1 or len(sources) != 1 or op.options.get("FusedActivationFunction") \
                or parts[rows[0]] not in self.values:
            raise refusal
        head = self.windows[parts[0]] if rows[0] == 1 else None
        tail = self.windows[parts[-1]] if rows[0] == len(parts) - 2 else None
        target = sources.pop()
        shape = list(self.tensors[target].shape)
        rank = len(shape)
        axis = int(op.options.get("Axis", 0))
        row = self.values[parts[rows[0]]]
        row_shape = list(self.shape(row))
        if len(parts) != 1 + (head is not None) + (tail is not None) \
                or not -rank <= axis < rank or len(row_shape) != rank:
            raise refusal
        axis %= rank
        length = row_shape[axis]
        offset = _component(head.size, axis) if head is not None else Affine.constant(0)
        end = offset.shifted(length)
        if any(r != d for a, (r, d) in enumerate(zip(row_shape, shape)) if a != axis) \
                or head is not None and not _spans(head, axis, shape, Affine.constant(0),
                                                   [offset]) \
                or tail is not None and not _spans(tail, axis, shape, end, [
                    Affine.constant(-1), end.negated().shifted(shape[axis])]) \
                or tail is None and end != Affine.constant(shape[axis]):
            raise refusal
        target_value = self.values[target]
        if row.type != ir.RankedTensorType.get(row_shape, ir.RankedTensorType(
                target_value.type).element_type) \
                or self.tensors[target].quantization != self.tensors[op.outputs[0]].quantization:
            raise self.fail("writes a row of another type or quantization than the tensor's")
        at = self._offset(offset, "the row written", 0, shape[axis] - length)
        dynamic = ir.ShapedType.get_dynamic_stride_or_offset()
        written = tensor.InsertSliceOp(
            row, target_value, [at], [], [], [dynamic if a == axis else 0 for a in range(rank)],
            row_shape, [1] * rank, loc=self.loc).result
        self.store(op.outputs[0], written, stored=True)

def _component(value: Affine, axis: int) -> Affine:
    """Element `axis` of a vector."""
    return Affine(value.base.reshape(-1)[axis], value.coef.reshape(-1)[axis])


def _spans(window: Window, axis: int, shape: list[int], begin: Affine,
           sizes: list[Affine]) -> bool:
    """Whether `window` starts at `begin` along `axis`, with one of `sizes`
    there, and spans every other dimension whole."""
    return all(_component(window.begin, a) == (begin if a == axis else Affine.constant(0))
               and _component(window.size, a) in (sizes if a == axis else [
                   Affine.constant(d), Affine.constant(-1)])
               for a, d in enumerate(shape))
