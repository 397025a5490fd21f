; The few library routines LLVM's code generator may call from a tinyml
; model on a bare Cortex-M: memory set/copy (the AEABI names and the C
; names); the float functions exp and tanh are in runtime_float.ll, for
; targets with an FPU. Linked into every model object, weak, so that a
; program which has its own libc keeps its own.
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

attributes #0 = { nounwind "no-builtins" }
