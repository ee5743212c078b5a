// RUN: kiln-opt %s | kiln-opt | FileCheck %s

// The elementwise and creation ops print and parse back.

// CHECK-LABEL: func.func @elementwise
func.func @elementwise(%x: tensor<?x4xf32>, %i: tensor<4xi64>, %u: tensor<4xui8>, %b: tensor<?x4xi1>, %s: tensor<f32>) {
  // CHECK: aten.sigmoid %{{.*}} : (tensor<4xi64>) -> tensor<4xf32>
  %0 = aten.sigmoid %i : (tensor<4xi64>) -> tensor<4xf32>
  // CHECK: aten.elu %{{.*}} {alpha = 5.000000e-01 : f64, input_scale = 2.000000e+00 : f64} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %1 = aten.elu %x {alpha = 0.5 : f64, scale = 1.0 : f64, input_scale = 2.0 : f64} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: aten.div_tensor_mode %{{.*}}, %{{.*}} {rounding_mode = "floor"} : (tensor<4xi64>, tensor<4xui8>) -> tensor<4xi64>
  %2 = aten.div_tensor_mode %i, %u {rounding_mode = "floor"} : (tensor<4xi64>, tensor<4xui8>) -> tensor<4xi64>
  // CHECK: aten.lt_tensor %{{.*}}, %{{.*}} : (tensor<?x4xf32>, tensor<4xi64>) -> tensor<?x4xi1>
  %3 = aten.lt_tensor %x, %i : (tensor<?x4xf32>, tensor<4xi64>) -> tensor<?x4xi1>
  // CHECK: aten.where_self %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x4xi1>, tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xf32>
  %4 = aten.where_self %b, %x, %s : (tensor<?x4xi1>, tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xf32>
  // CHECK: aten.clamp_tensor %{{.*}} max %{{.*}} : (tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xf32>
  %5 = aten.clamp_tensor %x max %s : (tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xf32>
  // CHECK: aten.clamp_tensor %{{.*}} min %{{.*}} max %{{.*}} : (tensor<?x4xf32>, tensor<f32>, tensor<f32>) -> tensor<?x4xf32>
  %6 = aten.clamp_tensor %x min %s max %s : (tensor<?x4xf32>, tensor<f32>, tensor<f32>) -> tensor<?x4xf32>
  // CHECK: aten.masked_fill_tensor %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x4xf32>, tensor<?x4xi1>, tensor<f32>) -> tensor<?x4xf32>
  %7 = aten.masked_fill_tensor %x, %b, %s : (tensor<?x4xf32>, tensor<?x4xi1>, tensor<f32>) -> tensor<?x4xf32>
  // CHECK: aten._to_copy %{{.*}} : (tensor<4xui8>) -> tensor<4xbf16>
  %8 = aten._to_copy %u : (tensor<4xui8>) -> tensor<4xbf16>
  // CHECK: aten.addcdiv %{{.*}}, %{{.*}}, %{{.*}} {value = 2.000000e+00 : f64} : (tensor<?x4xf32>, tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xf32>
  %9 = aten.addcdiv %x, %x, %s {value = 2.0 : f64} : (tensor<?x4xf32>, tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xf32>
  // CHECK: aten.nan_to_num %{{.*}} {posinf = 1.000000e+00 : f64} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %10 = aten.nan_to_num %x {posinf = 1.0 : f64} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return
}

// CHECK-LABEL: func.func @creation
func.func @creation(%n: index) {
  // CHECK: aten.full [2, %{{.*}}], 7 : ui8 : tensor<2x?xui8>
  %0 = aten.full [2, %n], 7 : ui8 : tensor<2x?xui8>
  // CHECK: aten.full [], 1.500000e+00 : f16 : tensor<f16>
  %1 = aten.full [], 1.5 : f16 : tensor<f16>
  // CHECK: aten.arange %{{.*}} {start = 0 : i64, step = 2 : i64} : tensor<?xi64>
  %2 = aten.arange %n {start = 0 : i64, step = 2 : i64} : tensor<?xi64>
  // CHECK: aten.arange {end = 3.000000e+00 : f64, start = 5.000000e-01 : f64, step = 5.000000e-01 : f64} : tensor<5xf32>
  %3 = aten.arange {start = 0.5 : f64, end = 3.0 : f64, step = 0.5 : f64} : tensor<5xf32>
  // CHECK: aten.linspace {end = 1.000000e+00 : f64, start = 0.000000e+00 : f64, steps = 5 : i64} : tensor<5xf64>
  %4 = aten.linspace {start = 0.0 : f64, end = 1.0 : f64, steps = 5 : i64} : tensor<5xf64>
  // CHECK: aten.eye {m = 4 : i64, n = 3 : i64} : tensor<3x4xi1>
  %5 = aten.eye {n = 3 : i64, m = 4 : i64} : tensor<3x4xi1>
  return
}
