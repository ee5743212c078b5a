// RUN: kiln-opt %s -pass-pipeline='builtin.module(func.func(convert-aten-to-linalg))' | FileCheck %s

// Contractions are linalg.generic ops (batch..., n, k) initialised with the
// broadcast bias, so the bias add costs nothing extra.

// CHECK-DAG: #[[BIAS:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[LHS:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[WT:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[MAT:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[LHS3:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[WT3:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-DAG: #[[OUT3:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>

// CHECK-LABEL: func.func @linear
// CHECK-SAME: (%[[X:.*]]: tensor<?x64xf32>, %[[W:.*]]: tensor<16x64xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x64xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?x16xf32>
// CHECK: %[[INIT:.*]] = linalg.generic {indexing_maps = [#[[BIAS]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[B]] : tensor<16xf32>) outs(%[[E]] : tensor<?x16xf32>)
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[LHS]], #[[WT]], #[[OUT]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]], %[[W]] : tensor<?x64xf32>, tensor<16x64xf32>) outs(%[[INIT]] : tensor<?x16xf32>)
// CHECK: ^bb0(%[[A:.*]]: f32, %[[BB:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK: %[[P:.*]] = arith.mulf %[[A]], %[[BB]] : f32
// CHECK: %[[S:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK: linalg.yield %[[S]] : f32
// CHECK: return %[[R]] : tensor<?x16xf32>
func.func @linear(%x: tensor<?x64xf32>, %w: tensor<16x64xf32>, %b: tensor<16xf32>) -> tensor<?x16xf32> {
  %0 = aten.linear %x, %w, %b : (tensor<?x64xf32>, tensor<16x64xf32>, tensor<16xf32>) -> tensor<?x16xf32>
  return %0 : tensor<?x16xf32>
}

// Without a bias the init is zero; leading dims are batch dims.
// CHECK-LABEL: func.func @linear_no_bias_batched
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[F:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%{{.*}} : tensor<2x8x16xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[LHS3]], #[[WT3]], #[[OUT3]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<2x8x64xf32>, tensor<16x64xf32>) outs(%[[F]] : tensor<2x8x16xf32>)
func.func @linear_no_bias_batched(%x: tensor<2x8x64xf32>, %w: tensor<16x64xf32>) -> tensor<2x8x16xf32> {
  %0 = aten.linear %x, %w : (tensor<2x8x64xf32>, tensor<16x64xf32>) -> tensor<2x8x16xf32>
  return %0 : tensor<2x8x16xf32>
}

// addmm: the init is beta * self broadcast; alpha scales each product; mat2
// is read as [k, n].
// CHECK-LABEL: func.func @addmm
// CHECK: %[[INIT:.*]] = linalg.generic {indexing_maps = [#[[BIAS]], #[[ID2]]], {{.*}} ins(%{{.*}} : tensor<16xf32>) outs(%{{.*}} : tensor<8x16xf32>)
// CHECK: %[[BETA:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: arith.mulf %{{.*}}, %[[BETA]] : f32
// CHECK: linalg.generic {indexing_maps = [#[[LHS]], #[[MAT]], #[[OUT]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<8x64xf32>, tensor<64x16xf32>) outs(%[[INIT]] : tensor<8x16xf32>)
// CHECK: %[[P:.*]] = arith.mulf
// CHECK: %[[ALPHA:.*]] = arith.constant 2.000000e+00 : f32
// CHECK: %[[PA:.*]] = arith.mulf %[[P]], %[[ALPHA]] : f32
// CHECK: arith.addf %{{.*}}, %[[PA]] : f32
func.func @addmm(%b: tensor<16xf32>, %a: tensor<8x64xf32>, %m: tensor<64x16xf32>) -> tensor<8x16xf32> {
  %0 = aten.addmm %b, %a, %m {alpha = 2.0 : f64, beta = 0.5 : f64} : (tensor<16xf32>, tensor<8x64xf32>, tensor<64x16xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// beta = 0 ignores self entirely (NaN in it does not propagate), as ATen does.
// CHECK-LABEL: func.func @addmm_beta_zero
// CHECK-SAME: (%[[SELF:[^:]*]]: tensor<8x16xf32>
// CHECK-NOT: %[[SELF]]
// CHECK: linalg.fill
// CHECK-NOT: %[[SELF]]
// CHECK: return
func.func @addmm_beta_zero(%b: tensor<8x16xf32>, %a: tensor<8x64xf32>, %m: tensor<64x16xf32>) -> tensor<8x16xf32> {
  %0 = aten.addmm %b, %a, %m {beta = 0.0 : f64} : (tensor<8x16xf32>, tensor<8x64xf32>, tensor<64x16xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}
