"""tinyml-lower-copies: `memref.copy` becomes a loop nest like every other
kernel. A copy into a strided view (a padded buffer, a concat slot) would
otherwise become a call to `memrefCopy`, a host runtime function that no
Cortex-M image has.

A copy of bytes (int8 data) whose innermost dimensions are, in source and
target alike, one contiguous run at least a word long (per index of the
dimensions before it) is loops over those dimensions and, inside, over
words (`vector<4xi8>` loads and stores, one `ldr`/`str` each where the
core allows unaligned words, split by LLVM where it does not), a run's
last 1-3 bytes after the loop as a halfword and a byte: an in-place
group's band, a line buffer's row or a staged window's rows move a word at
a time, and LLVM does not unroll the byte loop it would otherwise be into
a kilobyte of code (KWS int8's in-place pointwise band copy: 1,238 bytes of
`ldrb`/`strb`; a depthwise conv's padded rows of 10 bytes, two words and a
halfword where they were ten `ldrb`/`strb` pairs). Without unaligned
words, only a copy that is one whole run of words goes by words. Any other
copy is `linalg.copy`."""
from typing import Callable

import numpy as np
from mlir import ir
from mlir.dialects import arith, memref, scf, vector

from ..ir.lazy_modules import linalg
from ..ir.walk import functions, ops_named
from ..pipeline.registry import Option, Pass, register

#: Bytes per load and store of a word copy.
WORD = 4


def contiguous_from(t: ir.MemRefType) -> int:
    """The first dimension from which on `t`'s elements are one contiguous
    run per index of the dimensions before (static sizes, the innermost
    stride 1, each outer stride the size of what it steps over); `t.rank`
    if not even the innermost is."""
    strides, _ = t.get_strides_and_offset()
    run, first = 1, t.rank
    for dim in reversed(range(t.rank)):
        size = t.shape[dim]
        if t.is_dynamic_dim(dim) or (size != 1 and strides[dim] != run):
            break
        run, first = run * size, dim
    return first


def collapsed(value: ir.Value, first: int) -> ir.Value:
    """`value` with its dimensions from `first` on (one contiguous run) as
    one."""
    t = ir.MemRefType(value.type)
    if first == t.rank - 1:
        return value
    strides, offset = t.get_strides_and_offset()
    run = int(np.prod(t.shape[first:]))
    shape = list(t.shape[:first]) + [run]
    # As memref.collapse_shape infers it: strided if the source is.
    layout = ir.StridedLayoutAttr.get(offset, list(strides[:first]) + [1]) \
        if isinstance(t.layout, ir.StridedLayoutAttr) else None
    collapsed_type = ir.MemRefType.get(shape, t.element_type, layout, t.memory_space)
    i64 = ir.IntegerType.get_signless(64)
    groups = [[d] for d in range(first)] + [list(range(first, t.rank))]
    reassociation = ir.ArrayAttr.get([ir.ArrayAttr.get([ir.IntegerAttr.get(i64, d) for d in g])
                                      for g in groups])
    return memref.CollapseShapeOp(collapsed_type, value, reassociation).result


def word_loops(flat: ir.Value, first: int, step: int,
               body: Callable[[list[ir.Value]], None],
               tail: Callable[[list[ir.Value], int], None] | None = None) -> None:
    """Loops over the dimensions of `flat` (collapsed from `first` on) before
    `first`, and inside over its last one `step` elements at a time as far
    as whole steps reach; `body(indices)` builds each iteration's work and
    `tail(indices, start)`, after the loop, the rest's from `start` (when
    the run is not whole steps)."""
    t = ir.MemRefType(flat.type)
    index = ir.IndexType.get()

    def nest(dim: int, at: list[ir.Value]) -> None:
        if dim > first:
            body(at)
            return
        whole = t.shape[dim] - t.shape[dim] % step if dim == first else t.shape[dim]
        bound = memref.dim(flat, arith.constant(index, dim)) if t.is_dynamic_dim(dim) \
            else arith.constant(index, whole)
        loop = scf.ForOp(arith.constant(index, 0), bound,
                         arith.constant(index, step if dim == first else 1))
        with ir.InsertionPoint(loop.body):
            nest(dim + 1, at + [loop.induction_variable])
            scf.YieldOp([])
        if dim == first and whole != t.shape[dim] and tail is not None:
            tail(at, whole)

    nest(0, [])


def _copy_words(source: ir.Value, target: ir.Value, first: int) -> None:
    """Loops over the dimensions before `first`, and in each the run of
    dimensions from `first` on copied a word at a time, then its last
    bytes a halfword and a byte."""
    flat_source, flat_target = collapsed(source, first), collapsed(target, first)
    flat_type = ir.MemRefType(flat_source.type)
    index = ir.IndexType.get()

    def move(at: list[ir.Value], size: int) -> None:
        piece = ir.VectorType.get([size], flat_type.element_type)
        vector.store(vector.load(piece, flat_source, at), flat_target, at)

    def rest(at: list[ir.Value], start: int) -> None:
        while start < flat_type.shape[-1]:
            size = 2 if flat_type.shape[-1] - start >= 2 else 1
            move(at + [arith.constant(index, start)], size)
            start += size

    word_loops(flat_source, first, WORD, lambda at: move(at, WORD), rest)


def _is_byte(t: ir.MemRefType) -> bool:
    return isinstance(t.element_type, ir.IntegerType) and t.element_type.width == 8


@register
class LowerCopies(Pass):
    name = "tinyml-lower-copies"
    summary = "Rewrite memref.copy as loops: over words for contiguous bytes, else linalg.copy"
    options = (Option("words", bool, True,
                      "copy the runs of a strided copy a word at a time: for a core that loads "
                      "unaligned words (ARMv7-M); on ARMv6-M each would be four byte loads and "
                      "shifts (a whole contiguous copy goes by words anyway: LLVM makes that "
                      "loop a memcpy)"),)
    # The option's value, set by `Pass.__init__`.
    words: bool

    def apply(self, module):
        for func in functions(module):
            for copy in ops_named(func, "memref.copy"):
                source, target = copy.operands[0], copy.operands[1]
                source_type, target_type = ir.MemRefType(source.type), ir.MemRefType(target.type)
                first = max(contiguous_from(source_type), contiguous_from(target_type))
                run = int(np.prod(source_type.shape[first:])) if first < source_type.rank else 0
                with ir.InsertionPoint(copy), copy.location:
                    if _is_byte(source_type) and run and (
                        (first == 0 and run % WORD == 0) or (self.words and run >= WORD)):
                        _copy_words(source, target, first)
                    else:
                        linalg.copy(source, outs=[target])
                copy.erase()
