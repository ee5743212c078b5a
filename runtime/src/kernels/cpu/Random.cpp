// kiln runtime — eager CPU random kernels: rand, randn, randint (and their _like forms), bernoulli,
// native_dropout and dropout, drawing from the stream the interpreter sets for the node (Philox.h), so
// an eager run draws the numbers a compiled run with the same generator state draws.
#include "KernelUtils.h"
#include "Philox.h"

#include <cmath>

namespace kiln::cpu {

namespace {
thread_local const RandomStream *tlsStream = nullptr;
}

const RandomStream *currentRandomStream() { return tlsStream; }
RandomStreamScope::RandomStreamScope(const RandomStream *s) : previous_(tlsStream) { tlsStream = s; }
RandomStreamScope::~RandomStreamScope() { tlsStream = previous_; }

namespace {

const RandomStream &streamFor(const char *op) {
  const RandomStream *s = currentRandomStream();
  check(s != nullptr, op,
        "random numbers need the program's generator state: run the op inside a program (kiln-run model.pt2, "
        "kiln::eager::Program), which numbers its random ops");
  return *s;
}

/// A uniform number in [0, 1) (`open`: (0, 1)) of `dt`'s precision from element words `w` as a
/// compiled program makes it: the top mantissa-width bits of w[first] (53 bits of two words for float64).
double uniform(DType dt, const std::array<uint32_t, 4> &w, int first, bool open) {
  if (dt == DType::Float64) {
    uint64_t bits = (((uint64_t)w[first] << 32) | w[first + 1]) >> 11;
    return ((double)bits + (open ? 0.5 : 0.0)) * 0x1p-53;
  }
  int mant = dt == DType::Float16 ? 11 : dt == DType::BFloat16 ? 8 : 24;
  float f = (float)(w[first] >> (32 - mant)) + (open ? 0.5f : 0.0f);
  return (double)(f * std::ldexp(1.0f, -mant));
}

/// Standard normal numbers by Box-Muller of two uniforms, in float32 (float64 for float64).
double normal(DType dt, const std::array<uint32_t, 4> &w) {
  double u1 = uniform(dt, w, 0, true), u2 = uniform(dt, w, 2, false);
  if (dt == DType::Float64) return std::sqrt(-2.0 * std::log(u1)) * std::cos(2 * M_PI * u2);
  float r = std::sqrt((float)u1 > 0 ? std::log((float)u1) * -2.0f : 0.0f);
  return (double)(r * std::cos((float)u2 * (float)(2 * M_PI)));
}

/// A [sizes] tensor of `dt` whose element i is f(words of element i, i).
template <typename F> Tensor draw(const std::vector<int64_t> &sizes, DType dt, Device dev, const char *op, F f) {
  for (int64_t s : sizes) check(s >= 0, op, "negative size in " + shapeToString(sizes));
  Tensor out = Tensor::empty(sizes, dt, dev);
  if (isMeta(out)) return out;
  const RandomStream &s = streamFor(op);
  char *p = static_cast<char *>(out.rawData());
  size_t es = dtypeSize(dt);
  parallelFor(out.numel(), 4096, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) storeDouble(p + i * es, dt, f(randomWords(s, (uint64_t)i), i));
  });
  return out;
}

Device deviceOf(const IValue &device) {
  return device.isString() && device.toString() == "meta" ? Device{DeviceType::Meta} : Device{};
}

Tensor uniformOf(const std::vector<int64_t> &sizes, DType dt, Device dev, const char *op) {
  check(isFloatingPoint(dt), op, std::string("rand of a non-floating-point dtype ") + dtypeName(dt));
  return draw(sizes, dt, dev, op, [&](const std::array<uint32_t, 4> &w, int64_t) { return uniform(dt, w, 0, false); });
}
Tensor normalOf(const std::vector<int64_t> &sizes, DType dt, Device dev, const char *op) {
  check(isFloatingPoint(dt), op, std::string("randn of a non-floating-point dtype ") + dtypeName(dt));
  return draw(sizes, dt, dev, op, [&](const std::array<uint32_t, 4> &w, int64_t) { return normal(dt, w); });
}

Tensor rand(std::vector<int64_t> size, std::optional<DType> dt, IValue, IValue device, IValue) {
  return uniformOf(size, dt.value_or(DType::Float32), deviceOf(device), "aten::rand");
}
Tensor randn(std::vector<int64_t> size, std::optional<DType> dt, IValue, IValue device, IValue) {
  return normalOf(size, dt.value_or(DType::Float32), deviceOf(device), "aten::randn");
}
Tensor randLike(const Tensor &self, std::optional<DType> dt, IValue, IValue, IValue, IValue) {
  return uniformOf(self.sizes(), dt.value_or(self.dtype()), self.device(), "aten::rand_like");
}
Tensor randnLike(const Tensor &self, std::optional<DType> dt, IValue, IValue, IValue, IValue) {
  return normalOf(self.sizes(), dt.value_or(self.dtype()), self.device(), "aten::randn_like");
}

/// low + floor(u * (high - low)) with u uniform in float64.
Tensor randintImpl(int64_t low, int64_t high, const std::vector<int64_t> &sizes, DType dt, Device dev,
                   const char *op) {
  check(high > low, op, "random_ expects 'from' to be less than 'to', but got from=" + std::to_string(low) +
                            " >= to=" + std::to_string(high));
  double span = (double)(high - low);
  return draw(sizes, dt, dev, op, [&](const std::array<uint32_t, 4> &w, int64_t) {
    return std::floor(uniform(DType::Float64, w, 0, false) * span) + (double)low;
  });
}
Tensor randint(int64_t high, std::vector<int64_t> size, std::optional<DType> dt, IValue, IValue device, IValue) {
  return randintImpl(0, high, size, dt.value_or(DType::Int64), deviceOf(device), "aten::randint");
}
Tensor randintLow(int64_t low, int64_t high, std::vector<int64_t> size, std::optional<DType> dt, IValue,
                  IValue device, IValue) {
  return randintImpl(low, high, size, dt.value_or(DType::Int64), deviceOf(device), "aten::randint");
}
Tensor randintLike(const Tensor &self, int64_t high, std::optional<DType> dt, IValue, IValue, IValue, IValue) {
  return randintImpl(0, high, self.sizes(), dt.value_or(self.dtype()), self.device(), "aten::randint_like");
}
Tensor randintLikeLow(const Tensor &self, int64_t low, int64_t high, std::optional<DType> dt, IValue, IValue,
                      IValue, IValue) {
  return randintImpl(low, high, self.sizes(), dt.value_or(self.dtype()), self.device(), "aten::randint_like");
}

/// The uniform numbers a random op over `x` compares against: float64 for a float64 x, else float32.
DType uniformDType(const Tensor &x) { return x.dtype() == DType::Float64 ? DType::Float64 : DType::Float32; }

/// 1 where u < p (p per element of `probs`, or the number `p`), else 0, in self's dtype.
Tensor bernoulliImpl(const Tensor &self, const Tensor *probs, double p, const char *op) {
  check(isFloatingPoint(self.dtype()), op, "expects a floating-point tensor");
  DType ud = uniformDType(self);
  Tensor pd = probs ? castTo(*probs, DType::Float64) : Tensor();
  const double *pp = probs && !isMeta(pd) ? pd.data<double>() : nullptr;
  // The threshold in the uniform numbers' precision, as the compiled comparison sees it.
  auto inUd = [&](double v) { return ud == DType::Float64 ? v : (double)(float)v; };
  return draw(self.sizes(), self.dtype(), self.device(), op, [&](const std::array<uint32_t, 4> &w, int64_t i) {
    return uniform(ud, w, 0, false) < inUd(pp ? pp[i] : p) ? 1.0 : 0.0;
  });
}
Tensor bernoulli(const Tensor &self, IValue) { return bernoulliImpl(self, &self, 0, "aten::bernoulli"); }
Tensor bernoulliP(const Tensor &self, double p, IValue) { return bernoulliImpl(self, nullptr, p, "aten::bernoulli"); }

/// (x * mask * 1/(1-p), mask) with mask = u >= p (each element kept with probability 1 - p);
/// out of training or with p = 0, (x, ones); with p = 1, (x * 0, zeros).
std::tuple<Tensor, Tensor> nativeDropoutImpl(const Tensor &input, double p, bool train, const char *op) {
  check(p >= 0 && p <= 1, op, "dropout probability has to be between 0 and 1, but got " + std::to_string(p));
  check(isFloatingPoint(input.dtype()), op, "dropout of a non-floating-point tensor");
  Tensor mask = Tensor::empty(input.sizes(), DType::Bool, input.device());
  if (!train || p == 0) {
    if (!isMeta(mask)) std::fill(mask.data<uint8_t>(), mask.data<uint8_t>() + mask.numel(), uint8_t(1));
    return {input, mask};
  }
  Tensor out = Tensor::empty(input.sizes(), input.dtype(), input.device());
  if (isMeta(out)) return {out, mask};
  Tensor x = input.contiguous();
  uint8_t *pm = mask.data<uint8_t>();
  if (p < 1) {
    const RandomStream &s = streamFor(op);
    DType ud = uniformDType(input);
    double th = ud == DType::Float64 ? p : (double)(float)p;
    parallelFor(mask.numel(), 4096, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) pm[i] = uniform(ud, randomWords(s, (uint64_t)i), 0, false) >= th;
    });
  } else {
    std::fill(pm, pm + mask.numel(), uint8_t(0));
  }
  dispatchFloat(x.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T *px = x.data<T>();
    T *po = out.data<T>();
    T scale = p < 1 ? (T)(1.0 / (1.0 - p)) : T(0);
    for (int64_t i = 0, n = x.numel(); i < n; ++i) po[i] = p < 1 ? (px[i] * (T)pm[i]) * scale : px[i] * T(0);
  });
  return {out, mask};
}
std::tuple<Tensor, Tensor> nativeDropout(const Tensor &input, double p, std::optional<bool> train) {
  return nativeDropoutImpl(input, p, train.value_or(true), "aten::native_dropout");
}
Tensor dropout(const Tensor &input, double p, bool train) {
  return std::get<0>(nativeDropoutImpl(input, p, train, "aten::dropout"));
}
Tensor dropoutInplace(Tensor self, double p, bool train) {
  if (!train || p == 0) return self;
  self.copyFrom(std::get<0>(nativeDropoutImpl(self, p, train, "aten::dropout_")));
  return self;
}

KILN_LIBRARY_IMPL_CPU_AND_META(aten, m) {
  m.impl("rand", rand);
  m.impl("randn", randn);
  m.impl("rand_like", randLike);
  m.impl("randn_like", randnLike);
  m.impl("randint", randint);
  m.impl("randint.low", randintLow);
  m.impl("randint_like", randintLike);
  m.impl("randint_like.low_dtype", randintLikeLow);
  m.impl("bernoulli", bernoulli);
  m.impl("bernoulli.p", bernoulliP);
  m.impl("native_dropout", nativeDropout);
  m.impl("dropout", dropout);
  m.impl("dropout_", dropoutInplace);
}

} // namespace
} // namespace kiln::cpu

KILN_LIBRARY_FRAGMENT(aten, m) {
  const std::string opts = "ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None";
  const std::string likeOpts = opts + ", MemoryFormat? memory_format=None";
  m.def("rand(SymInt[] size, *, " + opts + ") -> Tensor");
  m.def("randn(SymInt[] size, *, " + opts + ") -> Tensor");
  m.def("rand_like(Tensor self, *, " + likeOpts + ") -> Tensor");
  m.def("randn_like(Tensor self, *, " + likeOpts + ") -> Tensor");
  m.def("randint(SymInt high, SymInt[] size, *, " + opts + ") -> Tensor");
  m.def("randint.low(SymInt low, SymInt high, SymInt[] size, *, " + opts + ") -> Tensor");
  m.def("randint_like(Tensor self, SymInt high, *, " + likeOpts + ") -> Tensor");
  m.def("randint_like.low_dtype(Tensor self, SymInt low, SymInt high, *, " + likeOpts + ") -> Tensor");
  m.def("bernoulli(Tensor self, *, Generator? generator=None) -> Tensor");
  m.def("bernoulli.p(Tensor self, float p, *, Generator? generator=None) -> Tensor");
  m.def("native_dropout(Tensor input, float p, bool? train) -> (Tensor, Tensor)");
  m.def("dropout(Tensor input, float p, bool train) -> Tensor");
  m.def("dropout_(Tensor(a!) self, float p, bool train) -> Tensor(a!)");
}
