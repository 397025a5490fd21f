"""QUANTIZE between integer types, built on the stored integers
(`integer_kernels.py`) rather than as a float dequantize and quantize:
TFLM's Requantize. TFLM's keyword benchmark model has two: its int16
input requantized to int8, its int16 softmax output to int32."""
from __future__ import annotations

from .constraints import LARGEST_MULTIPLIER
from .importer import TfliteImporter, handles
from .integer_kernels import requantized
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
    (x_scale, x_zero), (y_scale, y_zero) = (per_tensor(im, t) for t in (x, y))
    # TFLM divides the two float scales in double.
    real = x_scale / y_scale
    check_multiplier(im, real, f"requantizing scale {x_scale:g} to {y_scale:g}")
    return [requantized(im.values[x.index], real, x_zero, y_zero, BITS[y.type_name])], True


def per_tensor(im: TfliteImporter, tensor: Tensor) -> tuple[float, int]:
    q = tensor.quantization
    if q is None or q.axis is not None:
        raise im.fail(f"'{tensor.name}' must be quantized with one scale and zero point")
    return float(q.scales[0]), int(q.zero_points[0])


def check_multiplier(im: TfliteImporter, real: float, what: str) -> None:
    if not real < LARGEST_MULTIPLIER:
        raise im.fail(f"{what} takes a multiplier of {real:.3g}; TFLite's fixed-point "
                      "arithmetic computes below 2^30")
