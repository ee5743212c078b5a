// Convolutions of every shape the CUDA path sends to cuDNN
// (kiln_gpu_conv_<type>): a padded 3x3 with a bias, a depthwise one with
// stride 2, dilation 2 and padding 2, a grouped 1x1, a grouped 1-d one with
// stride, padding and dilation, a 3-d one with a bias and per-dim strides,
// and a transposed one (a direct convolution over the spread input).
// test/gpu/check.py compares the GPU build with kiln's CPU build on random
// inputs (inputs.json gives their shapes).
func.func @forward(%x: tensor<2x16x64x64xf32>, %w1: tensor<32x16x3x3xf32>, %b1: tensor<32xf32>,
                   %w2: tensor<32x1x3x3xf32>, %w3: tensor<64x8x1x1xf32>,
                   %y: tensor<4x8x1000xf32>, %w4: tensor<16x4x5xf32>,
                   %z: tensor<2x8x8x16x16xf32>, %w5: tensor<8x8x3x3x3xf32>, %b5: tensor<8xf32>,
                   %w6: tensor<32x8x4x4xf32>)
    -> (tensor<2x64x32x32xf32>, tensor<4x16x498xf32>, tensor<2x8x8x8x8xf32>, tensor<2x8x64x64xf32>) {
  %a = aten.convolution %x, %w1, %b1 {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, transposed = false, output_padding = array<i64: 0, 0>} : (tensor<2x16x64x64xf32>, tensor<32x16x3x3xf32>, tensor<32xf32>) -> tensor<2x32x64x64xf32>
  %ar = aten.relu %a : tensor<2x32x64x64xf32>
  %b = aten.convolution %ar, %w2 {stride = array<i64: 2, 2>, padding = array<i64: 2, 2>, dilation = array<i64: 2, 2>, transposed = false, output_padding = array<i64: 0, 0>, groups = 32 : i64} : (tensor<2x32x64x64xf32>, tensor<32x1x3x3xf32>) -> tensor<2x32x32x32xf32>
  %c = aten.convolution %b, %w3 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, transposed = false, output_padding = array<i64: 0, 0>, groups = 4 : i64} : (tensor<2x32x32x32xf32>, tensor<64x8x1x1xf32>) -> tensor<2x64x32x32xf32>
  %d = aten.convolution %y, %w4 {stride = array<i64: 2>, padding = array<i64: 4>, dilation = array<i64: 3>, transposed = false, output_padding = array<i64: 0>, groups = 2 : i64} : (tensor<4x8x1000xf32>, tensor<16x4x5xf32>) -> tensor<4x16x498xf32>
  %e = aten.convolution %z, %w5, %b5 {stride = array<i64: 1, 2, 2>, padding = array<i64: 1, 1, 1>, dilation = array<i64: 1, 1, 1>, transposed = false, output_padding = array<i64: 0, 0, 0>} : (tensor<2x8x8x16x16xf32>, tensor<8x8x3x3x3xf32>, tensor<8xf32>) -> tensor<2x8x8x8x8xf32>
  %f = aten.convolution %b, %w6 {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, transposed = true, output_padding = array<i64: 0, 0>} : (tensor<2x32x32x32xf32>, tensor<32x8x4x4xf32>) -> tensor<2x8x64x64xf32>
  return %c, %d, %e, %f : tensor<2x64x32x32xf32>, tensor<4x16x498xf32>, tensor<2x8x8x8x8xf32>, tensor<2x8x64x64xf32>
}
