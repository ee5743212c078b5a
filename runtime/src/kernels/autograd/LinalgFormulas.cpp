// kiln runtime — backward formulas of the dense linear-algebra ops the
// runtime runs (inverse, solves, determinants, Cholesky, eigh, SVD, QR,
// pseudo-inverse, matrix powers and exponential), real matrices, worked in
// float64 with other dispatcher ops and given back in the input's dtype.
#include "FormulaUtils.h"

namespace kiln {
namespace {

using namespace formulas;

Tensor solve(const Tensor &A, const Tensor &B, bool left = true) {
  return call<Tensor>("aten::linalg_solve", A, B, left);
}
Tensor solveTri(const Tensor &A, const Tensor &B, bool upper, bool left, bool unit = false) {
  return call<Tensor>("aten::linalg_solve_triangular", A, B, upper, left, unit);
}
Tensor inv(const Tensor &A) { return call<Tensor>("aten::linalg_inv", A); }
Tensor narrow(const Tensor &a, int64_t dim, int64_t start, int64_t len) {
  return call<Tensor>("aten::narrow", a, dim, start, len).contiguous();
}
Tensor cat(const std::vector<Tensor> &ts, int64_t dim) { return call<Tensor>("aten::cat", ts, dim); }
/// X - X^T.
Tensor skew(const Tensor &x) { return sub(x, mT(x)); }
/// x[..., None, None]: a batch of scalars against a batch of matrices.
Tensor perMatrix(const Tensor &x) { return unsqueeze(unsqueeze(x, -1), -1); }

/// d A of X = A^{-1}: -X^T gX X^T.
Tensor invBackward(const Tensor &X, const Tensor &gX) { return neg(matmul(mT(X), matmul(gX, mT(X)))); }

/// d A, d B of X = solve(A, B) (A X = B, or X A = B when !left); B may be a (batch of) vector(s).
std::pair<Tensor, Tensor> solveBackward(const Tensor &A, const Tensor &B, const Tensor &X, const Tensor &gX,
                                        bool left) {
  bool vec = left && (B.dim() == 1 || (B.dim() == A.dim() - 1 &&
                                       Shape(B.sizes()) == Shape(A.sizes().begin(), A.sizes().end() - 1)));
  Tensor gB = solve(mT(A), gX, left), gA;
  if (vec) gA = neg(mul(unsqueeze(gB, -1), unsqueeze(X, -2)));
  else gA = left ? neg(matmul(gB, mT(X))) : neg(matmul(mT(X), gB));
  return {sumTo(gA, A.sizes()), sumTo(gB, B.sizes())};
}

/// d L of A = L L^T (lower) for gL.
Tensor choleskyBackward(Tensor L, Tensor gL, bool upper) {
  if (upper) {
    L = mT(L);
    gL = mT(gL);
  }
  Tensor gA = tril(matmul(mT(L), gL));
  gA = scale(add(gA, mT(tril(gA, -1))), 0.5);
  gA = solveTri(mT(L), gA, /*upper=*/true, /*left=*/true);
  return solveTri(L, gA, /*upper=*/false, /*left=*/false);
}

/// d factor of A = L L^T (U^T U when upper), given S = the gradient with respect to A.
Tensor factorFromA(const Tensor &F, const Tensor &S, bool upper) {
  Tensor sym = add(S, mT(S));
  return upper ? matmul(F, sym) : matmul(sym, F);
}

/// d A of A = V diag(L) V^T.
Tensor eighBackward(const Tensor &L, const Tensor &V, const Tensor &gL, const Tensor &gV) {
  if (!gV.defined()) return matmul(V, mul(unsqueeze(gL, -1), mT(V)));
  Tensor W = matmul(mT(V), gV);
  W = scale(skew(W), 0.5);
  Tensor E = add(sub(unsqueeze(L, -2), unsqueeze(L, -1)), eye(L.size(-1)));
  Tensor r = div(W, E);
  if (gL.defined()) r = add(r, diagEmbed(gL));
  return matmul(V, matmul(r, mT(V)));
}

/// d A of A = U diag(S) Vh (reduced; wider factors are cut to k columns).
Tensor svdBackward(int64_t m, int64_t n, Tensor U, const Tensor &S, Tensor Vh, Tensor gU, const Tensor &gS,
                   Tensor gVh) {
  int64_t k = S.size(-1);
  if (U.defined() && U.size(-1) > k) {
    U = narrow(U, -1, 0, k);
    if (gU.defined()) gU = narrow(gU, -1, 0, k);
  }
  if (Vh.defined() && Vh.size(-2) > k) {
    Vh = narrow(Vh, -2, 0, k);
    if (gVh.defined()) gVh = narrow(gVh, -2, 0, k);
  }
  if (!gU.defined() && !gVh.defined())
    return matmul(U, mul(unsqueeze(gS, -1), Vh));
  Tensor V = mT(Vh), gV = gVh.defined() ? mT(gVh) : Tensor();
  Tensor Sr = unsqueeze(S, -2), Sc = unsqueeze(S, -1), S2 = mul(S, S);
  Tensor E = add(sub(unsqueeze(S2, -2), unsqueeze(S2, -1)), eye(k));
  Tensor r;
  if (gU.defined() && gV.defined())
    r = div(add(mul(skew(matmul(mT(U), gU)), Sr), mul(Sc, skew(matmul(Vh, gV)))), E);
  else if (gU.defined())
    r = mul(div(skew(matmul(mT(U), gU)), E), Sr);
  else
    r = mul(Sc, div(skew(matmul(Vh, gV)), E));
  if (gS.defined()) r = add(r, diagEmbed(gS));
  if (m > n && gU.defined()) {
    Tensor gA = matmul(U, r), gUS = div(gU, Sr);
    gA = sub(add(gA, gUS), matmul(U, matmul(mT(U), gUS)));
    return matmul(gA, Vh);
  }
  if (m < n && gV.defined()) {
    Tensor gA = matmul(r, Vh), sgVh = div(gVh, Sc);
    gA = sub(add(gA, sgVh), matmul(matmul(sgVh, V), Vh));
    return matmul(U, gA);
  }
  return matmul(U, matmul(r, Vh));
}

/// d A of A = Q R, reduced, rows >= cols.
Tensor qrBackwardTall(const Tensor &Q, const Tensor &R, const Tensor &gQ, const Tensor &gR) {
  Tensor M = gR.defined() ? matmul(R, mT(gR)) : Tensor::zeros(R.sizes(), DType::Float64);
  if (gQ.defined()) M = sub(M, matmul(mT(gQ), Q));
  Tensor sym = add(tril(M), mT(tril(M, -1)));
  Tensor b = matmul(Q, sym);
  if (gQ.defined()) b = add(b, gQ);
  return solveTri(mT(R), b, /*upper=*/false, /*left=*/false);
}

/// d A of A = Q R (reduced): wide matrices split as [X | Y] with X = Q R[:, :m].
Tensor qrBackward(const Tensor &A, const Tensor &Q, const Tensor &R, Tensor gQ, const Tensor &gR) {
  int64_t m = A.size(-2), n = A.size(-1);
  if (m >= n) return qrBackwardTall(Q, R, gQ, gR);
  Tensor U = narrow(R, -1, 0, m), Y = narrow(A, -1, m, n - m);
  Tensor gU = gR.defined() ? narrow(gR, -1, 0, m) : Tensor();
  Tensor gV = gR.defined() ? narrow(gR, -1, m, n - m) : Tensor::zeros(mT(Y).sizes(), DType::Float64);
  Tensor gY = matmul(Q, gV);
  Tensor gQx = matmul(Y, mT(gV));
  if (gQ.defined()) gQx = add(gQx, gQ);
  return cat({qrBackwardTall(Q, U, gQx, gU), gY}, -1);
}

/// d A of P = pinv(A) (constant rank).
Tensor pinvBackward(const Tensor &A, const Tensor &P, const Tensor &G) {
  int64_t m = A.size(-2), n = A.size(-1);
  Tensor Gt = mT(G), Pt = mT(P);
  Tensor t1 = neg(matmul(Pt, matmul(G, Pt)));
  Tensor t2 = matmul(sub(eye(m), matmul(A, P)), matmul(Gt, matmul(P, Pt)));
  Tensor t3 = matmul(matmul(Pt, P), matmul(Gt, sub(eye(n), matmul(P, A))));
  return add(add(t1, t2), t3);
}

/// d A of A^n, n >= 1: sum over k of (A^k)^T g (A^{n-1-k})^T.
Tensor powerBackward(const Tensor &A, int64_t n, const Tensor &g) {
  std::vector<Tensor> pw{Tensor()};
  pw[0] = add(mul(A, scalar(0.0)), eye(A.size(-1)));
  for (int64_t k = 1; k < n; ++k) pw.push_back(matmul(pw.back(), A));
  Tensor gA;
  for (int64_t k = 0; k < n; ++k) {
    Tensor t = matmul(mT(pw[k]), matmul(g, mT(pw[n - 1 - k])));
    gA = gA.defined() ? add(gA, t) : t;
  }
  return gA;
}

Tensor matrixPowerBackward(const Tensor &A, int64_t n, const Tensor &g) {
  if (n == 0) return Tensor::zeros(A.sizes(), DType::Float64);
  if (n > 0) return powerBackward(A, n, g);
  Tensor B = inv(A);
  return invBackward(B, powerBackward(B, -n, g));
}

/// d A of exp(A): the upper-right block of exp([[A^T, g], [0, A^T]]).
Tensor matrixExpBackward(const Tensor &A, const Tensor &g) {
  int64_t n = A.size(-1);
  Tensor At = mT(A), z = Tensor::zeros(At.sizes(), DType::Float64);
  Tensor M = cat({cat({At, g}, -1), cat({z, At}, -1)}, -2);
  Tensor E = call<Tensor>("aten::linalg_matrix_exp", M);
  return narrow(narrow(E, -2, 0, n), -1, n, n);
}

// --- per-op glue: float64 in, the input's dtype out --------------------------------------------

Grads one(const Tensor &x, const Tensor &g) { return {as(g, x.dtype())}; }

Grads invF(const Ctx &c, const Grads &g) {
  if (!has(g, 0)) return {Tensor()};
  return one(c.input(0), invBackward(f64(c.output(0)), f64(g[0])));
}

Grads solveF(const Ctx &c, const Grads &g, bool left) {
  if (!has(g, 0)) return {Tensor(), Tensor()};
  auto [gA, gB] = solveBackward(f64(c.input(0)), f64(c.input(1)), f64(c.output(0)), f64(g[0]), left);
  return {as(gA, c.input(0).dtype()), as(gB, c.input(1).dtype())};
}

Grads detF(const Ctx &c, const Grads &g) {
  if (!has(g, 0)) return {Tensor()};
  Tensor A = f64(c.input(0));
  return one(c.input(0), mul(perMatrix(mul(f64(g[0]), f64(c.output(0)))), mT(inv(A))));
}

/// d A from the gradient of log|det A| (result `i`).
Grads logabsdetF(const Ctx &c, const Grads &g, size_t i) {
  if (!has(g, i)) return {Tensor()};
  return one(c.input(0), mul(perMatrix(f64(g[i])), mT(inv(f64(c.input(0))))));
}

Grads choleskyF(const Ctx &c, const Grads &g, bool upper) {
  if (!has(g, 0)) return {Tensor()};
  return one(c.input(0), choleskyBackward(f64(c.output(0)), f64(g[0]), upper));
}

Grads eighF(const Ctx &c, const Grads &g, bool valuesOnly) {
  Tensor gL = has(g, 0) ? f64(g[0]) : Tensor();
  Tensor gV = !valuesOnly && has(g, 1) ? f64(g[1]) : Tensor();
  if (!gL.defined() && !gV.defined()) return {Tensor()};
  Tensor L = f64(c.output(0)), V;
  if (valuesOnly || c.output(1).numel() == 0) {
    auto r = call<std::tuple<Tensor, Tensor>>("aten::linalg_eigh", f64(c.input(0)), c.inputs[1]);
    V = std::get<1>(r);
  } else {
    V = f64(c.output(1));
  }
  if (!gL.defined()) gL = Tensor::zeros(L.sizes(), DType::Float64);
  return one(c.input(0), eighBackward(L, V, gL, gV));
}

/// U, S, Vh of A (recomputed when the op did not return them).
std::tuple<Tensor, Tensor, Tensor> svdOf(const Tensor &A) {
  return call<std::tuple<Tensor, Tensor, Tensor>>("aten::_linalg_svd", f64(A), false, true);
}

Grads svdF(const Ctx &c, const Tensor &U, const Tensor &S, const Tensor &Vh, const Tensor &gU, const Tensor &gS,
           const Tensor &gVh) {
  const Tensor &A = c.input(0);
  if (!gU.defined() && !gS.defined() && !gVh.defined()) return {Tensor()};
  Tensor gs = gS.defined() ? gS : Tensor::zeros(S.sizes(), DType::Float64);
  return one(A, svdBackward(A.size(-2), A.size(-1), U, S, Vh, gU, gs, gVh));
}

Tensor opt(const Grads &g, size_t i) { return has(g, i) ? f64(g[i]) : Tensor(); }

Grads qrF(const Ctx &c, const Grads &g) {
  if (!has(g, 0) && !has(g, 1)) return {Tensor()};
  return one(c.input(0), qrBackward(f64(c.input(0)), f64(c.output(0)), f64(c.output(1)), opt(g, 0), opt(g, 1)));
}

Grads pinvF(const Ctx &c, const Grads &g) {
  if (!has(g, 0)) return {Tensor()};
  return one(c.input(0), pinvBackward(f64(c.input(0)), f64(c.output(0)), f64(g[0])));
}

/// d self, d A of triangular_solve(self=B, A, upper, transpose, unitriangular) -> (X, clone of A).
Grads triangularSolveF(const Ctx &c, const Grads &g) {
  const Tensor &B = c.input(0), &A = c.input(1);
  bool upper = c.inputs[2].toBool(), transpose = c.inputs[3].toBool(), unit = c.inputs[4].toBool();
  Tensor a = f64(A), X = f64(c.output(0)), gB, gA;
  if (has(g, 0)) {
    Tensor op = transpose ? a : mT(a);
    gB = solveTri(op, f64(g[0]), transpose ? upper : !upper, true, unit);
    gA = transpose ? neg(matmul(X, mT(gB))) : neg(matmul(gB, mT(X)));
    gA = upper ? triu(gA, unit ? 1 : 0) : tril(gA, unit ? -1 : 0);
  }
  if (has(g, 1)) gA = gA.defined() ? add(gA, f64(g[1])) : f64(g[1]);
  return {gB.defined() ? as(sumTo(gB, B.sizes()), B.dtype()) : Tensor(),
          gA.defined() ? as(sumTo(gA, A.sizes()), A.dtype()) : Tensor()};
}

/// d self (A), d B of linalg_solve_triangular(self, B, upper, left, unitriangular).
Grads solveTriangularF(const Ctx &c, const Grads &g) {
  if (!has(g, 0)) return {Tensor(), Tensor()};
  const Tensor &A = c.input(0), &B = c.input(1);
  bool upper = c.inputs[2].toBool(), left = c.inputs[3].toBool(), unit = c.inputs[4].toBool();
  Tensor a = f64(A), X = f64(c.output(0));
  Tensor gB = solveTri(mT(a), f64(g[0]), !upper, left, unit);
  Tensor gA = left ? neg(matmul(gB, mT(X))) : neg(matmul(mT(X), gB));
  gA = upper ? triu(gA, unit ? 1 : 0) : tril(gA, unit ? -1 : 0);
  return {as(sumTo(gA, A.sizes()), A.dtype()), as(sumTo(gB, B.sizes()), B.dtype())};
}

/// d self (B), d input2 (the factor) of cholesky_solve: X = (F F^T)^{-1} B.
Grads choleskySolveF(const Ctx &c, const Grads &g) {
  if (!has(g, 0)) return {Tensor(), Tensor()};
  const Tensor &B = c.input(0), &F = c.input(1);
  bool upper = c.inputs[2].toBool();
  Tensor f = f64(F), X = f64(c.output(0));
  Tensor gB = call<Tensor>("aten::cholesky_solve", f64(g[0]), f, upper);
  Tensor gF = neg(factorFromA(f, matmul(gB, mT(X)), upper));
  return {as(sumTo(gB, B.sizes()), B.dtype()), as(sumTo(gF, F.sizes()), F.dtype())};
}

/// d self (the factor) of cholesky_inverse: Y = (F F^T)^{-1}.
Grads choleskyInverseF(const Ctx &c, const Grads &g) {
  if (!has(g, 0)) return {Tensor()};
  Tensor Y = f64(c.output(0));
  Tensor S = matmul(Y, matmul(f64(g[0]), Y));
  return one(c.input(0), neg(factorFromA(f64(c.input(0)), S, c.inputs[1].toBool())));
}

Shape prefix(const Shape &s, size_t n) { return Shape(s.begin(), s.begin() + n); }
Shape suffix(const Shape &s, size_t n) { return Shape(s.begin() + n, s.end()); }
int64_t prod(const Shape &s) {
  int64_t p = 1;
  for (int64_t d : s) p *= d;
  return p;
}

Grads tensorinvF(const Ctx &c, const Grads &g) {
  if (!has(g, 0)) return {Tensor()};
  const Tensor &A = c.input(0);
  int64_t ind = c.inputs[1].toInt();
  int64_t p1 = prod(prefix(A.sizes(), ind)), p2 = prod(suffix(A.sizes(), ind));
  Tensor X = reshape(f64(c.output(0)), {p2, p1}), gX = reshape(f64(g[0]), {p2, p1});
  return one(A, reshape(invBackward(X, gX), A.sizes()));
}

Grads tensorsolveF(const Ctx &c, const Grads &g) {
  if (!has(g, 0)) return {Tensor(), Tensor()};
  const Tensor &A = c.input(0), &B = c.input(1);
  Tensor a = f64(A);
  Shape perm, inverse(A.dim());
  if (!c.inputs[2].isNone()) {
    std::vector<bool> moved(A.dim(), false);
    Shape tail;
    for (int64_t d : c.inputs[2].toIntList()) {
      d = d < 0 ? d + A.dim() : d;
      moved[d] = true;
      tail.push_back(d);
    }
    for (int64_t d = 0; d < A.dim(); ++d)
      if (!moved[d]) perm.push_back(d);
    perm.insert(perm.end(), tail.begin(), tail.end());
    a = permute(a, perm);
  }
  int64_t pb = B.numel(), px = c.output(0).numel();
  Tensor a2 = reshape(a, {pb, px});
  auto [gA2, gB] = solveBackward(a2, reshape(f64(B), {pb}), reshape(f64(c.output(0)), {px}),
                                 reshape(f64(g[0]), {px}), true);
  Tensor gA = reshape(gA2, a.sizes());
  if (!perm.empty()) {
    for (size_t i = 0; i < perm.size(); ++i) inverse[perm[i]] = (int64_t)i;
    gA = permute(gA, inverse);
  }
  return {as(gA, A.dtype()), as(reshape(gB, B.sizes()), B.dtype())};
}

} // namespace
} // namespace kiln

KILN_LIBRARY_FRAGMENT(aten, m) {
  using namespace kiln;
  for (const char *op : {"linalg_inv", "inverse", "linalg_inv_ex"}) m.register_autograd(op, invF);
  // solve(A, B, *, left=True, ...): one formula for every variant (result 0 is X).
  for (const char *op : {"linalg_solve", "linalg_solve_ex", "_linalg_solve_ex"})
    m.register_autograd(op, [](const Ctx &c, const Grads &g) { return solveF(c, g, c.inputs[2].toBool()); });
  for (const char *op : {"linalg_det", "det", "_linalg_det"}) m.register_autograd(op, detF);
  for (const char *op : {"linalg_slogdet", "slogdet", "_linalg_slogdet"})
    m.register_autograd(op, [](const Ctx &c, const Grads &g) { return logabsdetF(c, g, 1); });
  m.register_autograd("logdet", [](const Ctx &c, const Grads &g) { return logabsdetF(c, g, 0); });
  for (const char *op : {"linalg_cholesky", "linalg_cholesky_ex", "cholesky"})
    m.register_autograd(op, [](const Ctx &c, const Grads &g) { return choleskyF(c, g, c.inputs[1].toBool()); });
  m.register_autograd("cholesky_solve", choleskySolveF);
  m.register_autograd("cholesky_inverse", choleskyInverseF);
  m.register_autograd("triangular_solve", triangularSolveF);
  m.register_autograd("linalg_solve_triangular", solveTriangularF);
  // eigh: (eigenvalues, eigenvectors); eigvalsh and _linalg_eigh(compute_v=False) recompute V.
  m.register_autograd("linalg_eigh", [](const Ctx &c, const Grads &g) { return eighF(c, g, false); });
  m.register_autograd("_linalg_eigh", [](const Ctx &c, const Grads &g) { return eighF(c, g, !c.inputs[2].toBool()); });
  m.register_autograd("linalg_eigvalsh", [](const Ctx &c, const Grads &g) { return eighF(c, g, true); });
  // _linalg_svd / linalg_svd -> (U, S, Vh); svd -> (U, S, V); svdvals -> S.
  for (const char *op : {"_linalg_svd", "linalg_svd"})
    m.register_autograd(op, [](const Ctx &c, const Grads &g) -> Grads {
      if (c.output(0).numel() == 0 && c.output(1).numel() > 0) { // compute_uv=False
        auto [U, S, Vh] = svdOf(c.input(0));
        return svdF(c, U, S, Vh, Tensor(), opt(g, 1), Tensor());
      }
      return svdF(c, f64(c.output(0)), f64(c.output(1)), f64(c.output(2)), opt(g, 0), opt(g, 1), opt(g, 2));
    });
  m.register_autograd("svd", [](const Ctx &c, const Grads &g) -> Grads {
    if (!c.inputs[2].toBool()) {
      auto [U, S, Vh] = svdOf(c.input(0));
      return svdF(c, U, S, Vh, Tensor(), opt(g, 1), Tensor());
    }
    Tensor gV = opt(g, 2);
    return svdF(c, f64(c.output(0)), f64(c.output(1)), mT(f64(c.output(2))), opt(g, 0), opt(g, 1),
                gV.defined() ? mT(gV) : Tensor());
  });
  m.register_autograd("linalg_svdvals", [](const Ctx &c, const Grads &g) -> Grads {
    auto [U, S, Vh] = svdOf(c.input(0));
    return svdF(c, U, S, Vh, Tensor(), opt(g, 0), Tensor());
  });
  // matrix_norm(self, ord, dim=[-2,-1], keepdim): 'nuc' is the sum of the singular values.
  m.register_autograd("linalg_matrix_norm.str_ord", [](const Ctx &c, const Grads &g) -> Grads {
    if (!has(g, 0)) return {Tensor()};
    const Tensor &A = c.input(0);
    std::string ord = c.inputs[1].toString();
    Shape dims = c.inputs[2].toIntList();
    if (dims.size() != 2 || !((dims[0] + A.dim()) % A.dim() == A.dim() - 2 && (dims[1] + A.dim()) % A.dim() == A.dim() - 1))
      throw Error("kiln: the gradient of linalg_matrix_norm.str_ord over dims other than the last two is not supported");
    Tensor gk = f64(g[0]);
    if (!c.inputs[3].toBool()) gk = unsqueeze(unsqueeze(gk, -1), -1);
    if (ord == "fro") return one(A, mul(gk, div(f64(A), perMatrix(reshape(f64(c.output(0)), Shape(A.sizes().begin(), A.sizes().end() - 2))))));
    if (ord != "nuc") throw Error("kiln: linalg_matrix_norm.str_ord: unknown ord '" + ord + "'");
    auto [U, S, Vh] = svdOf(A);
    return one(A, mul(gk, matmul(U, Vh)));
  });
  // cond(self, p=None): with p None, 2 or -2 a ratio of the largest and smallest singular values.
  m.register_autograd("linalg_cond", [](const Ctx &c, const Grads &g) -> Grads {
    if (!has(g, 0)) return {Tensor()};
    const Tensor &A = c.input(0);
    double p = c.inputs[1].isNone() ? 2.0 : c.inputs[1].toDouble();
    if (p != 2.0 && p != -2.0)
      throw Error("kiln: the gradient of linalg_cond is implemented for p = None, 2 and -2, not p = " +
                  std::to_string(p));
    auto [U, S, Vh] = svdOf(A);
    int64_t k = S.size(-1);
    Tensor hi = narrow(S, -1, 0, 1), lo = narrow(S, -1, k - 1, 1), gk = unsqueeze(f64(g[0]), -1);
    if (p < 0) std::swap(hi, lo); // cond = hi / lo
    Tensor gHi = div(gk, lo), gLo = neg(div(mul(gk, hi), mul(lo, lo)));
    if (p < 0) std::swap(gHi, gLo);
    Tensor gS = k == 1 ? add(gHi, gLo)
                       : cat({gHi, mul(narrow(S, -1, 1, k - 2), scalar(0.0)), gLo}, -1);
    return svdF(c, U, S, Vh, Tensor(), gS, Tensor());
  });
  m.register_autograd("linalg_qr", qrF);
  m.register_autograd("qr", qrF);
  for (const char *op : {"linalg_pinv.atol_rtol_tensor", "linalg_pinv.atol_rtol_float", "pinverse"})
    m.register_autograd(op, pinvF);
  for (const char *op : {"linalg_matrix_power", "matrix_power"})
    m.register_autograd(op, [](const Ctx &c, const Grads &g) -> Grads {
      if (!has(g, 0)) return {Tensor()};
      return one(c.input(0), matrixPowerBackward(f64(c.input(0)), c.inputs[1].toInt(), f64(g[0])));
    });
  for (const char *op : {"linalg_matrix_exp", "matrix_exp"})
    m.register_autograd(op, [](const Ctx &c, const Grads &g) -> Grads {
      if (!has(g, 0)) return {Tensor()};
      return one(c.input(0), matrixExpBackward(f64(c.input(0)), f64(g[0])));
    });
  m.register_autograd("linalg_tensorinv", tensorinvF);
  m.register_autograd("linalg_tensorsolve", tensorsolveF);
}
