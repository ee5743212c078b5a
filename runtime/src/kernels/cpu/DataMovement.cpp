// kiln runtime — view ops: permute, view, reshape, flatten.using_ints, t,
// transpose.int. They only touch sizes and strides, so one
// CompositeExplicitAutograd kernel serves CPU, CUDA, HIP and Meta alike.
#include "KernelUtils.h"

#include <optional>

namespace kiln::cpu {
namespace {

Tensor restride(const Tensor &t, std::vector<int64_t> sizes, std::vector<int64_t> strides) {
  Tensor r = Tensor::view(t.storage(), t.offset(), std::move(sizes), std::move(strides), t.dtype());
  r.setRequiresGrad(t.requiresGrad());
  return r;
}

std::vector<int64_t> inferSize(std::vector<int64_t> shape, int64_t numel, const char *op) {
  int64_t known = 1, at = -1;
  bool zero = false, overflow = false;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      check(at < 0, op, "only one dimension can be -1");
      at = (int64_t)i;
    } else {
      check(shape[i] >= 0, op, "invalid size " + std::to_string(shape[i]));
      zero |= shape[i] == 0;
      overflow |= __builtin_mul_overflow(known, shape[i], &known);
    }
  }
  // A product past int64 holds more elements than any input (unless a dim is 0).
  if (zero)
    known = 0;
  check(zero || !overflow, op,
        "shape " + shapeToString(shape) + " is invalid for an input of " + std::to_string(numel) +
            " elements (its sizes' product overflows int64)");
  if (at >= 0) {
    check(known != 0 && numel % known == 0, op,
          "shape " + shapeToString(shape) + " is invalid for an input of " + std::to_string(numel) +
              " elements");
    shape[at] = numel / known;
  } else {
    check(known == numel, op,
          "shape " + shapeToString(shape) + " is invalid for an input of " + std::to_string(numel) +
              " elements");
  }
  return shape;
}

/// Strides that let `newSizes` view memory laid out as (sizes, strides), if any:
/// old dims are split into runs that are contiguous with each other, and
/// every run must map onto a run of new dims with the same element count.
std::optional<std::vector<int64_t>> viewStrides(const std::vector<int64_t> &sizes,
                                                const std::vector<int64_t> &strides,
                                                const std::vector<int64_t> &newSizes) {
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  if (numel == 0 || sizes.empty()) return Tensor::contiguousStrides(newSizes);
  std::vector<int64_t> out(newSizes.size());
  int64_t nd = (int64_t)newSizes.size() - 1;
  int64_t base = strides.back(), runNumel = 1, newNumel = 1;
  for (int64_t d = (int64_t)sizes.size() - 1; d >= 0; --d) {
    runNumel *= sizes[d];
    bool runEnds = d == 0 || (sizes[d - 1] != 1 && strides[d - 1] != runNumel * base);
    if (!runEnds) continue;
    while (nd >= 0 && (newNumel < runNumel || newSizes[nd] == 1)) {
      out[nd] = newNumel * base;
      newNumel *= newSizes[nd];
      --nd;
    }
    if (newNumel != runNumel) return std::nullopt;
    if (d > 0) {
      base = strides[d - 1];
      runNumel = 1;
      newNumel = 1;
    }
  }
  if (nd != -1) return std::nullopt;
  return out;
}

Tensor reshape(const Tensor &self, std::vector<int64_t> size) {
  std::vector<int64_t> shape = inferSize(size, self.numel(), "aten::reshape");
  if (auto st = viewStrides(self.sizes(), self.strides(), shape)) return restride(self, shape, *st);
  Tensor c = self.clone();
  return restride(c, shape, Tensor::contiguousStrides(shape));
}

/// view: a true view where the strides allow one. A graph's view node was
/// valid on PyTorch's tensors, whose layouts the eager kernels need not
/// reproduce (an op PyTorch computes into a fresh contiguous tensor may be a
/// strided view here), so where they do not allow one the data is copied, as
/// reshape does; exported graphs are functional, so nothing writes through it.
Tensor view(const Tensor &self, std::vector<int64_t> size) {
  std::vector<int64_t> shape = inferSize(size, self.numel(), "aten::view");
  if (auto st = viewStrides(self.sizes(), self.strides(), shape)) return restride(self, shape, *st);
  return reshape(self, shape);
}

Tensor permute(const Tensor &self, std::vector<int64_t> dims) {
  const char *op = "aten::permute";
  int64_t r = self.dim();
  check((int64_t)dims.size() == r, op,
        "got " + std::to_string(dims.size()) + " dims for a tensor of rank " + std::to_string(r));
  std::vector<bool> seen(r, false);
  std::vector<int64_t> sz(r), st(r);
  for (int64_t i = 0; i < r; ++i) {
    int64_t d = wrapDim(dims[i], r, op);
    check(!seen[d], op, "dim " + std::to_string(d) + " appears twice");
    seen[d] = true;
    sz[i] = self.size(d);
    st[i] = self.stride(d);
  }
  return restride(self, sz, st);
}

Tensor transpose(const Tensor &self, int64_t d0, int64_t d1) {
  int64_t r = self.dim();
  if (r == 0) return restride(self, {}, {});
  d0 = wrapDim(d0, r, "aten::transpose.int");
  d1 = wrapDim(d1, r, "aten::transpose.int");
  std::vector<int64_t> sz = self.sizes(), st = self.strides();
  std::swap(sz[d0], sz[d1]);
  std::swap(st[d0], st[d1]);
  return restride(self, sz, st);
}

Tensor t(const Tensor &self) {
  check(self.dim() <= 2, "aten::t", "expects a tensor with at most 2 dims, got " + self.shapeString());
  return self.dim() < 2 ? restride(self, self.sizes(), self.strides()) : transpose(self, 0, 1);
}

Tensor flatten(const Tensor &self, int64_t start, int64_t end) {
  const char *op = "aten::flatten.using_ints";
  if (self.dim() == 0) return reshape(self, {1});
  start = wrapDim(start, self.dim(), op);
  end = wrapDim(end, self.dim(), op);
  check(start <= end, op, "start_dim cannot come after end_dim");
  if (start == end) return restride(self, self.sizes(), self.strides());
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().begin() + start);
  int64_t n = 1;
  for (int64_t d = start; d <= end; ++d) n *= self.size(d);
  shape.push_back(n);
  shape.insert(shape.end(), self.sizes().begin() + end + 1, self.sizes().end());
  return reshape(self, shape);
}

} // namespace
} // namespace kiln::cpu

KILN_LIBRARY_IMPL(aten, CompositeExplicitAutograd, m) {
  using namespace kiln::cpu;
  m.impl("view", view);
  m.impl("reshape", reshape);
  m.impl("permute", permute);
  m.impl("transpose.int", transpose);
  m.impl("t", t);
  m.impl("flatten.using_ints", flatten);
}
