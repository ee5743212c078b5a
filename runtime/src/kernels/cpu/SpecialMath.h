// kiln runtime — scalar special functions in float64 (gamma family, Bessel
// functions, the normal distribution, incomplete gamma, orthogonal
// polynomials) with ATen's domain conventions. Private to kernels/cpu.
#ifndef KILN_KERNELS_CPU_SPECIALMATH_H
#define KILN_KERNELS_CPU_SPECIALMATH_H

#include <cstdint>

namespace kiln::cpu::special {

/// log|Gamma(x)| (ATen's lgamma), safe to call from many threads.
double logGamma(double x);
/// digamma: -inf at +0, +inf at -0, NaN at the negative integers.
double digamma(double x);
/// Hurwitz zeta sum_k (q + k)^-s: inf at s == 1 and at non-positive integer q,
/// NaN for s < 1 or for q < 0 with a non-integer s.
double zeta(double s, double q);
/// polygamma(n, x), n >= 0.
double polygamma(int64_t n, double x);
/// trigamma evaluated in float32 arithmetic, as ATen does for float32.
float trigammaFloat(float x);
/// sum_{i < p} lgamma(x - i/2) + p (p - 1) / 4 log(pi).
double mvlgamma(double x, int64_t p);

/// Modified Bessel functions of the first kind, orders 0 and 1; `scaled`
/// multiplies by exp(-|x|).
double besselI(int nu, double x, bool scaled);
/// Modified Bessel functions of the second kind, orders 0 and 1 (x > 0);
/// `scaled` multiplies by exp(x).
double besselK(int nu, double x, bool scaled);
/// Bessel functions of the first and second kind, orders 0 and 1.
double besselJ(int nu, double x);
double besselY(int nu, double x);
/// sin(x) / x.
double sphericalBesselJ0(double x);
/// The Airy function Ai.
double airyAi(double x);

/// exp(x^2) erfc(x).
double erfcx(double x);
/// log of the standard normal CDF.
double logNdtr(double x);
/// Inverse of the standard normal CDF.
double ndtri(double p);
/// Inverse of erf on [-1, 1] (NaN outside, +-inf at +-1).
double erfinv(double x);

/// Regularized lower (P) and upper (Q) incomplete gamma functions.
double igamma(double a, double x);
double igammac(double a, double x);

/// The orthogonal polynomials of torch.special, degree n (n truncated toward
/// zero as ATen does; a negative degree gives 0).
enum class Poly { ChebyshevT, ChebyshevU, ChebyshevV, ChebyshevW, HermiteH, HermiteHe, Laguerre, Legendre };
double polynomial(Poly kind, double x, double n);

} // namespace kiln::cpu::special

#endif // KILN_KERNELS_CPU_SPECIALMATH_H
