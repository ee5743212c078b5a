// kiln runtime — eager CPU (and Meta) batched matrix products: bmm, baddbmm and
// matmul (ATen's broadcasting rules for 1-D and batched operands), on the shared GEMM; floats and integers;
// mv, dot and _trilinear through them.
#include "TensorIter.h"

#include <algorithm>

namespace kiln::cpu {
namespace {

/// out[b] = alpha * a[b] @ c[b] + beta * out[b] over 3-D a [B,M,K], c [B,K,N].
void batchedGemm(const Tensor &a, const Tensor &c, Tensor &out, double alpha, double beta, const char *op) {
  dispatchNumeric(out.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    int64_t B = a.size(0), M = a.size(1), K = a.size(2), N = c.size(2);
    const T *pa = a.data<T>(), *pc = c.data<T>();
    T *po = out.data<T>();
    for (int64_t b = 0; b < B; ++b)
      gemm<T>(M, N, K, (T)alpha, pa + b * a.stride(0), a.stride(1), a.stride(2), pc + b * c.stride(0), c.stride(1),
              c.stride(2), (T)beta, po + b * M * N);
  });
}

void checkBmm(const Tensor &a, const Tensor &b, const char *op) {
  check(a.dim() == 3 && b.dim() == 3, op, "expects 3-D tensors, got " + a.shapeString() + " and " + b.shapeString());
  check(a.size(0) == b.size(0) && a.size(2) == b.size(1), op,
        "shapes " + a.shapeString() + " and " + b.shapeString() + " cannot be multiplied");
  check(a.dtype() == b.dtype(), op,
        std::string("expected both operands to have the same dtype, got ") + dtypeTorchName(a.dtype()) + " and " +
            dtypeTorchName(b.dtype()));
}

Tensor bmm(const Tensor &a, const Tensor &b) {
  const char *op = "aten::bmm";
  checkBmm(a, b, op);
  Tensor out = Tensor::empty({a.size(0), a.size(1), b.size(2)}, a.dtype(), isMeta(a) ? a.device() : b.device());
  if (isMeta(out)) return out;
  batchedGemm(a, b, out, 1.0, 0.0, op);
  return out;
}

Tensor baddbmm(const Tensor &self, const Tensor &a, const Tensor &b, double beta, double alpha) {
  const char *op = "aten::baddbmm";
  checkBmm(a, b, op);
  Tensor out = Tensor::empty({a.size(0), a.size(1), b.size(2)}, a.dtype(), isMeta(a) ? a.device() : b.device());
  if (isMeta(out) || isMeta(self)) return out;
  // beta == 0 ignores self entirely (NaNs included), as ATen does.
  if (beta != 0) copyInto(out, self, op);
  batchedGemm(a, b, out, alpha, beta, op);
  return out;
}

Tensor matmul(const Tensor &a, const Tensor &b) {
  const char *op = "aten::matmul";
  check(a.dim() >= 1 && b.dim() >= 1, op, "both arguments need at least 1 dimension, got " + a.shapeString() +
                                              " and " + b.shapeString());
  // Promote 1-D operands to matrices, broadcast the batch dims, multiply, drop the added dims.
  Tensor x = a.dim() == 1 ? a.reshape({1, a.size(0)}) : a;
  Tensor y = b.dim() == 1 ? b.reshape({b.size(0), 1}) : b;
  int64_t M = x.size(-2), K = x.size(-1), K2 = y.size(-2), N = y.size(-1);
  check(K == K2, op, "shapes " + a.shapeString() + " and " + b.shapeString() + " cannot be multiplied");
  std::vector<int64_t> bx(x.sizes().begin(), x.sizes().end() - 2), by(y.sizes().begin(), y.sizes().end() - 2);
  std::vector<int64_t> batch = broadcastShapes(bx, by, op);
  int64_t B = 1;
  for (int64_t s : batch) B *= s;
  std::vector<int64_t> shape = batch;
  if (a.dim() > 1) shape.push_back(M);
  if (b.dim() > 1) shape.push_back(N);
  Tensor out = Tensor::empty(shape, a.dtype(), isMeta(a) ? a.device() : b.device());
  if (isMeta(out) || isMeta(b)) return out;
  auto flat = [&](const Tensor &t, int64_t r, int64_t c) {
    std::vector<int64_t> full = batch;
    full.push_back(r);
    full.push_back(c);
    Tensor e = Tensor::empty(full, t.dtype());
    copyInto(e, t, op);
    return e.reshape({B, r, c});
  };
  check(a.dtype() == b.dtype(), op,
        std::string("expected both operands to have the same dtype, got ") + dtypeTorchName(a.dtype()) + " and " +
            dtypeTorchName(b.dtype()));
  Tensor r = Tensor::empty({B, M, N}, a.dtype());
  batchedGemm(flat(x, M, K), flat(y, K, N), r, 1.0, 0.0, op);
  copyInto(out, r.reshape(shape), op);
  return out;
}

/// mv: a [n, k] matrix times a [k] vector, matmul's 2-D by 1-D case.
Tensor mv(const Tensor &self, const Tensor &vec) {
  const char *op = "aten::mv";
  check(self.dim() == 2 && vec.dim() == 1, op,
        "expected a matrix and a vector, got " + self.shapeString() + " and " + vec.shapeString());
  return matmul(self, vec);
}
/// dot: the inner product of two vectors of one dtype, a 0-d tensor.
Tensor dot(const Tensor &self, const Tensor &other) {
  const char *op = "aten::dot";
  check(self.dim() == 1 && other.dim() == 1 && self.size(0) == other.size(0), op,
        "expected two vectors of one size, got " + self.shapeString() + " and " + other.shapeString());
  return matmul(self, other);
}

/// _trilinear (nn.Bilinear in the Core ATen IR): each input gets size-1 dims at
/// its expand positions (ascending), the three are multiplied with broadcasting
/// and sumdim is summed away; unroll_dim only picks ATen's loop order.
Tensor trilinear(const Tensor &i1, const Tensor &i2, const Tensor &i3, std::vector<int64_t> e1,
                 std::vector<int64_t> e2, std::vector<int64_t> e3, std::vector<int64_t> sumdim, int64_t unrollDim) {
  const char *op = "aten::_trilinear";
  (void)unrollDim;
  auto expand = [&](Tensor t, std::vector<int64_t> dims) {
    std::sort(dims.begin(), dims.end());
    for (int64_t d : dims) {
      check(d >= 0 && d <= t.dim(), op, "expand dim " + std::to_string(d) + " is outside the result's rank");
      t = call<Tensor>("aten::unsqueeze", t, d);
    }
    return t;
  };
  Tensor a = expand(i1, e1), b = expand(i2, e2), c = expand(i3, e3);
  check(a.dim() == b.dim() && b.dim() == c.dim(), op,
        "the expanded inputs differ in rank: " + a.shapeString() + ", " + b.shapeString() + ", " + c.shapeString());
  Tensor p = call<Tensor>("aten::mul.Tensor", call<Tensor>("aten::mul.Tensor", a, b), c);
  if (sumdim.empty()) return p;
  return call<Tensor>("aten::sum.dim_IntList", p, sumdim, false);
}

KILN_LIBRARY_IMPL_CPU_AND_META(aten, m) {
  m.impl("bmm", bmm);
  m.impl("_trilinear", trilinear);
  m.impl("mv", mv);
  m.impl("dot", dot);
  m.impl("baddbmm", baddbmm);
  m.impl("matmul", matmul);
}

} // namespace
} // namespace kiln::cpu

KILN_LIBRARY_FRAGMENT(aten, m) {
  m.def("bmm(Tensor self, Tensor mat2) -> Tensor");
  m.def("baddbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor");
  m.def("matmul(Tensor self, Tensor other) -> Tensor");
  m.def("mv(Tensor self, Tensor vec) -> Tensor");
  m.def("dot(Tensor self, Tensor tensor) -> Tensor");
  m.def("_trilinear(Tensor i1, Tensor i2, Tensor i3, int[] expand1, int[] expand2, int[] expand3, int[] sumdim, "
        "int unroll_dim=1) -> Tensor");
}
