"""Fusion on the whole zoo: the same numbers fused and unfused, fewer
kernels fused, and the expected groups on ResNet-8."""
from __future__ import annotations

import numpy as np
import pytest
from mlir import ir

import tinyml
import zoo
from tinyml.pipeline import stages as pipelines
from tinyml.frontend import import_onnx

# Relative to each output's scale: fused kernels accumulate with fused
# multiply-adds, so values near zero differ by an ulp of the accumulator.
RELATIVE = 1e-5


@pytest.fixture
def builds(compiled_zoo):
    """name -> (inputs, fused model, unfused model), each compiled once."""
    def get(name):
        inputs = list(zoo.random_inputs(zoo.build(name)).values())
        return inputs, compiled_zoo(name, fuse=True), compiled_zoo(name, fuse=False)
    return get


@pytest.mark.network
@pytest.mark.parametrize("name", zoo.names())
def test_fused_equals_unfused(name, builds):
    inputs, fused, unfused = builds(name)
    for a, b in zip(fused(*inputs), unfused(*inputs)):
        assert float(np.max(np.abs(a - b))) <= RELATIVE * float(np.max(np.abs(b))), name
    assert fused.report.kernels <= unfused.report.kernels, name


@pytest.mark.parametrize("name", zoo.names("mlperf"))
def test_fusion_removes_kernels_and_intermediates(name, builds):
    _, fused, unfused = builds(name)
    assert fused.report.kernels < unfused.report.kernels
    assert fused.report.naive_arena_bytes < unfused.report.naive_arena_bytes
    assert fused.report.macs == unfused.report.macs > 0


def fused_groups(name: str) -> list[list[str]]:
    """The op names inside each tinyml.fused group after clean-up + fusion."""
    context = tinyml.make_context()
    with context, ir.Location.unknown():
        module = import_onnx(zoo.build(name), context=context)
        pipelines.cleanup().run(module)
        pipelines.fusion().run(module)
        groups = []
        for op in module.body.operations[0].regions[0].blocks[0].operations:
            if op.operation.name == "tinyml.fused":
                groups.append([inner.operation.name
                               for inner in op.operation.regions[0].blocks[0].operations
                               if inner.operation.name.startswith("tinyml.")][:-1])
        return groups


def test_resnet8_every_3x3_conv_carries_its_epilogue():
    groups = fused_groups("resnet8")
    # Seven 3x3 convs, each with its ReLU; the second conv of each of the
    # three residual blocks also carries the residual add. The two 1x1
    # shortcut convs have no epilogue: groups of their own, and the final
    # dense layer likewise.
    assert len(groups) == 10
    with_relu = [g for g in groups if g[-1] == "tinyml.relu"]
    assert len(with_relu) == 7 and all(g[0] == "tinyml.conv2d" for g in with_relu)
    assert sum(g == ["tinyml.conv2d", "tinyml.add", "tinyml.relu"] for g in groups) == 3
    assert sorted(g for g in groups if len(g) == 1) == [
        ["tinyml.conv2d"], ["tinyml.conv2d"], ["tinyml.matmul"]]


def test_kws_dscnn_groups():
    groups = fused_groups("kws_dscnn")
    convs = [g for g in groups if g[0] in ("tinyml.conv2d", "tinyml.depthwise_conv2d")]
    assert len(convs) == 9 and all(g[-1] == "tinyml.relu" for g in convs)


@pytest.mark.network
def test_poisoned_arena_gives_identical_outputs(builds):
    inputs, fused, _ = builds("kws_dscnn")
    clean = fused(*inputs)
    poisoned = fused(*inputs, arena_fill=b"\xff")
    for a, b in zip(clean, poisoned):
        np.testing.assert_array_equal(a, b)
