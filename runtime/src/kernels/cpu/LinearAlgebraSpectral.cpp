// kiln runtime — eager CPU (and Meta) kernels of QR (linalg_qr, qr, geqrf,
// householder_product, ormqr), the symmetric eigendecomposition (eigh,
// eigvalsh), the SVD (svd, svdvals, cond) and what is built on them (pinv,
// matrix_rank), through LAPACK in float64 (see LinearAlgebra.cpp).
#include "LinearAlgebraUtils.h"

#include <cfloat>
#include <cmath>
#include <string>

namespace kiln::cpu {
namespace {

using namespace linalg;

/// LAPACK's workspace query: the optimal lwork for `call(work, lwork)`.
template <typename F> int queryWork(F &&call) {
  double w = 0;
  int lwork = -1;
  call(&w, &lwork);
  return std::max(1, (int)w);
}

// --- QR --------------------------------------------------------------------------

void geqrfOne(const char *op, Mat &a, int64_t m, int64_t n, std::vector<double> &tau) {
  tau.assign(std::max<int64_t>(1, std::min(m, n)), 0);
  if (m == 0 || n == 0) return;
  int M = (int)m, N = (int)n, lda = ld(m), info = 0;
  const Lapack &L = lapack(op);
  int lwork = queryWork([&](double *w, int *lw) { L.dgeqrf(&M, &N, a.data(), &lda, tau.data(), w, lw, &info); });
  std::vector<double> work(lwork);
  L.dgeqrf(&M, &N, a.data(), &lda, tau.data(), work.data(), &lwork, &info);
}

/// The first `cols` columns of the orthogonal matrix of k reflectors held in `a` (m x >= k).
Mat orgqr(const char *op, const Mat &a, int64_t m, int64_t aCols, int64_t cols, int64_t k,
          const std::vector<double> &tau) {
  Mat q(m * cols, 0.0);
  for (int64_t j = 0; j < std::min(aCols, cols); ++j)
    for (int64_t i = 0; i < m; ++i) q[i + j * m] = a[i + j * m];
  if (m == 0 || cols == 0) return q;
  int M = (int)m, N = (int)cols, K = (int)k, lda = ld(m), info = 0;
  const Lapack &L = lapack(op);
  int lwork = queryWork([&](double *w, int *lw) { L.dorgqr(&M, &N, &K, q.data(), &lda, tau.data(), w, lw, &info); });
  std::vector<double> work(lwork);
  L.dorgqr(&M, &N, &K, q.data(), &lda, tau.data(), work.data(), &lwork, &info);
  return q;
}

T2 linalgQr(const Tensor &A, const std::string &mode) {
  const char *op = "aten::linalg_qr";
  checkMatrix(A, op, false);
  DType dt = floatDtype(A, op);
  check(mode == "reduced" || mode == "complete" || mode == "r", op,
        "mode must be 'reduced', 'complete' or 'r', got '" + mode + "'");
  Shape batch = batchOf(A);
  int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  int64_t qc = mode == "complete" ? m : k;
  Out R(batch, qc, n, dt, A);
  std::optional<Out> Q;
  if (mode != "r") Q.emplace(batch, m, qc, dt, A);
  Tensor qt = Q ? Q->t : emptyLike({0}, dt, A);
  if (isMeta(A)) return {qt, R.t};
  Matrices in(A, batch);
  for (int64_t b = 0, nb = product(batch); b < nb; ++b) {
    Mat a = in.get(b);
    std::vector<double> tau;
    geqrfOne(op, a, m, n, tau);
    Mat r(qc * n, 0.0);
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < std::min(qc, j + 1); ++i) r[i + j * qc] = i < m ? a[i + j * m] : 0;
    R.put(b, r.data(), qc);
    if (Q) Q->put(b, orgqr(op, a, m, n, qc, k, tau).data(), m);
  }
  return {qt, R.t};
}
T2 qr(const Tensor &A, bool some) { return linalgQr(A, some ? "reduced" : "complete"); }

T2 geqrf(const Tensor &A) {
  const char *op = "aten::geqrf";
  checkMatrix(A, op, false);
  DType dt = floatDtype(A, op);
  Shape batch = batchOf(A);
  int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  Out packed(batch, m, n, dt, A);
  OutVec tau(batch, k, dt, A);
  if (isMeta(A)) return {packed.t, tau.t};
  Matrices in(A, batch);
  for (int64_t b = 0, nb = product(batch); b < nb; ++b) {
    Mat a = in.get(b);
    std::vector<double> t;
    geqrfOne(op, a, m, n, t);
    packed.put(b, a.data(), m);
    for (int64_t i = 0; i < k; ++i) tau.set(b, i, t[i]);
  }
  return {packed.t, tau.t};
}

/// Reads tau [..., k] of batch element b as a vector (broadcast over `batch`).
std::vector<double> tauOf(const Tensor &tau, const Shape &batch, int64_t b) {
  Shape s = tau.sizes();
  s.push_back(1);
  Tensor t = tau.contiguous().reshape(s);
  return Matrices(t, batch).get(b);
}

Tensor householderProduct(const Tensor &A, const Tensor &tau) {
  const char *op = "aten::linalg_householder_product";
  checkMatrix(A, op, false);
  DType dt = floatDtype(A, op);
  int64_t m = A.size(-2), n = A.size(-1), k = tau.size(-1);
  check(m >= n && n >= k, op, "expects input.shape[-2] >= input.shape[-1] >= tau.shape[-1], got " +
                                  A.shapeString() + " and " + tau.shapeString());
  Shape batch = batchOf(A);
  Out Q(batch, m, n, dt, A);
  if (isMeta(A)) return Q.t;
  Matrices in(A, batch);
  for (int64_t b = 0, nb = product(batch); b < nb; ++b) {
    std::vector<double> t = tauOf(tau, batch, b);
    Q.put(b, orgqr(op, in.get(b), m, n, n, k, t).data(), m);
  }
  return Q.t;
}

/// op(Q) C or C op(Q), Q given by the reflectors of geqrf.
Tensor ormqr(const Tensor &A, const Tensor &tau, const Tensor &C, bool left, bool transpose) {
  const char *op = "aten::ormqr";
  checkMatrix(A, op, false);
  checkMatrix(C, op, false);
  DType dt = floatDtype(C, op);
  int64_t m = C.size(-2), n = C.size(-1), k = tau.size(-1), ar = A.size(-2);
  check(ar == (left ? m : n), op, "the shapes " + A.shapeString() + " and " + C.shapeString() +
                                      " do not match");
  Shape batch = broadcastBatch(A, C, op);
  Out X(batch, m, n, dt, C);
  if (isMeta(C)) return X.t;
  Matrices ab(A, batch), cb(C, batch);
  for (int64_t b = 0, nb = product(batch); b < nb; ++b) {
    Mat a = ab.get(b), c = cb.get(b);
    std::vector<double> t = tauOf(tau, Shape(tau.sizes().begin(), tau.sizes().end() - 1).empty() ? Shape{} : batch, b);
    if (m > 0 && n > 0 && k > 0) {
      char side = left ? 'L' : 'R', trans = transpose ? 'T' : 'N';
      int M = (int)m, N = (int)n, K = (int)k, lda = ld(ar), ldc = ld(m), info = 0;
      const Lapack &L = lapack(op);
      int lwork = queryWork([&](double *w, int *lw) {
        L.dormqr(&side, &trans, &M, &N, &K, a.data(), &lda, t.data(), c.data(), &ldc, w, lw, &info, 1, 1);
      });
      std::vector<double> work(lwork);
      L.dormqr(&side, &trans, &M, &N, &K, a.data(), &lda, t.data(), c.data(), &ldc, work.data(),
               &lwork, &info, 1, 1);
    }
    X.put(b, c.data(), m);
  }
  return X.t;
}

// --- eigh ------------------------------------------------------------------------

/// Eigenvalues (ascending) and, with vectors, eigenvectors (columns) of one symmetric matrix.
void syevd(const char *op, Mat &a, int64_t n, bool vectors, char uplo, std::vector<double> &w) {
  w.assign(std::max<int64_t>(1, n), 0);
  if (n == 0) return;
  char jobz = vectors ? 'V' : 'N';
  int N = (int)n, lda = ld(n), info = 0, iw = 0, liwork = -1, lwork = -1;
  double wq = 0;
  const Lapack &L = lapack(op);
  L.dsyevd(&jobz, &uplo, &N, a.data(), &lda, w.data(), &wq, &lwork, &iw, &liwork, &info, 1, 1);
  lwork = std::max(1, (int)wq);
  liwork = std::max(1, iw);
  std::vector<double> work(lwork);
  std::vector<int> iwork(liwork);
  L.dsyevd(&jobz, &uplo, &N, a.data(), &lda, w.data(), work.data(), &lwork, iwork.data(), &liwork,
           &info, 1, 1);
  check(info == 0, op, "the eigenvalue algorithm did not converge (LAPACK info " +
                           std::to_string(info) + ")");
}

char uploOf(const std::string &s, const char *op) {
  check(s == "L" || s == "U", op, "UPLO must be 'L' or 'U', got '" + s + "'");
  return s[0];
}

T2 eigh(const char *op, const Tensor &A, const std::string &UPLO, bool computeV) {
  checkMatrix(A, op, true);
  DType dt = floatDtype(A, op);
  char uplo = uploOf(UPLO, op);
  Shape batch = batchOf(A);
  int64_t n = A.size(-1);
  OutVec W(batch, n, dt, A);
  std::optional<Out> V;
  if (computeV) V.emplace(batch, n, n, dt, A);
  Tensor vt = V ? V->t : emptyLike({0}, dt, A);
  if (isMeta(A)) return {W.t, vt};
  Matrices in(A, batch);
  for (int64_t b = 0, nb = product(batch); b < nb; ++b) {
    Mat a = in.get(b);
    std::vector<double> w;
    syevd(op, a, n, computeV, uplo, w);
    for (int64_t i = 0; i < n; ++i) W.set(b, i, w[i]);
    if (V) V->put(b, a.data(), n);
  }
  return {W.t, vt};
}
T2 linalgEighFull(const Tensor &A, const std::string &UPLO, bool computeV) {
  return eigh("aten::_linalg_eigh", A, UPLO, computeV);
}
T2 linalgEigh(const Tensor &A, const std::string &UPLO) {
  return eigh("aten::linalg_eigh", A, UPLO, true);
}
Tensor linalgEigvalsh(const Tensor &A, const std::string &UPLO) {
  return std::get<0>(eigh("aten::linalg_eigvalsh", A, UPLO, false));
}

// --- SVD -------------------------------------------------------------------------

/// The SVD of one m x n matrix: S (descending) and, unless jobz is 'N', U
/// (m x ucols) and Vt (vrows x n), with ucols = vrows = k ('S') or m and n ('A').
void gesdd(const char *op, Mat a, int64_t m, int64_t n, char jobz, std::vector<double> &S, Mat &U,
           Mat &Vt) {
  int64_t k = std::min(m, n);
  int64_t ucols = jobz == 'A' ? m : k, vrows = jobz == 'A' ? n : k;
  S.assign(std::max<int64_t>(1, k), 0);
  U.assign(std::max<int64_t>(1, m * ucols), 0);
  Vt.assign(std::max<int64_t>(1, vrows * n), 0);
  if (k == 0) { // an empty matrix: identity factors where they have size
    for (int64_t i = 0; i < std::min(m, ucols); ++i) U[i + i * m] = 1;
    for (int64_t i = 0; i < std::min(n, vrows); ++i) Vt[i + i * vrows] = 1;
    return;
  }
  int M = (int)m, N = (int)n, lda = ld(m), ldu = ld(m), ldvt = ld(vrows), info = 0;
  std::vector<int> iwork(8 * k);
  const Lapack &L = lapack(op);
  int lwork = queryWork([&](double *w, int *lw) {
    L.dgesdd(&jobz, &M, &N, a.data(), &lda, S.data(), U.data(), &ldu, Vt.data(), &ldvt, w, lw,
             iwork.data(), &info, 1);
  });
  std::vector<double> work(lwork);
  L.dgesdd(&jobz, &M, &N, a.data(), &lda, S.data(), U.data(), &ldu, Vt.data(), &ldvt, work.data(),
           &lwork, iwork.data(), &info, 1);
  check(info == 0, op, "the SVD did not converge (LAPACK info " + std::to_string(info) + ")");
}

T3 svdImpl(const char *op, const Tensor &A, bool full, bool computeUV, bool returnV) {
  checkMatrix(A, op, false);
  DType dt = floatDtype(A, op);
  Shape batch = batchOf(A);
  int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  int64_t ucols = full ? m : k, vrows = full ? n : k;
  OutVec S(batch, k, dt, A);
  std::optional<Out> U, V;
  if (computeUV) {
    U.emplace(batch, m, ucols, dt, A);
    V.emplace(batch, returnV ? n : vrows, returnV ? vrows : n, dt, A);
  }
  Tensor ut = U ? U->t : emptyLike({0}, dt, A), vt = V ? V->t : emptyLike({0}, dt, A);
  if (isMeta(A)) return {ut, S.t, vt};
  Matrices in(A, batch);
  for (int64_t b = 0, nb = product(batch); b < nb; ++b) {
    std::vector<double> s;
    Mat u, v;
    gesdd(op, in.get(b), m, n, computeUV ? (full ? 'A' : 'S') : 'N', s, u, v);
    for (int64_t i = 0; i < k; ++i) S.set(b, i, s[i]);
    if (!computeUV) continue;
    U->put(b, u.data(), m);
    if (returnV) { // V = Vt^T, n x vrows
      Mat t(n * vrows);
      for (int64_t i = 0; i < vrows; ++i)
        for (int64_t j = 0; j < n; ++j) t[j + i * n] = v[i + j * vrows];
      V->put(b, t.data(), n);
    } else {
      V->put(b, v.data(), vrows);
    }
  }
  return {ut, S.t, vt};
}
T3 linalgSvdFull(const Tensor &A, bool full, bool computeUV, const std::optional<std::string> &) {
  return svdImpl("aten::_linalg_svd", A, full, computeUV, false);
}
T3 linalgSvd(const Tensor &A, bool full, const std::optional<std::string> &) {
  return svdImpl("aten::linalg_svd", A, full, true, false);
}
/// The legacy svd: V rather than Vh; without compute_uv, U and V are zero
/// matrices of shapes [m, m] and [n, n], as in ATen.
T3 svd(const Tensor &A, bool some, bool computeUV) {
  if (computeUV) return svdImpl("aten::svd", A, !some, true, true);
  auto [U, S, V] = svdImpl("aten::svd", A, true, true, true);
  if (!isMeta(A))
    for (Tensor *t : {&U, &V})
      for (int64_t i = 0, n = t->numel(); i < n; ++i)
        storeDouble(static_cast<char *>(t->rawData()) + i * dtypeSize(t->dtype()), t->dtype(), 0);
  return {U, S, V};
}
Tensor linalgSvdvals(const Tensor &A, const std::optional<std::string> &) {
  return std::get<1>(svdImpl("aten::linalg_svdvals", A, false, false, false));
}

/// The 2-norm condition number (p = None, 2, -2) from the singular values.
Tensor linalgCond(const Tensor &A, const std::optional<double> &p) {
  const char *op = "aten::linalg_cond";
  check(!p || *p == 2 || *p == -2, op,
        "kiln computes the condition number for p = None, 2 and -2 only, got " +
            std::to_string(*p));
  Tensor S = std::get<1>(svdImpl(op, A, false, false, false));
  Shape batch = batchOf(A);
  OutVec c(batch, std::nullopt, S.dtype(), A);
  if (isMeta(A)) return c.t;
  int64_t k = S.size(-1);
  for (int64_t b = 0, nb = product(batch); b < nb; ++b) {
    auto s = [&](int64_t i) {
      return loadDouble(static_cast<const char *>(S.rawData()) + (b * k + i) * dtypeSize(S.dtype()),
                        S.dtype());
    };
    double big = s(0), small = s(k - 1);
    c.set(b, 0, p && *p == -2 ? small / big : big / small);
  }
  return c.t;
}

// --- pinv and matrix_rank ----------------------------------------------------------

/// A tolerance argument of batch element b: a number, or a tensor broadcast over the batch.
double tolOf(const std::optional<Tensor> &t, const Shape &batch, int64_t b) {
  if (t->numel() == 1) return loadDouble(static_cast<const char *>(t->rawData()), t->dtype());
  Shape s = t->sizes();
  s.push_back(1);
  s.push_back(1);
  return Matrices(t->contiguous().reshape(s), batch).get(b)[0];
}

/// The singular values (or |eigenvalues|) of each matrix and the tolerance
/// ATen uses for them: max(atol, rtol * largest), rtol defaulting to
/// eps * max(m, n) (0 when a positive atol is given).
template <typename F>
void spectrumWithTolerance(const char *op, const Tensor &A, const std::optional<Tensor> &atol,
                           const std::optional<Tensor> &rtol, bool hermitian, F &&each) {
  checkMatrix(A, op, false);
  if (hermitian) checkMatrix(A, op, true);
  floatDtype(A, op);
  Shape batch = batchOf(A);
  int64_t m = A.size(-2), n = A.size(-1);
  double eps = A.dtype() == DType::Float32 ? FLT_EPSILON : DBL_EPSILON;
  Matrices in(A, batch);
  for (int64_t b = 0, nb = product(batch); b < nb; ++b) {
    double at = atol ? tolOf(atol, batch, b) : 0;
    double rt = rtol ? tolOf(rtol, batch, b) : (atol && at > 0 ? 0 : eps * std::max(m, n));
    Mat a = in.get(b), U, Vt;
    std::vector<double> s;
    if (hermitian) {
      syevd(op, a, n, true, 'L', s);
      s.resize(n);
      U = a; // eigenvectors
    } else {
      gesdd(op, a, m, n, 'S', s, U, Vt);
      s.resize(std::min(m, n));
    }
    double big = 0;
    for (double v : s) big = std::max(big, std::abs(v));
    each(b, s, U, Vt, std::max(at, rt * big));
  }
}

Tensor pinvImpl(const Tensor &A, const std::optional<Tensor> &atol, const std::optional<Tensor> &rtol,
                bool hermitian) {
  const char *op = "aten::linalg_pinv";
  checkMatrix(A, op, false);
  DType dt = floatDtype(A, op);
  int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  Out X(batchOf(A), n, m, dt, A);
  if (isMeta(A)) return X.t;
  spectrumWithTolerance(op, A, atol, rtol, hermitian, [&](int64_t b, const std::vector<double> &s,
                                                          const Mat &U, const Mat &Vt, double tol) {
    // X = V diag(1/s where |s| > tol) U^T; for eigh, U = V = the eigenvectors.
    Mat x(n * m, 0.0);
    for (int64_t r = 0; r < (int64_t)s.size(); ++r) {
      if (!(std::abs(s[r]) > tol)) continue;
      double inv = 1 / s[r];
      for (int64_t i = 0; i < n; ++i) {
        double vi = hermitian ? U[i + r * n] : Vt[r + i * k];
        for (int64_t j = 0; j < m; ++j) x[i + j * n] += vi * inv * U[j + r * m];
      }
    }
    X.put(b, x.data(), n);
  });
  return X.t;
}
Tensor pinvTensor(const Tensor &A, const std::optional<Tensor> &atol,
                  const std::optional<Tensor> &rtol, bool hermitian) {
  return pinvImpl(A, atol, rtol, hermitian);
}
std::optional<Tensor> scalar(const std::optional<double> &v) {
  if (!v) return std::nullopt;
  Tensor t = Tensor::empty({}, DType::Float64);
  *t.data<double>() = *v;
  return t;
}
Tensor pinvFloat(const Tensor &A, const std::optional<double> &atol,
                 const std::optional<double> &rtol, bool hermitian) {
  return pinvImpl(A, isMeta(A) ? std::nullopt : scalar(atol), isMeta(A) ? std::nullopt : scalar(rtol),
                  hermitian);
}
Tensor pinverse(const Tensor &A, double rcond) {
  return pinvImpl(A, std::nullopt, isMeta(A) ? std::nullopt : scalar(rcond), false);
}

Tensor rankImpl(const Tensor &A, const std::optional<Tensor> &atol, const std::optional<Tensor> &rtol,
                bool hermitian) {
  const char *op = "aten::linalg_matrix_rank";
  checkMatrix(A, op, false);
  OutVec r(batchOf(A), std::nullopt, DType::Int64, A);
  if (isMeta(A)) return r.t;
  spectrumWithTolerance(op, A, atol, rtol, hermitian,
                        [&](int64_t b, const std::vector<double> &s, const Mat &, const Mat &,
                            double tol) {
                          int64_t count = 0;
                          for (double v : s) count += std::abs(v) > tol;
                          r.set(b, 0, (double)count);
                        });
  return r.t;
}
Tensor rankTensor(const Tensor &A, const std::optional<Tensor> &atol,
                  const std::optional<Tensor> &rtol, bool hermitian) {
  return rankImpl(A, atol, rtol, hermitian);
}
Tensor rankFloat(const Tensor &A, const std::optional<double> &atol,
                 const std::optional<double> &rtol, bool hermitian) {
  return rankImpl(A, isMeta(A) ? std::nullopt : scalar(atol), isMeta(A) ? std::nullopt : scalar(rtol),
                  hermitian);
}


/// The nuclear ('nuc') or Frobenius ('fro') norm of the matrices in dims (d0, d1).
Tensor matrixNormStr(const Tensor &A, const std::string &ord, const std::vector<int64_t> &dim,
                     bool keepdim, const std::optional<DType> &dtype) {
  const char *op = "aten::linalg_matrix_norm";
  check(ord == "nuc" || ord == "fro", op, "ord must be 'fro' or 'nuc', got '" + ord + "'");
  check(dim.size() == 2, op, "dim must name two dims");
  int64_t d0 = wrapDim(dim[0], A.dim(), op), d1 = wrapDim(dim[1], A.dim(), op);
  check(d0 != d1, op, "dim must name two different dims");
  std::vector<int64_t> perm, shape;
  for (int64_t d = 0; d < A.dim(); ++d)
    if (d != d0 && d != d1) perm.push_back(d), shape.push_back(A.size(d));
  perm.push_back(d0);
  perm.push_back(d1);
  if (keepdim) {
    shape.clear();
    for (int64_t d = 0; d < A.dim(); ++d) shape.push_back(d == d0 || d == d1 ? 1 : A.size(d));
  }
  DType dt = dtype.value_or(floatDtype(A, op));
  Tensor out = emptyLike(shape, dt, A);
  if (isMeta(A)) return out;
  Tensor m = call("aten::permute", A, perm).contiguous();
  Shape batch = batchOf(m);
  int64_t r = m.size(-2), c = m.size(-1);
  Matrices in(m, batch);
  for (int64_t b = 0, nb = product(batch); b < nb; ++b) {
    Mat a = in.get(b);
    double v = 0;
    if (ord == "fro") {
      for (double x : a) v += x * x;
      v = std::sqrt(v);
    } else {
      std::vector<double> s;
      Mat U, Vt;
      gesdd(op, a, r, c, 'N', s, U, Vt);
      for (int64_t i = 0; i < std::min(r, c); ++i) v += s[i];
    }
    storeDouble(static_cast<char *>(out.rawData()) + b * dtypeSize(dt), dt, v);
  }
  return out;
}
} // namespace

void registerSpectralKernels(Library &m) {
  m.impl("linalg_qr", linalgQr);
  m.impl("qr", qr);
  m.impl("geqrf", geqrf);
  m.impl("linalg_householder_product", householderProduct);
  m.impl("orgqr", householderProduct);
  m.impl("ormqr", ormqr);
  m.impl("_linalg_eigh", linalgEighFull);
  m.impl("linalg_eigh", linalgEigh);
  m.impl("linalg_eigvalsh", linalgEigvalsh);
  m.impl("_linalg_svd", linalgSvdFull);
  m.impl("linalg_svd", linalgSvd);
  m.impl("svd", svd);
  m.impl("linalg_svdvals", linalgSvdvals);
  m.impl("linalg_cond", linalgCond);
  m.impl("linalg_matrix_norm.str_ord", matrixNormStr);
  m.impl("linalg_pinv.atol_rtol_tensor", pinvTensor);
  m.impl("linalg_pinv.atol_rtol_float", pinvFloat);
  m.impl("pinverse", pinverse);
  m.impl("linalg_matrix_rank.atol_rtol_tensor", rankTensor);
  m.impl("linalg_matrix_rank.atol_rtol_float", rankFloat);
}

} // namespace kiln::cpu
