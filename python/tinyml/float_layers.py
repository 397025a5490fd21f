"""The layers of a quantized model that do not compute in integers: refused
on a core without an FPU, listed in the report elsewhere (never silently
less exact than the reference)."""
from __future__ import annotations

from mlir import ir

from .dialects import tinyml as tm
from .errors import CompileError
from .ir.diagnostics import location_prefix, node_name
from .ir.ops import op_names
from .ir.quant import is_per_axis, storage_type
from .ir.values import element_of
from .report import FloatLayer
from .targets import TARGETS, Target


#: Ops that hold float32 values without computing: constants, and a
#: recurrent layer's output sequence before its steps fill it.
_STORAGE = frozenset({"arith.constant", "bufferization.alloc_tensor"})


def _computes_in_float(op: ir.Operation) -> bool:
    return op.name not in _STORAGE and any(
        isinstance(v.type, ir.RankedTensorType) and isinstance(v.type.element_type, ir.F32Type)
        for v in list(op.operands) + list(op.results))


def refuse_float_layers(func: ir.Operation, spec: Target) -> None:
    """A target without an FPU runs integer models only: the first op that
    computes in float32 (a float model, or a layer of a quantized model
    with no integer kernel yet) is the error. Per-tensor quantize and
    dequantize of int8 (a float-edged model's edges) lower with integers
    there; of int16 (a 16x8 model's) they would take 64K-entry tables."""
    target = f"{spec.name} has no FPU" if spec.float_abi != "soft" or not TARGETS[spec.name].fpu \
        else f"{spec.name} with the soft float ABI uses no FPU"
    for op in func.regions[0].blocks[0].operations:
        op = op.operation
        quantized = element_of(op.results[0] if op.name == tm.QuantizeOp.OPERATION_NAME
                               else op.operands[0]) \
            if op.name in _EXACT_CONVERSIONS else None
        if quantized is not None and storage_type(quantized).width == 16:
            raise CompileError(f"{target}: '{op.name}' at "
                               f"{location_prefix(op.location)} converts between float32 and "
                               "int16; give the 16x8 model int16 inputs and outputs (the "
                               "converter's inference_input_type and inference_output_type "
                               "tf.int16)")
        conversion = op.name == tm.QuantizeOp.OPERATION_NAME or (
            op.name == tm.DequantizeOp.OPERATION_NAME and not is_per_axis(quantized))
        if _computes_in_float(op) and not conversion and op.name != "func.return":
            raise CompileError(f"{target}: only integer models whose every layer "
                               f"has an integer kernel compile for it; '{op.name}' at "
                               f"{location_prefix(op.location)} computes in float32")


#: Ops that compute in float32 in a quantized model exactly as TFLite and
#: onnxruntime do: the conversions at a float-edged model's boundary.
_EXACT_CONVERSIONS = op_names(tm.QuantizeOp, tm.DequantizeOp)


def float_layers(func: ir.Operation) -> list[FloatLayer]:
    """The layers of a quantized model that compute in float32 where its
    reference (TFLM's int8 kernels) computes in integers: each op with no
    integer kernel left between a dequantize and a quantize, by layer (its
    location) and op. Empty for a float model."""
    ops = [op.operation for op in func.regions[0].blocks[0].operations]
    if not any(op.name in _EXACT_CONVERSIONS for op in ops):
        return []
    return [FloatLayer(node_name(op.location) or location_prefix(op.location), op.name)
            for op in ops
            if _computes_in_float(op) and op.name not in (*_EXACT_CONVERSIONS, "func.return")]
