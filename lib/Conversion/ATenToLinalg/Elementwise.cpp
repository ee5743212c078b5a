//===- Elementwise.cpp - aten elementwise ops to linalg.generic -----------===//
#include "Utils.h"
#include "kiln/Conversion/ATenToLinalg.h"

#include <cmath>

using namespace mlir;
using namespace kiln::aten;
using namespace kiln::detail;

namespace {
struct ReluLowering : OpConversionPattern<ReluOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ReluOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Type elem = op.getType().getElementType();
    if (!elem.isIntOrFloat() || elem.isInteger(1))
      return rewriter.notifyMatchFailure(op, "relu needs a float or integer tensor");
    Value r = elementwise(rewriter, op.getLoc(), adaptor.getSelf(), op.getType(),
                          [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
                            Value zero = scalarConstant(b, loc, elem, 0.0);
                            if (isa<FloatType>(elem)) // NaN stays NaN, as in ATen
                              return arith::MaximumFOp::create(b, loc, args[0], zero);
                            return arith::MaxSIOp::create(b, loc, args[0], zero);
                          });
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct GeluLowering : OpConversionPattern<GeluOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(GeluOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Type elem = op.getType().getElementType();
    bool tanhForm = op.getApproximate() == "tanh";
    Value r = elementwise(
        rewriter, op.getLoc(), adaptor.getSelf(), op.getType(),
        [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
          Value x = args[0];
          auto c = [&](double v) { return scalarConstant(b, loc, elem, v); };
          Value inner;
          if (tanhForm) {
            // tanh(sqrt(2/pi) * (x + 0.044715 x^3))
            Value x3 = arith::MulFOp::create(b, loc, x, arith::MulFOp::create(b, loc, x, x));
            Value poly =
                arith::AddFOp::create(b, loc, x, arith::MulFOp::create(b, loc, c(0.044715), x3));
            inner = math::TanhOp::create(
                b, loc, arith::MulFOp::create(b, loc, c(std::sqrt(2.0 / M_PI)), poly));
          } else {
            // erf(x / sqrt(2))
            inner = math::ErfOp::create(b, loc,
                                        arith::MulFOp::create(b, loc, x, c(M_SQRT1_2)));
          }
          Value onePlus = arith::AddFOp::create(b, loc, c(1.0), inner);
          Value half = arith::MulFOp::create(b, loc, x, c(0.5));
          return arith::MulFOp::create(b, loc, half, onePlus);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};
/// Converts a scalar to `to` as ATen's type promotion does (bool and unsigned
/// values convert as unsigned).
Value convertScalar(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  auto fromF = dyn_cast<FloatType>(from), toF = dyn_cast<FloatType>(to);
  bool fromUnsigned = from.isInteger(1) || from.isUnsignedInteger();
  if (fromF && toF)
    return fromF.getWidth() < toF.getWidth() ? arith::ExtFOp::create(b, loc, to, v).getResult()
                                             : arith::TruncFOp::create(b, loc, to, v).getResult();
  if (!fromF && toF)
    return fromUnsigned ? arith::UIToFPOp::create(b, loc, to, v).getResult()
                        : arith::SIToFPOp::create(b, loc, to, v).getResult();
  if (fromF && !toF)
    return arith::FPToSIOp::create(b, loc, to, v);
  unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
  if (fw < tw)
    return fromUnsigned ? arith::ExtUIOp::create(b, loc, to, v).getResult()
                        : arith::ExtSIOp::create(b, loc, to, v).getResult();
  if (fw > tw)
    return arith::TruncIOp::create(b, loc, to, v);
  return arith::BitcastOp::create(b, loc, to, v); // same width, other signedness
}

/// result = f(convert(self), convert(other)) with numpy broadcasting.
template <typename OpT>
struct BinaryLowering : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  using Adaptor = typename OpConversionPattern<OpT>::OpAdaptor;

  LogicalResult matchAndRewrite(OpT op, Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultTy = cast<RankedTensorType>(op.getType());
    Type elem = resultTy.getElementType();
    int64_t rank = resultTy.getRank();
    SmallVector<Value> operands{adaptor.getSelf(), adaptor.getOther()};
    MLIRContext *ctx = rewriter.getContext();
    // Each result dim comes from an operand that is not (statically) 1 there.
    SmallVector<OpFoldResult> sizes;
    for (int64_t i = 0; i < rank; ++i) {
      OpFoldResult size = rewriter.getIndexAttr(1);
      for (Value v : operands) {
        auto t = cast<RankedTensorType>(v.getType());
        int64_t d = i - (rank - t.getRank());
        if (d >= 0 && t.getDimSize(d) != 1) {
          size = tensor::getMixedSize(rewriter, loc, v, d);
          break;
        }
      }
      sizes.push_back(size);
    }
    SmallVector<AffineMap> maps;
    for (Value v : operands) {
      auto t = cast<RankedTensorType>(v.getType());
      SmallVector<AffineExpr> exprs;
      for (int64_t d = 0; d < t.getRank(); ++d) {
        int64_t outDim = rank - t.getRank() + d;
        bool stretched = t.getDimSize(d) == 1 &&
                         getConstantIntValue(sizes[outDim]) != std::optional<int64_t>(1);
        exprs.push_back(stretched ? rewriter.getAffineConstantExpr(0)
                                  : rewriter.getAffineDimExpr(outDim));
      }
      maps.push_back(AffineMap::get(rank, 0, exprs, ctx));
    }
    maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
    Value init = emptyTensor(rewriter, loc, sizes, elem);
    SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
    Value out = linalg::GenericOp::create(
                    rewriter, loc, init.getType(), operands, ValueRange{init}, maps, iters,
                    [&](OpBuilder &b, Location l, ValueRange args) {
                      Value x = convertScalar(b, l, args[0], elem);
                      Value y = convertScalar(b, l, args[1], elem);
                      linalg::YieldOp::create(b, l, ValueRange{compute(op, b, l, x, y)});
                    })
                    .getResult(0);
    out = castTo(rewriter, loc, out, resultTy);
    rewriter.replaceOp(op, out);
    return success();
  }

  static Value scaled(OpBuilder &b, Location l, Value y, double alpha) {
    if (alpha == 1.0)
      return y;
    return isa<FloatType>(y.getType())
               ? arith::MulFOp::create(b, l, y, scalarConstant(b, l, y.getType(), alpha))
                     .getResult()
               : arith::MulIOp::create(b, l, y, scalarConstant(b, l, y.getType(), alpha))
                     .getResult();
  }
  static Value compute(AddTensorOp op, OpBuilder &b, Location l, Value x, Value y) {
    y = scaled(b, l, y, op.getAlpha().convertToDouble());
    return isa<FloatType>(x.getType()) ? arith::AddFOp::create(b, l, x, y).getResult()
                                       : arith::AddIOp::create(b, l, x, y).getResult();
  }
  static Value compute(SubTensorOp op, OpBuilder &b, Location l, Value x, Value y) {
    y = scaled(b, l, y, op.getAlpha().convertToDouble());
    return isa<FloatType>(x.getType()) ? arith::SubFOp::create(b, l, x, y).getResult()
                                       : arith::SubIOp::create(b, l, x, y).getResult();
  }
  static Value compute(MulTensorOp, OpBuilder &b, Location l, Value x, Value y) {
    return isa<FloatType>(x.getType()) ? arith::MulFOp::create(b, l, x, y).getResult()
                                       : arith::MulIOp::create(b, l, x, y).getResult();
  }
  static Value compute(DivTensorOp, OpBuilder &b, Location l, Value x, Value y) {
    return arith::DivFOp::create(b, l, x, y);
  }
};
} // namespace

void kiln::populateElementwisePatterns(RewritePatternSet &patterns) {
  patterns.add<ReluLowering, GeluLowering, BinaryLowering<AddTensorOp>,
               BinaryLowering<SubTensorOp>, BinaryLowering<MulTensorOp>,
               BinaryLowering<DivTensorOp>>(patterns.getContext());
}
