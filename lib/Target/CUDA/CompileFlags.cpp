//===- CompileFlags.cpp - kiln-compile's --target=cuda options, checked ---===//
#include "kiln/Target/CUDA.h"

namespace kiln {

bool setCUDACompileFlags(const CUDACompileFlags &f, CUDAPipelineOptions &o, std::string &error) {
  auto fail = [&](std::string msg) {
    error = std::move(msg);
    return false;
  };
  o.chip = f.gpuArch;
  o.format = f.gpuBinary;
  if (f.gemm != "cublas" && f.gemm != "kernel")
    return fail("--cuda-gemm must be 'cublas' or 'kernel', got '" + f.gemm + "'");
  o.cublas = f.gemm == "cublas";
  if (f.attention != "fused" && f.attention != "decomposed")
    return fail("--cuda-attention must be 'fused' or 'decomposed', got '" + f.attention + "'");
  if (f.attention == "fused" && !f.haveFusedAttentionKernels)
    return fail("--cuda-attention=fused needs the runtime's fused attention kernels, which this kiln was "
                "built without (no nvcc in KILN_CUDA_TOOLKIT when it was configured)");
  o.fusedAttention = f.attention == "fused";
  if (f.conv != "cudnn" && f.conv != "gemm" && f.conv != "kernel")
    return fail("--cuda-conv must be 'cudnn', 'gemm' or 'kernel', got '" + f.conv + "'");
  if (f.conv == "gemm" && f.gemm != "cublas")
    return fail("--cuda-conv=gemm runs convolutions as cuBLAS GEMMs: it needs --cuda-gemm=cublas");
  o.conv = f.conv;
  if (f.convLayout == "nhwc" && f.conv != "cudnn")
    return fail("--conv-layout=nhwc on CUDA needs --cuda-conv=cudnn (the im2col GEMM and generated "
                "convolutions are NCHW)");
  o.channelsLast = f.convLayout != "nchw";
  if (f.groupedLayout != "auto" && f.groupedLayout != "nchw" && f.groupedLayout != "nhwc")
    return fail("--cuda-grouped-layout must be 'auto', 'nchw' or 'nhwc', got '" + f.groupedLayout + "'");
  if (f.groupedLayout == "nhwc" && (f.conv != "cudnn" || f.convLayout == "nchw"))
    return fail("--cuda-grouped-layout=nhwc needs --cuda-conv=cudnn and channels-last convolutions "
                "(--conv-layout auto or nhwc)");
  o.groupedLayout = f.groupedLayout;
  if (f.depthwise != "cudnn" && f.depthwise != "kernel")
    return fail("--cuda-depthwise must be 'cudnn' or 'kernel', got '" + f.depthwise + "'");
  o.depthwise = f.depthwise;
  if (f.tf32 != "conv" && f.tf32 != "all" && f.tf32 != "none")
    return fail("--cuda-tf32 must be 'conv', 'all' or 'none', got '" + f.tf32 + "'");
  o.tf32 = f.tf32;
  o.toolkit = f.toolkit.empty() ? defaultCUDAToolkit() : f.toolkit;
  return isValidCUDAArch(f.gpuArch, error) && checkCUDAToolkit(o.toolkit, f.gpuBinary, error);
}

} // namespace kiln
