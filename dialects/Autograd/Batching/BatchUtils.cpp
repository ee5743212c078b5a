//===- BatchUtils.cpp - the rule table and building blocks of batching ----===//
#include "Autograd/Batching/BatchRules.h"

#include "ATen/IR/ATenDialect.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace kiln::batching {
namespace {
/// Marks the views unfoldBatch makes while autograd-batch runs (removed at its end).
constexpr llvm::StringLiteral kUnfoldedMarker = "autograd.unfolded_batch";
} // namespace

void dropBatchMarkers(Operation *root) {
  root->walk([](aten::ViewOp v) { v->removeAttr(kUnfoldedMarker); });
}

const BatchRule *lookupBatchRule(StringRef opName) {
  static const BatchRuleTable table = [] {
    BatchRuleTable t;
    rules::addElementwiseBatchRules(t);
    rules::addShapeBatchRules(t);
    rules::addLinalgBatchRules(t);
    rules::addReductionBatchRules(t);
    rules::addNetworkBatchRules(t);
    rules::addRuntimeBatchRules(t);
    rules::addIndexingBatchRules(t);
    return t;
  }();
  auto it = table.find(opName);
  return it == table.end() ? nullptr : &it->second;
}

RankedTensorType batchedType(Type t, const Batch &batch) {
  auto tt = cast<RankedTensorType>(t);
  SmallVector<int64_t> shape{batch.staticSize};
  shape.append(tt.getShape().begin(), tt.getShape().end());
  return RankedTensorType::get(shape, tt.getElementType());
}

int64_t sampleRank(Value v, bool batched) {
  return cast<RankedTensorType>(v.getType()).getRank() - (batched ? 1 : 0);
}

Value unsqueezeAfterBatch(OpBuilder &b, Location loc, Value v, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    auto tt = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> shape(tt.getShape());
    shape.insert(shape.begin() + 1, 1);
    v = aten::UnsqueezeOp::create(b, loc, RankedTensorType::get(shape, tt.getElementType()), v,
                                  (int64_t)1);
  }
  return v;
}

Value materializeBatch(OpBuilder &b, Location loc, Value v, bool batched, const Batch &batch) {
  if (batched)
    return v;
  auto tt = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape{1};
  shape.append(tt.getShape().begin(), tt.getShape().end());
  Value u = aten::UnsqueezeOp::create(b, loc, RankedTensorType::get(shape, tt.getElementType()), v,
                                      (int64_t)0);
  SmallVector<int64_t> sizes(shape.size(), -1);
  SmallVector<Value> dyn;
  sizes[0] = batch.staticSize;
  if (ShapedType::isDynamic(batch.staticSize))
    dyn.push_back(batch.size);
  return aten::ExpandOp::create(b, loc, batchedType(tt, batch), u, dyn,
                                b.getDenseI64ArrayAttr(sizes));
}

Value foldBatch(OpBuilder &b, Location loc, Value v) {
  // Folding what unfoldBatch just unfolded (a convolution feeding a batch
  // norm) gives back the folded value.
  if (auto view = v.getDefiningOp<aten::ViewOp>();
      view && view->hasAttr(kUnfoldedMarker) && cast<RankedTensorType>(view.getSelf().getType()).getRank() + 1 ==
                                                    cast<RankedTensorType>(v.getType()).getRank())
    return view.getSelf();
  auto tt = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape(tt.getShape().drop_front());
  int64_t b0 = tt.getShape()[0];
  if (ShapedType::isDynamic(b0) || ShapedType::isDynamic(shape[0]))
    shape[0] = ShapedType::kDynamic;
  else
    shape[0] *= b0;
  return aten::FlattenUsingIntsOp::create(b, loc, RankedTensorType::get(shape, tt.getElementType()),
                                          v, (int64_t)0, (int64_t)1);
}

Value unfoldBatch(OpBuilder &b, Location loc, Value v, const Batch &batch, int64_t n) {
  auto tt = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> sizes{batch.staticSize, ShapedType::isDynamic(n) ? -1 : n};
  SmallVector<Value> dyn;
  if (ShapedType::isDynamic(batch.staticSize))
    dyn.push_back(batch.size);
  SmallVector<int64_t> shape{batch.staticSize, n};
  int64_t folded = tt.getShape()[0];
  if (ShapedType::isDynamic(n) && !ShapedType::isDynamic(folded) &&
      !ShapedType::isDynamic(batch.staticSize) && batch.staticSize)
    shape[1] = folded / batch.staticSize;
  for (int64_t d = 1; d < tt.getRank(); ++d) {
    int64_t s = tt.getShape()[d];
    sizes.push_back(s);
    shape.push_back(s);
    if (ShapedType::isDynamic(s))
      dyn.push_back(aten::SymSizeIntOp::create(b, loc, b.getIndexType(), v, b.getI64IntegerAttr(d)));
  }
  auto view = aten::ViewOp::create(b, loc, RankedTensorType::get(shape, tt.getElementType()), v, dyn,
                                   b.getDenseI64ArrayAttr(sizes));
  view->setAttr(kUnfoldedMarker, b.getUnitAttr());
  return view;
}

int64_t shiftDim(int64_t dim, int64_t rank) {
  if (dim < 0)
    dim += std::max<int64_t>(rank, 1);
  return dim + 1;
}

Operation *cloneWith(OpBuilder &b, Operation *op, ValueRange operands, TypeRange types) {
  Operation *c = b.clone(*op);
  c->setOperands(operands);
  for (auto [r, t] : llvm::zip(c->getResults(), types))
    r.setType(t);
  return c;
}

SmallVector<Type> batchedResultTypes(Operation *op, const Batch &batch) {
  SmallVector<Type> types;
  for (Type t : op->getResultTypes())
    types.push_back(batchedType(t, batch));
  return types;
}

BatchedResults allBatched(ValueRange values) {
  BatchedResults r;
  r.values.assign(values.begin(), values.end());
  r.batched.assign(values.size(), true);
  return r;
}
} // namespace kiln::batching
