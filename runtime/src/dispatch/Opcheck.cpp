// kiln runtime — opcheck: schema annotations, fake function, backward formula
// every dispatch key and the batching rule of an op, tested against each other on samples.
#include "kiln/opcheck.h"
#include "kiln/library.h"

#include <cmath>
#include <cstring>
#include <random>
#include <sstream>

namespace kiln {

bool OpcheckReport::ok() const {
  for (const OpcheckResult &r : results)
    if (!r.passed) return false;
  return true;
}
std::vector<OpcheckResult> OpcheckReport::failures() const {
  std::vector<OpcheckResult> f;
  for (const OpcheckResult &r : results)
    if (!r.passed) f.push_back(r);
  return f;
}
std::string OpcheckReport::str() const {
  std::ostringstream os;
  for (const OpcheckResult &r : results) {
    os << (r.passed ? (r.skipped ? "SKIP" : "PASS") : "FAIL") << " " << op << " " << r.test;
    if (r.sample >= 0) os << " [sample " << r.sample << "]";
    if (!r.message.empty()) os << ": " << r.message;
    os << "\n";
  }
  return os.str();
}

namespace {

// ---- tensors ---------------------------------------------------------------
Tensor randomTensor(const std::vector<int64_t> &shape, DType dt, std::mt19937 &rng) {
  Tensor t = Tensor::empty(shape, dt);
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  for (int64_t i = 0; i < t.numel(); ++i) {
    double v = u(rng);
    if (dt == DType::Float32) t.data<float>()[i] = (float)v;
    else if (dt == DType::Float64) t.data<double>()[i] = v;
    else if (dt == DType::Int64) t.data<int64_t>()[i] = (int64_t)std::floor(v * 3);
  }
  return t;
}

double elementAt(const Tensor &t, int64_t i) {
  switch (t.dtype()) {
  case DType::Float32: return t.data<float>()[i];
  case DType::Float64: return t.data<double>()[i];
  case DType::Int64: return (double)t.data<int64_t>()[i];
  case DType::Int32: return t.data<int32_t>()[i];
  case DType::Bool: case DType::UInt8: return t.data<uint8_t>()[i];
  default: throw Error(std::string("kiln: opcheck cannot read dtype ") + dtypeName(t.dtype()));
  }
}
void setElement(Tensor &t, int64_t i, double v) {
  if (t.dtype() == DType::Float32) t.data<float>()[i] = (float)v;
  else if (t.dtype() == DType::Float64) t.data<double>()[i] = v;
  else throw Error("kiln: opcheck can only perturb floating-point tensors");
}

Tensor toDType(const Tensor &t, DType dt) {
  Tensor c = t.contiguous();
  if (c.dtype() == dt) return c.clone();
  Tensor out = Tensor::empty(c.sizes(), dt);
  for (int64_t i = 0; i < c.numel(); ++i) setElement(out, i, elementAt(c, i));
  return out;
}

Tensor toMeta(const Tensor &t) {
  if (!t.defined()) return t;
  Tensor m = Tensor::empty(t.sizes(), t.dtype(), Device{DeviceType::Meta, 0});
  m.setRequiresGrad(t.requiresGrad());
  return m;
}

/// Deep copy of a stack (tensors cloned) so each run starts from the same data.
template <typename F> Stack mapTensors(const Stack &s, F f) {
  Stack r;
  for (const IValue &v : s) {
    if (v.isTensor() && v.toTensor().defined()) r.emplace_back(f(v.toTensor()));
    else if (v.isTensorList()) {
      std::vector<Tensor> ts;
      for (auto &t : v.toTensorList()) ts.push_back(f(t));
      r.emplace_back(ts);
    } else r.push_back(v);
  }
  return r;
}
Stack deepCopy(const Stack &s) {
  return mapTensors(s, [](const Tensor &t) {
    Tensor c = t.clone();
    c.setRequiresGrad(t.requiresGrad());
    return c;
  });
}

bool sameBytes(const Tensor &a, const Tensor &b) {
  Tensor x = a.contiguous(), y = b.contiguous();
  return x.sizes() == y.sizes() && x.dtype() == y.dtype() &&
         (x.nbytes() == 0 || std::memcmp(x.rawData(), y.rawData(), x.nbytes()) == 0);
}

/// Empty string if close, else where they differ.
std::string compareTensors(const Tensor &a, const Tensor &b, double atol, double rtol) {
  if (a.sizes() != b.sizes()) return "shapes " + a.shapeString() + " vs " + b.shapeString();
  if (a.dtype() != b.dtype())
    return std::string("dtypes ") + dtypeName(a.dtype()) + " vs " + dtypeName(b.dtype());
  Tensor x = a.contiguous(), y = b.contiguous();
  for (int64_t i = 0; i < x.numel(); ++i) {
    double p = elementAt(x, i), q = elementAt(y, i);
    if (std::isnan(p) && std::isnan(q)) continue;
    if (!(std::fabs(p - q) <= atol + rtol * std::fabs(q))) {
      std::ostringstream os;
      os << "element " << i << ": " << p << " vs " << q;
      return os.str();
    }
  }
  return "";
}

std::vector<Tensor> tensorsOf(const Stack &s) {
  std::vector<Tensor> r;
  for (const IValue &v : s) {
    if (v.isTensor()) r.push_back(v.toTensor());
    else if (v.isTensorList()) for (auto &t : v.toTensorList()) r.push_back(t);
  }
  return r;
}

std::string argName(const FunctionSchema &s, size_t i) {
  return i < s.arguments.size() ? "'" + s.arguments[i].name + "'" : "#" + std::to_string(i);
}

Stack runNoGrad(const OperatorHandle &op, Stack args) {
  AutoGradMode off(false);
  op.callBoxed(args);
  return args;
}

// ---- the tests ---------------------------------------------------------------
void testSchema(const OperatorHandle &op, const Stack &sample, int si, OpcheckReport &rep) {
  const FunctionSchema &s = op.schema();
  OpcheckResult r{"test_schema", si};
  Stack args = deepCopy(sample);
  Stack before = deepCopy(args);
  Stack out;
  try {
    out = runNoGrad(op, args);
  } catch (const std::exception &e) {
    r.passed = false;
    r.message = std::string("the kernel failed: ") + e.what();
    rep.results.push_back(r);
    return;
  }
  std::vector<std::string> problems;
  for (size_t i = 0; i < args.size() && i < s.arguments.size(); ++i) {
    if (!args[i].isTensor() || !args[i].toTensor().defined()) continue;
    if (!sameBytes(args[i].toTensor(), before[i].toTensor()) && !s.arguments[i].isWrite())
      problems.push_back("argument " + argName(s, i) +
                         " was modified in place but the schema does not mark it mutable "
                         "(write it as Tensor(a!))");
  }
  for (size_t o = 0; o < out.size(); ++o) {
    if (!out[o].isTensor() || !out[o].toTensor().defined()) continue;
    const Tensor &ot = out[o].toTensor();
    for (size_t i = 0; i < args.size() && i < s.arguments.size(); ++i) {
      if (!args[i].isTensor() || !args[i].toTensor().defined()) continue;
      if (ot.storage() != args[i].toTensor().storage() || ot.nbytes() == 0) continue;
      const auto &ra = o < s.returns.size() ? s.returns[o].alias : std::nullopt;
      const auto &ia = s.arguments[i].alias;
      bool declared = ra && ia;
      if (declared) {
        declared = false;
        for (auto &x : ra->beforeSets)
          for (auto &y : ia->beforeSets)
            if (x == y || x == "*" || y == "*") declared = true;
      }
      if (!declared)
        problems.push_back("result " + std::to_string(o) + " shares memory with argument " +
                           argName(s, i) +
                           " but the schema does not say so (annotate both, e.g. Tensor(a) "
                           "self -> Tensor(a), or return a fresh tensor)");
    }
  }
  if (!problems.empty()) {
    r.passed = false;
    for (size_t i = 0; i < problems.size(); ++i) r.message += (i ? "; " : "") + problems[i];
  }
  rep.results.push_back(r);
}

void testFake(const OperatorHandle &op, const Stack &sample, int si, OpcheckReport &rep) {
  OpcheckResult r{"test_faketensor", si};
  if (!op.hasFake()) {
    r.passed = false;
    r.message = "no fake function is registered (m.impl_fake or a Meta kernel)";
    rep.results.push_back(r);
    return;
  }
  Stack real, fake;
  try {
    real = runNoGrad(op, deepCopy(sample));
  } catch (const std::exception &e) {
    r.skipped = true;
    r.message = std::string("the real kernel failed, nothing to compare: ") + e.what();
    rep.results.push_back(r);
    return;
  }
  try {
    fake = runNoGrad(op, mapTensors(sample, toMeta));
  } catch (const std::exception &e) {
    r.passed = false;
    r.message = std::string("the fake function failed on Meta tensors: ") + e.what();
    rep.results.push_back(r);
    return;
  }
  if (real.size() != fake.size()) {
    r.passed = false;
    r.message = "the kernel returned " + std::to_string(real.size()) + " values, the fake function " +
                std::to_string(fake.size());
  }
  for (size_t i = 0; r.passed && i < real.size(); ++i) {
    if (!real[i].isTensor()) continue;
    if (!fake[i].isTensor()) {
      r.passed = false;
      r.message = "result " + std::to_string(i) + ": the fake function returned " + fake[i].repr();
      break;
    }
    const Tensor &a = real[i].toTensor(), &b = fake[i].toTensor();
    if (!a.defined() || !b.defined()) continue;
    std::ostringstream os;
    if (a.sizes() != b.sizes())
      os << "result " << i << ": fake shape " << b.shapeString() << ", real shape " << a.shapeString();
    else if (a.dtype() != b.dtype())
      os << "result " << i << ": fake dtype " << dtypeName(b.dtype()) << ", real dtype "
         << dtypeName(a.dtype());
    else if (b.device().type != DeviceType::Meta)
      os << "result " << i << ": the fake function returned a tensor on "
         << deviceTypeName(b.device().type) << " (it must return Meta tensors)";
    if (!os.str().empty()) {
      r.passed = false;
      r.message = os.str();
    }
  }
  rep.results.push_back(r);
}

double dotWithGrads(const Stack &out, const std::vector<Tensor> &g) {
  double s = 0;
  for (size_t i = 0; i < out.size() && i < g.size(); ++i) {
    if (!g[i].defined() || !out[i].isTensor()) continue;
    Tensor o = out[i].toTensor().contiguous();
    for (int64_t k = 0; k < o.numel(); ++k) s += elementAt(o, k) * elementAt(g[i], k);
  }
  return s;
}

void testAutograd(const OperatorHandle &op, const Stack &sample, int si, const OpcheckOptions &opt,
                  OpcheckReport &rep) {
  const FunctionSchema &s = op.schema();
  OpcheckResult r{"test_autograd", si};
  BackwardFn bw = op.backward();
  if (!bw) {
    r.skipped = true;
    r.message = "no autograd formula registered";
    rep.results.push_back(r);
    return;
  }
  if (s.isMutable()) {
    r.skipped = true;
    r.message = "the op mutates its inputs; the gradient check needs a functional op";
    rep.results.push_back(r);
    return;
  }
  // Double precision where the kernel supports it.
  DType dt = DType::Float64;
  double eps = 1e-6, atol = opt.gradAtol, rtol = opt.gradRtol;
  Stack args = mapTensors(sample, [](const Tensor &t) {
    return isFloatingPoint(t.dtype()) ? toDType(t, DType::Float64) : t.clone();
  });
  Stack out;
  try {
    out = runNoGrad(op, args);
  } catch (const std::exception &) {
    dt = DType::Float32;
    eps = 1e-3;
    atol = 1e-2;
    rtol = 1e-2;
    args = mapTensors(sample, [](const Tensor &t) {
      return isFloatingPoint(t.dtype()) ? toDType(t, DType::Float32) : t.clone();
    });
    try {
      out = runNoGrad(op, args);
    } catch (const std::exception &e) {
      r.skipped = true;
      r.message = std::string("the kernel failed: ") + e.what();
      rep.results.push_back(r);
      return;
    }
  }
  std::mt19937 rng(opt.seed + 7 * si + 1);
  std::vector<Tensor> gout;
  for (const IValue &o : out) {
    if (o.isTensor() && o.toTensor().defined() && isFloatingPoint(o.toTensor().dtype()))
      gout.push_back(randomTensor(o.toTensor().sizes(), o.toTensor().dtype(), rng));
    else
      gout.emplace_back();
  }
  std::vector<Tensor> gin;
  try {
    // The formula sees the arguments as the call did (defaults filled in).
    Stack normalized = args;
    for (size_t i = normalized.size(); i < s.arguments.size(); ++i)
      if (s.arguments[i].defaultValue) normalized.push_back(*s.arguments[i].defaultValue);
    AutoGradMode off(false);
    gin = bw(AutogradContext{normalized, out}, gout);
  } catch (const std::exception &e) {
    r.passed = false;
    r.message = std::string("the backward formula failed: ") + e.what();
    rep.results.push_back(r);
    return;
  }
  for (size_t i = 0; i < args.size() && r.passed; ++i) {
    if (!args[i].isTensor() || !args[i].toTensor().defined() ||
        !isFloatingPoint(args[i].toTensor().dtype()))
      continue;
    Tensor x = args[i].toTensor();
    Tensor analytic = i < gin.size() ? gin[i] : Tensor();
    if (analytic.defined() && analytic.sizes() != x.sizes()) {
      r.passed = false;
      r.message = "the formula's gradient for argument " + argName(s, i) + " has shape " +
                  analytic.shapeString() + ", the argument " + x.shapeString();
      break;
    }
    if (analytic.defined()) analytic = toDType(analytic, dt);
    for (int64_t k = 0; k < x.numel() && r.passed; ++k) {
      Stack plus = args, minus = args;
      Tensor xp = x.clone(), xm = x.clone();
      setElement(xp, k, elementAt(x, k) + eps);
      setElement(xm, k, elementAt(x, k) - eps);
      plus[i] = IValue(xp);
      minus[i] = IValue(xm);
      double fp = dotWithGrads(runNoGrad(op, plus), gout);
      double fm = dotWithGrads(runNoGrad(op, minus), gout);
      double numeric = (fp - fm) / (2 * eps);
      double a = analytic.defined() ? elementAt(analytic, k) : 0.0;
      if (!(std::fabs(a - numeric) <= atol + rtol * std::fabs(numeric))) {
        std::ostringstream os;
        os << "gradient of argument " << argName(s, i) << " (" << dtypeName(dt) << ") element " << k
           << ": formula " << a << ", finite differences " << numeric
           << (analytic.defined() ? "" : " (the formula returned no gradient)");
        r.passed = false;
        r.message = os.str();
      }
    }
  }
  rep.results.push_back(r);
}

void testDispatch(const OperatorHandle &op, const Stack &sample, int si, OpcheckReport &rep) {
  OpcheckResult r{"test_dispatch", si};
  Stack ref;
  try {
    ref = runNoGrad(op, deepCopy(sample));
  } catch (const std::exception &e) {
    r.passed = false;
    r.message = std::string("the call through the dispatcher failed: ") + e.what();
    rep.results.push_back(r);
    return;
  }
  std::vector<std::string> ran, skipped, problems;
  for (int k = 0; k < kNumRuntimeKeys; ++k) {
    DispatchKey key = (DispatchKey)k;
    KernelFunction kf = op.tableEntry(key);
    if (!kf.fn) continue; // no kernel, or a fallthrough
    DeviceType dev = backendOf(key) == DispatchKey::CPU ? DeviceType::CPU
                     : backendOf(key) == DispatchKey::Meta ? DeviceType::Meta
                                                           : DeviceType::CUDA;
    if (dev == DeviceType::CUDA) {
      // Only worth a note when the backend itself has a kernel.
      if (!isAutogradKey(key) || op.tableEntry(backendOf(key)).fn)
        skipped.push_back(dispatchKeyName(key));
      continue;
    }
    try {
      Stack args = dev == DeviceType::Meta ? mapTensors(sample, toMeta) : deepCopy(sample);
      Stack out;
      if (isAutogradKey(key)) {
        args = mapTensors(args, [](const Tensor &t) {
          Tensor c = t;
          if (isFloatingPoint(t.dtype())) c.setRequiresGrad(true);
          return c;
        });
        AutoGradMode on(true);
        op.callBoxed(args);
        out = args;
      } else {
        AutoGradMode off(false);
        op.callBoxed(args);
        out = args;
      }
      if (out.size() != ref.size()) {
        problems.push_back(std::string(dispatchKeyName(key)) + " returned " + std::to_string(out.size()) +
                           " values, expected " + std::to_string(ref.size()));
        continue;
      }
      if (dev == DeviceType::CPU)
        for (size_t i = 0; i < out.size(); ++i)
          if (out[i].isTensor() && ref[i].isTensor() && out[i].toTensor().defined()) {
            std::string d = compareTensors(out[i].toTensor(), ref[i].toTensor(), 1e-6, 1e-5);
            if (!d.empty())
              problems.push_back(std::string(dispatchKeyName(key)) + " result " + std::to_string(i) +
                                 " differs: " + d);
          }
      ran.push_back(dispatchKeyName(key));
    } catch (const std::exception &e) {
      problems.push_back(std::string(dispatchKeyName(key)) + " failed: " + e.what());
    }
  }
  auto join = [](const std::vector<std::string> &v) {
    std::string s;
    for (auto &x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
  };
  if (!problems.empty()) {
    r.passed = false;
    r.message = join(problems);
  } else {
    r.message = "ran " + join(ran);
    if (!skipped.empty()) r.message += "; no device here for " + join(skipped);
  }
  rep.results.push_back(r);
}

/// A batch of `n` samples of `t` with the batch at dim `dim` (contiguous in
/// that layout): sample 0 is `t`, the others random of its shape (copies of it
/// when it is not floating point).
Tensor batchAt(const Tensor &t, int64_t dim, int64_t n, std::mt19937 &rng) {
  std::vector<int64_t> sizes = t.sizes();
  sizes.insert(sizes.begin() + dim, n);
  Tensor out = Tensor::empty(sizes, t.dtype());
  for (int64_t b = 0; b < n; ++b) {
    Tensor dst = selectDim(out, dim, b);
    dst.copyFrom(b == 0 || !isFloatingPoint(t.dtype()) ? t : randomTensor(t.sizes(), t.dtype(), rng));
  }
  return out;
}

/// The registered batching rule against the op run once per sample, with
/// every tensor argument batched at dim 0, then with only the first batched,
/// at its last dim.
void testVmap(const OperatorHandle &op, const Stack &sample, int si, OpcheckReport &rep) {
  OpcheckResult r{"test_vmap", si};
  if (!op.vmapRule()) {
    r.skipped = true;
    r.message = "no batching rule registered (register_vmap)";
    rep.results.push_back(r);
    return;
  }
  std::vector<size_t> tensorArgs;
  for (size_t i = 0; i < sample.size(); ++i)
    if (sample[i].isTensor() && sample[i].toTensor().defined()) tensorArgs.push_back(i);
  if (tensorArgs.empty()) {
    r.skipped = true;
    r.message = "the sample has no tensor argument to batch";
    rep.results.push_back(r);
    return;
  }
  constexpr int64_t kBatch = 3;
  std::mt19937 rng(977 + si);
  std::vector<InDims> configs(2, InDims(sample.size()));
  for (size_t i : tensorArgs) configs[0][i] = 0;
  configs[1][tensorArgs[0]] = sample[tensorArgs[0]].toTensor().dim();
  for (const InDims &dims : configs) {
    Stack args = deepCopy(sample);
    std::string inDims;
    for (size_t i = 0; i < args.size(); ++i) {
      inDims += std::string(i ? ", " : "") + (dims[i] ? std::to_string(*dims[i]) : "None");
      if (dims[i]) args[i] = IValue(batchAt(args[i].toTensor(), *dims[i], kBatch, rng));
    }
    std::string what = "with in_dims (" + inDims + ") and a batch of " + std::to_string(kBatch);
    Stack ref, got;
    try {
      ref = vmap(op, dims, args, VmapMode::Loop);
    } catch (const std::exception &e) {
      r.skipped = true;
      r.message = "the op fails on these samples (" + std::string(e.what()) + ")";
      continue;
    }
    try {
      got = vmap(op, dims, deepCopy(args), VmapMode::Rule);
    } catch (const std::exception &e) {
      r.passed = false;
      r.message = "the batching rule failed " + what + ": " + e.what();
      break;
    }
    for (size_t j = 0; j < ref.size() && r.passed; ++j) {
      const Tensor &a = got[j].toTensor(), &b = ref[j].toTensor();
      bool f32 = a.dtype() == DType::Float32;
      std::string d = compareTensors(a, b, f32 ? 1e-5 : 1e-7, f32 ? 1e-4 : 1e-6);
      if (!d.empty()) {
        r.passed = false;
        r.message = "the batching rule disagrees with running the op once per sample " + what +
                    ": result " + std::to_string(j) + " (batch first), " + d;
      }
    }
    if (!r.passed) break;
  }
  if (r.passed && !r.skipped) r.message = "the rule matches the loop over the batch for both in_dims";
  rep.results.push_back(r);
}

} // namespace

std::vector<Stack> generateSamples(const FunctionSchema &schema, int n, unsigned seed) {
  static const std::vector<std::vector<int64_t>> kShapes = {{3, 4}, {2, 3, 4}, {5}, {2, 1, 3}, {4, 4}};
  static const double kFloats[] = {1.5, -0.75, 2.0, 0.5, 3.0};
  std::mt19937 rng(seed);
  std::vector<Stack> samples;
  using K = SchemaType::Kind;
  for (int i = 0; i < n; ++i) {
    const auto &shape = kShapes[i % kShapes.size()];
    Stack s;
    for (const Argument &a : schema.arguments) {
      const SchemaType &t = *a.type;
      const SchemaType &b = t.stripOptional();
      if (b.kind == K::Tensor) {
        s.emplace_back(randomTensor(shape, DType::Float32, rng));
      } else if (t.isTensorListLike()) {
        s.emplace_back(std::vector<Tensor>{randomTensor(shape, DType::Float32, rng),
                                           randomTensor(shape, DType::Float32, rng)});
      } else if (a.defaultValue) {
        s.push_back(*a.defaultValue);
      } else if (t.isOptional()) {
        s.emplace_back();
      } else {
        switch (b.kind) {
        case K::Float: case K::Scalar: s.emplace_back(kFloats[i % 5]); break;
        case K::Int: case K::SymInt: s.emplace_back((int64_t)1); break;
        case K::Bool: s.emplace_back(false); break;
        case K::Str: s.emplace_back(std::string("none")); break;
        case K::ScalarType: s.emplace_back((int64_t)DType::Float32); break;
        case K::List: // a shape argument: flatten; a dims argument: the first dim
          s.emplace_back(std::vector<int64_t>{a.name == "size" || a.name == "shape" ? -1 : 0});
          break;
        default: s.emplace_back(); break;
        }
      }
    }
    samples.push_back(std::move(s));
  }
  return samples;
}

OpcheckReport opcheck(const std::string &name, const OpcheckOptions &opts) {
  OperatorHandle op = Dispatcher::get().findOpOrThrow(name);
  OpcheckReport rep;
  rep.op = op.name();
  std::vector<Stack> samples =
      opts.samples.empty() ? generateSamples(op.schema(), opts.numSamples, opts.seed) : opts.samples;
  for (size_t i = 0; i < samples.size(); ++i) {
    testSchema(op, samples[i], (int)i, rep);
    testFake(op, samples[i], (int)i, rep);
    testAutograd(op, samples[i], (int)i, opts, rep);
    testDispatch(op, samples[i], (int)i, rep);
    testVmap(op, samples[i], (int)i, rep);
  }
  return rep;
}

} // namespace kiln
