// kiln runtime — eager CPU (and Meta) kernels of torch.linalg's
// factorizations and solvers through LAPACK (Lapack.h): LU (factor, solve,
// unpack, det, slogdet), inverse, solve, Cholesky (factor, solve, inverse),
// triangular solves, LDL^T, matrix_power, matrix_exp, tensorinv and
// tensorsolve (QR, eigh, SVD,
// pinv and matrix_rank are in LinearAlgebraSpectral.cpp). Batched over
// leading dims (broadcast where ATen broadcasts), computed in float64,
// returned in the input's dtype.
#include "LinearAlgebraUtils.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <tuple>

namespace kiln::cpu {
namespace {

using namespace linalg;

// --- LU ----------------------------------------------------------------------

/// dgetrf of one column-major m x n matrix in place; pivots 1-based.
int getrf(const char *op, Mat &a, int64_t m, int64_t n, std::vector<int> &piv) {
  int M = (int)m, N = (int)n, lda = ld(m), info = 0;
  piv.assign(std::max<int64_t>(1, std::min(m, n)), 0);
  if (m > 0 && n > 0) lapack(op).dgetrf(&M, &N, a.data(), &lda, piv.data(), &info);
  check(info >= 0, op, "LAPACK dgetrf rejected argument " + std::to_string(-info));
  return info;
}

T3 luFactorEx(const Tensor &A, bool pivot, bool checkErrors) {
  const char *op = "aten::linalg_lu_factor_ex";
  checkMatrix(A, op, false);
  check(pivot, op, "LU without pivoting is not implemented on the CPU (as in ATen)");
  DType dt = floatDtype(A, op);
  Shape batch = batchOf(A);
  int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  Out lu(batch, m, n, dt, A);
  OutVec piv(batch, k, DType::Int32, A), info(batch, std::nullopt, DType::Int32, A);
  if (isMeta(A)) return {lu.t, piv.t, info.t};
  Matrices in(A, batch);
  for (int64_t b = 0, nb = product(batch); b < nb; ++b) {
    Mat a = in.get(b);
    std::vector<int> p;
    int inf = getrf(op, a, m, n, p);
    check(!checkErrors || inf == 0, op,
          "the factorization could not be completed: U[" + std::to_string(inf) + ", " +
              std::to_string(inf) + "] is zero");
    lu.put(b, a.data(), m);
    for (int64_t i = 0; i < k; ++i) piv.set(b, i, p[i]);
    info.set(b, 0, inf);
  }
  return {lu.t, piv.t, info.t};
}
T2 luFactor(const Tensor &A, bool pivot) {
  auto [lu, piv, info] = luFactorEx(A, pivot, false);
  return {lu, piv};
}
T3 luWithInfo(const Tensor &A, bool pivot, bool checkErrors) {
  return luFactorEx(A, pivot, checkErrors);
}

/// P, L, U of packed LU factors (A = P L U).
T3 luUnpack(const Tensor &LU, const Tensor &pivots, bool unpackData, bool unpackPivots) {
  const char *op = "aten::lu_unpack";
  checkMatrix(LU, op, false);
  DType dt = floatDtype(LU, op);
  Shape batch = batchOf(LU);
  int64_t m = LU.size(-2), n = LU.size(-1), k = std::min(m, n);
  Out P(batch, m, m, dt, LU), L(batch, m, k, dt, LU), U(batch, k, n, dt, LU);
  if (isMeta(LU)) return {P.t, L.t, U.t};
  Matrices in(LU, batch);
  Tensor pv = pivots.contiguous();
  for (int64_t b = 0, nb = product(batch); b < nb; ++b) {
    Mat a = in.get(b), l(m * k, 0.0), u(k * n, 0.0);
    for (int64_t j = 0; j < k; ++j)
      for (int64_t i = 0; i < m; ++i)
        l[i + j * m] = i == j ? 1 : i > j ? a[i + j * m] : 0;
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < k; ++i) u[i + j * k] = i <= j ? a[i + j * m] : 0;
    std::vector<int64_t> perm(m);
    for (int64_t i = 0; i < m; ++i) perm[i] = i;
    for (int64_t i = 0; i < k; ++i) {
      int64_t p = (int64_t)loadDouble(static_cast<const char *>(pv.rawData()) +
                                          (b * k + i) * dtypeSize(pv.dtype()),
                                      pv.dtype()) - 1;
      check(p >= i && p < m, op, "pivot " + std::to_string(p + 1) + " is out of range");
      std::swap(perm[i], perm[p]);
    }
    Mat pm(m * m, 0.0);
    for (int64_t i = 0; i < m; ++i) pm[perm[i] + i * m] = 1; // P[perm[i], i] = 1
    P.put(b, pm.data(), m);
    L.put(b, l.data(), m);
    U.put(b, u.data(), k);
  }
  (void)unpackData;
  (void)unpackPivots;
  return {P.t, L.t, U.t};
}
T3 linalgLu(const Tensor &A, bool pivot) {
  auto [lu, piv, info] = luFactorEx(A, pivot, false);
  return luUnpack(lu, piv, true, true);
}

/// The frame of the LAPACK solves op(A) X = B over broadcast batches, where
/// X op(A) = B (`rightSide`) is solved as op(A)^T X^T = B^T. Checks A square
/// and its size against B and makes X (dtype and meta-ness of `ref`); then
/// setup(batch) gives the solver, called per batch b on A's matrix and B's
/// (column-major rows x cols, transposed for a right side) as
/// solve(b, a, rhs, trans, n, cols, rows), `trans` ('N' or 'T') flipped for a
/// right side, when neither n nor cols is 0.
template <typename Setup>
Tensor solveBatches(const char *op, const Tensor &A, const Tensor &B, const Tensor &ref, char trans,
                    bool rightSide, Setup setup) {
  checkMatrix(A, op, true);
  checkMatrix(B, op, false);
  DType dt = floatDtype(ref, op);
  int64_t n = A.size(-1);
  check(rightSide ? B.size(-1) == n : B.size(-2) == n, op,
        "the shapes " + A.shapeString() + " and " + B.shapeString() + " do not match");
  Shape batch = broadcastBatch(A, B, op);
  int64_t br = B.size(-2), bc = B.size(-1);
  Out X(batch, br, bc, dt, B);
  if (isMeta(ref)) return X.t;
  Matrices ab(A, batch), bb(B, batch);
  auto solve = setup(batch);
  for (int64_t b = 0, nb = product(batch); b < nb; ++b) {
    Mat a = ab.get(b), rhs = bb.get(b);
    int64_t rows = br, cols = bc;
    char tr = trans;
    if (rightSide) {
      Mat t(br * bc);
      for (int64_t i = 0; i < br; ++i)
        for (int64_t j = 0; j < bc; ++j) t[j + i * bc] = rhs[i + j * br];
      rhs.swap(t);
      std::swap(rows, cols);
      tr = trans == 'N' ? 'T' : 'N';
    }
    if (n > 0 && cols > 0) solve(b, a, rhs, tr, n, cols, rows);
    if (rightSide) {
      Mat t(br * bc);
      for (int64_t i = 0; i < br; ++i)
        for (int64_t j = 0; j < bc; ++j) t[i + j * br] = rhs[j + i * bc];
      rhs.swap(t);
    }
    X.put(b, rhs.data(), br);
  }
  return X.t;
}

/// Solves with packed LU factors: op(A) X = B (left) or X op(A) = B.
Tensor luSolveImpl(const char *op, const Tensor &LU, const Tensor &pivots, const Tensor &B,
                   bool left, bool adjoint) {
  return solveBatches(op, LU, B, LU, adjoint ? 'T' : 'N', !left, [&](const Shape &batch) {
    Shape ps = pivots.sizes();
    ps.push_back(1);
    Tensor pv = pivots.contiguous().reshape(ps); // [..., n, 1]: broadcast like LU
    // The solver keeps pv (and so the storage pm reads) alive.
    return [pv, pm = Matrices(pv, batch), op](int64_t b, Mat &lu, Mat &rhs, char trans, int64_t n,
                                              int64_t cols, int64_t rows) {
      Mat pd = pm.get(b);
      std::vector<int> piv(std::max<int64_t>(n, 1));
      for (int64_t i = 0; i < n; ++i) piv[i] = (int)pd[i];
      int N = (int)n, nrhs = (int)cols, lda = ld(n), ldb = ld(rows), info = 0;
      lapack(op).dgetrs(&trans, &N, &nrhs, lu.data(), &lda, piv.data(), rhs.data(), &ldb, &info, 1);
    };
  });
}
Tensor linalgLuSolve(const Tensor &LU, const Tensor &pivots, const Tensor &B, bool left,
                     bool adjoint) {
  return luSolveImpl("aten::linalg_lu_solve", LU, pivots, B, left, adjoint);
}
Tensor luSolve(const Tensor &B, const Tensor &LU, const Tensor &pivots) {
  return luSolveImpl("aten::lu_solve", LU, pivots, B, true, false);
}

// --- determinants, inverse, solve ----------------------------------------------

/// det or (sign, log|det|) from the LU factors of each matrix.
T4 detParts(const char *op, const Tensor &A, bool logForm) {
  checkMatrix(A, op, true);
  DType dt = floatDtype(A, op);
  Shape batch = batchOf(A);
  int64_t n = A.size(-1);
  OutVec first(batch, std::nullopt, dt, A), second(batch, std::nullopt, dt, A);
  Out lu(batch, n, n, dt, A);
  OutVec piv(batch, n, DType::Int32, A);
  if (isMeta(A)) return {first.t, second.t, lu.t, piv.t};
  Matrices in(A, batch);
  for (int64_t b = 0, nb = product(batch); b < nb; ++b) {
    Mat a = in.get(b);
    std::vector<int> p;
    getrf(op, a, n, n, p);
    // det = (the pivots' permutation sign) * prod diag(U)
    double sign = 1, logAbs = 0, det = 1;
    for (int64_t i = 0; i < n; ++i) {
      double d = a[i + i * n];
      if (p[i] != i + 1) sign = -sign;
      if (d < 0) sign = -sign;
      det *= std::abs(d);
      logAbs += std::log(std::abs(d));
    }
    if (logForm) {
      bool singular = det == 0 && logAbs == -std::numeric_limits<double>::infinity();
      first.set(b, 0, singular ? 0 : sign);
      second.set(b, 0, logAbs);
    } else {
      first.set(b, 0, sign * det);
    }
    lu.put(b, a.data(), n);
    for (int64_t i = 0; i < n; ++i) piv.set(b, i, p[i]);
  }
  return {first.t, second.t, lu.t, piv.t};
}
T3 linalgDetParts(const Tensor &A) {
  auto [d, unused, lu, piv] = detParts("aten::_linalg_det", A, false);
  return {d, lu, piv};
}
Tensor linalgDet(const Tensor &A) { return std::get<0>(detParts("aten::linalg_det", A, false)); }
T4 slogdetParts(const Tensor &A) { return detParts("aten::_linalg_slogdet", A, true); }
T2 slogdet(const Tensor &A) {
  auto [s, l, lu, piv] = detParts("aten::linalg_slogdet", A, true);
  return {s, l};
}
/// log(det): NaN for a negative determinant, -inf for a singular matrix.
Tensor logdet(const Tensor &A) {
  auto [s, l, lu, piv] = detParts("aten::logdet", A, true);
  if (isMeta(A)) return l;
  for (int64_t i = 0, n = l.numel(); i < n; ++i) {
    char *ps = static_cast<char *>(s.rawData()) + i * dtypeSize(s.dtype());
    char *pl = static_cast<char *>(l.rawData()) + i * dtypeSize(l.dtype());
    double sign = loadDouble(ps, s.dtype());
    if (sign < 0) storeDouble(pl, l.dtype(), std::numeric_limits<double>::quiet_NaN());
  }
  return l;
}

/// Solves A X = B (left) or X A = B; B a vector when ATen reads it as one.
T4 solveEx(const char *op, const Tensor &A, const Tensor &Bin, bool left, bool checkErrors) {
  checkMatrix(A, op, true);
  DType dt = floatDtype(A, op);
  int64_t n = A.size(-1);
  bool vector = Bin.dim() == 1 ||
                (Bin.dim() == A.dim() - 1 &&
                 std::equal(Bin.sizes().begin(), Bin.sizes().end(), A.sizes().begin()));
  Tensor B = Bin;
  if (vector) {
    Shape s = Bin.sizes();
    s.insert(left ? s.end() : s.end() - 1, 1);
    B = Bin.contiguous().reshape(s);
  }
  checkMatrix(B, op, false);
  check(left ? B.size(-2) == n : B.size(-1) == n, op,
        "the shapes " + A.shapeString() + " and " + Bin.shapeString() + " do not match");
  Shape batch = broadcastBatch(A, B, op);
  Out lu(batch, n, n, dt, A);
  OutVec piv(batch, n, DType::Int32, A), info(batch, std::nullopt, DType::Int32, A);
  Tensor X;
  if (isMeta(A)) {
    X = emptyLike(cat(batch, {B.size(-2), B.size(-1)}), dt, A);
  } else {
    Matrices in(A, batch);
    for (int64_t b = 0, nb = product(batch); b < nb; ++b) {
      Mat a = in.get(b);
      std::vector<int> p;
      int inf = getrf(op, a, n, n, p);
      check(!checkErrors || inf == 0, op,
            "the solve could not be completed because the input matrix is singular");
      lu.put(b, a.data(), n);
      for (int64_t i = 0; i < n; ++i) piv.set(b, i, p[i]);
      info.set(b, 0, inf);
    }
    X = luSolveImpl(op, lu.t, piv.t, B, left, false);
  }
  if (vector) {
    Shape s = X.sizes();
    s.erase(left ? s.end() - 1 : s.end() - 2);
    X = X.reshape(s);
  }
  return {X, lu.t, piv.t, info.t};
}
T4 linalgSolveExFull(const Tensor &A, const Tensor &B, bool left, bool checkErrors) {
  return solveEx("aten::_linalg_solve_ex", A, B, left, checkErrors);
}
T2 linalgSolveEx(const Tensor &A, const Tensor &B, bool left, bool checkErrors) {
  auto [x, lu, piv, info] = solveEx("aten::linalg_solve_ex", A, B, left, checkErrors);
  return {x, info};
}
Tensor linalgSolve(const Tensor &A, const Tensor &B, bool left) {
  return std::get<0>(solveEx("aten::linalg_solve", A, B, left, true));
}

T2 invEx(const char *op, const Tensor &A, bool checkErrors) {
  checkMatrix(A, op, true);
  int64_t n = A.size(-1);
  Shape batch = batchOf(A);
  Tensor I = emptyLike(cat(batch, {n, n}), A.dtype(), A);
  if (!isMeta(A)) {
    Out eye(batch, n, n, A.dtype(), A);
    Mat id = identity(n);
    for (int64_t b = 0, nb = product(batch); b < nb; ++b) eye.put(b, id.data(), n);
    I = eye.t;
  }
  auto [x, lu, piv, info] = solveEx(op, A, I, true, checkErrors);
  return {x, info};
}
T2 linalgInvEx(const Tensor &A, bool checkErrors) {
  return invEx("aten::linalg_inv_ex", A, checkErrors);
}
Tensor linalgInv(const Tensor &A) { return std::get<0>(invEx("aten::linalg_inv", A, true)); }

// --- Cholesky ------------------------------------------------------------------

T2 choleskyEx(const char *op, const Tensor &A, bool upper, bool checkErrors) {
  checkMatrix(A, op, true);
  DType dt = floatDtype(A, op);
  Shape batch = batchOf(A);
  int64_t n = A.size(-1);
  Out L(batch, n, n, dt, A);
  OutVec info(batch, std::nullopt, DType::Int32, A);
  if (isMeta(A)) return {L.t, info.t};
  Matrices in(A, batch);
  for (int64_t b = 0, nb = product(batch); b < nb; ++b) {
    Mat a = in.get(b);
    char uplo = upper ? 'U' : 'L';
    int N = (int)n, lda = ld(n), inf = 0;
    if (n > 0) lapack(op).dpotrf(&uplo, &N, a.data(), &lda, &inf, 1);
    check(!checkErrors || inf == 0, op,
          "the factorization could not be completed because the input is not positive-definite "
          "(the leading minor of order " + std::to_string(inf) + " is not positive-definite)");
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < n; ++i)
        if (upper ? i > j : i < j) a[i + j * n] = 0;
    L.put(b, a.data(), n);
    info.set(b, 0, inf);
  }
  return {L.t, info.t};
}
T2 linalgCholeskyEx(const Tensor &A, bool upper, bool checkErrors) {
  return choleskyEx("aten::linalg_cholesky_ex", A, upper, checkErrors);
}
Tensor linalgCholesky(const Tensor &A, bool upper) {
  return std::get<0>(choleskyEx("aten::linalg_cholesky", A, upper, true));
}
Tensor cholesky(const Tensor &A, bool upper) {
  return std::get<0>(choleskyEx("aten::cholesky", A, upper, true));
}

/// A X = B with A = L L^T (or U^T U) given by its factor.
Tensor choleskySolve(const Tensor &B, const Tensor &F, bool upper) {
  const char *op = "aten::cholesky_solve";
  checkMatrix(B, op, false);
  checkMatrix(F, op, true);
  DType dt = floatDtype(B, op);
  int64_t n = F.size(-1), k = B.size(-1);
  check(B.size(-2) == n, op, "the shapes " + B.shapeString() + " and " + F.shapeString() +
                                 " do not match");
  Shape batch = broadcastBatch(B, F, op);
  Out X(batch, n, k, dt, B);
  if (isMeta(B)) return X.t;
  Matrices fb(F, batch), bb(B, batch);
  for (int64_t b = 0, nb = product(batch); b < nb; ++b) {
    Mat f = fb.get(b), rhs = bb.get(b);
    char uplo = upper ? 'U' : 'L';
    int N = (int)n, nrhs = (int)k, lda = ld(n), info = 0;
    if (n > 0 && k > 0)
      lapack(op).dpotrs(&uplo, &N, &nrhs, f.data(), &lda, rhs.data(), &lda, &info, 1);
    X.put(b, rhs.data(), n);
  }
  return X.t;
}

/// (L L^T)^-1 (or (U^T U)^-1) from the factor.
Tensor choleskyInverse(const Tensor &F, bool upper) {
  const char *op = "aten::cholesky_inverse";
  checkMatrix(F, op, true);
  DType dt = floatDtype(F, op);
  Shape batch = batchOf(F);
  int64_t n = F.size(-1);
  Out X(batch, n, n, dt, F);
  if (isMeta(F)) return X.t;
  Matrices in(F, batch);
  for (int64_t b = 0, nb = product(batch); b < nb; ++b) {
    Mat a = in.get(b);
    char uplo = upper ? 'U' : 'L';
    int N = (int)n, lda = ld(n), info = 0;
    if (n > 0) lapack(op).dpotri(&uplo, &N, a.data(), &lda, &info, 1);
    // dpotri fills one triangle: mirror it.
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < n; ++i)
        if (upper ? i > j : i < j) a[i + j * n] = a[j + i * n];
    X.put(b, a.data(), n);
  }
  return X.t;
}

// --- triangular solves -----------------------------------------------------------

/// op(A) X = B for triangular A (trans 'N' or 'T'), over broadcast batches.
Tensor trsolve(const char *op, const Tensor &A, const Tensor &B, bool upper, char trans,
               bool unit, bool rightSide) {
  return solveBatches(op, A, B, B, trans, rightSide, [&](const Shape &) {
    return [=](int64_t, Mat &a, Mat &rhs, char tr, int64_t n, int64_t cols, int64_t rows) {
      char uplo = upper ? 'U' : 'L', diag = unit ? 'U' : 'N';
      int N = (int)n, nrhs = (int)cols, lda = ld(n), ldb = ld(rows), info = 0;
      lapack(op).dtrtrs(&uplo, &tr, &diag, &N, &nrhs, a.data(), &lda, rhs.data(), &ldb, &info, 1, 1, 1);
    };
  });
}
T2 triangularSolve(const Tensor &B, const Tensor &A, bool upper, bool transpose, bool unit) {
  const char *op = "aten::triangular_solve";
  Tensor X = trsolve(op, A, B, upper, transpose ? 'T' : 'N', unit, false);
  Shape batch = broadcastBatch(A, B, op);
  int64_t n = A.size(-1);
  Out C(batch, n, n, A.dtype(), A);
  if (!isMeta(A)) {
    Matrices in(A, batch);
    for (int64_t b = 0, nb = product(batch); b < nb; ++b) C.put(b, in.get(b).data(), n);
  }
  return {X, C.t};
}
Tensor solveTriangular(const Tensor &A, const Tensor &B, bool upper, bool left, bool unit) {
  return trsolve("aten::linalg_solve_triangular", A, B, upper, 'N', unit, !left);
}


// --- matrix_power, tensorinv, tensorsolve -------------------------------------------------

/// A^n by repeated squaring (n < 0: of the inverse); n = 0 gives identities.
Tensor matrixPower(const Tensor &A, int64_t n) {
  const char *op = "aten::linalg_matrix_power";
  checkMatrix(A, op, true);
  int64_t k = A.size(-1);
  Shape batch = batchOf(A);
  Out out(batch, k, k, A.dtype(), A);
  if (isMeta(A)) return out.t;
  Tensor base = n < 0 ? linalgInv(A) : A;
  Matrices in(base, batch);
  auto mul = [k](const Mat &x, const Mat &y) {
    Mat z(k * k, 0.0);
    for (int64_t j = 0; j < k; ++j)
      for (int64_t p = 0; p < k; ++p)
        for (int64_t i = 0; i < k; ++i) z[i + j * k] += x[i + p * k] * y[p + j * k];
    return z;
  };
  for (int64_t b = 0, nb = product(batch); b < nb; ++b) {
    Mat r = identity(k), x = in.get(b);
    for (uint64_t e = n < 0 ? -(uint64_t)n : (uint64_t)n; e; e >>= 1) {
      if (e & 1) r = mul(r, x);
      if (e > 1) x = mul(x, x);
    }
    out.put(b, r.data(), k);
  }
  return out.t;
}

/// The inverse of A read as a [prod(shape[:ind]), prod(shape[ind:])] matrix,
/// shaped shape[ind:] + shape[:ind].
Tensor tensorinv(const Tensor &A, int64_t ind) {
  const char *op = "aten::linalg_tensorinv";
  check(ind > 0 && ind <= A.dim(), op, "ind must be in [1, " + std::to_string(A.dim()) + "]");
  Shape lead(A.sizes().begin(), A.sizes().begin() + ind), rest(A.sizes().begin() + ind, A.sizes().end());
  check(product(lead) == product(rest), op, "expects prod(shape[:ind]) == prod(shape[ind:]), got " +
                                                A.shapeString());
  Tensor inv = linalgInv(A.contiguous().reshape({product(lead), product(rest)}));
  return inv.reshape(cat(rest, lead));
}

/// X with tensordot(A, X, X.dim()) = B; dims of A named by `dims` move to the end first.
Tensor tensorsolve(const Tensor &A, const Tensor &B, const std::optional<std::vector<int64_t>> &dims) {
  const char *op = "aten::linalg_tensorsolve";
  Tensor a = A;
  if (dims && !dims->empty()) {
    std::vector<int64_t> perm, moved;
    std::vector<bool> isMoved(A.dim(), false);
    for (int64_t d : *dims) isMoved[wrapDim(d, A.dim(), op)] = true, moved.push_back(wrapDim(d, A.dim(), op));
    for (int64_t d = 0; d < A.dim(); ++d) if (!isMoved[d]) perm.push_back(d);
    perm.insert(perm.end(), moved.begin(), moved.end());
    a = call("aten::permute", A, perm).contiguous();
  }
  check(a.dim() >= B.dim(), op, "the shapes " + A.shapeString() + " and " + B.shapeString() +
                                    " do not match");
  Shape rest(a.sizes().begin() + B.dim(), a.sizes().end());
  int64_t rows = B.numel(), cols = product(rest);
  check(rows == cols, op, "expects prod(A.shape[B.dim():]) == B.numel(), got " + A.shapeString() +
                              " and " + B.shapeString());
  Tensor x = linalgSolve(a.contiguous().reshape({rows, cols}), B.contiguous().reshape({rows}), true);
  return x.reshape(rest);
}

// --- LDL^T and the matrix exponential ------------------------------------------------

/// Bunch-Kaufman LDL^T of symmetric matrices (LAPACK's dsytrf on the lower
/// triangle; its pivots as LAPACK returns them, the strict upper triangle zeroed).
std::tuple<Tensor, Tensor, Tensor> ldlFactorEx(const Tensor &A, bool hermitian, bool checkErrors) {
  const char *op = "aten::linalg_ldl_factor_ex";
  checkMatrix(A, op, true);
  DType dt = floatDtype(A, op);
  (void)hermitian; // real symmetric: the same factorization
  Shape batch = batchOf(A);
  int64_t n = A.size(-1);
  Out LD(batch, n, n, dt, A);
  OutVec piv(batch, n, DType::Int32, A), info(batch, std::nullopt, DType::Int32, A);
  if (isMeta(A)) return {LD.t, piv.t, info.t};
  Matrices in(A, batch);
  for (int64_t b = 0, nb = product(batch); b < nb; ++b) {
    Mat a = in.get(b);
    std::vector<int> p(std::max<int64_t>(1, n));
    int N = (int)n, lda = ld(n), inf = 0;
    if (n > 0) {
      char uplo = 'L';
      const Lapack &L = lapack(op);
      double wq = 0;
      int lwork = -1;
      L.dsytrf(&uplo, &N, a.data(), &lda, p.data(), &wq, &lwork, &inf, 1);
      lwork = std::max(1, (int)wq);
      std::vector<double> work(lwork);
      L.dsytrf(&uplo, &N, a.data(), &lda, p.data(), work.data(), &lwork, &inf, 1);
    }
    check(!checkErrors || inf == 0, op, "the factorization has a zero block (LAPACK info " +
                                            std::to_string(inf) + ")");
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < j; ++i) a[i + j * n] = 0;
    LD.put(b, a.data(), n);
    for (int64_t i = 0; i < n; ++i) piv.set(b, i, p[i]);
    info.set(b, 0, inf);
  }
  return {LD.t, piv.t, info.t};
}
T2 ldlFactor(const Tensor &A, bool hermitian) {
  auto [ld, piv, info] = ldlFactorEx(A, hermitian, false);
  return {ld, piv};
}

/// Solves A X = B from A's LDL^T factors.
Tensor ldlSolve(const Tensor &LD, const Tensor &pivots, const Tensor &B, bool hermitian) {
  const char *op = "aten::linalg_ldl_solve";
  (void)hermitian;
  checkMatrix(LD, op, true);
  checkMatrix(B, op, false);
  DType dt = floatDtype(B, op);
  int64_t n = LD.size(-1), k = B.size(-1);
  check(B.size(-2) == n, op, "the shapes " + LD.shapeString() + " and " + B.shapeString() +
                                 " do not match");
  Shape batch = broadcastBatch(LD, B, op);
  Out X(batch, n, k, dt, B);
  if (isMeta(B)) return X.t;
  Shape ps = pivots.sizes();
  ps.push_back(1);
  Matrices lb(LD, batch), bb(B, batch), pb(pivots.contiguous().reshape(ps), batch);
  for (int64_t b = 0, nb = product(batch); b < nb; ++b) {
    Mat a = lb.get(b), rhs = bb.get(b), pd = pb.get(b);
    std::vector<int> p(std::max<int64_t>(1, n));
    for (int64_t i = 0; i < n; ++i) p[i] = (int)pd[i];
    char uplo = 'L';
    int N = (int)n, nrhs = (int)k, lda = ld(n), info = 0;
    if (n > 0 && k > 0)
      lapack(op).dsytrs(&uplo, &N, &nrhs, a.data(), &lda, p.data(), rhs.data(), &lda, &info, 1);
    X.put(b, rhs.data(), n);
  }
  return X.t;
}

/// exp(A): scaled until its 1-norm is at most 1/2, a Taylor series to float64
/// precision (30 terms bound the remainder by 2^-30 / 30!), then squared back.
Tensor matrixExp(const Tensor &A) {
  const char *op = "aten::linalg_matrix_exp";
  checkMatrix(A, op, true);
  DType dt = floatDtype(A, op);
  Shape batch = batchOf(A);
  int64_t n = A.size(-1);
  Out out(batch, n, n, dt, A);
  if (isMeta(A)) return out.t;
  Matrices in(A, batch);
  auto mul = [n](const Mat &x, const Mat &y) {
    Mat z(n * n, 0.0);
    for (int64_t j = 0; j < n; ++j)
      for (int64_t p = 0; p < n; ++p)
        for (int64_t i = 0; i < n; ++i) z[i + j * n] += x[i + p * n] * y[p + j * n];
    return z;
  };
  for (int64_t b = 0, nb = product(batch); b < nb; ++b) {
    Mat a = in.get(b);
    double norm = 0;
    for (int64_t j = 0; j < n; ++j) {
      double col = 0;
      for (int64_t i = 0; i < n; ++i) col += std::abs(a[i + j * n]);
      norm = std::max(norm, col);
    }
    int squarings = norm > 0.5 ? (int)std::ceil(std::log2(norm / 0.5)) : 0;
    double scale = std::ldexp(1.0, -squarings);
    for (double &v : a) v *= scale;
    Mat sum = identity(n), term = identity(n);
    for (int k = 1; k <= 30; ++k) {
      term = mul(term, a);
      for (double &v : term) v /= k;
      for (int64_t i = 0; i < n * n; ++i) sum[i] += term[i];
    }
    for (int s = 0; s < squarings; ++s) sum = mul(sum, sum);
    out.put(b, sum.data(), n);
  }
  return out.t;
}
} // namespace

// The QR, eigh, SVD, pinv and matrix_rank kernels (LinearAlgebraSpectral.cpp).
void registerSpectralKernels(Library &m);

} // namespace kiln::cpu

/// The same kernels serve CPU and Meta (on Meta tensors they only compute shapes).
KILN_LIBRARY_IMPL_CPU_AND_META(aten, m) {
  using namespace kiln::cpu;
  m.impl("linalg_lu_factor_ex", luFactorEx);
  m.impl("linalg_lu_factor", luFactor);
  m.impl("_lu_with_info", luWithInfo);
  m.impl("lu_unpack", luUnpack);
  m.impl("linalg_lu", linalgLu);
  m.impl("linalg_lu_solve", linalgLuSolve);
  m.impl("lu_solve", luSolve);
  m.impl("_linalg_det", linalgDetParts);
  m.impl("linalg_det", linalgDet);
  m.impl("det", linalgDet);
  m.impl("_linalg_slogdet", slogdetParts);
  m.impl("linalg_slogdet", slogdet);
  m.impl("slogdet", slogdet);
  m.impl("logdet", logdet);
  m.impl("_linalg_solve_ex", linalgSolveExFull);
  m.impl("linalg_solve_ex", linalgSolveEx);
  m.impl("linalg_solve", linalgSolve);
  m.impl("linalg_inv_ex", linalgInvEx);
  m.impl("linalg_inv", linalgInv);
  m.impl("inverse", linalgInv);
  m.impl("linalg_cholesky_ex", linalgCholeskyEx);
  m.impl("linalg_cholesky", linalgCholesky);
  m.impl("cholesky", cholesky);
  m.impl("cholesky_solve", choleskySolve);
  m.impl("cholesky_inverse", choleskyInverse);
  m.impl("triangular_solve", triangularSolve);
  m.impl("linalg_solve_triangular", solveTriangular);
  m.impl("linalg_matrix_power", matrixPower);
  m.impl("matrix_power", matrixPower);
  m.impl("linalg_tensorinv", tensorinv);
  m.impl("linalg_tensorsolve", tensorsolve);
  m.impl("linalg_ldl_factor_ex", ldlFactorEx);
  m.impl("linalg_ldl_factor", ldlFactor);
  m.impl("linalg_ldl_solve", ldlSolve);
  m.impl("linalg_matrix_exp", matrixExp);
  m.impl("matrix_exp", matrixExp);
  registerSpectralKernels(m);
}
