"""The float runtime's `expf` and `tanhf` (targets/runtime_float.ll:
Cephes' exp, Eigen's rational tanh), which a float model's exp, sigmoid
and tanh call on a Cortex-M, stay within a few float32 ulps of numpy's
over their whole range: the small arguments where tanh(x) = x, the large
ones where they saturate, exp up to where it overflows (the host, which
calls its C library, alike)."""
from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import tinyml

#: Where exp(x) is a normal float32 (below it the approximation returns
#: the smallest normal, above it would overflow).
EXP_RANGE = (-87.3, 88.3)


def _model(op: str, values: np.ndarray) -> onnx.ModelProto:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, values.size])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, values.size])
    graph = helper.make_graph([helper.make_node(op, ["x"], ["y"])], op.lower(), [x], [y])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _arguments(low: float, high: float) -> np.ndarray:
    """A spread over [low, high] with the small magnitudes near 0 and 0."""
    tiny = np.geomspace(1e-6, 1e-2, 64)
    values = np.concatenate([np.linspace(low, high, 448), tiny, -tiny, [0.0]])
    return values.astype(np.float32)


REFERENCES = {
    "Exp": (lambda v: np.exp(v.astype(np.float64)), EXP_RANGE),
    "Sigmoid": (lambda v: 1.0 / (1.0 + np.exp(-v.astype(np.float64))), (-100.0, 100.0)),
    "Tanh": (lambda v: np.tanh(v.astype(np.float64)), (-20.0, 20.0)),
}


@pytest.mark.parametrize("op", sorted(REFERENCES))
def test_the_inline_function_is_within_float_rounding(tmp_path, op):
    reference, (low, high) = REFERENCES[op]
    values = _arguments(low, high)
    path = tmp_path / f"{op}.onnx"
    onnx.save(_model(op, values), str(path))
    want = reference(values)
    for target in ("host", "cortex-m4"):
        got = tinyml.compile(str(path), target=target).run(values[None]).outputs[0][0]
        error = np.abs(got.astype(np.float64) - want)
        # Within 3 float32 ulps of the value, or, where the value is a
        # denormal (sigmoid's far negative tail), within the smallest normal.
        close = (error <= 3 * np.finfo(np.float32).eps * np.abs(want)) \
            | (error <= np.finfo(np.float32).tiny)
        assert close.all(), (target, values[~close][:4])
