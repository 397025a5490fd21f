// RUN: tinyml-opt %s --split-input-file --tinyml-scalarize-multiply-accumulates --canonicalize \
// RUN:   | FileCheck %s

// A depthwise conv's tile as the M0 lowers it: a row of 5 pixels of one
// channel, one kernel row's 3 taps, each tap `acc += extsi(x[t:t+5]) *
// extsi(broadcast(w[t]))`. Scalarized pixel by pixel, each pixel's taps in
// turn: each product loads its input value just before its multiply, each
// tap's weight is loaded once (by the first pixel) and reused.
// CHECK-LABEL: func.func @depthwise_row
// CHECK-SAME:    (%[[ROW:.*]]: tensor<7x1xi8>, %[[W:.*]]: tensor<3x1xi8>, %[[ACC:.*]]: vector<5x1xi32>)
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK:         %[[S0:.*]] = vector.extract %[[ACC]][0, 0]
// CHECK:         %[[X0:.*]] = tensor.extract %[[ROW]][%[[C0]], %[[C0]]] : tensor<7x1xi8>
// CHECK-NEXT:    %[[XW0:.*]] = arith.extsi %[[X0]] : i8 to i32
// CHECK-NEXT:    %[[W0:.*]] = tensor.extract %[[W]][%[[C0]], %[[C0]]] : tensor<3x1xi8>
// CHECK-NEXT:    %[[WW0:.*]] = arith.extsi %[[W0]] : i8 to i32
// CHECK-NEXT:    %[[P0:.*]] = arith.muli %[[XW0]], %[[WW0]] : i32
// CHECK-NEXT:    %[[T0:.*]] = arith.addi %[[S0]], %[[P0]] : i32
// CHECK-NEXT:    tensor.extract %[[ROW]][%[[C1]], %[[C0]]]
// CHECK-NEXT:    arith.extsi
// CHECK-NEXT:    tensor.extract %[[W]][%[[C1]], %[[C0]]]
// CHECK-NEXT:    arith.extsi
// CHECK-NEXT:    arith.muli
// CHECK-NEXT:    %[[T1:.*]] = arith.addi %[[T0]], %{{.*}} : i32
// CHECK-NEXT:    tensor.extract %[[ROW]][%[[C2]], %[[C0]]]
// CHECK-NEXT:    arith.extsi
// CHECK-NEXT:    tensor.extract %[[W]][%[[C2]], %[[C0]]]
// CHECK-NEXT:    arith.extsi
// CHECK-NEXT:    arith.muli
// CHECK-NEXT:    arith.addi %[[T1]], %{{.*}} : i32
// CHECK-NEXT:    %[[X1:.*]] = tensor.extract %[[ROW]][%[[C1]], %[[C0]]]
// CHECK-NEXT:    %[[XW1:.*]] = arith.extsi %[[X1]] : i8 to i32
// CHECK-NEXT:    arith.muli %[[XW1]], %[[WW0]] : i32
// CHECK-COUNT-11: arith.muli %{{.*}}, %{{.*}} : i32
// CHECK-NOT:     arith.muli
// CHECK-NOT:     tensor.extract %[[W]]
// CHECK:         vector.from_elements {{.*}} : vector<5x1xi32>

func.func @depthwise_row(%row: tensor<7x1xi8>, %w: tensor<3x1xi8>, %acc: vector<5x1xi32>) -> vector<5x1xi32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i8
  %x = vector.transfer_read %row[%c0, %c0], %zero {in_bounds = [true, true]} : tensor<7x1xi8>, vector<7x1xi8>
  %ws = vector.transfer_read %w[%c0, %c0], %zero {in_bounds = [true, true]} : tensor<3x1xi8>, vector<3x1xi8>
  %x0 = vector.extract_strided_slice %x {offsets = [0, 0], sizes = [5, 1], strides = [1, 1]} : vector<7x1xi8> to vector<5x1xi8>
  %x1 = vector.extract_strided_slice %x {offsets = [1, 0], sizes = [5, 1], strides = [1, 1]} : vector<7x1xi8> to vector<5x1xi8>
  %x2 = vector.extract_strided_slice %x {offsets = [2, 0], sizes = [5, 1], strides = [1, 1]} : vector<7x1xi8> to vector<5x1xi8>
  %w0 = vector.extract %ws[0] : vector<1xi8> from vector<3x1xi8>
  %w1 = vector.extract %ws[1] : vector<1xi8> from vector<3x1xi8>
  %w2 = vector.extract %ws[2] : vector<1xi8> from vector<3x1xi8>
  %a0 = arith.extsi %x0 : vector<5x1xi8> to vector<5x1xi32>
  %b0 = vector.broadcast %w0 : vector<1xi8> to vector<5x1xi8>
  %e0 = arith.extsi %b0 : vector<5x1xi8> to vector<5x1xi32>
  %p0 = arith.muli %a0, %e0 : vector<5x1xi32>
  %s0 = arith.addi %p0, %acc : vector<5x1xi32>
  %a1 = arith.extsi %x1 : vector<5x1xi8> to vector<5x1xi32>
  %b1 = vector.broadcast %w1 : vector<1xi8> to vector<5x1xi8>
  %e1 = arith.extsi %b1 : vector<5x1xi8> to vector<5x1xi32>
  %p1 = arith.muli %a1, %e1 : vector<5x1xi32>
  %s1 = arith.addi %p1, %s0 : vector<5x1xi32>
  %a2 = arith.extsi %x2 : vector<5x1xi8> to vector<5x1xi32>
  %b2 = vector.broadcast %w2 : vector<1xi8> to vector<5x1xi8>
  %e2 = arith.extsi %b2 : vector<5x1xi8> to vector<5x1xi32>
  %p2 = arith.muli %a2, %e2 : vector<5x1xi32>
  %s2 = arith.addi %p2, %s1 : vector<5x1xi32>
  return %s2 : vector<5x1xi32>
}

// -----

// Not firing: a factor that is no read of a tensor (an argument vector)
// has no element to load where it is multiplied.
// CHECK-LABEL: func.func @factor_not_read
// CHECK-NOT:     tensor.extract
// CHECK:         arith.muli %{{.*}}, %{{.*}} : vector<5xi32>

func.func @factor_not_read(%row: tensor<5xi8>, %w: vector<5xi8>, %acc: vector<5xi32>) -> vector<5xi32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i8
  %x = vector.transfer_read %row[%c0], %zero {in_bounds = [true]} : tensor<5xi8>, vector<5xi8>
  %a = arith.extsi %x : vector<5xi8> to vector<5xi32>
  %b = arith.extsi %w : vector<5xi8> to vector<5xi32>
  %p = arith.muli %a, %b : vector<5xi32>
  %s = arith.addi %p, %acc : vector<5xi32>
  return %s : vector<5xi32>
}

// -----

// Not firing: int16 factors (a DSP core's widened window) are not int8.
// CHECK-LABEL: func.func @int16_factors
// CHECK-NOT:     tensor.extract
// CHECK:         arith.muli %{{.*}}, %{{.*}} : vector<5xi32>

func.func @int16_factors(%row: tensor<5xi16>, %w: tensor<5xi16>, %acc: vector<5xi32>) -> vector<5xi32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i16
  %x = vector.transfer_read %row[%c0], %zero {in_bounds = [true]} : tensor<5xi16>, vector<5xi16>
  %y = vector.transfer_read %w[%c0], %zero {in_bounds = [true]} : tensor<5xi16>, vector<5xi16>
  %a = arith.extsi %x : vector<5xi16> to vector<5xi32>
  %b = arith.extsi %y : vector<5xi16> to vector<5xi32>
  %p = arith.muli %a, %b : vector<5xi32>
  %s = arith.addi %p, %acc : vector<5xi32>
  return %s : vector<5xi32>
}
