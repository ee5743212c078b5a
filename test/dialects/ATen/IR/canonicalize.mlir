// RUN: kiln-opt %s -canonicalize -split-input-file | FileCheck %s

// Folds and canonicalisations of ATenFolds.cpp.

// permute by the identity (written with positive or negative dims) is its input.
// CHECK-LABEL: func.func @permute_identity
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NOT: aten.permute
// CHECK: return %[[X]], %[[X]]
func.func @permute_identity(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  %0 = aten.permute %x {dims = array<i64: 0, 1, 2>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %1 = aten.permute %x {dims = array<i64: -3, 1, -1>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %0, %1 : tensor<2x3x4xf32>, tensor<2x3x4xf32>
}

// -----

// A real permutation stays.
// CHECK-LABEL: func.func @permute_kept
// CHECK: aten.permute %{{.*}} {dims = array<i64: 1, 0, 2>}
func.func @permute_kept(%x: tensor<2x2x4xf32>) -> tensor<2x2x4xf32> {
  %0 = aten.permute %x {dims = array<i64: 1, 0, 2>} : (tensor<2x2x4xf32>) -> tensor<2x2x4xf32>
  return %0 : tensor<2x2x4xf32>
}

// -----

// A static view to the same type is its input.
// CHECK-LABEL: func.func @view_same_static_shape
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT: aten.view
// CHECK: return %[[X]]
func.func @view_same_static_shape(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = aten.view %x[2, -1] : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A view that changes the shape, or whose type is dynamic, stays.
// CHECK-LABEL: func.func @view_kept
// CHECK: aten.view %{{.*}}[3, 2] : tensor<2x3xf32> -> tensor<3x2xf32>
// CHECK: aten.view %{{.*}}[%{{.*}}, 3] : tensor<?x3xf32> -> tensor<?x3xf32>
func.func @view_kept(%x: tensor<2x3xf32>, %y: tensor<?x3xf32>, %n: index) -> (tensor<3x2xf32>, tensor<?x3xf32>) {
  %0 = aten.view %x[3, 2] : tensor<2x3xf32> -> tensor<3x2xf32>
  %1 = aten.view %y[%n, 3] : tensor<?x3xf32> -> tensor<?x3xf32>
  return %0, %1 : tensor<3x2xf32>, tensor<?x3xf32>
}

// -----

// sym_size of a static dim is a constant; of a dynamic dim it stays.
// CHECK-LABEL: func.func @sym_size
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[D:.*]] = aten.sym_size_int %{{.*}}, 0 : tensor<?x4xf32>
// CHECK: return %[[C4]], %[[C4]], %[[D]]
func.func @sym_size(%x: tensor<?x4xf32>) -> (index, index, index) {
  %0 = aten.sym_size_int %x, 1 : tensor<?x4xf32>
  %1 = aten.sym_size_int %x, -1 : tensor<?x4xf32>
  %2 = aten.sym_size_int %x, 0 : tensor<?x4xf32>
  return %0, %1, %2 : index, index, index
}

// -----

// max_pool2d_with_indices whose indices nobody reads becomes max_pool2d,
// keeping every attribute.
// CHECK-LABEL: func.func @pool_indices_unused
// CHECK-NOT: aten.max_pool2d_with_indices
// CHECK: %[[P:.*]] = aten.max_pool2d %{{.*}} {ceil_mode = true, dilation = array<i64: 1, 1>, kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x4x9x9xf32>) -> tensor<1x4x5x5xf32>
// CHECK: return %[[P]]
func.func @pool_indices_unused(%x: tensor<1x4x9x9xf32>) -> tensor<1x4x5x5xf32> {
  %0:2 = aten.max_pool2d_with_indices %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, ceil_mode = true} : (tensor<1x4x9x9xf32>) -> (tensor<1x4x5x5xf32>, tensor<1x4x5x5xi64>)
  return %0#0 : tensor<1x4x5x5xf32>
}

// -----

// When the indices are read, the op stays.
// CHECK-LABEL: func.func @pool_indices_used
// CHECK: aten.max_pool2d_with_indices
// CHECK-NOT: aten.max_pool2d
func.func @pool_indices_used(%x: tensor<1x4x8x8xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xi64>) {
  %0:2 = aten.max_pool2d_with_indices %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xi64>)
  return %0#0, %0#1 : tensor<1x4x4x4xf32>, tensor<1x4x4x4xi64>
}

// -----

// Pure aten ops with no uses are removed.
// CHECK-LABEL: func.func @dead_ops
// CHECK-NOT: aten.
// CHECK: return
func.func @dead_ops(%x: tensor<8x64xf32>) {
  %0 = aten.relu %x : tensor<8x64xf32>
  %1 = aten.gelu %0 : tensor<8x64xf32>
  return
}

// -----

// expand to the input's own static shape is its input; a real broadcast stays.
// CHECK-LABEL: func.func @expand_identity
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: %[[E:.*]] = aten.expand %[[X]][4, 2, 3]
// CHECK: return %[[X]], %[[E]]
func.func @expand_identity(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<4x2x3xf32>) {
  %0 = aten.expand %x[-1, 3] : tensor<2x3xf32> -> tensor<2x3xf32>
  %1 = aten.expand %x[4, 2, 3] : tensor<2x3xf32> -> tensor<4x2x3xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<4x2x3xf32>
}

// -----

// A slice from 0 past the end by 1 is its input, also on a dynamic dim when
// the end is INT64_MAX (a missing end); a real slice stays.
// CHECK-LABEL: func.func @slice_full
// CHECK-SAME: (%[[X:.*]]: tensor<?x3xf32>)
// CHECK: %[[S:.*]] = aten.slice_tensor %[[X]][0, 2] {dim = 1 : i64}
// CHECK: return %[[X]], %[[X]], %[[S]]
func.func @slice_full(%x: tensor<?x3xf32>) -> (tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x2xf32>) {
  %0 = aten.slice_tensor %x[0, 9223372036854775807] {dim = 0 : i64} : tensor<?x3xf32> -> tensor<?x3xf32>
  %1 = aten.slice_tensor %x[0, 3] {dim = -1 : i64} : tensor<?x3xf32> -> tensor<?x3xf32>
  %2 = aten.slice_tensor %x[0, 2] {dim = 1 : i64} : tensor<?x3xf32> -> tensor<?x2xf32>
  return %0, %1, %2 : tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x2xf32>
}

// -----

// cat of a single tensor is that tensor.
// CHECK-LABEL: func.func @cat_single
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @cat_single(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = aten.cat %x {dim = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// _to_copy to the operand's own type is the operand; to another dtype stays.
// CHECK-LABEL: func.func @to_copy_same_type
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK: %[[H:.*]] = aten._to_copy %[[X]] : (tensor<4xf32>) -> tensor<4xf16>
// CHECK: return %[[X]], %[[H]]
func.func @to_copy_same_type(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf16>) {
  %0 = aten._to_copy %x : (tensor<4xf32>) -> tensor<4xf32>
  %1 = aten._to_copy %x : (tensor<4xf32>) -> tensor<4xf16>
  return %0, %1 : tensor<4xf32>, tensor<4xf16>
}
