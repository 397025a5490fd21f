; The integer helpers of tinyml's Cortex-M runtime for ARMv6-M (Cortex-M0/M0+),
; which has no 32x32->64 multiply (MULS gives the low 32 bits only) and no
; divide instruction: LLVM calls __aeabi_lmul for an i64 `mul` (the high
; multiplies of requantization), __aeabi_llsl and __aeabi_lasr for i64
; shifts by a per-channel amount (its rounding), and __aeabi_idiv for an i32
; `sdiv` (average pooling). Each is built from 32-bit operations the core
; has, so that it cannot become a call to itself.

; The low 64 bits of a * b (the same for signed and unsigned).
define weak i64 @__aeabi_lmul(i64 %a, i64 %b) #0 {
  %a.lo = trunc i64 %a to i32
  %a.hi.64 = lshr i64 %a, 32
  %a.hi = trunc i64 %a.hi.64 to i32
  %b.lo = trunc i64 %b to i32
  %b.hi.64 = lshr i64 %b, 32
  %b.hi = trunc i64 %b.hi.64 to i32
  ; a.lo * b.lo in full, from 16-bit halves.
  %x0 = and i32 %a.lo, 65535
  %x1 = lshr i32 %a.lo, 16
  %y0 = and i32 %b.lo, 65535
  %y1 = lshr i32 %b.lo, 16
  %p00 = mul i32 %x0, %y0
  %p01 = mul i32 %x0, %y1
  %p10 = mul i32 %x1, %y0
  %p11 = mul i32 %x1, %y1
  %p00.hi = lshr i32 %p00, 16
  %p01.lo = and i32 %p01, 65535
  %p10.lo = and i32 %p10, 65535
  %mid.0 = add i32 %p00.hi, %p01.lo
  %mid = add i32 %mid.0, %p10.lo
  %p00.lo = and i32 %p00, 65535
  %mid.shl = shl i32 %mid, 16
  %lo = or i32 %p00.lo, %mid.shl
  %p01.hi = lshr i32 %p01, 16
  %p10.hi = lshr i32 %p10, 16
  %mid.hi = lshr i32 %mid, 16
  %hi.0 = add i32 %p11, %p01.hi
  %hi.1 = add i32 %hi.0, %p10.hi
  %hi.2 = add i32 %hi.1, %mid.hi
  ; The cross terms only reach the high word.
  %cross.0 = mul i32 %a.lo, %b.hi
  %cross.1 = mul i32 %a.hi, %b.lo
  %hi.3 = add i32 %hi.2, %cross.0
  %hi = add i32 %hi.3, %cross.1
  %lo.64 = zext i32 %lo to i64
  %hi.64 = zext i32 %hi to i64
  %hi.shl = shl i64 %hi.64, 32
  %r = or i64 %hi.shl, %lo.64
  ret i64 %r
}

; a << n, 0 <= n < 64.
define weak i64 @__aeabi_llsl(i64 %a, i32 %n) #0 {
  %lo = trunc i64 %a to i32
  %hi.64 = lshr i64 %a, 32
  %hi = trunc i64 %hi.64 to i32
  %k = and i32 %n, 31
  %big = icmp uge i32 %n, 32
  %lo.shl = shl i32 %lo, %k
  %hi.shl = shl i32 %hi, %k
  ; lo >> (32 - k), which is 0 for k = 0 (a shift by 32 would be poison).
  %lo.half = lshr i32 %lo, 1
  %back = sub i32 31, %k
  %carry = lshr i32 %lo.half, %back
  %hi.small = or i32 %hi.shl, %carry
  %hi.r = select i1 %big, i32 %lo.shl, i32 %hi.small
  %lo.r = select i1 %big, i32 0, i32 %lo.shl
  %lo.64 = zext i32 %lo.r to i64
  %hi.r.64 = zext i32 %hi.r to i64
  %hi.top = shl i64 %hi.r.64, 32
  %r = or i64 %hi.top, %lo.64
  ret i64 %r
}

; a >> n with the sign copied in, 0 <= n < 64.
define weak i64 @__aeabi_lasr(i64 %a, i32 %n) #0 {
  %lo = trunc i64 %a to i32
  %hi.64 = lshr i64 %a, 32
  %hi = trunc i64 %hi.64 to i32
  %k = and i32 %n, 31
  %big = icmp uge i32 %n, 32
  %hi.shr = ashr i32 %hi, %k
  %lo.shr = lshr i32 %lo, %k
  ; hi << (32 - k), which is 0 for k = 0.
  %hi.double = shl i32 %hi, 1
  %back = sub i32 31, %k
  %carry = shl i32 %hi.double, %back
  %lo.small = or i32 %lo.shr, %carry
  %sign = ashr i32 %hi, 31
  %lo.r = select i1 %big, i32 %hi.shr, i32 %lo.small
  %hi.r = select i1 %big, i32 %sign, i32 %hi.shr
  %lo.64 = zext i32 %lo.r to i64
  %hi.r.64 = zext i32 %hi.r to i64
  %hi.top = shl i64 %hi.r.64, 32
  %r = or i64 %hi.top, %lo.64
  ret i64 %r
}

; a / b, truncated towards zero (C's int division); b != 0.
define weak i32 @__aeabi_idiv(i32 %a, i32 %b) #0 {
entry:
  %a.neg = icmp slt i32 %a, 0
  %b.neg = icmp slt i32 %b, 0
  %a.minus = sub i32 0, %a
  %b.minus = sub i32 0, %b
  %n = select i1 %a.neg, i32 %a.minus, i32 %a
  %d = select i1 %b.neg, i32 %b.minus, i32 %b
  br label %loop

; Restoring division of the magnitudes, one quotient bit per step.
loop:
  %bit = phi i32 [ 31, %entry ], [ %bit.next, %next ]
  %q = phi i32 [ 0, %entry ], [ %q.next, %next ]
  %r = phi i32 [ 0, %entry ], [ %r.next, %next ]
  %r.shl = shl i32 %r, 1
  %n.bit.shifted = lshr i32 %n, %bit
  %n.bit = and i32 %n.bit.shifted, 1
  %r.in = or i32 %r.shl, %n.bit
  %fits = icmp uge i32 %r.in, %d
  %r.sub = sub i32 %r.in, %d
  %r.next = select i1 %fits, i32 %r.sub, i32 %r.in
  %q.bit = shl i32 1, %bit
  %q.set = or i32 %q, %q.bit
  %q.next = select i1 %fits, i32 %q.set, i32 %q
  %done = icmp eq i32 %bit, 0
  br i1 %done, label %exit, label %next

next:
  %bit.next = sub i32 %bit, 1
  br label %loop

exit:
  %negative = xor i1 %a.neg, %b.neg
  %q.minus = sub i32 0, %q.next
  %result = select i1 %negative, i32 %q.minus, i32 %q.next
  ret i32 %result
}

attributes #0 = { nounwind "no-builtins" }
