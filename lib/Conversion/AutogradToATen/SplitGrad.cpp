//===- SplitGrad.cpp - autograd-split-grad: the forward or backward half of a --grad entry ===//
//
// The cut and its residuals are described in Passes.td and
// docs/Rationale/rematerialisation.md (Splitting the value and gradient).
//
//===----------------------------------------------------------------------===//
#include "ATen/IR/ATenDialect.h"
#include "ATen/IR/ATenRandomOps.h"
#include "ATen/IR/AttrNames.h"
#include "Autograd/IR/AutogradDialect.h"
#include "kiln/Conversion/Passes.h"
#include "kiln/abi/io_names.h"
#include "kiln/abi/model_format.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/SetVector.h"

namespace kiln {
#define GEN_PASS_DEF_AUTOGRADSPLITGRAD
#include "kiln/Conversion/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

/// The values `op` reads from outside itself (its operands and the values
/// its regions capture).
SmallVector<Value> usedValues(Operation *op) {
  SmallVector<Value> used;
  op->walk([&](Operation *inner) {
    for (Value v : inner->getOperands())
      if (!op->isAncestor(v.getParentRegion()->getParentOp()))
        used.push_back(v);
  });
  return used;
}

/// Views, which the backward rebuilds from an argument rather than have the
/// forward return a copy of.
bool isView(Operation *op) {
  using namespace kiln::aten;
  return isa<ViewOp, PermuteOp, ExpandOp, UnsqueezeOp, SqueezeDimsOp, FlattenUsingIntsOp,
             SliceTensorOp, SelectIntOp, tensor::CastOp>(op);
}

/// Scalar shape arithmetic (a dim of a tensor, index math), which the
/// backward recomputes from arguments rather than have handed over.
bool isShapeMath(Operation *op) {
  if (isa<tensor::DimOp>(op))
    return true;
  return op->getDialect() && op->getDialect()->getNamespace() == "arith" && op->getNumRegions() == 0 &&
         llvm::none_of(op->getResultTypes(), [](Type t) { return isa<ShapedType>(t); });
}

/// The tensor type that carries a scalar across the cut. A size (an index
/// or integer, what shape arithmetic computes) is the first dim of an empty
/// `tensor<?x0xi8>`: no data, so nothing moves between host and device; a
/// float is a 0-d tensor holding it.
RankedTensorType scalarCarrier(Type t) {
  if (t.isIntOrIndex())
    return RankedTensorType::get({ShapedType::kDynamic, 0}, IntegerType::get(t.getContext(), 8));
  return RankedTensorType::get({}, t);
}

/// The value carrying scalar `v` (built before `b`'s insertion point).
Value carryScalar(OpBuilder &b, Location loc, Value v) {
  if (!v.getType().isIntOrIndex())
    return tensor::FromElementsOp::create(b, loc, scalarCarrier(v.getType()), ValueRange{v});
  if (!v.getType().isIndex())
    v = arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
  return tensor::EmptyOp::create(b, loc, scalarCarrier(v.getType()), ValueRange{v});
}

/// The scalar of type `t` that `carrier` carries.
Value readScalar(OpBuilder &b, Location loc, Value carrier, Type t) {
  if (!t.isIntOrIndex())
    return tensor::ExtractOp::create(b, loc, carrier, ValueRange{});
  Value n = tensor::DimOp::create(b, loc, carrier, 0);
  return t.isIndex() ? n : arith::IndexCastOp::create(b, loc, t, n).getResult();
}

int64_t bytesOf(Type t) {
  if (!isa<RankedTensorType>(t))
    t = scalarCarrier(t);
  auto ty = cast<RankedTensorType>(t);
  int64_t n = 1;
  for (int64_t d : ty.getShape())
    n *= d == ShapedType::kDynamic ? 1024 : d;
  return n * std::max<int64_t>(1, ty.getElementTypeBitWidth() / 8);
}

ArrayAttr dimsOf(Builder &b, Type t) {
  SmallVector<Attribute> dims;
  if (!isa<RankedTensorType>(t))
    t = scalarCarrier(t);
  for (int64_t d : cast<RankedTensorType>(t).getShape())
    dims.push_back(d == ShapedType::kDynamic ? Attribute(b.getStringAttr("?"))
                                             : Attribute(b.getI64IntegerAttr(d)));
  return b.getArrayAttr(dims);
}

struct AutogradSplitGradPass : kiln::impl::AutogradSplitGradBase<AutogradSplitGradPass> {
  using AutogradSplitGradBase::AutogradSplitGradBase;

  void runOnOperation() override {
    if (half != "forward" && half != "backward") {
      getOperation().emitError("autograd-split-grad: half must be 'forward' or 'backward', got '")
          << half << "'";
      return signalPassFailure();
    }
    func::FuncOp fn;
    for (auto f : getOperation().getOps<func::FuncOp>())
      if (f.isPublic() && !f.isExternal())
        fn = f;
    if (!fn || !llvm::hasSingleElement(fn.getBody())) {
      getOperation().emitError("autograd-split-grad needs one public entry of one block");
      return signalPassFailure();
    }
    if (failed(split(fn)))
      signalPassFailure();
  }

  LogicalResult split(func::FuncOp fn) {
    MLIRContext *ctx = fn.getContext();
    Builder b(ctx);
    Block &body = fn.getBody().front();
    auto ret = cast<func::ReturnOp>(body.getTerminator());
    // Results: outputs, gradients (grads/...), updates.
    auto resultName = [&](unsigned i) {
      auto n = fn.getResultAttrOfType<StringAttr>(i, kiln::attrs::kName);
      return n ? n.getValue() : StringRef();
    };
    unsigned numResults = fn.getNumResults(), numOuts = 0, numGrads = 0;
    while (numOuts < numResults && !fn.getResultAttr(numOuts, kiln::attrs::kUpdate) &&
           !resultName(numOuts).starts_with(KILN_GRADS_PREFIX))
      ++numOuts;
    while (numOuts + numGrads < numResults && resultName(numOuts + numGrads).starts_with(KILN_GRADS_PREFIX))
      ++numGrads;
    for (unsigned i = numOuts + numGrads; i < numResults; ++i)
      if (!fn.getResultAttr(i, kiln::attrs::kUpdate))
        return fn.emitError("autograd-split-grad: result ")
               << i << " is neither an output, a gradient nor a state update (a --grad entry lists "
                  "them in that order)";
    // The last numOuts arguments are the cotangents.
    unsigned numArgs = fn.getNumArguments();
    if (numArgs < numOuts)
      return fn.emitError("autograd-split-grad: the entry has fewer arguments than cotangents");
    unsigned numPrimal = numArgs - numOuts;
    for (unsigned i = 0; i < numOuts; ++i) {
      auto n = fn.getArgAttrOfType<StringAttr>(numPrimal + i, kiln::attrs::kName);
      if (!n || n.getValue() != KILN_COTANGENT_PREFIX + std::to_string(i))
        return fn.emitError("autograd-split-grad: argument ")
               << numPrimal + i << " should be '" << KILN_COTANGENT_PREFIX << i
               << "' (is this a --grad entry?)";
    }

    // What reads a cotangent.
    DenseSet<Value> onCotangent;
    for (unsigned i = numPrimal; i < numArgs; ++i)
      onCotangent.insert(body.getArgument(i));
    DenseSet<Operation *> readsCotangent;
    for (Operation &op : body.without_terminator())
      if (llvm::any_of(usedValues(&op), [&](Value v) { return onCotangent.contains(v); })) {
        readsCotangent.insert(&op);
        onCotangent.insert(op.result_begin(), op.result_end());
      }

    // The forward: what the outputs, the updates and the random ops need.
    DenseSet<Operation *> fwd;
    SmallVector<Value> work;
    for (unsigned i = 0; i < numResults; ++i)
      if (i < numOuts || i >= numOuts + numGrads)
        work.push_back(ret.getOperand(i));
    for (Operation &op : body.without_terminator())
      if (isa<kiln::aten::RandomOp>(op))
        work.append(op.result_begin(), op.result_end());
    while (!work.empty()) {
      Operation *def = work.pop_back_val().getDefiningOp();
      if (!def || def->getBlock() != &body || !fwd.insert(def).second)
        continue;
      if (readsCotangent.contains(def))
        return def->emitError("autograd-split-grad: a forward value depends on a cotangent");
      llvm::append_range(work, usedValues(def));
    }

    // The backward: what the gradients need beyond the forward. Constants
    // are copied, and view chains and shape arithmetic of arguments rebuilt,
    // rather than crossing.
    DenseSet<Operation *> bwd;
    DenseMap<Operation *, bool> rebuildableMemo;
    std::function<bool(Operation *)> rebuildable = [&](Operation *def) -> bool {
      if (auto it = rebuildableMemo.find(def); it != rebuildableMemo.end())
        return it->second;
      bool ok = isa<arith::ConstantOp>(def) || isView(def) || isShapeMath(def);
      if (ok && !isa<arith::ConstantOp>(def))
        for (Value v : usedValues(def))
          if (Operation *d = v.getDefiningOp(); d && d->getBlock() == &body && !rebuildable(d)) {
            ok = false;
            break;
          }
      return rebuildableMemo[def] = ok;
    };
    for (unsigned i = numOuts; i < numOuts + numGrads; ++i)
      work.push_back(ret.getOperand(i));
    while (!work.empty()) {
      Operation *def = work.pop_back_val().getDefiningOp();
      if (!def || def->getBlock() != &body || bwd.contains(def))
        continue;
      if (fwd.contains(def) && !rebuildable(def))
        continue; // a residual
      if (isa<kiln::aten::RandomOp>(def))
        return def->emitError("autograd-split-grad: the backward would draw random numbers");
      bwd.insert(def);
      llvm::append_range(work, usedValues(def));
    }

    // The residuals, in program order.
    SetVector<Value> crossing;
    auto note = [&](Value v) {
      Operation *d = v.getDefiningOp();
      if (d ? d->getBlock() == &body && !bwd.contains(d)
            : cast<BlockArgument>(v).getOwner() == &body && !onCotangent.contains(v))
        crossing.insert(v);
    };
    for (Operation &op : body.without_terminator())
      if (bwd.contains(&op))
        for (Value v : usedValues(&op))
          note(v);
    for (unsigned i = numOuts; i < numOuts + numGrads; ++i)
      note(ret.getOperand(i));

    // Arguments the forward writes (their kiln.update results name them).
    auto argName = [&](unsigned a) {
      auto n = fn.getArgAttrOfType<StringAttr>(a, kiln::attrs::kName);
      return n ? n.getValue() : StringRef();
    };
    auto argKind = [&](unsigned a) {
      auto k = fn.getArgAttrOfType<StringAttr>(a, kiln::attrs::kKind);
      return k ? k.getValue() : StringRef("input");
    };
    auto updated = [&](unsigned a) {
      for (unsigned i = numOuts + numGrads; i < numResults; ++i) {
        auto kind = fn.getResultAttrOfType<StringAttr>(i, kiln::attrs::kUpdate);
        if (resultName(i) == argName(a) && kind && (kind.getValue() == "input") == (argKind(a) == "input"))
          return true;
      }
      return false;
    };
    // Each crossing value: an argument passed as it is, an output, or a
    // result of the forward.
    struct Residual {
      Value value;
      enum { Arg, Output, Result } how;
      unsigned index; // argument number, output number or residual number
    };
    SmallVector<Residual> argRes, outRes, resultRes;
    SmallVector<int64_t> userInputOf(numPrimal, -1);
    for (unsigned a = 0, k = 0; a < numPrimal; ++a)
      if (argKind(a) == "input")
        userInputOf[a] = k++;
    int64_t residualBytes = 0;
    for (Value v : crossing) {
      if (auto arg = dyn_cast<BlockArgument>(v)) {
        unsigned a = arg.getArgNumber();
        if (argKind(a) == KILN_ARG_KIND_RNG)
          return fn.emitError("autograd-split-grad: the backward reads the generator state");
        if (!updated(a)) {
          argRes.push_back({v, Residual::Arg, a});
          continue;
        }
      } else if (auto it = llvm::find(ret.getOperands().take_front(numOuts), v);
                 it != ret.getOperands().take_front(numOuts).end()) {
        outRes.push_back({v, Residual::Output, (unsigned)(it - ret.getOperands().begin())});
        continue;
      }
      resultRes.push_back({v, Residual::Result, (unsigned)resultRes.size()});
      residualBytes += bytesOf(v.getType());
    }
    getOperation()->setAttr(kiln::attrs::kResidualBytes, b.getI64IntegerAttr(residualBytes));
    getOperation()->setAttr(kiln::attrs::kSplitModelInputs,
                            b.getI64IntegerAttr(llvm::count_if(userInputOf, [](int64_t k) { return k >= 0; })));

    if (half == "forward") {
      SmallVector<Value> rets(ret.getOperands().take_front(numOuts));
      SmallVector<Attribute> attrs;
      for (unsigned i = 0; i < numOuts; ++i)
        attrs.push_back(fn.getResultAttrDict(i) ? fn.getResultAttrDict(i) : b.getDictionaryAttr({}));
      OpBuilder ob(ret);
      for (const Residual &r : resultRes) {
        Value v = r.value;
        if (!isa<RankedTensorType>(v.getType())) {
          // A scalar (a dynamic size the forward computed) crosses in a carrier.
          Operation *first = &*std::prev(ob.getInsertionPoint());
          v = carryScalar(ob, ret.getLoc(), v);
          for (Operation *op = first->getNextNode(); op != ret; op = op->getNextNode())
            fwd.insert(op);
        }
        rets.push_back(v);
        attrs.push_back(b.getDictionaryAttr(
            {b.getNamedAttr(kiln::attrs::kName,
                            b.getStringAttr(KILN_RESIDUALS_PREFIX + std::to_string(r.index))),
             b.getNamedAttr(kiln::attrs::kDims, dimsOf(b, r.value.getType()))}));
      }
      for (unsigned i = numOuts + numGrads; i < numResults; ++i) {
        rets.push_back(ret.getOperand(i));
        attrs.push_back(fn.getResultAttrDict(i));
      }
      func::ReturnOp::create(ob, ret.getLoc(), rets);
      ret.erase();
      // Everything else is the backward's.
      SmallVector<Operation *> dead;
      for (Operation &op : body.without_terminator())
        if (!fwd.contains(&op))
          dead.push_back(&op);
      for (Operation *op : llvm::reverse(dead)) {
        if (!op->use_empty())
          return op->emitError("autograd-split-grad: internal error: a backward op feeds the forward");
        op->erase();
      }
      llvm::BitVector drop(numArgs);
      drop.set(numPrimal, numArgs);
      if (failed(fn.eraseArguments(drop)))
        return fn.emitError("autograd-split-grad: cannot drop the cotangents");
      fn.setType(FunctionType::get(ctx, fn.getArgumentTypes(), ValueRange(rets).getTypes()));
      fn.setAllResultAttrs(attrs);
      return success();
    }

    // The backward: residual arguments, then the cotangents.
    SmallVector<Type> argTypes;
    SmallVector<DictionaryAttr> argAttrs;
    auto inputAttrs = [&](StringRef name, Attribute dims) {
      return b.getDictionaryAttr({b.getNamedAttr(kiln::attrs::kKind, b.getStringAttr("input")),
                                  b.getNamedAttr(kiln::attrs::kName, b.getStringAttr(name)),
                                  b.getNamedAttr(kiln::attrs::kDims, dims),
                                  b.getNamedAttr("bufferization.writable", b.getBoolAttr(false))});
    };
    SmallVector<Value> from;
    for (const Residual &r : argRes) {
      DictionaryAttr attrs = fn.getArgAttrDict(r.index);
      if (userInputOf[r.index] >= 0) {
        Attribute dims = fn.getArgAttr(r.index, kiln::attrs::kDims);
        attrs = inputAttrs(KILN_RESIDUALS_INPUT_PREFIX + std::to_string(userInputOf[r.index]),
                           dims ? dims : dimsOf(b, r.value.getType()));
      }
      from.push_back(r.value);
      argTypes.push_back(r.value.getType());
      argAttrs.push_back(attrs);
    }
    for (const Residual &r : outRes) {
      Attribute dims = fn.getResultAttr(r.index, kiln::attrs::kDims);
      from.push_back(r.value);
      argTypes.push_back(r.value.getType());
      argAttrs.push_back(inputAttrs(KILN_RESIDUALS_OUTPUT_PREFIX + std::to_string(r.index),
                                    dims ? dims : dimsOf(b, r.value.getType())));
    }
    for (const Residual &r : resultRes) {
      from.push_back(r.value);
      argTypes.push_back(isa<RankedTensorType>(r.value.getType()) ? r.value.getType()
                                                                    : scalarCarrier(r.value.getType()));
      argAttrs.push_back(inputAttrs(KILN_RESIDUALS_PREFIX + std::to_string(r.index),
                                    dimsOf(b, r.value.getType())));
    }
    for (unsigned a = numPrimal; a < numArgs; ++a) {
      from.push_back(body.getArgument(a));
      argTypes.push_back(body.getArgument(a).getType());
      argAttrs.push_back(fn.getArgAttrDict(a));
    }
    SmallVector<Type> resultTypes;
    SmallVector<Attribute> resultAttrs;
    for (unsigned i = numOuts; i < numOuts + numGrads; ++i) {
      resultTypes.push_back(fn.getResultTypes()[i]);
      resultAttrs.push_back(fn.getResultAttrDict(i));
    }
    OpBuilder ob(fn);
    auto bwdFn = func::FuncOp::create(ob, fn.getLoc(), fn.getName(),
                                      FunctionType::get(ctx, argTypes, resultTypes));
    bwdFn.setAllArgAttrs(argAttrs);
    bwdFn.setAllResultAttrs(resultAttrs);
    Block *nb = bwdFn.addEntryBlock();
    IRMapping map;
    ob.setInsertionPointToStart(nb);
    for (auto [v, a] : llvm::zip(from, nb->getArguments())) {
      Value m = a;
      if (a.getType() != v.getType()) // a scalar in its carrier
        m = readScalar(ob, fn.getLoc(), a, v.getType());
      map.map(v, m);
    }
    for (Operation &op : body.without_terminator())
      if (bwd.contains(&op))
        ob.clone(op, map);
    SmallVector<Value> rets;
    for (unsigned i = numOuts; i < numOuts + numGrads; ++i)
      rets.push_back(map.lookupOrDefault(ret.getOperand(i)));
    func::ReturnOp::create(ob, ret.getLoc(), rets);
    fn.erase();
    return success();
  }
};

} // namespace
