// kiln runtime — eager CPU (and Meta) kernels that make or copy tensors:
// zeros/ones/full/empty (and their _like/new_ forms), arange, scalar_tensor,
// clone, _to_copy/to/type_as/contiguous, copy, lift_fresh_copy, fill_/zero_,
// linspace, eye, and the checks of an exported graph (_assert_tensor_metadata).
#include "TensorIter.h"

#include <cmath>
#include <cstring>

namespace kiln::cpu {
namespace {

/// The device of a factory's result: Meta if asked for, else CPU (this kernel's backend).
Device deviceFrom(const IValue &device, const Tensor *like) {
  if (device.isString() && device.toString() == "meta") return Device{DeviceType::Meta};
  if (like && isMeta(*like)) return like->device();
  return Device{};
}

Tensor filled(const std::vector<int64_t> &size, DType dt, Device dev, double v, const char *op) {
  for (int64_t s : size) check(s >= 0, op, "negative size in " + shapeToString(size));
  Tensor out = Tensor::empty(size, dt, dev);
  if (isMeta(out) || out.numel() == 0) return out;
  char *p = static_cast<char *>(out.rawData());
  size_t es = dtypeSize(dt);
  storeDouble(p, dt, v);
  for (int64_t i = 1, n = out.numel(); i < n; ++i) std::memcpy(p + i * es, p, es);
  return out;
}

/// ATen's default dtype of a fill value: bool, int64, or float32.
DType scalarDType(const IValue &v) {
  return v.isBool() ? DType::Bool : v.isInt() ? DType::Int64 : DType::Float32;
}

Tensor zeros(std::vector<int64_t> size, std::optional<DType> dt, IValue, IValue device, IValue) {
  return filled(size, dt.value_or(DType::Float32), deviceFrom(device, nullptr), 0, "aten::zeros");
}
Tensor ones(std::vector<int64_t> size, std::optional<DType> dt, IValue, IValue device, IValue) {
  return filled(size, dt.value_or(DType::Float32), deviceFrom(device, nullptr), 1, "aten::ones");
}
Tensor full(std::vector<int64_t> size, IValue v, std::optional<DType> dt, IValue, IValue device, IValue) {
  return filled(size, dt.value_or(scalarDType(v)), deviceFrom(device, nullptr), scalarValue(v, "aten::full"),
                "aten::full");
}
Tensor emptyMF(std::vector<int64_t> size, std::optional<DType> dt, IValue, IValue device, IValue, IValue) {
  for (int64_t s : size) check(s >= 0, "aten::empty", "negative size in " + shapeToString(size));
  return Tensor::empty(size, dt.value_or(DType::Float32), deviceFrom(device, nullptr));
}
Tensor emptyPermuted(std::vector<int64_t> size, std::vector<int64_t> perm, std::optional<DType> dt, IValue,
                     IValue device, IValue) {
  const char *op = "aten::empty_permuted";
  check(perm.size() == size.size(), op, "physical_layout must have one entry per dim");
  // Allocate in the physical order, then view it in the logical order.
  std::vector<int64_t> phys(size.size());
  for (size_t i = 0; i < perm.size(); ++i) phys[i] = size[wrapDim(perm[i], size.size(), op)];
  Tensor p = Tensor::empty(phys, dt.value_or(DType::Float32), deviceFrom(device, nullptr));
  std::vector<int64_t> pst = Tensor::contiguousStrides(phys), st(size.size());
  for (size_t i = 0; i < perm.size(); ++i) st[wrapDim(perm[i], size.size(), op)] = pst[i];
  return Tensor::view(p.storage(), 0, size, st, p.dtype());
}

Tensor fullLike(const Tensor &self, IValue v, std::optional<DType> dt, IValue, IValue device, IValue, IValue) {
  return filled(self.sizes(), dt.value_or(self.dtype()), deviceFrom(device, &self),
                scalarValue(v, "aten::full_like"), "aten::full_like");
}
Tensor zerosLike(const Tensor &self, std::optional<DType> dt, IValue, IValue device, IValue, IValue) {
  return filled(self.sizes(), dt.value_or(self.dtype()), deviceFrom(device, &self), 0, "aten::zeros_like");
}
Tensor onesLike(const Tensor &self, std::optional<DType> dt, IValue, IValue device, IValue, IValue) {
  return filled(self.sizes(), dt.value_or(self.dtype()), deviceFrom(device, &self), 1, "aten::ones_like");
}
Tensor emptyLikeOp(const Tensor &self, std::optional<DType> dt, IValue, IValue device, IValue, IValue) {
  return Tensor::empty(self.sizes(), dt.value_or(self.dtype()), deviceFrom(device, &self));
}
Tensor newZeros(const Tensor &self, std::vector<int64_t> size, std::optional<DType> dt, IValue, IValue device,
                IValue) {
  return filled(size, dt.value_or(self.dtype()), deviceFrom(device, &self), 0, "aten::new_zeros");
}
Tensor newOnes(const Tensor &self, std::vector<int64_t> size, std::optional<DType> dt, IValue, IValue device,
               IValue) {
  return filled(size, dt.value_or(self.dtype()), deviceFrom(device, &self), 1, "aten::new_ones");
}
Tensor newFull(const Tensor &self, std::vector<int64_t> size, IValue v, std::optional<DType> dt, IValue,
               IValue device, IValue) {
  return filled(size, dt.value_or(self.dtype()), deviceFrom(device, &self), scalarValue(v, "aten::new_full"),
                "aten::new_full");
}
Tensor newEmpty(const Tensor &self, std::vector<int64_t> size, std::optional<DType> dt, IValue, IValue device,
                IValue) {
  return Tensor::empty(size, dt.value_or(self.dtype()), deviceFrom(device, &self));
}

Tensor scalarTensor(IValue v, std::optional<DType> dt, IValue, IValue device, IValue) {
  // ATen's scalar_tensor defaults to the default float dtype whatever the Scalar.
  return filled({}, dt.value_or(DType::Float32), deviceFrom(device, nullptr),
                scalarValue(v, "aten::scalar_tensor"), "aten::scalar_tensor");
}

Tensor arangeImpl(const IValue &start, const IValue &end, const IValue &step, std::optional<DType> dt,
                  const IValue &device) {
  const char *op = "aten::arange";
  double s = scalarValue(start, op), e = scalarValue(end, op), st = scalarValue(step, op);
  check(st != 0, op, "step must be nonzero");
  check(std::isfinite(s) && std::isfinite(e), op, "unsupported range " + std::to_string(s) + " to " + std::to_string(e));
  check((st > 0 && e >= s) || (st < 0 && e <= s), op, "upper bound and larger bound inconsistent with step sign");
  bool anyFloat = start.isDouble() || end.isDouble() || step.isDouble();
  DType out = dt.value_or(anyFloat ? DType::Float32 : DType::Int64);
  int64_t n = (int64_t)std::ceil((e - s) / st);
  Tensor r = Tensor::empty({n}, out, deviceFrom(device, nullptr));
  if (isMeta(r)) return r;
  char *p = static_cast<char *>(r.rawData());
  size_t es = dtypeSize(out);
  for (int64_t i = 0; i < n; ++i) storeDouble(p + i * es, out, s + (double)i * st);
  return r;
}
/// An n x m identity matrix: ones on the main diagonal.
Tensor eyeImpl(int64_t n, int64_t m, std::optional<DType> dt, IValue device) {
  const char *op = "aten::eye";
  check(n >= 0 && m >= 0, op, "n and m must be non-negative, got " + std::to_string(n) + " and " + std::to_string(m));
  Tensor r = filled({n, m}, dt.value_or(DType::Float32), deviceFrom(device, nullptr), 0, op);
  if (isMeta(r)) return r;
  char *p = static_cast<char *>(r.rawData());
  size_t es = dtypeSize(r.dtype());
  for (int64_t i = 0; i < std::min(n, m); ++i) storeDouble(p + (i * m + i) * es, r.dtype(), 1);
  return r;
}
Tensor eye(int64_t n, std::optional<DType> dt, IValue, IValue device, IValue) { return eyeImpl(n, n, dt, device); }
Tensor eyeM(int64_t n, int64_t m, std::optional<DType> dt, IValue, IValue device, IValue) {
  return eyeImpl(n, m, dt, device);
}

/// `steps` values from start to end, evenly spaced; the second half counted back from end
/// (as ATen does, so both ends are exact).
Tensor linspace(IValue start, IValue end, int64_t steps, std::optional<DType> dt, IValue, IValue device, IValue) {
  const char *op = "aten::linspace";
  check(steps >= 0, op, "number of steps must be non-negative");
  double a = scalarValue(start, op), b = scalarValue(end, op);
  Tensor r = Tensor::empty({steps}, dt.value_or(DType::Float32), deviceFrom(device, nullptr));
  if (isMeta(r)) return r;
  char *p = static_cast<char *>(r.rawData());
  size_t es = dtypeSize(r.dtype());
  double step = steps > 1 ? (b - a) / (double)(steps - 1) : 0;
  for (int64_t i = 0; i < steps; ++i)
    storeDouble(p + i * es, r.dtype(), i < steps / 2 ? a + step * (double)i : b - step * (double)(steps - 1 - i));
  return r;
}

Tensor arange(IValue end, std::optional<DType> dt, IValue, IValue device, IValue) {
  return arangeImpl(IValue((int64_t)0), end, IValue((int64_t)1), dt, device);
}
Tensor arangeStart(IValue start, IValue end, std::optional<DType> dt, IValue, IValue device, IValue) {
  return arangeImpl(start, end, IValue((int64_t)1), dt, device);
}
Tensor arangeStartStep(IValue start, IValue end, IValue step, std::optional<DType> dt, IValue, IValue device,
                       IValue) {
  return arangeImpl(start, end, step, dt, device);
}

/// A fresh copy converted to `dt`, in self's memory layout (ATen's preserve_format).
Tensor copyAs(const Tensor &self, DType dt) {
  Tensor out = emptyPreserving(self, dt);
  copyInto(out, self, "aten::_to_copy");
  return out;
}
/// A copy in the layout a memory_format asks for: torch.export's codes 1
/// (contiguous_format) and 2 (channels_last, 4-D); None or 4 (preserve_format) keep self's.
Tensor copyWithFormat(const Tensor &self, DType dt, const IValue &fmt, const char *op) {
  int64_t code = fmt.isInt() ? fmt.toInt() : fmt.isString() && fmt.toString() == "contiguous_format" ? 1 : 4;
  if (code == 4 || code == 0) return copyAs(self, dt);
  Tensor out;
  if (code == 2 && self.dim() == 4) {
    std::vector<int64_t> s = self.sizes();
    Tensor p = Tensor::empty({s[0], s[2], s[3], s[1]}, dt, self.device());
    out = Tensor::view(p.storage(), 0, s, {s[1] * s[2] * s[3], 1, s[3] * s[1], s[1]}, dt);
  } else {
    check(code == 1, op, "memory_format " + std::to_string(code) + " is not supported by the eager CPU kernel");
    out = Tensor::empty(self.sizes(), dt, self.device());
  }
  copyInto(out, self, op);
  return out;
}
Tensor clone(const Tensor &self, IValue fmt) { return copyWithFormat(self, self.dtype(), fmt, "aten::clone"); }
Tensor liftFreshCopy(const Tensor &self) { return copyAs(self, self.dtype()); }
Tensor toCopy(const Tensor &self, std::optional<DType> dt, IValue, IValue, IValue, bool, IValue fmt) {
  return copyWithFormat(self, dt.value_or(self.dtype()), fmt, "aten::_to_copy");
}
/// to(): the tensor itself when nothing changes and no copy is asked for.
Tensor toImpl(const Tensor &self, DType dt, bool copy) {
  if (dt == self.dtype() && !copy) return self;
  return copyAs(self, dt);
}
Tensor toDtype(const Tensor &self, DType dt, bool, bool copy, IValue) { return toImpl(self, dt, copy); }
Tensor toDevice(const Tensor &self, IValue, DType dt, bool, bool copy, IValue) { return toImpl(self, dt, copy); }
Tensor toDtypeLayout(const Tensor &self, std::optional<DType> dt, IValue, IValue, IValue, bool, bool copy,
                     IValue) {
  return toImpl(self, dt.value_or(self.dtype()), copy);
}
Tensor typeAs(const Tensor &self, const Tensor &other) { return toImpl(self, other.dtype(), false); }
Tensor contiguous(const Tensor &self, IValue) {
  if (self.isContiguous()) return self;
  Tensor out = Tensor::empty(self.sizes(), self.dtype(), self.device());
  copyInto(out, self, "aten::contiguous");
  return out;
}

/// copy(self, src): a new tensor shaped and typed like self holding src's values.
Tensor copyOp(const Tensor &self, const Tensor &src, bool) {
  Tensor out = Tensor::empty(self.sizes(), self.dtype(), self.device());
  copyInto(out, src, "aten::copy");
  return out;
}
Tensor copyInplace(Tensor self, const Tensor &src, bool) {
  copyInto(self, src, "aten::copy_");
  return self;
}
Tensor fillScalar(Tensor self, IValue v) {
  Tensor val = filled({}, self.dtype(), self.device(), scalarValue(v, "aten::fill_"), "aten::fill_");
  copyInto(self, val, "aten::fill_.Scalar");
  return self;
}
Tensor fillTensor(Tensor self, const Tensor &v) {
  check(v.dim() == 0, "aten::fill_.Tensor", "the fill value must be a 0-dim tensor, got " + v.shapeString());
  copyInto(self, v, "aten::fill_.Tensor");
  return self;
}
Tensor zeroInplace(Tensor self) { return fillScalar(self, IValue((int64_t)0)); }

/// The exporter's metadata check: verifies what it states, computes nothing.
void assertTensorMetadata(const Tensor &a, std::optional<std::vector<int64_t>> size,
                          std::optional<std::vector<int64_t>> stride, std::optional<DType> dtype, IValue,
                          IValue) {
  const char *op = "aten::_assert_tensor_metadata";
  if (dtype)
    check(a.dtype() == *dtype, op,
          std::string("tensor has dtype ") + dtypeTorchName(a.dtype()) + ", expected " + dtypeTorchName(*dtype));
  if (size) check(a.sizes() == *size, op, "tensor has shape " + a.shapeString() + ", expected " + shapeToString(*size));
  (void)stride; // strides are a layout choice the eager runtime may make differently
}

KILN_LIBRARY_IMPL_CPU_AND_META(aten, m) {
  m.impl("zeros", zeros);
  m.impl("ones", ones);
  m.impl("full", full);
  m.impl("empty.memory_format", emptyMF);
  m.impl("empty_permuted", emptyPermuted);
  m.impl("full_like", fullLike);
  m.impl("zeros_like", zerosLike);
  m.impl("ones_like", onesLike);
  m.impl("empty_like", emptyLikeOp);
  m.impl("new_zeros", newZeros);
  m.impl("new_ones", newOnes);
  m.impl("new_full", newFull);
  m.impl("new_empty", newEmpty);
  m.impl("scalar_tensor", scalarTensor);
  m.impl("linspace", linspace);
  m.impl("eye", eye);
  m.impl("eye.m", eyeM);
  m.impl("arange", arange);
  m.impl("arange.start", arangeStart);
  m.impl("arange.start_step", arangeStartStep);
  m.impl("clone", clone);
  m.impl("lift_fresh_copy", liftFreshCopy);
  m.impl("_to_copy", toCopy);
  m.impl("to.dtype", toDtype);
  m.impl("to.device", toDevice);
  m.impl("to.dtype_layout", toDtypeLayout);
  m.impl("type_as", typeAs);
  m.impl("contiguous", contiguous);
  m.impl("copy", copyOp);
  m.impl("copy_", copyInplace);
  m.impl("fill_.Scalar", fillScalar);
  m.impl("fill_.Tensor", fillTensor);
  m.impl("zero_", zeroInplace);
  m.impl("_assert_tensor_metadata", assertTensorMetadata);
}

} // namespace
} // namespace kiln::cpu

KILN_LIBRARY_FRAGMENT(aten, m) {
  const std::string opts = "ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None";
  const std::string likeOpts = opts + ", MemoryFormat? memory_format=None";
  m.def("zeros(SymInt[] size, *, " + opts + ") -> Tensor");
  m.def("ones(SymInt[] size, *, " + opts + ") -> Tensor");
  m.def("full(SymInt[] size, Scalar fill_value, *, " + opts + ") -> Tensor");
  m.def("empty.memory_format(SymInt[] size, *, " + likeOpts + ") -> Tensor");
  m.def("empty_permuted(SymInt[] size, int[] physical_layout, *, " + opts + ") -> Tensor");
  m.def("full_like(Tensor self, Scalar fill_value, *, " + likeOpts + ") -> Tensor");
  m.def("zeros_like(Tensor self, *, " + likeOpts + ") -> Tensor");
  m.def("ones_like(Tensor self, *, " + likeOpts + ") -> Tensor");
  m.def("empty_like(Tensor self, *, " + likeOpts + ") -> Tensor");
  m.def("new_zeros(Tensor self, SymInt[] size, *, " + opts + ") -> Tensor");
  m.def("new_ones(Tensor self, SymInt[] size, *, " + opts + ") -> Tensor");
  m.def("new_full(Tensor self, SymInt[] size, Scalar fill_value, *, " + opts + ") -> Tensor");
  m.def("new_empty(Tensor self, SymInt[] size, *, " + opts + ") -> Tensor");
  m.def("scalar_tensor(Scalar s, *, " + opts + ") -> Tensor");
  m.def("arange(Scalar end, *, " + opts + ") -> Tensor");
  m.def("linspace(Scalar start, Scalar end, int steps, *, " + opts + ") -> Tensor");
  m.def("eye(SymInt n, *, " + opts + ") -> Tensor");
  m.def("eye.m(SymInt n, SymInt m, *, " + opts + ") -> Tensor");
  m.def("arange.start(Scalar start, Scalar end, *, " + opts + ") -> Tensor");
  m.def("arange.start_step(Scalar start, Scalar end, Scalar step=1, *, " + opts + ") -> Tensor");
  m.def("clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor");
  m.def("lift_fresh_copy(Tensor self) -> Tensor");
  m.def("_to_copy(Tensor self, *, " + opts + ", bool non_blocking=False, MemoryFormat? memory_format=None) -> Tensor");
  m.def("to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, bool copy=False, "
        "MemoryFormat? memory_format=None) -> Tensor(a)");
  m.def("to.device(Tensor(a) self, Device device, ScalarType dtype, bool non_blocking=False, "
        "bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)");
  m.def("to.dtype_layout(Tensor(a) self, *, " + opts +
        ", bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)");
  m.def("type_as(Tensor self, Tensor other) -> Tensor");
  m.def("contiguous(Tensor(a) self, *, MemoryFormat memory_format=contiguous_format) -> Tensor(a)");
  m.def("copy(Tensor self, Tensor src, bool non_blocking=False) -> Tensor");
  m.def("copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)");
  m.def("fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)");
  m.def("fill_.Tensor(Tensor(a!) self, Tensor value) -> Tensor(a!)");
  m.def("zero_(Tensor(a!) self) -> Tensor(a!)");
  m.def("_assert_tensor_metadata(Tensor a, SymInt[]? size=None, SymInt[]? stride=None, "
        "ScalarType? dtype=None, *, Device? device=None, Layout? layout=None) -> ()");
}
