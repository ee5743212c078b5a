// RUN: kiln-opt %s --kiln-cuda-pipeline="format=ptx fused-attention=1" | FileCheck %s

// Float32 attention runs in the fused kernel at every size (its products are
// TF32 x3 on tensor cores, in float32 precision): GPT-2's shape with a
// per-head additive bias [1, H, L, S], and a dynamic batch with a bool
// padding mask. No score matrix, no softmax kernel, no GEMM call.
func.func @bias(%q: tensor<1x12x512x64xf32>, %k: tensor<1x12x512x64xf32>, %v: tensor<1x12x512x64xf32>, %b: tensor<1x12x512x512xf32>) -> tensor<1x12x512x64xf32> {
  %a = aten.scaled_dot_product_attention %q, %k, %v mask %b {scale = 1.250000e-01 : f64} : (tensor<1x12x512x64xf32>, tensor<1x12x512x64xf32>, tensor<1x12x512x64xf32>, tensor<1x12x512x512xf32>) -> tensor<1x12x512x64xf32>
  return %a : tensor<1x12x512x64xf32>
}

func.func @dynamic(%q: tensor<?x12x128x64xf32>, %k: tensor<?x12x128x64xf32>, %v: tensor<?x12x128x64xf32>, %m: tensor<?x1x1x128xi1>) -> tensor<?x12x128x64xf32> {
  %a = aten.scaled_dot_product_attention %q, %k, %v mask %m {scale = 1.250000e-01 : f64} : (tensor<?x12x128x64xf32>, tensor<?x12x128x64xf32>, tensor<?x12x128x64xf32>, tensor<?x1x1x128xi1>) -> tensor<?x12x128x64xf32>
  return %a : tensor<?x12x128x64xf32>
}
// CHECK-LABEL: llvm.func @bias(
// CHECK: llvm.call @kiln_gpu_sdpa_f32_addmask
// CHECK-NOT: gpu.launch_func
// CHECK-NOT: kiln_gpu_gemm
// CHECK-LABEL: llvm.func @dynamic(
// CHECK: llvm.call @kiln_gpu_sdpa_f32_boolmask
// CHECK-NOT: gpu.launch_func
// CHECK-NOT: kiln_gpu_gemm
