// Text on which the upstream parser would abort (an assertion in the wheels)
// is found before parsing and reported as an error at its place.
// RUN: tinyml-opt %s --split-input-file --verify-diagnostics
// RUN: not tinyml-opt %s --split-input-file 2>&1 | FileCheck %s

// CHECK: driver-parser-traps.mlir:[[# @LINE + 3]]:87: error: 'permutation' of linalg.transpose must be a list of integers such as [1, 0]
func.func @transpose_without_comma(%a: memref<2x3xf32>, %b: memref<3x2xf32>) {
  // expected-error @+1 {{'permutation' of linalg.transpose must be a list of integers such as [1, 0]}}
  linalg.transpose ins(%a : memref<2x3xf32>) outs(%b : memref<3x2xf32>) permutation = [1 0]
  return
}

// -----

// The custom form across lines, as upstream's own tests write it.
func.func @transpose_generic_array(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %t = linalg.transpose
      ins(%a : tensor<2x3xf32>)
      outs(%b : tensor<3x2xf32>)
      // expected-error @+1 {{'permutation' of linalg.transpose must be a list of integers}}
      permutation = array<i64: 1, 0>
  return %t : tensor<3x2xf32>
}

// -----

// The keyword before ins and outs: upstream parses each of them only when
// present, then the keyword.
func.func @transpose_keyword_first(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %t = linalg.transpose
      // expected-error @+1 {{'permutation' of linalg.transpose must be a list of integers}}
      permutation = array<i64: 1, -1>
      outs(%b : tensor<3x2xf32>)
      ins(%a : tensor<2x3xf32>)
  return %t : tensor<3x2xf32>
}

// -----

func.func @broadcast_too_large(%a: tensor<4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'dimensions' of linalg.broadcast has 18446744073709551616, which does not fit in 64 bits}}
  %r = linalg.broadcast ins(%a : tensor<4xf32>) outs(%b : tensor<4x4xf32>) dimensions = [18446744073709551616]
  return %r : tensor<4x4xf32>
}

// -----

func.func @reduce_trailing_comma(%a: tensor<4x8xf32>, %i: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'dimensions' of linalg.reduce must be a list of integers}}
  %r = linalg.reduce { arith.addf } ins(%a : tensor<4x8xf32>) outs(%i : tensor<4xf32>) dimensions = [1,]
  return %r : tensor<4xf32>
}

// -----

llvm.func @extract_beyond_32_bits(%s: !llvm.struct<(i32, i32)>) -> i32 {
  // expected-error @+1 {{position 4294967296 of llvm.extractvalue is out of range (positions are 32-bit, from 0 to 4294967295)}}
  %0 = llvm.extractvalue %s[4294967296] : !llvm.struct<(i32, i32)>
  llvm.return %0 : i32
}

// -----

llvm.func @insert_beyond_32_bits_generic(%s: !llvm.struct<(i32, i32)>, %v: i32) -> !llvm.struct<(i32, i32)> {
  // expected-error @+1 {{position 4294967297 of llvm.insertvalue is out of range}}
  %0 = "llvm.insertvalue"(%s, %v) <{position = array<i64: 4294967297>}> : (!llvm.struct<(i32, i32)>, i32) -> !llvm.struct<(i32, i32)>
  llvm.return %0 : !llvm.struct<(i32, i32)>
}

// -----

// CHECK: driver-parser-traps.mlir:[[# @LINE + 2]]:48: error: a dense array cannot hold 'index' elements; use i32 or i64
// expected-error @+1 {{a dense array cannot hold 'index' elements}}
func.func @index_dense_array() attributes {x = array<index: 1>} {
  return
}

// -----

// Well-formed uses, and the same text in comments and strings, are left to
// the parser: no error here. linalg.transpose ins(%a) outs(%b) permutation = [1 0]
func.func @well_formed(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>, %s: !llvm.struct<(i32, i32)>)
    -> (tensor<3x2xf32>, i32) attributes {note = "linalg.transpose ins(%a) outs(%b) permutation = [1 0]"} {
  %t = linalg.transpose ins(%a : tensor<2x3xf32>) outs(%b : tensor<3x2xf32>) permutation = [1, 0]
  %u = "linalg.transpose"(%a, %b) <{permutation = array<i64: 1, 0>}> ({
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }) : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %e = llvm.extractvalue %s[1] : !llvm.struct<(i32, i32)>
  return %t, %e : tensor<3x2xf32>, i32
}
