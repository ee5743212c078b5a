// RUN: kiln-opt %s -split-input-file -verify-diagnostics

// One case per verifier message of the aten normalisations (ATenNormalizationOps.cpp).

func.func @softmax_dim(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{'aten._softmax' op dim 2 is out of range for a tensor of rank 2}}
  %0 = aten._softmax %x {dim = 2 : i64} : (tensor<4x5xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @softmax_int_input(%x: tensor<4x5xi64>) {
  // expected-error @+1 {{'aten.softmax_int' op needs a floating-point input or dtype, got 'i64'}}
  %0 = aten.softmax_int %x {dim = 1 : i64} : (tensor<4x5xi64>) -> tensor<4x5xf32>
  return
}

// -----

func.func @softmax_half_to_float(%x: tensor<4x5xf16>) {
  // expected-error @+1 {{'aten._softmax' op result element type 'f16' does not match operand element type 'f32'}}
  %0 = aten._softmax %x {dim = 1 : i64, half_to_float = true} : (tensor<4x5xf16>) -> tensor<4x5xf16>
  return
}

// -----

func.func @layer_norm_empty(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{'aten.layer_norm' op expects a non-empty normalized_shape}}
  %0 = aten.layer_norm %x {normalized_shape = array<i64>} : (tensor<4x5xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @layer_norm_rank(%x: tensor<5xf32>) {
  // expected-error @+1 {{'aten.native_layer_norm' op normalized_shape [2, 5] has more dims than the input of rank 1}}
  %0:3 = aten.native_layer_norm %x {normalized_shape = array<i64: 2, 5>, eps = 1.0e-5 : f64} : (tensor<5xf32>) -> (tensor<5xf32>, tensor<1xf32>, tensor<1xf32>)
  return
}

// -----

func.func @layer_norm_mismatch(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{'aten.layer_norm' op normalized_shape [4] does not match the input's trailing dims [5]}}
  %0 = aten.layer_norm %x {normalized_shape = array<i64: 4>} : (tensor<4x5xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @layer_norm_weight(%x: tensor<4x5xf32>, %w: tensor<4xf32>) {
  // expected-error @+1 {{'aten.layer_norm' op expects weight and bias of shape [5], got 'tensor<4xf32>'}}
  %0 = aten.layer_norm %x weight %w {normalized_shape = array<i64: 5>} : (tensor<4x5xf32>, tensor<4xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @layer_norm_stats(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{'aten.native_layer_norm' op result rank 1 does not match the inferred rank 2}}
  %0:3 = aten.native_layer_norm %x {normalized_shape = array<i64: 5>, eps = 1.0e-5 : f64} : (tensor<4x5xf32>) -> (tensor<4x5xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @group_norm_rank(%x: tensor<6xf32>) {
  // expected-error @+1 {{'aten.group_norm' op expects an input of rank >= 2, got 1}}
  %0 = aten.group_norm %x {num_groups = 2 : i64} : (tensor<6xf32>) -> tensor<6xf32>
  return
}

// -----

func.func @group_norm_groups(%x: tensor<2x6xf32>) {
  // expected-error @+1 {{'aten.group_norm' op expects a positive number of groups, got 0}}
  %0 = aten.group_norm %x {num_groups = 0 : i64} : (tensor<2x6xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @group_norm_divisible(%x: tensor<2x6xf32>) {
  // expected-error @+1 {{'aten.native_group_norm' op expects the channel count 6 to be divisible by the number of groups 4}}
  %0:3 = aten.native_group_norm %x {group = 4 : i64, eps = 1.0e-5 : f64} : (tensor<2x6xf32>) -> (tensor<2x6xf32>, tensor<2x4xf32>, tensor<2x4xf32>)
  return
}

// -----

func.func @group_norm_weight(%x: tensor<2x6xf32>, %w: tensor<3xf32>) {
  // expected-error @+1 {{'aten.group_norm' op expects per-channel operands of shape [6], got 'tensor<3xf32>'}}
  %0 = aten.group_norm %x weight %w {num_groups = 3 : i64} : (tensor<2x6xf32>, tensor<3xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @rms_norm_weight(%x: tensor<4x5xf32>, %w: tensor<4xf32>) {
  // expected-error @+1 {{'aten.rms_norm' op expects weight and bias of shape [5], got 'tensor<4xf32>'}}
  %0 = aten.rms_norm %x weight %w {normalized_shape = array<i64: 5>} : (tensor<4x5xf32>, tensor<4xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @batch_norm_one_stat(%x: tensor<2x4xf32>, %c: tensor<4xf32>) {
  // expected-error @+1 {{'aten.batch_norm' op needs both running_mean and running_var or neither}}
  %0 = aten.batch_norm %x mean %c {training = true, momentum = 0.1 : f64, eps = 1.0e-5 : f64} : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @native_batch_norm_inference(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'aten.native_batch_norm' op in inference (training = false) needs running_mean and running_var}}
  %0:3 = aten.native_batch_norm %x {training = false, momentum = 0.1 : f64, eps = 1.0e-5 : f64} : (tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

func.func @native_batch_norm_stats(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'aten.native_batch_norm' op result shape [3] does not match the inferred shape [4]}}
  %0:3 = aten.native_batch_norm %x {training = true, momentum = 0.1 : f64, eps = 1.0e-5 : f64} : (tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<3xf32>, tensor<4xf32>)
  return
}

// -----

func.func @instance_norm_stats(%x: tensor<2x4x3xf32>) {
  // expected-error @+1 {{'aten.instance_norm' op without use_input_stats needs running_mean and running_var}}
  %0 = aten.instance_norm %x {use_input_stats = false, momentum = 0.1 : f64, eps = 1.0e-5 : f64} : (tensor<2x4x3xf32>) -> tensor<2x4x3xf32>
  return
}
