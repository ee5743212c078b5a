// kiln runtime — eager CPU (and Meta) binary and ternary pointwise kernels on
// every dtype, with broadcasting and ATen's type promotion (Scalar and 0-dim
// operands only raise the category): sub/div/pow/fmod/floor_divide/minimum/
// maximum, comparisons, bitwise and/or, logical and/or/xor, the Scalar overloads, where, addcmul/addcdiv,
// masked_fill, and the in-place forms (add_, sub_, mul_, div_ with Tensor and Scalar, masked_fill_).
#include "TensorIter.h"

#include <cmath>

namespace kiln::cpu {
namespace {

enum class Kind { Arith, TrueDiv, Compare, Logical };

/// A binary op over (tensor or Scalar) operands; `out` for the in-place forms.
template <typename F>
Tensor binaryOp(const IValue &a, const IValue &b, Kind kind, const char *op, F f, Tensor out = Tensor()) {
  Tensor ta = a.isTensor() ? a.toTensor() : scalarOperand(a, op);
  Tensor tb = b.isTensor() ? b.toTensor() : scalarOperand(b, op);
  PromoteOperand pa = a.isTensor() ? PromoteOperand{&a.toTensor(), nullptr} : PromoteOperand{nullptr, &a};
  PromoteOperand pb = b.isTensor() ? PromoteOperand{&b.toTensor(), nullptr} : PromoteOperand{nullptr, &b};
  DType common = resultType({pa, pb});
  DType res = common;
  if (kind == Kind::TrueDiv && !isFloatingPoint(common)) common = res = DType::Float32;
  if (kind == Kind::Compare || kind == Kind::Logical) res = DType::Bool;
  return mapPointwise<2>({ta, tb}, common, res, op, [&f](const double *v) { return f(v[0], v[1]); }, out);
}

IValue iv(const Tensor &t) { return IValue(t); }

double divTrunc(double a, double b) { return std::trunc(a / b); }
double divFloor(double a, double b) {
  if (b == 0) return a / b;
  double q = std::floor(a / b);
  // Python's floor division, exact for integers held in doubles.
  return q;
}
void checkIntDiv(DType t, const Tensor &b, const char *op) {
  if (isFloatingPoint(t) || isMeta(b)) return;
  bool zero = false;
  mapPointwise<1>({b}, b.dtype(), DType::Bool, op, [&](const double *v) { zero |= v[0] == 0; return 0.0; });
  check(!zero, op, "ZeroDivisionError: integer division by zero");
}

Tensor subTensor(const Tensor &a, const Tensor &b, IValue alpha) {
  check(a.dtype() != DType::Bool || b.dtype() != DType::Bool, "aten::sub.Tensor",
        "subtraction of two bool tensors is not supported");
  double al = scalarValue(alpha, "aten::sub.Tensor");
  return binaryOp(iv(a), iv(b), Kind::Arith, "aten::sub.Tensor", [al](double x, double y) { return x - al * y; });
}
Tensor subScalar(const Tensor &a, IValue b, IValue alpha) {
  double al = scalarValue(alpha, "aten::sub.Scalar");
  return binaryOp(iv(a), b, Kind::Arith, "aten::sub.Scalar", [al](double x, double y) { return x - al * y; });
}
Tensor rsubScalar(const Tensor &a, IValue b, IValue alpha) {
  double al = scalarValue(alpha, "aten::rsub.Scalar");
  return binaryOp(iv(a), b, Kind::Arith, "aten::rsub.Scalar", [al](double x, double y) { return y - al * x; });
}
Tensor addScalar(const Tensor &a, IValue b, IValue alpha) {
  double al = scalarValue(alpha, "aten::add.Scalar");
  return binaryOp(iv(a), b, Kind::Arith, "aten::add.Scalar", [al](double x, double y) { return x + al * y; });
}
Tensor mulScalar(const Tensor &a, IValue b) {
  return binaryOp(iv(a), b, Kind::Arith, "aten::mul.Scalar", [](double x, double y) { return x * y; });
}
Tensor divImpl(const IValue &a, const IValue &b, const std::optional<std::string> &mode, const char *op,
               Tensor out = Tensor()) {
  if (!mode) return binaryOp(a, b, Kind::TrueDiv, op, [](double x, double y) { return x / y; }, out);
  check(*mode == "trunc" || *mode == "floor", op,
        "rounding_mode must be None, 'trunc' or 'floor', got '" + *mode + "'");
  Tensor tb = b.isTensor() ? b.toTensor() : scalarOperand(b, op);
  PromoteOperand pa = a.isTensor() ? PromoteOperand{&a.toTensor(), nullptr} : PromoteOperand{nullptr, &a};
  PromoteOperand pb = b.isTensor() ? PromoteOperand{&b.toTensor(), nullptr} : PromoteOperand{nullptr, &b};
  checkIntDiv(resultType({pa, pb}), tb, op);
  if (*mode == "trunc") return binaryOp(a, b, Kind::Arith, op, divTrunc, out);
  return binaryOp(a, b, Kind::Arith, op, divFloor, out);
}
Tensor divTensor(const Tensor &a, const Tensor &b) { return divImpl(iv(a), iv(b), std::nullopt, "aten::div.Tensor"); }
Tensor divScalar(const Tensor &a, IValue b) { return divImpl(iv(a), b, std::nullopt, "aten::div.Scalar"); }
Tensor divTensorMode(const Tensor &a, const Tensor &b, std::optional<std::string> mode) {
  return divImpl(iv(a), iv(b), mode, "aten::div.Tensor_mode");
}
Tensor divScalarMode(const Tensor &a, IValue b, std::optional<std::string> mode) {
  return divImpl(iv(a), b, mode, "aten::div.Scalar_mode");
}
Tensor floorDivide(const Tensor &a, const Tensor &b) {
  return divImpl(iv(a), iv(b), std::string("floor"), "aten::floor_divide");
}
Tensor floorDivideScalar(const Tensor &a, IValue b) {
  return divImpl(iv(a), b, std::string("floor"), "aten::floor_divide.Scalar");
}

double fmodF(double x, double y) { return std::fmod(x, y); }
double remainderF(double x, double y) {
  double r = std::fmod(x, y);
  return r != 0 && ((r < 0) != (y < 0)) ? r + y : r;
}
Tensor fmodTensor(const Tensor &a, const Tensor &b) {
  return binaryOp(iv(a), iv(b), Kind::Arith, "aten::fmod.Tensor", fmodF);
}
Tensor fmodScalar(const Tensor &a, IValue b) { return binaryOp(iv(a), b, Kind::Arith, "aten::fmod.Scalar", fmodF); }
Tensor remainderTensor(const Tensor &a, const Tensor &b) {
  return binaryOp(iv(a), iv(b), Kind::Arith, "aten::remainder.Tensor", remainderF);
}
Tensor remainderScalar(const Tensor &a, IValue b) {
  return binaryOp(iv(a), b, Kind::Arith, "aten::remainder.Scalar", remainderF);
}

double powF(double x, double y) { return std::pow(x, y); }
Tensor powTensorScalar(const Tensor &a, IValue e) {
  return binaryOp(iv(a), e, Kind::Arith, "aten::pow.Tensor_Scalar", powF);
}
Tensor powTensorTensor(const Tensor &a, const Tensor &e) {
  return binaryOp(iv(a), iv(e), Kind::Arith, "aten::pow.Tensor_Tensor", powF);
}
Tensor powScalar(IValue a, const Tensor &e) { return binaryOp(a, iv(e), Kind::Arith, "aten::pow.Scalar", powF); }

// atan2 and hypot: floating results, integer operands promoted (as division's).
Tensor atan2Kernel(const Tensor &a, const Tensor &b) {
  return binaryOp(iv(a), iv(b), Kind::TrueDiv, "aten::atan2", [](double y, double x) { return std::atan2(y, x); });
}
Tensor hypotKernel(const Tensor &a, const Tensor &b) {
  return binaryOp(iv(a), iv(b), Kind::TrueDiv, "aten::hypot", [](double x, double y) { return std::hypot(x, y); });
}

double minF(double x, double y) { return std::isnan(x) || std::isnan(y) ? NAN : std::min(x, y); }
double maxF(double x, double y) { return std::isnan(x) || std::isnan(y) ? NAN : std::max(x, y); }
Tensor minimum(const Tensor &a, const Tensor &b) { return binaryOp(iv(a), iv(b), Kind::Arith, "aten::minimum", minF); }
Tensor maximum(const Tensor &a, const Tensor &b) { return binaryOp(iv(a), iv(b), Kind::Arith, "aten::maximum", maxF); }

/// Integer-valued bitwise ops on bool and integer dtypes.
template <typename F> Tensor bitwise(const Tensor &a, const Tensor &b, const char *op, F f) {
  check(!isFloatingPoint(a.dtype()) && !isFloatingPoint(b.dtype()), op,
        std::string("is not implemented for floating-point dtypes, got ") + dtypeTorchName(a.dtype()) + " and " +
            dtypeTorchName(b.dtype()));
  return binaryOp(iv(a), iv(b), Kind::Arith, op,
                  [f](double x, double y) { return (double)f((int64_t)x, (int64_t)y); });
}
Tensor bitwiseAnd(const Tensor &a, const Tensor &b) {
  return bitwise(a, b, "aten::bitwise_and.Tensor", [](int64_t x, int64_t y) { return x & y; });
}
/// ATen's calc_gcd: Euclid's algorithm on the absolute values.
int64_t gcdI(int64_t x, int64_t y) {
  uint64_t a = x < 0 ? 0 - (uint64_t)x : (uint64_t)x, b = y < 0 ? 0 - (uint64_t)y : (uint64_t)y;
  while (a != 0) {
    uint64_t c = a;
    a = b % a;
    b = c;
  }
  return (int64_t)b;
}
Tensor gcdKernel(const Tensor &a, const Tensor &b) { return bitwise(a, b, "aten::gcd", gcdI); }
Tensor lcmKernel(const Tensor &a, const Tensor &b) {
  return bitwise(a, b, "aten::lcm", [](int64_t x, int64_t y) -> int64_t {
    int64_t g = gcdI(x, y);
    if (g == 0) return 0;
    int64_t r = x / g * y;
    return r < 0 ? -r : r;
  });
}
Tensor bitwiseOr(const Tensor &a, const Tensor &b) {
  return bitwise(a, b, "aten::bitwise_or.Tensor", [](int64_t x, int64_t y) { return x | y; });
}
Tensor logicalAnd(const Tensor &a, const Tensor &b) {
  return binaryOp(iv(a), iv(b), Kind::Logical, "aten::logical_and", [](double x, double y) { return (x != 0 && y != 0) ? 1.0 : 0.0; });
}
Tensor logicalOr(const Tensor &a, const Tensor &b) {
  return binaryOp(iv(a), iv(b), Kind::Logical, "aten::logical_or", [](double x, double y) { return (x != 0 || y != 0) ? 1.0 : 0.0; });
}
Tensor logicalXor(const Tensor &a, const Tensor &b) {
  return binaryOp(iv(a), iv(b), Kind::Logical, "aten::logical_xor", [](double x, double y) { return (x != 0) != (y != 0) ? 1.0 : 0.0; });
}

#define KILN_COMPARE(NAME, EXPR)                                                                   \
  Tensor NAME##Tensor(const Tensor &a, const Tensor &b) {                                          \
    return binaryOp(iv(a), iv(b), Kind::Compare, "aten::" #NAME ".Tensor",                          \
                    [](double x, double y) { return (EXPR) ? 1.0 : 0.0; });                        \
  }                                                                                                \
  Tensor NAME##Scalar(const Tensor &a, IValue b) {                                                 \
    return binaryOp(iv(a), b, Kind::Compare, "aten::" #NAME ".Scalar",                             \
                    [](double x, double y) { return (EXPR) ? 1.0 : 0.0; });                        \
  }
KILN_COMPARE(eq, x == y)
KILN_COMPARE(ne, x != y)
KILN_COMPARE(lt, x < y)
KILN_COMPARE(le, x <= y)
KILN_COMPARE(gt, x > y)
KILN_COMPARE(ge, x >= y)
#undef KILN_COMPARE

// In-place forms: the result is computed in the common dtype and written into self.
Tensor addInplace(Tensor self, const Tensor &b, IValue alpha) {
  double al = scalarValue(alpha, "aten::add_.Tensor");
  return binaryOp(iv(self), iv(b), Kind::Arith, "aten::add_.Tensor", [al](double x, double y) { return x + al * y; }, self);
}
Tensor subInplace(Tensor self, const Tensor &b, IValue alpha) {
  double al = scalarValue(alpha, "aten::sub_.Tensor");
  return binaryOp(iv(self), iv(b), Kind::Arith, "aten::sub_.Tensor", [al](double x, double y) { return x - al * y; }, self);
}
Tensor addScalarInplace(Tensor self, IValue b, IValue alpha) {
  double al = scalarValue(alpha, "aten::add_.Scalar");
  return binaryOp(iv(self), b, Kind::Arith, "aten::add_.Scalar", [al](double x, double y) { return x + al * y; }, self);
}
Tensor subScalarInplace(Tensor self, IValue b, IValue alpha) {
  double al = scalarValue(alpha, "aten::sub_.Scalar");
  return binaryOp(iv(self), b, Kind::Arith, "aten::sub_.Scalar", [al](double x, double y) { return x - al * y; }, self);
}
Tensor mulInplace(Tensor self, const Tensor &b) {
  return binaryOp(iv(self), iv(b), Kind::Arith, "aten::mul_.Tensor", [](double x, double y) { return x * y; }, self);
}
Tensor mulScalarInplace(Tensor self, IValue b) {
  return binaryOp(iv(self), b, Kind::Arith, "aten::mul_.Scalar", [](double x, double y) { return x * y; }, self);
}
Tensor divInplace(Tensor self, const Tensor &b) {
  check(isFloatingPoint(self.dtype()), "aten::div_.Tensor",
        std::string("result type Float can't be cast to the desired output type ") + dtypeTorchName(self.dtype()));
  return divImpl(iv(self), iv(b), std::nullopt, "aten::div_.Tensor", self);
}
Tensor divScalarInplace(Tensor self, IValue b) {
  check(isFloatingPoint(self.dtype()), "aten::div_.Scalar",
        std::string("result type Float can't be cast to the desired output type ") + dtypeTorchName(self.dtype()));
  return divImpl(iv(self), b, std::nullopt, "aten::div_.Scalar", self);
}

/// floor_divide_ (Tensor and Scalar): floor_divide written into self.
Tensor floorDivideInplace(Tensor self, const Tensor &b) {
  return divImpl(iv(self), iv(b), std::string("floor"), "aten::floor_divide_.Tensor", self);
}
Tensor floorDivideScalarInplace(Tensor self, IValue b) {
  return divImpl(iv(self), b, std::string("floor"), "aten::floor_divide_.Scalar", self);
}

/// where(cond, a, b) with a and b tensors or Scalars, promoted together.
Tensor whereImpl(const Tensor &cond, const IValue &a, const IValue &b, const char *op) {
  check(cond.dtype() == DType::Bool || cond.dtype() == DType::UInt8, op,
        std::string("condition must be a bool tensor, got ") + dtypeTorchName(cond.dtype()));
  Tensor ta = a.isTensor() ? a.toTensor() : scalarOperand(a, op);
  Tensor tb = b.isTensor() ? b.toTensor() : scalarOperand(b, op);
  PromoteOperand pa = a.isTensor() ? PromoteOperand{&a.toTensor(), nullptr} : PromoteOperand{nullptr, &a};
  PromoteOperand pb = b.isTensor() ? PromoteOperand{&b.toTensor(), nullptr} : PromoteOperand{nullptr, &b};
  DType dt = resultType({pa, pb});
  // The condition is compared to zero, never rounded to dt first.
  return mapPointwise<3>({cond.dtype() == DType::Bool ? cond : castTo(cond, DType::Bool), ta, tb}, dt, dt, op,
                         [](const double *v) { return v[0] != 0 ? v[1] : v[2]; });
}
Tensor whereSelf(const Tensor &c, const Tensor &a, const Tensor &b) { return whereImpl(c, iv(a), iv(b), "aten::where.self"); }
Tensor whereScalarOther(const Tensor &c, const Tensor &a, IValue b) { return whereImpl(c, iv(a), b, "aten::where.ScalarOther"); }
Tensor whereScalarSelf(const Tensor &c, IValue a, const Tensor &b) { return whereImpl(c, a, iv(b), "aten::where.ScalarSelf"); }
Tensor whereScalar(const Tensor &c, IValue a, IValue b) { return whereImpl(c, a, b, "aten::where.Scalar"); }

/// addcmul: self + value * t1 * t2; addcdiv: self + value * t1 / t2 (floating
/// only, as ATen refuses integer division there); the tensors promoted together.
Tensor addcImpl(const Tensor &self, const Tensor &t1, const Tensor &t2, const IValue &value, bool div,
                const char *op) {
  DType dt = resultType({{&self, nullptr}, {&t1, nullptr}, {&t2, nullptr}});
  if (div)
    check(isFloatingPoint(t1.dtype()) && isFloatingPoint(t2.dtype()), op,
          "integer division with addcdiv is not supported; use a floating-point tensor");
  double v = scalarValue(value, op);
  if (div)
    return mapPointwise<3>({self, t1, t2}, dt, dt, op, [v](const double *x) { return x[0] + v * (x[1] / x[2]); });
  return mapPointwise<3>({self, t1, t2}, dt, dt, op, [v](const double *x) { return x[0] + v * (x[1] * x[2]); });
}
Tensor addcmul(const Tensor &self, const Tensor &t1, const Tensor &t2, IValue value) {
  return addcImpl(self, t1, t2, value, false, "aten::addcmul");
}
Tensor addcdiv(const Tensor &self, const Tensor &t1, const Tensor &t2, IValue value) {
  return addcImpl(self, t1, t2, value, true, "aten::addcdiv");
}

/// masked_fill: self's dtype kept; the value may be a Scalar or a 0-dim tensor.
Tensor maskedFillImpl(const Tensor &self, const Tensor &mask, const Tensor &value, const char *op, Tensor out) {
  check(mask.dtype() == DType::Bool, op, std::string("mask must be a bool tensor, got ") + dtypeTorchName(mask.dtype()));
  check(value.dim() == 0, op, "the value must be a 0-dim tensor, got " + value.shapeString());
  return mapPointwise<3>({mask, self, value}, self.dtype(), self.dtype(), op,
                         [](const double *v) { return v[0] != 0 ? v[2] : v[1]; }, out);
}
Tensor maskedFillScalar(const Tensor &self, const Tensor &mask, IValue v) {
  return maskedFillImpl(self, mask, scalarOperand(v, "aten::masked_fill.Scalar"), "aten::masked_fill.Scalar", {});
}
Tensor maskedFillTensor(const Tensor &self, const Tensor &mask, const Tensor &v) {
  return maskedFillImpl(self, mask, v, "aten::masked_fill.Tensor", {});
}
Tensor maskedFillScalarInplace(Tensor self, const Tensor &mask, IValue v) {
  return maskedFillImpl(self, mask, scalarOperand(v, "aten::masked_fill_.Scalar"), "aten::masked_fill_.Scalar", self);
}
Tensor maskedFillTensorInplace(Tensor self, const Tensor &mask, const Tensor &v) {
  return maskedFillImpl(self, mask, v, "aten::masked_fill_.Tensor", self);
}

KILN_LIBRARY_IMPL_CPU_AND_META(aten, m) {
  m.impl("sub.Tensor", subTensor);
  m.impl("sub.Scalar", subScalar);
  m.impl("rsub.Scalar", rsubScalar);
  m.impl("add.Scalar", addScalar);
  m.impl("mul.Scalar", mulScalar);
  m.impl("div.Tensor", divTensor);
  m.impl("div.Scalar", divScalar);
  m.impl("div.Tensor_mode", divTensorMode);
  m.impl("div.Scalar_mode", divScalarMode);
  m.impl("floor_divide", floorDivide);
  m.impl("floor_divide.Scalar", floorDivideScalar);
  m.impl("fmod.Tensor", fmodTensor);
  m.impl("fmod.Scalar", fmodScalar);
  m.impl("remainder.Tensor", remainderTensor);
  m.impl("remainder.Scalar", remainderScalar);
  m.impl("atan2", atan2Kernel);
  m.impl("arctan2", atan2Kernel);
  m.impl("hypot", hypotKernel);
  m.impl("pow.Tensor_Scalar", powTensorScalar);
  m.impl("pow.Tensor_Tensor", powTensorTensor);
  m.impl("pow.Scalar", powScalar);
  m.impl("minimum", minimum);
  m.impl("maximum", maximum);
  m.impl("min.other", minimum);
  m.impl("max.other", maximum);
  m.impl("bitwise_and.Tensor", bitwiseAnd);
  m.impl("__and__.Tensor", bitwiseAnd);
  m.impl("bitwise_or.Tensor", bitwiseOr);
  m.impl("gcd", gcdKernel);
  m.impl("lcm", lcmKernel);
  m.impl("__or__.Tensor", bitwiseOr);
  m.impl("logical_and", logicalAnd);
  m.impl("logical_or", logicalOr);
  m.impl("logical_xor", logicalXor);
  m.impl("eq.Tensor", eqTensor);
  m.impl("eq.Scalar", eqScalar);
  m.impl("ne.Tensor", neTensor);
  m.impl("ne.Scalar", neScalar);
  m.impl("lt.Tensor", ltTensor);
  m.impl("lt.Scalar", ltScalar);
  m.impl("le.Tensor", leTensor);
  m.impl("le.Scalar", leScalar);
  m.impl("gt.Tensor", gtTensor);
  m.impl("gt.Scalar", gtScalar);
  m.impl("ge.Tensor", geTensor);
  m.impl("ge.Scalar", geScalar);
  m.impl("add_.Tensor", addInplace);
  m.impl("sub_.Tensor", subInplace);
  m.impl("add_.Scalar", addScalarInplace);
  m.impl("sub_.Scalar", subScalarInplace);
  m.impl("mul_.Tensor", mulInplace);
  m.impl("mul_.Scalar", mulScalarInplace);
  m.impl("div_.Tensor", divInplace);
  m.impl("div_.Scalar", divScalarInplace);
  m.impl("floor_divide_.Tensor", floorDivideInplace);
  m.impl("floor_divide_.Scalar", floorDivideScalarInplace);
  m.impl("where.self", whereSelf);
  m.impl("addcmul", addcmul);
  m.impl("addcdiv", addcdiv);
  m.impl("where.ScalarOther", whereScalarOther);
  m.impl("where.ScalarSelf", whereScalarSelf);
  m.impl("where.Scalar", whereScalar);
  m.impl("masked_fill.Scalar", maskedFillScalar);
  m.impl("masked_fill.Tensor", maskedFillTensor);
  m.impl("masked_fill_.Scalar", maskedFillScalarInplace);
  m.impl("masked_fill_.Tensor", maskedFillTensorInplace);
}

} // namespace
} // namespace kiln::cpu

KILN_LIBRARY_FRAGMENT(aten, m) {
  m.def("addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor");
  m.def("addcdiv(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor");
  m.def("sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  m.def("sub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor");
  m.def("rsub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor");
  m.def("add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor");
  m.def("mul.Scalar(Tensor self, Scalar other) -> Tensor");
  m.def("div.Tensor(Tensor self, Tensor other) -> Tensor");
  m.def("div.Scalar(Tensor self, Scalar other) -> Tensor");
  m.def("div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor");
  m.def("div.Scalar_mode(Tensor self, Scalar other, *, str? rounding_mode) -> Tensor");
  m.def("floor_divide(Tensor self, Tensor other) -> Tensor");
  m.def("floor_divide.Scalar(Tensor self, Scalar other) -> Tensor");
  for (const char *f : {"fmod", "remainder"}) {
    m.def(std::string(f) + ".Tensor(Tensor self, Tensor other) -> Tensor");
    m.def(std::string(f) + ".Scalar(Tensor self, Scalar other) -> Tensor");
  }
  for (const char *f : {"atan2", "arctan2", "hypot"})
    m.def(std::string(f) + "(Tensor self, Tensor other) -> Tensor");
  m.def("pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor");
  m.def("pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor");
  m.def("pow.Scalar(Scalar self, Tensor exponent) -> Tensor");
  for (const char *f : {"minimum", "maximum", "min.other", "max.other", "bitwise_and.Tensor", "__and__.Tensor",
                        "bitwise_or.Tensor", "__or__.Tensor", "logical_and", "logical_or", "logical_xor",
                        "gcd", "lcm"})
    m.def(std::string(f) + "(Tensor self, Tensor other) -> Tensor");
  for (const char *f : {"eq", "ne", "lt", "le", "gt", "ge"}) {
    m.def(std::string(f) + ".Tensor(Tensor self, Tensor other) -> Tensor");
    m.def(std::string(f) + ".Scalar(Tensor self, Scalar other) -> Tensor");
  }
  m.def("add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)");
  m.def("sub_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)");
  m.def("add_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)");
  m.def("sub_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)");
  m.def("mul_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)");
  m.def("mul_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)");
  m.def("div_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)");
  m.def("div_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)");
  m.def("floor_divide_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)");
  m.def("floor_divide_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)");
  m.def("where.self(Tensor condition, Tensor self, Tensor other) -> Tensor");
  m.def("where.ScalarOther(Tensor condition, Tensor self, Scalar other) -> Tensor");
  m.def("where.ScalarSelf(Tensor condition, Scalar self, Tensor other) -> Tensor");
  m.def("where.Scalar(Tensor condition, Scalar self, Scalar other) -> Tensor");
  m.def("masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor");
  m.def("masked_fill.Tensor(Tensor self, Tensor mask, Tensor value) -> Tensor");
  m.def("masked_fill_.Scalar(Tensor(a!) self, Tensor mask, Scalar value) -> Tensor(a!)");
  m.def("masked_fill_.Tensor(Tensor(a!) self, Tensor mask, Tensor value) -> Tensor(a!)");
}
