"""Turning MLIR diagnostics and tinyml errors into one-line messages."""
from __future__ import annotations

from mlir import ir


def location_prefix(location: ir.Location) -> str:
    """`file:line:col` for a file location (looking through names and
    call sites), else the location's text."""
    try:
        if location.is_a_file():
            return f"{location.filename}:{location.start_line}:{location.start_col}"
    except (AttributeError, ValueError):
        pass
    text = str(location)
    return text[4:-1] if text.startswith("loc(") and text.endswith(")") else text


_SEVERITY = {
    ir.DiagnosticSeverity.ERROR: "error",
    ir.DiagnosticSeverity.WARNING: "warning",
    ir.DiagnosticSeverity.NOTE: "note",
    ir.DiagnosticSeverity.REMARK: "remark",
}


def severity_name(severity) -> str:
    return _SEVERITY.get(severity, "error")


def format_diagnostic(diagnostic) -> str:
    """`file:line:col: error: message`, notes on the following lines."""
    lines = [f"{location_prefix(diagnostic.location)}: "
             f"{severity_name(diagnostic.severity)}: {diagnostic.message}"]
    lines += [format_diagnostic(note) for note in diagnostic.notes]
    return "\n".join(lines)


def format_mlir_error(error: ir.MLIRError) -> str:
    if error.error_diagnostics:
        return "\n".join(format_diagnostic(d) for d in error.error_diagnostics)
    return f"error: {error.message}"
