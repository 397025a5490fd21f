"""tinyml-read-final-state: a recurrent layer's output sequence read only at
its last step is its final state.

A time loop (frontend/onnx/recurrent.py) carries an output sequence when
a node reads it: an `alloc_tensor` into which each step inserts the
hidden state it also carries as a state (the state as materialized over
the old). A classifier on the last step (Keras's LSTM without
`return_sequences`, which the converter writes as the whole sequence and
a STRIDED_SLICE of its last step; PyTorch's `y[:, -1]`) reads one row of
it: the row the last iteration wrote, which is the loop's final hidden
state. The pattern: a `tinyml.slice` (or, of int8, a static
`tensor.extract_slice`), through reshapes and transposes of the
sequence, whose elements are that row's in the state's order becomes a
reshape of the final state; a sequence nothing else reads is dropped
from the loop. The arena no longer holds the sequence (steps x batch x
hidden values), nor does each step copy its state into it.

Which elements the slice reads is computed, not matched: the chain of
reshapes, transposes and the slice is applied to the sequence's element
indices, and the result compared with the last row's.
"""
from __future__ import annotations

import math

import numpy as np
from mlir import ir
from mlir.dialects import scf

from ..dialects import tinyml as tm
from ..ir import analysis
from ..ir.patterns import create
from ..ir.values import constant_int, producer, shape_of
from ..ir.walk import ops_named
from ..pipeline.registry import Pass, register


@register
class ReadFinalState(Pass):
    name = "tinyml-read-final-state"
    summary = ("Read a time loop's output sequence at its last step from the final state, "
               "and drop a sequence nothing else reads")

    def apply(self, module):
        for loop in ops_named(module, "scf.for"):
            for position in reversed(range(len(loop.results))):
                written = sequence_of(loop, position)
                if written is None:
                    continue
                state, row = written
                for reader in list(loop.results[position].uses):
                    read_final_state(reader.owner, loop, position, state, row)
                if not list(loop.results[position].uses):
                    loop = without_iter_arg(loop, position)


def sequence_of(loop: ir.Operation, position: int) -> tuple[int, int] | None:
    """(the state carried with it, the row the last iteration writes) when
    the loop's carried value `position` is an output sequence: an
    `alloc_tensor` each step inserts a state into, at the step's index (or
    the last index minus it: a reverse direction)."""
    bounds = analysis.loop_bounds(loop)
    init = producer(loop.operands[3 + position])
    if bounds is None or bounds[2] != 1 or init is None \
            or init.name != "bufferization.alloc_tensor":
        return None
    body = loop.regions[0].blocks[0]
    yielded = list(body.operations)[-1].operands
    insert = producer(yielded[position])
    if insert is None or insert.name != "tensor.insert_slice" \
            or insert.operands[1] != body.arguments[1 + position]:
        return None
    states = [j for j, value in enumerate(yielded)
              if value == insert.operands[0] and (op := producer(value)) is not None
              and op.name == "bufferization.materialize_in_destination"]
    static = list(ir.DenseI64ArrayAttr(insert.attributes["static_offsets"]))
    if not states or static[1:] != [0] * (len(static) - 1) or len(insert.operands) != 3:
        return None
    last = bounds[1] - 1
    index, induction = insert.operands[2], body.arguments[0]
    if index == induction:
        return states[0], last
    reverse = producer(index)
    if reverse is not None and reverse.name == "arith.subi" and reverse.operands[1] == induction \
            and (first := constant_int(reverse.operands[0])) is not None:
        return states[0], first - last
    return None


def read_final_state(reader: ir.Operation, loop: ir.Operation, position: int, state: int,
                     row: int) -> None:
    """`reader`, the head of a chain of reshapes and transposes of the
    sequence ending in a slice: the slice replaced by the final state,
    reshaped, when what it reads is exactly row `row`, in the state's
    order."""
    shape = shape_of(loop.results[position])
    indices = np.arange(math.prod(shape)).reshape(shape)
    op, chain = reader, []
    while op.name in (tm.ReshapeOp.OPERATION_NAME, tm.TransposeOp.OPERATION_NAME):
        chain.append(op)
        if op.name == tm.ReshapeOp.OPERATION_NAME:
            indices = indices.reshape(shape_of(op.results[0]))
        else:
            indices = indices.transpose(list(ir.DenseI64ArrayAttr(op.attributes["permutation"])))
        uses = list(op.results[0].uses)
        if len(uses) != 1:
            return
        op = uses[0].owner
    read = sliced(indices, op)
    size = math.prod(shape[1:])
    if read is None or not np.array_equal(read.reshape(-1), row * size + np.arange(size)):
        return
    element = ir.RankedTensorType(op.results[0].type).element_type
    with ir.InsertionPoint(op), op.location:
        final = create(tm.ReshapeOp, shape_of(op.results[0]), [loop.results[state]], {},
                       op.location, element)
    op.results[0].replace_all_uses_with(final)
    # The chain read nothing else (one use each): it goes with the slice.
    for dead in [op] + chain[::-1]:
        dead.erase()


def sliced(indices: np.ndarray, slice_op: ir.Operation) -> np.ndarray | None:
    """The elements of `indices` a slice reads, in its result's order: a
    `tinyml.slice`, or a `tensor.extract_slice` of static offsets (an int8
    tensor's, sliced as stored); None for any other op."""
    if slice_op.name == tm.SliceOp.OPERATION_NAME:
        offsets = list(ir.DenseI64ArrayAttr(slice_op.attributes["offsets"]))
        strides = list(ir.DenseI64ArrayAttr(slice_op.attributes["strides"]))
        sizes = shape_of(slice_op.results[0])
    elif slice_op.name == "tensor.extract_slice" and len(slice_op.operands) == 1:
        offsets, sizes, strides = (list(ir.DenseI64ArrayAttr(slice_op.attributes[name]))
                                   for name in ("static_offsets", "static_sizes",
                                                "static_strides"))
    else:
        return None
    axes = [offset + stride * np.arange(size) for offset, stride, size
            in zip(offsets, strides, sizes)]
    return indices[np.ix_(*axes)]


def without_iter_arg(loop: ir.Operation, position: int) -> ir.Operation:
    """`loop` rebuilt without its carried value `position`, whose result
    nothing reads and whose block argument only the step's insertion into
    it reads."""
    body = loop.regions[0].blocks[0]
    old_yield = list(body.operations)[-1]
    insert = producer(old_yield.operands[position])
    assert insert is not None, "an output sequence is inserted into each step"
    inits = [v for i, v in enumerate(loop.operands[3:]) if i != position]
    with ir.InsertionPoint(loop), loop.location:
        rebuilt = scf.ForOp(loop.operands[0], loop.operands[1], loop.operands[2], inits)
    with ir.InsertionPoint(rebuilt.body), loop.location:
        new_yield = scf.YieldOp([v for i, v in enumerate(old_yield.operands) if i != position])
    new_arguments = [rebuilt.induction_variable] + list(rebuilt.inner_iter_args)
    kept = [a for i, a in enumerate(body.arguments) if i != 1 + position]
    for old, new in zip(kept, new_arguments):
        old.replace_all_uses_with(new)
    old_yield.erase()
    insert.erase()
    for op in list(body.operations):
        op.move_before(new_yield)
    results = [r for i, r in enumerate(loop.results) if i != position]
    for old, new in zip(results, rebuilt.results):
        old.replace_all_uses_with(new)
    init = producer(loop.operands[3 + position])
    loop.erase()
    if init is not None and not list(init.results[0].uses):
        init.erase()
    return rebuilt.operation
