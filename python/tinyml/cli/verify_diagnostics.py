"""The `--verify-diagnostics` convention of mlir-opt:
`// expected-error @+1 {{text}}` expects an error on the next line whose
message contains `text` (also @-N, @above, @below, and no offset for the same
line; `expected-warning`, `-note`, `-remark` likewise). Every diagnostic must
be expected and every expectation met."""
from __future__ import annotations

import re
from dataclasses import dataclass

_EXPECTATION = re.compile(
    r"expected-(error|warning|note|remark)\s*(@[+-]?\w+)?\s*\{\{(.*?)\}\}")


@dataclass
class Expectation:
    severity: str
    line: int
    text: str
    written_at: int
    met: bool = False


@dataclass(frozen=True)
class Reported:
    severity: str
    line: int | None
    message: str
    prefix: str


def parse_expectations(source: str) -> list[Expectation]:
    expectations = []
    for number, line in enumerate(source.splitlines(), start=1):
        for match in _EXPECTATION.finditer(line):
            severity, offset, text = match.groups()
            expectations.append(Expectation(severity, _target_line(number, offset), text, number))
    return expectations


def _target_line(line: int, offset: str | None) -> int:
    if not offset:
        return line
    offset = offset[1:]
    if offset == "above":
        return line - 1
    if offset == "below":
        return line + 1
    return line + int(offset)


def check(expectations: list[Expectation], reported: list[Reported], filename: str) -> list[str]:
    """Returns one message per mismatch; empty when all agree."""
    problems = []
    for diagnostic in reported:
        match = next((e for e in expectations if not e.met
                      and e.severity == diagnostic.severity and e.line == diagnostic.line
                      and e.text in diagnostic.message), None)
        if match:
            match.met = True
        else:
            problems.append(f"{diagnostic.prefix}: error: unexpected {diagnostic.severity}: "
                            f"{diagnostic.message}")
    for e in expectations:
        if not e.met:
            problems.append(f"{filename}:{e.written_at}: error: expected {e.severity} "
                            f"\"{e.text}\" was not produced")
    return problems
