// GoogleTests of the eager linear-algebra kernels (kernels/cpu/LinearAlgebra*.cpp,
// LAPACK through dlopen): each factorization reassembled, solves checked by
// substitution, batching, vector right-hand sides and the errors of singular inputs.
#include "kiln/library.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace kiln;

namespace {
using T2 = std::tuple<Tensor, Tensor>;
using T3 = std::tuple<Tensor, Tensor, Tensor>;

Tensor M(const std::vector<int64_t> &shape, const std::vector<double> &v) {
  Tensor t = Tensor::empty(shape, DType::Float64);
  std::copy(v.begin(), v.end(), t.data<double>());
  return t;
}
std::vector<double> vals(const Tensor &t) {
  Tensor c = t.contiguous();
  return std::vector<double>(c.data<double>(), c.data<double>() + c.numel());
}
/// a [m,k] @ b [k,n] of row-major vectors.
std::vector<double> mm(const std::vector<double> &a, const std::vector<double> &b, int64_t m,
                       int64_t k, int64_t n) {
  std::vector<double> c(m * n, 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p)
      for (int64_t j = 0; j < n; ++j) c[i * n + j] += a[i * k + p] * b[p * n + j];
  return c;
}
std::vector<double> transpose(const std::vector<double> &a, int64_t m, int64_t n) {
  std::vector<double> t(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) t[j * m + i] = a[i * n + j];
  return t;
}
void expectAll(const std::vector<double> &got, const std::vector<double> &want, double tol = 1e-12) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
}

const std::vector<double> kA = {4, 1, 2, 1, 3, 0, 2, 0, 5}; // symmetric positive definite
const std::vector<double> kN = {0, 2, 1, 1, 1, 0, 3, 0, 4}; // needs a row swap
} // namespace

TEST(LinearAlgebraKernels, LuFactorUnpackSolveDet) {
  Tensor A = M({3, 3}, kN);
  auto [lu, piv, info] = call<T3>("aten::linalg_lu_factor_ex", A, true, false);
  EXPECT_EQ(piv.dtype(), DType::Int32);
  EXPECT_EQ(info.data<int32_t>()[0], 0);
  auto [P, L, U] = call<T3>("aten::lu_unpack", lu, piv, true, true);
  expectAll(mm(vals(P), mm(vals(L), vals(U), 3, 3, 3), 3, 3, 3), kN);
  // det = 0*(4-0) - 2*(4-0) + 1*(0-3) = -11
  EXPECT_NEAR(call("aten::linalg_det", A).data<double>()[0], -11, 1e-12);
  auto [sign, logabs] = call<T2>("aten::linalg_slogdet", A);
  EXPECT_EQ(sign.data<double>()[0], -1);
  EXPECT_NEAR(logabs.data<double>()[0], std::log(11.0), 1e-12);
  EXPECT_TRUE(std::isnan(call("aten::logdet", A).data<double>()[0]));
  // Solve with the factors, from the left and (adjoint) from the right.
  Tensor B = M({3, 2}, {1, 0, 0, 1, 2, 3});
  Tensor X = call("aten::linalg_lu_solve", lu, piv, B, true, false);
  expectAll(mm(kN, vals(X), 3, 3, 2), vals(B));
  Tensor Br = M({2, 3}, {1, 0, 2, 0, 1, 3});
  Tensor Xr = call("aten::linalg_lu_solve", lu, piv, Br, false, true); // X A^T = B
  expectAll(mm(vals(Xr), transpose(kN, 3, 3), 2, 3, 3), vals(Br));
}

TEST(LinearAlgebraKernels, SolveInverseBatchesAndVectors) {
  // A batch of two matrices against one vector right-hand side.
  std::vector<double> two = kA;
  two.insert(two.end(), kN.begin(), kN.end());
  Tensor A = M({2, 3, 3}, two), b = M({3}, {1, 2, 3});
  Tensor x = call("aten::linalg_solve", A, b, true);
  EXPECT_EQ(x.sizes(), (std::vector<int64_t>{2, 3}));
  std::vector<double> xv = vals(x);
  expectAll(mm(kA, {xv[0], xv[1], xv[2]}, 3, 3, 1), {1, 2, 3});
  expectAll(mm(kN, {xv[3], xv[4], xv[5]}, 3, 3, 1), {1, 2, 3});
  Tensor inv = call("aten::linalg_inv", M({3, 3}, kA));
  expectAll(mm(vals(inv), kA, 3, 3, 3), {1, 0, 0, 0, 1, 0, 0, 0, 1});
  // A singular matrix: the _ex form reports it, the plain form refuses.
  Tensor S = M({2, 2}, {1, 2, 2, 4});
  auto [si, sinfo] = call<T2>("aten::linalg_inv_ex", S, false);
  EXPECT_GT(sinfo.data<int32_t>()[0], 0);
  EXPECT_THROW(call("aten::linalg_inv", S), Error);
}

TEST(LinearAlgebraKernels, CholeskyAndTriangular) {
  Tensor A = M({3, 3}, kA);
  auto [L, info] = call<T2>("aten::linalg_cholesky_ex", A, false, false);
  std::vector<double> l = vals(L);
  EXPECT_EQ(l[1], 0); // the upper triangle is zero
  expectAll(mm(l, transpose(l, 3, 3), 3, 3, 3), kA);
  Tensor U = call("aten::cholesky", A, true);
  std::vector<double> u = vals(U);
  expectAll(mm(transpose(u, 3, 3), u, 3, 3, 3), kA);
  Tensor B = M({3, 1}, {1, 2, 3});
  expectAll(mm(kA, vals(call("aten::cholesky_solve", B, L, false)), 3, 3, 1), {1, 2, 3});
  expectAll(mm(vals(call("aten::cholesky_inverse", L, false)), kA, 3, 3, 3),
            {1, 0, 0, 0, 1, 0, 0, 0, 1});
  auto [x, coeff] = call<T2>("aten::triangular_solve", B, L, false, false, false);
  expectAll(mm(l, vals(x), 3, 3, 1), {1, 2, 3});
  expectAll(vals(coeff), l);
  // X U = B from the right.
  Tensor Br = M({1, 3}, {1, 2, 3});
  Tensor xr = call("aten::linalg_solve_triangular", U, Br, true, false, false);
  expectAll(mm(vals(xr), u, 1, 3, 3), {1, 2, 3});
  // Not positive definite.
  EXPECT_THROW(call("aten::linalg_cholesky", M({2, 2}, {1, 2, 2, 1}), false), Error);
}

TEST(LinearAlgebraKernels, QrEighSvdPinvRank) {
  Tensor A = M({3, 2}, {1, 2, 3, 4, 5, 6});
  auto [Q, R] = call<T2>("aten::linalg_qr", A, std::string("reduced"));
  EXPECT_EQ(Q.sizes(), (std::vector<int64_t>{3, 2}));
  expectAll(mm(vals(Q), vals(R), 3, 2, 2), vals(A));
  expectAll(mm(transpose(vals(Q), 3, 2), vals(Q), 2, 3, 2), {1, 0, 0, 1});
  auto [Qc, Rc] = call<T2>("aten::linalg_qr", A, std::string("complete"));
  EXPECT_EQ(Qc.sizes(), (std::vector<int64_t>{3, 3}));
  expectAll(mm(vals(Qc), vals(Rc), 3, 3, 2), vals(A));
  auto [w, V] = call<T2>("aten::linalg_eigh", M({3, 3}, kA), std::string("L"));
  std::vector<double> wv = vals(w), vv = vals(V);
  EXPECT_LT(wv[0], wv[1]);
  for (int j = 0; j < 3; ++j) {
    std::vector<double> v = {vv[j], vv[3 + j], vv[6 + j]};
    std::vector<double> av = mm(kA, v, 3, 3, 1);
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(av[i], wv[j] * v[i], 1e-12);
  }
  auto [Us, S, Vh] = call<T3>("aten::linalg_svd", A, false, std::optional<std::string>());
  std::vector<double> s = vals(S), us = vals(Us);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j) us[i * 2 + j] *= s[j];
  expectAll(mm(us, vals(Vh), 3, 2, 2), vals(A));
  // The legacy svd without U and V: zero matrices of shapes [m, m] and [n, n].
  auto [U0, S0, V0] = call<T3>("aten::svd", A, true, false);
  EXPECT_EQ(U0.sizes(), (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(V0.sizes(), (std::vector<int64_t>{2, 2}));
  expectAll(vals(V0), {0, 0, 0, 0});
  expectAll(vals(S0), vals(S));
  // pinv of a rank-1 matrix [[1, 2], [2, 4]] is A / 25; its rank is 1.
  Tensor r1 = M({2, 2}, {1, 2, 2, 4});
  std::optional<Tensor> none;
  expectAll(vals(call("aten::linalg_pinv.atol_rtol_tensor", r1, none, none, false)),
            {0.04, 0.08, 0.08, 0.16});
  expectAll(vals(call("aten::linalg_pinv.atol_rtol_tensor", r1, none, none, true)),
            {0.04, 0.08, 0.08, 0.16});
  Tensor rank = call("aten::linalg_matrix_rank.atol_rtol_tensor", r1, none, none, false);
  EXPECT_EQ(rank.dtype(), DType::Int64);
  EXPECT_EQ(rank.data<int64_t>()[0], 1);
}

TEST(LinearAlgebraKernels, MatrixPowerTensorinvTensorsolve) {
  Tensor A = M({2, 2}, {1, 1, 0, 1});
  expectAll(vals(call("aten::linalg_matrix_power", A, (int64_t)5)), {1, 5, 0, 1});
  expectAll(vals(call("aten::linalg_matrix_power", A, (int64_t)-2)), {1, -2, 0, 1});
  expectAll(vals(call("aten::linalg_matrix_power", A, (int64_t)0)), {1, 0, 0, 1});
  // A [2, 2, 4] read as a 4x4 matrix (ind = 2): the inverse has shape [4, 2, 2].
  std::vector<double> four = {2, 0, 0, 0, 0, 4, 0, 0, 0, 0, 5, 0, 0, 0, 0, 8};
  Tensor T = M({2, 2, 4}, four);
  Tensor inv = call("aten::linalg_tensorinv", T, (int64_t)2);
  EXPECT_EQ(inv.sizes(), (std::vector<int64_t>{4, 2, 2}));
  expectAll(vals(inv), {0.5, 0, 0, 0, 0, 0.25, 0, 0, 0, 0, 0.2, 0, 0, 0, 0, 0.125});
  Tensor x = call("aten::linalg_tensorsolve", T, M({2, 2}, {1, 1, 1, 1}),
                  std::optional<std::vector<int64_t>>());
  EXPECT_EQ(x.sizes(), (std::vector<int64_t>{4}));
  expectAll(vals(x), {0.5, 0.25, 0.2, 0.125});
}

TEST(LinearAlgebraKernels, LdlMatrixExpNuclearNorm) {
  // A symmetric indefinite matrix: solve through its LDL^T factors.
  Tensor A = M({3, 3}, {1, 2, 0, 2, -1, 3, 0, 3, 2});
  auto [LD, piv] = call<T2>("aten::linalg_ldl_factor", A, false);
  EXPECT_EQ(piv.dtype(), DType::Int32);
  Tensor B = M({3, 1}, {1, 2, 3});
  expectAll(mm(vals(A), vals(call("aten::linalg_ldl_solve", LD, piv, B, false)), 3, 3, 1), {1, 2, 3});
  // exp of a nilpotent and of a diagonal matrix.
  expectAll(vals(call("aten::linalg_matrix_exp", M({2, 2}, {0, 3, 0, 0}))), {1, 3, 0, 1});
  expectAll(vals(call("aten::linalg_matrix_exp", M({2, 2}, {2, 0, 0, -7}))),
            {std::exp(2.0), 0, 0, std::exp(-7.0)}, 1e-12 * std::exp(2.0));
  // The nuclear norm of diag(3, -4) is 7; keepdim keeps both dims.
  Tensor n = call("aten::linalg_matrix_norm.str_ord", M({2, 2}, {3, 0, 0, -4}), std::string("nuc"),
                  std::vector<int64_t>{-2, -1}, true, std::optional<int64_t>());
  EXPECT_EQ(n.sizes(), (std::vector<int64_t>{1, 1}));
  EXPECT_NEAR(vals(n)[0], 7, 1e-12);
}
