// kiln runtime — backward formulas of the sorting and selecting ops (sort, topk,
// cummax/cummin, kthvalue, median/nanmedian/mode over a dim): the
// values' gradient scattered back to the positions the indices name, zeros
// elsewhere (compiled programs reach them through "<op>#backward" calls).
#include "kiln/library.h"

#include <cstring>

namespace kiln {
namespace {

using Grads = std::vector<Tensor>;
using Ctx = AutogradContext;

template <typename T>
void scatterRows(const Tensor &g, const Tensor &idx, Tensor &out, int64_t outer, int64_t k, int64_t n, int64_t inner) {
  const T *gv = g.data<T>();
  const int64_t *iv = idx.data<int64_t>();
  T *ov = out.data<T>();
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < k; ++j)
      for (int64_t i = 0; i < inner; ++i) {
        int64_t at = iv[(o * k + j) * inner + i];
        if (at < 0 || at >= n) throw Error("kiln: sort backward: index " + std::to_string(at) + " out of range");
        ov[(o * n + at) * inner + i] += gv[(o * k + j) * inner + i];
      }
}

/// d self from d values: g scattered along `dim` at `indices` into zeros shaped like `self`.
Tensor scatterBack(const Tensor &self, int64_t dim, const Tensor &indices, const Tensor &grad) {
  if (self.dim() == 0) return grad.contiguous().clone();
  if (dim < 0) dim += self.dim();
  Tensor g = grad.contiguous(), idx = indices.contiguous();
  Tensor out = Tensor::zeros(self.sizes(), g.dtype());
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= self.size(d);
  for (int64_t d = dim + 1; d < self.dim(); ++d) inner *= self.size(d);
  int64_t n = self.size(dim), k = g.size(dim);
  if (g.dtype() == DType::Float32) scatterRows<float>(g, idx, out, outer, k, n, inner);
  else if (g.dtype() == DType::Float64) scatterRows<double>(g, idx, out, outer, k, n, inner);
  else throw Error(std::string("kiln: the gradient of a sort of ") + dtypeName(g.dtype()) +
                   " is not supported (float32 and float64 are)");
  return out;
}

/// One gradient for `self` (the indices output has none).
Grads values(const Ctx &c, const Grads &g, int64_t dim) {
  if (g.empty() || !g[0].defined()) return {Tensor()};
  return {scatterBack(c.input(0), dim, c.output(1), g[0])};
}

/// The reducing selections (kthvalue, median.dim, mode, ...): like values(),
/// with the reduced dim put back first when keepdim is false.
Grads reducedValues(const Ctx &c, const Grads &g, int64_t dim, bool keepdim) {
  if (g.empty() || !g[0].defined()) return {Tensor()};
  const Tensor &self = c.input(0);
  if (keepdim || self.dim() == 0) return {scatterBack(self, dim, c.output(1), g[0])};
  if (dim < 0) dim += self.dim();
  std::vector<int64_t> kept = self.sizes();
  kept[dim] = 1;
  Tensor gk = call<Tensor>("aten::reshape", g[0].contiguous(), kept);
  Tensor ik = call<Tensor>("aten::reshape", c.output(1).contiguous(), kept);
  return {scatterBack(self, dim, ik, gk)};
}

} // namespace
} // namespace kiln

KILN_LIBRARY_FRAGMENT(aten, m) {
  using namespace kiln;
  // sort(self, dim=-1, descending=False), sort.stable(self, *, stable, dim=-1, descending=False)
  m.register_autograd("sort", [](const Ctx &c, const Grads &g) { return values(c, g, c.inputs[1].toInt()); });
  m.register_autograd("sort.stable", [](const Ctx &c, const Grads &g) { return values(c, g, c.inputs[2].toInt()); });
  // topk(self, k, dim=-1, largest=True, sorted=True)
  m.register_autograd("topk", [](const Ctx &c, const Grads &g) { return values(c, g, c.inputs[2].toInt()); });
  // cummax/cummin(self, dim): every position's value came from the index beside it.
  m.register_autograd("cummax", [](const Ctx &c, const Grads &g) { return values(c, g, c.inputs[1].toInt()); });
  m.register_autograd("cummin", [](const Ctx &c, const Grads &g) { return values(c, g, c.inputs[1].toInt()); });
  // kthvalue(self, k, dim=-1, keepdim=False), median.dim / nanmedian.dim / mode(self, dim, keepdim)
  m.register_autograd("kthvalue", [](const Ctx &c, const Grads &g) {
    return reducedValues(c, g, c.inputs[2].toInt(), c.inputs[3].toBool());
  });
  for (const char *op : {"median.dim", "nanmedian.dim", "mode"})
    m.register_autograd(op, [](const Ctx &c, const Grads &g) {
      return reducedValues(c, g, c.inputs[1].toInt(), c.inputs[2].toBool());
    });
}
