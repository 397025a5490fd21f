"""The errors of the user-facing API: what `tinyml.compile` refuses
(`CompileError`) and what a compiled model refuses to run or load
(`RunError`). Each message is one line, for the CLI to print as it is;
loading, the ABI, the driver and the compiled model all raise them."""
from __future__ import annotations

import re

from mlir import ir

from .ir.diagnostics import format_mlir_error


class CompileError(Exception):
    """The model cannot be compiled (bad input, unsupported op, unknown
    target). The message is one line; `details` holds every MLIR
    diagnostic when there are several."""

    def __init__(self, message: str, details: str | None = None):
        super().__init__(message)
        self.details = details or message


class RunError(ValueError):
    """Inputs that do not match the compiled model's signature, or a
    compiled folder that is not sound."""


def mlir_error(prefix: str, error: ir.MLIRError, source: str | None = None) -> CompileError:
    """`error` as a CompileError whose message is `prefix` and its first
    diagnostic. `source`: the file the parsed text came from, which the
    parser (given a string) calls `-`."""
    details = format_mlir_error(error)
    if source is not None:
        details = re.sub(r"^-:", lambda _: f"{source}:", details, flags=re.MULTILINE)
    first = details.strip().splitlines()[0] if details.strip() else error.message
    return CompileError(f"{prefix}{first}", details)


def one_line(error: BaseException) -> str:
    """An exception's message on one line (its type's name when empty)."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return " ".join(lines) or type(error).__name__
