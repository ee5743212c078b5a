// RUN: kiln-opt %s -split-input-file -autograd-differentiate -symbol-dce | FileCheck %s

// Reverse mode: the forward inlined, then each op's reverse rule from the
// last op to the first.
func.func private @mlp(%x: tensor<8x64xf32>, %w: tensor<16x64xf32>, %b: tensor<16xf32>) -> tensor<8x16xf32> {
  %0 = aten.linear %x, %w, %b : (tensor<8x64xf32>, tensor<16x64xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %1 = aten.relu %0 : tensor<8x16xf32>
  return %1 : tensor<8x16xf32>
}
// CHECK-LABEL: func.func @vjp(
// CHECK-SAME: %[[X:.*]]: tensor<8x64xf32>, %[[W:.*]]: tensor<16x64xf32>, %[[B:.*]]: tensor<16xf32>, %[[C:.*]]: tensor<8x16xf32>)
// CHECK: %[[Y0:.*]] = aten.linear %[[X]], %[[W]], %[[B]]
// CHECK: %[[Y:.*]] = aten.relu %[[Y0]]
// CHECK: %[[G:.*]] = aten.threshold_backward %[[C]], %[[Y]]
// CHECK: %[[GW0:.*]] = aten.permute %[[G]] {dims = array<i64: 1, 0>}
// CHECK: %[[XT:.*]] = aten.permute %[[X]] {dims = array<i64: 1, 0>}
// CHECK: %[[GW:.*]] = aten.linear %[[GW0]], %[[XT]] : (tensor<16x8xf32>, tensor<64x8xf32>) -> tensor<16x64xf32>
// CHECK: %[[GB:.*]] = aten.sum_to_size %[[G]] : (tensor<8x16xf32>) -> tensor<16xf32>
// CHECK: return %[[Y]], %[[GW]], %[[GB]]
func.func @vjp(%x: tensor<8x64xf32>, %w: tensor<16x64xf32>, %b: tensor<16xf32>, %c: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<16x64xf32>, tensor<16xf32>) {
  %y, %gw, %gb = autograd.vjp @mlp(%x, %w, %b) cotangents(%c) wrt [1, 2]
      : (tensor<8x64xf32>, tensor<16x64xf32>, tensor<16xf32>), (tensor<8x16xf32>) -> tensor<8x16xf32>, tensor<16x64xf32>, tensor<16xf32>
  return %y, %gw, %gb : tensor<8x16xf32>, tensor<16x64xf32>, tensor<16xf32>
}

// -----

// A value read twice gets the sum of both cotangents; a broadcast operand's
// cotangent is summed down to its shape; stop_gradient blocks the flow; an
// argument the result does not depend on gets zeros.
func.func private @f(%x: tensor<4x3xf32>, %s: tensor<3xf32>, %u: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %0 = aten.mul_tensor %x, %s : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %d = autograd.stop_gradient %x : tensor<4x3xf32>
  %1 = aten.add_tensor %0, %x {alpha = 2.0 : f64} : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %2 = aten.mul_tensor %1, %d : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %2 : tensor<4x3xf32>
}
// CHECK-LABEL: func.func @accumulate(
// CHECK-SAME: %[[X:.*]]: tensor<4x3xf32>, %[[S:.*]]: tensor<3xf32>, %[[U:.*]]: tensor<4x3xf32>, %[[C:.*]]: tensor<4x3xf32>)
// CHECK-NOT: autograd.
// CHECK: %[[G1:.*]] = aten.mul_tensor %[[C]], %[[X]]
// CHECK: %[[TWO:.*]] = arith.constant dense<2.000000e+00> : tensor<f32>
// CHECK: %[[GX2:.*]] = aten.mul_tensor %[[G1]], %[[TWO]]
// CHECK: %[[GX1:.*]] = aten.mul_tensor %[[G1]], %[[S]]
// CHECK: %[[GS0:.*]] = aten.mul_tensor %[[G1]], %[[X]]
// CHECK: %[[GS:.*]] = aten.sum_to_size %[[GS0]] : (tensor<4x3xf32>) -> tensor<3xf32>
// CHECK: %[[GX:.*]] = aten.add_tensor %[[GX2]], %[[GX1]]
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<4x3xf32>
// CHECK: return %{{.*}}, %[[GX]], %[[GS]], %[[Z]]
func.func @accumulate(%x: tensor<4x3xf32>, %s: tensor<3xf32>, %u: tensor<4x3xf32>, %c: tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<3xf32>, tensor<4x3xf32>) {
  %y, %gx, %gs, %gu = autograd.vjp @f(%x, %s, %u) cotangents(%c) wrt [0, 1, 2]
      : (tensor<4x3xf32>, tensor<3xf32>, tensor<4x3xf32>), (tensor<4x3xf32>) -> tensor<4x3xf32>, tensor<4x3xf32>, tensor<3xf32>, tensor<4x3xf32>
  return %y, %gx, %gs, %gu : tensor<4x3xf32>, tensor<4x3xf32>, tensor<3xf32>, tensor<4x3xf32>
}

// -----

// autograd.grad seeds the reverse sweep with 1.
func.func private @loss(%x: tensor<4xf32>) -> tensor<f32> {
  %0 = aten.mean_dim %x : (tensor<4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}
// CHECK-LABEL: func.func @grad(
// CHECK: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[V:.*]] = aten.view %[[ONE]][1] : tensor<f32> -> tensor<1xf32>
// CHECK: %[[N:.*]] = arith.constant dense<4.000000e+00> : tensor<f32>
// CHECK: %[[D:.*]] = aten.div_tensor %[[V]], %[[N]]
// CHECK: %[[G:.*]] = aten.expand %[[D]][4] : tensor<1xf32> -> tensor<4xf32>
// CHECK: return %{{.*}}, %[[G]]
func.func @grad(%x: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
  %v, %g = autograd.grad @loss(%x) wrt [0] : (tensor<4xf32>) -> tensor<f32>, tensor<4xf32>
  return %v, %g : tensor<f32>, tensor<4xf32>
}

// -----

// Forward mode: each op's tangent rule, in program order.
func.func private @h(%x: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.mul_tensor %x, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = aten.relu %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}
// CHECK-LABEL: func.func @jvp(
// CHECK-SAME: %[[X:.*]]: tensor<4xf32>, %[[W:.*]]: tensor<4xf32>, %[[T:.*]]: tensor<4xf32>)
// CHECK: %[[M:.*]] = aten.mul_tensor %[[X]], %[[W]]
// CHECK: %[[TM:.*]] = aten.mul_tensor %[[T]], %[[W]]
// CHECK: %[[Y:.*]] = aten.relu %[[M]]
// CHECK: %[[TY:.*]] = aten.threshold_backward %[[TM]], %[[M]]
// CHECK: return %[[Y]], %[[TY]]
func.func @jvp(%x: tensor<4xf32>, %w: tensor<4xf32>, %t: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %y, %ty = autograd.jvp @h(%x, %w) tangents(%t) wrt [0] : (tensor<4xf32>, tensor<4xf32>), (tensor<4xf32>) -> tensor<4xf32>, tensor<4xf32>
  return %y, %ty : tensor<4xf32>, tensor<4xf32>
}

// -----

// mean over a dynamic dim divides by the count of the reduced elements,
// summed from ones at run time.
func.func private @m(%x: tensor<2x?xf32>) -> tensor<2xf32> {
  %0 = aten.mean_dim %x {dim = array<i64: 1>} : (tensor<2x?xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
// CHECK-LABEL: func.func @dynamic_mean(
// CHECK-SAME: %[[X:.*]]: tensor<2x?xf32>, %[[C:.*]]: tensor<2xf32>)
// CHECK: %[[KEPT:.*]] = aten.view %[[C]][2, 1] : tensor<2xf32> -> tensor<2x1xf32>
// CHECK: %[[D:.*]] = tensor.dim %[[X]], %c1
// CHECK: %[[ONES:.*]] = aten.expand %{{.*}}[2, %[[D]]] : tensor<f32> -> tensor<2x?xf32>
// CHECK: %[[N:.*]] = aten.sum_dim_intlist %[[ONES]] {dim = array<i64: 1>, keepdim = true} : (tensor<2x?xf32>) -> tensor<2x1xf32>
// CHECK: %[[Q:.*]] = aten.div_tensor %[[KEPT]], %[[N]]
// CHECK: %[[G:.*]] = aten.expand %[[Q]][2, %{{.*}}] : tensor<2x1xf32> -> tensor<2x?xf32>
// CHECK: return %{{.*}}, %[[G]]
func.func @dynamic_mean(%x: tensor<2x?xf32>, %c: tensor<2xf32>) -> (tensor<2xf32>, tensor<2x?xf32>) {
  %y, %gx = autograd.vjp @m(%x) cotangents(%c) wrt [0] : (tensor<2x?xf32>), (tensor<2xf32>) -> tensor<2xf32>, tensor<2x?xf32>
  return %y, %gx : tensor<2xf32>, tensor<2x?xf32>
}

// -----

// softmax: y * (g - sum(g * y)) along its dim, from the forward's result.
func.func private @s(%x: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %0 = aten._softmax %x {dim = -1 : i64} : (tensor<3x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}
// CHECK-LABEL: func.func @softmax(
// CHECK-SAME: %[[X:.*]]: tensor<3x5xf32>, %[[C:.*]]: tensor<3x5xf32>)
// CHECK: %[[Y:.*]] = aten._softmax %[[X]]
// CHECK: %[[GY:.*]] = aten.mul_tensor %[[C]], %[[Y]]
// CHECK: %[[S:.*]] = aten.sum_dim_intlist %[[GY]] {dim = array<i64: 1>, keepdim = true} : (tensor<3x5xf32>) -> tensor<3x1xf32>
// CHECK: %[[D:.*]] = aten.sub_tensor %[[C]], %[[S]]
// CHECK: %[[G:.*]] = aten.mul_tensor %[[Y]], %[[D]]
// CHECK: return %[[Y]], %[[G]]
func.func @softmax(%x: tensor<3x5xf32>, %c: tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<3x5xf32>) {
  %y, %gx = autograd.vjp @s(%x) cotangents(%c) wrt [0] : (tensor<3x5xf32>), (tensor<3x5xf32>) -> tensor<3x5xf32>, tensor<3x5xf32>
  return %y, %gx : tensor<3x5xf32>, tensor<3x5xf32>
}

// -----

// Embedding (advanced indexing of the weight): the cotangent is added into
// zeros at the rows read, so repeated ids sum.
func.func private @e(%w: tensor<6x3xf32>, %ids: tensor<2x4xi64>) -> tensor<2x4x3xf32> {
  %0 = aten.index_tensor %w[%ids] {index_dims = array<i64: 0>} : (tensor<6x3xf32>, tensor<2x4xi64>) -> tensor<2x4x3xf32>
  return %0 : tensor<2x4x3xf32>
}
// CHECK-LABEL: func.func @embedding(
// CHECK-SAME: %[[W:.*]]: tensor<6x3xf32>, %[[I:.*]]: tensor<2x4xi64>, %[[C:.*]]: tensor<2x4x3xf32>)
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<6x3xf32>
// CHECK: %[[G:.*]] = aten.index_put %[[Z]][%[[I]]], %[[C]] {accumulate = true, index_dims = array<i64: 0>}
// CHECK: return %{{.*}}, %[[G]]
func.func @embedding(%w: tensor<6x3xf32>, %ids: tensor<2x4xi64>, %c: tensor<2x4x3xf32>) -> (tensor<2x4x3xf32>, tensor<6x3xf32>) {
  %y, %gw = autograd.vjp @e(%w, %ids) cotangents(%c) wrt [0] : (tensor<6x3xf32>, tensor<2x4xi64>), (tensor<2x4x3xf32>) -> tensor<2x4x3xf32>, tensor<6x3xf32>
  return %y, %gw : tensor<2x4x3xf32>, tensor<6x3xf32>
}

// A large table's zeros are a broadcast scalar (a fill), not a dense constant
// the size of the table in the model.
func.func private @e_big(%w: tensor<3000x64xf32>, %ids: tensor<2x4xi64>) -> tensor<2x4x64xf32> {
  %0 = aten.index_tensor %w[%ids] {index_dims = array<i64: 0>} : (tensor<3000x64xf32>, tensor<2x4xi64>) -> tensor<2x4x64xf32>
  return %0 : tensor<2x4x64xf32>
}
// CHECK-LABEL: func.func @embedding_big(
// CHECK-NOT: arith.constant dense<0.000000e+00> : tensor<3000x64xf32>
// CHECK: %[[Z:.*]] = aten.expand %{{.*}} {{.*}}-> tensor<3000x64xf32>
// CHECK: aten.index_put %[[Z]]
func.func @embedding_big(%w: tensor<3000x64xf32>, %ids: tensor<2x4xi64>, %c: tensor<2x4x64xf32>) -> (tensor<2x4x64xf32>, tensor<3000x64xf32>) {
  %y, %gw = autograd.vjp @e_big(%w, %ids) cotangents(%c) wrt [0] : (tensor<3000x64xf32>, tensor<2x4xi64>), (tensor<2x4x64xf32>) -> tensor<2x4x64xf32>, tensor<3000x64xf32>
  return %y, %gw : tensor<2x4x64xf32>, tensor<3000x64xf32>
}

// -----

// An op the runtime runs: its gradient is the backward call the importer
// recorded on it (kiln.runtime_backward), taking the forward's arguments, its
// results and their cotangents; the rule never asks the runtime.
func.func private @r(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.call_runtime "kilntest::op"(%x) {args = [tensor<4xf32>, 5.000000e-01], kiln.runtime_backward = "kilntest::op#backward"} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
// CHECK-LABEL: func.func @runtime_op(
// CHECK-SAME: %[[X:.*]]: tensor<4xf32>, %[[C:.*]]: tensor<4xf32>)
// CHECK: %[[Y:.*]] = aten.call_runtime "kilntest::op"(%[[X]])
// CHECK: %[[G:.*]] = aten.call_runtime "kilntest::op#backward"(%[[X]], %[[Y]], %[[C]]) {args = [tensor<4xf32>, 5.000000e-01, tensor<4xf32>, tensor<4xf32>]}
// CHECK: return %[[Y]], %[[G]]
func.func @runtime_op(%x: tensor<4xf32>, %c: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %y, %gx = autograd.vjp @r(%x) cotangents(%c) wrt [0] : (tensor<4xf32>), (tensor<4xf32>) -> tensor<4xf32>, tensor<4xf32>
  return %y, %gx : tensor<4xf32>, tensor<4xf32>
}

// -----

// A 1-d convolution's gradients are those of the 2-d one over a unit height:
// the operands get a unit dim at 2, the backward runs with stride, padding and
// dilation (1, s), (0, p), (1, d), and the unit dim is dropped again.
// CHECK-LABEL: func.func @conv1d_grad
// CHECK-DAG: %[[X4:.*]] = aten.unsqueeze %{{.*}}, 2 : (tensor<?x4x10xf32>) -> tensor<?x4x1x10xf32>
// CHECK-DAG: %[[W4:.*]] = aten.unsqueeze %{{.*}}, 2 : (tensor<6x4x3xf32>) -> tensor<6x4x1x3xf32>
// CHECK-DAG: %[[G4:.*]] = aten.unsqueeze %{{.*}}, 2 : (tensor<?x6x5xf32>) -> tensor<?x6x1x5xf32>
// CHECK: aten.convolution_backward %[[G4]], %[[X4]], %[[W4]] {{.*}}dilation = array<i64: 1, 1>{{.*}}padding = array<i64: 0, 1>, stride = array<i64: 1, 2>
// CHECK: aten.squeeze_dims %{{.*}} {dims = array<i64: 2>} : (tensor<?x4x1x10xf32>) -> tensor<?x4x10xf32>
// CHECK: aten.squeeze_dims %{{.*}} {dims = array<i64: 2>} : (tensor<6x4x1x3xf32>) -> tensor<6x4x3xf32>
func.func private @conv1d(%x: tensor<?x4x10xf32>, %w: tensor<6x4x3xf32>, %b: tensor<6xf32>) -> tensor<?x6x5xf32> {
  %0 = aten.convolution %x, %w, %b {stride = array<i64: 2>, padding = array<i64: 1>, dilation = array<i64: 1>, transposed = false, output_padding = array<i64: 0>} : (tensor<?x4x10xf32>, tensor<6x4x3xf32>, tensor<6xf32>) -> tensor<?x6x5xf32>
  return %0 : tensor<?x6x5xf32>
}
func.func @conv1d_grad(%x: tensor<?x4x10xf32>, %w: tensor<6x4x3xf32>, %b: tensor<6xf32>, %c: tensor<?x6x5xf32>)
    -> (tensor<?x6x5xf32>, tensor<?x4x10xf32>, tensor<6x4x3xf32>, tensor<6xf32>) {
  %y, %gx, %gw, %gb = autograd.vjp @conv1d(%x, %w, %b) cotangents(%c) wrt [0, 1, 2] : (tensor<?x4x10xf32>, tensor<6x4x3xf32>, tensor<6xf32>), (tensor<?x6x5xf32>) -> tensor<?x6x5xf32>, tensor<?x4x10xf32>, tensor<6x4x3xf32>, tensor<6xf32>
  return %y, %gx, %gw, %gb : tensor<?x6x5xf32>, tensor<?x4x10xf32>, tensor<6x4x3xf32>, tensor<6xf32>
}

// -----

// A 3-d convolution's gradients are, per temporal tap, those of a 2-d one over
// the frames the tap reads (x padded in time, sliced with the time stride) with
// the output frames folded into the batch; the input gradient is scattered back
// onto those frames (tap 0 reads frames -1 (padding), 1, 3; tap 1 reads 0, 2,
// 4), the filter's taps are joined along time, the bias gets g summed.
// CHECK-LABEL: func.func @conv3d_grad
// CHECK: %[[XP:.*]] = aten.constant_pad_nd %{{.*}} {pad = array<i64: 0, 0, 0, 0, 1, 1>} : (tensor<?x2x5x6x6xf32>) -> tensor<?x2x7x6x6xf32>
// CHECK: %[[GP:.*]] = aten.permute %{{.*}} {dims = array<i64: 0, 2, 1, 3, 4>}
// CHECK: %[[G2:.*]] = aten.view %[[GP]][%{{.*}}, 3, 6, 6] : tensor<?x3x3x6x6xf32> -> tensor<?x3x6x6xf32>
// CHECK: aten.slice_tensor %[[XP]][0, 5] {dim = 2 : i64, step = 2 : i64}
// CHECK: aten.slice_tensor %{{.*}}[0, 1] {dim = 2 : i64} : tensor<3x2x2x3x3xf32> -> tensor<3x2x1x3x3xf32>
// CHECK: aten.convolution_backward %[[G2]], {{.*}}padding = array<i64: 1, 1>, stride = array<i64: 1, 1>
// CHECK: arith.constant dense<{{\[\[\[\[\[}}5]], {{\[\[}}1]], {{\[\[}}3]]]]]> : tensor<1x1x3x1x1xi64>
// CHECK: aten.scatter {{.*}}reduce = "sum"
// CHECK: aten.slice_tensor %[[XP]][1, 6] {dim = 2 : i64, step = 2 : i64}
// CHECK: aten.convolution_backward %[[G2]],
// CHECK: arith.constant dense<{{\[\[\[\[\[}}0]], {{\[\[}}2]], {{\[\[}}4]]]]]> : tensor<1x1x3x1x1xi64>
// CHECK: aten.cat %{{.*}}, %{{.*}} {dim = 2 : i64} : (tensor<3x2x1x3x3xf32>, tensor<3x2x1x3x3xf32>) -> tensor<3x2x2x3x3xf32>
// CHECK: aten.sum_dim_intlist %{{.*}} {dim = array<i64: 0, 2, 3, 4>}
func.func private @conv3d(%x: tensor<?x2x5x6x6xf32>, %w: tensor<3x2x2x3x3xf32>, %b: tensor<3xf32>) -> tensor<?x3x3x6x6xf32> {
  %0 = aten.convolution %x, %w, %b {stride = array<i64: 2, 1, 1>, padding = array<i64: 1, 1, 1>, dilation = array<i64: 1, 1, 1>, transposed = false, output_padding = array<i64: 0, 0, 0>} : (tensor<?x2x5x6x6xf32>, tensor<3x2x2x3x3xf32>, tensor<3xf32>) -> tensor<?x3x3x6x6xf32>
  return %0 : tensor<?x3x3x6x6xf32>
}
func.func @conv3d_grad(%x: tensor<?x2x5x6x6xf32>, %w: tensor<3x2x2x3x3xf32>, %b: tensor<3xf32>, %c: tensor<?x3x3x6x6xf32>)
    -> (tensor<?x3x3x6x6xf32>, tensor<?x2x5x6x6xf32>, tensor<3x2x2x3x3xf32>, tensor<3xf32>) {
  %y, %gx, %gw, %gb = autograd.vjp @conv3d(%x, %w, %b) cotangents(%c) wrt [0, 1, 2] : (tensor<?x2x5x6x6xf32>, tensor<3x2x2x3x3xf32>, tensor<3xf32>), (tensor<?x3x3x6x6xf32>) -> tensor<?x3x3x6x6xf32>, tensor<?x2x5x6x6xf32>, tensor<3x2x2x3x3xf32>, tensor<3xf32>
  return %y, %gx, %gw, %gb : tensor<?x3x3x6x6xf32>, tensor<?x2x5x6x6xf32>, tensor<3x2x2x3x3xf32>, tensor<3xf32>
}

// -----

// addcmul (s + v*t1*t2) and addcdiv (s + v*t1/t2), with broadcasting operands
// (ConvNeXtV2's GRN): each cotangent summed back to its operand's shape.
func.func private @addc(%s: tensor<3xf32>, %a: tensor<4x3xf32>, %d: tensor<4x1xf32>) -> tensor<4x3xf32> {
  %0 = aten.addcmul %s, %a, %d {value = 0.5 : f64} : (tensor<3xf32>, tensor<4x3xf32>, tensor<4x1xf32>) -> tensor<4x3xf32>
  %1 = aten.addcdiv %0, %a, %d {value = 2.0 : f64} : (tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x1xf32>) -> tensor<4x3xf32>
  return %1 : tensor<4x3xf32>
}
// CHECK-LABEL: func.func @addc_vjp(
// CHECK-SAME: %[[S:.*]]: tensor<3xf32>, %[[A:.*]]: tensor<4x3xf32>, %[[D:.*]]: tensor<4x1xf32>, %[[C:.*]]: tensor<4x3xf32>)
// addcdiv: 2g/d to a, -2g*a/d^2 to d, g to addcmul's result
// CHECK: %[[TWO:.*]] = arith.constant dense<2.000000e+00> : tensor<f32>
// CHECK: %[[VG:.*]] = aten.mul_tensor %[[C]], %[[TWO]]
// CHECK: %[[GA1:.*]] = aten.div_tensor %[[VG]], %[[D]]
// CHECK: %[[NUM:.*]] = aten.mul_tensor %[[VG]], %[[A]]
// CHECK: %[[D2:.*]] = aten.mul_tensor %[[D]], %[[D]]
// CHECK: %[[Q:.*]] = aten.div_tensor %[[NUM]], %[[D2]]
// CHECK: %[[M1:.*]] = arith.constant dense<-1.000000e+00> : tensor<f32>
// CHECK: %[[GD1F:.*]] = aten.mul_tensor %[[Q]], %[[M1]]
// CHECK: %[[GD1:.*]] = aten.sum_to_size %[[GD1F]] : (tensor<4x3xf32>) -> tensor<4x1xf32>
// addcmul: g to s (summed to [3]), 0.5g*d to a, 0.5g*a to d
// CHECK: %[[GS:.*]] = aten.sum_to_size %[[C]] : (tensor<4x3xf32>) -> tensor<3xf32>
// CHECK: %[[HALF:.*]] = arith.constant dense<5.000000e-01> : tensor<f32>
// CHECK: %[[HG:.*]] = aten.mul_tensor %[[C]], %[[HALF]]
// CHECK: %[[GA2:.*]] = aten.mul_tensor %[[HG]], %[[D]]
// CHECK: %[[GD2F:.*]] = aten.mul_tensor %[[HG]], %[[A]]
// CHECK: %[[GD2:.*]] = aten.sum_to_size %[[GD2F]] : (tensor<4x3xf32>) -> tensor<4x1xf32>
// CHECK: %[[GA:.*]] = aten.add_tensor %[[GA1]], %[[GA2]]
// CHECK: %[[GD:.*]] = aten.add_tensor %[[GD1]], %[[GD2]]
// CHECK: return %{{.*}}, %[[GS]], %[[GA]], %[[GD]]
func.func @addc_vjp(%s: tensor<3xf32>, %a: tensor<4x3xf32>, %d: tensor<4x1xf32>, %c: tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<3xf32>, tensor<4x3xf32>, tensor<4x1xf32>) {
  %y, %gs, %ga, %gd = autograd.vjp @addc(%s, %a, %d) cotangents(%c) wrt [0, 1, 2]
      : (tensor<3xf32>, tensor<4x3xf32>, tensor<4x1xf32>), (tensor<4x3xf32>) -> tensor<4x3xf32>, tensor<3xf32>, tensor<4x3xf32>, tensor<4x1xf32>
  return %y, %gs, %ga, %gd : tensor<4x3xf32>, tensor<3xf32>, tensor<4x3xf32>, tensor<4x1xf32>
}
// Forward mode in t2: 0.5*t*a through addcmul, then -2*t*a/d^2 added by addcdiv.
// CHECK-LABEL: func.func @addc_jvp(
// CHECK-SAME: %[[S:.*]]: tensor<3xf32>, %[[A:.*]]: tensor<4x3xf32>, %[[D:.*]]: tensor<4x1xf32>, %[[T:.*]]: tensor<4x1xf32>)
// CHECK: %[[TA:.*]] = aten.mul_tensor %[[T]], %[[A]]
// CHECK: %[[HALF:.*]] = arith.constant dense<5.000000e-01> : tensor<f32>
// CHECK: %[[T1:.*]] = aten.mul_tensor %[[TA]], %[[HALF]]
// CHECK: %[[TA2:.*]] = aten.mul_tensor %[[T]], %[[A]]
// CHECK: %[[D2:.*]] = aten.mul_tensor %[[D]], %[[D]]
// CHECK: %[[Q:.*]] = aten.div_tensor %[[TA2]], %[[D2]]
// CHECK: %[[M2:.*]] = arith.constant dense<-2.000000e+00> : tensor<f32>
// CHECK: %[[T2:.*]] = aten.mul_tensor %[[Q]], %[[M2]]
// CHECK: %[[TY:.*]] = aten.add_tensor %[[T1]], %[[T2]]
// CHECK: return %{{.*}}, %[[TY]]
func.func @addc_jvp(%s: tensor<3xf32>, %a: tensor<4x3xf32>, %d: tensor<4x1xf32>, %t: tensor<4x1xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>) {
  %y, %ty = autograd.jvp @addc(%s, %a, %d) tangents(%t) wrt [2] : (tensor<3xf32>, tensor<4x3xf32>, tensor<4x1xf32>), (tensor<4x1xf32>) -> tensor<4x3xf32>, tensor<4x3xf32>
  return %y, %ty : tensor<4x3xf32>, tensor<4x3xf32>
}
