"""tinyml-approximate-math: `math.exp` and `math.tanh` on f32 as inline
arithmetic, where LLVM would call the C library's `expf` and `tanhf`.

A recurrent layer's gates take a sigmoid (1 / (1 + exp(-x))) or tanh of
every value every step: on a Cortex-M4 newlib's `expf` costs about 75
instructions a call and was 37-65% of an LSTM's instructions. Upstream
MLIR's polynomial approximations (mlir/lib/Dialect/Math/Transforms/
PolynomialApproximation.cpp) are not reachable from the Python bindings
(no pass, no C API), so the two this compiler needs are written here, with
the same published constants:

- exp: Cephes' `expf` (also upstream's and Eigen's): for x in the range
  whose result is a normal float, n = x log2(e) rounded to nearest (by
  adding and subtracting 1.5 * 2^23: FPv4 has no VRINT), r = x - n ln 2 in
  two parts (Cody-Waite), a degree-7 polynomial of r, scaled by 2^n built
  in the exponent bits: within 2 ulp of exp. Above the range it is +inf
  (from x = 88.38, where exp(x) is within 30% of the largest float), below
  it 0 (where exp(x) is a denormal): no sigmoid or softmax output tells
  these apart from the library's.
- tanh: the rational minimax approximation of Eigen's `ptanh_float`,
  upstream's TanhApproximation and XLA's (odd numerator of degree 13 over
  an even denominator of degree 6), x clamped to +-7.905 where tanh(x)
  rounds to +-1; below |x| = 0.0004, tanh(x) = x to float precision.

Inline, each costs some 150 bytes of code where the call costs a few, and
saves some 40 instructions a call: an op run fewer than `min-executions`
times an inference (a classifier's softmax over 12 classes) keeps the
call. Both differ from the C library in the last bits, as any two libms
do; the float models are checked against their references within 1e-5 of
the output's scale, as before."""
from __future__ import annotations

from typing import Callable

from mlir import ir
from mlir.dialects import arith

from ..ir.analysis import executions, iteration_points
from ..ir.walk import functions, ops_named
from ..pipeline.registry import Option, Pass, PassError, register

#: Where exp(x) is a normal float: 2^-126 and just below 2^128.
EXP_LOW, EXP_HIGH = -87.33654475, 88.3762626647949
LOG2_E = 1.44269504088896341
#: ln 2 in two parts: the first exact in few bits, so n * it is exact.
LN2_HIGH, LN2_LOW = 0.693359375, -2.12194440e-4
#: Adding and subtracting this rounds a float below 2^22 to an integer.
ROUNDER = 12582912.0
#: Cephes' expf polynomial: exp(r) = 1 + r + r^2 (c0 + c1 r + ... + c5 r^5).
EXP_COEFFICIENTS = (5.0000001201e-1, 1.6666665459e-1, 4.1665795894e-2, 8.3334519073e-3,
                    1.3981999507e-3, 1.9875691500e-4)

TANH_BOUND = 7.90531110763549805
TANH_LINEAR_BELOW = 0.0004
#: tanh(x) = x p(x^2) / q(x^2), coefficients from x^0 up.
TANH_NUMERATOR = (4.89352455891786e-03, 6.37261928875436e-04, 1.48572235717979e-05,
                  5.12229709037114e-08, -8.60467152213735e-11, 2.00018790482477e-13,
                  -2.76076847742355e-16)
TANH_DENOMINATOR = (4.89352518554385e-03, 2.26843463243900e-03, 1.18534705686654e-04,
                    1.19825839466702e-06)


def _constant(value: float, like: ir.Type) -> ir.Value:
    """`value` as a constant of `like`'s type (f32 or i32, scalar or vector)."""
    element = ir.VectorType(like).element_type if isinstance(like, ir.VectorType) else like
    attr = ir.FloatAttr.get(element, value) if isinstance(element, ir.F32Type) \
        else ir.IntegerAttr.get(element, int(value))
    if isinstance(like, ir.VectorType):
        return arith.constant(like, ir.DenseElementsAttr.get_splat(like, attr))
    return arith.constant(like, attr)


def _like(t: ir.Type, element: ir.Type) -> ir.Type:
    return ir.VectorType.get(ir.VectorType(t).shape, element) \
        if isinstance(t, ir.VectorType) else element


def _clamped(x: ir.Value, low: float, high: float) -> ir.Value:
    """x within [low, high]; a NaN stays NaN (unordered compares)."""
    above = arith.select(arith.cmpf(arith.CmpFPredicate.ULT, x, _constant(low, x.type)),
                         _constant(low, x.type), x)
    return arith.select(arith.cmpf(arith.CmpFPredicate.UGT, above, _constant(high, x.type)),
                        _constant(high, x.type), above)


def _polynomial(x: ir.Value, coefficients) -> ir.Value:
    """c0 + c1 x + c2 x^2 + ..., by Horner's rule."""
    result = _constant(coefficients[-1], x.type)
    for c in reversed(coefficients[:-1]):
        result = arith.addf(arith.mulf(result, x), _constant(c, x.type))
    return result


def approximate_exp(given: ir.Value) -> ir.Value:
    x = _clamped(given, EXP_LOW, EXP_HIGH)
    shifted = arith.addf(arith.mulf(x, _constant(LOG2_E, x.type)), _constant(ROUNDER, x.type))
    n = arith.subf(shifted, _constant(ROUNDER, x.type))
    r = arith.subf(arith.subf(x, arith.mulf(n, _constant(LN2_HIGH, x.type))),
                   arith.mulf(n, _constant(LN2_LOW, x.type)))
    r2 = arith.mulf(r, r)
    p = arith.addf(arith.addf(arith.mulf(_polynomial(r, EXP_COEFFICIENTS), r2), r),
                   _constant(1.0, x.type))
    i32 = _like(x.type, ir.IntegerType.get_signless(32))
    exponent = arith.shli(arith.addi(arith.fptosi(i32, n), _constant(127, i32)),
                          _constant(23, i32))
    value = arith.mulf(p, arith.bitcast(x.type, exponent))
    overflows = arith.cmpf(arith.CmpFPredicate.OGT, given, _constant(EXP_HIGH, x.type))
    underflows = arith.cmpf(arith.CmpFPredicate.OLT, given, _constant(EXP_LOW, x.type))
    value = arith.select(overflows, _constant(float("inf"), x.type), value)
    return arith.select(underflows, _constant(0.0, x.type), value)


def approximate_tanh(x: ir.Value) -> ir.Value:
    clamped = _clamped(x, -TANH_BOUND, TANH_BOUND)
    x2 = arith.mulf(clamped, clamped)
    ratio = arith.divf(arith.mulf(clamped, _polynomial(x2, TANH_NUMERATOR)),
                       _polynomial(x2, TANH_DENOMINATOR))
    magnitude = arith.select(arith.cmpf(arith.CmpFPredicate.OLT, x, _constant(0.0, x.type)),
                             arith.negf(x), x)
    small = arith.cmpf(arith.CmpFPredicate.OLT, magnitude,
                       _constant(TANH_LINEAR_BELOW, x.type))
    return arith.select(small, x, ratio)


APPROXIMATIONS: dict[str, Callable[[ir.Value], ir.Value]] = {
    "math.exp": approximate_exp, "math.tanh": approximate_tanh}


def _is_f32(t: ir.Type) -> bool:
    element = ir.VectorType(t).element_type if isinstance(t, ir.VectorType) else t
    return isinstance(element, ir.F32Type)


def _runs(op: ir.Operation) -> int:
    """How many times `op` runs an inference: once per point of the
    linalg.generic it is in, times the loops around."""
    parent = op.parent
    points = iteration_points(parent) if parent is not None \
        and parent.name == "linalg.generic" else 1
    return points * executions(op)


@register
class ApproximateMath(Pass):
    name = "tinyml-approximate-math"
    summary = "Compute f32 math.exp and math.tanh inline (Cephes exp, Eigen's rational tanh)"
    options = (Option("functions", str, "exp,tanh",
                      "the math ops to approximate, comma-separated: exp, tanh"),
               Option("min-executions", int, 64, "approximate an op only where it runs at "
                      "least this many times an inference (fewer keep the library call, "
                      "smaller)", low=0))

    def apply(self, module):
        wanted = {f"math.{name.strip()}" for name in self.functions.split(",") if name.strip()}
        unknown = wanted - set(APPROXIMATIONS)
        if unknown:
            raise PassError(f"option 'functions': no approximation of "
                            f"{', '.join(sorted(unknown))} (exp and tanh have one)")
        for func in functions(module):
            for name in sorted(wanted):
                for op in ops_named(func, name):
                    x = op.operands[0]
                    if not _is_f32(x.type) or _runs(op) < self.min_executions:
                        continue
                    with ir.InsertionPoint(op), op.location:
                        value = APPROXIMATIONS[name](x)
                    op.results[0].replace_all_uses_with(value)
                    op.erase()
