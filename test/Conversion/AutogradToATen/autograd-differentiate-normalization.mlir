// RUN: kiln-opt %s -split-input-file -autograd-differentiate -symbol-dce | FileCheck %s

// Inference batch norm differentiated with respect to its running statistics
// (ATen refuses them; kiln's --grad differentiates every float input):
// d mean = -w s sum(g), d var = -w s^3 sum(g (x - mean)) / 2 per channel,
// s = rsqrt(var + eps).
func.func private @bn(%x: tensor<2x3x4xf32>, %w: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<2x3x4xf32> {
  %0:3 = aten._native_batch_norm_legit_no_training %x weight %w mean %m var %v {momentum = 0.1 : f64, eps = 1.0e-5 : f64}
      : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4xf32>, tensor<0xf32>, tensor<0xf32>)
  return %0#0 : tensor<2x3x4xf32>
}
// CHECK-LABEL: func.func @running_stats(
// CHECK-SAME: %[[X:.*]]: tensor<2x3x4xf32>, %[[W:.*]]: tensor<3xf32>, %[[M:.*]]: tensor<3xf32>, %[[V:.*]]: tensor<3xf32>, %[[C:.*]]: tensor<2x3x4xf32>)
// CHECK: aten.native_batch_norm_backward %[[C]], %[[X]]
// CHECK: %[[VE:.*]] = aten.add_tensor %[[V]]
// CHECK: %[[S:.*]] = aten.rsqrt %[[VE]]
// CHECK: %[[WS:.*]] = aten.mul_tensor %[[W]], %[[S]]
// CHECK: %[[SG:.*]] = aten.sum_dim_intlist %[[C]] {dim = array<i64: 0, 2>}
// CHECK: %[[GM0:.*]] = aten.mul_tensor %[[WS]], %[[SG]]
// CHECK: %[[GM:.*]] = aten.mul_tensor %[[GM0]], %{{.*}}
// CHECK: %[[MB:.*]] = aten.view %[[M]][1, 3, 1]
// CHECK: %[[CEN:.*]] = aten.sub_tensor %[[X]], %[[MB]]
// CHECK: %[[GC:.*]] = aten.mul_tensor %[[C]], %[[CEN]]
// CHECK: %[[T:.*]] = aten.sum_dim_intlist %[[GC]] {dim = array<i64: 0, 2>}
// CHECK: %[[S2:.*]] = aten.mul_tensor %[[S]], %[[S]]
// CHECK: %[[WS3:.*]] = aten.mul_tensor %[[WS]], %[[S2]]
// CHECK: %[[GV0:.*]] = aten.mul_tensor %[[WS3]], %[[T]]
// CHECK: %[[GV:.*]] = aten.mul_tensor %[[GV0]], %{{.*}}
// CHECK: return %{{.*}}, %[[GM]], %[[GV]] : tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>
func.func @running_stats(%x: tensor<2x3x4xf32>, %w: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>, %c: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>) {
  %y, %gm, %gv = autograd.vjp @bn(%x, %w, %m, %v) cotangents(%c) wrt [2, 3]
      : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>), (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>
  return %y, %gm, %gv : tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// native_layer_norm's mean and rstd results are outputs ATen marks
// non-differentiable: their cotangents add nothing to the input's gradient,
// which is the normalized result's alone.
func.func private @ln(%x: tensor<2x6xf32>) -> (tensor<2x6xf32>, tensor<2x1xf32>, tensor<2x1xf32>) {
  %0:3 = aten.native_layer_norm %x {normalized_shape = array<i64: 6>, eps = 1.0e-5 : f64} : (tensor<2x6xf32>) -> (tensor<2x6xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  return %0#0, %0#1, %0#2 : tensor<2x6xf32>, tensor<2x1xf32>, tensor<2x1xf32>
}
// CHECK-LABEL: func.func @stats_not_differentiable(
// CHECK-SAME: %[[X:.*]]: tensor<2x6xf32>, %[[C0:.*]]: tensor<2x6xf32>, %[[C1:.*]]: tensor<2x1xf32>, %[[C2:.*]]: tensor<2x1xf32>)
// CHECK-NOT: %[[C1]]
// CHECK-NOT: %[[C2]]
// CHECK: %[[G:.*]] = aten.mul_tensor %rstd, %{{.*}} : (tensor<2x1xf32>, tensor<2x6xf32>) -> tensor<2x6xf32>
// CHECK-NEXT: return %[[G]]
func.func @stats_not_differentiable(%x: tensor<2x6xf32>, %c0: tensor<2x6xf32>, %c1: tensor<2x1xf32>, %c2: tensor<2x1xf32>) -> tensor<2x6xf32> {
  %y:3, %gx = autograd.vjp @ln(%x) cotangents(%c0, %c1, %c2) wrt [0]
      : (tensor<2x6xf32>), (tensor<2x6xf32>, tensor<2x1xf32>, tensor<2x1xf32>) -> tensor<2x6xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x6xf32>
  return %gx : tensor<2x6xf32>
}
