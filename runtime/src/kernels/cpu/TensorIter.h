// kiln runtime — strided element iteration and ATen's type promotion for the
// generic (any-dtype) eager pointwise, view-copy and indexing kernels.
#ifndef KILN_KERNELS_CPU_TENSORITER_H
#define KILN_KERNELS_CPU_TENSORITER_H

#include "KernelUtils.h"

#include <array>
#include <vector>

namespace kiln::cpu {

/// Calls f(offs) for every index of `sizes` in row-major order, where offs[k]
/// is the element offset of operand k (its strides given, 0 on broadcast dims).
template <size_t N, typename F>
void forEachIndex(const std::vector<int64_t> &sizes, const std::array<std::vector<int64_t>, N> &strides,
                  F &&f) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  if (n == 0) return;
  size_t rank = sizes.size();
  std::vector<int64_t> idx(rank, 0);
  std::array<int64_t, N> offs{};
  for (int64_t i = 0; i < n; ++i) {
    f(offs);
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < sizes[d]) {
        for (size_t k = 0; k < N; ++k) offs[k] += strides[k][d];
        break;
      }
      for (size_t k = 0; k < N; ++k) offs[k] -= strides[k][d] * (sizes[d] - 1);
      idx[d] = 0;
    }
  }
}

/// The byte address of element offset `off` of `t` (its storage offset included).
inline char *elemPtr(const Tensor &t, int64_t off) {
  return static_cast<char *>(t.rawData()) + off * (int64_t)dtypeSize(t.dtype());
}

/// Category of a dtype for promotion: 0 bool, 1 integer, 2 floating.
inline int dtypeCategory(DType t) {
  if (t == DType::Bool) return 0;
  return isFloatingPoint(t) ? 2 : 1;
}
/// ATen's promoteTypes (float16 with bfloat16 gives float32, int8 with uint8 int16).
DType promoteTypesAten(DType a, DType b);

/// One operand of ATen's result_type: a tensor (dim > 0 or 0-dim) or a Scalar.
struct PromoteOperand {
  const Tensor *tensor = nullptr;
  const IValue *scalar = nullptr;
};
/// ATen's result_type: dim>0 tensors first, 0-dim tensors and then Python
/// scalars only raise the category (a float Scalar gives float32).
DType resultType(const std::vector<PromoteOperand> &ops);

/// An uninitialised tensor shaped like `like` with dtype `dt` that keeps its
/// memory layout (dims in the same stride order) when `like` is dense and
/// non-overlapping, as ATen's preserve_format does; else contiguous.
Tensor emptyPreserving(const Tensor &like, DType dt);

/// Writes `src` (broadcast to dst's shape, any dtype) into `dst` (any strides), converting.
void copyInto(const Tensor &dst, const Tensor &src, const char *op);

/// A Scalar argument as a double (int, float or bool).
double scalarValue(const IValue &v, const char *op);

/// `v` rounded to what dtype `t` can hold (the operand of an op computed in t).
inline double roundTo(DType t, double v) {
  switch (t) {
  case DType::Float64: return v;
  case DType::Float32: return (double)(float)v;
  case DType::Bool: return v != 0 ? 1.0 : 0.0;
  default: {
    alignas(8) char buf[8];
    storeDouble(buf, t, v);
    return loadDouble(buf, t);
  }
  }
}

/// A 0-dim float64 tensor holding a Scalar's value (an operand of the generic kernels).
Tensor scalarOperand(const IValue &v, const char *op);

/// out[i] = f(v) over the broadcast of K inputs, where v[k] is input k's
/// element as a double rounded to `compute` (ATen's common dtype) and the
/// result is stored as `outDt`. `out`, when given (an in-place op's self),
/// must have the broadcast shape. Meta inputs only give the result's shape.
template <size_t K, typename F>
Tensor mapPointwise(const std::array<Tensor, K> &ins, DType compute, DType outDt, const char *op, F &&f,
                    Tensor out = Tensor()) {
  std::vector<int64_t> shape = ins[0].sizes();
  bool meta = false;
  Device dev = ins[0].device();
  for (size_t k = 0; k < K; ++k) {
    shape = broadcastShapes(shape, ins[k].sizes(), op);
    if (isMeta(ins[k])) { meta = true; dev = ins[k].device(); }
  }
  if (out.defined()) {
    check(out.sizes() == shape, op,
          "the result of shape " + shapeToString(shape) + " does not fit the in-place output of shape " +
              out.shapeString());
    check(dtypeCategory(compute) <= dtypeCategory(out.dtype()) || dtypeCategory(outDt) <= dtypeCategory(out.dtype()),
          op, std::string("result type ") + dtypeTorchName(outDt) + " can't be cast to the output's dtype " +
                  dtypeTorchName(out.dtype()));
  } else if (ins[0].sizes() == shape && !isMeta(ins[0])) {
    out = emptyPreserving(ins[0], outDt); // ATen's outputs follow the first input's layout
  } else {
    out = Tensor::empty(shape, outDt, dev);
  }
  if (meta || isMeta(out)) return out;
  int64_t n = out.numel();
  // Fast path: float32 everywhere, contiguous, no broadcasting.
  bool fast = out.dtype() == DType::Float32 && compute == DType::Float32 && out.isContiguous();
  for (size_t k = 0; k < K && fast; ++k)
    fast = ins[k].dtype() == DType::Float32 && ins[k].isContiguous() && ins[k].sizes() == shape;
  if (fast) {
    std::array<const float *, K> p;
    for (size_t k = 0; k < K; ++k) p[k] = ins[k].template data<float>();
    float *o = out.template data<float>();
    parallelFor(n, 1 << 14, [&](int64_t b, int64_t e) {
      double v[K];
      for (int64_t i = b; i < e; ++i) {
        for (size_t k = 0; k < K; ++k) v[k] = p[k][i];
        o[i] = (float)f(v);
      }
    });
    return out;
  }
  std::array<std::vector<int64_t>, K + 1> st;
  st[0] = out.strides();
  std::array<const char *, K> p;
  std::array<size_t, K> es;
  std::array<DType, K> dt;
  std::array<bool, K> rnd;
  for (size_t k = 0; k < K; ++k) {
    st[k + 1] = broadcastStrides(ins[k], shape);
    p[k] = elemPtr(ins[k], 0);
    es[k] = dtypeSize(ins[k].dtype());
    dt[k] = ins[k].dtype();
    rnd[k] = dt[k] != compute;
  }
  char *po = elemPtr(out, 0);
  size_t eo = dtypeSize(out.dtype());
  DType odt = out.dtype();
  forEachIndex<K + 1>(shape, st, [&](const std::array<int64_t, K + 1> &o) {
    double v[K];
    for (size_t k = 0; k < K; ++k) {
      v[k] = loadDouble(p[k] + o[k + 1] * es[k], dt[k]);
      if (rnd[k]) v[k] = roundTo(compute, v[k]);
    }
    double r = f(v);
    if (odt != outDt) r = roundTo(outDt, r);
    storeDouble(po + o[0] * eo, odt, r);
  });
  return out;
}

} // namespace kiln::cpu

#endif // KILN_KERNELS_CPU_TENSORITER_H
