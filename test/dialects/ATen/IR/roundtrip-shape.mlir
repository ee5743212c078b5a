// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --mlir-print-op-generic | kiln-opt | FileCheck %s

// The view, join and scatter ops parse, print, and parse again to the same thing.

// CHECK-LABEL: func.func @views
func.func @views(%x: tensor<?x1x4xf32>, %n: index) -> tensor<?x4x4xf32> {
  // CHECK: aten.unsqueeze %{{.*}}, -1 : (tensor<?x1x4xf32>) -> tensor<?x1x4x1xf32>
  %0 = aten.unsqueeze %x, -1 : (tensor<?x1x4xf32>) -> tensor<?x1x4x1xf32>
  // CHECK: aten.squeeze_dims %{{.*}} {dims = array<i64: 1, 3>} : (tensor<?x1x4x1xf32>) -> tensor<?x4xf32>
  %1 = aten.squeeze_dims %0 {dims = array<i64: 1, 3>} : (tensor<?x1x4x1xf32>) -> tensor<?x4xf32>
  // CHECK: aten.slice_tensor %{{.*}}[%{{.*}}, 9223372036854775807] {dim = 0 : i64, step = 2 : i64} : tensor<?x4xf32> -> tensor<?x4xf32>
  %2 = aten.slice_tensor %1[%n, 9223372036854775807] {dim = 0 : i64, step = 2 : i64} : tensor<?x4xf32> -> tensor<?x4xf32>
  // CHECK: aten.select_int %{{.*}}[-1] {dim = 1 : i64} : tensor<?x4xf32> -> tensor<?xf32>
  %3 = aten.select_int %2[-1] {dim = 1 : i64} : tensor<?x4xf32> -> tensor<?xf32>
  // CHECK: aten.expand %{{.*}}[%{{.*}}, 4, -1] : tensor<?x1x4xf32> -> tensor<?x4x4xf32>
  %4 = aten.expand %x[%n, 4, -1] : tensor<?x1x4xf32> -> tensor<?x4x4xf32>
  return %4 : tensor<?x4x4xf32>
}

// CHECK-LABEL: func.func @gathers
func.func @gathers(%x: tensor<3x4xf32>) -> (tensor<2xf32>, tensor<3x2x2xf32>, tensor<2x2xf32>) {
  // CHECK: aten.diagonal %{{.*}} {offset = 2 : i64} : (tensor<3x4xf32>) -> tensor<2xf32>
  %0 = aten.diagonal %x {offset = 2 : i64} : (tensor<3x4xf32>) -> tensor<2xf32>
  // CHECK: aten.unfold %{{.*}} {dimension = 1 : i64, size = 2 : i64, step = 2 : i64} : (tensor<3x4xf32>) -> tensor<3x2x2xf32>
  %1 = aten.unfold %x {dimension = 1 : i64, size = 2 : i64, step = 2 : i64} : (tensor<3x4xf32>) -> tensor<3x2x2xf32>
  // CHECK: aten.as_strided %{{.*}} {size = array<i64: 2, 2>, storage_offset = 1 : i64, stride = array<i64: 4, 1>} : (tensor<3x4xf32>) -> tensor<2x2xf32>
  %2 = aten.as_strided %x {size = array<i64: 2, 2>, stride = array<i64: 4, 1>, storage_offset = 1 : i64} : (tensor<3x4xf32>) -> tensor<2x2xf32>
  return %0, %1, %2 : tensor<2xf32>, tensor<3x2x2xf32>, tensor<2x2xf32>
}

// CHECK-LABEL: func.func @joins_and_scatters
func.func @joins_and_scatters(%x: tensor<3x4xf32>, %y: tensor<4xi64>, %d: tensor<3xf32>) -> tensor<6x4xf32> {
  // CHECK: aten.copy %{{.*}}, %{{.*}} : (tensor<3x4xf32>, tensor<4xi64>) -> tensor<3x4xf32>
  %0 = aten.copy %x, %y : (tensor<3x4xf32>, tensor<4xi64>) -> tensor<3x4xf32>
  // CHECK: aten.slice_scatter %{{.*}}, %{{.*}}[0, 2] {dim = 1 : i64} : tensor<3x4xf32>, tensor<3x2xf32> -> tensor<3x4xf32>
  %s = aten.slice_tensor %0[0, 2] {dim = 1 : i64} : tensor<3x4xf32> -> tensor<3x2xf32>
  %1 = aten.slice_scatter %x, %s[0, 2] {dim = 1 : i64} : tensor<3x4xf32>, tensor<3x2xf32> -> tensor<3x4xf32>
  // CHECK: aten.select_scatter %{{.*}}, %{{.*}}[1] {dim = 1 : i64} : tensor<3x4xf32>, tensor<3xf32> -> tensor<3x4xf32>
  %2 = aten.select_scatter %1, %d[1] {dim = 1 : i64} : tensor<3x4xf32>, tensor<3xf32> -> tensor<3x4xf32>
  // CHECK: aten.diagonal_scatter %{{.*}}, %{{.*}} {offset = 1 : i64} : (tensor<3x4xf32>, tensor<3xf32>) -> tensor<3x4xf32>
  %3 = aten.diagonal_scatter %2, %d {offset = 1 : i64} : (tensor<3x4xf32>, tensor<3xf32>) -> tensor<3x4xf32>
  // CHECK: aten.cat %{{.*}}, %{{.*}} {dim = -2 : i64} : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<6x4xf32>
  %4 = aten.cat %3, %x {dim = -2 : i64} : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<6x4xf32>
  return %4 : tensor<6x4xf32>
}
