// kiln runtime — eager CPU (and Meta) unary pointwise kernels on every dtype:
// sigmoid/tanh/exp/log/sin/cos/sqrt/rsqrt/erf/log1p/reciprocal/softplus/silu/hardsigmoid/hardswish
// tan/asin/acos/atan/sinh/cosh/asinh/acosh/atanh/expm1/exp2/log2/log10/erfc, mish/elu/selu
// (integers give float32), neg/abs/sign/floor/ceil/round/trunc/hardtanh/clamp
// (dtype kept), logical_not, bitwise_not, isnan/isinf/isfinite/isposinf/isneginf (bool),
// and the in-place forms (relu_, silu_, hardswish_, ...) that write into self.
#include "TensorIter.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <utility>

namespace kiln::cpu {
namespace {

using UFn = double (*)(double);

/// A floating op: integer and bool inputs compute in float32, like ATen.
Tensor floatUnary(const Tensor &self, const char *op, UFn f, Tensor out = Tensor()) {
  DType dt = isFloatingPoint(self.dtype()) ? self.dtype() : DType::Float32;
  return mapPointwise<1>({self}, dt, dt, op, [f](const double *v) { return f(v[0]); }, out);
}
/// An op that keeps the dtype (bool excluded where ATen rejects it).
Tensor sameUnary(const Tensor &self, const char *op, UFn f, Tensor out = Tensor()) {
  return mapPointwise<1>({self}, self.dtype(), self.dtype(), op, [f](const double *v) { return f(v[0]); }, out);
}

double sigmoidF(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double siluF(double x) { return x / (1.0 + std::exp(-x)); }
double hardsigmoidF(double x) { return std::min(std::max(x + 3.0, 0.0), 6.0) / 6.0; }
double hardswishF(double x) { return x * std::min(std::max(x + 3.0, 0.0), 6.0) / 6.0; }
double rsqrtF(double x) { return 1.0 / std::sqrt(x); }
double reluF(double x) { return std::isnan(x) ? x : x > 0 ? x : 0.0; }
double negF(double x) { return -x; }
double absF(double x) { return std::fabs(x); }
double expF(double x) { return std::exp(x); }
double logF(double x) { return std::log(x); }
double sinF(double x) { return std::sin(x); }
double cosF(double x) { return std::cos(x); }
double tanhF(double x) { return std::tanh(x); }
double sqrtF(double x) { return std::sqrt(x); }
double erfF(double x) { return std::erf(x); }
double log1pF(double x) { return std::log1p(x); }
double reciprocalF(double x) { return 1.0 / x; }

#define KILN_FLOAT_UNARY(NAME, FN)                                                                 \
  Tensor NAME(const Tensor &self) { return floatUnary(self, "aten::" #NAME, FN); }                \
  Tensor NAME##Inplace(Tensor self) {                                                              \
    check(isFloatingPoint(self.dtype()), "aten::" #NAME "_",                                       \
          std::string("result type Float can't be cast to the desired output type ") +            \
              dtypeTorchName(self.dtype()));                                                       \
    return floatUnary(self, "aten::" #NAME "_", FN, self);                                         \
  }
KILN_FLOAT_UNARY(sigmoid, sigmoidF)
KILN_FLOAT_UNARY(silu, siluF)
KILN_FLOAT_UNARY(hardsigmoid, hardsigmoidF)
KILN_FLOAT_UNARY(hardswish, hardswishF)
KILN_FLOAT_UNARY(rsqrt, rsqrtF)
KILN_FLOAT_UNARY(exp, expF)
KILN_FLOAT_UNARY(log, logF)
KILN_FLOAT_UNARY(sin, sinF)
KILN_FLOAT_UNARY(cos, cosF)
KILN_FLOAT_UNARY(tanh, tanhF)
KILN_FLOAT_UNARY(sqrt, sqrtF)
KILN_FLOAT_UNARY(erf, erfF)
KILN_FLOAT_UNARY(log1p, log1pF)
KILN_FLOAT_UNARY(reciprocal, reciprocalF)
#undef KILN_FLOAT_UNARY

/// The other floating unary ops of ATen's math (no in-place form): integers give float32.
struct FloatOp {
  const char *name; // aten::NAME
  UFn f;
};
const FloatOp kFloatOps[] = {
    {"aten::tan", [](double x) { return std::tan(x); }},     {"aten::asin", [](double x) { return std::asin(x); }},
    {"aten::acos", [](double x) { return std::acos(x); }},   {"aten::atan", [](double x) { return std::atan(x); }},
    {"aten::sinh", [](double x) { return std::sinh(x); }},   {"aten::cosh", [](double x) { return std::cosh(x); }},
    {"aten::asinh", [](double x) { return std::asinh(x); }}, {"aten::acosh", [](double x) { return std::acosh(x); }},
    {"aten::atanh", [](double x) { return std::atanh(x); }}, {"aten::expm1", [](double x) { return std::expm1(x); }},
    {"aten::exp2", [](double x) { return std::exp2(x); }},   {"aten::log2", [](double x) { return std::log2(x); }},
    {"aten::log10", [](double x) { return std::log10(x); }}, {"aten::erfc", [](double x) { return std::erfc(x); }},
};
template <size_t I> Tensor floatOp(const Tensor &self) {
  return floatUnary(self, kFloatOps[I].name, kFloatOps[I].f);
}
template <size_t... I> void registerFloatOps(kiln::Library &m, std::index_sequence<I...>) {
  (m.impl(kFloatOps[I].name + 6, floatOp<I>), ...); // the name without "aten::"
}

Tensor neg(const Tensor &self) {
  check(self.dtype() != DType::Bool, "aten::neg", "negation of a bool tensor is not supported, use logical_not");
  return sameUnary(self, "aten::neg", negF);
}
Tensor negInplace(Tensor self) { return sameUnary(neg(self), "aten::neg_", [](double x) { return x; }, self); }
Tensor abs(const Tensor &self) { return sameUnary(self, "aten::abs", absF); }
/// floor, ceil, trunc and round (half to even, as ATen's) keep the dtype;
/// on integers they are the identity.
Tensor floor(const Tensor &self) { return sameUnary(self, "aten::floor", [](double x) { return std::floor(x); }); }
Tensor ceil(const Tensor &self) { return sameUnary(self, "aten::ceil", [](double x) { return std::ceil(x); }); }
Tensor trunc(const Tensor &self) { return sameUnary(self, "aten::trunc", [](double x) { return std::trunc(x); }); }
Tensor round(const Tensor &self) { return sameUnary(self, "aten::round", [](double x) { return std::nearbyint(x); }); }
/// sign: -1, 0 or 1 in the input's dtype (0 for NaN and for -0.0, as ATen's).
Tensor sign(const Tensor &self) {
  return sameUnary(self, "aten::sign", [](double x) { return x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0; });
}
Tensor reluInplace(Tensor self) {
  check(self.dtype() != DType::Bool, "aten::relu_", "relu of a bool tensor is not supported");
  return sameUnary(self, "aten::relu_", reluF, self);
}
/// softplus: log(1 + exp(beta x)) / beta, x itself where beta x > threshold.
Tensor softplus(const Tensor &self, IValue beta, IValue threshold) {
  const char *op = "aten::softplus";
  double b = scalarValue(beta, op), t = scalarValue(threshold, op);
  DType dt = isFloatingPoint(self.dtype()) ? self.dtype() : DType::Float32;
  return mapPointwise<1>({self}, dt, dt, op,
                         [b, t](const double *v) { return v[0] * b > t ? v[0] : std::log1p(std::exp(v[0] * b)) / b; });
}
/// mish: x tanh(softplus(x)) (softplus's threshold 20, as ATen's).
Tensor mish(const Tensor &self) {
  DType dt = isFloatingPoint(self.dtype()) ? self.dtype() : DType::Float32;
  return mapPointwise<1>({self}, dt, dt, "aten::mish", [](const double *v) {
    return v[0] * std::tanh(v[0] > 20 ? v[0] : std::log1p(std::exp(v[0])));
  });
}
/// elu: scale x where x > 0, else scale alpha (exp(input_scale x) - 1).
Tensor elu(const Tensor &self, IValue alpha, IValue scale, IValue inputScale) {
  const char *op = "aten::elu";
  double a = scalarValue(alpha, op), s = scalarValue(scale, op), is = scalarValue(inputScale, op);
  DType dt = isFloatingPoint(self.dtype()) ? self.dtype() : DType::Float32;
  return mapPointwise<1>({self}, dt, dt, op, [a, s, is](const double *v) {
    return v[0] > 0 ? s * v[0] : s * a * std::expm1(v[0] * is);
  });
}
/// selu: elu with SELU's fixed alpha and scale.
Tensor selu(const Tensor &self) {
  DType dt = isFloatingPoint(self.dtype()) ? self.dtype() : DType::Float32;
  return mapPointwise<1>({self}, dt, dt, "aten::selu", [](const double *v) {
    const double a = 1.6732632423543772848170429916717, s = 1.0507009873554804934193349852946;
    return v[0] > 0 ? s * v[0] : s * a * std::expm1(v[0]);
  });
}
/// bitwise_not: ~x on integers, not on bools; floating dtypes are refused, as ATen does.
Tensor bitwiseNot(const Tensor &self) {
  const char *op = "aten::bitwise_not";
  check(!isFloatingPoint(self.dtype()), op,
        std::string("not implemented for ") + dtypeTorchName(self.dtype()) + " (integers and bool only)");
  bool isBool = self.dtype() == DType::Bool;
  return mapPointwise<1>({self}, self.dtype(), self.dtype(), op, [isBool](const double *v) {
    return isBool ? (v[0] == 0 ? 1.0 : 0.0) : (double)~(int64_t)v[0];
  });
}
Tensor logicalNot(const Tensor &self) {
  return mapPointwise<1>({self}, self.dtype(), DType::Bool, "aten::logical_not",
                         [](const double *v) { return v[0] == 0 ? 1.0 : 0.0; });
}
/// isnan / isinf / isfinite / isposinf / isneginf: bool, any dtype (integers are finite).
template <bool (*Test)(double)> Tensor classify(const Tensor &self, const char *op) {
  return mapPointwise<1>({self}, self.dtype(), DType::Bool, op, [](const double *v) { return Test(v[0]) ? 1.0 : 0.0; });
}
bool nanF(double x) { return std::isnan(x); }
bool infF(double x) { return std::isinf(x); }
bool finiteF(double x) { return std::isfinite(x); }
bool posinfF(double x) { return std::isinf(x) && x > 0; }
bool neginfF(double x) { return std::isinf(x) && x < 0; }
Tensor isnan(const Tensor &self) { return classify<nanF>(self, "aten::isnan"); }
Tensor isinf(const Tensor &self) { return classify<infF>(self, "aten::isinf"); }
Tensor isfinite(const Tensor &self) { return classify<finiteF>(self, "aten::isfinite"); }
Tensor isposinf(const Tensor &self) { return classify<posinfF>(self, "aten::isposinf"); }
Tensor isneginf(const Tensor &self) { return classify<neginfF>(self, "aten::isneginf"); }

/// clamp(x, lo, hi) with ATen's NaN propagation; the bounds may be absent.
Tensor clampImpl(const Tensor &self, const IValue &lo, const IValue &hi, const char *op, Tensor out) {
  check(!lo.isNone() || !hi.isNone(), op, "at least one of 'min' or 'max' must not be None");
  DType dt = resultType({{&self, nullptr}, {nullptr, &lo}, {nullptr, &hi}});
  double l = lo.isNone() ? -std::numeric_limits<double>::infinity() : roundTo(dt, scalarValue(lo, op));
  double h = hi.isNone() ? std::numeric_limits<double>::infinity() : roundTo(dt, scalarValue(hi, op));
  return mapPointwise<1>({self}, dt, dt, op,
                         [l, h](const double *v) {
                           double x = v[0];
                           if (std::isnan(x)) return x;
                           return std::min(std::max(x, l), h);
                         },
                         out);
}
Tensor clamp(const Tensor &self, IValue lo, IValue hi) { return clampImpl(self, lo, hi, "aten::clamp", {}); }
Tensor clampInplace(Tensor self, IValue lo, IValue hi) { return clampImpl(self, lo, hi, "aten::clamp_", self); }
/// clamp.Tensor: min(max(self, min), max) with tensor bounds (either may be None),
/// broadcast together and promoted as ATen's; a NaN in self or a bound gives NaN.
Tensor clampTensor(const Tensor &self, const std::optional<Tensor> &lo, const std::optional<Tensor> &hi) {
  const char *op = "aten::clamp.Tensor";
  check(lo || hi, op, "at least one of 'min' or 'max' must not be None");
  std::vector<PromoteOperand> pro{{&self, nullptr}};
  if (lo) pro.push_back({&*lo, nullptr});
  if (hi) pro.push_back({&*hi, nullptr});
  DType dt = resultType(pro);
  const double inf = std::numeric_limits<double>::infinity();
  Tensor l = lo ? *lo : scalarOperand(IValue(-inf), op);
  Tensor h = hi ? *hi : scalarOperand(IValue(inf), op);
  return mapPointwise<3>({self, l, h}, dt, dt, op, [](const double *v) {
    if (std::isnan(v[0]) || std::isnan(v[1]) || std::isnan(v[2])) return std::numeric_limits<double>::quiet_NaN();
    return std::min(std::max(v[0], v[1]), v[2]);
  });
}
Tensor clampMin(const Tensor &self, IValue lo) { return clampImpl(self, lo, IValue(), "aten::clamp_min", {}); }
Tensor clampMax(const Tensor &self, IValue hi) { return clampImpl(self, IValue(), hi, "aten::clamp_max", {}); }
/// leaky_relu: x, or x * negative_slope below 0 (NaN stays NaN); floating
/// dtypes only, as in ATen.
Tensor leakyReluImpl(const Tensor &self, const IValue &slope, const char *op, Tensor out) {
  check(isFloatingPoint(self.dtype()), op, std::string("not implemented for ") + dtypeTorchName(self.dtype()));
  double a = scalarValue(slope, op);
  return mapPointwise<1>({self}, self.dtype(), self.dtype(), op,
                         [a](const double *v) { return v[0] > 0 || std::isnan(v[0]) ? v[0] : v[0] * a; }, out);
}
Tensor leakyRelu(const Tensor &self, IValue slope) { return leakyReluImpl(self, slope, "aten::leaky_relu", {}); }
Tensor leakyReluInplace(Tensor self, IValue slope) {
  return leakyReluImpl(self, slope, "aten::leaky_relu_", self);
}
/// square: x * x in the input's dtype (bool becomes int64, as ATen's pow(x, 2)).
Tensor square(const Tensor &self) {
  DType dt = self.dtype() == DType::Bool ? DType::Int64 : self.dtype();
  return mapPointwise<1>({self}, dt, dt, "aten::square", [](const double *v) { return v[0] * v[0]; });
}
Tensor hardtanh(const Tensor &self, IValue lo, IValue hi) {
  check(self.dtype() != DType::Bool, "aten::hardtanh", "hardtanh of a bool tensor is not supported");
  return clampImpl(self, lo, hi, "aten::hardtanh", {});
}
Tensor hardtanhInplace(Tensor self, IValue lo, IValue hi) { return clampImpl(self, lo, hi, "aten::hardtanh_", self); }

KILN_LIBRARY_IMPL_CPU_AND_META(aten, m) {
  registerFloatOps(m, std::make_index_sequence<std::size(kFloatOps)>());
  m.impl("sigmoid", sigmoid);
  m.impl("sigmoid_", sigmoidInplace);
  m.impl("silu", silu);
  m.impl("silu_", siluInplace);
  m.impl("hardsigmoid", hardsigmoid);
  m.impl("hardsigmoid_", hardsigmoidInplace);
  m.impl("hardswish", hardswish);
  m.impl("hardswish_", hardswishInplace);
  m.impl("rsqrt", rsqrt);
  m.impl("exp", exp);
  m.impl("log", log);
  m.impl("sin", sin);
  m.impl("cos", cos);
  m.impl("tanh", tanh);
  m.impl("tanh_", tanhInplace);
  m.impl("sqrt", sqrt);
  m.impl("erf", erf);
  m.impl("log1p", log1p);
  m.impl("reciprocal", reciprocal);
  m.impl("softplus", softplus);
  m.impl("mish", mish);
  m.impl("elu", elu);
  m.impl("selu", selu);
  m.impl("neg", neg);
  m.impl("neg_", negInplace);
  m.impl("abs", abs);
  m.impl("sign", sign);
  m.impl("floor", floor);
  m.impl("ceil", ceil);
  m.impl("trunc", trunc);
  m.impl("round", round);
  m.impl("relu_", reluInplace);
  m.impl("logical_not", logicalNot);
  m.impl("isnan", isnan);
  m.impl("isinf", isinf);
  m.impl("isfinite", isfinite);
  m.impl("isposinf", isposinf);
  m.impl("isneginf", isneginf);
  m.impl("bitwise_not", bitwiseNot);
  m.impl("clamp", clamp);
  m.impl("clamp.Tensor", clampTensor);
  m.impl("clamp_", clampInplace);
  m.impl("clamp_min", clampMin);
  m.impl("clamp_max", clampMax);
  m.impl("hardtanh", hardtanh);
  m.impl("hardtanh_", hardtanhInplace);
  m.impl("leaky_relu", leakyRelu);
  m.impl("leaky_relu_", leakyReluInplace);
  m.impl("square", square);
}

} // namespace
} // namespace kiln::cpu

KILN_LIBRARY_FRAGMENT(aten, m) {
  for (const char *f : {"sigmoid", "silu", "hardsigmoid", "hardswish", "tanh", "neg"}) {
    m.def(std::string(f) + "(Tensor self) -> Tensor");
    m.def(std::string(f) + "_(Tensor(a!) self) -> Tensor(a!)");
  }
  for (const char *f : {"rsqrt", "exp", "log", "sin", "cos", "sqrt", "erf", "log1p", "reciprocal", "abs", "sign", "floor", "ceil",
                        "trunc", "round", "logical_not", "bitwise_not", "tan", "asin", "acos", "atan", "sinh", "cosh",
                        "asinh", "acosh", "atanh", "expm1", "exp2", "log2", "log10", "erfc", "isnan", "isinf",
                        "isfinite", "isposinf", "isneginf"})
    m.def(std::string(f) + "(Tensor self) -> Tensor");
  m.def("relu_(Tensor(a!) self) -> Tensor(a!)");
  m.def("leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor");
  m.def("leaky_relu_(Tensor(a!) self, Scalar negative_slope=0.01) -> Tensor(a!)");
  m.def("square(Tensor self) -> Tensor");
  m.def("softplus(Tensor self, Scalar beta=1, Scalar threshold=20) -> Tensor");
  m.def("mish(Tensor self) -> Tensor");
  m.def("elu(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor");
  m.def("selu(Tensor self) -> Tensor");
  m.def("clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor");
  m.def("clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor");
  m.def("clamp_(Tensor(a!) self, Scalar? min=None, Scalar? max=None) -> Tensor(a!)");
  m.def("clamp_min(Tensor self, Scalar min) -> Tensor");
  m.def("clamp_max(Tensor self, Scalar max) -> Tensor");
  m.def("hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor");
  m.def("hardtanh_(Tensor(a!) self, Scalar min_val=-1, Scalar max_val=1) -> Tensor(a!)");
}
