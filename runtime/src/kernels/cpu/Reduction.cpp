// kiln runtime — eager CPU (and Meta) kernels: mean.dim, mean, sum.dim_IntList, sum, prod.dim_int, amax, amin,
// max.dim, min.dim, var.correction, argmax, argmin.
#include "KernelUtils.h"
#include "TensorIter.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

namespace kiln::cpu {
namespace {

/// The int64 sums of `self`'s rows of `inner` elements, once its dims are in
/// `order` (kept dims first, reduced dims innermost).
Tensor integerSum(const Tensor &self, const std::vector<int64_t> &order, int64_t outer, int64_t inner,
                  const std::vector<int64_t> &outShape) {
  std::vector<int64_t> ps, pst;
  for (int64_t d : order) {
    ps.push_back(self.size(d));
    pst.push_back(self.stride(d));
  }
  Tensor x = castTo(Tensor::view(self.storage(), self.offset(), ps, pst, self.dtype()).contiguous(), DType::Int64);
  Tensor out = Tensor::empty(outShape, DType::Int64, self.device());
  const int64_t *px = x.data<int64_t>();
  int64_t *po = out.data<int64_t>();
  for (int64_t o = 0; o < outer; ++o) {
    uint64_t s = 0; // wraps around as ATen's int64 sum does
    for (int64_t i = 0; i < inner; ++i) s += (uint64_t)px[o * inner + i];
    po[o] = (int64_t)s;
  }
  return out;
}

/// Which of `rank` dims a reduction over `dims` (wrapped; none: every dim)
/// reduces; a dim listed twice is an error. A 0-d tensor takes dim 0 or -1.
std::vector<bool> reducedDims(const std::vector<int64_t> &dims, int64_t rank, const char *op) {
  std::vector<bool> reduce(rank, dims.empty());
  for (int64_t d : dims) {
    int64_t w = wrapDim(d, rank, op);
    if (rank == 0) continue;
    check(!reduce[w], op, "dim " + std::to_string(w) + " appears twice in the list");
    reduce[w] = true;
  }
  return reduce;
}

/// The dims of a reduction over `dims0` (None or empty: every dim): the result's
/// shape, `self`'s dims in the order kept dims first, reduced dims innermost, and
/// the sizes of the kept (outer) and reduced (inner) parts.
struct Split {
  std::vector<int64_t> outShape, order;
  int64_t outer = 1, inner = 1;
};
Split splitDims(const Tensor &self, const std::optional<std::vector<int64_t>> &dims0, bool keepdim, const char *op) {
  int64_t rank = self.dim();
  std::vector<bool> reduce = reducedDims(dims0 ? *dims0 : std::vector<int64_t>{}, rank, op);
  Split sp;
  for (int64_t d = 0; d < rank; ++d) {
    if (reduce[d]) {
      if (keepdim) sp.outShape.push_back(1);
      sp.inner *= self.size(d);
    } else {
      sp.outShape.push_back(self.size(d));
      sp.outer *= self.size(d);
      sp.order.push_back(d);
    }
  }
  for (int64_t d = 0; d < rank; ++d)
    if (reduce[d]) sp.order.push_back(d);
  return sp;
}

/// `self` with its dims in `order`, contiguous and converted to `t`.
Tensor permuted(const Tensor &self, const std::vector<int64_t> &order, DType t) {
  std::vector<int64_t> ps, pst;
  for (int64_t d : order) {
    ps.push_back(self.size(d));
    pst.push_back(self.stride(d));
  }
  return castTo(Tensor::view(self.storage(), self.offset(), ps, pst, self.dtype()).contiguous(), t);
}

/// Sum or mean over `dims0` (None or empty: every dim). A sum of integers or
/// bools without a dtype is int64, as ATen's; an integer sum accumulates in int64.
Tensor reduceDims(const Tensor &self, const std::optional<std::vector<int64_t>> &dims0, bool keepdim,
                  const std::optional<DType> &dtype, bool mean, const char *op) {
  DType outType = dtype ? *dtype : isFloatingPoint(self.dtype()) || mean ? self.dtype() : DType::Int64;
  check(!mean || isFloatingPoint(outType), op,
        std::string("mean needs a floating-point dtype, got ") + dtypeTorchName(outType));
  check(outType != DType::Bool, op, "a sum cannot be bool: give an integer or floating-point dtype");
  bool integral = !isFloatingPoint(outType);
  Split sp = splitDims(self, dims0, keepdim, op);
  const std::vector<int64_t> &outShape = sp.outShape, &order = sp.order;
  const int64_t outer = sp.outer, inner = sp.inner;
  Tensor out = Tensor::empty(outShape, outType, self.device());
  if (isMeta(self)) return out;
  if (integral) {
    Tensor acc = integerSum(self, order, outer, inner, outShape);
    return outType == DType::Int64 ? acc : castTo(acc, outType);
  }
  // Move the reduced dims innermost, then reduce contiguous rows.
  Tensor x = permuted(self, order, outType);
  dispatchFloat(outType, op, [&](auto tag) {
    using T = decltype(tag);
    const T *px = x.data<T>();
    T *po = out.data<T>();
    parallelFor(outer, std::max<int64_t>(1, 16384 / std::max<int64_t>(inner, 1)), [&](int64_t o0, int64_t o1) {
      for (int64_t o = o0; o < o1; ++o) {
        double s = 0;
        const T *p = px + o * inner;
        for (int64_t i = 0; i < inner; ++i) s += p[i];
        po[o] = !mean ? (T)s : inner ? (T)(s / (double)inner) : std::numeric_limits<T>::quiet_NaN();
      }
    });
  });
  return out;
}

/// var.correction: sum((x - mean)^2) / max(0, N - correction) over `dims` (None:
/// every dim), correction 1 when not given; two passes in float64 per row.
Tensor varCorrection(const Tensor &self, const std::optional<std::vector<int64_t>> &dims,
                     IValue correction, bool keepdim) {
  const char *op = "aten::var.correction";
  check(isFloatingPoint(self.dtype()), op,
        std::string("var needs a floating-point tensor, got ") + dtypeTorchName(self.dtype()));
  double c = correction.isNone() ? 1.0 : scalarValue(correction, op);
  Split sp = splitDims(self, dims, keepdim, op);
  const int64_t outer = sp.outer, inner = sp.inner;
  Tensor out = Tensor::empty(sp.outShape, self.dtype(), self.device());
  if (isMeta(self)) return out;
  Tensor x = permuted(self, sp.order, DType::Float64);
  const double *px = x.data<double>();
  double div = std::max(0.0, (double)inner - c);
  dispatchFloat(self.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    T *po = out.data<T>();
    parallelFor(outer, std::max<int64_t>(1, 16384 / std::max<int64_t>(inner, 1)), [&](int64_t o0, int64_t o1) {
      for (int64_t o = o0; o < o1; ++o) {
        const double *p = px + o * inner;
        double m = 0, s = 0;
        for (int64_t i = 0; i < inner; ++i) m += p[i];
        m /= (double)inner;
        for (int64_t i = 0; i < inner; ++i) s += (p[i] - m) * (p[i] - m);
        po[o] = (T)(s / div);
      }
    });
  });
  return out;
}

/// argmax / argmin over `dim` (None: every element, flattened): the int64 index
/// of the first extreme; a NaN counts as the extreme (its first index), as ATen's.
Tensor argExtremum(const Tensor &self, std::optional<int64_t> dim, bool keepdim, bool isMax, const char *op) {
  std::optional<std::vector<int64_t>> dims;
  if (dim) dims = std::vector<int64_t>{*dim};
  Split sp = splitDims(self, dims, keepdim, op);
  const int64_t outer = sp.outer, inner = sp.inner;
  check(inner != 0, op, "expected a non-empty dim to reduce, got " + self.shapeString());
  Tensor out = Tensor::empty(sp.outShape, DType::Int64, self.device());
  if (isMeta(self)) return out;
  Tensor x = permuted(self, sp.order, DType::Float64);
  const double *px = x.data<double>();
  int64_t *po = out.data<int64_t>();
  parallelFor(outer, std::max<int64_t>(1, 16384 / std::max<int64_t>(inner, 1)), [&](int64_t o0, int64_t o1) {
    for (int64_t o = o0; o < o1; ++o) {
      const double *p = px + o * inner;
      int64_t best = 0;
      for (int64_t i = 1; i < inner && !std::isnan(p[best]); ++i)
        if (std::isnan(p[i]) || (isMax ? p[i] > p[best] : p[i] < p[best])) best = i;
      po[o] = best;
    }
  });
  return out;
}
Tensor argmax(const Tensor &self, std::optional<int64_t> dim, bool keepdim) {
  return argExtremum(self, dim, keepdim, true, "aten::argmax");
}
Tensor argmin(const Tensor &self, std::optional<int64_t> dim, bool keepdim) {
  return argExtremum(self, dim, keepdim, false, "aten::argmin");
}

Tensor meanDim(const Tensor &self, const std::optional<std::vector<int64_t>> &dims, bool keepdim,
               const std::optional<DType> &dtype) {
  return reduceDims(self, dims, keepdim, dtype, true, "aten::mean.dim");
}
Tensor sumDim(const Tensor &self, const std::optional<std::vector<int64_t>> &dims, bool keepdim,
              const std::optional<DType> &dtype) {
  return reduceDims(self, dims, keepdim, dtype, false, "aten::sum.dim_IntList");
}

/// mean.default: every element (x.mean(), x.mean(dtype=...)).
Tensor meanAll(const Tensor &self, const std::optional<DType> &dtype) {
  return reduceDims(self, std::nullopt, false, dtype, true, "aten::mean");
}

/// sum.default: every element (sum(x), x.sum(dtype=...)).
Tensor sumAll(const Tensor &self, const std::optional<DType> &dtype) {
  return reduceDims(self, std::nullopt, false, dtype, false, "aten::sum");
}

/// amax / amin over `dims0` (empty: every dim): the dtype kept, NaN
/// propagated; a reduced dim of size 0 is an error, as in ATen.
Tensor extremum(const Tensor &self, const std::vector<int64_t> &dims0, bool keepdim, bool isMax, const char *op) {
  int64_t rank = self.dim();
  std::vector<bool> reduce = reducedDims(dims0, rank, op);
  std::vector<int64_t> outShape, ps, pst;
  int64_t outer = 1, inner = 1;
  for (int pass = 0; pass < 2; ++pass)
    for (int64_t d = 0; d < rank; ++d) {
      if (reduce[d] != (pass == 1)) continue;
      ps.push_back(self.size(d));
      pst.push_back(self.stride(d));
      if (pass == 1) {
        check(self.size(d) != 0, op, "expected a non-empty dim " + std::to_string(d) + " to reduce, got " +
                                         self.shapeString());
        inner *= self.size(d);
      } else {
        outer *= self.size(d);
      }
    }
  for (int64_t d = 0; d < rank; ++d)
    if (!reduce[d] || keepdim) outShape.push_back(reduce[d] ? 1 : self.size(d));
  Tensor out = Tensor::empty(outShape, self.dtype(), self.device());
  if (isMeta(self)) return out;
  Tensor x = Tensor::view(self.storage(), self.offset(), ps, pst, self.dtype()).contiguous();
  dispatchNumeric(self.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T *px = x.data<T>();
    T *po = out.data<T>();
    for (int64_t o = 0; o < outer; ++o) {
      const T *p = px + o * inner;
      T best = p[0];
      for (int64_t i = 1; i < inner; ++i) {
        if constexpr (std::is_floating_point_v<T>)
          if (std::isnan((double)best)) break;
        T v = p[i];
        bool nan = false;
        if constexpr (std::is_floating_point_v<T>) nan = std::isnan((double)v);
        if (nan || (isMax ? v > best : v < best)) best = v;
      }
      po[o] = best;
    }
  });
  return out;
}
/// max.dim / min.dim: the extremum along `dim` and the index of its first
/// occurrence (a NaN is the extremum where there is one, as in ATen).
std::tuple<Tensor, Tensor> extremumDim(const Tensor &self, int64_t dim, bool keepdim, bool isMax, const char *op) {
  int64_t rank = self.dim(), d = rank ? wrapDim(dim, rank, op) : 0;
  Tensor values = extremum(self, rank ? std::vector<int64_t>{d} : std::vector<int64_t>{}, keepdim, isMax, op);
  Tensor indices = Tensor::empty(values.sizes(), DType::Int64, self.device());
  if (isMeta(self)) return {values, indices};
  int64_t n = rank ? self.size(d) : 1, outer = 1, inner = 1;
  for (int64_t k = 0; k < d; ++k) outer *= self.size(k);
  for (int64_t k = d + 1; k < rank; ++k) inner *= self.size(k);
  Tensor x = self.contiguous(), v = values.contiguous();
  dispatchNumeric(self.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T *px = x.data<T>(), *pv = v.data<T>();
    int64_t *pi = indices.data<int64_t>();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        T best = pv[o * inner + i];
        bool nanBest = false;
        if constexpr (std::is_floating_point_v<T>) nanBest = std::isnan((double)best);
        int64_t at = 0;
        for (int64_t k = 0; k < n; ++k) {
          T e = px[(o * n + k) * inner + i];
          bool hit = e == best;
          if constexpr (std::is_floating_point_v<T>) hit = hit || (nanBest && std::isnan((double)e));
          if (hit) {
            at = k;
            break;
          }
        }
        pi[o * inner + i] = at;
      }
  });
  return {values, indices};
}
std::tuple<Tensor, Tensor> maxDim(const Tensor &self, int64_t dim, bool keepdim) {
  return extremumDim(self, dim, keepdim, true, "aten::max.dim");
}
std::tuple<Tensor, Tensor> minDim(const Tensor &self, int64_t dim, bool keepdim) {
  return extremumDim(self, dim, keepdim, false, "aten::min.dim");
}

/// The product over one dim: integers and bool multiply in int64 (wrapping, as ATen's), floats in
/// their dtype, unless `dtype` says otherwise.
Tensor prodDim(const Tensor &self, int64_t dim, bool keepdim, const std::optional<DType> &dtype) {
  const char *op = "aten::prod.dim_int";
  DType outType = dtype ? *dtype : isFloatingPoint(self.dtype()) ? self.dtype() : DType::Int64;
  int64_t rank = self.dim(), d = rank ? wrapDim(dim, rank, op) : 0;
  std::vector<int64_t> outShape;
  int64_t outer = 1, n = rank ? self.size(d) : 1, inner = 1;
  for (int64_t i = 0; i < rank; ++i) {
    if (i != d) outShape.push_back(self.size(i));
    else if (keepdim) outShape.push_back(1);
    if (i < d) outer *= self.size(i);
    if (i > d) inner *= self.size(i);
  }
  Tensor out = Tensor::empty(outShape, outType, self.device());
  if (isMeta(self)) return out;
  Tensor x = castTo(self.contiguous(), outType);
  dispatchNumeric(outType, op, [&](auto tag) {
    using T = decltype(tag);
    const T *px = x.data<T>();
    T *po = out.data<T>();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        T p = 1;
        for (int64_t k = 0; k < n; ++k) {
          T v = px[(o * n + k) * inner + i];
          if constexpr (std::is_integral_v<T>)
            p = (T)(int64_t)((uint64_t)(int64_t)p * (uint64_t)(int64_t)v);
          else
            p *= v;
        }
        po[o * inner + i] = p;
      }
  });
  return out;
}

Tensor amax(const Tensor &self, std::vector<int64_t> dims, bool keepdim) {
  return extremum(self, dims, keepdim, true, "aten::amax");
}
Tensor amin(const Tensor &self, std::vector<int64_t> dims, bool keepdim) {
  return extremum(self, dims, keepdim, false, "aten::amin");
}

} // namespace
} // namespace kiln::cpu

/// The same kernels serve CPU and Meta (on Meta tensors they only compute shapes).
KILN_LIBRARY_IMPL_CPU_AND_META(aten, m) {
  m.impl("mean.dim", kiln::cpu::meanDim);
  m.impl("sum.dim_IntList", kiln::cpu::sumDim);
  m.impl("sum", kiln::cpu::sumAll);
  m.impl("mean", kiln::cpu::meanAll);
  m.impl("prod.dim_int", kiln::cpu::prodDim);
  m.impl("amax", kiln::cpu::amax);
  m.impl("amin", kiln::cpu::amin);
  m.impl("max.dim", kiln::cpu::maxDim);
  m.impl("min.dim", kiln::cpu::minDim);
  m.impl("var.correction", kiln::cpu::varCorrection);
  m.impl("argmax", kiln::cpu::argmax);
  m.impl("argmin", kiln::cpu::argmin);
}

KILN_LIBRARY_FRAGMENT(aten, m) {
  m.def("sum(Tensor self, *, ScalarType? dtype=None) -> Tensor");
  m.def("mean(Tensor self, *, ScalarType? dtype=None) -> Tensor");
  m.def("prod.dim_int(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor");
  m.def("amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor");
  m.def("amin(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor");
  m.def("max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)");
  m.def("min.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)");
  m.def("argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor");
  m.def("argmin(Tensor self, int? dim=None, bool keepdim=False) -> Tensor");
  m.def("var.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor");
}
