// kiln runtime — eager CPU (and Meta) kernels: mm, addmm, linear (floats and integers, which wrap).
#include "KernelUtils.h"

namespace kiln::cpu {
namespace {

void checkMatrix(const Tensor &t, const char *op, const char *what) {
  check(t.dim() == 2, op, std::string(what) + " must be a matrix, got shape " + t.shapeString());
}

/// out (contiguous M x N) = beta * init + alpha * a @ b; init broadcast to [M, N] or undefined.
Tensor matmulInto(const Tensor &a, const Tensor &b, const Tensor &init, double beta, double alpha,
                  const char *op) {
  int64_t M = a.size(0), K = a.size(1), N = b.size(1);
  check(b.size(0) == K, op,
        "shapes " + a.shapeString() + " and " + b.shapeString() + " cannot be multiplied");
  check(a.dtype() == b.dtype(), op,
        std::string("expected both matrices to have the same dtype, got ") + dtypeName(a.dtype()) +
            " and " + dtypeName(b.dtype()));
  Tensor out = Tensor::empty({M, N}, a.dtype(), a.device());
  if (isMeta(a) || isMeta(b)) return out;
  bool haveInit = init.defined() && beta != 0;
  if (haveInit) {
    check(init.dtype() == a.dtype(), op, "self must have the matrices' dtype");
    broadcastShapes(init.sizes(), {M, N}, op);
    check(init.dim() <= 2 && (init.dim() < 1 || init.size(-1) == N || init.size(-1) == 1) &&
              (init.dim() < 2 || init.size(0) == M || init.size(0) == 1),
          op, "self of shape " + init.shapeString() + " does not broadcast to [" +
                  std::to_string(M) + ", " + std::to_string(N) + "]");
  }
  dispatchNumeric(a.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    T *o = out.data<T>();
    if (haveInit) {
      std::vector<int64_t> s = broadcastStrides(init, {M, N});
      const T *p = init.data<T>();
      for (int64_t i = 0; i < M; ++i)
        for (int64_t j = 0; j < N; ++j) o[i * N + j] = p[i * s[0] + j * s[1]];
    }
    gemm<T>(M, N, K, (T)alpha, a.data<T>(), a.stride(0), a.stride(1), b.data<T>(), b.stride(0),
            b.stride(1), haveInit ? (T)beta : T(0), o);
  });
  return out;
}

Tensor mm(const Tensor &self, const Tensor &mat2) {
  checkMatrix(self, "aten::mm", "self");
  checkMatrix(mat2, "aten::mm", "mat2");
  return matmulInto(self, mat2, Tensor(), 0, 1, "aten::mm");
}

Tensor addmm(const Tensor &self, const Tensor &mat1, const Tensor &mat2, double beta, double alpha) {
  checkMatrix(mat1, "aten::addmm", "mat1");
  checkMatrix(mat2, "aten::addmm", "mat2");
  return matmulInto(mat1, mat2, self, beta, alpha, "aten::addmm");
}

Tensor linear(const Tensor &input, const Tensor &weight, const std::optional<Tensor> &bias) {
  const char *op = "aten::linear";
  check(input.dim() >= 1, op, "input must have at least one dimension");
  check(weight.dim() == 2 || weight.dim() == 1, op,
        "weight must be [out_features, in_features], got " + weight.shapeString());
  int64_t K = input.size(-1);
  check(weight.size(-1) == K, op,
        "input " + input.shapeString() + " and weight " + weight.shapeString() +
            " disagree on in_features");
  std::vector<int64_t> batch(input.sizes().begin(), input.sizes().end() - 1);
  int64_t M = 1;
  for (int64_t s : batch) M *= s;
  Tensor x2 = input.reshape({M, K});
  Tensor w2 = weight.dim() == 1 ? weight.reshape({1, K}) : weight;
  int64_t N = w2.size(0);
  // B[k, n] = W[n, k]: the transpose as strides.
  Tensor wt = Tensor::view(w2.storage(), w2.offset(), {K, N}, {w2.stride(1), w2.stride(0)}, w2.dtype());
  Tensor out = matmulInto(x2, wt, bias ? *bias : Tensor(), 1, 1, op);
  std::vector<int64_t> outShape = batch;
  if (weight.dim() == 2) outShape.push_back(N);
  return out.reshape(outShape);
}

} // namespace
} // namespace kiln::cpu

/// The same kernels serve CPU and Meta (on Meta tensors they only compute shapes).
KILN_LIBRARY_IMPL_CPU_AND_META(aten, m) {
  using namespace kiln::cpu;
  m.impl("mm", mm);
  m.impl("addmm", addmm);
  m.impl("linear", linear);
}
