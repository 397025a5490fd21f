"""The TFLite operators whose integer form is built on the stored integers
(`integer_kernels.py`) rather than as a float op between a dequantize and
a quantize: a QUANTIZE from one integer type to another, and SVDF. TFLM's
keyword benchmark model is both: its int16 input is requantized to int8,
its SVDF layers keep int16 histories, and its int16 softmax output is
requantized to int32."""
from __future__ import annotations

import numpy as np

from ..onnx.importer import shape_text
from .constraints import LARGEST_MULTIPLIER
from .importer import TfliteImporter, handles
from .integer_kernels import Svdf, integer_svdf, requantized
from .operators import through_float
from .reader import Operator, Tensor

#: A TFLite integer type's width.
BITS = {"INT8": 8, "INT16": 16, "INT32": 32}


@handles("QUANTIZE")
def _quantize(im: TfliteImporter, op: Operator) -> list | tuple[list, bool]:
    """Float to int8 quantizes (the float path); an integer to another, or
    to itself at other parameters, is TFLM's Requantize of the stored
    values: (q - zero point) by the ratio of the scales in fixed point."""
    x, y = im.tensors[op.inputs[0]], im.tensors[op.outputs[0]]
    if x.type_name not in BITS:
        return through_float(im, op)
    if x.data is not None:
        raise im.fail(f"input '{x.name}' is a constant; an integer QUANTIZE of one is not "
                      "supported")
    (x_scale, x_zero), (y_scale, y_zero) = (_per_tensor(im, t) for t in (x, y))
    # TFLM divides the two float scales in double.
    real = x_scale / y_scale
    _check_multiplier(im, real, f"requantizing scale {x_scale:g} to {y_scale:g}")
    return [requantized(im.values[x.index], real, x_zero, y_zero, BITS[y.type_name])], True


@handles("SVDF")
def _svdf(im: TfliteImporter, op: Operator) -> tuple[list, bool]:
    """An integer SVDF layer (svdf_common.cc): int8 input, feature weights
    and output; int8 or int16 time weights and history; an int32 bias.
    Its history starts from TFLM's reset value, as at TFLM's first
    invocation, or is the caller's where the model streams."""
    x, features, times, state, y = (im.tensors[i] for i in (*op.inputs[:3], op.inputs[4],
                                                            op.outputs[0]))
    bias = im.tensors[op.inputs[3]] if op.inputs[3] >= 0 else None
    if x.type_name != "INT8":
        raise im.fail(f"input '{x.name}' is {x.type_name}; only the integer SVDF (int8 input) "
                      "is supported")
    if features.type_name != "INT8" or features.data is None:
        raise im.fail(f"feature weights '{features.name}' must be constant int8")
    if times.type_name not in ("INT8", "INT16") or times.data is None \
            or state.type_name != times.type_name:
        raise im.fail(f"time weights '{times.name}' ({times.type_name}) and state "
                      f"'{state.name}' ({state.type_name}) must be int8 or int16 alike, the "
                      "weights constant")
    if bias is not None and (bias.type_name != "INT32" or bias.data is None):
        raise im.fail(f"bias '{bias.name}' must be a constant int32 tensor")
    if not state.variable:
        raise im.fail(f"state '{state.name}' must be a variable tensor (TFLM keeps the "
                      "history in it)")
    assert features.data is not None and times.data is not None, "checked above"
    rank = int(op.options["Rank"])
    batch, size = _shape(im, x, 2)
    filters, memory = times.shape if len(times.shape) == 2 else (-1, -1)
    if rank < 1 or features.shape != (filters, size) or filters % rank \
            or state.shape != (batch, filters * memory) or memory < 1 \
            or y.shape != (batch, filters // rank) \
            or (bias is not None and bias.shape != (filters // rank,)):
        raise im.fail(f"shapes do not fit an SVDF of rank {rank}: input "
                      f"{shape_text(x.shape)}, feature weights {shape_text(features.shape)}, "
                      f"time weights {shape_text(times.shape)}, state "
                      f"{shape_text(state.shape)}, output {shape_text(y.shape)}")
    (x_scale, x_zero), (f_scale, f_zero), (t_scale, t_zero), (s_scale, s_zero), \
        (y_scale, y_zero) = (_per_tensor(im, t) for t in (x, features, times, state, y))
    if f_zero or t_zero:
        raise im.fail("SVDF weights must have zero point 0 (TFLM reads them so)")
    if state.type_name == "INT16" and s_zero:
        raise im.fail(f"state '{state.name}' is int16 with zero point {s_zero}; TFLM's int16 "
                      "SVDF assumes 0")
    # TFLM multiplies and divides the float scales in float, then widens.
    feature_scale = float(np.float32(x_scale) * np.float32(f_scale) / np.float32(s_scale))
    output_scale = float(np.float32(s_scale) * np.float32(t_scale) / np.float32(y_scale))
    _check_multiplier(im, feature_scale, "the feature projection's rescaling")
    _check_multiplier(im, output_scale, "the output's rescaling")
    layer = Svdf(features.data, times.data, None if bias is None else bias.data, rank,
                 feature_scale, output_scale, x_zero, s_zero, y_zero)
    assert im.loc is not None, "set while an operator is imported"
    with im.loc:  # the layer's ops carry its name (its kernels in the profile)
        y, history = integer_svdf(im.values[x.index], layer, im.states.get(state.index))
    im.carry(state.index, history)
    return [y], True


def _per_tensor(im: TfliteImporter, tensor: Tensor) -> tuple[float, int]:
    q = tensor.quantization
    if q is None or q.axis is not None:
        raise im.fail(f"'{tensor.name}' must be quantized with one scale and zero point")
    return float(q.scales[0]), int(q.zero_points[0])


def _shape(im: TfliteImporter, tensor: Tensor, rank: int) -> tuple[int, ...]:
    if len(tensor.shape) != rank:
        raise im.fail(f"'{tensor.name}' must be {rank}-D, got {shape_text(tensor.shape)}")
    return tensor.shape


def _check_multiplier(im: TfliteImporter, real: float, what: str) -> None:
    if not real < LARGEST_MULTIPLIER:
        raise im.fail(f"{what} takes a multiplier of {real:.3g}; TFLite's fixed-point "
                      "arithmetic computes below 2^30")
