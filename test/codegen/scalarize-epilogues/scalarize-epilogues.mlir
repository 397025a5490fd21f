// RUN: tinyml-opt %s --split-input-file --tinyml-scalarize-epilogues --canonicalize | FileCheck %s

// A 1 x 4 pointwise tile's requantization as the M0 lowers it: the
// accumulators, each channel's multiplier piece and shift read as vectors.
// Lane by lane: each lane reads its own piece and shift just before it
// uses them and computes its chain to the int8 result; then the next lane.
// CHECK-LABEL: func.func @requantize_four_channels
// CHECK-SAME:    (%[[ACC:.*]]: vector<4xi32>, %[[PIECE:.*]]: tensor<8xi16>, %[[SHIFT:.*]]: tensor<8xi8>, %[[C:.*]]: index)
// CHECK-DAG:     %[[C127:.*]] = arith.constant 127 : i32
// CHECK-DAG:     %[[CM128:.*]] = arith.constant -128 : i32
// CHECK:         %[[A0:.*]] = vector.extract %[[ACC]][0] : i32 from vector<4xi32>
// CHECK-NEXT:    %[[P0:.*]] = tensor.extract %[[PIECE]][%[[C]]] : tensor<8xi16>
// CHECK-NEXT:    %[[PW0:.*]] = arith.extui %[[P0]] : i16 to i32
// CHECK-NEXT:    %[[M0:.*]] = arith.muli %[[A0]], %[[PW0]] : i32
// CHECK-NEXT:    %[[S0:.*]] = tensor.extract %[[SHIFT]][%[[C]]] : tensor<8xi8>
// CHECK-NEXT:    %[[SW0:.*]] = arith.extsi %[[S0]] : i8 to i32
// CHECK-NEXT:    %[[R0:.*]] = arith.shrsi %[[M0]], %[[SW0]] : i32
// CHECK-NEXT:    %[[H0:.*]] = arith.maxsi %[[R0]], %[[CM128]] : i32
// CHECK-NEXT:    %[[L0:.*]] = arith.minsi %[[H0]], %[[C127]] : i32
// CHECK-NEXT:    %[[B0:.*]] = arith.trunci %[[L0]] : i32 to i8
// CHECK-NEXT:    %[[A1:.*]] = vector.extract %[[ACC]][1] : i32 from vector<4xi32>
// CHECK-NEXT:    %[[C1:.*]] = arith.addi %[[C]], %{{.*}} : index
// CHECK-NEXT:    tensor.extract %[[PIECE]][%[[C1]]] : tensor<8xi16>
// CHECK-COUNT-2: arith.trunci
// CHECK:         %[[B3:.*]] = arith.trunci %{{.*}} : i32 to i8
// CHECK-NEXT:    %[[OUT:.*]] = vector.from_elements %[[B0]], %{{.*}}, %{{.*}}, %[[B3]] : vector<4xi8>
// CHECK-NEXT:    return %[[OUT]] : vector<4xi8>
func.func @requantize_four_channels(%acc: vector<4xi32>, %piece: tensor<8xi16>, %shift: tensor<8xi8>,
                                    %c: index) -> vector<4xi8> {
  %c0_i16 = arith.constant 0 : i16
  %c0_i8 = arith.constant 0 : i8
  %low = arith.constant dense<-128> : vector<4xi32>
  %high = arith.constant dense<127> : vector<4xi32>
  %p = vector.transfer_read %piece[%c], %c0_i16 {in_bounds = [true]} : tensor<8xi16>, vector<4xi16>
  %s = vector.transfer_read %shift[%c], %c0_i8 {in_bounds = [true]} : tensor<8xi8>, vector<4xi8>
  %pw = arith.extui %p : vector<4xi16> to vector<4xi32>
  %sw = arith.extsi %s : vector<4xi8> to vector<4xi32>
  %m = arith.muli %acc, %pw : vector<4xi32>
  %r = arith.shrsi %m, %sw : vector<4xi32>
  %h = arith.maxsi %r, %low : vector<4xi32>
  %l = arith.minsi %h, %high : vector<4xi32>
  %b = arith.trunci %l : vector<4xi32> to vector<4xi8>
  return %b : vector<4xi8>
}

// -----

// A depthwise row of one channel: every lane reads the same piece and
// shift (broadcast). Lane by lane would keep them live across all lanes;
// op by op loads each once for all: not fired.
// CHECK-LABEL: func.func @requantize_one_channel_row
// CHECK:         arith.muli %{{.*}}, %{{.*}} : vector<5x1xi32>
// CHECK:         arith.shrsi %{{.*}}, %{{.*}} : vector<5x1xi32>
// CHECK-NOT:     vector.from_elements
func.func @requantize_one_channel_row(%acc: vector<5x1xi32>, %piece: tensor<8xi16>,
                                      %shift: tensor<8xi8>, %c: index) -> vector<5x1xi8> {
  %c0_i16 = arith.constant 0 : i16
  %c0_i8 = arith.constant 0 : i8
  %p = vector.transfer_read %piece[%c], %c0_i16 {in_bounds = [true]} : tensor<8xi16>, vector<1xi16>
  %s = vector.transfer_read %shift[%c], %c0_i8 {in_bounds = [true]} : tensor<8xi8>, vector<1xi8>
  %pb = vector.broadcast %p : vector<1xi16> to vector<5x1xi16>
  %sb = vector.broadcast %s : vector<1xi8> to vector<5x1xi8>
  %pw = arith.extui %pb : vector<5x1xi16> to vector<5x1xi32>
  %sw = arith.extsi %sb : vector<5x1xi8> to vector<5x1xi32>
  %m = arith.muli %acc, %pw : vector<5x1xi32>
  %r = arith.shrsi %m, %sw : vector<5x1xi32>
  %b = arith.trunci %r : vector<5x1xi32> to vector<5x1xi8>
  return %b : vector<5x1xi8>
}

// -----

// A row of vector multiply-accumulates: one input value broadcast across
// the channels' lanes, each lane its own weight. The broadcast value is
// shared by every lane: not fired.
// CHECK-LABEL: func.func @broadcast_input_row
// CHECK:         arith.muli %{{.*}}, %{{.*}} : vector<4xi32>
// CHECK:         arith.addi %{{.*}}, %{{.*}} : vector<4xi32>
// CHECK-NOT:     vector.from_elements
func.func @broadcast_input_row(%acc: vector<4xi32>, %x: i32, %w: tensor<8xi8>, %c: index)
    -> vector<4xi32> {
  %c0_i8 = arith.constant 0 : i8
  %xb = vector.broadcast %x : i32 to vector<4xi32>
  %wr = vector.transfer_read %w[%c], %c0_i8 {in_bounds = [true]} : tensor<8xi8>, vector<4xi8>
  %ww = arith.extsi %wr : vector<4xi8> to vector<4xi32>
  %p = arith.muli %xb, %ww : vector<4xi32>
  %s = arith.addi %acc, %p : vector<4xi32>
  return %s : vector<4xi32>
}

// -----

// A chain with no tensor read (its lanes differ only in the accumulator):
// lane by lane gains nothing over op by op; not fired.
// CHECK-LABEL: func.func @no_reads
// CHECK:         arith.shrsi %{{.*}}, %{{.*}} : vector<4xi32>
// CHECK:         arith.trunci %{{.*}} : vector<4xi32> to vector<4xi8>
// CHECK-NOT:     vector.from_elements
func.func @no_reads(%acc: vector<4xi32>) -> vector<4xi8> {
  %eight = arith.constant dense<8> : vector<4xi32>
  %r = arith.shrsi %acc, %eight : vector<4xi32>
  %b = arith.trunci %r : vector<4xi32> to vector<4xi8>
  return %b : vector<4xi8>
}

// -----

// An intermediate also used outside the chain (returned): it stays a
// vector op and the lanes extract its elements; the rest is scalarized.
// CHECK-LABEL: func.func @shared_intermediate
// CHECK:         %[[M:.*]] = arith.muli %{{.*}}, %{{.*}} : vector<4xi32>
// CHECK:         vector.extract %[[M]][0] : i32 from vector<4xi32>
// CHECK:         tensor.extract
// CHECK:         arith.shrsi %{{.*}}, %{{.*}} : i32
// CHECK:         vector.from_elements {{.*}} : vector<4xi32>
func.func @shared_intermediate(%acc: vector<4xi32>, %piece: vector<4xi32>, %shift: tensor<8xi8>,
                               %c: index) -> (vector<4xi32>, vector<4xi32>) {
  %c0_i8 = arith.constant 0 : i8
  %m = arith.muli %acc, %piece : vector<4xi32>
  %s = vector.transfer_read %shift[%c], %c0_i8 {in_bounds = [true]} : tensor<8xi8>, vector<4xi8>
  %sw = arith.extsi %s : vector<4xi8> to vector<4xi32>
  %r = arith.shrsi %m, %sw : vector<4xi32>
  %t = arith.addi %r, %acc : vector<4xi32>
  return %t, %m : vector<4xi32>, vector<4xi32>
}
