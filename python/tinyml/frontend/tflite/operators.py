"""The TFLite builtin operators tinyml imports, each as the tinyml ops the
ONNX frontend makes of its tf2onnx conversion (NHWC throughout, weights
re-laid out at import time, a fused activation as the float op after)."""
from __future__ import annotations

import math

import numpy as np
from mlir import ir

from ...dialects import tinyml as tm
from ...ir import fixed_point
from ...ir.attributes import DEFAULT_DILATIONS, DEFAULT_PADDING, DEFAULT_STRIDES
from ...ir.quant import storage_cast, uniform_type
from ..onnx.elementwise import hard_swish, leaky_relu
from ..onnx.importer import Const, QuantConst, shape_text
from ..onnx.recurrent import Direction, lstm_cell, sequence_layer
from .constraints import DATA_INPUTS
from .importer import TfliteImporter, handles
from .integer_lstm import integer_cell, integer_lstm
from .reader import Operator, dequantized
from .shape_folding import slice_index

#: tflite.ActivationFunctionType -> the clamp it is ((low, high); None: a relu).
ACTIVATIONS = {0: "NONE", 1: "RELU", 2: "RELU_N1_TO_1", 3: "RELU6", 4: "TANH", 5: "SIGN_BIT"}
SAME = 0  # tflite.Padding.SAME


def activation(im: TfliteImporter, value, code: int):
    """`value` through the operator's fused activation function."""
    kind = ACTIVATIONS.get(code, f"activation {code}")
    shape = im.shape(value)
    if kind == "NONE":
        return value
    if kind == "RELU":
        return im.emit(tm.ReluOp, shape, [value])
    if kind == "RELU6":
        return im.emit(tm.ClampOp, shape, [value], min=0.0, max=6.0)
    if kind == "RELU_N1_TO_1":
        return im.emit(tm.ClampOp, shape, [value], min=-1.0, max=1.0)
    if kind == "TANH":
        return im.emit(tm.TanhOp, shape, [value])
    raise im.fail(f"fused activation {kind} is not supported")


def same_padding(size: int, kernel: int, stride: int, dilation: int) -> tuple[int, int]:
    """TensorFlow's SAME padding of one dimension: (before, after), the odd
    one after."""
    out = -(-size // stride)
    total = max((out - 1) * stride + (kernel - 1) * dilation + 1 - size, 0)
    return total // 2, total - total // 2


def window(im: TfliteImporter, x_shape, kernel, options) -> tuple[list, list, list, list]:
    """(strides, dilations, padding [top, left, bottom, right], output
    [height, width]) of a windowed operator."""
    strides = [int(options["StrideH"]), int(options["StrideW"])]
    dilations = [int(options.get("DilationHFactor", 1)), int(options.get("DilationWFactor", 1))]
    if min(strides + dilations) < 1 or min(kernel) < 1:
        raise im.fail(f"strides {strides}, dilations {dilations} and kernel {list(kernel)} "
                      "must be positive")
    spatial = x_shape[1:3]
    if options["Padding"] == SAME:
        pairs = [same_padding(s, k, st, d) for s, k, st, d in zip(spatial, kernel, strides,
                                                                  dilations)]
        padding = [pairs[0][0], pairs[1][0], pairs[0][1], pairs[1][1]]
    else:
        padding = [0, 0, 0, 0]
    extents = [(k - 1) * d + 1 for k, d in zip(kernel, dilations)]
    if any(e > 2 * s + 1 for e, s in zip(extents, spatial)):
        # Its padding would be mostly the window: nothing a model means.
        raise im.fail(f"a dilated window of {extents} is more than twice the input "
                      f"{shape_text(x_shape)}")
    out = [(s + padding[a] + padding[a + 2] - (k - 1) * d - 1) // st + 1
           for a, (s, k, st, d) in enumerate(zip(spatial, kernel, strides, dilations))]
    if min(out) < 1:
        raise im.fail(f"a {list(kernel)} window does not fit the input {shape_text(x_shape)}")
    return strides, dilations, padding, out


def window_keywords(strides, dilations, padding) -> dict:
    """The window of a tinyml op as its builder's keyword arguments: the
    defaults left out, as the ONNX importer leaves them."""
    return {"strides": None if tuple(strides) == DEFAULT_STRIDES else strides,
            "dilations": None if tuple(dilations) == DEFAULT_DILATIONS else dilations,
            "padding": None if tuple(padding) == DEFAULT_PADDING else padding}


def nhwc_input(im: TfliteImporter, position: int = 0):
    x = im.tensor(im.input(position))
    if len(im.shape(x)) != 4:
        raise im.fail(f"needs a 4-D NHWC input, got {shape_text(im.shape(x))}")
    return x


def weights(im: TfliteImporter, position: int, rank: int):
    w = im.input(position)
    if not isinstance(w, (Const, QuantConst)) or w.array.ndim != rank:
        raise im.fail(f"needs constant {rank}-D weights")
    return w


def bias(im: TfliteImporter, op: Operator, w, channels: int):
    """A contraction's bias (input 2; None when omitted). An int32 bias is
    read as TFLM reads it: its scale is the input's times the filter's
    (per output channel), its zero point 0, whatever parameters the file
    gives it."""
    index = op.inputs[2] if len(op.inputs) > 2 else -1
    tensor = im.tensors[index] if index >= 0 else None
    if tensor is None or tensor.type_name != "INT32" or tensor.data is None:
        return im.input(2, optional=True)
    data = im.tensors[op.inputs[0]].quantization
    if data is None or not isinstance(w, QuantConst):
        raise im.fail(f"an int32 bias '{tensor.name}' needs a quantized input and filter")
    scales = np.float64(data.scales[0]) * np.asarray(w.scales, np.float64)
    if tensor.data.shape != (channels,) or len(w.scales) not in (1, channels):
        raise im.fail(f"bias '{tensor.name}' of shape {shape_text(tensor.data.shape)} does "
                      f"not fit {channels} output channels")
    return QuantConst(tensor.data, scales.astype(np.float32), np.zeros(scales.size, np.int64),
                      0 if scales.size > 1 else None, f"tensor_{tensor.index}")


@handles("CONV_2D")
def _conv(im: TfliteImporter, op: Operator) -> list:
    x = nhwc_input(im)
    w = weights(im, 1, 4)  # OHWI
    filters, kh, kw, channels = w.array.shape
    if channels != im.shape(x)[3]:
        raise im.fail(f"weights {shape_text(w.array.shape)} do not fit {im.shape(x)[3]} "
                      "input channels")
    strides, dilations, padding, out = window(im, im.shape(x), (kh, kw), op.options)
    y = im.emit(tm.Conv2DOp, [im.shape(x)[0], *out, filters],
                [x, im.transpose(w, (1, 2, 3, 0)), bias(im, op, w, filters)],
                **window_keywords(strides, dilations, padding))
    return [activation(im, y, op.options["FusedActivationFunction"])]


@handles("DEPTHWISE_CONV_2D")
def _depthwise(im: TfliteImporter, op: Operator) -> list:
    x = nhwc_input(im)
    w = weights(im, 1, 4)  # [1, kh, kw, channels * multiplier]
    one, kh, kw, filters = w.array.shape
    channels = im.shape(x)[3]
    if one != 1 or filters % channels:
        raise im.fail(f"weights {shape_text(w.array.shape)} are not [1, height, width, "
                      f"{channels} channels * multiplier]")
    # TFLM takes the multiplier from the options, not the weights.
    if op.options["DepthMultiplier"] != filters // channels:
        raise im.fail(f"depth multiplier {op.options['DepthMultiplier']}, but the weights "
                      f"{shape_text(w.array.shape)} give {filters // channels} for {channels} "
                      "channels")
    strides, dilations, padding, out = window(im, im.shape(x), (kh, kw), op.options)
    # [kh, kw, channels, multiplier]: with one input channel, the layout of
    # a conv's HWCF weights, and the same sums (the converter writes any
    # conv of a one-channel image this way).
    filt = im.reshape(w, (kh, kw, channels, filters // channels))
    conv = tm.Conv2DOp if channels == 1 else tm.DepthwiseConv2DOp
    y = im.emit(conv, [im.shape(x)[0], *out, filters], [x, filt, bias(im, op, w, filters)],
                **window_keywords(strides, dilations, padding))
    return [activation(im, y, op.options["FusedActivationFunction"])]


@handles("FULLY_CONNECTED")
def _fully_connected(im: TfliteImporter, op: Operator) -> list:
    x = im.tensor(im.input(0))
    w = weights(im, 1, 2)  # [out, in]
    if op.options.get("WeightsFormat", 0) != 0:
        raise im.fail("shuffled weights are not supported")
    n, k = w.array.shape
    x_shape = im.shape(x)
    if math.prod(x_shape) % k:
        raise im.fail(f"input {shape_text(x_shape)} does not fit weights "
                      f"{shape_text(w.array.shape)}")
    rows = math.prod(x_shape) // k
    y = im.emit(tm.MatmulOp, (rows, n),
                [im.reshape(x, (rows, k)), im.transpose(w, (1, 0)), bias(im, op, w, n)])
    if op.options.get("KeepNumDims"):
        y = im.reshape(y, (*x_shape[:-1], n))
    return [activation(im, y, op.options["FusedActivationFunction"])]


_BINARY = {"ADD": tm.AddOp, "SUB": tm.SubOp, "MUL": tm.MulOp}


@handles(*_BINARY)
def _binary(im: TfliteImporter, op: Operator) -> list:
    a, b = im.input(0), im.input(1)
    try:
        shape = tuple(np.broadcast_shapes(im.shape(a), im.shape(b)))
    except ValueError:
        raise im.fail(f"operand shapes {shape_text(im.shape(a))} and "
                      f"{shape_text(im.shape(b))} do not broadcast") from None
    y = im.emit(_BINARY[op.kind], shape, [a, b])
    return [activation(im, y, op.options.get("FusedActivationFunction", 0))]


@handles("AVERAGE_POOL_2D", "MAX_POOL_2D")
def _pool(im: TfliteImporter, op: Operator) -> list:
    x = nhwc_input(im)
    kernel = [int(op.options["FilterHeight"]), int(op.options["FilterWidth"])]
    strides, _, padding, out = window(im, im.shape(x), kernel, op.options)
    pool = tm.AvgPool2DOp if op.kind == "AVERAGE_POOL_2D" else tm.MaxPool2DOp
    attrs = window_keywords(strides, DEFAULT_DILATIONS, padding)
    del attrs["dilations"]
    y = im.emit(pool, [im.shape(x)[0], *out, im.shape(x)[3]], [x], kernel=kernel, **attrs)
    return [activation(im, y, op.options["FusedActivationFunction"])]


@handles("MEAN")
def _mean(im: TfliteImporter, op: Operator) -> list:
    x = im.tensor(im.input(0))
    axes, keep, out = reduction(im, op, im.shape(x))
    return [im.emit(tm.ReduceMeanOp, out, [x], axes=axes, keep_dims=keep)]


def reduction(im: TfliteImporter, op: Operator, shape) -> tuple[list[int], bool, list[int]]:
    """A reducer's axes (input 1, normalised and sorted), whether it keeps
    them, and its result's shape."""
    rank = len(shape)
    axes = im.int_input(1, "the axes").reshape(-1).tolist()
    if any(not -rank <= a < rank for a in axes):
        raise im.fail(f"axes {axes} out of range for rank {rank}")
    axes = sorted({a % rank for a in axes})
    keep = bool(op.options.get("KeepDims", False))
    return axes, keep, [1 if i in axes else d for i, d in enumerate(shape)
                        if keep or i not in axes]


@handles("SOFTMAX")
def _softmax(im: TfliteImporter, op: Operator) -> list:
    x = im.tensor(im.input(0))
    if op.options.get("Beta", 1.0) != 1.0:
        raise im.fail(f"beta {op.options['Beta']} is not supported (only 1)")
    return [im.emit(tm.SoftmaxOp, im.shape(x), [x], axis=len(im.shape(x)) - 1)]


# int8 element-wise kernels whose TFLM reference is integer arithmetic on one
# value: tabulated at compile time (x, y: the input's and output's
# quantization).
_TABLES = {
    "LOGISTIC": lambda op, x, y: fixed_point.logistic_table(x.scales[0], x.zero_points[0]),
    "TANH": lambda op, x, y: fixed_point.tanh_table(x.scales[0], x.zero_points[0]),
    "LEAKY_RELU": lambda op, x, y: fixed_point.leaky_relu_table(
        x.scales[0], x.zero_points[0], op.options.get("Alpha", 0.2), y.scales[0],
        y.zero_points[0]),
    "HARD_SWISH": lambda op, x, y: fixed_point.hard_swish_table(
        x.scales[0], x.zero_points[0], y.scales[0], y.zero_points[0]),
}


def looked_up(im: TfliteImporter, op: Operator):
    """An int8 operator of `_TABLES` on a computed int8 tensor as
    `tinyml.lookup` of the table of its 256 results (stored int8); None for
    anything else (float, constant or per-axis operands)."""
    x, y = im.tensors[op.inputs[0]], im.tensors[op.outputs[0]]
    if not all(t.type_name == "INT8" and t.quantization is not None
               and t.quantization.axis is None for t in (x, y)) or x.index not in im.values:
        return None
    table = _TABLES[op.kind](op, x.quantization, y.quantization)
    x_type, y_type = (uniform_type(list(q.scales), list(q.zero_points), np.int8, None)
                      for q in (x.quantization, y.quantization) if q is not None)
    source = storage_cast(im.values[x.index], x_type, im.loc)
    result = im.emit(tm.LookupOp, y.shape, [source], y_type,
                     table=ir.DenseI8ArrayAttr.get(table))
    return [storage_cast(result, ir.IntegerType.get_signless(8), im.loc)], True


_UNARY = {"LOGISTIC": tm.SigmoidOp, "TANH": tm.TanhOp, "RELU": tm.ReluOp}


@handles(*_UNARY)
def _unary(im: TfliteImporter, op: Operator) -> list:
    if op.kind in _TABLES:
        table = looked_up(im, op)
        if table is not None:
            return table
    x = im.tensor(im.input(0))
    return [im.emit(_UNARY[op.kind], im.shape(x), [x])]


@handles("LEAKY_RELU")
def _leaky_relu(im: TfliteImporter, op: Operator) -> list:
    return looked_up(im, op) or [leaky_relu(im, im.input(0),
                                            float(op.options.get("Alpha", 0.2)))]


@handles("HARD_SWISH")
def _hard_swish(im: TfliteImporter, op: Operator) -> list:
    return looked_up(im, op) or [hard_swish(im, im.input(0))]


@handles("RELU6")
def _relu6(im: TfliteImporter, op: Operator) -> list:
    return [activation(im, im.tensor(im.input(0)), 3)]


@handles("DEQUANTIZE")
def through_float(im: TfliteImporter, op: Operator) -> list:
    """A DEQUANTIZE, or a QUANTIZE of float: the input reads as float and
    the result is stored as the output tensor's type."""
    source = im.tensors[op.inputs[0]] if op.inputs and op.inputs[0] >= 0 else None
    if op.kind == "DEQUANTIZE" and source is not None and source.data is not None \
            and source.type_name == "INT8" and source.quantization is not None:
        return [Const(dequantized(source), f"tensor_{source.index}")]  # weights, at compile time
    return [im.tensor(im.input(0))]


@handles("PAD")
def _pad(im: TfliteImporter, op: Operator) -> list:
    x = im.tensor(im.input(0))
    rank = len(im.shape(x))
    pads = im.int_input(1, "the paddings")
    if pads.shape != (rank, 2) or (pads < 0).any():
        raise im.fail(f"paddings of shape {shape_text(pads.shape)} for rank {rank} must be "
                      f"[{rank}, 2] and non-negative")
    padding = pads[:, 0].tolist() + pads[:, 1].tolist()
    out = [d + int(a) + int(b) for d, (a, b) in zip(im.shape(x), pads)]
    return [im.emit(tm.PadOp, out, [x], padding=padding)]


# Data movement on int8 (or int16) moves the stored values, as TFLM's kernels do.

def moved_as_stored(im: TfliteImporter, op: Operator) -> bool:
    """Whether a data-movement operator moves stored values: every input and
    the output int8 per tensor, or every one int16. TFLM's RESHAPE, SQUEEZE and TRANSPOSE copy the
    bytes whatever the output's scale and zero point say; its CONCATENATION
    refuses inputs whose parameters differ from the output's, and so does
    tinyml. An operator with a constant data input moves dequantized values:
    with one quantization for all, requantizing gives the same bytes."""
    count = DATA_INPUTS.get(op.kind, 1)
    data = op.inputs if count is None else op.inputs[:count]
    indices = [i for i in data if i >= 0] + op.outputs
    kinds = {im.tensors[i].type_name for i in indices}
    params = [p for i in indices if (p := im.tensors[i].quantization) is not None
              and p.axis is None]
    if len(params) != len(indices) or kinds not in ({"INT8"}, {"INT16"}):
        return False
    same = all(p.scales.tolist() == params[-1].scales.tolist()
               and p.zero_points.tolist() == params[-1].zero_points.tolist() for p in params)
    if op.kind == "CONCATENATION" and not same:
        raise im.fail("integer inputs whose scale or zero point differ from the output's; "
                      "TFLM's CONCATENATION takes one quantization for all")
    return all(im.tensors[i].data is None for i in indices)


def source(im: TfliteImporter, op: Operator, position: int, stored: bool):
    """Input `position` as stored (int8 or int16) or as float."""
    if not stored:
        return im.tensor(im.input(position))
    return im.values[op.inputs[position]]


@handles("RESHAPE", "SQUEEZE", "EXPAND_DIMS")
def _reshape(im: TfliteImporter, op: Operator) -> list | tuple[list, bool]:
    """A new shape of the same elements: the output tensor's. EXPAND_DIMS
    (Keras's Conv1D, a CONV_2D of height 1) must insert one 1 at its axis."""
    stored = moved_as_stored(im, op)
    x = source(im, op, 0, stored)
    out = im.tensors[op.outputs[0]].shape
    if math.prod(out) != math.prod(im.shape(x)):
        raise im.fail(f"cannot reshape {shape_text(im.shape(x))} to {shape_text(out)}")
    if op.kind == "EXPAND_DIMS":
        axis = int(im.int_input(1, "the axis").reshape(-1)[0])
        rank = len(im.shape(x)) + 1
        expanded = list(im.shape(x))
        expanded.insert(axis % rank if -rank <= axis < rank else rank, 1)
        if not -rank <= axis < rank or tuple(expanded) != tuple(out):
            raise im.fail(f"axis {axis} of {shape_text(im.shape(x))} does not give "
                          f"{shape_text(out)}")
    return [im.reshape(x, out)], stored


@handles("TRANSPOSE")
def _transpose(im: TfliteImporter, op: Operator) -> list | tuple[list, bool]:
    stored = moved_as_stored(im, op)
    x = source(im, op, 0, stored)
    perm = im.int_input(1, "the permutation").reshape(-1).tolist()
    if sorted(perm) != list(range(len(im.shape(x)))):
        raise im.fail(f"{perm} is not a permutation of rank {len(im.shape(x))}")
    return [im.transpose(x, perm)], stored


@handles("STRIDED_SLICE")
def _strided_slice(im: TfliteImporter, op: Operator) -> list | tuple[list, bool]:
    """A slice of a tensor computed at run time (one of constants is folded
    at import): Keras's `x[:, -1]` of an LSTM's sequence."""
    stored = moved_as_stored(im, op)
    x = source(im, op, 0, stored)
    shape = im.shape(x)
    if op.options.get("EllipsisMask") or op.options.get("NewAxisMask"):
        raise im.fail("a strided slice with an ellipsis or new-axis mask is not supported")
    begin, end, strides = (im.int_input(i, what).reshape(-1)
                           for i, what in ((1, "begin"), (2, "end"), (3, "strides")))
    if not len(begin) == len(end) == len(strides) == len(shape) or not np.all(strides):
        raise im.fail(f"begin {begin.tolist()}, end {end.tolist()} and strides "
                      f"{strides.tolist()} do not slice {shape_text(shape)}")
    offsets, sizes, steps = [], [], []
    for dim, selected in zip(shape, slice_index(len(shape), begin, end, strides, op.options)):
        picked = range(dim)[selected:selected + 1 or None] if isinstance(selected, int) \
            else range(dim)[selected]
        if not picked:
            raise im.fail(f"begin {begin.tolist()}, end {end.tolist()} and strides "
                          f"{strides.tolist()} select nothing of {shape_text(shape)}")
        offsets.append(picked.start)
        sizes.append(len(picked))
        steps.append(picked.step)
    y = im.slice(x, offsets, sizes, steps)
    return [im.reshape(y, im.tensors[op.outputs[0]].shape)], stored


@handles("SPLIT")
def _split(im: TfliteImporter, op: Operator) -> tuple[list, bool]:
    """Equal parts of input 1 along the axis input 0 holds: Keras's gates,
    one matmul split four ways. TFLM's SPLIT copies elements: an int8 one
    moves the stored bytes."""
    if len(op.inputs) != 2:
        raise im.fail(f"takes 2 inputs (the axis and the data), has {len(op.inputs)}")
    data = im.tensors[op.inputs[1]]
    for index in op.outputs:
        if im.tensors[index].type_name != data.type_name:
            raise im.fail(f"input '{data.name}' is {data.type_name} and output "
                          f"'{im.tensors[index].name}' {im.tensors[index].type_name}; SPLIT "
                          "computes in its input's type")
    stored = data.type_name in ("INT8", "INT16") and data.data is None
    x = source(im, op, 1, stored)
    shape = list(im.shape(x))
    axis = int(im.int_input(0, "the axis").reshape(-1)[0])
    count = int(op.options["NumSplits"])
    if not -len(shape) <= axis < len(shape):
        raise im.fail(f"axis {axis} out of range for rank {len(shape)}")
    axis %= len(shape)
    if count < 1 or count != len(op.outputs) or shape[axis] % count:
        raise im.fail(f"{count} splits into {len(op.outputs)} outputs of dimension {axis} of "
                      f"{shape_text(shape)}")
    size = shape[axis] // count
    parts = []
    for part in range(count):
        offsets = [part * size if a == axis else 0 for a in range(len(shape))]
        sizes = [size if a == axis else d for a, d in enumerate(shape)]
        parts.append(im.slice(x, offsets, sizes, [1] * len(shape)))
    return parts, stored


@handles("CONCATENATION")
def _concatenation(im: TfliteImporter, op: Operator) -> list | tuple[list, bool]:
    stored = moved_as_stored(im, op)
    inputs = [source(im, op, i, stored) for i in range(len(op.inputs))]
    shapes = [im.shape(v) for v in inputs]
    rank = len(shapes[0])
    axis = int(op.options.get("Axis", 0))
    if not -rank <= axis < rank:
        raise im.fail(f"axis {axis} out of range for rank {rank}")
    axis %= rank
    if any(len(s) != rank or [d for i, d in enumerate(s) if i != axis]
           != [d for i, d in enumerate(shapes[0]) if i != axis] for s in shapes):
        raise im.fail(f"inputs {', '.join(shape_text(s) for s in shapes)} do not concatenate "
                      f"along axis {axis}")
    out = list(shapes[0])
    out[axis] = sum(s[axis] for s in shapes)
    y = im.emit(tm.ConcatOp, out, inputs, im.element(inputs[0]), axis=axis)
    if stored:
        return [y], True
    return [activation(im, y, op.options.get("FusedActivationFunction", 0))]


#: UNIDIRECTIONAL_SEQUENCE_LSTM's inputs per gate in ONNX's order (i, o, f,
#: c), as lstm_cell reads them: input weights, recurrent weights, bias.
LSTM_GATES = ((1, 5, 12), (4, 8, 15), (2, 6, 13), (3, 7, 14))
#: Its optional inputs tinyml does not compute: peepholes, projection,
#: layer normalization.
LSTM_UNSUPPORTED = {9: "peephole", 10: "peephole", 11: "peephole", 16: "projection",
                    17: "projection", 20: "layer normalization", 21: "layer normalization",
                    22: "layer normalization", 23: "layer normalization"}


@handles("UNIDIRECTIONAL_SEQUENCE_LSTM")
def _lstm(im: TfliteImporter, op: Operator) -> list | tuple[list, bool]:
    """A float LSTM layer (a Keras 2 LSTM, converted): the ONNX LSTM's time
    loop, with TFLite's cell clip. Its state starts from zeros (TFLM's
    variables at the first invocation)."""
    for position, what in LSTM_UNSUPPORTED.items():
        if position < len(op.inputs) and op.inputs[position] >= 0:
            raise im.fail(f"has {what} weights (input {position}); not supported")
    if op.inputs[1] < 0:
        raise im.fail("couples its input gate to the forget gate (CIFG, no input 1); "
                      "not supported")
    options = op.options
    if ACTIVATIONS.get(options["FusedActivationFunction"]) != "TANH":
        raise im.fail(f"cell activation {ACTIVATIONS.get(options['FusedActivationFunction'])} "
                      "is not supported; only TANH (Keras's default)")
    if im.tensors[op.inputs[0]].type_name == "INT8":
        return _integer_lstm(im, op)
    x = im.tensor(im.input(0))
    if len(im.shape(x)) != 3:
        raise im.fail(f"input must be 3-D, got {shape_text(im.shape(x))}")
    if not options["TimeMajor"]:
        x = im.transpose(x, (1, 0, 2))
    steps, batch, size = im.shape(x)
    gates = []
    for w_position, r_position, b_position in LSTM_GATES:
        w, r, b = (im.input(p) for p in (w_position, r_position, b_position))
        if not all(isinstance(v, Const) for v in (w, r, b)) or w.array.ndim != 2:
            raise im.fail("needs constant weights and biases (weights computed at run time "
                          "are not supported)")
        gates.append((w.array, r.array, b.array))
    hidden = gates[0][1].shape[0]
    if any(w.shape != (hidden, size) or r.shape != (hidden, hidden) or b.shape != (hidden,)
           for w, r, b in gates):
        raise im.fail(f"gate weights {[shape_text(w.shape) for w, _, _ in gates]} do not fit "
                      f"{size} inputs and {hidden} cells")
    weights = Direction(inputs=[np.ascontiguousarray(w.T) for w, _, _ in gates],
                        recurrent=[np.ascontiguousarray(r.T) for _, r, _ in gates],
                        input_bias=[b for _, _, b in gates],
                        recurrent_bias=[None] * len(gates), reverse=False)
    states = [[im.reshape(im.input(p), (batch, hidden))] for p in (18, 19)]
    (results,) = sequence_layer(im, lstm_cell(float(options["CellClip"])), x, [weights],
                                states, wants_sequence=True)
    *final, sequence = results
    for position, value in zip((18, 19), final):
        im.carry(op.inputs[position], value)
    return [sequence if options["TimeMajor"] else im.transpose(sequence, (1, 0, 2))]


def _integer_lstm(im: TfliteImporter, op: Operator) -> tuple[list, bool]:
    """A fully integer LSTM layer: TFLM's integer cell (integer_lstm.py) in
    the same time loop, on the stored int8 input; its output is the stored
    int8 hidden states."""
    cell = integer_cell(im.fail, im.tensors, op, LSTM_GATES, float(op.options["CellClip"]))
    x = im.values[op.inputs[0]]
    if len(im.shape(x)) != 3:
        raise im.fail(f"input must be 3-D, got {shape_text(im.shape(x))}")
    if not op.options["TimeMajor"]:
        x = im.transpose(x, (1, 0, 2))
    assert im.loc is not None, "set while an operator is imported"
    with im.loc:  # the loop's ops name the layer (its kernel in the profile)
        *final, sequence = integer_lstm(im.tensor(x), cell,
                                        [im.states.get(op.inputs[p]) for p in (18, 19)])
    for position, value in zip((18, 19), final):
        im.carry(op.inputs[position], value)
    return [sequence if op.options["TimeMajor"] else im.transpose(sequence, (1, 0, 2))], True
