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
// CHECK-DAG: #[[BL:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d2, d4)>
// CHECK-DAG: #[[BR:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d4, d3)>
// CHECK-DAG: #[[BO:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[VL:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-DAG: #[[VR:.*]] = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
// CHECK-DAG: #[[LO:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[DIAG:.*]] = affine_map<(d0) -> (d0, d0)>
// CHECK-DAG: #[[ID1:.*]] = affine_map<(d0) -> (d0)>

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

// matmul broadcasts batch dims: a static unit batch dim reads index 0.
// CHECK-LABEL: func.func @matmul_broadcast
// CHECK: linalg.generic {indexing_maps = [#[[BL]], #[[BR]], #[[BO]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<2x1x4x6xf32>, tensor<3x6x5xf32>) outs(%{{.*}} : tensor<2x3x4x5xf32>)
func.func @matmul_broadcast(%a: tensor<2x1x4x6xf32>, %b: tensor<3x6x5xf32>) -> tensor<2x3x4x5xf32> {
  %0 = aten.matmul %a, %b : (tensor<2x1x4x6xf32>, tensor<3x6x5xf32>) -> tensor<2x3x4x5xf32>
  return %0 : tensor<2x3x4x5xf32>
}

// A 1-d operand: no m (or n) loop, its unit dim never appears.
// CHECK-LABEL: func.func @matmul_vector_lhs
// CHECK: linalg.generic {indexing_maps = [#[[VL]], #[[VR]], #[[OUT]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<6xf32>, tensor<2x6x5xf32>) outs(%{{.*}} : tensor<2x5xf32>)
func.func @matmul_vector_lhs(%a: tensor<6xf32>, %b: tensor<2x6x5xf32>) -> tensor<2x5xf32> {
  %0 = aten.matmul %a, %b : (tensor<6xf32>, tensor<2x6x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// bmm with dynamic batch; float16 accumulates in float32.
// CHECK-LABEL: func.func @bmm_half
// CHECK: %[[ACC:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<?x4x6xf16>, tensor<?x6x5xf16>) outs(%{{.*}} : tensor<?x4x5xf32>)
// CHECK: %[[A:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK: %[[B:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK: arith.mulf %[[A]], %[[B]] : f32
// CHECK: linalg.generic {{.*}} ins(%[[ACC]] : tensor<?x4x5xf32>) outs(%{{.*}} : tensor<?x4x5xf16>)
// CHECK: arith.truncf
func.func @bmm_half(%a: tensor<?x4x6xf16>, %b: tensor<?x6x5xf16>) -> tensor<?x4x5xf16> {
  %0 = aten.bmm %a, %b : (tensor<?x4x6xf16>, tensor<?x6x5xf16>) -> tensor<?x4x5xf16>
  return %0 : tensor<?x4x5xf16>
}

// Integer products multiply and add in the integer type.
// CHECK-LABEL: func.func @mm_int
// CHECK: arith.muli %{{.*}}, %{{.*}} : i64
// CHECK: arith.addi %{{.*}}, %{{.*}} : i64
func.func @mm_int(%a: tensor<4x6xi64>, %b: tensor<6x5xi64>) -> tensor<4x5xi64> {
  %0 = aten.mm %a, %b : (tensor<4x6xi64>, tensor<6x5xi64>) -> tensor<4x5xi64>
  return %0 : tensor<4x5xi64>
}

// linear with a 1-d weight contracts the last dim away.
// CHECK-LABEL: func.func @linear_vector_weight
// CHECK: linalg.generic {indexing_maps = [#[[ID2]], #[[BIAS]], #[[LO]]], iterator_types = ["parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<8x64xf32>, tensor<64xf32>) outs(%{{.*}} : tensor<8xf32>)
func.func @linear_vector_weight(%x: tensor<8x64xf32>, %w: tensor<64xf32>) -> tensor<8xf32> {
  %0 = aten.linear %x, %w : (tensor<8x64xf32>, tensor<64xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// einsum: one loop per subscript; a repeated subscript reads the diagonal.
// CHECK-LABEL: func.func @einsum_diagonal
// CHECK: linalg.generic {indexing_maps = [#[[DIAG]], #[[ID1]]], iterator_types = ["parallel"]} ins(%{{.*}} : tensor<4x4xf32>) outs(%{{.*}} : tensor<4xf32>)
func.func @einsum_diagonal(%a: tensor<4x4xf32>) -> tensor<4xf32> {
  %0 = aten.einsum "ii->i"(%a) : (tensor<4x4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// einsum of three operands: one generic multiplying all of them.
// CHECK-LABEL: func.func @einsum_chain
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]} ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<3xf32>, tensor<3x4xf32>, tensor<4xf32>) outs(%{{.*}} : tensor<f32>)
// CHECK: %[[P:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK: %[[Q:.*]] = arith.mulf %[[P]], %{{.*}} : f32
// CHECK: arith.addf %{{.*}}, %[[Q]] : f32
func.func @einsum_chain(%a: tensor<3xf32>, %b: tensor<3x4xf32>, %c: tensor<4xf32>) -> tensor<f32> {
  %0 = aten.einsum "i,ij,j->"(%a, %b, %c) : (tensor<3xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}
