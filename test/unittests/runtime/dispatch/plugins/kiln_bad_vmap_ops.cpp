// kiln test plugin — kilnbad::cumsum0(x): the running sum along the sample's
// dim 0, with a deliberately wrong batching rule (it runs the kernel on the
// batched tensor as it is, so the sum runs along the batch) for opcheck to catch;
// and kilnbad::rowsum(x), the sum over the sample's last dim, with no rule (the
// Python tests give it one with kiln.library.register_vmap).
#include "kiln/library.h"

namespace {
using kiln::Tensor;

Tensor cumsum0(const Tensor &x0) {
  if (x0.dtype() != kiln::DType::Float32 && x0.dtype() != kiln::DType::Float64)
    throw kiln::Error("kilnbad::cumsum0: expected a float32 or float64 tensor");
  if (x0.dim() == 0) return x0.clone();
  Tensor x = x0.contiguous();
  Tensor out = Tensor::empty(x.sizes(), x.dtype());
  int64_t rows = x.size(0), inner = rows ? x.numel() / rows : 0;
  auto run = [&](auto tag) {
    using T = decltype(tag);
    const T *in = x.data<T>();
    T *o = out.data<T>();
    for (int64_t j = 0; j < inner; ++j) {
      T acc = 0;
      for (int64_t i = 0; i < rows; ++i) o[i * inner + j] = acc += in[i * inner + j];
    }
  };
  if (x.dtype() == kiln::DType::Float32) run(float{});
  else run(double{});
  return out;
}

Tensor cumsum0Fake(const Tensor &x) { return Tensor::empty(x.sizes(), x.dtype(), x.device()); }

// Wrong: the batch dim is not moved out of the way, so for in_dim 0 the sum
// runs across samples, and for any other in_dim along the wrong dim.
kiln::VmapResult cumsum0WrongVmap(const kiln::VmapInfo &, const kiln::InDims &inDims,
                                  const kiln::Stack &args) {
  return {{kiln::IValue(cumsum0(args.at(0).toTensor()))}, {inDims.at(0)}};
}
Tensor rowsum(const Tensor &x0) {
  if (x0.dtype() != kiln::DType::Float32 || x0.dim() == 0)
    throw kiln::Error("kilnbad::rowsum: expected a float32 tensor of rank 1 or more");
  Tensor x = x0.contiguous();
  std::vector<int64_t> sizes(x.sizes().begin(), x.sizes().end() - 1);
  Tensor out = Tensor::empty(sizes, x.dtype());
  int64_t n = x.size(-1), rows = n ? x.numel() / n : out.numel();
  for (int64_t r = 0; r < rows; ++r) {
    float acc = 0;
    for (int64_t j = 0; j < n; ++j) acc += x.data<float>()[r * n + j];
    out.data<float>()[r] = acc;
  }
  return out;
}

Tensor rowsumFake(const Tensor &x) {
  std::vector<int64_t> sizes(x.sizes().begin(), x.sizes().end() - 1);
  return Tensor::empty(sizes, x.dtype(), x.device());
}
} // namespace

KILN_LIBRARY(kilnbad, m) {
  m.def("cumsum0(Tensor x) -> Tensor");
  m.impl_fake("cumsum0", cumsum0Fake);
  m.register_vmap("cumsum0", cumsum0WrongVmap);
  m.def("rowsum(Tensor x) -> Tensor");
  m.impl_fake("rowsum", rowsumFake);
}

KILN_LIBRARY_IMPL(kilnbad, CPU, m) {
  m.impl("cumsum0", cumsum0);
  m.impl("rowsum", rowsum);
}
