// RUN: kiln-opt %s -pass-pipeline='builtin.module(func.func(convert-aten-to-linalg,canonicalize,cse))' | FileCheck %s

// scaled_dot_product_attention: scores = Q K^T, one elementwise generic
// applying the scale and the mask (causal from the loop indices, or a given
// mask through a broadcasting map: no mask tensor is built), a safe softmax
// (a row whose keys are all masked gives zeros), then P V divided by the row
// sum.

// CHECK-DAG: #[[Q:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[K:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-DAG: #[[S:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-DAG: #[[ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[V:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-DAG: #[[QG:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d5)>
// CHECK-DAG: #[[KG:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4, d5)>
// CHECK-DAG: #[[MASK:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d3, d4)>

// CHECK-LABEL: func.func @causal
// CHECK-SAME: (%[[QA:.*]]: tensor<2x4x8xf32>, %[[KA:.*]]: tensor<2x6x8xf32>, %[[VA:.*]]: tensor<2x6x3xf32>)
// CHECK-DAG: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[SCALE:.*]] = arith.constant 0.353553385 : f32
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[SC:.*]] = linalg.generic {indexing_maps = [#[[Q]], #[[K]], #[[S]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[QA]], %[[KA]] : tensor<2x4x8xf32>, tensor<2x6x8xf32>) outs(%{{.*}} : tensor<2x4x6xf32>)
// CHECK: %[[LG:.*]] = linalg.generic {indexing_maps = [#[[ID3]], #[[ID3]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[SC]] : tensor<2x4x6xf32>)
// CHECK: %[[T:.*]] = arith.mulf %{{.*}}, %[[SCALE]] : f32
// CHECK: %[[L:.*]] = linalg.index 1 : index
// CHECK: %[[J:.*]] = linalg.index 2 : index
// CHECK: %[[FUT:.*]] = arith.cmpi ugt, %[[J]], %[[L]] : index
// CHECK: arith.select %[[FUT]], %[[NINF]], %[[T]] : f32
// CHECK: %[[M:.*]] = linalg.generic {indexing_maps = [#[[ID3]], #[[ROW]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[LG]] : tensor<2x4x6xf32>)
// CHECK: arith.maximumf
// CHECK: %[[P:.*]] = linalg.generic {indexing_maps = [#[[ID3]], #[[ROW]], #[[ID3]]], {{.*}} ins(%[[LG]], %[[M]] : tensor<2x4x6xf32>, tensor<2x4xf32>)
// CHECK: ^bb0(%{{.*}}: f32, %[[MX:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[ALL:.*]] = arith.cmpf oeq, %[[MX]], %[[NINF]] : f32
// CHECK: %[[E:.*]] = math.exp
// CHECK: arith.select %[[ALL]], %[[ZERO]], %[[E]] : f32
// CHECK: %[[DEN:.*]] = linalg.generic {indexing_maps = [#[[ID3]], #[[ROW]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[P]] : tensor<2x4x6xf32>)
// CHECK: %[[PV:.*]] = linalg.generic {indexing_maps = [#[[Q]], #[[V]], #[[S]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[P]], %[[VA]] : tensor<2x4x6xf32>, tensor<2x6x3xf32>) outs(%{{.*}} : tensor<2x4x3xf32>)
// CHECK: %[[OUT:.*]] = linalg.generic {indexing_maps = [#[[ID3]], #[[ROW]], #[[ID3]]], {{.*}} ins(%[[PV]], %[[DEN]] : tensor<2x4x3xf32>, tensor<2x4xf32>)
// CHECK: %[[EMPTY:.*]] = arith.cmpf oeq, %{{.*}}, %[[ZERO]] : f32
// CHECK: %[[DIV:.*]] = arith.divf
// CHECK: arith.select %[[EMPTY]], %[[ZERO]], %[[DIV]] : f32
// CHECK: return %[[OUT]]
func.func @causal(%q: tensor<2x4x8xf32>, %k: tensor<2x6x8xf32>, %v: tensor<2x6x3xf32>) -> tensor<2x4x3xf32> {
  %0 = aten.scaled_dot_product_attention %q, %k, %v {is_causal = true} : (tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x3xf32>) -> tensor<2x4x3xf32>
  return %0 : tensor<2x4x3xf32>
}

// Grouped-query attention splits the 4 query heads into (2 kv heads, 2) so
// keys and values are read without a copy; a bool mask selects -inf where
// it is false.
// CHECK-LABEL: func.func @gqa_bool_mask
// CHECK-SAME: (%[[QA:.*]]: tensor<1x4x5x8xf32>, %[[KA:.*]]: tensor<1x2x6x8xf32>, %[[VA:.*]]: tensor<1x2x6x8xf32>, %[[MA:.*]]: tensor<5x6xi1>)
// CHECK: %[[QS:.*]] = tensor.expand_shape %[[QA]] {{\[}}[0], [1, 2], [3], [4]] output_shape [1, 2, 2, 5, 8] : tensor<1x4x5x8xf32> into tensor<1x2x2x5x8xf32>
// CHECK: linalg.generic {indexing_maps = [#[[QG]], #[[KG]], {{.*}}]{{.*}} ins(%[[QS]], %[[KA]] : tensor<1x2x2x5x8xf32>, tensor<1x2x6x8xf32>)
// CHECK: linalg.generic {indexing_maps = [{{.*}}, #[[MASK]], {{.*}}]{{.*}} ins(%{{.*}}, %[[MA]] : tensor<1x2x2x5x6xf32>, tensor<5x6xi1>)
// CHECK: ^bb0(%{{.*}}: f32, %[[KEEP:.*]]: i1, %{{.*}}: f32):
// CHECK: %[[T:.*]] = arith.mulf
// CHECK: arith.select %[[KEEP]], %[[T]], %{{.*}} : f32
// CHECK: %[[C:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2], [3], [4]] : tensor<1x2x2x5x8xf32> into tensor<1x4x5x8xf32>
// CHECK: return %[[C]]
func.func @gqa_bool_mask(%q: tensor<1x4x5x8xf32>, %k: tensor<1x2x6x8xf32>, %v: tensor<1x2x6x8xf32>, %m: tensor<5x6xi1>) -> tensor<1x4x5x8xf32> {
  %0 = aten.scaled_dot_product_attention %q, %k, %v mask %m {enable_gqa = true, scale = 0.25 : f64} : (tensor<1x4x5x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>, tensor<5x6xi1>) -> tensor<1x4x5x8xf32>
  return %0 : tensor<1x4x5x8xf32>
}

// A float mask is added to the scaled scores.
// CHECK-LABEL: func.func @float_mask
// CHECK: ^bb0(%[[SCORE:.*]]: f32, %[[ADD:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[T:.*]] = arith.mulf %[[SCORE]], %{{.*}} : f32
// CHECK: arith.addf %[[T]], %[[ADD]] : f32
func.func @float_mask(%q: tensor<2x4x8xf32>, %m: tensor<2x1x4xf32>) -> tensor<2x4x8xf32> {
  %0 = aten.scaled_dot_product_attention %q, %q, %q mask %m : (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x1x4xf32>) -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}
