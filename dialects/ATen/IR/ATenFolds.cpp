//===- ATenFolds.cpp - aten folds and canonicalisations -------------------===//
#include "ATen/IR/ATenDialect.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#include <limits>

using namespace mlir;
using namespace kiln::aten;

Operation *ATenDialect::materializeConstant(OpBuilder &builder, Attribute value, Type type,
                                            Location loc) {
  if (auto typed = dyn_cast<TypedAttr>(value))
    if (arith::ConstantOp::isBuildableWith(typed, type))
      return arith::ConstantOp::create(builder, loc, type, typed);
  return nullptr;
}

/// permute(x, identity) -> x
OpFoldResult PermuteOp::fold(FoldAdaptor) {
  int64_t rank = getDims().size();
  for (int64_t i = 0; i < rank; ++i)
    if (getDims()[i] != i && getDims()[i] != i - rank)
      return {};
  return getSelf();
}

/// view(x) -> x when the shape does not change.
OpFoldResult ViewOp::fold(FoldAdaptor) {
  auto inTy = cast<RankedTensorType>(getSelf().getType());
  if (inTy == getType() && inTy.hasStaticShape())
    return getSelf();
  return {};
}

/// expand(x) -> x when it neither adds nor stretches a dim.
OpFoldResult ExpandOp::fold(FoldAdaptor) {
  auto inTy = cast<RankedTensorType>(getSelf().getType());
  if (inTy == getType() && inTy.hasStaticShape())
    return getSelf();
  return {};
}

/// slice(x) -> x when it keeps every element: start 0, end past the dim, step 1.
OpFoldResult SliceTensorOp::fold(FoldAdaptor) {
  auto inTy = cast<RankedTensorType>(getSelf().getType());
  ArrayRef<int64_t> bounds = getStaticBounds();
  int64_t rank = inTy.getRank();
  int64_t d = getDim() < 0 ? getDim() + rank : getDim();
  if (getStep() != 1 || bounds[0] != 0 || inTy != getType() || d < 0 || d >= rank)
    return {};
  int64_t n = inTy.getDimSize(d);
  bool pastEnd = bounds[1] == std::numeric_limits<int64_t>::max() ||
                 (n != ShapedType::kDynamic && bounds[1] != ShapedType::kDynamic && bounds[1] >= n);
  if (!pastEnd)
    return {};
  return getSelf();
}

/// cat of one tensor -> that tensor.
OpFoldResult CatOp::fold(FoldAdaptor) {
  if (getTensors().size() == 1 && getTensors()[0].getType() == getType())
    return getTensors()[0];
  return {};
}

/// _to_copy to the operand's own type is the operand.
OpFoldResult ToCopyOp::fold(FoldAdaptor) {
  if (getSelf().getType() == getType())
    return getSelf();
  return {};
}

/// sym_size_int of a static dimension is a constant.
OpFoldResult SymSizeIntOp::fold(FoldAdaptor) {
  auto ty = cast<RankedTensorType>(getSelf().getType());
  int64_t d = getDim() < 0 ? getDim() + ty.getRank() : getDim();
  if (ty.isDynamicDim(d))
    return {};
  return IntegerAttr::get(IndexType::get(getContext()), ty.getDimSize(d));
}

namespace {
/// max_pool2d_with_indices whose indices nobody reads -> max_pool2d.
struct DropUnusedPoolIndices : OpRewritePattern<MaxPool2dWithIndicesOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MaxPool2dWithIndicesOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getIndices().use_empty())
      return rewriter.notifyMatchFailure(op, "indices are used");
    auto pool = MaxPool2dOp::create(rewriter, op.getLoc(), op.getResult().getType(),
                                    op.getSelf(), op.getKernelSize(), op.getStride(),
                                    op.getPadding(), op.getDilation(), op.getCeilMode());
    rewriter.replaceAllUsesWith(op.getResult(), pool.getResult());
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void MaxPool2dWithIndicesOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                         MLIRContext *context) {
  results.add<DropUnusedPoolIndices>(context);
}
