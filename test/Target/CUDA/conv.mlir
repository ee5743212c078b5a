// RUN: kiln-opt %s --kiln-cuda-pipeline="depthwise=cudnn" | FileCheck %s
// RUN: kiln-opt %s --kiln-cuda-pipeline="tf32=none depthwise=cudnn" | FileCheck %s --check-prefix=NOTF32
// RUN: kiln-opt %s --kiln-cuda-pipeline | FileCheck %s --check-prefix=DWK
// RUN: kiln-opt %s --kiln-cuda-pipeline="conv=gemm" | FileCheck %s --check-prefix=GEMM
// RUN: kiln-opt %s --kiln-cuda-pipeline="conv=kernel" | FileCheck %s --check-prefix=KERNEL

// Convolutions on CUDA call the runtime's cuDNN entry (its C interface
// takes the rank-5 descriptors by pointer) on the call's stream: a padded
// 3x3 one with its bias and the ReLU after it in cuDNN's fused call
// (kiln_gpu_conv_bias_f32, flags: TF32, overwrite, ReLU), a depthwise one
// into a zeroed output (overwrite, and TF32: flags 3), and one in bf16
// (kiln_gpu_conv_bf16 overwriting a 16-bit result that a generated kernel
// widens; never TF32). TF32 follows the tf32 option: conv (the default)
// allows it for float32 convolutions, none does not.
// By default (depthwise=kernel) the depthwise one is a generated kernel,
// the others still call cuDNN.
// DWK-LABEL: llvm.func @forward(
// DWK: llvm.call @kiln_gpu_conv_bias_f32(
// DWK-NOT: llvm.call @kiln_gpu_conv_f32(
// DWK: llvm.call @kiln_gpu_conv_bf16(
// CHECK: llvm.func private @kiln_gpu_conv_bf16(
// CHECK: llvm.call @_mlir_ciface_kiln_gpu_conv_bf16({{.*}}) : (i32, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
// CHECK: llvm.func @_mlir_ciface_kiln_gpu_conv_bf16(i32, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr)
// CHECK: llvm.func private @kiln_gpu_conv_f32(
// CHECK: llvm.call @_mlir_ciface_kiln_gpu_conv_f32({{.*}}) : (i32, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
// CHECK: llvm.func @_mlir_ciface_kiln_gpu_conv_f32(i32, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr)
// CHECK: llvm.func @_mlir_ciface_kiln_gpu_conv_bias_f32(i32, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr)
// CHECK-LABEL: llvm.func @forward(
// CHECK-DAG: %[[F7:.*]] = llvm.mlir.constant(7 : i32) : i32
// CHECK-DAG: %[[F2:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-DAG: %[[F3:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-DAG: %[[G:.*]] = llvm.mlir.constant(32 : i64) : i64
// CHECK: llvm.call @kiln_gpu_conv_bias_f32(%[[F7]],
// CHECK: llvm.call @kiln_gpu_conv_f32(%[[F3]], %[[G]],
// CHECK: llvm.call @kiln_gpu_conv_bf16(%[[F2]],
// NOTF32-LABEL: llvm.func @forward(
// NOTF32-DAG: %[[F6:.*]] = llvm.mlir.constant(6 : i32) : i32
// NOTF32-DAG: %[[F2:.*]] = llvm.mlir.constant(2 : i32) : i32
// NOTF32: llvm.call @kiln_gpu_conv_bias_f32(%[[F6]],
// NOTF32: llvm.call @kiln_gpu_conv_f32(%[[F2]],
// NOTF32: llvm.call @kiln_gpu_conv_bf16(%[[F2]],
// With conv=gemm, the ungrouped ones are im2col GEMMs (the depthwise one a
// generated kernel); with conv=kernel, all are generated kernels.
// GEMM-NOT: kiln_gpu_conv
// GEMM: llvm.call @kiln_gpu_gemm_f32(
// GEMM-NOT: kiln_gpu_conv
// KERNEL-NOT: kiln_gpu_conv
// KERNEL-NOT: kiln_gpu_gemm
// KERNEL: llvm.func @forward(
// KERNEL-NOT: kiln_gpu_conv
// KERNEL-NOT: kiln_gpu_gemm
func.func @forward(%x: tensor<2x16x64x64xf32>, %w: tensor<32x16x3x3xf32>, %b: tensor<32xf32>,
                   %wd: tensor<32x1x3x3xf32>, %xh: tensor<2x16x32x32xbf16>, %wh: tensor<32x16x3x3xbf16>)
    -> (tensor<2x32x32x32xf32>, tensor<2x32x32x32xbf16>) {
  %0 = aten.convolution %x, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, transposed = false, output_padding = array<i64: 0, 0>} : (tensor<2x16x64x64xf32>, tensor<32x16x3x3xf32>, tensor<32xf32>) -> tensor<2x32x64x64xf32>
  %1 = aten.relu %0 : tensor<2x32x64x64xf32>
  %2 = aten.convolution %1, %wd {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, transposed = false, output_padding = array<i64: 0, 0>, groups = 32 : i64} : (tensor<2x32x64x64xf32>, tensor<32x1x3x3xf32>) -> tensor<2x32x32x32xf32>
  %3 = aten.convolution %xh, %wh {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, transposed = false, output_padding = array<i64: 0, 0>} : (tensor<2x16x32x32xbf16>, tensor<32x16x3x3xbf16>) -> tensor<2x32x32x32xbf16>
  return %2, %3 : tensor<2x32x32x32xf32>, tensor<2x32x32x32xbf16>
}
