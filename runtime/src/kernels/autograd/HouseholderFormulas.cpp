// kiln runtime — backward formulas of the Householder products: householder_product
// (orgqr) Q = (H_1 ... H_k)[:, :n] and ormqr's op(Q) C or C op(Q), with
// H_j = I - tau_j v_j v_j^T and v_j = (0, ..., 0, 1, A[j+1:, j]). The reverse sweep
// runs over the reflectors: with R_j = H_j R_{j+1}, d H_j = G_j R_{j+1}^T and
// G_{j+1} = H_j G_j; then d tau_j = -v^T dH v and d v = -tau (dH + dH^T) v.
#include "FormulaUtils.h"

namespace kiln {
namespace {

using namespace formulas;
using Mat = std::vector<double>; // row-major

/// gA (m x k), gtau (k) of one matrix from gQ (m x cols) of (H_1 ... H_k)[:, :cols].
void householderBackward(const double *A, const double *tau, const double *gQ, int64_t m, int64_t kcols, int64_t k,
                         int64_t cols, double *gA, double *gtau) {
  auto v = [&](int64_t j) {
    Mat out(m, 0.0);
    out[j] = 1;
    for (int64_t i = j + 1; i < m; ++i) out[i] = A[i * kcols + j];
    return out;
  };
  // R[j] = H_j ... H_k P0 (m x cols), R[k] = P0.
  std::vector<Mat> R(k + 1, Mat(m * cols, 0.0));
  for (int64_t i = 0; i < std::min(m, cols); ++i) R[k][i * cols + i] = 1;
  for (int64_t j = k - 1; j >= 0; --j) {
    Mat vj = v(j);
    for (int64_t c = 0; c < cols; ++c) {
      double dot = 0;
      for (int64_t i = 0; i < m; ++i) dot += vj[i] * R[j + 1][i * cols + c];
      for (int64_t i = 0; i < m; ++i) R[j][i * cols + c] = R[j + 1][i * cols + c] - tau[j] * vj[i] * dot;
    }
  }
  Mat G(gQ, gQ + m * cols);
  for (int64_t j = 0; j < k; ++j) {
    Mat vj = v(j);
    // M = G R[j+1]^T (m x m); gtau = -v^T M v; gv = -tau (M + M^T) v.
    Mat M(m * m, 0.0);
    for (int64_t a = 0; a < m; ++a)
      for (int64_t b = 0; b < m; ++b) {
        double s = 0;
        for (int64_t c = 0; c < cols; ++c) s += G[a * cols + c] * R[j + 1][b * cols + c];
        M[a * m + b] = s;
      }
    double vMv = 0;
    Mat Mv(m, 0.0), Mtv(m, 0.0);
    for (int64_t a = 0; a < m; ++a)
      for (int64_t b = 0; b < m; ++b) {
        Mv[a] += M[a * m + b] * vj[b];
        Mtv[b] += M[a * m + b] * vj[a];
      }
    for (int64_t a = 0; a < m; ++a) vMv += vj[a] * Mv[a];
    gtau[j] += -vMv;
    for (int64_t i = j + 1; i < m; ++i) gA[i * kcols + j] += -tau[j] * (Mv[i] + Mtv[i]);
    // G <- H_j G
    for (int64_t c = 0; c < cols; ++c) {
      double dot = 0;
      for (int64_t i = 0; i < m; ++i) dot += vj[i] * G[i * cols + c];
      for (int64_t i = 0; i < m; ++i) G[i * cols + c] -= tau[j] * vj[i] * dot;
    }
  }
}

/// Runs householderBackward over the batch: A [..., m, kcols], tau [..., k], gQ [..., m, cols].
std::pair<Tensor, Tensor> batched(const Tensor &A, const Tensor &tau, const Tensor &gQ, int64_t cols) {
  Tensor a = f64(A), t = f64(tau), g = f64(gQ);
  Tensor gA = Tensor::zeros(A.sizes(), DType::Float64), gt = Tensor::zeros(tau.sizes(), DType::Float64);
  int64_t m = A.size(-2), kcols = A.size(-1), k = tau.size(-1);
  int64_t nb = m * kcols ? a.numel() / (m * kcols) : 0;
  for (int64_t b = 0; b < nb; ++b)
    householderBackward(a.data<double>() + b * m * kcols, t.data<double>() + b * k, g.data<double>() + b * m * cols,
                        m, kcols, k, cols, gA.data<double>() + b * m * kcols, gt.data<double>() + b * k);
  return {gA, gt};
}

/// householder_product(input [m, n], tau [k]) -> Q [m, n].
Grads householderProduct(const Ctx &c, const Grads &g) {
  if (!has(g, 0)) return {Tensor(), Tensor()};
  auto [gA, gt] = batched(c.input(0), c.input(1), g[0], c.input(0).size(-1));
  return {as(gA, c.input(0).dtype()), as(gt, c.input(1).dtype())};
}

/// ormqr(input, tau, other, left, transpose): op(Q) other (left) or other op(Q), Q the full m x m product.
Grads ormqr(const Ctx &c, const Grads &g) {
  if (!has(g, 0)) return {Tensor(), Tensor(), Tensor()};
  const Tensor &A = c.input(0), &tau = c.input(1), &C = c.input(2);
  bool left = c.inputs[3].toBool(), transpose = c.inputs[4].toBool();
  int64_t m = A.size(-2);
  Tensor Q = call<Tensor>("aten::linalg_householder_product", f64(call<Tensor>("aten::constant_pad_nd", f64(A),
                                                                        Shape{0, m - A.size(-1)}, 0.0)),
                          f64(tau));
  Tensor opQ = transpose ? mT(Q) : Q, gy = f64(g[0]), Cd = f64(C);
  Tensor gC = left ? matmul(mT(opQ), gy) : matmul(gy, mT(opQ));
  Tensor gOpQ = left ? matmul(gy, mT(Cd)) : matmul(mT(Cd), gy);
  Tensor gQ = transpose ? mT(gOpQ) : gOpQ;
  auto [gA, gt] = batched(A, tau, gQ, m);
  return {as(gA, A.dtype()), as(gt, tau.dtype()), as(sumTo(gC, C.sizes()), C.dtype())};
}

} // namespace
} // namespace kiln

KILN_LIBRARY_FRAGMENT(aten, m) {
  using namespace kiln;
  for (const char *op : {"linalg_householder_product", "orgqr"}) m.register_autograd(op, householderProduct);
  m.register_autograd("ormqr", ormqr);
}
