"""LSTM and GRU: each direction is a time loop, an `scf.for` over the
sequence whose body is one step of the cell in tinyml ops, so that fusion
makes kernels of it like of any other graph.

Each gate is the step's input row through the gate's input weights (and
bias), plus the hidden state through its recurrent weights, through its
activation: the projection is computed in the step, as TFLM does, so the
arena holds one step's gates, never the whole sequence projected. The new
state is written over the old (`bufferization.materialize_in_destination`),
so the state lives in one buffer for the whole sequence; the output
sequence, when a node reads it, is the loop's third carried tensor, one
row per step.

The cells are ONNX's (onnx.ai/onnx/operators/onnx__LSTM.html,
onnx__GRU.html), gates in ONNX's order (LSTM i, o, f, c; GRU z, r, h), with
their default activations: those PyTorch and tf2onnx export. Peepholes,
`clip`, `input_forget`, other activations and sequence lengths shorter than
the sequence are refused.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
from mlir import ir
from mlir.dialects import arith, bufferization, scf, tensor

from ...dialects import tinyml as tm
from .importer import Const, Importer, Value, handles, shape_text

#: The activations each cell computes, as ONNX names them (per direction).
DEFAULT_ACTIVATIONS = {"LSTM": ["Sigmoid", "Tanh", "Tanh"], "GRU": ["Sigmoid", "Tanh"]}
#: Gates per cell, in ONNX's order of the weights' rows.
GATES = {"LSTM": 4, "GRU": 3}


@dataclass
class Direction:
    """One direction's weights, split per gate: `inputs[g]` [I, H] and
    `recurrent[g]` [H, H] (already transposed for `x @ w`), the input
    biases `input_bias[g]` and recurrent biases `recurrent_bias[g]` [H]
    (None: none, TFLite's one bias per gate is an input bias)."""
    inputs: list[np.ndarray]
    recurrent: list[np.ndarray]
    input_bias: list[np.ndarray]
    recurrent_bias: list[np.ndarray | None]
    reverse: bool


class Step:
    """The ops of one time step, built at the loop body's insertion point:
    a little algebra over [B, H] tensors that reads like the cell's math.
    `x` is the step's input row [B, I], `w` the direction's weights."""

    def __init__(self, im: Importer, shape: tuple[int, int], x: ir.Value, w: Direction):
        self.im, self.shape, self.x, self.w = im, shape, x, w

    def gate(self, g: int, h: ir.Value) -> ir.Value:
        """`x W_g + b_g + h R_g (+ Rb_g)`: gate g's pre-activation."""
        return self.add(self.recurrence(g, h), self.projection(g))

    def projection(self, g: int) -> ir.Value:
        """The step's input through gate g's input weights and bias."""
        return self.matmul(self.x, self.w.inputs[g], self.w.input_bias[g])

    def recurrence(self, g: int, h: ir.Value) -> ir.Value:
        """`h` through gate g's recurrent weights (and bias)."""
        return self.matmul(h, self.w.recurrent[g], self.w.recurrent_bias[g])

    def matmul(self, x: ir.Value, weights: np.ndarray, bias: np.ndarray | None):
        return self.im.emit(tm.MatmulOp, self.shape, [x, Const(weights),
                                                      None if bias is None else Const(bias)])

    def add(self, a, b):
        return self.im.emit(tm.AddOp, self.shape, [a, b])

    def sub(self, a, b):
        return self.im.emit(tm.SubOp, self.shape, [a, b])

    def mul(self, a, b):
        return self.im.emit(tm.MulOp, self.shape, [a, b])

    def sigmoid(self, x):
        return self.im.emit(tm.SigmoidOp, self.shape, [x])

    def tanh(self, x):
        return self.im.emit(tm.TanhOp, self.shape, [x])

    def clamp(self, x, bound: float):
        return self.im.emit(tm.ClampOp, self.shape, [x], min=-bound, max=bound)


def lstm_cell(cell_clip: float = 0.0) -> Callable[..., list[ir.Value]]:
    def cell(step: Step, h: ir.Value, c: ir.Value) -> list[ir.Value]:
        """i, o, f = sigmoid(x W + b + h R + Rb), c~ = tanh(x W + b + h R + Rb);
        c' = f c + i c~ (within +-`cell_clip`, TFLite's, when it is
        positive), h' = o tanh(c')."""
        i, o, f = (step.sigmoid(step.gate(g, h)) for g in range(3))
        c_next = step.add(step.mul(f, c), step.mul(i, step.tanh(step.gate(3, h))))
        if cell_clip > 0:
            c_next = step.clamp(c_next, cell_clip)
        return [step.mul(o, step.tanh(c_next)), c_next]
    return cell


def gru_cell(linear_before_reset: bool) -> Callable[..., list[ir.Value]]:
    def cell(step: Step, h: ir.Value) -> list[ir.Value]:
        """z, r = sigmoid(x W + b + h R + Rb); n = tanh(x W + b + r (h R + Rb))
        with `linear_before_reset`, else tanh(x W + b + (r h) R + Rb);
        h' = (1 - z) n + z h = n + z (h - n)."""
        z, r = (step.sigmoid(step.gate(g, h)) for g in range(2))
        if linear_before_reset:
            n = step.tanh(step.add(step.mul(r, step.recurrence(2, h)), step.projection(2)))
        else:
            n = step.tanh(step.gate(2, step.mul(r, h)))
        return [step.add(n, step.mul(z, step.sub(h, n)))]
    return cell


@handles("LSTM")
def _lstm(im: Importer, node) -> list:
    if im.has_input(7) and np.any(im.const(7, "the peephole weights P")):
        raise im.fail("has peephole weights (P); only LSTMs without peepholes are supported")
    if int(im.attr("input_forget", 0)):
        raise im.fail("couples the input and forget gates (input_forget=1); not supported")
    return recurrent(im, "LSTM", lstm_cell())


@handles("GRU")
def _gru(im: Importer, node) -> list:
    return recurrent(im, "GRU", gru_cell(bool(im.attr("linear_before_reset", 0))))


def recurrent(im: Importer, op: str, cell: Callable[..., list[ir.Value]]) -> list:
    """Outputs Y, Y_h (and for an LSTM Y_c) of the current node: a time
    loop per direction, their results stacked along the direction axis."""
    x = im.arg(0)
    x_shape = im.shape(x)
    if len(x_shape) != 3:
        raise im.fail(f"input X must be 3-D, got {shape_text(x_shape)}")
    layout = int(im.attr("layout", 0))
    if layout not in (0, 1):
        raise im.fail(f"layout {layout} is neither 0 nor 1")
    if layout:
        x = im.transpose(x, (1, 0, 2))
    steps, batch, size = im.shape(x)
    hidden = int(im.attr("hidden_size", 0))
    direction = im.attr("direction", "forward")
    if direction not in ("forward", "reverse", "bidirectional"):
        raise im.fail(f"direction '{direction}' is not forward, reverse or bidirectional")
    directions = 2 if direction == "bidirectional" else 1
    _check_cell_attributes(im, op, directions)
    _check_sequence_lengths(im, steps, batch)
    gates = GATES[op]
    w, r = im.const(1, "the input weights W"), im.const(2, "the recurrent weights R")
    b = im.const(3, "the biases B", optional=True)
    if hidden < 1 or w.shape != (directions, gates * hidden, size) \
            or r.shape != (directions, gates * hidden, hidden):
        raise im.fail(f"W {shape_text(w.shape)} and R {shape_text(r.shape)} do not match "
                      f"{directions} direction(s) of {gates} gates of hidden_size {hidden} "
                      f"over inputs of {size}")
    if b is None:
        b = np.zeros((directions, 2 * gates * hidden), np.float32)
    elif b.shape != (directions, 2 * gates * hidden):
        raise im.fail(f"B {shape_text(b.shape)} is not [{directions}, {2 * gates * hidden}]")
    states = [_initial_state(im, 5 + k, directions, batch, hidden)
              for k in range(2 if op == "LSTM" else 1)]
    wants_sequence = bool(im.consumers[im.current_node.output[0]])
    weights = [_split(w[d], r[d], b[d], gates, hidden, reverse=direction == "reverse" or d == 1)
               for d in range(directions)]
    per_direction = sequence_layer(im, cell, x, weights, states, wants_sequence)
    outputs = []
    if wants_sequence:
        sequence = _stack(im, [im.reshape(results[-1], (steps, 1, batch, hidden))
                               for results in per_direction], axis=1)
        outputs.append(im.transpose(sequence, (2, 0, 1, 3)) if layout else sequence)
    else:
        outputs.append(None)
    for k in range(len(states)):
        final = _stack(im, [im.reshape(results[k], (1, batch, hidden))
                            for results in per_direction], axis=0)
        outputs.append(im.transpose(final, (1, 0, 2)) if layout else final)
    return outputs


def sequence_layer(im: Importer, cell: Callable[..., list[ir.Value]], x: Value,
                   directions: list[Direction], states: list[list[Value]],
                   wants_sequence: bool) -> list[list[ir.Value]]:
    """The time loop of each direction over `x` [T, B, I] (time first),
    each of `states` (one per direction) its initial state: per direction,
    the final states and, with `wants_sequence`, the output sequence
    [T, B, H]. Shared with the TFLite frontend."""
    x = im.tensor(x)
    _, batch, _ = im.shape(x)
    results = []
    for d, weights in enumerate(directions):
        hidden = weights.recurrent[0].shape[0]

        def step(row: ir.Value, *state: ir.Value, weights: Direction = weights) -> list[ir.Value]:
            return cell(Step(im, (batch, hidden), row, weights), *state)
        initial = [fresh_copy(im.tensor(s[d])) if isinstance(s[d], ir.Value)
                   else im.tensor(s[d]) for s in states]
        results.append(time_loop(x, initial, step, weights.reverse, wants_sequence))
    return results


def _check_cell_attributes(im: Importer, op: str, directions: int) -> None:
    activations = im.attr("activations")
    if activations is not None:
        names = [a.decode() if isinstance(a, bytes) else str(a) for a in activations]
        if [n.lower() for n in names] != [n.lower() for n in DEFAULT_ACTIVATIONS[op] * directions]:
            raise im.fail(f"activations {names}; only the defaults "
                          f"{DEFAULT_ACTIVATIONS[op]} per direction are supported")
    if im.attr("clip") is not None:
        raise im.fail("clips the cell (clip attribute); not supported")


def _check_sequence_lengths(im: Importer, steps: int, batch: int) -> None:
    """A `sequence_lens` input must be the whole sequence for every batch
    row (a shorter one stops that row early, which the loop does not)."""
    if not im.has_input(4):
        return
    lengths = im.int_const(4, "sequence_lens")
    if lengths.shape != (batch,) or np.any(lengths != steps):
        raise im.fail(f"sequence_lens {lengths.tolist()} is not the sequence length {steps} "
                      f"for each of {batch} batch rows; only whole sequences are supported")


def _initial_state(im: Importer, index: int, directions: int, batch: int,
                   hidden: int) -> list[Value]:
    """The initial hidden (or cell) state of each direction, [B, H]: the
    node's input `index`, or zeros."""
    if not im.has_input(index):
        return [Const(np.zeros((batch, hidden), np.float32))] * directions
    state = im.arg(index)
    if im.shape(state) != (directions, batch, hidden):
        raise im.fail(f"initial state {shape_text(im.shape(state))} is not "
                      f"[{directions}, {batch}, {hidden}]")
    if isinstance(state, Const):
        return [Const(state.array[d]) for d in range(directions)]
    return [im.reshape(im.slice(state, (d, 0, 0), (1, batch, hidden), (1, 1, 1)),
                       (batch, hidden)) for d in range(directions)]


def _split(w: np.ndarray, r: np.ndarray, b: np.ndarray, gates: int, hidden: int,
           reverse: bool) -> Direction:
    rows = [slice(g * hidden, (g + 1) * hidden) for g in range(gates)]
    input_bias, recurrent_bias = b[:gates * hidden], b[gates * hidden:]
    return Direction(inputs=[np.ascontiguousarray(w[s].T) for s in rows],
                     recurrent=[np.ascontiguousarray(r[s].T) for s in rows],
                     input_bias=[input_bias[s] for s in rows],
                     recurrent_bias=[recurrent_bias[s] for s in rows], reverse=reverse)


def time_loop(x: ir.Value, initial: list[ir.Value], step: Callable[..., list[ir.Value]],
              reverse: bool, wants_sequence: bool) -> list[ir.Value]:
    """The loop over the steps of `x` [T, B, I]: `step(row, *state)` gives
    each step's new state from its input row [B, I], the first state the
    output; the results are the final states and, with `wants_sequence`,
    the output sequence [T, B, H] (of the first state's type)."""
    steps = ir.RankedTensorType(x.type).shape[0]
    index = ir.IndexType.get()
    # A constant state gets a buffer of its own to be written over: a loop
    # of one step folds away, and its state would be written in the
    # constant's read-only buffer.
    carried = [fresh_copy(v) if isinstance(v.owner, ir.OpView) and v.owner.name == "arith.constant"
               else v for v in initial]
    output_type = ir.RankedTensorType(initial[0].type)
    if wants_sequence:
        carried.append(bufferization.AllocTensorOp(ir.RankedTensorType.get(
            [steps, *output_type.shape], output_type.element_type), []).result)
    loop = scf.ForOp(arith.constant(index, 0), arith.constant(index, steps),
                     arith.constant(index, 1), carried)
    with ir.InsertionPoint(loop.body):
        t = loop.induction_variable
        if reverse:
            t = arith.subi(arith.constant(index, steps - 1), t)
        state = list(loop.inner_iter_args[:len(initial)])
        updated = step(_row(x, t), *state)
        # Written over the old state: one buffer for the whole sequence.
        results = [bufferization.MaterializeInDestinationOp(old.type, new, old).result
                   for new, old in zip(updated, state)]
        if wants_sequence:
            sequence = loop.inner_iter_args[-1]
            # The row written is the state as materialized (the value before
            # it would need a buffer of its own beside the state's).
            results.append(tensor.InsertSliceOp(
                results[0], sequence, [t], [], [],
                [ir.ShapedType.get_dynamic_stride_or_offset(), 0, 0],
                [1, *output_type.shape], [1, 1, 1]).result)
        scf.YieldOp(results)
    return list(loop.results)


def fresh_copy(state: ir.Value) -> ir.Value:
    """`state` copied into a buffer of its own (`alloc_tensor`, which,
    unlike `tensor.empty`, CSE never merges with another): the loop writes
    each step's state over the last, and an initial state given as the
    model's input is the caller's buffer, which the model only reads."""
    return bufferization.AllocTensorOp(state.type, [], copy=state).result


def _row(sequence: ir.Value, t: ir.Value) -> ir.Value:
    """sequence[t], [B, N] of a [T, B, N] sequence."""
    return slice_at(sequence, 0, t)


def slice_at(x: ir.Value, axis: int, offset: ir.Value) -> ir.Value:
    """x[..., offset, ...]: the slice at the run-time `offset` along `axis`,
    that axis dropped (a rank-reducing `tensor.extract_slice`)."""
    x_type = ir.RankedTensorType(x.type)
    sizes = [1 if a == axis else d for a, d in enumerate(x_type.shape)]
    dynamic = ir.ShapedType.get_dynamic_stride_or_offset()
    result = ir.RankedTensorType.get([d for a, d in enumerate(sizes) if a != axis],
                                     x_type.element_type)
    return tensor.ExtractSliceOp(result, x, [offset], [], [],
                                 [dynamic if a == axis else 0 for a in range(len(sizes))],
                                 sizes, [1] * len(sizes)).result


def _stack(im: Importer, values: list[Value], axis: int) -> Value:
    if len(values) == 1:
        return values[0]
    shape = list(im.shape(values[0]))
    shape[axis] *= len(values)
    return im.emit(tm.ConcatOp, shape, values, axis=axis)
