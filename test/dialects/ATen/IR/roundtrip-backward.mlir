// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --mlir-print-op-generic | kiln-opt | FileCheck %s

// The backward-formula ops (ATenBackwardOps.td) parse, print and parse again.

// CHECK-LABEL: func.func @backward
func.func @backward(%g: tensor<2x4x8x8xf32>, %x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>,
                    %p: tensor<2x4x4x4xf32>, %i: tensor<2x4x4x4xi64>, %y: tensor<2x4x8x8xf32>,
                    %c: tensor<4xf32>) {
  // CHECK: aten.threshold_backward %{{.*}}, %{{.*}} {threshold = 1.000000e+00 : f64}
  %0 = aten.threshold_backward %g, %y {threshold = 1.0 : f64} : (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  // CHECK: aten.gelu_backward %{{.*}}, %{{.*}} {approximate = "tanh"}
  %1 = aten.gelu_backward %g, %y {approximate = "tanh"} : (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  // CHECK: aten.sum_to_size %{{.*}} : (tensor<2x4x8x8xf32>) -> tensor<4x1x1xf32>
  %2 = aten.sum_to_size %g : (tensor<2x4x8x8xf32>) -> tensor<4x1x1xf32>
  // CHECK: aten.convolution_backward %{{.*}}, %{{.*}}, %{{.*}} {dilation = array<i64: 1, 1>, output_mask = array<i1: true, true, false>
  %3:3 = aten.convolution_backward %g, %x, %w {dilation = array<i64: 1, 1>, output_mask = array<i1: true, true, false>, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<2x4x8x8xf32>, tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>)
  // CHECK: aten.max_pool2d_with_indices_backward %{{.*}}, %{{.*}}, %{{.*}} {dilation
  %4 = aten.max_pool2d_with_indices_backward %p, %y, %i {dilation = array<i64: 1, 1>, kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : (tensor<2x4x4x4xf32>, tensor<2x4x8x8xf32>, tensor<2x4x4x4xi64>) -> tensor<2x4x8x8xf32>
  // CHECK: aten._adaptive_avg_pool2d_backward
  %5 = aten._adaptive_avg_pool2d_backward %p, %y : (tensor<2x4x4x4xf32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  // CHECK: aten.native_batch_norm_backward %{{.*}}, %{{.*}} weight %{{.*}} mean %{{.*}} var %{{.*}} {eps
  %6:3 = aten.native_batch_norm_backward %g, %y weight %c mean %c var %c {eps = 1.0e-05 : f64, output_mask = array<i1: true, true, true>, train = false} : (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}
