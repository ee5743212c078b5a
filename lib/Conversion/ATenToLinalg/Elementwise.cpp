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
} // namespace

void kiln::populateElementwisePatterns(RewritePatternSet &patterns) {
  patterns.add<ReluLowering, GeluLowering>(patterns.getContext());
}
