// kiln runtime — view ops as true views (sizes/strides over the same storage):
// unsqueeze, squeeze, expand, slice, select, narrow, alias, detach, as_strided,
// unflatten, split/split_with_sizes/chunk, unfold. One CompositeExplicitAutograd kernel
// serves CPU, CUDA, HIP and Meta.
#include "KernelUtils.h"
#include "kiln/library.h"

#include <algorithm>

namespace kiln::cpu {
namespace {

Tensor restride(const Tensor &t, std::vector<int64_t> sizes, std::vector<int64_t> strides,
                int64_t offset) {
  Tensor r = Tensor::view(t.storage(), offset, std::move(sizes), std::move(strides), t.dtype());
  r.setRequiresGrad(t.requiresGrad());
  return r;
}
Tensor restride(const Tensor &t, std::vector<int64_t> sizes, std::vector<int64_t> strides) {
  return restride(t, std::move(sizes), std::move(strides), t.offset());
}

Tensor unsqueeze(const Tensor &self, int64_t dim) {
  int64_t d = wrapDim(dim, self.dim() + 1, "aten::unsqueeze");
  std::vector<int64_t> sz = self.sizes(), st = self.strides();
  int64_t s = d < self.dim() ? sz[d] * st[d] : 1;
  sz.insert(sz.begin() + d, 1);
  st.insert(st.begin() + d, s);
  return restride(self, sz, st);
}

Tensor squeezeDims(const Tensor &self, std::vector<int64_t> dims) {
  std::vector<bool> drop(self.dim(), false);
  for (int64_t d : dims) {
    if (self.dim() == 0) { wrapDim(d, 0, "aten::squeeze.dims"); continue; }
    int64_t w = wrapDim(d, self.dim(), "aten::squeeze.dims");
    drop[w] = self.size(w) == 1; // ATen leaves a dim that is not 1 as it is
  }
  std::vector<int64_t> sz, st;
  for (int64_t d = 0; d < self.dim(); ++d)
    if (!drop[d]) { sz.push_back(self.size(d)); st.push_back(self.stride(d)); }
  return restride(self, sz, st);
}
Tensor squeezeDim(const Tensor &self, int64_t dim) { return squeezeDims(self, {dim}); }
Tensor squeezeAll(const Tensor &self) {
  std::vector<int64_t> all;
  for (int64_t d = 0; d < self.dim(); ++d) all.push_back(d);
  return squeezeDims(self, all);
}

Tensor expand(const Tensor &self, std::vector<int64_t> size, bool) {
  const char *op = "aten::expand";
  check((int64_t)size.size() >= self.dim(), op,
        "the number of sizes (" + std::to_string(size.size()) + ") must be at least the tensor's rank " +
            std::to_string(self.dim()));
  size_t lead = size.size() - self.dim();
  std::vector<int64_t> sz(size.size()), st(size.size());
  for (size_t i = 0; i < size.size(); ++i) {
    if (i < lead) {
      check(size[i] >= 0, op, "the new leading size " + std::to_string(size[i]) + " cannot be -1");
      sz[i] = size[i];
      st[i] = 0;
      continue;
    }
    int64_t cur = self.size(i - lead), want = size[i] == -1 ? cur : size[i];
    check(cur == want || cur == 1, op,
          "the size of " + self.shapeString() + " at dim " + std::to_string(i - lead) +
              " must match " + shapeToString(size) + " or be 1");
    sz[i] = want;
    st[i] = cur == want ? self.stride(i - lead) : 0;
  }
  return restride(self, sz, st);
}

Tensor slice(const Tensor &self, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end,
             int64_t step) {
  const char *op = "aten::slice.Tensor";
  check(self.dim() > 0, op, "cannot slice a 0-dim tensor");
  check(step > 0, op, "slice step must be positive, got " + std::to_string(step));
  int64_t d = wrapDim(dim, self.dim(), op), n = self.size(d);
  int64_t s = start.value_or(0), e = end.value_or(n);
  if (s < 0) s += n;
  if (e < 0) e += n;
  s = std::clamp<int64_t>(s, 0, n);
  e = std::clamp<int64_t>(e, s, n);
  std::vector<int64_t> sz = self.sizes(), st = self.strides();
  sz[d] = (e - s + step - 1) / step;
  st[d] *= step;
  return restride(self, sz, st, self.offset() + s * self.stride(d));
}

Tensor narrow(const Tensor &self, int64_t dim, int64_t start, int64_t length) {
  const char *op = "aten::narrow";
  check(self.dim() > 0, op, "cannot narrow a 0-dim tensor");
  int64_t d = wrapDim(dim, self.dim(), op), n = self.size(d);
  if (start < 0) start += n;
  check(start >= 0 && length >= 0 && start + length <= n, op,
        "start " + std::to_string(start) + " + length " + std::to_string(length) +
            " exceeds dimension size " + std::to_string(n));
  return slice(self, d, start, start + length, 1);
}

Tensor selectInt(const Tensor &self, int64_t dim, int64_t index) {
  const char *op = "aten::select.int";
  check(self.dim() > 0, op, "cannot select on a 0-dim tensor");
  int64_t d = wrapDim(dim, self.dim(), op), n = self.size(d);
  check(index >= -n && index < n, op,
        "index " + std::to_string(index) + " is out of range for dimension " + std::to_string(d) +
            " of size " + std::to_string(n));
  if (index < 0) index += n;
  std::vector<int64_t> sz = self.sizes(), st = self.strides();
  int64_t off = self.offset() + index * st[d];
  sz.erase(sz.begin() + d);
  st.erase(st.begin() + d);
  return restride(self, sz, st, off);
}

/// unfold(dim, size, step): every window of `size` elements along `dim`,
/// `step` apart, as a new last dim (a 0-dim tensor is one window of 1).
Tensor unfold(const Tensor &self, int64_t dim, int64_t size, int64_t step) {
  const char *op = "aten::unfold";
  int64_t d = wrapDim(dim, std::max<int64_t>(self.dim(), 1), op);
  int64_t n = self.dim() ? self.size(d) : 1, stride = self.dim() ? self.stride(d) : 1;
  check(size >= 0 && size <= n, op,
        "size " + std::to_string(size) + " exceeds the size of dimension " + std::to_string(d) + " (" +
            std::to_string(n) + ")");
  check(step > 0, op, "step must be positive, got " + std::to_string(step));
  std::vector<int64_t> sz = self.sizes(), st = self.strides();
  if (self.dim()) {
    sz[d] = (n - size) / step + 1;
    st[d] = stride * step;
  }
  sz.push_back(size);
  st.push_back(stride);
  return restride(self, sz, st);
}

Tensor alias(const Tensor &self) { return restride(self, self.sizes(), self.strides()); }
Tensor detach(const Tensor &self) {
  Tensor r = alias(self);
  r.setRequiresGrad(false);
  return r;
}
/// unsqueeze_ / squeeze_.dim: ATen changes self's sizes in place; here the
/// result is the new view, which the eager interpreter binds to self's name too.
Tensor unsqueezeInplace(Tensor self, int64_t dim) { return unsqueeze(self, dim); }
Tensor squeezeDimInplace(Tensor self, int64_t dim) { return squeezeDim(self, dim); }
Tensor detachInplace(Tensor self) {
  self.setRequiresGrad(false);
  return self;
}

Tensor asStrided(const Tensor &self, std::vector<int64_t> size, std::vector<int64_t> stride,
                 std::optional<int64_t> offset) {
  const char *op = "aten::as_strided";
  check(size.size() == stride.size(), op, "size and stride differ in length");
  int64_t off = offset.value_or(self.offset()), last = off;
  check(off >= 0, op, "negative storage offset");
  bool empty = false;
  for (size_t i = 0; i < size.size(); ++i) {
    check(size[i] >= 0 && stride[i] >= 0, op, "negative size or stride");
    empty |= size[i] == 0;
    last += (size[i] - 1) * stride[i];
  }
  if (!isMeta(self) && !empty && self.storage())
    check((last + 1) * (int64_t)dtypeSize(self.dtype()) <= (int64_t)self.storage()->nbytes(), op,
          "size " + shapeToString(size) + " with stride " + shapeToString(stride) + " and offset " +
              std::to_string(off) + " reads past the end of the storage");
  return restride(self, size, stride, off);
}

Tensor unflatten(const Tensor &self, int64_t dim, std::vector<int64_t> sizes) {
  const char *op = "aten::unflatten.int";
  check(self.dim() > 0, op, "a 0-d tensor has no dim to unflatten");
  int64_t d = wrapDim(dim, self.dim(), op), n = self.size(d), known = 1, at = -1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1) { check(at < 0, op, "only one size can be -1"); at = (int64_t)i; }
    else
      check(sizes[i] >= 0 && !__builtin_mul_overflow(known, sizes[i], &known), op,
            "sizes " + shapeToString(sizes) + " are negative or overflow int64");
  }
  if (at >= 0) {
    check(known > 0 && n % known == 0, op, "sizes " + shapeToString(sizes) + " do not divide " + std::to_string(n));
    sizes[at] = n / known;
    known *= sizes[at];
  }
  check(known == n, op,
        "sizes " + shapeToString(sizes) + " do not multiply to dimension " + std::to_string(d) + "'s size " +
            std::to_string(n));
  std::vector<int64_t> sz = self.sizes(), st = self.strides();
  std::vector<int64_t> inner(sizes.size());
  int64_t s = st[d];
  for (size_t i = sizes.size(); i-- > 0;) { inner[i] = s; s *= sizes[i]; }
  sz.erase(sz.begin() + d);
  st.erase(st.begin() + d);
  sz.insert(sz.begin() + d, sizes.begin(), sizes.end());
  st.insert(st.begin() + d, inner.begin(), inner.end());
  return restride(self, sz, st);
}

std::vector<Tensor> splitWithSizes(const Tensor &self, std::vector<int64_t> sizes, int64_t dim) {
  const char *op = "aten::split_with_sizes";
  int64_t d = wrapDim(dim, self.dim(), op), total = 0;
  for (int64_t s : sizes) { check(s >= 0, op, "negative split size"); total += s; }
  check(total == self.size(d), op,
        "split sizes " + shapeToString(sizes) + " must sum to dimension " + std::to_string(d) + "'s size " +
            std::to_string(self.size(d)));
  std::vector<Tensor> out;
  int64_t at = 0;
  for (int64_t s : sizes) { out.push_back(slice(self, d, at, at + s, 1)); at += s; }
  return out;
}

std::vector<Tensor> split(const Tensor &self, int64_t size, int64_t dim) {
  const char *op = "aten::split.Tensor";
  int64_t d = wrapDim(dim, self.dim(), op), n = self.size(d);
  check(size > 0 || (size == 0 && n == 0), op, "split_size must be positive, got " + std::to_string(size));
  std::vector<int64_t> sizes;
  if (n == 0) sizes.push_back(0);
  for (int64_t at = 0; at < n; at += size) sizes.push_back(std::min(size, n - at));
  return splitWithSizes(self, sizes, d);
}

std::vector<Tensor> chunk(const Tensor &self, int64_t chunks, int64_t dim) {
  const char *op = "aten::chunk";
  check(chunks > 0, op, "chunks must be positive, got " + std::to_string(chunks));
  int64_t d = wrapDim(dim, self.dim(), op), n = self.size(d);
  int64_t each = (n + chunks - 1) / chunks;
  if (each == 0) { // ATen: every chunk empty when the dim is 0
    std::vector<Tensor> out(chunks, slice(self, d, 0, 0, 1));
    return out;
  }
  return split(self, each, d);
}

/// reshape_as: reshape to `other`'s sizes (a view where the strides allow).
Tensor reshapeAs(const Tensor &self, const Tensor &other) {
  return call<Tensor>("aten::reshape", self, other.sizes());
}

std::vector<Tensor> unbind(const Tensor &self, int64_t dim) {
  const char *op = "aten::unbind.int";
  check(self.dim() > 0, op, "dimension specified as 0 but tensor has no dimensions");
  int64_t d = wrapDim(dim, self.dim(), op);
  std::vector<Tensor> out;
  for (int64_t i = 0; i < self.size(d); ++i)
    out.push_back(selectInt(self, d, i));
  return out;
}

} // namespace
} // namespace kiln::cpu

KILN_LIBRARY_FRAGMENT(aten, m) {
  m.def("unsqueeze(Tensor(a) self, int dim) -> Tensor(a)");
  m.def("squeeze(Tensor(a) self) -> Tensor(a)");
  m.def("squeeze.dim(Tensor(a) self, int dim) -> Tensor(a)");
  m.def("squeeze.dims(Tensor(a) self, int[] dim) -> Tensor(a)");
  m.def("expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)");
  m.def("slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) "
        "-> Tensor(a)");
  m.def("narrow(Tensor(a) self, int dim, SymInt start, SymInt length) -> Tensor(a)");
  m.def("select.int(Tensor(a) self, int dim, SymInt index) -> Tensor(a)");
  m.def("alias(Tensor(a) self) -> Tensor(a)");
  m.def("unfold(Tensor(a) self, int dimension, int size, int step) -> Tensor(a)");
  m.def("detach(Tensor(a) self) -> Tensor(a)");
  m.def("detach_(Tensor(a!) self) -> Tensor(a!)");
  m.def("unsqueeze_(Tensor(a!) self, int dim) -> Tensor(a!)");
  m.def("squeeze_.dim(Tensor(a!) self, int dim) -> Tensor(a!)");
  m.def("as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) "
        "-> Tensor(a)");
  m.def("unflatten.int(Tensor(a) self, int dim, SymInt[] sizes) -> Tensor(a)");
  m.def("split_with_sizes(Tensor(a -> *) self, SymInt[] split_sizes, int dim=0) -> Tensor(a)[]");
  m.def("split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]");
  m.def("chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]");
  m.def("unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]");
  m.def("reshape_as(Tensor(a) self, Tensor other) -> Tensor(a)");
}

KILN_LIBRARY_IMPL(aten, CompositeExplicitAutograd, m) {
  using namespace kiln::cpu;
  m.impl("unsqueeze", unsqueeze);
  m.impl("squeeze", squeezeAll);
  m.impl("squeeze.dim", squeezeDim);
  m.impl("squeeze.dims", squeezeDims);
  m.impl("expand", expand);
  m.impl("slice.Tensor", slice);
  m.impl("narrow", narrow);
  m.impl("select.int", selectInt);
  m.impl("alias", alias);
  m.impl("unfold", unfold);
  m.impl("detach", detach);
  m.impl("detach_", detachInplace);
  m.impl("unsqueeze_", unsqueezeInplace);
  m.impl("squeeze_.dim", squeezeDimInplace);
  m.impl("as_strided", asStrided);
  m.impl("unflatten.int", unflatten);
  m.impl("split_with_sizes", splitWithSizes);
  m.impl("split.Tensor", split);
  m.impl("chunk", chunk);
  m.impl("unbind.int", unbind);
  m.impl("reshape_as", reshapeAs);
}
