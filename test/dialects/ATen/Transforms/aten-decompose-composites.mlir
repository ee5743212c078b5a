// RUN: kiln-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(aten-decompose-composites))' | FileCheck %s
// RUN: kiln-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(aten-decompose-composites))' -mlir-print-debuginfo | FileCheck %s --check-prefix=LOC

// conv2d becomes convolution (not transposed, zero output padding), keeping
// stride, padding, dilation and groups.
// CHECK-LABEL: func.func @conv2d
// CHECK-NOT: aten.conv2d
// CHECK: %[[C:.*]] = aten.convolution %{{.*}}, %{{.*}}, %{{.*}} {dilation = array<i64: 2, 2>, groups = 2 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x4x9x9xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<1x6x4x4xf32>
// CHECK-NOT: transposed
// CHECK: return %[[C]]
func.func @conv2d(%x: tensor<1x4x9x9xf32>, %w: tensor<6x2x3x3xf32>, %b: tensor<6xf32>) -> tensor<1x6x4x4xf32> {
  %0 = aten.conv2d %x, %w, %b {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 2, 2>, groups = 2 : i64} : (tensor<1x4x9x9xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<1x6x4x4xf32>
  return %0 : tensor<1x6x4x4xf32>
}

// -----

// Inference batch norm becomes the Core ATen op; its first result replaces it.
// CHECK-LABEL: func.func @batch_norm_inference
// CHECK: %[[R:.*]], %{{.*}}, %{{.*}} = aten._native_batch_norm_legit_no_training %{{.*}} weight %{{.*}} bias %{{.*}} mean %{{.*}} var %{{.*}} {eps = 1.000000e-03 : f64, momentum = 1.000000e-01 : f64} : (tensor<?x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<?x4x8x8xf32>, tensor<0xf32>, tensor<0xf32>)
// CHECK: return %[[R]]
func.func @batch_norm_inference(%x: tensor<?x4x8x8xf32>, %c: tensor<4xf32>) -> tensor<?x4x8x8xf32> {
  %0 = aten.batch_norm %x weight %c bias %c mean %c var %c {training = false, momentum = 0.1 : f64, eps = 1.0e-3 : f64} : (tensor<?x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<?x4x8x8xf32>
  return %0 : tensor<?x4x8x8xf32>
}

// -----

// Without weight and bias the optional operands stay absent.
// CHECK-LABEL: func.func @batch_norm_no_affine
// CHECK: aten._native_batch_norm_legit_no_training %{{.*}} mean %{{.*}} var %{{.*}} {eps
func.func @batch_norm_no_affine(%x: tensor<2x4xf32>, %c: tensor<4xf32>) -> tensor<2x4xf32> {
  %0 = aten.batch_norm %x mean %c var %c {training = false, momentum = 0.1 : f64, eps = 1.0e-5 : f64} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Training batch norm keeps its form.
// CHECK-LABEL: func.func @batch_norm_training
// CHECK: aten.batch_norm %{{.*}} {{.*}}training = true
// CHECK-NOT: aten._native_batch_norm_legit_no_training
func.func @batch_norm_training(%x: tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32> {
  %0 = aten.batch_norm %x {training = true, momentum = 0.1 : f64, eps = 1.0e-5 : f64} : (tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  return %0 : tensor<2x4x8x8xf32>
}

// -----

// Global average pooling (1x1 output) is a mean over the spatial dims.
// CHECK-LABEL: func.func @global_average_pool
// CHECK-NOT: aten.adaptive_avg_pool2d
// CHECK: aten.mean_dim %{{.*}} {dim = array<i64: -2, -1>, keepdim = true} : (tensor<?x8x7x7xf32>) -> tensor<?x8x1x1xf32>
func.func @global_average_pool(%x: tensor<?x8x7x7xf32>) -> tensor<?x8x1x1xf32> {
  %0 = aten.adaptive_avg_pool2d %x {output_size = array<i64: 1, 1>} : (tensor<?x8x7x7xf32>) -> tensor<?x8x1x1xf32>
  return %0 : tensor<?x8x1x1xf32>
}

// -----

// Any other output size stays an adaptive pool.
// CHECK-LABEL: func.func @adaptive_pool_kept
// CHECK: aten.adaptive_avg_pool2d %{{.*}} {output_size = array<i64: 2, 2>}
// CHECK-NOT: aten.mean_dim
func.func @adaptive_pool_kept(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x2x2xf32> {
  %0 = aten.adaptive_avg_pool2d %x {output_size = array<i64: 2, 2>} : (tensor<1x8x4x4xf32>) -> tensor<1x8x2x2xf32>
  return %0 : tensor<1x8x2x2xf32>
}

// -----

// Locations survive the rewrite.
// LOC-LABEL: func.func @keeps_location
// LOC: aten.convolution {{.*}} loc(#[[LOC:loc[0-9]*]])
// LOC: #[[LOC]] = loc("model.py":7:3)
func.func @keeps_location(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32> {
  %0 = aten.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32> loc("model.py":7:3)
  return %0 : tensor<1x6x6x6xf32>
}
