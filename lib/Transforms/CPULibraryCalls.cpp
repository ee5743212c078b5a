//===- CPULibraryCalls.cpp - large matmuls and convolutions as calls of the CPU runtime's oneDNN entries ===//
#include "kiln/Transforms/Passes.h"

#include "LibraryCalls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace kiln {
#define GEN_PASS_DEF_KILNCPULIBRARYCALLS
#include "kiln/Transforms/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

struct KilnCPULibraryCallsPass : kiln::impl::KilnCPULibraryCallsBase<KilnCPULibraryCallsPass> {
  using Base::Base;

  void runOnOperation() override {
    kiln::libcalls::LibraryCallOptions options;
    options.prefix = "kiln_cpu_";
    options.deviceCall = false;
    options.f32Only = true;
    options.constWeights = true;
    options.minMacs = minMacs;
    options.dynamicSize = dynamicSize;
    options.gemms = gemms;
    options.convs = convs ? "library" : "kernel";
    options.epilogues = true;
    options.convEpilogues = true;
    if (convs)
      kiln::libcalls::stageStridedConvOutputs(getOperation());
    if (failed(kiln::libcalls::LibraryCalls(&getContext(), options).run(getOperation())))
      return signalPassFailure();
    if (convs)
      kiln::libcalls::markBlockedConvBuffers(getOperation());
  }
};

} // namespace
