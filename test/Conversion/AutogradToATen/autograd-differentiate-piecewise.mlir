// RUN: kiln-opt %s -split-input-file -autograd-differentiate -symbol-dce | FileCheck %s
// Reverse rules of the piecewise elementwise ops (Autograd/Rules/PiecewiseRules.cpp).

// remainder: the dividend gets the cotangent, the divisor -g * floor(a / c).
func.func private @f(%a: tensor<4xf32>, %c: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.remainder_tensor %a, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
// CHECK-LABEL: func.func @remainder(
// CHECK-SAME: %[[A:.*]]: tensor<4xf32>, %[[C:.*]]: tensor<4xf32>, %[[T:.*]]: tensor<4xf32>)
// CHECK: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[GA:.*]] = aten.mul_tensor %[[T]], %[[ONE]]
// CHECK: %[[Q:.*]] = aten.div_tensor_mode %[[A]], %[[C]] {rounding_mode = "floor"}
// CHECK: %[[NQ:.*]] = aten.mul_tensor %[[Q]], %{{.*}}
// CHECK: %[[GC:.*]] = aten.mul_tensor %[[T]], %[[NQ]]
// CHECK: return %{{.*}}, %[[GA]], %[[GC]]
func.func @remainder(%a: tensor<4xf32>, %c: tensor<4xf32>, %t: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %y, %ga, %gc = autograd.vjp @f(%a, %c) cotangents(%t) wrt [0, 1] : (tensor<4xf32>, tensor<4xf32>), (tensor<4xf32>) -> tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return %y, %ga, %gc : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// fmod: the divisor gets -g * trunc(a / c).
func.func private @f(%a: tensor<4xf32>, %c: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.fmod_tensor %a, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
// CHECK-LABEL: func.func @fmod(
// CHECK: aten.div_tensor_mode %{{.*}}, %{{.*}} {rounding_mode = "trunc"}
func.func @fmod(%a: tensor<4xf32>, %c: tensor<4xf32>, %t: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %y, %gc = autograd.vjp @f(%a, %c) cotangents(%t) wrt [1] : (tensor<4xf32>, tensor<4xf32>), (tensor<4xf32>) -> tensor<4xf32>, tensor<4xf32>
  return %y, %gc : tensor<4xf32>, tensor<4xf32>
}

// -----

// fmax: self gets the cotangent where self >= other or other is NaN.
func.func private @f(%a: tensor<4xf32>, %c: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.fmax %a, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
// CHECK-LABEL: func.func @fmax(
// CHECK-SAME: %[[A:.*]]: tensor<4xf32>, %[[C:.*]]: tensor<4xf32>, %[[T:.*]]: tensor<4xf32>)
// CHECK: %[[GE:.*]] = aten.ge_tensor %[[A]], %[[C]]
// CHECK: %[[NAN:.*]] = aten.isnan %[[C]]
// CHECK: %[[SEL:.*]] = aten.logical_or %[[GE]], %[[NAN]]
// CHECK: aten.where_self %[[SEL]]
func.func @fmax(%a: tensor<4xf32>, %c: tensor<4xf32>, %t: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %y, %ga = autograd.vjp @f(%a, %c) cotangents(%t) wrt [0] : (tensor<4xf32>, tensor<4xf32>), (tensor<4xf32>) -> tensor<4xf32>, tensor<4xf32>
  return %y, %ga : tensor<4xf32>, tensor<4xf32>
}

// -----

// Rounding: a zero gradient.
func.func private @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.round_decimals %a {decimals = 2 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
// CHECK-LABEL: func.func @round_decimals(
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<f32>
// CHECK: aten.mul_tensor %{{.*}}, %[[Z]]
func.func @round_decimals(%a: tensor<4xf32>, %t: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %y, %ga = autograd.vjp @f(%a) cotangents(%t) wrt [0] : (tensor<4xf32>), (tensor<4xf32>) -> tensor<4xf32>, tensor<4xf32>
  return %y, %ga : tensor<4xf32>, tensor<4xf32>
}

// -----

// logit without eps: 1 / (x (1 - x)), NaN outside [0, 1].
func.func private @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.logit %a : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
// CHECK-LABEL: func.func @logit(
// CHECK: aten.reciprocal
// CHECK: aten.lt_tensor
// CHECK: aten.gt_tensor
// CHECK: arith.constant dense<0x7FC00000> : tensor<f32>
// CHECK: aten.where_self
func.func @logit(%a: tensor<4xf32>, %t: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %y, %ga = autograd.vjp @f(%a) cotangents(%t) wrt [0] : (tensor<4xf32>), (tensor<4xf32>) -> tensor<4xf32>, tensor<4xf32>
  return %y, %ga : tensor<4xf32>, tensor<4xf32>
}

// -----

// lerp: g * (1 - w) to self, g * w to end, g * (end - self) to weight.
func.func private @f(%s: tensor<4xf32>, %e: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.lerp_tensor %s, %e, %w : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
// CHECK-LABEL: func.func @lerp(
// CHECK-SAME: %[[S:.*]]: tensor<4xf32>, %[[E:.*]]: tensor<4xf32>, %[[W:.*]]: tensor<4xf32>, %[[T:.*]]: tensor<4xf32>)
// CHECK: %[[GE:.*]] = aten.mul_tensor %[[T]], %[[W]]
// CHECK: %[[D:.*]] = aten.sub_tensor %[[E]], %[[S]]
// CHECK: %[[GW:.*]] = aten.mul_tensor %[[T]], %[[D]]
// CHECK: return %{{.*}}, %[[GE]], %[[GW]]
func.func @lerp(%s: tensor<4xf32>, %e: tensor<4xf32>, %w: tensor<4xf32>, %t: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %y, %ge, %gw = autograd.vjp @f(%s, %e, %w) cotangents(%t) wrt [1, 2] : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>), (tensor<4xf32>) -> tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return %y, %ge, %gw : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
