//===- Random.cpp - aten.random to a Philox4x32-10 linalg.generic ---------===//
//
// Each element is one evaluation of the Philox4x32-10 counter-based
// generator (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3"),
// written with arith ops in a linalg.generic body, so the CPU and GPU
// pipelines compile the same loop: key = the 64-bit seed, counter = (element
// index low, element index high 16 bits | stream << 16, offset low, offset
// high). Uniform numbers take the top mantissa-width bits of the first word
// (53 bits of two words for float64); normal ones are Box-Muller of two
// uniforms.
//
//===----------------------------------------------------------------------===//
#include "Utils.h"
#include "ATen/IR/ATenRandomOps.h"
#include "kiln/Conversion/ATenToLinalg.h"

#include "llvm/Support/MathExtras.h"

#include <array>
#include <cmath>

using namespace mlir;
using namespace kiln::aten;
using namespace kiln::detail;

namespace {

constexpr uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
constexpr uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;

Value i32c(OpBuilder &b, Location loc, uint32_t v) {
  return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr((int32_t)v));
}
Value i64c(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v));
}
Value lo32(OpBuilder &b, Location loc, Value v64) { return arith::TruncIOp::create(b, loc, b.getI32Type(), v64); }
Value hi32(OpBuilder &b, Location loc, Value v64) {
  return lo32(b, loc, arith::ShRUIOp::create(b, loc, v64, i64c(b, loc, 32)));
}

/// Philox4x32-10 of counter `c` under key `k`: four 32-bit words.
std::array<Value, 4> philox(OpBuilder &b, Location loc, std::array<Value, 4> c, std::array<Value, 2> k) {
  Value m0 = i32c(b, loc, kMul0), m1 = i32c(b, loc, kMul1);
  Value w0 = i32c(b, loc, kWeyl0), w1 = i32c(b, loc, kWeyl1);
  for (int round = 0; round < 10; ++round) {
    auto p0 = arith::MulUIExtendedOp::create(b, loc, m0, c[0]);
    auto p1 = arith::MulUIExtendedOp::create(b, loc, m1, c[2]);
    Value n0 = arith::XOrIOp::create(b, loc, arith::XOrIOp::create(b, loc, p1.getHigh(), c[1]), k[0]);
    Value n2 = arith::XOrIOp::create(b, loc, arith::XOrIOp::create(b, loc, p0.getHigh(), c[3]), k[1]);
    c = {n0, p1.getLow(), n2, p0.getLow()};
    if (round < 9) {
      k[0] = arith::AddIOp::create(b, loc, k[0], w0);
      k[1] = arith::AddIOp::create(b, loc, k[1], w1);
    }
  }
  return c;
}

/// A uniform number in [0, 1) of float type `ft` from `bits` random bits of
/// word `w` (the top ones), or of two words for float64; `open` adds half a
/// step, giving (0, 1).
Value uniform(OpBuilder &b, Location loc, FloatType ft, Value w, Value w2, bool open) {
  if (ft.getWidth() == 64) {
    Value hi = arith::ExtUIOp::create(b, loc, b.getI64Type(), w);
    Value lo = arith::ExtUIOp::create(b, loc, b.getI64Type(), w2);
    Value both = arith::OrIOp::create(b, loc, arith::ShLIOp::create(b, loc, hi, i64c(b, loc, 32)), lo);
    Value bits = arith::ShRUIOp::create(b, loc, both, i64c(b, loc, 11));
    Value f = arith::UIToFPOp::create(b, loc, ft, bits);
    if (open)
      f = arith::AddFOp::create(b, loc, f, arith::ConstantOp::create(b, loc, b.getFloatAttr(ft, 0.5)));
    return arith::MulFOp::create(b, loc, f, arith::ConstantOp::create(b, loc, b.getFloatAttr(ft, 0x1p-53)));
  }
  // float32 (24 bits), float16 (11), bfloat16 (8): exact in the type.
  unsigned mant = ft.getFPMantissaWidth();
  Value bits = arith::ShRUIOp::create(b, loc, w, i32c(b, loc, 32 - mant));
  FloatType f32 = b.getF32Type();
  Value f = arith::UIToFPOp::create(b, loc, f32, bits);
  if (open)
    f = arith::AddFOp::create(b, loc, f, arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.5f)));
  return arith::MulFOp::create(b, loc, f,
                               arith::ConstantOp::create(b, loc, b.getF32FloatAttr(std::ldexp(1.0f, -(int)mant))));
}

struct RandomLowering : OpConversionPattern<RandomOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(RandomOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto rty = cast<RankedTensorType>(op.getType());
    auto ft = dyn_cast<FloatType>(rty.getElementType());
    if (!ft)
      return rewriter.notifyMatchFailure(op, "result is not a float tensor");
    int64_t rank = rty.getRank();
    SmallVector<OpFoldResult> sizes;
    unsigned next = 0;
    for (int64_t s : op.getStaticSizes())
      sizes.push_back(ShapedType::isDynamic(s) ? OpFoldResult(adaptor.getSizes()[next++])
                                               : OpFoldResult(rewriter.getIndexAttr(s)));
    // Row-major strides of the result, as i64 values the body reads.
    SmallVector<Value> strides(rank);
    Value stride = i64c(rewriter, loc, 1);
    for (int64_t d = rank - 1; d >= 0; --d) {
      strides[d] = stride;
      Value size = arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(),
                                              getValueOrCreateConstantIndexOp(rewriter, loc, sizes[d]));
      stride = arith::MulIOp::create(rewriter, loc, stride, size);
    }
    // The seed and the offset as 0-d tensors read by every element.
    auto scalarTy = RankedTensorType::get({}, rewriter.getI64Type());
    auto word = [&](int64_t i) -> Value {
      return tensor::ExtractSliceOp::create(rewriter, loc, scalarTy, adaptor.getState(),
                                            ArrayRef<OpFoldResult>{rewriter.getIndexAttr(i)},
                                            ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1)},
                                            ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1)});
    };
    Value seed = word(0), offset = word(1);
    Value init = emptyTensor(rewriter, loc, sizes, storageType(ft));
    MLIRContext *ctx = rewriter.getContext();
    AffineMap scalarMap = AffineMap::get(rank, 0, {}, ctx);
    SmallVector<AffineMap> maps{scalarMap, scalarMap, AffineMap::getMultiDimIdentityMap(rank, ctx)};
    SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
    bool normal = op.getDistribution() == "normal";
    uint32_t stream = (uint32_t)op.getStream();
    Value out =
        linalg::GenericOp::create(
            rewriter, loc, init.getType(), ValueRange{seed, offset}, ValueRange{init}, maps, iters,
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value index = i64c(b, l, 0);
              for (int64_t d = 0; d < rank; ++d) {
                Value i = arith::IndexCastOp::create(b, l, b.getI64Type(), linalg::IndexOp::create(b, l, d));
                index = arith::AddIOp::create(b, l, index, arith::MulIOp::create(b, l, i, strides[d]));
              }
              Value hiIndex = arith::AndIOp::create(b, l, hi32(b, l, index), i32c(b, l, 0xffff));
              Value c1 = arith::OrIOp::create(b, l, hiIndex, i32c(b, l, stream << 16));
              std::array<Value, 4> r = philox(b, l, {lo32(b, l, index), c1, lo32(b, l, args[1]), hi32(b, l, args[1])},
                                              {lo32(b, l, args[0]), hi32(b, l, args[0])});
              Value v;
              if (!normal) {
                v = uniform(b, l, ft, r[0], r[1], false);
              } else {
                // Box-Muller: sqrt(-2 ln u1) cos(2 pi u2), u1 in (0, 1).
                FloatType ct = ft.getWidth() == 64 ? ft : b.getF32Type();
                Value u1 = uniform(b, l, ft, r[0], r[1], true);
                Value u2 = uniform(b, l, ft, r[2], r[3], false);
                Value lg = math::LogOp::create(b, l, u1);
                Value rad = math::SqrtOp::create(
                    b, l, arith::MulFOp::create(b, l, lg, arith::ConstantOp::create(b, l, b.getFloatAttr(ct, -2.0))));
                Value ang = arith::MulFOp::create(b, l, u2,
                                                  arith::ConstantOp::create(b, l, b.getFloatAttr(ct, 2 * llvm::numbers::pi)));
                v = arith::MulFOp::create(b, l, rad, math::CosOp::create(b, l, ang));
              }
              if (v.getType() != ft)
                v = arith::TruncFOp::create(b, l, ft, v);
              linalg::YieldOp::create(b, l, fromStorage(b, l, v, ft));
            })
            .getResult(0);
    rewriter.replaceOp(op, castTo(rewriter, loc, out, rty));
    return success();
  }
};

} // namespace

namespace kiln {
void populateRandomPatterns(RewritePatternSet &patterns);
} // namespace kiln

void kiln::populateRandomPatterns(RewritePatternSet &patterns) {
  patterns.add<RandomLowering>(patterns.getContext());
}
