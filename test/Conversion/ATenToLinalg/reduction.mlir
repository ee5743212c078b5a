// RUN: kiln-opt %s -pass-pipeline='builtin.module(func.func(convert-aten-to-linalg))' | FileCheck %s

// mean.dim: a sum over the reduced loops into a zero-filled init, then a
// division by the number of reduced elements; keepdim expands the reduced
// dims back as unit dims.

// CHECK-DAG: #[[ID4:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[KEEP01:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
// CHECK-DAG: #[[ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[KEEP02:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[TO0D:.*]] = affine_map<(d0, d1) -> ()>

// CHECK-LABEL: func.func @mean_spatial_keepdim
// CHECK-SAME: (%[[X:.*]]: tensor<?x8x7x7xf32>)
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x8x7x7xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?x8xf32>
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%[[E]] : tensor<?x8xf32>)
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[ID4]], #[[KEEP01]]], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%[[X]] : tensor<?x8x7x7xf32>) outs(%[[INIT]] : tensor<?x8xf32>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK: %[[S:.*]] = arith.addf %[[ACC]], %[[IN]] : f32
// CHECK: linalg.yield %[[S]] : f32
// CHECK: %[[CNT:.*]] = arith.constant 4.900000e+01 : f32
// CHECK: %[[MEAN:.*]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<?x8xf32>)
// CHECK: arith.divf %{{.*}}, %[[CNT]] : f32
// CHECK: %[[R:.*]] = tensor.expand_shape %[[MEAN]] {{\[}}[0], [1, 2, 3]] output_shape [%[[N]], 8, 1, 1] : tensor<?x8xf32> into tensor<?x8x1x1xf32>
// CHECK: return %[[R]]
func.func @mean_spatial_keepdim(%x: tensor<?x8x7x7xf32>) -> tensor<?x8x1x1xf32> {
  %0 = aten.mean_dim %x {dim = array<i64: -2, -1>, keepdim = true} : (tensor<?x8x7x7xf32>) -> tensor<?x8x1x1xf32>
  return %0 : tensor<?x8x1x1xf32>
}

// Reducing a dynamic dim: the count is computed at run time.
// CHECK-LABEL: func.func @mean_dynamic_dim
// CHECK-SAME: (%[[X:.*]]: tensor<2x?x8xf32>)
// CHECK: %[[D:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<2x?x8xf32>
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[ID3]], #[[KEEP02]]], iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[X]] : tensor<2x?x8xf32>) outs(%{{.*}} : tensor<2x8xf32>)
// CHECK: %[[I:.*]] = arith.index_cast %[[D]] : index to i64
// CHECK: %[[CNT:.*]] = arith.sitofp %[[I]] : i64 to f32
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<2x8xf32>)
// CHECK: arith.divf %{{.*}}, %[[CNT]] : f32
// CHECK-NOT: tensor.expand_shape
// CHECK: return %[[R]] : tensor<2x8xf32>
func.func @mean_dynamic_dim(%x: tensor<2x?x8xf32>) -> tensor<2x8xf32> {
  %0 = aten.mean_dim %x {dim = array<i64: 1>} : (tensor<2x?x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// No dim reduces everything, to a 0-d tensor.
// CHECK-LABEL: func.func @mean_all
// CHECK: linalg.generic {indexing_maps = [#[[ID2]], #[[TO0D]]], iterator_types = ["reduction", "reduction"]} ins(%{{.*}} : tensor<2x3xf32>) outs(%{{.*}} : tensor<f32>)
// CHECK: arith.constant 6.000000e+00 : f32
// CHECK: return %{{.*}} : tensor<f32>
func.func @mean_all(%x: tensor<2x3xf32>) -> tensor<f32> {
  %0 = aten.mean_dim %x : (tensor<2x3xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// Everything with keepdim: the 0-d result expands with an empty reassociation.
// CHECK-LABEL: func.func @mean_all_keepdim
// CHECK: tensor.expand_shape %{{.*}} [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
func.func @mean_all_keepdim(%x: tensor<2x3xf32>) -> tensor<1x1xf32> {
  %0 = aten.mean_dim %x {keepdim = true} : (tensor<2x3xf32>) -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}

// A leading reduced dim with keepdim joins the first kept dim's group.
// CHECK-LABEL: func.func @mean_leading_keepdim
// CHECK: iterator_types = ["reduction", "parallel", "parallel"]
// CHECK: arith.constant 2.000000e+00 : f32
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2]] output_shape [1, 3, 4] : tensor<3x4xf32> into tensor<1x3x4xf32>
func.func @mean_leading_keepdim(%x: tensor<2x3x4xf32>) -> tensor<1x3x4xf32> {
  %0 = aten.mean_dim %x {dim = array<i64: 0>, keepdim = true} : (tensor<2x3x4xf32>) -> tensor<1x3x4xf32>
  return %0 : tensor<1x3x4xf32>
}
