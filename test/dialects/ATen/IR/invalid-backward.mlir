// RUN: kiln-opt %s -split-input-file -verify-diagnostics

// One case per verifier message of the backward-formula ops (ATenBackwardOps.cpp).

func.func @grad_shape(%g: tensor<4x8xf32>, %x: tensor<4x9xf32>) {
  // expected-error @+1 {{'aten.threshold_backward' op expects grad_output of shape [4, 8] to match self of shape [4, 9]}}
  %0 = aten.threshold_backward %g, %x : (tensor<4x8xf32>, tensor<4x9xf32>) -> tensor<4x9xf32>
  return
}

// -----

func.func @approximate(%g: tensor<4xf32>, %x: tensor<4xf32>) {
  // expected-error @+1 {{'aten.gelu_backward' op expects approximate 'none' or 'tanh', got 'fast'}}
  %0 = aten.gelu_backward %g, %x {approximate = "fast"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @sum_to_size(%g: tensor<4x8xf32>) {
  // expected-error @+1 {{'aten.sum_to_size' op cannot sum 'tensor<4x8xf32>' to 'tensor<3xf32>'}}
  %0 = aten.sum_to_size %g : (tensor<4x8xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @conv_rank(%g: tensor<4x8xf32>, %x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'aten.convolution_backward' op expects 4-d (NCHW) grad_output, input and weight}}
  %0:3 = aten.convolution_backward %g, %x, %w {dilation = array<i64: 1, 1>, output_mask = array<i1: true, true, true>, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<4x8xf32>, tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>)
  return
}

// -----

func.func @conv_mask(%g: tensor<2x4x8x8xf32>, %x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'aten.convolution_backward' op expects 3 output_mask entries, got 2}}
  %0:3 = aten.convolution_backward %g, %x, %w {dilation = array<i64: 1, 1>, output_mask = array<i1: true, true>, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<2x4x8x8xf32>, tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>)
  return
}

// -----

func.func @conv_result(%g: tensor<2x4x8x8xf32>, %x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'aten.convolution_backward' op result shape [5] does not match the inferred shape [4]}}
  %0:3 = aten.convolution_backward %g, %x, %w {dilation = array<i64: 1, 1>, output_mask = array<i1: true, true, true>, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<2x4x8x8xf32>, tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<5xf32>)
  return
}

// -----

func.func @pool_rank(%g: tensor<4x4xf32>, %x: tensor<8x8xf32>, %i: tensor<4x4xi64>) {
  // expected-error @+1 {{'aten.max_pool2d_with_indices_backward' op expects a 4-d (NCHW) or 3-d (CHW) self, got rank 2}}
  %0 = aten.max_pool2d_with_indices_backward %g, %x, %i {dilation = array<i64: 1, 1>, kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : (tensor<4x4xf32>, tensor<8x8xf32>, tensor<4x4xi64>) -> tensor<8x8xf32>
  return
}

// -----

func.func @pool_indices(%g: tensor<1x4x4xf32>, %x: tensor<1x8x8xf32>, %i: tensor<1x4x3xi64>) {
  // expected-error @+1 {{'aten.max_pool2d_with_indices_backward' op expects grad_output and indices of one shape and self's rank}}
  %0 = aten.max_pool2d_with_indices_backward %g, %x, %i {dilation = array<i64: 1, 1>, kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x4x4xf32>, tensor<1x8x8xf32>, tensor<1x4x3xi64>) -> tensor<1x8x8xf32>
  return
}

// -----

func.func @adaptive_rank(%g: tensor<4x4xf32>, %x: tensor<8x8xf32>) {
  // expected-error @+1 {{'aten._adaptive_avg_pool2d_backward' op expects a 4-d (NCHW) or 3-d (CHW) self, got rank 2}}
  %0 = aten._adaptive_avg_pool2d_backward %g, %x : (tensor<4x4xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return
}

// -----

func.func @adaptive_grad_rank(%g: tensor<1x4x4xf32>, %x: tensor<2x1x8x8xf32>) {
  // expected-error @+1 {{'aten._adaptive_avg_pool2d_backward' op expects grad_output of self's rank}}
  %0 = aten._adaptive_avg_pool2d_backward %g, %x : (tensor<1x4x4xf32>, tensor<2x1x8x8xf32>) -> tensor<2x1x8x8xf32>
  return
}

// -----

func.func @bn_rank(%g: tensor<4xf32>, %x: tensor<4xf32>, %c: tensor<4xf32>) {
  // expected-error @+1 {{'aten.native_batch_norm_backward' op expects an input of rank >= 2, got 1}}
  %0:3 = aten.native_batch_norm_backward %g, %x mean %c var %c {eps = 1.0e-05 : f64, output_mask = array<i1: true, true, true>, train = false} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @bn_grad(%g: tensor<2x5xf32>, %x: tensor<2x4xf32>, %c: tensor<4xf32>) {
  // expected-error @+1 {{'aten.native_batch_norm_backward' op expects grad_out of shape [2, 5] to match input of shape [2, 4]}}
  %0:3 = aten.native_batch_norm_backward %g, %x mean %c var %c {eps = 1.0e-05 : f64, output_mask = array<i1: true, true, true>, train = false} : (tensor<2x5xf32>, tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @bn_channels(%g: tensor<2x4xf32>, %x: tensor<2x4xf32>, %c: tensor<3xf32>) {
  // expected-error @+1 {{'aten.native_batch_norm_backward' op expects per-channel operands of shape [4], got 'tensor<3xf32>'}}
  %0:3 = aten.native_batch_norm_backward %g, %x mean %c var %c {eps = 1.0e-05 : f64, output_mask = array<i1: true, true, true>, train = false} : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}
