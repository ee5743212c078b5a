// kiln runtime — 16-bit float calls rerun through the float32 CPU kernels (see Float16Fallback.h).
#include "Float16Fallback.h"

#include "kiln/half.h"

#include <functional>
#include <optional>

namespace kiln {
namespace {

template <typename F> void forEachTensor(const IValue &v, F &&f) {
  if (v.isTensor()) f(v.toTensor());
  else if (v.isTensorList()) for (const Tensor &t : v.toTensorList()) f(t);
  else if (v.isList())
    for (const IValue &x : v.toList())
      if (x.isTensor()) f(x.toTensor());
}

/// `t` (contiguous copy) converted element by element between float32 and a 16-bit float.
Tensor convert(const Tensor &t, DType to) {
  Tensor src = t.contiguous();
  Tensor out = Tensor::empty(src.sizes(), to, src.device());
  int64_t n = src.numel();
  if (src.dtype() == DType::Float32) {
    const float *s = src.data<float>();
    uint16_t *d = static_cast<uint16_t *>(out.rawData());
    for (int64_t i = 0; i < n; ++i) d[i] = to == DType::BFloat16 ? floatToBF16Bits(s[i]) : floatToHalfBits(s[i]);
  } else {
    const uint16_t *s = static_cast<const uint16_t *>(src.rawData());
    float *d = out.data<float>();
    for (int64_t i = 0; i < n; ++i)
      d[i] = src.dtype() == DType::BFloat16 ? bf16BitsToFloat(s[i]) : halfBitsToFloat(s[i]);
  }
  return out;
}

IValue mapTensors(const IValue &v, const std::function<Tensor(const Tensor &)> &f) {
  if (v.isTensor()) return IValue(f(v.toTensor()));
  if (v.isTensorList()) {
    std::vector<Tensor> ts;
    for (const Tensor &t : v.toTensorList()) ts.push_back(f(t));
    return IValue(ts);
  }
  if (v.isList()) {
    std::vector<IValue> xs;
    for (const IValue &x : v.toList()) xs.push_back(x.isTensor() ? IValue(f(x.toTensor())) : x);
    return IValue::list(std::move(xs));
  }
  return v;
}

} // namespace

bool holdsFloat16(const Stack &stack) {
  bool found = false;
  for (const IValue &v : stack) forEachTensor(v, [&](const Tensor &t) { found |= t.defined() && isFloat16(t.dtype()); });
  return found;
}

bool runInFloat32(const FunctionSchema &schema, const Stack &args, Stack &stack,
                  const std::function<void(Stack &)> &kernel) {
  for (const Argument &a : schema.arguments)
    if (a.alias) return false; // writes or returns a view of an argument
  for (const Argument &r : schema.returns)
    if (r.alias) return false;
  std::optional<DType> half;
  bool mixed = false;
  for (const IValue &v : args)
    forEachTensor(v, [&](const Tensor &t) {
      if (!t.defined() || !isFloat16(t.dtype())) return;
      if (half && *half != t.dtype()) mixed = true;
      half = t.dtype();
    });
  if (!half || mixed) return false;
  stack.clear();
  for (const IValue &v : args)
    stack.push_back(mapTensors(v, [](const Tensor &t) {
      return t.defined() && isFloat16(t.dtype()) && t.device().type == DeviceType::CPU ? convert(t, DType::Float32) : t;
    }));
  kernel(stack);
  for (IValue &v : stack)
    v = mapTensors(v, [&](const Tensor &t) {
      return t.defined() && t.dtype() == DType::Float32 && t.device().type == DeviceType::CPU ? convert(t, *half) : t;
    });
  return true;
}

} // namespace kiln
