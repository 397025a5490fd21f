"""MLIR text that makes the upstream parser abort instead of reporting an
error (the wheels are built with assertions on), found by a cheap scan of
the text before it reaches the parser, so the user gets a located error
rather than a crash. Each check mirrors what the upstream parser accepts;
anything it does not recognise is left to the parser (and to the crash
guard of the command-line tools).

- `linalg.transpose ... permutation = [...]`, `linalg.broadcast / reduce
  ... dimensions = [...]` (custom form): the value must be `[` integers that
  fit in 64 bits, separated by commas `]`. Upstream stores whatever it
  parsed as the attribute, a null one on a syntax error, and asserts.
- `llvm.extractvalue` / `llvm.insertvalue` positions (custom and generic
  form) must fit in 32 bits, as LLVM's own do: a larger one is truncated
  during parsing and checked untruncated later, and an index out of range
  asserts (in the parser, or later in a pass such as sccp).
- `array<index ...>`: a dense array of `index` elements, whose bit width
  the parser asks for and asserts on.
"""
from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Trap:
    line: int
    column: int
    message: str


# String literals and comments are blanked out (same length, so positions
# stay) before scanning, except strings that are a whole op name: the
# generic form `"llvm.extractvalue"(...)` must stay visible.
_STRING_OR_COMMENT = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*')
_OP_NAME_STRING = re.compile(r'"[A-Za-z_][\w$]*(?:\.[\w$]+)+"')

_DENSE_ARRAY_OP = re.compile(r'(?<![\w."])linalg\.(transpose|broadcast|reduce)\b')
_DENSE_ARRAY_KEYWORD = {"transpose": "permutation", "broadcast": "dimensions",
                        "reduce": "dimensions"}
_DIGITS = r"(?:0x[0-9a-fA-F]+|\d+)"
_INTEGER = rf"(-?)\s*({_DIGITS})"
_INTEGER_LIST = re.compile(rf"\[\s*(?:{_INTEGER}\s*(?:,\s*{_INTEGER}\s*)*)?\]")

# The position list of the custom form `llvm.extractvalue %s[0, 1]` and of
# the generic form `"llvm.extractvalue"(%s) <{position = array<i64: 0, 1>}>`.
_AGGREGATE_POSITIONS = (
    re.compile(r'(?<![\w."])(llvm\.(?:extract|insert)value)\s[^\[\n]*\[([^\]\n]*)\]'),
    re.compile(r'"(llvm\.(?:extract|insert)value)"[^\n]*?\bposition\s*=\s*'
               r'array<\s*i64\s*:([^>\n]*)>'),
)

_INDEX_DENSE_ARRAY = re.compile(r"\barray\s*<\s*index\b")


def parser_traps(source: str) -> list[Trap]:
    """The places in `source` (MLIR text) that would crash the parser,
    each with a one-line message; empty for almost every input."""
    text = _STRING_OR_COMMENT.sub(_blank, source)
    found = [*_dense_array_traps(text), *_aggregate_position_traps(text),
             *((match.start(), "a dense array cannot hold 'index' elements; use i32 or i64")
               for match in _INDEX_DENSE_ARRAY.finditer(text))]
    return sorted((_located(source, offset, message) for offset, message in found),
                  key=lambda trap: (trap.line, trap.column))


def _blank(match: re.Match) -> str:
    literal = match.group()
    if _OP_NAME_STRING.fullmatch(literal):
        return literal
    if literal.startswith('"'):
        return '"' + " " * (len(literal) - 2) + '"'
    return " " * len(literal)


def _integer(literal: str) -> int:
    """An MLIR integer literal: decimal (leading zeros allowed) or 0x hex."""
    negative = literal.startswith("-")
    digits = literal.lstrip("-")
    value = int(digits, 16) if digits.startswith("0x") else int(digits)
    return -value if negative else value


def _located(source: str, offset: int, message: str) -> Trap:
    line_start = source.rfind("\n", 0, offset) + 1
    return Trap(source.count("\n", 0, offset) + 1, offset - line_start + 1, message)


def _dense_array_traps(text: str):
    for op in _DENSE_ARRAY_OP.finditer(text):
        keyword = _DENSE_ARRAY_KEYWORD[op.group(1)]
        value = _dense_array_value(text, op.end(), keyword)
        if value is None:
            continue  # not the custom form the upstream parser would get to
        where = f"'{keyword}' of linalg.{op.group(1)}"
        listed = _INTEGER_LIST.match(text, value)
        if listed is None:
            yield value, f"{where} must be a list of integers such as [1, 0]"
            continue
        for sign, digits in re.findall(_INTEGER, listed.group()):
            if not -(2 ** 63) <= _integer(sign + digits) < 2 ** 63:
                yield value, f"{where} has {sign}{digits}, which does not fit in 64 bits"
                break


def _dense_array_value(text: str, start: int, keyword: str) -> int | None:
    """Where the value after `keyword =` starts, following the custom form
    `[{payload}] [ins(...)] [outs(...)] keyword = value` (upstream parses
    `ins` and `outs` only when present, then the keyword); None if the text
    differs from that form before the value."""
    position: int | None  # None once the text differs from the form
    position = _skip_space(text, start)
    if text.startswith("{", position):  # linalg.reduce's short payload form
        position = _skip_balanced(text, position, "{", "}")
    for word in ("ins", "outs"):
        if position is None:
            return None
        position = _skip_space(text, position)
        if text.startswith(word, position):
            position = _skip_balanced(text, _skip_space(text, position + len(word)), "(", ")")
    if position is None:
        return None
    assignment = re.compile(rf"\s*{keyword}\s*=\s*").match(text, position)
    return assignment.end() if assignment else None


def _skip_space(text: str, position: int) -> int:
    while position < len(text) and text[position].isspace():
        position += 1
    return position


def _skip_balanced(text: str, position: int, opening: str, closing: str) -> int | None:
    """The position after the bracket closing the one at `position`; None
    if there is no `opening` bracket there or it is never closed."""
    if not text.startswith(opening, position):
        return None
    depth = 0
    for index in range(position, len(text)):
        if text[index] == opening:
            depth += 1
        elif text[index] == closing:
            depth -= 1
            if depth == 0:
                return index + 1
    return None


def _aggregate_position_traps(text: str):
    for pattern in _AGGREGATE_POSITIONS:
        for op in pattern.finditer(text):
            for number in re.finditer(rf"-?{_DIGITS}", op.group(2)):
                if not 0 <= _integer(number.group()) < 2 ** 32:
                    yield op.start(2) + number.start(), (
                        f"position {number.group()} of {op.group(1)} is out of range "
                        "(positions are 32-bit, from 0 to 4294967295)")
