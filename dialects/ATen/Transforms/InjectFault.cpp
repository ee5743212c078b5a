//===- InjectFault.cpp - test-only: plant a known bug in one aten op ------===//
//
// kiln-reduce is tested on bugs whose place is known: this pass negates one
// op's result, fails at it, or aborts the compiler (Passes.td).
//
//===----------------------------------------------------------------------===//
#include "ATen/IR/NodeNames.h"
#include "ATen/Transforms/Passes.h"

#include <cstdlib>

namespace kiln::aten {
#define GEN_PASS_DEF_ATENINJECTFAULT
#include "ATen/Transforms/Passes.h.inc"
} // namespace kiln::aten

using namespace mlir;
using namespace kiln::aten;

namespace {
struct InjectFault : kiln::aten::impl::ATenInjectFaultBase<InjectFault> {
  using ATenInjectFaultBase::ATenInjectFaultBase;

  /// `op=aten.gelu` names the op; `op=@gelu_1` names the program's node (the
  /// importer's location), which stays the same node when other nodes go.
  bool matches(Operation *op) {
    StringRef want = opName;
    if (!want.consume_front("@"))
      return op->getName().getStringRef() == want;
    return op->getDialect()->getNamespace() == "aten" && programNodeName(op->getLoc()) == want;
  }

  void runOnOperation() override {
    if (mode != "wrong" && mode != "error" && mode != "crash") {
      getOperation().emitError() << "aten-inject-fault: mode must be wrong, error or crash, got '"
                                 << mode.getValue() << "'";
      return signalPassFailure();
    }
    Operation *target = nullptr;
    int64_t seen = 0;
    getOperation().walk([&](Operation *op) {
      if (!matches(op))
        return WalkResult::advance();
      if (seen++ != static_cast<int64_t>(nth))
        return WalkResult::advance();
      target = op;
      return WalkResult::interrupt();
    });
    if (!target)
      return;
    if (mode == "crash") {
      llvm::errs() << "kiln: injected compiler crash at " << opName.getValue() << " #" << static_cast<int64_t>(nth) << "\n";
      std::abort();
    }
    if (mode == "error") {
      target->emitError() << "injected fault at " << opName.getValue() << " #" << static_cast<int64_t>(nth);
      return signalPassFailure();
    }
    for (Value r : target->getResults()) {
      auto ty = dyn_cast<RankedTensorType>(r.getType());
      if (!ty || !isa<FloatType>(ty.getElementType()))
        continue;
      OpBuilder b(target->getContext());
      b.setInsertionPointAfter(target);
      Value neg = NegOp::create(b, target->getLoc(), ty, r);
      r.replaceAllUsesExcept(neg, neg.getDefiningOp());
      return;
    }
  }
};
} // namespace
