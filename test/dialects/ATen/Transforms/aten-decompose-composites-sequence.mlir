// RUN: kiln-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(aten-decompose-composites))' | FileCheck %s
// RUN: kiln-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(aten-decompose-composites{unroll-recurrent}))' | FileCheck %s --check-prefix=UNROLL

// The sequence-model composites of aten-decompose-composites
// (DecomposeSequenceOps.cpp), with symbolic dims.

// diff along a dynamic dim: x[1:] - x[:-1].
// CHECK-LABEL: func.func @diff_dynamic
// CHECK-SAME: (%[[X:.*]]: tensor<?x?xi64>)
// CHECK: %[[HI:.*]] = aten.slice_tensor %[[X]][1, 9223372036854775807] {dim = 1 : i64} : tensor<?x?xi64> -> tensor<?x?xi64>
// CHECK: %[[LO:.*]] = aten.slice_tensor %[[X]][0, -1] {dim = 1 : i64} : tensor<?x?xi64> -> tensor<?x?xi64>
// CHECK: %[[D:.*]] = aten.sub_tensor %[[HI]], %[[LO]]
// CHECK-NOT: aten.diff
// CHECK: return %[[D]]
func.func @diff_dynamic(%x: tensor<?x?xi64>) -> tensor<?x?xi64> {
  %0 = aten.diff %x {n = 1 : i64, dim = -1 : i64} : (tensor<?x?xi64>) -> tensor<?x?xi64>
  return %0 : tensor<?x?xi64>
}

// -----

// prepend is joined first; the second order differences the first; bool
// differences are !=.
// CHECK-LABEL: func.func @diff_prepend_bool
// CHECK: %[[CAT:.*]] = aten.cat %{{.*}}, %{{.*}} : (tensor<1x3xi1>, tensor<?x3xi1>) -> tensor<?x3xi1>
// CHECK: %[[N1:.*]] = aten.ne_tensor
// CHECK: %[[N2:.*]] = aten.ne_tensor
// CHECK: return %[[N2]] : tensor<?x3xi1>
func.func @diff_prepend_bool(%x: tensor<?x3xi1>, %p: tensor<1x3xi1>) -> tensor<?x3xi1> {
  %0 = aten.diff %x prepend %p {n = 2 : i64, dim = 0 : i64} : (tensor<?x3xi1>, tensor<1x3xi1>) -> tensor<?x3xi1>
  return %0 : tensor<?x3xi1>
}

// -----

// adaptive_avg_pool1d is 2-d adaptive pooling over a unit height.
// CHECK-LABEL: func.func @adaptive_avg_pool1d
// CHECK: %[[U:.*]] = aten.unsqueeze %{{.*}}, 2 : (tensor<?x8x?xf32>) -> tensor<?x8x1x?xf32>
// CHECK: %[[P:.*]] = aten.adaptive_avg_pool2d %[[U]] {output_size = array<i64: 1, 3>} : (tensor<?x8x1x?xf32>) -> tensor<?x8x1x3xf32>
// CHECK: %[[S:.*]] = aten.squeeze_dims %[[P]] {dims = array<i64: 2>} : (tensor<?x8x1x3xf32>) -> tensor<?x8x3xf32>
// CHECK: return %[[S]]
func.func @adaptive_avg_pool1d(%x: tensor<?x8x?xf32>) -> tensor<?x8x3xf32> {
  %0 = aten.adaptive_avg_pool1d %x {output_size = array<i64: 3>} : (tensor<?x8x?xf32>) -> tensor<?x8x3xf32>
  return %0 : tensor<?x8x3xf32>
}

// -----

// A one-layer LSTM over a dynamic batch: the input projection of every step
// is one linear before the loop; an scf.for over time carries h, c and the
// output sequence; the gates are slices of x_t W_ih^T + b_ih + h W_hh^T + b_hh.
// CHECK-LABEL: func.func @lstm
// CHECK: %[[H0:.*]] = aten.select_int %{{.*}}[0] {dim = 0 : i64} : tensor<1x?x4xf32> -> tensor<?x4xf32>
// CHECK: %[[XW:.*]] = aten.linear %{{.*}}, %{{.*}}, %{{.*}} : (tensor<5x?x3xf32>, tensor<16x3xf32>, tensor<16xf32>) -> tensor<5x?x16xf32>
// CHECK: %[[Z:.*]] = aten.full
// CHECK: %[[L:.*]]:3 = scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[H:.*]] = %[[H0]], %[[C:.*]] = %{{.*}}, %[[O:.*]] = %[[Z]])
// CHECK:   aten.select_int %[[XW]][%[[T]]] {dim = 0 : i64}
// CHECK:   aten.linear %[[H]]
// CHECK-COUNT-3: aten.sigmoid
// CHECK:   aten.select_scatter %[[O]]
// CHECK:   scf.yield
// CHECK: aten.unsqueeze %[[L]]#0
// CHECK: aten.unsqueeze %[[L]]#1
// CHECK: return %[[L]]#2
func.func @lstm(%x: tensor<5x?x3xf32>, %h0: tensor<1x?x4xf32>, %c0: tensor<1x?x4xf32>,
                %wih: tensor<16x3xf32>, %whh: tensor<16x4xf32>, %bih: tensor<16xf32>, %bhh: tensor<16xf32>)
    -> (tensor<5x?x4xf32>, tensor<1x?x4xf32>, tensor<1x?x4xf32>) {
  %0:3 = aten.lstm_input %x hx(%h0, %c0) params(%wih, %whh, %bih, %bhh) {has_biases = true, num_layers = 1 : i64, dropout = 0.0 : f64, train = false, bidirectional = false, batch_first = false} : (tensor<5x?x3xf32>, tensor<1x?x4xf32>, tensor<1x?x4xf32>, tensor<16x3xf32>, tensor<16x4xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<5x?x4xf32>, tensor<1x?x4xf32>, tensor<1x?x4xf32>)
  return %0#0, %0#1, %0#2 : tensor<5x?x4xf32>, tensor<1x?x4xf32>, tensor<1x?x4xf32>
}

// -----

// A bidirectional batch-first GRU without biases: the input is transposed to
// time-major, the reverse direction walks t = T - 1 - i, and both directions'
// sequences are joined on the feature dim and transposed back.
// CHECK-LABEL: func.func @gru_bidirectional
// CHECK: aten.permute %{{.*}} {dims = array<i64: 1, 0, 2>} : (tensor<?x?x3xf32>) -> tensor<?x?x3xf32>
// CHECK: scf.for
// CHECK: scf.for
// CHECK:   arith.subi
// CHECK: aten.cat %{{.*}}, %{{.*}} {dim = 2 : i64} : (tensor<?x?x4xf32>, tensor<?x?x4xf32>) -> tensor<?x?x8xf32>
// CHECK: aten.permute %{{.*}} {dims = array<i64: 1, 0, 2>} : (tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
// CHECK: aten.cat %{{.*}}, %{{.*}} : (tensor<1x?x4xf32>, tensor<1x?x4xf32>) -> tensor<2x?x4xf32>
func.func @gru_bidirectional(%x: tensor<?x?x3xf32>, %h0: tensor<2x?x4xf32>,
                             %w1: tensor<12x3xf32>, %u1: tensor<12x4xf32>, %w2: tensor<12x3xf32>, %u2: tensor<12x4xf32>)
    -> (tensor<?x?x8xf32>, tensor<2x?x4xf32>) {
  %0:2 = aten.gru_input %x hx(%h0) params(%w1, %u1, %w2, %u2) {has_biases = false, num_layers = 1 : i64, dropout = 0.0 : f64, train = false, bidirectional = true, batch_first = true} : (tensor<?x?x3xf32>, tensor<2x?x4xf32>, tensor<12x3xf32>, tensor<12x4xf32>, tensor<12x3xf32>, tensor<12x4xf32>) -> (tensor<?x?x8xf32>, tensor<2x?x4xf32>)
  return %0#0, %0#1 : tensor<?x?x8xf32>, tensor<2x?x4xf32>
}

// -----

// unroll-recurrent (what the differentiating entries use): a static number of
// steps becomes that many cells of plain aten ops, the reverse direction from
// the last step, each direction's outputs stacked in time order; a symbolic
// number of steps keeps its scf.for.
// UNROLL-LABEL: func.func @gru_unrolled
// UNROLL-NOT: scf.for
// UNROLL: %[[XW:.*]] = aten.linear %{{.*}} : (tensor<3x?x3xf32>, tensor<12x3xf32>, tensor<12xf32>) -> tensor<3x?x12xf32>
// UNROLL: aten.select_int %[[XW]][0] {dim = 0 : i64}
// UNROLL: aten.select_int %[[XW]][1] {dim = 0 : i64}
// UNROLL: aten.select_int %[[XW]][2] {dim = 0 : i64}
// UNROLL: aten.cat %{{.*}}, %{{.*}}, %{{.*}} : (tensor<1x?x4xf32>, tensor<1x?x4xf32>, tensor<1x?x4xf32>) -> tensor<3x?x4xf32>
// UNROLL: %[[XR:.*]] = aten.linear
// UNROLL: aten.select_int %[[XR]][2] {dim = 0 : i64}
// UNROLL: aten.select_int %[[XR]][1] {dim = 0 : i64}
// UNROLL: aten.select_int %[[XR]][0] {dim = 0 : i64}
// UNROLL-NOT: scf.for
// UNROLL: return
// UNROLL-LABEL: func.func @gru_symbolic_steps
// UNROLL: scf.for
func.func @gru_unrolled(%x: tensor<3x?x3xf32>, %h0: tensor<2x?x4xf32>,
                        %w1: tensor<12x3xf32>, %u1: tensor<12x4xf32>, %b1: tensor<12xf32>, %c1: tensor<12xf32>,
                        %w2: tensor<12x3xf32>, %u2: tensor<12x4xf32>, %b2: tensor<12xf32>, %c2: tensor<12xf32>)
    -> (tensor<3x?x8xf32>, tensor<2x?x4xf32>) {
  %0:2 = aten.gru_input %x hx(%h0) params(%w1, %u1, %b1, %c1, %w2, %u2, %b2, %c2) {has_biases = true, num_layers = 1 : i64, dropout = 0.0 : f64, train = false, bidirectional = true, batch_first = false} : (tensor<3x?x3xf32>, tensor<2x?x4xf32>, tensor<12x3xf32>, tensor<12x4xf32>, tensor<12xf32>, tensor<12xf32>, tensor<12x3xf32>, tensor<12x4xf32>, tensor<12xf32>, tensor<12xf32>) -> (tensor<3x?x8xf32>, tensor<2x?x4xf32>)
  return %0#0, %0#1 : tensor<3x?x8xf32>, tensor<2x?x4xf32>
}
func.func @gru_symbolic_steps(%x: tensor<?x2x3xf32>, %h0: tensor<1x2x4xf32>, %w1: tensor<12x3xf32>, %u1: tensor<12x4xf32>)
    -> (tensor<?x2x4xf32>, tensor<1x2x4xf32>) {
  %0:2 = aten.gru_input %x hx(%h0) params(%w1, %u1) {has_biases = false, num_layers = 1 : i64, dropout = 0.0 : f64, train = false, bidirectional = false, batch_first = false} : (tensor<?x2x3xf32>, tensor<1x2x4xf32>, tensor<12x3xf32>, tensor<12x4xf32>) -> (tensor<?x2x4xf32>, tensor<1x2x4xf32>)
  return %0#0, %0#1 : tensor<?x2x4xf32>, tensor<1x2x4xf32>
}

// -----

// A plain RNN (rnn_tanh.input): one gate block, h' = tanh(x W_ih^T + b_ih +
// h W_hh^T + b_hh) each step of the loop; rnn_relu.input the same with relu.
// CHECK-LABEL: func.func @rnn_tanh
// CHECK: aten.linear %{{.*}} : (tensor<5x?x3xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<5x?x4xf32>
// CHECK: scf.for
// CHECK:   aten.linear
// CHECK:   aten.add_tensor
// CHECK:   aten.tanh
// CHECK-NOT: aten.sigmoid
// CHECK:   scf.yield
// CHECK-LABEL: func.func @rnn_relu
// CHECK: scf.for
// CHECK:   aten.relu
// CHECK-NOT: aten.tanh
// CHECK:   scf.yield
func.func @rnn_tanh(%x: tensor<5x?x3xf32>, %h0: tensor<1x?x4xf32>, %w: tensor<4x3xf32>, %u: tensor<4x4xf32>,
                    %b: tensor<4xf32>, %c: tensor<4xf32>) -> (tensor<5x?x4xf32>, tensor<1x?x4xf32>) {
  %0:2 = aten.rnn_tanh_input %x hx(%h0) params(%w, %u, %b, %c) {has_biases = true, num_layers = 1 : i64, dropout = 0.0 : f64, train = false, bidirectional = false, batch_first = false} : (tensor<5x?x3xf32>, tensor<1x?x4xf32>, tensor<4x3xf32>, tensor<4x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<5x?x4xf32>, tensor<1x?x4xf32>)
  return %0#0, %0#1 : tensor<5x?x4xf32>, tensor<1x?x4xf32>
}
func.func @rnn_relu(%x: tensor<5x?x3xf32>, %h0: tensor<1x?x4xf32>, %w: tensor<4x3xf32>, %u: tensor<4x4xf32>)
    -> (tensor<5x?x4xf32>, tensor<1x?x4xf32>) {
  %0:2 = aten.rnn_relu_input %x hx(%h0) params(%w, %u) {has_biases = false, num_layers = 1 : i64, dropout = 0.0 : f64, train = false, bidirectional = false, batch_first = false} : (tensor<5x?x3xf32>, tensor<1x?x4xf32>, tensor<4x3xf32>, tensor<4x4xf32>) -> (tensor<5x?x4xf32>, tensor<1x?x4xf32>)
  return %0#0, %0#1 : tensor<5x?x4xf32>, tensor<1x?x4xf32>
}

// -----

// Cells: the gates of the input and of the state (two linears), then one
// step; an unbatched cell runs as a batch of one. lstm_cell returns (h', c').
// CHECK-LABEL: func.func @lstm_cell
// CHECK: %[[GX:.*]] = aten.linear %arg0, %arg3, %arg5 : (tensor<?x3xf32>, tensor<16x3xf32>, tensor<16xf32>) -> tensor<?x16xf32>
// CHECK: %[[GH:.*]] = aten.linear %arg1, %arg4, %arg6 : (tensor<?x4xf32>, tensor<16x4xf32>, tensor<16xf32>) -> tensor<?x16xf32>
// CHECK: aten.add_tensor %[[GX]], %[[GH]]
// CHECK-COUNT-3: aten.sigmoid
// CHECK-NOT: scf.for
// CHECK: return
// CHECK-LABEL: func.func @gru_cell_unbatched
// CHECK: aten.unsqueeze %arg0, 0 : (tensor<3xf32>) -> tensor<1x3xf32>
// CHECK: aten.unsqueeze %arg1, 0 : (tensor<4xf32>) -> tensor<1x4xf32>
// CHECK: aten.linear %{{.*}}, %arg2 : (tensor<1x3xf32>, tensor<12x3xf32>) -> tensor<1x12xf32>
// CHECK: aten.linear %{{.*}}, %arg3 : (tensor<1x4xf32>, tensor<12x4xf32>) -> tensor<1x12xf32>
// CHECK: %[[H:.*]] = aten.squeeze_dims %{{.*}} {dims = array<i64: 0>} : (tensor<1x4xf32>) -> tensor<4xf32>
// CHECK: return %[[H]]
// CHECK-LABEL: func.func @rnn_relu_cell
// CHECK: aten.relu
// CHECK-NOT: aten.tanh
func.func @lstm_cell(%x: tensor<?x3xf32>, %h: tensor<?x4xf32>, %c: tensor<?x4xf32>, %w: tensor<16x3xf32>,
                     %u: tensor<16x4xf32>, %b: tensor<16xf32>, %d: tensor<16xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>) {
  %0:2 = aten.lstm_cell %x hx(%h, %c) weights(%w, %u) biases(%b, %d) : (tensor<?x3xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<16x3xf32>, tensor<16x4xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>)
  return %0#0, %0#1 : tensor<?x4xf32>, tensor<?x4xf32>
}
func.func @gru_cell_unbatched(%x: tensor<3xf32>, %h: tensor<4xf32>, %w: tensor<12x3xf32>, %u: tensor<12x4xf32>) -> tensor<4xf32> {
  %0 = aten.gru_cell %x hx(%h) weights(%w, %u) biases() : (tensor<3xf32>, tensor<4xf32>, tensor<12x3xf32>, tensor<12x4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @rnn_relu_cell(%x: tensor<2x3xf32>, %h: tensor<2x4xf32>, %w: tensor<4x3xf32>, %u: tensor<4x4xf32>) -> tensor<2x4xf32> {
  %0 = aten.rnn_relu_cell %x hx(%h) weights(%w, %u) biases() : (tensor<2x3xf32>, tensor<2x4xf32>, tensor<4x3xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
