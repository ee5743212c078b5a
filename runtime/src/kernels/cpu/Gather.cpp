// kiln runtime — eager CPU (and Meta) indexing kernels on every dtype:
// embedding, index.Tensor (advanced indexing with None and bool masks),
// index_put(_), index_add, index_select, gather, scatter(_).src, scatter(_).value, cat, diff.
#include "TensorIter.h"
#include "kiln/library.h"

#include <cmath>
#include <cstring>
#include <type_traits>

namespace kiln::cpu {
namespace {

/// The int64 value of index element `off` (int64 or int32 index tensors).
int64_t loadIndex(const Tensor &idx, int64_t off) { return (int64_t)loadDouble(elemPtr(idx, off), idx.dtype()); }
void checkIndexDtype(const Tensor &idx, const char *op) {
  check(idx.dtype() == DType::Int64 || idx.dtype() == DType::Int32, op,
        std::string("indices must be an int64 or int32 tensor, got ") + dtypeTorchName(idx.dtype()));
}
int64_t wrapIndex(int64_t i, int64_t n, const char *op, int64_t dim) {
  check(i >= -n && i < n, op,
        "index " + std::to_string(i) + " is out of bounds for dimension " + std::to_string(dim) + " with size " +
            std::to_string(n));
  return i < 0 ? i + n : i;
}

Tensor embedding(const Tensor &weight, const Tensor &indices, int64_t, bool, bool) {
  const char *op = "aten::embedding";
  check(weight.dim() == 2, op, "weight must be 2-D, got " + weight.shapeString());
  checkIndexDtype(indices, op);
  std::vector<int64_t> shape = indices.sizes();
  shape.push_back(weight.size(1));
  Tensor out = Tensor::empty(shape, weight.dtype(), isMeta(indices) ? indices.device() : weight.device());
  if (isMeta(out) || isMeta(weight)) return out;
  Tensor w = weight.contiguous(), idx = indices.contiguous();
  size_t row = (size_t)w.size(1) * dtypeSize(w.dtype());
  const char *pw = elemPtr(w, 0);
  char *po = elemPtr(out, 0);
  for (int64_t i = 0, n = idx.numel(); i < n; ++i) {
    int64_t r = loadIndex(idx, i);
    check(r >= 0 && r < w.size(0), op,
          "index " + std::to_string(r) + " is out of range for an embedding of " + std::to_string(w.size(0)) + " rows");
    std::memcpy(po + i * row, pw + r * row, row);
  }
  return out;
}

/// Advanced indexing: the per-dim index tensors (masks expanded), broadcast.
struct AdvIndex {
  std::vector<Tensor> idx;          ///< one per self dim; undefined = not indexed
  std::vector<int64_t> bshape;      ///< broadcast shape of the index tensors
  std::vector<int64_t> outShape;
  std::vector<int64_t> srcDimOfOut; ///< for each out dim: the self dim, or -1 (part of bshape)
  int64_t bAt = 0;                  ///< where bshape's dims sit in the output
};

/// Index tensors of a bool mask: one int64 tensor per mask dim (its nonzero positions).
std::vector<Tensor> maskToIndices(const Tensor &mask) {
  Tensor m = mask.contiguous();
  std::vector<std::vector<int64_t>> pos(m.dim());
  std::vector<int64_t> ix(m.dim(), 0);
  for (int64_t i = 0, n = m.numel(); i < n; ++i) {
    if (loadDouble(elemPtr(m, i), m.dtype()) != 0)
      for (int64_t d = 0; d < m.dim(); ++d) pos[d].push_back(ix[d]);
    for (int64_t d = m.dim() - 1; d >= 0; --d) {
      if (++ix[d] < m.size(d)) break;
      ix[d] = 0;
    }
  }
  std::vector<Tensor> out;
  for (auto &p : pos) {
    Tensor t = Tensor::empty({(int64_t)p.size()}, DType::Int64);
    if (!p.empty()) std::memcpy(t.rawData(), p.data(), p.size() * sizeof(int64_t));
    out.push_back(t);
  }
  return out;
}

std::vector<Tensor> optionalTensors(const IValue &v) {
  std::vector<Tensor> r;
  if (v.isTensorList()) return v.toTensorList();
  if (v.isList())
    for (const IValue &x : v.toList()) r.push_back(x.isTensor() ? x.toTensor() : Tensor());
  return r;
}

AdvIndex prepareIndex(const Tensor &self, const std::vector<Tensor> &given, const char *op) {
  AdvIndex a;
  for (const Tensor &t : given) {
    if (t.defined() && (t.dtype() == DType::Bool || t.dtype() == DType::UInt8)) {
      check(!isMeta(t), op, "a boolean mask index has a data-dependent shape and cannot be traced on Meta");
      for (Tensor &m : maskToIndices(t)) a.idx.push_back(m);
    } else {
      if (t.defined()) checkIndexDtype(t, op);
      a.idx.push_back(t);
    }
  }
  check((int64_t)a.idx.size() <= self.dim(), op,
        "too many indices (" + std::to_string(a.idx.size()) + ") for a tensor of rank " + std::to_string(self.dim()));
  a.idx.resize(self.dim());
  std::vector<int64_t> pos;
  bool first = true;
  for (int64_t d = 0; d < self.dim(); ++d)
    if (a.idx[d].defined()) {
      a.bshape = first ? a.idx[d].sizes() : broadcastShapes(a.bshape, a.idx[d].sizes(), op);
      first = false;
      pos.push_back(d);
    }
  check(!pos.empty(), op, "at least one index must be a tensor");
  bool adjacent = pos.back() - pos.front() + 1 == (int64_t)pos.size();
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (a.idx[d].defined()) continue;
    a.outShape.push_back(self.size(d));
    a.srcDimOfOut.push_back(d);
  }
  // Insert the broadcast dims at bAt (the non-indexed dims before it keep their order).
  int64_t before = 0;
  for (int64_t d = 0; d < (adjacent ? pos.front() : 0); ++d) before += !a.idx[d].defined();
  a.bAt = before;
  a.outShape.insert(a.outShape.begin() + before, a.bshape.begin(), a.bshape.end());
  a.srcDimOfOut.insert(a.srcDimOfOut.begin() + before, a.bshape.size(), -1);
  return a;
}

/// Calls f(outLinear, srcOffset) for every output element of an advanced index.
template <typename F> void forEachAdv(const Tensor &self, const AdvIndex &a, const char *op, F f) {
  int64_t rank = (int64_t)a.outShape.size(), nb = (int64_t)a.bshape.size();
  std::vector<std::vector<int64_t>> ist(self.dim());
  for (int64_t d = 0; d < self.dim(); ++d)
    if (a.idx[d].defined()) ist[d] = broadcastStrides(a.idx[d], a.bshape);
  int64_t n = 1;
  for (int64_t s : a.outShape) n *= s;
  std::vector<int64_t> ix(rank, 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t off = 0;
    for (int64_t o = 0; o < rank; ++o)
      if (a.srcDimOfOut[o] >= 0) off += ix[o] * self.stride(a.srcDimOfOut[o]);
    for (int64_t d = 0; d < self.dim(); ++d) {
      if (!a.idx[d].defined()) continue;
      int64_t io = 0;
      for (int64_t k = 0; k < nb; ++k) io += ix[a.bAt + k] * ist[d][k];
      off += wrapIndex(loadIndex(a.idx[d], io), self.size(d), op, d) * self.stride(d);
    }
    f(i, off);
    for (int64_t o = rank - 1; o >= 0; --o) {
      if (++ix[o] < a.outShape[o]) break;
      ix[o] = 0;
    }
  }
}

Tensor indexTensor(const Tensor &self, IValue indices) {
  const char *op = "aten::index.Tensor";
  AdvIndex a = prepareIndex(self, optionalTensors(indices), op);
  Device dev = self.device();
  for (const Tensor &t : a.idx)
    if (t.defined() && isMeta(t)) dev = t.device();
  Tensor out = Tensor::empty(a.outShape, self.dtype(), dev);
  if (isMeta(out)) return out;
  size_t es = dtypeSize(self.dtype());
  const char *ps = elemPtr(self, 0);
  char *po = elemPtr(out, 0);
  forEachAdv(self, a, op, [&](int64_t i, int64_t off) { std::memcpy(po + i * es, ps + off * es, es); });
  return out;
}

Tensor indexPutImpl(Tensor dst, const IValue &indices, const Tensor &values, bool accumulate, const char *op) {
  AdvIndex a = prepareIndex(dst, optionalTensors(indices), op);
  if (isMeta(dst)) return dst;
  Tensor v = Tensor::empty(a.outShape, dst.dtype());
  copyInto(v, values, op); // broadcast the values to the indexed shape
  size_t es = dtypeSize(dst.dtype());
  char *pd = elemPtr(dst, 0);
  const char *pv = elemPtr(v, 0);
  DType dt = dst.dtype();
  forEachAdv(dst, a, op, [&](int64_t i, int64_t off) {
    if (accumulate) storeDouble(pd + off * es, dt, loadDouble(pd + off * es, dt) + loadDouble(pv + i * es, dt));
    else std::memcpy(pd + off * es, pv + i * es, es);
  });
  return dst;
}
Tensor indexPut(const Tensor &self, IValue indices, const Tensor &values, bool accumulate) {
  Tensor out = Tensor::empty(self.sizes(), self.dtype(), self.device());
  copyInto(out, self, "aten::index_put");
  return indexPutImpl(out, indices, values, accumulate, "aten::index_put");
}
Tensor indexPutInplace(Tensor self, IValue indices, const Tensor &values, bool accumulate) {
  return indexPutImpl(self, indices, values, accumulate, "aten::index_put_");
}

Tensor indexSelect(const Tensor &self, int64_t dim, const Tensor &index) {
  const char *op = "aten::index_select";
  checkIndexDtype(index, op);
  check(index.dim() <= 1, op, "index must be 0-D or 1-D, got " + index.shapeString());
  int64_t d = wrapDim(dim, self.dim(), op);
  std::vector<Tensor> idx(self.dim());
  idx[d] = index.dim() == 0 ? index.reshape({1}) : index;
  return indexTensor(self, IValue(idx));
}

/// gather/scatter share the walk over `index`: f(indexOff-walk position, selfOff, otherOff).
Tensor gather(const Tensor &self, int64_t dim, const Tensor &index, bool) {
  const char *op = "aten::gather";
  checkIndexDtype(index, op);
  int64_t d = wrapDim(dim, self.dim(), op);
  check(index.dim() == self.dim() || (self.dim() == 0 && index.dim() <= 1), op,
        "index " + index.shapeString() + " must have the rank of self " + self.shapeString());
  Tensor out = Tensor::empty(index.sizes(), self.dtype(), self.device());
  if (isMeta(out) || isMeta(index)) return out;
  for (int64_t k = 0; k < index.dim(); ++k)
    check(k == d || index.size(k) <= self.size(k), op, "index " + index.shapeString() + " is larger than self " +
                                                          self.shapeString() + " outside dim " + std::to_string(d));
  size_t es = dtypeSize(self.dtype());
  std::vector<int64_t> sst = self.strides();
  sst[d] = 0; // the gathered dim is addressed by the index values
  std::array<std::vector<int64_t>, 3> st{out.strides(), index.strides(), sst};
  char *po = elemPtr(out, 0);
  const char *ps = elemPtr(self, 0);
  forEachIndex<3>(index.sizes(), st, [&](const std::array<int64_t, 3> &o) {
    int64_t i = wrapIndex(loadIndex(index, o[1]), self.size(d), op, d);
    std::memcpy(po + o[0] * es, ps + (o[2] + i * self.stride(d)) * es, es);
  });
  return out;
}

Tensor scatterSrc(const Tensor &self, int64_t dim, const Tensor &index, const Tensor &src) {
  const char *op = "aten::scatter.src";
  checkIndexDtype(index, op);
  int64_t d = wrapDim(dim, self.dim(), op);
  check(index.dim() == self.dim() && src.dim() == self.dim(), op, "self, index and src must have the same rank");
  Tensor out = Tensor::empty(self.sizes(), self.dtype(), self.device());
  copyInto(out, self, op);
  if (isMeta(out) || isMeta(index)) return out;
  Tensor s = src.dtype() == self.dtype() ? src : castTo(src, self.dtype());
  size_t es = dtypeSize(self.dtype());
  std::vector<int64_t> ost = out.strides();
  ost[d] = 0;
  std::array<std::vector<int64_t>, 3> st{ost, index.strides(), s.strides()};
  char *po = elemPtr(out, 0);
  const char *ps = elemPtr(s, 0);
  forEachIndex<3>(index.sizes(), st, [&](const std::array<int64_t, 3> &o) {
    int64_t i = wrapIndex(loadIndex(index, o[1]), self.size(d), op, d);
    std::memcpy(po + (o[0] + i * out.stride(d)) * es, ps + o[2] * es, es);
  });
  return out;
}

/// scatter_reduce.two: self with src reduced into the positions `index` names
/// along dim ("sum", "prod", "mean", "amax", "amin"). include_self=False starts
/// each position that receives a value from the reduction's identity instead of
/// self; "mean" divides by the number of values a position got (plus one for
/// self when included), with floor division for integers, as ATen does.
Tensor scatterReduce(const Tensor &self, int64_t dim, const Tensor &index, const Tensor &src,
                     const std::string &reduce, bool includeSelf) {
  const char *op = "aten::scatter_reduce.two";
  checkIndexDtype(index, op);
  int64_t d = wrapDim(dim, std::max<int64_t>(self.dim(), 1), op);
  check(index.dim() == self.dim() && src.dim() == self.dim(), op, "self, index and src must have the same rank");
  enum { Sum, Prod, Mean, Amax, Amin } kind;
  if (reduce == "sum") kind = Sum;
  else if (reduce == "prod") kind = Prod;
  else if (reduce == "mean") kind = Mean;
  else if (reduce == "amax") kind = Amax;
  else if (reduce == "amin") kind = Amin;
  else {
    check(false, op, "reduce must be one of sum, prod, mean, amax, amin, got '" + reduce + "'");
    kind = Sum;
  }
  Tensor out = Tensor::empty(self.sizes(), self.dtype(), self.device());
  copyInto(out, self, op);
  if (isMeta(out) || isMeta(index) || index.numel() == 0) return out;
  Tensor s = src.dtype() == self.dtype() ? src : castTo(src, self.dtype());
  std::vector<int64_t> ost = out.strides();
  ost[d] = 0;
  std::array<std::vector<int64_t>, 3> st{ost, index.strides(), s.strides()};
  std::vector<int64_t> count(out.numel(), includeSelf ? 1 : 0);
  std::vector<uint8_t> touched(out.numel(), 0);
  dispatchNumeric(self.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    T *po = out.data<T>();
    const char *base = elemPtr(s, 0);
    forEachIndex<3>(index.sizes(), st, [&](const std::array<int64_t, 3> &o) {
      int64_t i = wrapIndex(loadIndex(index, o[1]), self.size(d), op, d);
      int64_t at = o[0] + i * out.stride(d);
      T v = *reinterpret_cast<const T *>(base + o[2] * (int64_t)sizeof(T));
      T &acc = po[at];
      if (!includeSelf && !touched[at]) {
        acc = v;
      } else {
        switch (kind) {
        case Sum: case Mean: acc = (T)(acc + v); break;
        case Prod: acc = (T)(acc * v); break;
        case Amax:
          if constexpr (std::is_floating_point_v<T>) { if (std::isnan(v) || v > acc) acc = v; }
          else if (v > acc) acc = v;
          break;
        case Amin:
          if constexpr (std::is_floating_point_v<T>) { if (std::isnan(v) || v < acc) acc = v; }
          else if (v < acc) acc = v;
          break;
        }
      }
      touched[at] = 1;
      ++count[at];
    });
    if (kind == Mean)
      for (int64_t at = 0; at < out.numel(); ++at) {
        if (!touched[at] || count[at] == 0) continue;
        if constexpr (std::is_floating_point_v<T>) po[at] = (T)(po[at] / (T)count[at]);
        else {
          int64_t q = (int64_t)po[at] / count[at];
          if (((int64_t)po[at] % count[at] != 0) && (((int64_t)po[at] < 0) != (count[at] < 0))) --q;
          po[at] = (T)q;
        }
      }
  });
  return out;
}

/// What index_copy, index_fill and index_add write through: a copy of self,
/// and the index list that names the positions `index` (1-D) along dim.
struct SliceTargets {
  Tensor out;
  IValue indices;
};
SliceTargets sliceTargets(const Tensor &self, int64_t dim, const Tensor &index, const char *op) {
  checkIndexDtype(index, op);
  check(index.dim() <= 1, op, "index must be a vector, got " + index.shapeString());
  int64_t d = self.dim() == 0 ? 0 : wrapDim(dim, self.dim(), op);
  Tensor out = Tensor::empty(self.sizes(), self.dtype(), self.device());
  copyInto(out, self, op);
  std::vector<IValue> idx(d, IValue());
  idx.push_back(IValue(index.reshape({index.numel()})));
  return {out, IValue::list(idx)};
}

/// index_copy's and index_add's source: self's rank, one slice a position of
/// `index` along dim.
void checkSliceSource(const Tensor &self, int64_t dim, const Tensor &index, const Tensor &source,
                      const char *op) {
  int64_t d = self.dim() == 0 ? 0 : wrapDim(dim, self.dim(), op);
  check(source.dim() == self.dim(), op, "source " + source.shapeString() + " must have the rank of self " +
                                            self.shapeString());
  check(self.dim() == 0 || source.size(d) == index.numel(), op,
        "source has " + std::to_string(source.size(d)) + " slices along dim " + std::to_string(d) + ", index " +
            std::to_string(index.numel()) + " positions");
}

/// index_copy: self with the slices along dim at `index` (1-D) replaced by
/// source's (index_put without accumulation).
Tensor indexCopy(const Tensor &self, int64_t dim, const Tensor &index, const Tensor &source) {
  const char *op = "aten::index_copy";
  SliceTargets t = sliceTargets(self, dim, index, op);
  checkSliceSource(self, dim, index, source, op);
  return indexPutImpl(t.out, t.indices, source, false, op);
}

/// take_along_dim: gather along dim after broadcasting self and indices in
/// every other dim (numpy's take_along_axis); without dim, of the flattened self.
Tensor takeAlongDim(const Tensor &self, const Tensor &indices, std::optional<int64_t> dim) {
  const char *op = "aten::take_along_dim";
  checkIndexDtype(indices, op);
  if (!dim)
    return gather(self.reshape({self.numel()}), 0, indices.reshape({indices.numel()}), false);
  check(self.dim() == indices.dim(), op,
        "indices must have the rank of self: " + self.shapeString() + " and " + indices.shapeString());
  int64_t d = wrapDim(*dim, std::max<int64_t>(self.dim(), 1), op);
  std::vector<int64_t> a = self.sizes(), b = indices.sizes();
  a[d] = 1;
  b[d] = 1;
  std::vector<int64_t> shape = broadcastShapes(a, b, op), sShape = shape, iShape = shape;
  sShape[d] = self.size(d);
  iShape[d] = indices.size(d);
  Tensor x = call<Tensor>("aten::expand", self, sShape);
  Tensor idx = call<Tensor>("aten::expand", indices, iShape);
  return gather(x, d, idx, false);
}

/// index_fill (.int_Scalar, .int_Tensor with a 0-d value): self with the slices
/// along dim at `index` (1-D) set to value.
Tensor indexFillImpl(const Tensor &self, int64_t dim, const Tensor &index, const Tensor &value, const char *op) {
  SliceTargets t = sliceTargets(self, dim, index, op);
  check(value.dim() == 0, op, "value must be a 0-dim tensor, got " + value.shapeString());
  Tensor v = value.dtype() == self.dtype() ? value : castTo(value, self.dtype());
  return indexPutImpl(t.out, t.indices, v, false, op);
}
Tensor indexFillScalar(const Tensor &self, int64_t dim, const Tensor &index, IValue value) {
  const char *op = "aten::index_fill.int_Scalar";
  Tensor v = Tensor::empty({}, self.dtype(), self.device());
  if (!isMeta(v)) storeDouble(elemPtr(v, 0), self.dtype(), scalarValue(value, op));
  return indexFillImpl(self, dim, index, v, op);
}
Tensor indexFillTensor(const Tensor &self, int64_t dim, const Tensor &index, const Tensor &value) {
  return indexFillImpl(self, dim, index, value, "aten::index_fill.int_Tensor");
}

/// index_add: self plus alpha * source added at the positions `index` (1-D)
/// names along dim; repeated positions accumulate (index_put with accumulate).
Tensor indexAdd(const Tensor &self, int64_t dim, const Tensor &index, const Tensor &source, IValue alpha) {
  const char *op = "aten::index_add";
  SliceTargets t = sliceTargets(self, dim, index, op);
  checkSliceSource(self, dim, index, source, op);
  Tensor v = scalarValue(alpha, op) == 1.0 ? source : call("aten::mul.Scalar", source, alpha);
  return indexPutImpl(t.out, t.indices, v, true, op);
}

/// scatter.value: self with `value` written at the positions `index` names along dim.
Tensor scatterValue(const Tensor &self, int64_t dim, const Tensor &index, IValue value) {
  const char *op = "aten::scatter.value";
  Tensor src = Tensor::empty({}, self.dtype(), self.device());
  if (!isMeta(src)) storeDouble(elemPtr(src, 0), self.dtype(), scalarValue(value, op));
  // The scalar broadcast to the index's shape (stride 0 everywhere).
  std::vector<int64_t> zeros(index.dim(), 0);
  return scatterSrc(self, dim, index, Tensor::view(src.storage(), src.offset(), index.sizes(), zeros, src.dtype()));
}
Tensor scatterSrcInplace(Tensor self, int64_t dim, const Tensor &index, const Tensor &src) {
  copyInto(self, scatterSrc(self, dim, index, src), "aten::scatter_.src");
  return self;
}
Tensor scatterValueInplace(Tensor self, int64_t dim, const Tensor &index, IValue value) {
  copyInto(self, scatterValue(self, dim, index, value), "aten::scatter_.value");
  return self;
}

Tensor cat(std::vector<Tensor> tensors, int64_t dim) {
  const char *op = "aten::cat";
  check(!tensors.empty(), op, "expected a non-empty list of tensors");
  // ATen skips legacy empty 1-D tensors of shape [0].
  std::vector<Tensor> ts;
  std::vector<PromoteOperand> pro;
  for (const Tensor &t : tensors) pro.push_back({&t, nullptr});
  DType dt = resultType(pro);
  for (const Tensor &t : tensors)
    if (!(t.dim() == 1 && t.size(0) == 0)) ts.push_back(t);
  if (ts.empty()) return Tensor::empty({0}, dt, tensors[0].device());
  const Tensor &ref = ts[0];
  check(ref.dim() > 0, op, "zero-dimensional tensor cannot be concatenated");
  int64_t d = wrapDim(dim, ref.dim(), op), total = 0;
  Device dev = ref.device();
  for (size_t k = 0; k < ts.size(); ++k) {
    check(ts[k].dim() == ref.dim(), op,
          "tensors must have the same rank: " + ref.shapeString() + " and " + ts[k].shapeString());
    for (int64_t j = 0; j < ref.dim(); ++j)
      check(j == d || ts[k].size(j) == ref.size(j), op,
            "sizes of tensors must match except in dimension " + std::to_string(d) + ": " + ref.shapeString() +
                " and " + ts[k].shapeString() + " (tensor " + std::to_string(k) + ")");
    total += ts[k].size(d);
    if (isMeta(ts[k])) dev = ts[k].device();
  }
  std::vector<int64_t> shape = ref.sizes();
  shape[d] = total;
  Tensor out = Tensor::empty(shape, dt, dev);
  if (isMeta(out)) return out;
  int64_t at = 0;
  for (const Tensor &t : ts) {
    std::vector<int64_t> st = out.strides();
    Tensor part = Tensor::view(out.storage(), out.offset() + at * out.stride(d), t.sizes(), st, dt);
    copyInto(part, t, op);
    at += t.size(d);
  }
  return out;
}

/// diff: `n` forward differences along `dim` (bool: x[i+1] != x[i]; integers wrap), with
/// `prepend` and `append` joined along `dim` first, as ATen's.
Tensor diff(const Tensor &self, int64_t n, int64_t dim, const std::optional<Tensor> &prepend,
            const std::optional<Tensor> &append) {
  const char *op = "aten::diff";
  check(n >= 0, op, "order must be non-negative, got " + std::to_string(n));
  check(self.dim() >= 1, op, "expects a tensor of at least one dim, got a scalar");
  int64_t d = wrapDim(dim, self.dim(), op);
  std::vector<Tensor> parts;
  if (prepend) parts.push_back(*prepend);
  parts.push_back(self);
  if (append) parts.push_back(*append);
  Tensor x = parts.size() > 1 ? cat(parts, d) : self.clone();
  for (int64_t k = 0; k < n; ++k) {
    std::vector<int64_t> shape = x.sizes();
    int64_t len = shape[d], outer = 1, inner = 1;
    shape[d] = std::max<int64_t>(len - 1, 0);
    Tensor out = emptyLike(shape, x.dtype(), x);
    if (isMeta(out) || out.numel() == 0) {
      x = out;
      continue;
    }
    for (int64_t i = 0; i < d; ++i) outer *= shape[i];
    for (int64_t i = d + 1; i < (int64_t)shape.size(); ++i) inner *= shape[i];
    Tensor c = x.contiguous();
    auto step = [&](auto tag, auto f) {
      using T = decltype(tag);
      const T *p = c.data<T>();
      T *q = out.data<T>();
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t j = 0; j + 1 < len; ++j)
          for (int64_t i = 0; i < inner; ++i)
            q[(o * (len - 1) + j) * inner + i] = f(p[(o * len + j + 1) * inner + i], p[(o * len + j) * inner + i]);
    };
    if (x.dtype() == DType::Bool)
      step(uint8_t{}, [](uint8_t a, uint8_t b) { return uint8_t((a != 0) != (b != 0)); });
    else
      dispatchNumeric(x.dtype(), op, [&](auto tag) {
        using T = decltype(tag);
        step(tag, [](T a, T b) {
          if constexpr (std::is_integral_v<T>)
            return (T)(std::make_unsigned_t<T>)((std::make_unsigned_t<T>)a - (std::make_unsigned_t<T>)b);
          else
            return a - b;
        });
      });
    x = out;
  }
  return x;
}

/// stack: each tensor given a new dim `dim` of size 1, then concatenated.
Tensor stack(std::vector<Tensor> tensors, int64_t dim) {
  const char *op = "aten::stack";
  check(!tensors.empty(), op, "expected a non-empty list of tensors");
  int64_t d = wrapDim(dim, tensors[0].dim() + 1, op);
  const std::vector<int64_t> shape = tensors[0].sizes();
  const std::string shapeText = tensors[0].shapeString();
  for (Tensor &t : tensors) {
    check(t.sizes() == shape, op,
          "stack expects each tensor to be equal size, but got " + shapeText + " and " + t.shapeString());
    t = call<Tensor>("aten::unsqueeze", t, d);
  }
  return cat(tensors, d);
}

KILN_LIBRARY_IMPL_CPU_AND_META(aten, m) {
  m.impl("stack", stack);
  m.impl("embedding", embedding);
  m.impl("index.Tensor", indexTensor);
  m.impl("index_put", indexPut);
  m.impl("index_put_", indexPutInplace);
  m.impl("index_select", indexSelect);
  m.impl("gather", gather);
  m.impl("scatter.src", scatterSrc);
  m.impl("scatter.value", scatterValue);
  m.impl("index_add", indexAdd);
  m.impl("scatter_reduce.two", scatterReduce);
  m.impl("index_copy", indexCopy);
  m.impl("take_along_dim", takeAlongDim);
  m.impl("index_fill.int_Scalar", indexFillScalar);
  m.impl("index_fill.int_Tensor", indexFillTensor);
  m.impl("scatter_.value", scatterValueInplace);
  m.impl("scatter_.src", scatterSrcInplace);
  m.impl("cat", cat);
  m.impl("diff", diff);
}

} // namespace
} // namespace kiln::cpu

KILN_LIBRARY_FRAGMENT(aten, m) {
  m.def("embedding(Tensor weight, Tensor indices, SymInt padding_idx=-1, bool scale_grad_by_freq=False, "
        "bool sparse=False) -> Tensor");
  m.def("index.Tensor(Tensor self, Tensor?[] indices) -> Tensor");
  m.def("index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor");
  m.def("index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor(a!)");
  m.def("index_select(Tensor self, int dim, Tensor index) -> Tensor");
  m.def("gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor");
  m.def("scatter.src(Tensor self, int dim, Tensor index, Tensor src) -> Tensor");
  m.def("scatter.value(Tensor self, int dim, Tensor index, Scalar value) -> Tensor");
  m.def("index_fill.int_Scalar(Tensor self, int dim, Tensor index, Scalar value) -> Tensor");
  m.def("index_fill.int_Tensor(Tensor self, int dim, Tensor index, Tensor value) -> Tensor");
  m.def("take_along_dim(Tensor self, Tensor indices, int? dim=None) -> Tensor");
  m.def("index_copy(Tensor self, int dim, Tensor index, Tensor source) -> Tensor");
  m.def("scatter_reduce.two(Tensor self, int dim, Tensor index, Tensor src, str reduce, *, bool include_self=True) -> Tensor");
  m.def("index_add(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) -> Tensor");
  m.def("scatter_.value(Tensor(a!) self, int dim, Tensor index, Scalar value) -> Tensor(a!)");
  m.def("scatter_.src(Tensor(a!) self, int dim, Tensor index, Tensor src) -> Tensor(a!)");
  m.def("cat(Tensor[] tensors, int dim=0) -> Tensor");
  m.def("diff(Tensor self, int n=1, int dim=-1, Tensor? prepend=None, Tensor? append=None) -> Tensor");
  m.def("stack(Tensor[] tensors, int dim=0) -> Tensor");
}
