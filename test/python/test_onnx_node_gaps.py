"""The ONNX project's own node tests for Slice, Gather, MatMul, MaxPool,
AveragePool and Clip, compiled for the host and compared with ONNX's
expected outputs; small models of our own (onnx.helper, checked against
onnxruntime) for what they do not cover; one model per feature on a
Cortex-M4 (emulated); int8 arithmetic outside a QDQ model refused in one line.

The node tests are those of onnx/backend/test/data/node; this onnx wheel
ships their generators (`onnx.backend.test.case.node`), not the .pb folders,
so the tests are built from the generators (the same seed, the same data).
Their starts, ends, axes, steps, indices and Clip bounds are graph inputs;
here they become initializers: tinyml slices and gathers activations with
constant parameters.
"""
from __future__ import annotations

import functools
import importlib

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import tinyml
import zoo
from frontend_cases import init, make, rand, tin, tout
from tinyml import CompileError

# max |got - expected| / max |expected|.
TOLERANCE = 1e-5

NODE_TESTS = [
    "test_slice", "test_slice_neg", "test_slice_end_out_of_bounds", "test_slice_default_axes",
    "test_slice_default_steps", "test_slice_neg_steps", "test_slice_negative_axes",
    "test_gather_0", "test_gather_1", "test_gather_2d_indices", "test_gather_negative_indices",
    "test_matmul_2d", "test_matmul_3d", "test_matmul_4d", "test_matmul_bcast",
    "test_matmul_1d_3d", "test_matmul_4d_1d", "test_matmul_1d_1d",
    "test_maxpool_1d_default", "test_maxpool_2d_default", "test_maxpool_2d_pads",
    "test_maxpool_2d_strides", "test_maxpool_2d_same_upper", "test_maxpool_2d_same_lower",
    "test_maxpool_2d_precomputed_pads", "test_maxpool_2d_precomputed_strides",
    "test_maxpool_2d_precomputed_same_upper", "test_maxpool_2d_ceil",
    "test_maxpool_2d_ceil_output_size_reduce_by_one", "test_maxpool_2d_dilations",
    "test_averagepool_1d_default", "test_averagepool_2d_default", "test_averagepool_2d_pads",
    "test_averagepool_2d_pads_count_include_pad", "test_averagepool_2d_strides",
    "test_averagepool_2d_same_upper", "test_averagepool_2d_same_lower",
    "test_averagepool_2d_precomputed_pads",
    "test_averagepool_2d_precomputed_pads_count_include_pad",
    "test_averagepool_2d_precomputed_strides", "test_averagepool_2d_precomputed_same_upper",
    "test_averagepool_2d_ceil", "test_averagepool_2d_ceil_last_window_starts_on_pad",
    "test_clip", "test_clip_example", "test_clip_inbounds", "test_clip_outbounds",
    "test_clip_splitbounds", "test_clip_min_greater_than_max", "test_clip_default_min",
    "test_clip_default_max", "test_clip_default_inbounds",
]

# ONNX writes this expected output by hand, to four digits.
ROUNDED = {"test_averagepool_2d_ceil_last_window_starts_on_pad": 1e-3}

# The node tests of these ops that are not run, and why.
SKIPPED = {
    "test_slice_start_out_of_bounds": "an empty result ([20, 0, 5]); tinyml refuses empty "
                                      "tensors",
    "test_maxpool_2d_uint8": "uint8 data outside a quantized model",
    "test_maxpool_with_argmax_2d_precomputed_pads": "the int64 Indices output",
    "test_maxpool_with_argmax_2d_precomputed_strides": "the int64 Indices output",
    "test_maxpool_3d_default": "3-D pooling",
    "test_maxpool_3d_dilations": "3-D pooling",
    "test_maxpool_3d_dilations_use_ref_impl": "3-D pooling",
    "test_maxpool_3d_dilations_use_ref_impl_large": "3-D pooling",
    "test_averagepool_3d_default": "3-D pooling",
    "test_averagepool_3d_dilations_small": "3-D pooling",
    "test_averagepool_3d_dilations_large_count_include_pad_is_0_ceil_mode_is_True": "3-D pooling",
    "test_averagepool_3d_dilations_large_count_include_pad_is_0_ceil_mode_is_False":
        "3-D pooling",
    "test_averagepool_3d_dilations_large_count_include_pad_is_1_ceil_mode_is_True": "3-D pooling",
    "test_averagepool_3d_dilations_large_count_include_pad_is_1_ceil_mode_is_False":
        "3-D pooling",
    "test_averagepool_2d_dilations": "dilated average pooling",
}

# Clip's node tests also come as ONNX's function body of Clip, expanded:
# Less and Where, which tinyml does not import.
EXPANDED = "_expanded"

# int8 data with no DequantizeLinear: refused (test_int8_clip_is_refused).
INT8_CLIP = ["test_clip_default_int8_min", "test_clip_default_int8_max",
             "test_clip_default_int8_inbounds"]


@functools.cache
def node_tests() -> dict:
    """The node test cases of the six ops, by name: importing a generator
    module runs its exports, which append to ONNX's list of cases."""
    from onnx.backend.test.case import node
    for module in ("slice", "gather", "matmul", "maxpool", "averagepool", "clip"):
        importlib.import_module(f"onnx.backend.test.case.node.{module}")
    return {case.name: case for case in node._NodeTestCases}


def with_constant_parameters(name: str) -> tuple[onnx.ModelProto, list, list]:
    """The node test `name` as (model, inputs, expected outputs), every input
    but the data (input 0) an initializer."""
    case = node_tests()[name]
    inputs, expected = case.data_sets[0]
    model = onnx.ModelProto()
    model.CopyFrom(case.model)
    data = model.graph.node[0].input[0]
    feeds = []
    for info, array in zip(list(model.graph.input), inputs):
        if info.name == data or model.graph.node[0].op_type == "MatMul":
            feeds.append(array)
        else:
            model.graph.initializer.append(numpy_helper.from_array(array, info.name))
            model.graph.input.remove(info)
    return model, feeds, list(expected)


def relative_error(got: np.ndarray, expected: np.ndarray) -> float:
    assert got.shape == expected.shape
    return float(np.abs(got - expected).max() / max(np.abs(expected).max(), 1e-30))


def check(model, feeds, expected, target="host", tolerance=TOLERANCE):
    outputs = tinyml.compile(model, target=target).run(*feeds).outputs
    assert len(outputs) == len(expected)
    for got, want in zip(outputs, expected):
        assert relative_error(got, np.asarray(want)) <= tolerance


def test_every_node_test_of_the_six_ops_is_run_or_skipped():
    known = set(NODE_TESTS) | set(SKIPPED) | set(INT8_CLIP)
    cases = {name for name in node_tests() if not name.endswith(EXPANDED)}
    assert known == cases, cases ^ known


@pytest.mark.parametrize("name", NODE_TESTS)
def test_node_test_on_host(name):
    check(*with_constant_parameters(name), tolerance=ROUNDED.get(name, TOLERANCE))


# One node test per feature, on the Cortex-M4 emulator.
@pytest.mark.parametrize("name", ["test_slice_neg_steps", "test_gather_0", "test_matmul_bcast",
                                  "test_maxpool_2d_dilations", "test_averagepool_2d_ceil",
                                  "test_clip_min_greater_than_max"])
def test_node_test_on_cortex_m4(name):
    check(*with_constant_parameters(name), target="cortex-m4")


# ---------------------------------------------------------------------------
# Models of our own, against onnxruntime


def slice_gather_of_a_conv():
    """torch-style channel split of a conv's output (Slice with a step),
    then Gather of one row (a scalar index drops the axis)."""
    rng = np.random.default_rng(3)
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], name="conv", pads=[1, 1, 1, 1]),
             helper.make_node("Slice", ["c", "starts", "ends", "axes", "steps"], ["s"],
                              name="split"),
             helper.make_node("Gather", ["s", "row"], ["g"], name="row", axis=2),
             helper.make_node("Relu", ["g"], ["y"], name="relu")]
    return make(nodes, [tin("x", [1, 3, 6, 6])], [tout("y")],
                [init("w", rand(rng, 8, 3, 3, 3)), init("starts", np.array([1, 5], np.int64)),
                 init("ends", np.array([8, -100], np.int64)),
                 init("axes", np.array([1, 3], np.int64)),
                 init("steps", np.array([3, -2], np.int64)),
                 init("row", np.array(-2, np.int64))], name="slice_gather_of_a_conv")


def matmul_constant_3d():
    """An activation by a 3-D constant (one weight matrix per batch), and a
    constant by an activation."""
    rng = np.random.default_rng(4)
    nodes = [helper.make_node("MatMul", ["x", "w"], ["m"], name="per_batch"),
             helper.make_node("MatMul", ["k", "m"], ["y"], name="constant_lhs")]
    return make(nodes, [tin("x", [2, 3, 4])], [tout("y")],
                [init("w", rand(rng, 2, 4, 5)), init("k", rand(rng, 1, 2, 3))],
                name="matmul_constant_3d")


def matmul_broadcast_right():
    """A [1, K, N] right operand: one matmul for every row of the batch."""
    rng = np.random.default_rng(5)
    return make([helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")],
                [tin("x", [2, 3, 4])], [tout("y")], [init("w", rand(rng, 1, 4, 5))],
                name="matmul_broadcast_right")


def pool_1d_ceil_dilated():
    """A 1-D MaxPool with ceil_mode and dilation, and a 1-D AveragePool with
    ceil_mode."""
    nodes = [helper.make_node("MaxPool", ["x"], ["m"], name="max", kernel_shape=[3],
                              strides=[2], dilations=[2], pads=[1, 0], ceil_mode=1),
             helper.make_node("AveragePool", ["x"], ["a"], name="avg", kernel_shape=[2],
                              strides=[3], ceil_mode=1)]
    return make(nodes, [tin("x", [1, 2, 10])], [tout("m"), tout("a")], name="pool_1d_ceil_dilated")


OWN_MODELS = {
    "slice_gather_of_a_conv": slice_gather_of_a_conv,
    "matmul_constant_3d": matmul_constant_3d,
    "matmul_broadcast_right": matmul_broadcast_right,
    "pool_1d_ceil_dilated": pool_1d_ceil_dilated,
    # test/models/frontend_cases.py, the frontend's lit fixtures
    "slice_gather": lambda: zoo.build("slice_gather"),
    "matmul_batched": lambda: zoo.build("matmul_batched"),
    "matmul_vector": lambda: zoo.build("matmul_vector"),
    "pools_ceil_dilated": lambda: zoo.build("pools_ceil_dilated"),
    "clip_min_above_max": lambda: zoo.build("clip_min_above_max"),
}


def against_onnxruntime(model: onnx.ModelProto):
    feeds = zoo.random_inputs(model)
    inputs = [feeds[i.name] for i in model.graph.input
              if i.name not in {t.name for t in model.graph.initializer}]
    return model, inputs, zoo.reference(model, feeds)


@pytest.mark.parametrize("name", sorted(OWN_MODELS))
def test_own_model_on_host(name):
    check(*against_onnxruntime(OWN_MODELS[name]()))


def test_pooling_on_cortex_m4():
    check(*against_onnxruntime(OWN_MODELS["pools_ceil_dilated"]()), target="cortex-m4")


# ---------------------------------------------------------------------------
# int8 arithmetic outside QDQ


def _int8_model(op_type: str, inputs: int, opset: int = 14) -> onnx.ModelProto:
    names = ["a", "b"][:inputs]
    return make([helper.make_node(op_type, names, ["y"], name=f"{op_type.lower()}_i8")],
                [tin(n, [1, 4], TensorProto.INT8) for n in names],
                [tout("y", None, TensorProto.INT8)], opset=opset, name="int8_arith")


def assert_refused(model, node: str, op_type: str, input_name: str):
    with pytest.raises(CompileError) as error:
        tinyml.compile(model, target="host")
    message = str(error.value)
    assert "\n" not in message
    assert f"node '{node}' ({op_type}): input '{input_name}' is an integer (i8) tensor; " \
           f"{op_type} computes on float32 only" in message, message
    assert "must be" not in message and "tinyml." not in message, message


@pytest.mark.parametrize("op_type, inputs", [("Add", 2), ("Mul", 2), ("Relu", 1)])
def test_int8_arithmetic_is_refused(op_type, inputs):
    assert_refused(_int8_model(op_type, inputs), f"{op_type.lower()}_i8", op_type, "a")


@pytest.mark.parametrize("name", INT8_CLIP)
def test_int8_clip_is_refused(name):
    model, _, _ = with_constant_parameters(name)
    assert_refused(model, "Clip_0", "Clip", "x")
