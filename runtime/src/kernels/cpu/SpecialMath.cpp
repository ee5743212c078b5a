// kiln runtime — scalar special functions in float64 (see SpecialMath.h):
// series, recurrences, asymptotic expansions and exponentially convergent
// trapezoid sums of integral representations, each evaluated in float64 so a
// float32 result is correctly rounded or close to it.
#include "SpecialMath.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <math.h>

namespace kiln::cpu::special {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kEuler = 0.57721566490153286061;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kEps = 1e-17;

bool isInteger(double x) { return std::isfinite(x) && std::floor(x) == x; }

/// Hankel's asymptotic P and Q of order nu at x (large x).
void hankelPQ(double nu, double x, double &P, double &Q) {
  double mu = 4 * nu * nu, a = 1, prev = kInf;
  P = 1;
  Q = 0;
  for (int k = 1; k < 200; ++k) {
    a *= (mu - (2.0 * k - 1) * (2.0 * k - 1)) / (k * 8.0 * x);
    double m = std::abs(a);
    if (m > prev || m < kEps) break; // the series is asymptotic: stop at its smallest term
    prev = m;
    // a_k enters P (k even) or Q (k odd) with the sign (-1)^floor(k/2).
    double s = ((k / 2) % 2) ? -1.0 : 1.0;
    if (k % 2) Q += s * a;
    else P += s * a;
  }
}

/// cos and sin of x - phase, with x reduced by the C library (exact for large x).
void shiftedCosSin(double x, double phase, double &c, double &s) {
  double cx = std::cos(x), sx = std::sin(x), cp = std::cos(phase), sp = std::sin(phase);
  c = cx * cp + sx * sp;
  s = sx * cp - cx * sp;
}

/// exp(x) K_nu(x) for x > 0: the trapezoid sum of the integral of
/// exp(-x (cosh t - 1)) cosh(nu t) over t >= 0. Its error falls like
/// exp(-pi^2 / (2 h)) and, for large x where the integrand is a Gaussian of
/// width 1/sqrt(x), like exp(-2 pi^2 / (h^2 x)): both far below float64
/// rounding for h = min(0.1, 0.5 / sqrt(x)).
double scaledK(double nu, double x) {
  const double h = std::min(0.1, 0.5 / std::sqrt(x));
  double sum = 0.5;
  for (int k = 1; k < 100000; ++k) {
    double t = k * h;
    double v = std::exp(-x * (std::cosh(t) - 1)) * std::cosh(nu * t);
    sum += v;
    if (v < kEps * sum) break;
  }
  return h * sum;
}

} // namespace

double logGamma(double x) {
#if defined(__GLIBC__)
  int sign; // lgamma_r: std::lgamma writes the global signgam (a data race between threads)
  return ::lgamma_r(x, &sign);
#else
  return std::lgamma(x);
#endif
}

double digamma(double x) {
  if (std::isnan(x)) return x;
  if (x == 0) return std::copysign(kInf, -x);
  if (x < 0) {
    if (isInteger(x)) return kNaN;
    if (x == -kInf) return kNaN;
    // Reflection: psi(x) = psi(1 - x) - pi / tan(pi x), tan read off the fraction.
    double r = x - std::floor(x);
    return digamma(1 - x) - kPi / std::tan(kPi * r);
  }
  if (x == kInf) return kInf;
  double acc = 0;
  while (x < 10) {
    acc -= 1 / x;
    x += 1;
  }
  // Asymptotic series: log x - 1/(2x) - sum B_2k / (2k x^2k).
  static const double c[] = {1.0 / 12, -1.0 / 120, 1.0 / 252, -1.0 / 240,
                             1.0 / 132, -691.0 / 32760, 1.0 / 12};
  double z = 1 / (x * x), poly = 0;
  for (int i = 6; i >= 0; --i) poly = c[i] + z * poly;
  return acc + std::log(x) - 0.5 / x - z * poly;
}

double zeta(double s, double q) {
  if (std::isnan(s) || std::isnan(q)) return kNaN;
  if (s == 1) return kInf;
  if (s < 1) return kNaN;
  if (q <= 0) {
    if (q == std::floor(q)) return kInf;
    if (!isInteger(s)) return kNaN;
  }
  // Direct terms up to a >= 10 (at least 9 of them), then Euler-Maclaurin.
  double sum = 0, a = q;
  for (int i = 0; a < 10 || i < 9; ++i) {
    sum += std::pow(a, -s);
    a += 1;
  }
  double w = std::pow(a, -s);
  sum += w * a / (s - 1) + 0.5 * w;
  // sum_j B_2j / (2j)! s (s+1) ... (s+2j-2) a^(-s-2j+1)
  static const double bern[] = {1.0 / 6,       -1.0 / 30, 1.0 / 42,        -1.0 / 30,
                                5.0 / 66,      -691.0 / 2730, 7.0 / 6,    -3617.0 / 510,
                                43867.0 / 798, -174611.0 / 330};
  double rising = s, term = w / a, fact = 2;
  for (int j = 1; j <= 10; ++j) {
    double t = bern[j - 1] / fact * rising * term;
    sum += t;
    if (std::abs(t) < kEps * std::abs(sum)) break;
    rising *= (s + 2 * j - 1) * (s + 2 * j);
    term /= a * a;
    fact *= (2.0 * j + 1) * (2.0 * j + 2);
  }
  return sum;
}

double polygamma(int64_t n, double x) {
  if (n == 0) return digamma(x);
  double fact = std::tgamma((double)n + 1);
  return (n % 2 ? fact : -fact) * zeta((double)n + 1, x);
}

float trigammaFloat(float x) {
  const float pi = 3.14159265358979323846f;
  float sign = 1, r = 0;
  if (x < 0.5f) {
    // trigamma(x) = -trigamma(1 - x) + pi^2 / sin^2(pi x)
    sign = -1;
    float s = std::sin(pi * x);
    r -= (pi * pi) / (s * s);
    x = 1 - x;
  }
  for (int i = 0; i < 6; ++i) {
    r += 1 / (x * x);
    x += 1;
  }
  // 1/x + 1/(2x^2) + 1/(6x^3) - 1/(30x^5) + 1/(42x^7)
  float z = 1 / (x * x);
  r += (1 + 1 / (2 * x) + z * (1.0f / 6 - z * (1.0f / 30 - z * (1.0f / 42)))) / x;
  return sign * r;
}

double mvlgamma(double x, int64_t p) {
  double r = p * (p - 1) / 4.0 * std::log(kPi);
  for (int64_t i = 0; i < p; ++i) r += logGamma(x - i / 2.0);
  return r;
}

double besselI(int nu, double x, bool scaled) {
  if (std::isnan(x)) return x;
  double ax = std::abs(x), r;
  if (ax <= 30) {
    // sum_k (x/2)^(2k+nu) / (k! (k+nu)!): every term positive.
    double t = nu ? ax / 2 : 1, sum = t, q = ax * ax / 4;
    for (int k = 1; k < 500; ++k) {
      t *= q / (k * (double)(k + nu));
      sum += t;
      if (t < kEps * sum) break;
    }
    r = scaled ? sum * std::exp(-ax) : sum;
  } else if (ax == kInf) {
    r = scaled ? 0 : kInf;
  } else {
    // e^x / sqrt(2 pi x) (1 - (mu-1)/(8x) + (mu-1)(mu-9)/(2! (8x)^2) - ...)
    double mu = 4.0 * nu * nu, a = 1, sum = 1, prev = kInf;
    for (int k = 1; k < 200; ++k) {
      a *= -(mu - (2.0 * k - 1) * (2.0 * k - 1)) / (k * 8.0 * ax);
      if (std::abs(a) > prev || std::abs(a) < kEps) break;
      prev = std::abs(a);
      sum += a;
    }
    r = sum / std::sqrt(2 * kPi * ax);
    if (!scaled) r = ax > 700 ? r * std::exp(ax - 350) * std::exp(350.0) : r * std::exp(ax);
  }
  return nu % 2 && x < 0 ? -r : r;
}

double besselK(int nu, double x, bool scaled) {
  if (std::isnan(x)) return x;
  if (x < 0) return kNaN;
  if (x == 0) return kInf;
  if (x == kInf) return scaled ? 0 : 0;
  double r = scaledK(nu, x);
  return scaled ? r : r * std::exp(-x);
}

double besselJ(int nu, double x) {
  if (std::isnan(x)) return x;
  double ax = std::abs(x), r;
  if (ax == kInf) return 0;
  if (ax <= 12) {
    double t = nu ? ax / 2 : 1, sum = t, q = ax * ax / 4;
    for (int k = 1; k < 500; ++k) {
      t *= -q / (k * (double)(k + nu));
      sum += t;
      if (std::abs(t) < kEps * std::max(std::abs(sum), 1e-300) && k > q) break;
    }
    r = sum;
  } else {
    double P, Q, c, s;
    hankelPQ(nu, ax, P, Q);
    shiftedCosSin(ax, (nu / 2.0 + 0.25) * kPi, c, s);
    r = std::sqrt(2 / (kPi * ax)) * (P * c - Q * s);
  }
  return nu % 2 && x < 0 ? -r : r;
}

double besselY(int nu, double x) {
  if (std::isnan(x)) return x;
  if (x < 0) return kNaN;
  if (x == 0) return -kInf;
  if (x == kInf) return 0;
  if (x <= 12) {
    double q = x * x / 4, lg = std::log(x / 2);
    if (nu == 0) {
      // (2/pi) (log(x/2) + gamma) J0 + (2/pi) sum_k>=1 (-1)^(k+1) H_k (x^2/4)^k / (k!)^2
      double t = 1, h = 0, sum = 0;
      for (int k = 1; k < 500; ++k) {
        t *= -q / ((double)k * k);
        h += 1.0 / k;
        double term = -t * h;
        sum += term;
        if (std::abs(term) < kEps * std::max(std::abs(sum), 1e-300) && k > q) break;
      }
      return 2 / kPi * ((lg + kEuler) * besselJ(0, x) + sum);
    }
    // (2/pi) J1 log(x/2) - 2/(pi x)
    //   - (1/pi) sum_k (psi(k+1) + psi(k+2)) (-x^2/4)^k (x/2) / (k! (k+1)!)
    double t = x / 2, hk = 0, sum = 0;
    for (int k = 0; k < 500; ++k) {
      if (k > 0) {
        t *= -q / ((double)k * (k + 1));
        hk += 1.0 / k;
      }
      double psiSum = -2 * kEuler + 2 * hk + 1.0 / (k + 1);
      double term = psiSum * t;
      sum += term;
      if (k > q && std::abs(term) < kEps * std::max(std::abs(sum), 1e-300)) break;
    }
    return 2 / kPi * besselJ(1, x) * lg - 2 / (kPi * x) - sum / kPi;
  }
  double P, Q, c, s;
  hankelPQ(nu, x, P, Q);
  shiftedCosSin(x, (nu / 2.0 + 0.25) * kPi, c, s);
  return std::sqrt(2 / (kPi * x)) * (P * s + Q * c);
}

double sphericalBesselJ0(double x) {
  if (std::isinf(x)) return 0;
  if (std::abs(x) < 0.5) {
    double x2 = x * x, t = 1, sum = 1;
    for (int k = 1; k < 20; ++k) {
      t *= -x2 / ((2.0 * k) * (2.0 * k + 1));
      sum += t;
    }
    return sum;
  }
  return std::sin(x) / x;
}

double airyAi(double x) {
  if (std::isnan(x)) return x;
  if (std::isinf(x)) return kNaN;
  if (x > 2) {
    // Ai(x) = sqrt(x/3) K_{1/3}(zeta) / pi, zeta = 2/3 x^(3/2)
    double z = 2.0 / 3 * x * std::sqrt(x);
    if (z > 745) return 0;
    return std::sqrt(x / 3) / kPi * scaledK(1.0 / 3, z) * std::exp(-z);
  }
  if (x >= -8) {
    // Ai(x) = c1 f(x) - c2 g(x) (the Maclaurin series).
    double c1 = 1 / (std::pow(3.0, 2.0 / 3) * std::tgamma(2.0 / 3));
    double c2 = 1 / (std::pow(3.0, 1.0 / 3) * std::tgamma(1.0 / 3));
    double x3 = x * x * x, a = 1, f = 1, b = x, g = x;
    for (int k = 1; k < 200; ++k) {
      a *= x3 / ((3.0 * k - 1) * (3.0 * k));
      b *= x3 / ((3.0 * k) * (3.0 * k + 1));
      f += a;
      g += b;
      if (std::abs(a) + std::abs(b) < kEps * 1e-3) break;
    }
    return c1 * f - c2 * g;
  }
  // Ai(-z) ~ (sin(zeta + pi/4) P - cos(zeta + pi/4) Q) / (sqrt(pi) z^(1/4))
  double z = -x, zeta = 2.0 / 3 * z * std::sqrt(z);
  double u = 1, P = 1, Q = 0, prev = kInf;
  for (int k = 1; k < 200; ++k) {
    u *= (6.0 * k - 5) * (6.0 * k - 3) * (6.0 * k - 1) / ((2.0 * k - 1) * 216.0 * k);
    double t = u / std::pow(zeta, k);
    if (t > prev || t < kEps) break;
    prev = t;
    double sgn = ((k / 2) % 2) ? -1.0 : 1.0;
    if (k % 2) Q += sgn * t;
    else P += sgn * t;
  }
  double c, s;
  shiftedCosSin(zeta, -kPi / 4, c, s); // cos/sin of zeta + pi/4
  return (s * P - c * Q) / (std::sqrt(kPi) * std::sqrt(std::sqrt(z)));
}

double erfcx(double x) {
  if (std::isnan(x)) return x;
  if (x < 0) {
    if (x < -26.6) return kInf;
    return 2 * std::exp(x * x) - erfcx(-x);
  }
  if (x < 25) return std::exp(x * x) * std::erfc(x);
  if (x == kInf) return 0;
  // Continued fraction: sqrt(pi) erfcx(x) = 1 / (x + (1/2) / (x + 1 / (x + (3/2) / ...)))
  double f = x;
  for (int k = 40; k >= 1; --k) f = x + (k / 2.0) / f;
  return 1 / (std::sqrt(kPi) * f);
}

double logNdtr(double x) {
  if (std::isnan(x)) return x;
  const double r2 = std::sqrt(2.0);
  if (x < -1) {
    double t = -x / r2;
    return std::log(erfcx(t) / 2) - t * t;
  }
  return std::log1p(-std::erfc(x / r2) / 2);
}

double ndtri(double p) {
  if (std::isnan(p) || p < 0 || p > 1) return kNaN;
  if (p == 0) return -kInf;
  if (p == 1) return kInf;
  bool upper = p > 0.5;
  double q = upper ? 1 - p : p; // the smaller tail
  // A rational first guess for the upper-tail quantile (error below 5e-4),
  // then Halley steps on Q(x) = erfc(x / sqrt 2) / 2 = q.
  double t = std::sqrt(-2 * std::log(q));
  double x = t - (2.515517 + t * (0.802853 + t * 0.010328)) /
                     (1 + t * (1.432788 + t * (0.189269 + t * 0.001308)));
  for (int i = 0; i < 4; ++i) {
    double e = 0.5 * std::erfc(x / std::sqrt(2.0)) - q;
    double u = e * std::sqrt(2 * kPi) * std::exp(x * x / 2);
    x = x + u / (1 - x * u / 2);
  }
  return upper ? x : -x;
}

double erfinv(double x) {
  if (std::isnan(x) || x < -1 || x > 1) return kNaN;
  if (x == 1) return kInf;
  if (x == -1) return -kInf;
  double a = std::fabs(x);
  // erf(y) = 2 Phi(y sqrt 2) - 1: the normal quantile is the first guess
  // (through the smaller tail: 1 - a is exact in float64 for a near 1), then
  // Newton steps on erf, with the residual taken through erfc near 1.
  double y = -ndtri((1 - a) / 2) / std::sqrt(2.0);
  for (int i = 0; i < 2; ++i) {
    double r = a > 0.5 ? (1 - a) - std::erfc(y) : std::erf(y) - a;
    y -= r / (2 / std::sqrt(kPi) * std::exp(-y * y));
  }
  return std::copysign(y, x);
}

namespace {
/// P(a, x) by its series (x < a + 1).
double igammaSeries(double a, double x) {
  double t = 1 / a, sum = t;
  for (int k = 1; k < 100000; ++k) {
    t *= x / (a + k);
    sum += t;
    if (t < kEps * sum) break;
  }
  return sum * std::exp(a * std::log(x) - x - logGamma(a));
}
/// Q(a, x) by its continued fraction (x >= a + 1), evaluated with Lentz's method.
double igammacFraction(double a, double x) {
  const double tiny = 1e-300;
  double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
  for (int i = 1; i < 100000; ++i) {
    double an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (std::abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (std::abs(c) < tiny) c = tiny;
    d = 1 / d;
    double del = d * c;
    h *= del;
    if (std::abs(del - 1) < kEps) break;
  }
  return std::exp(a * std::log(x) - x - logGamma(a)) * h;
}
/// Both tails; false when the value is set by a domain rule.
bool igammaSpecial(double a, double x, double &P) {
  if (std::isnan(a) || std::isnan(x) || a < 0 || x < 0) return P = kNaN, true;
  if (a == 0) return P = x > 0 ? 1 : kNaN, true;
  if (x == 0) return P = 0, true;
  if (std::isinf(a)) return P = std::isinf(x) ? kNaN : 0, true;
  if (std::isinf(x)) return P = 1, true;
  return false;
}
} // namespace

double igamma(double a, double x) {
  double P;
  if (igammaSpecial(a, x, P)) return P;
  return x < a + 1 ? igammaSeries(a, x) : 1 - igammacFraction(a, x);
}

double igammac(double a, double x) {
  double P;
  if (igammaSpecial(a, x, P)) return 1 - P;
  return x < a + 1 ? 1 - igammaSeries(a, x) : igammacFraction(a, x);
}

double polynomial(Poly kind, double x, double nd) {
  if (std::isnan(x) || std::isnan(nd)) return kNaN;
  if (nd < 0) return 0;
  int64_t n = nd > 9e18 ? INT64_MAX : (int64_t)nd;
  bool even = n % 2 == 0;
  double m = (double)n;
  // Chebyshev polynomials at +-1 exactly, and inside (-1, 1) by their
  // trigonometric forms.
  if (kind <= Poly::ChebyshevW && std::abs(x) == 1) {
    bool pos = x > 0;
    switch (kind) {
    case Poly::ChebyshevT: return pos || even ? 1 : -1;
    case Poly::ChebyshevU: return pos || even ? m + 1 : -(m + 1);
    case Poly::ChebyshevV: return pos ? 1 : even ? 2 * m + 1 : -(2 * m + 1);
    default: return pos ? 2 * m + 1 : even ? 1 : -1;
    }
  }
  if (kind <= Poly::ChebyshevW && std::abs(x) < 1 && n > 0) {
    double th = std::acos(x);
    switch (kind) {
    case Poly::ChebyshevT: return std::cos(m * th);
    case Poly::ChebyshevU: {
      double s = std::sin(th);
      return std::sin((m + 1) * th) / s;
    }
    case Poly::ChebyshevV: {
      return std::cos((m + 0.5) * th) / std::cos(th / 2);
    }
    case Poly::ChebyshevW: {
      return std::sin((m + 0.5) * th) / std::sin(th / 2);
    }
    default: break;
    }
  }
  if (n == 0) return 1;
  double p = 1, q;
  switch (kind) {
  case Poly::ChebyshevT: q = x; break;
  case Poly::ChebyshevU: q = 2 * x; break;
  case Poly::ChebyshevV: q = 2 * x - 1; break;
  case Poly::ChebyshevW: q = 2 * x + 1; break;
  case Poly::HermiteH: q = 2 * x; break;
  case Poly::HermiteHe: q = x; break;
  case Poly::Laguerre: q = 1 - x; break;
  case Poly::Legendre: q = x; break;
  }
  for (int64_t k = 1; k < n && std::isfinite(q); ++k) {
    double r, kd = (double)k;
    switch (kind) {
    case Poly::HermiteH: r = 2 * x * q - 2 * kd * p; break;
    case Poly::HermiteHe: r = x * q - kd * p; break;
    case Poly::Laguerre: r = ((2 * kd + 1 - x) * q - kd * p) / (kd + 1); break;
    case Poly::Legendre: r = ((2 * kd + 1) * x * q - kd * p) / (kd + 1); break;
    default: r = 2 * x * q - p; break;
    }
    p = q;
    q = r;
  }
  return q;
}

} // namespace kiln::cpu::special
