// kiln runtime — backward formulas of the LU family (linalg_lu, lu_factor(_ex),
// _lu_with_info, lu_unpack, lu_solve, linalg_lu_solve): A = P L U for square,
// wide and tall real matrices, worked in float64 with other dispatcher ops.
#include "FormulaUtils.h"

namespace kiln {
namespace {

using namespace formulas;

Tensor solveTri(const Tensor &A, const Tensor &B, bool upper, bool left, bool unit = false) {
  return call<Tensor>("aten::linalg_solve_triangular", A, B, upper, left, unit);
}
Tensor narrow(const Tensor &a, int64_t dim, int64_t start, int64_t len) {
  return call<Tensor>("aten::narrow", a, dim, start, len).contiguous();
}
Tensor cat(const std::vector<Tensor> &ts, int64_t dim) { return call<Tensor>("aten::cat", ts, dim); }
Tensor zeros(const Shape &s) { return Tensor::zeros(s, DType::Float64); }

/// P, L, U of a packed factorization.
std::tuple<Tensor, Tensor, Tensor> unpack(const Tensor &LU, const Tensor &pivots) {
  auto [P, L, U] = call<std::tuple<Tensor, Tensor, Tensor>>("aten::lu_unpack", f64(LU), pivots, true, true);
  return {f64(P), f64(L), f64(U)};
}

/// d A of A = P L U (L m x k unit lower, U k x n upper) from gL, gU (either may be undefined).
Tensor luBackward(const Tensor &P, const Tensor &L, const Tensor &U, const Tensor &gL, const Tensor &gU) {
  int64_t m = L.size(-2), n = U.size(-1), k = std::min(m, n);
  Tensor gA;
  auto addTo = [](Tensor &acc, const Tensor &v) { acc = acc.defined() ? add(acc, v) : v; };
  if (m == n) {
    if (gL.defined()) gA = tril(matmul(mT(L), gL), -1);
    if (gU.defined()) addTo(gA, triu(matmul(gU, mT(U))));
    gA = solveTri(mT(U), gA, /*upper=*/false, /*left=*/false);
    gA = solveTri(mT(L), gA, /*upper=*/true, /*left=*/true, /*unit=*/true);
  } else if (m < n) { // wide: U = [U1 | U2], U1 square
    Tensor U1 = narrow(U, -1, 0, k);
    if (gL.defined()) gA = matmul(mT(L), gL);
    if (gU.defined()) addTo(gA, neg(matmul(triu(gU), mT(U))));
    gA = solveTri(mT(U1), tril(gA, -1), /*upper=*/false, /*left=*/false);
    if (gU.defined()) gA = cat({add(gA, triu(narrow(gU, -1, 0, k))), narrow(gU, -1, k, n - k)}, -1);
    gA = solveTri(mT(L), gA, /*upper=*/true, /*left=*/true, /*unit=*/true);
    if (!gU.defined()) gA = cat({gA, zeros(narrow(U, -1, k, n - k).sizes())}, -1);
  } else { // tall: L = [L1; L2], L1 square
    Tensor L1 = narrow(L, -2, 0, k);
    if (gU.defined()) gA = matmul(gU, mT(U));
    if (gL.defined()) addTo(gA, neg(matmul(mT(L), tril(gL, -1))));
    gA = solveTri(mT(L1), triu(gA), /*upper=*/true, /*left=*/true, /*unit=*/true);
    if (gL.defined()) gA = cat({add(gA, tril(narrow(gL, -2, 0, k), -1)), narrow(gL, -2, k, m - k)}, -2);
    gA = solveTri(mT(U), gA, /*upper=*/false, /*left=*/false);
    if (!gL.defined()) gA = cat({gA, zeros(narrow(L, -2, k, m - k).sizes())}, -2);
  }
  return matmul(P, gA);
}

/// gL, gU of a packed LU's gradient: the strict lower part (m x k) and the upper part (k x n).
std::pair<Tensor, Tensor> splitPacked(const Tensor &gLU) {
  int64_t m = gLU.size(-2), n = gLU.size(-1), k = std::min(m, n);
  return {tril(narrow(gLU, -1, 0, k), -1), triu(narrow(gLU, -2, 0, k))};
}

/// The packed gradient of lu_unpack's L (m x k) and U (k x n) in one m x n matrix.
Tensor packGrads(const Tensor &gL, const Tensor &gU, int64_t m, int64_t n, const Shape &batch) {
  int64_t k = std::min(m, n);
  Shape full = batch;
  full.insert(full.end(), {m, n});
  Tensor out = zeros(full);
  if (gL.defined()) {
    Tensor l = tril(gL, -1);
    if (n > k) {
      Shape s = batch;
      s.insert(s.end(), {m, n - k});
      l = cat({l, zeros(s)}, -1);
    }
    out = add(out, l);
  }
  if (gU.defined()) {
    Tensor u = triu(gU);
    if (m > k) {
      Shape s = batch;
      s.insert(s.end(), {m - k, n});
      u = cat({u, zeros(s)}, -2);
    }
    out = add(out, u);
  }
  return out;
}

Tensor opt(const Grads &g, size_t i) { return has(g, i) ? f64(g[i]) : Tensor(); }

/// A packed factorization (result 0 LU, result 1 pivots) differentiated through P L U.
Grads packedF(const Ctx &c, const Grads &g) {
  if (!has(g, 0)) return {Tensor()};
  auto [P, L, U] = unpack(c.output(0), c.output(1));
  auto [gL, gU] = splitPacked(f64(g[0]));
  return {as(luBackward(P, L, U, gL, gU), c.input(0).dtype())};
}

/// d LU, d B of X = A^{-1} B (left; X A = B otherwise; A^T in place of A when adjoint), A = P L U.
Grads luSolveF(const Ctx &c, const Grads &g, const Tensor &LU, const Tensor &pivots, const Tensor &B, bool left,
               bool adjoint, size_t luIndex, size_t bIndex, size_t nargs) {
  Grads out(nargs);
  if (!has(g, 0)) return out;
  Tensor X = f64(c.output(0)), gX = f64(g[0]), lu = f64(LU);
  Tensor gB = call<Tensor>("aten::linalg_lu_solve", lu, pivots, gX, left, !adjoint);
  Tensor gA; // with respect to A
  if (left) gA = adjoint ? neg(matmul(X, mT(gB))) : neg(matmul(gB, mT(X)));
  else gA = adjoint ? neg(matmul(mT(gB), X)) : neg(matmul(mT(X), gB));
  auto [P, L, U] = unpack(LU, pivots);
  Tensor PgA = matmul(mT(P), gA);
  Tensor gLU = add(tril(matmul(PgA, mT(U)), -1), triu(matmul(mT(L), PgA)));
  out[luIndex] = as(sumTo(gLU, LU.sizes()), LU.dtype());
  out[bIndex] = as(sumTo(gB, B.sizes()), B.dtype());
  return out;
}

} // namespace
} // namespace kiln

KILN_LIBRARY_FRAGMENT(aten, m) {
  using namespace kiln;
  // linalg_lu(A, pivot) -> (P, L, U)
  m.register_autograd("linalg_lu", [](const Ctx &c, const Grads &g) -> Grads {
    if (!has(g, 1) && !has(g, 2)) return {Tensor()};
    return {as(luBackward(f64(c.output(0)), f64(c.output(1)), f64(c.output(2)), opt(g, 1), opt(g, 2)),
               c.input(0).dtype())};
  });
  for (const char *op : {"linalg_lu_factor", "linalg_lu_factor_ex", "_lu_with_info"})
    m.register_autograd(op, packedF);
  // lu_unpack(LU_data, LU_pivots, unpack_data, unpack_pivots) -> (P, L, U)
  m.register_autograd("lu_unpack", [](const Ctx &c, const Grads &g) -> Grads {
    if (!has(g, 1) && !has(g, 2)) return {Tensor(), Tensor()};
    const Tensor &LU = c.input(0);
    Shape batch(LU.sizes().begin(), LU.sizes().end() - 2);
    return {as(packGrads(opt(g, 1), opt(g, 2), LU.size(-2), LU.size(-1), batch), LU.dtype()), Tensor()};
  });
  // linalg_lu_solve(LU, pivots, B, *, left, adjoint); lu_solve(self = B, LU_data, LU_pivots)
  m.register_autograd("linalg_lu_solve", [](const Ctx &c, const Grads &g) {
    return luSolveF(c, g, c.input(0), c.input(1), c.input(2), c.inputs[3].toBool(), c.inputs[4].toBool(), 0, 2, 3);
  });
  m.register_autograd("lu_solve", [](const Ctx &c, const Grads &g) {
    return luSolveF(c, g, c.input(1), c.input(2), c.input(0), true, false, 1, 0, 3);
  });
}
