// kiln runtime — eager CPU (and Meta) kernels that walk one dim of any dtype:
// the scans cumsum/cumprod and the logical reductions any/all (bool results).
#include "TensorIter.h"

namespace kiln::cpu {
namespace {

/// Calls f(inOff, outOff) for each line along `d` (offsets of the line's first element).
template <typename F> void forEachLine(const Tensor &in, const Tensor &out, int64_t d, bool outKeepsDim, F f) {
  std::vector<int64_t> shape = in.sizes(), si = in.strides(), so = out.strides();
  shape[d] = 1;
  if (!outKeepsDim) so.insert(so.begin() + d, 0);
  std::array<std::vector<int64_t>, 2> st{si, so};
  forEachIndex<2>(shape, st, [&](const std::array<int64_t, 2> &o) { f(o[0], o[1]); });
}

Tensor scan(const Tensor &self, int64_t dim, std::optional<DType> dtype, bool prod, const char *op) {
  int64_t d = self.dim() == 0 ? 0 : wrapDim(dim, self.dim(), op);
  // ATen: integer and bool inputs accumulate in int64 unless a dtype is given.
  DType dt = dtype.value_or(isFloatingPoint(self.dtype()) ? self.dtype() : DType::Int64);
  Tensor out = Tensor::empty(self.sizes(), dt, self.device());
  if (isMeta(out)) return out;
  if (self.dim() == 0) { copyInto(out, self, op); return out; }
  int64_t n = self.size(d), is = self.stride(d), os = out.stride(d);
  size_t ie = dtypeSize(self.dtype()), oe = dtypeSize(dt);
  const char *pi = elemPtr(self, 0);
  char *po = elemPtr(out, 0);
  forEachLine(self, out, d, true, [&](int64_t io, int64_t oo) {
    double acc = prod ? 1 : 0;
    for (int64_t k = 0; k < n; ++k) {
      double v = roundTo(dt, loadDouble(pi + (io + k * is) * ie, self.dtype()));
      acc = roundTo(dt, prod ? acc * v : acc + v);
      storeDouble(po + (oo + k * os) * oe, dt, acc);
    }
  });
  return out;
}
Tensor cumsum(const Tensor &self, int64_t dim, std::optional<DType> dt) { return scan(self, dim, dt, false, "aten::cumsum"); }
Tensor cumprod(const Tensor &self, int64_t dim, std::optional<DType> dt) { return scan(self, dim, dt, true, "aten::cumprod"); }

/// any/all over the dims `dims` (all dims when empty); uint8 inputs give uint8 as in ATen.
Tensor logicalReduce(const Tensor &self, std::vector<int64_t> dims, bool keepdim, bool isAll, const char *op) {
  std::vector<bool> red(self.dim(), dims.empty());
  for (int64_t x : dims) red[wrapDim(x, self.dim(), op)] = true;
  std::vector<int64_t> outShape, keepShape;
  for (int64_t d = 0; d < self.dim(); ++d) {
    keepShape.push_back(red[d] ? 1 : self.size(d));
    if (!red[d] || keepdim) outShape.push_back(keepShape.back());
  }
  DType dt = self.dtype() == DType::UInt8 ? DType::UInt8 : DType::Bool;
  Tensor out = Tensor::empty(outShape, dt, self.device());
  if (isMeta(out)) return out;
  Tensor acc = Tensor::empty(keepShape, dt);
  Tensor init = Tensor::empty({}, dt);
  storeDouble(elemPtr(init, 0), dt, isAll ? 1 : 0);
  copyInto(acc, init, op);
  std::array<std::vector<int64_t>, 2> st{self.strides(), broadcastStrides(acc, self.sizes())};
  const char *pi = elemPtr(self, 0);
  char *pa = elemPtr(acc, 0);
  size_t ie = dtypeSize(self.dtype());
  forEachIndex<2>(self.sizes(), st, [&](const std::array<int64_t, 2> &o) {
    bool v = loadDouble(pi + o[0] * ie, self.dtype()) != 0;
    if (isAll ? !v : v) pa[o[1]] = isAll ? 0 : 1;
  });
  copyInto(out, acc.reshape(outShape), op);
  return out;
}
Tensor anyDim(const Tensor &self, int64_t dim, bool keepdim) { return logicalReduce(self, {dim}, keepdim, false, "aten::any.dim"); }
Tensor anyDims(const Tensor &self, std::optional<std::vector<int64_t>> dims, bool keepdim) {
  return logicalReduce(self, dims.value_or(std::vector<int64_t>{}), keepdim, false, "aten::any.dims");
}
Tensor anyAll(const Tensor &self) { return logicalReduce(self, {}, false, false, "aten::any"); }
Tensor allDim(const Tensor &self, int64_t dim, bool keepdim) { return logicalReduce(self, {dim}, keepdim, true, "aten::all.dim"); }
Tensor allAll(const Tensor &self) { return logicalReduce(self, {}, false, true, "aten::all"); }

KILN_LIBRARY_IMPL_CPU_AND_META(aten, m) {
  m.impl("cumsum", cumsum);
  m.impl("cumprod", cumprod);
  m.impl("any.dim", anyDim);
  m.impl("any.dims", anyDims);
  m.impl("any", anyAll);
  m.impl("all.dim", allDim);
  m.impl("all", allAll);
}

} // namespace
} // namespace kiln::cpu

KILN_LIBRARY_FRAGMENT(aten, m) {
  m.def("cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor");
  m.def("cumprod(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor");
  m.def("any.dim(Tensor self, int dim, bool keepdim=False) -> Tensor");
  m.def("any.dims(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor");
  m.def("any(Tensor self) -> Tensor");
  m.def("all.dim(Tensor self, int dim, bool keepdim=False) -> Tensor");
  m.def("all(Tensor self) -> Tensor");
}
