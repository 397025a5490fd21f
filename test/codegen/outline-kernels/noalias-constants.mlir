// RUN: tinyml-opt %s --split-input-file --tinyml-outline-kernels='noalias-constants=true' \
// RUN:   | FileCheck %s
// RUN: tinyml-opt %s --split-input-file --tinyml-outline-kernels \
// RUN:   | FileCheck %s --check-prefix=DEFAULT

// With noalias-constants (ARMv6-M), a kernel argument that is a constant
// global (weights) is llvm.noalias: nothing writes it, so LLVM may keep its
// loads out of a loop that stores. The arena buffer it writes and a
// mutable global (a recurrent state) are not marked. Off by default.
// CHECK-LABEL: func.func private @model_kernel_0
// CHECK-SAME:    (%{{.*}}: memref<4xi8> {llvm.noalias}, %{{.*}}: memref<4xi8>, %{{.*}}: memref<4xi8>)
// DEFAULT-LABEL: func.func private @model_kernel_0
// DEFAULT-SAME:    (%{{.*}}: memref<4xi8>, %{{.*}}: memref<4xi8>, %{{.*}}: memref<4xi8>)
// DEFAULT-NOT:     llvm.noalias
memref.global "private" constant @weights : memref<4xi8> = dense<[1, 2, 3, 4]>
memref.global "private" @state : memref<4xi8> = dense<0>
func.func @model(%out: memref<4xi8>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  %w = memref.get_global @weights : memref<4xi8>
  %s = memref.get_global @state : memref<4xi8>
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %w[%i] : memref<4xi8>
    %y = memref.load %s[%i] : memref<4xi8>
    %z = arith.addi %x, %y : i8
    memref.store %z, %out[%i] : memref<4xi8>
  }
  return
}
