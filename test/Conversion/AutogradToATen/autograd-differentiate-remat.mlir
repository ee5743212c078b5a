// RUN: kiln-opt %s -split-input-file -autograd-differentiate=remat=1 -symbol-dce -mlir-print-debuginfo | FileCheck %s
// RUN: kiln-opt %s -split-input-file -autograd-differentiate -symbol-dce | FileCheck %s --check-prefix=KEEP

// The cut is weighted by bytes: the backward of sin reads its input, a
// 16x4x4 broadcast (1 KiB) of a 4x4 product (64 B). The product must be
// computed in the forward; the broadcast is cheap, so with remat the
// backward keeps the product and rebuilds the broadcast from it, marked
// (location and attribute) so that CSE leaves it apart from the forward's.
func.func private @f(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<16x4x4xf32> {
  %h = aten.mm %a, %b : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %u = aten.expand %h[16, 4, 4] : tensor<4x4xf32> -> tensor<16x4x4xf32>
  %s = aten.sin %u : (tensor<16x4x4xf32>) -> tensor<16x4x4xf32>
  return %s : tensor<16x4x4xf32>
}
// CHECK-LABEL: module attributes {kiln.saved_activation_bytes = 64 : i64, kiln.saved_activation_bytes_before_remat = 1024 : i64}
// CHECK-LABEL: func.func @vjp(
// CHECK: %[[H:.*]] = aten.mm
// CHECK: %[[U:.*]] = aten.expand %[[H]][16, 4, 4] : tensor<4x4xf32> -> tensor<16x4x4xf32>
// CHECK: %[[S:.*]] = aten.sin %[[U]]
// CHECK: %[[R:.*]] = aten.expand %[[H]][16, 4, 4] {autograd.recomputed} : tensor<4x4xf32> -> tensor<16x4x4xf32> loc(#[[RLOC:.*]])
// CHECK: aten.cos %[[R]]
// CHECK-NOT: aten.mm {{.*}}autograd.recomputed
// CHECK: return %[[S]],
// CHECK: #[[RLOC]] = loc(fused<"autograd.recomputed">[
// KEEP-LABEL: module attributes {kiln.saved_activation_bytes = 1024 : i64} {
// KEEP: %[[U:.*]] = aten.expand
// KEEP: aten.cos %[[U]]
// KEEP-NOT: autograd.recomputed
func.func @vjp(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>, %c: tensor<16x4x4xf32>) -> (tensor<16x4x4xf32>, tensor<4x4xf32>) {
  %y, %ga = autograd.vjp @f(%a, %b) cotangents(%c) wrt [0]
      : (tensor<4x4xf32>, tensor<4x4xf32>), (tensor<16x4x4xf32>) -> tensor<16x4x4xf32>, tensor<4x4xf32>
  return %y, %ga : tensor<16x4x4xf32>, tensor<4x4xf32>
}

// -----

// A value the forward returns is kept for free: the sigmoid's rule reads
// its result, which is the output, so nothing is counted and nothing is
// rebuilt; a product is never rebuilt.
func.func private @g(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %o = aten.mm %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %s = aten.sigmoid %o : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}
// CHECK-LABEL: module attributes {kiln.saved_activation_bytes = 0 : i64, kiln.saved_activation_bytes_before_remat = 0 : i64}
// CHECK-LABEL: func.func @vjp2(
// CHECK: %[[O:.*]] = aten.mm
// CHECK: %[[S:.*]] = aten.sigmoid %[[O]]
// CHECK-NOT: autograd.recomputed
// CHECK: aten.mul_tensor %[[S]],
// CHECK-NOT: autograd.recomputed
// CHECK: return %[[S]],
// KEEP-LABEL: module attributes {kiln.saved_activation_bytes = 0 : i64} {
func.func @vjp2(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %c: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<8x8xf32>) {
  %s, %gw = autograd.vjp @g(%x, %w) cotangents(%c) wrt [1]
      : (tensor<4x8xf32>, tensor<8x8xf32>), (tensor<4x8xf32>) -> tensor<4x8xf32>, tensor<8x8xf32>
  return %s, %gw : tensor<4x8xf32>, tensor<8x8xf32>
}
