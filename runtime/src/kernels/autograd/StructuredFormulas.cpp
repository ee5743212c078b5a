// kiln runtime — backward formulas of the runtime's structural ops: the
// diagonal family, cross products, fft shifts, masked/indexed writes (put,
// masked_scatter), whole-tensor medians, msort, max pooling through its
// indices and im2col; each the adjoint of what the forward moved.
#include "FormulaUtils.h"

#include <cmath>

namespace kiln {
namespace {

using namespace formulas;

/// The `off`-th diagonal of dims d1, d2 of `t` as a new last dim (torch.diagonal), contiguous.
Tensor diagonalOf(const Tensor &t, int64_t off, int64_t d1, int64_t d2) {
  Tensor c = t.contiguous();
  int64_t n = c.dim();
  d1 = d1 < 0 ? d1 + n : d1;
  d2 = d2 < 0 ? d2 + n : d2;
  int64_t len = off >= 0 ? std::max<int64_t>(0, std::min(c.size(d1), c.size(d2) - off))
                         : std::max<int64_t>(0, std::min(c.size(d1) + off, c.size(d2)));
  Shape sizes, strides;
  for (int64_t d = 0; d < n; ++d)
    if (d != d1 && d != d2) {
      sizes.push_back(c.size(d));
      strides.push_back(c.stride(d));
    }
  sizes.push_back(len);
  strides.push_back(c.stride(d1) + c.stride(d2));
  int64_t start = len == 0 ? 0 : (off >= 0 ? off * c.stride(d2) : -off * c.stride(d1));
  return Tensor::view(c.storage(), c.offset() + start, sizes, strides, c.dtype()).contiguous();
}

/// Zeros shaped like `shape` (2-d) with `v` on the `off`-th diagonal.
Tensor onDiagonal(const Shape &shape, const Tensor &v, int64_t off) {
  Tensor out = Tensor::zeros(shape, DType::Float64), x = f64(v);
  int64_t r = shape[0], c = shape[1];
  for (int64_t i = 0; i < x.numel(); ++i) {
    int64_t row = off >= 0 ? i : i - off, col = off >= 0 ? i + off : i;
    if (row < r && col < c) out.data<double>()[row * c + col] = x.data<double>()[i];
  }
  return out;
}

/// `mask` (bool) broadcast to `shape`, as a flat vector.
std::vector<bool> maskOf(const Tensor &mask, const Shape &shape) {
  Tensor m = call<Tensor>("aten::expand", mask, shape).contiguous();
  std::vector<bool> out(m.numel());
  for (int64_t i = 0; i < m.numel(); ++i) out[i] = m.data<bool>()[i];
  return out;
}

std::vector<int64_t> indicesOf(const Tensor &idx) {
  Tensor c = idx.contiguous();
  std::vector<int64_t> out(c.numel());
  for (int64_t i = 0; i < c.numel(); ++i)
    out[i] = c.dtype() == DType::Int64 ? c.data<int64_t>()[i] : (int64_t)c.data<int32_t>()[i];
  return out;
}

/// median()/nanmedian() of a whole tensor: the gradient shared evenly by the elements equal to it.
Grads evenlyDistributed(const Ctx &c, const Grads &g) {
  if (!has(g, 0)) return {Tensor()};
  Tensor x = f64(c.input(0)), out = Tensor::zeros(c.input(0).sizes(), DType::Float64);
  double v = f64(c.output(0)).data<double>()[0], gv = f64(g[0]).data<double>()[0];
  auto hit = [v](double e) { return std::isnan(v) ? std::isnan(e) : e == v; };
  int64_t count = 0;
  for (int64_t i = 0; i < x.numel(); ++i) count += hit(x.data<double>()[i]);
  for (int64_t i = 0; i < x.numel(); ++i)
    if (hit(x.data<double>()[i])) out.data<double>()[i] = gv / (double)count;
  return {as(out, c.input(0).dtype())};
}

/// adaptive_max_poolNd: each output element's gradient added at its input position (indices are
/// flat over the last `nd` dims).
Grads poolIndices(const Ctx &c, const Grads &g, int64_t nd) {
  if (!has(g, 0)) return {Tensor()};
  const Tensor &x = c.input(0);
  Tensor gv = f64(g[0]), out = Tensor::zeros(x.sizes(), DType::Float64);
  std::vector<int64_t> idx = indicesOf(c.output(1));
  int64_t plane = 1, oplane = 1;
  for (int64_t d = x.dim() - nd; d < x.dim(); ++d) {
    plane *= x.size(d);
    oplane *= gv.size(d);
  }
  for (int64_t i = 0; i < gv.numel(); ++i) out.data<double>()[(i / oplane) * plane + idx[i]] += gv.data<double>()[i];
  return {as(out, x.dtype())};
}

} // namespace
} // namespace kiln

KILN_LIBRARY_FRAGMENT(aten, m) {
  using namespace kiln;
  // cross(self, other, dim): d self = other x g, d other = g x self (then summed to each shape).
  m.register_autograd("cross", [](const Ctx &c, const Grads &g) -> Grads {
    if (!has(g, 0)) return {Tensor(), Tensor()};
    const Tensor &a = c.input(0), &b = c.input(1);
    Tensor ga = call<Tensor>("aten::cross", f64(b), f64(g[0]), c.inputs[2]);
    Tensor gb = call<Tensor>("aten::cross", f64(g[0]), f64(a), c.inputs[2]);
    return {as(sumTo(ga, a.sizes()), a.dtype()), as(sumTo(gb, b.sizes()), b.dtype())};
  });
  // diag(self, k): a vector's matrix gives back its k-th diagonal; a matrix's diagonal goes back on it.
  m.register_autograd("diag", [](const Ctx &c, const Grads &g) -> Grads {
    if (!has(g, 0)) return {Tensor()};
    const Tensor &x = c.input(0);
    int64_t k = c.inputs[1].toInt();
    if (x.dim() == 1) return {as(diagonalOf(f64(g[0]), k, 0, 1), x.dtype())};
    return {as(onDiagonal(x.sizes(), g[0], k), x.dtype())};
  });
  m.register_autograd("diag_embed", [](const Ctx &c, const Grads &g) -> Grads {
    if (!has(g, 0)) return {Tensor()};
    return {as(diagonalOf(f64(g[0]), c.inputs[1].toInt(), c.inputs[2].toInt(), c.inputs[3].toInt()),
               c.input(0).dtype())};
  });
  m.register_autograd("diagflat", [](const Ctx &c, const Grads &g) -> Grads {
    if (!has(g, 0)) return {Tensor()};
    const Tensor &x = c.input(0);
    return {as(reshape(diagonalOf(f64(g[0]), c.inputs[1].toInt(), 0, 1), x.sizes()), x.dtype())};
  });
  // The shifts are rolls: each one's adjoint is the other.
  m.register_autograd("fft_fftshift", [](const Ctx &c, const Grads &g) -> Grads {
    if (!has(g, 0)) return {Tensor()};
    return {call<Tensor>("aten::fft_ifftshift", g[0], c.inputs[1])};
  });
  m.register_autograd("fft_ifftshift", [](const Ctx &c, const Grads &g) -> Grads {
    if (!has(g, 0)) return {Tensor()};
    return {call<Tensor>("aten::fft_fftshift", g[0], c.inputs[1])};
  });
  // masked_scatter(self, mask, source): self keeps g where mask is false; source's first
  // elements got the masked positions in order.
  m.register_autograd("masked_scatter", [](const Ctx &c, const Grads &g) -> Grads {
    if (!has(g, 0)) return {Tensor(), Tensor(), Tensor()};
    const Tensor &self = c.input(0), &src = c.input(2);
    Tensor gv = f64(g[0]), gs = gv.clone(), gsrc = Tensor::zeros(src.sizes(), DType::Float64);
    std::vector<bool> mask = maskOf(c.input(1), gv.sizes());
    int64_t k = 0;
    for (int64_t i = 0; i < gv.numel(); ++i)
      if (mask[i]) {
        gs.data<double>()[i] = 0;
        if (k < gsrc.numel()) gsrc.data<double>()[k++] = gv.data<double>()[i];
      }
    return {as(sumTo(gs, self.sizes()), self.dtype()), Tensor(), as(gsrc, src.dtype())};
  });
  // put(self, index, source, accumulate): source[i] went to flat position index[i].
  m.register_autograd("put", [](const Ctx &c, const Grads &g) -> Grads {
    if (!has(g, 0)) return {Tensor(), Tensor(), Tensor()};
    const Tensor &self = c.input(0), &src = c.input(2);
    bool accumulate = c.inputs[3].toBool();
    Tensor gv = f64(g[0]), gs = gv.clone(), gsrc = Tensor::zeros(src.sizes(), DType::Float64);
    std::vector<int64_t> idx = indicesOf(c.input(1));
    int64_t n = gv.numel();
    for (size_t i = 0; i < idx.size(); ++i) {
      int64_t at = idx[i] < 0 ? idx[i] + n : idx[i];
      if (at < 0 || at >= n) throw Error("kiln: put backward: index " + std::to_string(idx[i]) + " out of range");
      gsrc.data<double>()[i] = gv.data<double>()[at];
    }
    if (!accumulate)
      for (int64_t i : idx) gs.data<double>()[i < 0 ? i + n : i] = 0;
    return {as(gs, self.dtype()), Tensor(), as(gsrc, src.dtype())};
  });
  m.register_autograd("median", evenlyDistributed);
  m.register_autograd("nanmedian", evenlyDistributed);
  // msort(self) = sort(self, 0).values: the gradient scattered back through the sort's indices.
  m.register_autograd("msort", [](const Ctx &c, const Grads &g) -> Grads {
    if (!has(g, 0)) return {Tensor()};
    const Tensor &x = c.input(0);
    if (x.dim() == 0) return {g[0]};
    auto [values, indices] = call<std::tuple<Tensor, Tensor>>("aten::sort", x, int64_t(0), false);
    (void)values;
    Tensor gv = f64(g[0]), out = Tensor::zeros(x.sizes(), DType::Float64);
    std::vector<int64_t> idx = indicesOf(indices);
    int64_t inner = x.numel() / std::max<int64_t>(1, x.size(0));
    for (int64_t i = 0; i < gv.numel(); ++i)
      out.data<double>()[idx[i] * inner + i % inner] += gv.data<double>()[i];
    return {as(out, x.dtype())};
  });
  m.register_autograd("adaptive_max_pool1d", [](const Ctx &c, const Grads &g) { return poolIndices(c, g, 1); });
  m.register_autograd("adaptive_max_pool2d", [](const Ctx &c, const Grads &g) { return poolIndices(c, g, 2); });
  m.register_autograd("adaptive_max_pool3d", [](const Ctx &c, const Grads &g) { return poolIndices(c, g, 3); });
  // max_pool2d_with_indices_backward(grad_output, self, ..., indices) is linear in grad_output:
  // its adjoint reads g at each window's index; self and indices get none.
  m.register_autograd("max_pool2d_with_indices_backward", [](const Ctx &c, const Grads &g) -> Grads {
    if (!has(g, 0)) return {Tensor()};
    const Tensor &go = c.input(0), &self = c.input(1);
    Tensor gv = f64(g[0]), out = Tensor::zeros(go.sizes(), DType::Float64);
    std::vector<int64_t> idx = indicesOf(c.input(7));
    int64_t plane = self.size(-1) * self.size(-2), oplane = go.size(-1) * go.size(-2);
    for (int64_t i = 0; i < out.numel(); ++i) out.data<double>()[i] = gv.data<double>()[(i / oplane) * plane + idx[i]];
    return {as(out, go.dtype())};
  });
  // im2col(self, kernel_size, dilation, padding, stride): its adjoint is col2im onto self's size.
  m.register_autograd("im2col", [](const Ctx &c, const Grads &g) -> Grads {
    if (!has(g, 0)) return {Tensor()};
    const Tensor &x = c.input(0);
    Shape hw{x.size(-2), x.size(-1)};
    return {call<Tensor>("aten::col2im", g[0].contiguous(), hw, c.inputs[1], c.inputs[2], c.inputs[3], c.inputs[4])};
  });
}
