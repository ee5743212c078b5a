//===- RuntimeBatchRules.cpp - batching rule: ops run by the runtime -------===//
//
// An op the runtime's dispatcher runs (aten.call_runtime, e.g. a plugin's
// custom op) whose plugin registered a batching rule (register_vmap) is
// batched by a second runtime call, "<op>#vmap" (kiln/abi/rt_call.h): the
// call's arguments, batched ones with the batch in front, then one in_dim
// per argument (0 or -1); each result comes back with the batch in front.
// The importer records that call's name on the op (kiln.runtime_vmap) when
// the dispatcher has a rule, so this rule never asks the runtime. Without it
// the op runs in the loop over the batch, one call per sample.
//
//===----------------------------------------------------------------------===//
#include "Autograd/Batching/BatchRules.h"

#include "ATen/IR/ATenDialect.h"
#include "ATen/IR/AttrNames.h"

using namespace mlir;

namespace kiln::batching::rules {
namespace {
FailureOr<BatchedResults> callRuntime(Operation *op, ArrayRef<Value> operands, ArrayRef<bool> batched,
                                      const Batch &batch, OpBuilder &b) {
  auto call = cast<aten::CallRuntimeOp>(op);
  auto vmap = op->getAttrOfType<StringAttr>(kiln::attrs::kRuntimeVmap);
  if (!vmap || vmap.getValue().empty())
    return failure();
  if (!llvm::all_of(op->getResultTypes(), llvm::IsaPred<RankedTensorType>) ||
      llvm::any_of(call.getArgs(), llvm::IsaPred<ArrayAttr>)) // tensor lists: no batched call
    return failure();
  // The args template with batched operands' types, then the in_dims.
  SmallVector<Attribute> args, inDims;
  unsigned operand = 0;
  for (Attribute a : call.getArgs()) {
    if (isa<TypeAttr>(a)) {
      args.push_back(TypeAttr::get(operands[operand].getType()));
      inDims.push_back(b.getI64IntegerAttr(batched[operand] ? 0 : -1));
      ++operand;
      continue;
    }
    args.push_back(a);
    inDims.push_back(b.getI64IntegerAttr(-1));
  }
  args.append(inDims);
  auto c = aten::CallRuntimeOp::create(b, op->getLoc(), batchedResultTypes(op, batch), operands, vmap,
                                       b.getArrayAttr(args));
  return allBatched(c.getResults());
}
} // namespace

void addRuntimeBatchRules(BatchRuleTable &t) { t["aten.call_runtime"] = callRuntime; }
} // namespace kiln::batching::rules
