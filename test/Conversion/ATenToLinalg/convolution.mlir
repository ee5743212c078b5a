// RUN: kiln-opt %s -pass-pipeline='builtin.module(func.func(convert-aten-to-linalg))' | FileCheck %s
// RUN: kiln-opt %s -pass-pipeline='builtin.module(func.func(convert-aten-to-linalg{conv-backward-calls=true}))' | FileCheck %s --check-prefix=LIB

// Convolutions become linalg's NCHW named ops on a padded input, initialised
// with the bias broadcast along the channel dim.

// CHECK-DAG: #[[CHAN:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// LIB-DAG: #[[CHAN:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-DAG: #[[ID4:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[GIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, d1, d6, d3 * 2 + d7, d4 * 2 + d8, d5 * 2 + d9)>
// CHECK-DAG: #[[GWT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d1, d2, d6, d7, d8, d9)>
// CHECK-DAG: #[[GOUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, d1, d2, d3, d4, d5)>
// CHECK-DAG: #[[FLIP:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, -d3 + 2)>

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

// A 1-d convolution runs as a 2-d one over a unit height (here with groups).
// CHECK-LABEL: func.func @conv1d_groups
// CHECK: %[[X:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2], [3]] output_shape [2, 4, 1, 9] : tensor<2x4x9xf32> into tensor<2x4x1x9xf32>
// CHECK: %[[W:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2], [3]] output_shape [6, 2, 1, 3] : tensor<6x2x3xf32> into tensor<6x2x1x3xf32>
// CHECK: tensor.pad %[[X]] low[0, 0, 0, 1] high[0, 0, 0, 1]
// CHECK: linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<[1, 2]> : tensor<2xi64>} {{.*}} -> tensor<2x2x3x1x5xf32>
// CHECK: %[[C:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2], [3], [4]] : tensor<2x2x3x1x5xf32> into tensor<2x6x1x5xf32>
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[C]] {{\[}}[0], [1, 2], [3]] : tensor<2x6x1x5xf32> into tensor<2x6x5xf32>
// CHECK: return %[[R]]
func.func @conv1d_groups(%x: tensor<2x4x9xf32>, %w: tensor<6x2x3xf32>, %b: tensor<6xf32>) -> tensor<2x6x5xf32> {
  %0 = aten.convolution %x, %w, %b {stride = array<i64: 2>, padding = array<i64: 1>, dilation = array<i64: 1>, groups = 2 : i64, output_padding = array<i64: 0>} : (tensor<2x4x9xf32>, tensor<6x2x3xf32>, tensor<6xf32>) -> tensor<2x6x5xf32>
  return %0 : tensor<2x6x5xf32>
}

// 3-d, int64: the named NCDHW op on integers (muli/addi, exact).
// CHECK-LABEL: func.func @conv3d_i64
// CHECK: %[[Z:.*]] = arith.constant 0 : i64
// CHECK: %[[F:.*]] = linalg.fill ins(%[[Z]] : i64)
// CHECK: linalg.conv_3d_ncdhw_fcdhw {dilations = dense<1> : tensor<3xi64>, strides = dense<1> : tensor<3xi64>} ins(%{{.*}}, %{{.*}} : tensor<1x2x4x4x4xi64>, tensor<3x2x2x2x2xi64>) outs(%[[F]] : tensor<1x3x3x3x3xi64>)
func.func @conv3d_i64(%x: tensor<1x2x4x4x4xi64>, %w: tensor<3x2x2x2x2xi64>) -> tensor<1x3x3x3x3xi64> {
  %0 = aten.convolution %x, %w {stride = array<i64: 1, 1, 1>, padding = array<i64: 0, 0, 0>, dilation = array<i64: 1, 1, 1>, output_padding = array<i64: 0, 0, 0>} : (tensor<1x2x4x4x4xi64>, tensor<3x2x2x2x2xi64>) -> tensor<1x3x3x3x3xi64>
  return %0 : tensor<1x3x3x3x3xi64>
}

// Grouped 3-d: one linalg.generic over (n, g, f, od, oh, ow, c, kd, kh, kw).
// CHECK-LABEL: func.func @conv3d_groups
// CHECK: linalg.generic {indexing_maps = [#[[GIN]], #[[GWT]], #[[GOUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<1x2x2x5x5x5xf32>, tensor<2x1x2x2x2x2xf32>) outs(%{{.*}} : tensor<1x2x1x2x2x2xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2], [3], [4], [5]] : tensor<1x2x1x2x2x2xf32> into tensor<1x2x2x2x2xf32>
func.func @conv3d_groups(%x: tensor<1x4x5x5x5xf32>, %w: tensor<2x2x2x2x2xf32>) -> tensor<1x2x2x2x2xf32> {
  %0 = aten.convolution %x, %w {stride = array<i64: 2, 2, 2>, padding = array<i64: 0, 0, 0>, dilation = array<i64: 1, 1, 1>, groups = 2 : i64, output_padding = array<i64: 0, 0, 0>} : (tensor<1x4x5x5x5xf32>, tensor<2x2x2x2x2xf32>) -> tensor<1x2x2x2x2xf32>
  return %0 : tensor<1x2x2x2x2xf32>
}

// float16 accumulates in float32 (bias included) and rounds once at the end.
// CHECK-LABEL: func.func @conv_f16
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: %[[C:.*]] = linalg.conv_2d_nchw_fchw {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x3x8x8xf16>, tensor<6x3x3x3xf16>) outs(%{{.*}} : tensor<1x6x6x6xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[C]] : tensor<1x6x6x6xf32>) outs(%{{.*}} : tensor<1x6x6x6xf16>)
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @conv_f16(%x: tensor<1x3x8x8xf16>, %w: tensor<6x3x3x3xf16>, %b: tensor<6xf16>) -> tensor<1x6x6x6xf16> {
  %0 = aten.convolution %x, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x3x8x8xf16>, tensor<6x3x3x3xf16>, tensor<6xf16>) -> tensor<1x6x6x6xf16>
  return %0 : tensor<1x6x6x6xf16>
}

// Transposed (1-d, stride 2, padding 1, output_padding 1, 2 groups): the
// input is spread out by the stride with L = d*(K-1) - p = 1 zeros before it
// and L + output_padding after it (5 -> 12), the weight [C_in, F/G, K] becomes
// [F, C_in/G, K] with its taps flipped, and a stride-1 convolution follows
// (12 - 2 = 10 outputs).
// CHECK-LABEL: func.func @conv_transposed
// CHECK: %[[P:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x4x12xf32>)
// CHECK: %[[J:.*]] = linalg.index 2 : index
// CHECK: arith.subi %[[J]], %{{.*}} : index
// CHECK: arith.remui
// CHECK: arith.divui
// CHECK: tensor.extract %{{.*}} : tensor<1x4x5xf32>
// CHECK: arith.select
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2], [3]] output_shape [2, 2, 3, 3] : tensor<4x3x3xf32> into tensor<2x2x3x3xf32>
// CHECK: linalg.generic {indexing_maps = [#[[FLIP]], {{.*}}]{{.*}} outs(%{{.*}} : tensor<2x3x2x3xf32>)
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2], [3]] : tensor<2x3x2x3xf32> into tensor<6x2x3xf32>
// CHECK: linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} {{.*}} -> tensor<1x2x3x1x10xf32>
// CHECK: tensor.collapse_shape %{{.*}} : tensor<1x6x1x10xf32> into tensor<1x6x10xf32>
// With conv-backward-calls a 1-d transposed convolution keeps this form
// (only 2-d ones take the input gradient's, below).
// LIB-LABEL: func.func @conv_transposed
// LIB: linalg.conv_2d_ngchw_gfchw
func.func @conv_transposed(%x: tensor<1x4x5xf32>, %w: tensor<4x3x3xf32>) -> tensor<1x6x10xf32> {
  %0 = aten.convolution %x, %w {stride = array<i64: 2>, padding = array<i64: 1>, dilation = array<i64: 1>, transposed = true, groups = 2 : i64, output_padding = array<i64: 1>} : (tensor<1x4x5xf32>, tensor<4x3x3xf32>) -> tensor<1x6x10xf32>
  return %0 : tensor<1x6x10xf32>
}

// With conv-backward-calls a float32 2-d transposed convolution (here 2x2,
// stride 2 with a bias: 4x4 -> 8x8) is the input gradient of the direct
// convolution sharing its weight, in the form the library calls take
// (Backward.cpp): the spread of x ([N, C_in, 8 + 1, 8 + 1], marked
// "spread") and the gather over it into [N, G, F/G, 8, 8] (marked "input"),
// then the bias added along the channels in a loop of its own. Without the
// option, the spread and a direct convolution.
// CHECK-LABEL: func.func @conv_transposed_bias
// CHECK: linalg.conv_2d_nchw_fchw
// LIB-LABEL: func.func @conv_transposed_bias
// LIB-NOT: linalg.conv
// LIB: linalg.generic {{.*}} outs(%{{.*}} : tensor<2x8x9x9xf32>) attrs = {kiln.conv_backward = {{.*}}part = "spread"
// LIB: linalg.generic {{.*}} outs(%{{.*}} : tensor<2x1x4x8x8xf32>) attrs = {kiln.conv_backward = {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 0, 0>, part = "input", stride = array<i64: 2, 2>}}
// LIB: %[[OUT:.*]] = tensor.collapse_shape %{{.*}} : tensor<2x1x4x8x8xf32> into tensor<2x4x8x8xf32>
// LIB: linalg.generic {indexing_maps = [#{{.*}}, #[[CHAN]], #{{.*}}], {{.*}} ins(%[[OUT]], %{{.*}} : tensor<2x4x8x8xf32>, tensor<4xf32>) outs(%{{.*}} : tensor<2x4x8x8xf32>)
// LIB: arith.addf
// LIB-NOT: linalg.conv
// LIB: return
func.func @conv_transposed_bias(%x: tensor<2x8x4x4xf32>, %w: tensor<8x4x2x2xf32>, %b: tensor<4xf32>) -> tensor<2x4x8x8xf32> {
  %0 = aten.convolution %x, %w, %b {stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, transposed = true, output_padding = array<i64: 0, 0>} : (tensor<2x8x4x4xf32>, tensor<8x4x2x2xf32>, tensor<4xf32>) -> tensor<2x4x8x8xf32>
  return %0 : tensor<2x4x8x8xf32>
}
