//===- Convolution.cpp - aten.convolution to linalg conv ops --------------===//
#include "Utils.h"
#include "kiln/Conversion/ATenToLinalg.h"

using namespace mlir;
using namespace kiln::aten;
using namespace kiln::detail;

namespace {
struct ConvolutionLowering : OpConversionPattern<ConvolutionOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ConvolutionOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (op.getTransposed())
      return rewriter.notifyMatchFailure(op, "transposed convolution is not lowered yet");
    Location loc = op.getLoc();
    Value input = adaptor.getInput(), weight = adaptor.getWeight();
    bool unbatched = cast<RankedTensorType>(input.getType()).getRank() == 3;
    if (unbatched)
      input = expandBatch(rewriter, loc, input);
    auto wTy = cast<RankedTensorType>(weight.getType());
    Type elem = wTy.getElementType();
    int64_t groups = op.getGroups();
    ArrayRef<int64_t> stride = op.getStride(), pad = op.getPadding(), dil = op.getDilation();
    if (wTy.isDynamicDim(2) || wTy.isDynamicDim(3))
      return rewriter.notifyMatchFailure(op, "kernel size must be static");

    Value padded = padSpatial(rewriter, loc, input, pad, pad, 0.0);
    SmallVector<OpFoldResult> inSizes = getSizes(rewriter, loc, input);
    OpFoldResult outC = tensor::getMixedSize(rewriter, loc, weight, 0);
    SmallVector<OpFoldResult> outSizes{inSizes[0], outC};
    for (int i = 0; i < 2; ++i)
      outSizes.push_back(windowOutputSize(rewriter, loc, inSizes[2 + i], wTy.getDimSize(2 + i),
                                          stride[i], pad[i], pad[i], dil[i]));
    Value init = adaptor.getBias()
                     ? broadcastAlongDim(rewriter, loc, adaptor.getBias(), outSizes, 1)
                     : filledTensor(rewriter, loc, outSizes, elem, 0.0);
    auto strides = i64Elements(rewriter, stride), dilations = i64Elements(rewriter, dil);

    Value out;
    if (groups == 1) {
      out = linalg::Conv2DNchwFchwOp::create(rewriter, loc, init.getType(),
                                             ValueRange{padded, weight}, ValueRange{init},
                                             strides, dilations)
                .getResult(0);
    } else {
      // [N, C, H, W] -> [N, G, C/G, H, W]; [F, C/G, kh, kw] -> [G, F/G, C/G, kh, kw].
      auto split = [&](Value v, int64_t dim) -> Value {
        auto ty = cast<RankedTensorType>(v.getType());
        SmallVector<int64_t> shape;
        SmallVector<ReassociationIndices> reassoc;
        SmallVector<OpFoldResult> sizes = getSizes(rewriter, loc, v), newSizes;
        for (int64_t i = 0, j = 0; i < ty.getRank(); ++i) {
          if (i == dim) {
            int64_t d = ty.getDimSize(i);
            shape.append({groups, d == ShapedType::kDynamic ? d : d / groups});
            reassoc.push_back({j, j + 1});
            newSizes.push_back(rewriter.getIndexAttr(groups));
            newSizes.push_back(affine::makeComposedFoldedAffineApply(
                rewriter, loc, rewriter.getAffineSymbolExpr(0).floorDiv(groups), {sizes[i]}));
            j += 2;
          } else {
            shape.push_back(ty.getDimSize(i));
            reassoc.push_back({j++});
            newSizes.push_back(sizes[i]);
          }
        }
        return tensor::ExpandShapeOp::create(
            rewriter, loc, RankedTensorType::get(shape, ty.getElementType()), v, reassoc,
            newSizes);
      };
      Value gIn = split(padded, 1), gW = split(weight, 0), gInit = split(init, 1);
      Value gOut = linalg::Conv2DNgchwGfchwOp::create(rewriter, loc, gInit.getType(),
                                                      ValueRange{gIn, gW}, ValueRange{gInit},
                                                      strides, dilations)
                       .getResult(0);
      auto initTy = cast<RankedTensorType>(init.getType());
      out = tensor::CollapseShapeOp::create(rewriter, loc, initTy, gOut,
                                            SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}});
    }
    rewriter.replaceOp(op, finishSpatial(rewriter, loc, out, op.getType(), unbatched));
    return success();
  }
};
} // namespace

void kiln::populateConvolutionPatterns(RewritePatternSet &patterns) {
  patterns.add<ConvolutionLowering>(patterns.getContext());
}
