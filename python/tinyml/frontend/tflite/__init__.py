"""The TFLite frontend: a `.tflite` flatbuffer becomes one `func.func` of
`tinyml` ops, the same IR the ONNX frontend makes of the model's tf2onnx
conversion once both are cleaned up.

    import_tflite(model, batch=1, context=None, name=None) -> ir.Module
    import_tflite_bytes(data, filename, context) -> ir.Module   (tinyml-opt)
    is_tflite(data) -> bool

The file is read with the `tflite` package (the flatbuffers reader
generated from TFLite's schema.fbs, pinned in pyproject.toml): it is
maintained with the schema, and it reads the file in place, where
generating our own reader would copy a schema we would then have to keep
up to date. A file is recognised by its content (the `TFL3` identifier at
byte 4), not its extension.

What comes out:
- One public `func.func` named after the model (the file name up to its
  first dot, or `name`), its arguments and results the subgraph's inputs
  and outputs, each carrying `tinyml.name = "<tensor name>"`.
- A dynamic batch (-1 first in a tensor's shape signature, as
  TFLiteConverter writes every Keras model) is fixed to `batch` (TFLM runs
  such a model at 1; the function records it as `tinyml.batch`). The shape
  computations a dynamic batch brings (Keras's `Flatten`: SHAPE ->
  STRIDED_SLICE -> PACK -> RESHAPE) are then evaluated at import time
  (`shape_folding.py`). Any other unknown dimension is refused, naming the
  tensor.
- NHWC stays NHWC: no transposes. Conv weights (OHWI) become HWCF,
  depthwise weights (1HWC) HWCM, FULLY_CONNECTED weights ([out, in]) the
  right operand of a matmul with `transpose_rhs`, at import time.
- An int8 tensor is int8 between ops: each op reads its int8 operands
  through `quant.scast` + `tinyml.dequantize`, computes in float, and its
  result is `tinyml.quantize`d to the output tensor's parameters, read
  straight from the file (per tensor, or per channel along
  `quantized_dimension`). This is what the ONNX frontend makes of a QDQ
  model; `tinyml-quantize-ops` then turns each such op into its integer
  form. A fused activation (RELU, RELU6, RELU_N1_TO_1) is the float op
  before the quantize, which becomes the result type's stored range.
- Hybrid models (int8 weights, float activations) compute in float with
  their weights dequantized at compile time (the constant folder folds the
  dequantize away): TFLite's hybrid kernels, which quantize activations on
  the fly, are not reproduced.

Errors raise `FrontendError` with one line: `<file>: operator <i>
(<TYPE>): <problem>` or `<file>: tensor '<name>': <problem>`.
"""
from __future__ import annotations

from . import control_flow, int16_layers, integer_operators, operators, svdf  # noqa: F401
from .. import is_tflite
from .importer import import_tflite, import_tflite_bytes

__all__ = ["import_tflite", "import_tflite_bytes", "is_tflite"]
