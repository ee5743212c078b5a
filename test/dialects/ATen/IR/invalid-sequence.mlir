// RUN: kiln-opt %s -split-input-file -verify-diagnostics

// Verifier errors of the sequence-model composites (ATenSequenceOps.cpp).

func.func @diff_rank0(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{expects a tensor of rank 1 or more}}
  %0 = aten.diff %x {n = 1 : i64, dim = -1 : i64} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @diff_negative_order(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{order must be non-negative, got -1}}
  %0 = aten.diff %x {n = -1 : i64, dim = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @diff_shape(%x: tensor<4x5xf32>) -> tensor<4x5xf32> {
  // expected-error @+1 {{'aten.diff' op}}
  %0 = aten.diff %x {n = 2 : i64, dim = 1 : i64} : (tensor<4x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

func.func @pool1d_rank(%x: tensor<2x3x4x5xf32>) -> tensor<2x3x4x2xf32> {
  // expected-error @+1 {{expects a 3-d (NCW) or 2-d (CW) input, got rank 4}}
  %0 = aten.adaptive_avg_pool1d %x {output_size = array<i64: 2>} : (tensor<2x3x4x5xf32>) -> tensor<2x3x4x2xf32>
  return %0 : tensor<2x3x4x2xf32>
}

// -----

func.func @lstm_params(%x: tensor<5x2x3xf32>, %h0: tensor<1x2x4xf32>, %c0: tensor<1x2x4xf32>,
                       %wih: tensor<16x3xf32>, %whh: tensor<16x4xf32>)
    -> (tensor<5x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>) {
  // expected-error @+1 {{expects 4 parameters, got 2}}
  %0:3 = aten.lstm_input %x hx(%h0, %c0) params(%wih, %whh) {has_biases = true, num_layers = 1 : i64, dropout = 0.0 : f64, train = false, bidirectional = false, batch_first = false} : (tensor<5x2x3xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>, tensor<16x3xf32>, tensor<16x4xf32>) -> (tensor<5x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  return %0#0, %0#1, %0#2 : tensor<5x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>
}

// -----

func.func @gru_gates(%x: tensor<5x2x3xf32>, %h0: tensor<1x2x4xf32>,
                     %wih: tensor<16x3xf32>, %whh: tensor<16x4xf32>) -> (tensor<5x2x4xf32>, tensor<1x2x4xf32>) {
  // expected-error @+1 {{expects w_hh of shape [3 * H, H]}}
  %0:2 = aten.gru_input %x hx(%h0) params(%wih, %whh) {has_biases = false, num_layers = 1 : i64, dropout = 0.0 : f64, train = false, bidirectional = false, batch_first = false} : (tensor<5x2x3xf32>, tensor<1x2x4xf32>, tensor<16x3xf32>, tensor<16x4xf32>) -> (tensor<5x2x4xf32>, tensor<1x2x4xf32>)
  return %0#0, %0#1 : tensor<5x2x4xf32>, tensor<1x2x4xf32>
}

// -----

func.func @cell_one_bias(%x: tensor<2x3xf32>, %h: tensor<2x4xf32>, %w: tensor<4x3xf32>, %u: tensor<4x4xf32>, %b: tensor<4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{expects no biases or two (b_ih, b_hh), got 1}}
  %0 = aten.rnn_tanh_cell %x hx(%h) weights(%w, %u) biases(%b) : (tensor<2x3xf32>, tensor<2x4xf32>, tensor<4x3xf32>, tensor<4x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @cell_gate_rows(%x: tensor<2x3xf32>, %h: tensor<2x4xf32>, %w: tensor<12x3xf32>, %u: tensor<8x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{expects w_hh of shape [3 * H, H]}}
  %0 = aten.gru_cell %x hx(%h) weights(%w, %u) biases() : (tensor<2x3xf32>, tensor<2x4xf32>, tensor<12x3xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @lstm_cell_states(%x: tensor<2x3xf32>, %h: tensor<2x4xf32>, %w: tensor<16x3xf32>, %u: tensor<16x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  // expected-error @+1 {{expects 2 states, got 1}}
  %0:2 = aten.lstm_cell %x hx(%h) weights(%w, %u) biases() : (tensor<2x3xf32>, tensor<2x4xf32>, tensor<16x3xf32>, tensor<16x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>)
  return %0#0, %0#1 : tensor<2x4xf32>, tensor<2x4xf32>
}
