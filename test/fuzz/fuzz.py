"""Seeded fuzzer of tinyml's command-line tools.

Six kinds of cases, each a deterministic function of (seed, kind, index):

- onnx-bytes:  byte-level damage of small valid ONNX models -> tinyml-compile.
- tflite-bytes: byte-level damage of the int8 zoo's single-op `.tflite`
               models -> tinyml-compile.
- onnx-struct: structural damage through the onnx API (attributes, dims,
               dtypes, opsets, names, node and graph input/output lists,
               initializers, hostile output paths) -> tinyml-compile
               (host; a few cases cortex-m4).
- tflite-struct: structural damage of the committed `.tflite` models
               (test/models/int8, float_tflite, users) through the
               flatbuffer schema (test/fuzz/tflite_struct.py: shapes and
               shape signatures, tensor types, quantization, operator
               codes, builtin options, operand lists, operator order,
               buffers, graph inputs and outputs, truncation) ->
               tinyml-compile (host; a few cases cortex-m4). A host model
               that compiles and that TFLM also accepts is run by both on
               the same random inputs: int8 outputs must be bit-exact,
               float ones within 1e-5 of the output's scale, else the case
               fails as "numeric".
- mlir:        token-level damage of the .mlir files under test/ ->
               tinyml-opt with passes drawn from the registry and a few
               upstream ones (a few cases go to tinyml-compile instead).
- compiled:    damaged copies of folders that tinyml-compile wrote (report
               fields, artefacts, inputs) -> tinyml-run.

Every case runs in a forked child of this process, so the tools' modules
(and MLIR) are imported once: the child redirects fds 0/1/2 to fresh files,
enters a fresh working directory and calls the tool's `main(argv)`. The
working directory also holds a sentinel file, a FIFO and a symlink. A case
PASSES when the tool ended without a signal, with exit code 0 or 1, with
exactly one stderr line when 1, with no "internal error" or "Traceback" on
stderr, within the time limit, and every file of the working directory
(sentinel, FIFO, symlink, the case's inputs) is still there as it was
(and, for tflite-struct, its outputs agree with TFLM's where compared).

A failing case is reproduced by `tools/fuzz.py --seed S --kinds KIND --case
I`; an mlir case also depends on the .mlir files under test/ and the
registered passes, and a compiled case on what tinyml-compile writes, so
`--save-failures DIR` keeps each failing case's exact input and command.
The summary table also counts "leaked?": passing cases whose one error line
reads like a Python exception's text (a CLI that caught too broadly); they
do not fail.

    from fuzz import Fuzzer          # test/fuzz on sys.path
    results = Fuzzer(seed=1).run(range(100))

`tools/fuzz.py` is the command line (see `main`).
"""
from __future__ import annotations

import argparse
import copy
import faulthandler
import gc
import hashlib
import io
import json
import math
import os
import random
import re
import resource
import shlex
import shutil
import signal
import stat
import sys
import tempfile
import time
import traceback
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

KINDS = ("onnx-bytes", "tflite-bytes", "onnx-struct", "tflite-struct", "mlir", "compiled")
# Cheap kinds (most byte-damaged models stop at the protobuf parser) come more often.
DEFAULT_WEIGHTS = {"onnx-bytes": 3, "tflite-bytes": 2, "onnx-struct": 4, "tflite-struct": 4,
                   "mlir": 4, "compiled": 2}
# Failure classes, most serious first: a case's outcome is the first that applies.
FAILURE_CLASSES = ("timeout", "signal", "lost file", "internal error", "rc>1",
                   "multi-line error", "numeric")
OUTCOMES = ("pass",) + FAILURE_CLASSES
# An error line that is a Python exception's text relabelled as a user error
# (the CLI caught too much): reported, but the case still passes.
LEAK_PATTERN = re.compile(
    r"object is not (iterable|subscriptable|callable)|argument must be|NoneType|"
    r"incompatible function arguments|has no attribute|invalid literal for|"
    r"unsupported operand|index out of range|can only concatenate|positional argument|"
    r"string pattern on a bytes-like|not supported between instances|"
    r"maximum recursion depth|unhashable type")

SENTINEL = "keep.txt"
FIFO = "fifo"
SYMLINK = "link"
DIRECTORY = None  # a `Case.files` value that stands for a directory

TOOL_PROGRAMS = {"compile": "tinyml-compile", "opt": "tinyml-opt", "run": "tinyml-run"}
REPO_ROOT = Path(__file__).resolve().parents[2]


class FuzzerError(Exception):
    """The fuzzer itself cannot go on (e.g. the seed models do not compile)."""


# ---------------------------------------------------------------------------
# Cases and results
# ---------------------------------------------------------------------------

@dataclass
class Case:
    """One run of one tool: `files` (relative path -> bytes, or DIRECTORY)
    are written into the working directory, then `tinyml-<tool> argv` runs
    there. `mutations` says what was damaged, for the report."""

    kind: str
    index: int
    tool: str
    argv: list[str]
    files: dict[str, bytes | None]
    mutations: list[str] = field(default_factory=list)
    # tflite-struct: after an exit code 0, run the compiled folder `out` and
    # the model file `compare` on TFLM and compare their outputs.
    compare: str | None = None

    def command(self) -> str:
        return shlex.join([TOOL_PROGRAMS[self.tool], *self.argv])


@dataclass
class Result:
    case: Case
    seed: int
    exit_code: int | None
    signal: int | None
    timed_out: bool
    seconds: float
    stdout: str
    stderr: str
    lost: list[str]
    saved: str | None = None
    compared: bool = False  # its outputs were compared with TFLM's
    numeric: str | None = None  # how they differ, if they do

    @property
    def stderr_lines(self) -> list[str]:
        return self.stderr.splitlines()

    @property
    def problems(self) -> list[str]:
        """Every failure class that applies, most serious first."""
        found = set()
        if self.timed_out:
            found.add("timeout")
        elif self.signal is not None:
            found.add("signal")
        else:
            if "internal error" in self.stderr or "Traceback" in self.stderr:
                found.add("internal error")
            if self.exit_code not in (0, 1):
                found.add("rc>1")
            if self.exit_code == 1 and len(self.stderr_lines) != 1:
                found.add("multi-line error")
        if self.lost:
            found.add("lost file")
        if self.numeric:
            found.add("numeric")
        return [name for name in FAILURE_CLASSES if name in found]

    @property
    def outcome(self) -> str:
        problems = self.problems
        return problems[0] if problems else "pass"

    @property
    def leaked_exception(self) -> bool:
        """A user error whose text looks like a Python exception's."""
        return (self.outcome == "pass" and self.exit_code == 1
                and bool(LEAK_PATTERN.search(self.stderr)))

    def status_text(self) -> str:
        if self.timed_out:
            return "timeout"
        if self.signal is not None:
            return f"signal {signal.Signals(self.signal).name}"
        return f"rc={self.exit_code}"

    def signature(self) -> str:
        """What tells this failure's defect apart from others: the telling
        stderr line with numbers and quoted names blanked out."""
        if self.outcome == "timeout":
            return "timeout"
        if self.outcome == "lost file":
            return "lost: " + ", ".join(sorted(self.lost))
        if self.outcome == "numeric":
            what = re.sub(r"(?<![A-Za-z_])\d+(\.\d+)?(e[-+]?\d+)?", "N",
                          self.numeric.split(":")[0])
            return f"numeric: {what} after {mutation_classes(self.case.mutations)}"[:200]
        lines = self.stderr_lines
        telling = next((line for line in lines if "Assertion" in line or "internal error" in line),
                       None)
        if telling is None and lines:
            telling = lines[-1] if self.signal is not None else lines[0]
        text = telling or "(no stderr)"
        text = re.sub(r"[`'][^`'\n]*'", "'…'", text)  # MLIR quotes `like this' too
        text = re.sub(r"\d+", "N", text)
        return text[:160]

    def rerun_command(self) -> str:
        return (f"tools/fuzz.py --seed {self.seed} --kinds {self.case.kind} "
                f"--case {self.case.index}")

    def reproducer(self) -> str:
        first = self.stderr_lines[0] if self.stderr_lines else ""
        return (f"{self.outcome}: {self.case.kind} seed={self.seed} case={self.case.index} "
                f"[{self.status_text()}, {len(self.stderr_lines)} stderr line(s), "
                f"{self.seconds:.1f}s] rerun: {self.rerun_command()}; "
                f"saved: {self.saved or '-'}; cmd: {self.case.command()}; "
                f"mutations: {'; '.join(self.case.mutations) or '-'}; "
                + (f"numeric: {self.numeric[:300]}; " if self.numeric else "")
                + f"stderr: {first[:200]}")


# ---------------------------------------------------------------------------
# Seed ONNX models
# ---------------------------------------------------------------------------

def _tensor_in(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def _tensor_out(name, shape=None):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def _init(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def _model(name, nodes, inputs, outputs, inits=()) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                              producer_name="tinyml-fuzz")
    model.ir_version = 8
    return model


def seed_models() -> dict[str, onnx.ModelProto]:
    """Small valid models, one per kind of op the frontend imports."""
    rng = np.random.default_rng(0)

    def weights(*shape):
        return (rng.standard_normal(shape) * 0.5).astype(np.float32)

    node = helper.make_node
    return {
        "conv_relu": _model(
            "conv_relu",
            [node("Conv", ["x", "w", "b"], ["c"], name="conv", pads=[1, 1, 1, 1],
                  strides=[1, 1], kernel_shape=[3, 3]),
             node("Relu", ["c"], ["y"], name="relu")],
            [_tensor_in("x", [1, 3, 8, 8])], [_tensor_out("y", [1, 4, 8, 8])],
            [_init("w", weights(4, 3, 3, 3)), _init("b", weights(4))]),
        "depthwise": _model(
            "depthwise",
            [node("Conv", ["x", "w"], ["y"], name="dw", group=4, pads=[1, 1, 1, 1],
                  kernel_shape=[3, 3])],
            [_tensor_in("x", [1, 4, 6, 6])], [_tensor_out("y")],
            [_init("w", weights(4, 1, 3, 3))]),
        "gemm": _model(
            "gemm",
            [node("Gemm", ["x", "w", "b"], ["y"], name="fc", transB=1, alpha=1.0, beta=1.0)],
            [_tensor_in("x", [1, 16])], [_tensor_out("y", [1, 8])],
            [_init("w", weights(8, 16)), _init("b", weights(8))]),
        "matmul_add": _model(
            "matmul_add",
            [node("MatMul", ["x", "w"], ["m"], name="mm"),
             node("Add", ["m", "b"], ["y"], name="add")],
            [_tensor_in("x", [1, 16])], [_tensor_out("y")],
            [_init("w", weights(16, 8)), _init("b", weights(8))]),
        "reducemean": _model(
            "reducemean",
            [node("ReduceMean", ["x"], ["y"], name="mean", axes=[2, 3], keepdims=1)],
            [_tensor_in("x", [1, 4, 6, 6])], [_tensor_out("y")]),
        "softmax": _model(
            "softmax",
            [node("Softmax", ["x"], ["y"], name="softmax", axis=-1)],
            [_tensor_in("x", [1, 10])], [_tensor_out("y", [1, 10])]),
        "concat": _model(
            "concat",
            [node("Concat", ["a", "b"], ["y"], name="cat", axis=1)],
            [_tensor_in("a", [1, 2, 4, 4]), _tensor_in("b", [1, 3, 4, 4])],
            [_tensor_out("y")]),
        "reshape": _model(
            "reshape",
            [node("Reshape", ["x", "shape"], ["r"], name="reshape"),
             node("Relu", ["r"], ["y"], name="relu")],
            [_tensor_in("x", [1, 4, 4, 4])], [_tensor_out("y")],
            [_init("shape", np.array([1, -1], dtype=np.int64))]),
        "pooling": _model(
            "pooling",
            [node("MaxPool", ["x"], ["p"], name="maxpool", kernel_shape=[2, 2], strides=[2, 2]),
             node("AveragePool", ["p"], ["q"], name="avgpool", kernel_shape=[2, 2],
                  strides=[1, 1], pads=[0, 0, 1, 1], count_include_pad=0),
             node("GlobalAveragePool", ["q"], ["y"], name="gap")],
            [_tensor_in("x", [1, 4, 8, 8])], [_tensor_out("y")]),
        "batchnorm": _model(
            "batchnorm",
            [node("Conv", ["x", "w"], ["c"], name="conv1x1", kernel_shape=[1, 1]),
             node("BatchNormalization", ["c", "scale", "bias", "mean", "var"], ["y"],
                  name="bn", epsilon=1e-5)],
            [_tensor_in("x", [1, 3, 6, 6])], [_tensor_out("y")],
            [_init("w", weights(4, 3, 1, 1)), _init("scale", weights(4) + 1),
             _init("bias", weights(4)), _init("mean", weights(4)),
             _init("var", np.abs(weights(4)) + 0.5)]),
    }


# ---------------------------------------------------------------------------
# onnx-bytes: byte-level damage
# ---------------------------------------------------------------------------

INTERESTING_BYTES = (0x00, 0x01, 0x08, 0x12, 0x1A, 0x22, 0x3A, 0x7F, 0x80, 0xFF)


def _span(rng: random.Random, data: bytearray, longest: int) -> tuple[int, int]:
    start = rng.randrange(len(data))
    return start, min(len(data), start + rng.randint(1, longest))


def _flip_bits(rng, data, others):
    for _ in range(rng.randint(1, 8)):
        at = rng.randrange(len(data))
        data[at] ^= 1 << rng.randrange(8)
    return "flip bits"


def _set_bytes(rng, data, others):
    at = rng.randrange(len(data))
    for i in range(at, min(len(data), at + rng.randint(1, 4))):
        data[i] = rng.choice(INTERESTING_BYTES)
    return f"set bytes at {at}"


def _insert_bytes(rng, data, others):
    at = rng.randrange(len(data) + 1)
    data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
    return f"insert bytes at {at}"


def _delete_bytes(rng, data, others):
    start, end = _span(rng, data, 64)
    del data[start:end]
    return f"delete bytes {start}:{end}"


def _duplicate_bytes(rng, data, others):
    start, end = _span(rng, data, 64)
    at = rng.randrange(len(data) + 1)
    data[at:at] = data[start:end]
    return f"duplicate bytes {start}:{end} at {at}"


def _truncate(rng, data, others):
    at = rng.randrange(len(data))
    del data[at:]
    return f"truncate at {at}"


def _concatenate(rng, data, others):
    other = rng.choice(others)
    data.extend(other if rng.random() < 0.5 else bytes(data))
    return "concatenate"


def _swap_ranges(rng, data, others):
    a, b = sorted(rng.randrange(len(data)) for _ in range(2))
    n = rng.randint(1, max(1, min(32, (b - a) or 1)))
    first, second = bytes(data[a:a + n]), bytes(data[b:b + n])
    data[b:b + n] = first
    data[a:a + n] = second
    return f"swap ranges at {a} and {b}"


BYTE_MUTATIONS = (_flip_bits, _set_bytes, _insert_bytes, _delete_bytes, _duplicate_bytes,
                  _truncate, _concatenate, _swap_ranges)


def damage_bytes(rng: random.Random, data: bytes, others: list[bytes]) -> tuple[bytes, list[str]]:
    damaged, done = bytearray(data), []
    for _ in range(rng.choice((1, 1, 2, 3))):
        if not damaged:
            break
        done.append(rng.choice(BYTE_MUTATIONS)(rng, damaged, others))
    return bytes(damaged), done


# ---------------------------------------------------------------------------
# onnx-struct: structural damage through the onnx API
# ---------------------------------------------------------------------------

INT_VALUES = (0, -1, 1, 2, 3, 7, -2**31, 2**31, 2**40, -2**40, 2**63 - 1)
FLOAT_VALUES = (0.0, -1.0, 0.5, 1e-30, 1e30, math.nan, math.inf, -math.inf)
STRING_VALUES = (b"", b"NOTSET", b"SAME_UPPER", b"SAME_LOWER", b"VALID", b"x", b"1",
                 b"\xff\xfe\x00", b"A" * 1000)
INTS_VALUES = ((), (0,), (-1,), (1, 1), (0, 0), (2, 2), (-1, -1), (2**40, 2**40),
               (0, 0, 0, 0), (1, 1, 1, 1), (-1, -1, -1, -1), (3, 3, 3, 3), (1,) * 9,
               (2**31, 1, 1, 1))
# Names that are odd for a C header, a file system, MLIR or a symbol table.
NAMES = ("", "int", "arena", "void", "main", "return", "float", "static", "x y", "0abc",
         "a/b", "../keep.txt", "keep.txt", "σ", "a" * 300, "%0", "@x", "a\nb", "a\x00b",
         "__tinyml", "y", "x")
DTYPES = (TensorProto.UNDEFINED, TensorProto.FLOAT16, TensorProto.INT64, TensorProto.DOUBLE,
          TensorProto.STRING, TensorProto.BOOL, TensorProto.INT8, TensorProto.BFLOAT16, 99)
OP_TYPES = ("Conv", "Relu", "Gemm", "MatMul", "Add", "Mul", "ReduceMean", "Softmax",
            "Concat", "Reshape", "MaxPool", "AveragePool", "GlobalAveragePool",
            "BatchNormalization", "Flatten", "Transpose", "Identity", "Clip", "Pad",
            "Squeeze", "Unsqueeze", "Slice", "Gather", "Shape", "Cast", "Constant",
            "Sigmoid", "Foo", "", "conv")
KNOWN_ATTRIBUTES = {
    "Conv": ("strides", "pads", "dilations", "group", "kernel_shape", "auto_pad"),
    "MaxPool": ("kernel_shape", "strides", "pads", "dilations", "ceil_mode", "auto_pad",
                "storage_order"),
    "AveragePool": ("kernel_shape", "strides", "pads", "ceil_mode", "auto_pad",
                    "count_include_pad"),
    "Gemm": ("alpha", "beta", "transA", "transB"),
    "ReduceMean": ("axes", "keepdims", "noop_with_empty_axes"),
    "Softmax": ("axis",),
    "Concat": ("axis",),
    "Reshape": ("allowzero",),
    "BatchNormalization": ("epsilon", "momentum", "training_mode"),
}
EXTERNAL_LOCATIONS = ("keep.txt", FIFO, SYMLINK, "nosuch.bin", "", "../keep.txt", "/",
                      "m.onnx", "/proc/self/mem")
# `-o` values that must not cost the user anything (`.` is the folder holding the model).
HOSTILE_OUTPUTS = (".", "", "./", SYMLINK, FIFO, SENTINEL, "m.onnx", f"{SENTINEL}/..")


class _Names:
    """Placeholders for names that are not UTF-8, which protobuf's Python
    API refuses: each placeholder is replaced in the serialized bytes by
    bytes of the same length."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.patches: dict[bytes, bytes] = {}

    def pick(self, model: onnx.ModelProto) -> str:
        if self.rng.random() < 0.12:
            placeholder = "zq%06x" % self.rng.randrange(16**6)
            self.patches[placeholder.encode()] = bytes([0xFF, 0xFE, 0xC3, 0x28, 0x80, 0xC0,
                                                        0xFF, 0x81])
            return placeholder
        existing = sorted(_tensor_names(model))
        if existing and self.rng.random() < 0.25:
            return self.rng.choice(existing)
        return self.rng.choice(NAMES)

    def serialize(self, model: onnx.ModelProto) -> bytes:
        data = model.SerializeToString()
        for placeholder, replacement in self.patches.items():
            data = data.replace(placeholder, replacement)
        return data


def _tensor_names(model: onnx.ModelProto) -> set[str]:
    graph = model.graph
    names = {v.name for v in list(graph.input) + list(graph.output) + list(graph.value_info)}
    names |= {t.name for t in graph.initializer}
    for node in graph.node:
        names.update(node.input)
        names.update(node.output)
    return names


def _random_attribute(rng: random.Random, name: str) -> tuple[onnx.AttributeProto, str]:
    A = onnx.AttributeProto
    attribute = A(name=name)
    kind = rng.choice(("int", "float", "string", "ints", "floats", "strings", "tensor",
                       "graph", "lying", "undefined"))
    if kind == "int":
        attribute.type, attribute.i = A.INT, rng.choice(INT_VALUES)
        what = attribute.i
    elif kind == "float":
        attribute.type, attribute.f = A.FLOAT, rng.choice(FLOAT_VALUES)
        what = attribute.f
    elif kind == "string":
        attribute.type, attribute.s = A.STRING, rng.choice(STRING_VALUES)
        what = attribute.s[:20]
    elif kind == "ints":
        attribute.type = A.INTS
        attribute.ints.extend(rng.choice(INTS_VALUES))
        what = list(attribute.ints)[:6]
    elif kind == "floats":
        attribute.type = A.FLOATS
        attribute.floats.extend(rng.sample(FLOAT_VALUES, rng.randint(0, 4)))
        what = list(attribute.floats)
    elif kind == "strings":
        attribute.type = A.STRINGS
        attribute.strings.extend(rng.sample(STRING_VALUES, rng.randint(0, 3)))
        what = len(attribute.strings)
    elif kind == "tensor":
        attribute.type = A.TENSOR
        array = rng.choice((np.array([1, 1], np.int64), np.array(2.0, np.float32),
                            np.zeros((0,), np.float32), np.array([[1, 2], [3, 4]], np.int64)))
        attribute.t.CopyFrom(numpy_helper.from_array(array, name))
        what = f"tensor{list(array.shape)}"
    elif kind == "graph":
        attribute.type = A.GRAPH
        attribute.g.CopyFrom(helper.make_graph([], "sub", [], []))
        what = "graph"
    elif kind == "lying":  # the type field says one kind, the payload is another
        attribute.type = rng.choice((A.INT, A.FLOAT, A.INTS, A.STRING, A.TENSOR))
        attribute.ints.extend((1, 2))
        attribute.s = b"x"
        what = f"type {A.AttributeType.Name(attribute.type)} with ints+s payload"
    else:
        attribute.type = A.UNDEFINED
        what = "undefined"
    return attribute, f"{kind} {what}"


def _pick_node(rng, model):
    nodes = model.graph.node
    if not nodes:
        return None, None
    index = rng.randrange(len(nodes))
    return index, nodes[index]


def _mutate_attribute(rng, model, names):
    _, node = _pick_node(rng, model)
    if node is None:
        return None
    choices = sorted({a.name for a in node.attribute}
                     | set(KNOWN_ATTRIBUTES.get(node.op_type, ())))
    # An unknown attribute stops the import at once, hiding everything else.
    name = rng.choice(choices) if choices and rng.random() < 0.9 else "nosuch"
    if rng.random() < 0.15:
        kept = [a for a in node.attribute if a.name != name]
        del node.attribute[:]
        node.attribute.extend(kept)
        return f"node '{node.name}': remove attribute {name}"
    attribute, what = _random_attribute(rng, name)
    kept = [a for a in node.attribute if a.name != name]
    del node.attribute[:]
    node.attribute.extend(kept + [attribute])
    if rng.random() < 0.1:  # the same attribute twice
        node.attribute.extend([attribute])
    return f"node '{node.name}': attribute {name} = {what}"


def _value_infos(model):
    graph = model.graph
    return list(graph.input) + list(graph.output) + list(graph.value_info)


def _mutate_dims(rng, model, names):
    infos = [v for v in _value_infos(model) if v.type.HasField("tensor_type")]
    if not infos:
        return None
    info = rng.choice(infos)
    tensor_type = info.type.tensor_type
    dims = tensor_type.shape.dim
    action = rng.choice(("value", "value", "param", "clear", "add", "remove", "no shape",
                         "no type"))
    if action == "no shape":
        tensor_type.ClearField("shape")
    elif action == "no type":
        info.ClearField("type")
    elif action == "add":
        dims.add().dim_value = rng.choice((1, 0, 2**40))
    elif not dims:
        return None
    else:
        dim = dims[rng.randrange(len(dims))]
        if action == "value":
            dim.dim_value = rng.choice((0, -1, -5, 2, 1000, 2**31, 2**40, 2**62))
        elif action == "param":
            dim.dim_param = rng.choice(("N", "", "batch", "int", "-1", "σ"))
        elif action == "clear":
            dim.Clear()
        else:
            del dims[rng.randrange(len(dims))]
    return f"'{info.name}': dims {action} -> {[d.dim_value or d.dim_param for d in dims]}"


def _mutate_dtype(rng, model, names):
    dtype = rng.choice(DTYPES)
    initializers = model.graph.initializer
    if initializers and rng.random() < 0.4:
        tensor = initializers[rng.randrange(len(initializers))]
        tensor.data_type = dtype
        return f"initializer '{tensor.name}': data_type {dtype}"
    infos = [v for v in _value_infos(model) if v.type.HasField("tensor_type")]
    if not infos:
        return None
    info = rng.choice(infos)
    info.type.tensor_type.elem_type = dtype
    return f"'{info.name}': elem_type {dtype}"


def _mutate_versions(rng, model, names):
    action = rng.choice(("opset", "opset", "domain", "no opset", "two opsets", "ir"))
    if action == "ir":
        model.ir_version = rng.choice((0, 1, 3, 4, 7, 10, 11, 99, -1))
        return f"ir_version {model.ir_version}"
    if action == "no opset":
        del model.opset_import[:]
        return "no opset_import"
    if action == "two opsets":
        model.opset_import.add().CopyFrom(helper.make_opsetid("", rng.choice((7, 13, 21))))
        return "two default-domain opset_imports"
    opset = model.opset_import[0]
    if action == "domain":
        opset.domain = rng.choice(("ai.onnx.ml", "com.microsoft", "ai.onnx", "x"))
        return f"opset domain '{opset.domain}'"
    opset.version = rng.choice((0, 1, 6, 7, 11, 12, 17, 18, 21, 22, 99, -1, 2**40))
    return f"opset version {opset.version}"


def _rename_everywhere(model, old: str, new: str) -> None:
    graph = model.graph
    for value in list(graph.input) + list(graph.output) + list(graph.value_info) \
            + list(graph.initializer):
        if value.name == old:
            value.name = new
    for node in graph.node:
        for slots in (node.input, node.output):
            for i, name in enumerate(slots):
                if name == old:
                    slots[i] = new


def _mutate_names(rng, model, names):
    graph = model.graph
    new = names.pick(model)
    action = rng.choice(("tensor", "tensor", "slot", "node", "graph"))
    if action == "graph":
        graph.name = new
        return f"graph name {new!r}"
    if action == "node":
        _, node = _pick_node(rng, model)
        if node is None:
            return None
        node.name = new
        return f"node name {new!r}"
    if action == "tensor":
        old = rng.choice(sorted(_tensor_names(model) - {""}))
        _rename_everywhere(model, old, new)
        return f"rename tensor '{old}' -> {new!r} everywhere"
    slots = [(node.input, i) for node in graph.node for i in range(len(node.input))]
    slots += [(node.output, i) for node in graph.node for i in range(len(node.output))]
    holders = list(graph.input) + list(graph.output) + list(graph.initializer)
    if rng.random() < 0.4 or not slots:
        holder = rng.choice(holders)
        old, holder.name = holder.name, new
    else:
        container, i = rng.choice(slots)
        old, container[i] = container[i], new
    return f"rename one use of '{old}' -> {new!r}"


def _mutate_node_io(rng, model, names):
    _, node = _pick_node(rng, model)
    if node is None:
        return None
    action = rng.choice(("add input", "remove input", "add output", "remove output",
                         "empty input", "many inputs"))
    if action == "add input":
        node.input.append(rng.choice(sorted(_tensor_names(model)) + ["", "nosuch"]))
    elif action == "many inputs" and node.input:  # a wide Concat, Add or Conv
        count = rng.choice((2, 60, 600))
        node.input.extend([node.input[0]] * count)
        return f"node '{node.name}': {count} more copies of input '{node.input[0]}'"
    elif action == "remove input" and node.input:
        del node.input[rng.randrange(len(node.input))]
    elif action == "empty input" and node.input:
        node.input[rng.randrange(len(node.input))] = ""
    elif action == "add output":
        node.output.append(rng.choice(("extra", node.output[0] if node.output else "o", "x")))
    elif action == "remove output" and node.output:
        del node.output[rng.randrange(len(node.output))]
    else:
        return None
    return f"node '{node.name}': {action} -> in {list(node.input)} out {list(node.output)}"


def _mutate_nodes(rng, model, names):
    nodes = model.graph.node
    index, node = _pick_node(rng, model)
    if node is None:
        return None
    action = rng.choice(("delete", "duplicate", "swap", "op type", "op type", "domain"))
    if action == "delete":
        del nodes[index]
    elif action == "duplicate":
        nodes.insert(rng.randrange(len(nodes) + 1), copy.deepcopy(node))
    elif action == "swap":
        if len(nodes) < 2:
            return None
        other = rng.randrange(len(nodes))
        first, second = copy.deepcopy(nodes[index]), copy.deepcopy(nodes[other])
        nodes[index].CopyFrom(second)
        nodes[other].CopyFrom(first)
    elif action == "op type":
        node.op_type = rng.choice(OP_TYPES)
        return f"node '{node.name}': op_type '{node.op_type}'"
    else:
        node.domain = rng.choice(("com.microsoft", "ai.onnx.ml", "x"))
    return f"node '{node.name}': {action}"


def _mutate_repeat(rng, model, names):
    """Repeats a node as a chain, each copy consuming the previous one's
    first output (a deep net of the same layer)."""
    index, node = _pick_node(rng, model)
    if node is None or not node.input or not node.output:
        return None
    count = rng.choice((8, 8, 64, 64, 300))
    final = node.output[0]
    previous = f"{final}_chain_in"
    node.output[0] = previous
    for i in range(count):
        repeated = copy.deepcopy(node)
        repeated.name = f"{node.name}_{i}"
        repeated.input[0] = previous
        previous = final if i == count - 1 else f"{final}_chain{i}"
        repeated.output[0] = previous
        model.graph.node.insert(index + 1 + i, repeated)
    return f"node '{node.name}' repeated {count} times as a chain"


def _mutate_graph_io(rng, model, names):
    graph = model.graph
    side = rng.choice(("input", "output"))
    values = graph.input if side == "input" else graph.output
    action = rng.choice(("delete", "duplicate", "add intermediate", "clear"))
    if action == "clear":
        del values[:]
    elif action == "add intermediate":
        candidates = sorted(_tensor_names(model) - {""})
        values.add().CopyFrom(_tensor_out(rng.choice(candidates)))
    elif not values:
        return None
    elif action == "delete":
        del values[rng.randrange(len(values))]
    else:
        values.add().CopyFrom(values[rng.randrange(len(values))])
    return f"graph {side}s: {action} -> {[v.name for v in values]}"


def _mutate_initializer(rng, model, names):
    graph = model.graph
    action = rng.choice(("dims", "dims", "reshape data", "empty", "external", "raw length",
                         "shadow input", "delete"))
    if action == "shadow input":
        if not graph.input:
            return None
        target = rng.choice(list(graph.input)).name
        graph.initializer.add().CopyFrom(
            _init(target, np.ones(rng.choice(((1,), (2, 2), (0,))), np.float32)))
        return f"initializer shadows input '{target}'"
    if not graph.initializer:
        return None
    position = rng.randrange(len(graph.initializer))
    tensor = graph.initializer[position]
    if action == "dims":
        dims = list(tensor.dims) or [1]
        dims[rng.randrange(len(dims))] = rng.choice((0, -1, 1, 2, 2**40, 1000))
        if rng.random() < 0.3:
            dims.append(1)
        del tensor.dims[:]
        tensor.dims.extend(dims)
    elif action == "reshape data":
        if tensor.data_location == TensorProto.EXTERNAL:
            return None  # its data is a file's, which the fuzzer must not read
        array = numpy_helper.to_array(tensor)
        shape = rng.choice(((array.size,), (1, array.size), (array.size, 1, 1, 1, 1)))
        tensor.CopyFrom(_init(tensor.name, array.reshape(shape)))
    elif action == "empty":
        tensor.CopyFrom(_init(tensor.name, np.zeros((0,), np.float32)))
    elif action == "external":
        tensor.ClearField("raw_data")
        tensor.data_location = TensorProto.EXTERNAL
        entry = tensor.external_data.add()
        entry.key, entry.value = "location", rng.choice(EXTERNAL_LOCATIONS)
        if rng.random() < 0.3:
            extra = tensor.external_data.add()
            extra.key, extra.value = rng.choice(("offset", "length")), \
                str(rng.choice((0, -1, 2**40, 7)))
        entries = {entry.key: entry.value for entry in tensor.external_data}
        return f"initializer '{tensor.name}': external data {entries}"
    elif action == "raw length":
        keep = rng.randrange(len(tensor.raw_data) + 1) if tensor.raw_data else 0
        tensor.raw_data = tensor.raw_data[:keep] + (b"\x00" * 3 if rng.random() < 0.3 else b"")
    else:
        name = tensor.name
        del graph.initializer[position]
        return f"initializer '{name}': delete"
    return f"initializer '{tensor.name}': {action} -> dims {list(tensor.dims)}"


STRUCT_MUTATIONS: tuple[tuple[Callable, int], ...] = (
    (_mutate_attribute, 5), (_mutate_dims, 3), (_mutate_dtype, 2), (_mutate_versions, 1),
    (_mutate_names, 3), (_mutate_node_io, 2), (_mutate_nodes, 2), (_mutate_graph_io, 2),
    (_mutate_initializer, 2), (_mutate_repeat, 1))


def damage_model(rng: random.Random, model: onnx.ModelProto) -> tuple[bytes, list[str]]:
    """Applies 1-3 structural mutations to a copy of `model`; returns its
    serialized bytes and what was done."""
    model = copy.deepcopy(model)
    names, done = _Names(rng), []
    functions, weights = zip(*STRUCT_MUTATIONS)
    wanted = rng.choice((1, 1, 1, 2, 3))
    for _ in range(wanted * 4):  # a mutation may not apply to this model
        mutate = rng.choices(functions, weights)[0]
        try:
            what = mutate(rng, model, names)
        except (ValueError, TypeError, IndexError, KeyError):
            # An earlier mutation left nothing this one can work on (e.g. an
            # initializer whose data no longer fits its type): still deterministic.
            what = None
        if what:
            done.append(what)
        if len(done) == wanted:
            break
    return names.serialize(model), done


# ---------------------------------------------------------------------------
# mlir: token-level damage of the test corpus
# ---------------------------------------------------------------------------

UPSTREAM_PASSES = ("canonicalize", "cse", "sccp", "symbol-dce", "inline",
                   "loop-invariant-code-motion")
TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|[%^@#!][\w.$-]+|\w+|->|\S')
NUMBER = re.compile(r"(?<![\w%^#@.$-])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w.])")
ELEMENT_TYPE = re.compile(r"\b(f16|bf16|f32|f64|i1|i8|i16|i32|i64|index)\b")
SHAPE_DIM = re.compile(r"(?<=[<x])(\d+|\?)(?=x)")
SHAPED_TYPE = re.compile(r"\b(?:tensor|memref|vector)<[^<>]*>")
ATTRIBUTE = re.compile(r"\b([a-z_][\w.]*) = ")
# A float literal is replaced by a float and an integer by an integer, so that
# most damaged numbers still parse and reach the verifiers and passes.
INTEGERS = ("0", "-1", "1", "2", "3", "4294967296", "2147483648", "9223372036854775807",
            "1099511627776", "-2147483649")
FLOATS = ("0.0", "-0.0", "1.5", "-1.0e+30", "0x7FC00000", "0x7F800000", "1.0e+39", "3.0")
SHAPE_VALUES = ("0", "?", "1", "1099511627776", "2147483648", "3", "65536")
ATTRIBUTE_VALUES = ("0", "-1", '"x"', "[]", "array<i64>", "array<i64: -1, 0>", "unit",
                    "true", "4294967296 : i64", "@nosuch", "dense<1.0> : tensor<2xf32>",
                    "{}", "1.0 : f32", "array<i64: 1099511627776>", '"\\FF\\FE"')
ELEMENT_TYPES = ("f16", "bf16", "f32", "f64", "i1", "i8", "i32", "i64", "index")


def mlir_chunks(root: Path) -> list[str]:
    """The `// -----` chunks of every .mlir file under `root`, without
    comment lines (RUN/CHECK lines would only dilute the mutations)."""
    chunks = []
    for path in sorted(root.rglob("*.mlir")):
        text = path.read_text(errors="replace")
        for chunk in re.split(r"(?m)^// -----.*$", text):
            lines = [line for line in chunk.splitlines() if not line.lstrip().startswith("//")]
            body = "\n".join(lines).strip()
            if body:
                chunks.append(body + "\n")
    return chunks


def _replace_match(rng, pattern, text, values):
    matches = list(pattern.finditer(text))
    if not matches:
        return None
    match = rng.choice(matches)
    value = rng.choice(values)
    return text[:match.start()] + value + text[match.end():], f"{match.group(0)!r} -> {value!r}"


def _attribute_value_end(text: str, start: int) -> int:
    depth, i = 0, start
    while i < len(text):
        ch = text[i]
        if ch in "<[({":
            depth += 1
        elif ch in ">])}":
            if depth == 0:
                return i
            depth -= 1
        elif ch == "," and depth == 0 or ch == "\n":
            return i
        elif ch == '"':
            closing = text.find('"', i + 1)
            i = closing if closing > 0 else len(text)
        i += 1
    return i


def _damage_mlir_once(rng: random.Random, text: str) -> tuple[str, str] | None:
    action = rng.choice(("number", "number", "type", "shape", "shape", "attribute",
                         "attribute", "delete token", "duplicate token", "replace token",
                         "swap tokens", "duplicate line", "delete line", "swap lines",
                         "retype everywhere", "retype everywhere", "retype everywhere"))
    if action == "retype everywhere":
        # Every use of one shaped type changes alike, so the IR still parses and
        # the damage reaches the verifiers and the passes.
        types = sorted(set(SHAPED_TYPE.findall(text)))
        if not types:
            return None
        old = rng.choice(types)
        if rng.random() < 0.7 and SHAPE_DIM.search(old):
            new = _replace_match(rng, SHAPE_DIM, old, SHAPE_VALUES)[0]
        else:
            new = ELEMENT_TYPE.sub(lambda _: rng.choice(ELEMENT_TYPES), old)
        changed = text.replace(old, new), f"{old} -> {new}"
    elif action == "number":
        matches = list(NUMBER.finditer(text))
        if not matches:
            return None
        match = rng.choice(matches)
        is_float = any(c in match.group(0) for c in ".eE")
        value = rng.choice(FLOATS if is_float else INTEGERS)
        changed = (text[:match.start()] + value + text[match.end():],
                   f"{match.group(0)!r} -> {value!r}")
    elif action == "type":
        changed = _replace_match(rng, ELEMENT_TYPE, text, ELEMENT_TYPES)
    elif action == "shape":
        changed = _replace_match(rng, SHAPE_DIM, text, SHAPE_VALUES)
    elif action == "attribute":
        matches = list(ATTRIBUTE.finditer(text))
        if not matches:
            return None
        match = rng.choice(matches)
        end = _attribute_value_end(text, match.end())
        value = rng.choice(ATTRIBUTE_VALUES)
        changed = (text[:match.end()] + value + text[end:],
                   f"{match.group(1)} = {text[match.end():end][:40]!r} -> {value!r}")
    elif action.endswith("line") or action.endswith("lines"):
        lines = text.splitlines(keepends=True)
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        if action == "duplicate line":
            lines.insert(j, lines[i])
        elif action == "delete line":
            del lines[i]
        else:
            lines[i], lines[j] = lines[j], lines[i]
        changed = "".join(lines), f"lines {i + 1}, {j + 1}"
    else:
        tokens = list(TOKEN.finditer(text))
        if not tokens:
            return None
        token = rng.choice(tokens)
        other = rng.choice(tokens)
        if action == "delete token":
            replacement = ""
        elif action == "duplicate token":
            replacement = token.group(0) + " " + token.group(0)
        else:
            replacement = other.group(0)
        if action == "swap tokens" and other.start() > token.end():
            text = text[:other.start()] + token.group(0) + text[other.end():]
        changed = (text[:token.start()] + replacement + text[token.end():],
                   f"{token.group(0)!r} -> {replacement!r}")
    return None if changed is None else (changed[0], f"{action}: {changed[1]}")


def damage_mlir(rng: random.Random, text: str) -> tuple[str, list[str]]:
    done = []
    for _ in range(rng.choice((1, 1, 2, 3, 4))):
        changed = _damage_mlir_once(rng, text)
        if changed:
            text, what = changed
            done.append(what)
    return text, done


def random_pass_flags(rng: random.Random, registered) -> list[str]:
    flags = []
    for _ in range(rng.choice((1, 1, 2, 3))):
        if rng.random() < 0.3:
            flags.append(f"--{rng.choice(UPSTREAM_PASSES)}")
            continue
        cls = rng.choice(registered)
        if cls.options and rng.random() < 0.2:
            option = rng.choice(cls.options)
            value = rng.choice(_option_values(option))
            flags.append(f"--{cls.name}={option.name}={value}")
        else:
            flags.append(f"--{cls.name}")
    return flags


def _option_values(option) -> tuple[str, ...]:
    if option.type is bool:
        return ("true", "false", "2", "")
    if option.type is str:
        # report-dir writes files: only into the working directory (or a file there)
        if option.name == "report-dir":
            return ("reports", SENTINEL, "")
        return tuple(option.choices or ()) + ("bogus", "")
    return ("0", "-1", "1", "3", "1000000000", "x", "1.5")


# ---------------------------------------------------------------------------
# compiled: damaged output folders
# ---------------------------------------------------------------------------

REPORT = "report.json"
REPORT_KEYS = ("format", "model", "target", "function", "artefacts", "inputs", "outputs",
               "arena_bytes", "arena_alignment", "options")
JSON_VALUES = (None, 0, -1, 1, 2**40, 2**64, 1.5, "", "x", "bogus", [], {}, True,
               [1] * 64, {"a": [None]})
JSON_VALUES_FOR = {
    "target": ("host", "cortex-m4", "cortex-m7", "cortex-m0", "bogus", "", "HOST"),
    "dtype": ("float16", "int64", "float64", "bogus", "object", "uint8", "V8", "<f4", "S10",
              "bool"),
    "shape": ([], [0], [-1], [2**40], [1], [1, 2, 2, 2], [1, 4, 8, 8, 1], ["a"], [1.5]),
    "function": ("nosuch", "", "main", "memset", "_mlir_ciface_g", "g"),
    "layout": ("NHWC", "NCHW", "bogus", None, 5),
    "arena_bytes": (0, -1, 1, 7, 2**40, 2**31, "x", None, 1.5),
    "arena_alignment": (0, -1, 3, 2**40, None),
    "model": ("", "nosuch", "../keep", "m", None, 5),
    "format": (0, 2, 99, "1", None),
}


def _json_paths(value, path=()):
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _json_paths(item, path + (key,))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _json_paths(item, path + (i,))


def _damage_report(rng: random.Random, text: bytes) -> tuple[bytes, str]:
    try:
        report = json.loads(text)
    except (ValueError, RecursionError):  # damaged before
        report = None
    if not isinstance(report, dict) or rng.random() < 0.15:
        damaged, what = _damage_text(rng, text, deep_nesting=True)
        return damaged, f"{REPORT}: {what}"
    paths = [p for p in _json_paths(report) if p]
    important = [p for p in paths if p[0] in REPORT_KEYS]
    path = rng.choice(important if important and rng.random() < 0.8 else paths)
    parent = report
    for key in path[:-1]:
        parent = parent[key]
    last = path[-1]
    action = rng.choice(("set", "set", "set", "delete", "duplicate", "add key"))
    if action == "delete":
        del parent[last]
    elif action == "duplicate" and isinstance(parent, list):
        parent.insert(last, copy.deepcopy(parent[last]))
    elif action == "add key" and isinstance(parent, dict):
        parent[rng.choice(("extra", "arena_bytes", "inputs", ""))] = rng.choice(JSON_VALUES)
    else:
        named = next((key for key in reversed(path) if isinstance(key, str)), "")
        pool = JSON_VALUES_FOR.get(named, ()) + JSON_VALUES
        if path == ("artefacts",):
            pool = _artefact_lists(report["artefacts"]) + pool
        parent[last] = copy.deepcopy(rng.choice(pool))
        action = f"set to {str(parent[last])[:40]}"
    return (json.dumps(report, indent=2) + "\n").encode(), f"{REPORT}: {list(path)} {action}"


def _artefact_lists(artefacts) -> tuple:
    """Artefact lists (or file name -> digest maps) that name too few, too
    many or the wrong files."""
    names = list(artefacts)
    if isinstance(artefacts, dict):
        some_digest = next(iter(artefacts.values()), "0" * 64)
        return ({}, {name: artefacts[name] for name in names[1:]},
                {**artefacts, "../keep.txt": some_digest}, {**artefacts, REPORT: some_digest},
                {**artefacts, "": some_digest}, names)
    return ([], names[1:], names * 2, names + ["../keep.txt"], [REPORT], [""], ["/"])


def reseal(files: dict[str, bytes | None]) -> bool:
    """Recomputes the digests of a damaged folder's report.json (each listed
    artefact's SHA-256 and the report's own `report_digest`, as
    `CompiledModel.report` writes them), so that the damage gets past the
    digest checks to the code behind them. False when there is nothing to
    reseal."""
    data = files.get(REPORT)
    if not isinstance(data, bytes):
        return False
    try:
        report = json.loads(data)
    except (ValueError, RecursionError):
        return False
    if not isinstance(report, dict) or "report_digest" not in report:
        return False
    artefacts = report.get("artefacts")
    if isinstance(artefacts, dict):
        for name in artefacts:
            if isinstance(files.get(name), bytes):
                artefacts[name] = hashlib.sha256(files[name]).hexdigest()
    fields = {key: value for key, value in report.items() if key != "report_digest"}
    canonical = json.dumps(fields, sort_keys=True, separators=(",", ":")).encode()
    report["report_digest"] = hashlib.sha256(canonical).hexdigest()
    files[REPORT] = (json.dumps(report, indent=2) + "\n").encode()
    return True


def _damage_text(rng, data: bytes, deep_nesting=False) -> tuple[bytes, str]:
    actions = ("truncate", "empty", "flip", "flip", "garbage", "not utf-8")
    action = rng.choice(actions + ("deep nesting", "null") if deep_nesting else actions)
    if action == "truncate":
        return data[:rng.randrange(len(data) + 1)], "truncate"
    if action == "empty":
        return b"", "empty"
    if action == "flip":
        damaged = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            if damaged:
                damaged[rng.randrange(len(damaged))] ^= 1 << rng.randrange(8)
        return bytes(damaged), "flip bits"
    if action == "not utf-8":
        return b"\xff\xfe" + data, "not UTF-8"
    if action == "deep nesting":
        return b"[" * 100000 + b"]" * 100000, "deep nesting"
    if action == "null":
        return b"null", "null"
    at = rng.randrange(len(data) + 1)
    return data[:at] + bytes(rng.randrange(256) for _ in range(16)) + data[at:], "garbage"


def _damage_folder(rng: random.Random, files: dict[str, bytes | None], others: list[dict]):
    """One damage to a compiled folder (`files`: name -> bytes), in place."""
    names = sorted(name for name, data in files.items() if data is not DIRECTORY)
    action = rng.choice(("report", "report", "report", "report", "artefact", "artefact",
                         "swap", "foreign", "remove", "directory"))
    if action == "report" and isinstance(files.get(REPORT), bytes):
        files[REPORT], what = _damage_report(rng, files[REPORT])
        return what
    if not names:
        return None
    name = rng.choice(names)
    if action == "artefact":
        files[name], what = _damage_text(rng, files[name])
        return f"{name}: {what}"
    if action == "swap":
        other = rng.choice(names)
        files[name], files[other] = files[other], files[name]
        return f"swap {name} and {other}"
    if action == "foreign":  # the same-named file of another model or target
        folder = rng.choice(others)
        same = [n for n in folder if n.rsplit(".", 1)[-1] == name.rsplit(".", 1)[-1]]
        if not same:
            return None
        files[name] = folder[rng.choice(same)]
        return f"{name} from another compiled folder"
    if action == "remove":
        del files[name]
        return f"remove {name}"
    files[name] = DIRECTORY
    return f"{name} replaced by a directory"


def _damage_npy(rng: random.Random, array: np.ndarray) -> tuple[bytes, str]:
    action = rng.choice(("dtype", "shape", "scalar", "truncate", "empty", "fortran", "nan",
                         "header"))
    buffer = io.BytesIO()
    if action == "dtype":
        changed = array.astype(rng.choice((np.float64, np.int64, np.float16, np.uint8, bool)))
    elif action == "shape":
        changed = array.reshape(-1)
    elif action == "scalar":
        changed = np.float32(1.0)
    elif action == "fortran":
        changed = np.asfortranarray(array)
    elif action == "nan":
        changed = np.full_like(array, np.nan)
    else:
        changed = array
    np.save(buffer, changed)
    data = buffer.getvalue()
    if action == "truncate":
        data = data[:rng.randrange(len(data))]
    elif action == "empty":
        data = b""
    elif action == "header":
        data = data.replace(str(tuple(array.shape)).encode(), b"(1099511627776,)")
    return data, action


# ---------------------------------------------------------------------------
# Running one case in a forked child
# ---------------------------------------------------------------------------

def mutation_classes(mutations: list[str]) -> str:
    """The mutations of a case without their values, numbers and names:
    what tells one numeric failure's cause from another's."""
    classes = set()
    for text in mutations:
        if text.startswith("seed model"):
            continue
        text = re.split(r" = | -> ", text)[0]
        text = re.sub(r"'[^']*'|\[[^\]]*\]|\{[^}]*\}", "", text)
        text = re.sub(r"(?<![A-Za-z_])-?\d+(\.\d+)?(e[-+]?\d+)?", "N", text)
        classes.add(re.sub(r"\s+", " ", text).strip())
    return "; ".join(sorted(classes)) or "no mutation"


# ---------------------------------------------------------------------------
# tflite-struct: the seeds, and the comparison with TFLM
# ---------------------------------------------------------------------------

TFLITE_SEED_FOLDERS = ("int8", "float_tflite", "users")


def tflite_seed_files() -> dict[str, bytes]:
    """The committed .tflite models, by their path under test/models."""
    root = REPO_ROOT / "test" / "models"
    return {path.relative_to(root).as_posix(): path.read_bytes()
            for folder in TFLITE_SEED_FOLDERS for path in sorted((root / folder).glob("*.tflite"))}


def _seed_weight(size: int) -> float:
    """Small models come more often: a network costs seconds a compile."""
    return 1.0 if size < 25_000 else 0.25 if size < 120_000 else 0.06


def _tflm_reference(data: bytes, into: Path) -> None:
    """Runs the model on TFLM with seeded random inputs and saves the inputs
    and outputs (in0.., out0..) into `into` (an .npz); raises when TFLM
    refuses the model."""
    import zlib

    import tflite
    from tflite_micro.python.tflite_micro import runtime

    graph = tflite.Model.GetRootAsModel(data, 0).Subgraphs(0)
    interpreter = runtime.Interpreter.from_bytes(data)
    rng = np.random.default_rng(zlib.crc32(data))
    arrays = {}
    for i in range(graph.InputsLength()):
        details = interpreter.get_input_details(i)
        dtype, shape = np.dtype(details["dtype"]), tuple(details["shape"])
        if dtype == np.int8:
            x = rng.integers(-128, 128, size=shape).astype(np.int8)
        elif dtype == np.float32:
            x = rng.standard_normal(shape).astype(np.float32)
        else:
            raise ValueError(f"input {i} is {dtype}")
        interpreter.set_input(x, i)
        arrays[f"in{i}"] = x
    interpreter.invoke()
    for j in range(graph.OutputsLength()):
        arrays[f"out{j}"] = np.array(interpreter.get_output(j))
    np.savez(into, **arrays)


def _difference(j: int, got: np.ndarray, want: np.ndarray) -> str | None:
    """How tinyml's output `j` differs from TFLM's, or None."""
    got = np.asarray(got)
    if got.dtype != want.dtype:
        return f"output {j} dtype: tinyml {got.dtype}, TFLM {want.dtype}"
    if got.size != want.size:
        return f"output {j} shape: tinyml {list(got.shape)}, TFLM {list(want.shape)}"
    got = got.reshape(want.shape)
    if want.dtype.kind == "f":
        with np.errstate(all="ignore"):
            finite = np.abs(want[np.isfinite(want)])
            tolerance = 1e-5 * max(1.0, float(finite.max()) if finite.size else 1.0)
            same = (got == want) | (np.isnan(got) & np.isnan(want)) | \
                (np.abs(got.astype(np.float64) - want) <= tolerance)
            wrong = int((~same).sum())
            if wrong:
                diffs = np.abs(got.astype(np.float64) - want)[~same]
                diffs = diffs[~np.isnan(diffs)]
                largest = float(diffs.max()) if diffs.size else math.nan
                return (f"output {j} (float): {wrong} of {want.size} elements differ "
                        f"(max |diff| {largest:.3g}, tolerance {tolerance:.3g})")
        return None
    wrong = int((got != want).sum())
    if wrong:
        largest = int(np.abs(got.astype(np.int64) - want.astype(np.int64)).max())
        return (f"output {j} ({want.dtype}): {wrong} of {want.size} elements differ "
                f"(max |diff| {largest})")
    return None


def _numeric_check(work: Path, root: Path, model_file: str, outdir: str,
                   timeout: float) -> None:
    """In a tflite-struct case's child, after tinyml-compile exited 0: runs
    the model on TFLM (in a grandchild: a model TFLM crashes or hangs on is
    not compared) and the compiled folder on tinyml, and writes the verdict
    into root/numeric.json. Whatever either prints goes to root/numeric.log."""
    verdict = {"compared": False, "mismatch": None, "note": ""}
    log = os.open(root / "numeric.log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(log, 1)
    os.dup2(log, 2)
    try:
        data = (work / model_file).read_bytes()
        reference = root / "tflm.npz"
        pid = os.fork()
        if pid == 0:
            try:
                gc.freeze()
                signal.alarm(max(1, int(timeout)))
                _tflm_reference(data, reference)
            except BaseException as error:  # noqa: BLE001 - TFLM refuses the model
                (root / "tflm.txt").write_text(f"{type(error).__name__}: {error}"[:500])
            finally:
                os._exit(0)
        _, status = os.waitpid(pid, 0)
        if os.WIFSIGNALED(status) or not reference.exists():
            verdict["note"] = ("TFLM: " + signal.Signals(os.WTERMSIG(status)).name
                               if os.WIFSIGNALED(status) else _read(root / "tflm.txt"))
            return
        arrays = np.load(reference)
        inputs = [arrays[f"in{i}"] for i in range(sum(k.startswith("in") for k in arrays))]
        wants = [arrays[f"out{j}"] for j in range(sum(k.startswith("out") for k in arrays))]
        from tinyml import load
        model = load(work / outdir)
        verdict["compared"] = True
        ours = [(list(t.shape), str(t.dtype)) for t in model.inputs]
        theirs = [(list(x.shape), str(x.dtype)) for x in inputs]
        if ours != theirs:
            verdict["mismatch"] = f"inputs: tinyml {ours}, TFLM {theirs}"
            return
        if len(model.outputs) != len(wants):
            verdict["mismatch"] = (f"outputs: tinyml {len(model.outputs)}, "
                                   f"TFLM {len(wants)}")
            return
        got = model.run(*inputs).outputs
        problems = [p for j, (g, w) in enumerate(zip(got, wants)) if (p := _difference(j, g, w))]
        verdict["mismatch"] = "; ".join(problems) or None
    except BaseException as error:  # noqa: BLE001 - tinyml cannot run what it compiled
        verdict["compared"] = True
        verdict["mismatch"] = (f"tinyml cannot run what it compiled: "
                               f"{type(error).__name__}: {str(error)[:300]}")
    finally:
        (root / "numeric.json").write_text(json.dumps(verdict))


def _tool_mains() -> dict[str, Callable]:
    """The tools' entry points, with everything they import lazily imported
    now: a child would otherwise spend most of a short case importing."""
    import importlib
    import pkgutil
    import tinyml
    for module in pkgutil.walk_packages(tinyml.__path__, "tinyml."):
        try:
            importlib.import_module(module.name)
        except ImportError:  # an optional part (the emulator): the tool reports it
            pass
    for name in ("mlir.execution_engine", "mlir.runtime", "mlir.dialects.builtin"):
        importlib.import_module(name)
    from tinyml.cli import compile as compile_cli
    from tinyml.cli import opt as opt_cli
    from tinyml.cli import run as run_cli
    return {"compile": compile_cli.main, "opt": opt_cli.main, "run": run_cli.main}


def _child(main: Callable, argv: list[str], work: Path, stdout: Path, stderr: Path,
           memory_limit: int, after: Callable[[], None] | None = None) -> None:
    """Runs in the forked child; never returns."""
    status = 125
    try:
        os.setpgid(0, 0)  # the parent kills the whole group on a timeout
        # What the parent left for its garbage collector stays uncollected
        # here: an MLIR context among it would join its thread pool's
        # threads, which a forked process does not have, and hang.
        gc.freeze()
        faulthandler.disable()  # a crash ends with its signal, as in a plain process
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if memory_limit:
            resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
        for fd, (path, mode) in enumerate(((os.devnull, os.O_RDONLY), (stdout, flags),
                                           (stderr, flags))):
            opened = os.open(path, mode, 0o644)
            os.dup2(opened, fd)
            os.close(opened)
        # Not pytest's capture objects: the tool's prints go to the new fds.
        sys.stdin = open(0, closefd=False)
        sys.stdout = open(1, "w", closefd=False)
        sys.stderr = open(2, "w", closefd=False, errors="backslashreplace")
        os.environ.pop("TINYML_DEBUG", None)
        os.chdir(work)
        try:
            status = main(list(argv))
        except SystemExit as exit:
            if exit.code is None or isinstance(exit.code, int):
                status = exit.code or 0
            else:
                print(exit.code, file=sys.stderr)
                status = 1
        except BaseException:  # as the interpreter would end on an uncaught exception
            traceback.print_exc()
            status = 1
        status = 0 if status is None else status
        if status == 0 and after is not None:
            for stream in (sys.stdout, sys.stderr):
                stream.flush()
            after()
    except BaseException:
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:  # noqa: BLE001 - the tool may have closed it
                pass
        os._exit(status & 0xFF if isinstance(status, int) else 1)


def _materialize(files: dict[str, bytes | None], into: Path) -> None:
    for name, data in sorted(files.items()):
        path = into / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if data is DIRECTORY:
            path.mkdir(exist_ok=True)
        else:
            path.write_bytes(data)


def _prepare_workdir(work: Path, case: Case, sentinel_text: str) -> None:
    work.mkdir(parents=True)
    (work / SENTINEL).write_text(sentinel_text)
    os.mkfifo(work / FIFO)
    os.symlink(SENTINEL, work / SYMLINK)
    _materialize(case.files, work)


def _lost_files(work: Path, case: Case, sentinel_text: str) -> list[str]:
    lost = []
    try:
        if (work / SENTINEL).read_text() != sentinel_text:
            lost.append(f"{SENTINEL} (content changed)")
    except OSError:
        lost.append(SENTINEL)
    for name, test in ((FIFO, stat.S_ISFIFO), (SYMLINK, stat.S_ISLNK)):
        try:
            if not test(os.lstat(work / name).st_mode):
                lost.append(f"{name} (no longer a {'FIFO' if name == FIFO else 'symlink'})")
        except OSError:
            lost.append(name)
    try:
        if os.readlink(work / SYMLINK) != SENTINEL:
            lost.append(f"{SYMLINK} (target changed)")
    except OSError:
        pass
    for name, data in case.files.items():
        path = work / name
        if data is DIRECTORY:
            if not path.is_dir():
                lost.append(name)
            continue
        try:
            if path.is_symlink() or path.read_bytes() != data:
                lost.append(f"{name} (content changed)")
        except OSError:
            lost.append(name)
    return lost


def _read(path: Path, limit: int = 1 << 20) -> str:
    try:
        with open(path, "rb") as f:
            return f.read(limit).decode(errors="replace")
    except OSError:
        return ""


@dataclass
class _Running:
    case: Case
    pid: int
    root: Path
    start: float
    sentinel_text: str


# ---------------------------------------------------------------------------
# The fuzzer
# ---------------------------------------------------------------------------

class Fuzzer:
    """Generates and runs cases. `weights` (kind -> weight) picks a case's
    kind among `kinds`; `timeout` (seconds) ends a case; `jobs` cases run at
    once; failing cases' inputs go to `save_failures` (a folder) when given;
    `memory_limit_mb` bounds each case's address space (0: no bound)."""

    def __init__(self, seed: int, kinds=KINDS, weights: dict[str, float] | None = None,
                 timeout: float = 60.0, jobs: int = 1, save_failures: str | None = None,
                 memory_limit_mb: int = 8192, mlir_corpus: str | None = None,
                 cortex_m_fraction: float = 0.1, progress: Callable[[Result], None] | None = None):
        unknown = [kind for kind in kinds if kind not in KINDS]
        if unknown or not kinds:
            raise FuzzerError(f"unknown kind(s) {unknown} (known: {', '.join(KINDS)})")
        self.seed = seed
        self.kinds = tuple(kinds)
        weights = weights or DEFAULT_WEIGHTS
        self.weights = [weights.get(kind, 1) for kind in self.kinds]
        self.timeout = timeout
        self.jobs = max(1, jobs)
        self.save_failures = Path(save_failures) if save_failures else None
        self.memory_limit = memory_limit_mb * 2**20
        self.mlir_corpus = Path(mlir_corpus) if mlir_corpus else REPO_ROOT / "test"
        self.cortex_m_fraction = cortex_m_fraction
        self.progress = progress
        self._mains = _tool_mains()
        self._models = seed_models()
        self._model_bytes = {name: m.SerializeToString() for name, m in self._models.items()}
        self._tflite_bytes = {path.stem: path.read_bytes()
                              for path in sorted((REPO_ROOT / "test" / "models" / "int8")
                                                 .glob("op_*.tflite"))}
        self._tflite_seeds: dict[str, tuple[bytes, object]] | None = None
        self._chunks: list[str] | None = None
        self._registered = None
        self._compiled: list[tuple[dict[str, bytes], dict[str, np.ndarray]]] | None = None
        self._scratch: Path | None = None

    # -- cases ------------------------------------------------------------

    def kind_of(self, index: int) -> str:
        if len(self.kinds) == 1:
            return self.kinds[0]
        return random.Random(f"{self.seed}:kind:{index}").choices(self.kinds, self.weights)[0]

    def case(self, index: int) -> Case:
        kind = self.kind_of(index)
        rng = random.Random(f"{self.seed}:{kind}:{index}")
        make = {"onnx-bytes": self._onnx_bytes_case, "tflite-bytes": self._tflite_bytes_case,
                "onnx-struct": self._onnx_struct_case,
                "tflite-struct": self._tflite_struct_case,
                "mlir": self._mlir_case, "compiled": self._compiled_case}[kind]
        return make(rng, index)

    def _onnx_bytes_case(self, rng, index) -> Case:
        name = rng.choice(sorted(self._model_bytes))
        others = [self._model_bytes[n] for n in sorted(self._model_bytes)]
        data, done = damage_bytes(rng, self._model_bytes[name], others)
        return Case("onnx-bytes", index, "compile", ["m.onnx", "-o", "out", "--target", "host"],
                    {"m.onnx": data}, [f"seed model {name}"] + done)

    def _tflite_bytes_case(self, rng, index) -> Case:
        name = rng.choice(sorted(self._tflite_bytes))
        others = [self._tflite_bytes[n] for n in sorted(self._tflite_bytes)]
        data, done = damage_bytes(rng, self._tflite_bytes[name], others)
        return Case("tflite-bytes", index, "compile",
                    ["m.tflite", "-o", "out", "--target", "host"], {"m.tflite": data},
                    [f"seed model {name}"] + done)

    def _onnx_struct_case(self, rng, index) -> Case:
        name = rng.choice(sorted(self._models))
        target = "cortex-m4" if rng.random() < self.cortex_m_fraction else "host"
        if rng.random() < 0.04:
            output = rng.choice(HOSTILE_OUTPUTS)
            return Case("onnx-struct", index, "compile",
                        ["m.onnx", "-o", output, "--target", target],
                        {"m.onnx": self._model_bytes[name]},
                        [f"seed model {name}", f"-o {output!r}"])
        data, done = damage_model(rng, self._models[name])
        return Case("onnx-struct", index, "compile", ["m.onnx", "-o", "out", "--target", target],
                    {"m.onnx": data}, [f"seed model {name}"] + done)

    def _tflite_struct_case(self, rng, index) -> Case:
        from tflite_struct import damage_tflite, read_model
        if self._tflite_seeds is None:
            self._tflite_seeds = {name: (data, read_model(data))
                                  for name, data in tflite_seed_files().items()}
        names = sorted(self._tflite_seeds)
        name = rng.choices(names, [_seed_weight(len(self._tflite_seeds[n][0]))
                                   for n in names])[0]
        target = "cortex-m4" if rng.random() < self.cortex_m_fraction else "host"
        data, done = damage_tflite(rng, self._tflite_seeds[name][1])
        return Case("tflite-struct", index, "compile",
                    ["m.tflite", "-o", "out", "--target", target], {"m.tflite": data},
                    [f"seed model {name}"] + done,
                    compare="m.tflite" if target == "host" else None)

    def _mlir_case(self, rng, index) -> Case:
        if self._chunks is None:
            self._chunks = mlir_chunks(self.mlir_corpus)
            if not self._chunks:
                raise FuzzerError(f"no .mlir files under {self.mlir_corpus}")
            from tinyml.pipeline.registry import registered_passes
            self._registered = list(registered_passes())
        chunk_index = rng.randrange(len(self._chunks))
        text, done = damage_mlir(rng, self._chunks[chunk_index])
        files = {"in.mlir": text.encode()}
        if rng.random() < 0.1:
            return Case("mlir", index, "compile", ["in.mlir", "-o", "out", "--target", "host"],
                        files, [f"corpus chunk {chunk_index}"] + done)
        flags = random_pass_flags(rng, self._registered)
        return Case("mlir", index, "opt", ["in.mlir", "-o", "out.mlir", *flags], files,
                    [f"corpus chunk {chunk_index}"] + done)

    def _compiled_case(self, rng, index) -> Case:
        folders = self._compiled_folders()
        folder, inputs = rng.choice(folders)
        files = dict(folder)
        others = [f for f, _ in folders if f is not folder]
        done = []
        for _ in range(rng.choice((1, 1, 1, 2, 3))):
            what = _damage_folder(rng, files, others)
            if what:
                done.append(what)
        if rng.random() < 0.7 and reseal(files):
            done.append("digests resealed")
        npy = {name: _npy_bytes(array) for name, array in inputs.items()}
        if rng.random() < 0.1:
            name = rng.choice(sorted(npy))
            npy[name], what = _damage_npy(rng, inputs[name])
            done.append(f"{name}: {what}")
        argv = ["out"]
        for name in sorted(npy):
            argv += ["--input", name]
        if rng.random() < 0.2:
            argv.append("--poison-arena")
        all_files = {f"out/{name}": data for name, data in files.items()}
        all_files.update(npy)
        return Case("compiled", index, "run", argv, all_files,
                    [f"folder of {_describe_folder(folder)}"] + done)

    # -- the compiled folders every 'compiled' case starts from ---------------

    def _compiled_folders(self):
        if self._compiled is None:
            self._compiled = []
            conv = self._models["conv_relu"]
            add = _model("add2", [helper.make_node("Add", ["a", "b"], ["y"], name="add")],
                         [_tensor_in("a", [1, 4, 4, 4]), _tensor_in("b", [1, 4, 4, 4])],
                         [_tensor_out("y")])
            for model in (conv, add):
                for target in ("host", "cortex-m4"):
                    self._compiled.append(self._compile_seed(model, target))
        return self._compiled

    def _compile_seed(self, model: onnx.ModelProto, target: str):
        filename = f"{model.graph.name}.onnx"  # names the compiled model
        case = Case("compiled", -1, "compile", [filename, "-o", "out", "--target", target],
                    {filename: model.SerializeToString()})
        result, work = self._run_now(case)
        if result.outcome != "pass" or result.exit_code != 0:
            last_line = (result.stderr.strip().splitlines() or [result.status_text()])[-1]
            raise FuzzerError(f"cannot compile the seed model '{model.graph.name}' for "
                              f"{target}: {last_line[:300]}")
        out = work / "out"
        folder = {p.relative_to(out).as_posix(): p.read_bytes()
                  for p in sorted(out.rglob("*")) if p.is_file()}
        report = json.loads(folder[REPORT])
        # Timings differ from one compile to the next: fixed ones keep the seed
        # folders, and so the cases made from them, the same from run to run.
        report["compile_seconds"] = 1.0
        if isinstance(report.get("stage_seconds"), dict):
            report["stage_seconds"] = dict.fromkeys(report["stage_seconds"], 0.1)
        folder[REPORT] = (json.dumps(report, indent=2) + "\n").encode()
        reseal(folder)
        rng = np.random.default_rng(0)
        inputs = {f"{info['name']}.npy":
                  rng.standard_normal(info["shape"]).astype(info["dtype"])
                  for info in report["inputs"]}
        shutil.rmtree(work.parent, ignore_errors=True)
        return folder, inputs

    # -- running ------------------------------------------------------------

    def _start(self, case: Case) -> _Running:
        root = Path(tempfile.mkdtemp(prefix=f"{case.kind}-{case.index}-", dir=self._scratch))
        work = root / "work"
        sentinel_text = f"tinyml fuzz sentinel {self.seed} {case.kind} {case.index}\n"
        _prepare_workdir(work, case, sentinel_text)
        sys.stdout.flush()
        sys.stderr.flush()
        main = self._mains[case.tool]
        after = None
        if case.compare:
            def after():
                _numeric_check(work, root, case.compare, "out", self.timeout / 3)
        pid = os.fork()
        if pid == 0:
            _child(main, case.argv, work, root / "stdout", root / "stderr", self.memory_limit,
                   after)
        return _Running(case, pid, root, time.monotonic(), sentinel_text)

    def _finish(self, running: _Running, wait_status: int | None, timed_out: bool) -> Result:
        seconds = time.monotonic() - running.start
        exit_code = sig = None
        if not timed_out:
            if os.WIFSIGNALED(wait_status):
                sig = os.WTERMSIG(wait_status)
            else:
                exit_code = os.WEXITSTATUS(wait_status)
        work = running.root / "work"
        result = Result(running.case, self.seed, exit_code, sig, timed_out, seconds,
                        _read(running.root / "stdout"), _read(running.root / "stderr"),
                        _lost_files(work, running.case, running.sentinel_text))
        try:
            verdict = json.loads((running.root / "numeric.json").read_text())
            result.compared, result.numeric = bool(verdict["compared"]), verdict["mismatch"]
        except (OSError, ValueError, KeyError, TypeError):
            pass
        if result.outcome != "pass" and self.save_failures and running.case.index >= 0:
            result.saved = str(self._save(result))
        return result

    def _poll(self, running: _Running) -> Result | None:
        """The result when the case has ended (or was ended now), else None."""
        try:
            ended = os.waitid(os.P_PID, running.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            ended = None
        timed_out = ended is None and time.monotonic() - running.start > self.timeout
        if ended is None and not timed_out:
            return None
        # Whatever the tool left running in its group (a crash guard's child) ends with it.
        try:
            os.killpg(running.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        _, wait_status = os.waitpid(running.pid, 0)
        return self._finish(running, None if timed_out else wait_status, timed_out)

    def _run_now(self, case: Case) -> tuple[Result, Path]:
        """Runs one case to its end and keeps its working directory."""
        self._ensure_scratch()
        running = self._start(case)
        while (result := self._poll(running)) is None:
            time.sleep(0.005)
        return result, running.root / "work"

    def _ensure_scratch(self) -> None:
        if self._scratch is None:
            self._scratch = Path(tempfile.mkdtemp(prefix="tinyml-fuzz-"))

    def run(self, indices) -> list[Result]:
        """Runs the cases `indices` (`jobs` at a time); results in index order."""
        self._ensure_scratch()
        try:
            pending = [self.case(index) for index in indices]
            pending.reverse()
            running: list[_Running] = []
            results: list[Result] = []
            while pending or running:
                while pending and len(running) < self.jobs:
                    running.append(self._start(pending.pop()))
                ended = False
                for item in list(running):
                    result = self._poll(item)
                    if result is not None:
                        ended = True
                        running.remove(item)
                        shutil.rmtree(item.root, ignore_errors=True)
                        results.append(result)
                        if self.progress:
                            self.progress(result)
                if not ended:
                    time.sleep(0.005)
            return sorted(results, key=lambda r: r.case.index)
        finally:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None
            self._compiled = None

    def _save(self, result: Result) -> Path:
        case = result.case
        folder = self.save_failures / f"{case.kind}-s{self.seed}-c{case.index}"
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        _materialize(case.files, folder)
        (folder / "cmd.sh").write_text(
            "#!/bin/sh\n# tinyml fuzz case; run it on a copy of this folder\n"
            f'cd "$(dirname "$0")" && {case.command()}\n')
        (folder / "cmd.sh").chmod(0o755)
        (folder / "stderr.txt").write_text(result.stderr)
        (folder / "stdout.txt").write_text(result.stdout[:65536])
        (folder / "case.txt").write_text(
            f"outcome: {result.outcome} ({', '.join(result.problems)})\n"
            f"status: {result.status_text()}\nseconds: {result.seconds:.2f}\n"
            f"lost: {', '.join(result.lost) or '-'}\nrerun: {result.rerun_command()}\n"
            f"numeric: {result.numeric or '-'}\n"
            "mutations:\n" + "".join(f"  {m}\n" for m in case.mutations))
        return folder


def _npy_bytes(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


def _describe_folder(folder: dict[str, bytes]) -> str:
    report = json.loads(folder[REPORT])
    return f"{report['model']} ({report['target']})"


# ---------------------------------------------------------------------------
# Reporting and the command line
# ---------------------------------------------------------------------------

def summary_table(results: list[Result], kinds=KINDS) -> str:
    """Outcome classes per kind: one row per kind, one column per outcome."""
    columns = OUTCOMES + ("leaked?", "compared")
    rows = []
    for kind in list(kinds) + ["total"]:
        selected = [r for r in results if kind in ("total", r.case.kind)]
        counts = Counter(r.outcome for r in selected)
        counts["leaked?"] = sum(r.leaked_exception for r in selected)
        counts["compared"] = sum(r.compared for r in selected)
        slowest = max((r.seconds for r in selected), default=0.0)
        rows.append([kind, str(len(selected))] + [str(counts[c]) for c in columns]
                    + [f"{slowest:.1f}"])
    header = ["kind", "cases", *columns, "max s"]
    widths = [max(len(row[i]) for row in rows + [header]) for i in range(len(header))]
    lines = ["  ".join(cell.rjust(w) if i else cell.ljust(w)
                       for i, (cell, w) in enumerate(zip(row, widths)))
             for row in [header] + rows]
    return "\n".join(lines)


def distinct_failures(results: list[Result]) -> list[tuple[str, str, int, Result]]:
    """(outcome, signature, count, first result) per distinct failure, most frequent first."""
    groups: dict[tuple[str, str, str], list[Result]] = defaultdict(list)
    for result in results:
        if result.outcome != "pass":
            groups[(result.outcome, result.case.tool, result.signature())].append(result)
    ordered = sorted(groups.items(), key=lambda item: (FAILURE_CLASSES.index(item[0][0]),
                                                        -len(item[1])))
    return [(outcome, f"tinyml-{tool}: {sig}", len(found), found[0])
            for (outcome, tool, sig), found in ordered]


def failure_report(results: list[Result]) -> str:
    lines = []
    failing = [r for r in results if r.outcome != "pass"]
    if not failing:
        return "all cases passed"
    lines.append(f"{len(failing)} failing case(s); distinct failures:")
    for outcome, signature, count, first in distinct_failures(results):
        lines.append(f"  [{outcome}] x{count} {signature}  (e.g. {first.rerun_command()})")
    lines.append("failing cases:")
    lines.extend(f"  {r.reproducer()}" for r in failing)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="tools/fuzz.py",
        description="Seeded fuzzer of tinyml-compile, tinyml-opt and tinyml-run. Exits 0 "
                    "only if every case passed.")
    parser.add_argument("--cases", type=int, default=100, help="how many cases (default 100)")
    parser.add_argument("--seed", type=int, default=0, help="the seed (default 0)")
    parser.add_argument("--kinds", nargs="+", default=list(KINDS), metavar="KIND",
                        help=f"which kinds (default all: {' '.join(KINDS)}); "
                             "commas also separate")
    parser.add_argument("--case", type=int, action="append", metavar="INDEX",
                        help="run only this case index (repeatable); with --kinds and "
                             "--seed as the reproducer line gives them")
    parser.add_argument("--jobs", type=int, default=1, help="cases at once (default 1)")
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="seconds before a case is killed (default 60)")
    parser.add_argument("--save-failures", metavar="DIR",
                        help="save each failing case's inputs, command and stderr under DIR")
    parser.add_argument("--memory-limit-mb", type=int, default=8192,
                        help="address-space limit of each case (default 8192, 0: none)")
    parser.add_argument("--mlir-corpus", metavar="DIR",
                        help="where the .mlir files are (default: the repository's test/)")
    parser.add_argument("--json", metavar="FILE", help="also write every result as JSON")
    parser.add_argument("-v", "--verbose", action="store_true", help="print each case")
    args = parser.parse_args(argv)
    kinds = [kind for item in args.kinds for kind in item.split(",") if kind]

    def progress(result: Result) -> None:
        if args.verbose:
            print(f"{result.case.kind:11} {result.case.index:5} {result.outcome:16} "
                  f"{result.status_text():14} {result.seconds:5.1f}s {result.case.command()}",
                  file=sys.stderr, flush=True)

    try:
        fuzzer = Fuzzer(args.seed, kinds, timeout=args.timeout, jobs=args.jobs,
                        save_failures=args.save_failures,
                        memory_limit_mb=args.memory_limit_mb, mlir_corpus=args.mlir_corpus,
                        progress=progress)
        start = time.monotonic()
        results = fuzzer.run(args.case if args.case else range(args.cases))
    except FuzzerError as error:
        print(f"fuzz: error: {error}", file=sys.stderr)
        return 2
    print(f"seed {args.seed}, {len(results)} case(s), kinds {' '.join(kinds)}, "
          f"{time.monotonic() - start:.1f}s")
    print(summary_table(results, kinds))
    print(failure_report(results))
    if args.json:
        Path(args.json).write_text(json.dumps([
            {"kind": r.case.kind, "index": r.case.index, "tool": r.case.tool,
             "argv": r.case.argv, "mutations": r.case.mutations, "outcome": r.outcome,
             "problems": r.problems, "exit_code": r.exit_code, "signal": r.signal,
             "seconds": round(r.seconds, 3), "stderr": r.stderr[:4000], "lost": r.lost,
             "leaked": r.leaked_exception, "saved": r.saved, "compared": r.compared,
             "numeric": r.numeric} for r in results], indent=1))
    return 0 if all(r.outcome == "pass" for r in results) else 1
