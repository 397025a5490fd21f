"""QuantizeLinear and DequantizeLinear, as tf2onnx writes a quantized
TFLite model (QDQ) and onnxruntime's `quantize_static` does: int8 or uint8
data, int8 or uint8 weights and int32 biases, per-tensor or per-axis scales.

A DequantizeLinear of a constant is a `QuantConst` (re-laid out at import
time, materialized where an op reads it). Of a tensor, it is
`quant.scast` to the quantized type then `tinyml.dequantize`; a QuantizeLinear is
`tinyml.quantize` then `quant.scast` to int8. The float ops in between stay
float here: the quantization passes turn DQ -> op -> Q into integer ops.

uint8 data is int8 data with the zero point moved by -128 (q - 128 with
zero point zp - 128 has the same real value): a uint8 tensor is built as
int8, and a uint8 constant and zero point are moved at import time, so a
uint8 model gives the IR of its int8 form. Graph inputs and outputs stay
float32 or int8.

The helpers here (`parameters`, `dequantized`, `quantized`) also build the
QOperator ops (qoperator.py) from their scale and zero point inputs;
`quantization_of` finds the type of a tensor such an op made, for the ops
onnxruntime runs on quantized data directly (MaxPool).
"""
from __future__ import annotations

import numpy as np
from mlir import ir
from onnx import helper

from ...dialects import tinyml as tm
from ...ir.ops import op_names
from ...ir.quant import dequantize, is_quantized, quantize, storage_cast, uniform_type
from ...ir.values import element_of, producer
from .importer import Const, Importer, QuantConst, handles, shape_text

INT8 = np.dtype(np.int8)
UINT8 = np.dtype(np.uint8)


def signed(array: np.ndarray) -> np.ndarray:
    """uint8 quantized storage (data or zero points) as int8, moved by -128;
    other types as they are."""
    if array.dtype == UINT8:
        return (array.astype(np.int16) - 128).astype(np.int8)
    return array


def _data_dtype(im: Importer, index: int, zero_point: np.ndarray | None) -> np.dtype:
    """The ONNX element type of the current node's quantized input or output
    `index` (-1: its output): the zero point's, else the inferred one, else
    a constant's own (int8 when unknown, as after an op of another domain)."""
    if zero_point is not None:
        return zero_point.dtype
    node = im.current_node
    name = node.output[0] if index < 0 else node.input[index]
    if im.inferred.get(name, (0, None))[0]:
        return np.dtype(helper.tensor_dtype_to_np_dtype(im.inferred[name][0]))
    if index >= 0:
        value = im.arg(index)
        if isinstance(value, Const):
            return value.array.dtype
    return INT8


def parameters(im: Importer, scale_index: int, zero_point_index: int, data_shape,
               data_index: int, axis: int | None
               ) -> tuple[np.ndarray, np.ndarray, int | None]:
    """(scales, int8 or int32 zero points, axis or None) from the current
    node's inputs `scale_index` and (optional) `zero_point_index`, for the
    data of input `data_index` (-1: the output). A per-axis scale runs
    along `axis` of `data_shape`."""
    scale = im.const(scale_index, "the scale")
    if scale.dtype != np.float32:
        raise im.fail(f"the scale must be float32, got {scale.dtype}")
    zero_point = im.const(zero_point_index, "the zero point", optional=True)
    dtype = _data_dtype(im, data_index, zero_point)
    if zero_point is None:
        zero_point = np.zeros(scale.shape, dtype)
    if zero_point.dtype not in (INT8, UINT8, np.int32):
        raise im.fail(f"zero point of type {zero_point.dtype}: only int8 and uint8 "
                      "quantization is supported (int32 for biases)")
    # onnxruntime's quantize_static writes a per-tensor scale of shape [1]
    # beside a scalar zero point.
    if zero_point.shape != scale.shape and not zero_point.size == scale.size == 1:
        raise im.fail(f"the zero point {shape_text(zero_point.shape)} and the scale "
                      f"{shape_text(scale.shape)} differ in shape")
    if not np.all(np.isfinite(scale)) or np.any(scale <= 0):
        raise im.fail("scales must be positive and finite")
    zero_point = signed(zero_point)
    if scale.size == 1 and scale.ndim <= 1:
        return scale.reshape(1), zero_point.reshape(1), None
    rank = len(data_shape)
    if scale.ndim != 1 or axis is None or not -rank <= axis < rank:
        raise im.fail(f"per-axis scale {shape_text(scale.shape)} with axis {axis} does not fit "
                      f"data of shape {shape_text(data_shape)}")
    axis %= rank
    if scale.size != data_shape[axis]:
        raise im.fail(f"{scale.size} scales for axis {axis} of size {data_shape[axis]}")
    return scale, zero_point, axis


def dequantized(im: Importer, data_index: int, scale_index: int, zero_point_index: int,
                axis: int | None = None):
    """The real value of the current node's quantized input `data_index`
    whose scale and zero point are inputs `scale_index`, `zero_point_index`:
    a QuantConst for a constant (a per-axis scale along `axis`), else a
    dequantized tensor."""
    x = im.arg(data_index)
    if isinstance(x, Const):
        if x.array.dtype not in (INT8, UINT8, np.int32):
            raise im.fail(f"dequantizes a constant of type {x.array.dtype}; only int8 and "
                          "uint8 (and int32 biases) are supported")
        scales, zero_points, axis = parameters(im, scale_index, zero_point_index,
                                               x.array.shape, data_index, axis)
        return QuantConst(signed(x.array), scales, zero_points, axis)
    x = im.tensor(x)
    if ir.RankedTensorType(x.type).element_type != ir.IntegerType.get_signless(8):
        raise im.fail(f"dequantizes a tensor of type {x.type}; only int8 and uint8 tensors "
                      "are supported")
    scales, zero_points, axis = parameters(im, scale_index, zero_point_index, im.shape(x),
                                           data_index, axis)
    if axis is not None:
        raise im.fail("per-axis dequantization of a tensor (not a constant) is not supported")
    # One dequantize per tensor and type, however many ops read it (a QOperator
    # model dequantizes in each reader): a layout transpose of it then cancels.
    key = (x, uniform_type(scales, zero_points))
    if key not in im.dequantize_cache:
        im.dequantize_cache[key] = dequantize(storage_cast(x, key[1]))
    return im.dequantize_cache[key]


def quantized(im: Importer, x, scale_index: int, zero_point_index: int):
    """`x` (float) quantized to the current node's output type, whose scale
    and zero point are inputs `scale_index`, `zero_point_index`: an int8
    tensor (uint8 moved by -128), or folded for a constant."""
    if im.const(scale_index, "the scale").size > 1:
        raise im.fail("per-axis quantization is not supported")
    scales, zero_points, _ = parameters(im, scale_index, zero_point_index, im.shape(x), -1,
                                        None)
    if zero_points.dtype != INT8:
        raise im.fail(f"quantizes to {zero_points.dtype}; only int8 and uint8 are supported")
    if isinstance(x, Const):
        # ONNX QuantizeLinear: round half to even, saturate.
        q = np.rint(x.array.astype(np.float32) / scales[0]) + zero_points[0]
        return np.clip(q, -128, 127).astype(np.int8)
    element = uniform_type(scales, zero_points)
    return storage_cast(quantize(im.tensor(x), element), ir.IntegerType.get_signless(8))


def quantization_of(im: Importer, x: ir.Value) -> ir.Type:
    """The quantized type of int8 tensor `x` that a QuantizeLinear or a
    QOperator op made (possibly reshaped or transposed since, which keeps a
    per-tensor quantization)."""
    op = producer(x)
    while op is not None and op.name in op_names(tm.ReshapeOp, tm.TransposeOp):
        op = producer(op.operands[0])
    if op is None or op.name != "quant.scast" or not is_quantized(element_of(op.operands[0])):
        raise im.fail("reads an int8 tensor whose quantization is unknown (not made by a "
                      "QuantizeLinear or QLinear op)")
    return element_of(op.operands[0])


@handles("DequantizeLinear")
def _dequantize_linear(im: Importer, node) -> list:
    return [dequantized(im, 0, 1, 2, int(im.attr("axis", 1)))]


@handles("QuantizeLinear")
def _quantize_linear(im: Importer, node) -> list:
    return [quantized(im, im.arg(0), 1, 2)]
