// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// aten.random: uniform and normal numbers of the program's generator state.

// CHECK-LABEL: func.func @random
// CHECK: aten.random %arg0, [4, %arg1] {distribution = "uniform", stream = 0 : i64} : tensor<2xi64> -> tensor<4x?xf32>
// CHECK: aten.random %arg0, [] {distribution = "normal", stream = 65535 : i64} : tensor<2xi64> -> tensor<f64>
func.func @random(%state: tensor<2xi64>, %n: index) -> (tensor<4x?xf32>, tensor<f64>) {
  %0 = aten.random %state, [4, %n] {distribution = "uniform", stream = 0 : i64} : tensor<2xi64> -> tensor<4x?xf32>
  %1 = aten.random %state, [] {distribution = "normal", stream = 65535 : i64} : tensor<2xi64> -> tensor<f64>
  return %0, %1 : tensor<4x?xf32>, tensor<f64>
}
