"""TFLite's integer LSTM: UNIDIRECTIONAL_SEQUENCE_LSTM with int8 input,
weights and hidden state and an int16 cell state (a Keras LSTM converted
fully integer), computed as TFLM computes it (micro/kernels/lstm_eval.h,
lstm_eval.cc and lstm_eval_common.cc):

- each gate is the step's input row and the hidden state through their
  int8 weights, each product requantized to int16 in Q3.12 (scale 2^-12)
  and the two added with saturation, then through sigmoid or tanh to
  Q0.15 (reference_integer_ops::Logistic and Tanh on int16: a 256-entry
  table of sigmoid(i/24), interpolated);
- the cell state, int16 of a power-of-two scale, is forget * cell +
  input * cell gate, each product requantized (MulElementwise) and the
  sum saturated, then clipped when the converter set a cell clip;
- the hidden state, int8, is tanh(cell) * output gate, requantized to its
  scale and zero point; it is the step's output.

None of this arithmetic (int16 values, tables) is a tinyml op's, so the
step is built here in linalg on integers, in the time loop the float LSTM
uses (`onnx/recurrent.py`)."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from mlir import ir
from mlir.dialects import arith, tensor

from ...conversion.linalg_builders import int_constant, int_scalar, int_type
from ...conversion.fixed_point_ops import apply_scale
from ..onnx.recurrent import fresh_copy, time_loop
from .integer_kernels import clamped, elementwise, product, saturated, widened
from .reader import Operator, Tensor

#: Q3.12, the scale of a gate's input to its sigmoid or tanh, and Q0.15,
#: the scale of their output (lstm_eval_common.cc).
GATE_SCALE = 2.0 ** -12
ACTIVATION_SCALE = 2.0 ** -15

#: sigmoid(i / 24) in 0.16 fixed point, i = 0..255: TFLite's
#: sigmoid_table_uint16 (tensorflow/lite/kernels/internal/common.h), which
#: its int16 sigmoid and tanh interpolate.
SIGMOID_TABLE = (
    32768, 33451, 34133, 34813, 35493, 36169, 36843, 37513, 38180, 38841, 39498,
    40149, 40794, 41432, 42064, 42688, 43304, 43912, 44511, 45102, 45683, 46255,
    46817, 47369, 47911, 48443, 48964, 49475, 49975, 50464, 50942, 51409, 51865,
    52311, 52745, 53169, 53581, 53983, 54374, 54755, 55125, 55485, 55834, 56174,
    56503, 56823, 57133, 57433, 57724, 58007, 58280, 58544, 58800, 59048, 59288,
    59519, 59743, 59959, 60168, 60370, 60565, 60753, 60935, 61110, 61279, 61441,
    61599, 61750, 61896, 62036, 62172, 62302, 62428, 62549, 62666, 62778, 62886,
    62990, 63090, 63186, 63279, 63368, 63454, 63536, 63615, 63691, 63765, 63835,
    63903, 63968, 64030, 64090, 64148, 64204, 64257, 64308, 64357, 64405, 64450,
    64494, 64536, 64576, 64614, 64652, 64687, 64721, 64754, 64786, 64816, 64845,
    64873, 64900, 64926, 64950, 64974, 64997, 65019, 65039, 65060, 65079, 65097,
    65115, 65132, 65149, 65164, 65179, 65194, 65208, 65221, 65234, 65246, 65258,
    65269, 65280, 65291, 65301, 65310, 65319, 65328, 65337, 65345, 65352, 65360,
    65367, 65374, 65381, 65387, 65393, 65399, 65404, 65410, 65415, 65420, 65425,
    65429, 65433, 65438, 65442, 65445, 65449, 65453, 65456, 65459, 65462, 65465,
    65468, 65471, 65474, 65476, 65479, 65481, 65483, 65485, 65488, 65489, 65491,
    65493, 65495, 65497, 65498, 65500, 65501, 65503, 65504, 65505, 65507, 65508,
    65509, 65510, 65511, 65512, 65513, 65514, 65515, 65516, 65517, 65517, 65518,
    65519, 65520, 65520, 65521, 65522, 65522, 65523, 65523, 65524, 65524, 65525,
    65525, 65526, 65526, 65526, 65527, 65527, 65528, 65528, 65528, 65529, 65529,
    65529, 65529, 65530, 65530, 65530, 65530, 65531, 65531, 65531, 65531, 65531,
    65532, 65532, 65532, 65532, 65532, 65532, 65533, 65533, 65533, 65533, 65533,
    65533, 65533, 65533, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534,
    65534, 65534, 65535)

INT16_MIN, INT16_MAX = -(1 << 15), (1 << 15) - 1


@dataclass
class Gate:
    """One gate's products as TFLM's FullyConnected computes them: int8
    weights [K, H] (transposed for `row @ w`), the bias with the operand's
    zero point folded in, and the requantization's real multiplier."""
    input_weights: np.ndarray
    input_bias: np.ndarray
    input_scale: float
    recurrent_weights: np.ndarray
    recurrent_bias: np.ndarray
    recurrent_scale: float


@dataclass
class Cell:
    """The cell's parameters: its gates (ONNX's order i, o, f, c), the
    cell state's scale as a power of two, its clip in cell-state units
    (None: none), and the hidden state's scale and zero point."""
    gates: list[Gate]
    cell_power: int
    quantized_clip: int | None
    hidden_scale: float
    hidden_zero_point: int


def integer_cell(fail, tensors: list[Tensor], op: Operator, gates_positions,
                 cell_clip: float) -> Cell:
    """The cell's parameters read from the operator's tensors (`fail(text)`
    makes the error naming it); refuses what TFLM does not compute."""
    x, hidden, cell = (tensors[op.inputs[p]] for p in (0, 18, 19))
    for tensor, kind in ((x, "INT8"), (hidden, "INT8"), (cell, "INT16")):
        q = tensor.quantization
        if tensor.type_name != kind or q is None or q.axis is not None:
            raise fail(f"'{tensor.name}' is {tensor.type_name}; an integer LSTM takes an int8 "
                       "input and hidden state and an int16 cell state, each of one scale")
    assert x.quantization and hidden.quantization and cell.quantization, "checked above"
    cell_scale = float(cell.quantization.scales[0])
    cell_power = round(math.log2(cell_scale))
    if 2.0 ** cell_power != cell_scale or int(cell.quantization.zero_points[0]):
        raise fail(f"the cell state's scale {cell_scale:g} is not a power of two with zero "
                   "point 0, which TFLM's integer LSTM needs")
    x_scale, x_zero = float(x.quantization.scales[0]), int(x.quantization.zero_points[0])
    h_scale, h_zero = (float(hidden.quantization.scales[0]),
                       int(hidden.quantization.zero_points[0]))
    gates = []
    for w_position, r_position, b_position in gates_positions:
        w, r, b = (tensors[op.inputs[p]] for p in (w_position, r_position, b_position))
        for weights in (w, r):
            q = weights.quantization
            if weights.type_name != "INT8" or weights.data is None or q is None \
                    or q.axis is not None or int(q.zero_points[0]):
                raise fail(f"weights '{weights.name}' must be constant int8 of one scale and "
                           "zero point 0")
        if b.type_name != "INT32" or b.data is None:
            raise fail(f"bias '{b.name}' must be a constant int32 tensor")
        assert w.data is not None and r.data is not None and b.data is not None, "checked"
        assert w.quantization and r.quantization, "checked"
        w_data, r_data = w.data.astype(np.int64), r.data.astype(np.int64)
        gates.append(Gate(
            input_weights=np.ascontiguousarray(w.data.T),
            input_bias=b.data.astype(np.int64) - x_zero * w_data.sum(axis=1),
            input_scale=x_scale * float(w.quantization.scales[0]) / GATE_SCALE,
            recurrent_weights=np.ascontiguousarray(r.data.T),
            recurrent_bias=-h_zero * r_data.sum(axis=1),
            recurrent_scale=h_scale * float(r.quantization.scales[0]) / GATE_SCALE))
    # static_cast<int16_t> of the clamped quotient: truncated.
    clip = int(min(max(cell_clip / cell_scale, INT16_MIN), INT16_MAX)) if cell_clip > 0 else None
    return Cell(gates, cell_power, clip, h_scale, h_zero)


def integer_lstm(x: ir.Value, cell: Cell,
                 states: list[ir.Value | None]) -> list[ir.Value]:
    """The final hidden and cell states [B, H] and the output sequence [T,
    B, H] (int8) of the LSTM over `x` [T, B, I] (int8). Each state starts
    from the caller's (`states`, a streaming model's), or where that is
    None from real zero, as TFLM resets its variables before the first
    invocation (an int8 one to its zero point, micro_interpreter_graph.cc
    ResetTensorData)."""
    _, batch, _ = ir.RankedTensorType(x.type).shape
    hidden = cell.gates[0].recurrent_weights.shape[0]
    resets = [int_constant(np.full((batch, hidden), cell.hidden_zero_point, np.int8), 8),
              int_constant(np.zeros((batch, hidden), np.int16), 16)]
    initial = [reset if state is None else fresh_copy(state)
               for reset, state in zip(resets, states)]
    table = int_constant(np.array(SIGMOID_TABLE, np.int32), 32)

    def step(row: ir.Value, h: ir.Value, c: ir.Value) -> list[ir.Value]:
        pre = [_gate_input(row, h, gate) for gate in cell.gates]
        # i, o, f through sigmoid; the cell gate through tanh of Q3.12.
        i, o, f, g = (_tanh(p, -12, table) if n == 3 else _sigmoid(p, table)
                      for n, p in enumerate(pre))
        c_new = _saturating_add(_multiply(f, c, ACTIVATION_SCALE),
                                _multiply(i, g, ACTIVATION_SCALE ** 2 / 2.0 ** cell.cell_power))
        if cell.quantized_clip is not None:
            c_new = _clip(c_new, cell.quantized_clip)
        h_new = _multiply(_tanh(c_new, cell.cell_power, table), o,
                          ACTIVATION_SCALE ** 2 / cell.hidden_scale, cell.hidden_zero_point)
        return [h_new, c_new]

    return time_loop(x, initial, step, reverse=False, wants_sequence=True)


# -- the step's integer kernels ------------------------------------------------

def _gate_input(row: ir.Value, h: ir.Value, gate: Gate) -> ir.Value:
    """int16 [B, H] in Q3.12: the two products requantized, added with
    saturation (lstm_eval.h CalculateLstmGate, before the activation)."""
    from_input = product(row, gate.input_weights, gate.input_bias)
    from_hidden = product(h, gate.recurrent_weights, gate.recurrent_bias)

    def body(a: ir.Value, r: ir.Value) -> ir.Value:
        # Each product saturated to int16 (kept int32 for the add), then the sum.
        a16 = clamped(apply_scale(a, gate.input_scale), INT16_MIN, INT16_MAX)
        r16 = clamped(apply_scale(r, gate.recurrent_scale), INT16_MIN, INT16_MAX)
        return saturated(arith.addi(a16, r16), 16)
    return elementwise([from_input, from_hidden], 16, body)


def _lookup(table: ir.Value, index: ir.Value) -> ir.Value:
    return tensor.extract(table, [arith.index_cast(ir.IndexType.get(), index)])


def _interpolated(table: ir.Value, magnitude: ir.Value, bits: int, saturated: int) -> ir.Value:
    """table[m >> bits] * 2^bits + (m mod 2^bits) * (next - it), or
    `saturated` past the table's end."""
    high = arith.shrui(magnitude, int_scalar(bits, 32))
    past = arith.cmpi(arith.CmpIPredicate.uge, high, int_scalar(255, 32))
    safe = arith.select(past, int_scalar(0, 32), high)
    low_entry = _lookup(table, safe)
    high_entry = _lookup(table, arith.addi(safe, int_scalar(1, 32)))
    fraction = arith.andi(magnitude, int_scalar((1 << bits) - 1, 32))
    value = arith.addi(arith.shli(low_entry, int_scalar(bits, 32)),
                       arith.muli(fraction, arith.subi(high_entry, low_entry)))
    return arith.select(past, int_scalar(saturated, 32), value)


def _sigmoid(x: ir.Value, table: ir.Value) -> ir.Value:
    """reference_integer_ops::Logistic on int16 Q3.12 -> Q0.15, its input
    multiplier 3 (the table's scale of 3/4)."""
    def body(v: ir.Value) -> ir.Value:
        scaled = arith.muli(widened(v), int_scalar(3, 32))
        result = _interpolated(table, _abs(scaled), 9, 0x7FFF << 10)
        negative = arith.cmpi(arith.CmpIPredicate.slt, scaled, int_scalar(0, 32))
        result = arith.select(negative,
                              arith.subi(int_scalar((1 << 25) + (1 << 9) - 1, 32), result),
                              arith.addi(result, int_scalar(1 << 9, 32)))
        return arith.trunci(int_type(16), arith.shrui(result, int_scalar(10, 32)))
    return elementwise([x], 16, body)


def _tanh(x: ir.Value, input_power: int, table: ir.Value) -> ir.Value:
    """reference_integer_ops::Tanh on int16 of scale 2^`input_power` ->
    Q0.15, its input multiplier and shift as lstm_internal::Tanh sets them."""
    shift = 15 + input_power - 3
    multiplier, right = (3, -shift) if shift < 0 else (3 << shift, 0)
    rounding = 1 << (right - 1) if right > 0 else 0

    def body(v: ir.Value) -> ir.Value:
        scaled = arith.shrsi(arith.addi(arith.muli(widened(v), int_scalar(multiplier, 32)),
                                        int_scalar(rounding, 32)), int_scalar(right, 32))
        result = _interpolated(table, _abs(scaled), 8, 0xFFFF << 8)
        negative = arith.cmpi(arith.CmpIPredicate.slt, scaled, int_scalar(0, 32))
        offset = (1 << 7) - (1 << 23)
        result = arith.select(negative,
                              arith.subi(int_scalar((1 << 23) + (1 << 7) - 1, 32), result),
                              arith.addi(result, int_scalar(offset, 32)))
        return arith.trunci(int_type(16), arith.shrsi(result, int_scalar(8, 32)))
    return elementwise([x], 16, body)


def _abs(value: ir.Value) -> ir.Value:
    negative = arith.cmpi(arith.CmpIPredicate.slt, value, int_scalar(0, 32))
    return arith.select(negative, arith.subi(int_scalar(0, 32), value), value)


def _multiply(a: ir.Value, b: ir.Value, real: float, zero_point: int | None = None) -> ir.Value:
    """MulElementwise of two int16: the product requantized by `real`, to
    int16, or with `zero_point` to int8."""
    def body(x: ir.Value, y: ir.Value) -> ir.Value:
        scaled = apply_scale(arith.muli(widened(x), widened(y)), real)
        if zero_point is None:
            return saturated(scaled, 16)
        return saturated(arith.addi(scaled, int_scalar(zero_point, 32)), 8)
    return elementwise([a, b], 16 if zero_point is None else 8, body)


def _saturating_add(a: ir.Value, b: ir.Value) -> ir.Value:
    return elementwise([a, b], 16, lambda x, y: saturated(arith.addi(widened(x), widened(y)), 16))


def _clip(c: ir.Value, bound: int) -> ir.Value:
    return elementwise([c], 16, lambda v: arith.trunci(int_type(16),
                                                       clamped(widened(v), -bound, bound)))
