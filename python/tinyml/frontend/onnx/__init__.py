"""The ONNX frontend: an ONNX model becomes one `func.func` of `tinyml` ops.

    import_onnx(model, batch=1, context=None, name=None) -> ir.Module
    import_onnx_bytes(data, filename, context) -> ir.Module   (tinyml-opt)

What comes out:
- One public `func.func` named after the model (the sanitized graph name, or
  `name`), with `llvm.emit_c_interface`. Its arguments and results are the
  graph's inputs and outputs in the model's own layout (an NCHW model keeps
  NCHW arguments), float32 or int8, each carrying
  `tinyml.name = "<onnx name>"`.
  A symbolic (or unknown) leading dimension becomes `batch`; any other
  dynamic dimension is an error.
- Initializers and `Constant` nodes are compile-time numpy arrays. Shape
  arithmetic on them (Shape, Gather, Slice, Concat, Unsqueeze, Cast, ...) is
  folded at import time; an array becomes an `arith.constant` only where an
  op consumes it as a tensor. Only float32 arrays may become tensors; int64
  shapes, axes and pads are read at import time.
- A quantized model keeps its quantization: QDQ (int8 or uint8) in
  `quantization.py`, onnxruntime's QOperator form (QLinearConv, the
  `com.microsoft` QLinear ops) in `qoperator.py`, both as the same IR.
- The dialect is NHWC. An NCHW op (Conv, pools, BatchNormalization on 4-D)
  is imported as `transpose NCHW->NHWC`, the NHWC op, `transpose
  NHWC->NCHW`; conv weights are re-laid out (OIHW -> HWCF, depthwise ->
  HWCM) at import time. Each op's location names its ONNX node.

The transposes come in pairs that cancel. The recommended cleanup is

    Pipeline.parse("builtin.module(canonicalize,tinyml-cancel-transposes,"
                   "canonicalize)")

after which a tf2onnx model (NHWC input, Transpose, NCHW convs) has no
transposes left and an NCHW model keeps only the transpose of its input
(and one before a Flatten whose spatial size is not 1x1).

Errors raise `FrontendError` with one line: `<file>: <where>: <problem>`,
where `<where>` is `node '<name>' (<OpType>)`, `input '<name>'`, ...

Before anything is built the model must be valid ONNX: every string is
UTF-8; ir_version and each opset exist; graph inputs, outputs and
initializers are listed once, and an initializer that sets an input matches
it; each node's input and output counts and attribute types fit the op's
schema (attributes are only read through `ModelValidation._attribute_value`);
then the ONNX checker and strict shape and type inference pass. No tensor
(input, initializer, inferred intermediate, output, or built value) may
have a negative dimension or reach 2 GiB, which no 32-bit target holds; a
tensor built as an MLIR value also has no zero dimension.

Layout: `validation.py` holds these checks (`ModelValidation`, which the
`Importer` is), `importer.py` the `Importer` that op handlers build with;
each op family is one module (`conv`, `matmul`, `elementwise`, `reduce`,
`shape`, `constant`, `quantization`, `qoperator`) whose handlers register
with `@handles("OpType")` (an op of another domain with
`@handles("OpType", domain=..., attributes=...)`: ONNX has no schema for
it). A new op is a handler in its family's module.
"""
from __future__ import annotations

import os

import onnx
from mlir import ir

from ...ir.context import make_context
from .. import FrontendError
# Importing the op families registers their handlers.
from . import (constant, conv, elementwise, matmul, qoperator, quantization, recurrent,  # noqa: F401
               reduce, shape)
from .importer import HANDLERS, Importer
from .validation import parse_model

__all__ = ["FrontendError", "SUPPORTED_OPS", "import_onnx", "import_onnx_bytes"]

SUPPORTED_OPS: tuple[str, ...] = tuple(sorted(HANDLERS))

def import_onnx(model, batch: int = 1, context: ir.Context | None = None,
                name: str | None = None) -> ir.Module:
    """Imports an ONNX model (path or `onnx.ModelProto`) into a verified
    module of one `func.func`, in `context` (default: the current context,
    else a new one from `make_context()`). `batch` replaces a symbolic or
    unknown leading input dimension; `name` names the function (default:
    the graph name). Raises `FrontendError` on bad input."""
    if isinstance(model, onnx.ModelProto):
        name_is_text = isinstance(model.graph.name, str)  # not when it is not UTF-8
        filename = model.graph.name if name_is_text and model.graph.name else "<onnx model>"
        proto, base_dir = model, None
    else:
        filename = os.fspath(model)
        try:
            with open(filename, "rb") as f:
                data = f.read()
        except OSError as error:
            raise FrontendError(f"{filename}: cannot read: {error.strerror}") from None
        proto, base_dir = parse_model(data, filename), os.path.dirname(os.path.abspath(filename))
    context = context or ir.Context.current or make_context()
    with context, ir.Location.unknown(context):
        module = Importer(proto, filename, batch, name, base_dir).run()
        try:
            module.operation.verify()
        except ir.MLIRError as error:
            detail = error.error_diagnostics[0].message if error.error_diagnostics \
                else error.message
            raise FrontendError(f"{filename}: imported IR does not verify: "
                                f"{detail.splitlines()[0]}") from None
    return module


def import_onnx_bytes(data: bytes, filename: str, context: ir.Context) -> ir.Module:
    """Imports serialized ONNX; the module is not verified (the caller does
    it and reports the diagnostics). Raises `FrontendError` on bad input."""
    proto = parse_model(data, filename)
    base_dir = os.path.dirname(os.path.abspath(filename)) if os.path.exists(filename) else None
    with context, ir.Location.unknown(context):
        return Importer(proto, filename, 1, None, base_dir).run()

