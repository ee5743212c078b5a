// RUN: kiln-opt %s -pass-pipeline='builtin.module(func.func(convert-aten-to-linalg))' | FileCheck %s
// RUN: kiln-opt %s -pass-pipeline='builtin.module(func.func(convert-aten-to-linalg,canonicalize))' | FileCheck %s --check-prefix=CANON

// Views become collapse_shape / expand_shape where the shapes are related by
// a reassociation, tensor.reshape otherwise; permute is linalg.transpose;
// sym_size is tensor.dim.

// A view whose leading size is symbolic (a sym_size of the input): the
// sym_size becomes tensor.dim and the view a collapse.
// CHECK-LABEL: func.func @view_dynamic_size
// CHECK-SAME: (%[[X:.*]]: tensor<?x4x8xf32>)
// CHECK: tensor.dim %[[X]], %{{.*}} : tensor<?x4x8xf32>
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0], [1, 2]] : tensor<?x4x8xf32> into tensor<?x32xf32>
// CHECK: return %[[R]]
func.func @view_dynamic_size(%x: tensor<?x4x8xf32>) -> tensor<?x32xf32> {
  %s = aten.sym_size_int %x, 0 : tensor<?x4x8xf32>
  %0 = aten.view %x[%s, 32] : tensor<?x4x8xf32> -> tensor<?x32xf32>
  return %0 : tensor<?x32xf32>
}

// -1 is inferred as numel / (product of the other sizes); for a dynamic input
// that is computed from tensor.dim.
// CHECK-LABEL: func.func @view_infer_dynamic
// CHECK-SAME: (%[[X:.*]]: tensor<?x4x8xf32>)
// CHECK: %[[D:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x4x8xf32>
// CHECK: %[[P1:.*]] = arith.muli %[[D]], %{{.*}} : index
// CHECK: %[[NUMEL:.*]] = arith.muli %[[P1]], %{{.*}} : index
// CHECK: arith.divui %[[NUMEL]], %{{.*}} : index
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2]] : tensor<?x4x8xf32> into tensor<?x8xf32>
// CHECK: return %[[R]]
// The arithmetic for the inferred size folds away when nothing reads it.
// CANON-LABEL: func.func @view_infer_dynamic
// CANON-NEXT: tensor.collapse_shape
// CANON-NEXT: return
func.func @view_infer_dynamic(%x: tensor<?x4x8xf32>) -> tensor<?x8xf32> {
  %0 = aten.view %x[-1, 8] : tensor<?x4x8xf32> -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// With a static input the inferred size is a constant.
// CHECK-LABEL: func.func @view_infer_static
// CHECK-NOT: arith.divui
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
func.func @view_infer_static(%x: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
  %0 = aten.view %x[-1, 4] : tensor<2x3x4xf32> -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// A view to a higher rank with a dynamic size operand is an expand whose
// output_shape uses that operand.
// CHECK-LABEL: func.func @view_expand
// CHECK-SAME: (%[[X:.*]]: tensor<?x32xf32>, %[[N:.*]]: index)
// CHECK: tensor.expand_shape %[[X]] {{\[}}[0], [1, 2]] output_shape [%[[N]], 4, 8] : tensor<?x32xf32> into tensor<?x4x8xf32>
func.func @view_expand(%x: tensor<?x32xf32>, %n: index) -> tensor<?x4x8xf32> {
  %0 = aten.view %x[%n, 4, 8] : tensor<?x32xf32> -> tensor<?x4x8xf32>
  return %0 : tensor<?x4x8xf32>
}

// Shapes without a reassociation go through tensor.reshape.
// CHECK-LABEL: func.func @view_reshape
// CHECK: %[[C3:.*]] = arith.constant 3 : index
// CHECK: %[[C2:.*]] = arith.constant 2 : index
// CHECK: %[[SHAPE:.*]] = tensor.from_elements %[[C3]], %[[C2]] : tensor<2xindex>
// CHECK: tensor.reshape %{{.*}}(%[[SHAPE]]) : (tensor<2x3xf32>, tensor<2xindex>) -> tensor<3x2xf32>
func.func @view_reshape(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = aten.view %x[3, 2] : tensor<2x3xf32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// CHECK-LABEL: func.func @flatten
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2, 3]] : tensor<?x4x8x8xf32> into tensor<?x256xf32>
func.func @flatten(%x: tensor<?x4x8x8xf32>) -> tensor<?x256xf32> {
  %0 = aten.flatten_using_ints %x {start_dim = 1 : i64} : (tensor<?x4x8x8xf32>) -> tensor<?x256xf32>
  return %0 : tensor<?x256xf32>
}

// A negative end_dim counts from the back.
// CHECK-LABEL: func.func @flatten_middle
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2], [3]] : tensor<2x3x4x5xf32> into tensor<2x12x5xf32>
func.func @flatten_middle(%x: tensor<2x3x4x5xf32>) -> tensor<2x12x5xf32> {
  %0 = aten.flatten_using_ints %x {start_dim = 1 : i64, end_dim = -2 : i64} : (tensor<2x3x4x5xf32>) -> tensor<2x12x5xf32>
  return %0 : tensor<2x12x5xf32>
}

// Flattening one dim is the identity.
// CHECK-LABEL: func.func @flatten_single_dim
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @flatten_single_dim(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = aten.flatten_using_ints %x {start_dim = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// Flattening a 0-d tensor gives one element.
// CHECK-LABEL: func.func @flatten_scalar
// CHECK: tensor.expand_shape %{{.*}} [] output_shape [1] : tensor<f32> into tensor<1xf32>
func.func @flatten_scalar(%x: tensor<f32>) -> tensor<1xf32> {
  %0 = aten.flatten_using_ints %x : (tensor<f32>) -> tensor<1xf32>
  return %0 : tensor<1xf32>
}

// CHECK-LABEL: func.func @permute
// CHECK-SAME: (%[[X:.*]]: tensor<?x4x8xf32>)
// CHECK: %[[D:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x4x8xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[D]]) : tensor<8x?x4xf32>
// CHECK: linalg.transpose ins(%[[X]] : tensor<?x4x8xf32>) outs(%[[E]] : tensor<8x?x4xf32>) permutation = [2, 0, 1]
func.func @permute(%x: tensor<?x4x8xf32>) -> tensor<8x?x4xf32> {
  %0 = aten.permute %x {dims = array<i64: 2, 0, 1>} : (tensor<?x4x8xf32>) -> tensor<8x?x4xf32>
  return %0 : tensor<8x?x4xf32>
}

// Negative permutation entries are normalised.
// CHECK-LABEL: func.func @permute_negative
// CHECK: linalg.transpose ins(%{{.*}} : tensor<16x64xf32>) outs(%{{.*}} : tensor<64x16xf32>) permutation = [1, 0]
func.func @permute_negative(%x: tensor<16x64xf32>) -> tensor<64x16xf32> {
  %0 = aten.permute %x {dims = array<i64: -1, 0>} : (tensor<16x64xf32>) -> tensor<64x16xf32>
  return %0 : tensor<64x16xf32>
}

// CHECK-LABEL: func.func @sym_size
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32>)
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[D:.*]] = tensor.dim %[[X]], %[[C0]] : tensor<?x4xf32>
// CHECK: return %[[D]] : index
func.func @sym_size(%x: tensor<?x4xf32>) -> index {
  %0 = aten.sym_size_int %x, -2 : tensor<?x4xf32>
  return %0 : index
}
