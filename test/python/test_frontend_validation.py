"""The ONNX frontend refuses every invalid or out-of-range model with one
line naming the node, tensor or field (exit 1), before any MLIR type exists;
and an exception that is not the frontend's verdict on the model is a
defect in tinyml, reported as an internal error (exit 2), never disguised
as a user error.

Classes: models ONNX itself calls invalid (versions, duplicates, attribute
types, input counts, shapes that inference contradicts); model fields that
used to leak Python exception texts (names that are not UTF-8, attributes
without a type); sizes no 32-bit target holds; and a structural-mutation
smoke loop over small models through the Python API.
"""
from __future__ import annotations

import copy
import os
import random
import re
import subprocess
import sys

import numpy as np
import onnx
import pytest
from onnx import AttributeProto, TensorProto, helper, numpy_helper

from tinyml import make_context
from tinyml.frontend import FrontendError, import_onnx

F = TensorProto.FLOAT


def _model(nodes, inputs, outputs, inits=(), opset=13, name="g"):
    graph = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model


def _io(name, shape, dtype=F):
    return helper.make_tensor_value_info(name, dtype, shape)


def _init(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def _relu(shape=(1, 4), **kwargs):
    return _model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
                  [_io("x", list(shape))], [_io("y", list(shape))], **kwargs)


def _conv(name="conv", **attrs):
    attrs = {"strides": [1, 1], "pads": [1, 1, 1, 1], **attrs}
    node = helper.make_node("Conv", ["x", "w", "b"], ["y"], name=name, **attrs)
    return _model([node], [_io("x", [1, 4, 8, 8])], [_io("y", [1, 8, 8, 8])],
                  [_init("w", np.ones((8, 4, 3, 3), np.float32)),
                   _init("b", np.zeros(8, np.float32))])


def _reduce_mean(shape):
    node = helper.make_node("ReduceMean", ["x"], ["y"], name="mean", axes=[3], keepdims=1)
    return _model([node], [_io("x", shape)], [_io("y", None)])


def _gemm():
    node = helper.make_node("Gemm", ["x", "w", "b"], ["y"], name="gemm", transB=1)
    return _model([node], [_io("x", [1, 16])], [_io("y", [1, 4])],
                  [_init("w", np.ones((4, 16), np.float32)), _init("b", np.zeros(4, np.float32))])


def _reshape(shape):
    node = helper.make_node("Reshape", ["x", "s"], ["y"], name="reshape")
    return _model([node], [_io("x", [1, 4, 2, 2])], [_io("y", None)], [_init("s", shape)])


def _concat():
    node = helper.make_node("Concat", ["x", "z"], ["y"], name="cat", axis=1)
    return _model([node], [_io("x", [1, 4, 2, 2]), _io("z", [1, 3, 2, 2])], [_io("y", None)])


def _with(model, change):
    change(model)
    return model


def _set_attr_type(model, node, name, attr_type):
    """The node's attribute `name` keeps its value but claims `attr_type`."""
    attribute = next(a for a in model.graph.node[node].attribute if a.name == name)
    attribute.type = attr_type
    return model


def _bytes(model, text: str, raw: bytes) -> bytes:
    """The serialized model with the string `text` replaced by `raw` (same
    length, not UTF-8): protobuf will not build such a model itself."""
    data = model.SerializeToString()
    assert len(text.encode()) == len(raw) and data.count(text.encode()) == 1
    return data.replace(text.encode(), raw)


def _write(tmp_path, label, model) -> str:
    path = tmp_path / f"{label}.onnx"
    path.write_bytes(model if isinstance(model, bytes) else model.SerializeToString())
    return str(path)


def _check_refusals(tmp_path, cases, via_compile, via_opt=()):
    """Every case of `cases` (label -> (build, pattern)) is refused by the
    Python API with one line matching its pattern; those named in
    `via_compile` / `via_opt` also by the real CLI (run at once): exit 1
    and that line alone on stderr."""
    paths = {label: _write(tmp_path, label, build()) for label, (build, _) in cases.items()}
    runs = {}
    for tool, module, labels in (("tinyml-compile", "tinyml.cli.compile", via_compile),
                                 ("tinyml-opt", "tinyml.cli.opt", via_opt)):
        for label in labels:
            argv = [paths[label], "-o", str(tmp_path / f"{label}-out"), "--target", "host"] \
                if tool == "tinyml-compile" else [paths[label]]
            runs[tool, label] = subprocess.Popen(
                [sys.executable, "-m", module, *argv], stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, text=True, env={**os.environ, "TINYML_DEBUG": ""})
    with make_context():
        for label, path in paths.items():
            with pytest.raises(FrontendError) as info:
                import_onnx(path)
            message = str(info.value)
            assert "\n" not in message, (label, message)
            assert re.search(cases[label][1], message), (label, message)
    for (tool, label), run in runs.items():
        _, stderr = run.communicate(timeout=180)
        lines = stderr.splitlines()
        assert run.returncode == 1, (tool, label, stderr)
        assert len(lines) == 1, (tool, label, stderr)
        assert lines[0].startswith(f"{tool}: error: {paths[label]}: "), (tool, label, lines)
        assert re.search(cases[label][1], lines[0]), (tool, label, lines[0])
    assert not any(p.name.endswith("-out") for p in tmp_path.iterdir())


# ---------------------------------------------------------------------------
# 1. Models ONNX calls invalid are refused, naming what is wrong
# ---------------------------------------------------------------------------

def _output_undefined():
    model = _relu()
    model.graph.output[0].type.tensor_type.elem_type = TensorProto.UNDEFINED
    return model


INVALID = {
    "opset_99": (lambda: _relu(opset=99),
                 r"opset 99 of the default domain \(ai\.onnx\) does not exist \(this ONNX "
                 r"\(\S+\) knows 1 to \d+\)"),
    "opset_minus_1": (lambda: _relu(opset=-1), r"opset -1 of the default domain"),
    "ir_version_99": (lambda: _with(_relu(), lambda m: setattr(m, "ir_version", 99)),
                      r"ir_version 99 is newer than this ONNX \(\S+\) reads"),
    "protobuf_twice": (lambda: _conv().SerializeToString() * 2,
                       r"opset_import lists the default domain \(ai\.onnx\) more than once"),
    "output_twice": (lambda: _with(_relu(), lambda m: m.graph.output.append(m.graph.output[0])),
                     r"the graph lists output 'y' 2 times"),
    "input_twice": (lambda: _with(_relu(), lambda m: m.graph.input.append(m.graph.input[0])),
                    r"the graph lists input 'x' 2 times"),
    "output_undefined": (_output_undefined, r"output 'y' has element type UNDEFINED; only float32"),
    "float_strides": (lambda: _conv(strides=[1.0, 1.0]),
                      r"node 'conv' \(Conv\): attribute 'strides' must be a list of ints, "
                      r"got FLOATS"),
    "string_pads": (lambda: _conv(pads="1111"),
                    r"node 'conv' \(Conv\): attribute 'pads' must be a list of ints, got STRING"),
    "add_3_inputs": (lambda: _model([helper.make_node("Add", ["x", "x", "x"], ["y"], name="add")],
                                    [_io("x", [1, 3])], [_io("y", [1, 3])]),
                     r"node 'add' \(Add\): has 3 inputs; Add \(opset 13\) takes 2$"),
    "float_reshape_shape": (lambda: _reshape(np.array([1.0, 16.0], np.float32)),
                            r"node 'reshape' \(Reshape\): invalid ONNX model: .*\bs\b.*int64"),
    "initializer_shadows_input": (
        lambda: _with(_relu(), lambda m: m.graph.initializer.append(
            _init("x", np.zeros((2, 3), np.float32)))),
        r"initializer 'x' \(FLOAT \[2, 3\]\) does not match input 'x' \(FLOAT \[1, 4\]\)"),
    "batch_dim_0": (lambda: _relu(shape=(0, 4)),
                    r"input 'x' has shape \[0, 4\]; dimensions must be positive"),
    "mixed_types": (lambda: _model([helper.make_node("Add", ["x", "k"], ["y"], name="mixed")],
                                   [_io("x", [1, 4])], [_io("y", [1, 4])],
                                   [_init("k", np.arange(4, dtype=np.int64))]),
                    r"node 'mixed' \(Add\): invalid ONNX model: .*int64"),
    "unknown_data_type": (lambda: _with(_conv(), lambda m: setattr(
        m.graph.initializer[0], "data_type", 99)),
        r"invalid ONNX model: Invalid tensor data type 99"),
    "external_data_no_location": (lambda: _with(_conv(), _external_without_location),
                                  r"cannot load external data: Location of external "
                                  r"TensorProto .* should not be empty"),
}


def _external_without_location(model):
    weights = model.graph.initializer[0]
    weights.ClearField("float_data")
    weights.ClearField("raw_data")
    weights.data_location = TensorProto.EXTERNAL
    weights.external_data.add(key="location", value="")


def test_invalid_models_are_refused_with_one_line(tmp_path):
    _check_refusals(tmp_path, INVALID, via_compile=["opset_99", "protobuf_twice", "add_3_inputs"])


# ---------------------------------------------------------------------------
# 2. Fields that leaked Python exception texts
# ---------------------------------------------------------------------------

def _batch_norm():
    return _model([helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"],
                                    name="bn", epsilon=1e-5)],
                  [_io("x", [1, 3, 2, 2])], [_io("y", None)],
                  [_init(n, np.ones(3, np.float32)) for n in "sbmv"])


def _pool():
    return _model([helper.make_node("AveragePool", ["x"], ["y"], name="pool", kernel_shape=[2, 2])],
                  [_io("x", [1, 4, 8, 8])], [_io("y", None)])


def _group_tensor():
    model = _conv()
    model.graph.node[0].attribute.append(helper.make_attribute("group", 1))
    model.graph.node[0].attribute[-1].t.CopyFrom(_init("g", np.array(1, np.int64)))
    return _set_attr_type(model, 0, "group", AttributeProto.TENSOR)


LEAKS = {
    "graph_name_bytes": (lambda: _bytes(_relu(name="graph_Xname"), "graph_Xname",
                                        b"graph_\x9aname"),
                         r"model\.graph\.name is not valid UTF-8: b'graph_\\x9aname'"),
    "node_name_bytes": (lambda: _bytes(_conv(name="conv_X"), "conv_X", b"conv_\xca"),
                        r"model\.graph\.node\[0\]\.name is not valid UTF-8"),
    "attribute_name_bytes": (lambda: _bytes(_conv(), "strides", b"\xfetrides"),
                             r"node 'conv' \(Conv\): model\.graph\.node\[0\]\.attribute"
                             r"\[\d\]\.name is not valid UTF-8: b'\\xfetrides'"),
    "epsilon_untyped": (lambda: _set_attr_type(_batch_norm(), 0, "epsilon",
                                               AttributeProto.UNDEFINED),
                        r"node 'bn' \(BatchNormalization\): attribute 'epsilon' must be a "
                        r"float, got UNDEFINED"),
    "group_tensor": (_group_tensor,
                     r"node 'conv' \(Conv\): attribute 'group' must be an int, got TENSOR"),
    "kernel_shape_untyped": (lambda: _set_attr_type(_pool(), 0, "kernel_shape",
                                                    AttributeProto.UNDEFINED),
                             r"node 'pool' \(AveragePool\): attribute 'kernel_shape' must "
                             r"be a list of ints, got UNDEFINED"),
    "name_with_line_break": (lambda: _model([helper.make_node("Erf", ["x"], ["y"],
                                                              name="line\nbreak")],
                                            [_io("x", [1, 4])], [_io("y", None)]),
                             r"node 'line\\nbreak' \(Erf\): unsupported op"),
}


def test_fields_that_leaked_python_errors_are_named(tmp_path):
    _check_refusals(tmp_path, LEAKS, via_compile=["node_name_bytes", "epsilon_untyped"],
                    via_opt=["graph_name_bytes", "kernel_shape_untyped"])


# ---------------------------------------------------------------------------
# 3. Sizes no 32-bit target holds, before any MLIR type is built
# ---------------------------------------------------------------------------

def _concat_copies():
    # Four 512 MiB inputs make a 2 GiB result: each input fits, the result not.
    node = helper.make_node("Concat", ["x"] * 4, ["y"], name="cat", axis=0)
    return _model([node], [_io("x", [1, 2 ** 13, 2 ** 14])], [_io("y", None)])


def _huge_initializer():
    model = _gemm()
    weights = model.graph.initializer[0]
    weights.ClearField("raw_data")
    weights.dims[:] = [2 ** 20, 2 ** 20]
    return model


SIZES = {
    "huge_input_dim": (lambda: _reduce_mean([1, 4, 8, 2 ** 62]),
                       r"input 'x' has shape \[1, 4, 8, 4611686018427387904\] \(\d+ bytes\); "
                       r"a tensor on a 32-bit target must be smaller than 2147483648 bytes"),
    "huge_intermediate": (_concat_copies,
                          r"tensor 'y' \(of node 'cat' \(Concat\)\) has shape "
                          r"\[4, 8192, 16384\] \(2147483648 bytes\)"),
    "huge_initializer": (_huge_initializer,
                         r"initializer 'w' has shape \[1048576, 1048576\] \(\d+ bytes\)"),
    "negative_dim": (lambda: _relu(shape=(1, -3)),
                     r"input 'x' has shape \[1, -3\]; dimensions must be positive"),
    "zero_output_dim": (lambda: _with(_relu(), lambda m: setattr(
        m.graph.output[0].type.tensor_type.shape.dim[1], "dim_value", 0)),
                        r"output 'y' declares shape \[1, 0\]; dimensions must be positive"),
}


def test_sizes_beyond_a_32_bit_target_are_refused(tmp_path):
    _check_refusals(tmp_path, SIZES, via_compile=["huge_input_dim"], via_opt=["huge_intermediate"])


# ---------------------------------------------------------------------------
# 4. Only the frontend's verdicts are user errors
# ---------------------------------------------------------------------------

def _broken_importer(monkeypatch):
    from tinyml.frontend.onnx.importer import Importer

    def run(self):
        raise KeyError("a defect")
    monkeypatch.setattr(Importer, "run", run)


def test_a_frontend_defect_is_an_internal_error(tmp_path, monkeypatch, capsys):
    import tinyml
    from tinyml.cli import compile as compile_cli, opt as opt_cli
    path = tmp_path / "relu.onnx"
    onnx.save(_relu(), path)
    monkeypatch.setenv("TINYML_DEBUG", "")
    _broken_importer(monkeypatch)
    with pytest.raises(KeyError):
        tinyml.compile(str(path), target="host")
    assert compile_cli.main([str(path), "-o", str(tmp_path / "out"), "--target", "host"]) == 2
    assert opt_cli.main([str(path)]) == 2
    errors = capsys.readouterr().err.splitlines()
    assert len(errors) == 2
    assert errors[0].startswith("tinyml-compile: ") and "internal error: KeyError" in errors[0]
    assert errors[1].startswith("tinyml-opt: internal error: KeyError")


def test_a_frontend_verdict_is_a_one_line_compile_error():
    import tinyml
    with pytest.raises(tinyml.CompileError, match=r"^g: node 'add' \(Add\): has 3 inputs") \
            as info:
        tinyml.compile(_model([helper.make_node("Add", ["x"] * 3, ["y"], name="add")],
                              [_io("x", [1, 3])], [_io("y", [1, 3])]), target="host")
    assert "\n" not in str(info.value)


# ---------------------------------------------------------------------------
# Structural mutations: a model imports, or FrontendError says why in a line
# ---------------------------------------------------------------------------

ODD_INTS = [0, -1, 2, 2 ** 31, 2 ** 62, -(2 ** 63)]


def _mutate_attribute(r, model):
    nodes = [n for n in model.graph.node if n.attribute]
    if not nodes:
        return
    node = r.choice(nodes)
    attribute = r.choice(list(node.attribute))
    kind = r.randrange(4)
    if kind == 0:
        attribute.type = r.randrange(0, 15)
    elif kind == 1 and attribute.type == AttributeProto.INTS:
        attribute.ints[:] = [r.choice(ODD_INTS) for _ in range(r.randrange(0, 5))]
    elif kind == 2 and attribute.type == AttributeProto.INT:
        attribute.i = r.choice(ODD_INTS)
    else:
        node.attribute.remove(attribute)


def _mutate_dims(r, model):
    info = r.choice(list(model.graph.input) + list(model.graph.output))
    dims = info.type.tensor_type.shape.dim
    if dims:
        r.choice(dims).dim_value = r.choice(ODD_INTS)


def _mutate_inputs(r, model):
    node = r.choice(list(model.graph.node))
    if r.random() < 0.5:
        node.input.append(node.input[0])
    else:
        del node.input[-1]


def _mutate_versions(r, model):
    if r.random() < 0.5:
        model.ir_version = r.choice([-1, 0, 3, 99])
    else:
        model.opset_import[0].version = r.choice([-1, 0, 1, 7, 10, 99])


def _mutate_initializer(r, model):
    if model.graph.initializer:
        tensor = r.choice(list(model.graph.initializer))
        tensor.dims[:] = [r.choice(ODD_INTS + [1, 4]) for _ in range(r.randrange(0, 3))]


MUTATIONS = [_mutate_attribute, _mutate_dims, _mutate_inputs, _mutate_versions,
             _mutate_initializer]


def test_structural_mutations_import_or_fail_in_one_line():
    bases = [_conv(), _gemm(), _reduce_mean([1, 4, 8, 8]), _reshape(np.array([1, 16])),
             _concat()]
    r = random.Random(7)
    refused = 0
    with make_context():
        for _ in range(120):
            model = copy.deepcopy(r.choice(bases))
            r.choice(MUTATIONS)(r, model)
            try:
                import_onnx(model)
            except FrontendError as error:
                refused += 1
                assert "\n" not in str(error) and str(error).startswith("g: ")
    assert refused > 60
