//===- CUDA.h - the CUDA target: NVVM kernels and their host code -*- C++ -*-===//
#ifndef KILN_TARGET_CUDA_H
#define KILN_TARGET_CUDA_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <string>

namespace mlir {
class DialectRegistry;
}

namespace kiln {

/// Options of `kiln-cuda-pipeline` (and of `kiln-compile --target=cuda`).
struct CUDAPipelineOptions : mlir::PassPipelineOptions<CUDAPipelineOptions> {
  Option<std::string> chip{*this, "chip", llvm::cl::desc("GPU architecture (sm_NN)"),
                           llvm::cl::init("sm_90")};
  Option<std::string> format{
      *this, "format",
      llvm::cl::desc("Kernel binary: fatbin (cubin + PTX), cubin, or ptx (JIT at load)"),
      llvm::cl::init("fatbin")};
  Option<std::string> toolkit{*this, "toolkit",
                              llvm::cl::desc("CUDA toolkit root (ptxas, fatbinary, libdevice)"),
                              llvm::cl::init("")};
  Option<int64_t> blockSize{*this, "block-size", llvm::cl::desc("Threads per block"),
                            llvm::cl::init(256)};
  Option<unsigned> optLevel{*this, "O", llvm::cl::desc("Device code optimisation level"),
                            llvm::cl::init(3)};
  Option<bool> cublas{*this, "cublas",
                      llvm::cl::desc("Large matmuls through cuBLAS (the runtime loads it)"),
                      llvm::cl::init(true)};
  Option<std::string> conv{*this, "conv",
                           llvm::cl::desc("Large convolutions: cudnn (the runtime loads cuDNN), gemm "
                                          "(im2col and cuBLAS; needs cublas) or kernel (generated)"),
                           llvm::cl::init("cudnn")};
  Option<std::string> depthwise{*this, "depthwise",
                                llvm::cl::desc("With conv=cudnn, depthwise convolutions: kernel (generated, "
                                               "the default) or cudnn"),
                                llvm::cl::init("kernel")};
  Option<std::string> tf32{*this, "tf32",
                           llvm::cl::desc("Where float32 GEMMs may use TF32: conv (PyTorch's "
                                          "default), all, or none"),
                           llvm::cl::init("conv")};
  Option<bool> channelsLast{*this, "channels-last",
                            llvm::cl::desc("With conv=cudnn, 2-d convolutions and the ops around them run "
                                           "on NHWC tensors (kiln-channels-last; cuDNN's fast kernels are NHWC)"),
                            llvm::cl::init(true)};
  Option<std::string> groupedLayout{
      *this, "grouped-layout",
      llvm::cl::desc("With channels-last, which grouped convolutions run on NHWC tensors too: auto (those "
                     "with several input channels per group, not depthwise ones), nhwc (all) or nchw (none)"),
      llvm::cl::init("auto")};
  Option<bool> fusedAttention{*this, "fused-attention",
                              llvm::cl::desc("scaled_dot_product_attention through the runtime's fused "
                                             "kernel (kiln-gpu-fused-attention) where it applies"),
                              llvm::cl::init(false)};
};

/// aten -> linalg -> kernels in one gpu.module -> NVVM -> a GPU binary
/// embedded in the host module -> the LLVM dialect (`kiln-cuda-pipeline`).
/// The host code launches kernels through the mgpu* functions that kiln's
/// runtime implements (runtime/src/cuda).
void buildCUDAPipeline(mlir::OpPassManager &pm, const CUDAPipelineOptions &options);

/// Registers `kiln-cuda-pipeline` (idempotent).
void registerCUDAPipeline();

/// The NVVM and GPU dialects, the NVVM target's serialization to PTX/cubin,
/// and the LLVM IR translations that embed GPU binaries and launch kernels.
void registerCUDADialects(mlir::DialectRegistry &registry);

/// The CUDA toolkit to use when none is given: $KILN_CUDA_TOOLKIT,
/// $CUDA_HOME, $CUDA_PATH, else the one found when kiln was configured.
std::string defaultCUDAToolkit();

/// Checks an architecture name (sm_NN or sm_NNa, NN >= 50); on failure
/// `error` says what is accepted.
bool isValidCUDAArch(llvm::StringRef chip, std::string &error);

/// Checks that `toolkit` has what `format` needs (ptxas, fatbinary,
/// libdevice); on failure `error` names what is missing and where.
bool checkCUDAToolkit(llvm::StringRef toolkit, llvm::StringRef format, std::string &error);

/// kiln-compile's options for --target=cuda, as given on its command line.
struct CUDACompileFlags {
  std::string gpuArch;    ///< --gpu-arch (sm_NN)
  std::string gpuBinary;  ///< --gpu-binary: fatbin, cubin or ptx
  std::string gemm;       ///< --cuda-gemm: cublas or kernel
  std::string attention;  ///< --cuda-attention: fused or decomposed
  std::string conv;       ///< --cuda-conv: cudnn, gemm or kernel
  std::string convLayout; ///< --conv-layout: auto, nhwc or nchw
  std::string groupedLayout; ///< --cuda-grouped-layout: auto, nchw or nhwc
  std::string depthwise;     ///< --cuda-depthwise: cudnn or kernel
  std::string tf32;       ///< --cuda-tf32: conv, all or none
  std::string toolkit;    ///< --cuda-toolkit (empty: defaultCUDAToolkit())
  /// The runtime built with this compiler has the fused attention kernels.
  bool haveFusedAttentionKernels = false;
};

/// Checks kiln-compile's --target=cuda options and sets `options` from them;
/// on failure `error` names the option and what it accepts.
bool setCUDACompileFlags(const CUDACompileFlags &flags, CUDAPipelineOptions &options, std::string &error);

} // namespace kiln

#endif
