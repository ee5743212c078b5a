// RUN: kiln-opt %s --kiln-cuda-pipeline | FileCheck %s
// RUN: kiln-opt %s --kiln-cuda-pipeline="conv=kernel" | FileCheck %s --check-prefix=KERNEL

// A float32 transposed convolution on CUDA is cuDNN's backward-data call on
// the input itself (convert-aten-to-linalg lowers it as a convolution's input
// gradient): no kernel spreads the input out by the stride into a buffer of
// the output's size, and the bias is added by a generated kernel after the
// call. The 2x2 stride-2 upsampling of a UNet decoder with its bias, and a
// grouped 3x3 one with padding and output padding, at batch 1 (where the
// spread's batch index folds to the constant 0).
// CHECK-LABEL: llvm.func @forward(
// CHECK: llvm.call @kiln_gpu_conv_bwd_data_f32(
// CHECK: llvm.call @kiln_gpu_conv_bwd_data_f32(
// CHECK-NOT: llvm.call @kiln_gpu_conv_f32(
// CHECK: llvm.return
// Without cuDNN (conv=kernel) every product is a generated kernel.
// KERNEL-NOT: kiln_gpu_conv
func.func @forward(%x: tensor<1x64x32x32xf32>, %w: tensor<64x32x2x2xf32>, %b: tensor<32xf32>,
                   %wg: tensor<32x8x3x3xf32>) -> tensor<1x16x128x128xf32> {
  %0 = aten.convolution %x, %w, %b {stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, transposed = true, output_padding = array<i64: 0, 0>} : (tensor<1x64x32x32xf32>, tensor<64x32x2x2xf32>, tensor<32xf32>) -> tensor<1x32x64x64xf32>
  %1 = aten.convolution %0, %wg {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, transposed = true, output_padding = array<i64: 1, 1>, groups = 2 : i64} : (tensor<1x32x64x64xf32>, tensor<32x8x3x3xf32>) -> tensor<1x16x128x128xf32>
  return %1 : tensor<1x16x128x128xf32>
}
