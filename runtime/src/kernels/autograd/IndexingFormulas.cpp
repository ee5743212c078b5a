// kiln runtime — backward formulas of the runtime's gathering and reducing
// indexed ops: index_reduce, as_strided_scatter, combinations, cdist/pdist,
// tensordot and the integration/polynomial helpers (trapezoid, vander, renorm).
#include "FormulaUtils.h"

#include <cmath>
#include <functional>
#include <limits>

namespace kiln {
namespace {

using namespace formulas;


/// index_reduce(self, dim, index, source, reduce, include_self): each slot of the result reduces
/// its own element (with include_self) and the source slices whose index names it.
Grads indexReduce(const Ctx &c, const Grads &g) {
  if (!has(g, 0)) return {Tensor(), Tensor(), Tensor(), Tensor()};
  const Tensor &self = c.input(0), &source = c.input(3);
  int64_t dim = c.inputs[1].toInt();
  std::string reduce = c.inputs[4].toString();
  bool includeSelf = c.inputs[5].toBool();
  Tensor x = f64(self), s = f64(source), y = f64(c.output(0)), gy = f64(g[0]);
  Tensor gx = Tensor::zeros(self.sizes(), DType::Float64), gs = Tensor::zeros(source.sizes(), DType::Float64);
  if (self.dim() == 0) dim = 0;
  else if (dim < 0) dim += self.dim();
  int64_t outer = 1, inner = 1, n = self.dim() ? self.size(dim) : 1, k = source.dim() ? source.size(dim) : 1;
  for (int64_t d = 0; d < dim; ++d) outer *= self.size(d);
  for (int64_t d = dim + 1; d < self.dim(); ++d) inner *= self.size(d);
  std::vector<int64_t> index = ints(c.input(2));
  std::vector<std::vector<int64_t>> from(n); // source rows per slot
  for (int64_t j = 0; j < k; ++j) from[index[j] < 0 ? index[j] + n : index[j]].push_back(j);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t r = 0; r < n; ++r)
      for (int64_t i = 0; i < inner; ++i) {
        int64_t at = (o * n + r) * inner + i;
        double gv = dp(gy)[at];
        if (from[r].empty()) { // untouched: the result is self
          dp(gx)[at] = gv;
          continue;
        }
        // contributors: (pointer into the gradient, value)
        std::vector<std::pair<double *, double>> parts;
        if (includeSelf) parts.push_back({dp(gx) + at, dp(x)[at]});
        for (int64_t j : from[r]) {
          int64_t sj = (o * k + j) * inner + i;
          parts.push_back({dp(gs) + sj, dp(s)[sj]});
        }
        if (reduce == "mean") {
          for (auto &p : parts) *p.first += gv / (double)parts.size();
        } else if (reduce == "amax" || reduce == "amin") {
          double v = dp(y)[at];
          int64_t ties = 0;
          for (auto &p : parts) ties += p.second == v;
          for (auto &p : parts)
            if (p.second == v) *p.first += gv / (double)ties;
        } else if (reduce == "prod") {
          for (size_t a = 0; a < parts.size(); ++a) {
            double prod = 1;
            for (size_t b = 0; b < parts.size(); ++b)
              if (b != a) prod *= parts[b].second;
            *parts[a].first += gv * prod;
          }
        } else {
          throw Error("kiln: index_reduce backward: unknown reduce '" + reduce + "'");
        }
      }
  return {as(gx, self.dtype()), Tensor(), Tensor(), as(gs, source.dtype())};
}

/// The element offsets (into a contiguous tensor) an as_strided view of size/stride/offset reads.
std::vector<int64_t> stridedOffsets(const Shape &size, const Shape &stride, int64_t offset) {
  std::vector<int64_t> out{offset};
  for (size_t d = 0; d < size.size(); ++d) {
    std::vector<int64_t> next;
    next.reserve(out.size() * size[d]);
    for (int64_t base : out)
      for (int64_t i = 0; i < size[d]; ++i) next.push_back(base + i * stride[d]);
    out.swap(next);
  }
  return out;
}

/// as_strided_scatter(self, src, size, stride, storage_offset): src overwrote the view's elements.
Grads asStridedScatter(const Ctx &c, const Grads &g) {
  if (!has(g, 0)) return {Tensor(), Tensor()};
  const Tensor &self = c.input(0), &src = c.input(1);
  int64_t off = c.inputs[4].isNone() ? 0 : c.inputs[4].toInt();
  std::vector<int64_t> at = stridedOffsets(c.inputs[2].toIntList(), c.inputs[3].toIntList(), off);
  Tensor gy = f64(g[0]), gx = gy.clone(), gs = Tensor::zeros(src.sizes(), DType::Float64);
  for (size_t i = 0; i < at.size(); ++i) {
    dp(gs)[i] = dp(gy)[at[i]];
    dp(gx)[at[i]] = 0;
  }
  return {as(gx, self.dtype()), as(gs, src.dtype())};
}

/// combinations(self, r, with_replacement): the rows are index tuples in lexicographic order.
Grads combinations(const Ctx &c, const Grads &g) {
  if (!has(g, 0)) return {Tensor()};
  const Tensor &x = c.input(0);
  int64_t n = x.numel(), r = c.inputs[1].toInt();
  bool repl = c.inputs[2].toBool();
  Tensor gy = f64(g[0]), gx = Tensor::zeros(x.sizes(), DType::Float64);
  std::vector<int64_t> idx(r);
  int64_t row = 0;
  std::function<void(int64_t, int64_t)> walk = [&](int64_t pos, int64_t start) {
    if (pos == r) {
      for (int64_t q = 0; q < r; ++q) dp(gx)[idx[q]] += dp(gy)[row * r + q];
      ++row;
      return;
    }
    for (int64_t i = start; i < n; ++i) {
      idx[pos] = i;
      walk(pos + 1, repl ? i : i + 1);
    }
  };
  if (r > 0 && gy.numel() > 0) walk(0, 0);
  return {as(gx, x.dtype())};
}

/// d |d|_p / d diff for one coordinate difference `t` of a pair at distance `dist`.
double pnormPartial(double t, double dist, double p) {
  if (p == 0 || dist == 0) return 0;
  double sg = (t > 0) - (t < 0);
  if (std::isinf(p)) return std::fabs(t) == dist ? sg : 0;
  if (p == 1) return sg;
  if (p == 2) return t / dist;
  return sg * std::pow(std::fabs(t), p - 1) / std::pow(dist, p - 1);
}

/// cdist(x1 [..., P, M], x2 [..., R, M], p) (and _cdist_forward).
Grads cdist(const Ctx &c, const Grads &g) {
  if (!has(g, 0)) return {Tensor(), Tensor()};
  const Tensor &a = c.input(0), &b = c.input(1);
  double p = c.inputs[2].toDouble();
  Tensor y = f64(c.output(0)), gy = f64(g[0]);
  Shape outBatch(y.sizes().begin(), y.sizes().end() - 2);
  int64_t P = a.size(-2), R = b.size(-2), M = a.size(-1);
  Shape sa = outBatch, sb = outBatch;
  sa.insert(sa.end(), {P, M});
  sb.insert(sb.end(), {R, M});
  Tensor x1 = f64(call<Tensor>("aten::expand", f64(a), sa)), x2 = f64(call<Tensor>("aten::expand", f64(b), sb));
  Tensor g1 = Tensor::zeros(sa, DType::Float64), g2 = Tensor::zeros(sb, DType::Float64);
  int64_t nb = P * R ? y.numel() / (P * R) : 0;
  for (int64_t bt = 0; bt < nb; ++bt)
    for (int64_t i = 0; i < P; ++i)
      for (int64_t j = 0; j < R; ++j) {
        double gv = dp(gy)[(bt * P + i) * R + j], dist = dp(y)[(bt * P + i) * R + j];
        for (int64_t m = 0; m < M; ++m) {
          double t = dp(x1)[(bt * P + i) * M + m] - dp(x2)[(bt * R + j) * M + m];
          double d = gv * pnormPartial(t, dist, p);
          dp(g1)[(bt * P + i) * M + m] += d;
          dp(g2)[(bt * R + j) * M + m] -= d;
        }
      }
  return {as(sumTo(g1, a.sizes()), a.dtype()), as(sumTo(g2, b.sizes()), b.dtype())};
}

/// pdist(self [N, M], p): the distances of the pairs i < j in row-major order.
Grads pdist(const Ctx &c, const Grads &g) {
  if (!has(g, 0)) return {Tensor()};
  const Tensor &a = c.input(0);
  double p = c.inputs[1].toDouble();
  Tensor x = f64(a), y = f64(c.output(0)), gy = f64(g[0]), gx = Tensor::zeros(a.sizes(), DType::Float64);
  int64_t N = a.size(0), M = a.size(1), k = 0;
  for (int64_t i = 0; i < N; ++i)
    for (int64_t j = i + 1; j < N; ++j, ++k)
      for (int64_t m = 0; m < M; ++m) {
        double d = dp(gy)[k] * pnormPartial(dp(x)[i * M + m] - dp(x)[j * M + m], dp(y)[k], p);
        dp(gx)[i * M + m] += d;
        dp(gx)[j * M + m] -= d;
      }
  return {as(gx, a.dtype())};
}

/// tensordot(self, other, dims_self, dims_other): one matrix product after permuting the
/// contracted dims together; the gradients are the two transposed products, permuted back.
Grads tensordot(const Ctx &c, const Grads &g) {
  if (!has(g, 0)) return {Tensor(), Tensor()};
  const Tensor &a = c.input(0), &b = c.input(1);
  Shape da = c.inputs[2].toIntList(), db = c.inputs[3].toIntList();
  auto split = [](const Tensor &t, Shape dims, bool contractedLast) {
    std::vector<bool> con(t.dim(), false);
    for (int64_t &d : dims) {
      d = d < 0 ? d + t.dim() : d;
      con[d] = true;
    }
    Shape free, perm;
    int64_t nf = 1, nc = 1;
    for (int64_t d = 0; d < t.dim(); ++d)
      if (!con[d]) {
        free.push_back(d);
        nf *= t.size(d);
      }
    for (int64_t d : dims) nc *= t.size(d);
    if (contractedLast) {
      perm = free;
      perm.insert(perm.end(), dims.begin(), dims.end());
    } else {
      perm = dims;
      perm.insert(perm.end(), free.begin(), free.end());
    }
    return std::make_tuple(perm, nf, nc);
  };
  auto [pa, fa, ka] = split(a, da, true);
  auto [pb, fb, kb] = split(b, db, false);
  Tensor A = reshape(permute(f64(a), pa), {fa, ka}), B = reshape(permute(f64(b), pb), {kb, fb});
  Tensor G = reshape(f64(g[0]), {fa, fb});
  auto back = [](const Tensor &m, const Tensor &orig, const Shape &perm) {
    Shape permuted, inverse(perm.size());
    for (int64_t d : perm) permuted.push_back(orig.size(d));
    for (size_t i = 0; i < perm.size(); ++i) inverse[perm[i]] = (int64_t)i;
    return as(permute(reshape(m, permuted), inverse), orig.dtype());
  };
  return {back(matmul(G, mT(B)), a, pa), back(matmul(mT(A), G), b, pb)};
}

/// y and x (trapezoid.x, trapz.x, cumulative_trapezoid.x) moved so `dim` is last and x broadcast.
struct Trapezoid {
  Tensor y, x, gy, gx;
  int64_t n, rows;
  Shape ySizes, perm;
};

Trapezoid trapezoidSetup(const Ctx &c, int64_t dim) {
  const Tensor &y = c.input(0), &x = c.input(1);
  Trapezoid t;
  int64_t rank = y.dim();
  dim = dim < 0 ? dim + rank : dim;
  for (int64_t d = 0; d < rank; ++d)
    if (d != dim) t.perm.push_back(d);
  t.perm.push_back(dim);
  Tensor xb;
  if (x.dim() != 1) {
    xb = call<Tensor>("aten::expand", f64(x), Shape(y.sizes()));
  } else { // a 1-d x spans `dim`: broadcast it along the other dims
    Shape view(rank, 1);
    view[dim] = x.size(0);
    xb = call<Tensor>("aten::expand", reshape(f64(x), view), Shape(y.sizes()));
  }
  t.y = permute(f64(y), t.perm);
  t.x = permute(f64(xb), t.perm);
  t.n = y.size(dim);
  t.rows = t.n ? y.numel() / t.n : 0;
  t.gy = Tensor::zeros(t.y.sizes(), DType::Float64);
  t.gx = Tensor::zeros(t.y.sizes(), DType::Float64);
  return t;
}

Grads trapezoidFinish(const Ctx &c, Trapezoid &t) {
  Shape inverse(t.perm.size());
  for (size_t i = 0; i < t.perm.size(); ++i) inverse[t.perm[i]] = (int64_t)i;
  const Tensor &y = c.input(0), &x = c.input(1);
  Tensor gy = permute(t.gy, inverse), gx = permute(t.gx, inverse);
  if (x.dim() == 1) {
    int64_t dim = t.perm.back();
    Shape others;
    for (int64_t d = 0; d < gx.dim(); ++d)
      if (d != dim) others.push_back(d);
    gx = others.empty() ? gx : call<Tensor>("aten::sum.dim_IntList", gx, others, false);
  }
  return {as(gy, y.dtype()), as(sumTo(gx, x.sizes()), x.dtype())};
}

/// Adds the gradient `w` of one interval (x[i+1] - x[i]) * (y[i] + y[i+1]) / 2 of row `r`.
void interval(Trapezoid &t, int64_t r, int64_t i, double w) {
  int64_t a = r * t.n + i, b = a + 1;
  double dx = dp(t.x)[b] - dp(t.x)[a], ys = 0.5 * (dp(t.y)[a] + dp(t.y)[b]);
  dp(t.gy)[a] += 0.5 * dx * w;
  dp(t.gy)[b] += 0.5 * dx * w;
  dp(t.gx)[b] += ys * w;
  dp(t.gx)[a] -= ys * w;
}

Grads trapezoid(const Ctx &c, const Grads &g) {
  if (!has(g, 0)) return {Tensor(), Tensor()};
  Trapezoid t = trapezoidSetup(c, c.inputs[2].toInt());
  Tensor gv = f64(g[0]); // y's shape without dim, in order: matches the permuted rows
  for (int64_t r = 0; r < t.rows; ++r)
    for (int64_t i = 0; i + 1 < t.n; ++i) interval(t, r, i, dp(gv)[r]);
  return trapezoidFinish(c, t);
}

Grads cumulativeTrapezoid(const Ctx &c, const Grads &g) {
  if (!has(g, 0)) return {Tensor(), Tensor()};
  int64_t dim = c.inputs[2].toInt();
  Trapezoid t = trapezoidSetup(c, dim);
  dim = dim < 0 ? dim + c.input(0).dim() : dim;
  Shape perm = t.perm;
  Tensor gv = permute(f64(g[0]), perm); // [rows, n - 1]
  for (int64_t r = 0; r < t.rows; ++r) {
    double suffix = 0; // interval i feeds outputs i..n-2
    for (int64_t i = t.n - 2; i >= 0; --i) {
      suffix += dp(gv)[r * (t.n - 1) + i];
      interval(t, r, i, suffix);
    }
  }
  return trapezoidFinish(c, t);
}

/// linalg_vander(x, N): out[..., i, j] = x_i^j.
Grads vander(const Ctx &c, const Grads &g) {
  if (!has(g, 0)) return {Tensor()};
  const Tensor &x = c.input(0);
  Tensor xv = f64(x), gy = f64(g[0]), gx = Tensor::zeros(x.sizes(), DType::Float64);
  int64_t N = gy.size(-1);
  for (int64_t i = 0; i < xv.numel(); ++i) {
    double v = dp(xv)[i], pw = 1, acc = 0; // pw = v^(j-1)
    for (int64_t j = 1; j < N; ++j) {
      acc += dp(gy)[i * N + j] * (double)j * pw;
      pw *= v;
    }
    dp(gx)[i] = acc;
  }
  return {as(gx, x.dtype())};
}

/// renorm(self, p, dim, maxnorm): every slice along `dim` whose p-norm exceeds maxnorm is
/// scaled by maxnorm / (norm + 1e-7).
Grads renorm(const Ctx &c, const Grads &g) {
  if (!has(g, 0)) return {Tensor()};
  const Tensor &self = c.input(0);
  double p = c.inputs[1].toDouble(), maxnorm = c.inputs[3].toDouble();
  int64_t dim = c.inputs[2].toInt();
  dim = dim < 0 ? dim + self.dim() : dim;
  Shape perm{dim};
  for (int64_t d = 0; d < self.dim(); ++d)
    if (d != dim) perm.push_back(d);
  Shape inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inverse[perm[i]] = (int64_t)i;
  Tensor x = permute(f64(self), perm), gy = permute(f64(g[0]), perm), gx = gy.clone();
  int64_t S = self.size(dim), L = S ? x.numel() / S : 0;
  for (int64_t s = 0; s < S; ++s) {
    double *xs = dp(x) + s * L, *gs = dp(gy) + s * L, *out = dp(gx) + s * L;
    double norm = 0;
    if (std::isinf(p)) {
      for (int64_t i = 0; i < L; ++i) norm = std::max(norm, std::fabs(xs[i]));
    } else {
      for (int64_t i = 0; i < L; ++i) norm += std::pow(std::fabs(xs[i]), p);
      norm = std::pow(norm, 1.0 / p);
    }
    if (!(norm > maxnorm)) continue;
    double den = norm + 1e-7, scaleBy = maxnorm / den, dot = 0;
    for (int64_t i = 0; i < L; ++i) dot += gs[i] * xs[i];
    for (int64_t i = 0; i < L; ++i)
      out[i] = scaleBy * gs[i] - maxnorm / (den * den) * dot * pnormPartial(xs[i], norm, p);
  }
  return {as(permute(gx, inverse), self.dtype())};
}

} // namespace
} // namespace kiln

KILN_LIBRARY_FRAGMENT(aten, m) {
  using namespace kiln;
  m.register_autograd("index_reduce", indexReduce);
  m.register_autograd("as_strided_scatter", asStridedScatter);
  m.register_autograd("combinations", combinations);
  m.register_autograd("cdist", cdist);
  m.register_autograd("_cdist_forward", cdist);
  m.register_autograd("pdist", pdist);
  m.register_autograd("_pdist_forward", pdist);
  m.register_autograd("tensordot", tensordot);
  for (const char *op : {"trapezoid.x", "trapz.x"}) m.register_autograd(op, trapezoid);
  m.register_autograd("cumulative_trapezoid.x", cumulativeTrapezoid);
  m.register_autograd("linalg_vander", vander);
  m.register_autograd("renorm", renorm);
}
