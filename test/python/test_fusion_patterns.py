"""Fusion as rewrite-pattern sets: the groups depend only on the graph, not
on the order of the ops in the function nor on the order the greedy driver
visits them, and the sets run on their own give the passes' groups."""
from __future__ import annotations

import random

import pytest
from mlir import ir
from mlir.rewrite import GreedyRewriteConfig, RewritePatternSet, apply_patterns_and_fold_greedily

import tinyml
from tinyml import Pipeline
import zoo
from tinyml.transforms import fusion
from tinyml.pipeline import stages as pipelines
from tinyml.frontend import import_onnx

# The pass options and the same as pattern-set arguments; the tight limits
# cut groups short, where the order of absorption shows most.
LIMITS = {
    "defaults": ({}, {}, {}),
    "tight": ({"max_epilogue_ops": 1}, {"max_ops": 2}, {"max_ops": 2}),
}
SETS_IN_STAGE_ORDER = (fusion.conv_epilogue_patterns, fusion.reduction_patterns,
                       fusion.elementwise_patterns)
PASSES_IN_STAGE_ORDER = ("tinyml-fuse-conv-epilogue", "tinyml-fuse-reduction",
                         "tinyml-fuse-elementwise")


def cleaned(name: str) -> ir.Module:
    module = import_onnx(zoo.build(name), context=tinyml.make_context())
    with module.context:
        pipelines.cleanup().run(module)
    return module


def top_level(module: ir.Module) -> list[ir.Operation]:
    func = module.body.operations[0]
    return [op.operation for op in func.regions[0].blocks[0].operations]


def groups(module: ir.Module) -> list[tuple]:
    """Each group as its kind and its body's ops (name and location) in
    order; constants and the terminator aside. Sorted, so the order of the groups is free."""
    found = []
    for op in top_level(module):
        if op.name == "tinyml.fused":
            body = [(inner.operation.name, str(inner.location))
                    for inner in op.regions[0].blocks[0].operations
                    if inner.operation.name not in ("arith.constant", "tinyml.yield")]
            found.append((op.opview.kind_name, tuple(body)))
    return sorted(found)


def shuffle(module: ir.Module, seed: int) -> list[str]:
    """Moves the function's ops into a random order that still computes
    every value before its uses; returns the new order's op names."""
    ops = top_level(module)
    terminator, ops = ops[-1], ops[:-1]
    waiting = {op: {value.owner.operation for value in op.operands
                    if not isinstance(value.owner, ir.Block)} for op in ops}
    rng, placed, order = random.Random(seed), set(), []
    while len(order) < len(ops):
        ready = [op for op in ops if op not in placed and waiting[op] <= placed]
        chosen = rng.choice(ready)
        placed.add(chosen)
        order.append(chosen)
    for op in order:
        op.move_before(terminator)
    return [str(op.location) + op.name for op in order]


def fuse_with_passes(module: ir.Module, limits: str = "defaults") -> None:
    pipeline = Pipeline()
    for name, options in zip(PASSES_IN_STAGE_ORDER, LIMITS[limits]):
        pipeline.add(name, **options)
    with module.context:
        pipeline.run(module)


def fuse_top_down(module: ir.Module, limits: str = "defaults") -> None:
    """The three pattern sets in a user's own driver, visiting producers
    before consumers (the passes visit consumers first)."""
    with module.context, ir.Location.unknown():
        for patterns_of, options in zip(SETS_IN_STAGE_ORDER, LIMITS[limits]):
            patterns = RewritePatternSet(module.context)
            for root, pattern in patterns_of(**options):
                patterns.add(root, pattern)
            config = GreedyRewriteConfig()
            config.use_top_down_traversal = True
            config.max_iterations = -1
            apply_patterns_and_fold_greedily(module, patterns.freeze(), config)


@pytest.mark.parametrize("limits", LIMITS)
@pytest.mark.parametrize("name", zoo.names())
def test_groups_do_not_depend_on_op_order(name, limits):
    reference = cleaned(name)
    original_order = [str(op.location) + op.name for op in top_level(reference)[:-1]]
    fuse_with_passes(reference, limits)
    expected = groups(reference)
    for seed in (1, 2):
        module = cleaned(name)
        new_order = shuffle(module, seed)
        if name in zoo.names("mlperf"):
            assert new_order != original_order, "the shuffle left the order as it was"
        fuse_with_passes(module, limits)
        assert groups(module) == expected, (name, seed)


@pytest.mark.parametrize("limits", LIMITS)
@pytest.mark.parametrize("name", zoo.names())
def test_groups_do_not_depend_on_visit_order(name, limits):
    by_passes, by_user_driver = cleaned(name), cleaned(name)
    fuse_with_passes(by_passes, limits)
    fuse_top_down(by_user_driver, limits)
    assert groups(by_user_driver) == groups(by_passes)


DIAMOND = """
func.func @diamond(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = tinyml.neg %x : tensor<16xf32> loc("neg")
  %1 = tinyml.exp %0 : tensor<16xf32> loc("exp")
  %2 = tinyml.tanh %1 : tensor<16xf32> loc("tanh")
  %3 = tinyml.sigmoid %1 : tensor<16xf32> loc("sigmoid")
  %4 = tinyml.add %2, %3 : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32> loc("add")
  return %4 : tensor<16xf32>
}
"""


@pytest.mark.parametrize("fuse", [fuse_with_passes, fuse_top_down])
def test_a_group_absorbs_a_whole_producer_group(fuse):
    # Visiting producers first, exp (two users) becomes a group with neg
    # before the add's group reaches it; the add's group then takes that
    # group whole. Consumers first, the add's group takes them one by one.
    with tinyml.make_context():
        module = ir.Module.parse(DIAMOND)
    fuse(module)
    assert groups(module) == [("elementwise", tuple(
        (f"tinyml.{name}", f'loc("{name}")')
        for name in ("neg", "exp", "tanh", "sigmoid", "add")))]
