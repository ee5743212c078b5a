// RUN: kiln-opt %s -split-input-file -verify-diagnostics

// One case per verifier message of the autograd dialect (AutogradOps.cpp).

func.func @no_callee(%x: tensor<4xf32>, %c: tensor<4xf32>) {
  // expected-error @+1 {{'autograd.vjp' op 'missing' does not name a function with a body}}
  %y, %g = autograd.vjp @missing(%x) cotangents(%c) wrt [0] : (tensor<4xf32>), (tensor<4xf32>) -> tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func private @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @primal_count(%x: tensor<4xf32>, %c: tensor<4xf32>) {
  // expected-error @+1 {{'autograd.vjp' op expects 1 primals for 'f', got 2}}
  %y, %g = autograd.vjp @f(%x, %x) cotangents(%c) wrt [0] : (tensor<4xf32>, tensor<4xf32>), (tensor<4xf32>) -> tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func private @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @primal_type(%x: tensor<5xf32>, %c: tensor<4xf32>) {
  // expected-error @+1 {{'autograd.vjp' op primal #0 has type 'tensor<5xf32>', 'f' takes 'tensor<4xf32>'}}
  %y, %g = autograd.vjp @f(%x) cotangents(%c) wrt [0] : (tensor<5xf32>), (tensor<4xf32>) -> tensor<4xf32>, tensor<5xf32>
  return
}

// -----

func.func private @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @wrt_range(%x: tensor<4xf32>, %c: tensor<4xf32>) {
  // expected-error @+1 {{'autograd.vjp' op expects wrt indices in increasing order within [0, 1)}}
  %y, %g = autograd.vjp @f(%x) cotangents(%c) wrt [1] : (tensor<4xf32>), (tensor<4xf32>) -> tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func private @f(%x: tensor<4xi64>) -> tensor<4xf32> {
  %0 = arith.constant dense<1.0> : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @wrt_int(%x: tensor<4xi64>, %c: tensor<4xf32>) {
  // expected-error @+1 {{'autograd.vjp' op wrt argument #0 of type 'tensor<4xi64>' is not a floating-point tensor}}
  %y, %g = autograd.vjp @f(%x) cotangents(%c) wrt [0] : (tensor<4xi64>), (tensor<4xf32>) -> tensor<4xf32>, tensor<4xi64>
  return
}

// -----

func.func private @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @cotangent_count(%x: tensor<4xf32>) {
  // expected-error @+1 {{'autograd.vjp' op expects one cotangent per result of 'f' (1), got 0}}
  %y, %g = "autograd.vjp"(%x) <{callee = @f, wrt = array<i64: 0>, operandSegmentSizes = array<i32: 1, 0>}> : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func private @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @cotangent_type(%x: tensor<4xf32>, %c: tensor<4xf64>) {
  // expected-error @+1 {{'autograd.vjp' op cotangent #0 has type 'tensor<4xf64>', result #0 of 'f' is 'tensor<4xf32>'}}
  %y, %g = autograd.vjp @f(%x) cotangents(%c) wrt [0] : (tensor<4xf32>), (tensor<4xf64>) -> tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func private @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @result_count(%x: tensor<4xf32>, %c: tensor<4xf32>) {
  // expected-error @+1 {{'autograd.vjp' op expects 2 results, got 1}}
  %y = autograd.vjp @f(%x) cotangents(%c) wrt [0] : (tensor<4xf32>), (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func private @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @result_type(%x: tensor<4xf32>, %c: tensor<4xf32>) {
  // expected-error @+1 {{'autograd.vjp' op result #1 has type 'tensor<4xf64>', expected 'tensor<4xf32>'}}
  %y, %g = autograd.vjp @f(%x) cotangents(%c) wrt [0] : (tensor<4xf32>), (tensor<4xf32>) -> tensor<4xf32>, tensor<4xf64>
  return
}

// -----

func.func private @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @grad_not_scalar(%x: tensor<4xf32>) {
  // expected-error @+1 {{'autograd.grad' op expects 'f' to return one 0-d floating-point tensor}}
  %v, %g = autograd.grad @f(%x) wrt [0] : (tensor<4xf32>) -> tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func private @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @tangent_count(%x: tensor<4xf32>) {
  // expected-error @+1 {{'autograd.jvp' op expects one tangent per wrt argument (1), got 0}}
  %y, %t = "autograd.jvp"(%x) <{callee = @f, wrt = array<i64: 0>, operandSegmentSizes = array<i32: 1, 0>}> : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func private @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @tangent_type(%x: tensor<4xf32>, %t: tensor<5xf32>) {
  // expected-error @+1 {{'autograd.jvp' op tangent #0 has type 'tensor<5xf32>', argument #0 is 'tensor<4xf32>'}}
  %y, %ty = autograd.jvp @f(%x) tangents(%t) wrt [0] : (tensor<4xf32>), (tensor<5xf32>) -> tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func private @f(%x: tensor<4xf32>) -> tensor<4xi64> {
  %0 = arith.constant dense<1> : tensor<4xi64>
  return %0 : tensor<4xi64>
}
func.func @jvp_int_result(%x: tensor<4xf32>, %t: tensor<4xf32>) {
  // expected-error @+1 {{'autograd.jvp' op result #0 of 'f' is 'tensor<4xi64>', not a floating-point tensor}}
  %y, %ty = autograd.jvp @f(%x) tangents(%t) wrt [0] : (tensor<4xf32>), (tensor<4xf32>) -> tensor<4xi64>, tensor<4xi64>
  return
}

// -----

func.func private @f(%x: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @vmap_arity(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'autograd.vmap' op expects 2 arguments and in_dims for 'f', got 1 and 1}}
  %0 = autograd.vmap @f(%x) in_dims [0] out_dims [0] : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func private @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @vmap_out_dims(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'autograd.vmap' op expects one out_dims entry per result of 'f' (1), got 2}}
  %0 = autograd.vmap @f(%x) in_dims [0] out_dims [0, 0] : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func private @f(%x: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @vmap_unbatched_type(%x: tensor<?x4xf32>, %w: tensor<5xf32>) {
  // expected-error @+1 {{'autograd.vmap' op argument #1 has type 'tensor<5xf32>', 'f' takes 'tensor<4xf32>'}}
  %0 = autograd.vmap @f(%x, %w) in_dims [0, -1] out_dims [0] : (tensor<?x4xf32>, tensor<5xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func private @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @vmap_in_dim(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'autograd.vmap' op in_dims entry 2 of argument #0 is not a dim of a batched 'tensor<4xf32>'}}
  %0 = autograd.vmap @f(%x) in_dims [2] out_dims [0] : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func private @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @vmap_batched_type(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{'autograd.vmap' op argument #0 has type 'tensor<4x5xf32>', expected 'tensor<4xf32>' with a batch dim at 0}}
  %0 = autograd.vmap @f(%x) in_dims [0] out_dims [0] : (tensor<4x5xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func private @f(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @vmap_sizes(%x: tensor<2x4xf32>, %y: tensor<3x4xf32>) {
  // expected-error @+1 {{'autograd.vmap' op batched arguments disagree on the batch size: 2 and 3}}
  %0 = autograd.vmap @f(%x, %y) in_dims [0, 0] out_dims [0] : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func private @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @vmap_none(%x: tensor<4xf32>) {
  // expected-error @+1 {{'autograd.vmap' op expects at least one batched argument}}
  %0 = autograd.vmap @f(%x) in_dims [-1] out_dims [0] : (tensor<4xf32>) -> tensor<1x4xf32>
  return
}

// -----

func.func private @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @vmap_out_dim(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'autograd.vmap' op out_dims entry 2 of result #0 is not a dim of a batched 'tensor<4xf32>'}}
  %0 = autograd.vmap @f(%x) in_dims [0] out_dims [2] : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func private @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @vmap_result_batch(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'autograd.vmap' op result #0 has batch size 3, the arguments 2}}
  %0 = autograd.vmap @f(%x) in_dims [0] out_dims [0] : (tensor<2x4xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func private @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @vmap_result_type(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'autograd.vmap' op result #0 has type 'tensor<2x5xf32>', expected 'tensor<2x4xf32>'}}
  %0 = autograd.vmap @f(%x) in_dims [0] out_dims [0] : (tensor<2x4xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @vmap_callee(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'autograd.vmap' op 'g' does not name a function with a body}}
  %0 = autograd.vmap @g(%x) in_dims [0] out_dims [0] : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return
}
