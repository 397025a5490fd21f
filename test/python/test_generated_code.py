"""The generated C: every name in a header is a distinct, non-reserved C
identifier whatever the ONNX names are; the model's name (artefacts and C
symbol) comes from the file name's first component or `name=`; two models
link into one firmware; the artefacts do not depend on where the model was
or where the compile ran."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import onnx
import pytest
from elftools.elf.elffile import ELFFile
from onnx import TensorProto, helper

import tinyml
import zoo
from tinyml import CompileError

from conftest import cli

C_FLAGS = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-fsyntax-only"]
needs_cc = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")

# ONNX input names that are not usable as C parameters as they are, and the
# parameter each must become.
HOSTILE_INPUTS = {
    "arena": "arena_2",                      # the arena parameter
    "int": "int_",                           # C keyword
    "1x": "input2_1x",                       # leading digit
    "a-b": "a_b",                            # not an identifier character ...
    "a_b": "a_b_2",                          # ... and the same name once sanitized
    "_Bool": "Bool",                         # reserved (underscore + capital)
    "__x": "x",                              # reserved (double underscore)
    "h\u00e9llo": "h_llo",                   # non-ASCII
    "TINYML_A_ARENA_BYTES": "TINYML_A_ARENA_BYTES_",  # a macro of the header
    "uint8_t": "uint8_t_",                   # the arena's type
}
HOSTILE_OUTPUTS = {
    "a.b": "a_b_3",                          # an input's sanitized name
    "int": "int_2",                          # an input, returned as it is
    "restrict": "restrict_",                 # C99 keyword
    "x*/y??/": "x_y_",                       # would end the comment / trigraph
}


def make_model(inputs: list[str], outputs: list[str], op: str = "Add") -> onnx.ModelProto:
    """`op` folds the inputs into one tensor; each output is its Relu, or
    an input of that name as it is. The graph is named `tf2onnx`, as
    tf2onnx names every graph."""
    shape = [1, 4]
    nodes, total = [], inputs[0]
    for k, name in enumerate(inputs[1:]):
        nodes.append(helper.make_node(op, [total, name], [f"sum{k}"]))
        total = f"sum{k}"
    nodes += [helper.make_node("Relu", [total], [name]) for name in outputs
              if name not in inputs]
    graph = helper.make_graph(
        nodes, "tf2onnx",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, shape) for n in inputs],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, shape) for n in outputs])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def global_symbols(obj: Path) -> dict[str, str]:
    """Defined global and weak symbols of an ELF object -> their binding."""
    with open(obj, "rb") as stream:
        table = ELFFile(stream).get_section_by_name(".symtab")
        return {s.name: s["st_info"]["bind"] for s in table.iter_symbols()
                if s["st_info"]["bind"] in ("STB_GLOBAL", "STB_WEAK")
                and s["st_shndx"] != "SHN_UNDEF"}


@pytest.fixture(scope="module")
def two_models(tmp_path_factory):
    """`a.tf2onnx.onnx` (hostile names) and `b.tf2onnx.onnx`, compiled for
    cortex-m4 into a/ and b/."""
    base = tmp_path_factory.mktemp("two")
    models = {"a": make_model(list(HOSTILE_INPUTS), list(HOSTILE_OUTPUTS)),
              "b": make_model(["x", "int"], ["y"], op="Mul")}
    for name, model in models.items():
        path = base / f"{name}.tf2onnx.onnx"
        onnx.save(model, path)
        tinyml.compile(path, target="cortex-m4").save(base / name)
    return base


def test_the_name_comes_from_the_file_name_not_the_graph(two_models):
    for name in ("a", "b"):
        report = json.loads((two_models / name / "report.json").read_text())
        assert report["model"] == report["function"] == name
        for suffix in (".o", ".h", ".ll", ".mlir"):
            assert (two_models / name / f"{name}{suffix}").is_file()
        assert f"\nvoid {name}(" in (two_models / name / f"{name}.h").read_text()


def test_hostile_tensor_names_become_distinct_identifiers(two_models):
    text = (two_models / "a" / "a.h").read_text()
    declaration = text[text.index("void a("):text.index(");") + 2]
    params = [line.strip().split(" /* ")[0].split("*")[-1]
              for line in declaration.splitlines()]
    assert params == [*HOSTILE_INPUTS.values(), *HOSTILE_OUTPUTS.values(), "arena"]
    # The ONNX names stay in comments, quoted and escaped.
    assert '/* "arena", 1x4 */' in declaration
    assert '/* "h\\u00e9llo", 1x4 */' in declaration
    assert '/* "x*\\/y?\\?/", 1x4 */' in declaration
    assert text.isascii()


@needs_cc
def test_two_headers_compile_together_and_both_functions_are_callable(two_models, tmp_path):
    a_params = len(HOSTILE_INPUTS) + len(HOSTILE_OUTPUTS)
    source = tmp_path / "firmware.c"
    source.write_text(
        '#include "a.h"\n'
        '#include "b.h"\n'
        f"static float tensors[{a_params}][TINYML_A_INPUT0_ELEMENTS];\n"
        "static uint8_t arena_a[TINYML_A_ARENA_BYTES];\n"
        "static uint8_t arena_b[TINYML_B_ARENA_BYTES];\n"
        "void infer(void) {\n"
        f"    a({', '.join(f'tensors[{k}]' for k in range(a_params))}, arena_a);\n"
        "    b(tensors[0], tensors[1], tensors[2], arena_b);\n"
        "}\n"
        "/* The same calls through the headers' generic entry points. */\n"
        "static const uint32_t a_sizes[] = TINYML_A_INPUT_BYTES;\n"
        "typedef char a_inputs_counted[sizeof a_sizes / sizeof a_sizes[0]\n"
        "                              == TINYML_A_INPUT_COUNT ? 1 : -1];\n"
        "void infer_generic(void) {\n"
        f"    void *pointers[{a_params}];\n"
        f"    for (int k = 0; k < {a_params}; k++) pointers[k] = tensors[k];\n"
        "    TINYML_A_INVOKE(pointers, pointers + TINYML_A_INPUT_COUNT, arena_a);\n"
        "    TINYML_B_INVOKE(pointers, pointers + TINYML_B_INPUT_COUNT, arena_b);\n"
        "}\n")
    done = subprocess.run(["cc", *C_FLAGS, "-I", two_models / "a", "-I", two_models / "b",
                           source], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_two_objects_share_only_weak_runtime_symbols(two_models):
    a = global_symbols(two_models / "a" / "a.o")
    b = global_symbols(two_models / "b" / "b.o")
    assert a["a"] == b["b"] == "STB_GLOBAL"
    shared = set(a) & set(b)
    assert shared and all(a[s] == b[s] == "STB_WEAK" for s in shared), shared
    assert {s for s in a if a[s] == "STB_GLOBAL"} == {"a"}


@pytest.mark.parametrize("op, helpers", [("Relu", set()), ("Sigmoid", {"expf"}),
                                         ("Tanh", {"tanhf"})])
def test_an_object_carries_only_the_float_helpers_its_model_calls(tmp_path, op, helpers):
    """The float runtime's expf and tanhf (weak, as every runtime symbol)
    are in an object only when its model computes an exp or a tanh."""
    path = tmp_path / "m.onnx"
    onnx.save(_unary(op), path)
    compiled = tinyml.compile(str(path), target="cortex-m4")
    compiled.save(tmp_path / "out")
    symbols = global_symbols(tmp_path / "out" / f"{compiled.function}.o")
    assert {s for s in ("expf", "tanhf") if s in symbols} == helpers
    assert all(symbols[s] == "STB_WEAK" for s in helpers)


def _unary(op: str) -> onnx.ModelProto:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 64])
    graph = helper.make_graph([helper.make_node(op, ["x"], ["y"])], "g", [x], [y])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


@pytest.mark.parametrize("bad, reason", [
    ("1x", "'model_1x'"), ("int", "'int_'"), ("kws.v2", "'kws_v2'"), ("_Bool", "'Bool'"),
    ("a__b", "'a_b'"), ("memset", "'memset_'"), ("", "'model'"),
])
def test_a_bad_name_is_refused(bad, reason):
    with pytest.raises(CompileError) as error:
        tinyml.compile(make_model(["x"], ["y"]), target="cortex-m4", name=bad)
    message = str(error.value)
    assert message.startswith(f"the model name {bad!r} is not a usable C identifier")
    assert message.endswith(f"(e.g. {reason})") and "\n" not in message


def test_name_option_names_artefacts_and_symbol(tmp_path):
    path = tmp_path / "m.tf2onnx.onnx"
    onnx.save(make_model(["x"], ["y"]), path)
    done = cli("compile", path, "-o", tmp_path / "bad", "--name", "9lives")
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        "tinyml-compile: error: the model name '9lives' is not a usable C identifier: use "
        "ASCII letters, digits and single '_', not starting with a digit or '_', and no C/C++ "
        "keyword or standard C name (e.g. 'model_9lives')"]
    assert not (tmp_path / "bad").exists()
    compiled = tinyml.compile(path, target="cortex-m4", name="kws")
    assert compiled.function == "kws" and "kws.o" in compiled.artefacts
    compiled.save(tmp_path / "kws")
    assert "kws" in global_symbols(tmp_path / "kws" / "kws.o")


@pytest.mark.parametrize("target, extra", [("cortex-m4", ["--emit-assembly", "--emit-stages"]),
                                           ("host", ["--emit-stages"])])
def test_artefacts_do_not_depend_on_the_paths(tmp_path, target, extra):
    """The same model in two folders with different absolute paths, compiled
    from different working directories (one relative path, one absolute):
    every artefact is byte-identical; report.json differs only in timings."""
    model = zoo.build("kws_dscnn")
    short, deep = tmp_path / "x", tmp_path / "a much longer folder" / "and deeper"
    for folder in (short, deep):
        folder.mkdir(parents=True)
        onnx.save(model, folder / "kws.tf2onnx.onnx")
    assert cli("compile", "kws.tf2onnx.onnx", "-o", "out", "--target", target, *extra,
               cwd=short).returncode == 0
    done = cli("compile", deep / "kws.tf2onnx.onnx", "-o", tmp_path / "elsewhere", "--target", target,
               *extra, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    first, second = short / "out", tmp_path / "elsewhere"
    files = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(second) for p in second.rglob("*") if p.is_file())
    assert Path("kws.mlir") in files and (target == "host" or Path("kws.o") in files)
    for name in files:
        if name != Path("report.json"):
            assert (first / name).read_bytes() == (second / name).read_bytes(), name
    reports = [json.loads((folder / "report.json").read_text()) for folder in (first, second)]
    differing = {key for key in reports[0] if reports[0][key] != reports[1].get(key)}
    assert differing <= {"compile_seconds", "stage_seconds", "report_digest"}, differing
    for text in ((first / name).read_bytes() for name in files):
        assert str(tmp_path).encode() not in text


@needs_cc
def test_keywords_are_never_parameter_names(tmp_path):
    """Every C keyword and the <stdint.h> names as tensor names: the header
    still compiles, in C99 and in C++."""
    names = ["bool", "true", "false", "nullptr", "inline", "class", "INT8_MAX", "NULL",
             "linux", "main", "float", "typeof"]
    compiled = tinyml.compile(make_model(names, ["constexpr"]), target="cortex-m4",
                              name="keywords")
    compiled.save(tmp_path)
    source = tmp_path / "use.c"
    source.write_text('#include <stddef.h>\n#include <stdio.h>\n#include "keywords.h"\n')
    done = subprocess.run(["cc", *C_FLAGS, source], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    if shutil.which("c++"):
        done = subprocess.run(["c++", "-std=c++20", *C_FLAGS[1:], "-x", "c++", source],
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    x = np.ones((1, 4), np.float32)
    assert np.array_equal(compiled(*[x] * len(names))[0], np.full((1, 4), len(names)))
