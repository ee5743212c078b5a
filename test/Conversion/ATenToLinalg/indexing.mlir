// RUN: kiln-opt %s -pass-pipeline='builtin.module(func.func(convert-aten-to-linalg,canonicalize))' | FileCheck %s

// Gathers are one linalg.generic over the result reading the source with
// tensor.extract at coordinates computed from the index elements; scatters
// and nonzero are scf.for nests carrying the result tensor. Every index read
// at run time is wrapped if negative and clamped into its dim.

// CHECK-DAG: #[[ROWI:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[BC0:.*]] = affine_map<(d0, d1, d2) -> (d0, 0)>
// CHECK-DAG: #[[BC1:.*]] = affine_map<(d0, d1, d2) -> (d1)>

// CHECK-LABEL: func.func @index_select
// CHECK: linalg.generic {indexing_maps = [#[[ROWI]], #[[ID2]]]{{.*}} ins(%{{.*}} : tensor<3xi64>) outs(%{{.*}} : tensor<4x3xf32>)
// CHECK: %[[ROW:.*]] = linalg.index 0 : index
// CHECK: %[[I:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %[[I]], %[[C0:.*]] : index
// CHECK: %[[WRAP:.*]] = arith.addi %[[I]], %[[C5:.*]] : index
// CHECK: %[[SEL:.*]] = arith.select %[[NEG]], %[[WRAP]], %[[I]] : index
// CHECK: %[[LO:.*]] = arith.maxsi %[[SEL]], %[[C0]] : index
// CHECK: %[[J:.*]] = arith.minsi %[[LO]], %[[C4:.*]] : index
// CHECK: tensor.extract %{{.*}}[%[[ROW]], %[[J]]] : tensor<4x5xf32>
func.func @index_select(%x: tensor<4x5xf32>, %i: tensor<3xi64>) -> tensor<4x3xf32> {
  %0 = aten.index_select %x, %i {dim = 1 : i64} : (tensor<4x5xf32>, tensor<3xi64>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @gather
// CHECK: linalg.generic {indexing_maps = [#[[ID2]], #[[ID2]]]{{.*}} ins(%{{.*}} : tensor<4x2xi32>)
// CHECK: arith.index_cast %{{.*}} : i32 to index
// CHECK: tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<4x5xf32>
func.func @gather(%x: tensor<4x5xf32>, %i: tensor<4x2xi32>) -> tensor<4x2xf32> {
  %0 = aten.gather %x, %i {dim = 1 : i64} : (tensor<4x5xf32>, tensor<4x2xi32>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// Non-adjacent indexed dims: the broadcast index dims [2, 3] come first, the
// remaining dim of self after them; a size-1 index dim is read at 0.
// CHECK-LABEL: func.func @index_tensor
// CHECK: linalg.generic {indexing_maps = [#[[BC0]], #[[BC1]], #{{.*}}]{{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x1xi64>, tensor<3xi64>) outs(%{{.*}} : tensor<2x3x5xf32>)
// CHECK: %[[MID:.*]] = linalg.index 2 : index
// CHECK: %[[A:.*]] = arith.minsi %{{.*}}, %c3 : index
// CHECK: %[[B:.*]] = arith.minsi %{{.*}}, %c5 : index
// CHECK: tensor.extract %{{.*}}[%[[A]], %[[MID]], %[[B]]] : tensor<4x5x6xf32>
func.func @index_tensor(%x: tensor<4x5x6xf32>, %i: tensor<2x1xi64>, %j: tensor<3xi64>) -> tensor<2x3x5xf32> {
  %0 = aten.index_tensor %x[%i, %j] {index_dims = array<i64: 0, 2>} : (tensor<4x5x6xf32>, tensor<2x1xi64>, tensor<3xi64>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// CHECK-LABEL: func.func @scatter
// CHECK: scf.for %[[R:.*]] = %c0 to %c4 step %c1 iter_args(%{{.*}} = %{{.*}}) -> (tensor<4x5xf32>)
// CHECK: scf.for %[[C:.*]] = %c0 to %c2 step %c1 iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<4x5xf32>)
// CHECK: tensor.extract %{{.*}}[%[[R]], %[[C]]] : tensor<4x2xi64>
// CHECK: %[[P:.*]] = arith.minsi %{{.*}}, %c4 : index
// CHECK: %[[S:.*]] = tensor.extract %{{.*}}[%[[R]], %[[C]]] : tensor<4x2xf32>
// CHECK: %[[OLD:.*]] = tensor.extract %[[ACC]][%[[R]], %[[P]]] : tensor<4x5xf32>
// CHECK: %[[NEW:.*]] = arith.addf %[[OLD]], %[[S]] : f32
// CHECK: tensor.insert %[[NEW]] into %[[ACC]][%[[R]], %[[P]]] : tensor<4x5xf32>
func.func @scatter(%x: tensor<4x5xf32>, %i: tensor<4x2xi64>, %s: tensor<4x2xf32>) -> tensor<4x5xf32> {
  %0 = aten.scatter %x, %i, %s {dim = 1 : i64, reduce = "sum"} : (tensor<4x5xf32>, tensor<4x2xi64>, tensor<4x2xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// index_put loops over the indexed shape [3, 5]; values broadcast from [5].
// CHECK-LABEL: func.func @index_put
// CHECK: scf.for %[[R:.*]] = %c0 to %c3 step %c1
// CHECK: scf.for %[[C:.*]] = %c0 to %c5 step %c1 iter_args(%[[ACC:.*]] = %{{.*}})
// CHECK: tensor.extract %{{.*}}[%[[R]]] : tensor<3xi64>
// CHECK: %[[P:.*]] = arith.minsi %{{.*}}, %c3 : index
// CHECK: %[[V:.*]] = tensor.extract %{{.*}}[%[[C]]] : tensor<5xf32>
// CHECK: %[[OLD:.*]] = tensor.extract %[[ACC]][%[[P]], %[[C]]]
// CHECK: %[[NEW:.*]] = arith.addf %[[OLD]], %[[V]] : f32
// CHECK: tensor.insert %[[NEW]] into %[[ACC]][%[[P]], %[[C]]]
func.func @index_put(%x: tensor<4x5xf32>, %i: tensor<3xi64>, %v: tensor<5xf32>) -> tensor<4x5xf32> {
  %0 = aten.index_put %x[%i], %v {index_dims = array<i64: 0>, accumulate = true} : (tensor<4x5xf32>, tensor<3xi64>, tensor<5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// nonzero counts first, then writes the coordinates of each nonzero element.
// CHECK-LABEL: func.func @nonzero
// CHECK: %[[N:.*]] = scf.for {{.*}} -> (index)
// CHECK: arith.index_castui %{{.*}} : i1 to index
// CHECK: %[[OUT:.*]] = tensor.empty(%[[N]]) : tensor<?x2xi64>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[OUT]], %{{.*}} = %c0) -> (tensor<?x2xi64>, index)
// CHECK: scf.if %{{.*}} -> (tensor<?x2xi64>, index)
func.func @nonzero(%m: tensor<4x5xi1>) -> tensor<?x2xi64> {
  %0 = aten.nonzero %m : (tensor<4x5xi1>) -> tensor<?x2xi64>
  return %0 : tensor<?x2xi64>
}
