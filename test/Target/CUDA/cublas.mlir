// RUN: kiln-opt %s --kiln-cuda-pipeline="format=ptx" | FileCheck %s
// RUN: kiln-opt %s --kiln-cuda-pipeline="format=ptx cublas=false" | FileCheck %s --check-prefix=KERNEL
// RUN: kiln-opt %s --kiln-cuda-pipeline="format=ptx" | FileCheck %s --check-prefix=PTX
// RUN: kiln-opt %s --kiln-cuda-pipeline="format=ptx chip=sm_100" | FileCheck %s --check-prefix=PTX100

// A BERT-sized linear layer and a GELU: the matmul and its bias are one
// call of the runtime's epilogue GEMM (cuBLASLt) through its C interface,
// in the call's stream order before the GELU's launch.
func.func @forward(%x: tensor<128x768xf32>, %w: tensor<3072x768xf32>, %b: tensor<3072xf32>) -> tensor<128x3072xf32> {
  %0 = aten.linear %x, %w, %b : (tensor<128x768xf32>, tensor<3072x768xf32>, tensor<3072xf32>) -> tensor<128x3072xf32>
  %1 = aten.gelu %0 : tensor<128x3072xf32>
  return %1 : tensor<128x3072xf32>
}
// CHECK: llvm.func private @kiln_gpu_gemm_lt_f32(
// CHECK: llvm.call @_mlir_ciface_kiln_gpu_gemm_lt_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (i32, i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
// CHECK: llvm.func @_mlir_ciface_kiln_gpu_gemm_lt_f32(i32, i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr)
// CHECK-LABEL: llvm.func @forward
// CHECK: llvm.call @mgpuMemAlloc
// CHECK-NOT: gpu.launch_func
// CHECK: llvm.call @kiln_gpu_gemm_lt_f32
// CHECK: gpu.launch_func {{.*}}@forward_kernel::@forward_kernel blocks
// CHECK-NOT: gpu.launch_func
// CHECK: llvm.return
// The one kernel is the GELU.
// CHECK: .visible .entry forward_kernel(
// CHECK-NOT: .entry
// A linear layer and a ReLU: one call (the ReLU is the call's epilogue), no kernel.
// CHECK-LABEL: llvm.func @relu
// CHECK-NOT: gpu.launch_func
// CHECK: llvm.call @kiln_gpu_gemm_lt_f32
// CHECK-NOT: gpu.launch_func
// CHECK: llvm.return
func.func @relu(%x: tensor<128x768xf32>, %w: tensor<3072x768xf32>, %b: tensor<3072xf32>) -> tensor<128x3072xf32> {
  %0 = aten.linear %x, %w, %b : (tensor<128x768xf32>, tensor<3072x768xf32>, tensor<3072xf32>) -> tensor<128x3072xf32>
  %1 = aten.relu %0 : tensor<128x3072xf32>
  return %1 : tensor<128x3072xf32>
}

// With cublas=false the matmuls and the bias broadcasts are generated kernels too.
// KERNEL-NOT: kiln_gpu_gemm
// KERNEL: .visible .entry forward_kernel(
// KERNEL-SAME: .visible .entry forward_kernel_0(
// KERNEL-SAME: .visible .entry forward_kernel_1(

// Kernels are PTX ISA 8.1 at least (32764 bytes of parameters, not 4352);
// sm_100 keeps its own, newer minimum.
// PTX: features = "+ptx81"{{.*}}.version 8.1\0A.target sm_90\0A
// PTX100-NOT: ptx81
// PTX100: .target sm_100
