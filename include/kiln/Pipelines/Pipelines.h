//===- Pipelines.h - kiln's named pass pipelines ----------------*- C++ -*-===//
#ifndef KILN_PIPELINES_PIPELINES_H
#define KILN_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace kiln {
/// aten -> linalg on tensors, fused (`kiln-lower-to-linalg`). With
/// `fusedAttention` (CUDA), attention the runtime's fused kernel runs becomes
/// its call first (kiln-gpu-fused-attention). With `channelsLast` (CUDA with
/// cuDNN), 2-d convolutions and the ops around them run in NHWC
/// (kiln-channels-last). With `gpu`, elementwise kernels recompute the small
/// computations they read through broadcasts (kiln-fuse-elementwise's
/// recompute-broadcasts) rather than launch them apart. Grouped and
/// depthwise convolutions go channels last with `channelsLast` on the CPU;
/// on a GPU `groupedLayout` says which: "nchw" (none), "auto" (grouped ones
/// with several input channels per group, not depthwise ones) or "nhwc" (all).
/// `convBackwardCalls`: convolution gradients in the forms the library-call
/// passes turn into backward-data / backward-filter calls (cuDNN, oneDNN).
/// `depthwiseKernels` (a GPU whose depthwise convolutions are generated
/// kernels): NHWC depthwise convolutions take (KH, KW, C) filters.
void buildLowerToLinalgPipeline(mlir::OpPassManager &pm, bool fusedAttention = false,
                                bool channelsLast = false, bool gpu = false,
                                llvm::StringRef groupedLayout = "nchw", bool convBackwardCalls = false,
                                bool depthwiseKernels = false);
/// linalg on tensors -> bufferized loops -> LLVM dialect (`kiln-linalg-to-llvm`).
/// `cpuLibrary`: large float32 matmuls and convolutions become calls of the
/// runtime's oneDNN entries (kiln-cpu-library-calls); else generated loops.
void buildLinalgToLLVMPipeline(mlir::OpPassManager &pm, bool cpuLibrary = true);
/// Options of the registered CPU pipelines (kiln-linalg-to-llvm, kiln-cpu-pipeline).
struct CPUPipelineOptions : mlir::PassPipelineOptions<CPUPipelineOptions> {
  Option<bool> cpuLibrary{*this, "cpu-library",
                          llvm::cl::desc("Large float32 matmuls and convolutions call the runtime's oneDNN "
                                         "entries (false: generated loops)"),
                          llvm::cl::init(true)};
};
/// Options of the vendor-neutral GPU lowering.
struct GPUPipelineOptions : mlir::PassPipelineOptions<GPUPipelineOptions> {
  Option<int64_t> blockSize{*this, "block-size", llvm::cl::desc("Threads per block"),
                            llvm::cl::init(256)};
  Option<int64_t> subgroupSize{*this, "subgroup-size",
                               llvm::cl::desc("Threads in lockstep (warp, wavefront)"),
                               llvm::cl::init(32)};
  Option<bool> libraryGemm{*this, "library-gemm",
                           llvm::cl::desc("Large matmuls (and, with convs=gemm, convolutions) call the "
                                          "runtime's GEMM"),
                           llvm::cl::init(false)};
  Option<std::string> convs{*this, "convs",
                            llvm::cl::desc("Large convolutions: cudnn (the runtime's cuDNN call), gemm "
                                           "(im2col and the runtime's GEMM, with library-gemm) or kernel"),
                            llvm::cl::init("gemm")};
  Option<bool> depthwiseLibrary{*this, "depthwise-library",
                                llvm::cl::desc("With convs=cudnn, depthwise convolutions call cuDNN too "
                                               "(false: generated kernels)"),
                                llvm::cl::init(true)};
  Option<bool> tileContractions{
      *this, "tile-contractions",
      llvm::cl::desc("Contractions as workgroup-tiled kernels (kiln-gpu-tile-contractions); "
                     "off: one thread per output element"),
      llvm::cl::init(true)};
  Option<bool> tf32Convs{*this, "tf32-convs",
                         llvm::cl::desc("Library convolutions on float32 may use TF32"),
                         llvm::cl::init(false)};
  Option<bool> splitReductions{
      *this, "split-reductions",
      llvm::cl::desc("Reductions with few outputs and many inputs run in two stages "
                     "(kiln-gpu-split-reductions)"),
      llvm::cl::init(true)};
  Option<bool> tf32Matmuls{*this, "tf32-matmuls",
                           llvm::cl::desc("Library matmuls on float32 may use TF32"),
                           llvm::cl::init(false)};
};
/// linalg on tensors -> bufferized host code launching outlined kernels,
/// all kernels in one gpu.module (`kiln-linalg-to-gpu`). Vendor-neutral.
void buildLinalgToGPUPipeline(mlir::OpPassManager &pm, const GPUPipelineOptions &options);
/// Inside gpu.module ops: structured control flow, views and affine maps to
/// what the vendor's gpu-to-<ISA> conversion takes. Vendor-neutral.
void buildGPUKernelLoweringPrologue(mlir::OpPassManager &pm);
/// Host code whose kernels are already gpu.binary ops -> the LLVM dialect,
/// launches as calls of the mgpu* runtime functions (`kiln-gpu-host-to-llvm`).
void buildGPUHostToLLVMPipeline(mlir::OpPassManager &pm);
/// The whole CPU path, aten -> LLVM dialect (`kiln-cpu-pipeline`).
void buildCPUPipeline(mlir::OpPassManager &pm, bool channelsLast = false, bool cpuLibrary = true);
/// Registers the pipelines above by name with MLIR's pass registry.
void registerPipelines();
} // namespace kiln

#endif
