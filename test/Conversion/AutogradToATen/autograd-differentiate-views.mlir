// RUN: kiln-opt %s -split-input-file -autograd-differentiate -symbol-dce | FileCheck %s
// Reverse rules of diagonal, copy, unfold and as_strided (Autograd/Rules/ShapeRules.cpp).

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

// -----

// unfold: window w's element k read x[w * step + k]; overlapping windows
// (size 3, step 2) add their cotangents at the shared positions.
func.func private @uf(%x: tensor<2x7xf32>) -> tensor<2x3x3xf32> {
  %0 = aten.unfold %x {dimension = 1 : i64, size = 3 : i64, step = 2 : i64} : (tensor<2x7xf32>) -> tensor<2x3x3xf32>
  return %0 : tensor<2x3x3xf32>
}
// CHECK-LABEL: func.func @unfold(
// CHECK-SAME: %[[X:.*]]: tensor<2x7xf32>, %[[C:.*]]: tensor<2x3x3xf32>)
// CHECK: aten.view %{{.*}}[2, 9] : tensor<2x3x3xf32> -> tensor<2x9xf32>
// CHECK: %[[I:.*]] = arith.constant dense<{{\[\[}}0, 1, 2, 2, 3, 4, 4, 5, 6]]> : tensor<1x9xi64>
// CHECK: %[[IE:.*]] = aten.expand %[[I]][2, 9]
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<2x7xf32>
// CHECK: %[[G:.*]] = aten.scatter %[[Z]], %[[IE]], %{{.*}} {dim = 1 : i64, reduce = "sum"}
// CHECK: return %[[G]]
func.func @unfold(%x: tensor<2x7xf32>, %c: tensor<2x3x3xf32>) -> tensor<2x7xf32> {
  %y, %gx = autograd.vjp @uf(%x) cotangents(%c) wrt [0] : (tensor<2x7xf32>), (tensor<2x3x3xf32>) -> tensor<2x3x3xf32>, tensor<2x7xf32>
  return %gx : tensor<2x7xf32>
}

// -----

// as_strided of a contiguous tensor: the flattened cotangent is added at the
// flat offsets the view read (offset 1, strides [2, 1]: 1, 2, 3, 4).
func.func private @st(%x: tensor<2x3xf32>) -> tensor<2x2xf32> {
  %0 = aten.as_strided %x {size = array<i64: 2, 2>, stride = array<i64: 2, 1>, storage_offset = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
// CHECK-LABEL: func.func @as_strided(
// CHECK-SAME: %[[X:.*]]: tensor<2x3xf32>, %[[C:.*]]: tensor<2x2xf32>)
// CHECK: aten.view %[[C]][4] : tensor<2x2xf32> -> tensor<4xf32>
// CHECK: %[[I:.*]] = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi64>
// CHECK: %[[S:.*]] = aten.scatter %{{.*}}, %{{.*}}, %{{.*}} {dim = 0 : i64, reduce = "sum"} : (tensor<6xf32>
// CHECK: %[[G:.*]] = aten.view %[[S]][2, 3] : tensor<6xf32> -> tensor<2x3xf32>
// CHECK: return %[[G]]
func.func @as_strided(%x: tensor<2x3xf32>, %c: tensor<2x2xf32>) -> tensor<2x3xf32> {
  %y, %gx = autograd.vjp @st(%x) cotangents(%c) wrt [0] : (tensor<2x3xf32>), (tensor<2x2xf32>) -> tensor<2x2xf32>, tensor<2x3xf32>
  return %gx : tensor<2x3xf32>
}
