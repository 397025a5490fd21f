"""tinyml-integer-conversions: quantize and dequantize with integer
arithmetic only, for cores without an FPU.

A quantized model with float inputs or outputs converts at its edges:
`tinyml.quantize` (float32 -> int8) and `tinyml.dequantize` (int8 ->
float32). On a core without an FPU each would need soft-float routines the
firmware may not have; both are exact functions that tinyml tabulates at
compile time instead:

- dequantize has 256 results, one per int8 value: a table of their float32
  bit patterns, each `scale * (q - zero_point)` rounded as float32 (what
  the FPU computes, and TFLite's DEQUANTIZE);
- quantize is a non-decreasing step function of its float32 input, so it
  is fixed by the 255 inputs where it steps: the smallest float32 that
  reaches each int8 value, found at compile time by bisection over float32
  (numpy computes the op's own arithmetic: a float32 division, the op's
  rounding, the zero point, saturation). At run time the input's bits,
  made an integer of the same order (`bits ^ ((bits >> 31) & 0x7fffffff)`),
  are placed among the thresholds in 8 steps of a binary search.

Both give the float computation's result bit for bit, for every input (a
NaN goes to the end of its sign). Per-axis dequantize stays as it is.
"""
from __future__ import annotations

import numpy as np
from mlir import ir
from mlir.dialects import arith, quant, tensor

from ..dialects import tinyml as tm
from ..ir.quant import is_per_axis, quantized_values
from ..ir.values import element_of, shape_of
from ..ir.walk import functions
from ..pipeline.registry import Pass, register
from .linalg_builders import apply_lowering, build_elementwise, int_constant, int_scalar
from .quantized_lowering import storage_of, with_quantized_result

INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1
SIGN_CLEARED = 0x7FFFFFFF


def _floats_of_keys(keys: np.ndarray) -> np.ndarray:
    """The float32 values of order keys (the inverse of `_key`)."""
    keys = np.asarray(keys, np.int64)
    bits = np.where(keys >= 0, keys, keys ^ SIGN_CLEARED).astype(np.int32)
    return bits.view(np.float32)


def quantize_thresholds(scale: float, zero_point: int, ties_away: bool) -> np.ndarray:
    """T[k], k = 1..255: the order key of the smallest float32 quantized to
    -128 + k or more (T[0] = INT32_MIN, never chosen)."""
    targets = np.arange(-127, 128, dtype=np.int64)
    # The lowest key (a negative NaN) quantizes to -128, below every target;
    # the highest (a positive NaN) to 127, which reaches each.
    low = np.full(targets.shape, INT32_MIN, np.int64)
    high = np.full(targets.shape, INT32_MAX, np.int64)
    while True:
        open_ = high - low > 1
        if not open_.any():
            break
        middle = (low + high) // 2
        reaches = quantized_values(_floats_of_keys(middle), scale, zero_point, ties_away) >= targets
        high = np.where(open_ & reaches, middle, high)
        low = np.where(open_ & ~reaches, middle, low)
    return np.concatenate([[INT32_MIN], high]).astype(np.int32)


def dequantize_table(scale: float, zero_point: int) -> np.ndarray:
    """The float32 bits of scale * (q - zp) for q = -128..127."""
    q = np.arange(-128, 128, dtype=np.float32)
    return ((q - np.float32(zero_point)) * np.float32(scale)).view(np.int32)


def _i(bits: int) -> ir.IntegerType:
    return ir.IntegerType.get_signless(bits)


def integer_quantize(op) -> ir.Value:
    element = quant.UniformQuantizedType(element_of(op.results[0]))
    thresholds = int_constant(quantize_thresholds(
        element.scale, element.zero_point, "ties_away_from_zero" in op.attributes), 32)
    result_type = ir.RankedTensorType.get(shape_of(op.results[0]), _i(8))

    def body(_, args):
        bits = arith.bitcast(_i(32), args[0])
        key = arith.xori(bits, arith.andi(arith.shrsi(bits, int_scalar(31, 32)),
                                          int_scalar(SIGN_CLEARED, 32)))
        position = int_scalar(0, 32)
        for step in (128, 64, 32, 16, 8, 4, 2, 1):
            candidate = arith.addi(position, int_scalar(step, 32))
            threshold = tensor.extract(thresholds,
                                       [arith.index_cast(ir.IndexType.get(), candidate)])
            position = arith.select(arith.cmpi(arith.CmpIPredicate.sge, key, threshold),
                                    candidate, position)
        return arith.trunci(_i(8), arith.subi(position, int_scalar(128, 32)))

    return with_quantized_result(op, build_elementwise(result_type, [op.operands[0]], body))


def integer_dequantize(op) -> ir.Value:
    element = quant.UniformQuantizedType(element_of(op.operands[0]))
    table = int_constant(dequantize_table(element.scale, element.zero_point), 32)
    result_type = ir.RankedTensorType.get(shape_of(op.results[0]), ir.F32Type.get())

    def body(_, args):
        offset = arith.addi(arith.extsi(_i(32), args[0]), int_scalar(128, 32))
        bits = tensor.extract(table, [arith.index_cast(ir.IndexType.get(), offset)])
        return arith.bitcast(ir.F32Type.get(), bits)

    return build_elementwise(result_type, [storage_of(op.operands[0])], body)


@register
class IntegerConversions(Pass):
    name = "tinyml-integer-conversions"
    summary = ("Lower per-tensor quantize and dequantize with integer arithmetic only "
               "(thresholds, a table): the float result, for cores without an FPU")
    options = ()

    def apply(self, module):
        for func in functions(module):
            for op in list(func.regions[0].blocks[0].operations):
                op = op.operation
                if op.name == tm.QuantizeOp.OPERATION_NAME:
                    apply_lowering(op, integer_quantize)
                elif op.name == tm.DequantizeOp.OPERATION_NAME \
                        and not is_per_axis(element_of(op.operands[0])):
                    apply_lowering(op, integer_dequantize)
