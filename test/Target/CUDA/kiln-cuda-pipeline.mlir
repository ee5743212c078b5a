// RUN: kiln-opt %s --kiln-lower-to-linalg --kiln-linalg-to-gpu | FileCheck %s --check-prefix=GPU
// RUN: kiln-opt %s --pass-pipeline="builtin.module(kiln-lower-to-linalg,kiln-linalg-to-gpu,nvvm-attach-target{chip=sm_90},gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm))" | FileCheck %s --check-prefix=NVVM
// RUN: kiln-opt %s --kiln-cuda-pipeline="format=ptx" | FileCheck %s --check-prefix=PTX
// RUN: kiln-opt %s --kiln-cuda-pipeline="chip=sm_80 format=cubin" | FileCheck %s --check-prefix=CUBIN
// RUN: kiln-opt %s --kiln-cuda-pipeline | FileCheck %s --check-prefix=HOST

// An elementwise chain (relu, then erf-GELU), a reduction (mean over the last
// two dims, one dynamic) and a tiled matmul (linear with bias, dynamic rows;
// under 2^18 multiply-adds with a dynamic dim counted as 128, so it stays a
// generated kernel with kiln-gpu-library-calls on)
// through the CUDA path.

func.func @elementwise(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %0 = aten.relu %x : tensor<?x64xf32>
  %1 = aten.gelu %0 : tensor<?x64xf32>
  return %1 : tensor<?x64xf32>
}
func.func @reduction(%x: tensor<2x?x8xf32>) -> tensor<2x1x1xf32> {
  %0 = aten.mean_dim %x {dim = array<i64: -2, -1>, keepdim = true} : (tensor<2x?x8xf32>) -> tensor<2x1x1xf32>
  return %0 : tensor<2x1x1xf32>
}
func.func @matmul(%x: tensor<?x96xf32>, %w: tensor<20x96xf32>, %b: tensor<20xf32>) -> tensor<?x20xf32> {
  %0 = aten.linear %x, %w, %b : (tensor<?x96xf32>, tensor<20x96xf32>, tensor<20xf32>) -> tensor<?x20xf32>
  return %0 : tensor<?x20xf32>
}

// Host code: one stream per call, device allocations, one launch per fused
// linalg op, all kernels in one gpu.module.
// GPU-LABEL: func.func @elementwise(%arg0: memref<?x64xf32>) -> memref<?x64xf32>
// GPU: %[[S:.*]] = gpu.wait async
// GPU: %[[OUT:.*]], %[[T0:.*]] = gpu.alloc async [%[[S]]] (%{{.*}}) : memref<?x64xf32>
// GPU: %[[T1:.*]] = gpu.launch_func async [%[[T0]]] @[[MOD:.*]]::@elementwise_kernel blocks in (%{{.*}}, %c1, %c1) threads in (%c256, %c1, %c1) args({{.*}}%arg0 : memref<?x64xf32>, %[[OUT]] : memref<?x64xf32>)
// GPU: gpu.wait [%[[T1]]]
// GPU: return %[[OUT]]
// GPU: gpu.module @[[MOD]] {
// GPU: gpu.func @elementwise_kernel({{.*}}) kernel attributes {known_block_size = array<i32: 256, 1, 1>}
// GPU: %[[B:.*]] = gpu.block_id x
// GPU: %[[T:.*]] = gpu.thread_id x
// GPU: arith.maximumf
// GPU: math.erf
// GPU: gpu.func @reduction_kernel
// GPU: gpu.func @reduction_kernel_0
// The matmul kernel (kiln-gpu-tile-contractions): 16x16 threads a block, a
// tile of x and one of w in shared memory, k in steps of 16 between
// barriers, each thread's 4x4 sums in registers, started from the bias the
// first kernel wrote.
// GPU: gpu.func @matmul_kernel_{{[0-9]+}}(%[[X:.*]]: memref<?x96xf32>, %{{.*}}: index, %[[Y:.*]]: memref<?x20xf32>, %[[W:.*]]: memref<20x96xf32>) workgroup(%[[XT:.*]] : memref<64x17xf32, #gpu.address_space<workgroup>>, %[[WT:.*]] : memref<16x65xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 16, 16, 1>}
// GPU: memref.load %[[Y]]
// GPU: scf.for %{{.*}} = %c0 to %c96 step %c16 iter_args(
// GPU:   memref.load %[[X]]
// GPU:   memref.store %{{.*}}, %[[XT]]
// GPU:   memref.load %[[W]]
// GPU:   memref.store %{{.*}}, %[[WT]]
// GPU:   gpu.barrier
// GPU:   scf.for %{{.*}} = %c0 to %c16 step %c1 iter_args(
// GPU:     memref.load %[[XT]]
// GPU:     memref.load %[[WT]]
// GPU:     arith.mulf
// GPU:     arith.addf
// GPU:   gpu.barrier
// GPU: memref.store %{{.*}}, %[[Y]]
// GPU-NOT: gpu.module
// GPU-LABEL: func.func @reduction
// GPU: gpu.launch_func async {{.*}}::@reduction_kernel blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1)

// In NVVM the kernels read the special registers and call libdevice's erf.
// NVVM: gpu.module @{{.*}} [#nvvm.target<chip = "sm_90">] {
// NVVM-DAG: llvm.func @__nv_erff(f32) -> f32
// NVVM-DAG: llvm.func @elementwise_kernel({{.*}}) attributes {gpu.kernel, gpu.known_block_size = array<i32: 256, 1, 1>, {{.*}}nvvm.kernel, nvvm.maxntid = array<i32: 256, 1, 1>}
// NVVM: nvvm.read.ptx.sreg.ctaid.x
// NVVM: nvvm.read.ptx.sreg.tid.x
// NVVM: llvm.call @__nv_erff
// The matmul's tiles are shared-memory globals (address space 3), the
// barriers bar.sync 0.
// NVVM: llvm.mlir.global internal @[[AT:__wg_matmul_kernel_[0-9]+_0]]() {addr_space = 3 : i32} : !llvm.array<1088 x f32>
// NVVM: llvm.mlir.global internal @[[BT:__wg_matmul_kernel_[0-9]+_1]]() {addr_space = 3 : i32} : !llvm.array<1040 x f32>
// NVVM: llvm.func @matmul_kernel_{{[0-9]+}}({{.*}}nvvm.kernel, nvvm.maxntid = array<i32: 16, 16, 1>}
// NVVM: llvm.mlir.addressof @[[AT]] : !llvm.ptr<3>
// NVVM: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// NVVM: nvvm.barrier0
// NVVM-COUNT-8: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// NVVM: llvm.fmul
// NVVM: llvm.fadd
// NVVM: nvvm.barrier0

// The host's launches become mgpu* calls, and the kernels PTX for sm_90: one
// entry per kernel, global loads and stores, libdevice's erf linked in (no
// call left).
// PTX-LABEL: llvm.func @elementwise
// PTX: llvm.call @mgpuStreamCreate()
// PTX: llvm.call @mgpuMemAlloc(
// PTX: gpu.launch_func <%{{.*}} : !llvm.ptr> @{{.*}}::@elementwise_kernel
// PTX: llvm.call @mgpuStreamSynchronize(
// PTX: llvm.call @mgpuStreamDestroy(
// PTX: gpu.binary @{{.*}} [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx81">, properties = {{.*}}, assembly = "
// PTX-SAME: .target sm_90
// PTX-SAME: .visible .entry elementwise_kernel(
// PTX-SAME: ld.global.b32
// PTX-SAME: st.global.b32
// PTX-SAME: .visible .entry reduction_kernel(
// PTX-SAME: .visible .entry matmul_kernel(
// PTX-SAME: .visible .entry matmul_kernel_{{[0-9]+}}(
// PTX-SAME: .maxntid 16, 16, 1
// PTX-SAME: .shared .align 4 .b8 __wg_matmul_kernel_{{[0-9]+}}_0[4352];
// PTX-SAME: .shared .align 4 .b8 __wg_matmul_kernel_{{[0-9]+}}_1[4160];
// PTX-SAME: st.shared.b32
// PTX-SAME: bar.sync \090;
// PTX-SAME: ld.shared.b32
// PTX-SAME: fma.rn.f32
// PTX-SAME: bar.sync \090;
// PTX-NOT: __nv_erff

// ptxas assembles a cubin (an ELF) for another architecture on request.
// CUBIN: gpu.binary @{{.*}} [#gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx81">, properties = {{.*}}, bin = "\7FELF

// The default is a fatbin (cubin and PTX; it starts with the fatbin magic
// 0xBA55ED50), and the host is pure LLVM dialect.
// HOST-NOT: func.func
// HOST-NOT: memref.
// HOST-NOT: gpu.alloc
// HOST: llvm.func @elementwise(
// HOST: llvm.call @mgpuMemAlloc
// HOST: gpu.binary @{{.*}} [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx81">, properties = {{.*}}, "P\EDU\BA
// HOST-DAG: llvm.func @mgpuMemAlloc(i64, !llvm.ptr, i8) -> !llvm.ptr
