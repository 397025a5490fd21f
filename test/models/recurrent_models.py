"""ONNX LSTM and GRU nodes in the forms the specification allows beyond
what PyTorch exports (those are in test/models/recurrent/, from
tools/build_recurrent_models.py): each direction, both layouts, a batch of
two, states given as inputs (a streaming model carries them between calls),
every output read; and the forms tinyml refuses. Built with onnx.helper,
seeded: `build(name)`."""
from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 14

#: name -> (op, steps, batch, inputs, hidden, attributes, what the node gets:
#: "bias", "state" (initial states as graph inputs), "lengths", "peepholes").
SPECS: dict[str, tuple] = {
    "lstm_forward": ("LSTM", 6, 1, 5, 7, {}, {"bias"}),
    "lstm_bidirectional_state": ("LSTM", 5, 1, 4, 6, {"direction": "bidirectional"},
                                 {"bias", "state"}),
    "lstm_reverse_layout1_batch2": ("LSTM", 4, 2, 3, 5, {"direction": "reverse", "layout": 1},
                                    {"lengths"}),
    "gru_forward": ("GRU", 6, 1, 5, 7, {}, {"bias"}),
    "gru_linear_before_reset_state": ("GRU", 5, 1, 4, 6, {"linear_before_reset": 1},
                                      {"bias", "state"}),
    "gru_bidirectional_layout1": ("GRU", 4, 2, 3, 5,
                                  {"direction": "bidirectional", "layout": 1,
                                   "linear_before_reset": 1}, {"bias"}),
}

#: Forms refused: name -> (spec as above, the error's words).
REFUSED: dict[str, tuple[tuple, str]] = {
    "lstm_peepholes": (("LSTM", 3, 1, 2, 3, {}, {"bias", "peepholes"}), "peephole"),
    "lstm_clip": (("LSTM", 3, 1, 2, 3, {"clip": 1.0}, set()), "clip"),
    "gru_relu": (("GRU", 3, 1, 2, 3, {"activations": ["Relu", "Tanh"]}, set()), "activations"),
    "gru_short_sequence": (("GRU", 3, 1, 2, 3, {}, {"short"}), "sequence_lens"),
}

GATES = {"LSTM": 4, "GRU": 3}


def build(name: str, layout: int | None = None, steps: int | None = None) -> onnx.ModelProto:
    """The model `name`; with `layout`, the same weights in that layout
    (onnxruntime computes only layout 0: a layout-1 model's reference);
    with `steps`, the same weights over a sequence of that length."""
    spec = SPECS[name] if name in SPECS else REFUSED[name][0]
    if layout is not None:
        spec = (*spec[:5], {**spec[5], "layout": layout}, spec[6])
    if steps is not None:
        spec = (spec[0], steps, *spec[2:])
    return _model(name, *spec)


def reference(name: str, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    """onnxruntime's outputs of model `name` for `feeds`."""
    import onnxruntime
    layout = build(name).graph.node[0].attribute
    batchwise = any(a.name == "layout" and a.i == 1 for a in layout)
    model = build(name, layout=0) if batchwise else build(name)
    if batchwise:  # [B, T, ...] and [B, D, H] <-> [T, B, ...] and [D, B, H]
        feeds = {k: np.swapaxes(v, 0, 1) for k, v in feeds.items()}
    session = onnxruntime.InferenceSession(model.SerializeToString())
    outputs = session.run(None, feeds)
    if batchwise:
        outputs = [np.transpose(outputs[0], (2, 0, 1, 3))] + \
            [np.swapaxes(o, 0, 1) for o in outputs[1:]]
    return outputs


def _model(name, op, steps, batch, size, hidden, attrs, extras) -> onnx.ModelProto:
    rng = np.random.default_rng(sum(map(ord, name)))
    directions = 2 if attrs.get("direction") == "bidirectional" else 1
    layout = attrs.get("layout", 0)
    gates = GATES[op]
    scale = 1 / np.sqrt(hidden)

    def weights(*shape):
        return numpy_helper.from_array(rng.uniform(-scale, scale, shape).astype(np.float32),
                                       f"w{len(initializers)}")

    initializers = []
    inputs = [helper.make_tensor_value_info(
        "x", TensorProto.FLOAT, [batch, steps, size] if layout else [steps, batch, size])]
    node_inputs = ["x"]
    for shape in ((directions, gates * hidden, size), (directions, gates * hidden, hidden)):
        initializers.append(weights(*shape))
        node_inputs.append(initializers[-1].name)
    if "bias" in extras or "peepholes" in extras:
        initializers.append(weights(directions, 2 * gates * hidden))
        node_inputs.append(initializers[-1].name)
    else:
        node_inputs.append("")
    if "lengths" in extras or "short" in extras:
        lengths = np.full(batch, steps - ("short" in extras), np.int32)
        initializers.append(numpy_helper.from_array(lengths, "lengths"))
        node_inputs.append("lengths")
    else:
        node_inputs.append("")
    state_shape = [batch, directions, hidden] if layout else [directions, batch, hidden]
    for state in ("h0", "c0")[:2 if op == "LSTM" else 1]:
        if "state" in extras:
            inputs.append(helper.make_tensor_value_info(state, TensorProto.FLOAT, state_shape))
            node_inputs.append(state)
        else:
            node_inputs.append("")
    if "peepholes" in extras:
        initializers.append(weights(directions, 3 * hidden))
        node_inputs.append(initializers[-1].name)
    outputs = ["y", "y_h", "y_c"][:3 if op == "LSTM" else 2]
    node = helper.make_node(op, node_inputs, outputs, name=op.lower(), hidden_size=hidden,
                            **attrs)
    graph = helper.make_graph([node], name, inputs, [
        helper.make_value_info(o, helper.make_tensor_type_proto(TensorProto.FLOAT, None))
        for o in outputs], initializer=initializers)
    opsets = [helper.make_opsetid("", OPSET)]
    model = helper.make_model(graph, opset_imports=opsets, producer_name="tinyml.recurrent_models",
                              ir_version=helper.find_min_ir_version_for(opsets))
    return onnx.shape_inference.infer_shapes(model, strict_mode=True)
