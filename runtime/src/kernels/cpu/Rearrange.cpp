// kiln runtime — eager CPU (and Meta) copies that rearrange elements on every
// dtype: constant_pad_nd / pad (constant mode; negative pads crop), flip, roll.
#include "TensorIter.h"

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

Tensor pad(const Tensor &self, std::vector<int64_t> p, std::string mode, std::optional<double> value) {
  check(mode == "constant", "aten::pad",
        "mode '" + mode + "' has no eager CPU kernel (constant only)");
  return constantPad(self, p, IValue(value.value_or(0.0)));
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
  size_t es = dtypeSize(self.dtype());
  char *po = elemPtr(out, 0);
  const char *ps = static_cast<const char *>(self.storage()->data()) + off * (int64_t)es;
  forEachIndex<2>(self.sizes(), strides,
                  [&](const std::array<int64_t, 2> &o) { std::memcpy(po + o[0] * es, ps + o[1] * es, es); });
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

void registerKernels(kiln::Library &m) {
  m.impl("constant_pad_nd", constantPad);
  m.impl("pad", pad);
  m.impl("flip", flip);
  m.impl("roll", roll);
}

} // namespace
} // namespace kiln::cpu

KILN_LIBRARY_FRAGMENT(aten, m) {
  m.def("constant_pad_nd(Tensor self, SymInt[] pad, Scalar value=0) -> Tensor");
  m.def("pad(Tensor self, SymInt[] pad, str mode=\"constant\", float? value=None) -> Tensor");
  m.def("flip(Tensor self, int[] dims) -> Tensor");
  m.def("roll(Tensor self, SymInt[1] shifts, int[1] dims=[]) -> Tensor");
}

KILN_LIBRARY_IMPL(aten, CPU, m) { kiln::cpu::registerKernels(m); }
KILN_LIBRARY_IMPL(aten, Meta, m) { kiln::cpu::registerKernels(m); }
