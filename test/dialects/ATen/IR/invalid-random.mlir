// RUN: kiln-opt %s -split-input-file -verify-diagnostics
// The verifier of aten.random.

func.func @state_shape(%s: tensor<3xi64>) -> tensor<4xf32> {
  // expected-error @+1 {{state must be a tensor<2xi64> [seed, offset], got 'tensor<3xi64>'}}
  %0 = aten.random %s, [4] {distribution = "uniform", stream = 0 : i64} : tensor<3xi64> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @distribution(%s: tensor<2xi64>) -> tensor<4xf32> {
  // expected-error @+1 {{distribution must be 'uniform' or 'normal', got 'poisson'}}
  %0 = aten.random %s, [4] {distribution = "poisson", stream = 0 : i64} : tensor<2xi64> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @stream(%s: tensor<2xi64>) -> tensor<4xf32> {
  // expected-error @+1 {{stream 65536 is outside [0, 65535]}}
  %0 = aten.random %s, [4] {distribution = "uniform", stream = 65536 : i64} : tensor<2xi64> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @sizes(%s: tensor<2xi64>) -> tensor<4x5xf32> {
  // expected-error @+1 {{has 1 sizes for a result of rank 2}}
  %0 = aten.random %s, [4] {distribution = "uniform", stream = 0 : i64} : tensor<2xi64> -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}
