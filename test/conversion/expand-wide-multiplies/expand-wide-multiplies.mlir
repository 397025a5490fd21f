// RUN: tinyml-opt --split-input-file --tinyml-expand-wide-multiplies %s | FileCheck %s

// The requantization's rounded high product, (a * b + 2^31) >> 32, is
// computed from the operands' 16-bit halves in 32 bits: four multiplies,
// no i64 left.
// CHECK-LABEL: func.func @rounded_high_product
// CHECK-SAME:    (%[[A:.*]]: i32, %[[B:.*]]: i32)
// CHECK-NOT:     i64
// CHECK:         %[[AL:.*]] = arith.andi %[[A]], %[[MASK:.*]] : i32
// CHECK:         %[[AH:.*]] = arith.shrsi %[[A]], %[[SIXTEEN:.*]] : i32
// CHECK:         %[[BL:.*]] = arith.andi %[[B]], %{{.*}} : i32
// CHECK:         %[[BH:.*]] = arith.shrsi %[[B]], %{{.*}} : i32
// CHECK:         %[[C1:.*]] = arith.muli %[[AH]], %[[BL]] : i32
// CHECK:         %[[C2:.*]] = arith.muli %[[AL]], %[[BH]] : i32
// CHECK:         %[[LOW:.*]] = arith.muli %[[AL]], %[[BL]] : i32
// CHECK:         arith.shrui %[[LOW]]
// CHECK:         arith.constant 32768 : i32
// CHECK:         %[[TOP:.*]] = arith.muli %[[AH]], %[[BH]] : i32
// CHECK:         %[[CARRY:.*]] = arith.shrui %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    %[[HIGH:.*]] = arith.addi %{{.*}}, %[[CARRY]] : i32
// CHECK-NEXT:    return %[[HIGH]] : i32
// CHECK-NOT:     i64
func.func @rounded_high_product(%a: i32, %b: i32) -> i32 {
  %wa = arith.extsi %a : i32 to i64
  %wb = arith.extsi %b : i32 to i64
  %product = arith.muli %wa, %wb : i64
  %half = arith.constant 2147483648 : i64
  %rounded = arith.addi %product, %half : i64
  %c32 = arith.constant 32 : i64
  %high = arith.shrsi %rounded, %c32 : i64
  %result = arith.trunci %high : i64 to i32
  return %result : i32
}

// -----

// A per-tensor multiplier is an i64 constant within int32: its i32 twin
// takes its place.
// CHECK-LABEL: func.func @constant_multiplier
// CHECK:         %[[M:.*]] = arith.constant 1717986944 : i32
// CHECK:         arith.andi %[[M]]
// CHECK-NOT:     arith.muli {{.*}} : i64
func.func @constant_multiplier(%a: i32) -> i32 {
  %wa = arith.extsi %a : i32 to i64
  %m = arith.constant 1717986944 : i64
  %product = arith.muli %wa, %m : i64
  %half = arith.constant 2147483648 : i64
  %rounded = arith.addi %product, %half : i64
  %c32 = arith.constant 32 : i64
  %high = arith.shrsi %rounded, %c32 : i64
  %result = arith.trunci %high : i64 to i32
  return %result : i32
}

// -----

// Any other product of extended i32 values (the general requantization's)
// is the full 64-bit product from 16-bit digits, rebuilt as an i64 from
// its low and high words; what reads it is unchanged.
// CHECK-LABEL: func.func @full_product
// CHECK-SAME:    (%[[A:.*]]: i32, %[[B:.*]]: i32)
// CHECK-COUNT-4: arith.muli {{.*}} : i32
// CHECK:         %[[LOW:.*]] = arith.ori {{.*}} : i32
// CHECK:         arith.subi {{.*}} : i32
// CHECK:         %[[HIGH:.*]] = arith.subi {{.*}} : i32
// CHECK-NEXT:    %[[WLOW:.*]] = arith.extui %[[LOW]] : i32 to i64
// CHECK:         %[[WHIGH:.*]] = arith.extsi %[[HIGH]] : i32 to i64
// CHECK:         %[[UP:.*]] = arith.shli %[[WHIGH]]
// CHECK:         %[[PRODUCT:.*]] = arith.ori %[[WLOW]], %[[UP]] : i64
// CHECK:         arith.shrsi %[[PRODUCT]], %{{.*}} : i64
// CHECK-NOT:     arith.muli {{.*}} : i64
func.func @full_product(%a: i32, %b: i32) -> i64 {
  %wa = arith.extsi %a : i32 to i64
  %wb = arith.extsi %b : i32 to i64
  %product = arith.muli %wa, %wb : i64
  %c31 = arith.constant 31 : i64
  %shifted = arith.shrsi %product, %c31 : i64
  return %shifted : i64
}

// -----

// A rounded high product whose product is also read elsewhere keeps that
// read: the full product serves both.
// CHECK-LABEL: func.func @product_read_twice
// CHECK-COUNT-4: arith.muli {{.*}} : i32
// CHECK:         %[[PRODUCT:.*]] = arith.ori {{.*}} : i64
// CHECK:         arith.addi %[[PRODUCT]]
// CHECK:         return {{.*}}, %[[PRODUCT]] : i32, i64
func.func @product_read_twice(%a: i32, %b: i32) -> (i32, i64) {
  %wa = arith.extsi %a : i32 to i64
  %wb = arith.extsi %b : i32 to i64
  %product = arith.muli %wa, %wb : i64
  %half = arith.constant 2147483648 : i64
  %rounded = arith.addi %product, %half : i64
  %c32 = arith.constant 32 : i64
  %high = arith.shrsi %rounded, %c32 : i64
  %result = arith.trunci %high : i64 to i32
  return %result, %product : i32, i64
}

// -----

// Not a product of 32-bit values: an i64 argument, or a constant beyond
// int32, may need all 64 bits of both operands. Left alone.
// CHECK-LABEL: func.func @wide_operands
// CHECK:         arith.muli %{{.*}}, %{{.*}} : i64
// CHECK:         arith.muli %{{.*}}, %{{.*}} : i64
// CHECK-NOT:     arith.muli {{.*}} : i32
func.func @wide_operands(%a: i32, %w: i64) -> (i64, i64) {
  %wa = arith.extsi %a : i32 to i64
  %p = arith.muli %wa, %w : i64
  %big = arith.constant 4294967296 : i64
  %q = arith.muli %wa, %big : i64
  return %p, %q : i64, i64
}

// -----

// Unsigned extensions are not what the rewrite assumes: left alone.
// CHECK-LABEL: func.func @unsigned_extensions
// CHECK:         arith.muli %{{.*}}, %{{.*}} : i64
func.func @unsigned_extensions(%a: i32, %b: i32) -> i64 {
  %wa = arith.extui %a : i32 to i64
  %wb = arith.extui %b : i32 to i64
  %p = arith.muli %wa, %wb : i64
  return %p : i64
}
