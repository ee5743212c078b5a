//===- RuntimeRules.cpp - derivatives of ops run by the runtime -----------===//
//
// An op the runtime's dispatcher runs (aten.call_runtime, e.g. a plugin's
// custom op) is differentiated with the autograd formula registered with the
// dispatcher: a second runtime call, "<op>#backward" (kiln/abi/rt_call.h),
// takes the forward call's arguments, its results and their cotangents, and
// gives one gradient per tensor argument. The importer records that call's
// name on the op (kiln.runtime_backward) when the dispatcher has a formula;
// the rule reads it and never asks the runtime.
//
//===----------------------------------------------------------------------===//
#include "Autograd/Rules/Rules.h"
#include "RuleUtils.h"

#include "ATen/IR/AttrNames.h"

using namespace mlir;
using namespace kiln::aten;

namespace kiln::autograd::rules {
namespace {

LogicalResult callRuntimeVjp(CallRuntimeOp op, OpBuilder &b, ArrayRef<Value> cts,
                             ArrayRef<bool> needed, SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  auto backward = op->getAttrOfType<StringAttr>(kiln::attrs::kRuntimeBackward);
  if (llvm::any_of(op.getArgs(), llvm::IsaPred<ArrayAttr>))
    return op.emitError("cannot differentiate '")
           << op.getCallee() << "': kiln calls it in the runtime with a list of tensors, and its "
           << "backward call takes no tensor lists yet";
  if (!backward || backward.getValue().empty())
    return op.emitError("cannot differentiate '")
           << op.getCallee() << "': the runtime's dispatcher has no autograd formula for it "
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
                                  backward,
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
