// RUN: kiln-opt %s | kiln-opt | FileCheck %s

// The N-d pooling and the upsample ops print and parse back with their
// attributes (defaults elided).

// CHECK-LABEL: func.func @pools
func.func @pools(%x: tensor<1x2x4x6x6xf32>, %y: tensor<2x6x6xi64>, %g: tensor<2x3x3xf32>, %z: tensor<2x6x6xf32>) {
  // CHECK: aten.max_pool3d_with_indices %{{.*}} {ceil_mode = true, dilation = array<i64: 1, 1, 1>, kernel_size = array<i64: 2, 2, 2>, padding = array<i64: 0, 0, 0>, stride = array<i64: 2, 2, 2>}
  %0:2 = aten.max_pool3d_with_indices %x {kernel_size = array<i64: 2, 2, 2>, stride = array<i64: 2, 2, 2>, padding = array<i64: 0, 0, 0>, dilation = array<i64: 1, 1, 1>, ceil_mode = true} : (tensor<1x2x4x6x6xf32>) -> (tensor<1x2x2x3x3xf32>, tensor<1x2x2x3x3xi64>)
  // CHECK: aten.avg_pool2d %{{.*}} {count_include_pad = false, divisor_override = 5 : i64, kernel_size = array<i64: 2, 2>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<2x6x6xi64>) -> tensor<2x4x4xi64>
  %1 = aten.avg_pool2d %y {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, count_include_pad = false, divisor_override = 5 : i64} : (tensor<2x6x6xi64>) -> tensor<2x4x4xi64>
  // CHECK: aten.adaptive_avg_pool3d %{{.*}} {output_size = array<i64: 3, 2, 1>}
  %2 = aten.adaptive_avg_pool3d %x {output_size = array<i64: 3, 2, 1>} : (tensor<1x2x4x6x6xf32>) -> tensor<1x2x3x2x1xf32>
  // CHECK: aten.avg_pool2d_backward %{{.*}}, %{{.*}} {kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>}
  %3 = aten.avg_pool2d_backward %g, %z {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>} : (tensor<2x3x3xf32>, tensor<2x6x6xf32>) -> tensor<2x6x6xf32>
  return
}

// CHECK-LABEL: func.func @upsample
func.func @upsample(%x: tensor<1x2x4x4xf32>, %u: tensor<1x2x5xui8>) {
  // CHECK: aten.upsample_bilinear2d %{{.*}} {align_corners = true, output_size = array<i64: 7, 9>}
  %0 = aten.upsample_bilinear2d %x {output_size = array<i64: 7, 9>, align_corners = true} : (tensor<1x2x4x4xf32>) -> tensor<1x2x7x9xf32>
  // CHECK: aten.upsample_nearest1d %{{.*}} {scales = array<f64: 2.500000e+00>} : (tensor<1x2x5xui8>) -> tensor<1x2x12xui8>
  %1 = aten.upsample_nearest1d %u {scales = array<f64: 2.5>} : (tensor<1x2x5xui8>) -> tensor<1x2x12xui8>
  // CHECK: aten.upsample_bicubic2d %{{.*}} {output_size = array<i64: 8, 8>, scales = array<f64: 2.000000e+00, 0.000000e+00>}
  %2 = aten.upsample_bicubic2d %x {output_size = array<i64: 8, 8>, scales = array<f64: 2.0, 0.0>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x8x8xf32>
  // CHECK: aten._upsample_bicubic2d_aa %{{.*}} {output_size = array<i64: 3, 2>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x3x2xf32>
  %3 = aten._upsample_bicubic2d_aa %x {output_size = array<i64: 3, 2>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x3x2xf32>
  // CHECK: aten._upsample_bilinear2d_aa %{{.*}} {align_corners = true, scales = array<f64: 5.000000e-01, 5.000000e-01>}
  %4 = aten._upsample_bilinear2d_aa %x {scales = array<f64: 0.5, 0.5>, align_corners = true} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  return
}
