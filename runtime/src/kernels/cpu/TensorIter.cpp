// kiln runtime — strided copies and ATen's result_type for the generic eager kernels.
#include "TensorIter.h"

#include <algorithm>
#include <cstring>
#include <optional>

namespace kiln::cpu {

DType promoteTypesAten(DType a, DType b) {
  if (a == b) return a;
  if ((a == DType::Float16 && b == DType::BFloat16) || (a == DType::BFloat16 && b == DType::Float16))
    return DType::Float32;
  if ((a == DType::Int8 && b == DType::UInt8) || (a == DType::UInt8 && b == DType::Int8))
    return DType::Int16;
  return promoteTypes(a, b);
}

DType resultType(const std::vector<PromoteOperand> &ops) {
  // Three tiers as in ATen: dim>0 tensors, 0-dim tensors, wrapped scalars.
  std::optional<DType> dimRes, zeroRes, scalarRes;
  auto upd = [](std::optional<DType> &r, DType t) { r = r ? promoteTypesAten(*r, t) : t; };
  for (const PromoteOperand &o : ops) {
    if (o.tensor) {
      if (!o.tensor->defined()) continue;
      upd(o.tensor->dim() > 0 ? dimRes : zeroRes, o.tensor->dtype());
    } else if (o.scalar && !o.scalar->isNone()) {
      DType t = o.scalar->isDouble() ? DType::Float32 : o.scalar->isBool() ? DType::Bool : DType::Int64;
      upd(scalarRes, t);
    }
  }
  std::optional<DType> r = dimRes;
  for (const auto &lower : {zeroRes, scalarRes}) {
    if (!lower) continue;
    if (!r) r = lower;
    else if (dtypeCategory(*lower) > dtypeCategory(*r))
      // A higher-category lower tier only sets the category: its float is float32.
      r = dtypeCategory(*lower) == 2 && !isFloatingPoint(*r) && lower == scalarRes ? DType::Float32
                                                                                    : promoteTypesAten(*r, *lower);
  }
  return r ? *r : DType::Float32;
}

Tensor emptyPreserving(const Tensor &like, DType dt) {
  int64_t r = like.dim();
  if (isMeta(like) || like.isContiguous() || r < 2) return Tensor::empty(like.sizes(), dt, like.device());
  std::vector<int64_t> order(r);
  for (int64_t d = 0; d < r; ++d) order[d] = d;
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return like.stride(a) > like.stride(b); });
  // Dense and non-overlapping: the strides, innermost first, are the running products of the sizes.
  int64_t expect = 1;
  for (int64_t i = r - 1; i >= 0; --i) {
    int64_t d = order[i];
    if (like.size(d) == 1) continue;
    if (like.stride(d) != expect) return Tensor::empty(like.sizes(), dt, like.device());
    expect *= like.size(d);
  }
  std::vector<int64_t> phys(r), st(r);
  for (int64_t i = 0; i < r; ++i) phys[i] = like.size(order[i]);
  std::vector<int64_t> pst = Tensor::contiguousStrides(phys);
  for (int64_t i = 0; i < r; ++i) st[order[i]] = pst[i];
  Tensor p = Tensor::empty(phys, dt, like.device());
  return Tensor::view(p.storage(), 0, like.sizes(), st, dt);
}

void copyInto(const Tensor &dst, const Tensor &src, const char *op) {
  std::vector<int64_t> shape = broadcastShapes(dst.sizes(), src.sizes(), op);
  check(shape == dst.sizes(), op,
        "cannot write a value of shape " + src.shapeString() + " into a tensor of shape " + dst.shapeString());
  if (isMeta(dst) || isMeta(src)) return;
  size_t ds = dtypeSize(dst.dtype());
  if (src.dtype() == dst.dtype() && src.sizes() == dst.sizes() && src.isContiguous() && dst.isContiguous()) {
    if (dst.rawData() != src.rawData()) std::memmove(dst.rawData(), src.rawData(), (size_t)dst.numel() * ds);
    return;
  }
  // A source that overlaps the destination is read from a copy first.
  Tensor s = src.storage() == dst.storage() ? src.clone() : src;
  std::array<std::vector<int64_t>, 2> st{dst.strides(), broadcastStrides(s, shape)};
  char *pd = elemPtr(dst, 0);
  const char *ps = elemPtr(s, 0);
  size_t ss = dtypeSize(s.dtype());
  DType dt = dst.dtype(), sdt = s.dtype();
  forEachIndex<2>(shape, st, [&](const std::array<int64_t, 2> &o) {
    if (dt == sdt) std::memcpy(pd + o[0] * ds, ps + o[1] * ss, ds);
    else storeDouble(pd + o[0] * ds, dt, loadDouble(ps + o[1] * ss, sdt));
  });
}

double scalarValue(const IValue &v, const char *op) {
  check(v.isScalar(), op, "expected a number");
  return v.toDouble();
}

} // namespace kiln::cpu

namespace kiln::cpu {
Tensor scalarOperand(const IValue &v, const char *op) {
  Tensor t = Tensor::empty({}, DType::Float64);
  *t.data<double>() = scalarValue(v, op);
  return t;
}
} // namespace kiln::cpu
