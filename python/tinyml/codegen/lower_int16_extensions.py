"""tinyml-lower-int16-extensions: the int16 extension of an int8 conv's
window (a `linalg.generic` marked `tinyml.widened`, see
tinyml-widen-conv-inputs) on a core with the DSP extension, a word at a
time: four bytes in one load, `SXTB16` of the word and of the word rotated
by 8 give bytes (0, 2) and (1, 3) as halfwords, and two packs (`PKHBT`,
`PKHTB`) reorder them into the halfword pairs (0, 1) and (2, 3), stored as
two words. Six instructions for four values, where the generic's loops are
a byte load and a halfword store per value, unrolled by LLVM into
kilobytes of code per layer.

The generic's innermost dimensions must be one contiguous run, in source
and target, a whole number of words long (a conv's input channels, steps
of whole words); it is loops over the dimensions before the run and,
inside, over its words. Any other is left to linalg's loops, but one
marked `tinyml.byte_pairs` (tinyml-contract-to-smlad): its words are the
byte-pair P and Q words of its input (`smlad_byte_pairs.input_words`),
which linalg's loops of its body would not compute, so this pass fails
on one it cannot lower."""
from typing import Callable

from mlir import ir
from mlir.dialects import arith, vector

from ..ir.lowering_config import BYTE_PAIRS, WIDENED
from ..ir.walk import ops_named
from ..pipeline.registry import Pass, PassError, register
from .contract_to_smlad import halfword_pairs, i32
from .smlad_byte_pairs import input_words
from .lower_copies import collapsed, contiguous_from, word_loops

#: int8 values per word.
WORD = 4
#: Words per iteration of the innermost loop, at most: its increment,
#: compare and branch once per 8 values (4 words measured ResNet-8 +0.5%,
#: register allocation in its line buffer's kernel; KWS -0.2%).
UNROLL = 2


def natural_pairs(word: ir.Value) -> tuple[ir.Value, ir.Value]:
    """Bytes (0, 1) and (2, 3) of `word`, each sign-extended to a halfword
    pair: `SXTB16` gives (0, 2) and (1, 3), `PKHBT` and `PKHTB` pair them
    in order."""
    even, odd = halfword_pairs(word)
    low_half, high_half = arith.constant(i32(), 0xFFFF), arith.constant(i32(), -0x10000)
    sixteen = arith.constant(i32(), 16)
    first = arith.ori(arith.andi(even, low_half), arith.shli(odd, sixteen))
    second = arith.ori(arith.shrui(even, sixteen), arith.andi(odd, high_half))
    return first, second


def extend_by_words(source: ir.Value, target: ir.Value, first: int,
                    pairs: Callable[[ir.Value], tuple[ir.Value, ir.Value]]) -> None:
    """Loops over the dimensions before `first` and, inside, the words of
    the run from `first` on (up to `UNROLL` an iteration), each made into
    two words of `target` by `pairs`."""
    flat_source, flat_target = collapsed(source, first), collapsed(target, first)
    t = ir.MemRefType(flat_source.type)
    index = ir.IndexType.get()
    bytes_type = ir.VectorType.get([WORD], t.element_type)
    word_type = ir.VectorType.get([1], i32())
    pairs_type = ir.VectorType.get([2], i32())
    halves_type = ir.VectorType.get([WORD], ir.IntegerType.get_signless(16))

    words = max(n for n in range(1, UNROLL + 1) if (t.shape[first] // WORD) % n == 0)

    def extend(at: list[ir.Value]) -> None:
        for k in range(words):
            position = at[:-1] + [arith.addi(at[-1], arith.constant(index, k * WORD))] \
                if k else at
            loaded = vector.load(bytes_type, flat_source, position)
            word = vector.extract(vector.bitcast(word_type, loaded), [], [0])
            made = vector.from_elements(pairs_type, list(pairs(word)))
            vector.store(vector.bitcast(halves_type, made), flat_target, position)

    word_loops(flat_source, first, words * WORD, extend)


@register
class LowerInt16Extensions(Pass):
    name = "tinyml-lower-int16-extensions"
    summary = ("Extend int8 conv windows to int16 a word at a time with SXTB16 and "
               "PKHBT/PKHTB (Cortex-M DSP extension)")

    def apply(self, module):
        for generic in ops_named(module, "linalg.generic"):
            if WIDENED not in generic.attributes:
                continue
            source, target = generic.operands[0], generic.operands[1]
            if not isinstance(source.type, ir.MemRefType):
                continue
            source_type, target_type = ir.MemRefType(source.type), ir.MemRefType(target.type)
            first = max(contiguous_from(source_type), contiguous_from(target_type))
            run = 1
            for size in source_type.shape[first:]:
                run *= size
            packs = BYTE_PAIRS in generic.attributes
            if first == source_type.rank or run % WORD or (packs and source_type.shape[-1] % WORD):
                if packs:
                    raise PassError(f"a byte-pair window ({source_type}) that is not a run of "
                                    "whole words", generic.location)
                continue
            with ir.InsertionPoint(generic), generic.location:
                extend_by_words(source, target, first, input_words if packs else natural_pairs)
            generic.erase()
