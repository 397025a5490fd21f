"""tinyml-lower-copies: `memref.copy` becomes a loop nest like every other
kernel. A copy into a strided view (a padded buffer, a concat slot) would
otherwise become a call to `memrefCopy`, a host runtime function that no
Cortex-M image has.

A copy of bytes (int8 data) whose source and target are each one
contiguous run, a whole number of words long, is a loop over words
(`vector<4xi8>` loads and stores, one `ldr`/`str` each where the core
allows unaligned words, split by LLVM where it does not): an in-place
group's band or a line buffer's row moves a word at a time, and LLVM does
not unroll the byte loop it would otherwise be into a kilobyte of code
(KWS int8's in-place pointwise band copy: 1,238 bytes of `ldrb`/`strb`).
Any other copy is `linalg.copy`."""
from mlir import ir
from mlir.dialects import arith, memref, scf, vector

from ..ir.lazy_modules import linalg
from ..ir.walk import functions, ops_named
from ..pipeline.registry import Pass, register

#: Bytes per load and store of a word copy.
WORD = 4


def _contiguous_elements(t: ir.MemRefType) -> int | None:
    """The elements of `t` if they are one contiguous run, else None."""
    if not t.has_static_shape:
        return None
    strides, _ = t.get_strides_and_offset()
    run = 1
    for size, stride in reversed(list(zip(t.shape, strides))):
        if size != 1 and stride != run:
            return None
        run *= size
    return run


def _flattened(value: ir.Value, elements: int) -> ir.Value:
    """The contiguous memref `value` as one dimension of `elements`."""
    t = ir.MemRefType(value.type)
    _, offset = t.get_strides_and_offset()
    # As memref.collapse_shape infers it: strided if the source is.
    layout = ir.StridedLayoutAttr.get(offset, [1]) \
        if isinstance(t.layout, ir.StridedLayoutAttr) else None
    flat = ir.MemRefType.get([elements], t.element_type, layout, t.memory_space)
    whole = ir.ArrayAttr.get([ir.ArrayAttr.get(
        [ir.IntegerAttr.get(ir.IntegerType.get_signless(64), d) for d in range(t.rank)])])
    return memref.CollapseShapeOp(flat, value, whole).result


def _copy_words(source: ir.Value, target: ir.Value, elements: int) -> None:
    flat_source, flat_target = _flattened(source, elements), _flattened(target, elements)
    index = ir.IndexType.get()
    word = ir.VectorType.get([WORD], ir.MemRefType(source.type).element_type)
    loop = scf.ForOp(arith.constant(index, 0), arith.constant(index, elements),
                     arith.constant(index, WORD))
    with ir.InsertionPoint(loop.body):
        at = loop.induction_variable
        vector.store(vector.load(word, flat_source, [at]), flat_target, [at])
        scf.YieldOp([])


def _is_byte(t: ir.MemRefType) -> bool:
    return isinstance(t.element_type, ir.IntegerType) and t.element_type.width == 8


@register
class LowerCopies(Pass):
    name = "tinyml-lower-copies"
    summary = "Rewrite memref.copy as loops: over words for contiguous bytes, else linalg.copy"

    def apply(self, module):
        for func in functions(module):
            for copy in ops_named(func, "memref.copy"):
                source, target = copy.operands[0], copy.operands[1]
                source_type, target_type = ir.MemRefType(source.type), ir.MemRefType(target.type)
                elements = _contiguous_elements(source_type)
                with ir.InsertionPoint(copy), copy.location:
                    if _is_byte(source_type) and elements is not None \
                            and elements % WORD == 0 \
                            and _contiguous_elements(target_type) == elements:
                        _copy_words(source, target, elements)
                    else:
                        linalg.copy(source, outs=[target])
                copy.erase()
