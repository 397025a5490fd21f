// RUN: tinyml-opt %s --split-input-file --verify-diagnostics --tinyml-plan-memory

// Functions the planner cannot handle get one error naming the op, never a
// plan.

func.func @dynamic(%n: index, %out: memref<4xf32>) {
  // expected-error @+1 {{cannot plan memref.alloc with dynamic shape memref<?xf32>}}
  %a = memref.alloc(%n) : memref<?xf32>
  %c0 = arith.constant 0 : index
  %v = memref.load %a[%c0] : memref<?xf32>
  memref.store %v, %out[%c0] : memref<4xf32>
  return
}

// -----

func.func @in_loop(%out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    // expected-error @+1 {{cannot plan memref.alloc inside scf.for}}
    %a = memref.alloc() : memref<4xf32>
    linalg.copy ins(%out : memref<4xf32>) outs(%a : memref<4xf32>)
    memref.dealloc %a : memref<4xf32>
  }
  return
}

// -----

func.func @alloca_in_if(%c: i1, %out: memref<4xf32>) {
  scf.if %c {
    // expected-error @+1 {{cannot plan memref.alloca inside scf.if}}
    %a = memref.alloca() : memref<4xf32>
    linalg.copy ins(%out : memref<4xf32>) outs(%a : memref<4xf32>)
  }
  return
}

// -----

func.func @escapes(%in: memref<4xf32>) -> memref<4xf32> {
  // expected-error @+1 {{cannot plan memref.alloc: the buffer escapes through func.return}}
  %a = memref.alloc() : memref<4xf32>
  linalg.copy ins(%in : memref<4xf32>) outs(%a : memref<4xf32>)
  return %a : memref<4xf32>
}

// -----

func.func @escapes_through_view(%in: memref<4xf32>) -> memref<2x2xf32> {
  // expected-error @+1 {{escapes through func.return}}
  %a = memref.alloc() : memref<4xf32>
  linalg.copy ins(%in : memref<4xf32>) outs(%a : memref<4xf32>)
  %v = memref.expand_shape %a [[0, 1]] output_shape [2, 2] : memref<4xf32> into memref<2x2xf32>
  return %v : memref<2x2xf32>
}

// -----

func.func @index_elements(%out: memref<4xindex>) {
  // expected-error @+1 {{cannot plan memref.alloc of element type index: its size in memory is target-dependent}}
  %a = memref.alloc() : memref<4xindex>
  memref.copy %a, %out : memref<4xindex> to memref<4xindex>
  return
}

// -----

func.func @strided(%out: memref<4xf32>) {
  // expected-error @+1 {{cannot plan memref.alloc with layout strided<[2]>}}
  %a = memref.alloc() : memref<4xf32, strided<[2]>>
  memref.copy %a, %out : memref<4xf32, strided<[2]>> to memref<4xf32>
  return
}

// -----

// expected-error @+1 {{cannot plan @two_blocks: the function has 2 blocks}}
func.func @two_blocks(%in: memref<4xf32>, %out: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  cf.br ^next
^next:
  memref.copy %a, %out : memref<4xf32> to memref<4xf32>
  return
}

// -----

func.func @callee(%in: memref<4xf32>, %out: memref<4xf32>) {
  memref.copy %in, %out : memref<4xf32> to memref<4xf32>
  return
}

func.func private @caller(%in: memref<4xf32>, %out: memref<4xf32>) {
  // expected-error @+1 {{cannot plan @callee: it is called from this module and the call would miss the arena argument}}
  call @callee(%in, %out) : (memref<4xf32>, memref<4xf32>) -> ()
  return
}

// -----

// expected-error @+1 {{cannot plan @not_bufferized: it still takes or returns tensors (run one-shot bufferization first)}}
func.func @not_bufferized(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
