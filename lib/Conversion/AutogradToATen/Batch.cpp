//===- Batch.cpp - the autograd-batch pass (vmap) -------------------------===//
//
// Each `autograd.vmap` becomes its callee's body at the op, over batched
// values that carry the batch dim in front: an op with a batched operand is
// rewritten by its batching rule (Autograd/Batching), or, without one, runs
// in an scf.for over the (possibly dynamic) batch that slices each batched
// operand and inserts each result. Ops on unbatched values only are cloned
// unchanged, so they run once.
//
//===----------------------------------------------------------------------===//
#include "ATen/IR/ATenDialect.h"
#include "ATen/IR/AttrNames.h"
#include "Autograd/Batching/BatchRules.h"
#include "Autograd/IR/AutogradDialect.h"
#include "kiln/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"

namespace kiln {
#define GEN_PASS_DEF_AUTOGRADBATCH
#include "kiln/Conversion/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;
using namespace kiln::batching;

namespace {

/// The values of one vmap: batched ones (batch in front) and unbatched ones.
struct BatchedValues {
  IRMapping unbatched;
  DenseMap<Value, Value> batched;
  bool isBatched(Value v) const { return batched.count(v); }
  Value lookup(Value v) const {
    auto it = batched.find(v);
    return it != batched.end() ? it->second : unbatched.lookupOrDefault(v);
  }
};

/// `v` with its dim `from` moved to `to` (aten.permute), or `v` when equal.
Value moveDim(OpBuilder &b, Location loc, Value v, int64_t from, int64_t to) {
  if (from == to)
    return v;
  auto tt = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> perm;
  for (int64_t d = 0; d < tt.getRank(); ++d)
    if (d != from)
      perm.push_back(d);
  perm.insert(perm.begin() + to, from);
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(tt.getShape()[p]);
  return aten::PermuteOp::create(b, loc, RankedTensorType::get(shape, tt.getElementType()), v,
                                 b.getDenseI64ArrayAttr(perm));
}

/// Every value `op` reads: its operands and the values its regions use from above.
SmallVector<Value> readValues(Operation *op) {
  SmallVector<Value> vals(op->getOperands());
  if (op->getNumRegions()) {
    llvm::SetVector<Value> above;
    for (Region &r : op->getRegions())
      getUsedValuesDefinedAbove(r, above);
    vals.append(above.begin(), above.end());
  }
  return vals;
}

/// The op run once per sample in an scf.for: each batched value it reads is
/// sliced at the iteration's sample and each result inserted into a batched
/// tensor. Fails (with an error) for results that are not tensors of static
/// per-sample shape.
LogicalResult batchByLoop(OpBuilder &b, Operation *op, BatchedValues &vals, const Batch &batch) {
  Location loc = op->getLoc();
  SmallVector<Value> inits;
  for (Type t : op->getResultTypes()) {
    auto tt = dyn_cast<RankedTensorType>(t);
    if (!tt || !tt.hasStaticShape())
      return op->emitError("cannot batch '")
             << op->getName() << "': it has no batching rule, and running it in a loop over the "
             << "batch needs static tensor results, not " << t;
    SmallVector<Value> dyn;
    if (ShapedType::isDynamic(batch.staticSize))
      dyn.push_back(batch.size);
    // One allocation per result (tensor.empty would be merged by CSE, and
    // two loop results bufferized into one buffer would overwrite each other).
    inits.push_back(bufferization::AllocTensorOp::create(b, loc, batchedType(tt, batch), dyn));
  }
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto loop = scf::ForOp::create(b, loc, zero, batch.size, one, inits);
  OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
  Value iv = loop.getInductionVar();
  IRMapping m = vals.unbatched;
  for (Value v : readValues(op)) {
    if (!vals.isBatched(v) || m.contains(v))
      continue;
    Value src = vals.batched.lookup(v);
    auto st = cast<RankedTensorType>(v.getType());
    if (llvm::is_contained(st.getShape(), 0)) {
      // An empty sample (a static 0 dim): no slice to read, any empty tensor is it.
      SmallVector<Value> dyn;
      for (int64_t d = 0; d < st.getRank(); ++d)
        if (st.isDynamicDim(d))
          dyn.push_back(tensor::DimOp::create(lb, loc, src, d + 1));
      m.map(v, tensor::EmptyOp::create(lb, loc, st, dyn));
      continue;
    }
    SmallVector<OpFoldResult> offsets{iv}, sizes{lb.getIndexAttr(1)}, strides{lb.getIndexAttr(1)};
    for (int64_t d = 0; d < st.getRank(); ++d) {
      offsets.push_back(lb.getIndexAttr(0));
      strides.push_back(lb.getIndexAttr(1));
      sizes.push_back(st.isDynamicDim(d) ? OpFoldResult(tensor::DimOp::create(lb, loc, src, d + 1).getResult())
                                         : OpFoldResult(lb.getIndexAttr(st.getDimSize(d))));
    }
    m.map(v, tensor::ExtractSliceOp::create(lb, loc, st, src, offsets, sizes, strides));
  }
  Operation *c = lb.clone(*op, m);
  SmallVector<Value> yields;
  for (auto [r, acc] : llvm::zip(c->getResults(), loop.getRegionIterArgs())) {
    auto rt = cast<RankedTensorType>(r.getType());
    if (rt.getNumElements() == 0) { // nothing to insert
      yields.push_back(acc);
      continue;
    }
    SmallVector<OpFoldResult> offsets{iv}, sizes{lb.getIndexAttr(1)}, strides{lb.getIndexAttr(1)};
    for (int64_t d = 0; d < rt.getRank(); ++d) {
      offsets.push_back(lb.getIndexAttr(0));
      sizes.push_back(lb.getIndexAttr(rt.getDimSize(d)));
      strides.push_back(lb.getIndexAttr(1));
    }
    yields.push_back(tensor::InsertSliceOp::create(lb, loc, r, acc, offsets, sizes, strides));
  }
  scf::YieldOp::create(lb, loc, yields);
  for (auto [r, br] : llvm::zip(op->getResults(), loop.getResults()))
    vals.batched[r] = br;
  return success();
}

/// A short location for --explain: the user's file:line when known.
std::string where(Location loc) {
  std::string s;
  loc->walk([&](Location l) {
    if (auto f = dyn_cast<FileLineColLoc>(l); f && s.empty()) {
      s = (f.getFilename().str() + ":" + std::to_string(f.getLine()));
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return s;
}

LogicalResult rewriteVmap(autograd::VmapOp vmap, SmallVectorImpl<Attribute> &explain) {
  auto fn = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(vmap, vmap.getCalleeAttr());
  if (!fn || fn.isExternal())
    return vmap.emitOpError("'") << vmap.getCallee() << "' does not name a function with a body";
  if (!llvm::hasSingleElement(fn.getBody()))
    return vmap.emitOpError("cannot batch '") << vmap.getCallee() << "': it has control flow";
  OpBuilder b(vmap);
  Location loc = vmap.getLoc();
  Block &body = fn.getBody().front();
  BatchedValues vals;
  Batch batch{Value(), ShapedType::kDynamic};
  for (auto [i, arg] : llvm::enumerate(vmap.getArgs())) {
    int64_t dim = vmap.getInDims()[i];
    if (dim < 0) {
      vals.unbatched.map(body.getArgument(i), arg);
      continue;
    }
    if (!batch.size) {
      batch.size = tensor::DimOp::create(b, loc, arg, dim);
      batch.staticSize = cast<RankedTensorType>(arg.getType()).getShape()[dim];
    }
    vals.batched[body.getArgument(i)] = moveDim(b, loc, arg, dim, 0);
  }
  MLIRContext *ctx = vmap.getContext();
  auto note = [&](StringRef how, Operation *op, StringRef why) {
    std::string line = (how + " " + op->getName().getStringRef()).str();
    // A runtime call is named by the op it calls.
    if (auto callee = op->getAttrOfType<StringAttr>("callee"); callee && isa<aten::CallRuntimeOp>(op))
      line += " " + callee.getValue().str();
    if (!why.empty())
      line += " (" + why.str() + ")";
    std::string w = where(op->getLoc());
    if (!w.empty())
      line += "  at " + w;
    explain.push_back(StringAttr::get(ctx, line));
  };
  for (Operation &op : body.without_terminator()) {
    SmallVector<Value> reads = readValues(&op);
    if (llvm::none_of(reads, [&](Value v) { return vals.isBatched(v); })) {
      b.clone(op, vals.unbatched);
      continue;
    }
    const BatchRule *rule = lookupBatchRule(op.getName().getStringRef());
    if (rule && op.getNumRegions() == 0) {
      SmallVector<Value> operands;
      SmallVector<bool> batched;
      for (Value v : op.getOperands()) {
        operands.push_back(vals.lookup(v));
        batched.push_back(vals.isBatched(v));
      }
      FailureOr<BatchedResults> r = (*rule)(&op, operands, batched, batch, b);
      if (succeeded(r)) {
        for (auto [i, res] : llvm::enumerate(op.getResults())) {
          Value v = r->values[i];
          if (!r->batched[i]) {
            vals.unbatched.map(res, v);
            continue;
          }
          // Rules may infer a more or less static type than the op had per sample.
          Type want = isa<RankedTensorType>(res.getType()) ? Type(batchedType(res.getType(), batch)) : Type();
          if (want && v.getType() != want)
            v = tensor::CastOp::create(b, op.getLoc(), want, v);
          vals.batched[res] = v;
        }
        note("rule", &op, op.hasAttr(kiln::attrs::kRuntimeVmap) ? "its registered batching rule" : "");
        continue;
      }
    }
    if (failed(batchByLoop(b, &op, vals, batch)))
      return failure();
    note("loop", &op, isa<aten::CallRuntimeOp>(op) && !op.hasAttr(kiln::attrs::kRuntimeVmap)
                          ? "no batching rule registered for it (register_vmap)"
                      : rule ? "its batching rule does not apply to these operands"
                             : "no batching rule");
  }
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  SmallVector<Value> results;
  for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
    Value r = vals.isBatched(v) ? vals.lookup(v)
                                : materializeBatch(b, loc, vals.lookup(v), false, batch);
    r = moveDim(b, loc, r, 0, vmap.getOutDims()[i]);
    if (r.getType() != vmap.getResult(i).getType())
      r = tensor::CastOp::create(b, loc, vmap.getResult(i).getType(), r);
    results.push_back(r);
  }
  vmap.replaceAllUsesWith(results);
  vmap.erase();
  return success();
}

struct AutogradBatch : kiln::impl::AutogradBatchBase<AutogradBatch> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<Attribute> explain;
    // One at a time: a vmap inside a mapped function is cloned into the
    // batched body (or a loop) and rewritten on a later round.
    while (true) {
      autograd::VmapOp next;
      module.walk([&](autograd::VmapOp op) {
        next = op;
        return WalkResult::interrupt();
      });
      if (!next)
        break;
      if (failed(rewriteVmap(next, explain)))
        return signalPassFailure();
    }
    dropBatchMarkers(module);
    if (!explain.empty())
      module->setAttr(kiln::attrs::kVmapExplain, ArrayAttr::get(module.getContext(), explain));
  }
};
} // namespace
