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
