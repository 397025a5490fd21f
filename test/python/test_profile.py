"""The per-layer profile (`tinyml-run --profile`, `CompiledModel.run(profile=True)`):
every executed instruction is attributed to the kernel whose number the
object's line table carries, the layers are the model's ONNX nodes, and the
files land beside the report."""
from __future__ import annotations

import hashlib
import json
import xml.etree.ElementTree as ElementTree

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import tinyml
import zoo
from tinyml.cli import run as run_cli
from tinyml import RunError
from tinyml.targets.profile import OTHER, PROFILE_JSON, PROFILE_SVG, svg


def one_conv_model() -> onnx.ModelProto:
    """A 3x3 convolution, its bias and a ReLU (one fused kernel), then a
    small element-wise Add (a second, tiny kernel)."""
    rng = np.random.default_rng(0)
    weights = helper.make_tensor("w", TensorProto.FLOAT, [16, 8, 3, 3],
                                 rng.standard_normal(16 * 8 * 9).astype(np.float32))
    bias = helper.make_tensor("b", TensorProto.FLOAT, [16],
                              rng.standard_normal(16).astype(np.float32))
    one = helper.make_tensor("one", TensorProto.FLOAT, [1], [1.0])
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], name="the_conv", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"], name="the_relu"),
        helper.make_node("GlobalAveragePool", ["r"], ["p"], name="the_pool"),
        helper.make_node("Add", ["p", "one"], ["y"], name="the_add"),
    ]
    graph = helper.make_graph(
        nodes, "one_conv", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 12, 12])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16, 1, 1])],
        initializer=[weights, bias, one])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.fixture(scope="module")
def conv(tmp_path_factory):
    base = tmp_path_factory.mktemp("profile")
    model = one_conv_model()
    compiled = tinyml.compile(model, target="cortex-m4")
    x = np.random.default_rng(1).standard_normal((1, 8, 12, 12)).astype(np.float32)
    np.save(base / "x.npy", x)
    compiled.save(base / "out")
    return {"model": model, "compiled": compiled, "x": x, "base": base}


def node_names(model: onnx.ModelProto) -> set[str]:
    return {node.name for node in model.graph.node}


def layer_instructions(profile: dict) -> int:
    return sum(layer["instructions"] for layer in profile["layers"])


def test_sums_exactly_and_names_the_model_nodes(conv):
    result = conv["compiled"].run(conv["x"], profile=True)
    profile = result.profile
    other = sum(part["instructions"] for part in profile["other"])
    assert layer_instructions(profile) + other == result.instructions == profile["instructions"]
    names = {name for layer in profile["layers"] for name in layer["nodes"]}
    assert names and names <= node_names(conv["model"])
    assert {"the_conv", "the_relu"} <= names
    assert all(part["name"] for part in profile["other"])
    assert profile["cycles_estimate"] == result.cycles_estimate > 0


def test_one_conv_is_the_one_hot_layer(conv):
    profile = conv["compiled"].run(conv["x"], profile=True).profile
    hot = max(profile["layers"], key=lambda layer: layer["instructions"])
    assert "the_conv" in hot["nodes"] and hot["kind"] == "conv3x3"
    assert hot["instructions"] > 0.9 * profile["instructions"]
    assert hot["macs"] == 16 * 12 * 12 * 8 * 9
    assert hot["instr_per_mac"] == round(hot["instructions"] / hot["macs"], 3)
    assert hot["code_bytes"] > 0 and hot["live_bytes"] > 0


def test_profile_is_deterministic(conv):
    first = conv["compiled"].run(conv["x"], profile=True).profile
    second = conv["compiled"].run(conv["x"], profile=True).profile
    assert first == second


def test_svg_is_well_formed_and_names_every_layer(conv):
    profile = conv["compiled"].run(conv["x"], profile=True).profile
    root = ElementTree.fromstring(svg(profile))
    texts = {element.text for element in root.iter() if element.text}
    for layer in profile["layers"]:
        assert layer["name"] in texts
    assert OTHER in texts


def test_cli_prints_the_table_and_writes_beside_the_report(conv, capsys):
    outdir = conv["base"] / "out"
    code = run_cli.run_command([str(outdir), "--input", str(conv["base"] / "x.npy"),
                                "--profile"])
    stdout = capsys.readouterr().out.splitlines()
    assert code == 0
    summary = json.loads(stdout[-1])
    assert summary["profile"]["json"] == str(outdir / PROFILE_JSON)
    assert summary["profile"]["top"][0] == "the_conv+the_relu"
    assert stdout[0].startswith("profile of one_conv on cortex-m4: ")
    assert stdout[3].startswith("the_conv+the_relu")  # sorted: the hot layer first
    saved = json.loads((outdir / PROFILE_JSON).read_text())
    assert saved["instructions"] == summary["instructions"]
    ElementTree.parse(outdir / PROFILE_SVG)
    marker = json.loads((outdir / ".tinyml-output").read_text())
    assert {PROFILE_JSON, PROFILE_SVG} <= set(marker["files"])
    # The folder is still tinyml's: a compile may replace it.
    conv["compiled"].save(outdir)
    assert not (outdir / PROFILE_JSON).exists()


def test_cli_never_overwrites_a_file_of_the_user(conv, tmp_path, capsys):
    outdir = tmp_path / "out"
    conv["compiled"].save(outdir)
    (outdir / PROFILE_SVG).write_text("mine")
    code = run_cli.run_command([str(outdir), "--input", str(conv["base"] / "x.npy"),
                                "--profile"])
    captured = capsys.readouterr()
    assert code == 0
    assert captured.err.count("\n") == 1
    assert captured.err.startswith("tinyml-run: warning: the profile is not saved: ")
    assert "a file tinyml did not write" in captured.err
    assert (outdir / PROFILE_SVG).read_text() == "mine"
    assert not (outdir / PROFILE_JSON).exists()
    assert json.loads(captured.out.splitlines()[-1])["profile"]["json"] is None


def test_report_without_kernel_map_is_one_line(conv, tmp_path, capsys):
    outdir = tmp_path / "out"
    conv["compiled"].save(outdir)
    report = json.loads((outdir / "report.json").read_text())
    del report["kernel_map"]
    fields = {k: v for k, v in report.items() if k != "report_digest"}
    report["report_digest"] = hashlib.sha256(json.dumps(
        fields, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    (outdir / "report.json").write_text(json.dumps(report))
    code = run_cli.run_command([str(outdir), "--input", str(conv["base"] / "x.npy"),
                                "--profile"])
    captured = capsys.readouterr()
    assert code == 1 and captured.out == ""
    assert captured.err == ("tinyml-run: error: cannot profile 'one_conv': report.json has no "
                            "kernel_map (a list of kernels), which a profile needs: compile "
                            "the model again\n")
    assert not (outdir / PROFILE_JSON).exists()
    with pytest.raises(RunError, match="kernel_map\\[0\\].names must be a list of strings"):
        broken = tinyml.compile(one_conv_model(), target="cortex-m4")
        broken.report.kernel_map[0].names = "the_conv"
        broken.run(conv["x"], profile=True)


def test_host_profile_has_macs_and_bytes(conv):
    host = tinyml.compile(conv["model"], target="host")
    profile = host.run(conv["x"], profile=True).profile
    assert profile["instructions"] is None and "other" not in profile
    hot = max(profile["layers"], key=lambda layer: layer["macs"])
    assert "the_conv" in hot["nodes"] and hot["macs"] == 16 * 12 * 12 * 8 * 9
    assert all(layer["live_bytes"] >= 0 for layer in profile["layers"])
    ElementTree.fromstring(svg(profile))


@pytest.mark.parametrize("name, target", [("kws_dscnn", "cortex-m4"),
                                          ("fc_autoencoder", "cortex-m7")])
def test_zoo_attribution_covers_99_percent(name, target):
    model = zoo.build(name)
    compiled = tinyml.compile(model, target=target)
    result = compiled.run(*zoo.random_inputs(model).values(), profile=True)
    profile = result.profile
    assert profile["attributed"] >= 0.99
    other = sum(part["instructions"] for part in profile["other"])
    assert layer_instructions(profile) + other == result.instructions
    assert {n for layer in profile["layers"] for n in layer["nodes"]} <= node_names(model)
    if name == "kws_dscnn":  # a runtime helper counts for the kernel that calls it
        (softmax,) = [layer for layer in profile["layers"] if layer["nodes"] == ["Softmax_0"]]
        assert softmax["kernels"][0]["helpers"]["expf"] > 0
        assert "expf" not in {part["name"] for part in profile["other"]}


def test_a_copy_into_the_output_is_a_kernel():
    """A model that only moves data: the copy into the output is a kernel,
    named after the reshape whose result it copies."""
    model = zoo.build("op_reshape")
    compiled = tinyml.compile(model, target="cortex-m4")
    profile = compiled.run(*zoo.random_inputs(model).values(), profile=True).profile
    (layer,) = profile["layers"]
    assert [part["kind"] for part in layer["kernels"]] == ["reshape", "copy"]
    assert layer["nodes"] == ["Reshape_0"]
    assert profile["attributed"] >= 0.99
