// RUN: kiln-opt %s --pass-pipeline="builtin.module(kiln-lower-to-linalg,kiln-linalg-to-gpu,rocdl-attach-target{chip=gfx90a abi=400},gpu.module(convert-scf-to-cf,convert-gpu-to-rocdl{chipset=gfx90a runtime=HIP}))" | FileCheck %s --check-prefix=ROCDL
// RUN: kiln-opt %s --kiln-rocm-pipeline="format=isa" | FileCheck %s --check-prefix=ISA
// RUN: kiln-opt %s --kiln-rocm-pipeline="chip=gfx942 format=isa" | FileCheck %s --check-prefix=GFX942
// RUN: kiln-opt %s --kiln-rocm-pipeline="chip=gfx1100 format=isa" | FileCheck %s --check-prefix=GFX1100
// RUN: kiln-opt %s --kiln-rocm-pipeline | FileCheck %s --check-prefix=HOST

// An elementwise chain (relu, then erf-GELU), a reduction (mean over the last
// two dims, one dynamic) and a tiled matmul (linear with bias, dynamic rows)
// through the ROCm path: the same gpu-dialect kernels as for CUDA, lowered
// through ROCDL.

func.func @elementwise(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %0 = aten.relu %x : tensor<?x64xf32>
  %1 = aten.gelu %0 : tensor<?x64xf32>
  return %1 : tensor<?x64xf32>
}
func.func @reduction(%x: tensor<2x?x8xf32>) -> tensor<2x1x1xf32> {
  %0 = aten.mean_dim %x {dim = array<i64: -2, -1>, keepdim = true} : (tensor<2x?x8xf32>) -> tensor<2x1x1xf32>
  return %0 : tensor<2x1x1xf32>
}
func.func @matmul(%x: tensor<?x96xf32>, %w: tensor<80x96xf32>, %b: tensor<80xf32>) -> tensor<?x80xf32> {
  %0 = aten.linear %x, %w, %b : (tensor<?x96xf32>, tensor<80x96xf32>, tensor<80xf32>) -> tensor<?x80xf32>
  return %0 : tensor<?x80xf32>
}

// In ROCDL the kernels read the workgroup and workitem ids, carry their
// workgroup size (256 threads; 32 for the single-workgroup reduction) and
// call the ROCm device libraries' erf.
// ROCDL: gpu.module @{{.*}} [#rocdl.target<chip = "gfx90a", abi = "400">]
// ROCDL-DAG: llvm.func @__ocml_erf_f32(f32) -> f32
// ROCDL-DAG: llvm.func @elementwise_kernel({{.*}}) attributes {gpu.kernel, gpu.known_block_size = array<i32: 256, 1, 1>, rocdl.flat_work_group_size = "256,256", rocdl.kernel, rocdl.reqd_work_group_size = array<i32: 256, 1, 1>}
// ROCDL: rocdl.workgroup.id.x : i32
// ROCDL: rocdl.workitem.id.x range <i32, 0, 256> : i32
// ROCDL: llvm.call @__ocml_erf_f32
// ROCDL: llvm.func @reduction_kernel({{.*}}) attributes {gpu.kernel, gpu.known_block_size = array<i32: 32, 1, 1>, gpu.known_grid_size = array<i32: 1, 1, 1>, rocdl.flat_work_group_size = "32,32", rocdl.kernel
// The bias broadcast, then the tiled matmul (kiln-gpu-tile-contractions):
// its two input tiles are LDS globals (address space 3; 64x17 and 16x65
// floats), its workgroup is 16x16 work-items, and each k step stores the
// tiles to LDS, waits at a barrier, reads them back and multiplies-adds,
// and waits again.
// ROCDL: llvm.func @matmul_kernel{{.*}}rocdl.kernel
// ROCDL: llvm.mlir.global internal @[[AT:__wg_matmul_kernel_[0-9]+_0]]() {addr_space = 3 : i32} : !llvm.array<1088 x f32>
// ROCDL: llvm.mlir.global internal @[[BT:__wg_matmul_kernel_[0-9]+_1]]() {addr_space = 3 : i32} : !llvm.array<1040 x f32>
// ROCDL: llvm.func @matmul_kernel_{{[0-9]+}}({{.*}}) attributes {gpu.kernel, gpu.known_block_size = array<i32: 16, 16, 1>, rocdl.flat_work_group_size = "256,256", rocdl.kernel, rocdl.reqd_work_group_size = array<i32: 16, 16, 1>}
// ROCDL: llvm.mlir.addressof @[[AT]] : !llvm.ptr<3>
// ROCDL: llvm.mlir.addressof @[[BT]] : !llvm.ptr<3>
// ROCDL: rocdl.workitem.id.x range <i32, 0, 16>
// ROCDL: rocdl.workitem.id.y range <i32, 0, 16>
// ROCDL: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// ROCDL: rocdl.barrier
// ROCDL-COUNT-8: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// ROCDL: llvm.fmul
// ROCDL: llvm.fadd
// ROCDL: rocdl.barrier
// ROCDL-NOT: nvvm.

// AMDGPU assembly for gfx90a, code object v4: one kernel descriptor per
// kernel, global loads and stores, ocml's erf linked and inlined (no call
// left), the reductions' loops, and the matmul's k loop in packed FMAs, all
// for 64-wide wavefronts.
// The single-workgroup reductions get one whole 64-wide wavefront.
// ISA: gpu.binary @{{.*}} [#gpu.object<#rocdl.target<O = 3, chip = "gfx90a", abi = "400">, assembly = "
// ISA-SAME: .amdgcn_target \22amdgcn-amd-amdhsa--gfx90a\22
// ISA-SAME: .amdhsa_code_object_version 4
// ISA-SAME: elementwise_kernel:
// ISA-SAME: global_load_dword
// ISA-SAME: v_fma_f32
// ISA-SAME: global_store_dword
// ISA-SAME: s_endpgm
// ISA-SAME: .amdhsa_kernel elementwise_kernel
// ISA-SAME: reduction_kernel_0:
// ISA-SAME: s_cbranch_scc1
// ISA-SAME: .amdhsa_kernel reduction_kernel_0
// The tiled matmul: global loads of the inputs' tiles, LDS writes, a
// barrier, the unrolled k step as LDS reads (two a time) feeding packed FMAs,
// a barrier again; 8.5 KB of LDS a workgroup of 16x16 work-items.
// ISA-SAME: matmul_kernel_{{[0-9]+}}:
// ISA-SAME: global_load_dword
// ISA-SAME: ds_write_b32
// ISA-SAME: s_barrier
// ISA-SAME: ds_read2_b32
// ISA-SAME: v_pk_fma_f32
// ISA-SAME: ds_read2_b32
// ISA-SAME: v_pk_fma_f32
// ISA-SAME: s_barrier
// ISA-SAME: global_store_dword
// ISA-SAME: .amdhsa_group_segment_fixed_size 8512
// ISA-SAME: amdhsa.kernels:
// ISA-SAME: .name: elementwise_kernel
// ISA-SAME: .reqd_workgroup_size:\0A - 256\0A - 1\0A - 1
// ISA-SAME: .wavefront_size: 64
// ISA-SAME: .name: reduction_kernel
// ISA-SAME: .reqd_workgroup_size:\0A - 64\0A - 1\0A - 1
// ISA-SAME: .wavefront_size: 64
// ISA-SAME: .group_segment_fixed_size: 8512
// ISA-SAME: .name: matmul_kernel_{{[0-9]+}}
// ISA-SAME: .reqd_workgroup_size:\0A - 16\0A - 16\0A - 1
// ISA-SAME: amdhsa.target: amdgcn-amd-amdhsa--gfx90a
// ISA-NOT: __ocml_erf_f32

// gfx942 (MI300) is served from the same device libraries.
// GFX942: .amdgcn_target \22amdgcn-amd-amdhsa--gfx942\22
// GFX942-SAME: s_barrier
// GFX942-SAME: ds_read2_b32
// GFX942-SAME: v_pk_fma_f32
// GFX942-SAME: amdhsa.target: amdgcn-amd-amdhsa--gfx942

// RDNA (gfx10+) runs 32-wide wavefronts: the reductions get 32 work-items,
// and the device libraries are told so (no wave64 flag on the target).
// GFX1100: #rocdl.target<O = 3, chip = "gfx1100", abi = "400", flags = {no_wave64}>
// GFX1100-SAME: .amdgcn_target \22amdgcn-amd-amdhsa--gfx1100\22
// GFX1100-SAME: .name: reduction_kernel
// GFX1100-SAME: .reqd_workgroup_size:\0A - 32\0A - 1\0A - 1
// GFX1100-SAME: .wavefront_size: 32

// The default is a linked code object (an AMDGPU ELF) in the gpu.binary; the
// host is pure LLVM dialect calling the same mgpu* functions as CUDA models.
// HOST-NOT: func.func
// HOST-NOT: memref.
// HOST-NOT: gpu.alloc
// HOST: llvm.func @elementwise(
// HOST: llvm.call @mgpuStreamCreate()
// HOST: llvm.call @mgpuMemAlloc
// HOST: gpu.launch_func <%{{.*}} : !llvm.ptr> @{{.*}}::@elementwise_kernel
// HOST: llvm.call @mgpuStreamSynchronize(
// HOST: gpu.binary @{{.*}} [#gpu.object<#rocdl.target<O = 3, chip = "gfx90a", abi = "400">, bin = "\7FELF\02\01\01@\02
// HOST-DAG: llvm.func @mgpuMemAlloc(i64, !llvm.ptr, i8) -> !llvm.ptr
