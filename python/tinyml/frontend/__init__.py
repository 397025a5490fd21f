"""Frontends: turn a trained model into a module of the `tinyml` dialect.

`import_onnx(model, batch=1, context=None, name=None)` imports an ONNX model
(a path or an `onnx.ModelProto`) into one `func.func`; see
`tinyml.frontend.onnx` for what it accepts and produces. Errors in the model
(including a model that is not valid ONNX, or a tensor no 32-bit target
holds) raise `FrontendError`, a `ValueError` whose message is one line
naming the file, the node or tensor and the problem. Any other exception
from the frontend is a defect in tinyml, not a verdict on the model.

The imported IR is faithful to the model: an NCHW op is wrapped in
transposes to and from the NHWC layout of the dialect. The recommended
cleanup that leaves only the transposes the model really needs is

    Pipeline.parse("builtin.module(canonicalize,tinyml-cancel-transposes,"
                   "canonicalize)")

This package does not import `onnx` (nor the TFLite reader) until a frontend
function is used, so that tools can catch `FrontendError` and recognise a
TFLite file (`is_tflite`) without paying for it.
"""
from __future__ import annotations

import re


class FrontendError(ValueError):
    """The model cannot be imported; the message is one line saying where
    (`<file>: node '<name>' (<OpType>): ...`) and why."""


def function_name(name: str) -> str:
    """A model's name as the name of its function (and C symbol)."""
    name = re.sub(r"[^A-Za-z0-9_]", "_", name or "").strip("_")
    if not name:
        return "model"
    return f"m_{name}" if name[0].isdigit() else name


def mark_batch(fn, batch: int) -> None:
    """Records on the imported function that its dynamic batch is `batch`
    (`--batch`, default 1)."""
    from mlir import ir

    from ..report_attributes import BATCH
    fn.attributes[BATCH] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), batch)


#: The file identifier of a TFLite flatbuffer, at byte 4.
TFLITE_IDENTIFIER = b"TFL3"


def is_tflite(data: bytes) -> bool:
    """Whether `data` is a TFLite flatbuffer (by its file identifier)."""
    return len(data) >= 8 and data[4:8] == TFLITE_IDENTIFIER


def import_onnx(model, batch: int = 1, context=None, name: str | None = None):
    from .onnx import import_onnx as _import_onnx
    return _import_onnx(model, batch=batch, context=context, name=name)


def import_onnx_bytes(data: bytes, filename: str, context):
    from .onnx import import_onnx_bytes as _import_onnx_bytes
    return _import_onnx_bytes(data, filename, context)


__all__ = ["FrontendError", "import_onnx", "import_onnx_bytes", "is_tflite"]
