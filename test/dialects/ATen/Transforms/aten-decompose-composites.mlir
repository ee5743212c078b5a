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

// Training batch norm normalises with the batch statistics.
// CHECK-LABEL: func.func @batch_norm_training
// CHECK: %[[R:.*]], %{{.*}}, %{{.*}} = aten.native_batch_norm %{{.*}} {eps = 1.000000e-05 : f64, momentum = 1.000000e-01 : f64, training = true} : (tensor<2x4x8x8xf32>) -> (tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK: return %[[R]]
func.func @batch_norm_training(%x: tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32> {
  %0 = aten.batch_norm %x {training = true, momentum = 0.1 : f64, eps = 1.0e-5 : f64} : (tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  return %0 : tensor<2x4x8x8xf32>
}

// -----

// native_batch_norm without training is inference batch norm.
// CHECK-LABEL: func.func @native_batch_norm_inference
// CHECK: aten._native_batch_norm_legit_no_training %{{.*}} mean %{{.*}} var %{{.*}} {eps = 1.000000e-05 : f64, momentum = 1.000000e-01 : f64} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<0xf32>, tensor<0xf32>)
// CHECK-NOT: aten.native_batch_norm
func.func @native_batch_norm_inference(%x: tensor<2x4xf32>, %c: tensor<4xf32>) -> tensor<2x4xf32> {
  %0:3 = aten.native_batch_norm %x mean %c var %c {training = false, momentum = 0.1 : f64, eps = 1.0e-5 : f64} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<0xf32>, tensor<0xf32>)
  return %0#0 : tensor<2x4xf32>
}

// -----

// The functional form without training returns the running statistics as they are.
// CHECK-LABEL: func.func @functional_batch_norm_inference
// CHECK-SAME: (%[[X:.*]]: tensor<2x4xf32>, %[[M:.*]]: tensor<4xf32>, %[[V:.*]]: tensor<4xf32>)
// CHECK: %[[R:.*]], %{{.*}}, %{{.*}} = aten._native_batch_norm_legit_no_training %[[X]] mean %[[M]] var %[[V]]
// CHECK: return %[[R]], %[[M]], %[[V]]
func.func @functional_batch_norm_inference(%x: tensor<2x4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>) -> (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0:5 = aten._native_batch_norm_legit_functional %x mean %m var %v {training = false, momentum = 0.1 : f64, eps = 1.0e-5 : f64} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<0xf32>, tensor<0xf32>, tensor<4xf32>, tensor<4xf32>)
  return %0#0, %0#3, %0#4 : tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// layer_norm is the first result of native_layer_norm; the statistics have
// unit dims in place of the normalised ones.
// CHECK-LABEL: func.func @layer_norm
// CHECK: %[[R:.*]], %{{.*}}, %{{.*}} = aten.native_layer_norm %{{.*}} weight %{{.*}} bias %{{.*}} {eps = 1.000000e-05 : f64, normalized_shape = array<i64: 8, 16>} : (tensor<?x8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) -> (tensor<?x8x16xf32>, tensor<?x1x1xf32>, tensor<?x1x1xf32>)
// CHECK: return %[[R]]
func.func @layer_norm(%x: tensor<?x8x16xf32>, %w: tensor<8x16xf32>) -> tensor<?x8x16xf32> {
  %0 = aten.layer_norm %x weight %w bias %w {normalized_shape = array<i64: 8, 16>, eps = 1.0e-5 : f64} : (tensor<?x8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<?x8x16xf32>
  return %0 : tensor<?x8x16xf32>
}

// -----

// group_norm is the first result of native_group_norm ([N, G] statistics).
// CHECK-LABEL: func.func @group_norm
// CHECK: %[[R:.*]], %{{.*}}, %{{.*}} = aten.native_group_norm %{{.*}} {eps = 1.000000e-05 : f64, group = 2 : i64} : (tensor<3x6x5xf32>) -> (tensor<3x6x5xf32>, tensor<3x2xf32>, tensor<3x2xf32>)
// CHECK: return %[[R]]
func.func @group_norm(%x: tensor<3x6x5xf32>) -> tensor<3x6x5xf32> {
  %0 = aten.group_norm %x {num_groups = 2 : i64} : (tensor<3x6x5xf32>) -> tensor<3x6x5xf32>
  return %0 : tensor<3x6x5xf32>
}

// -----

// instance_norm with input statistics is group norm with a group per channel;
// with running statistics it is inference batch norm.
// CHECK-LABEL: func.func @instance_norm
// CHECK: aten.native_group_norm %{{.*}} weight %{{.*}} bias %{{.*}} {eps = 1.000000e-05 : f64, group = 6 : i64} : ({{.*}}) -> (tensor<3x6x5xf32>, tensor<3x6xf32>, tensor<3x6xf32>)
// CHECK: aten._native_batch_norm_legit_no_training %{{.*}} mean %{{.*}} var %{{.*}}
// CHECK-NOT: aten.instance_norm
func.func @instance_norm(%x: tensor<3x6x5xf32>, %c: tensor<6xf32>) -> (tensor<3x6x5xf32>, tensor<3x6x5xf32>) {
  %0 = aten.instance_norm %x weight %c bias %c {use_input_stats = true, momentum = 0.1 : f64, eps = 1.0e-5 : f64} : (tensor<3x6x5xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<3x6x5xf32>
  %1 = aten.instance_norm %x mean %c var %c {use_input_stats = false, momentum = 0.1 : f64, eps = 1.0e-5 : f64} : (tensor<3x6x5xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<3x6x5xf32>
  return %0, %1 : tensor<3x6x5xf32>, tensor<3x6x5xf32>
}

// -----

// softmax.int without a dtype change is _softmax; with one it stays.
// CHECK-LABEL: func.func @softmax_int
// CHECK: aten._softmax %{{.*}} {dim = -1 : i64} : (tensor<2x5xf32>) -> tensor<2x5xf32>
// CHECK: aten._log_softmax %{{.*}} {dim = 0 : i64} : (tensor<2x5xf32>) -> tensor<2x5xf32>
// CHECK: aten.softmax_int %{{.*}} {dim = 1 : i64, dtype = f64} : (tensor<2x5xf32>) -> tensor<2x5xf64>
func.func @softmax_int(%x: tensor<2x5xf32>) -> (tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf64>) {
  %0 = aten.softmax_int %x {dim = -1 : i64} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %1 = aten.log_softmax_int %x {dim = 0 : i64, dtype = f32} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %2 = aten.softmax_int %x {dim = 1 : i64, dtype = f64} : (tensor<2x5xf32>) -> tensor<2x5xf64>
  return %0, %1, %2 : tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf64>
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
