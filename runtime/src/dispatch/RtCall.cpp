// kiln runtime — kiln_rt_call_op: the boxed bridge from compiled code to the dispatcher.
#include "kiln/library.h"
#include "kiln/rt_call.h"
#include "kiln/abi/cpu_memory.h"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>

namespace kiln {
namespace {

thread_local std::string tLastError;

/// Extension of rt_call.h's tags: desc points to a NUL-terminated string.
constexpr int64_t kTagString = 7;

OperatorHandle lookup(const char *name) {
  static std::mutex mu;
  static std::unordered_map<std::string, OperatorHandle> cache;
  std::lock_guard<std::mutex> g(mu);
  auto it = cache.find(name);
  if (it != cache.end() && it->second.hasSchema()) return it->second;
  OperatorHandle h = Dispatcher::get().findOpOrThrow(name);
  cache[name] = h;
  return h;
}

DType dtypeOf(int64_t d, const std::string &what) {
  if (d < 0 || d >= kNumDTypes) throw Error("kiln: " + what + ": bad dtype code " + std::to_string(d));
  return (DType)d;
}

/// A non-owning Tensor over a memref descriptor.
Tensor fromDescriptor(const kiln_rt_value &v, const std::string &what) {
  if (!v.desc) throw Error("kiln: " + what + ": tensor value without a descriptor");
  if (v.rank < 0) throw Error("kiln: " + what + ": negative rank");
  DType dt = dtypeOf(v.dtype, what);
  auto *w = static_cast<int64_t *>(v.desc);
  void *aligned = reinterpret_cast<void *>(w[1]);
  int64_t offset = w[2];
  std::vector<int64_t> sizes(w + 3, w + 3 + v.rank), strides(w + 3 + v.rank, w + 3 + 2 * v.rank);
  int64_t extent = 1; // elements from the offset to the last reachable one, plus one
  bool empty = false;
  for (int64_t i = 0; i < v.rank; ++i) {
    if (sizes[i] == 0) empty = true;
    extent += (sizes[i] - 1) * (strides[i] < 0 ? 0 : strides[i]);
  }
  size_t nbytes = empty ? 0 : (size_t)(offset + extent) * dtypeSize(dt);
  auto storage = std::make_shared<Storage>(aligned, nbytes, Device{}, Storage::Deleter{});
  return Tensor::view(storage, offset, sizes, strides, dt);
}

IValue unboxArg(const kiln_rt_value &v, const Argument *arg, const std::string &what) {
  const SchemaType *t = arg ? &arg->type->stripOptional() : nullptr;
  using K = SchemaType::Kind;
  switch (v.tag) {
  case KILN_RT_TENSOR: return IValue(fromDescriptor(v, what));
  case KILN_RT_INT:
    if (t && t->kind == K::Float) return IValue((double)v.i);
    if (t && t->kind == K::Bool) return IValue(v.i != 0);
    return IValue((int64_t)v.i);
  case KILN_RT_FLOAT: return IValue(v.f);
  case KILN_RT_BOOL: return IValue(v.i != 0);
  case KILN_RT_NONE: return IValue();
  case KILN_RT_INT_LIST: {
    auto *p = static_cast<const int64_t *>(v.desc);
    if (v.rank && !p) throw Error("kiln: " + what + ": int list without data");
    return IValue(std::vector<int64_t>(p, p + v.rank));
  }
  case KILN_RT_FLOAT_LIST: {
    auto *p = static_cast<const double *>(v.desc);
    if (v.rank && !p) throw Error("kiln: " + what + ": float list without data");
    return IValue(std::vector<double>(p, p + v.rank));
  }
  case kTagString:
    if (!v.desc) throw Error("kiln: " + what + ": string without data");
    return IValue(std::string(static_cast<const char *>(v.desc)));
  case KILN_RT_TENSOR_LIST: {
    auto *p = static_cast<const kiln_rt_value *>(v.desc);
    if (v.rank && !p) throw Error("kiln: " + what + ": tensor list without data");
    std::vector<Tensor> ts;
    for (int64_t k = 0; k < v.rank; ++k) {
      if (p[k].tag != KILN_RT_TENSOR) throw Error("kiln: " + what + ": tensor list element that is no tensor");
      ts.push_back(fromDescriptor(p[k], what + " element " + std::to_string(k)));
    }
    return IValue(std::move(ts));
  }
  default: throw Error("kiln: " + what + ": unknown value tag " + std::to_string(v.tag));
  }
}

void boxResult(const IValue &r, kiln_rt_value &out, const std::string &what) {
  switch (out.tag) {
  case KILN_RT_TENSOR: {
    if (!r.isTensor() || !r.toTensor().defined())
      throw Error("kiln: " + what + ": expected a tensor, the op returned " + r.repr());
    const Tensor &t = r.toTensor();
    if (t.device().type != DeviceType::CPU)
      throw Error("kiln: " + what + ": the op returned a tensor on " + deviceTypeName(t.device().type));
    if (out.rank != t.dim())
      throw Error("kiln: " + what + ": caller expects rank " + std::to_string(out.rank) +
                  ", the op returned shape " + t.shapeString());
    DType want = dtypeOf(out.dtype, what);
    if (want != t.dtype())
      throw Error("kiln: " + what + ": caller expects dtype " + dtypeName(want) +
                  ", the op returned " + dtypeName(t.dtype()));
    if (!out.desc) throw Error("kiln: " + what + ": no descriptor storage for the result");
    size_t nbytes = t.nbytes();
    // From the compiled code's allocator: it frees the buffer (kiln_cpu_free),
    // and a run that fails later frees it too (RunAllocations).
    void *p = kiln_cpu_alloc(kAlignment, nbytes ? nbytes : kAlignment); // throws when out of memory
    Tensor dst = Tensor::fromBlob(p, t.sizes(), t.dtype());
    dst.copyFrom(t);
    auto *w = static_cast<int64_t *>(out.desc);
    w[0] = reinterpret_cast<int64_t>(p);
    w[1] = reinterpret_cast<int64_t>(p);
    w[2] = 0;
    std::vector<int64_t> strides = Tensor::contiguousStrides(t.sizes());
    for (int64_t i = 0; i < out.rank; ++i) {
      w[3 + i] = t.size(i);
      w[3 + out.rank + i] = strides[i];
    }
    return;
  }
  case KILN_RT_INT: case KILN_RT_BOOL:
    if (!r.isInt() && !r.isBool()) throw Error("kiln: " + what + ": expected an int, got " + r.repr());
    out.i = r.toInt();
    return;
  case KILN_RT_FLOAT:
    if (!r.isScalar()) throw Error("kiln: " + what + ": expected a float, got " + r.repr());
    out.f = r.toDouble();
    return;
  case KILN_RT_NONE: return;
  default: throw Error("kiln: " + what + ": unsupported result tag " + std::to_string(out.tag));
  }
}

} // namespace
} // namespace kiln

namespace kiln {
namespace {
/// The op itself, with the arguments in schema order.
Stack callForward(const std::string &name, int64_t nargs, kiln_rt_value *args) {
  OperatorHandle op = lookup(name.c_str());
  const FunctionSchema &s = op.schema();
  if (nargs < 0 || (!s.varArgs && (size_t)nargs > s.arguments.size()))
    throw Error("kiln: " + name + " takes " + std::to_string(s.arguments.size()) +
                " arguments, compiled code passed " + std::to_string(nargs));
  Stack stack;
  stack.reserve(s.arguments.size());
  for (int64_t i = 0; i < nargs; ++i) {
    const Argument *a = (size_t)i < s.arguments.size() ? &s.arguments[i] : nullptr;
    stack.push_back(unboxArg(args[i], a, name + " argument " + std::to_string(i) +
                                             (a ? " '" + a->name + "'" : "")));
  }
  AutoGradMode noGrad(false);
  op.callBoxed(stack);
  return stack;
}

/// "ns::op#backward": the op's registered autograd formula. `args` are the
/// forward call's arguments, then its results, then one gradient per
/// result; the results are one gradient per tensor argument of the forward
/// call, in order (zeros where the formula gives none).
Stack callBackward(const std::string &name, int64_t nargs, kiln_rt_value *args) {
  std::string fwd = name.substr(0, name.size() - std::strlen(KILN_RT_BACKWARD_SUFFIX));
  OperatorHandle op = lookup(fwd.c_str());
  const FunctionSchema &s = op.schema();
  BackwardFn bw = op.backward();
  if (!bw) throw Error("kiln: " + fwd + " has no registered autograd formula (register_autograd)");
  int64_t nret = (int64_t)s.returns.size(), n = nargs - 2 * nret;
  if (n < 0 || (size_t)n > s.arguments.size())
    throw Error("kiln: " + name + ": compiled code passed " + std::to_string(nargs) +
                " values, not the call's arguments, its " + std::to_string(nret) +
                " results and their gradients");
  AutogradContext ctx;
  for (int64_t i = 0; i < n; ++i)
    ctx.inputs.push_back(unboxArg(args[i], &s.arguments[i], name + " argument " + std::to_string(i)));
  for (size_t i = n; i < s.arguments.size(); ++i) {
    if (!s.arguments[i].defaultValue)
      throw Error("kiln: " + name + ": argument '" + s.arguments[i].name + "' was not passed");
    ctx.inputs.push_back(*s.arguments[i].defaultValue);
  }
  std::vector<Tensor> grads;
  for (int64_t i = 0; i < nret; ++i) {
    ctx.outputs.push_back(unboxArg(args[n + i], nullptr, name + " result " + std::to_string(i)));
    grads.push_back(fromDescriptor(args[n + nret + i], name + " gradient " + std::to_string(i)));
  }
  std::vector<Tensor> out;
  {
    AutoGradMode noGrad(false);
    out = bw(ctx, grads);
  }
  Stack results;
  for (int64_t i = 0; i < n; ++i) {
    if (args[i].tag != KILN_RT_TENSOR) continue;
    if ((size_t)i < out.size() && out[i].defined()) {
      results.push_back(IValue(out[i]));
    } else {
      const Tensor &x = ctx.input(i);
      results.push_back(IValue(Tensor::zeros(x.sizes(), x.dtype())));
    }
  }
  return results;
}
/// "ns::op#vmap": the op over a batch (kiln::vmap, so its batching rule when
/// it has one). `args` are the forward call's arguments, batched tensors with
/// the batch in front, then one in_dim per argument (0, or -1 for none).
Stack callVmap(const std::string &name, int64_t nargs, kiln_rt_value *args) {
  std::string fwd = name.substr(0, name.size() - std::strlen(KILN_RT_VMAP_SUFFIX));
  OperatorHandle op = lookup(fwd.c_str());
  const FunctionSchema &s = op.schema();
  int64_t n = nargs / 2;
  if (nargs < 0 || nargs % 2 || (!s.varArgs && (size_t)n > s.arguments.size()))
    throw Error("kiln: " + name + ": compiled code passed " + std::to_string(nargs) +
                " values, not the call's arguments and one in_dim for each");
  Stack stack;
  InDims dims;
  for (int64_t i = 0; i < n; ++i) {
    const Argument *a = (size_t)i < s.arguments.size() ? &s.arguments[i] : nullptr;
    stack.push_back(unboxArg(args[i], a, name + " argument " + std::to_string(i) +
                                             (a ? " '" + a->name + "'" : "")));
    const kiln_rt_value &d = args[n + i];
    if (d.tag != KILN_RT_INT)
      throw Error("kiln: " + name + ": in_dim " + std::to_string(i) + " is not an int");
    dims.push_back(d.i < 0 ? std::nullopt : std::optional<int64_t>(d.i));
  }
  return vmap(op, dims, std::move(stack));
}
} // namespace
} // namespace kiln

extern "C" int32_t kiln_rt_call_op(const char *qualified_name, int64_t nargs, kiln_rt_value *args,
                                   int64_t nresults, kiln_rt_value *results) {
  using namespace kiln;
  std::string name = qualified_name ? qualified_name : "(null)";
  try {
    if (!qualified_name) throw Error("kiln: kiln_rt_call_op: null op name");
    size_t suffix = std::strlen(KILN_RT_BACKWARD_SUFFIX);
    bool backward = name.size() > suffix &&
                    name.compare(name.size() - suffix, suffix, KILN_RT_BACKWARD_SUFFIX) == 0;
    size_t vsuffix = std::strlen(KILN_RT_VMAP_SUFFIX);
    bool batched = name.size() > vsuffix &&
                   name.compare(name.size() - vsuffix, vsuffix, KILN_RT_VMAP_SUFFIX) == 0;
    Stack stack = backward  ? callBackward(name, nargs, args)
                  : batched ? callVmap(name, nargs, args)
                            : callForward(name, nargs, args);
    if ((int64_t)stack.size() != nresults)
      throw Error("kiln: " + name + " returned " + std::to_string(stack.size()) +
                  " results, compiled code expects " + std::to_string(nresults));
    int64_t done = 0;
    try {
      for (; done < nresults; ++done)
        boxResult(stack[done], results[done], name + " result " + std::to_string(done));
    } catch (...) {
      for (int64_t i = 0; i < done; ++i)
        if (results[i].tag == KILN_RT_TENSOR) {
          auto *w = static_cast<int64_t *>(results[i].desc);
          kiln_cpu_free(reinterpret_cast<void *>(w[0]));
          w[0] = w[1] = 0;
        }
      throw;
    }
    tLastError.clear();
    return 0;
  } catch (const std::exception &e) {
    tLastError = e.what();
    return 1;
  } catch (...) {
    tLastError = "kiln: " + name + ": unknown error";
    return 1;
  }
}

extern "C" const char *kiln_rt_last_error(void) { return kiln::tLastError.c_str(); }
