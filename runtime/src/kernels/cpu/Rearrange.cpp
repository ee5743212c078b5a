// kiln runtime — eager CPU (and Meta) copies that rearrange elements on every
// dtype: constant_pad_nd / pad (constant mode, negative pads crop; reflect, replicate,
// circular) and reflection_pad / replication_pad, flip, roll,
// repeat, repeat_interleave, slice_scatter / select_scatter (a copy with one window replaced),
// tril / triu and pixel_shuffle / pixel_unshuffle.
#include "TensorIter.h"

#include <algorithm>
#include <cstring>

namespace kiln::cpu {
namespace {

Tensor constantPad(const Tensor &self, std::vector<int64_t> pad, IValue value) {
  const char *op = "aten::constant_pad_nd";
  check(pad.size() % 2 == 0 && (int64_t)pad.size() / 2 <= self.dim(), op,
        "padding length " + std::to_string(pad.size()) + " must be even and at most twice the rank " +
            std::to_string(self.dim()));
  std::vector<int64_t> shape = self.sizes();
  // The input's window that survives (crops) and where it lands in the output.
  std::vector<int64_t> inStart(self.dim(), 0), outStart(self.dim(), 0), len = self.sizes();
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    int64_t d = self.dim() - 1 - (int64_t)i, lo = pad[2 * i], hi = pad[2 * i + 1];
    shape[d] = self.size(d) + lo + hi;
    check(shape[d] >= 0, op, "the padded size of dimension " + std::to_string(d) + " would be negative");
    inStart[d] = lo < 0 ? -lo : 0;
    outStart[d] = lo > 0 ? lo : 0;
    len[d] = std::max<int64_t>(0, self.size(d) - inStart[d] - (hi < 0 ? -hi : 0));
  }
  Tensor out = emptyLike(shape, self.dtype(), self);
  if (isMeta(out)) return out;
  Tensor fill = Tensor::empty({}, self.dtype());
  storeDouble(elemPtr(fill, 0), self.dtype(), scalarValue(value, op));
  copyInto(out, fill, op);
  int64_t inOff = self.offset(), outOff = out.offset();
  for (int64_t d = 0; d < self.dim(); ++d) {
    inOff += inStart[d] * self.stride(d);
    outOff += outStart[d] * out.stride(d);
  }
  Tensor src = Tensor::view(self.storage(), inOff, len, self.strides(), self.dtype());
  Tensor dst = Tensor::view(out.storage(), outOff, len, out.strides(), out.dtype());
  copyInto(dst, src, op);
  return out;
}

/// A view of `t` at index `i` of dim `d`, keeping the dim (size 1).
Tensor sliceOne(const Tensor &t, int64_t d, int64_t i) {
  std::vector<int64_t> sz = t.sizes();
  sz[d] = 1;
  return Tensor::view(t.storage(), t.offset() + i * t.stride(d), sz, t.strides(), t.dtype());
}

/// reflect, replicate and circular padding: each output index of a padded
/// dim reads one input index (mirrored without repeating the edge, clamped,
/// or wrapped around), one padded dim at a time, last dims first.
Tensor indexPad(const Tensor &self, const std::vector<int64_t> &pad, const std::string &mode, const char *op) {
  check(pad.size() % 2 == 0 && (int64_t)pad.size() / 2 <= self.dim(), op,
        "padding length " + std::to_string(pad.size()) + " must be even and at most twice the rank " +
            std::to_string(self.dim()));
  Tensor cur = self;
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    int64_t d = self.dim() - 1 - (int64_t)i, lo = pad[2 * i], hi = pad[2 * i + 1], n = cur.size(d);
    check(lo >= 0 && hi >= 0, op, "mode '" + mode + "' takes no negative padding");
    if (mode == "reflect")
      check(lo < n && hi < n, op, "reflect padding (" + std::to_string(lo) + ", " + std::to_string(hi) +
                                      ") must be smaller than dimension " + std::to_string(d) + " of size " +
                                      std::to_string(n));
    else
      check(n > 0 && (mode != "circular" || (lo <= n && hi <= n)), op,
            "mode '" + mode + "' needs a non-empty dimension " + std::to_string(d) + " at least as large as its padding");
    std::vector<int64_t> shape = cur.sizes();
    shape[d] = n + lo + hi;
    Tensor out = emptyLike(shape, cur.dtype(), cur);
    if (isMeta(out)) {
      cur = out;
      continue;
    }
    for (int64_t k = 0; k < shape[d]; ++k) {
      int64_t j = k - lo;
      if (mode == "reflect") j = j < 0 ? -j : j >= n ? 2 * (n - 1) - j : j;
      else if (mode == "replicate") j = std::min<int64_t>(std::max<int64_t>(j, 0), n - 1);
      else j = ((j % n) + n) % n;
      Tensor dst = sliceOne(out, d, k);
      copyInto(dst, sliceOne(cur, d, j), op);
    }
    cur = out;
  }
  return pad.empty() ? self.clone() : cur;
}

Tensor pad(const Tensor &self, std::vector<int64_t> p, std::string mode, std::optional<double> value) {
  const char *op = "aten::pad";
  if (mode == "constant") return constantPad(self, p, IValue(value.value_or(0.0)));
  check(mode == "reflect" || mode == "replicate" || mode == "circular", op,
        "mode must be constant, reflect, replicate or circular, got '" + mode + "'");
  check(!value || *value == 0.0, op, "a padding value is only for mode 'constant'");
  return indexPad(self, p, mode, op);
}
Tensor reflectionPad(const Tensor &self, std::vector<int64_t> p) {
  return indexPad(self, p, "reflect", "aten::reflection_pad");
}
Tensor replicationPad(const Tensor &self, std::vector<int64_t> p) {
  return indexPad(self, p, "replicate", "aten::replication_pad");
}

Tensor flip(const Tensor &self, std::vector<int64_t> dims) {
  const char *op = "aten::flip";
  std::vector<bool> f(self.dim(), false);
  for (int64_t d : dims) {
    int64_t w = wrapDim(d, self.dim(), op);
    check(!f[w], op, "dim " + std::to_string(w) + " appears twice");
    f[w] = true;
  }
  Tensor out = emptyLike(self.sizes(), self.dtype(), self);
  if (isMeta(out)) return out;
  // Read the input backwards along the flipped dims.
  int64_t off = self.offset();
  std::vector<int64_t> st = self.strides();
  for (int64_t d = 0; d < self.dim(); ++d)
    if (f[d] && self.size(d) > 0) {
      off += (self.size(d) - 1) * st[d];
      st[d] = -st[d];
    }
  std::array<std::vector<int64_t>, 2> strides{out.strides(), st};
  // Signed: the flipped dims' strides are negative, so are the offsets.
  int64_t es = (int64_t)dtypeSize(self.dtype());
  char *po = elemPtr(out, 0);
  const char *ps = static_cast<const char *>(self.storage()->data()) + off * es;
  forEachIndex<2>(self.sizes(), strides,
                  [&](const std::array<int64_t, 2> &o) { std::memcpy(po + o[0] * es, ps + o[1] * es, (size_t)es); });
  return out;
}

Tensor roll(const Tensor &self, std::vector<int64_t> shifts, std::vector<int64_t> dims) {
  const char *op = "aten::roll";
  if (dims.empty()) { // roll the flattened tensor
    check(shifts.size() == 1, op, "without dims, shifts must have one entry");
    Tensor flat = self.contiguous().reshape({self.numel()});
    return roll(flat, shifts, {0}).reshape(self.sizes());
  }
  check(shifts.size() == dims.size(), op, "shifts and dims must have the same length");
  Tensor cur = self;
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t d = wrapDim(dims[i], self.dim(), op), n = self.size(d);
    Tensor out = emptyLike(self.sizes(), self.dtype(), self);
    if (isMeta(out)) return out;
    if (n == 0) return out;
    int64_t s = ((shifts[i] % n) + n) % n;
    // out[s:] = cur[:n-s], out[:s] = cur[n-s:]
    auto part = [&](const Tensor &t, int64_t start, int64_t len) {
      std::vector<int64_t> sz = t.sizes();
      sz[d] = len;
      return Tensor::view(t.storage(), t.offset() + start * t.stride(d), sz, t.strides(), t.dtype());
    };
    copyInto(part(out, s, n - s), part(cur, 0, n - s), op);
    copyInto(part(out, 0, s), part(cur, n - s, s), op);
    cur = out;
  }
  return cur;
}

/// A view of `t` restricted to [start, end) step `step` along dim d (ATen's slice clamping).
Tensor sliceView(const Tensor &t, int64_t d, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step,
                 const char *op) {
  check(step > 0, op, "slice step must be positive");
  int64_t n = t.size(d), s = start.value_or(0), e = end.value_or(n);
  if (s < 0) s += n;
  if (e < 0) e += n;
  s = std::clamp<int64_t>(s, 0, n);
  e = std::clamp<int64_t>(e, s, n);
  std::vector<int64_t> sz = t.sizes(), st = t.strides();
  sz[d] = (e - s + step - 1) / step;
  st[d] *= step;
  return Tensor::view(t.storage(), t.offset() + s * t.stride(d), sz, st, t.dtype());
}

Tensor sliceScatter(const Tensor &self, const Tensor &src, int64_t dim, std::optional<int64_t> start,
                    std::optional<int64_t> end, int64_t step) {
  const char *op = "aten::slice_scatter";
  int64_t d = wrapDim(dim, self.dim(), op);
  Tensor out = emptyLike(self.sizes(), self.dtype(), self);
  if (isMeta(out)) return out;
  copyInto(out, self, op);
  Tensor win = sliceView(out, d, start, end, step, op);
  check(win.sizes() == src.sizes(), op,
        "src " + src.shapeString() + " must have the slice's shape " + win.shapeString());
  copyInto(win, src, op);
  return out;
}

Tensor selectScatter(const Tensor &self, const Tensor &src, int64_t dim, int64_t index) {
  const char *op = "aten::select_scatter";
  int64_t d = wrapDim(dim, self.dim(), op), n = self.size(d);
  check(index >= -n && index < n, op, "index " + std::to_string(index) + " is out of range for size " + std::to_string(n));
  if (index < 0) index += n;
  Tensor out = emptyLike(self.sizes(), self.dtype(), self);
  if (isMeta(out)) return out;
  copyInto(out, self, op);
  std::vector<int64_t> sz = out.sizes(), st = out.strides();
  sz.erase(sz.begin() + d);
  st.erase(st.begin() + d);
  Tensor win = Tensor::view(out.storage(), out.offset() + index * out.stride(d), sz, st, out.dtype());
  check(win.sizes() == src.sizes(), op, "src " + src.shapeString() + " must have shape " + win.shapeString());
  copyInto(win, src, op);
  return out;
}

/// repeat_interleave(self, repeats: int, dim): each element `repeats` times along dim
/// (of the flattened tensor when dim is None).
Tensor repeatInterleave(const Tensor &self, int64_t repeats, std::optional<int64_t> dim, std::optional<int64_t>) {
  const char *op = "aten::repeat_interleave.self_int";
  check(repeats >= 0, op, "repeats must be non-negative, got " + std::to_string(repeats));
  Tensor x = dim ? self : self.contiguous().reshape({self.numel()});
  int64_t d = dim ? wrapDim(*dim, x.dim(), op) : 0;
  std::vector<int64_t> shape = x.sizes();
  shape[d] *= repeats;
  Tensor out = emptyLike(shape, x.dtype(), x);
  if (isMeta(out)) return out;
  for (int64_t r = 0; r < repeats; ++r) {
    // out[..., i * repeats + r, ...] = x[..., i, ...]
    std::vector<int64_t> st = out.strides();
    st[d] *= repeats;
    Tensor dst = Tensor::view(out.storage(), out.offset() + r * out.stride(d), x.sizes(), st, out.dtype());
    copyInto(dst, x, op);
  }
  return out;
}

/// repeat(self, repeats): the tensor tiled repeats[i] times along dim i (self
/// first viewed with leading 1s up to len(repeats) dims). One strided copy:
/// the output seen as (repeat, size) pairs, the input broadcast over repeats.
Tensor repeat(const Tensor &self, std::vector<int64_t> repeats) {
  const char *op = "aten::repeat";
  check((int64_t)repeats.size() >= self.dim(), op,
        "repeats has " + std::to_string(repeats.size()) + " entries, fewer than the tensor's " +
            std::to_string(self.dim()) + " dims");
  size_t R = repeats.size(), lead = R - self.dim();
  std::vector<int64_t> shape(R), src(R), srcStride(R);
  for (size_t i = 0; i < R; ++i) {
    check(repeats[i] >= 0, op, "repeats must be non-negative, got " + shapeToString(repeats));
    src[i] = i < lead ? 1 : self.size(i - lead);
    srcStride[i] = i < lead ? 0 : self.stride(i - lead);
    shape[i] = src[i] * repeats[i];
  }
  Tensor out = emptyLike(shape, self.dtype(), self);
  if (isMeta(out) || out.numel() == 0) return out;
  std::vector<int64_t> pairs, dstStride, srcView, srcViewStride;
  for (size_t i = 0; i < R; ++i) {
    pairs.push_back(repeats[i]);
    pairs.push_back(src[i]);
    dstStride.push_back(src[i] * out.stride(i));
    dstStride.push_back(out.stride(i));
    srcView.push_back(repeats[i]);
    srcView.push_back(src[i]);
    srcViewStride.push_back(0);
    srcViewStride.push_back(srcStride[i]);
  }
  Tensor dst = Tensor::view(out.storage(), out.offset(), pairs, dstStride, out.dtype());
  Tensor from = Tensor::view(self.storage(), self.offset(), srcView, srcViewStride, self.dtype());
  copyInto(dst, from, op);
  return out;
}

/// tril / triu: a copy of `self` with the elements above (tril) or below (triu)
/// the diagonal-th diagonal of its last two dims set to zero.
Tensor triangle(const Tensor &self, int64_t diagonal, bool lower, const char *op) {
  check(self.dim() >= 2, op, "input tensor must have at least 2 dimensions, got " + self.shapeString());
  Tensor out = emptyLike(self.sizes(), self.dtype(), self);
  if (isMeta(out)) return out;
  copyInto(out, self, op);
  int64_t rows = self.size(-2), cols = self.size(-1), mats = rows * cols ? out.numel() / (rows * cols) : 0;
  size_t es = dtypeSize(self.dtype());
  char *p = elemPtr(out, 0);
  for (int64_t b = 0; b < mats; ++b)
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        if (lower ? j - i > diagonal : j - i < diagonal) std::memset(p + ((b * rows + i) * cols + j) * es, 0, es);
  return out;
}
Tensor tril(const Tensor &self, int64_t diagonal) { return triangle(self, diagonal, true, "aten::tril"); }
Tensor triu(const Tensor &self, int64_t diagonal) { return triangle(self, diagonal, false, "aten::triu"); }

/// pixel_shuffle [*, C*r*r, H, W] -> [*, C, H*r, W*r] and pixel_unshuffle, its
/// inverse: one strided view of the contiguous input, copied.
Tensor shufflePixels(const Tensor &self, int64_t r, bool shuffle, const char *op) {
  check(self.dim() >= 3, op, "expected at least 3 dims, got " + self.shapeString());
  check(r > 0, op, "the factor must be positive, got " + std::to_string(r));
  std::vector<int64_t> batch(self.sizes().begin(), self.sizes().end() - 3);
  int64_t c = self.size(-3), h = self.size(-2), w = self.size(-1);
  if (shuffle)
    check(c % (r * r) == 0, op, "the channels (" + std::to_string(c) + ") must be divisible by the square of the "
                                "upscale factor " + std::to_string(r));
  else
    check(h % r == 0 && w % r == 0, op, "height " + std::to_string(h) + " and width " + std::to_string(w) +
                                            " must be divisible by the downscale factor " + std::to_string(r));
  int64_t oc = shuffle ? c / (r * r) : c * r * r, oh = shuffle ? h * r : h / r, ow = shuffle ? w * r : w / r;
  std::vector<int64_t> outSizes = batch;
  for (int64_t v : {oc, oh, ow}) outSizes.push_back(v);
  Tensor x = self.contiguous();
  // The input as 6 dims per image, and the strides that read it in output order.
  std::vector<int64_t> sizes = batch, strides;
  for (size_t i = 0; i < batch.size(); ++i) strides.push_back(x.stride((int64_t)i));
  if (shuffle) { // x[n, oc, r1, r2, h, w] -> out[n, oc, h, r1, w, r2]
    for (int64_t v : {oc, h, r, w, r}) sizes.push_back(v);
    for (int64_t v : {r * r * h * w, w, r * h * w, int64_t(1), h * w}) strides.push_back(v);
  } else { // x[n, c, oh, r1, ow, r2] -> out[n, c, r1, r2, oh, ow]
    for (int64_t v : {c, r, r, oh, ow}) sizes.push_back(v);
    for (int64_t v : {h * w, w, int64_t(1), r * w, r}) strides.push_back(v);
  }
  Tensor v = Tensor::view(x.storage(), x.offset(), sizes, strides, x.dtype());
  return v.contiguous().reshape(outSizes);
}
Tensor pixelShuffle(const Tensor &self, int64_t r) { return shufflePixels(self, r, true, "aten::pixel_shuffle"); }
Tensor pixelUnshuffle(const Tensor &self, int64_t r) {
  return shufflePixels(self, r, false, "aten::pixel_unshuffle");
}

KILN_LIBRARY_IMPL_CPU_AND_META(aten, m) {
  m.impl("tril", tril);
  m.impl("triu", triu);
  m.impl("pixel_shuffle", pixelShuffle);
  m.impl("pixel_unshuffle", pixelUnshuffle);
  m.impl("repeat", repeat);
  m.impl("slice_scatter", sliceScatter);
  m.impl("select_scatter", selectScatter);
  m.impl("repeat_interleave.self_int", repeatInterleave);
  m.impl("constant_pad_nd", constantPad);
  m.impl("pad", pad);
  for (const char *n : {"reflection_pad1d", "reflection_pad2d", "reflection_pad3d"}) m.impl(n, reflectionPad);
  for (const char *n : {"replication_pad1d", "replication_pad2d", "replication_pad3d"}) m.impl(n, replicationPad);
  m.impl("flip", flip);
  m.impl("roll", roll);
}

} // namespace
} // namespace kiln::cpu

KILN_LIBRARY_FRAGMENT(aten, m) {
  m.def("constant_pad_nd(Tensor self, SymInt[] pad, Scalar value=0) -> Tensor");
  m.def("pad(Tensor self, SymInt[] pad, str mode=\"constant\", float? value=None) -> Tensor");
  m.def("flip(Tensor self, int[] dims) -> Tensor");
  for (const char *n : {"reflection_pad1d(Tensor self, SymInt[2] padding) -> Tensor",
                        "reflection_pad2d(Tensor self, SymInt[4] padding) -> Tensor",
                        "reflection_pad3d(Tensor self, SymInt[6] padding) -> Tensor",
                        "replication_pad1d(Tensor self, SymInt[2] padding) -> Tensor",
                        "replication_pad2d(Tensor self, SymInt[4] padding) -> Tensor",
                        "replication_pad3d(Tensor self, SymInt[6] padding) -> Tensor"})
    m.def(n);
  m.def("repeat(Tensor self, SymInt[] repeats) -> Tensor");
  m.def("slice_scatter(Tensor self, Tensor src, int dim=0, SymInt? start=None, SymInt? end=None, "
        "SymInt step=1) -> Tensor");
  m.def("select_scatter(Tensor self, Tensor src, int dim, SymInt index) -> Tensor");
  m.def("repeat_interleave.self_int(Tensor self, SymInt repeats, int? dim=None, *, SymInt? output_size=None) "
        "-> Tensor");
  m.def("roll(Tensor self, SymInt[1] shifts, int[1] dims=[]) -> Tensor");
  m.def("tril(Tensor self, int diagonal=0) -> Tensor");
  m.def("triu(Tensor self, int diagonal=0) -> Tensor");
  m.def("pixel_shuffle(Tensor self, int upscale_factor) -> Tensor");
  m.def("pixel_unshuffle(Tensor self, int downscale_factor) -> Tensor");
}
