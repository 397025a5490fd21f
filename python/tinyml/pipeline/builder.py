"""The pipeline builder: registered tinyml passes and upstream passes, by name
and with options, composed into one pipeline that prints as text
`tinyml-opt --pass-pipeline=` accepts and that runs on a module."""
from __future__ import annotations

import contextlib
import functools
import os
import re
import sys
import tempfile
from typing import Any, Callable, Iterable

from mlir import ir
from mlir.passmanager import PassManager

from .registry import Pass, PassError, PipelineError, lookup, lookup_pipeline


def split_top_level(text: str) -> list[str]:
    """Splits `a{x=1 y=2},b(c,d)` at the commas outside brackets."""
    items, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "({":
            depth += 1
        elif ch in ")}":
            depth -= 1
            if depth < 0:
                raise PipelineError(f"unbalanced '{ch}' in pipeline '{text}'")
        elif ch == "," and depth == 0:
            items.append(text[start:i].strip())
            start = i + 1
    if depth != 0:
        raise PipelineError(f"unbalanced brackets in pipeline '{text}'")
    items.append(text[start:].strip())
    return [item for item in items if item]


def parse_options(text: str) -> dict[str, str]:
    """`a=1 b=x` -> {'a': '1', 'b': 'x'}; a bare `flag` means `flag=true`."""
    options = {}
    for word in text.split():
        key, _, value = word.partition("=")
        options[key] = value if value else "true"
    return options


class Pipeline:
    """An ordered list of passes. Elements are tinyml `Pass` instances or
    upstream pipeline text (`canonicalize`, `func.func(cse)`)."""

    def __init__(self, elements: Iterable[Pass | str] = ()):
        self.elements: list[Pass | str] = []
        for element in elements:
            self.add(element)

    def add(self, name_or_pass: Pass | str, **options: Any) -> "Pipeline":
        if isinstance(name_or_pass, Pass):
            if options:
                raise PipelineError("options go to the pass constructor, not add()")
            self.elements.append(name_or_pass)
            return self
        self.elements.extend(_parse_element(name_or_pass, options))
        return self

    def extend(self, other: "Pipeline") -> "Pipeline":
        self.elements.extend(other.elements)
        return self

    @classmethod
    def parse(cls, text: str) -> "Pipeline":
        text = text.strip()
        if text.startswith("builtin.module(") and text.endswith(")"):
            text = text[len("builtin.module("):-1]
        pipeline = cls()
        for item in split_top_level(text):
            pipeline.add(item)
        return pipeline

    def __str__(self) -> str:
        return f"builtin.module({','.join(str(e) for e in self.elements)})"

    def __len__(self) -> int:
        return len(self.elements)

    def pass_manager(self, context: ir.Context, print_ir_after_all: bool = False,
                     on_pass: Callable[[Pass], None] | None = None) -> PassManager:
        """A PassManager running the elements in order; tinyml passes run as
        Python passes at module level: the Python PassManager has no
        `nest()`, and a Python pass restricted to `func.func` on a module
        PassManager aborts the process ("did you intend to nest?")."""
        pm = PassManager("builtin.module", context=context)
        for element in self.elements:
            if isinstance(element, Pass):
                pm.add(_as_external_pass(element), name=element.name,
                       argument=element.name, description=element.summary)
            else:
                if _BUFFERIZES.match(element):
                    pm.add(_refuse_unbufferizable_tensors, name=_GUARD, argument=_GUARD,
                           description="reports tensors no memref can hold")
                pm.add(element)
        if print_ir_after_all:
            pm.enable_ir_printing(print_after_all=True)
        return pm

    def run(self, module: ir.Module | ir.Operation, print_ir_after_all: bool = False) -> None:
        """Runs the pipeline; raises `ir.MLIRError` with the diagnostics."""
        op = module.operation
        self.pass_manager(op.context, print_ir_after_all).run(op)


def _as_external_pass(pass_: Pass):
    def run(op: ir.Operation, external) -> None:
        try:
            pass_.apply(op)
        except PassError as error:
            location = error.location or op.location
            location.emit_error(f"{pass_.name}: {error}")
            external.signal_pass_failure()
    return run


_BUFFERIZES = re.compile(r"one-shot-bufferize\b")
_GUARD = "tinyml-check-bufferizable"


def _refuse_unbufferizable_tensors(op: ir.Operation, external) -> None:
    """Runs before one-shot-bufferize, which reports a tensor whose element
    type no memref can hold (a `!quant.uniform`) for some ops and aborts the
    process in an assertion for others (`tensor.extract_slice`, a function's
    arguments): the first one is an error at its op, in upstream's words."""
    checked: dict[ir.Type, bool] = {}

    def bufferizable(ty: ir.Type) -> bool:
        if not isinstance(ty, (ir.RankedTensorType, ir.UnrankedTensorType)):
            return True
        if ty not in checked:
            try:
                ir.MemRefType.get([], ty.element_type, loc=ir.Location.unknown(op.context))
                checked[ty] = True
            except ir.MLIRError:
                checked[ty] = False
        return checked[ty]

    def types_of(inner: ir.Operation) -> list[ir.Type]:
        types = [result.type for result in inner.results]
        types += [arg.type for region in inner.regions for block in region.blocks
                  for arg in block.arguments]
        if "function_type" in inner.attributes:  # a declaration has no arguments to see
            function_type = ir.TypeAttr(inner.attributes["function_type"]).value
            if isinstance(function_type, ir.FunctionType):
                types += [*function_type.inputs, *function_type.results]
        return types

    def visit(inner) -> ir.WalkResult:
        inner = inner.operation
        bad = next((ty for ty in types_of(inner) if not bufferizable(ty)), None)
        if bad is None:
            return ir.WalkResult.ADVANCE
        inner.location.emit_error(
            f"one-shot-bufferize: cannot bufferize value of type '{bad}': element type "
            f"'{bad.element_type}' is not a valid memref element type")
        external.signal_pass_failure()
        return ir.WalkResult.INTERRUPT

    op.walk(visit, ir.WalkOrder.PRE_ORDER)


def _parse_element(text: str, options: dict[str, Any]) -> list[Pass | str]:
    text = text.strip()
    if "," in text and not (text.endswith(")") or text.endswith("}")) or \
            len(split_top_level(text)) > 1:
        if options:
            raise PipelineError("options apply to a single pass")
        return [e for item in split_top_level(text) for e in _parse_element(item, {})]
    name, brace, rest = text.partition("{")
    name = name.strip()
    cls, named = lookup(name), lookup_pipeline(name)
    if cls is not None or named is not None:
        if brace:
            if not rest.endswith("}"):
                raise PipelineError(f"missing '}}' in '{text}'")
            options = {**parse_options(rest[:-1]), **options}
        if cls is not None:
            return [cls(**options)]
        assert named is not None
        return named.expand(options).elements
    if name.startswith("tinyml-"):
        raise PipelineError(f"unknown pass '{name}'")
    if options:
        text = f"{name}{{{' '.join(f'{k}={v}' for k, v in options.items())}}}"
    _check_upstream(text)
    return [text]


@functools.lru_cache(maxsize=None)
def _check_upstream(text: str) -> None:
    # Parsing in a throwaway context validates names and options now, where
    # the user wrote them, rather than when the pipeline runs. A text that
    # parsed once always parses (the cache keeps only successes: a raise is
    # not cached), and every compile builds the same stage pipelines.
    with _native_stderr_captured() as native:
        try:
            PassManager.parse(f"builtin.module({text})", context=ir.Context())
        except ValueError as error:
            message = str(error).strip().splitlines()
            detail = next((line for line in message if "error" in line.lower()),
                          message[0] if message else "")
            native.seek(0)
            complaint = native.read().decode(errors="replace").strip(" :\n")
            raise PipelineError(f"invalid pass or pipeline '{text}': "
                                f"{complaint.splitlines()[0] if complaint else detail.strip()}") \
                from None


@contextlib.contextmanager
def _native_stderr_captured():
    """LLVM's option parser prints why an option value is bad straight to
    file descriptor 2, around Python's own error: catch it there so the
    user sees one line that includes it."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as sink:
        os.dup2(sink.fileno(), 2)
        try:
            yield sink
        finally:
            os.dup2(saved, 2)
            os.close(saved)
