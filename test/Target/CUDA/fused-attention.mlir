// RUN: kiln-opt %s --kiln-cuda-pipeline="format=ptx fused-attention=1" | FileCheck %s
// RUN: kiln-opt %s --kiln-cuda-pipeline="format=ptx" | FileCheck %s --check-prefix=DECOMPOSED

// BERT's self-attention core on CUDA: the projections' heads go to the
// runtime's fused attention kernel as strided views (no transpose kernels),
// one call in stream order; the result comes back in [B, L, H, Ev] order.
func.func @forward(%x: tensor<2x16x4x64xbf16>, %y: tensor<2x16x4x64xbf16>, %z: tensor<2x16x4x64xbf16>, %m: tensor<2x1x1x16xi1>) -> tensor<2x16x256xbf16> {
  %q = aten.permute %x {dims = array<i64: 0, 2, 1, 3>} : (tensor<2x16x4x64xbf16>) -> tensor<2x4x16x64xbf16>
  %k = aten.permute %y {dims = array<i64: 0, 2, 1, 3>} : (tensor<2x16x4x64xbf16>) -> tensor<2x4x16x64xbf16>
  %v = aten.permute %z {dims = array<i64: 0, 2, 1, 3>} : (tensor<2x16x4x64xbf16>) -> tensor<2x4x16x64xbf16>
  %me = aten.expand %m[2, -1, 16, 16] : tensor<2x1x1x16xi1> -> tensor<2x1x16x16xi1>
  %a = aten.scaled_dot_product_attention %q, %k, %v mask %me {scale = 1.250000e-01 : f64} : (tensor<2x4x16x64xbf16>, tensor<2x4x16x64xbf16>, tensor<2x4x16x64xbf16>, tensor<2x1x16x16xi1>) -> tensor<2x4x16x64xbf16>
  %o = aten.permute %a {dims = array<i64: 0, 2, 1, 3>} : (tensor<2x4x16x64xbf16>) -> tensor<2x16x4x64xbf16>
  %r = aten.view %o[2, 16, 256] : tensor<2x16x4x64xbf16> -> tensor<2x16x256xbf16>
  return %r : tensor<2x16x256xbf16>
}
// CHECK: llvm.func private @kiln_gpu_sdpa_bf16_boolmask(
// CHECK: llvm.call @_mlir_ciface_kiln_gpu_sdpa_bf16_boolmask(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, f32) -> ()
// CHECK: llvm.func @_mlir_ciface_kiln_gpu_sdpa_bf16_boolmask(!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, f32)
// CHECK-LABEL: llvm.func @forward
// CHECK: llvm.call @mgpuMemAlloc
// CHECK: llvm.call @kiln_gpu_sdpa_bf16_boolmask
// No kernel is left: operands and result are views.
// CHECK-NOT: gpu.launch_func
// CHECK-NOT: .entry

// Decomposed (the pipeline's default): kernels, no fused call.
// DECOMPOSED-NOT: kiln_gpu_sdpa
// DECOMPOSED: gpu.launch_func
// DECOMPOSED: .visible .entry
