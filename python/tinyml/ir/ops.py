"""Sets of tinyml ops that several phases treat alike."""

ELEMENTWISE = frozenset({
    "tinyml.add", "tinyml.sub", "tinyml.mul", "tinyml.div", "tinyml.maximum",
    "tinyml.minimum", "tinyml.neg", "tinyml.exp", "tinyml.relu", "tinyml.sigmoid",
    "tinyml.tanh", "tinyml.clamp", "tinyml.batch_norm",
})

# Element-wise ops worth recomputing in every consumer rather than storing:
# one or two instructions per element on a Cortex-M, no transcendental
# functions.
CHEAP = frozenset({
    "tinyml.add", "tinyml.sub", "tinyml.mul", "tinyml.maximum", "tinyml.minimum",
    "tinyml.neg", "tinyml.relu", "tinyml.clamp",
})

# The ops a register tile and a transform script are built around.
CONTRACTIONS = frozenset({"tinyml.conv2d", "tinyml.depthwise_conv2d", "tinyml.matmul"})

REDUCTIONS = frozenset({
    "tinyml.reduce_sum", "tinyml.reduce_mean", "tinyml.reduce_max",
    "tinyml.global_avg_pool", "tinyml.softmax",
})
