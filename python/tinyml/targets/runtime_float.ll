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

; tanh(x) = (e^2x - 1) / (e^2x + 1), saturated to +-1 where e^2x would not
; change the float result.
define weak float @tanhf(float %x) #0 {
  %big.hi = fcmp ogt float %x, 9.0
  %big.lo = fcmp olt float %x, -9.0
  %x2 = fmul float %x, 2.0
  %e = call float @expf(float %x2)
  %num = fsub float %e, 1.0
  %den = fadd float %e, 1.0
  %q = fdiv float %num, %den
  %s1 = select i1 %big.hi, float 1.0, float %q
  %s2 = select i1 %big.lo, float -1.0, float %s1
  ret float %s2
}

attributes #0 = { nounwind "no-builtins" }
