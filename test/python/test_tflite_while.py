"""TFLite's WHILE (frontend/tflite/control_flow.py): the loops converters
write for Keras 3's LSTM and GRU and Keras 2's GRU are compiled as a loop of
the trip count their condition gives (the Keras files' outputs against
tflite-micro are in test_recurrent.py). Here: what a loop must be for
tinyml to compile it, each other loop a one-line error naming the WHILE or
the body's operator, taken from a Keras 3 GRU with one thing changed."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tflite_struct
from conftest import assert_one_line_error, cli

GRU = Path(__file__).resolve().parents[1] / "models" / "recurrent" / "keras3_gru.tflite"
# The GRU's WHILE (operator 1 of the main subgraph) carries: 0 the step
# count, 1 the time index, 2 the output tensor array, 3 h, 4 the sequence.
# Subgraph 1 is its condition (counter < 12 for both counters), 2 its body.
COND, BODY = 1, 2


def _operator(model, graph: int, kind: str) -> tflite_struct.OperatorDesc:
    """The first operator of `kind` in subgraph `graph`."""
    for op in model.subgraphs[graph].operators:
        code = model.operator_codes[op.opcode_index]
        if tflite_struct.OPERATORS[max(code.builtin_code, code.deprecated_builtin_code)] == kind:
            return op
    raise AssertionError(f"no {kind} in subgraph {graph}")


def _limit(model, steps: int) -> None:
    """The condition compares the counters with `steps` (a new buffer: the
    converter shares buffers between equal constants)."""
    less = _operator(model, COND, "LESS")
    tensor = model.subgraphs[COND].tensors[int(less.inputs[1])]
    model.buffers.append(np.int32(steps).tobytes())
    tensor.buffer = len(model.buffers) - 1


def _reads_state(model) -> None:
    less = _operator(model, COND, "LESS")
    less.inputs[0] = model.subgraphs[COND].inputs[3]


def _counter_doubled(model) -> None:
    """The time index's ADD adds the index to itself: no longer a step by a
    constant."""
    add = _operator(model, BODY, "ADD")
    add.inputs[1] = add.inputs[0]


def _body_is_main(model) -> None:
    model.subgraphs[0].operators[1].options.fields["BodySubgraphIndex"] = 0


def _one_output_less(model) -> None:
    model.subgraphs[0].operators[1].outputs = model.subgraphs[0].operators[1].outputs[:-1]


def _as_if(model) -> None:
    """The WHILE's operator code becomes IF (control flow tinyml refuses)."""
    model.operator_codes[model.subgraphs[0].operators[1].opcode_index].builtin_code = 118
    model.operator_codes[model.subgraphs[0].operators[1].opcode_index] \
        .deprecated_builtin_code = 118


def _condition_not_boolean(model) -> None:
    cond = model.subgraphs[COND]
    cond.tensors[int(cond.outputs[0])].type = 2  # INT32


def _state_reshaped(model) -> None:
    """The body's h input [1, 8] where the loop carries [1, 16]."""
    body = model.subgraphs[BODY]
    body.tensors[int(body.inputs[3])].shape = np.array([1, 8], np.int32)


def _condition_takes_logistic(model) -> None:
    """The condition's LOGICAL_AND becomes a LOGISTIC, not a condition."""
    logistic = next(n for n, c in enumerate(model.operator_codes) if c.builtin_code == 14)
    model.subgraphs[COND].operators[-1].opcode_index = logistic


def _counter_as_data(model) -> None:
    """The body's first LOGISTIC reads the time index itself."""
    _operator(model, BODY, "LOGISTIC").inputs[0] = model.subgraphs[BODY].inputs[1]


CASES = {
    "condition reads state": (_reads_state, "operator 1 (WHILE): its condition reads "
                              "'sequential_1_1/gru_1/while_cond", "which the loop computes"),
    "no end": (lambda m: _limit(m, 100_000), "operator 1 (WHILE): does not end within 65536 "
               "iterations", ""),
    "row past the end": (lambda m: _limit(m, 13), "subgraph 2 ('sequential_1_1/gru_1/"
                         "while_body'): operator 6 (GATHER): its index runs from 0 to 12 over "
                         "the loop's 13 iterations, outside [0, 11]", ""),
    "not a counter": (_counter_doubled, "operator 1 (WHILE): loop value 1 ",
                      "neither a counter"),
    "body is the main subgraph": (_body_is_main, "operator 1 (WHILE): its body subgraph 0 is "
                                  "not another of the model's 3 subgraphs", ""),
    "outputs missing": (_one_output_less, "operator 1 (WHILE): 5 inputs and 4 outputs; a "
                        "WHILE takes as many", ""),
    "condition not boolean": (_condition_not_boolean, "operator 1 (WHILE): its condition "
                              "subgraph 1 must compute one boolean", ""),
    "state reshaped": (_state_reshaped, "operator 1 (WHILE): loop value 3 is FLOAT32 [1, 16] "
                       "and ", "FLOAT32 [1, 8]; each loop value keeps one shape and type"),
    "logistic condition": (_condition_takes_logistic, "operator 1 (WHILE): its condition "
                           "subgraph 1, operator 2 (LOGISTIC): is not supported in a loop "
                           "condition", ""),
    "counter as data": (_counter_as_data, "subgraph 2 ('sequential_1_1/gru_1/while_body'): "
                        "operator 10 (LOGISTIC): reads ", "computed from the loop's counters, "
                        "in a way tinyml does not compute"),
    "if": (_as_if, "operator 1 (IF): control flow over the model's 3 subgraphs is not "
           "supported (only WHILE is)", ""),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_loop_tinyml_does_not_compile_is_a_one_line_error(tmp_path, case):
    change, words, more = CASES[case]
    path = tmp_path / "gru.tflite"
    path.write_bytes(tflite_struct.changed(GRU.read_bytes(), change))
    done = cli("compile", path, "-o", tmp_path / "out")
    line = assert_one_line_error(done, "compile", words)
    assert more in line
    assert not (tmp_path / "out").exists()


def test_the_condition_runs_on_the_counters_values(tmp_path):
    """A loop that stops after 5 of the sequence's 12 rows: the trip count
    is what the condition gives, not the sequence's length; the result is
    the state after 5 steps, which the 12-step model's first 5 rows give."""
    import tinyml
    model = tflite_struct.read_model(GRU.read_bytes())
    _limit(model, 5)
    short = tmp_path / "gru5.tflite"
    short.write_bytes(tflite_struct.write_model(model))
    x = np.random.default_rng(2).standard_normal((1, 12, 10)).astype(np.float32)
    first_five = np.concatenate([x[:, :5], np.zeros((1, 7, 10), np.float32)], axis=1)
    from conftest import tflite_micro_output
    want = tflite_micro_output(short.read_bytes(), x)
    got = tinyml.compile(str(short), target="host").run(x).outputs[0]
    assert float(np.abs(got - want).max()) <= 1e-5
    assert np.allclose(tinyml.compile(str(short), target="host").run(first_five).outputs[0],
                       got, atol=1e-6)
