//===- Differentiate.cpp - the autograd-differentiate pass ----------------===//
//
// Reverse mode: the callee is inlined at the transform (the forward), values
// that depend on a differentiated argument are marked active, and the ops
// are walked backwards asking each one's reverse rule for the cotangents of
// its active operands, summed per value. Forward mode walks the inlined ops
// once, asking each forward rule for its results' tangents.
//
//===----------------------------------------------------------------------===//
#include "ATen/IR/ATenDialect.h"
#include "Autograd/IR/AutogradDialect.h"
#include "kiln/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"

namespace kiln {
#define GEN_PASS_DEF_AUTOGRADDIFFERENTIATE
#include "kiln/Conversion/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;
using namespace kiln::autograd;

namespace {

bool isFloatTensor(Type t) {
  auto tt = dyn_cast<RankedTensorType>(t);
  return tt && isa<FloatType>(tt.getElementType());
}

Value zerosLike(OpBuilder &b, Location loc, Value like) {
  auto ty = cast<RankedTensorType>(like.getType());
  Attribute zero = b.getFloatAttr(ty.getElementType(), 0.0);
  if (ty.hasStaticShape())
    return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(ty, zero));
  SmallVector<Value> dyn;
  for (int64_t i = 0; i < ty.getRank(); ++i)
    if (ty.isDynamicDim(i))
      dyn.push_back(tensor::DimOp::create(b, loc, like, i));
  Value scalar = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(RankedTensorType::get({}, ty.getElementType()), zero));
  return aten::ExpandOp::create(b, loc, ty, scalar, dyn, b.getDenseI64ArrayAttr(ty.getShape()));
}

/// The callee's single block, or an error at the transform.
FailureOr<Block *> calleeBody(Operation *transform, StringRef callee) {
  auto fn = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(transform,
                                                               StringAttr::get(transform->getContext(), callee));
  if (!fn || fn.isExternal())
    return transform->emitOpError("'") << callee << "' does not name a function with a body";
  if (!llvm::hasSingleElement(fn.getBody()))
    return transform->emitOpError("cannot differentiate '")
           << callee << "': it has control flow (more than one block)";
  return &fn.getBody().front();
}

/// Inlines `body` at the builder with its arguments bound to `primals`;
/// fills `ops`/`clones` in order and the callee results' mapped values.
void inlineBody(OpBuilder &b, Block *body, ValueRange primals, IRMapping &map,
                SmallVectorImpl<Operation *> &ops, SmallVectorImpl<Operation *> &clones,
                SmallVectorImpl<Value> &results) {
  for (auto [arg, v] : llvm::zip(body->getArguments(), primals))
    map.map(arg, v);
  for (Operation &op : body->without_terminator()) {
    ops.push_back(&op);
    clones.push_back(b.clone(op, map));
  }
  for (Value v : body->getTerminator()->getOperands())
    results.push_back(map.lookup(v));
}

/// Reverse mode over `body`: appends to `results` the callee results, then
/// the gradient for each `wrt` argument.
LogicalResult reverse(OpBuilder &b, Location loc, Block *body, ValueRange primals,
                      ArrayRef<Value> cotangents, ArrayRef<int64_t> wrt,
                      SmallVectorImpl<Value> &results) {
  IRMapping map;
  SmallVector<Operation *> ops, clones;
  inlineBody(b, body, primals, map, ops, clones, results);

  // Activity: float tensors that depend on a differentiated argument.
  DenseSet<Value> active;
  for (int64_t w : wrt)
    active.insert(body->getArgument(w));
  for (Operation *op : ops) {
    if (isa<StopGradientOp>(op) ||
        llvm::none_of(op->getOperands(), [&](Value v) { return active.contains(v); }))
      continue;
    for (Value r : op->getResults())
      if (isFloatTensor(r.getType()))
        active.insert(r);
  }

  DenseMap<Value, Value> adjoint; // keyed by callee values
  auto accumulate = [&](Value key, Value ct, Location at) {
    auto [it, inserted] = adjoint.try_emplace(key, ct);
    if (!inserted)
      it->second = aten::AddTensorOp::create(b, at, TypeRange{key.getType()},
                                               ValueRange{it->second, ct});
  };
  for (auto [i, v] : llvm::enumerate(body->getTerminator()->getOperands()))
    if (active.contains(v))
      accumulate(v, cotangents[i], loc);

  for (int64_t k = (int64_t)ops.size() - 1; k >= 0; --k) {
    Operation *op = ops[k], *clone = clones[k];
    SmallVector<Value> cts;
    bool anyCt = false;
    for (Value r : op->getResults()) {
      Value ct = adjoint.lookup(r);
      cts.push_back(ct);
      anyCt |= (bool)ct;
    }
    SmallVector<bool> needed;
    bool anyNeeded = false;
    for (Value o : op->getOperands()) {
      needed.push_back(active.contains(o));
      anyNeeded |= needed.back();
    }
    if (!anyCt || !anyNeeded || isa<StopGradientOp>(op))
      continue;
    auto rule = dyn_cast<DifferentiableOpInterface>(clone);
    if (!rule)
      return clone->emitError("cannot differentiate '")
             << clone->getName() << "': kiln has no reverse rule for it";
    SmallVector<Value> operandCts;
    if (failed(rule.buildVjp(b, cts, needed, operandCts)))
      return failure();
    for (auto [i, o] : llvm::enumerate(op->getOperands())) {
      if (!needed[i] || i >= operandCts.size() || !operandCts[i])
        continue;
      if (operandCts[i].getType() != o.getType())
        return clone->emitError("internal error: the reverse rule of '")
               << clone->getName() << "' gave a " << operandCts[i].getType()
               << " cotangent for operand #" << i << " of type " << o.getType();
      accumulate(o, operandCts[i], clone->getLoc());
    }
  }
  for (int64_t w : wrt) {
    Value g = adjoint.lookup(body->getArgument(w));
    results.push_back(g ? g : zerosLike(b, loc, primals[w]));
  }
  return success();
}

/// Forward mode over `body`: appends the callee results, then their tangents.
LogicalResult forward(OpBuilder &b, Location loc, Block *body, ValueRange primals,
                      ValueRange tangents, ArrayRef<int64_t> wrt,
                      SmallVectorImpl<Value> &results) {
  IRMapping map;
  DenseMap<Value, Value> tangent; // keyed by callee values
  for (auto [arg, v] : llvm::zip(body->getArguments(), primals))
    map.map(arg, v);
  for (auto [w, t] : llvm::zip(wrt, tangents))
    tangent[body->getArgument(w)] = t;
  for (Operation &op : body->without_terminator()) {
    Operation *clone = b.clone(op, map);
    SmallVector<Value> ts;
    bool any = false;
    for (Value o : op.getOperands()) {
      ts.push_back(tangent.lookup(o));
      any |= (bool)ts.back();
    }
    if (!any || isa<StopGradientOp>(op) ||
        llvm::none_of(op.getResultTypes(), [](Type t) { return isFloatTensor(t); }))
      continue;
    auto rule = dyn_cast<DifferentiableOpInterface>(clone);
    if (!rule)
      return clone->emitError("cannot differentiate '")
             << clone->getName() << "' in forward mode: kiln has no tangent rule for it";
    SmallVector<Value> out;
    if (failed(rule.buildJvp(b, ts, out)))
      return failure();
    for (auto [r, t] : llvm::zip(op.getResults(), out)) {
      if (!t)
        continue;
      if (t.getType() != r.getType())
        return clone->emitError("internal error: the tangent rule of '")
               << clone->getName() << "' gave a " << t.getType() << " tangent for a "
               << r.getType() << " result";
      tangent[r] = t;
    }
  }
  SmallVector<Value> resultTangents;
  for (Value v : body->getTerminator()->getOperands()) {
    results.push_back(map.lookup(v));
    Value t = tangent.lookup(v);
    resultTangents.push_back(t ? t : zerosLike(b, loc, map.lookup(v)));
  }
  results.append(resultTangents);
  return success();
}

struct AutogradDifferentiatePass
    : kiln::impl::AutogradDifferentiateBase<AutogradDifferentiatePass> {
  void runOnOperation() override {
    SmallVector<Operation *> transforms;
    getOperation()->walk([&](Operation *op) {
      if (isa<VjpOp, GradOp, JvpOp>(op))
        transforms.push_back(op);
    });
    // A transform of a function that itself holds transforms (the Hessian's
    // forward mode over a gradient) waits until those are rewritten.
    auto calleeOf = [](Operation *op) -> StringRef {
      if (auto v = dyn_cast<VjpOp>(op))
        return v.getCallee();
      if (auto g = dyn_cast<GradOp>(op))
        return g.getCallee();
      return cast<JvpOp>(op).getCallee();
    };
    auto ready = [&](Operation *op) {
      auto fn = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
          op, StringAttr::get(op->getContext(), calleeOf(op)));
      if (!fn)
        return true; // calleeBody reports it
      return llvm::none_of(transforms, [&](Operation *t) { return t && fn->isAncestor(t); });
    };
    for (size_t done = 0; done < transforms.size(); ++done) {
      auto next = llvm::find_if(transforms, [&](Operation *t) { return t && ready(t); });
      if (next == transforms.end()) {
        Operation *t = *llvm::find_if(transforms, [](Operation *t) { return t; });
        t->emitOpError("cannot differentiate '") << calleeOf(t) << "': it differentiates itself";
        return signalPassFailure();
      }
      Operation *op = *next;
      *next = nullptr;
      OpBuilder b(op);
      Location loc = op->getLoc();
      SmallVector<Value> results;
      LogicalResult ok = failure();
      if (auto vjp = dyn_cast<VjpOp>(op)) {
        auto body = calleeBody(op, vjp.getCallee());
        ok = succeeded(body) ? reverse(b, loc, *body, vjp.getPrimals(),
                                       llvm::to_vector(vjp.getCotangents()), vjp.getWrt(), results)
                             : failure();
      } else if (auto grad = dyn_cast<GradOp>(op)) {
        auto body = calleeBody(op, grad.getCallee());
        if (succeeded(body)) {
          auto ty = cast<RankedTensorType>(grad.getResult(0).getType());
          Value one = arith::ConstantOp::create(
              b, loc, DenseElementsAttr::get(ty, b.getFloatAttr(ty.getElementType(), 1.0)));
          ok = reverse(b, loc, *body, grad.getPrimals(), {one}, grad.getWrt(), results);
        }
      } else if (auto jvp = dyn_cast<JvpOp>(op)) {
        auto body = calleeBody(op, jvp.getCallee());
        ok = succeeded(body)
                 ? forward(b, loc, *body, jvp.getPrimals(), jvp.getTangents(), jvp.getWrt(), results)
                 : failure();
      }
      if (failed(ok))
        return signalPassFailure();
      op->replaceAllUsesWith(results);
      op->erase();
    }
    getOperation()->walk([](StopGradientOp op) {
      op.replaceAllUsesWith(op.getOperand());
      op.erase();
    });
  }
};
} // namespace
