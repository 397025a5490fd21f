"""The attributes a compile leaves in the IR, which its report is read from.

The IR is the only channel from the passes to the driver: a pass records
what it found (the kernels it numbered, the memory plan) on the function it
transformed, so that a stage run alone (`tinyml-opt`) leaves everything the
report is built from, and the driver reads it there rather than off pass
objects. The names are declared here, once. A structured result is a plain
JSON-like value (`to_attribute` / `from_attribute`), readable in printed IR.
"""
from __future__ import annotations

from typing import Any

from mlir import ir

# -- argument and result attributes of the model's function -----------------

#: The model's name for an input or output (a frontend sets it).
NAME = "tinyml.name"
#: A 4-D input's or output's declared layout, NCHW or NHWC.
LAYOUT = "tinyml.layout"
#: An integer input's or output's declared quantization (a TFLite model
#: declares it; an ONNX model's is read off its quant.scast).
SCALE = "tinyml.scale"
ZERO_POINT = "tinyml.zero_point"
#: A streaming model's state input, named: the function reads it and
#: writes the state's next value over it (the caller keeps it between calls).
STATE = "tinyml.state"

# -- function attributes --------------------------------------------------------

#: The batch a model with a dynamic batch dimension was imported for (a
#: frontend sets it).
BATCH = "tinyml.batch"
#: Every kernel `tinyml-number-kernels` numbered, in execution order, each
#: `{kernel, names, kind, macs}`; a later run appends the ones it numbers.
KERNELS = "tinyml.kernels"
#: `tinyml-plan-memory`: the arena's size and alignment, and the numbers to
#: compare it with (TFLM's greedy-by-size plan, the sum of all buffers, the
#: most bytes live at one step, the op at that step: "" when none).
ARENA_BYTES = "tinyml.arena_bytes"
ARENA_ALIGNMENT = "tinyml.arena_alignment"
GREEDY_ARENA_BYTES = "tinyml.greedy_arena_bytes"
NAIVE_ARENA_BYTES = "tinyml.naive_arena_bytes"
LOWER_BOUND_BYTES = "tinyml.lower_bound_bytes"
PEAK_OP = "tinyml.peak_op"
#: `tinyml-plan-memory`: the plan itself (buffers, offsets, each step's op
#: and kernel), from which the memory timeline and each kernel's live bytes
#: are drawn (`plan_memory.recorded_plan`).
MEMORY_PLAN = "tinyml.memory_plan"

# -- module attributes ----------------------------------------------------------

#: The LLVM-dialect module's record of what the compiled function reads and
#: writes (`abi.signature_record`), which `load` checks a report against.
SIGNATURE = "tinyml.signature"


def to_attribute(value: Any) -> ir.Attribute:
    """A JSON-like value (int, str, list, dict with str keys) as an
    attribute: a list of integers is a dense i64 array, an int an i64."""
    if isinstance(value, bool) or value is None:
        raise TypeError(f"no attribute form for {value!r}")
    if isinstance(value, int):
        return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), value)
    if isinstance(value, str):
        return ir.StringAttr.get(value)
    if isinstance(value, dict):
        return ir.DictAttr.get({key: to_attribute(item) for key, item in value.items()})
    values = list(value)
    if values and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return ir.DenseI64ArrayAttr.get(values)
    return ir.ArrayAttr.get([to_attribute(item) for item in values])


def from_attribute(attr: ir.Attribute) -> Any:
    """The JSON-like value `to_attribute` made `attr` from."""
    if isinstance(attr, ir.IntegerAttr):
        return attr.value
    if isinstance(attr, ir.StringAttr):
        return attr.value
    if isinstance(attr, ir.DictAttr):
        return {named.name: from_attribute(named.attr) for named in attr}
    if isinstance(attr, ir.DenseI64ArrayAttr):
        return list(attr)
    if isinstance(attr, ir.ArrayAttr):
        return [from_attribute(item) for item in attr]
    raise TypeError(f"no JSON-like value for the attribute {attr}")


def append_to(op: ir.Operation, name: str, values: list[Any]) -> None:
    """Appends `values` to the list attribute `name` of `op` (made when
    absent; nothing is added for no values)."""
    if not values:
        return
    with op.context:
        op.attributes[name] = to_attribute(read(op, name, []) + values)


def read(op: ir.Operation, name: str, default: Any = None) -> Any:
    """The JSON-like value of `op`'s attribute `name`; `default` when absent."""
    return from_attribute(op.attributes[name]) if name in op.attributes else default
