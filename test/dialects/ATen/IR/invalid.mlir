// RUN: kiln-opt %s -split-input-file -verify-diagnostics

// One case per verifier message of the aten dialect (ATenOps.cpp); the
// elementwise and creation ops have theirs in invalid-elementwise.mlir.

//===----------------------------------------------------------------------===//
// Result checks shared by every verifier
//===----------------------------------------------------------------------===//

func.func @result_element_type(%x: tensor<8x64xf32>, %w: tensor<16x64xf32>) {
  // expected-error @+1 {{'aten.linear' op result element type 'f16' does not match operand element type 'f32'}}
  %0 = aten.linear %x, %w : (tensor<8x64xf32>, tensor<16x64xf32>) -> tensor<8x16xf16>
  return
}

// -----

func.func @result_rank(%x: tensor<8x64xf32>, %w: tensor<16x64xf32>) {
  // expected-error @+1 {{'aten.linear' op result rank 3 does not match the inferred rank 2}}
  %0 = aten.linear %x, %w : (tensor<8x64xf32>, tensor<16x64xf32>) -> tensor<1x8x16xf32>
  return
}

// -----

func.func @result_shape(%x: tensor<?x64xf32>, %w: tensor<16x64xf32>) {
  // expected-error @+1 {{'aten.linear' op result shape [?, 17] does not match the inferred shape [?, 16]}}
  %0 = aten.linear %x, %w : (tensor<?x64xf32>, tensor<16x64xf32>) -> tensor<?x17xf32>
  return
}

//===----------------------------------------------------------------------===//
// aten.linear, aten.addmm
//===----------------------------------------------------------------------===//

// -----

func.func @linear_scalar_input(%x: tensor<f32>, %w: tensor<16x64xf32>) {
  // expected-error @+1 {{'aten.linear' op expects an input of rank >= 1}}
  %0 = aten.linear %x, %w : (tensor<f32>, tensor<16x64xf32>) -> tensor<16xf32>
  return
}

// -----

func.func @linear_weight_rank(%x: tensor<8x64xf32>, %w: tensor<2x16x64xf32>) {
  // expected-error @+1 {{'aten.linear' op expects a 1-d or 2-d weight, got rank 3}}
  %0 = aten.linear %x, %w : (tensor<8x64xf32>, tensor<2x16x64xf32>) -> tensor<8x16xf32>
  return
}

// -----

func.func @linear_features(%x: tensor<8x64xf32>, %w: tensor<16x32xf32>) {
  // expected-error @+1 {{'aten.linear' op input features 64 do not match weight features 32}}
  %0 = aten.linear %x, %w : (tensor<8x64xf32>, tensor<16x32xf32>) -> tensor<8x16xf32>
  return
}

// -----

func.func @addmm_rank(%b: tensor<16xf32>, %a: tensor<2x8x64xf32>, %m: tensor<64x16xf32>) {
  // expected-error @+1 {{'aten.addmm' op expects 2-d mat1 and mat2}}
  %0 = aten.addmm %b, %a, %m : (tensor<16xf32>, tensor<2x8x64xf32>, tensor<64x16xf32>) -> tensor<8x16xf32>
  return
}

// -----

func.func @addmm_inner_dims(%b: tensor<16xf32>, %a: tensor<8x64xf32>, %m: tensor<32x16xf32>) {
  // expected-error @+1 {{'aten.addmm' op mat1 and mat2 shapes cannot be multiplied (8x64 and 32x16)}}
  %0 = aten.addmm %b, %a, %m : (tensor<16xf32>, tensor<8x64xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
  return
}

// -----

func.func @addmm_self_rank(%b: tensor<1x8x16xf32>, %a: tensor<8x64xf32>, %m: tensor<64x16xf32>) {
  // expected-error @+1 {{'aten.addmm' op expects self of rank <= 2 (broadcast to the product)}}
  %0 = aten.addmm %b, %a, %m : (tensor<1x8x16xf32>, tensor<8x64xf32>, tensor<64x16xf32>) -> tensor<8x16xf32>
  return
}

//===----------------------------------------------------------------------===//
// aten.conv2d, aten.convolution
//===----------------------------------------------------------------------===//

// -----

func.func @conv_input_rank(%x: tensor<4x8xf32>, %w: tensor<6x4x3x3xf32>) {
  // expected-error @+1 {{'aten.conv2d' op expects a 4-d (NCHW) or 3-d (CHW) input, got rank 2}}
  %0 = aten.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<4x8xf32>, tensor<6x4x3x3xf32>) -> tensor<6x6xf32>
  return
}

// -----

func.func @conv_weight_rank(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3xf32>) {
  // expected-error @+1 {{'aten.conv2d' op expects a 4-d weight, got rank 3}}
  %0 = aten.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<6x4x3xf32>) -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @conv_stride_entries(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) {
  // expected-error @+1 {{'aten.conv2d' op expects 'stride' to have 2 entries, got 3}}
  %0 = aten.conv2d %x, %w {stride = array<i64: 1, 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @conv_dilation_min(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) {
  // expected-error @+1 {{'aten.conv2d' op expects 'dilation' entries >= 1, got 0}}
  %0 = aten.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 0, 1>} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @conv_negative_padding(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) {
  // expected-error @+1 {{'aten.conv2d' op expects 'padding' entries >= 0, got -1}}
  %0 = aten.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: -1, 0>, dilation = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @conv_groups(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) {
  // expected-error @+1 {{'aten.conv2d' op expects groups >= 1, got 0}}
  %0 = aten.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 0 : i64} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @conv_element_types(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf16>) {
  // expected-error @+1 {{'aten.conv2d' op expects input and weight of one element type}}
  %0 = aten.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf16>) -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @conv_channels(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) {
  // With 2 groups each group of the weight sees 4 channels: 8 in all.
  // expected-error @+1 {{'aten.conv2d' op input has 4 channels but the weight expects 8 (groups = 2)}}
  %0 = aten.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @conv_bias(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>, %b: tensor<5xf32>) {
  // expected-error @+1 {{'aten.conv2d' op expects a bias of shape [6]}}
  %0 = aten.conv2d %x, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>, tensor<5xf32>) -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @convolution_weight_rank(%x: tensor<1x4x8x8x8x8xf32>, %w: tensor<6x4x3x3x3x3xf32>) {
  // expected-error @+1 {{'aten.convolution' op expects a 3-d, 4-d or 5-d weight (1 to 3 spatial dims), got rank 6}}
  %0 = aten.convolution %x, %w {stride = array<i64: 1, 1, 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilation = array<i64: 1, 1, 1, 1>, output_padding = array<i64: 0, 0, 0, 0>} : (tensor<1x4x8x8x8x8xf32>, tensor<6x4x3x3x3x3xf32>) -> tensor<1x6x6x6x6x6xf32>
  return
}

// -----

func.func @convolution_input_rank(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3xf32>) {
  // expected-error @+1 {{'aten.convolution' op expects a 3-d (batched) or 2-d (unbatched) input for a weight with 1 spatial dims, got rank 4}}
  %0 = aten.convolution %x, %w {stride = array<i64: 1>, padding = array<i64: 0>, dilation = array<i64: 1>, output_padding = array<i64: 0>} : (tensor<1x4x8x8xf32>, tensor<6x4x3xf32>) -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @convolution_stride_entries(%x: tensor<1x4x8x8x8xf32>, %w: tensor<6x4x3x3x3xf32>) {
  // expected-error @+1 {{'aten.convolution' op expects 'stride' to have 3 entries, got 2}}
  %0 = aten.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0, 0>, dilation = array<i64: 1, 1, 1>, output_padding = array<i64: 0, 0, 0>} : (tensor<1x4x8x8x8xf32>, tensor<6x4x3x3x3xf32>) -> tensor<1x6x6x6x6xf32>
  return
}

// -----

func.func @convolution_bool(%x: tensor<1x4x8xi1>, %w: tensor<6x4x3xi1>) {
  // expected-error @+1 {{'aten.convolution' op does not take bool tensors (ATen convolves floats and signed integers)}}
  %0 = aten.convolution %x, %w {stride = array<i64: 1>, padding = array<i64: 0>, dilation = array<i64: 1>, output_padding = array<i64: 0>} : (tensor<1x4x8xi1>, tensor<6x4x3xi1>) -> tensor<1x6x6xi1>
  return
}

// -----

func.func @convolution_output_padding(%x: tensor<1x4x8xf32>, %w: tensor<4x6x3xf32>) {
  // expected-error @+1 {{'aten.convolution' op expects output_padding smaller than stride or dilation, got 2 for stride 2 and dilation 1}}
  %0 = aten.convolution %x, %w {stride = array<i64: 2>, padding = array<i64: 0>, dilation = array<i64: 1>, transposed = true, output_padding = array<i64: 2>} : (tensor<1x4x8xf32>, tensor<4x6x3xf32>) -> tensor<1x6x19xf32>
  return
}

// -----

func.func @convolution_groups_divide(%x: tensor<1x4x8xf32>, %w: tensor<5x2x3xf32>) {
  // expected-error @+1 {{'aten.convolution' op expects the weight's 5 output channels to divide by groups = 2}}
  %0 = aten.convolution %x, %w {stride = array<i64: 1>, padding = array<i64: 0>, dilation = array<i64: 1>, groups = 2 : i64, output_padding = array<i64: 0>} : (tensor<1x4x8xf32>, tensor<5x2x3xf32>) -> tensor<1x5x6xf32>
  return
}

// -----

func.func @convolution_transposed_groups_divide(%x: tensor<1x3x8xf32>, %w: tensor<3x2x3xf32>) {
  // expected-error @+1 {{'aten.convolution' op expects the weight's 3 input channels to divide by groups = 2}}
  %0 = aten.convolution %x, %w {stride = array<i64: 1>, padding = array<i64: 0>, dilation = array<i64: 1>, transposed = true, groups = 2 : i64, output_padding = array<i64: 0>} : (tensor<1x3x8xf32>, tensor<3x2x3xf32>) -> tensor<1x4x10xf32>
  return
}

// -----

func.func @convolution_transposed_negative(%x: tensor<1x4x1xf32>, %w: tensor<4x6x1xf32>) {
  // expected-error @+1 {{'aten.convolution' op transposed convolution of an input of size 1 gives a negative output size -3}}
  %0 = aten.convolution %x, %w {stride = array<i64: 1>, padding = array<i64: 2>, dilation = array<i64: 1>, transposed = true, output_padding = array<i64: 0>} : (tensor<1x4x1xf32>, tensor<4x6x1xf32>) -> tensor<1x6x1xf32>
  return
}

// -----

func.func @conv_kernel_too_big(%x: tensor<1x4x2x8xf32>, %w: tensor<6x4x3x3xf32>) {
  // expected-error @+1 {{'aten.conv2d' op kernel of size 3 does not fit the padded input of size 2}}
  %0 = aten.conv2d %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x4x2x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x1x6xf32>
  return
}

// -----

func.func @convolution_output_padding(%x: tensor<1x4x8x8xf32>, %w: tensor<4x6x3x3xf32>) {
  // expected-error @+1 {{'aten.convolution' op expects 'output_padding' to have 2 entries, got 1}}
  %0 = aten.convolution %x, %w {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, transposed = true, output_padding = array<i64: 1>} : (tensor<1x4x8x8xf32>, tensor<4x6x3x3xf32>) -> tensor<1x6x16x16xf32>
  return
}

// -----

func.func @convolution_transposed_shape(%x: tensor<1x4x8x8xf32>, %w: tensor<4x6x3x3xf32>) {
  // (8 - 1) * 2 - 2 * 1 + 1 * (3 - 1) + 0 + 1 = 15
  // expected-error @+1 {{'aten.convolution' op result shape [1, 6, 16, 16] does not match the inferred shape [1, 6, 15, 15]}}
  %0 = aten.convolution %x, %w {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, transposed = true, output_padding = array<i64: 0, 0>} : (tensor<1x4x8x8xf32>, tensor<4x6x3x3xf32>) -> tensor<1x6x16x16xf32>
  return
}

//===----------------------------------------------------------------------===//
// aten.batch_norm, aten._native_batch_norm_legit_no_training
//===----------------------------------------------------------------------===//

// -----

func.func @batch_norm_rank(%x: tensor<4xf32>, %c: tensor<4xf32>) {
  // expected-error @+1 {{'aten.batch_norm' op expects an input of rank >= 2, got 1}}
  %0 = aten.batch_norm %x mean %c var %c {training = false, momentum = 0.1 : f64, eps = 1.0e-5 : f64} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @batch_norm_channels(%x: tensor<2x4x8x8xf32>, %c: tensor<4xf32>, %w: tensor<3xf32>) {
  // expected-error @+1 {{'aten.batch_norm' op expects per-channel operands of shape [4], got 'tensor<3xf32>'}}
  %0 = aten.batch_norm %x weight %w mean %c var %c {training = false, momentum = 0.1 : f64, eps = 1.0e-5 : f64} : (tensor<2x4x8x8xf32>, tensor<3xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x8x8xf32>
  return
}

// -----

func.func @batch_norm_inference_stats(%x: tensor<2x4x8x8xf32>, %c: tensor<4xf32>) {
  // expected-error @+1 {{'aten.batch_norm' op in inference (training = false) needs running_mean and running_var}}
  %0 = aten.batch_norm %x weight %c bias %c {training = false, momentum = 0.1 : f64, eps = 1.0e-5 : f64} : (tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x8x8xf32>
  return
}

// -----

func.func @native_batch_norm_channels(%x: tensor<2x4x8x8xf32>, %c: tensor<4xf32>, %m: tensor<2x4xf32>) {
  // expected-error @+1 {{'aten._native_batch_norm_legit_no_training' op expects per-channel operands of shape [4], got 'tensor<2x4xf32>'}}
  %0:3 = aten._native_batch_norm_legit_no_training %x mean %m var %c {momentum = 0.1 : f64, eps = 1.0e-5 : f64} : (tensor<2x4x8x8xf32>, tensor<2x4xf32>, tensor<4xf32>) -> (tensor<2x4x8x8xf32>, tensor<0xf32>, tensor<0xf32>)
  return
}

//===----------------------------------------------------------------------===//
// aten.max_pool2d, aten.max_pool2d_with_indices, aten.adaptive_avg_pool2d
//===----------------------------------------------------------------------===//

// -----

func.func @max_pool_rank(%x: tensor<8x8xf32>) {
  // expected-error @+1 {{'aten.max_pool2d' op expects a 4-d (NCHW) or 3-d (CHW) input, got rank 2}}
  %0 = aten.max_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<8x8xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @max_pool_kernel(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+1 {{'aten.max_pool2d' op expects 'kernel_size' entries >= 1, got 0}}
  %0 = aten.max_pool2d %x {kernel_size = array<i64: 0, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return
}

// -----

func.func @max_pool_padding(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+1 {{'aten.max_pool2d' op padding should be at most half of the kernel size, got padding 2 for kernel 3}}
  %0 = aten.max_pool2d %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 2, 2>, dilation = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x10x10xf32>
  return
}

// -----

func.func @max_pool_ceil_mode_shape(%x: tensor<1x4x9x9xf32>) {
  // ceil_mode keeps the partial last window: 5, not 4.
  // expected-error @+1 {{'aten.max_pool2d' op result shape [1, 4, 4, 4] does not match the inferred shape [1, 4, 5, 5]}}
  %0 = aten.max_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = true} : (tensor<1x4x9x9xf32>) -> tensor<1x4x4x4xf32>
  return
}

// -----

func.func @max_pool_indices_shape(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+1 {{'aten.max_pool2d_with_indices' op expects indices of the result's shape}}
  %0:2 = aten.max_pool2d_with_indices %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x3xi64>)
  return
}

// -----

func.func @adaptive_pool_rank(%x: tensor<2x1x4x8x8xf32>) {
  // expected-error @+1 {{'aten.adaptive_avg_pool2d' op expects a 4-d (NCHW) or 3-d (CHW) input, got rank 5}}
  %0 = aten.adaptive_avg_pool2d %x {output_size = array<i64: 1, 1>} : (tensor<2x1x4x8x8xf32>) -> tensor<2x1x4x1x1xf32>
  return
}

// -----

func.func @adaptive_pool_output_size(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+1 {{'aten.adaptive_avg_pool2d' op expects 'output_size' entries >= 1, got 0}}
  %0 = aten.adaptive_avg_pool2d %x {output_size = array<i64: 0, 0>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x0x0xf32>
  return
}

//===----------------------------------------------------------------------===//
// aten.mean_dim
//===----------------------------------------------------------------------===//

// -----

func.func @mean_dim_range(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'aten.mean_dim' op dim 2 is out of range for a tensor of rank 2}}
  %0 = aten.mean_dim %x {dim = array<i64: 2>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @mean_dim_keepdim_shape(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'aten.mean_dim' op result rank 1 does not match the inferred rank 2}}
  %0 = aten.mean_dim %x {dim = array<i64: -1>, keepdim = true} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

//===----------------------------------------------------------------------===//
// aten.permute
//===----------------------------------------------------------------------===//

// -----

func.func @permute_entries(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{'aten.permute' op expects 3 permutation entries, got 2}}
  %0 = aten.permute %x {dims = array<i64: 1, 0>} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  return
}

// -----

func.func @permute_repeated(%x: tensor<2x3x4xf32>) {
  // -1 is dim 2, so 2 appears twice.
  // expected-error @+1 {{'aten.permute' op dims is not a permutation of [0, 3)}}
  %0 = aten.permute %x {dims = array<i64: 2, 0, -1>} : (tensor<2x3x4xf32>) -> tensor<4x2x4xf32>
  return
}

//===----------------------------------------------------------------------===//
// aten.view
//===----------------------------------------------------------------------===//

// -----

func.func @view_element_type(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'aten.view' op cannot change the element type}}
  %0 = aten.view %x[6] : tensor<2x3xf32> -> tensor<6xi32>
  return
}

// -----

func.func @view_size_count(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'aten.view' op has 1 sizes for a result of rank 2}}
  %0 = aten.view %x[6] : tensor<2x3xf32> -> tensor<6x1xf32>
  return
}

// -----

func.func @view_dynamic_operands(%x: tensor<2x3xf32>, %n: index) {
  // The generic form can disagree with itself: no size is marked dynamic.
  // expected-error @+1 {{'aten.view' op expects 0 dynamic size operands, got 1}}
  %0 = "aten.view"(%x, %n) <{static_sizes = array<i64: 6>}> : (tensor<2x3xf32>, index) -> tensor<6xf32>
  return
}

// -----

func.func @view_two_inferred(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'aten.view' op can infer at most one size (-1)}}
  %0 = aten.view %x[-1, -1] : tensor<2x3xf32> -> tensor<?x?xf32>
  return
}

// -----

func.func @view_invalid_size(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'aten.view' op invalid size -2}}
  %0 = aten.view %x[-2, 3] : tensor<2x3xf32> -> tensor<?x3xf32>
  return
}

// -----

func.func @view_size_vs_type(%x: tensor<?x3xf32>) {
  // expected-error @+1 {{'aten.view' op size 4 disagrees with the result type 'tensor<3x5xf32>'}}
  %0 = aten.view %x[3, 4] : tensor<?x3xf32> -> tensor<3x5xf32>
  return
}

// -----

func.func @view_element_count(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'aten.view' op shape [7] is invalid for input of 6 elements}}
  %0 = aten.view %x[7] : tensor<2x3xf32> -> tensor<7xf32>
  return
}

//===----------------------------------------------------------------------===//
// aten.flatten_using_ints
//===----------------------------------------------------------------------===//

// -----

func.func @flatten_range(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{'aten.flatten_using_ints' op dims out of range for a tensor of rank 3}}
  %0 = aten.flatten_using_ints %x {start_dim = 3 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return
}

// -----

func.func @flatten_order(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{'aten.flatten_using_ints' op start_dim cannot come after end_dim}}
  %0 = aten.flatten_using_ints %x {start_dim = 2 : i64, end_dim = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return
}

// -----

func.func @flatten_shape(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{'aten.flatten_using_ints' op result shape [2, 13] does not match the inferred shape [2, 12]}}
  %0 = aten.flatten_using_ints %x {start_dim = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x13xf32>
  return
}

//===----------------------------------------------------------------------===//
// aten.sym_size_int
//===----------------------------------------------------------------------===//

// -----

func.func @sym_size_range(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'aten.sym_size_int' op dim -3 is out of range for a tensor of rank 2}}
  %0 = aten.sym_size_int %x, -3 : tensor<?x4xf32>
  return
}
