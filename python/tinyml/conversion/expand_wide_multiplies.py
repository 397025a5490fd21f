"""tinyml-expand-wide-multiplies: 64-bit products of 32-bit values as
32-bit multiplies of their 16-bit halves, in line, for a core that has no
wider multiply.

ARMv6-M (Cortex-M0/M0+) has MULS, 32 x 32 -> the low 32 bits, and nothing
wider: LLVM makes an i64 `mul` a call to `__aeabi_lmul`, a 64 x 64-bit
product (runtime_armv6m.ll), for every requantized output. Two rewrites,
each exact for all operands:

- the rounded high product `(a * b + 2^31) >> 32` of the requantization's
  narrow form, with halves a = ah 2^16 + al and b = bh 2^16 + bl (al, bl
  unsigned, ah, bh signed: ARMv6-M's UXTH and ASRS):

      c1 = ah bl,  c2 = al bh              (each within int32)
      high = ah bh + (c1 >> 16) + (c2 >> 16)
             + (low16(c1) + low16(c2) + (al bl >>> 16) + 2^15) >>> 16

  since a b + 2^31 = (ah bh + (c1 >> 16) + (c2 >> 16)) 2^32 + (low16(c1) +
  low16(c2) + (al bl >>> 16) + 2^15) 2^16 + low16(al bl): no i64 left;
- any other product of sign-extended i32 values (TFLite's general
  MultiplyByQuantizedMultiplier, `tosa.apply_scale` lowered), as the
  schoolbook product of the bit patterns taken unsigned, made signed by
  subtracting 2^32 b where a < 0 and 2^32 a where b < 0, rebuilt as the
  i64 it was (LLVM keeps it as the register pair it is).

An operand may also be an i64 constant within int32 (a per-tensor
multiplier). Any other i64 product is left alone."""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith

from ..ir.values import constant_int, sole_user
from ..ir.walk import functions, ops_named
from ..pipeline.registry import Pass, register
from .linalg_builders import int_type

HALF = 1 << 31


def _like(value: int, t: ir.Type) -> ir.Value:
    """The integer `value` as a constant of type `t` (scalar or vector)."""
    if isinstance(t, ir.VectorType):
        splat = ir.DenseElementsAttr.get_splat(t, ir.IntegerAttr.get(t.element_type, value))
        return arith.constant(t, splat)
    return arith.constant(t, value)


def _narrow_type(t: ir.Type) -> ir.Type:
    i32 = int_type(32)
    return ir.VectorType.get(ir.VectorType(t).shape, i32) if isinstance(t, ir.VectorType) else i32


def _narrow_source(value: ir.Value, narrow: ir.Type) -> ir.Value | int | None:
    """What the i64 `value` was extended from: an i32 value, or a constant
    within int32; None if neither."""
    owner = value.owner
    if not isinstance(owner, ir.Block) and owner.operation.name == "arith.extsi" \
            and owner.operation.operands[0].type == narrow:
        return owner.operation.operands[0]
    constant = constant_int(value)
    return constant if constant is not None and -HALF <= constant < HALF else None


def _halves(a: ir.Value) -> tuple[ir.Value, ir.Value]:
    """(low 16 bits unsigned, high 16 bits signed) of the i32 `a`."""
    return arith.andi(a, _like(0xFFFF, a.type)), arith.shrsi(a, _like(16, a.type))


def rounded_high_product(a: ir.Value, b: ir.Value) -> ir.Value:
    """(a * b + 2^31) >> 32 of the i32 values `a` and `b`, in 32 bits."""
    t = a.type
    sixteen, mask = _like(16, t), _like(0xFFFF, t)
    (al, ah), (bl, bh) = _halves(a), _halves(b)
    c1, c2 = arith.muli(ah, bl), arith.muli(al, bh)
    middle = arith.addi(arith.addi(arith.andi(c1, mask), arith.andi(c2, mask)),
                        arith.addi(arith.shrui(arith.muli(al, bl), sixteen), _like(1 << 15, t)))
    high = arith.addi(arith.muli(ah, bh),
                      arith.addi(arith.shrsi(c1, sixteen), arith.shrsi(c2, sixteen)))
    return arith.addi(high, arith.shrui(middle, sixteen))


def signed_product(a: ir.Value, b: ir.Value) -> tuple[ir.Value, ir.Value]:
    """(low, high) words of the signed 64-bit product of the i32 values `a`
    and `b`, from 32-bit multiplies of 16-bit digits."""
    t = a.type
    sixteen, mask = _like(16, t), _like(0xFFFF, t)
    a0, a1 = arith.andi(a, mask), arith.shrui(a, sixteen)
    b0, b1 = arith.andi(b, mask), arith.shrui(b, sixteen)
    p00, p01 = arith.muli(a0, b0), arith.muli(a0, b1)
    p10, p11 = arith.muli(a1, b0), arith.muli(a1, b1)
    mid = arith.addi(arith.addi(arith.shrui(p00, sixteen), arith.andi(p01, mask)),
                     arith.andi(p10, mask))
    low = arith.ori(arith.andi(p00, mask), arith.shli(mid, sixteen))
    high = arith.addi(arith.addi(p11, arith.shrui(p01, sixteen)),
                      arith.addi(arith.shrui(p10, sixteen), arith.shrui(mid, sixteen)))
    thirty_one = _like(31, t)
    high = arith.subi(high, arith.andi(arith.shrsi(a, thirty_one), b))
    high = arith.subi(high, arith.andi(arith.shrsi(b, thirty_one), a))
    return low, high


def _rounded_high_of(multiply: ir.Operation) -> ir.Operation | None:
    """The `arith.trunci` to i32 of (`multiply` + 2^31) >> 32, each step
    the sole user of the one before; None if `multiply` does not feed one."""
    add = sole_user(multiply.results[0], "arith.addi")
    if add is None or HALF not in [constant_int(v) for v in add.operands]:
        return None
    shift = sole_user(add.results[0], "arith.shrsi")
    if shift is None or shift.operands[0] != add.results[0] \
            or constant_int(shift.operands[1]) != 32:
        return None
    return sole_user(shift.results[0], "arith.trunci")


def expand(multiply: ir.Operation) -> bool:
    """The rewrite on one `arith.muli`; whether it applied."""
    wide = multiply.results[0].type
    element = ir.VectorType(wide).element_type if isinstance(wide, ir.VectorType) else wide
    if not isinstance(element, ir.IntegerType) or element.width != 64:
        return False
    narrow = _narrow_type(wide)
    sources = [_narrow_source(operand, narrow) for operand in multiply.operands]
    if any(source is None for source in sources):
        return False
    truncation = _rounded_high_of(multiply)
    with ir.InsertionPoint(truncation or multiply), multiply.location:
        a, b = (_like(s, narrow) if isinstance(s, int) else s for s in sources)
        if truncation is not None and truncation.results[0].type == narrow:
            truncation.results[0].replace_all_uses_with(rounded_high_product(a, b))
            shift = truncation.operands[0].owner.operation
            add = shift.operands[0].owner.operation
            _erase_with_unused_operands([truncation, shift, add, multiply])
            return True
        low, high = signed_product(a, b)
        product = arith.ori(arith.extui(wide, low),
                            arith.shli(arith.extsi(wide, high), _like(32, wide)))
    multiply.results[0].replace_all_uses_with(product)
    _erase_with_unused_operands([multiply])
    return True


def _erase_with_unused_operands(chain: list[ir.Operation]) -> None:
    """Erases `chain` (each op used by the one before it, or by nothing),
    then the extensions and constants that only it read."""
    read = []
    for op in chain:
        read += [v.owner.operation for v in op.operands if not isinstance(v.owner, ir.Block)
                 and v.owner.operation.name in ("arith.extsi", "arith.constant")]
    for op in chain:
        op.erase()
    for op in dict.fromkeys(read):  # in order, once each
        if not list(op.results[0].uses):
            op.erase()


@register
class ExpandWideMultiplies(Pass):
    name = "tinyml-expand-wide-multiplies"
    summary = "Write 64-bit products of 32-bit values as 32-bit multiplies of 16-bit halves"

    def apply(self, module):
        for func in functions(module):
            for multiply in ops_named(func, "arith.muli"):
                expand(multiply)
