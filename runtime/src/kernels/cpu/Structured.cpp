// kiln runtime — eager CPU (and Meta) kernels of composite ops whose shapes
// depend on dim lists, Tensor[] arguments or data in ways the rule table
// (runtime/src/decomp) cannot state: fftshift/ifftshift, diag, diag_embed,
// diagflat, trapezoid/cumulative_trapezoid, tensordot, cross without a dim,
// vander, block_diag, combinations, renorm, _chunk_cat, put,
// as_strided_scatter, histc, im2col, col2im and the margin losses. Elements are read
// as float64 and written in the result dtype.
#include "KernelUtils.h"

#include <cmath>
#include <functional>
#include <numeric>
#include <optional>

namespace kiln::cpu {
namespace {

using Shape = std::vector<int64_t>;

double get(const Tensor &t, int64_t i) {
  return loadDouble(static_cast<const char *>(t.rawData()) + i * dtypeSize(t.dtype()), t.dtype());
}
void set(Tensor &t, int64_t i, double v) {
  storeDouble(static_cast<char *>(t.rawData()) + i * dtypeSize(t.dtype()), t.dtype(), v);
}
int64_t numelOf(const Shape &s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}
/// Row-major strides of a shape.
Shape stridesOf(const Shape &s) {
  Shape st(s.size(), 1);
  for (int64_t i = (int64_t)s.size() - 2; i >= 0; --i) st[i] = st[i + 1] * s[i + 1];
  return st;
}
/// A zero-filled result.
Tensor zeros(const Shape &s, DType dt, const Tensor &like) {
  Tensor t = emptyLike(s, dt, like);
  if (!isMeta(like))
    for (int64_t i = 0, n = t.numel(); i < n; ++i) set(t, i, 0);
  return t;
}

// --- fftshift / ifftshift: roll each dim by half its size ---------------------------

Tensor shiftHalf(const Tensor &self, const std::optional<std::vector<int64_t>> &dims, bool inverse) {
  const char *op = inverse ? "aten::fft_ifftshift" : "aten::fft_fftshift";
  Tensor out = emptyLike(self.sizes(), self.dtype(), self);
  if (isMeta(self) || out.numel() == 0) return out;
  Tensor x = self.contiguous();
  Shape s = self.sizes(), st = stridesOf(s), shift(s.size(), 0);
  std::vector<int64_t> ds = dims ? *dims : std::vector<int64_t>();
  if (!dims) ds.resize(s.size()), std::iota(ds.begin(), ds.end(), 0);
  for (int64_t d : ds) {
    int64_t w = wrapDim(d, self.dim(), op);
    shift[w] = inverse ? s[w] - s[w] / 2 : s[w] / 2; // fftshift rolls by n/2, ifftshift by -(n/2)
  }
  for (int64_t i = 0, n = x.numel(); i < n; ++i) {
    int64_t dst = 0, rest = i;
    for (size_t d = 0; d < s.size(); ++d) {
      int64_t c = rest / st[d];
      rest %= st[d];
      dst += ((c + shift[d]) % s[d]) * st[d];
    }
    set(out, dst, get(x, i));
  }
  return out;
}
Tensor fftshift(const Tensor &self, const std::optional<std::vector<int64_t>> &dim) {
  return shiftHalf(self, dim, false);
}
Tensor ifftshift(const Tensor &self, const std::optional<std::vector<int64_t>> &dim) {
  return shiftHalf(self, dim, true);
}

// --- diagonals -------------------------------------------------------------------

/// The matrix with `v` on diagonal `offset` (1-d in), or diagonal `offset` of a matrix.
Tensor diag(const Tensor &self, int64_t offset) {
  const char *op = "aten::diag";
  check(self.dim() == 1 || self.dim() == 2, op, "expects a 1-d or 2-d tensor, got " + self.shapeString());
  Tensor x = self.contiguous();
  if (self.dim() == 1) {
    int64_t n = self.size(0), m = n + std::abs(offset);
    Tensor out = zeros({m, m}, self.dtype(), self);
    if (isMeta(self)) return out;
    for (int64_t i = 0; i < n; ++i)
      set(out, offset >= 0 ? i * m + i + offset : (i - offset) * m + i, get(x, i));
    return out;
  }
  int64_t r = self.size(0), c = self.size(1);
  int64_t len = offset >= 0 ? std::max<int64_t>(0, std::min(r, c - offset))
                            : std::max<int64_t>(0, std::min(r + offset, c));
  Tensor out = emptyLike({len}, self.dtype(), self);
  if (isMeta(self)) return out;
  for (int64_t i = 0; i < len; ++i)
    set(out, i, get(x, offset >= 0 ? i * c + i + offset : (i - offset) * c + i));
  return out;
}
Tensor diagflat(const Tensor &self, int64_t offset) {
  return diag(self.contiguous().reshape({self.numel()}), offset);
}

/// Puts the last dim of self on diagonal `offset` of the planes (dim1, dim2) of a new tensor.
Tensor diagEmbed(const Tensor &self, int64_t offset, int64_t dim1, int64_t dim2) {
  const char *op = "aten::diag_embed";
  int64_t rank = self.dim() + 1;
  int64_t d1 = wrapDim(dim1, rank, op), d2 = wrapDim(dim2, rank, op);
  check(d1 != d2, op, "dim1 and dim2 must differ");
  int64_t n = self.dim() == 0 ? 1 : self.size(-1), m = n + std::abs(offset);
  Shape batch(self.sizes().begin(), self.sizes().end() - (self.dim() ? 1 : 0));
  Shape s;
  for (int64_t d = 0, b = 0; d < rank; ++d) s.push_back(d == d1 || d == d2 ? m : batch[b++]);
  Tensor out = zeros(s, self.dtype(), self);
  if (isMeta(self)) return out;
  Tensor x = self.contiguous();
  Shape st = stridesOf(s);
  for (int64_t bi = 0, nb = numelOf(batch); bi < nb; ++bi)
    for (int64_t i = 0; i < n; ++i) {
      int64_t dst = 0, rest = bi;
      for (int64_t d = rank - 1, b = (int64_t)batch.size() - 1; d >= 0; --d) {
        if (d == d1) dst += (offset >= 0 ? i : i - offset) * st[d];
        else if (d == d2) dst += (offset >= 0 ? i + offset : i) * st[d];
        else {
          dst += (rest % batch[b]) * st[d];
          rest /= batch[b--];
        }
      }
      set(out, dst, get(x, bi * n + i));
    }
  return out;
}

// --- trapezoid rules -----------------------------------------------------------------

/// sum (or running sum) over dim of (x[i+1] - x[i]) (y[i+1] + y[i]) / 2; x a
/// 1-d tensor along dim or broadcast with y; dx when x is absent.
Tensor trapezoidImpl(const char *op, const Tensor &y, const std::optional<Tensor> &xOpt, double dx,
                     int64_t dim, bool cumulative) {
  int64_t d = wrapDim(dim, y.dim(), op);
  int64_t n = y.size(d), outer = 1, inner = 1;
  for (int64_t i = 0; i < d; ++i) outer *= y.size(i);
  for (int64_t i = d + 1; i < y.dim(); ++i) inner *= y.size(i);
  Shape s = y.sizes();
  if (cumulative) s[d] = std::max<int64_t>(n - 1, 0);
  else s.erase(s.begin() + d);
  // ATen's result dtype: y's (and x's) floating dtype promoted, integers give float32.
  DType dt = isFloatingPoint(y.dtype()) ? y.dtype() : DType::Float32;
  if (xOpt && isFloatingPoint(xOpt->dtype())) dt = promoteTypes(dt, xOpt->dtype());
  Tensor out = emptyLike(s, dt, y);
  if (isMeta(y)) return out;
  Tensor yc = y.contiguous();
  std::optional<Tensor> xb; // x as y's shape
  bool x1d = false;
  if (xOpt) {
    if (xOpt->dim() == 1) {
      check(xOpt->size(0) == n, op, "x " + xOpt->shapeString() + " does not match y " +
                                        y.shapeString() + " along dim");
      x1d = true;
      xb = xOpt->contiguous();
    } else {
      check(xOpt->sizes() == y.sizes(), op, "kiln needs x of y's shape or 1-d, got " +
                                                xOpt->shapeString() + " and " + y.shapeString());
      xb = xOpt->contiguous();
    }
  }
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t in = 0; in < inner; ++in) {
      double acc = 0;
      for (int64_t k = 0; k + 1 < n; ++k) {
        int64_t a = (o * n + k) * inner + in, b = a + inner;
        double h = !xb ? dx : x1d ? get(*xb, k + 1) - get(*xb, k) : get(*xb, b) - get(*xb, a);
        acc += h * (get(yc, a) + get(yc, b)) / 2;
        if (cumulative) set(out, (o * (n - 1) + k) * inner + in, acc);
      }
      if (!cumulative) set(out, o * inner + in, acc);
    }
  return out;
}
Tensor trapezoidX(const Tensor &y, const Tensor &x, int64_t dim) {
  return trapezoidImpl("aten::trapezoid", y, x, 1, dim, false);
}
Tensor trapezoidDx(const Tensor &y, double dx, int64_t dim) {
  return trapezoidImpl("aten::trapezoid", y, std::nullopt, dx, dim, false);
}
Tensor cumTrapezoidX(const Tensor &y, const Tensor &x, int64_t dim) {
  return trapezoidImpl("aten::cumulative_trapezoid", y, x, 1, dim, true);
}
Tensor cumTrapezoidDx(const Tensor &y, double dx, int64_t dim) {
  return trapezoidImpl("aten::cumulative_trapezoid", y, std::nullopt, dx, dim, true);
}

// --- products ----------------------------------------------------------------------

/// Contracts dims_self of self with dims_other of other (in pairs).
Tensor tensordot(const Tensor &a, const Tensor &b, const std::vector<int64_t> &da,
                 const std::vector<int64_t> &db) {
  const char *op = "aten::tensordot";
  check(da.size() == db.size(), op, "dims_self and dims_other must have one length");
  std::vector<bool> ca(a.dim(), false), cb(b.dim(), false);
  std::vector<int64_t> ia, ib;
  for (size_t i = 0; i < da.size(); ++i) {
    int64_t x = wrapDim(da[i], a.dim(), op), y = wrapDim(db[i], b.dim(), op);
    check(a.size(x) == b.size(y), op, "contracted dims differ in size");
    ca[x] = cb[y] = true;
    ia.push_back(x);
    ib.push_back(y);
  }
  Shape fa, fb, s;
  for (int64_t i = 0; i < a.dim(); ++i) if (!ca[i]) fa.push_back(i), s.push_back(a.size(i));
  for (int64_t i = 0; i < b.dim(); ++i) if (!cb[i]) fb.push_back(i), s.push_back(b.size(i));
  DType dt = promoteTypes(a.dtype(), b.dtype());
  Tensor out = emptyLike(s, dt, a);
  if (isMeta(a)) return out;
  Tensor x = a.contiguous(), y = b.contiguous();
  Shape sa = stridesOf(a.sizes()), sb = stridesOf(b.sizes());
  Shape kshape;
  for (int64_t i : ia) kshape.push_back(a.size(i));
  int64_t M = 1, N = 1, K = numelOf(kshape);
  for (int64_t i : fa) M *= a.size(i);
  for (int64_t i : fb) N *= b.size(i);
  auto offset = [](const Shape &dims, const Shape &sizes, const Shape &strides, int64_t flat) {
    int64_t off = 0;
    for (int64_t d = (int64_t)dims.size() - 1; d >= 0; --d) {
      off += (flat % sizes[dims[d]]) * strides[dims[d]];
      flat /= sizes[dims[d]];
    }
    return off;
  };
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double acc = 0;
      int64_t oa = offset(fa, a.sizes(), sa, i), ob = offset(fb, b.sizes(), sb, j);
      for (int64_t k = 0; k < K; ++k)
        acc += get(x, oa + offset(ia, a.sizes(), sa, k)) * get(y, ob + offset(ib, b.sizes(), sb, k));
      set(out, i * N + j, acc);
    }
  return out;
}

/// cross along the first dim of size 3 (torch.cross without dim).
Tensor crossNoDim(const Tensor &a, const Tensor &b, const std::optional<int64_t> &dim) {
  const char *op = "aten::cross";
  Shape s = broadcastShapes(a.sizes(), b.sizes(), op);
  int64_t d = -1;
  if (dim) d = wrapDim(*dim, (int64_t)s.size(), op);
  else
    for (size_t i = 0; i < s.size() && d < 0; ++i) if (s[i] == 3) d = (int64_t)i;
  check(d >= 0 && s[d] == 3, op, "no dim of size 3 in " + shapeToString(s));
  DType dt = promoteTypes(a.dtype(), b.dtype());
  Tensor out = emptyLike(s, dt, a);
  if (isMeta(a)) return out;
  Shape st = stridesOf(s), bsa = broadcastStrides(a, s), bsb = broadcastStrides(b, s);
  auto at = [&](const Tensor &t, const Shape &bs, int64_t flat, int64_t comp) {
    int64_t off = 0;
    for (size_t k = 0; k < s.size(); ++k) {
      int64_t c = (flat / st[k]) % s[k];
      off += ((int64_t)k == d ? comp : c) * bs[k];
    }
    return loadDouble(static_cast<const char *>(t.rawData()) + off * dtypeSize(t.dtype()), t.dtype());
  };
  for (int64_t i = 0, n = out.numel(); i < n; ++i) {
    int64_t c = (i / st[d]) % 3, base = i - c * st[d];
    int64_t p = (c + 1) % 3, q = (c + 2) % 3;
    set(out, i, at(a, bsa, base, p) * at(b, bsb, base, q) - at(a, bsa, base, q) * at(b, bsb, base, p));
  }
  return out;
}

/// x[..., i]^j for j < N (increasing powers, as linalg.vander).
Tensor vander(const Tensor &x, const std::optional<int64_t> &N) {
  const char *op = "aten::linalg_vander";
  // A 0-d x is one point.
  Shape s = x.dim() == 0 ? Shape{1} : x.sizes();
  int64_t n = N.value_or(s.back());
  check(n > 1, op, "N must be greater than 1");
  s.push_back(n);
  DType dt = x.dtype() == DType::Bool ? DType::Int64 : x.dtype();
  Tensor out = emptyLike(s, dt, x);
  if (isMeta(x)) return out;
  Tensor c = x.contiguous();
  for (int64_t i = 0, m = c.numel(); i < m; ++i) {
    double p = 1, v = get(c, i);
    for (int64_t j = 0; j < n; ++j, p *= v) set(out, i * n + j, p);
  }
  return out;
}

/// The block-diagonal matrix of 0-d, 1-d (one row) and 2-d tensors.
Tensor blockDiag(const std::vector<Tensor> &ts) {
  const char *op = "aten::block_diag";
  check(!ts.empty(), op, "expects at least one tensor");
  int64_t rows = 0, cols = 0;
  DType dt = ts[0].dtype();
  for (const Tensor &t : ts) {
    check(t.dim() <= 2, op, "expects tensors of at most 2 dims, got " + t.shapeString());
    rows += t.dim() == 2 ? t.size(0) : 1;
    cols += t.dim() == 0 ? 1 : t.size(-1);
    dt = promoteTypes(dt, t.dtype());
  }
  Tensor out = zeros({rows, cols}, dt, ts[0]);
  if (isMeta(ts[0])) return out;
  int64_t r0 = 0, c0 = 0;
  for (const Tensor &t : ts) {
    int64_t r = t.dim() == 2 ? t.size(0) : 1, c = t.dim() == 0 ? 1 : t.size(-1);
    Tensor x = t.contiguous();
    for (int64_t i = 0; i < r; ++i)
      for (int64_t j = 0; j < c; ++j) set(out, (r0 + i) * cols + c0 + j, get(x, i * c + j));
    r0 += r;
    c0 += c;
  }
  return out;
}

/// Every r-combination of a 1-d tensor's elements, in lexicographic order of positions.
Tensor combinations(const Tensor &self, int64_t r, bool withReplacement) {
  const char *op = "aten::combinations";
  check(self.dim() == 1, op, "expects a 1-d tensor, got " + self.shapeString());
  check(r >= 0, op, "r must be non-negative");
  int64_t n = self.size(0);
  std::vector<std::vector<int64_t>> combos;
  std::vector<int64_t> cur;
  std::function<void(int64_t)> rec = [&](int64_t start) {
    if ((int64_t)cur.size() == r) return combos.push_back(cur);
    for (int64_t i = start; i < n; ++i) {
      cur.push_back(i);
      rec(withReplacement ? i : i + 1);
      cur.pop_back();
    }
  };
  if (r > 0) rec(0);
  Shape s = r == 0 ? Shape{0} : Shape{(int64_t)combos.size(), r};
  Tensor out = emptyLike(s, self.dtype(), self);
  if (isMeta(self)) return out;
  Tensor x = self.contiguous();
  for (size_t c = 0; c < combos.size(); ++c)
    for (int64_t k = 0; k < r; ++k) set(out, c * r + k, get(x, combos[c][k]));
  return out;
}

/// Scales each slice along dim whose p-norm exceeds maxnorm to norm maxnorm.
Tensor renorm(const Tensor &self, double p, int64_t dim, double maxnorm) {
  const char *op = "aten::renorm";
  check(p > 0, op, "p must be positive");
  check(maxnorm >= 0, op, "maxnorm must be non-negative");
  Tensor out = emptyLike(self.sizes(), self.dtype(), self);
  if (isMeta(self) || out.numel() == 0) return out;
  int64_t d = wrapDim(dim, self.dim(), op), n = self.size(d), outer = 1, inner = 1;
  for (int64_t i = 0; i < d; ++i) outer *= self.size(i);
  for (int64_t i = d + 1; i < self.dim(); ++i) inner *= self.size(i);
  Tensor x = self.contiguous();
  for (int64_t k = 0; k < n; ++k) {
    double acc = 0;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t in = 0; in < inner; ++in) {
        double v = std::abs(get(x, (o * n + k) * inner + in));
        acc = std::isinf(p) ? std::max(acc, v) : acc + std::pow(v, p);
      }
    double norm = std::isinf(p) ? acc : std::pow(acc, 1 / p);
    double scale = norm > maxnorm ? maxnorm / (norm + 1e-7) : 1;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t in = 0; in < inner; ++in) {
        int64_t i = (o * n + k) * inner + in;
        set(out, i, get(x, i) * scale);
      }
  }
  return out;
}

/// Each tensor split into num_chunks along dim (padded with zeros to equal
/// chunks), the chunks of all tensors concatenated per chunk.
Tensor chunkCat(const std::vector<Tensor> &ts, int64_t dim, int64_t chunks) {
  const char *op = "aten::_chunk_cat";
  check(!ts.empty() && chunks >= 1, op, "expects tensors and num_chunks >= 1");
  int64_t d = wrapDim(dim, ts[0].dim(), op);
  Shape lead(ts[0].sizes().begin(), ts[0].sizes().begin() + d);
  int64_t width = 0; // per chunk: sum over tensors of chunk size * trailing size
  std::vector<int64_t> per(ts.size()), trailing(ts.size());
  for (size_t t = 0; t < ts.size(); ++t) {
    check(Shape(ts[t].sizes().begin(), ts[t].sizes().begin() + d) == lead, op,
          "tensors must agree before dim");
    int64_t tr = 1;
    for (int64_t i = d + 1; i < ts[t].dim(); ++i) tr *= ts[t].size(i);
    trailing[t] = tr;
    per[t] = (ts[t].size(d) + chunks - 1) / chunks;
    width += per[t] * tr;
  }
  Shape s = lead;
  s.push_back(chunks);
  s.push_back(width);
  Tensor out = zeros(s, ts[0].dtype(), ts[0]);
  if (isMeta(ts[0])) return out;
  int64_t outer = numelOf(lead);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t c = 0; c < chunks; ++c) {
      int64_t col = 0;
      for (size_t t = 0; t < ts.size(); ++t) {
        Tensor x = ts[t].contiguous();
        int64_t n = ts[t].size(d);
        for (int64_t k = 0; k < per[t]; ++k) {
          int64_t src = c * per[t] + k;
          for (int64_t in = 0; in < trailing[t]; ++in, ++col)
            if (src < n) set(out, (o * chunks + c) * width + col, get(x, (o * n + src) * trailing[t] + in));
        }
      }
    }
  return out;
}

/// self with source's elements written (or added) at flat indices.
Tensor put(const Tensor &self, const Tensor &index, const Tensor &source, bool accumulate) {
  const char *op = "aten::put";
  check(index.numel() == source.numel(), op, "index and source must have one number of elements");
  Tensor out = self.contiguous().clone();
  if (isMeta(self)) return emptyLike(self.sizes(), self.dtype(), self);
  Tensor ix = index.contiguous(), src = source.contiguous();
  int64_t n = out.numel();
  for (int64_t i = 0, m = ix.numel(); i < m; ++i) {
    int64_t k = (int64_t)get(ix, i);
    check(k >= -n && k < n, op, "index " + std::to_string(k) + " is out of range for " +
                                    std::to_string(n) + " elements");
    if (k < 0) k += n;
    set(out, k, accumulate ? get(out, k) + get(src, i) : get(src, i));
  }
  return out;
}

/// self (as a contiguous tensor) with src written through the strided view (size, stride, offset).
Tensor asStridedScatter(const Tensor &self, const Tensor &src, const std::vector<int64_t> &size,
                        const std::vector<int64_t> &stride, const std::optional<int64_t> &offset) {
  const char *op = "aten::as_strided_scatter";
  check(size.size() == stride.size(), op, "size and stride must have one length");
  check(src.numel() == numelOf(size), op, "src " + src.shapeString() + " does not match size");
  Tensor out = self.contiguous().clone();
  if (isMeta(self)) return emptyLike(self.sizes(), self.dtype(), self);
  Tensor s = src.contiguous();
  for (int64_t i = 0, n = s.numel(); i < n; ++i) {
    int64_t pos = offset.value_or(0), rest = i;
    for (int64_t d = (int64_t)size.size() - 1; d >= 0; --d) {
      pos += (rest % size[d]) * stride[d];
      rest /= size[d];
    }
    check(pos >= 0 && pos < out.numel(), op, "the view reaches outside self's storage");
    set(out, pos, get(s, i));
  }
  return out;
}

/// A histogram of `bins` equal bins over [min, max] (the data's range when both are 0).
Tensor histc(const Tensor &self, int64_t bins, double lo, double hi) {
  const char *op = "aten::histc";
  check(bins > 0, op, "bins must be positive");
  Tensor out = zeros({bins}, self.dtype(), self);
  if (isMeta(self)) return out;
  Tensor x = self.contiguous();
  if (lo == hi && x.numel() > 0) {
    lo = INFINITY;
    hi = -INFINITY;
    for (int64_t i = 0; i < x.numel(); ++i) lo = std::min(lo, get(x, i)), hi = std::max(hi, get(x, i));
  }
  if (lo == hi) lo -= 1, hi += 1;
  check(lo < hi, op, "max must be larger than min");
  std::vector<double> count(bins, 0);
  for (int64_t i = 0; i < x.numel(); ++i) {
    double v = get(x, i);
    if (!(v >= lo && v <= hi)) continue;
    int64_t b = (int64_t)((v - lo) * bins / (hi - lo));
    count[std::min(b, bins - 1)] += 1;
  }
  for (int64_t b = 0; b < bins; ++b) set(out, b, count[b]);
  return out;
}

/// Sliding blocks of a [N, C, H, W] (or [C, H, W]) input as columns [N, C*kh*kw, L].
Tensor im2col(const Tensor &self, const std::vector<int64_t> &k, const std::vector<int64_t> &dil,
              const std::vector<int64_t> &pad, const std::vector<int64_t> &str) {
  const char *op = "aten::im2col";
  check(self.dim() == 3 || self.dim() == 4, op, "expects a 3-d or 4-d input, got " + self.shapeString());
  check(k.size() == 2 && dil.size() == 2 && pad.size() == 2 && str.size() == 2, op,
        "expects 2 values for kernel_size, dilation, padding and stride");
  bool batched = self.dim() == 4;
  int64_t N = batched ? self.size(0) : 1, C = self.size(-3), H = self.size(-2), W = self.size(-1);
  int64_t oh = (H + 2 * pad[0] - dil[0] * (k[0] - 1) - 1) / str[0] + 1;
  int64_t ow = (W + 2 * pad[1] - dil[1] * (k[1] - 1) - 1) / str[1] + 1;
  check(oh > 0 && ow > 0, op, "the input is smaller than the kernel");
  int64_t rows = C * k[0] * k[1], L = oh * ow;
  Shape s = batched ? Shape{N, rows, L} : Shape{rows, L};
  Tensor out = emptyLike(s, self.dtype(), self);
  if (isMeta(self) || out.numel() == 0) return out;
  Tensor x = self.contiguous();
  for (int64_t n = 0; n < N; ++n)
    for (int64_t r = 0; r < rows; ++r) {
      int64_t c = r / (k[0] * k[1]), ki = (r / k[1]) % k[0], kj = r % k[1];
      for (int64_t l = 0; l < L; ++l) {
        int64_t y = (l / ow) * str[0] - pad[0] + ki * dil[0], xx = (l % ow) * str[1] - pad[1] + kj * dil[1];
        double v = y >= 0 && y < H && xx >= 0 && xx < W ? get(x, ((n * C + c) * H + y) * W + xx) : 0;
        set(out, (n * rows + r) * L + l, v);
      }
    }
  return out;
}

/// The adjoint of im2col: columns [N, C*kh*kw, L] (or [C*kh*kw, L]) summed back onto an
/// [N, C, H, W] (or [C, H, W]) output of `output_size`, overlapping blocks adding up.
Tensor col2im(const Tensor &self, const std::vector<int64_t> &size, const std::vector<int64_t> &k,
              const std::vector<int64_t> &dil, const std::vector<int64_t> &pad,
              const std::vector<int64_t> &str) {
  const char *op = "aten::col2im";
  check(self.dim() == 2 || self.dim() == 3, op, "expects a 2-d or 3-d input, got " + self.shapeString());
  check(size.size() == 2 && k.size() == 2 && dil.size() == 2 && pad.size() == 2 && str.size() == 2, op,
        "expects 2 values for output_size, kernel_size, dilation, padding and stride");
  check(k[0] > 0 && k[1] > 0 && dil[0] > 0 && dil[1] > 0 && str[0] > 0 && str[1] > 0 && pad[0] >= 0 &&
            pad[1] >= 0, op, "kernel_size, dilation and stride must be positive and padding not negative");
  bool batched = self.dim() == 3;
  int64_t N = batched ? self.size(0) : 1, rows = self.size(-2), L = self.size(-1);
  int64_t H = size[0], W = size[1], kk = k[0] * k[1];
  check(rows % kk == 0, op, "expects dim " + std::to_string(self.dim() - 2) + " (" + std::to_string(rows) +
        ") to be divisible by the kernel's " + std::to_string(kk) + " elements");
  int64_t oh = (H + 2 * pad[0] - dil[0] * (k[0] - 1) - 1) / str[0] + 1;
  int64_t ow = (W + 2 * pad[1] - dil[1] * (k[1] - 1) - 1) / str[1] + 1;
  check(oh > 0 && ow > 0 && oh * ow == L, op, "expects " + std::to_string(std::max<int64_t>(oh, 0) *
        std::max<int64_t>(ow, 0)) + " blocks for output_size [" + std::to_string(H) + ", " +
        std::to_string(W) + "], got " + std::to_string(L));
  int64_t C = rows / kk;
  Shape s = batched ? Shape{N, C, H, W} : Shape{C, H, W};
  Tensor out = emptyLike(s, self.dtype(), self);
  if (isMeta(self) || out.numel() == 0) return out;
  Tensor x = self.contiguous();
  std::vector<double> acc(out.numel(), 0.0);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t r = 0; r < rows; ++r) {
      int64_t c = r / kk, ki = (r / k[1]) % k[0], kj = r % k[1];
      for (int64_t l = 0; l < L; ++l) {
        int64_t y = (l / ow) * str[0] - pad[0] + ki * dil[0], xx = (l % ow) * str[1] - pad[1] + kj * dil[1];
        if (y >= 0 && y < H && xx >= 0 && xx < W)
          acc[((n * C + c) * H + y) * W + xx] += get(x, (n * rows + r) * L + l);
      }
    }
  for (int64_t i = 0; i < (int64_t)acc.size(); ++i) set(out, i, acc[i]);
  return out;
}

// --- margin losses -------------------------------------------------------------------

Tensor reduceLoss(const Tensor &per, int64_t reduction, const Tensor &like) {
  if (reduction == 0) return per;
  Tensor out = emptyLike({}, per.dtype(), like);
  if (isMeta(like)) return out;
  double acc = 0;
  for (int64_t i = 0; i < per.numel(); ++i) acc += get(per, i);
  set(out, 0, reduction == 1 ? acc / std::max<int64_t>(per.numel(), 1) : acc);
  if (reduction == 1 && per.numel() == 0) set(out, 0, NAN);
  return out;
}

/// A loss of a 0-d, 1-d ([C]) or 2-d ([N, C]) input: `sample(x, t, n, C)`
/// gives sample n's loss from the contiguous input and target, then the
/// per-sample losses are reduced.
template <typename F>
Tensor perSampleLoss(const Tensor &self, const Tensor &target, int64_t reduction, F sample) {
  int64_t C = self.dim() == 0 ? 1 : self.size(-1), N = self.dim() == 2 ? self.size(0) : 1;
  Shape ps = self.dim() == 2 ? Shape{N} : Shape{};
  Tensor per = emptyLike(ps, self.dtype(), self);
  if (!isMeta(self)) {
    Tensor x = self.contiguous(), t = target.contiguous();
    for (int64_t n = 0; n < N; ++n) set(per, n, sample(x, t, n, C));
  }
  return reduceLoss(per, reduction, self);
}

/// sum_{j != y} w[y] max(0, margin - x[y] + x[j])^p / C per sample.
Tensor multiMarginLoss(const Tensor &self, const Tensor &target, double p, double margin,
                       const std::optional<Tensor> &weight, int64_t reduction) {
  const char *op = "aten::multi_margin_loss";
  check(p == 1 || p == 2, op, "p must be 1 or 2");
  check(self.dim() <= 2, op, "expects a 0-d, 1-d or 2-d input, got " + self.shapeString());
  return perSampleLoss(self, target, reduction, [&](const Tensor &x, const Tensor &t, int64_t n, int64_t C) {
    int64_t y = (int64_t)get(t, n);
    check(y >= 0 && y < C, op, "target " + std::to_string(y) + " is out of range");
    double acc = 0, xy = get(x, n * C + y), w = weight ? get(weight->contiguous(), y) : 1;
    for (int64_t j = 0; j < C; ++j) {
      if (j == y) continue;
      double z = margin - xy + get(x, n * C + j);
      if (z > 0) acc += w * (p == 1 ? z : z * z);
    }
    return acc / C;
  });
}

/// sum over target classes j (up to the first -1) and other classes k of max(0, 1 - (x[j] - x[k])) / C.
Tensor multilabelMarginLoss(const Tensor &self, const Tensor &target, int64_t reduction) {
  const char *op = "aten::multilabel_margin_loss";
  check(self.dim() <= 2 && target.sizes() == self.sizes(), op,
        "expects input and target of one 0-d, 1-d or 2-d shape");
  return perSampleLoss(self, target, reduction, [&](const Tensor &x, const Tensor &t, int64_t n, int64_t C) {
    std::vector<bool> isTarget(C, false);
    std::vector<int64_t> ys;
    for (int64_t j = 0; j < C; ++j) {
      int64_t y = (int64_t)get(t, n * C + j);
      if (y < 0) break;
      check(y < C, op, "target " + std::to_string(y) + " is out of range");
      ys.push_back(y);
      isTarget[y] = true;
    }
    double acc = 0;
    for (int64_t y : ys)
      for (int64_t k = 0; k < C; ++k)
        if (!isTarget[k]) acc += std::max(0.0, 1 - (get(x, n * C + y) - get(x, n * C + k)));
    return acc / C;
  });
}

} // namespace
} // namespace kiln::cpu

/// The same kernels serve CPU and Meta (on Meta tensors they only compute shapes).
KILN_LIBRARY_IMPL_CPU_AND_META(aten, m) {
  using namespace kiln::cpu;
  m.impl("fft_fftshift", fftshift);
  m.impl("fft_ifftshift", ifftshift);
  m.impl("diag", diag);
  m.impl("diagflat", diagflat);
  m.impl("diag_embed", diagEmbed);
  m.impl("trapezoid.x", trapezoidX);
  m.impl("trapezoid.dx", trapezoidDx);
  m.impl("trapz.x", trapezoidX);
  m.impl("trapz.dx", trapezoidDx);
  m.impl("cumulative_trapezoid.x", cumTrapezoidX);
  m.impl("cumulative_trapezoid.dx", cumTrapezoidDx);
  m.impl("tensordot", tensordot);
  m.impl("cross", crossNoDim);
  m.impl("linalg_vander", vander);
  m.impl("block_diag", blockDiag);
  m.impl("combinations", combinations);
  m.impl("renorm", renorm);
  m.impl("_chunk_cat", chunkCat);
  m.impl("put", put);
  m.impl("as_strided_scatter", asStridedScatter);
  m.impl("histc", histc);
  m.impl("im2col", im2col);
  m.impl("col2im", col2im);
  m.impl("multi_margin_loss", multiMarginLoss);
  m.impl("multilabel_margin_loss", multilabelMarginLoss);
}
