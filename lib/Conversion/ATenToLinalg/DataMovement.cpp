//===- DataMovement.cpp - views and layout ops to tensor/linalg -----------===//
#include "Utils.h"
#include "kiln/Conversion/ATenToLinalg.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"

using namespace mlir;
using namespace kiln::aten;
using namespace kiln::detail;

namespace {
struct PermuteLowering : OpConversionPattern<PermuteOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(PermuteOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getSelf();
    int64_t rank = op.getDims().size();
    SmallVector<int64_t> perm;
    for (int64_t d : op.getDims())
      perm.push_back(d < 0 ? d + rank : d);
    SmallVector<OpFoldResult> inSizes = getSizes(rewriter, loc, input), outSizes;
    for (int64_t p : perm)
      outSizes.push_back(inSizes[p]);
    Value init = emptyTensor(rewriter, loc, outSizes, op.getType().getElementType());
    Value out = linalg::TransposeOp::create(rewriter, loc, input, init, perm).getResult()[0];
    out = castTo(rewriter, loc, out, op.getType());
    rewriter.replaceOp(op, out);
    return success();
  }
};

/// Reshapes `input` to `sizes` with a collapse or expand when the shapes are
/// related by a reassociation, else with tensor.reshape.
Value reshapeTo(OpBuilder &b, Location loc, Value input, RankedTensorType resultType,
                ArrayRef<OpFoldResult> sizes) {
  auto inTy = cast<RankedTensorType>(input.getType());
  if (inTy.getRank() > resultType.getRank()) {
    if (auto reassoc = getReassociationIndicesForReshape(inTy, resultType))
      return tensor::CollapseShapeOp::create(b, loc, resultType, input, *reassoc);
  } else if (inTy.getRank() < resultType.getRank()) {
    if (auto reassoc = getReassociationIndicesForReshape(resultType, inTy))
      return tensor::ExpandShapeOp::create(b, loc, resultType, input, *reassoc, sizes);
  }
  SmallVector<Value> dims;
  for (OpFoldResult s : sizes)
    dims.push_back(getValueOrCreateConstantIndexOp(b, loc, s));
  Value shape = tensor::FromElementsOp::create(b, loc, dims);
  return tensor::ReshapeOp::create(b, loc, resultType, input, shape);
}

struct ViewLowering : OpConversionPattern<ViewOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ViewOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getSelf();
    SmallVector<OpFoldResult> sizes;
    auto dynSizes = adaptor.getSizes();
    unsigned nextDyn = 0;
    int64_t inferAt = -1;
    for (auto [i, s] : llvm::enumerate(op.getStaticSizes())) {
      if (s == ShapedType::kDynamic) {
        sizes.push_back(dynSizes[nextDyn++]);
      } else if (s == -1) {
        inferAt = i;
        sizes.push_back(OpFoldResult());
      } else {
        sizes.push_back(rewriter.getIndexAttr(s));
      }
    }
    if (inferAt >= 0) {
      // The inferred size is numel(input) / prod(other sizes); folds when static.
      auto product = [&](ArrayRef<OpFoldResult> dims, int64_t skip) {
        Value p = arith::ConstantIndexOp::create(rewriter, loc, 1);
        for (auto [i, d] : llvm::enumerate(dims))
          if ((int64_t)i != skip)
            p = rewriter.createOrFold<arith::MulIOp>(
                loc, p, getValueOrCreateConstantIndexOp(rewriter, loc, d));
        return p;
      };
      Value numel = product(getSizes(rewriter, loc, input), -1);
      Value known = product(sizes, inferAt);
      sizes[inferAt] =
          getAsOpFoldResult(rewriter.createOrFold<arith::DivUIOp>(loc, numel, known));
    }
    rewriter.replaceOp(op, reshapeTo(rewriter, loc, input, op.getType(), sizes));
    return success();
  }
};

struct FlattenLowering : OpConversionPattern<FlattenUsingIntsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(FlattenUsingIntsOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value input = adaptor.getSelf();
    int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
    if (rank == 0) {
      rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
          op, op.getType(), input, SmallVector<ReassociationIndices>{},
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1)});
      return success();
    }
    int64_t s = op.getStartDim() < 0 ? op.getStartDim() + rank : op.getStartDim();
    int64_t e = op.getEndDim() < 0 ? op.getEndDim() + rank : op.getEndDim();
    if (s == e) {
      rewriter.replaceOp(op, input);
      return success();
    }
    SmallVector<ReassociationIndices> reassoc;
    for (int64_t i = 0; i < s; ++i)
      reassoc.push_back({i});
    ReassociationIndices merged;
    for (int64_t i = s; i <= e; ++i)
      merged.push_back(i);
    reassoc.push_back(merged);
    for (int64_t i = e + 1; i < rank; ++i)
      reassoc.push_back({i});
    rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(op, op.getType(), input, reassoc);
    return success();
  }
};

struct SymSizeLowering : OpConversionPattern<SymSizeIntOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(SymSizeIntOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    int64_t rank = cast<RankedTensorType>(adaptor.getSelf().getType()).getRank();
    int64_t d = op.getDim() < 0 ? op.getDim() + rank : op.getDim();
    rewriter.replaceOpWithNewOp<tensor::DimOp>(op, adaptor.getSelf(), d);
    return success();
  }
};
} // namespace

void kiln::populateDataMovementPatterns(RewritePatternSet &patterns) {
  patterns.add<PermuteLowering, ViewLowering, FlattenLowering, SymSizeLowering>(
      patterns.getContext());
}
