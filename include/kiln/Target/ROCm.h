//===- ROCm.h - the ROCm target: AMDGPU kernels and their host code -*- C++ -*-===//
#ifndef KILN_TARGET_ROCM_H
#define KILN_TARGET_ROCM_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <string>

namespace mlir {
class DialectRegistry;
}

namespace kiln {

/// Options of `kiln-rocm-pipeline` (and of `kiln-compile --target=rocm`).
struct ROCmPipelineOptions : mlir::PassPipelineOptions<ROCmPipelineOptions> {
  Option<std::string> chip{*this, "chip", llvm::cl::desc("AMDGPU architecture (gfxNNN)"),
                           llvm::cl::init("gfx90a")};
  Option<std::string> format{
      *this, "format",
      llvm::cl::desc("Kernel binary: hsaco (a linked AMDGPU code object), or isa (AMDGPU "
                     "assembly text, for inspection; not loadable)"),
      llvm::cl::init("hsaco")};
  Option<std::string> rocmPath{
      *this, "rocm-path",
      llvm::cl::desc("ROCm root: amdgcn/bitcode/{ocml,ockl}.bc and llvm/bin/ld.lld"),
      llvm::cl::init("")};
  Option<std::string> abi{*this, "abi",
                          llvm::cl::desc("AMDHSA code object version times 100 (400, 500, 600)"),
                          llvm::cl::init("400")};
  Option<int64_t> blockSize{*this, "block-size", llvm::cl::desc("Threads per workgroup"),
                            llvm::cl::init(256)};
  Option<unsigned> optLevel{*this, "O", llvm::cl::desc("Device code optimisation level"),
                            llvm::cl::init(3)};
};

/// aten -> linalg -> kernels in one gpu.module -> ROCDL -> an AMDGPU code
/// object embedded in the host module -> the LLVM dialect
/// (`kiln-rocm-pipeline`). The host code launches kernels through the same
/// mgpu* functions as CUDA models; kiln's runtime serves them with HIP.
void buildROCmPipeline(mlir::OpPassManager &pm, const ROCmPipelineOptions &options);

/// Registers `kiln-rocm-pipeline` (idempotent).
void registerROCmPipeline();

/// The ROCDL and GPU dialects, the ROCDL target's serialization to AMDGPU
/// code objects, and the LLVM IR translations that embed and launch them.
void registerROCmDialects(mlir::DialectRegistry &registry);

/// The ROCm root to use when none is given: $KILN_ROCM_PATH, $ROCM_PATH,
/// else the one made when kiln was configured (Debian's device libraries and
/// LLVM 22's ld.lld side by side).
std::string defaultROCmPath();

/// Checks an architecture name against LLVM's AMDGPU targets (gfx90a,
/// gfx942, ...); on failure `error` says what is accepted.
bool isValidROCmArch(llvm::StringRef chip, std::string &error);

/// Checks `format` and `abi`, and that `rocmPath` has what they need (the
/// device libraries, and ld.lld for hsaco); on failure `error` names what is
/// missing and where.
bool checkROCmPath(llvm::StringRef rocmPath, llvm::StringRef format, llvm::StringRef abi,
                   std::string &error);

/// kiln-compile's options for --target=rocm, as given on its command line.
struct ROCmCompileFlags {
  std::string gpuArch;   ///< --gpu-arch (gfxNNN)
  std::string gpuBinary; ///< --gpu-binary, if given (only hsaco applies)
  std::string rocmPath;  ///< --rocm-path (empty: defaultROCmPath())
};

/// Checks kiln-compile's --target=rocm options and sets `options` from them;
/// on failure `error` names the option and what it accepts.
bool setROCmCompileFlags(const ROCmCompileFlags &flags, ROCmPipelineOptions &options, std::string &error);

} // namespace kiln

#endif
