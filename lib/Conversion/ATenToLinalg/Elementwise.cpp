//===- Elementwise.cpp - aten elementwise ops to linalg.generic -----------===//
//
// One pattern serves every elementwise op: its operands broadcast into one
// linalg.generic whose body converts each element to the op's computation
// dtype (computing float16/bfloat16 in float32, as ATen's CPU kernels do),
// applies the op's scalar function from the table at the end of this file,
// and converts the value to the result dtype.
//
//===----------------------------------------------------------------------===//
#include "Utils.h"
#include "ATen/IR/ATenTypePromotion.h"
#include "kiln/Conversion/ATenToLinalg.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/APFloat.h"

#include <cmath>
#include <functional>

using namespace mlir;
using namespace kiln::aten;
using namespace kiln::detail;

namespace {

/// Which dtype an op computes in.
enum class Compute {
  Result,   // the result dtype (arithmetic, int-to-float math)
  Promoted, // torch.result_type of the operands (comparisons, predicates)
};

enum class Cmp { EQ, NE, LT, LE, GT, GE };

template <typename T> struct OpTag { using type = T; };

/// What an op's scalar function works with: a builder inside the generic
/// body, the computation dtype `dt` and the type `ct` the body computes in
/// (float32 for 16-bit floats, signless storage for integers).
struct EW {
  OpBuilder &b;
  Location loc;
  Operation *op;
  Type dt, ct;
  ArrayRef<Type> dtypes; // operand dtypes
  ValueRange tensors;    // operand tensors (to spot constant operands)

  bool isFloat() const { return isa<FloatType>(ct); }
  bool isUnsigned() const { return isUnsignedDType(dt); }
  unsigned width() const { return ct.getIntOrFloatBitWidth(); }
  Value c(double v) const { return scalarConstant(b, loc, ct, v); }
  Value ci(const APInt &v) const {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(ct, v));
  }
  Value ci(int64_t v) const { return ci(APInt(width(), v, /*isSigned=*/true)); }
  Value f(double v, Type t) const { return scalarConstant(b, loc, t, v); }

  Value add(Value x, Value y) const {
    if (isFloat())
      return arith::AddFOp::create(b, loc, x, y);
    if (ct.isInteger(1)) // bool + bool is "or"
      return arith::OrIOp::create(b, loc, x, y);
    return arith::AddIOp::create(b, loc, x, y);
  }
  Value sub(Value x, Value y) const {
    return isFloat() ? arith::SubFOp::create(b, loc, x, y).getResult()
                     : arith::SubIOp::create(b, loc, x, y).getResult();
  }
  Value mul(Value x, Value y) const {
    return isFloat() ? arith::MulFOp::create(b, loc, x, y).getResult()
                     : arith::MulIOp::create(b, loc, x, y).getResult();
  }
  Value div(Value x, Value y) const { return arith::DivFOp::create(b, loc, x, y); }
  Value neg(Value x) const {
    return isFloat() ? arith::NegFOp::create(b, loc, x).getResult() : sub(ci(0), x);
  }
  Value sel(Value c, Value x, Value y) const { return arith::SelectOp::create(b, loc, c, x, y); }
  Value andI(Value x, Value y) const { return arith::AndIOp::create(b, loc, x, y); }
  Value orI(Value x, Value y) const { return arith::OrIOp::create(b, loc, x, y); }
  Value xorI(Value x, Value y) const { return arith::XOrIOp::create(b, loc, x, y); }
  Value cmp(Cmp p, Value x, Value y) const {
    if (isa<FloatType>(x.getType())) {
      static const arith::CmpFPredicate fp[] = {
          arith::CmpFPredicate::OEQ, arith::CmpFPredicate::UNE, arith::CmpFPredicate::OLT,
          arith::CmpFPredicate::OLE, arith::CmpFPredicate::OGT, arith::CmpFPredicate::OGE};
      return arith::CmpFOp::create(b, loc, fp[(int)p], x, y);
    }
    using P = arith::CmpIPredicate;
    static const P sp[] = {P::eq, P::ne, P::slt, P::sle, P::sgt, P::sge};
    static const P up[] = {P::eq, P::ne, P::ult, P::ule, P::ugt, P::uge};
    return arith::CmpIOp::create(b, loc, (isUnsigned() ? up : sp)[(int)p], x, y);
  }
  /// Nonzero test (NaN counts as true).
  Value truthy(Value x) const {
    if (x.getType().isInteger(1))
      return x;
    if (isa<FloatType>(x.getType()))
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x, f(0, x.getType()));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x, f(0, x.getType()));
  }
  /// NaN-propagating maximum/minimum.
  Value max(Value x, Value y) const {
    if (isFloat())
      return arith::MaximumFOp::create(b, loc, x, y);
    return isUnsigned() ? arith::MaxUIOp::create(b, loc, x, y).getResult()
                        : arith::MaxSIOp::create(b, loc, x, y).getResult();
  }
  Value min(Value x, Value y) const {
    if (isFloat())
      return arith::MinimumFOp::create(b, loc, x, y);
    return isUnsigned() ? arith::MinUIOp::create(b, loc, x, y).getResult()
                        : arith::MinSIOp::create(b, loc, x, y).getResult();
  }
  Value isnan(Value x) const {
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
  }
  Value falseV() const { return arith::ConstantOp::create(b, loc, b.getBoolAttr(false)); }
  Value trueV() const { return arith::ConstantOp::create(b, loc, b.getBoolAttr(true)); }
  template <typename MathOp> Value m(Value x) const { return MathOp::create(b, loc, x); }
  /// The value of operand `i` if it is a splat constant.
  std::optional<double> constantOperand(unsigned i) const {
    DenseElementsAttr attr;
    if (i >= tensors.size() || !matchPattern(tensors[i], m_Constant(&attr)) || !attr.isSplat())
      return std::nullopt;
    if (auto fa = dyn_cast<FloatType>(attr.getElementType()))
      return attr.getSplatValue<APFloat>().convertToDouble();
    if (isa<IntegerType>(attr.getElementType()))
      return (double)attr.getSplatValue<APInt>().getSExtValue();
    return std::nullopt;
  }
};

using Body = std::function<Value(EW &, ValueRange)>;

/// How one op lowers: its computation dtype, which operands reach the body
/// unconverted (bit i of `rawMask`: operand i in its own dtype's storage), and
/// its scalar function. The function returns a value of the computation type
/// (or i1 for a bool result); with `returnsResult` it returns the result
/// element's storage itself.
struct Spec {
  Compute compute = Compute::Result;
  unsigned rawMask = 0;
  bool returnsResult = false;
  Body body;
};

struct ElementwiseLowering : ConversionPattern {
  ElementwiseLowering(StringRef name, MLIRContext *ctx, Spec spec)
      : ConversionPattern(name, /*benefit=*/1, ctx), spec(std::move(spec)) {}

  LogicalResult matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op->getLoc();
    auto resultTy = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!resultTy)
      return rewriter.notifyMatchFailure(op, "result is not a ranked tensor");
    Type rdt = resultTy.getElementType();
    SmallVector<Type> dtypes;
    SmallVector<Value> promoted;
    for (auto [i, v] : llvm::enumerate(operands)) {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      if (!t || !isDType(t.getElementType()))
        return rewriter.notifyMatchFailure(op, "operand is not a tensor of an ATen dtype");
      dtypes.push_back(t.getElementType());
      if (!(spec.rawMask & (1u << i)))
        promoted.push_back(v);
    }
    if (!isDType(rdt))
      return rewriter.notifyMatchFailure(op, "result element type is not an ATen dtype");
    Type dt = spec.compute == Compute::Result ? rdt : resultTypeOf(promoted);
    Type ct = isa<FloatType>(dt) && dt.getIntOrFloatBitWidth() == 16 ? rewriter.getF32Type()
                                                                     : storageType(dt);
    Value r = broadcastGeneric(
        rewriter, loc, operands, resultTy, [&](OpBuilder &b, Location l, ValueRange args) {
          SmallVector<Value> xs;
          for (auto [i, a] : llvm::enumerate(args)) {
            Value s = toStorage(b, l, a);
            if (!(spec.rawMask & (1u << i))) {
              s = convertElement(b, l, s, dtypes[i], dt);
              if (ct != storageType(dt))
                s = arith::ExtFOp::create(b, l, ct, s);
            }
            xs.push_back(s);
          }
          EW e{b, l, op, dt, ct, dtypes, ValueRange(operands)};
          Value v = spec.body(e, xs);
          if (!spec.returnsResult && !(v.getType().isInteger(1) && rdt.isInteger(1))) {
            if (ct != storageType(dt))
              v = arith::TruncFOp::create(b, l, dt, v);
            v = convertElement(b, l, v, dt, rdt);
          }
          return fromStorage(b, l, v, rdt);
        });
    rewriter.replaceOp(op, r);
    return success();
  }

  Spec spec;
};

//===----------------------------------------------------------------------===//
// Scalar functions shared by several ops
//===----------------------------------------------------------------------===//

/// Integer division rounding toward zero that never traps: a zero divisor
/// gives 0 (PyTorch raises ZeroDivisionError) and the lowest value / -1 wraps.
Value intDivTrunc(EW &e, Value x, Value y) {
  Value zero = e.cmp(Cmp::EQ, y, e.ci(0));
  if (e.isUnsigned()) {
    Value q = arith::DivUIOp::create(e.b, e.loc, x, e.sel(zero, e.ci(1), y));
    return e.sel(zero, e.ci(0), q);
  }
  Value minus1 = e.cmp(Cmp::EQ, y, e.ci(-1));
  Value safe = e.sel(e.orI(zero, minus1), e.ci(1), y);
  Value q = arith::DivSIOp::create(e.b, e.loc, x, safe);
  q = e.sel(minus1, e.neg(x), q);
  return e.sel(zero, e.ci(0), q);
}

/// Integer remainder with the sign of the dividend (C's %); 0 for a zero divisor.
Value intRem(EW &e, Value x, Value y) {
  if (e.isUnsigned()) {
    Value zero = e.cmp(Cmp::EQ, y, e.ci(0));
    Value r = arith::RemUIOp::create(e.b, e.loc, x, e.sel(zero, e.ci(1), y));
    return e.sel(zero, e.ci(0), r);
  }
  // Divisors 0 and -1 give 0 (and -1 would trap on the lowest value).
  Value bad = e.orI(e.cmp(Cmp::EQ, y, e.ci(0)), e.cmp(Cmp::EQ, y, e.ci(-1)));
  return arith::RemSIOp::create(e.b, e.loc, x, e.sel(bad, e.ci(1), y));
}

/// True where remainder `r` and divisor `y` have different signs and r != 0.
Value signsDiffer(EW &e, Value r, Value y) {
  Value zero = e.isFloat() ? e.c(0) : e.ci(0);
  Value nonzero = e.cmp(Cmp::NE, r, zero);
  return e.andI(nonzero, e.xorI(e.cmp(Cmp::LT, r, zero), e.cmp(Cmp::LT, y, zero)));
}

Value intDivFloor(EW &e, Value x, Value y) {
  Value q = intDivTrunc(e, x, y);
  if (e.isUnsigned())
    return q;
  Value r = intRem(e, x, y);
  return e.sel(signsDiffer(e, r, y), e.sub(q, e.ci(1)), q);
}

/// Python's floor division on floats: computed from fmod so that the quotient
/// is exact where it can be, then rounded to the nearest integer below.
Value floatDivFloor(EW &e, Value x, Value y) {
  Value mod = arith::RemFOp::create(e.b, e.loc, x, y);
  Value div = e.div(e.sub(x, mod), y);
  div = e.sel(signsDiffer(e, mod, y), e.sub(div, e.c(1)), div);
  Value fl = e.m<math::FloorOp>(div);
  fl = e.sel(e.cmp(Cmp::GT, e.sub(div, fl), e.c(0.5)), e.add(fl, e.c(1)), fl);
  Value quotient = e.div(x, y);
  Value signedZero = math::CopySignOp::create(e.b, e.loc, e.c(0), quotient);
  Value res = e.sel(e.cmp(Cmp::NE, div, e.c(0)), fl, signedZero);
  return e.sel(e.cmp(Cmp::EQ, y, e.c(0)), quotient, res);
}

/// Integer power by squaring; negative exponents give 0 except for bases 1
/// and -1, as ATen's integer pow does.
Value intPow(EW &e, Value base, Value exp) {
  unsigned w = e.width();
  unsigned bits = e.isUnsigned() ? w : w - 1;
  Value result = e.ci(1), sq = base;
  for (unsigned i = 0; i < bits; ++i) {
    Value bit = e.andI(arith::ShRUIOp::create(e.b, e.loc, exp, e.ci(i)), e.ci(1));
    result = e.sel(e.cmp(Cmp::NE, bit, e.ci(0)), e.mul(result, sq), result);
    if (i + 1 < bits)
      sq = e.mul(sq, sq);
  }
  if (e.isUnsigned())
    return result;
  Value odd = e.cmp(Cmp::NE, e.andI(exp, e.ci(1)), e.ci(0));
  Value negResult =
      e.sel(e.cmp(Cmp::EQ, base, e.ci(1)), e.ci(1),
            e.sel(e.cmp(Cmp::EQ, base, e.ci(-1)), e.sel(odd, e.ci(-1), e.ci(1)), e.ci(0)));
  return e.sel(e.cmp(Cmp::LT, exp, e.ci(0)), negResult, result);
}

Value floatPow(EW &e, Value x, Value y) {
  // ATen's kernel special-cases these exponents; match its rounding.
  if (std::optional<double> p = e.constantOperand(1)) {
    if (*p == 2)
      return e.mul(x, x);
    if (*p == 3)
      return e.mul(e.mul(x, x), x);
    // (Its float16 kernel keeps pow for +-0.5: pow(-inf, 0.5) is inf, not NaN.)
    if (*p == 0.5 && !e.dt.isF16())
      return e.m<math::SqrtOp>(x);
    if (*p == -0.5 && !e.dt.isF16())
      return e.div(e.c(1), e.m<math::SqrtOp>(x));
    if (*p == -1)
      return e.div(e.c(1), x);
    if (*p == -2)
      return e.div(e.c(1), e.mul(x, x));
  }
  return math::PowFOp::create(e.b, e.loc, x, y);
}

/// erfinv by Newton's method from Winitzki's closed-form estimate, in float64;
/// near +-1 the residual is taken through erfc, where it is exact.
Value erfinv(EW &e, Value x) {
  OpBuilder &b = e.b;
  Location l = e.loc;
  Type f64 = b.getF64Type();
  Value x64 = e.ct == f64 ? x : arith::ExtFOp::create(b, l, f64, x).getResult();
  auto c = [&](double v) { return e.f(v, f64); };
  auto sub = [&](Value p, Value q) { return arith::SubFOp::create(b, l, p, q).getResult(); };
  auto mul = [&](Value p, Value q) { return arith::MulFOp::create(b, l, p, q).getResult(); };
  auto add = [&](Value p, Value q) { return arith::AddFOp::create(b, l, p, q).getResult(); };
  auto div = [&](Value p, Value q) { return arith::DivFOp::create(b, l, p, q).getResult(); };
  Value a = math::AbsFOp::create(b, l, x64);
  Value oneMinus = sub(c(1), a);
  Value ln = math::LogOp::create(b, l, mul(oneMinus, add(c(1), a)));
  const double k = 0.147;
  Value t = add(c(2 / (M_PI * k)), mul(ln, c(0.5)));
  Value y = math::SqrtOp::create(
      b, l, sub(math::SqrtOp::create(b, l, sub(mul(t, t), div(ln, c(k)))), t));
  Value nearOne = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, a, c(0.5));
  for (int i = 0; i < 4; ++i) {
    Value r = arith::SelectOp::create(b, l, nearOne,
                                      sub(oneMinus, math::ErfcOp::create(b, l, y)),
                                      sub(math::ErfOp::create(b, l, y), a));
    Value slope = mul(c(2 / std::sqrt(M_PI)), math::ExpOp::create(b, l, mul(mul(y, y), c(-1))));
    y = sub(y, div(r, slope));
  }
  Value inf = c(INFINITY);
  y = arith::SelectOp::create(
      b, l, arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, a, c(1)), inf, y);
  y = arith::SelectOp::create(
      b, l, arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, a, c(1)), c(NAN), y);
  y = math::CopySignOp::create(b, l, y, x64);
  return e.ct == f64 ? y : arith::TruncFOp::create(b, l, e.ct, y).getResult();
}

/// hypot without overflow: float32 and narrower through float64, float64 by
/// scaling with the larger magnitude.
Value hypot(EW &e, Value x, Value y) {
  OpBuilder &b = e.b;
  Location l = e.loc;
  Type f64 = b.getF64Type();
  if (e.ct != f64) {
    Value x64 = arith::ExtFOp::create(b, l, f64, x), y64 = arith::ExtFOp::create(b, l, f64, y);
    Value s = arith::AddFOp::create(b, l, arith::MulFOp::create(b, l, x64, x64),
                                    arith::MulFOp::create(b, l, y64, y64));
    return arith::TruncFOp::create(b, l, e.ct, math::SqrtOp::create(b, l, s));
  }
  Value ax = e.m<math::AbsFOp>(x), ay = e.m<math::AbsFOp>(y);
  Value hi = e.max(ax, ay), lo = e.min(ax, ay);
  Value q = e.div(lo, hi);
  Value r = e.mul(hi, e.m<math::SqrtOp>(e.add(e.c(1), e.mul(q, q))));
  r = e.sel(e.cmp(Cmp::EQ, hi, e.c(0)), e.c(0), r);
  Value anyInf = e.orI(e.cmp(Cmp::EQ, ax, e.c(INFINITY)), e.cmp(Cmp::EQ, ay, e.c(INFINITY)));
  return e.sel(anyInf, e.c(INFINITY), r);
}

/// `v` rounded to float dtype `t` (16-bit floats through float32).
double roundTo(Type t, double v) {
  bool lost;
  APFloat a(v);
  if (t.getIntOrFloatBitWidth() == 16)
    a.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &lost);
  a.convert(cast<FloatType>(t).getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
  return a.convertToDouble();
}

/// The largest finite value of float dtype `t`.
double largestFinite(Type t) {
  return APFloat::getLargest(cast<FloatType>(t).getFloatSemantics()).convertToDouble();
}

//===----------------------------------------------------------------------===//
// The table
//===----------------------------------------------------------------------===//

struct Table {
  RewritePatternSet &patterns;
  template <typename OpT> void add(Spec spec) {
    patterns.add<ElementwiseLowering>(OpT::getOperationName(), patterns.getContext(),
                                      std::move(spec));
  }
  /// Same computation dtype as the result; `fn` maps converted operands.
  template <typename OpT> void result(Body fn) { add<OpT>({Compute::Result, 0, false, fn}); }
  /// Computes in the promoted operand dtype (the result is bool).
  template <typename OpT> void promoted(Body fn) { add<OpT>({Compute::Promoted, 0, false, fn}); }
  /// A float-only function of one operand (integers pass through if `intFn` is null).
  template <typename OpT, typename MathOp> void math() {
    result<OpT>([](EW &e, ValueRange x) { return e.m<MathOp>(x[0]); });
  }
  /// Floats round with `MathOp`; integers are already whole.
  template <typename OpT, typename MathOp> void rounding() {
    result<OpT>([](EW &e, ValueRange x) { return e.isFloat() ? e.m<MathOp>(x[0]) : x[0]; });
  }
};

template <typename OpT> OpT as(EW &e) { return cast<OpT>(e.op); }

void addUnary(Table &t) {
  t.result<AbsOp>([](EW &e, ValueRange x) -> Value {
    if (e.isFloat())
      return e.m<math::AbsFOp>(x[0]);
    if (e.isUnsigned())
      return x[0];
    // x < 0 ? 0 - x : x in arith (wrapping at the minimum, as ATen does):
    // math.absi has no lowering in the GPU kernel pipelines, and LLVM turns
    // this back into its abs intrinsic on the CPU.
    Value zero = e.ci(0);
    return e.sel(e.cmp(Cmp::LT, x[0], zero), arith::SubIOp::create(e.b, e.loc, zero, x[0]), x[0]);
  });
  t.result<NegOp>([](EW &e, ValueRange x) { return e.neg(x[0]); });
  t.result<SignOp>([](EW &e, ValueRange x) -> Value {
    if (e.ct.isInteger(1))
      return x[0];
    Value zero = e.isFloat() ? e.c(0) : e.ci(0);
    Value one = e.isFloat() ? e.c(1) : e.ci(1);
    Value minusOne = e.isFloat() ? e.c(-1) : e.ci(-1);
    Value pos = e.sel(e.cmp(Cmp::GT, x[0], zero), one, zero);
    if (e.isUnsigned())
      return pos;
    return e.sel(e.cmp(Cmp::LT, x[0], zero), minusOne, pos);
  });
  t.rounding<CeilOp, math::CeilOp>();
  t.rounding<FloorOp, math::FloorOp>();
  t.rounding<RoundOp, math::RoundEvenOp>();
  t.rounding<TruncOp, math::TruncOp>();
  t.result<RoundDecimalsOp>([](EW &e, ValueRange x) -> Value {
    if (!e.isFloat())
      return x[0];
    int64_t d = as<RoundDecimalsOp>(e).getDecimals();
    Value scale = e.c(std::pow(10.0, (double)std::abs(d)));
    if (d < 0)
      return e.mul(e.m<math::RoundEvenOp>(e.div(x[0], scale)), scale);
    return e.div(e.m<math::RoundEvenOp>(e.mul(x[0], scale)), scale);
  });
  t.result<FracOp>([](EW &e, ValueRange x) { return e.sub(x[0], e.m<math::TruncOp>(x[0])); });
  t.result<BitwiseNotOp>([](EW &e, ValueRange x) {
    return e.xorI(x[0], e.ci(APInt::getAllOnes(e.width())));
  });

  t.result<ReciprocalOp>([](EW &e, ValueRange x) { return e.div(e.c(1), x[0]); });
  t.math<SqrtOp, math::SqrtOp>();
  t.result<RsqrtOp>([](EW &e, ValueRange x) { return e.div(e.c(1), e.m<math::SqrtOp>(x[0])); });
  t.math<ExpOp, math::ExpOp>();
  t.math<Exp2Op, math::Exp2Op>();
  t.math<Expm1Op, math::ExpM1Op>();
  t.math<LogOp, math::LogOp>();
  t.math<Log2Op, math::Log2Op>();
  t.math<Log10Op, math::Log10Op>();
  t.math<Log1pOp, math::Log1pOp>();
  t.math<SinOp, math::SinOp>();
  t.math<CosOp, math::CosOp>();
  t.math<TanOp, math::TanOp>();
  t.math<AsinOp, math::AsinOp>();
  t.math<AcosOp, math::AcosOp>();
  t.math<AtanOp, math::AtanOp>();
  t.math<SinhOp, math::SinhOp>();
  t.math<CoshOp, math::CoshOp>();
  t.math<TanhOp, math::TanhOp>();
  t.math<AsinhOp, math::AsinhOp>();
  t.math<AcoshOp, math::AcoshOp>();
  t.math<AtanhOp, math::AtanhOp>();
  t.math<ErfOp, math::ErfOp>();
  t.math<ErfcOp, math::ErfcOp>();
  t.result<ErfinvOp>([](EW &e, ValueRange x) { return erfinv(e, x[0]); });
  t.result<SigmoidOp>([](EW &e, ValueRange x) {
    return e.div(e.c(1), e.add(e.c(1), e.m<math::ExpOp>(e.neg(x[0]))));
  });
  t.result<LogitOp>([](EW &e, ValueRange x) {
    Value v = x[0];
    if (std::optional<APFloat> eps = as<LogitOp>(e).getEps()) {
      // ATen clamps to eps and 1 - eps as the dtype holds them.
      double lo = roundTo(e.dt, eps->convertToDouble());
      double hi = roundTo(e.dt, 1 - lo);
      v = e.sel(e.cmp(Cmp::LT, v, e.c(lo)), e.c(lo), v);
      v = e.sel(e.cmp(Cmp::GT, v, e.c(hi)), e.c(hi), v);
    }
    return e.m<math::LogOp>(e.div(v, e.sub(e.c(1), v)));
  });

  // Activations.
  t.result<ReluOp>([](EW &e, ValueRange x) -> Value {
    if (e.isUnsigned())
      return x[0];
    return e.max(x[0], e.isFloat() ? e.c(0) : e.ci(0)); // NaN stays NaN
  });
  t.result<GeluOp>([](EW &e, ValueRange x) {
    Value inner;
    if (as<GeluOp>(e).getApproximate() == "tanh") {
      // tanh(sqrt(2/pi) * (x + 0.044715 x^3))
      Value x3 = e.mul(x[0], e.mul(x[0], x[0]));
      Value poly = e.add(x[0], e.mul(e.c(0.044715), x3));
      inner = e.m<math::TanhOp>(e.mul(e.c(std::sqrt(2.0 / M_PI)), poly));
    } else {
      inner = e.m<math::ErfOp>(e.mul(x[0], e.c(M_SQRT1_2))); // erf(x / sqrt(2))
    }
    Value onePlus = e.add(e.c(1), inner);
    Value half = e.mul(x[0], e.c(0.5));
    return e.mul(half, onePlus);
  });
  t.result<SiluOp>([](EW &e, ValueRange x) {
    return e.div(x[0], e.add(e.c(1), e.m<math::ExpOp>(e.neg(x[0]))));
  });
  t.result<MishOp>([](EW &e, ValueRange x) {
    return e.mul(x[0], e.m<math::TanhOp>(e.m<math::Log1pOp>(e.m<math::ExpOp>(x[0]))));
  });
  t.result<HardswishOp>([](EW &e, ValueRange x) {
    Value r6 = e.min(e.max(e.add(x[0], e.c(3)), e.c(0)), e.c(6));
    return e.div(e.mul(x[0], r6), e.c(6));
  });
  t.result<HardsigmoidOp>([](EW &e, ValueRange x) {
    return e.div(e.min(e.max(e.add(x[0], e.c(3)), e.c(0)), e.c(6)), e.c(6));
  });
  t.result<LeakyReluOp>([](EW &e, ValueRange x) {
    double slope = as<LeakyReluOp>(e).getNegativeSlope().convertToDouble();
    return e.sel(e.cmp(Cmp::GT, x[0], e.c(0)), x[0], e.mul(x[0], e.c(slope)));
  });
  t.result<EluOp>([](EW &e, ValueRange x) {
    auto op = as<EluOp>(e);
    double alpha = op.getAlpha().convertToDouble(), scale = op.getScale().convertToDouble();
    double inScale = op.getInputScale().convertToDouble();
    Value neg = e.mul(e.m<math::ExpM1Op>(e.mul(x[0], e.c(inScale))), e.c(alpha * scale));
    return e.sel(e.cmp(Cmp::LE, x[0], e.c(0)), neg, e.mul(x[0], e.c(scale)));
  });
  t.result<SoftplusOp>([](EW &e, ValueRange x) {
    auto op = as<SoftplusOp>(e);
    double beta = op.getBeta().convertToDouble(), th = op.getThreshold().convertToDouble();
    Value xb = e.mul(x[0], e.c(beta));
    Value soft = e.div(e.m<math::Log1pOp>(e.m<math::ExpOp>(xb)), e.c(beta));
    return e.sel(e.cmp(Cmp::GT, xb, e.c(th)), x[0], soft);
  });
  t.result<HardtanhOp>([](EW &e, ValueRange x) {
    auto op = as<HardtanhOp>(e);
    Value lo = e.c(op.getMinVal().convertToDouble()), hi = e.c(op.getMaxVal().convertToDouble());
    return e.min(e.max(x[0], lo), hi);
  });
  t.result<HardshrinkOp>([](EW &e, ValueRange x) {
    double l = as<HardshrinkOp>(e).getLambd().convertToDouble();
    Value inside = e.andI(e.cmp(Cmp::GE, x[0], e.c(-l)), e.cmp(Cmp::LE, x[0], e.c(l)));
    return e.sel(inside, e.c(0), x[0]);
  });
  t.result<SoftshrinkOp>([](EW &e, ValueRange x) {
    double l = as<SoftshrinkOp>(e).getLambd().convertToDouble();
    Value below = e.sel(e.cmp(Cmp::LT, x[0], e.c(-l)), e.add(x[0], e.c(l)),
                        e.mul(x[0], e.c(0))); // x * 0 keeps NaN
    return e.sel(e.cmp(Cmp::GT, x[0], e.c(l)), e.sub(x[0], e.c(l)), below);
  });
  t.result<ThresholdOp>([](EW &e, ValueRange x) {
    auto op = as<ThresholdOp>(e);
    return e.sel(e.cmp(Cmp::LE, x[0], e.c(op.getThreshold().convertToDouble())),
                 e.c(op.getValue().convertToDouble()), x[0]);
  });
  t.result<NanToNumOp>([](EW &e, ValueRange x) -> Value {
    if (!e.isFloat())
      return x[0];
    auto op = as<NanToNumOp>(e);
    double big = largestFinite(e.dt);
    double pos = op.getPosinf() ? op.getPosinf()->convertToDouble() : big;
    double neg = op.getNeginf() ? op.getNeginf()->convertToDouble() : -big;
    Value v = e.sel(e.isnan(x[0]), e.c(op.getNan().convertToDouble()), x[0]);
    v = e.sel(e.cmp(Cmp::EQ, x[0], e.c(INFINITY)), e.c(pos), v);
    return e.sel(e.cmp(Cmp::EQ, x[0], e.c(-INFINITY)), e.c(neg), v);
  });

  // Predicates (computing in the operand's own dtype).
  t.promoted<LogicalNotOp>([](EW &e, ValueRange x) { return e.xorI(e.truthy(x[0]), e.trueV()); });
  t.promoted<IsnanOp>([](EW &e, ValueRange x) { return e.isFloat() ? e.isnan(x[0]) : e.falseV(); });
  t.promoted<IsinfOp>([](EW &e, ValueRange x) {
    return e.isFloat() ? e.cmp(Cmp::EQ, e.m<math::AbsFOp>(x[0]), e.c(INFINITY)) : e.falseV();
  });
  t.promoted<IsfiniteOp>([](EW &e, ValueRange x) {
    return e.isFloat() ? e.cmp(Cmp::LT, e.m<math::AbsFOp>(x[0]), e.c(INFINITY)) : e.trueV();
  });
  t.promoted<IsposinfOp>([](EW &e, ValueRange x) {
    return e.isFloat() ? e.cmp(Cmp::EQ, x[0], e.c(INFINITY)) : e.falseV();
  });
  t.promoted<IsneginfOp>([](EW &e, ValueRange x) {
    return e.isFloat() ? e.cmp(Cmp::EQ, x[0], e.c(-INFINITY)) : e.falseV();
  });
  t.promoted<SignbitOp>([](EW &e, ValueRange x) -> Value {
    if (e.isFloat()) { // the sign bit itself: true for -0.0 and negative NaNs
      Type it = e.b.getIntegerType(e.width());
      Value bits = arith::BitcastOp::create(e.b, e.loc, it, x[0]);
      return arith::CmpIOp::create(e.b, e.loc, arith::CmpIPredicate::slt, bits,
                                   e.f(0, it));
    }
    return e.isUnsigned() ? e.falseV() : e.cmp(Cmp::LT, x[0], e.ci(0));
  });
}

void addBinary(Table &t) {
  auto scaled = [](EW &e, Value y, double alpha) -> Value {
    if (alpha == 1.0)
      return y;
    return e.mul(y, e.isFloat() ? e.c(alpha) : e.ci((int64_t)alpha));
  };
  t.result<AddTensorOp>([scaled](EW &e, ValueRange x) {
    return e.add(x[0], scaled(e, x[1], as<AddTensorOp>(e).getAlpha().convertToDouble()));
  });
  t.result<SubTensorOp>([scaled](EW &e, ValueRange x) {
    return e.sub(x[0], scaled(e, x[1], as<SubTensorOp>(e).getAlpha().convertToDouble()));
  });
  t.result<MulTensorOp>([](EW &e, ValueRange x) { return e.mul(x[0], x[1]); });
  t.result<DivTensorOp>([](EW &e, ValueRange x) { return e.div(x[0], x[1]); });
  t.result<DivTensorModeOp>([](EW &e, ValueRange x) -> Value {
    bool floor = as<DivTensorModeOp>(e).getRoundingMode() == "floor";
    if (e.isFloat())
      return floor ? floatDivFloor(e, x[0], x[1]) : e.m<math::TruncOp>(e.div(x[0], x[1]));
    return floor ? intDivFloor(e, x[0], x[1]) : intDivTrunc(e, x[0], x[1]);
  });
  t.result<FmodTensorOp>([](EW &e, ValueRange x) -> Value {
    if (e.isFloat())
      return arith::RemFOp::create(e.b, e.loc, x[0], x[1]);
    return intRem(e, x[0], x[1]);
  });
  t.result<RemainderTensorOp>([](EW &e, ValueRange x) -> Value {
    Value r = e.isFloat() ? arith::RemFOp::create(e.b, e.loc, x[0], x[1]).getResult()
                          : intRem(e, x[0], x[1]);
    if (e.isUnsigned())
      return r;
    return e.sel(signsDiffer(e, r, x[1]), e.add(r, x[1]), r);
  });
  t.result<PowTensorTensorOp>([](EW &e, ValueRange x) -> Value {
    if (e.isFloat())
      return floatPow(e, x[0], x[1]);
    std::optional<double> p = e.constantOperand(1);
    if (p && *p == 2)
      return e.mul(x[0], x[0]);
    if (p && *p == 3)
      return e.mul(e.mul(x[0], x[0]), x[0]);
    return intPow(e, x[0], x[1]);
  });
  t.result<MaximumOp>([](EW &e, ValueRange x) { return e.max(x[0], x[1]); });
  t.result<MinimumOp>([](EW &e, ValueRange x) { return e.min(x[0], x[1]); });
  t.result<FmaxOp>([](EW &e, ValueRange x) -> Value {
    if (e.isFloat())
      return arith::MaxNumFOp::create(e.b, e.loc, x[0], x[1]);
    return e.max(x[0], x[1]);
  });
  t.result<FminOp>([](EW &e, ValueRange x) -> Value {
    if (e.isFloat())
      return arith::MinNumFOp::create(e.b, e.loc, x[0], x[1]);
    return e.min(x[0], x[1]);
  });
  t.result<Atan2Op>([](EW &e, ValueRange x) {
    return math::Atan2Op::create(e.b, e.loc, x[0], x[1]);
  });
  t.result<HypotOp>([](EW &e, ValueRange x) { return hypot(e, x[0], x[1]); });
  t.result<CopysignTensorOp>([](EW &e, ValueRange x) {
    return math::CopySignOp::create(e.b, e.loc, x[0], x[1]);
  });

  auto compare = [&t](auto tag, Cmp p) {
    using OpT = typename decltype(tag)::type;
    t.promoted<OpT>([p](EW &e, ValueRange x) { return e.cmp(p, x[0], x[1]); });
  };
  compare(OpTag<EqTensorOp>(), Cmp::EQ);
  compare(OpTag<NeTensorOp>(), Cmp::NE);
  compare(OpTag<LtTensorOp>(), Cmp::LT);
  compare(OpTag<LeTensorOp>(), Cmp::LE);
  compare(OpTag<GtTensorOp>(), Cmp::GT);
  compare(OpTag<GeTensorOp>(), Cmp::GE);

  t.promoted<LogicalAndOp>(
      [](EW &e, ValueRange x) { return e.andI(e.truthy(x[0]), e.truthy(x[1])); });
  t.promoted<LogicalOrOp>(
      [](EW &e, ValueRange x) { return e.orI(e.truthy(x[0]), e.truthy(x[1])); });
  t.promoted<LogicalXorOp>(
      [](EW &e, ValueRange x) { return e.xorI(e.truthy(x[0]), e.truthy(x[1])); });
  t.result<BitwiseAndTensorOp>([](EW &e, ValueRange x) { return e.andI(x[0], x[1]); });
  t.result<BitwiseOrTensorOp>([](EW &e, ValueRange x) { return e.orI(x[0], x[1]); });
  t.result<BitwiseXorTensorOp>([](EW &e, ValueRange x) { return e.xorI(x[0], x[1]); });
  // Shifts by a count outside [0, bits) give 0, or the sign for a right shift.
  t.result<BitwiseLeftShiftTensorOp>([](EW &e, ValueRange x) {
    Value bits = e.ci(e.width());
    Value ok = e.isUnsigned() ? e.cmp(Cmp::LT, x[1], bits)
                              : e.andI(e.cmp(Cmp::GE, x[1], e.ci(0)), e.cmp(Cmp::LT, x[1], bits));
    Value r = arith::ShLIOp::create(e.b, e.loc, x[0], e.sel(ok, x[1], e.ci(0)));
    return e.sel(ok, r, e.ci(0));
  });
  t.result<BitwiseRightShiftTensorOp>([](EW &e, ValueRange x) -> Value {
    Value bits = e.ci(e.width());
    if (e.isUnsigned()) {
      Value ok = e.cmp(Cmp::LT, x[1], bits);
      Value r = arith::ShRUIOp::create(e.b, e.loc, x[0], e.sel(ok, x[1], e.ci(0)));
      return e.sel(ok, r, e.ci(0));
    }
    Value ok = e.andI(e.cmp(Cmp::GE, x[1], e.ci(0)), e.cmp(Cmp::LT, x[1], bits));
    return arith::ShRSIOp::create(e.b, e.loc, x[0], e.sel(ok, x[1], e.ci(e.width() - 1)));
  });
}

void addTernary(Table &t) {
  // where(condition, self, other): the condition reaches the body unconverted.
  t.add<WhereSelfOp>({Compute::Result, /*rawMask=*/1u, false, [](EW &e, ValueRange x) {
                        return e.sel(e.truthy(x[0]), x[1], x[2]);
                      }});
  // masked_fill(self, mask, value).
  t.add<MaskedFillTensorOp>({Compute::Result, /*rawMask=*/2u, false, [](EW &e, ValueRange x) {
                               return e.sel(x[1], x[2], x[0]);
                             }});
  t.result<ClampTensorOp>([](EW &e, ValueRange x) {
    auto op = as<ClampTensorOp>(e);
    Value v = x[0];
    unsigned next = 1;
    if (op.getMin())
      v = e.max(v, x[next++]);
    if (op.getMax())
      v = e.min(v, x[next]);
    return v;
  });
  t.result<LerpTensorOp>([](EW &e, ValueRange x) {
    Value self = x[0], end = x[1], w = x[2];
    Value diff = e.sub(end, self);
    Value small = e.cmp(Cmp::LT, e.m<math::AbsFOp>(w), e.c(0.5));
    return e.sel(small, e.add(self, e.mul(w, diff)),
                 e.sub(end, e.mul(diff, e.sub(e.c(1), w))));
  });
  auto scalarOf = [](EW &e, double v) { return e.isFloat() ? e.c(v) : e.ci((int64_t)v); };
  t.result<AddcmulOp>([scalarOf](EW &e, ValueRange x) {
    Value v = scalarOf(e, as<AddcmulOp>(e).getValue().convertToDouble());
    return e.add(x[0], e.mul(e.mul(v, x[1]), x[2]));
  });
  t.result<AddcdivOp>([scalarOf](EW &e, ValueRange x) {
    Value v = scalarOf(e, as<AddcdivOp>(e).getValue().convertToDouble());
    return e.add(x[0], e.div(e.mul(v, x[1]), x[2]));
  });
  // fill(self, value): value converted to the dtype of self, broadcast.
  t.result<FillTensorOp>([](EW &, ValueRange x) { return x[1]; });
  // _to_copy converts each element straight to the result dtype.
  t.add<ToCopyOp>({Compute::Result, /*rawMask=*/1u, /*returnsResult=*/true,
                   [](EW &e, ValueRange x) {
                     Type to = cast<RankedTensorType>(e.op->getResult(0).getType())
                                   .getElementType();
                     return convertElement(e.b, e.loc, x[0], e.dtypes[0], to);
                   }});
}

} // namespace

void kiln::populateElementwisePatterns(RewritePatternSet &patterns) {
  Table t{patterns};
  addUnary(t);
  addBinary(t);
  addTernary(t);
}
