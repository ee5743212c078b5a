//===- Pooling.cpp - aten pooling ops to linalg pooling -------------------===//
#include "Utils.h"
#include "kiln/Conversion/ATenToLinalg.h"

#include <limits>

using namespace mlir;
using namespace kiln::aten;
using namespace kiln::detail;

namespace {
LogicalResult lowerMaxPool(Operation *op, Value input, ArrayRef<int64_t> kernel,
                           ArrayRef<int64_t> stride, ArrayRef<int64_t> pad,
                           ArrayRef<int64_t> dil, bool ceilMode, RankedTensorType resultType,
                           ConversionPatternRewriter &rewriter, Value &result) {
  Location loc = op->getLoc();
  bool unbatched = cast<RankedTensorType>(input.getType()).getRank() == 3;
  if (unbatched)
    input = expandBatch(rewriter, loc, input);
  auto inTy = cast<RankedTensorType>(input.getType());
  Type elem = inTy.getElementType();
  SmallVector<int64_t> padHigh(pad);
  if (ceilMode) {
    // Extra high padding so the partial last window is computed; ATen's output size.
    for (int i = 0; i < 2; ++i) {
      int64_t in = inTy.getDimSize(2 + i);
      if (in == ShapedType::kDynamic)
        return rewriter.notifyMatchFailure(op, "ceil_mode pooling needs static spatial dims");
      int64_t out = slidingWindowOutputSize(in, kernel[i], stride[i], pad[i], dil[i], true);
      int64_t needed = (out - 1) * stride[i] + dil[i] * (kernel[i] - 1) + 1;
      padHigh[i] = std::max<int64_t>(pad[i], needed - in - pad[i]);
    }
  }
  double lowest = isa<FloatType>(elem) ? -std::numeric_limits<double>::infinity()
                                       : (double)std::numeric_limits<int64_t>::min();
  if (!isa<FloatType>(elem))
    return rewriter.notifyMatchFailure(op, "integer max pooling is not lowered yet");
  Value padded = padSpatial(rewriter, loc, input, pad, padHigh, lowest);
  SmallVector<OpFoldResult> inSizes = getSizes(rewriter, loc, input);
  SmallVector<OpFoldResult> outSizes{inSizes[0], inSizes[1]};
  for (int i = 0; i < 2; ++i)
    outSizes.push_back(windowOutputSize(rewriter, loc, inSizes[2 + i], kernel[i], stride[i],
                                        pad[i], padHigh[i], dil[i]));
  Value init = filledTensor(rewriter, loc, outSizes, elem, lowest);
  Value window = tensor::EmptyOp::create(rewriter, loc, kernel, elem);
  Value out = linalg::PoolingNchwMaxOp::create(rewriter, loc, init.getType(),
                                               ValueRange{padded, window}, ValueRange{init},
                                               i64Elements(rewriter, stride),
                                               i64Elements(rewriter, dil))
                  .getResult(0);
  if (unbatched)
    out = collapseBatch(rewriter, loc, out);
  if (out.getType() != resultType)
    out = tensor::CastOp::create(rewriter, loc, resultType, out);
  result = out;
  return success();
}

struct MaxPool2dLowering : OpConversionPattern<MaxPool2dOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(MaxPool2dOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value result;
    if (failed(lowerMaxPool(op, adaptor.getSelf(), op.getKernelSize(), op.getStride(),
                            op.getPadding(), op.getDilation(), op.getCeilMode(), op.getType(),
                            rewriter, result)))
      return failure();
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Adaptive average pooling where every window has the same size (input
/// divisible by output): a sum pool followed by a division.
struct AdaptiveAvgPool2dLowering : OpConversionPattern<AdaptiveAvgPool2dOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(AdaptiveAvgPool2dOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getSelf();
    bool unbatched = cast<RankedTensorType>(input.getType()).getRank() == 3;
    if (unbatched)
      input = expandBatch(rewriter, loc, input);
    auto inTy = cast<RankedTensorType>(input.getType());
    SmallVector<int64_t> kernel;
    for (int i = 0; i < 2; ++i) {
      int64_t in = inTy.getDimSize(2 + i), out = op.getOutputSize()[i];
      if (in == ShapedType::kDynamic || in % out != 0)
        return rewriter.notifyMatchFailure(
            op, "adaptive pooling with uneven windows is not lowered yet");
      kernel.push_back(in / out);
    }
    Type elem = inTy.getElementType();
    SmallVector<OpFoldResult> inSizes = getSizes(rewriter, loc, input);
    SmallVector<OpFoldResult> outSizes{inSizes[0], inSizes[1],
                                       rewriter.getIndexAttr(op.getOutputSize()[0]),
                                       rewriter.getIndexAttr(op.getOutputSize()[1])};
    Value init = filledTensor(rewriter, loc, outSizes, elem, 0.0);
    Value window = tensor::EmptyOp::create(rewriter, loc, kernel, elem);
    Value sum = linalg::PoolingNchwSumOp::create(rewriter, loc, init.getType(),
                                                 ValueRange{input, window}, ValueRange{init},
                                                 i64Elements(rewriter, kernel),
                                                 i64Elements(rewriter, {1, 1}))
                    .getResult(0);
    double count = (double)(kernel[0] * kernel[1]);
    Value out = elementwise(rewriter, loc, sum, cast<RankedTensorType>(sum.getType()),
                            [&](OpBuilder &b, Location l, ValueRange args) -> Value {
                              return arith::DivFOp::create(b, l, args[0],
                                                           scalarConstant(b, l, elem, count));
                            });
    if (unbatched)
      out = collapseBatch(rewriter, loc, out);
    if (out.getType() != op.getType())
      out = tensor::CastOp::create(rewriter, loc, op.getType(), out);
    rewriter.replaceOp(op, out);
    return success();
  }
};
} // namespace

void kiln::populatePoolingPatterns(RewritePatternSet &patterns) {
  patterns.add<MaxPool2dLowering, AdaptiveAvgPool2dLowering>(patterns.getContext());
}
