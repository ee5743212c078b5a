// RUN: kiln-opt %s -pass-pipeline='builtin.module(func.func(convert-aten-to-linalg))' | FileCheck %s

// Convolutions become linalg's NCHW named ops on a padded input, initialised
// with the bias broadcast along the channel dim.

// CHECK-DAG: #[[CHAN:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-DAG: #[[ID4:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// CHECK-LABEL: func.func @conv_bias_padding_stride
// CHECK-SAME: (%[[X:.*]]: tensor<?x3x8x8xf32>, %[[W:.*]]: tensor<6x3x3x3xf32>, %[[B:.*]]: tensor<6xf32>)
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[PAD:.*]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: tensor.yield %[[ZERO]] : f32
// CHECK: } : tensor<?x3x8x8xf32> to tensor<?x3x10x10xf32>
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x3x8x8xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?x6x4x4xf32>
// CHECK: %[[INIT:.*]] = linalg.generic {indexing_maps = [#[[CHAN]], #[[ID4]]], {{.*}} ins(%[[B]] : tensor<6xf32>) outs(%[[E]] : tensor<?x6x4x4xf32>)
// CHECK: %[[R:.*]] = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[PAD]], %[[W]] : tensor<?x3x10x10xf32>, tensor<6x3x3x3xf32>) outs(%[[INIT]] : tensor<?x6x4x4xf32>)
// CHECK: return %[[R]]
func.func @conv_bias_padding_stride(%x: tensor<?x3x8x8xf32>, %w: tensor<6x3x3x3xf32>, %b: tensor<6xf32>) -> tensor<?x6x4x4xf32> {
  %0 = aten.convolution %x, %w, %b {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, transposed = false, output_padding = array<i64: 0, 0>} : (tensor<?x3x8x8xf32>, tensor<6x3x3x3xf32>, tensor<6xf32>) -> tensor<?x6x4x4xf32>
  return %0 : tensor<?x6x4x4xf32>
}

// Without padding there is no tensor.pad; without bias the init is zero.
// Dilation reaches the named op.
// CHECK-LABEL: func.func @conv_dilation_no_bias
// CHECK-NOT: tensor.pad
// CHECK: %[[F:.*]] = linalg.fill
// CHECK: linalg.conv_2d_nchw_fchw {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%{{.*}}, %{{.*}} : tensor<1x3x8x8xf32>, tensor<6x3x3x3xf32>) outs(%[[F]] : tensor<1x6x4x4xf32>)
func.func @conv_dilation_no_bias(%x: tensor<1x3x8x8xf32>, %w: tensor<6x3x3x3xf32>) -> tensor<1x6x4x4xf32> {
  %0 = aten.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 2, 2>, output_padding = array<i64: 0, 0>} : (tensor<1x3x8x8xf32>, tensor<6x3x3x3xf32>) -> tensor<1x6x4x4xf32>
  return %0 : tensor<1x6x4x4xf32>
}

// groups > 1: input, weight and init are split into groups for
// conv_2d_ngchw_gfchw, and the result is collapsed back to NCHW.
// CHECK-LABEL: func.func @conv_groups
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x8x8xf32>, %[[W:.*]]: tensor<6x2x3x3xf32>)
// CHECK: %[[F:.*]] = linalg.fill {{.*}} -> tensor<1x6x6x6xf32>
// CHECK: %[[GX:.*]] = tensor.expand_shape %[[X]] {{\[}}[0], [1, 2], [3], [4]] output_shape [1, 2, 2, 8, 8] : tensor<1x4x8x8xf32> into tensor<1x2x2x8x8xf32>
// CHECK: %[[GW:.*]] = tensor.expand_shape %[[W]] {{\[}}[0, 1], [2], [3], [4]] output_shape [2, 3, 2, 3, 3] : tensor<6x2x3x3xf32> into tensor<2x3x2x3x3xf32>
// CHECK: %[[GI:.*]] = tensor.expand_shape %[[F]] {{\[}}[0], [1, 2], [3], [4]] output_shape [1, 2, 3, 6, 6] : tensor<1x6x6x6xf32> into tensor<1x2x3x6x6xf32>
// CHECK: %[[G:.*]] = linalg.conv_2d_ngchw_gfchw {{.*}} ins(%[[GX]], %[[GW]] : tensor<1x2x2x8x8xf32>, tensor<2x3x2x3x3xf32>) outs(%[[GI]] : tensor<1x2x3x6x6xf32>)
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[G]] {{\[}}[0], [1, 2], [3], [4]] : tensor<1x2x3x6x6xf32> into tensor<1x6x6x6xf32>
// CHECK: return %[[R]]
func.func @conv_groups(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<1x6x6x6xf32> {
  %0 = aten.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 2 : i64, output_padding = array<i64: 0, 0>} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// A 3-d (CHW) input gets a unit batch dim for the named op, then loses it.
// CHECK-LABEL: func.func @conv_unbatched
// CHECK-SAME: (%[[X:.*]]: tensor<3x8x8xf32>
// CHECK: %[[B:.*]] = tensor.expand_shape %[[X]] {{\[}}[0, 1], [2], [3]] output_shape [1, 3, 8, 8] : tensor<3x8x8xf32> into tensor<1x3x8x8xf32>
// CHECK: %[[C:.*]] = linalg.conv_2d_nchw_fchw {{.*}} ins(%[[B]], %{{.*}} : tensor<1x3x8x8xf32>, tensor<6x3x3x3xf32>) outs(%{{.*}} : tensor<1x6x6x6xf32>)
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[C]] {{\[}}[0, 1], [2], [3]] : tensor<1x6x6x6xf32> into tensor<6x6x6xf32>
// CHECK: return %[[R]]
func.func @conv_unbatched(%x: tensor<3x8x8xf32>, %w: tensor<6x3x3x3xf32>) -> tensor<6x6x6xf32> {
  %0 = aten.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<3x8x8xf32>, tensor<6x3x3x3xf32>) -> tensor<6x6x6xf32>
  return %0 : tensor<6x6x6xf32>
}
