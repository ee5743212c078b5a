//===- MathApproximations.cpp - float32 transcendentals as inline polynomials the loop vectoriser widens ===//
#include "kiln/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/ADT/StringSet.h"

namespace kiln {
#define GEN_PASS_DEF_KILNMATHAPPROXIMATIONS
#include "kiln/Transforms/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {
struct KilnMathApproximationsPass : kiln::impl::KilnMathApproximationsBase<KilnMathApproximationsPass> {
  using Base::Base;

  void runOnOperation() override {
    llvm::StringSet<> names;
    for (const std::string &op : ops)
      names.insert(op);
    if (names.empty())
      return;
    // Only the float32 approximations: populateMathF32ExpansionPatterns is
    // not added, so f16/bf16/f64 ops keep their libm lowering.
    RewritePatternSet patterns(&getContext());
    // The patterns are selected by operation name ("math.exp"); `ops` lists
    // the mnemonics.
    populateMathPolynomialApproximationPatterns(patterns, [&](StringRef name) {
      return name.consume_front("math.") && names.contains(name);
    });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
