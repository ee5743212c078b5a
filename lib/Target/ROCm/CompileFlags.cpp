//===- CompileFlags.cpp - kiln-compile's --target=rocm options, checked ---===//
#include "kiln/Target/ROCm.h"

namespace kiln {

bool setROCmCompileFlags(const ROCmCompileFlags &f, ROCmPipelineOptions &o, std::string &error) {
  o.chip = f.gpuArch;
  o.rocmPath = f.rocmPath.empty() ? defaultROCmPath() : f.rocmPath;
  if (!f.gpuBinary.empty() && f.gpuBinary != "hsaco") {
    error = "--gpu-binary=" + f.gpuBinary + " is not available for --target=rocm (its kernels are always "
            "an AMDGPU code object, hsaco)";
    return false;
  }
  return isValidROCmArch(f.gpuArch, error) && checkROCmPath(o.rocmPath, o.format, o.abi, error);
}

} // namespace kiln
