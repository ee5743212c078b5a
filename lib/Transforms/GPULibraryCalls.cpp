//===- GPULibraryCalls.cpp - large matmuls and convolutions as calls of the GPU runtime's libraries ===//
#include "kiln/Transforms/Passes.h"

#include "LibraryCalls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace kiln {
#define GEN_PASS_DEF_KILNGPULIBRARYCALLS
#include "kiln/Transforms/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

struct KilnGPULibraryCallsPass : kiln::impl::KilnGPULibraryCallsBase<KilnGPULibraryCallsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (convs != "cudnn" && convs != "gemm" && convs != "kernel") {
      getOperation().emitError() << "kiln-gpu-library-calls: convs must be cudnn, gemm or kernel, not '" << convs
                                 << "'";
      return signalPassFailure();
    }
    kiln::libcalls::LibraryCallOptions options;
    options.prefix = "kiln_gpu_";
    options.deviceCall = true;
    options.minMacs = minMacs;
    options.dynamicSize = dynamicSize;
    options.tf32Convs = tf32Convs;
    options.tf32Matmuls = tf32Matmuls;
    options.gemms = gemms;
    options.convs = convs == "cudnn" ? "library" : std::string(convs);
    options.epilogues = epilogues;
    // A convolution's bias (a folded batch norm's), a residual added and a
    // ReLU, and a 16-bit one's rounding: cuDNN's fused call
    // (runtime/src/cuda/Dnn.cpp).
    options.convEpilogues = epilogues && convs == "cudnn";
    options.convActivations = KILN_CPU_RELU;
    options.convResidual = true;
    options.depthwiseConvs = depthwise;
    // 1x1 channels-last convolutions as cuBLASLt GEMMs with their epilogue.
    options.pointwiseGemms = pointwiseGemms && gemms && convs == "cudnn";
    if (failed(kiln::libcalls::LibraryCalls(&getContext(), options).run(getOperation())))
      signalPassFailure();
  }
};

} // namespace
