// RUN: tinyml-opt %s --split-input-file --tinyml-lower-vectors --canonicalize | FileCheck %s

// A tile's contraction after bufferization: the outer products become one
// FMA per accumulator row, each a math.fma (llvm.fma: one VFMA.F32 per
// element on a Cortex-M4, where llc splits llvm.fmuladd into VMUL + VADD).
// CHECK-LABEL: func.func @contract
// CHECK-NOT:     vector.contract
// CHECK-NOT:     vector.outerproduct
// CHECK-NOT:     vector.fma
// CHECK-COUNT-4: math.fma {{.*}} : vector<4xf32>
// CHECK:         return
func.func @contract(%a: vector<2x2xf32>, %b: vector<2x4xf32>, %acc: vector<2x4xf32>) -> vector<2x4xf32> {
  %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                         affine_map<(m, n, k) -> (k, n)>,
                                         affine_map<(m, n, k) -> (m, n)>],
                        iterator_types = ["parallel", "parallel", "reduction"],
                        kind = #vector.kind<add>} %a, %b, %acc
      : vector<2x2xf32>, vector<2x4xf32> into vector<2x4xf32>
  return %r : vector<2x4xf32>
}

// -----

// A 1-D transfer on a memref becomes a vector load; nothing is left for
// the LLVM conversions but 1-D loads, stores and element-wise ops.
// CHECK-LABEL: func.func @transfer
// CHECK:         vector.load %arg0[%{{.*}}] : memref<8xf32>, vector<4xf32>
// CHECK:         vector.store {{.*}}, %arg1[%{{.*}}] : memref<8xf32>, vector<4xf32>
// CHECK-NOT:     vector.transfer
func.func @transfer(%src: memref<8xf32>, %dst: memref<8xf32>, %i: index) {
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %src[%i], %pad {in_bounds = [true]} : memref<8xf32>, vector<4xf32>
  vector.transfer_write %v, %dst[%i] {in_bounds = [true]} : vector<4xf32>, memref<8xf32>
  return
}
