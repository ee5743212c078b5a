// RUN: kiln-opt %s -split-input-file -verify-diagnostics

// Verifier messages of the pooling ops added with the N-d pools
// (ATenPoolingOps.cpp); the first max_pool2d / adaptive_avg_pool2d cases are
// in invalid.mlir.

func.func @max_pool3d_rank(%x: tensor<4x8x8xf32>) {
  // expected-error @+1 {{'aten.max_pool3d' op expects a 5-d (NCDHW) or 4-d (CDHW) input, got rank 3}}
  %0 = aten.max_pool3d %x {kernel_size = array<i64: 2, 2, 2>, stride = array<i64: 2, 2, 2>, padding = array<i64: 0, 0, 0>, dilation = array<i64: 1, 1, 1>} : (tensor<4x8x8xf32>) -> tensor<2x4x4xf32>
  return
}

// -----

func.func @max_pool3d_kernel_entries(%x: tensor<1x1x4x8x8xf32>) {
  // expected-error @+1 {{'aten.max_pool3d_with_indices' op expects 'kernel_size' to have 3 entries, got 2}}
  %0:2 = aten.max_pool3d_with_indices %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2, 2>, padding = array<i64: 0, 0, 0>, dilation = array<i64: 1, 1, 1>} : (tensor<1x1x4x8x8xf32>) -> (tensor<1x1x2x4x4xf32>, tensor<1x1x2x4x4xi64>)
  return
}

// -----

func.func @max_pool3d_indices_shape(%x: tensor<1x1x4x8x8xf32>) {
  // expected-error @+1 {{'aten.max_pool3d_with_indices' op expects indices of the result's shape}}
  %0:2 = aten.max_pool3d_with_indices %x {kernel_size = array<i64: 2, 2, 2>, stride = array<i64: 2, 2, 2>, padding = array<i64: 0, 0, 0>, dilation = array<i64: 1, 1, 1>} : (tensor<1x1x4x8x8xf32>) -> (tensor<1x1x2x4x4xf32>, tensor<1x1x2x4x3xi64>)
  return
}

// -----

func.func @max_pool_bool(%x: tensor<1x1x4x4xi1>) {
  // expected-error @+1 {{'aten.max_pool2d' op expects a float or integer input, got 'i1'}}
  %0 = aten.max_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x1x4x4xi1>) -> tensor<1x1x2x2xi1>
  return
}

// -----

func.func @max_pool_window_too_big(%x: tensor<1x1x2x8xf32>) {
  // expected-error @+1 {{'aten.max_pool2d' op window of size 5 does not fit the padded input of size 4 along spatial dim 0}}
  %0 = aten.max_pool2d %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 2, 1>} : (tensor<1x1x2x8xf32>) -> tensor<1x1x1x8xf32>
  return
}

// -----

func.func @avg_pool_int32(%x: tensor<1x1x4x4xi32>) {
  // expected-error @+1 {{'aten.avg_pool2d' op expects a float or int64 input, got 'i32'}}
  %0 = aten.avg_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>} : (tensor<1x1x4x4xi32>) -> tensor<1x1x2x2xi32>
  return
}

// -----

func.func @avg_pool_divisor(%x: tensor<1x1x4x4xf32>) {
  // expected-error @+1 {{'aten.avg_pool2d' op expects a nonzero divisor_override}}
  %0 = aten.avg_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, divisor_override = 0 : i64} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
  return
}

// -----

func.func @avg_pool3d_shape(%x: tensor<1x1x5x5x5xf32>) {
  // ceil_mode keeps the partial last window: 3, not 2.
  // expected-error @+1 {{'aten.avg_pool3d' op result shape [1, 1, 2, 2, 2] does not match the inferred shape [1, 1, 3, 3, 3]}}
  %0 = aten.avg_pool3d %x {kernel_size = array<i64: 2, 2, 2>, stride = array<i64: 2, 2, 2>, padding = array<i64: 0, 0, 0>, ceil_mode = true} : (tensor<1x1x5x5x5xf32>) -> tensor<1x1x2x2x2xf32>
  return
}

// -----

func.func @adaptive3d_output_size(%x: tensor<1x1x4x4x4xf32>) {
  // expected-error @+1 {{'aten.adaptive_avg_pool3d' op expects 'output_size' to have 3 entries, got 2}}
  %0 = aten.adaptive_avg_pool3d %x {output_size = array<i64: 2, 2>} : (tensor<1x1x4x4x4xf32>) -> tensor<1x1x2x2x2xf32>
  return
}

// -----

func.func @avg_backward_rank(%g: tensor<1x2x2xf32>, %x: tensor<1x1x4x4xf32>) {
  // expected-error @+1 {{'aten.avg_pool2d_backward' op expects grad_output of self's rank}}
  %0 = aten.avg_pool2d_backward %g, %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>} : (tensor<1x2x2xf32>, tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  return
}

// -----

func.func @avg_backward_grad_shape(%g: tensor<1x1x3x2xf32>, %x: tensor<1x1x4x4xf32>) {
  // expected-error @+1 {{'aten.avg_pool2d_backward' op expects grad_output of the pooled shape [1, 1, 2, 2], got [1, 1, 3, 2]}}
  %0 = aten.avg_pool2d_backward %g, %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>} : (tensor<1x1x3x2xf32>, tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  return
}

// -----

func.func @avg_backward_self(%g: tensor<2x2xf32>, %x: tensor<4x4xf32>) {
  // expected-error @+1 {{'aten.avg_pool2d_backward' op expects a 4-d (NCHW) or 3-d (CHW) self, got rank 2}}
  %0 = aten.avg_pool2d_backward %g, %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>} : (tensor<2x2xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @avg_backward_divisor(%g: tensor<1x1x2x2xf32>, %x: tensor<1x1x4x4xf32>) {
  // expected-error @+1 {{'aten.avg_pool2d_backward' op expects a nonzero divisor_override}}
  %0 = aten.avg_pool2d_backward %g, %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, divisor_override = 0 : i64} : (tensor<1x1x2x2xf32>, tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  return
}
