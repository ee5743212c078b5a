//===- KilnModule.cpp - the `kiln._kiln` extension: models and its module --===//
//
// Python's view of libkiln_runtime: loading and running compiled models through
// the stable C ABI (tensors, host or device, cross as DLPack arrays without
// copies), the dtype table and array conversions the extension shares
// (Common.h), and the module itself; the op dispatcher's bindings for
// kiln.library are in Dispatcher.cpp. Compilation is not here: kiln.compile
// runs kiln-compile, which keeps LLVM's process-wide state out of Python.
//
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "kiln/kiln.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace nb = nanobind;
using namespace nb::literals;

namespace kiln_py {

nb::object gKilnError;

[[noreturn]] void raise(const std::string &msg) {
  PyErr_SetString(gKilnError.ptr(), msg.c_str());
  throw nb::python_error();
}

void check(kiln_status_t st) {
  if (!st)
    return;
  std::string msg = std::string(kiln_status_code_name(kiln_status_code(st))) + ": " +
                    kiln_status_message(st);
  kiln_status_free(st);
  raise(msg);
}

// ---------------------------------------------------------------- dtypes

const DTypeMap kDTypes[] = {
    {kiln::DType::Float32, nb::dtype<float>(), "float32"},
    {kiln::DType::Float64, nb::dtype<double>(), "float64"},
    {kiln::DType::Float16, {(uint8_t)nb::dlpack::dtype_code::Float, 16, 1}, "float16"},
    {kiln::DType::BFloat16, {(uint8_t)nb::dlpack::dtype_code::Bfloat, 16, 1}, "bfloat16"},
    {kiln::DType::Int64, nb::dtype<int64_t>(), "int64"},
    {kiln::DType::Int32, nb::dtype<int32_t>(), "int32"},
    {kiln::DType::Int16, nb::dtype<int16_t>(), "int16"},
    {kiln::DType::Int8, nb::dtype<int8_t>(), "int8"},
    {kiln::DType::UInt8, nb::dtype<uint8_t>(), "uint8"},
    {kiln::DType::Bool, {(uint8_t)nb::dlpack::dtype_code::Bool, 8, 1}, "bool"},
};

kiln::DType fromDL(nb::dlpack::dtype dt) {
  for (const DTypeMap &m : kDTypes)
    if (m.dl == dt)
      return m.kiln;
  raise("unsupported array dtype (code " + std::to_string(dt.code) + ", " +
        std::to_string(dt.bits) + " bits)");
}
const DTypeMap &entryOf(kiln::DType t) {
  for (const DTypeMap &m : kDTypes)
    if (m.kiln == t)
      return m;
  raise("unknown kiln dtype");
}

kiln::DType byName(const std::string &name) {
  for (const DTypeMap &m : kDTypes)
    if (name == m.name)
      return m.kiln;
  raise("unknown dtype '" + name + "'");
}


/// Where a model input lives, as the runtime names it; an empty string, or the
/// reason kiln cannot take it: a GPU other than the model's, or a device index
/// other than 0 (the runtime runs on each vendor's device 0 of the process).
std::string deviceOf(const AnyArray &a, kiln_device_type_t model, kiln_device_type_t *out) {
  int32_t type = a.device_type(), id = a.device_id();
  if (type == nb::device::cpu::value || type == nb::device::cuda_host::value) {
    *out = KILN_DEVICE_CPU;
    return "";
  }
  const char *name = type == nb::device::cuda::value ? "cuda" : type == nb::device::rocm::value ? "rocm" : nullptr;
  kiln_device_type_t dev = type == nb::device::cuda::value   ? KILN_DEVICE_CUDA
                           : type == nb::device::rocm::value ? KILN_DEVICE_HIP
                                                             : KILN_DEVICE_CPU;
  if (!name)
    return "an array on DLPack device type " + std::to_string(type) + ", which kiln cannot read";
  if (dev != model)
    return std::string("a ") + name + " array, but the model runs on " +
           (model == KILN_DEVICE_CPU ? "the CPU" : model == KILN_DEVICE_CUDA ? "CUDA" : "HIP") +
           " (compile it with target=\"" + (dev == KILN_DEVICE_CUDA ? "cuda" : "rocm") + "\")";
  if (id != 0)
    return std::string("an array on ") + name + ":" + std::to_string(id) +
           "; kiln runs on device 0 of the process (pick the GPU with CUDA_VISIBLE_DEVICES)";
  *out = dev;
  return "";
}

std::vector<int64_t> shapeOf(const HostArray &a) {
  std::vector<int64_t> s(a.ndim());
  for (size_t i = 0; i < a.ndim(); ++i)
    s[i] = (int64_t)a.shape(i);
  return s;
}

/// A host buffer as a Python array that keeps `owner` alive (no copy): a NumPy
/// array, or for bfloat16, which NumPy has no dtype for, a torch.Tensor (a
/// bfloat16 program came from PyTorch, so it is installed).
nb::object hostArray(void *data, const std::vector<size_t> &shape, nb::capsule owner, nb::dlpack::dtype dt) {
  if (dt.code == (uint8_t)nb::dlpack::dtype_code::Bfloat)
    return nb::cast(nb::ndarray<nb::pytorch>(data, shape.size(), shape.data(), owner, nullptr, dt));
  return nb::cast(nb::ndarray<nb::numpy>(data, shape.size(), shape.data(), owner, nullptr, dt));
}

/// Wraps a runtime tensor as a host array that keeps it alive (no copy).
nb::object toArray(kiln::Tensor t) {
  if (!t.isContiguous())
    t = t.contiguous();
  auto *keep = new kiln::Tensor(t);
  nb::capsule owner(keep, [](void *p) noexcept { delete static_cast<kiln::Tensor *>(p); });
  std::vector<size_t> shape(t.sizes().begin(), t.sizes().end());
  return hostArray(t.rawData(), shape, owner, entryOf(t.dtype()).dl);
}

/// Borrows a Python array as a runtime tensor (no copy; valid while `a` lives).
kiln::Tensor fromArray(const HostArray &a) {
  return kiln::Tensor::fromBlob(a.data(), shapeOf(a), fromDL(a.dtype()));
}

// ---------------------------------------------------------------- models

struct ValueInfo {
  std::string name;
  std::string kind;
  std::string dtype;
  std::vector<int64_t> dims, dimMin, dimMax;
  std::vector<std::string> symbols;
  bool mutated = false;
};

ValueInfo toInfo(const kiln_value_info_t &i) {
  static const char *kinds[] = {"input", "output", "param", "buffer", "constant"};
  ValueInfo v;
  v.name = i.name ? i.name : "";
  v.kind = (unsigned)i.kind < 5 ? kinds[i.kind] : "?";
  v.dtype = entryOf((kiln::DType)i.dtype).name;
  v.mutated = i.mutated != 0;
  for (size_t d = 0; d < i.rank; ++d) {
    v.dims.push_back(i.dims[d]);
    v.dimMin.push_back(i.dim_min[d]);
    v.dimMax.push_back(i.dim_max[d]);
    v.symbols.push_back(i.dim_symbols[d]);
  }
  return v;
}

/// A generator state [seed, offset].
using RngArray = nb::ndarray<int64_t, nb::shape<2>, nb::c_contig, nb::device::cpu>;

class Model {
public:
  /// Loads `path`; weights from the .pt2 `weights`, or, when `weightNames` is
  /// not empty, the caller's tensors given as addresses, shapes and dtype names
  /// on `weightDevice` (C-contiguous, kept alive by the caller while the model lives).
  Model(const std::string &path, std::optional<std::string> weights, std::vector<std::string> plugins,
        const std::vector<std::string> &weightNames, const std::vector<uintptr_t> &weightPtrs,
        const std::vector<std::vector<int64_t>> &weightShapes, const std::vector<std::string> &weightDtypes,
        const std::string &weightDevice) {
    kiln_model_options_t opts;
    kiln_model_options_init(&opts);
    if (weights)
      opts.weights_path = weights->c_str();
    std::vector<const char *> ps;
    for (const std::string &p : plugins)
      ps.push_back(p.c_str());
    opts.plugin_paths = ps.data();
    opts.num_plugins = ps.size();
    size_t nw = weightNames.size();
    if (weightPtrs.size() != nw || weightShapes.size() != nw || weightDtypes.size() != nw)
      raise("Model: " + std::to_string(nw) + " weight names, " + std::to_string(weightPtrs.size()) +
            " pointers, " + std::to_string(weightShapes.size()) + " shapes and " +
            std::to_string(weightDtypes.size()) + " dtypes");
    kiln_device_type_t dev = weightDevice == "cuda" ? KILN_DEVICE_CUDA
                             : weightDevice == "hip" ? KILN_DEVICE_HIP
                                                     : KILN_DEVICE_CPU;
    if (weightDevice != "cpu" && dev == KILN_DEVICE_CPU)
      raise("Model: unknown weight device '" + weightDevice + "' (cpu, cuda or hip)");
    std::vector<kiln_tensor_t> held = wrapPointers(weightPtrs, weightShapes, weightDtypes, dev);
    std::vector<const char *> names;
    for (const std::string &n : weightNames)
      names.push_back(n.c_str());
    opts.weight_names = names.data();
    opts.weight_tensors = held.data();
    opts.num_weights = nw;
    kiln_status_t st = kiln_model_load(path.c_str(), &opts, &m_);
    for (kiln_tensor_t t : held)
      kiln_tensor_release(t);
    check(st);
  }
  ~Model() {
    unbind();
    kiln_model_free(m_);
  }
  Model(const Model &) = delete;
  Model &operator=(const Model &) = delete;

  std::string name() const { return kiln_model_name(m_); }
  bool isRandom() const { return kiln_model_is_random(m_) != 0; }
  std::vector<ValueInfo> inputs() const { return infos(kiln_model_num_inputs(m_), kiln_model_input_info); }
  std::vector<ValueInfo> outputs() const { return infos(kiln_model_num_outputs(m_), kiln_model_output_info); }
  std::vector<ValueInfo> params() const { return infos(kiln_model_num_params(m_), kiln_model_param_info); }

  std::string device() const {
    switch (kiln_model_device(m_)) {
    case KILN_DEVICE_CUDA: return "cuda";
    case KILN_DEVICE_HIP: return "hip";
    default: return "cpu";
    }
  }

  /// Runs with borrowed inputs (host arrays, or device arrays of the model's
  /// GPU, used in place); outputs are fresh arrays that own their runtime
  /// tensors: NumPy arrays on the host, DLPack arrays on the device when
  /// `device_outputs`. `stream` is the GPU stream to queue the call on (0: the
  /// runtime's own, waited for).
  /// `rngState` ([seed, offset]): replay that run's random numbers; `rngUsed`
  /// receives the state the run used (both optional, int64 arrays of 2).
  std::vector<nb::object> run(const std::vector<AnyArray> &inputs, uintptr_t stream, bool deviceOutputs,
                              bool cudaGraphs, std::optional<RngArray> rngState, std::optional<RngArray> rngUsed) {
    size_t nin = inputs.size();
    kiln_device_type_t modelDevice = kiln_model_device(m_);
    std::vector<kiln_tensor_t> in(nin, nullptr);
    auto releaseAll = [&](std::vector<kiln_tensor_t> &v) {
      for (kiln_tensor_t t : v)
        kiln_tensor_release(t);
    };
    for (size_t i = 0; i < nin; ++i) {
      const AnyArray &a = inputs[i];
      std::vector<int64_t> shape(a.ndim());
      for (size_t d = 0; d < a.ndim(); ++d)
        shape[d] = (int64_t)a.shape(d);
      kiln_device_type_t dev;
      std::string why = deviceOf(a, modelDevice, &dev);
      if (!why.empty()) {
        releaseAll(in);
        raise("input " + std::to_string(i) + ": " + why);
      }
      kiln::DType dt;
      try {
        dt = fromDL(a.dtype());
      } catch (...) {
        releaseAll(in);
        throw;
      }
      kiln_status_t st = kiln_tensor_wrap_device(a.data(), dev, (kiln_dtype_t)dt, shape.size(), shape.data(),
                                                 nullptr, nullptr, &in[i]);
      if (st) {
        releaseAll(in);
        check(st);
      }
    }
    return runWrapped(in, stream, deviceOutputs, cudaGraphs, rngState, rngUsed);
  }

  /// run() for tensors given as raw addresses (a framework's data pointers),
  /// shapes and dtype names, all on `device` ("cpu", or the model's GPU), C-contiguous:
  /// no DLPack capsule per tensor, which matters for graphs with many inputs.
  std::vector<nb::object> runPointers(const std::vector<uintptr_t> &ptrs,
                                      const std::vector<std::vector<int64_t>> &shapes,
                                      const std::vector<std::string> &dtypes, const std::string &device,
                                      uintptr_t stream, bool deviceOutputs, bool cudaGraphs,
                                      std::optional<RngArray> rngState, std::optional<RngArray> rngUsed) {
    size_t nin = ptrs.size();
    if (shapes.size() != nin || dtypes.size() != nin)
      raise("run_pointers: " + std::to_string(nin) + " pointers, " + std::to_string(shapes.size()) +
            " shapes and " + std::to_string(dtypes.size()) + " dtypes");
    kiln_device_type_t dev = deviceNamed(device, "run_pointers");
    std::vector<kiln_tensor_t> in = wrapPointers(ptrs, shapes, dtypes, dev);
    return runWrapped(in, stream, deviceOutputs, cudaGraphs, rngState, rngUsed);
  }

  /// Binds the inputs at `positions` once (data addresses, shapes, dtype names
  /// on `device`, C-contiguous), for run_bound: a framework's parameters, which
  /// stay at one address from call to call. The caller keeps them alive while
  /// bound. A GPU model's CUDA graph reads them in place (no copy per replay).
  void bind(const std::vector<size_t> &positions, const std::vector<uintptr_t> &ptrs,
            const std::vector<std::vector<int64_t>> &shapes, const std::vector<std::string> &dtypes,
            const std::string &device) {
    size_t nin = kiln_model_num_inputs(m_);
    if (positions.size() != ptrs.size() || shapes.size() != ptrs.size() || dtypes.size() != ptrs.size())
      raise("bind: " + std::to_string(positions.size()) + " positions, " + std::to_string(ptrs.size()) +
            " pointers, " + std::to_string(shapes.size()) + " shapes and " + std::to_string(dtypes.size()) +
            " dtypes");
    std::vector<kiln_tensor_t> wrapped = wrapPointers(ptrs, shapes, dtypes, deviceNamed(device, "bind"));
    std::vector<kiln_tensor_t> fixed(nin, nullptr);
    for (size_t k = 0; k < positions.size(); ++k) {
      if (positions[k] >= nin || fixed[positions[k]]) {
        for (kiln_tensor_t t : wrapped)
          kiln_tensor_release(t);
        raise("bind: position " + std::to_string(positions[k]) + " is out of range (" + std::to_string(nin) +
              " inputs) or given twice");
      }
      fixed[positions[k]] = wrapped[k];
    }
    unbind();
    bound_ = std::move(fixed);
    staticFlags_.assign(nin, 0);
    for (size_t i = 0; i < nin; ++i)
      staticFlags_[i] = bound_[i] != nullptr;
  }

  /// Runs with the bound inputs and, in order, the others given as in
  /// run_pointers.
  std::vector<nb::object> runBound(const std::vector<uintptr_t> &ptrs,
                                   const std::vector<std::vector<int64_t>> &shapes,
                                   const std::vector<std::string> &dtypes, const std::string &device,
                                   uintptr_t stream, bool deviceOutputs, bool cudaGraphs) {
    if (bound_.empty())
      raise("run_bound: no inputs are bound (call bind first)");
    size_t free = 0;
    for (kiln_tensor_t t : bound_)
      free += t == nullptr;
    if (ptrs.size() != free || shapes.size() != free || dtypes.size() != free)
      raise("run_bound: the model takes " + std::to_string(free) + " unbound input(s), got " +
            std::to_string(ptrs.size()) + " pointers, " + std::to_string(shapes.size()) + " shapes and " +
            std::to_string(dtypes.size()) + " dtypes");
    kiln_device_type_t dev = deviceNamed(device, "run_bound");
    std::vector<kiln_tensor_t> given = wrapPointers(ptrs, shapes, dtypes, dev);
    std::vector<kiln_tensor_t> in(bound_.size(), nullptr);
    for (size_t i = 0, k = 0; i < bound_.size(); ++i) {
      if (bound_[i]) {
        kiln_tensor_retain(bound_[i]);
        in[i] = bound_[i];
      } else {
        in[i] = given[k++];
      }
    }
    std::optional<RngArray> none;
    return runWrapped(in, stream, deviceOutputs, cudaGraphs, none, none, staticFlags_.data());
  }

  /// Forgets the bound inputs.
  void unbind() {
    for (kiln_tensor_t t : bound_)
      if (t) kiln_tensor_release(t);
    bound_.clear();
    staticFlags_.clear();
  }

private:
  kiln_device_type_t deviceNamed(const std::string &device, const char *what) const {
    kiln_device_type_t dev = device == "cpu"    ? KILN_DEVICE_CPU
                             : device == "cuda" ? KILN_DEVICE_CUDA
                             : device == "hip"  ? KILN_DEVICE_HIP
                                                : (kiln_device_type_t)-1;
    if ((int)dev < 0)
      raise(std::string(what) + ": unknown device '" + device + "' (cpu, cuda or hip)");
    if (dev != KILN_DEVICE_CPU && dev != kiln_model_device(m_))
      raise(std::string(what) + ": " + device + " tensors, but the model runs on " + this->device());
    return dev;
  }

  /// Wraps C-contiguous tensors given as addresses, shapes and dtype names
  /// (one reference each, owned by the caller); releases what it wrapped and
  /// raises on a bad dtype or shape.
  std::vector<kiln_tensor_t> wrapPointers(const std::vector<uintptr_t> &ptrs,
                                          const std::vector<std::vector<int64_t>> &shapes,
                                          const std::vector<std::string> &dtypes, kiln_device_type_t dev) {
    std::vector<kiln_tensor_t> in(ptrs.size(), nullptr);
    for (size_t i = 0; i < ptrs.size(); ++i) {
      kiln::DType dt;
      try {
        dt = byName(dtypes[i]);
      } catch (...) {
        for (kiln_tensor_t t : in)
          kiln_tensor_release(t);
        throw;
      }
      kiln_status_t st = kiln_tensor_wrap_device(reinterpret_cast<void *>(ptrs[i]), dev, (kiln_dtype_t)dt,
                                                 shapes[i].size(), shapes[i].data(), nullptr, nullptr, &in[i]);
      if (st) {
        for (kiln_tensor_t t : in)
          kiln_tensor_release(t);
        check(st);
      }
    }
    return in;
  }

  /// Runs on wrapped inputs (released here) and hands the outputs back as arrays.
  /// `staticFlags`: null, or one flag per input kept at one address (a graph reads it in place).
  std::vector<nb::object> runWrapped(std::vector<kiln_tensor_t> &in, uintptr_t stream, bool deviceOutputs,
                                     bool cudaGraphs, std::optional<RngArray> &rngState,
                                     std::optional<RngArray> &rngUsed,
                                     const unsigned char *staticFlags = nullptr) {
    size_t nin = in.size(), nout = kiln_model_num_outputs(m_);
    kiln_device_type_t modelDevice = kiln_model_device(m_);
    std::vector<kiln_tensor_t> out(nout, nullptr);
    auto releaseAll = [&](std::vector<kiln_tensor_t> &v) {
      for (kiln_tensor_t t : v)
        kiln_tensor_release(t);
    };
    kiln_run_options_t opts;
    kiln_run_options_init(&opts);
    opts.stream = reinterpret_cast<void *>(stream);
    opts.cuda_graphs = cudaGraphs ? 1 : 0;
    opts.static_inputs = staticFlags;
    if (deviceOutputs) {
      if (modelDevice == KILN_DEVICE_CPU) {
        releaseAll(in);
        raise("device_outputs: this model runs on the CPU");
      }
      opts.output_device = modelDevice;
    }
    kiln_status_t st;
    {
      nb::gil_scoped_release noGil; // the model is thread-safe; the caller keeps the inputs alive
      opts.rng_state = rngState ? rngState->data() : nullptr;
      opts.rng_state_used = rngUsed ? rngUsed->data() : nullptr;
      st = kiln_model_run_with_options(m_, &opts, in.data(), nin, out.data(), nout);
    }
    releaseAll(in);
    check(st);
    std::vector<nb::object> result;
    for (kiln_tensor_t t : out) {
      nb::capsule owner(t, [](void *p) noexcept { kiln_tensor_release((kiln_tensor_t)p); });
      std::vector<size_t> shape(kiln_tensor_sizes(t), kiln_tensor_sizes(t) + kiln_tensor_rank(t));
      nb::dlpack::dtype dt = entryOf((kiln::DType)kiln_tensor_dtype(t)).dl;
      kiln_device_type_t dev = kiln_tensor_device(t);
      if (dev == KILN_DEVICE_CPU) {
        result.push_back(hostArray(kiln_tensor_data(t), shape, owner, dt));
      } else {
        int32_t type = dev == KILN_DEVICE_CUDA ? nb::device::cuda::value : nb::device::rocm::value;
        result.push_back(nb::cast(nb::ndarray<>(kiln_tensor_data(t), shape.size(), shape.data(), owner,
                                                nullptr, dt, type, 0)));
      }
    }
    return result;
  }

  template <typename F> std::vector<ValueInfo> infos(size_t n, F query) const {
    std::vector<ValueInfo> v;
    for (size_t i = 0; i < n; ++i) {
      kiln_value_info_t info;
      std::memset(&info, 0, sizeof(info));
      info.struct_size = sizeof(info);
      check(query(m_, i, &info));
      v.push_back(toInfo(info));
    }
    return v;
  }
  kiln_model_t m_ = nullptr;
  std::vector<kiln_tensor_t> bound_;        ///< per input: bound by bind(), or null
  std::vector<unsigned char> staticFlags_;  ///< per input: 1 where bound
};

} // namespace kiln_py

using namespace kiln_py;

NB_MODULE(_kiln, m) {
  m.doc() = "kiln runtime: compiled models and the op dispatcher";
  // Ops registered with torch keep Python closures alive until exit by design.
  nb::set_leak_warnings(false);
  gKilnError = nb::borrow(PyErr_NewException("kiln.KilnError", PyExc_RuntimeError, nullptr));
  m.attr("KilnError") = gKilnError;
  m.attr("ABI_VERSION") = kiln_abi_version();

  nb::class_<ValueInfo>(m, "ValueInfo")
      .def_ro("name", &ValueInfo::name)
      .def_ro("kind", &ValueInfo::kind)
      .def_ro("dtype", &ValueInfo::dtype)
      .def_ro("dims", &ValueInfo::dims, "static size per dim, -1 where dynamic")
      .def_ro("dim_min", &ValueInfo::dimMin)
      .def_ro("dim_max", &ValueInfo::dimMax, "-1 = unbounded")
      .def_ro("symbols", &ValueInfo::symbols)
      .def_ro("mutated", &ValueInfo::mutated,
              "an input the program writes into (it receives its new value after a run)")
      .def("__repr__", [](const ValueInfo &v) {
        std::string s = "ValueInfo(" + v.name + ", " + v.dtype + ", [";
        for (size_t i = 0; i < v.dims.size(); ++i)
          s += (i ? ", " : "") + (v.dims[i] < 0 ? v.symbols[i] : std::to_string(v.dims[i]));
        return s + "])";
      });

  nb::class_<Model>(m, "Model")
      .def(nb::init<const std::string &, std::optional<std::string>, std::vector<std::string>,
                    const std::vector<std::string> &, const std::vector<uintptr_t> &,
                    const std::vector<std::vector<int64_t>> &, const std::vector<std::string> &,
                    const std::string &>(),
           "path"_a, "weights"_a = nb::none(), "plugins"_a = std::vector<std::string>(),
           "weight_names"_a = std::vector<std::string>(), "weight_pointers"_a = std::vector<uintptr_t>(),
           "weight_shapes"_a = std::vector<std::vector<int64_t>>(),
           "weight_dtypes"_a = std::vector<std::string>(), "weight_device"_a = "cpu",
           "Loads a compiled model: weights embedded, read from the .pt2 `weights`, or the "
           "caller's tensors (weight_names with their data addresses, shapes and dtype names on "
           "weight_device, C-contiguous, kept alive by the caller), bound in place.")
      .def_prop_ro("name", &Model::name)
      .def_prop_ro("inputs", &Model::inputs)
      .def_prop_ro("outputs", &Model::outputs)
      .def_prop_ro("params", &Model::params)
      .def_prop_ro("device", &Model::device, "where the model's code runs: cpu, cuda or hip")
      .def_prop_ro("is_random", &Model::isRandom, "the program draws random numbers (dropout, rand, ...)")
      .def("run", &Model::run, "inputs"_a, "stream"_a = 0, "device_outputs"_a = false,
           "cuda_graphs"_a = true, "rng_state"_a = nb::none(), "rng_state_used"_a = nb::none(),
           "Runs the model on C-contiguous arrays (CPU, or the GPU of a GPU model, used in "
           "place); returns arrays that share the runtime's output buffers: NumPy arrays on the "
           "host, or DLPack arrays on the device with device_outputs. stream: the CUstream (or "
           "hipStream_t) to queue the call on, 0 for the runtime's own (waited for). rng_state "
           "(int64 [seed, offset]) replays the random numbers of the run that used it; "
           "rng_state_used receives the state this run used.")
      .def("run_pointers", &Model::runPointers, "pointers"_a, "shapes"_a, "dtypes"_a, "device"_a,
           "stream"_a = 0, "device_outputs"_a = false, "cuda_graphs"_a = true,
           "rng_state"_a = nb::none(), "rng_state_used"_a = nb::none(),
           "run() for C-contiguous tensors given as data addresses, shapes and dtype names "
           "(float32, int64, ...) on one device (cpu, or the model's GPU); the caller keeps them "
           "alive and unchanged until the call's work is done (in `stream`'s order).")
      .def("bind", &Model::bind, "positions"_a, "pointers"_a, "shapes"_a, "dtypes"_a, "device"_a,
           "Binds the inputs at `positions` once (as run_pointers takes them) for run_bound: "
           "values kept at one address from call to call (a framework's parameters), which a "
           "GPU model's CUDA graph reads in place. The caller keeps them alive while bound. "
           "Not thread-safe with run_bound.")
      .def("run_bound", &Model::runBound, "pointers"_a, "shapes"_a, "dtypes"_a, "device"_a,
           "stream"_a = 0, "device_outputs"_a = false, "cuda_graphs"_a = true,
           "run_pointers() with the bound inputs in place and the others, in order, given here.")
      .def("unbind", &Model::unbind, "Forgets the bound inputs.");

  kiln_py::bindDispatcher(m);
}
