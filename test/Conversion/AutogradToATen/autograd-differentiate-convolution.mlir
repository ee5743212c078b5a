// RUN: kiln-opt %s -split-input-file -autograd-differentiate -symbol-dce | FileCheck %s
// Reverse rules of transposed and unbatched convolutions (Autograd/Rules/ConvolutionRules.cpp).

// A transposed 1-d convolution: the input gradient is the direct convolution
// of the cotangent with the same filter and stride; the weight gradient is
// that convolution's (the 1-d rule: over a unit height) with the cotangent as
// its input and x as its output's cotangent.
func.func private @ct(%x: tensor<2x4x5xf32>, %w: tensor<4x3x3xf32>) -> tensor<2x3x11xf32> {
  %0 = aten.convolution %x, %w {stride = array<i64: 2>, padding = array<i64: 0>, dilation = array<i64: 1>, transposed = true, output_padding = array<i64: 0>, groups = 1 : i64} : (tensor<2x4x5xf32>, tensor<4x3x3xf32>) -> tensor<2x3x11xf32>
  return %0 : tensor<2x3x11xf32>
}
// CHECK-LABEL: func.func @transposed_1d(
// CHECK-SAME: %[[X:.*]]: tensor<2x4x5xf32>, %[[W:.*]]: tensor<4x3x3xf32>, %[[C:.*]]: tensor<2x3x11xf32>)
// CHECK: %[[GX:.*]] = aten.convolution %[[C]], %[[W]] {dilation = array<i64: 1>, output_padding = array<i64: 0>, padding = array<i64: 0>, stride = array<i64: 2>} : (tensor<2x3x11xf32>, tensor<4x3x3xf32>) -> tensor<2x4x5xf32>
// CHECK-DAG: %[[C4:.*]] = aten.unsqueeze %[[C]], 2
// CHECK-DAG: %[[W4:.*]] = aten.unsqueeze %[[W]], 2
// CHECK-DAG: %[[X4:.*]] = aten.unsqueeze %[[X]], 2
// CHECK: %{{.*}}, %[[GW4:.*]], %{{.*}} = aten.convolution_backward %[[X4]], %[[C4]], %[[W4]] {{.*}}output_mask = array<i1: false, true, false>{{.*}}stride = array<i64: 1, 2>
// CHECK: %[[GW:.*]] = aten.squeeze_dims %[[GW4]] {dims = array<i64: 2>}
// CHECK: return %[[GX]], %[[GW]]
func.func @transposed_1d(%x: tensor<2x4x5xf32>, %w: tensor<4x3x3xf32>, %c: tensor<2x3x11xf32>) -> (tensor<2x4x5xf32>, tensor<4x3x3xf32>) {
  %y, %gx, %gw = autograd.vjp @ct(%x, %w) cotangents(%c) wrt [0, 1] : (tensor<2x4x5xf32>, tensor<4x3x3xf32>), (tensor<2x3x11xf32>) -> tensor<2x3x11xf32>, tensor<2x4x5xf32>, tensor<4x3x3xf32>
  return %gx, %gw : tensor<2x4x5xf32>, tensor<4x3x3xf32>
}

// -----

// A transposed convolution whose output padding (1) reaches its stride (1),
// as its dilation (2) allows: the convolution giving the input's gradient has
// one more position per dim than the input; the gradient is its first four,
// and the weight gradient takes x padded with a zero row and column as that
// convolution's output cotangent.
func.func private @ctp(%x: tensor<1x2x4x4xf32>, %w: tensor<2x3x3x3xf32>) -> tensor<1x3x7x7xf32> {
  %0 = aten.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 2, 2>, transposed = true, output_padding = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<2x3x3x3xf32>) -> tensor<1x3x7x7xf32>
  return %0 : tensor<1x3x7x7xf32>
}
// CHECK-LABEL: func.func @transposed_output_padding(
// CHECK-SAME: %[[X:.*]]: tensor<1x2x4x4xf32>, %[[W:.*]]: tensor<2x3x3x3xf32>, %[[C:.*]]: tensor<1x3x7x7xf32>)
// CHECK: %[[D:.*]] = aten.convolution %[[C]], %[[W]] {{.*}} : (tensor<1x3x7x7xf32>, tensor<2x3x3x3xf32>) -> tensor<1x2x5x5xf32>
// CHECK: %[[XP:.*]] = aten.constant_pad_nd %[[X]] {pad = array<i64: 0, 1, 0, 1>{{.*}} -> tensor<1x2x5x5xf32>
// CHECK: aten.convolution_backward %[[XP]], %[[C]], %[[W]] {{.*}}output_mask = array<i1: false, true, false>
// CHECK: %[[S1:.*]] = aten.slice_tensor %[[D]][0, 4] {dim = 2 : i64} : tensor<1x2x5x5xf32> -> tensor<1x2x4x5xf32>
// CHECK: %[[S2:.*]] = aten.slice_tensor %[[S1]][0, 4] {dim = 3 : i64} : tensor<1x2x4x5xf32> -> tensor<1x2x4x4xf32>
// CHECK: return %[[S2]]
func.func @transposed_output_padding(%x: tensor<1x2x4x4xf32>, %w: tensor<2x3x3x3xf32>, %c: tensor<1x3x7x7xf32>) -> (tensor<1x2x4x4xf32>, tensor<2x3x3x3xf32>) {
  %y, %gx, %gw = autograd.vjp @ctp(%x, %w) cotangents(%c) wrt [0, 1] : (tensor<1x2x4x4xf32>, tensor<2x3x3x3xf32>), (tensor<1x3x7x7xf32>) -> tensor<1x3x7x7xf32>, tensor<1x2x4x4xf32>, tensor<2x3x3x3xf32>
  return %gx, %gw : tensor<1x2x4x4xf32>, tensor<2x3x3x3xf32>
}

// -----

// An unbatched conv2d (input [C, H, W]): the batched rule over a batch of one,
// the unit dim dropped from the input's gradient.
func.func private @ub(%x: tensor<3x6x6xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<4x4x4xf32> {
  %0 = aten.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<3x6x6xf32>, tensor<4x3x3x3xf32>) -> tensor<4x4x4xf32>
  return %0 : tensor<4x4x4xf32>
}
// CHECK-LABEL: func.func @unbatched(
// CHECK-SAME: %[[X:.*]]: tensor<3x6x6xf32>, %[[W:.*]]: tensor<4x3x3x3xf32>, %[[C:.*]]: tensor<4x4x4xf32>)
// CHECK: %[[X1:.*]] = aten.unsqueeze %[[X]], 0 : (tensor<3x6x6xf32>) -> tensor<1x3x6x6xf32>
// CHECK: %[[C1:.*]] = aten.unsqueeze %[[C]], 0 : (tensor<4x4x4xf32>) -> tensor<1x4x4x4xf32>
// CHECK: %[[GX1:.*]], %[[GW:.*]], %{{.*}} = aten.convolution_backward %[[C1]], %[[X1]], %[[W]] {{.*}}output_mask = array<i1: true, true, false>
// CHECK: %[[GX:.*]] = aten.squeeze_dims %[[GX1]] {dims = array<i64: 0>} : (tensor<1x3x6x6xf32>) -> tensor<3x6x6xf32>
// CHECK: return %[[GX]], %[[GW]]
func.func @unbatched(%x: tensor<3x6x6xf32>, %w: tensor<4x3x3x3xf32>, %c: tensor<4x4x4xf32>) -> (tensor<3x6x6xf32>, tensor<4x3x3x3xf32>) {
  %y, %gx, %gw = autograd.vjp @ub(%x, %w) cotangents(%c) wrt [0, 1] : (tensor<3x6x6xf32>, tensor<4x3x3x3xf32>), (tensor<4x4x4xf32>) -> tensor<4x4x4xf32>, tensor<3x6x6xf32>, tensor<4x3x3x3xf32>
  return %gx, %gw : tensor<3x6x6xf32>, tensor<4x3x3x3xf32>
}
