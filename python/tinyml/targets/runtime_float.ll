; The float helpers of tinyml's Cortex-M runtime, linked for targets with an
; FPU only (a float model does not compile for one without).

; e^x for float (Cephes expf): x = n*ln2 + r with |r| <= ln2/2 (ln2 split
; in two for exactness), e^r by a degree-6 polynomial, 2^n by building the
; exponent bits. Inputs are clamped to the finite range of the result.
define weak float @expf(float %x) #0 {
  %lo.cmp = fcmp olt float %x, 0xC055D589E0000000
  %x.lo = select i1 %lo.cmp, float 0xC055D589E0000000, float %x
  %hi.cmp = fcmp ogt float %x.lo, 0x40561814A0000000
  %xc = select i1 %hi.cmp, float 0x40561814A0000000, float %x.lo
  %t = fmul float %xc, 0x3FF7154760000000
  %neg = fcmp olt float %t, 0.0
  %half = select i1 %neg, float -5.000000e-01, float 5.000000e-01
  %t.r = fadd float %t, %half
  %n = fptosi float %t.r to i32
  %nf = sitofp i32 %n to float
  %r.hi = fmul float %nf, 0x3FE6300000000000
  %r1 = fsub float %xc, %r.hi
  %r.lo = fmul float %nf, 0xBF2BD01060000000
  %r = fsub float %r1, %r.lo
  %p0 = fmul float %r, 0x3F2A0D2CE0000000
  %p1 = fadd float %p0, 0x3F56E879C0000000
  %p2 = fmul float %p1, %r
  %p3 = fadd float %p2, 0x3F81112100000000
  %p4 = fmul float %p3, %r
  %p5 = fadd float %p4, 0x3FA5553820000000
  %p6 = fmul float %p5, %r
  %p7 = fadd float %p6, 0x3FC5555540000000
  %p8 = fmul float %p7, %r
  %p9 = fadd float %p8, 0x3FE0000000000000
  %r2 = fmul float %r, %r
  %p10 = fmul float %p9, %r2
  %p11 = fadd float %p10, %r
  %p = fadd float %p11, 1.0
  %biased = add i32 %n, 127
  %bits = shl i32 %biased, 23
  %scale = bitcast i32 %bits to float
  %y = fmul float %p, %scale
  ret float %y
}

; tanh(x) by Eigen's rational minimax approximation (ptanh_float; also
; upstream MLIR's TanhApproximation and XLA's): x p(x^2) / q(x^2), x
; clamped to +-7.905 where tanh rounds to +-1, and x itself below
; |x| = 0.0004: within 3 ulp, and exact near 0, where (e^2x - 1) /
; (e^2x + 1) loses the relative precision; no call to expf.
define weak float @tanhf(float %x) #0 {
  %lo.cmp = fcmp olt float %x, 0xC01F9F09E0000000
  %x.lo = select i1 %lo.cmp, float 0xC01F9F09E0000000, float %x
  %hi.cmp = fcmp ogt float %x.lo, 0x401F9F09E0000000
  %xc = select i1 %hi.cmp, float 0x401F9F09E0000000, float %x.lo
  %x2 = fmul float %xc, %xc
  %p0.m = fmul float %x2, 0xBCB3E4B800000000
  %p0 = fadd float %p0.m, 0x3D4C266FC0000000
  %p1.m = fmul float %p0, %x2
  %p1 = fadd float %p1.m, 0xBDD7A6FFE0000000
  %p2.m = fmul float %p1, %x2
  %p2 = fadd float %p2.m, 0x3E6B800820000000
  %p3.m = fmul float %p2, %x2
  %p3 = fadd float %p3.m, 0x3EEF286940000000
  %p4.m = fmul float %p3, %x2
  %p4 = fadd float %p4.m, 0x3F44E1BDA0000000
  %p5.m = fmul float %p4, %x2
  %p5 = fadd float %p5.m, 0x3F740B3B80000000
  %num = fmul float %p5, %xc
  %q0.m = fmul float %x2, 0x3EB41A7B00000000
  %q0 = fadd float %q0.m, 0x3F1F12BAC0000000
  %q1.m = fmul float %q0, %x2
  %q1 = fadd float %q1.m, 0x3F629540A0000000
  %q2.m = fmul float %q1, %x2
  %q2 = fadd float %q2.m, 0x3F740B3BA0000000
  %ratio = fdiv float %num, %q2
  %abs = call float @llvm.fabs.f32(float %x)
  %small = fcmp olt float %abs, 0x3F3A36E2E0000000
  %y = select i1 %small, float %x, float %ratio
  ret float %y
}

declare float @llvm.fabs.f32(float)

attributes #0 = { nounwind "no-builtins" }
