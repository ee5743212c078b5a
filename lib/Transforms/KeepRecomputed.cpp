//===- KeepRecomputed.cpp - recomputations stay apart under CSE -----------===//
#include "kiln/Transforms/Passes.h"

#include "Autograd/IR/Recompute.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace kiln {
#define GEN_PASS_DEF_KILNKEEPRECOMPUTED
#include "kiln/Transforms/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {
struct KilnKeepRecomputedPass : kiln::impl::KilnKeepRecomputedBase<KilnKeepRecomputedPass> {
  void runOnOperation() override {
    // The ops nested in a marked op (a linalg.generic's body) need no mark.
    getOperation()->walk<WalkOrder::PreOrder>([](Operation *op) {
      if (op->hasAttr(kiln::autograd::kRecomputedName))
        return WalkResult::skip();
      if (!kiln::autograd::isRecomputedLoc(op->getLoc()))
        return WalkResult::advance();
      op->setAttr(kiln::autograd::kRecomputedName, UnitAttr::get(op->getContext()));
      return WalkResult::skip();
    });
  }
};
} // namespace
