"""Cortex-M targets: every zoo model compiled for each core with an FPU
(cortex-m4, cortex-m7, cortex-m33) and run in the emulator matches
onnxruntime, with a poisoned arena, and so does the Cortex-M55's build
(Helium) in the example firmware on QEMU; the C
header compiles; bad targets, budgets and a missing toolchain fail clearly."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import onnx
import pytest

import tinyml
import zoo
from tinyml import CompileError, load

from conftest import TOLERANCE, argmax_rows, assert_one_line_error, cli

NAN_BYTES = b"\xff"


@pytest.mark.parametrize("target", ["cortex-m4", "cortex-m7", "cortex-m33"])
@pytest.mark.parametrize("name", zoo.names())
def test_zoo_model_in_the_emulator(name, target, compiled_zoo):
    model = zoo.build(name)
    inputs = list(zoo.random_inputs(model).values())
    compiled = compiled_zoo(name, target)
    result = compiled.run(*inputs, arena_fill=NAN_BYTES)
    for got, want in zip(result.outputs, zoo.reference(model, dict(zip(
            [i.name for i in model.graph.input], inputs)))):
        assert float(np.abs(got - want).max()) <= TOLERANCE, name
        assert np.array_equal(argmax_rows(got), argmax_rows(want)), name
    assert result.instructions > 0
    # Painting sees the deepest word written: at most every frame at once
    # (no recursion), a little under the model's own frame if its lowest
    # slot is alignment padding, zero for a leaf function that needs none.
    frames = compiled.report.stack_frames
    assert 0 <= result.stack_bytes <= sum(frames.values())
    assert compiled.report.flash.text > 0


@pytest.mark.parametrize("target", ["cortex-m33", "cortex-m55"])
@pytest.mark.parametrize("name", zoo.names())
def test_zoo_model_on_qemu(name, target, compiled_zoo):
    """In the example firmware on the core's QEMU board: the M33's outputs
    and instruction count are the emulator's; unicorn has no M55, whose
    Helium code runs on mps3-an547 only (counted by the QEMU plugin)."""
    model = zoo.build(name)
    inputs = list(zoo.random_inputs(model).values())
    compiled = compiled_zoo(name, target)
    result = compiled.run(*inputs, arena_fill=NAN_BYTES, emulator="qemu")
    for got, want in zip(result.outputs, zoo.reference(model, dict(zip(
            [i.name for i in model.graph.input], inputs)))):
        assert float(np.abs(got - want).max()) <= TOLERANCE, name
        assert np.array_equal(argmax_rows(got), argmax_rows(want)), name
    assert result.instructions > 0
    if target != "cortex-m55":
        emulated = compiled.run(*inputs, arena_fill=NAN_BYTES)
        assert result.instructions == emulated.instructions
        assert all(a.tobytes() == b.tobytes() for a, b in zip(result.outputs, emulated.outputs))


def test_counts_are_deterministic_and_the_arena_is_never_read_uninitialised():
    model = zoo.build("resnet8")
    inputs = list(zoo.random_inputs(model).values())
    compiled = tinyml.compile(model, target="cortex-m4")
    clean = compiled.run(*inputs)
    poisoned = compiled.run(*inputs, arena_fill=NAN_BYTES)
    for a, b in zip(clean.outputs, poisoned.outputs):
        np.testing.assert_array_equal(a, b)
    assert clean.instructions == poisoned.instructions


def test_fusion_lowers_the_instruction_count():
    model = zoo.build("kws_dscnn")
    inputs = list(zoo.random_inputs(model).values())
    fused = tinyml.compile(model, target="cortex-m4").run(*inputs)
    unfused = tinyml.compile(model, target="cortex-m4", fuse=False).run(*inputs)
    assert fused.instructions < unfused.instructions


@pytest.fixture(scope="module")
def kws_dir(tmp_path_factory):
    base = tmp_path_factory.mktemp("kws")
    path = base / "kws.onnx"
    model = zoo.build("kws_dscnn")
    path.write_bytes(model.SerializeToString())
    outdir = base / "kws"
    done = cli("compile", path, "-o", outdir, "--emit-assembly")
    assert done.returncode == 0, done.stderr
    inputs = zoo.random_inputs(model)
    np.save(outdir.parent / "in.npy", next(iter(inputs.values())))
    np.save(outdir.parent / "ref.npy", zoo.reference(model, inputs)[0])
    return outdir


def test_compile_writes_object_header_and_report(kws_dir):
    for name in ("kws.o", "kws.h", "kws.ll", "kws.s", "report.json", "memory.json", "memory.svg"):
        assert (kws_dir / name).is_file(), name
    report = json.loads((kws_dir / "report.json").read_text())
    assert report["target"] == "cortex-m4"
    for key in ("macs", "kernels", "arena_bytes", "naive_arena_bytes", "greedy_arena_bytes",
                "lower_bound_bytes", "peak_op"):
        assert key in report, key
    assert set(report["flash"]) == {"text", "rodata", "data", "bss"}
    # Weights are read-only data, never copied into the arena.
    assert report["flash"]["rodata"] > 4 * 20000 and report["flash"]["data"] == 0
    assert report["lower_bound_bytes"] <= report["arena_bytes"] <= report["greedy_arena_bytes"]


def test_tinyml_run_in_the_emulator(kws_dir):
    out = kws_dir.parent / "out.npy"
    done = cli("run", kws_dir, "--input", kws_dir.parent / "in.npy", "--output", out,
               "--poison-arena", "--cycles")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["target"] == "cortex-m4"
    assert summary["instructions"] > 0 and summary["stack_bytes"] > 0
    assert summary["cycles_estimate"] > 0
    np.testing.assert_allclose(np.load(out), np.load(kws_dir.parent / "ref.npy"), atol=TOLERANCE)


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")
def test_header_compiles_with_a_c_compiler(kws_dir, tmp_path):
    source = tmp_path / "main.c"
    source.write_text(
        '#include "kws.h"\n'
        "static float input[TINYML_KWS_INPUT0_ELEMENTS];\n"
        "static float scores[TINYML_KWS_OUTPUT0_ELEMENTS];\n"
        "static uint8_t arena[TINYML_KWS_ARENA_BYTES]\n"
        "    __attribute__((aligned(TINYML_KWS_ARENA_ALIGN)));\n"
        "void infer(void) { kws(input, scores, arena); }\n")
    done = subprocess.run(["cc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic",
                           "-fsyntax-only", "-I", str(kws_dir), str(source)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_a_float_model_on_cortex_m0_is_refused_clearly(kws_dir, tmp_path):
    """The M0 has no FPU: a float model is refused, naming its first layer
    (int8 models compile for it: test_int8.py)."""
    done = cli("compile", kws_dir.parent / "kws.onnx", "-o", tmp_path / "m0",
               "--target", "cortex-m0")
    assert_one_line_error(done, "compile", "cortex-m0 has no FPU: only integer models whose every "
                                           "layer has an integer kernel compile for it; "
                                           "'tinyml.conv2d' at \"Conv_0\"")
    assert not (tmp_path / "m0").exists()


def test_unknown_target(tmp_path):
    with pytest.raises(CompileError, match="unknown target 'riscv' .*known: host, cortex-m4"):
        tinyml.compile(zoo.build("op_relu"), target="riscv")


def test_sram_budget_names_the_peak_and_the_overshoot(kws_dir, tmp_path):
    arena = json.loads((kws_dir / "report.json").read_text())["arena_bytes"]
    done = cli("compile", kws_dir.parent / "kws.onnx", "-o", tmp_path / "small",
               "--sram-budget", arena - 100)
    assert_one_line_error(done, "compile", f"the arena needs {arena} bytes, 100 over the "
                                           f"SRAM budget of {arena - 100}; the peak is at ")
    assert not (tmp_path / "small").exists()
    assert cli("compile", kws_dir.parent / "kws.onnx", "-o", tmp_path / "fits",
               "--sram-budget", arena).returncode == 0


def test_missing_linker_is_reported(kws_dir, tmp_path):
    # Only the linker is hidden: python itself stays reachable.
    env = {**os.environ, "PATH": str(tmp_path)}
    done = cli("run", kws_dir, "--input", kws_dir.parent / "in.npy", env=env)
    assert_one_line_error(done, "run", "ld.lld not found on PATH; install it with: "
                                       "apt-get install lld")


def test_saved_model_loads_and_runs(kws_dir):
    model = load(kws_dir)
    result = model.run(np.load(kws_dir.parent / "in.npy"))
    np.testing.assert_allclose(result.outputs[0], np.load(kws_dir.parent / "ref.npy"),
                               atol=TOLERANCE)


@pytest.mark.parametrize("target", ["host", "cortex-m4"])
def test_a_tensor_returned_twice(target):
    # Two ONNX outputs naming one tensor (an Identity): each result gets its
    # own buffer instead of crashing bufferization.
    from onnx import TensorProto, helper
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])
    outputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [1, 4]) for n in "yz"]
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"]),
                               helper.make_node("Identity", ["y"], ["z"])],
                              "twice", [x], outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    data = np.array([[-1.0, 2.0, -3.0, 4.0]], dtype=np.float32)
    y, z = tinyml.compile(model, target=target).run(data).outputs
    np.testing.assert_array_equal(y, np.maximum(data, 0))
    np.testing.assert_array_equal(z, np.maximum(data, 0))


def test_missing_emulator_is_reported(kws_dir):
    # A Python without unicorn: `import unicorn` fails in the child.
    env = {**os.environ, "PYTHONPATH": str(kws_dir.parent / "no-unicorn")}
    blocker = kws_dir.parent / "no-unicorn" / "unicorn"
    blocker.mkdir(parents=True, exist_ok=True)
    (blocker / "__init__.py").write_text("raise ImportError('No module named unicorn')\n")
    done = cli("run", kws_dir, "--input", kws_dir.parent / "in.npy", env=env)
    assert_one_line_error(done, "run", "the Cortex-M emulator is not available (No module "
                                       "named unicorn); install it with: pip install unicorn")


def test_optimization_levels():
    model = zoo.build("style_nhwc_transpose")
    inputs = list(zoo.random_inputs(model).values())
    want = zoo.reference(model, dict(zip([i.name for i in model.graph.input], inputs)))[0]
    for level in ("O2", "O3", "Oz"):
        compiled = tinyml.compile(model, target="cortex-m4", opt_level=level)
        assert compiled.report.options["opt_level"] == level
        np.testing.assert_allclose(compiled.run(*inputs).outputs[0], want, atol=TOLERANCE)
    with pytest.raises(CompileError, match="unknown optimization level 'O9' "
                                           r"\(known: O1, O2, O3, Os, Oz\)"):
        tinyml.compile(model, target="cortex-m4", opt_level="O9")


def test_a_model_name_as_long_as_a_file_name(tmp_path):
    # The build's own files do not grow with the model's name: a 250-byte
    # file stem (a legal 255-byte name) compiles, saves and runs; only an
    # artefact name too long for the output's file system is refused.
    model = zoo.build("op_relu")
    (x,) = zoo.random_inputs(model).values()
    np.save(tmp_path / "x.npy", x)
    stem = "x" * 250
    onnx.save(model, str(tmp_path / f"{stem}.onnx"))
    done = cli("compile", tmp_path / f"{stem}.onnx", "-o", tmp_path / "out",
               "--target", "cortex-m4")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / f"{stem}.o").is_file()
    ran = cli("run", tmp_path / "out", "--input", tmp_path / "x.npy")
    assert ran.returncode == 0, ran.stderr
    name = "y" * 300
    refused = cli("compile", tmp_path / f"{stem}.onnx", "-o", tmp_path / "out2",
                  "--target", "cortex-m4", "--name", name)
    assert_one_line_error(refused, "compile", f"cannot write '{tmp_path / 'out2' / name}.")
    assert refused.stderr.rstrip().endswith(": File name too long")
    assert not (tmp_path / "out2").exists()
