"""Turning MLIR diagnostics and tinyml errors into one-line messages, and
locations into the model's names."""
from __future__ import annotations

import re

from mlir import ir

# Locations are read from their printed form: the bindings' accessors
# (`name_str`, `filename`) abort the process on a name that is not UTF-8
# (`loc("R\FFelu")` in a .mlir file), where the printer escapes it.
_NAME = re.compile(r'loc\("((?:[^"\\]|\\.)*)"')
_ESCAPE = re.compile(r"\\([0-9A-Fa-f]{2})")


def node_name(location: ir.Location) -> str | None:
    """The model's node a location names (`loc("Conv_0"(...))`), or None;
    bytes that are not UTF-8 become U+FFFD."""
    while location.is_a_callsite():
        location = location.callee
    if not location.is_a_name():
        return None
    match = _NAME.match(str(location))
    if match is None:
        return None
    raw = _ESCAPE.sub(lambda m: chr(0xDC00 + int(m.group(1), 16)) if int(m.group(1), 16) > 0x7F
                      else chr(int(m.group(1), 16)), match.group(1))
    return raw.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


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
