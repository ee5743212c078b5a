// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --mlir-print-op-generic | kiln-opt | FileCheck %s

// The gather, scatter and pad ops parse, print, and parse again to the same thing.

// CHECK-LABEL: func.func @gathers
func.func @gathers(%x: tensor<4x5xf32>, %i: tensor<3xi64>, %g: tensor<4x2xi32>) -> tensor<?x2xi64> {
  // CHECK: aten.index_select %{{.*}}, %{{.*}} {dim = 1 : i64} : (tensor<4x5xf32>, tensor<3xi64>) -> tensor<4x3xf32>
  %0 = aten.index_select %x, %i {dim = 1 : i64} : (tensor<4x5xf32>, tensor<3xi64>) -> tensor<4x3xf32>
  // CHECK: aten.gather %{{.*}}, %{{.*}} {dim = 1 : i64} : (tensor<4x5xf32>, tensor<4x2xi32>) -> tensor<4x2xf32>
  %1 = aten.gather %x, %g {dim = 1 : i64} : (tensor<4x5xf32>, tensor<4x2xi32>) -> tensor<4x2xf32>
  // CHECK: aten.index_tensor %{{.*}}[%{{.*}}] {index_dims = array<i64: 1>} : (tensor<4x5xf32>, tensor<3xi64>) -> tensor<4x3xf32>
  %2 = aten.index_tensor %x[%i] {index_dims = array<i64: 1>} : (tensor<4x5xf32>, tensor<3xi64>) -> tensor<4x3xf32>
  // CHECK: aten.nonzero %{{.*}} : (tensor<4x5xf32>) -> tensor<?x2xi64>
  %3 = aten.nonzero %x : (tensor<4x5xf32>) -> tensor<?x2xi64>
  return %3 : tensor<?x2xi64>
}

// CHECK-LABEL: func.func @scatters
func.func @scatters(%x: tensor<4x5xf32>, %i: tensor<3xi64>, %g: tensor<4x2xi64>, %s: tensor<4x2xf32>, %v: tensor<f32>) -> tensor<4x5xf32> {
  // CHECK: aten.scatter %{{.*}}, %{{.*}}, %{{.*}} {dim = 1 : i64, include_self = false, reduce = "amax"} : (tensor<4x5xf32>, tensor<4x2xi64>, tensor<4x2xf32>) -> tensor<4x5xf32>
  %0 = aten.scatter %x, %g, %s {dim = 1 : i64, reduce = "amax", include_self = false} : (tensor<4x5xf32>, tensor<4x2xi64>, tensor<4x2xf32>) -> tensor<4x5xf32>
  // CHECK: aten.index_put %{{.*}}[%{{.*}}], %{{.*}} {accumulate = true, index_dims = array<i64: 0>} : (tensor<4x5xf32>, tensor<3xi64>, tensor<f32>) -> tensor<4x5xf32>
  %1 = aten.index_put %0[%i], %v {index_dims = array<i64: 0>, accumulate = true} : (tensor<4x5xf32>, tensor<3xi64>, tensor<f32>) -> tensor<4x5xf32>
  return %1 : tensor<4x5xf32>
}

// CHECK-LABEL: func.func @layout
func.func @layout(%x: tensor<4x5xf32>) -> tensor<4x8xf32> {
  // CHECK: aten.flip %{{.*}} {dims = array<i64: 0, -1>} : (tensor<4x5xf32>) -> tensor<4x5xf32>
  %0 = aten.flip %x {dims = array<i64: 0, -1>} : (tensor<4x5xf32>) -> tensor<4x5xf32>
  // CHECK: aten.roll %{{.*}} {dims = array<i64: 1>, shifts = array<i64: -2>} : (tensor<4x5xf32>) -> tensor<4x5xf32>
  %1 = aten.roll %0 {shifts = array<i64: -2>, dims = array<i64: 1>} : (tensor<4x5xf32>) -> tensor<4x5xf32>
  // CHECK: aten.repeat %{{.*}} {repeats = array<i64: 1, 2>} : (tensor<4x5xf32>) -> tensor<4x10xf32>
  %2 = aten.repeat %1 {repeats = array<i64: 1, 2>} : (tensor<4x5xf32>) -> tensor<4x10xf32>
  // CHECK: aten.tril %{{.*}} {diagonal = -1 : i64} : tensor<4x10xf32>
  %3 = aten.tril %2 {diagonal = -1 : i64} : tensor<4x10xf32>
  // CHECK: aten.triu %{{.*}} : tensor<4x10xf32>
  %4 = aten.triu %3 : tensor<4x10xf32>
  // CHECK: aten.constant_pad_nd %{{.*}} {pad = array<i64: 1, -3>, value = 5.000000e-01 : f64} : (tensor<4x10xf32>) -> tensor<4x8xf32>
  %5 = aten.constant_pad_nd %4 {pad = array<i64: 1, -3>, value = 0.5 : f64} : (tensor<4x10xf32>) -> tensor<4x8xf32>
  // CHECK: aten.reflection_pad %{{.*}} {padding = array<i64: 1, 2>} : (tensor<4x5xf32>) -> tensor<4x8xf32>
  %6 = aten.reflection_pad %x {padding = array<i64: 1, 2>} : (tensor<4x5xf32>) -> tensor<4x8xf32>
  // CHECK: aten.replication_pad %{{.*}} {padding = array<i64: 1, 2>} : (tensor<4x5xf32>) -> tensor<4x8xf32>
  %7 = aten.replication_pad %x {padding = array<i64: 1, 2>} : (tensor<4x5xf32>) -> tensor<4x8xf32>
  // CHECK: aten.circular_pad %{{.*}} {padding = array<i64: 1, 2>} : (tensor<4x5xf32>) -> tensor<4x8xf32>
  %8 = aten.circular_pad %x {padding = array<i64: 1, 2>} : (tensor<4x5xf32>) -> tensor<4x8xf32>
  return %8 : tensor<4x8xf32>
}
