//===- CUDAPipeline.cpp - kiln-cuda-pipeline: aten to NVVM kernels + host ---===//
#include "kiln/Target/CUDA.h"

#include "kiln/Pipelines/Pipelines.h"

#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cctype>
#include <cstdlib>

using namespace mlir;

namespace kiln {

void buildCUDAPipeline(OpPassManager &pm, const CUDAPipelineOptions &options) {
  // NHWC convolutions are for cuDNN: the im2col GEMM and the generated
  // kernels expect NCHW.
  buildLowerToLinalgPipeline(pm, options.fusedAttention, options.channelsLast && options.conv == "cudnn",
                             /*gpu=*/true, options.groupedLayout, /*convBackwardCalls=*/options.conv == "cudnn",
                             /*depthwiseKernels=*/options.depthwise != "cudnn");
  GPUPipelineOptions gpuOpts;
  gpuOpts.blockSize = options.blockSize;
  gpuOpts.libraryGemm = options.cublas;
  gpuOpts.convs = options.conv;
  gpuOpts.depthwiseLibrary = options.depthwise == "cudnn";
  gpuOpts.tf32Convs = options.tf32 == "conv" || options.tf32 == "all";
  gpuOpts.tf32Matmuls = options.tf32 == "all";
  buildLinalgToGPUPipeline(pm, gpuOpts);

  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.optLevel = options.optLevel;
  // PTX ISA 8.1 lets a kernel take up to 32764 bytes of parameters instead of
  // 4352: a fused kernel of a large model (BERT-base) reads more memref
  // descriptors than that. Architectures before sm_100 default to an older
  // ISA; newer ones already need 8.6 or later.
  std::string chip = options.chip;
  if (chip.size() >= 5 && chip.compare(0, 3, "sm_") == 0 && std::isdigit(chip[3]) && std::isdigit(chip[4]) &&
      (chip.size() == 5 || !std::isdigit(chip[5])))
    target.features = "+ptx81";
  pm.addPass(createGpuNVVMAttachTarget(target));
  buildGPUKernelLoweringPrologue(pm);
  OpPassManager &kpm = pm.nest<gpu::GPUModuleOp>();
  kpm.addPass(createConvertGpuOpsToNVVMOps());
  // Math ops libdevice has no function for (math.trunc: trunc, frac, division
  // rounding to zero) become LLVM intrinsics, which the NVPTX backend selects.
  kpm.addPass(createConvertMathToLLVMPass());
  kpm.addPass(createCanonicalizerPass());
  kpm.addPass(createCSEPass());
  kpm.addPass(createReconcileUnrealizedCastsPass());

  GpuModuleToBinaryPassOptions binary;
  std::string toolkit = options.toolkit;
  binary.toolkitPath = toolkit.empty() ? defaultCUDAToolkit() : toolkit;
  // kiln's format names -> gpu-module-to-binary's.
  std::string format = options.format;
  binary.compilationTarget = format == "cubin" ? "bin" : format == "ptx" ? "isa" : format;
  pm.addPass(createGpuModuleToBinaryPass(binary));
  buildGPUHostToLLVMPipeline(pm);
}

void registerCUDAPipeline() {
  static bool done = false;
  if (done)
    return;
  done = true;
  PassPipelineRegistration<CUDAPipelineOptions>(
      "kiln-cuda-pipeline",
      "The whole CUDA path: aten to NVVM kernels in a GPU binary, and host code in the LLVM "
      "dialect that launches them",
      [](OpPassManager &pm, const CUDAPipelineOptions &o) { buildCUDAPipeline(pm, o); });
}

void registerCUDADialects(DialectRegistry &registry) {
  registry.insert<gpu::GPUDialect, NVVM::NVVMDialect>();
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registerConvertNVVMToLLVMInterface(registry);
  // Serializing a gpu.module translates it to LLVM IR in-process.
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  gpu::registerOffloadingLLVMTranslationInterfaceExternalModels(registry);
}

std::string defaultCUDAToolkit() {
  for (const char *var : {"KILN_CUDA_TOOLKIT", "CUDA_HOME", "CUDA_PATH"})
    if (const char *v = std::getenv(var); v && *v)
      return v;
#ifdef KILN_DEFAULT_CUDA_TOOLKIT
  return KILN_DEFAULT_CUDA_TOOLKIT;
#else
  return "/usr/local/cuda";
#endif
}

bool isValidCUDAArch(StringRef chip, std::string &error) {
  StringRef digits = chip;
  unsigned cc = 0;
  bool ok = digits.consume_front("sm_");
  if (ok)
    digits.consume_back("a");
  ok = ok && !digits.empty() && !digits.getAsInteger(10, cc) && cc >= 50;
  if (!ok)
    error = "unknown GPU architecture '" + chip.str() +
            "': expected sm_NN (compute capability NN, e.g. sm_80, sm_90) or sm_NNa";
  return ok;
}

bool checkCUDAToolkit(StringRef toolkit, StringRef format, std::string &error) {
  if (format != "fatbin" && format != "cubin" && format != "ptx") {
    error = "unknown GPU binary format '" + format.str() + "': expected fatbin, cubin or ptx";
    return false;
  }
  SmallVector<std::string> needed;
  auto need = [&](StringRef rel, bool exec) {
    SmallString<256> p(toolkit);
    llvm::sys::path::append(p, rel);
    if (exec ? !llvm::sys::fs::can_execute(p) : !llvm::sys::fs::exists(p))
      needed.push_back(p.str().str());
  };
  need("nvvm/libdevice/libdevice.10.bc", false);
  if (format != "ptx")
    need("bin/ptxas", true);
  if (format == "fatbin")
    need("bin/fatbinary", true);
  if (needed.empty())
    return true;
  error = "the CUDA toolkit at '" + toolkit.str() + "' lacks " + llvm::join(needed, ", ") +
          " (give the toolkit with --cuda-toolkit=DIR or $KILN_CUDA_TOOLKIT)";
  return false;
}

} // namespace kiln
