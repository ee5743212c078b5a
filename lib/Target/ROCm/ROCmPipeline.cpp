//===- ROCmPipeline.cpp - kiln-rocm-pipeline: aten to AMDGPU kernels + host -===//
#include "kiln/Target/ROCm.h"

#include "kiln/Pipelines/Pipelines.h"

#include "mlir/Conversion/GPUToROCDL/GPUToROCDLPass.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/ROCDL/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/ROCDL/ROCDLToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/TargetParser/TargetParser.h"

#include <cstdlib>

using namespace mlir;

namespace kiln {

/// Whether `chip` runs 64-wide wavefronts: gfx9 (GCN, CDNA: MI100..MI300)
/// does; gfx10 and later (RDNA) compile for 32 by default.
static bool isWave64(StringRef chip) { return chip.starts_with("gfx9") || chip.starts_with("gfx8"); }

void buildROCmPipeline(OpPassManager &pm, const ROCmPipelineOptions &options) {
  buildLowerToLinalgPipeline(pm, /*fusedAttention=*/false, /*channelsLast=*/false, /*gpu=*/true);
  std::string chip = options.chip;
  bool wave64 = isWave64(chip);
  GPUPipelineOptions gpuOpts;
  gpuOpts.blockSize = options.blockSize;
  gpuOpts.subgroupSize = wave64 ? 64 : 32;
  buildLinalgToGPUPipeline(pm, gpuOpts);

  GpuROCDLAttachTargetOptions target;
  target.chip = options.chip;
  // The device libraries' wavefront-size flag must match the code's.
  target.wave64Flag = wave64;
  target.abiVersion = options.abi;
  target.optLevel = options.optLevel;
  pm.addPass(createGpuROCDLAttachTarget(target));
  buildGPUKernelLoweringPrologue(pm);
  OpPassManager &kpm = pm.nest<gpu::GPUModuleOp>();
  ConvertGpuOpsToROCDLOpsOptions rocdl;
  rocdl.chipset = options.chip;
  rocdl.runtime = gpu::amd::Runtime::HIP;
  // Only these dialects contribute their generic LLVM lowerings; math ops
  // with a device-library implementation (tanh, ...) then always become ocml
  // calls. Left open, another loaded dialect's patterns can lower math.tanh to
  // an LLVM intrinsic the AMDGPU backend has no lowering for. vector: the
  // vectorised loads and stores of elementwise kernels (kiln-map-linalg-to-gpu).
  rocdl.allowedDialects = {"arith", "cf", "func", "index", "math", "memref", "ub", "vector"};
  kpm.addPass(createConvertGpuOpsToROCDLOps(rocdl));
  kpm.addPass(createCanonicalizerPass());
  kpm.addPass(createCSEPass());
  kpm.addPass(createReconcileUnrealizedCastsPass());

  GpuModuleToBinaryPassOptions binary;
  std::string path = options.rocmPath;
  binary.toolkitPath = path.empty() ? defaultROCmPath() : path;
  // kiln's format names -> gpu-module-to-binary's.
  std::string format = options.format;
  binary.compilationTarget = format == "hsaco" ? "bin" : format;
  pm.addPass(createGpuModuleToBinaryPass(binary));
  buildGPUHostToLLVMPipeline(pm);
}

void registerROCmPipeline() {
  static bool done = false;
  if (done)
    return;
  done = true;
  PassPipelineRegistration<ROCmPipelineOptions>(
      "kiln-rocm-pipeline",
      "The whole ROCm path: aten to ROCDL kernels in an AMDGPU code object, and host code in "
      "the LLVM dialect that launches them",
      [](OpPassManager &pm, const ROCmPipelineOptions &o) { buildROCmPipeline(pm, o); });
}

void registerROCmDialects(DialectRegistry &registry) {
  registry.insert<gpu::GPUDialect, ROCDL::ROCDLDialect, amdgpu::AMDGPUDialect>();
  ROCDL::registerROCDLTargetInterfaceExternalModels(registry);
  // Serializing a gpu.module translates it to LLVM IR in-process.
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerROCDLDialectTranslation(registry);
  gpu::registerOffloadingLLVMTranslationInterfaceExternalModels(registry);
}

std::string defaultROCmPath() {
  for (const char *var : {"KILN_ROCM_PATH", "ROCM_PATH"})
    if (const char *v = std::getenv(var); v && *v)
      return v;
#ifdef KILN_DEFAULT_ROCM_PATH
  return KILN_DEFAULT_ROCM_PATH;
#else
  return "/opt/rocm";
#endif
}

bool isValidROCmArch(StringRef chip, std::string &error) {
  if (chip.starts_with("gfx") &&
      llvm::AMDGPU::parseArchAMDGCN(chip) != llvm::AMDGPU::GK_NONE)
    return true;
  error = "unknown GPU architecture '" + chip.str() +
          "': expected an AMDGPU architecture gfxNNN (e.g. gfx90a, gfx942, gfx1100)";
  return false;
}

bool checkROCmPath(StringRef rocmPath, StringRef format, StringRef abi, std::string &error) {
  if (format != "hsaco" && format != "isa") {
    error = "unknown GPU binary format '" + format.str() + "': expected hsaco or isa";
    return false;
  }
  if (abi != "400" && abi != "500" && abi != "600") {
    error = "unknown code object version '" + abi.str() + "': expected 400, 500 or 600";
    return false;
  }
  SmallVector<std::string> needed;
  auto need = [&](StringRef rel, bool exec) {
    SmallString<256> p(rocmPath);
    llvm::sys::path::append(p, rel);
    if (exec ? !llvm::sys::fs::can_execute(p) : !llvm::sys::fs::exists(p))
      needed.push_back(p.str().str());
  };
  need("amdgcn/bitcode/ocml.bc", false);
  need("amdgcn/bitcode/ockl.bc", false);
  if (format == "hsaco")
    need("llvm/bin/ld.lld", true);
  if (needed.empty())
    return true;
  error = "the ROCm directory '" + rocmPath.str() + "' lacks " + llvm::join(needed, ", ") +
          " (give a ROCm root with --rocm-path=DIR or $KILN_ROCM_PATH)";
  return false;
}

} // namespace kiln
