"""QuantizeLinear and DequantizeLinear, as tf2onnx writes a quantized
TFLite model (QDQ) and onnxruntime's `quantize_static` does: int8 data,
int8 weights and int32 biases, per-tensor or per-axis scales.

A DequantizeLinear of a constant is a `QuantConst` (re-laid out at import
time, materialized where an op reads it). Of a tensor, it is
`quant.scast` to the quantized type then `tinyml.dequantize`; a QuantizeLinear is
`tinyml.quantize` then `quant.scast` to int8. The float ops in between stay
float here: the quantization passes turn DQ -> op -> Q into integer ops.
"""
from __future__ import annotations

import numpy as np
from mlir import ir

from ...ir.quant import dequantize, quantize, storage_cast, uniform_type
from .importer import Const, Importer, QuantConst, handles, shape_text


def _parameters(im: Importer, data_shape, data_dtype) -> tuple[np.ndarray, np.ndarray, int | None]:
    """(scales, zero points, axis or None) of the current Q/DQ node."""
    scale = im.const(1, "the scale")
    if scale.dtype != np.float32:
        raise im.fail(f"the scale must be float32, got {scale.dtype}")
    zero_point = im.const(2, "the zero point", optional=True)
    if zero_point is None:
        zero_point = np.zeros(scale.shape, data_dtype)
    if zero_point.dtype not in (np.int8, np.int32):
        raise im.fail(f"zero point of type {zero_point.dtype}: only int8 quantization is "
                      "supported (int32 for biases)")
    # onnxruntime's quantize_static writes a per-tensor scale of shape [1]
    # beside a scalar zero point.
    if zero_point.shape != scale.shape and not zero_point.size == scale.size == 1:
        raise im.fail(f"the zero point {shape_text(zero_point.shape)} and the scale "
                      f"{shape_text(scale.shape)} differ in shape")
    if not np.all(np.isfinite(scale)) or np.any(scale <= 0):
        raise im.fail("scales must be positive and finite")
    if scale.size == 1 and scale.ndim <= 1:
        return scale.reshape(1), zero_point.reshape(1), None
    rank = len(data_shape)
    axis = int(im.attr("axis", 1))
    if scale.ndim != 1 or not -rank <= axis < rank:
        raise im.fail(f"per-axis scale {shape_text(scale.shape)} with axis {axis} does not fit "
                      f"data of shape {shape_text(data_shape)}")
    axis %= rank
    if scale.size != data_shape[axis]:
        raise im.fail(f"{scale.size} scales for axis {axis} of size {data_shape[axis]}")
    return scale, zero_point, axis


@handles("DequantizeLinear")
def _dequantize_linear(im: Importer, node) -> list:
    x = im.arg(0)
    if isinstance(x, Const):
        if x.array.dtype not in (np.int8, np.int32):
            raise im.fail(f"dequantizes a constant of type {x.array.dtype}; only int8 "
                          "(and int32 biases) are supported")
        scales, zero_points, axis = _parameters(im, x.array.shape, x.array.dtype)
        return [QuantConst(x.array, scales, zero_points, axis)]
    x = im.tensor(x)
    if ir.RankedTensorType(x.type).element_type != ir.IntegerType.get_signless(8):
        raise im.fail(f"dequantizes a tensor of type {x.type}; only int8 tensors are supported")
    scales, zero_points, axis = _parameters(im, im.shape(x), np.int8)
    if axis is not None:
        raise im.fail("per-axis dequantization of a tensor (not a constant) is not supported")
    return [dequantize(storage_cast(x, uniform_type(scales, zero_points)))]


@handles("QuantizeLinear")
def _quantize_linear(im: Importer, node) -> list:
    x = im.arg(0)
    scales, zero_points, axis = _parameters(im, im.shape(x), np.int8)
    if zero_points.dtype != np.int8:
        raise im.fail(f"quantizes to {zero_points.dtype}; only int8 is supported")
    if axis is not None:
        raise im.fail("per-axis quantization is not supported")
    if isinstance(x, Const):
        # ONNX QuantizeLinear: round half to even, saturate.
        q = np.rint(x.array.astype(np.float32) / scales[0]) + zero_points[0]
        return [np.clip(q, -128, 127).astype(np.int8)]
    element = uniform_type(scales, zero_points)
    return [storage_cast(quantize(im.tensor(x), element), ir.IntegerType.get_signless(8))]
