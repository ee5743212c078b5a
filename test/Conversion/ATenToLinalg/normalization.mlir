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

// Softmax: the row max, the sum of exp(x - max), then exp(x - max) / sum;
// the statistics are read back through maps that drop the reduced dim.
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.*]]: tensor<2x?xf32>)
// CHECK: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[M0:.*]] = linalg.fill ins(%[[NINF]] : f32) outs(%{{.*}} : tensor<2xf32>)
// CHECK: %[[M:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<2x?xf32>) outs(%[[M0]] : tensor<2xf32>)
// CHECK: arith.maximumf
// CHECK: %[[S:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[X]], %[[M]] : tensor<2x?xf32>, tensor<2xf32>)
// CHECK: %[[D:.*]] = arith.subf
// CHECK: %[[E:.*]] = math.exp %[[D]] : f32
// CHECK: arith.addf %{{.*}}, %[[E]] : f32
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[M]], %[[S]] : tensor<2x?xf32>, tensor<2xf32>, tensor<2xf32>)
// CHECK: math.exp
// CHECK: arith.divf
func.func @softmax(%x: tensor<2x?xf32>) -> tensor<2x?xf32> {
  %0 = aten._softmax %x {dim = -1 : i64} : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return %0 : tensor<2x?xf32>
}

// log_softmax of float16 along the last dim: float32 compute; the log-sum is
// stored as float16 first, as ATen's CPU kernel does.
// CHECK-LABEL: func.func @log_softmax_half
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<2x5xf16>)
// CHECK: %[[XF:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK: %[[D:.*]] = arith.subf %[[XF]], %{{.*}} : f32
// CHECK: %[[SH:.*]] = arith.truncf %{{.*}} : f32 to f16
// CHECK: %[[SF:.*]] = arith.extf %[[SH]] : f16 to f32
// CHECK: %[[L:.*]] = math.log %[[SF]] : f32
// CHECK: %[[LH:.*]] = arith.truncf %[[L]] : f32 to f16
// CHECK: %[[LF:.*]] = arith.extf %[[LH]] : f16 to f32
// CHECK: %[[R:.*]] = arith.subf %[[D]], %[[LF]] : f32
// CHECK: arith.truncf %[[R]] : f32 to f16
func.func @log_softmax_half(%x: tensor<2x5xf16>) -> tensor<2x5xf16> {
  %0 = aten._log_softmax %x {dim = 1 : i64} : (tensor<2x5xf16>) -> tensor<2x5xf16>
  return %0 : tensor<2x5xf16>
}

// native_layer_norm: two-pass mean and variance over the normalised dims,
// rsqrt(var + eps), one normalising generic; the statistics come back with
// unit dims.
// CHECK-LABEL: func.func @native_layer_norm
// CHECK-SAME: (%[[X:.*]]: tensor<2x8xf32>, %[[W:.*]]: tensor<8xf32>)
// CHECK: %[[N:.*]] = arith.constant 8.000000e+00 : f32
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<2x8xf32>) outs(%{{.*}} : tensor<2xf32>)
// CHECK: %[[MEAN:.*]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<2xf32>)
// CHECK: arith.divf %{{.*}}, %[[N]] : f32
// CHECK: %[[SQ:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[MEAN]] : tensor<2x8xf32>, tensor<2xf32>)
// CHECK: %[[VAR:.*]] = linalg.generic {{.*}} ins(%[[SQ]] : tensor<2xf32>)
// CHECK: %[[RSTD:.*]] = linalg.generic {{.*}} ins(%[[VAR]] : tensor<2xf32>)
// CHECK: %[[EPS:.*]] = arith.constant 9.99999974E-6 : f32
// CHECK: %[[VE:.*]] = arith.addf %{{.*}}, %[[EPS]] : f32
// CHECK: math.rsqrt %[[VE]] : f32
// CHECK: %[[Y:.*]] = linalg.generic {indexing_maps = [#[[ID2]], #[[ROW:.*]], #[[ROW]], #[[COL:.*]], #[[COL]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[MEAN]], %[[RSTD]], %[[W]], %[[W]] :
// CHECK: %[[C:.*]] = arith.subf
// CHECK: %[[NORM:.*]] = arith.mulf %[[C]], %{{.*}} : f32
// CHECK: %[[SC:.*]] = arith.mulf %[[NORM]], %{{.*}} : f32
// CHECK: arith.addf %[[SC]], %{{.*}} : f32
// CHECK: %[[M1:.*]] = tensor.expand_shape %[[MEAN]] {{\[}}[0, 1]] output_shape [2, 1] : tensor<2xf32> into tensor<2x1xf32>
// CHECK: %[[R1:.*]] = tensor.expand_shape %[[RSTD]] {{\[}}[0, 1]] output_shape [2, 1] : tensor<2xf32> into tensor<2x1xf32>
// CHECK: return %[[Y]], %[[M1]], %[[R1]]
func.func @native_layer_norm(%x: tensor<2x8xf32>, %w: tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x1xf32>) {
  %0:3 = aten.native_layer_norm %x weight %w bias %w {normalized_shape = array<i64: 8>, eps = 1.0e-5 : f64} : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  return %0#0, %0#1, %0#2 : tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x1xf32>
}

// native_group_norm views C as [G, C/G]; statistics per (n, g).
// CHECK-LABEL: func.func @native_group_norm
// CHECK: %[[XG:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2], [3]] output_shape [3, 2, 3, 5] : tensor<3x6x5xf32> into tensor<3x2x3x5xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%[[XG]] : tensor<3x2x3x5xf32>) outs(%{{.*}} : tensor<3x2xf32>)
// CHECK: %[[WG:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0, 1]] output_shape [2, 3] : tensor<6xf32> into tensor<2x3xf32>
// CHECK: %[[YG:.*]] = linalg.generic {{.*}} ins(%[[XG]], %{{.*}}, %{{.*}}, %[[WG]] : tensor<3x2x3x5xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<2x3xf32>)
// CHECK: tensor.collapse_shape %[[YG]] {{\[}}[0], [1, 2], [3]] : tensor<3x2x3x5xf32> into tensor<3x6x5xf32>
func.func @native_group_norm(%x: tensor<3x6x5xf32>, %w: tensor<6xf32>) -> (tensor<3x6x5xf32>, tensor<3x2xf32>, tensor<3x2xf32>) {
  %0:3 = aten.native_group_norm %x weight %w {group = 2 : i64, eps = 1.0e-5 : f64} : (tensor<3x6x5xf32>, tensor<6xf32>) -> (tensor<3x6x5xf32>, tensor<3x2xf32>, tensor<3x2xf32>)
  return %0#0, %0#1, %0#2 : tensor<3x6x5xf32>, tensor<3x2xf32>, tensor<3x2xf32>
}

// rms_norm: x * rsqrt(mean(x^2) + eps) * weight; no eps means the dtype's
// machine epsilon.
// CHECK-LABEL: func.func @rms_norm
// CHECK: %[[SQ:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<2x8xf32>)
// CHECK: arith.mulf
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[SQ]], %{{.*}} : tensor<2x8xf32>, tensor<2xf32>, tensor<8xf32>)
// CHECK: %[[MS:.*]] = arith.divf
// CHECK: %[[EPS:.*]] = arith.constant 1.1920929E-7 : f32
// CHECK: arith.addf %[[MS]], %[[EPS]] : f32
// CHECK: math.rsqrt
func.func @rms_norm(%x: tensor<2x8xf32>, %w: tensor<8xf32>) -> tensor<2x8xf32> {
  %0 = aten.rms_norm %x weight %w {normalized_shape = array<i64: 8>} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// The functional training batch norm also returns the running statistics
// updated with momentum, the variance unbiased by N / (N - 1).
// CHECK-LABEL: func.func @functional_batch_norm
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "parallel", "reduction"]} ins(%{{.*}} : tensor<2x4x3xf32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK: %[[N:.*]] = arith.constant 6.000000e+00 : f32
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[NM1:.*]] = arith.subf %[[N]], %[[ONE]] : f32
// CHECK: %[[VN:.*]] = arith.mulf %{{.*}}, %[[N]] : f32
// CHECK: %[[UNB:.*]] = arith.divf %[[VN]], %[[NM1]] : f32
// CHECK: %[[KEEP:.*]] = arith.constant 0.899999976 : f32
// CHECK: arith.mulf %{{.*}}, %[[KEEP]] : f32
// CHECK: %[[MOM:.*]] = arith.constant 1.000000e-01 : f32
// CHECK: arith.mulf %[[UNB]], %[[MOM]] : f32
func.func @functional_batch_norm(%x: tensor<2x4x3xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>) -> (tensor<2x4x3xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0:5 = aten._native_batch_norm_legit_functional %x mean %m var %v {training = true, momentum = 0.1 : f64, eps = 1.0e-5 : f64} : (tensor<2x4x3xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return %0#0, %0#3, %0#4 : tensor<2x4x3xf32>, tensor<4xf32>, tensor<4xf32>
}
