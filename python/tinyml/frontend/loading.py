"""What `tinyml.compile` accepts as a model, made a tinyml module.

A model is an .onnx, .tflite or .mlir file, an `onnx.ModelProto` or an
`ir.Module` already in the tinyml dialect. A file is told by its content
where the suffix can lie (a TFLite flatbuffer says so at byte 4), else by
its suffix. Every verdict on the model is a one-line `CompileError`; the
frontends are imported only for the format at hand.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable

from mlir import ir

from ..abi import model_name
from ..errors import CompileError, mlir_error, one_line
from ..ir.parser_traps import parser_traps
from ..safe_io import unreadable_reason
from . import FrontendError, import_onnx, is_tflite


def load_model(model: Any, context: ir.Context, batch: int = 1,
               streaming: bool = False) -> tuple[ir.Module, str | None]:
    """The model as a tinyml module in `context` (a fresh copy: the caller's
    module is never modified) and a name for it (None: use the function's).
    `streaming` (TFLite only) makes its variables state inputs and outputs."""
    try:
        import onnx
    except ImportError:  # pragma: no cover - onnx is a dependency
        onnx_model = False
    else:
        onnx_model = isinstance(model, onnx.ModelProto)
    path_given = isinstance(model, (str, os.PathLike))
    # An unreadable file is said so below.
    if streaming and not (path_given and (unreadable_reason(Path(model))
                                          or _is_tflite_file(Path(model)))):
        raise CompileError("streaming applies to a TFLite model's variable tensors; an ONNX or "
                           "MLIR model carries its state as inputs and outputs already")
    if onnx_model:
        return _import_onnx(model, context, batch), model_name(model.graph.name)
    if isinstance(model, ir.Module):
        text = model.operation.get_asm(binary=False, enable_debug_info=True)
        with context:
            try:
                return ir.Module.parse(text, context), None
            except ir.MLIRError as error:
                raise mlir_error("cannot copy the module: ", error) from None
    if isinstance(model, (str, os.PathLike)):
        path = Path(model)
        reason = unreadable_reason(path)
        if reason:
            raise CompileError(f"cannot open model '{path}': {reason}")
        name = model_name(path.name.split(".")[0])  # kws.tf2onnx.onnx -> kws
        if path.suffix == ".mlir":
            return _parse_mlir(path, context), name
        if _is_tflite_file(path):
            return _import_tflite(path, context, batch, streaming), name
        return _import_onnx(str(path), context, batch), name
    raise CompileError(f"cannot compile a {type(model).__name__}: expected a path, "
                       "an onnx.ModelProto or an ir.Module")


def entry_function(module: ir.Module, entry: str | None = None) -> ir.Operation:
    """The public func.func to compile: `entry`, else the only public one."""
    candidates = []
    for op in module.body.operations:
        op = op.operation
        if op.name != "func.func":
            continue
        name = ir.StringAttr(op.attributes["sym_name"]).value
        visibility = op.attributes["sym_visibility"] if "sym_visibility" in op.attributes else None
        if entry is not None:
            if name == entry:
                return op
        elif visibility is None or ir.StringAttr(visibility).value == "public":
            candidates.append(op)
    if entry is not None:
        raise CompileError(f"the model has no function '{entry}'")
    if len(candidates) != 1:
        names = ", ".join(ir.StringAttr(op.attributes["sym_name"]).value for op in candidates)
        raise CompileError(f"expected one public function, found {len(candidates)}"
                           + (f" ({names}): pass entry=" if candidates else ""))
    return candidates[0]


def _parse_mlir(path: Path, context: ir.Context) -> ir.Module:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise CompileError(f"cannot parse '{path}': not a text file") from None
    traps = parser_traps(text)  # text the upstream parser aborts on
    if traps:
        raise CompileError(f"cannot parse '{path}': {path}:{traps[0].line}:"
                           f"{traps[0].column}: {traps[0].message}")
    with context, ir.Location.unknown(context):
        try:
            return ir.Module.parse(text, context)
        except ir.MLIRError as error:
            raise mlir_error(f"cannot parse '{path}': ", error, str(path)) from None


def _is_tflite_file(path: Path) -> bool:
    """Whether the file at `path` is a TFLite flatbuffer, by its content."""
    try:
        with open(path, "rb") as f:
            return is_tflite(f.read(8))
    except OSError:
        return False


def _import_onnx(model: Any, context: ir.Context, batch: int) -> ir.Module:
    return _imported(lambda: import_onnx(model, batch=batch, context=context), context)


def _import_tflite(path: Path, context: ir.Context, batch: int,
                   streaming: bool) -> ir.Module:
    from .tflite import import_tflite  # the flatbuffers reader, for TFLite files only
    return _imported(lambda: import_tflite(str(path), context=context, batch=batch,
                                           streaming=streaming), context)


def _imported(run_frontend: Callable[[], ir.Module], context: ir.Context) -> ir.Module:
    """The module a frontend imports, its verdicts on the model as
    CompileErrors."""
    with context, ir.Location.unknown(context):
        try:
            return run_frontend()
        except ir.MLIRError as error:
            raise mlir_error("cannot import the model: ", error) from None
        except FrontendError as error:
            # Only the frontend's verdicts on the model are the user's errors;
            # any other exception is a defect and must reach the CLI as one.
            raise CompileError(one_line(error)) from None
