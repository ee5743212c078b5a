// kiln runtime — eager CPU (and Meta) kernels of the special functions:
// lgamma, digamma, polygamma, mvlgamma, zeta, the Bessel functions, erfcx,
// ndtri, erfinv, log_ndtr, incomplete gamma, the orthogonal polynomials, nextafter
// and frexp. Elementwise with broadcasting; every dtype in, computed in
// float64 (SpecialMath.h), integers and bool give float32 as in ATen.
#include "KernelUtils.h"
#include "SpecialMath.h"

#include <cmath>
#include <optional>
#include <tuple>

namespace kiln::cpu {
namespace {

namespace sf = special;

bool isFloat(DType t) {
  return t == DType::Float32 || t == DType::Float64 || t == DType::Float16 ||
         t == DType::BFloat16;
}
/// ATen's result dtype for an int-to-float op of these operands.
DType floatResult(DType t) { return isFloat(t) ? t : DType::Float32; }

/// Element offsets of `t` for every element of `outSizes` (row-major).
std::vector<int64_t> offsets(const Tensor &t, const std::vector<int64_t> &outSizes) {
  std::vector<int64_t> st = broadcastStrides(t, outSizes);
  int64_t n = 1;
  for (int64_t s : outSizes) n *= s;
  std::vector<int64_t> off(n);
  for (int64_t i = 0; i < n; ++i) {
    int64_t pos = i, o = 0;
    for (int64_t d = (int64_t)outSizes.size() - 1; d >= 0; --d) {
      o += (pos % outSizes[d]) * st[d];
      pos /= outSizes[d];
    }
    off[i] = o;
  }
  return off;
}

/// out[i] = fn(a[i]) in float64.
template <typename F> Tensor unary(const Tensor &self, F fn) {
  DType rt = floatResult(self.dtype());
  Tensor out = emptyLike(self.sizes(), rt, self);
  if (isMeta(self) || out.numel() == 0) return out;
  std::vector<int64_t> off = offsets(self, self.sizes());
  const char *s = static_cast<const char *>(self.rawData());
  char *d = static_cast<char *>(out.rawData());
  size_t si = dtypeSize(self.dtype()), di = dtypeSize(rt);
  parallelFor(out.numel(), 1024, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i)
      storeDouble(d + i * di, rt, fn(loadDouble(s + off[i] * si, self.dtype())));
  });
  return out;
}

/// out[i] = fn(a[i], b[i]) in float64, a and b broadcast.
template <typename F> Tensor binary(const char *op, const Tensor &a, const Tensor &b, F fn) {
  std::vector<int64_t> sizes = broadcastShapes(a.sizes(), b.sizes(), op);
  DType rt = floatResult(promoteTypes(a.dtype(), b.dtype()));
  if (isFloat(a.dtype()) && !isFloat(b.dtype())) rt = a.dtype();
  if (isFloat(b.dtype()) && !isFloat(a.dtype())) rt = b.dtype();
  Tensor out = emptyLike(sizes, rt, a);
  if (isMeta(a) || out.numel() == 0) return out;
  std::vector<int64_t> oa = offsets(a, sizes), ob = offsets(b, sizes);
  const char *pa = static_cast<const char *>(a.rawData());
  const char *pb = static_cast<const char *>(b.rawData());
  char *d = static_cast<char *>(out.rawData());
  size_t sa = dtypeSize(a.dtype()), sb = dtypeSize(b.dtype()), di = dtypeSize(rt);
  parallelFor(out.numel(), 1024, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i)
      storeDouble(d + i * di, rt,
                  fn(loadDouble(pa + oa[i] * sa, a.dtype()), loadDouble(pb + ob[i] * sb, b.dtype())));
  });
  return out;
}

/// A 0-d float64 tensor holding a Scalar argument.
Tensor scalarTensor(double v, const Tensor &like) {
  Tensor t = Tensor::empty({}, DType::Float64, like.device());
  if (!isMeta(like)) *t.data<double>() = v;
  return t;
}

#define KILN_UNARY(NAME, EXPR)                                                                     \
  Tensor NAME(const Tensor &x) {                                                                   \
    return unary(x, [](double v) { return EXPR; });                                                \
  }
KILN_UNARY(lgammaK, sf::logGamma(v))
KILN_UNARY(digammaK, sf::digamma(v))
KILN_UNARY(i0K, sf::besselI(0, v, false))
KILN_UNARY(i0eK, sf::besselI(0, v, true))
KILN_UNARY(i1K, sf::besselI(1, v, false))
KILN_UNARY(i1eK, sf::besselI(1, v, true))
KILN_UNARY(k0K, sf::besselK(0, v, false))
KILN_UNARY(k1K, sf::besselK(1, v, false))
KILN_UNARY(k0eK, sf::besselK(0, v, true))
KILN_UNARY(k1eK, sf::besselK(1, v, true))
KILN_UNARY(j0K, sf::besselJ(0, v))
KILN_UNARY(j1K, sf::besselJ(1, v))
KILN_UNARY(y0K, sf::besselY(0, v))
KILN_UNARY(y1K, sf::besselY(1, v))
KILN_UNARY(sphericalJ0K, sf::sphericalBesselJ0(v))
KILN_UNARY(airyAiK, sf::airyAi(v))
KILN_UNARY(erfcxK, sf::erfcx(v))
KILN_UNARY(logNdtrK, sf::logNdtr(v))
KILN_UNARY(ndtriK, sf::ndtri(v))
KILN_UNARY(erfinvK, sf::erfinv(v))
#undef KILN_UNARY

Tensor polygammaK(int64_t n, const Tensor &x) {
  check(n >= 0, "aten::polygamma", "the order n must be non-negative, got " + std::to_string(n));
  // ATen evaluates trigamma in the input's precision (its reflection's sine
  // loses digits near the poles); float32 and narrower follow it so results
  // agree with PyTorch there.
  if (n == 1 && x.dtype() != DType::Float64)
    return unary(x, [](double v) { return (double)sf::trigammaFloat((float)v); });
  return unary(x, [n](double v) { return sf::polygamma(n, v); });
}
Tensor mvlgammaK(const Tensor &x, int64_t p) {
  check(p >= 1, "aten::mvlgamma", "p must be at least 1, got " + std::to_string(p));
  return unary(x, [p](double v) { return sf::mvlgamma(v, p); });
}
Tensor zetaK(const Tensor &x, const Tensor &q) {
  return binary("aten::special_zeta", x, q, [](double s, double a) { return sf::zeta(s, a); });
}
Tensor zetaSelfScalar(double x, const Tensor &q) { return zetaK(scalarTensor(x, q), q); }
Tensor zetaOtherScalar(const Tensor &x, double q) { return zetaK(x, scalarTensor(q, x)); }
Tensor igammaK(const Tensor &a, const Tensor &x) {
  return binary("aten::igamma", a, x, [](double p, double q) { return sf::igamma(p, q); });
}
Tensor igammacK(const Tensor &a, const Tensor &x) {
  return binary("aten::igammac", a, x, [](double p, double q) { return sf::igammac(p, q); });
}

/// The three overloads of one orthogonal polynomial.
template <sf::Poly K> Tensor poly(const Tensor &x, const Tensor &n) {
  return binary("aten::special_*_polynomial", x, n,
                [](double a, double d) { return sf::polynomial(K, a, d); });
}
template <sf::Poly K> Tensor polyXScalar(double x, const Tensor &n) {
  return poly<K>(scalarTensor(x, n), n);
}
template <sf::Poly K> Tensor polyNScalar(const Tensor &x, double n) {
  return poly<K>(x, scalarTensor(n, x));
}
/// The shifted Chebyshev polynomials: P*(x) = P(2x - 1).
template <sf::Poly K> Tensor shifted(const Tensor &x, const Tensor &n) {
  return binary("aten::special_shifted_chebyshev_polynomial", x, n,
                [](double a, double d) { return sf::polynomial(K, 2 * a - 1, d); });
}
template <sf::Poly K> Tensor shiftedXScalar(double x, const Tensor &n) {
  return shifted<K>(scalarTensor(x, n), n);
}
template <sf::Poly K> Tensor shiftedNScalar(const Tensor &x, double n) {
  return shifted<K>(x, scalarTensor(n, x));
}

/// nextafter in the operands' own float dtype (float32 steps by float32 ulps).
Tensor nextafterK(const Tensor &self, const Tensor &other) {
  const char *op = "aten::nextafter";
  check(self.dtype() == other.dtype(), op, "self and other must have one dtype");
  std::vector<int64_t> sizes = broadcastShapes(self.sizes(), other.sizes(), op);
  Tensor out = emptyLike(sizes, self.dtype(), self);
  if (isMeta(self) || out.numel() == 0) return out;
  std::vector<int64_t> oa = offsets(self, sizes), ob = offsets(other, sizes);
  dispatchFloat(self.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T *a = self.data<T>(), *b = other.data<T>();
    T *o = out.data<T>();
    for (int64_t i = 0, n = out.numel(); i < n; ++i) o[i] = std::nextafter(a[oa[i]], b[ob[i]]);
  });
  return out;
}

/// frexp: mantissa in [0.5, 1) (self's dtype) and an int32 exponent.
std::tuple<Tensor, Tensor> frexpK(const Tensor &self) {
  const char *op = "aten::frexp";
  check(isFloat(self.dtype()), op,
        std::string("expects a floating-point input, got ") + dtypeName(self.dtype()));
  Tensor m = emptyLike(self.sizes(), self.dtype(), self);
  Tensor e = emptyLike(self.sizes(), DType::Int32, self);
  if (isMeta(self) || m.numel() == 0) return {m, e};
  std::vector<int64_t> off = offsets(self, self.sizes());
  const char *s = static_cast<const char *>(self.rawData());
  char *pm = static_cast<char *>(m.rawData());
  int32_t *pe = e.data<int32_t>();
  size_t es = dtypeSize(self.dtype());
  for (int64_t i = 0, n = m.numel(); i < n; ++i) {
    int ex = 0;
    double v = loadDouble(s + off[i] * es, self.dtype());
    double man = std::isfinite(v) ? std::frexp(v, &ex) : v;
    storeDouble(pm + i * es, self.dtype(), man);
    pe[i] = std::isfinite(v) ? ex : 0;
  }
  return {m, e};
}

} // namespace
} // namespace kiln::cpu

/// The same kernels serve CPU and Meta (on Meta tensors they only compute shapes).
KILN_LIBRARY_IMPL_CPU_AND_META(aten, m) {
  using namespace kiln::cpu;
  using P = kiln::cpu::special::Poly;
  m.impl("lgamma", lgammaK);
  m.impl("special_gammaln", lgammaK);
  m.impl("digamma", digammaK);
  m.impl("special_digamma", digammaK);
  m.impl("special_psi", digammaK);
  m.impl("polygamma", polygammaK);
  m.impl("special_polygamma", polygammaK);
  m.impl("mvlgamma", mvlgammaK);
  m.impl("special_multigammaln", mvlgammaK);
  m.impl("special_zeta", zetaK);
  m.impl("special_zeta.self_scalar", zetaSelfScalar);
  m.impl("special_zeta.other_scalar", zetaOtherScalar);
  m.impl("igamma", igammaK);
  m.impl("special_gammainc", igammaK);
  m.impl("igammac", igammacK);
  m.impl("special_gammaincc", igammacK);
  m.impl("i0", i0K);
  m.impl("special_i0", i0K);
  m.impl("special_i0e", i0eK);
  m.impl("special_i1", i1K);
  m.impl("special_i1e", i1eK);
  m.impl("special_modified_bessel_i0", i0K);
  m.impl("special_modified_bessel_i1", i1K);
  m.impl("special_modified_bessel_k0", k0K);
  m.impl("special_modified_bessel_k1", k1K);
  m.impl("special_scaled_modified_bessel_k0", k0eK);
  m.impl("special_scaled_modified_bessel_k1", k1eK);
  m.impl("special_bessel_j0", j0K);
  m.impl("special_bessel_j1", j1K);
  m.impl("special_bessel_y0", y0K);
  m.impl("special_bessel_y1", y1K);
  m.impl("special_spherical_bessel_j0", sphericalJ0K);
  m.impl("special_airy_ai", airyAiK);
  m.impl("special_erfcx", erfcxK);
  m.impl("special_log_ndtr", logNdtrK);
  m.impl("special_ndtri", ndtriK);
  m.impl("erfinv", erfinvK);
  m.impl("nextafter", nextafterK);
  m.impl("frexp.Tensor", frexpK);
#define KILN_POLY(NAME, KIND, FN)                                                                  \
  m.impl(NAME, FN<KIND>);                                                                          \
  m.impl(NAME ".x_scalar", FN##XScalar<KIND>);                                                     \
  m.impl(NAME ".n_scalar", FN##NScalar<KIND>);
  KILN_POLY("special_chebyshev_polynomial_t", P::ChebyshevT, poly)
  KILN_POLY("special_chebyshev_polynomial_u", P::ChebyshevU, poly)
  KILN_POLY("special_chebyshev_polynomial_v", P::ChebyshevV, poly)
  KILN_POLY("special_chebyshev_polynomial_w", P::ChebyshevW, poly)
  KILN_POLY("special_hermite_polynomial_h", P::HermiteH, poly)
  KILN_POLY("special_hermite_polynomial_he", P::HermiteHe, poly)
  KILN_POLY("special_laguerre_polynomial_l", P::Laguerre, poly)
  KILN_POLY("special_legendre_polynomial_p", P::Legendre, poly)
  KILN_POLY("special_shifted_chebyshev_polynomial_t", P::ChebyshevT, shifted)
  KILN_POLY("special_shifted_chebyshev_polynomial_u", P::ChebyshevU, shifted)
  KILN_POLY("special_shifted_chebyshev_polynomial_v", P::ChebyshevV, shifted)
  KILN_POLY("special_shifted_chebyshev_polynomial_w", P::ChebyshevW, shifted)
#undef KILN_POLY
}
