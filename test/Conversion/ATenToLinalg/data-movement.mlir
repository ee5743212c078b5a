// RUN: kiln-opt %s -pass-pipeline='builtin.module(func.func(convert-aten-to-linalg))' | FileCheck %s
// RUN: kiln-opt %s -pass-pipeline='builtin.module(func.func(convert-aten-to-linalg,canonicalize))' | FileCheck %s --check-prefix=CANON

// Views become collapse_shape / expand_shape where the shapes are related by
// a reassociation, tensor.reshape otherwise; permute is linalg.transpose;
// sym_size is tensor.dim.

// Affine maps of the gathers below (printed at the top of the module).
// CANON-DAG: #[[BCAST:.*]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CANON-DAG: #[[DIAG:.*]] = affine_map<(d0, d1) -> (d0, d1, d1)>
// CANON-DAG: #[[WIN:.*]] = affine_map<(d0, d1, d2) -> (d0, d1 * 2 + d2)>
// CANON-DAG: #[[STRIDED:.*]] = affine_map<(d0, d1) -> (d0 + d1 * 4 + 1)>

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

// The attention head split `x.view(*x.shape[:-1], -1, 16)` with symbolic
// batch and sequence: the -1 is computed from symbolic dims but the result
// type knows it is 4, so expand_shape's output_shape holds the constant (a
// computed value there is invalid for a static result dim).
// CHECK-LABEL: func.func @view_split_heads_dynamic
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x64xf32>)
// CHECK: %[[B:.*]] = tensor.dim %[[X]], %c0
// CHECK: %[[S:.*]] = tensor.dim %[[X]], %c1
// CHECK: tensor.expand_shape %[[X]] {{\[}}[0], [1], [2, 3]] output_shape [%[[B]], %[[S]], 4, 16] : tensor<?x?x64xf32> into tensor<?x?x4x16xf32>
func.func @view_split_heads_dynamic(%x: tensor<?x?x64xf32>) -> tensor<?x?x4x16xf32> {
  %b = aten.sym_size_int %x, 0 : tensor<?x?x64xf32>
  %s = aten.sym_size_int %x, 1 : tensor<?x?x64xf32>
  %0 = aten.view %x[%b, %s, -1, 16] : tensor<?x?x64xf32> -> tensor<?x?x4x16xf32>
  return %0 : tensor<?x?x4x16xf32>
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

// unsqueeze is an expand_shape whose unit dim joins a neighbour's group.
// CANON-LABEL: func.func @unsqueeze
// CANON: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [%{{.*}}, 1, 4] : tensor<?x4xf32> into tensor<?x1x4xf32>
// CANON: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [%{{.*}}, 4, 1] : tensor<?x4xf32> into tensor<?x4x1xf32>
func.func @unsqueeze(%x: tensor<?x4xf32>) -> (tensor<?x1x4xf32>, tensor<?x4x1xf32>) {
  %0 = aten.unsqueeze %x, 1 : (tensor<?x4xf32>) -> tensor<?x1x4xf32>
  %1 = aten.unsqueeze %x, -1 : (tensor<?x4xf32>) -> tensor<?x4x1xf32>
  return %0, %1 : tensor<?x1x4xf32>, tensor<?x4x1xf32>
}

// squeeze is a collapse_shape; squeezing every dim collapses to rank 0.
// CANON-LABEL: func.func @squeeze
// CANON: tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2, 3, 4]] : tensor<1x?x1x4x1xf32> into tensor<?x4xf32>
// CANON: tensor.collapse_shape %{{.*}} [] : tensor<1x1xf32> into tensor<f32>
func.func @squeeze(%x: tensor<1x?x1x4x1xf32>, %y: tensor<1x1xf32>) -> (tensor<?x4xf32>, tensor<f32>) {
  %0 = aten.squeeze_dims %x {dims = array<i64: 0, 2, -1>} : (tensor<1x?x1x4x1xf32>) -> tensor<?x4xf32>
  %1 = aten.squeeze_dims %y {dims = array<i64: 0, 1>} : (tensor<1x1xf32>) -> tensor<f32>
  return %0, %1 : tensor<?x4xf32>, tensor<f32>
}

// expand reads a stretched size-1 dim at index 0; -1 keeps the input's size.
// CANON-LABEL: func.func @expand
// CANON-SAME: (%[[X:.*]]: tensor<?x1xf32>, %[[N:.*]]: index)
// CANON: %[[D:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x1xf32>
// CANON: tensor.empty(%[[D]], %[[N]]) : tensor<3x?x?xf32>
// CANON: linalg.generic {indexing_maps = [#[[BCAST]], #{{.*}}]
func.func @expand(%x: tensor<?x1xf32>, %n: index) -> tensor<3x?x?xf32> {
  %0 = aten.expand %x[3, -1, %n] : tensor<?x1xf32> -> tensor<3x?x?xf32>
  return %0 : tensor<3x?x?xf32>
}

// Static slice bounds are wrapped and clamped at compile time: [-8, 100) by 3
// of 10 is offset 2, 3 elements; an end before the start is an empty tensor.
// CANON-LABEL: func.func @slice_static
// CANON: tensor.extract_slice %{{.*}}[0, 2] [4, 3] [1, 3] : tensor<4x10xf32> to tensor<4x3xf32>
// CANON: tensor.empty() : tensor<4x0xf32>
func.func @slice_static(%x: tensor<4x10xf32>) -> (tensor<4x3xf32>, tensor<4x0xf32>) {
  %0 = aten.slice_tensor %x[-8, 100] {dim = 1 : i64, step = 3 : i64} : tensor<4x10xf32> -> tensor<4x3xf32>
  %1 = aten.slice_tensor %x[7, 2] {dim = -1 : i64} : tensor<4x10xf32> -> tensor<4x0xf32>
  return %0, %1 : tensor<4x3xf32>, tensor<4x0xf32>
}

// A run-time start wraps if negative, clamps to [0, size]; the length rounds up by the step.
// CANON-LABEL: func.func @slice_dynamic
// CANON-SAME: (%[[X:.*]]: tensor<?x10xf32>, %[[S:.*]]: index)
// CANON: %[[N:.*]] = tensor.dim %[[X]]
// CANON: %[[NEG:.*]] = arith.cmpi slt, %[[S]], %[[C0:.*]] : index
// CANON: %[[W:.*]] = arith.addi %[[S]], %[[N]] : index
// CANON: %[[SEL:.*]] = arith.select %[[NEG]], %[[W]], %[[S]] : index
// CANON: %[[LO:.*]] = arith.maxsi %[[SEL]], %[[C0]] : index
// CANON: %[[START:.*]] = arith.minsi %[[LO]], %[[N]] : index
// CANON: %[[DIFF:.*]] = arith.subi %[[N]], %[[START]] : index
// CANON: %[[POS:.*]] = arith.maxsi %[[DIFF]], %[[C0]] : index
// CANON: %[[LEN:.*]] = arith.ceildivsi %[[POS]], %{{.*}} : index
// CANON: tensor.extract_slice %[[X]][%[[START]], 0] [%[[LEN]], 10] [2, 1]
func.func @slice_dynamic(%x: tensor<?x10xf32>, %s: index) -> tensor<?x10xf32> {
  %0 = aten.slice_tensor %x[%s, 9223372036854775807] {dim = 0 : i64, step = 2 : i64} : tensor<?x10xf32> -> tensor<?x10xf32>
  return %0 : tensor<?x10xf32>
}

// select is a rank-reducing extract_slice; a run-time index is wrapped and
// clamped to [0, size - 1], so it never reads outside the tensor.
// CANON-LABEL: func.func @select
// CANON-SAME: (%[[X:.*]]: tensor<4x?xf32>, %[[I:.*]]: index)
// CANON: arith.select
// CANON: %[[LO:.*]] = arith.maxsi %{{.*}}, %{{.*}} : index
// CANON: arith.subi
// CANON: %[[HI:.*]] = arith.maxsi %{{.*}}, %{{.*}} : index
// CANON: %[[IDX:.*]] = arith.minsi %[[LO]], %[[HI]] : index
// CANON: tensor.extract_slice %[[X]][0, %[[IDX]]] [4, 1] [1, 1] : tensor<4x?xf32> to tensor<4xf32>
// CANON: tensor.extract_slice %[[X]][3, 0] [1, %{{.*}}] [1, 1] : tensor<4x?xf32> to tensor<?xf32>
func.func @select(%x: tensor<4x?xf32>, %i: index) -> (tensor<4xf32>, tensor<?xf32>) {
  %0 = aten.select_int %x[%i] {dim = 1 : i64} : tensor<4x?xf32> -> tensor<4xf32>
  %1 = aten.select_int %x[-1] {dim = 0 : i64} : tensor<4x?xf32> -> tensor<?xf32>
  return %0, %1 : tensor<4xf32>, tensor<?xf32>
}

// diagonal cuts the square block it runs through, then reads it at (k, k).
// CANON-LABEL: func.func @diagonal
// CANON: %[[B:.*]] = tensor.extract_slice %{{.*}}[0, 0, 1] [2, 3, 3] [1, 1, 1] : tensor<2x3x5xf32> to tensor<2x3x3xf32>
// CANON: linalg.generic {indexing_maps = [#[[DIAG]], #{{.*}}], {{.*}} ins(%[[B]] : tensor<2x3x3xf32>)
func.func @diagonal(%x: tensor<2x3x5xf32>) -> tensor<2x3xf32> {
  %0 = aten.diagonal %x {offset = 1 : i64, dim1 = 1 : i64, dim2 = 2 : i64} : (tensor<2x3x5xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// unfold reads window i, element j at i * step + j.
// CANON-LABEL: func.func @unfold
// CANON: linalg.generic {indexing_maps = [#[[WIN]], #{{.*}}]{{.*}} outs(%{{.*}} : tensor<3x4x3xf32>)
func.func @unfold(%x: tensor<3x10xf32>) -> tensor<3x4x3xf32> {
  %0 = aten.unfold %x {dimension = 1 : i64, size = 3 : i64, step = 2 : i64} : (tensor<3x10xf32>) -> tensor<3x4x3xf32>
  return %0 : tensor<3x4x3xf32>
}

// as_strided reads the row-major elements at offset + i . stride.
// CANON-LABEL: func.func @as_strided
// CANON: %[[FLAT:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1]] : tensor<3x4xf32> into tensor<12xf32>
// CANON: linalg.generic {indexing_maps = [#[[STRIDED]], #{{.*}}]{{.*}} ins(%[[FLAT]] : tensor<12xf32>)
func.func @as_strided(%x: tensor<3x4xf32>) -> tensor<2x2xf32> {
  %0 = aten.as_strided %x {size = array<i64: 2, 2>, stride = array<i64: 1, 4>, storage_offset = 1 : i64} : (tensor<3x4xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// copy broadcasts src to self's shape and converts it to self's dtype.
// CANON-LABEL: func.func @copy
// CANON: linalg.generic {{.*}} ins(%{{.*}} : tensor<4xi64>) outs(%{{.*}} : tensor<3x4xf32>)
// CANON: arith.sitofp %{{.*}} : i64 to f32
func.func @copy(%x: tensor<3x4xf32>, %y: tensor<4xi64>) -> tensor<3x4xf32> {
  %0 = aten.copy %x, %y : (tensor<3x4xf32>, tensor<4xi64>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// cat converts inputs to the result dtype, skips a 1-d empty one and
// inserts the others one after another.
// CANON-LABEL: func.func @cat
// CANON-SAME: (%[[X:.*]]: tensor<?x4xf32>, %[[Y:.*]]: tensor<2x4xf16>
// CANON: %[[YF:.*]] = linalg.generic {{.*}} ins(%[[Y]] : tensor<2x4xf16>)
// CANON: arith.extf
// CANON: %[[OUT:.*]] = tensor.empty(%{{.*}}) : tensor<?x4xf32>
// CANON: %[[N:.*]] = tensor.dim %[[X]]
// CANON: %[[A:.*]] = tensor.insert_slice %[[X]] into %[[OUT]][0, 0] [%[[N]], 4] [1, 1]
// CANON: tensor.insert_slice %[[YF]] into %[[A]][%[[N]], 0] [2, 4] [1, 1]
func.func @cat(%x: tensor<?x4xf32>, %y: tensor<2x4xf16>, %e: tensor<0xf32>) -> tensor<?x4xf32> {
  %0 = aten.cat %x, %e, %y : (tensor<?x4xf32>, tensor<0xf32>, tensor<2x4xf16>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// slice_scatter and select_scatter are insert_slice; diagonal_scatter picks
// src on the diagonal (its index clamped) and self elsewhere.
// CANON-LABEL: func.func @scatters
// CANON: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0] [4, 3] [1, 2] : tensor<4x3xf32> into tensor<4x6xf32>
// CANON: tensor.insert_slice %{{.*}} into %{{.*}}[3, 0] [1, 6] [1, 1] : tensor<6xf32> into tensor<4x6xf32>
// CANON: linalg.generic
// CANON: %[[I:.*]] = linalg.index 0 : index
// CANON: %[[J:.*]] = linalg.index 1 : index
// CANON: %[[D:.*]] = arith.subi %[[J]], %[[I]] : index
// CANON: %[[ON:.*]] = arith.cmpi eq, %[[D]], %{{.*}} : index
// CANON: %[[K:.*]] = arith.minsi
// CANON: %[[S:.*]] = tensor.extract %{{.*}}[%[[K]]] : tensor<4xf32>
// CANON: arith.select %[[ON]], %[[S]], %{{.*}} : f32
func.func @scatters(%x: tensor<4x6xf32>, %a: tensor<4x3xf32>, %b: tensor<6xf32>, %c: tensor<4xf32>) -> (tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>) {
  %0 = aten.slice_scatter %x, %a[0, 6] {dim = 1 : i64, step = 2 : i64} : tensor<4x6xf32>, tensor<4x3xf32> -> tensor<4x6xf32>
  %1 = aten.select_scatter %x, %b[-1] {dim = 0 : i64} : tensor<4x6xf32>, tensor<6xf32> -> tensor<4x6xf32>
  %2 = aten.diagonal_scatter %x, %c {offset = 2 : i64} : (tensor<4x6xf32>, tensor<4xf32>) -> tensor<4x6xf32>
  return %0, %1, %2 : tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>
}

// Unflattening one dim into two symbolic ones ([B*S, 32] -> [B, S, 32], as
// GPT-2's `view(B, S, -1)` after a flattened addmm) is a tensor.reshape: an
// expand_shape there has strides that the memref lowering cannot derive.
// CHECK-LABEL: func.func @view_unflatten_two_symbols
// CHECK-SAME: (%[[X:.*]]: tensor<?x32xf32>, %[[B:.*]]: index, %[[S:.*]]: index)
// CHECK: %[[SHAPE:.*]] = tensor.from_elements %[[B]], %[[S]], %{{.*}} : tensor<3xindex>
// CHECK: tensor.reshape %[[X]](%[[SHAPE]]) : (tensor<?x32xf32>, tensor<3xindex>) -> tensor<?x?x32xf32>
// CHECK-NOT: tensor.expand_shape
func.func @view_unflatten_two_symbols(%x: tensor<?x32xf32>, %b: index, %s: index) -> tensor<?x?x32xf32> {
  %0 = aten.view %x[%b, %s, 32] : tensor<?x32xf32> -> tensor<?x?x32xf32>
  return %0 : tensor<?x?x32xf32>
}
