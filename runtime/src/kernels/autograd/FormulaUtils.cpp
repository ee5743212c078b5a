// kiln runtime — helpers of the backward formulas (FormulaUtils.h).
#include "FormulaUtils.h"

namespace kiln::formulas {

Tensor as(const Tensor &t, DType dt) {
  Tensor c = t.contiguous();
  if (c.dtype() == dt) return c;
  Tensor out = Tensor::empty(c.sizes(), dt);
  int64_t n = c.numel();
  auto read = [&](int64_t i) -> double {
    switch (c.dtype()) {
    case DType::Float64: return c.data<double>()[i];
    case DType::Float32: return c.data<float>()[i];
    case DType::Int64: return (double)c.data<int64_t>()[i];
    case DType::Int32: return c.data<int32_t>()[i];
    case DType::Bool: return c.data<bool>()[i] ? 1.0 : 0.0;
    default: throw Error(std::string("kiln: a backward formula got a ") + dtypeName(c.dtype()) + " tensor");
    }
  };
  if (dt == DType::Float64)
    for (int64_t i = 0; i < n; ++i) out.data<double>()[i] = read(i);
  else if (dt == DType::Float32)
    for (int64_t i = 0; i < n; ++i) out.data<float>()[i] = (float)read(i);
  else
    throw Error(std::string("kiln: a backward formula cannot give a ") + dtypeName(dt) + " gradient");
  return out;
}

Tensor f64(const Tensor &t) { return as(t, DType::Float64); }

Tensor scalar(double v) {
  Tensor t = Tensor::empty({}, DType::Float64);
  t.data<double>()[0] = v;
  return t;
}

Tensor mT(const Tensor &a) { return call<Tensor>("aten::transpose.int", a, int64_t(-2), int64_t(-1)).contiguous(); }

namespace {
/// Applies f(batch, i, j, value&) to every element of a contiguous float64 batch of matrices.
template <typename F> Tensor mapMatrices(const Tensor &a, F f) {
  Tensor out = f64(a).clone();
  int64_t r = out.size(-2), c = out.size(-1), nb = r * c ? out.numel() / (r * c) : 0;
  double *p = out.data<double>();
  for (int64_t b = 0; b < nb; ++b)
    for (int64_t i = 0; i < r; ++i)
      for (int64_t j = 0; j < c; ++j) f(i, j, p[(b * r + i) * c + j]);
  return out;
}
} // namespace

Tensor tril(const Tensor &a, int64_t k) {
  return mapMatrices(a, [k](int64_t i, int64_t j, double &v) { if (j - i > k) v = 0; });
}
Tensor triu(const Tensor &a, int64_t k) {
  return mapMatrices(a, [k](int64_t i, int64_t j, double &v) { if (j - i < k) v = 0; });
}

Tensor diagonal(const Tensor &a) {
  Tensor x = f64(a);
  int64_t r = x.size(-2), c = x.size(-1), k = std::min(r, c), nb = r * c ? x.numel() / (r * c) : 0;
  Shape s(x.sizes().begin(), x.sizes().end() - 2);
  s.push_back(k);
  Tensor out = Tensor::zeros(s, DType::Float64);
  for (int64_t b = 0; b < nb; ++b)
    for (int64_t i = 0; i < k; ++i) out.data<double>()[b * k + i] = x.data<double>()[(b * r + i) * c + i];
  return out;
}

Tensor diagEmbed(const Tensor &v) {
  Tensor x = f64(v);
  int64_t n = x.size(-1), nb = n ? x.numel() / n : 0;
  Shape s = x.sizes();
  s.push_back(n);
  Tensor out = Tensor::zeros(s, DType::Float64);
  for (int64_t b = 0; b < nb; ++b)
    for (int64_t i = 0; i < n; ++i) out.data<double>()[(b * n + i) * n + i] = x.data<double>()[b * n + i];
  return out;
}

Tensor eye(int64_t n) {
  Tensor out = Tensor::zeros({n, n}, DType::Float64);
  for (int64_t i = 0; i < n; ++i) out.data<double>()[i * n + i] = 1.0;
  return out;
}

Tensor sumTo(const Tensor &g, const Shape &shape) {
  if (g.sizes() == shape) return g;
  int64_t lead = g.dim() - (int64_t)shape.size();
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < g.dim(); ++d)
    if (d < lead || (shape[d - lead] == 1 && g.size(d) != 1)) dims.push_back(d);
  Tensor s = dims.empty() ? g : call<Tensor>("aten::sum.dim_IntList", g, dims, true);
  return reshape(s, shape);
}

Tensor narrowLast(const Tensor &a, int64_t dim, int64_t n) {
  return call<Tensor>("aten::narrow", a, dim, int64_t(0), n).contiguous();
}

Tensor permute(const Tensor &a, const Shape &perm) { return call<Tensor>("aten::permute", a, perm).contiguous(); }

std::vector<int64_t> ints(const Tensor &t) {
  Tensor c = t.contiguous();
  std::vector<int64_t> out(c.numel());
  for (int64_t i = 0; i < c.numel(); ++i)
    out[i] = c.dtype() == DType::Int64 ? c.data<int64_t>()[i] : (int64_t)c.data<int32_t>()[i];
  return out;
}

} // namespace kiln::formulas
