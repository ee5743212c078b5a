// RUN: kiln-opt %s -pass-pipeline='builtin.module(func.func(convert-aten-to-linalg))' | FileCheck %s

// aten.random: one linalg.generic evaluating Philox4x32-10 per element; the
// seed and the offset are 0-d slices of the state read by every element, the
// counter is (linear index, stream << 16, offset), ten rounds of two
// multiply-high/low each.

// CHECK-LABEL: func.func @uniform
// CHECK-SAME: (%[[S:.*]]: tensor<2xi64>, %[[N:.*]]: index)
// CHECK-DAG: %[[SEED:.*]] = tensor.extract_slice %[[S]][0] [1] [1] : tensor<2xi64> to tensor<i64>
// CHECK-DAG: %[[OFF:.*]] = tensor.extract_slice %[[S]][1] [1] [1] : tensor<2xi64> to tensor<i64>
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<4x?xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%[[SEED]], %[[OFF]] : tensor<i64>, tensor<i64>) outs(%[[E]] : tensor<4x?xf32>)
// CHECK: linalg.index 0
// CHECK: linalg.index 1
// CHECK: arith.constant 196608 : i32
// CHECK-COUNT-20: arith.mului_extended
// CHECK: arith.uitofp {{.*}} : i32 to f32
// CHECK: arith.constant 5.96046448E-8 : f32
// CHECK: linalg.yield
func.func @uniform(%state: tensor<2xi64>, %n: index) -> tensor<4x?xf32> {
  %0 = aten.random %state, [4, %n] {distribution = "uniform", stream = 3 : i64} : tensor<2xi64> -> tensor<4x?xf32>
  return %0 : tensor<4x?xf32>
}

// Normal numbers: Box-Muller of two uniforms, sqrt(-2 log u1) cos(2 pi u2),
// computed in float32 for a bfloat16 result and rounded once.
// CHECK-LABEL: func.func @normal_bf16
// CHECK-COUNT-20: arith.mului_extended
// CHECK: math.log
// CHECK: math.sqrt
// CHECK: math.cos
// CHECK: arith.truncf {{.*}} : f32 to bf16
func.func @normal_bf16(%state: tensor<2xi64>) -> tensor<8xbf16> {
  %0 = aten.random %state, [8] {distribution = "normal", stream = 0 : i64} : tensor<2xi64> -> tensor<8xbf16>
  return %0 : tensor<8xbf16>
}

// float64 takes 53 bits of two words.
// CHECK-LABEL: func.func @uniform_f64
// CHECK: arith.shrui {{.*}} : i64
// CHECK: arith.uitofp {{.*}} : i64 to f64
func.func @uniform_f64(%state: tensor<2xi64>) -> tensor<3xf64> {
  %0 = aten.random %state, [3] {distribution = "uniform", stream = 1 : i64} : tensor<2xi64> -> tensor<3xf64>
  return %0 : tensor<3xf64>
}
