//===- RuntimeRules.cpp - derivatives of ops run by the runtime -----------===//
//
// An op the runtime's dispatcher runs (aten.call_runtime, e.g. a plugin's
// custom op) is differentiated with the autograd formula registered with the
// dispatcher: a second runtime call, "<op>#backward" (kiln/rt_call.h), takes
// the forward call's arguments, its results and their cotangents, and gives
// one gradient per tensor argument.
//
//===----------------------------------------------------------------------===//
#include "Autograd/Rules/Rules.h"
#include "RuleUtils.h"

#include "kiln/Import/RuntimeOps.h"
#include "kiln/rt_call.h"

using namespace mlir;
using namespace kiln::aten;

namespace kiln::autograd::rules {
namespace {

LogicalResult callRuntimeVjp(CallRuntimeOp op, OpBuilder &b, ArrayRef<Value> cts,
                             ArrayRef<bool> needed, SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  std::string callee = op.getCallee().str();
  std::optional<RuntimeOpInfo> info = lookupRuntimeOp(callee);
  if (!info || !info->hasBackward)
    return op.emitError("cannot differentiate '")
           << callee << "': the runtime's dispatcher has no autograd formula for it "
           << "(register one with register_autograd in its plugin)";
  SmallVector<Value> operands(op.getOperands());
  SmallVector<Attribute> args(op.getArgs().begin(), op.getArgs().end());
  for (Value r : op.getResults()) {
    operands.push_back(r);
    args.push_back(TypeAttr::get(r.getType()));
  }
  for (auto [r, ct] : llvm::zip(op.getResults(), cts)) {
    operands.push_back(ct ? ct : zerosLike(b, loc, r));
    args.push_back(TypeAttr::get(r.getType()));
  }
  auto bw = CallRuntimeOp::create(b, loc, op.getOperandTypes(), operands,
                                  b.getStringAttr(callee + KILN_RT_BACKWARD_SUFFIX),
                                  b.getArrayAttr(args));
  for (unsigned i = 0; i < op->getNumOperands(); ++i)
    if (needed[i])
      out[i] = bw.getResult(i);
  return success();
}

} // namespace

void attachRuntimeRules(MLIRContext *ctx) {
  CallRuntimeOp::attachInterface<Rule<CallRuntimeOp, callRuntimeVjp>>(*ctx);
}

} // namespace kiln::autograd::rules
