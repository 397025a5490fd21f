// Bad options are refused before anything runs.
// RUN: not tinyml-opt %s --tinyml-plan-memory=alignment=3 2>&1 | FileCheck %s --check-prefix=ALIGN3
// ALIGN3: tinyml-opt: error: option 'alignment' of pass 'tinyml-plan-memory' must be >= 4, got 3
// RUN: not tinyml-opt %s --tinyml-plan-memory=alignment=12 2>&1 | FileCheck %s --check-prefix=ALIGN12
// ALIGN12: tinyml-opt: error: option 'alignment' of pass 'tinyml-plan-memory' must be a power of two, got 12
// RUN: not tinyml-opt %s --tinyml-plan-memory=alignment=128 2>&1 | FileCheck %s --check-prefix=ALIGN128
// ALIGN128: tinyml-opt: error: option 'alignment' of pass 'tinyml-plan-memory' must be <= 64, got 128
// RUN: not tinyml-opt %s --tinyml-plan-memory=algorithm=fancy 2>&1 | FileCheck %s --check-prefix=ALGO
// ALGO: tinyml-opt: error: option 'algorithm' of pass 'tinyml-plan-memory' must be one of best, greedy-by-size, got 'fancy'
// RUN: not tinyml-opt %s --tinyml-plan-memory=inplace=maybe 2>&1 | FileCheck %s --check-prefix=INPLACE
// INPLACE: tinyml-opt: error: option 'inplace' of pass 'tinyml-plan-memory' expects bool, got 'maybe'

// Alignment 64: every offset and the arena are multiples of 64.
// RUN: tinyml-opt %s --tinyml-plan-memory='alignment=64 inplace=false' | FileCheck %s --check-prefix=A64
// A64-LABEL: func.func @odd_sizes
// A64-SAME:    memref<128xi8> {tinyml.arena}
// A64-SAME:    tinyml.arena_alignment = 64 : i64
// A64-SAME:    tinyml.arena_bytes = 128 : i64
// A64:         arith.constant 0 : index
// A64:         arith.constant 64 : index
// A64:         arith.constant 0 : index

// Alignment 4: 20-byte buffers pack tightly.
// RUN: tinyml-opt %s --tinyml-plan-memory='alignment=4 inplace=false' | FileCheck %s --check-prefix=A4
// A4-LABEL: func.func @odd_sizes
// A4-SAME:    memref<40xi8> {tinyml.arena}
// A4:         arith.constant 0 : index
// A4:         arith.constant 20 : index
// A4:         arith.constant 0 : index

#id = affine_map<(d0) -> (d0)>
func.func @odd_sizes(%in: memref<5xf32>, %out: memref<5xf32>) {
  %a = memref.alloc() : memref<5xf32>
  linalg.exp ins(%in : memref<5xf32>) outs(%a : memref<5xf32>)
  %b = memref.alloc() : memref<5xf32>
  linalg.exp ins(%a : memref<5xf32>) outs(%b : memref<5xf32>)
  %c = memref.alloc() : memref<5xf32>
  linalg.exp ins(%b : memref<5xf32>) outs(%c : memref<5xf32>)
  memref.copy %c, %out : memref<5xf32> to memref<5xf32>
  return
}
