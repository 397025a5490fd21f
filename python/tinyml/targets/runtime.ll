; The few library routines LLVM's code generator may call from a tinyml
; model on a bare Cortex-M: memory set/copy (the AEABI names and the C
; names) and the float functions exp and tanh. Linked into every model
; object, weak, so that a program which has its own libc keeps its own.
; "no-builtins" stops the optimizer from turning these loops back into
; calls to themselves.

define weak ptr @memset(ptr %dst, i32 %value, i32 %n) #0 {
entry:
  %byte = trunc i32 %value to i8
  br label %check
check:
  %i = phi i32 [ 0, %entry ], [ %next, %body ]
  %more = icmp ult i32 %i, %n
  br i1 %more, label %body, label %done
body:
  %p = getelementptr inbounds i8, ptr %dst, i32 %i
  store i8 %byte, ptr %p, align 1
  %next = add nuw i32 %i, 1
  br label %check
done:
  ret ptr %dst
}

define weak ptr @memcpy(ptr %dst, ptr %src, i32 %n) #0 {
entry:
  br label %check
check:
  %i = phi i32 [ 0, %entry ], [ %next, %body ]
  %more = icmp ult i32 %i, %n
  br i1 %more, label %body, label %done
body:
  %s = getelementptr inbounds i8, ptr %src, i32 %i
  %d = getelementptr inbounds i8, ptr %dst, i32 %i
  %b = load i8, ptr %s, align 1
  store i8 %b, ptr %d, align 1
  %next = add nuw i32 %i, 1
  br label %check
done:
  ret ptr %dst
}

define weak ptr @memmove(ptr %dst, ptr %src, i32 %n) #0 {
entry:
  %dst.int = ptrtoint ptr %dst to i32
  %src.int = ptrtoint ptr %src to i32
  %forward = icmp ule i32 %dst.int, %src.int
  br i1 %forward, label %fwd, label %back.check
fwd:
  %r = call ptr @memcpy(ptr %dst, ptr %src, i32 %n)
  ret ptr %dst
back.check:
  %i = phi i32 [ %n, %entry ], [ %prev, %back.body ]
  %more = icmp ugt i32 %i, 0
  br i1 %more, label %back.body, label %done
back.body:
  %prev = sub nuw i32 %i, 1
  %s = getelementptr inbounds i8, ptr %src, i32 %prev
  %d = getelementptr inbounds i8, ptr %dst, i32 %prev
  %b = load i8, ptr %s, align 1
  store i8 %b, ptr %d, align 1
  br label %back.check
done:
  ret ptr %dst
}

; Word-aligned forms: a word loop, then the byte tail.
define weak void @__aeabi_memclr4(ptr %dst, i32 %n) #0 {
entry:
  %words = lshr i32 %n, 2
  br label %check
check:
  %i = phi i32 [ 0, %entry ], [ %next, %body ]
  %more = icmp ult i32 %i, %words
  br i1 %more, label %body, label %tail
body:
  %p = getelementptr inbounds i32, ptr %dst, i32 %i
  store i32 0, ptr %p, align 4
  %next = add nuw i32 %i, 1
  br label %check
tail:
  %done.bytes = shl i32 %words, 2
  %rest = sub i32 %n, %done.bytes
  %rest.dst = getelementptr inbounds i8, ptr %dst, i32 %done.bytes
  %r = call ptr @memset(ptr %rest.dst, i32 0, i32 %rest)
  ret void
}

define weak void @__aeabi_memclr8(ptr %dst, i32 %n) #0 {
  call void @__aeabi_memclr4(ptr %dst, i32 %n)
  ret void
}

define weak void @__aeabi_memclr(ptr %dst, i32 %n) #0 {
  %r = call ptr @memset(ptr %dst, i32 0, i32 %n)
  ret void
}

; AEABI memset takes (dest, n, c): note the order.
define weak void @__aeabi_memset(ptr %dst, i32 %n, i32 %c) #0 {
  %r = call ptr @memset(ptr %dst, i32 %c, i32 %n)
  ret void
}

define weak void @__aeabi_memset4(ptr %dst, i32 %n, i32 %c) #0 {
  %r = call ptr @memset(ptr %dst, i32 %c, i32 %n)
  ret void
}

define weak void @__aeabi_memset8(ptr %dst, i32 %n, i32 %c) #0 {
  %r = call ptr @memset(ptr %dst, i32 %c, i32 %n)
  ret void
}

define weak void @__aeabi_memcpy4(ptr %dst, ptr %src, i32 %n) #0 {
entry:
  %words = lshr i32 %n, 2
  br label %check
check:
  %i = phi i32 [ 0, %entry ], [ %next, %body ]
  %more = icmp ult i32 %i, %words
  br i1 %more, label %body, label %tail
body:
  %s = getelementptr inbounds i32, ptr %src, i32 %i
  %d = getelementptr inbounds i32, ptr %dst, i32 %i
  %w = load i32, ptr %s, align 4
  store i32 %w, ptr %d, align 4
  %next = add nuw i32 %i, 1
  br label %check
tail:
  %done.bytes = shl i32 %words, 2
  %rest = sub i32 %n, %done.bytes
  %rest.src = getelementptr inbounds i8, ptr %src, i32 %done.bytes
  %rest.dst = getelementptr inbounds i8, ptr %dst, i32 %done.bytes
  %r = call ptr @memcpy(ptr %rest.dst, ptr %rest.src, i32 %rest)
  ret void
}

define weak void @__aeabi_memcpy8(ptr %dst, ptr %src, i32 %n) #0 {
  call void @__aeabi_memcpy4(ptr %dst, ptr %src, i32 %n)
  ret void
}

define weak void @__aeabi_memcpy(ptr %dst, ptr %src, i32 %n) #0 {
  %r = call ptr @memcpy(ptr %dst, ptr %src, i32 %n)
  ret void
}

define weak void @__aeabi_memmove(ptr %dst, ptr %src, i32 %n) #0 {
  %r = call ptr @memmove(ptr %dst, ptr %src, i32 %n)
  ret void
}

define weak void @__aeabi_memmove4(ptr %dst, ptr %src, i32 %n) #0 {
  %r = call ptr @memmove(ptr %dst, ptr %src, i32 %n)
  ret void
}

define weak void @__aeabi_memmove8(ptr %dst, ptr %src, i32 %n) #0 {
  %r = call ptr @memmove(ptr %dst, ptr %src, i32 %n)
  ret void
}

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
