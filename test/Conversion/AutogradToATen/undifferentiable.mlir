// RUN: kiln-opt %s -split-input-file -autograd-differentiate -verify-diagnostics

// An op with no reverse rule on the gradient's path is an error at the op.
func.func private @f(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{cannot differentiate 'arith.negf': kiln has no reverse rule for it}}
  %0 = arith.negf %x : tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
func.func @g(%x: tensor<3x4xf32>, %c: tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>) {
  %y, %gx = autograd.vjp @f(%x) cotangents(%c) wrt [0] : (tensor<3x4xf32>), (tensor<3x4xf32>) -> tensor<3x4xf32>, tensor<3x4xf32>
  return %y, %gx : tensor<3x4xf32>, tensor<3x4xf32>
}

// -----

// ... and in forward mode, for an op with no tangent rule.
func.func private @f(%x: tensor<2x3x4x4xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<2x3x4x4xf32> {
  // expected-error @+1 {{cannot differentiate 'aten.batch_norm' in forward mode: it has no tangent rule}}
  %0 = aten.batch_norm %x mean %m var %v {training = false, momentum = 0.1 : f64, eps = 1.0e-5 : f64} : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
  return %0 : tensor<2x3x4x4xf32>
}
func.func @g(%x: tensor<2x3x4x4xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>, %t: tensor<2x3x4x4xf32>) -> (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>) {
  %y, %ty = autograd.jvp @f(%x, %m, %v) tangents(%t) wrt [0] : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>), (tensor<2x3x4x4xf32>) -> tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>
  return %y, %ty : tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>
}

// -----

// A rule that cannot handle its operands says why.
func.func private @f(%x: tensor<2x5xf16>) -> tensor<2x5xf32> {
  // expected-error @+1 {{cannot differentiate 'aten._softmax' with respect to a 'f16' operand of a 'f32' result (mixed-dtype gradients are not supported yet)}}
  %0 = aten._softmax %x {dim = 1 : i64, half_to_float = true} : (tensor<2x5xf16>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}
func.func @g(%x: tensor<2x5xf16>, %c: tensor<2x5xf32>) -> (tensor<2x5xf32>, tensor<2x5xf16>) {
  %y, %gx = autograd.vjp @f(%x) cotangents(%c) wrt [0] : (tensor<2x5xf16>), (tensor<2x5xf32>) -> tensor<2x5xf32>, tensor<2x5xf16>
  return %y, %gx : tensor<2x5xf32>, tensor<2x5xf16>
}

// -----

func.func private @f(%q: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  // expected-error @+1 {{cannot differentiate 'aten.scaled_dot_product_attention' with dropout_p != 0}}
  %0 = aten.scaled_dot_product_attention %q, %q, %q {dropout_p = 0.5 : f64} : (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}
func.func @g(%x: tensor<2x4x8xf32>, %c: tensor<2x4x8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x8xf32>) {
  %y, %gx = autograd.vjp @f(%x) cotangents(%c) wrt [0] : (tensor<2x4x8xf32>), (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>, tensor<2x4x8xf32>
  return %y, %gx : tensor<2x4x8xf32>, tensor<2x4x8xf32>
}

// -----

// An op the runtime runs is differentiated with its registered autograd
// formula, which the importer records on it (kiln.runtime_backward); one
// without (the dispatcher does not know it, or has no formula) cannot be.
func.func private @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{cannot differentiate 'kilntest::not_registered': the runtime's dispatcher has no autograd formula for it (register one with register_autograd in its plugin)}}
  %0 = aten.call_runtime "kilntest::not_registered"(%x) {args = [tensor<4xf32>]} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @g(%x: tensor<4xf32>, %c: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %y, %gx = autograd.vjp @f(%x) cotangents(%c) wrt [0] : (tensor<4xf32>), (tensor<4xf32>) -> tensor<4xf32>, tensor<4xf32>
  return %y, %gx : tensor<4xf32>, tensor<4xf32>
}

// -----

// einsum with respect to a diagonal whose size is only known at run time.
func.func private @f(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{cannot differentiate 'aten.einsum' with respect to an operand with a repeated index (a diagonal) and a dynamic dim yet}}
  %0 = aten.einsum "ii->i" (%x) : (tensor<?x?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
func.func @g(%x: tensor<?x?xf32>, %c: tensor<?xf32>) -> (tensor<?xf32>, tensor<?x?xf32>) {
  %y, %gx = autograd.vjp @f(%x) cotangents(%c) wrt [0] : (tensor<?x?xf32>), (tensor<?xf32>) -> tensor<?xf32>, tensor<?x?xf32>
  return %y, %gx : tensor<?xf32>, tensor<?x?xf32>
}

// -----

// Interpolation and 3-d average pooling need static spatial sizes.
func.func private @f(%x: tensor<1x2x?x4xf32>) -> tensor<1x2x?x8xf32> {
  // expected-error @+1 {{cannot differentiate 'aten.upsample_bilinear2d' with a dynamic spatial size yet}}
  %0 = aten.upsample_bilinear2d %x {scales = array<f64: 2.0, 2.0>} : (tensor<1x2x?x4xf32>) -> tensor<1x2x?x8xf32>
  return %0 : tensor<1x2x?x8xf32>
}
func.func @g(%x: tensor<1x2x?x4xf32>, %c: tensor<1x2x?x8xf32>) -> (tensor<1x2x?x8xf32>, tensor<1x2x?x4xf32>) {
  %y, %gx = autograd.vjp @f(%x) cotangents(%c) wrt [0] : (tensor<1x2x?x4xf32>), (tensor<1x2x?x8xf32>) -> tensor<1x2x?x8xf32>, tensor<1x2x?x4xf32>
  return %y, %gx : tensor<1x2x?x8xf32>, tensor<1x2x?x4xf32>
}

// -----

func.func private @f(%x: tensor<1x2x?x4x4xf32>) -> tensor<1x2x?x2x2xf32> {
  // expected-error @+1 {{cannot differentiate 'aten.avg_pool3d' with a dynamic spatial size yet}}
  %0 = aten.avg_pool3d %x {kernel_size = array<i64: 2, 2, 2>, stride = array<i64: 2, 2, 2>, padding = array<i64: 0, 0, 0>} : (tensor<1x2x?x4x4xf32>) -> tensor<1x2x?x2x2xf32>
  return %0 : tensor<1x2x?x2x2xf32>
}
func.func @g(%x: tensor<1x2x?x4x4xf32>, %c: tensor<1x2x?x2x2xf32>) -> (tensor<1x2x?x2x2xf32>, tensor<1x2x?x4x4xf32>) {
  %y, %gx = autograd.vjp @f(%x) cotangents(%c) wrt [0] : (tensor<1x2x?x4x4xf32>), (tensor<1x2x?x2x2xf32>) -> tensor<1x2x?x2x2xf32>, tensor<1x2x?x4x4xf32>
  return %y, %gx : tensor<1x2x?x2x2xf32>, tensor<1x2x?x4x4xf32>
}

// -----

// An op with a region that reads a differentiated value inside it (a loop over
// time that captures the input) is refused, not given a zero gradient.
func.func private @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %z = arith.constant dense<0.0> : tensor<4xf32>
  // expected-error @+1 {{cannot differentiate 'scf.for': its region reads a differentiated value}}
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %z) -> (tensor<4xf32>) {
    %s = aten.add_tensor %acc, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    scf.yield %s : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
func.func @g(%x: tensor<4xf32>, %c: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %y, %gx = autograd.vjp @f(%x) cotangents(%c) wrt [0] : (tensor<4xf32>), (tensor<4xf32>) -> tensor<4xf32>, tensor<4xf32>
  return %y, %gx : tensor<4xf32>, tensor<4xf32>
}
