"""Moderately large members of the compile-time scaling families
(test/models/scaling.py, tools/bench_scaling.py) compile to the same numbers
as onnxruntime. Correctness only: the times are in BENCHMARKS.md.

What they cover: the concat lowered into one buffer (every branch writing
its own slice), tensor.empty groups before bufferization, numbered loop
nests (CSE), and the schedule search's bound on large graphs."""
from __future__ import annotations

import numpy as np
import pytest

import tinyml
import zoo
from scaling import concat_branches, concat_fan_out, conv_chain


@pytest.mark.parametrize("model", [conv_chain(60), concat_fan_out(300), concat_branches(120)],
                         ids=["conv_chain_60", "concat_fan_out_300", "concat_branches_120"])
def test_large_graph_matches_onnxruntime(model):
    inputs = zoo.random_inputs(model)
    (want,) = zoo.reference(model, inputs)
    compiled = tinyml.compile(model, target="host")
    # A poisoned arena must not change the result.
    (got,) = compiled(*inputs.values(), arena_fill=b"\xff")
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_branches_write_into_the_concat_output():
    # Every branch computes straight into its slice of the caller's output:
    # no intermediate buffer, so no arena.
    compiled = tinyml.compile(concat_branches(40), target="host", warm_up=False)
    assert compiled.arena_bytes == 0


def test_schedule_search_is_bounded_on_a_wide_graph():
    from tinyml.schedule.schedule_for_memory import Graph, schedule

    # 300 independent ops feeding one: far past the exact search; the
    # (state, op) bound keeps the beam narrow and the order still valid.
    n = 301
    sizes = [64 * (1 + i % 3) for i in range(n - 1)]
    deps = [0] * (n - 1) + [(1 << (n - 1)) - 1]
    produces = [[i] for i in range(n - 1)] + [[]]
    consumes = [[] for _ in range(n - 1)] + [list(range(n - 1))]
    users = [1 << (n - 1)] * (n - 1)
    graph = Graph([None] * n, deps, produces, consumes, sizes, users)
    original, peak, order, method = schedule(graph, 20000, max_moves=200_000)
    assert method in ("beam", "original")
    assert sorted(order) == list(range(n)) and order[-1] == n - 1
    assert graph.peak_of(order) == peak <= original
