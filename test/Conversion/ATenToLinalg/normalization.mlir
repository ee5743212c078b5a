// RUN: kiln-opt %s -pass-pipeline='builtin.module(func.func(convert-aten-to-linalg))' | FileCheck %s

// Inference batch norm: per-channel scale = weight * rsqrt(var + eps) and
// shift = bias - mean * scale first (one small generic over C), then one
// multiply-add per element reading scale and shift along dim 1.

// CHECK-DAG: #[[ID1:.*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[ID4:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[CH4:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-DAG: #[[ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[CH2:.*]] = affine_map<(d0, d1) -> (d1)>

// CHECK-LABEL: func.func @batch_norm
// CHECK-SAME: (%[[X:.*]]: tensor<?x4x8x8xf32>, %[[W:[^:]*]]: tensor<4xf32>, %[[B:[^:]*]]: tensor<4xf32>, %[[M:[^:]*]]: tensor<4xf32>, %[[V:[^:]*]]: tensor<4xf32>)
// CHECK: %[[F:.*]]:2 = linalg.generic {indexing_maps = [#[[ID1]], #[[ID1]], #[[ID1]], #[[ID1]], #[[ID1]], #[[ID1]]], iterator_types = ["parallel"]} ins(%[[M]], %[[V]], %[[W]], %[[B]] : {{.*}}) outs(%{{.*}}, %{{.*}} : tensor<4xf32>, tensor<4xf32>)
// CHECK: ^bb0(%[[MI:.*]]: f32, %[[VI:.*]]: f32, %[[WI:.*]]: f32, %[[BI:.*]]: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK: %[[EPS:.*]] = arith.constant 1.000000e-03 : f32
// CHECK: %[[VE:.*]] = arith.addf %[[VI]], %[[EPS]] : f32
// CHECK: %[[INV:.*]] = math.rsqrt %[[VE]] : f32
// CHECK: %[[SCALE:.*]] = arith.mulf %[[WI]], %[[INV]] : f32
// CHECK: %[[MS:.*]] = arith.mulf %[[MI]], %[[SCALE]] : f32
// CHECK: %[[NMS:.*]] = arith.negf %[[MS]] : f32
// CHECK: %[[SHIFT:.*]] = arith.addf %[[BI]], %[[NMS]] : f32
// CHECK: linalg.yield %[[SCALE]], %[[SHIFT]] : f32, f32
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x4x8x8xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?x4x8x8xf32>
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID4]], #[[CH4]], #[[CH4]], #[[ID4]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[X]], %[[F]]#0, %[[F]]#1 : tensor<?x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>) outs(%[[E]] : tensor<?x4x8x8xf32>)
// CHECK: ^bb0(%[[XI:.*]]: f32, %[[SI:.*]]: f32, %[[TI:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[XS:.*]] = arith.mulf %[[XI]], %[[SI]] : f32
// CHECK: %[[Y:.*]] = arith.addf %[[XS]], %[[TI]] : f32
// CHECK: linalg.yield %[[Y]] : f32
// CHECK: return %[[R]]
func.func @batch_norm(%x: tensor<?x4x8x8xf32>, %w: tensor<4xf32>, %b: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>) -> tensor<?x4x8x8xf32> {
  %0:3 = aten._native_batch_norm_legit_no_training %x weight %w bias %b mean %m var %v {momentum = 0.1 : f64, eps = 1.0e-3 : f64} : (tensor<?x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<?x4x8x8xf32>, tensor<0xf32>, tensor<0xf32>)
  return %0#0 : tensor<?x4x8x8xf32>
}

// Without weight and bias: scale = rsqrt(var + eps), shift = -mean * scale.
// A 2-d input reads the channel along dim 1 too.
// CHECK-LABEL: func.func @batch_norm_no_affine
// CHECK-SAME: (%[[X:.*]]: tensor<2x4xf32>, %[[M:[^:]*]]: tensor<4xf32>, %[[V:[^:]*]]: tensor<4xf32>)
// CHECK: %[[F:.*]]:2 = linalg.generic {{.*}} ins(%[[M]], %[[V]] : tensor<4xf32>, tensor<4xf32>)
// CHECK: ^bb0(%[[MI:.*]]: f32, %[[VI:.*]]: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK: %[[INV:.*]] = math.rsqrt
// CHECK: %[[MS:.*]] = arith.mulf %[[MI]], %[[INV]] : f32
// CHECK: %[[NMS:.*]] = arith.negf %[[MS]] : f32
// CHECK: linalg.yield %[[INV]], %[[NMS]] : f32, f32
// CHECK: linalg.generic {indexing_maps = [#[[ID2]], #[[CH2]], #[[CH2]], #[[ID2]]], {{.*}} ins(%[[X]], %[[F]]#0, %[[F]]#1 : tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>)
func.func @batch_norm_no_affine(%x: tensor<2x4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>) -> tensor<2x4xf32> {
  %0:3 = aten._native_batch_norm_legit_no_training %x mean %m var %v {momentum = 0.1 : f64, eps = 1.0e-5 : f64} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<0xf32>, tensor<0xf32>)
  return %0#0 : tensor<2x4xf32>
}

// The saved statistics of inference are empty tensors.
// CHECK-LABEL: func.func @batch_norm_saved_stats
// CHECK: %[[S1:.*]] = tensor.empty() : tensor<0xf32>
// CHECK: %[[S2:.*]] = tensor.empty() : tensor<0xf32>
// CHECK: return %{{.*}}, %[[S1]], %[[S2]] : tensor<2x4xf32>, tensor<0xf32>, tensor<0xf32>
func.func @batch_norm_saved_stats(%x: tensor<2x4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>) -> (tensor<2x4xf32>, tensor<0xf32>, tensor<0xf32>) {
  %0:3 = aten._native_batch_norm_legit_no_training %x mean %m var %v {momentum = 0.1 : f64, eps = 1.0e-5 : f64} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<0xf32>, tensor<0xf32>)
  return %0#0, %0#1, %0#2 : tensor<2x4xf32>, tensor<0xf32>, tensor<0xf32>
}
