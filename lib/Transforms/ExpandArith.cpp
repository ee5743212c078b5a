//===- ExpandArith.cpp - arith ops without an LLVM lowering, float max/min kept for LLVM's intrinsics ===//
#include "kiln/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kiln {
#define GEN_PASS_DEF_KILNEXPANDARITH
#include "kiln/Transforms/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {
struct KilnExpandArithPass : kiln::impl::KilnExpandArithBase<KilnExpandArithPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // Upstream's full set (populateArithExpandOpsPatterns) also rewrites
    // max/min into compares and selects; ArithToLLVM lowers those ops
    // directly, so only the rest is taken.
    arith::populateCeilFloorDivExpandOpsPatterns(patterns);
    arith::populateExpandBFloat16Patterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
