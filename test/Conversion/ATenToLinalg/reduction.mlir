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
// CHECK-DAG: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x8x7x7xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?x8xf32>
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%[[E]] : tensor<?x8xf32>)
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[ID4]], #[[KEEP01]]], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%[[X]] : tensor<?x8x7x7xf32>) outs(%[[INIT]] : tensor<?x8xf32>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK: %[[S:.*]] = arith.addf %[[ACC]], %[[IN]] : f32
// CHECK: linalg.yield %[[S]] : f32
// CHECK: %[[CNT:.*]] = arith.constant 4.900000e+01 : f32
// CHECK: %[[MEAN:.*]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<?x8xf32>)
// CHECK: arith.divf %{{.*}}, %[[CNT]] : f32
// CHECK: %[[R:.*]] = tensor.expand_shape %[[MEAN]] {{\[}}[0], [1, 2, 3]] output_shape [%{{.*}}, 8, 1, 1] : tensor<?x8xf32> into tensor<?x8x1x1xf32>
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
// CHECK: %[[I:.*]] = arith.index_cast %{{.*}} : index to i64
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

// Integer sums accumulate in int64: each element is sign-extended.
// CHECK-LABEL: func.func @sum_int
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<4x5xi32>) outs(%{{.*}} : tensor<4xi64>)
// CHECK: arith.extsi %{{.*}} : i32 to i64
// CHECK: arith.addi
func.func @sum_int(%x: tensor<4x5xi32>) -> tensor<4xi64> {
  %0 = aten.sum_dim_intlist %x {dim = array<i64: -1>} : (tensor<4x5xi32>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// Float16 accumulates in float32 and is rounded once at the end.
// CHECK-LABEL: func.func @sum_half
// CHECK: %[[S:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%{{.*}} : tensor<4x5xf16>) outs(%{{.*}} : tensor<5xf32>)
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.addf %{{.*}} : f32
// CHECK: linalg.generic {{.*}} ins(%[[S]] : tensor<5xf32>) outs(%{{.*}} : tensor<5xf16>)
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @sum_half(%x: tensor<4x5xf16>) -> tensor<5xf16> {
  %0 = aten.sum_dim_intlist %x {dim = array<i64: 0>} : (tensor<4x5xf16>) -> tensor<5xf16>
  return %0 : tensor<5xf16>
}

// max.dim keeps the value and the index of the first maximum in one generic;
// NaN wins over a number.
// CHECK-LABEL: func.func @max_dim
// CHECK: %[[G:.*]]:2 = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<4x5xf32>) outs(%{{.*}}, %{{.*}} : tensor<4xf32>, tensor<4xi64>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %[[BEST:.*]]: f32, %[[IDX:.*]]: i64):
// CHECK: %[[GT:.*]] = arith.cmpf ogt, %[[IN]], %[[BEST]] : f32
// CHECK: %[[NAN:.*]] = arith.cmpf uno, %[[IN]], %[[IN]] : f32
// CHECK: %[[NUM:.*]] = arith.cmpf ord, %[[BEST]], %[[BEST]] : f32
// CHECK: %[[FIRSTNAN:.*]] = arith.andi %[[NAN]], %[[NUM]] : i1
// CHECK: %[[TAKE:.*]] = arith.ori %[[GT]], %[[FIRSTNAN]] : i1
// CHECK: %[[I:.*]] = linalg.index 1 : index
// CHECK: %[[I64:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK: %[[V:.*]] = arith.select %[[TAKE]], %[[IN]], %[[BEST]] : f32
// CHECK: %[[J:.*]] = arith.select %[[TAKE]], %[[I64]], %[[IDX]] : i64
// CHECK: linalg.yield %[[V]], %[[J]] : f32, i64
// CHECK: tensor.expand_shape %[[G]]#0 {{\[}}[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
// CHECK: tensor.expand_shape %[[G]]#1 {{\[}}[0, 1]] output_shape [4, 1] : tensor<4xi64> into tensor<4x1xi64>
func.func @max_dim(%x: tensor<4x5xf32>) -> (tensor<4x1xf32>, tensor<4x1xi64>) {
  %0:2 = aten.max_dim %x {dim = 1 : i64, keepdim = true} : (tensor<4x5xf32>) -> (tensor<4x1xf32>, tensor<4x1xi64>)
  return %0#0, %0#1 : tensor<4x1xf32>, tensor<4x1xi64>
}

// any of a float tensor: or of "is non-zero" into a false-filled bool.
// CHECK-LABEL: func.func @any_float
// CHECK: %[[F:.*]] = arith.constant false
// CHECK: linalg.fill ins(%[[F]] : i1)
// CHECK: iterator_types = ["reduction", "reduction"]} ins(%{{.*}} : tensor<4x5xf32>) outs(%{{.*}} : tensor<i1>)
// CHECK: %[[NZ:.*]] = arith.cmpf une, %{{.*}}, %{{.*}} : f32
// CHECK: arith.ori %{{.*}}, %[[NZ]] : i1
func.func @any_float(%x: tensor<4x5xf32>) -> tensor<i1> {
  %0 = aten.any_dims %x : (tensor<4x5xf32>) -> tensor<i1>
  return %0 : tensor<i1>
}

// cumsum walks the scanned dim with scf.for: each step adds a slice of the
// input to the carried accumulator and writes the output slice in place.
// CHECK-LABEL: func.func @cumsum
// CHECK-SAME: (%[[X:.*]]: tensor<4x?xf32>)
// CHECK: %[[OUT:.*]] = tensor.empty(%{{.*}}) : tensor<4x?xf32>
// CHECK: %[[ACC:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4x1xf32>)
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[O:.*]] = %[[OUT]], %[[A:.*]] = %[[ACC]])
// CHECK: %[[XS:.*]] = tensor.extract_slice %[[X]][0, %[[K]]] [4, 1] [1, 1]
// CHECK: %[[OS:.*]] = tensor.extract_slice %[[O]][0, %[[K]]] [4, 1] [1, 1]
// CHECK: %[[STEP:.*]]:2 = linalg.generic {{.*}} ins(%[[XS]] : tensor<4x1xf32>) outs(%[[A]], %[[OS]] : tensor<4x1xf32>, tensor<4x1xf32>)
// CHECK: %[[INS:.*]] = tensor.insert_slice %[[STEP]]#1 into %[[O]][0, %[[K]]] [4, 1] [1, 1]
// CHECK: scf.yield %[[INS]], %[[STEP]]#0
func.func @cumsum(%x: tensor<4x?xf32>) -> tensor<4x?xf32> {
  %0 = aten.cumsum %x {dim = -1 : i64} : (tensor<4x?xf32>) -> tensor<4x?xf32>
  return %0 : tensor<4x?xf32>
}

// var: the mean, then the sum of squared deviations, divided by N - correction.
// CHECK-LABEL: func.func @var
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<4x5xf32>)
// CHECK: %[[MEAN:.*]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<4xf32>)
// CHECK: arith.divf
// CHECK: %[[SQ:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%{{.*}}, %[[MEAN]] : tensor<4x5xf32>, tensor<4xf32>)
// CHECK: %[[D:.*]] = arith.subf
// CHECK: arith.mulf %[[D]], %[[D]] : f32
// CHECK: linalg.generic {{.*}} ins(%[[SQ]] : tensor<4xf32>)
// CHECK: %[[C:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[NC:.*]] = arith.subf %{{.*}}, %[[C]] : f32
// CHECK: %[[DIV:.*]] = arith.maximumf %[[NC]], %{{.*}} : f32
// CHECK: arith.divf %{{.*}}, %[[DIV]] : f32
func.func @var(%x: tensor<4x5xf32>) -> tensor<4xf32> {
  %0 = aten.var_correction %x {dim = array<i64: 1>} : (tensor<4x5xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// argmax without a dim runs over the flattened tensor.
// CHECK-LABEL: func.func @argmax_flat
// CHECK: %[[F:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1]] : tensor<4x5xi32> into tensor<20xi32>
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%[[F]] : tensor<20xi32>)
// CHECK: arith.cmpi sgt
func.func @argmax_flat(%x: tensor<4x5xi32>) -> tensor<i64> {
  %0 = aten.argmax %x : (tensor<4x5xi32>) -> tensor<i64>
  return %0 : tensor<i64>
}
