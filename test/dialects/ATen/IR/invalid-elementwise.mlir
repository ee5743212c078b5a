// RUN: kiln-opt %s -split-input-file -verify-diagnostics

// One case per verifier message of the elementwise and creation ops
// (ATenElementwiseOps.cpp, ATenCreationOps.cpp).

func.func @binary_no_broadcast(%a: tensor<4x3xf32>, %b: tensor<4xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'aten.add_tensor' op operand shapes [4, 3] and [4] do not broadcast}}
  %0 = aten.add_tensor %a, %b : (tensor<4x3xf32>, tensor<4xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @binary_bad_result_shape(%a: tensor<4x3xf32>, %b: tensor<3xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'aten.add_tensor' op result shape [4, 4] does not match the inferred shape [4, 3]}}
  %0 = aten.add_tensor %a, %b : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @operand_not_dtype(%a: tensor<4xindex>, %b: tensor<4xi64>) -> tensor<4xi64> {
  // expected-error @+1 {{'aten.mul_tensor' op operand #0 has element type 'index', which is no ATen dtype}}
  %0 = aten.mul_tensor %a, %b : (tensor<4xindex>, tensor<4xi64>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

func.func @result_not_dtype(%a: tensor<4xi64>) -> tensor<4xindex> {
  // expected-error @+1 {{'aten.abs' op result element type 'index' is no ATen dtype}}
  %0 = aten.abs %a : (tensor<4xi64>) -> tensor<4xindex>
  return %0 : tensor<4xindex>
}

// -----

func.func @no_bool(%a: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'aten.neg' op is not defined for bool operands, got bool}}
  %0 = aten.neg %a : (tensor<4xi1>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @float_only(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'aten.silu' op needs float operands, got int32}}
  %0 = aten.silu %a : (tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @integral_only(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'aten.bitwise_not' op needs integer or bool operands, got float32}}
  %0 = aten.bitwise_not %a : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @int_only(%a: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'aten.bitwise_left_shift_tensor' op needs integer operands, got bool}}
  %0 = aten.bitwise_left_shift_tensor %a, %a : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @int_to_float(%a: tensor<4xi64>, %b: tensor<4xi64>) -> tensor<4xi64> {
  // expected-error @+1 {{'aten.div_tensor' op result dtype int64 must be a float: int64 operands compute in floating point}}
  %0 = aten.div_tensor %a, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

func.func @compare_not_bool(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'aten.lt_tensor' op result dtype float32 must be bool}}
  %0 = aten.lt_tensor %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A 0-d operand does not raise the dtype of a dimensioned one of its category.
func.func @promotion(%a: tensor<4xf16>, %s: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+1 {{'aten.add_tensor' op result dtype float32 does not match the promoted operand dtype float16}}
  %0 = aten.add_tensor %a, %s : (tensor<4xf16>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @keep_self(%a: tensor<4xf16>, %v: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+1 {{'aten.fill_tensor' op result dtype float32 does not match the dtype of self, float16}}
  %0 = aten.fill_tensor %a, %v : (tensor<4xf16>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @gelu_approximate(%x: tensor<4xf32>) {
  // expected-error @+1 {{'aten.gelu' op expects approximate to be 'none' or 'tanh', got 'sigmoid'}}
  %0 = aten.gelu %x {approximate = "sigmoid"} : tensor<4xf32>
  return
}

// -----

func.func @where_condition(%c: tensor<4xf32>, %a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'aten.where_self' op condition must be bool or uint8, got 'f32'}}
  %0 = aten.where_self %c, %a, %a : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @masked_fill_mask(%a: tensor<4xf32>, %m: tensor<4xi8>, %v: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+1 {{'aten.masked_fill_tensor' op mask must be bool, got 'i8'}}
  %0 = aten.masked_fill_tensor %a, %m, %v : (tensor<4xf32>, tensor<4xi8>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @masked_fill_value(%a: tensor<4xf32>, %m: tensor<4xi1>) -> tensor<4xf32> {
  // expected-error @+1 {{'aten.masked_fill_tensor' op value must be a 0-d tensor, got rank 1}}
  %0 = aten.masked_fill_tensor %a, %m, %a : (tensor<4xf32>, tensor<4xi1>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @clamp_no_bound(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'aten.clamp_tensor' op needs at least one of min and max}}
  %0 = aten.clamp_tensor %a : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @to_copy_shape(%a: tensor<4xf32>) -> tensor<5xi32> {
  // expected-error @+1 {{'aten._to_copy' op result shape [5] does not match the inferred shape [4]}}
  %0 = aten._to_copy %a : (tensor<4xf32>) -> tensor<5xi32>
  return %0 : tensor<5xi32>
}

// -----

func.func @to_copy_dtype(%a: tensor<4xf32>) -> tensor<4xui16> {
  // expected-error @+1 {{'aten._to_copy' op result element type 'ui16' is no ATen dtype}}
  %0 = aten._to_copy %a : (tensor<4xf32>) -> tensor<4xui16>
  return %0 : tensor<4xui16>
}

// -----

func.func @full_value_type() -> tensor<2xf32> {
  // expected-error @+1 {{'aten.full' op value 1 : i64 is not of the result element type 'f32'}}
  %0 = aten.full [2], 1 : i64 : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @full_dtype() -> tensor<2xui32> {
  // expected-error @+1 {{'aten.full' op result element type 'ui32' is no ATen dtype}}
  %0 = aten.full [2], 1 : ui32 : tensor<2xui32>
  return %0 : tensor<2xui32>
}

// -----

func.func @full_rank() -> tensor<2xf32> {
  // expected-error @+1 {{'aten.full' op has 2 sizes for a result of rank 1}}
  %0 = aten.full [2, 3], 1.0 : f32 : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @full_size() -> tensor<?xf32> {
  // expected-error @+1 {{'aten.full' op invalid size -2}}
  %0 = aten.full [-2], 1.0 : f32 : tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @full_shape(%n: index) -> tensor<3x?xf32> {
  // expected-error @+1 {{'aten.full' op result shape [3, ?] does not match the inferred shape [2, ?]}}
  %0 = aten.full [2, %n], 1.0 : f32 : tensor<3x?xf32>
  return %0 : tensor<3x?xf32>
}

// -----

func.func @arange_rank() -> tensor<2x5xi64> {
  // expected-error @+1 {{'aten.arange' op result must be 1-d, got rank 2}}
  %0 = aten.arange {start = 0 : i64, end = 10 : i64, step = 1 : i64} : tensor<2x5xi64>
  return %0 : tensor<2x5xi64>
}

// -----

func.func @arange_bound_type() -> tensor<5xi64> {
  // expected-error @+1 {{'aten.arange' op bounds must be i64 or f64 attributes, got 0 : i32}}
  %0 = aten.arange {start = 0 : i32, end = 5 : i64, step = 1 : i64} : tensor<5xi64>
  return %0 : tensor<5xi64>
}

// -----

func.func @arange_operands(%n: index) -> tensor<?xi64> {
  // expected-error @+1 {{'aten.arange' op expects 0 dynamic bound operands, got 1}}
  %0 = aten.arange %n {start = 0 : i64, end = 5 : i64, step = 1 : i64} : tensor<?xi64>
  return %0 : tensor<?xi64>
}

// -----

func.func @arange_step() -> tensor<?xi64> {
  // expected-error @+1 {{'aten.arange' op step must be nonzero}}
  %0 = aten.arange {start = 0 : i64, end = 5 : i64, step = 0 : i64} : tensor<?xi64>
  return %0 : tensor<?xi64>
}

// -----

func.func @arange_sign() -> tensor<?xi64> {
  // expected-error @+1 {{'aten.arange' op upper bound and lower bound are inconsistent with the step sign}}
  %0 = aten.arange {start = 0 : i64, end = 5 : i64, step = -1 : i64} : tensor<?xi64>
  return %0 : tensor<?xi64>
}

// -----

func.func @arange_length() -> tensor<4xf32> {
  // expected-error @+1 {{'aten.arange' op result shape [4] does not match the inferred shape [5]}}
  %0 = aten.arange {start = 0.5 : f64, end = 3.0 : f64, step = 0.5 : f64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @linspace_steps() -> tensor<?xf32> {
  // expected-error @+1 {{'aten.linspace' op number of steps must be non-negative, got -1}}
  %0 = aten.linspace {start = 0.0 : f64, end = 1.0 : f64, steps = -1 : i64} : tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @eye_size() -> tensor<?x3xf32> {
  // expected-error @+1 {{'aten.eye' op n and m must be non-negative, got -1 and 3}}
  %0 = aten.eye {n = -1 : i64, m = 3 : i64} : tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}
