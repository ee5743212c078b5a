//===- Dispatcher.cpp - the `kiln._kiln` extension: the op dispatcher -----===//
//
// Python's view of the runtime's op dispatcher for kiln.library: plugins,
// schemas, calls on arrays, fake shapes, backward formulas, batching rules
// and opcheck.
//
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "kiln/library.h"
#include "kiln/opcheck.h"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <string>
#include <vector>

namespace nb = nanobind;
using namespace nb::literals;

namespace kiln_py {
namespace {

/// Python value -> IValue for a schema argument (arrays become borrowed tensors).
kiln::IValue toIValue(nb::handle o, std::vector<nb::object> &keepAlive) {
  if (o.is_none())
    return kiln::IValue();
  if (nb::isinstance<nb::bool_>(o))
    return kiln::IValue(nb::cast<bool>(o));
  if (nb::isinstance<nb::int_>(o))
    return kiln::IValue((int64_t)nb::cast<int64_t>(o));
  if (nb::isinstance<nb::float_>(o))
    return kiln::IValue(nb::cast<double>(o));
  if (nb::isinstance<nb::str>(o))
    return kiln::IValue(nb::cast<std::string>(o));
  if (nb::isinstance<nb::list>(o) || nb::isinstance<nb::tuple>(o)) {
    std::vector<kiln::IValue> items;
    bool allInt = true, allFloat = true, allTensor = true;
    for (nb::handle h : o) {
      items.push_back(toIValue(h, keepAlive));
      allInt &= items.back().isInt();
      allFloat &= items.back().isDouble() || items.back().isInt();
      allTensor &= items.back().isTensor();
    }
    if (!items.empty() && allInt) {
      std::vector<int64_t> v;
      for (auto &i : items)
        v.push_back(i.toInt());
      return kiln::IValue(v);
    }
    if (!items.empty() && allFloat) {
      std::vector<double> v;
      for (auto &i : items)
        v.push_back(i.toDouble());
      return kiln::IValue(v);
    }
    if (!items.empty() && allTensor) {
      std::vector<kiln::Tensor> v;
      for (auto &i : items)
        v.push_back(i.toTensor());
      return kiln::IValue(v);
    }
    return kiln::IValue::list(std::move(items));
  }
  HostArray a;
  if (!nb::try_cast(o, a))
    raise("cannot pass a Python " + std::string(nb::type_name(o.type()).c_str()) +
          " to a kiln op (expected a contiguous CPU array, a number, a string, a list or None)");
  keepAlive.push_back(nb::borrow(o));
  return kiln::IValue(fromArray(a));
}

nb::object fromIValue(const kiln::IValue &v) {
  if (v.isNone())
    return nb::none();
  if (v.isTensor())
    return toArray(v.toTensor());
  if (v.isBool())
    return nb::cast(v.toBool());
  if (v.isInt())
    return nb::cast(v.toInt());
  if (v.isDouble())
    return nb::cast(v.toDouble());
  if (v.isString())
    return nb::cast(v.toString());
  if (v.isList()) {
    nb::list l;
    for (const kiln::IValue &i : v.toList())
      l.append(fromIValue(i));
    return l;
  }
  raise("kiln op returned a value kind Python cannot receive");
}

/// Runs `fn`, turning kiln::Error and std::exception into KilnError.
template <typename F> auto guarded(F &&fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (nb::python_error &) {
    throw;
  } catch (const std::exception &e) {
    raise(e.what());
  }
}

kiln::Stack toStack(const nb::sequence &args, std::vector<nb::object> &keepAlive) {
  kiln::Stack s;
  for (nb::handle h : args)
    s.push_back(toIValue(h, keepAlive));
  return s;
}

nb::list callOp(const std::string &name, const nb::sequence &args) {
  std::vector<nb::object> keepAlive;
  kiln::Stack stack = toStack(args, keepAlive);
  guarded([&] {
    kiln::Dispatcher::get().call(name, stack);
    return 0;
  });
  nb::list out;
  for (const kiln::IValue &v : stack)
    out.append(fromIValue(v));
  return out;
}

/// Shapes and dtypes the op's fake (Meta) function gives for arguments described by
/// (shape, dtype) pairs in place of tensors.
nb::list fakeOp(const std::string &name, const nb::sequence &args) {
  std::vector<nb::object> keepAlive;
  kiln::Stack stack;
  for (nb::handle h : args) {
    nb::tuple t;
    if (nb::try_cast(h, t) && t.size() == 3 && nb::isinstance<nb::str>(t[0]) &&
        nb::cast<std::string>(t[0]) == "__tensor__") {
      std::vector<int64_t> shape = nb::cast<std::vector<int64_t>>(t[1]);
      kiln::DType dt = byName(nb::cast<std::string>(t[2]));
      stack.push_back(kiln::Tensor::empty(shape, dt, kiln::Device{kiln::DeviceType::Meta, 0}));
    } else {
      stack.push_back(toIValue(h, keepAlive));
    }
  }
  guarded([&] {
    kiln::Dispatcher::get().call(name, stack);
    return 0;
  });
  nb::list out;
  for (const kiln::IValue &v : stack) {
    if (!v.isTensor())
      raise("the fake function of '" + name + "' returned a non-tensor");
    out.append(nb::make_tuple(v.toTensor().sizes(), entryOf(v.toTensor().dtype()).name));
  }
  return out;
}

nb::list backwardOp(const std::string &name, const nb::sequence &inputs,
                    const nb::sequence &outputs, const nb::sequence &grads) {
  std::vector<nb::object> keepAlive;
  kiln::AutogradContext ctx;
  ctx.inputs = toStack(inputs, keepAlive);
  ctx.outputs = toStack(outputs, keepAlive);
  std::vector<kiln::Tensor> g;
  for (nb::handle h : grads) {
    kiln::IValue v = toIValue(h, keepAlive);
    g.push_back(v.isTensor() ? v.toTensor() : kiln::Tensor());
  }
  std::vector<kiln::Tensor> res = guarded([&] {
    kiln::OperatorHandle op = kiln::Dispatcher::get().findOpOrThrow(name);
    kiln::BackwardFn fn = op.backward();
    if (!fn)
      throw kiln::Error("op '" + name + "' has no backward formula");
    return fn(ctx, g);
  });
  nb::list out;
  for (const kiln::Tensor &t : res)
    out.append(t.defined() ? toArray(t) : nb::none());
  return out;
}

struct OpInfo {
  std::string name, schema;
  bool hasFake, hasBackward, hasVmap;
  std::vector<std::string> keys;
};

OpInfo opInfo(const std::string &name) {
  return guarded([&] {
    kiln::OperatorHandle op = kiln::Dispatcher::get().findOpOrThrow(name);
    OpInfo i{op.name(), op.schema().str(), op.hasFake(), (bool)op.backward(), (bool)op.vmapRule(), {}};
    for (kiln::DispatchKey k : op.registeredKeys())
      i.keys.push_back(kiln::dispatchKeyName(k));
    return i;
  });
}

std::vector<std::string> loadPlugin(const std::string &path) {
  auto before = kiln::Dispatcher::get().ops();
  std::string err;
  if (!kiln::loadPlugin(path, err))
    raise(err);
  auto after = kiln::Dispatcher::get().ops();
  std::vector<std::string> added;
  for (const std::string &o : after)
    if (!std::binary_search(before.begin(), before.end(), o))
      added.push_back(o);
  return added;
}

kiln::InDims toInDims(const nb::sequence &inDims) {
  kiln::InDims dims;
  for (nb::handle h : inDims)
    dims.push_back(h.is_none() ? std::nullopt : std::optional<int64_t>(nb::cast<int64_t>(h)));
  return dims;
}

/// kiln::vmap of an op (its batching rule, or the loop): results with the batch first.
nb::list vmapOp(const std::string &name, const nb::sequence &inDims, const nb::sequence &args,
                bool loop) {
  std::vector<nb::object> keepAlive;
  kiln::Stack stack = toStack(args, keepAlive);
  kiln::InDims dims = toInDims(inDims);
  kiln::Stack out = guarded([&] {
    kiln::OperatorHandle op = kiln::Dispatcher::get().findOpOrThrow(name);
    return kiln::vmap(op, dims, std::move(stack), loop ? kiln::VmapMode::Loop : kiln::VmapMode::Rule);
  });
  nb::list l;
  for (const kiln::IValue &v : out)
    l.append(fromIValue(v));
  return l;
}

/// Rules registered from Python: each library lives until the process ends
/// (as the torch.library registrations that mirror them do).
std::vector<std::unique_ptr<kiln::Library>> gPythonLibraries;

/// Registers `rule(batch_size, in_dims, args) -> (outputs, out_dims)` (arrays
/// in, arrays or tensors out) as the batching rule of `name`.
void registerVmap(const std::string &name, nb::callable rule) {
  auto *fn = new nb::object(rule); // never released: it may run until exit
  kiln::VmapFn vmapFn = [fn, name](const kiln::VmapInfo &info, const kiln::InDims &inDims,
                                   const kiln::Stack &args) {
    nb::gil_scoped_acquire gil;
    try {
      nb::list dims, pyArgs;
      for (const auto &d : inDims)
        dims.append(d ? nb::cast(*d) : nb::none());
      for (const kiln::IValue &v : args)
        pyArgs.append(fromIValue(v));
      nb::object r = (*fn)(info.batchSize, dims, pyArgs);
      nb::sequence pair;
      if (!nb::try_cast(r, pair) || nb::len(pair) != 2)
        throw kiln::Error("the batching rule of " + name + " must return (outputs, out_dims)");
      std::vector<nb::object> keepAlive;
      kiln::VmapResult res;
      for (nb::handle o : nb::cast<nb::sequence>(pair[0])) {
        kiln::IValue v = toIValue(o, keepAlive);
        // Python owns the data: the runtime gets its own copy.
        res.outputs.push_back(v.isTensor() ? kiln::IValue(v.toTensor().clone()) : v);
      }
      res.outDims = toInDims(nb::cast<nb::sequence>(pair[1]));
      return res;
    } catch (nb::python_error &e) {
      throw kiln::Error("the batching rule of " + name + " raised: " + e.what());
    } catch (nb::cast_error &) {
      throw kiln::Error("the batching rule of " + name +
                        " must return (a list of tensors, a list of out_dims)");
    }
  };
  guarded([&] {
    std::string ns = name.substr(0, name.find("::"));
    auto lib = std::make_unique<kiln::Library>(kiln::Library::FRAGMENT, ns, std::nullopt,
                                               "<python>", 0);
    lib->register_vmap(name, std::move(vmapFn));
    gPythonLibraries.push_back(std::move(lib));
    return 0;
  });
}

nb::tuple opcheck(const std::string &name, std::optional<nb::sequence> samples, int numSamples) {
  std::vector<nb::object> keepAlive;
  kiln::OpcheckOptions opts;
  opts.numSamples = numSamples;
  if (samples)
    for (nb::handle s : *samples)
      opts.samples.push_back(toStack(nb::cast<nb::sequence>(s), keepAlive));
  kiln::OpcheckReport r = guarded([&] { return kiln::opcheck(name, opts); });
  nb::list results;
  for (const kiln::OpcheckResult &x : r.results)
    results.append(nb::make_tuple(x.test, x.sample, x.passed, x.skipped, x.message));
  return nb::make_tuple(r.ok(), results, r.str());
}

} // namespace

void bindDispatcher(nb::module_ &m) {
  nb::class_<OpInfo>(m, "OpInfo")
      .def_ro("name", &OpInfo::name)
      .def_ro("schema", &OpInfo::schema)
      .def_ro("has_fake", &OpInfo::hasFake)
      .def_ro("has_backward", &OpInfo::hasBackward)
      .def_ro("has_vmap", &OpInfo::hasVmap)
      .def_ro("dispatch_keys", &OpInfo::keys);

  m.def("load_plugin", &loadPlugin, "path"_a,
        "Loads a plugin library; returns the qualified names of the ops it defined.");
  m.def("ops", [] { return kiln::Dispatcher::get().ops(); });
  m.def("op_info", &opInfo, "name"_a);
  m.def("call_op", &callOp, "name"_a, "args"_a);
  m.def("fake_op", &fakeOp, "name"_a, "args"_a);
  m.def("backward_op", &backwardOp, "name"_a, "inputs"_a, "outputs"_a, "grads"_a);
  m.def("vmap_op", &vmapOp, "name"_a, "in_dims"_a, "args"_a, "loop"_a = false,
        "Runs an op over a batch (its batching rule, or once per sample); results batch first.");
  m.def("register_vmap", &registerVmap, "name"_a, "rule"_a,
        "Registers rule(batch_size, in_dims, args) -> (outputs, out_dims) as an op's batching rule.");
  m.def("opcheck", &opcheck, "name"_a, "samples"_a = nb::none(), "num_samples"_a = 3);
}

} // namespace kiln_py
