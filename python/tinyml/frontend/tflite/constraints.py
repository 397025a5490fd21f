"""What TFLM checks of an operator's operands before it runs it, checked at
import: their counts, that every input is computed before it is read, that
no result is a constant, and the types each kernel accepts. An operator
TFLM refuses is refused, naming the operand, rather than compiled into
something TFLM does not compute."""
from __future__ import annotations

from typing import Any

import numpy as np

#: Each operator's operand counts as TFLM's kernels check them: (fewest
#: inputs, most inputs (None: any number), outputs). A PAD's optional third
#: input, the padding value, is not implemented.
ARITY: dict[str, tuple[int, int | None, int]] = {
    **dict.fromkeys(("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED"), (2, 3, 1)),
    **dict.fromkeys(("ADD", "SUB", "MUL", "MEAN", "TRANSPOSE", "PAD", "GATHER", "FLOOR_DIV",
                     "REDUCE_PROD", "EXPAND_DIMS"), (2, 2, 1)),
    **dict.fromkeys(("AVERAGE_POOL_2D", "MAX_POOL_2D", "SQUEEZE", "SOFTMAX", "LOGISTIC", "TANH",
                     "RELU", "RELU6", "LEAKY_RELU", "HARD_SWISH", "QUANTIZE", "DEQUANTIZE",
                     "SHAPE", "CAST"), (1, 1, 1)),
    "RESHAPE": (1, 2, 1),
    "CONCATENATION": (1, None, 1),
    "PACK": (1, None, 1),
    "STRIDED_SLICE": (4, 4, 1),
    "UNIDIRECTIONAL_SEQUENCE_LSTM": (20, 24, 1),
    "SVDF": (5, 5, 1),
}

#: The inputs an operator with optional inputs among its first ones needs
#: (the others may be omitted, -1): an LSTM's input, the weights and biases
#: of its forget, cell and output gates and its two states.
REQUIRED_INPUTS = {"UNIDIRECTIONAL_SEQUENCE_LSTM": (0, 2, 3, 4, 6, 7, 8, 13, 14, 15, 18, 19),
                   "SVDF": (0, 1, 2, 4)}

CONTRACTIONS = ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED")

#: How many leading inputs an operator computes its output from, in the
#: output's type (None: all of them); the rest (axes, shapes, paddings) are
#: integers read at import. One unless listed.
DATA_INPUTS = {"ADD": 2, "SUB": 2, "MUL": 2, "CONCATENATION": None,
               # Input 0 is the axis; the handler checks the data's type.
               "SPLIT": 0}


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


def check_operands(im, op) -> None:
    """The operand counts, the outputs and the order: every input computed
    by an earlier operator, a graph input or a constant, and every output by
    this operator alone."""
    if op.kind in ARITY:
        low, high, outputs = ARITY[op.kind]
        if not low <= len(op.inputs) <= (high if high is not None else len(op.inputs)):
            wanted = f"at least {_count(low, 'input')}" if high is None else \
                _count(low, "input") if low == high else f"{low} to {high} inputs"
            raise im.fail(f"takes {wanted}, has {len(op.inputs)}")
        if len(op.outputs) != outputs:
            raise im.fail(f"takes {_count(outputs, 'output')}, has {len(op.outputs)}")
        # Only an optional operand (a bias, a RESHAPE's shape) may be
        # omitted: -1; every input of a variadic operator counts.
        required = REQUIRED_INPUTS.get(op.kind, range(low if high is not None
                                                      else len(op.inputs)))
        for position in required:
            if op.inputs[position] < 0:
                raise im.fail(f"input {position} is omitted (-1); {op.kind} needs it")
    for position, index in enumerate(op.outputs):
        if index < 0:
            raise im.fail(f"output {position} is not a tensor")
        tensor = im.tensors[index]
        if tensor.data is not None:
            raise im.fail(f"output '{tensor.name}' has constant data: a result is computed, "
                          "not stored in the file")
        if im.computed(index):
            raise im.fail(f"output '{tensor.name}' is already a graph input or an earlier "
                          "operator's result; each tensor is computed once")
    for index in op.inputs:
        if index >= 0 and im.tensors[index].data is None and not im.computed(index) \
                and not im.tensors[index].variable:
            raise im.fail(f"input '{im.tensors[index].name}' is not computed before it is used")


#: The operators whose output type differs from their input's: for each
#: input type, the output types TFLM's kernel computes (and tinyml does).
CONVERSIONS: dict[str, dict[str, tuple[str, ...]]] = {
    "QUANTIZE": {"FLOAT32": ("INT8", "INT16"), "INT8": ("INT8", "INT16", "INT32"),
                 "INT16": ("INT8", "INT16", "INT32"), "INT32": ("INT8", "INT16")},
    "DEQUANTIZE": {"INT8": ("FLOAT32",), "INT16": ("FLOAT32",)},
    "SOFTMAX": {"FLOAT32": ("FLOAT32",), "INT8": ("INT8", "INT16"), "INT16": ("INT16",)},
}


def check_types(im, op) -> None:
    """The operand types the operator's TFLM kernel accepts."""
    out = im.tensors[op.outputs[0]]
    # None: an omitted optional input (check_operands refused a required one).
    inputs: list[Any] = [im.tensors[i] if i >= 0 else None for i in op.inputs]
    conversion = CONVERSIONS.get(op.kind)
    if conversion is not None:
        if out.type_name not in conversion.get(inputs[0].type_name, ()):
            pairs = "; ".join(f"{source} to {' or '.join(results)}"
                              for source, results in conversion.items())
            raise im.fail(f"input '{inputs[0].name}' is {inputs[0].type_name} and output "
                          f"'{out.name}' {out.type_name}; {op.kind} takes {pairs}")
        return
    for tensor in inputs[:DATA_INPUTS.get(op.kind, 1)]:
        if tensor is not None and tensor.type_name != out.type_name:
            raise im.fail(f"input '{tensor.name}' is {tensor.type_name} and output "
                          f"'{out.name}' {out.type_name}; {op.kind} computes in its input's type")
    if op.kind not in CONTRACTIONS:
        return
    if inputs[0].type_name not in BIASES:
        raise im.fail(f"input '{inputs[0].name}' is {inputs[0].type_name}; {op.kind} takes "
                      "FLOAT32, INT8 or INT16")
    integer = inputs[0].type_name in ("INT8", "INT16")
    # A float operator may have int8 weights: a hybrid model's.
    filters = ("INT8",) if integer else ("FLOAT32", "INT8")
    if inputs[1].type_name not in filters:
        raise im.fail(f"filter '{inputs[1].name}' is {inputs[1].type_name}; a "
                      f"{inputs[0].type_name} {op.kind} takes {' or '.join(filters)} filters")
    if integer and inputs[1].quantization is not None:
        nonzero = np.flatnonzero(inputs[1].quantization.zero_points)
        if nonzero.size:
            first = int(nonzero[0])
            raise im.fail(f"filter '{inputs[1].name}' has zero_point[{first}] = "
                          f"{int(inputs[1].quantization.zero_points[first])}; TFLite's int8 "
                          "filters are symmetric (zero point 0) and TFLM's kernels read them so")
    bias = inputs[2] if len(inputs) > 2 else None
    wanted = BIASES[inputs[0].type_name]
    if op.kind == "DEPTHWISE_CONV_2D" and inputs[0].type_name == "INT16":
        wanted = ("INT64",)  # TFLM's int16 depthwise conv reads no other
    if bias is not None and bias.type_name not in wanted:
        raise im.fail(f"bias '{bias.name}' is {bias.type_name}; a {inputs[0].type_name} "
                      f"{op.kind} takes a {' or '.join(wanted)} bias")


#: A contraction's bias types for each input type (int16: 16x8 quantization).
BIASES = {"FLOAT32": ("FLOAT32",), "INT8": ("INT32",), "INT16": ("INT32", "INT64")}


#: MultiplyByQuantizedMultiplier's precondition (shift <= 30): an int8
#: kernel rescales by a multiplier below 2^30 or TFLM's shifts are undefined.
LARGEST_MULTIPLIER = 2.0 ** 30

#: int8 operators that do not rescale by a fixed-point multiplier: tables
#: computed at compile time, and SOFTMAX, whose TFLM kernel clamps its own;
#: and those whose handler checks their multipliers (QUANTIZE of integers,
#: SVDF, which rescales twice).
UNSCALED = ("LOGISTIC", "TANH", "HARD_SWISH", "SOFTMAX", "QUANTIZE", "SVDF")


def check_rescaling(im, op) -> None:
    """The multiplier an int8 operator rescales by (its inputs' scales, a
    contraction's or MUL's multiplied, over its output's) must be one TFLM
    computes with. A LEAKY_RELU rescales by two: its input's scale, and
    that times alpha."""
    out = im.tensors[op.outputs[0]]
    if op.kind == "LEAKY_RELU" and not np.isfinite(op.options.get("Alpha", 0.2)):
        raise im.fail(f"alpha {op.options['Alpha']} is not a finite number")
    if op.kind in UNSCALED or out.type_name != "INT8" or out.quantization is None:
        return
    count = 2 if op.kind in CONTRACTIONS else DATA_INPUTS.get(op.kind, 1)
    inputs = [im.tensors[i] for i in op.inputs[:count] if i >= 0]
    quantized = [t for t in inputs if t.type_name == "INT8" and t.quantization is not None]
    scales = [float(max(t.quantization.scales)) for t in quantized]
    if op.kind in CONTRACTIONS or op.kind == "MUL":
        scales = [float(np.prod(scales))]
    if op.kind == "LEAKY_RELU":
        scales += [scale * abs(float(op.options.get("Alpha", 0.2))) for scale in scales]
    output_scale = float(out.quantization.scales[0])
    for scale in scales:
        if scale / output_scale >= LARGEST_MULTIPLIER:
            raise im.fail(f"rescaling {scale:g} to the output scale {output_scale:g} takes a "
                          f"multiplier of {scale / output_scale:.3g}; TFLite's fixed-point "
                          "arithmetic computes below 2^30")
