//===- Pipelines.cpp - kiln's named pass pipelines ------------------------===//
#include "kiln/Pipelines/Pipelines.h"

#include "ATen/Transforms/Passes.h"
#include "kiln/Conversion/Passes.h"
#include "kiln/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void kiln::buildLowerToLinalgPipeline(OpPassManager &pm, bool fusedAttention, bool channelsLast, bool gpu,
                                      llvm::StringRef groupedLayout, bool convBackwardCalls,
                                      bool depthwiseKernels) {
  // Autograd transforms first (kiln-compile --grad has already run it): it
  // also drops the stop_gradient markers the importer puts on detach.
  pm.addPass(kiln::createAutogradDifferentiate());
  // vmap after differentiation: vmap(grad(f)) batches the gradient's code.
  pm.addPass(kiln::createAutogradBatch());
  OpPassManager &early = pm.nest<func::FuncOp>();
  early.addPass(createCanonicalizerPass());
  early.addPass(aten::createATenDecomposeComposites());
  early.addPass(createCanonicalizerPass());
  // CUDA: attention the runtime's fused kernel runs becomes its call.
  // Every type, float32 included: its kernel multiplies on tensor cores in
  // float32 precision (three TF32 products), faster than the decomposition's
  // cuBLAS SGEMMs and its score matrices (docs/performance.md, section (31)).
  if (fusedAttention)
    pm.addPass(kiln::createKilnGPUFusedAttention());
  OpPassManager &fpm = pm.nest<func::FuncOp>();
  kiln::ConvertATenToLinalgOptions lowerOpts;
  lowerOpts.convBackwardCalls = convBackwardCalls;
  fpm.addPass(kiln::createConvertATenToLinalg(lowerOpts));
  fpm.addPass(createCanonicalizerPass());
  if (channelsLast) {
    // On the CPU grouped and depthwise convolutions go to oneDNN in NHWC
    // too (its NHWC depthwise kernels are its fast ones); on a GPU by
    // default only grouped ones with several channels per group, for which
    // cuDNN's NHWC kernels are the fast ones, and not depthwise ones, for
    // which they are not (docs/Rationale/gpu-channels-last.md).
    kiln::KilnChannelsLastOptions clOpts;
    clOpts.grouped = !gpu || groupedLayout != "nchw";
    // Depthwise ones too when they are generated kernels, with (KH, KW, C)
    // filters (H200: ConvNeXt-T b16 bf16 2.37 -> 1.90 ms, EfficientNet-B0
    // b32 bf16 3.49 -> 2.44, MobileNetV3-L b1 0.510 -> 0.455).
    clOpts.depthwise = !gpu || groupedLayout == "nhwc" || (groupedLayout == "auto" && depthwiseKernels);
    clOpts.depthwiseHwc = gpu && depthwiseKernels;
    // Concatenations in NHWC where the library calls stage a convolution
    // writing a strided part of one (the CPU's).
    clOpts.slices = !gpu;
    fpm.addPass(kiln::createKilnChannelsLast(clOpts));
    fpm.addPass(createCanonicalizerPass());
  }
  // Recomputations (autograd-differentiate remat) must survive CSE.
  fpm.addPass(kiln::createKilnKeepRecomputed());
  fpm.addPass(createCSEPass());
  kiln::KilnFuseElementwiseOptions fuseOpts;
  fuseOpts.recomputeBroadcasts = gpu;
  fpm.addPass(kiln::createKilnFuseElementwise(fuseOpts));
  fpm.addPass(createCanonicalizerPass());
  fpm.addPass(kiln::createKilnVectorFriendlyLoops());
}

/// Tensors to buffers, shared by every target: one-shot bufferization with
/// identity layouts at function boundaries, ownership-based deallocation, and
/// copies as linalg.copy.
static void addBufferizationPasses(OpPassManager &pm) {
  pm.addPass(bufferization::createEmptyTensorEliminationPass());
  pm.addPass(bufferization::createEmptyTensorToAllocTensorPass());
  bufferization::OneShotBufferizePassOptions bufOpts;
  bufOpts.bufferizeFunctionBoundaries = true;
  bufOpts.functionBoundaryTypeConversion = bufferization::LayoutMapOption::IdentityLayoutMap;
  // A loop may yield a tensor that is not its iter_arg updated in place (the
  // state of a recurrent layer, a new matmul result each step): the yielded
  // buffer is a fresh allocation, which ownership-based deallocation frees.
  bufOpts.allowReturnAllocsFromLoops = true;
  pm.addPass(bufferization::createOneShotBufferizePass(bufOpts));
  bufferization::BufferDeallocationPipelineOptions deallocOpts;
  bufferization::buildBufferDeallocationPipeline(pm, deallocOpts);
  // A result that aliases an argument (a view of an input or weight) is
  // returned as a bufferization.clone: lower it to alloc + copy.
  pm.addPass(createConvertBufferizationToMemRefPass());
  pm.nest<func::FuncOp>().addPass(kiln::createKilnMemrefCopyToLinalg());
}

void kiln::buildLinalgToLLVMPipeline(OpPassManager &pm, bool cpuLibrary) {
  addBufferizationPasses(pm);
  // Large float32 matmuls and convolutions run in oneDNN (the runtime loads
  // it); before kiln-early-dealloc, so the buffers the calls add are freed too.
  if (cpuLibrary)
    pm.addPass(kiln::createKilnCPULibraryCalls());
  OpPassManager &fpm = pm.nest<func::FuncOp>();
  // Free each buffer after its last use (on the CPU, where every op runs in
  // program order), so the peak is what is alive at once, not everything.
  fpm.addPass(kiln::createKilnEarlyDealloc());
  // Parallel dims become scf.parallel; the outermost loop of each large nest
  // runs in chunks on the runtime's threads (docs/Rationale/cpu-threads.md).
  fpm.addPass(createConvertLinalgToParallelLoopsPass());
  pm.addPass(kiln::createKilnOutlineParallelLoops());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // Aligned allocation keeps pointer provenance (no ptrtoint rounding), so
  // LLVM's alias analysis can tell buffers apart and vectorise across them.
  // The buffers come from the runtime's cache (kiln-lower-buffer-allocs
  // below), so a model that runs again reuses its pages.
  FinalizeMemRefToLLVMConversionPassOptions memrefOpts;
  memrefOpts.useAlignedAlloc = true;
  memrefOpts.useGenericFunctions = true;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefOpts));
  // Float32 exp, erf, tanh, ... become inline polynomials, so the loops of
  // softmax, GELU, SiLU and sigmoid vectorise instead of calling libm for
  // each element (kiln-math-approximations).
  kiln::KilnMathApproximationsOptions approxOpts;
  approxOpts.ops = {"exp", "expm1", "erf", "tanh", "log1p"};
  pm.nest<func::FuncOp>().addPass(kiln::createKilnMathApproximations(approxOpts));
  // bfloat16 conversions become integer code: the libgcc of many systems has
  // no __truncsfbf2, and model objects link only libc and libm. Float max/min
  // stay ops for LLVM's intrinsics (kiln-expand-arith says why).
  pm.addPass(kiln::createKilnExpandArith());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(kiln::createLowerRuntimeCalls());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(kiln::createLowerParallelLaunches());
  pm.addPass(kiln::createLowerBufferAllocs());
  pm.addPass(createCanonicalizerPass());
}

void kiln::buildLinalgToGPUPipeline(OpPassManager &pm, const GPUPipelineOptions &options) {
  // A reduction's parallelism on a GPU is its outputs: one with few outputs
  // over many elements (batch norm statistics in training, a loss, a sum of
  // a whole tensor) runs in two stages, the first with many partial results.
  if (options.splitReductions)
    pm.nest<func::FuncOp>().addPass(kiln::createKilnGPUSplitReductions());
  addBufferizationPasses(pm);
  std::string convs = options.convs;
  if (convs == "gemm" && !options.libraryGemm)
    convs = "kernel";
  if (options.libraryGemm || convs != "kernel") {
    kiln::KilnGPULibraryCallsOptions libOpts;
    libOpts.tf32Convs = options.tf32Convs;
    libOpts.tf32Matmuls = options.tf32Matmuls;
    libOpts.gemms = options.libraryGemm;
    libOpts.convs = convs;
    libOpts.depthwise = options.depthwiseLibrary;
    pm.addPass(kiln::createKilnGPULibraryCalls(libOpts));
  }
  // Free each buffer after its last use here too: the frees become
  // gpu.dealloc, queued on the call's stream after the kernels that read the
  // buffer (gpu-async-region), and the runtime's caching allocator hands a
  // freed block only to later work on the same stream, so the peak is what is
  // alive at once. After the library calls, so their im2col and copy buffers
  // count.
  pm.nest<func::FuncOp>().addPass(kiln::createKilnEarlyDealloc());
  kiln::KilnMapLinalgToGPUOptions mapOpts;
  mapOpts.blockSize = options.blockSize;
  mapOpts.subgroupSize = options.subgroupSize;
  if (options.tileContractions)
    pm.nest<func::FuncOp>().addPass(kiln::createKilnGPUTileContractions());
  // Scatter loop nests become kernels before the linalg ops' launches form.
  kiln::KilnGPUScatterLoopsOptions scatterOpts;
  scatterOpts.blockSize = options.blockSize;
  pm.nest<func::FuncOp>().addPass(kiln::createKilnGPUScatterLoops(scatterOpts));
  pm.nest<func::FuncOp>().addPass(kiln::createKilnMapLinalgToGPU(mapOpts));
  pm.addPass(kiln::createKilnGPUDeviceBuffers());
  // Fold the launch bounds' arithmetic, so constants sink into the kernels
  // instead of becoming kernel parameters.
  pm.addPass(createLowerAffinePass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(kiln::createKilnGPUMergeModules());
  // Launches, allocations and frees in stream order on one stream per call.
  pm.nest<func::FuncOp>().addPass(createGpuAsyncRegionPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void kiln::buildGPUKernelLoweringPrologue(OpPassManager &pm) {
  OpPassManager &kpm = pm.nest<gpu::GPUModuleOp>();
  kpm.addPass(createSCFToControlFlowPass());
  kpm.addPass(memref::createExpandStridedMetadataPass());
  kpm.addPass(createLowerAffinePass());
}

void kiln::buildGPUHostToLLVMPipeline(OpPassManager &pm) {
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  FinalizeMemRefToLLVMConversionPassOptions memrefOpts;
  memrefOpts.useAlignedAlloc = true;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefOpts));
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createGpuToLLVMConversionPass());
  // Dispatcher ops between kernels (see kiln-gpu-device-buffers).
  pm.addPass(kiln::createLowerRuntimeCalls());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}

void kiln::buildCPUPipeline(OpPassManager &pm, bool channelsLast, bool cpuLibrary) {
  buildLowerToLinalgPipeline(pm, /*fusedAttention=*/false, channelsLast, /*gpu=*/false, "nchw",
                             /*convBackwardCalls=*/cpuLibrary);
  buildLinalgToLLVMPipeline(pm, cpuLibrary);
}

void kiln::registerPipelines() {
  static bool done = false;
  if (done)
    return;
  done = true;
  PassPipelineRegistration<>("kiln-lower-to-linalg",
                             "Lower aten to fused linalg on tensors",
                             [](OpPassManager &pm) { buildLowerToLinalgPipeline(pm); });
  PassPipelineRegistration<CPUPipelineOptions>(
      "kiln-linalg-to-llvm", "Bufferize linalg on tensors and lower it to the LLVM dialect",
      [](OpPassManager &pm, const CPUPipelineOptions &o) { buildLinalgToLLVMPipeline(pm, o.cpuLibrary); });
  PassPipelineRegistration<GPUPipelineOptions>(
      "kiln-linalg-to-gpu",
      "Bufferize linalg on tensors and map it to outlined GPU kernels (any vendor)",
      [](OpPassManager &pm, const GPUPipelineOptions &o) { buildLinalgToGPUPipeline(pm, o); });
  PassPipelineRegistration<>("kiln-gpu-host-to-llvm",
                             "Lower host code that launches GPU binaries to the LLVM dialect",
                             [](OpPassManager &pm) { buildGPUHostToLLVMPipeline(pm); });
  PassPipelineRegistration<CPUPipelineOptions>(
      "kiln-cpu-pipeline", "The whole CPU path: aten to the LLVM dialect",
      [](OpPassManager &pm, const CPUPipelineOptions &o) { buildCPUPipeline(pm, false, o.cpuLibrary); });
}
