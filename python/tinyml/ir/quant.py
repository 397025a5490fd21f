"""Quantized tensors in the IR: upstream's `quant` dialect types, and the
three casts between representations.

A quantized model's int8 data is a tensor of a uniform quantized type,
`!quant.uniform<i8:f32, 0.0235:-128>` per tensor or
`!quant.uniform<i8:f32:3, {0.01, 0.02, ...}>` per axis (weights), whose
real value is `scale * (q - zero_point)`:

    quant.scast        tensor<..xi8>       <-> tensor<..x!quant.uniform<...>>
    tinyml.dequantize  tensor<..x!quant..>  -> tensor<..xf32>
    tinyml.quantize    tensor<..xf32>       -> tensor<..x!quant..>

`quant.scast` only renames the bits. Upstream's `quant.dcast`/`quant.qcast`
are not used: `dcast(qcast(x))` folds to `x` in upstream's canonicalizer,
which drops a rounding that is part of a quantized model.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
from mlir import ir
from mlir.dialects import quant

from ..dialects import tinyml as tm
from .builders import build

#: Storage types tinyml reads: int8 data and weights, int32 biases, and
#: the int16 result of an int8 softmax (TFLite's keyword models).
STORAGE_BITS = {np.dtype(np.int8): 8, np.dtype(np.int16): 16, np.dtype(np.int32): 32}


def _storage_type(dtype) -> ir.IntegerType:
    return ir.IntegerType.get_signless(STORAGE_BITS[np.dtype(dtype)])


def uniform_type(scales: Sequence[float] | np.ndarray, zero_points: Sequence[int] | np.ndarray,
                 dtype=np.int8, axis: int | None = None) -> ir.Type:
    """The quantized element type: per tensor when `axis` is None (one
    scale and zero point), else per axis `axis`. The storage range is the
    whole of `dtype`'s."""
    storage = _storage_type(dtype)
    info = np.iinfo(dtype)
    f32 = ir.F32Type.get()
    flags = quant.UniformQuantizedType.FLAG_SIGNED
    if axis is None:
        return quant.UniformQuantizedType.get(flags, storage, f32, float(scales[0]),
                                              int(zero_points[0]), int(info.min), int(info.max))
    return quant.UniformQuantizedPerAxisType.get(
        flags, storage, f32, [float(s) for s in scales], [int(z) for z in zero_points],
        axis, int(info.min), int(info.max))


def _parameters(element: ir.Type):
    return quant.UniformQuantizedPerAxisType(element) if is_per_axis(element) \
        else quant.UniformQuantizedType(element)


def scales(element: ir.Type) -> list[float]:
    """The scale of a quantized type, or its scales along its axis."""
    params = _parameters(element)
    return list(params.scales) if is_per_axis(element) else [params.scale]


def zero_points(element: ir.Type) -> list[int]:
    """The zero point of a quantized type, or its zero points along its axis."""
    params = _parameters(element)
    return list(params.zero_points) if is_per_axis(element) else [params.zero_point]


def storage_type(element: ir.Type) -> ir.IntegerType:
    """The integer type a quantized type's values are stored in."""
    return _parameters(element).storage_type


def with_storage_range(element: ir.Type, low: int, high: int) -> ir.Type:
    """A per-tensor quantized type whose stored values stay in [low, high]:
    how a fused activation (TFLite's activation range) reads in the IR."""
    params = quant.UniformQuantizedType(element)
    return quant.UniformQuantizedType.get(params.flags, params.storage_type,
                                          params.expressed_type, params.scale,
                                          params.zero_point, low, high)


QUANT_CASTS = ("quant.scast", tm.QuantizeOp.OPERATION_NAME, tm.DequantizeOp.OPERATION_NAME)


def is_quantized(element: ir.Type) -> bool:
    """Whether an element type is uniform quantized (per tensor or per axis)."""
    return isinstance(element, (quant.UniformQuantizedType, quant.UniformQuantizedPerAxisType))


def is_per_axis(element: ir.Type) -> bool:
    return isinstance(element, quant.UniformQuantizedPerAxisType)


def is_int8_per_tensor(element: ir.Type) -> bool:
    return is_quantized(element) and not is_per_axis(element) \
        and storage_type(element).width == 8


def quantized_values(x: np.ndarray, scale: float, zero_point: int,
                     ties_away: bool = False) -> np.ndarray:
    """What `tinyml.quantize` computes of float32 values, in numpy: a
    float32 division, rounding half to even (or, `ties_away`, half away
    from zero), the zero point, saturation to int8; a NaN goes to the end
    of its sign."""
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        scaled = np.asarray(x, np.float32) / np.float32(scale)
        rounded = np.where(np.abs(scaled - np.trunc(scaled)) == 0.5,
                           np.trunc(scaled) + np.sign(scaled), np.rint(scaled)) \
            if ties_away else np.rint(scaled)
        clamped = np.clip(rounded, -128 - zero_point, 127 - zero_point)
    nan = np.isnan(clamped)
    clamped = np.where(nan, np.where(np.signbit(x), -128 - zero_point, 127 - zero_point), clamped)
    return clamped.astype(np.int64) + zero_point


def has_quantized_data(op: ir.Operation) -> bool:
    """Whether an operand or result of `op` is a tensor of quantized type."""
    return any(isinstance(v.type, ir.RankedTensorType) and is_quantized(v.type.element_type)
               for v in list(op.operands) + list(op.results))


def quant_cast(name: str, value: ir.Value, element: ir.Type, loc=None) -> ir.Value:
    """`value` as tensors of `element`, through `name` (one of QUANT_CASTS)."""
    result_type = ir.RankedTensorType.get(ir.RankedTensorType(value.type).shape, element)
    if name == "quant.scast":  # upstream's Python bindings have no class for it
        return ir.Operation.create(name, results=[result_type], operands=[value],
                                   loc=loc).result
    return build(name, [result_type], [value], {}, loc=loc).result


def storage_cast(value: ir.Value, element: ir.Type, loc=None) -> ir.Value:
    """`quant.scast`: the same bits seen as `element` (int8 <-> quantized)."""
    return quant_cast("quant.scast", value, element, loc)


def dequantize(value: ir.Value, loc=None) -> ir.Value:
    """`tinyml.dequantize`: a quantized tensor as float32."""
    return quant_cast(tm.DequantizeOp.OPERATION_NAME, value, ir.F32Type.get(), loc)


def quantize(value: ir.Value, element: ir.Type, loc=None) -> ir.Value:
    """`tinyml.quantize`: a float32 tensor rounded to the quantized `element`."""
    return quant_cast(tm.QuantizeOp.OPERATION_NAME, value, element, loc)
