"""Every zoo model compiled for the host matches onnxruntime; the
tinyml-compile / tinyml-run round trip and their errors."""
from __future__ import annotations

import json

import numpy as np
import onnx
import pytest

import tinyml
import zoo
from tinyml import CompileError, RunError, load

from conftest import TOLERANCE, argmax_rows, assert_one_line_error, cli

@pytest.mark.parametrize("name", zoo.names())
def test_zoo_model_matches_onnxruntime(name, compiled_zoo):
    model = zoo.build(name)
    inputs = zoo.random_inputs(model)
    compiled = compiled_zoo(name)
    got = compiled(*inputs.values())
    want = zoo.reference(model, inputs)
    assert len(got) == len(want)
    for g, w, info in zip(got, want, compiled.outputs):
        assert g.shape == w.shape, info.name
        error = float(np.abs(g - w).max()) if g.size else 0.0
        assert error <= TOLERANCE, f"{name}/{info.name}: max abs error {error:.3g}"
        assert np.array_equal(argmax_rows(g), argmax_rows(w)), f"{name}/{info.name}: argmax"


def test_inputs_keep_the_declared_layout():
    # resnet8 is an NCHW (torch-style) model: its input stays NCHW.
    compiled = tinyml.compile(zoo.build("resnet8"), warm_up=False)
    (info,) = compiled.inputs
    assert info.layout == "NCHW" and info.shape[1] == 3
    kws = tinyml.compile(zoo.build("kws_dscnn"), warm_up=False)
    assert kws.inputs[0].layout == "NHWC"


def test_save_and_load(tmp_path):
    model = zoo.build("style_nchw")
    inputs = list(zoo.random_inputs(model).values())
    compiled = tinyml.compile(model)
    compiled.save(tmp_path / "m")
    again = load(tmp_path / "m")
    assert again.inputs == compiled.inputs and again.outputs == compiled.outputs
    for a, b in zip(compiled(*inputs), again(*inputs)):
        np.testing.assert_array_equal(a, b)


def test_compile_errors(tmp_path):
    with pytest.raises(CompileError, match="unknown target 'cortex-m99'"):
        tinyml.compile(zoo.build("op_relu"), target="cortex-m99")
    with pytest.raises(CompileError, match="no such file"):
        tinyml.compile(tmp_path / "missing.onnx")
    with pytest.raises(RunError, match="damaged|not a compiled model"):
        load(tmp_path)


# ---------------------------------------------------------------------------
# CLI
# ---------------------------------------------------------------------------



@pytest.fixture(scope="module")
def small_model(tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "tiny.onnx"
    model = zoo.build("style_nchw")
    onnx.save(model, path)
    return path, model


def test_cli_round_trip(tmp_path, small_model):
    path, model = small_model
    outdir = tmp_path / "out"
    done = cli("compile", path, "-o", outdir, "--target", "host", "--emit-stages")
    assert done.returncode == 0, done.stderr
    report = json.loads((outdir / "report.json").read_text())
    assert report["model"] == "tiny" and report["target"] == "host"
    assert (outdir / "tiny.mlir").is_file()
    assert report["compile_seconds"] > 0
    for stage in report["stages"]:
        assert (outdir / stage).is_file()
    assert [i["name"] for i in report["inputs"]] == [i.name for i in model.graph.input]
    assert report["inputs"][0]["dtype"] == "float32" and report["inputs"][0]["layout"] == "NCHW"

    inputs = zoo.random_inputs(model)
    in_paths = []
    for i, value in enumerate(inputs.values()):
        in_paths += ["--input", tmp_path / f"in{i}.npy"]
        np.save(tmp_path / f"in{i}.npy", value)
    out_path = tmp_path / "y.npy"
    done = cli("run", outdir, *in_paths, "--output", out_path)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["target"] == "host" and summary["seconds"] >= 0
    (want,) = zoo.reference(model, inputs)
    assert summary["outputs"][0]["shape"] == list(want.shape)
    assert summary["outputs"][0]["path"] == str(out_path)
    np.testing.assert_allclose(np.load(out_path), want, atol=TOLERANCE)

    # Recompiling replaces the directory.
    done = cli("compile", path, "-o", outdir)
    assert done.returncode == 0, done.stderr
    assert not (outdir / "stages").exists()




def test_cli_bad_target(tmp_path, small_model):
    path, _ = small_model
    done = cli("compile", path, "-o", tmp_path / "out", "--target", "cortex-m99")
    assert_one_line_error(done, "compile", "unknown target 'cortex-m99'")
    assert not (tmp_path / "out").exists()


def test_cli_missing_model(tmp_path):
    done = cli("compile", tmp_path / "nope.onnx", "-o", tmp_path / "out")
    assert_one_line_error(done, "compile", "no such file")
    assert not (tmp_path / "out").exists()


def test_cli_failed_compile_leaves_no_outdir(tmp_path):
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n  return %b\n}\n")
    done = cli("compile", bad, "-o", tmp_path / "out")
    assert_one_line_error(done, "compile", f"cannot parse '{bad}': {bad}:2:12: error: "
                                           "expected ':'")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.mlir"]


def test_cli_compiles_tinyml_mlir(tmp_path):
    src = tmp_path / "neg.mlir"
    src.write_text("func.func @neg(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {\n"
                   "  %r = tinyml.neg %a : tensor<2x3xf32>\n  return %r : tensor<2x3xf32>\n}\n")
    assert cli("compile", src, "-o", tmp_path / "out").returncode == 0
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.save(tmp_path / "x.npy", x)
    done = cli("run", tmp_path / "out", "--input", tmp_path / "x.npy",
               "--output", tmp_path / "y.npy")
    assert done.returncode == 0, done.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "y.npy"), -x)


@pytest.fixture(scope="module")
def compiled_dir(tmp_path_factory, small_model):
    path, _ = small_model
    outdir = tmp_path_factory.mktemp("compiled") / "out"
    done = cli("compile", path, "-o", outdir)
    assert done.returncode == 0, done.stderr
    return outdir


def test_cli_missing_input_file(tmp_path, compiled_dir):
    done = cli("run", compiled_dir, "--input", tmp_path / "missing.npy")
    assert_one_line_error(done, "run", "missing.npy")


def test_cli_wrong_input_shape(tmp_path, compiled_dir):
    report = json.loads((compiled_dir / "report.json").read_text())
    shape = report["inputs"][0]["shape"]
    np.save(tmp_path / "x.npy", np.zeros(shape[::-1], np.float32))
    done = cli("run", compiled_dir, "--input", tmp_path / "x.npy")
    assert_one_line_error(done, "run", "expects " + str(shape))


def test_cli_wrong_input_dtype(tmp_path, compiled_dir):
    report = json.loads((compiled_dir / "report.json").read_text())
    np.save(tmp_path / "x.npy", np.zeros(report["inputs"][0]["shape"], np.float64))
    done = cli("run", compiled_dir, "--input", tmp_path / "x.npy")
    assert_one_line_error(done, "run", "float32")


def test_cli_wrong_input_count(tmp_path, compiled_dir):
    done = cli("run", compiled_dir)
    assert_one_line_error(done, "run", "input(s)")


def test_cli_not_a_compiled_dir(tmp_path):
    done = cli("run", tmp_path, "--input", "x.npy")
    assert_one_line_error(done, "run", "not a compiled model")
