// kiln runtime — backward formulas of the special functions the runtime runs:
// the gamma family (lgamma' = digamma, polygamma(n, .)' = polygamma(n + 1, .),
// mvlgamma), the modified Bessel functions i0/i1 and their scaled forms,
// erfcx, log_ndtr, ndtri and frexp's mantissa.
#include "FormulaUtils.h"

#include <cmath>

namespace kiln {
namespace {

using Grads = std::vector<Tensor>;
using Ctx = AutogradContext;

Tensor times(const Tensor &g, const Tensor &d) { return call<Tensor>("aten::mul.Tensor", g, d); }

/// g * f(x, y, a...) elementwise in float64 (x the input, y the output, a the extra tensors),
/// in x's dtype; the tensors all have x's shape.
template <typename F>
Tensor pointwise(const Tensor &x, const Tensor &y, const Tensor &g, const std::vector<Tensor> &aux, F f) {
  Tensor xd = formulas::f64(x), yd = formulas::f64(y), gd = formulas::f64(g), out = Tensor::empty(x.sizes(), DType::Float64);
  std::vector<Tensor> ad;
  for (const Tensor &a : aux) ad.push_back(formulas::f64(a));
  std::vector<double> av(ad.size());
  for (int64_t i = 0; i < out.numel(); ++i) {
    for (size_t k = 0; k < ad.size(); ++k) av[k] = ad[k].data<double>()[i];
    out.data<double>()[i] = gd.data<double>()[i] * f(xd.data<double>()[i], yd.data<double>()[i], av);
  }
  return formulas::as(out, x.dtype());
}

/// Registers the formula of a unary op `op` whose derivative is f(x, y, aux) with aux = `auxOps` of x.
template <typename F> void unary(Library &m, const char *op, std::vector<const char *> auxOps, F f) {
  m.register_autograd(op, [auxOps, f](const Ctx &c, const Grads &g) -> Grads {
    if (g.empty() || !g[0].defined()) return {Tensor()};
    Tensor x = formulas::f64(c.input(0));
    std::vector<Tensor> aux;
    for (const char *a : auxOps) aux.push_back(call<Tensor>(a, x));
    return {pointwise(c.input(0), c.output(0), g[0], aux, f)};
  });
}

double sgn(double x) { return (x > 0) - (x < 0); }
const double kPi = 3.14159265358979323846;

} // namespace
} // namespace kiln

KILN_LIBRARY_FRAGMENT(aten, m) {
  using namespace kiln;
  m.register_autograd("lgamma", [](const Ctx &c, const Grads &g) -> Grads {
    if (g.empty() || !g[0].defined()) return {Tensor()};
    return {times(g[0], call<Tensor>("aten::digamma", c.input(0)))};
  });
  m.register_autograd("digamma", [](const Ctx &c, const Grads &g) -> Grads {
    if (g.empty() || !g[0].defined()) return {Tensor()};
    return {times(g[0], call<Tensor>("aten::polygamma", int64_t(1), c.input(0)))};
  });
  // polygamma(int n, Tensor self): n has no gradient.
  m.register_autograd("polygamma", [](const Ctx &c, const Grads &g) -> Grads {
    if (g.empty() || !g[0].defined()) return {Tensor(), Tensor()};
    return {Tensor(), times(g[0], call<Tensor>("aten::polygamma", c.inputs[0].toInt() + 1, c.input(1)))};
  });
  m.register_autograd("special_polygamma", [](const Ctx &c, const Grads &g) -> Grads {
    if (g.empty() || !g[0].defined()) return {Tensor(), Tensor()};
    return {Tensor(), times(g[0], call<Tensor>("aten::polygamma", c.inputs[0].toInt() + 1, c.input(1)))};
  });
  // mvlgamma(self, p) = const + sum_{i<p} lgamma(self - i/2).
  for (const char *op : {"mvlgamma", "special_multigammaln"})
    m.register_autograd(op, [](const Ctx &c, const Grads &g) -> Grads {
      if (g.empty() || !g[0].defined()) return {Tensor()};
      Tensor x = formulas::f64(c.input(0)), d;
      for (int64_t i = 0; i < c.inputs[1].toInt(); ++i) {
        Tensor t = call<Tensor>("aten::digamma", formulas::sub(x, formulas::scalar(0.5 * (double)i)));
        d = d.defined() ? formulas::add(d, t) : t;
      }
      return {pointwise(c.input(0), c.output(0), g[0], {d}, [](double, double, auto &a) { return a[0]; })};
    });
  // i0' = i1; i0e' = i1e - sgn(x) i0e; i1' = i0 - i1 / x; i1e' = i0e - i1e (sgn(x) + 1 / x).
  for (const char *op : {"i0", "special_i0", "special_modified_bessel_i0"})
    unary(m, op, {"aten::special_i1"}, [](double, double, auto &a) { return a[0]; });
  unary(m, "special_i0e", {"aten::special_i1e"}, [](double x, double y, auto &a) { return a[0] - sgn(x) * y; });
  for (const char *op : {"special_i1", "special_modified_bessel_i1"})
    unary(m, op, {"aten::special_i0"}, [](double x, double y, auto &a) { return x == 0 ? 0.5 : a[0] - y / x; });
  unary(m, "special_i1e", {"aten::special_i0e"},
        [](double x, double y, auto &a) { return x == 0 ? 0.5 : a[0] - y * (sgn(x) + 1.0 / x); });
  // erfcx' = 2 x erfcx(x) - 2 / sqrt(pi); log_ndtr' = pdf(x) / ndtr(x); ndtri' = 1 / pdf(ndtri(x)).
  unary(m, "special_erfcx", {}, [](double x, double y, auto &) { return 2.0 * x * y - 2.0 / std::sqrt(kPi); });
  unary(m, "special_log_ndtr", {},
        [](double x, double y, auto &) { return std::exp(-0.5 * x * x - y) / std::sqrt(2.0 * kPi); });
  unary(m, "special_ndtri", {}, [](double, double y, auto &) { return std::sqrt(2.0 * kPi) * std::exp(0.5 * y * y); });
  // erfinv' = sqrt(pi) / 2 exp(erfinv(x)^2).
  unary(m, "erfinv", {}, [](double, double y, auto &) { return std::sqrt(kPi) / 2 * std::exp(y * y); });
  // frexp(self) -> (mantissa, exponent): self = mantissa * 2^exponent, the exponent held fixed.
  m.register_autograd("frexp.Tensor", [](const Ctx &c, const Grads &g) -> Grads {
    if (g.empty() || !g[0].defined()) return {Tensor()};
    return {pointwise(c.input(0), c.output(0), g[0], {c.output(1)},
                      [](double, double, auto &a) { return std::ldexp(1.0, -(int)a[0]); })};
  });
}
