// RUN: kiln-opt %s --kiln-cuda-pipeline | FileCheck %s
// RUN: kiln-opt %s --kiln-cuda-pipeline="cublas=0" | FileCheck %s --check-prefix=NOGEMM

// 1x1 convolutions in NHWC (kiln-gpu-library-calls, pointwise-gemms): a
// bfloat16 one with its bias and no activation is one cuBLASLt call
// writing the 16-bit result that the kernel adding the residual (and
// transposing the sum back to NCHW, so not a residual the call takes:
// kiln-gpu-library-calls-pointwise.mlir has those) reads; a float32 one with
// its bias and ReLU and the 3x3 one stay cuDNN's fused calls.
// CHECK-LABEL: llvm.func @forward(
// CHECK: llvm.call @kiln_gpu_conv_bias_f32(
// CHECK: llvm.call @kiln_gpu_conv_bias_f32(
// CHECK: llvm.call @kiln_gpu_gemm_lt_bf16(
// CHECK-NOT: kiln_gpu_conv
// CHECK: llvm.return
// With generated GEMMs, every convolution calls cuDNN.
// NOGEMM-NOT: kiln_gpu_gemm
// NOGEMM: llvm.call @kiln_gpu_conv_bias_f32(
// NOGEMM: llvm.call @kiln_gpu_conv_bias_f32(
// NOGEMM: llvm.call @kiln_gpu_conv_bias_bf16(
func.func @forward(%x: tensor<2x32x28x28xf32>, %w: tensor<64x32x1x1xf32>, %b: tensor<64xf32>,
                   %w3: tensor<64x64x3x3xf32>, %b3: tensor<64xf32>,
                   %xh: tensor<2x32x28x28xbf16>, %wh: tensor<64x32x1x1xbf16>, %bh: tensor<64xbf16>,
                   %r: tensor<2x64x28x28xbf16>)
    -> (tensor<2x64x28x28xf32>, tensor<2x64x28x28xbf16>) {
  %0 = aten.convolution %x, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, transposed = false, output_padding = array<i64: 0, 0>} : (tensor<2x32x28x28xf32>, tensor<64x32x1x1xf32>, tensor<64xf32>) -> tensor<2x64x28x28xf32>
  %1 = aten.relu %0 : tensor<2x64x28x28xf32>
  %2 = aten.convolution %1, %w3, %b3 {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, transposed = false, output_padding = array<i64: 0, 0>} : (tensor<2x64x28x28xf32>, tensor<64x64x3x3xf32>, tensor<64xf32>) -> tensor<2x64x28x28xf32>
  %3 = aten.convolution %xh, %wh, %bh {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, transposed = false, output_padding = array<i64: 0, 0>} : (tensor<2x32x28x28xbf16>, tensor<64x32x1x1xbf16>, tensor<64xbf16>) -> tensor<2x64x28x28xbf16>
  %4 = aten.add_tensor %3, %r : (tensor<2x64x28x28xbf16>, tensor<2x64x28x28xbf16>) -> tensor<2x64x28x28xbf16>
  return %2, %4 : tensor<2x64x28x28xf32>, tensor<2x64x28x28xbf16>
}
