// RUN: kiln-opt %s -autograd-differentiate=remat=1 -symbol-dce --kiln-lower-to-linalg | FileCheck %s
// RUN: kiln-opt %s -autograd-differentiate=remat=1 -symbol-dce -convert-aten-to-linalg -canonicalize -cse | FileCheck %s --check-prefix=MERGED

// The backward's recomputation of a forward value stays a separate op
// through the lowering to linalg, its CSE and fusion: the tanh between two
// products is computed in the forward (for the second product) and again in
// the backward (for the second weight's gradient and tanh's own rule), from
// the first product's result, which is all the backward keeps. Without
// kiln-keep-recomputed before it, CSE would merge the two (MERGED).
// CHECK-LABEL: func.func @vjp(
// CHECK: %[[H:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8x8xf32>)
// CHECK: %[[T:.*]] = linalg.generic {{.*}} ins(%[[H]] : tensor<4x8xf32>)
// CHECK-NOT: autograd.recomputed
// CHECK: math.tanh
// CHECK: linalg.generic {{.*}} ins(%[[T]], %{{.*}} : tensor<4x8xf32>, tensor<8x8xf32>)
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[H]] : tensor<4x8xf32>) {{.*}}autograd.recomputed
// CHECK: math.tanh
// CHECK: ins(%[[R]] :
// MERGED-LABEL: func.func @vjp(
// MERGED-COUNT-1: math.tanh
// MERGED-NOT: math.tanh
func.func private @f(%x: tensor<4x8xf32>, %w1: tensor<8x8xf32>, %w2: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %h = aten.mm %x, %w1 : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %r = aten.tanh %h : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %o = aten.mm %r, %w2 : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  return %o : tensor<4x8xf32>
}
func.func @vjp(%x: tensor<4x8xf32>, %w1: tensor<8x8xf32>, %w2: tensor<8x8xf32>, %c: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) {
  %o, %g1, %g2 = autograd.vjp @f(%x, %w1, %w2) cotangents(%c) wrt [1, 2]
      : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>), (tensor<4x8xf32>) -> tensor<4x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
  return %o, %g1, %g2 : tensor<4x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
}
