// RUN: kiln-opt %s -split-input-file -convert-aten-to-linalg | FileCheck %s
// RUN: kiln-opt %s -split-input-file -convert-aten-to-linalg=conv-backward-calls=true | FileCheck %s --check-prefix=LIB

// The backward-formula ops (lib/Conversion/ATenToLinalg/Backward.cpp).

// CHECK-LABEL: func.func @threshold_backward
// CHECK: linalg.generic
// CHECK: arith.cmpf ole
// CHECK: arith.select
func.func @threshold_backward(%g: tensor<2x4xf32>, %x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %0 = aten.threshold_backward %g, %x : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// CHECK-LABEL: func.func @gelu_backward
// CHECK: linalg.generic
// CHECK: math.erf
// CHECK: math.exp
// CHECK-LABEL: func.func @gelu_backward_tanh
// CHECK: math.tanh
func.func @gelu_backward(%g: tensor<2x4xf32>, %x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %0 = aten.gelu_backward %g, %x : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
func.func @gelu_backward_tanh(%g: tensor<2x4xf32>, %x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %0 = aten.gelu_backward %g, %x {approximate = "tanh"} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Leading dims and dims that become 1 are reduced; the unit dims come back
// through expand_shape.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @sum_to_size
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["reduction", "parallel", "reduction"]}
// CHECK-SAME: ins(%{{.*}} : tensor<?x3x4xf32>) outs(%{{.*}} : tensor<3xf32>)
// CHECK: arith.addf
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [3, 1] : tensor<3xf32> into tensor<3x1xf32>
func.func @sum_to_size(%g: tensor<?x3x4xf32>) -> tensor<3x1xf32> {
  %0 = aten.sum_to_size %g : (tensor<?x3x4xf32>) -> tensor<3x1xf32>
  return %0 : tensor<3x1xf32>
}

// -----

// Bias: a sum over (n, oh, ow); weight: g against the padded input at
// oh*s + kh*d; input: g spread by the stride (a gather), against the
// flipped weight.
// With conv-backward-calls the ops computing the weight gradient, the
// spread grad_output and the input gradient carry kiln.conv_backward with
// the convolution's parameters, for the library-call passes.
// LIB-LABEL: func.func @convolution_backward
// LIB: linalg.generic {{.*}}outs(%{{.*}} : tensor<4xf32>)
// LIB-NOT: kiln.conv_backward
// LIB: linalg.generic {{.*}}ins(%arg0, %{{.*}} : tensor<2x4x4x4xf32>, tensor<2x3x10x10xf32>) outs(%{{.*}} : tensor<1x4x3x3x3xf32>) attrs =  {kiln.conv_backward = {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1>, part = "weight", stride = array<i64: 2, 2>}}
// LIB: linalg.generic {{.*}}outs(%{{.*}} : tensor<2x4x10x10xf32>) attrs =  {kiln.conv_backward = {{{.*}}part = "spread"
// LIB: linalg.generic {{.*}}outs(%{{.*}} : tensor<2x1x3x8x8xf32>) attrs =  {kiln.conv_backward = {{{.*}}part = "input"
// CHECK-LABEL: func.func @convolution_backward
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction", "reduction", "reduction"]{{.*}}outs(%{{.*}} : tensor<4xf32>)
// CHECK: tensor.pad
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]{{.*}}outs(%{{.*}} : tensor<1x4x3x3x3xf32>)
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2], [3], [4]] : tensor<1x4x3x3x3xf32> into tensor<4x3x3x3xf32>
// CHECK: linalg.generic {{.*}}outs(%{{.*}} : tensor<2x4x10x10xf32>)
// CHECK: tensor.extract
// CHECK: linalg.generic {{.*}}outs(%{{.*}} : tensor<2x1x3x8x8xf32>)
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2], [3], [4]] : tensor<2x1x3x8x8xf32> into tensor<2x3x8x8xf32>
func.func @convolution_backward(%g: tensor<2x4x4x4xf32>, %x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) {
  %0:3 = aten.convolution_backward %g, %x, %w {dilation = array<i64: 1, 1>, output_mask = array<i1: true, true, true>, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<2x4x4x4xf32>, tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>)
  return %0#0, %0#1, %0#2 : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>
}

// -----

// Only the masked-in gradients are computed.
// CHECK-LABEL: func.func @convolution_backward_weight_only
// CHECK-COUNT-1: linalg.generic
// CHECK-NOT: linalg.generic
func.func @convolution_backward_weight_only(%g: tensor<2x4x8x8xf32>, %x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<4x3x3x3xf32> {
  %0:3 = aten.convolution_backward %g, %x, %w {dilation = array<i64: 1, 1>, output_mask = array<i1: false, true, false>, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<2x4x8x8xf32>, tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>)
  return %0#1 : tensor<4x3x3x3xf32>
}

// -----

// With 8 or more output channels per group the weight gradient runs
// channels-last: g transposed to [N, OH, OW, F], the output channel the
// innermost (parallel) loop after the (n, oh, ow) reduction, and the
// [G, Cg, KH, KW, Fg] result transposed back.
// With conv-backward-calls: no transposes, the form a library call takes.
// LIB-LABEL: func.func @convolution_backward_weight_channels_last
// LIB-NOT: linalg.transpose
// LIB: linalg.generic {{.*}}ins(%arg0, %{{.*}} : tensor<2x16x8x8xf32>, tensor<2x3x10x10xf32>) outs(%{{.*}} : tensor<1x16x3x3x3xf32>) attrs =  {kiln.conv_backward = {{{.*}}part = "weight"
// LIB-NOT: linalg.transpose
// CHECK-LABEL: func.func @convolution_backward_weight_channels_last
// CHECK: tensor.pad
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x16x8x8xf32>) outs(%{{.*}} : tensor<2x8x8x16xf32>) permutation = [0, 2, 3, 1]
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel"]{{.*}}ins(%{{.*}}, %{{.*}} : tensor<2x8x8x16xf32>, tensor<2x3x10x10xf32>) outs(%{{.*}} : tensor<1x3x3x3x16xf32>)
// CHECK: linalg.transpose ins(%{{.*}} : tensor<1x3x3x3x16xf32>) outs(%{{.*}} : tensor<1x16x3x3x3xf32>) permutation = [0, 4, 1, 2, 3]
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2], [3], [4]] : tensor<1x16x3x3x3xf32> into tensor<16x3x3x3xf32>
func.func @convolution_backward_weight_channels_last(%g: tensor<2x16x8x8xf32>, %x: tensor<2x3x8x8xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<16x3x3x3xf32> {
  %0:3 = aten.convolution_backward %g, %x, %w {dilation = array<i64: 1, 1>, output_mask = array<i1: false, true, false>, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<2x16x8x8xf32>, tensor<2x3x8x8xf32>, tensor<16x3x3x3xf32>) -> (tensor<2x3x8x8xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>)
  return %0#1 : tensor<16x3x3x3xf32>
}

// -----

// Each input element gathers from the windows whose argmax it is.
// CHECK-LABEL: func.func @max_pool2d_with_indices_backward
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK: tensor.extract %{{.*}} : tensor<2x4x4x4xi64>
// CHECK: arith.cmpi eq
// CHECK: tensor.extract %{{.*}} : tensor<2x4x4x4xf32>
func.func @max_pool2d_with_indices_backward(%g: tensor<2x4x4x4xf32>, %x: tensor<2x4x8x8xf32>, %i: tensor<2x4x4x4xi64>) -> tensor<2x4x8x8xf32> {
  %0 = aten.max_pool2d_with_indices_backward %g, %x, %i {dilation = array<i64: 1, 1>, kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : (tensor<2x4x4x4xf32>, tensor<2x4x8x8xf32>, tensor<2x4x4x4xi64>) -> tensor<2x4x8x8xf32>
  return %0 : tensor<2x4x8x8xf32>
}

// -----

// The forward with indices: value and flat h*W+w offset of each window's max.
// CHECK-LABEL: func.func @max_pool2d_with_indices
// CHECK: %[[V:.*]]:2 = linalg.generic {{.*}}outs(%{{.*}}, %{{.*}} : tensor<2x4x4x4xf32>, tensor<2x4x4x4xi64>)
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf uno
// CHECK: return %[[V]]#0, %[[V]]#1
func.func @max_pool2d_with_indices(%x: tensor<2x4x8x8xf32>) -> (tensor<2x4x4x4xf32>, tensor<2x4x4x4xi64>) {
  %0:2 = aten.max_pool2d_with_indices %x {dilation = array<i64: 1, 1>, kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : (tensor<2x4x8x8xf32>) -> (tensor<2x4x4x4xf32>, tensor<2x4x4x4xi64>)
  return %0#0, %0#1 : tensor<2x4x4x4xf32>, tensor<2x4x4x4xi64>
}

// -----

// CHECK-LABEL: func.func @adaptive_avg_pool2d_backward
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK: arith.ceildivui
// CHECK: arith.divf
func.func @adaptive_avg_pool2d_backward(%g: tensor<2x4x3x3xf32>, %x: tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32> {
  %0 = aten._adaptive_avg_pool2d_backward %g, %x : (tensor<2x4x3x3xf32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  return %0 : tensor<2x4x8x8xf32>
}

// -----

// Inference batch norm: grad_input elementwise, weight and bias gradients in
// one reduction over every dim but the channel.
// CHECK-LABEL: func.func @native_batch_norm_backward
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK: math.sqrt
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction", "parallel", "reduction", "reduction"]{{.*}}outs(%{{.*}}, %{{.*}} : tensor<4xf32>, tensor<4xf32>)
func.func @native_batch_norm_backward(%g: tensor<2x4x8x8xf32>, %x: tensor<2x4x8x8xf32>, %w: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>) -> (tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0:3 = aten.native_batch_norm_backward %g, %x weight %w mean %m var %v {eps = 1.0e-05 : f64, output_mask = array<i1: true, true, true>, train = false} : (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>)
  return %0#0, %0#1, %0#2 : tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>
}
