// RUN: kiln-opt %s -split-input-file -autograd-differentiate -symbol-dce | FileCheck %s
// Reverse rules of diagonal and copy (Autograd/Rules/ShapeRules.cpp).

// diagonal: the cotangent is scattered onto the same diagonal of zeros.
func.func private @f(%a: tensor<3x4xf32>) -> tensor<3xf32> {
  %0 = aten.diagonal %a {offset = 1 : i64, dim1 = 0 : i64, dim2 = 1 : i64} : (tensor<3x4xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
// CHECK-LABEL: func.func @diagonal(
// CHECK-SAME: %[[A:.*]]: tensor<3x4xf32>, %[[T:.*]]: tensor<3xf32>)
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<3x4xf32>
// CHECK: %[[G:.*]] = aten.diagonal_scatter %[[Z]], %[[T]] {offset = 1 : i64} : (tensor<3x4xf32>, tensor<3xf32>) -> tensor<3x4xf32>
// CHECK: return %{{.*}}, %[[G]]
func.func @diagonal(%a: tensor<3x4xf32>, %t: tensor<3xf32>) -> (tensor<3xf32>, tensor<3x4xf32>) {
  %y, %ga = autograd.vjp @f(%a) cotangents(%t) wrt [0] : (tensor<3x4xf32>), (tensor<3xf32>) -> tensor<3xf32>, tensor<3x4xf32>
  return %y, %ga : tensor<3xf32>, tensor<3x4xf32>
}

// -----

// copy: src gets the cotangent summed back over the broadcast dims.
func.func private @f(%a: tensor<2x4xf32>, %s: tensor<4xf32>) -> tensor<2x4xf32> {
  %0 = aten.copy %a, %s : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
// CHECK-LABEL: func.func @copy(
// CHECK-SAME: %[[A:.*]]: tensor<2x4xf32>, %[[S:.*]]: tensor<4xf32>, %[[T:.*]]: tensor<2x4xf32>)
// CHECK: %[[G:.*]] = aten.sum_to_size %[[T]] : (tensor<2x4xf32>) -> tensor<4xf32>
// CHECK: return %{{.*}}, %[[G]]
func.func @copy(%a: tensor<2x4xf32>, %s: tensor<4xf32>, %t: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<4xf32>) {
  %y, %gs = autograd.vjp @f(%a, %s) cotangents(%t) wrt [1] : (tensor<2x4xf32>, tensor<4xf32>), (tensor<2x4xf32>) -> tensor<2x4xf32>, tensor<4xf32>
  return %y, %gs : tensor<2x4xf32>, tensor<4xf32>
}
