// RUN: kiln-opt %s -split-input-file -verify-diagnostics

// One case per verifier message of the aten reductions (ATenReductionOps.cpp).

func.func @dim_out_of_range(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{'aten.sum_dim_intlist' op dim 2 is out of range for a tensor of rank 2}}
  %0 = aten.sum_dim_intlist %x {dim = array<i64: 2>} : (tensor<4x5xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @dim_repeated(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{'aten.amax' op dim 1 appears more than once in the list of dims}}
  %0 = aten.amax %x {dim = array<i64: 1, -1>} : (tensor<4x5xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @sum_int_promotes(%x: tensor<4x5xi32>) {
  // expected-error @+1 {{'aten.sum_dim_intlist' op result element type 'i32' should be 'i64'}}
  %0 = aten.sum_dim_intlist %x {dim = array<i64: 1>} : (tensor<4x5xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @mean_of_int(%x: tensor<4x5xi64>) {
  // expected-error @+1 {{'aten.mean_dim' op of an integer or bool input needs a floating-point dtype}}
  %0 = aten.mean_dim %x : (tensor<4x5xi64>) -> tensor<f32>
  return
}

// -----

func.func @mean_int_dtype(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{'aten.mean_dim' op needs a floating-point result, got 'i64'}}
  %0 = aten.mean_dim %x {dtype = i64} : (tensor<4x5xf32>) -> tensor<i64>
  return
}

// -----

func.func @prod_two_dims(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{'aten.prod_dim_int' op reduces at most one dim, got 2}}
  %0 = aten.prod_dim_int %x {dim = array<i64: 0, 1>} : (tensor<4x5xf32>) -> tensor<f32>
  return
}

// -----

func.func @any_result(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{'aten.any_dims' op result element type 'f32' should be 'i1'}}
  %0 = aten.any_dims %x : (tensor<4x5xf32>) -> tensor<f32>
  return
}

// -----

func.func @logsumexp_int_result(%x: tensor<4x5xi64>) {
  // expected-error @+1 {{'aten.logsumexp' op needs a floating-point result, got 'i64'}}
  %0 = aten.logsumexp %x {dim = array<i64: 1>} : (tensor<4x5xi64>) -> tensor<4xi64>
  return
}

// -----

func.func @norm_of_int(%x: tensor<4x5xi64>) {
  // expected-error @+1 {{'aten.linalg_vector_norm' op needs a floating-point input, got 'i64'}}
  %0 = aten.linalg_vector_norm %x : (tensor<4x5xi64>) -> tensor<f32>
  return
}

// -----

func.func @var_of_int(%x: tensor<4x5xi64>) {
  // expected-error @+1 {{'aten.var_correction' op needs a floating-point input, got 'i64'}}
  %0 = aten.var_correction %x : (tensor<4x5xi64>) -> tensor<i64>
  return
}

// -----

func.func @var_keepdim_shape(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{'aten.var_mean_correction' op result rank 1 does not match the inferred rank 2}}
  %0:2 = aten.var_mean_correction %x {dim = array<i64: 1>, keepdim = true} : (tensor<4x5xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @max_dim_out_of_range(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{'aten.max_dim' op dim -3 is out of range for a tensor of rank 2}}
  %0:2 = aten.max_dim %x {dim = -3 : i64} : (tensor<4x5xf32>) -> (tensor<4xf32>, tensor<4xi64>)
  return
}

// -----

func.func @argmax_keepdim_all(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{'aten.argmax' op result rank 1 does not match the inferred rank 2}}
  %0 = aten.argmax %x {keepdim = true} : (tensor<4x5xf32>) -> tensor<1xi64>
  return
}

// -----

func.func @cumsum_bool(%x: tensor<4x5xi1>) {
  // expected-error @+1 {{'aten.cumsum' op result element type 'i1' should be 'i64'}}
  %0 = aten.cumsum %x {dim = 0 : i64} : (tensor<4x5xi1>) -> tensor<4x5xi1>
  return
}
