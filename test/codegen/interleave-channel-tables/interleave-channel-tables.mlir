// RUN: tinyml-opt %s --split-input-file --tinyml-interleave-channel-tables --canonicalize \
// RUN:   | FileCheck %s

// A requantization's per-channel tables as the M0 reads them: a halfword
// piece and a shift byte (sign-extended), both at each lane's channel.
// They become the two columns of one table of halfwords (the shift
// sign-extended to 16 bits), read from one base; the old tables are gone.
// CHECK-LABEL: memref.global "private" constant @piece_interleaved : memref<4x2xi16> = dense<{{\[\[}}1000, -3], [2000, 5], [-3000, -1], [4000, 7]]>
// CHECK-NOT:   memref.global "private" constant @piece :
// CHECK-NOT:   memref.global "private" constant @shift :
// CHECK-LABEL: func.func @requantize
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK:         %[[T:.*]] = memref.get_global @piece_interleaved : memref<4x2xi16>
// CHECK:         scf.for %[[I:.*]] =
// CHECK:           %[[P:.*]] = memref.load %[[T]][%[[I]], %[[C0]]] : memref<4x2xi16>
// CHECK:           arith.extui %[[P]] : i16 to i32
// CHECK:           %[[S:.*]] = memref.load %[[T]][%[[I]], %[[C1]]] : memref<4x2xi16>
// CHECK:           arith.extsi %[[S]] : i16 to i32
memref.global "private" constant @piece : memref<4xi16> = dense<[1000, 2000, -3000, 4000]>
memref.global "private" constant @shift : memref<4xi8> = dense<[-3, 5, -1, 7]>
func.func @requantize(%acc: memref<4xi32>, %out: memref<4xi32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  %p = memref.get_global @piece : memref<4xi16>
  %s = memref.get_global @shift : memref<4xi8>
  scf.for %i = %c0 to %c4 step %c1 {
    %a = memref.load %acc[%i] : memref<4xi32>
    %pv = memref.load %p[%i] : memref<4xi16>
    %pw = arith.extui %pv : i16 to i32
    %m = arith.muli %a, %pw : i32
    %sv = memref.load %s[%i] : memref<4xi8>
    %sw = arith.extsi %sv : i8 to i32
    %r = arith.shrsi %m, %sw : i32
    memref.store %r, %out[%i] : memref<4xi32>
  }
  return
}

// -----

// Each lane computes its channel's index anew (two `arith.addi %i, %c1`):
// the same arithmetic of the same values is the same index.
// CHECK-LABEL: func.func @lane_indices
// CHECK:         %[[T:.*]] = memref.get_global @first_interleaved : memref<4x2xi16>
// CHECK:         memref.load %[[T]][%{{.*}}, %c0] : memref<4x2xi16>
// CHECK:         memref.load %[[T]][%{{.*}}, %c1] : memref<4x2xi16>
memref.global "private" constant @first : memref<4xi16> = dense<[1, 2, 3, 4]>
memref.global "private" constant @second : memref<4xi16> = dense<[5, 6, 7, 8]>
func.func @lane_indices(%out: memref<4xi16>) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c1 = arith.constant 1 : index
  %f = memref.get_global @first : memref<4xi16>
  %g = memref.get_global @second : memref<4xi16>
  scf.for %i = %c0 to %c3 step %c1 {
    %j = arith.addi %i, %c1 : index
    %x = memref.load %f[%j] : memref<4xi16>
    %k = arith.addi %i, %c1 : index
    %y = memref.load %g[%k] : memref<4xi16>
    %s = arith.addi %x, %y : i16
    memref.store %s, %out[%i] : memref<4xi16>
  }
  return
}

// -----

// An int8 table read zero-extended keeps its values zero-extended (200,
// not -56, in its column).
// CHECK-LABEL: memref.global "private" constant @low_interleaved : memref<2x2xi16> = dense<{{\[\[}}7, 200], [9, 1]]>
memref.global "private" constant @low : memref<2xi16> = dense<[7, 9]>
memref.global "private" constant @bytes : memref<2xi8> = dense<[-56, 1]>
func.func @zero_extended(%out: memref<2xi32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %l = memref.get_global @low : memref<2xi16>
  %b = memref.get_global @bytes : memref<2xi8>
  scf.for %i = %c0 to %c2 step %c1 {
    %lv = memref.load %l[%i] : memref<2xi16>
    %lw = arith.extsi %lv : i16 to i32
    %bv = memref.load %b[%i] : memref<2xi8>
    %bw = arith.extui %bv : i8 to i32
    %r = arith.addi %lw, %bw : i32
    memref.store %r, %out[%i] : memref<2xi32>
  }
  return
}

// -----

// Not firing: the tables are read at different indices (one at i, one at
// i + 1), and a third table is also read as a vector.
// CHECK-LABEL: func.func @not_interleaved
// CHECK-NOT:     _interleaved
// CHECK:         memref.load %{{.*}}[%{{.*}}] : memref<4xi16>
// CHECK:         memref.load %{{.*}}[%{{.*}}] : memref<4xi16>
memref.global "private" constant @a : memref<4xi16> = dense<[1, 2, 3, 4]>
memref.global "private" constant @b : memref<4xi16> = dense<[5, 6, 7, 8]>
memref.global "private" constant @c : memref<4xi16> = dense<[9, 10, 11, 12]>
func.func @not_interleaved(%out: memref<4xi16>) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c1 = arith.constant 1 : index
  %ga = memref.get_global @a : memref<4xi16>
  %gb = memref.get_global @b : memref<4xi16>
  %gc = memref.get_global @c : memref<4xi16>
  scf.for %i = %c0 to %c3 step %c1 {
    %j = arith.addi %i, %c1 : index
    %x = memref.load %ga[%i] : memref<4xi16>
    %y = memref.load %gb[%j] : memref<4xi16>
    %z = memref.load %gc[%i] : memref<4xi16>
    %v = vector.load %gc[%i] : memref<4xi16>, vector<1xi16>
    %e = vector.extract %v[0] : i16 from vector<1xi16>
    %s = arith.addi %x, %y : i16
    %t = arith.addi %s, %z : i16
    %u = arith.addi %t, %e : i16
    memref.store %u, %out[%i] : memref<4xi16>
  }
  return
}

// -----

// Not firing: an int8 table both sign- and zero-extended has no one
// 16-bit form.
// CHECK-LABEL: func.func @mixed_extensions
// CHECK-NOT:     _interleaved
memref.global "private" constant @h : memref<2xi16> = dense<[1, 2]>
memref.global "private" constant @m : memref<2xi8> = dense<[-1, 2]>
func.func @mixed_extensions(%out: memref<2xi32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %gh = memref.get_global @h : memref<2xi16>
  %gm = memref.get_global @m : memref<2xi8>
  scf.for %i = %c0 to %c2 step %c1 {
    %hv = memref.load %gh[%i] : memref<2xi16>
    %hw = arith.extsi %hv : i16 to i32
    %mv = memref.load %gm[%i] : memref<2xi8>
    %ms = arith.extsi %mv : i8 to i32
    %mu = arith.extui %mv : i8 to i32
    %r = arith.addi %hw, %ms : i32
    %q = arith.addi %r, %mu : i32
    memref.store %q, %out[%i] : memref<2xi32>
  }
  return
}
