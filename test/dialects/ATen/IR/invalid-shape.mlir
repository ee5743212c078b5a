// RUN: kiln-opt %s -split-input-file -verify-diagnostics

// One case per verifier message of the view, join and scatter ops
// (ATenShapeOps.cpp).

func.func @unsqueeze_dim(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'aten.unsqueeze' op dim 3 is out of range for a tensor of rank 3}}
  %0 = aten.unsqueeze %x, 3 : (tensor<2x3xf32>) -> tensor<2x3x1xf32>
  return
}

// -----

func.func @unsqueeze_result(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'aten.unsqueeze' op result shape [2, 3, 1] does not match the inferred shape [2, 1, 3]}}
  %0 = aten.unsqueeze %x, -2 : (tensor<2x3xf32>) -> tensor<2x3x1xf32>
  return
}

// -----

func.func @squeeze_dim(%x: tensor<2x1xf32>) {
  // expected-error @+1 {{'aten.squeeze_dims' op dim 2 is out of range for a tensor of rank 2}}
  %0 = aten.squeeze_dims %x {dims = array<i64: 2>} : (tensor<2x1xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @squeeze_twice(%x: tensor<2x1xf32>) {
  // expected-error @+1 {{'aten.squeeze_dims' op dim 1 appears more than once}}
  %0 = aten.squeeze_dims %x {dims = array<i64: 1, -1>} : (tensor<2x1xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @squeeze_not_one(%x: tensor<2x?xf32>) {
  // expected-error @+1 {{'aten.squeeze_dims' op squeezes dim 1 of size ?; only static size-1 dims are listed}}
  %0 = aten.squeeze_dims %x {dims = array<i64: 1>} : (tensor<2x?xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @expand_rank(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'aten.expand' op expects at least 2 sizes, got 1}}
  %0 = aten.expand %x[3] : tensor<2x3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @expand_operands(%x: tensor<2x3xf32>, %n: index) {
  // expected-error @+1 {{'aten.expand' op expects 0 dynamic size operands, got 1}}
  %0 = "aten.expand"(%x, %n) <{static_sizes = array<i64: 2, 3>}> : (tensor<2x3xf32>, index) -> tensor<2x3xf32>
  return
}

// -----

func.func @expand_size(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'aten.expand' op invalid size -2}}
  %0 = aten.expand %x[2, -2] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @expand_new_dim(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'aten.expand' op size -1 is not allowed for the new leading dim 0}}
  %0 = aten.expand %x[-1, 2, 3] : tensor<2x3xf32> -> tensor<?x2x3xf32>
  return
}

// -----

func.func @expand_mismatch(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'aten.expand' op cannot expand dim 1 of size 3 to size 4}}
  %0 = aten.expand %x[2, 4] : tensor<2x3xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @slice_dim(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'aten.slice_tensor' op dim 2 is out of range for a tensor of rank 2}}
  %0 = aten.slice_tensor %x[0, 1] {dim = 2 : i64} : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @slice_step(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'aten.slice_tensor' op expects a positive step, got 0}}
  %0 = aten.slice_tensor %x[0, 1] {dim = 1 : i64, step = 0 : i64} : tensor<2x3xf32> -> tensor<2x1xf32>
  return
}

// -----

func.func @slice_bounds(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'aten.slice_tensor' op expects 2 bounds (start, end), got 1}}
  %0 = aten.slice_tensor %x[0] {dim = 1 : i64} : tensor<2x3xf32> -> tensor<2x1xf32>
  return
}

// -----

func.func @slice_operands(%x: tensor<2x3xf32>, %n: index) {
  // expected-error @+1 {{'aten.slice_tensor' op expects 0 dynamic bound operands, got 1}}
  %0 = "aten.slice_tensor"(%x, %n) <{static_bounds = array<i64: 0, 1>, dim = 1 : i64, step = 1 : i64}> : (tensor<2x3xf32>, index) -> tensor<2x1xf32>
  return
}

// -----

// Bounds clamp as in ATen: [-5, 2) of 3 elements is [0, 2).
func.func @slice_result(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'aten.slice_tensor' op result shape [2, 3] does not match the inferred shape [2, 2]}}
  %0 = aten.slice_tensor %x[-5, 2] {dim = 1 : i64} : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @select_index(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'aten.select_int' op index -4 is out of range for dim 1 of size 3}}
  %0 = aten.select_int %x[-4] {dim = 1 : i64} : tensor<2x3xf32> -> tensor<2xf32>
  return
}

// -----

func.func @select_count(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'aten.select_int' op expects one index, static or an operand}}
  %0 = aten.select_int %x[0, 1] {dim = 1 : i64} : tensor<2x3xf32> -> tensor<2xf32>
  return
}

// -----

func.func @diagonal_rank(%x: tensor<3xf32>) {
  // expected-error @+1 {{'aten.diagonal' op expects a tensor of rank >= 2, got rank 1}}
  %0 = aten.diagonal %x : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @diagonal_dim1(%x: tensor<3x3xf32>) {
  // expected-error @+1 {{'aten.diagonal' op dim1 2 is out of range for a tensor of rank 2}}
  %0 = aten.diagonal %x {dim1 = 2 : i64} : (tensor<3x3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @diagonal_dim2(%x: tensor<3x3xf32>) {
  // expected-error @+1 {{'aten.diagonal' op dim2 -3 is out of range for a tensor of rank 2}}
  %0 = aten.diagonal %x {dim2 = -3 : i64} : (tensor<3x3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @diagonal_same(%x: tensor<3x3xf32>) {
  // expected-error @+1 {{'aten.diagonal' op diagonal dimensions cannot be identical (0, -2)}}
  %0 = aten.diagonal %x {dim1 = 0 : i64, dim2 = -2 : i64} : (tensor<3x3xf32>) -> tensor<3xf32>
  return
}

// -----

// An offset past the matrix gives an empty diagonal.
func.func @diagonal_result(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'aten.diagonal' op result shape [1] does not match the inferred shape [0]}}
  %0 = aten.diagonal %x {offset = 5 : i64} : (tensor<3x4xf32>) -> tensor<1xf32>
  return
}

// -----

func.func @unfold_dim(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'aten.unfold' op dimension 2 is out of range for a tensor of rank 2}}
  %0 = aten.unfold %x {dimension = 2 : i64, size = 2 : i64, step = 1 : i64} : (tensor<3x4xf32>) -> tensor<3x3x2xf32>
  return
}

// -----

func.func @unfold_size(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'aten.unfold' op expects a size >= 0, got -1}}
  %0 = aten.unfold %x {dimension = 1 : i64, size = -1 : i64, step = 1 : i64} : (tensor<3x4xf32>) -> tensor<3x3x2xf32>
  return
}

// -----

func.func @unfold_step(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'aten.unfold' op expects a step >= 1, got 0}}
  %0 = aten.unfold %x {dimension = 1 : i64, size = 2 : i64, step = 0 : i64} : (tensor<3x4xf32>) -> tensor<3x3x2xf32>
  return
}

// -----

func.func @unfold_window(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'aten.unfold' op window size 5 exceeds the dim's size 4}}
  %0 = aten.unfold %x {dimension = 1 : i64, size = 5 : i64, step = 1 : i64} : (tensor<3x4xf32>) -> tensor<3x0x5xf32>
  return
}

// -----

func.func @as_strided_count(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'aten.as_strided' op expects as many strides as sizes, got 1 and 2}}
  %0 = aten.as_strided %x {size = array<i64: 2, 2>, stride = array<i64: 1>} : (tensor<3x4xf32>) -> tensor<2x2xf32>
  return
}

// -----

func.func @as_strided_dynamic(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'aten.as_strided' op needs an input of static shape}}
  %0 = aten.as_strided %x {size = array<i64: 2>, stride = array<i64: 1>} : (tensor<?x4xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @as_strided_offset(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'aten.as_strided' op expects a storage offset >= 0, got -1}}
  %0 = aten.as_strided %x {size = array<i64: 2>, stride = array<i64: 1>, storage_offset = -1 : i64} : (tensor<3x4xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @as_strided_negative(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'aten.as_strided' op expects sizes and strides >= 0}}
  %0 = aten.as_strided %x {size = array<i64: 2>, stride = array<i64: -1>} : (tensor<3x4xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @as_strided_bounds(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'aten.as_strided' op addresses element 12 of an input of 12 elements}}
  %0 = aten.as_strided %x {size = array<i64: 2, 2>, stride = array<i64: 4, 4>, storage_offset = 4 : i64} : (tensor<3x4xf32>) -> tensor<2x2xf32>
  return
}

// -----

func.func @copy_broadcast(%x: tensor<3x4xf32>, %y: tensor<2x4xf32>) {
  // expected-error @+1 {{'aten.copy' op src of shape [2, 4] does not broadcast to self's shape [3, 4]}}
  %0 = aten.copy %x, %y : (tensor<3x4xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @copy_result(%x: tensor<3x4xf32>, %y: tensor<4xi64>) {
  // expected-error @+1 {{'aten.copy' op result element type 'i64' does not match operand element type 'f32'}}
  %0 = aten.copy %x, %y : (tensor<3x4xf32>, tensor<4xi64>) -> tensor<3x4xi64>
  return
}

// -----

func.func @cat_empty() {
  // expected-error @+1 {{'aten.cat' op expects at least one tensor}}
  %0 = aten.cat : () -> tensor<3xf32>
  return
}

// -----

func.func @cat_dim(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'aten.cat' op dim 2 is out of range for a tensor of rank 2}}
  %0 = aten.cat %x, %x {dim = 2 : i64} : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<6x4xf32>
  return
}

// -----

func.func @cat_rank(%x: tensor<3x4xf32>, %y: tensor<4xf32>) {
  // expected-error @+1 {{'aten.cat' op expects tensors of rank 2, got 'tensor<4xf32>'}}
  %0 = aten.cat %x, %y : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @cat_sizes(%x: tensor<3x4xf32>, %y: tensor<3x5xf32>) {
  // expected-error @+1 {{'aten.cat' op sizes of tensors must match except in dim 0: dim 1 is 4 and 5}}
  %0 = aten.cat %x, %y : (tensor<3x4xf32>, tensor<3x5xf32>) -> tensor<6x4xf32>
  return
}

// -----

func.func @cat_element(%x: tensor<3xindex>, %y: tensor<3x!llvm.ptr>) {
  // expected-error @+1 {{'aten.cat' op needs integer or float tensors}}
  %0 = aten.cat %y, %y : (tensor<3x!llvm.ptr>, tensor<3x!llvm.ptr>) -> tensor<6x!llvm.ptr>
  return
}

// -----

// A 1-d empty tensor is skipped whatever the others' rank (ATen's legacy rule).
func.func @cat_result(%x: tensor<3x4xf32>, %e: tensor<0xf32>) {
  // expected-error @+1 {{'aten.cat' op result shape [7, 4] does not match the inferred shape [6, 4]}}
  %0 = aten.cat %x, %e, %x : (tensor<3x4xf32>, tensor<0xf32>, tensor<3x4xf32>) -> tensor<7x4xf32>
  return
}

// -----

func.func @slice_scatter_src(%x: tensor<4x4xf32>, %y: tensor<4x3xf32>) {
  // expected-error @+1 {{'aten.slice_scatter' op src 'tensor<4x3xf32>' does not match the slice's shape [4, 2]}}
  %0 = aten.slice_scatter %x, %y[0, 4] {dim = 1 : i64, step = 2 : i64} : tensor<4x4xf32>, tensor<4x3xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @select_scatter_src(%x: tensor<4x3xf32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{'aten.select_scatter' op src 'tensor<3xf32>' does not match the slice's shape [4]}}
  %0 = aten.select_scatter %x, %y[1] {dim = 1 : i64} : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @diagonal_scatter_src(%x: tensor<4x3xf32>, %y: tensor<4xf32>) {
  // expected-error @+1 {{'aten.diagonal_scatter' op src 'tensor<4xf32>' does not match the diagonal's shape [3]}}
  %0 = aten.diagonal_scatter %x, %y : (tensor<4x3xf32>, tensor<4xf32>) -> tensor<4x3xf32>
  return
}
