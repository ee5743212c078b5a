// kiln-run — what it executes: a compiled model through the C ABI, or a .pt2 run eagerly.
#include "KilnRunInternal.h"
#include "kiln/abi/io_names.h"

#include "kiln/gpu.h"
#include "kiln/dispatcher.h"
#include "kiln/eager.h"
#include "kiln/kiln.h"
#include "kiln/npy.h"


#include <algorithm>
#include <chrono>
#include <ctime>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <iomanip>
#include <ostream>
#include <sstream>


namespace kiln::run {

namespace {

/// Exit 3 for a model that failed while running: a failure inside it, memory
/// that ran out, or (in a run, `running`) the device failing under it (a
/// launch, a library such as cuDNN missing or refusing); exit 2 for what the
/// user can fix before running (usage, inputs, no GPU at load).
int exitCodeFor(kiln_status_code_t code, bool running) {
  switch (code) {
  case KILN_STATUS_INTERNAL:
  case KILN_STATUS_RESOURCE_EXHAUSTED: return kExitFailure;
  case KILN_STATUS_DEVICE_ERROR: return running ? kExitFailure : kExitUsage;
  default: return kExitUsage;
  }
}

// Throws a RunError for a non-OK status, freeing it.
void check(kiln_status_t s, bool running = false) {
  if (!s) return;
  std::string msg = kiln_status_message(s);
  int code = exitCodeFor(kiln_status_code(s), running);
  kiln_status_free(s);
  throw RunError(code, msg);
}

std::string describe(const kiln_value_info_t &info) {
  std::string s = std::string(kiln_dtype_name(info.dtype)) + " [";
  for (size_t d = 0; d < info.rank; ++d) {
    if (d) s += ", ";
    s += info.dims[d] >= 0 ? std::to_string(info.dims[d]) : std::string(info.dim_symbols[d]);
  }
  return s + "]";
}

/// A compiled model .so, run through the public C ABI.
class CompiledModel : public Executable {
public:
  explicit CompiledModel(const Options &o) {
    if (o.device == "cuda") check(kiln_device_check(KILN_DEVICE_CUDA));
    if (o.device == "hip") check(kiln_device_check(KILN_DEVICE_HIP));
    kiln_model_options_t mo;
    kiln_model_options_init(&mo);
    if (!o.weights.empty()) mo.weights_path = o.weights.c_str();
    std::vector<const char *> plugins;
    for (const std::string &p : o.plugins) plugins.push_back(p.c_str());
    mo.plugin_paths = plugins.data();
    mo.num_plugins = plugins.size();
    mo.num_threads = o.threads;
    mo.seed = o.seed;
    check(kiln_model_load(o.model.c_str(), &mo, &model_));
    cudaGraphs_ = o.cudaGraphs;
    kiln_device_type_t dev = kiln_model_device(model_);
    std::string compiledFor = dev == KILN_DEVICE_CUDA ? "cuda" : dev == KILN_DEVICE_HIP ? "hip" : "cpu";
    if (!o.device.empty() && o.device != compiledFor) {
      kiln_model_free(model_);
      usageError("'" + o.model + "' was compiled for " + (compiledFor == "cpu" ? "the cpu" : compiledFor) +
                 ", not " + o.device +
                 (o.device == "cuda"  ? " (compile it with kiln-compile --target=cuda to run it on an NVIDIA GPU)"
                  : o.device == "hip" ? " (compile it with kiln-compile --target=rocm to run it on an AMD GPU)"
                                      : ""));
    }
    for (size_t i = 0; i < kiln_model_num_inputs(model_); ++i) inputs_.push_back(info(i, true));
    for (size_t i = 0; i < kiln_model_num_outputs(model_); ++i) outputs_.push_back(info(i, false));
  }
  ~CompiledModel() override { kiln_model_free(model_); }

  size_t numInputs() const override { return inputs_.size(); }
  size_t numOutputs() const override { return outputs_.size(); }
  std::string inputName(size_t i) const override { return name(i, "input", inputs_[i]); }
  std::string outputName(size_t i) const override { return name(i, "output", outputs_[i]); }
  std::string outputLabel(size_t i) const override {
    return outputs_[i].name ? outputs_[i].name : "";
  }
  std::string inputLabel(size_t i) const override { return inputs_[i].name ? inputs_[i].name : ""; }
  bool readParam(const std::string &name, Tensor &out) const override {
    for (size_t i = 0; i < kiln_model_num_params(model_); ++i) {
      kiln_value_info_t v;
      std::memset(&v, 0, sizeof v);
      v.struct_size = sizeof v;
      check(kiln_model_param_info(model_, i, &v));
      if (!v.name || name != v.name) continue;
      kiln_tensor_t t = nullptr;
      check(kiln_model_param_read(model_, i, &t));
      std::vector<int64_t> sizes(kiln_tensor_sizes(t), kiln_tensor_sizes(t) + kiln_tensor_rank(t));
      out = Tensor::empty(sizes, (DType)kiln_tensor_dtype(t));
      std::memcpy(out.rawData(), kiln_tensor_data(t), kiln_tensor_nbytes(t));
      kiln_tensor_release(t);
      return true;
    }
    return false;
  }
  std::vector<std::string> mutatedParams() const override {
    std::vector<std::string> names;
    for (size_t i = 0; i < kiln_model_num_params(model_); ++i) {
      kiln_value_info_t v;
      std::memset(&v, 0, sizeof v);
      v.struct_size = sizeof v;
      check(kiln_model_param_info(model_, i, &v));
      if (v.mutated && v.name) names.push_back(v.name);
    }
    return names;
  }
  DType inputDType(size_t i) const override { return (DType)inputs_[i].dtype; }
  DType outputDType(size_t i) const override { return (DType)outputs_[i].dtype; }
  std::vector<int64_t> inputDims(size_t i) const override {
    return std::vector<int64_t>(inputs_[i].dims, inputs_[i].dims + inputs_[i].rank);
  }
  std::vector<int64_t> outputDims(size_t i) const override {
    return std::vector<int64_t>(outputs_[i].dims, outputs_[i].dims + outputs_[i].rank);
  }

  std::vector<Tensor> run(const std::vector<Tensor> &inputs) override {
    std::vector<kiln_tensor_t> in = wrap(inputs);
    struct Release {
      std::vector<kiln_tensor_t> &v;
      ~Release() { for (kiln_tensor_t t : v) kiln_tensor_release(t); }
    } releaseIn{in};
    std::vector<kiln_tensor_t> out(outputs_.size(), nullptr);
    kiln_run_options_t ro;
    kiln_run_options_init(&ro);
    ro.cuda_graphs = cudaGraphs_;
    check(kiln_model_run_with_options(model_, &ro, in.data(), in.size(), out.data(), out.size()), true);
    std::vector<Tensor> result;
    for (size_t i = 0; i < out.size(); ++i) {
      kiln_tensor_t h = out[i];
      std::vector<int64_t> sizes(kiln_tensor_sizes(h), kiln_tensor_sizes(h) + kiln_tensor_rank(h));
      result.push_back(Tensor::fromBlob(kiln_tensor_data(h), sizes, (DType)kiln_tensor_dtype(h),
                                        [h](void *) { kiln_tensor_release(h); }));
      out[i] = nullptr;
    }
    return result;
  }

  std::string timing() const override {
    DeviceType d = gpuDevice();
    if (d == DeviceType::CPU) {
      int n = kiln_model_num_threads(model_);
      return "host clock, " + std::to_string(n) + (n == 1 ? " thread" : " threads");
    }
    std::string v = d == DeviceType::HIP ? "HIP" : "CUDA";
    return v + " events on " + gpu::deviceDescription(d) + ", inputs and outputs on the GPU, " +
           (cudaGraphs_ ? v + " graphs" : "no " + v + " graphs");
  }

  std::vector<double> timeRuns(const std::vector<Tensor> &inputs, long warmup, long n) override {
    DeviceType d = gpuDevice();
    if (d == DeviceType::CPU) return Executable::timeRuns(inputs, warmup, n);
    std::vector<kiln_tensor_t> host = wrap(inputs), dev;
    struct Release {
      std::vector<kiln_tensor_t> &a, &b;
      ~Release() {
        for (kiln_tensor_t t : a) kiln_tensor_release(t);
        for (kiln_tensor_t t : b) kiln_tensor_release(t);
      }
    } release{host, dev};
    void *stream = gpu::createStream(d);
    struct Stream {
      DeviceType d;
      void *s;
      ~Stream() { gpu::destroyStream(d, s); }
    } keep{d, stream};
    for (kiln_tensor_t h : host) {
      kiln_tensor_t t = nullptr;
      check(kiln_tensor_copy_to(h, kiln_model_device(model_), stream, &t));
      dev.push_back(t);
    }
    kiln_run_options_t ro;
    kiln_run_options_init(&ro);
    ro.stream = stream;
    ro.output_device = kiln_model_device(model_);
    ro.cuda_graphs = cudaGraphs_;
    gpu::EventTimer timer(d);
    std::vector<double> ms;
    std::vector<kiln_tensor_t> out(outputs_.size(), nullptr);
    for (long i = 0; i < warmup + n; ++i) {
      timer.start(stream);
      check(kiln_model_run_with_options(model_, &ro, dev.data(), dev.size(), out.data(), out.size()), true);
      double t = timer.stopMs(stream);
      for (kiln_tensor_t &o : out) kiln_tensor_release(o), o = nullptr;
      if (i >= warmup) ms.push_back(t);
    }
    return ms;
  }

private:
  /// The model's GPU, or CPU.
  DeviceType gpuDevice() const {
    kiln_device_type_t d = kiln_model_device(model_);
    return d == KILN_DEVICE_CUDA ? DeviceType::CUDA : d == KILN_DEVICE_HIP ? DeviceType::HIP : DeviceType::CPU;
  }
  /// Borrowed C handles of `inputs` (contiguous; each keeps its tensor alive).
  std::vector<kiln_tensor_t> wrap(const std::vector<Tensor> &inputs) {
    std::vector<kiln_tensor_t> in;
    try {
      for (const Tensor &t0 : inputs) {
        Tensor t = t0.contiguous();
        auto *keep = new Tensor(t);  // keeps the storage alive until the C tensor goes
        kiln_tensor_t h = nullptr;
        kiln_status_t s = kiln_tensor_wrap(t.rawData(), (kiln_dtype_t)t.dtype(), t.sizes().size(),
                                           t.sizes().data(),
                                           [](void *, void *user) { delete static_cast<Tensor *>(user); },
                                           keep, &h);
        if (s) delete keep;
        check(s);
        in.push_back(h);
      }
    } catch (...) {
      for (kiln_tensor_t t : in) kiln_tensor_release(t);
      throw;
    }
    return in;
  }

  kiln_value_info_t info(size_t i, bool input) const {
    kiln_value_info_t v;
    std::memset(&v, 0, sizeof v);
    v.struct_size = sizeof v;
    check(input ? kiln_model_input_info(model_, i, &v) : kiln_model_output_info(model_, i, &v));
    return v;
  }
  static std::string name(size_t i, const char *what, const kiln_value_info_t &v) {
    return std::string(what) + " " + std::to_string(i) + " (\"" + v.name + "\": " + describe(v) + ")";
  }

  kiln_model_t model_ = nullptr;
  std::vector<kiln_value_info_t> inputs_, outputs_;
  bool cudaGraphs_ = true;
};

bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool isIdentifier(const std::string &s) {
  if (s.empty() || !(std::isalpha((unsigned char)s[0]) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum((unsigned char)c) || c == '_')) return false;
  return true;
}

/// A .pt2 program run eagerly, op by op, through the dispatcher.
class EagerProgram : public Executable {
public:
  explicit EagerProgram(const Options &o) {
    if (o.seed >= 0)
      usageError("--seed applies to a compiled model (.so), not to eager execution of '" + o.model + "'");
    if (o.threads)
      usageError("--threads applies to a compiled model (.so), not to eager execution of '" + o.model + "'");
    if (!o.weights.empty())
      usageError("--weights does not apply to a .pt2 archive: its weights are inside '" + o.model +
                 "' (--weights is for a compiled .so built with external weights)");
    std::error_code ec;
    if (!std::filesystem::exists(o.model, ec))
      usageError("model file '" + o.model + "' does not exist");
    // Plugins first: the program resolves its ops in the dispatcher when it loads.
    for (const std::string &p : o.plugins) {
      std::string why;
      if (!kiln::loadPlugin(p, why)) usageError(why);
    }
    try {
      program_ = eager::Program::load(o.model);
    } catch (const std::bad_alloc &) {
      throw;
    } catch (const std::exception &e) {
      // A malformed archive or an op the dispatcher does not know (a missing --plugin).
      std::string msg = std::string("cannot load '") + o.model + "' for eager execution: " + e.what();
      if (msg.find("unknown op 'aten::") != std::string::npos || msg.find("unknown op 'prims::") != std::string::npos)
        // An ATen op: no plugin defines it. Say what runs it today.
        msg += "\n  (the eager runtime has no kernel for this ATen op and kiln's composite table does"
               " not decompose it: compile the archive instead (kiln-compile " + o.model +
               " -o model.so, then kiln-run model.so); docs/op-coverage.md lists what kiln supports)";
      else if (msg.find("unknown op") != std::string::npos)
        msg += "\n  (load the plugin that defines it with --plugin LIB.so)";
      usageError(msg);
    }
  }

  size_t numInputs() const override { return program_->inputs().size(); }
  size_t numOutputs() const override { return program_->outputs().size(); }
  std::string inputName(size_t i) const override {
    return name(i, "input", program_->inputs()[i], program_->inputs()[i].dimLabels);
  }
  std::string outputName(size_t i) const override {
    return name(i, "output", program_->outputs()[i], program_->outputs()[i].dimLabels);
  }
  DType inputDType(size_t i) const override { return program_->inputs()[i].dtype; }

  std::vector<Tensor> run(const std::vector<Tensor> &inputs) override {
    validate(inputs);
    try {
      return program_->run(inputs);
    } catch (const std::bad_alloc &) {
      throw;
    } catch (const std::exception &e) {
      throw RunError(kExitFailure, e.what());
    }
  }

private:
  static std::string dimsString(const std::vector<std::string> &dims) {
    std::string s = "[";
    for (size_t d = 0; d < dims.size(); ++d) s += (d ? ", " : "") + dims[d];
    return s + "]";
  }
  static std::string name(size_t i, const char *what, const eager::ValueSpec &v,
                          const std::vector<std::string> &dims) {
    return std::string(what) + " " + std::to_string(i) + " (\"" + v.name + "\": " + dtypeName(v.dtype) +
           " " + dimsString(dims) + ")";
  }

  /// The compiled model's checks (loader/Model.cpp), with the same messages:
  /// count, dtype, rank, static dims, dynamic dims within their range_constraints
  /// and one size per symbol across all inputs. Throws RunError(kExitUsage).
  void validate(const std::vector<Tensor> &inputs) const {
    const std::vector<eager::ValueSpec> &specs = program_->inputs();
    if (inputs.size() != specs.size())
      usageError("the program expects " + std::to_string(specs.size()) + " input" +
                 (specs.size() == 1 ? "" : "s") + ", got " + std::to_string(inputs.size()));
    std::map<std::string, std::pair<int64_t, std::string>> bound;  // symbol -> (size, where)
    for (size_t i = 0; i < inputs.size(); ++i) {
      const eager::ValueSpec &v = specs[i];
      const Tensor &t = inputs[i];
      const std::vector<std::string> &dims = program_->inputs()[i].dimLabels;
      std::string who = "input " + std::to_string(i) + " (\"" + v.name + "\")";
      if (!t.defined()) usageError(who + ": tensor is undefined");
      if (t.device().type != DeviceType::CPU)
        usageError(who + ": tensor is on device " + deviceTypeName(t.device().type) + ", expected cpu");
      if (t.dtype() != v.dtype)
        usageError(who + ": dtype is " + dtypeName(t.dtype()) + ", expected " + dtypeName(v.dtype));
      if ((size_t)t.dim() != v.sizes.size())
        usageError(who + ": rank is " + std::to_string(t.dim()) + " (shape " + t.shapeString() +
                   "), expected " + std::to_string(v.sizes.size()) + " " + dimsString(dims));
      for (size_t d = 0; d < v.sizes.size(); ++d) {
        int64_t n = t.size((int64_t)d);
        std::string dimIs = who + ": dim " + std::to_string(d) + " is " + std::to_string(n);
        if (v.sizes[d] >= 0) {
          if (n != v.sizes[d])
            usageError(dimIs + ", expected " + std::to_string(v.sizes[d]) + " (shape " + t.shapeString() +
                       ", expected " + dimsString(dims) + ")");
          continue;
        }
        int64_t lo = v.minSizes[d], hi = v.maxSizes[d];
        const std::string &sym = dims[d];
        if (n < lo || (hi >= 0 && n > hi))
          usageError(dimIs + ", outside the range [" + std::to_string(lo) + ", " +
                     (hi < 0 ? std::string("inf)") : std::to_string(hi) + "]") +
                     (isIdentifier(sym) ? " of symbol " + sym : " of " + sym));
        if (!isIdentifier(sym)) continue;  // an expression such as 2*s0: its range only
        std::string here = who + " dim " + std::to_string(d);
        auto [it, fresh] = bound.emplace(sym, std::make_pair(n, here));
        if (!fresh && it->second.first != n)
          usageError(dimIs + ", but symbol " + sym + " is already " + std::to_string(it->second.first) +
                     " from " + it->second.second);
      }
    }
  }

  std::unique_ptr<eager::Program> program_;
};

} // namespace

std::vector<double> Executable::timeRuns(const std::vector<Tensor> &inputs, long warmup, long n) {
  using Clock = std::chrono::steady_clock;
  for (long i = 0; i < warmup; ++i) run(inputs);
  std::vector<double> ms;
  auto cpuNow = [] {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
  };
  double cpu0 = cpuNow();
  for (long i = 0; i < n; ++i) {
    auto t0 = Clock::now();
    run(inputs);
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  if (n > 0) cpuMsPerRun = (cpuNow() - cpu0) / n;
  return ms;
}

std::unique_ptr<Executable> openExecutable(const Options &o) {
  if (endsWith(o.model, ".pt2")) {
    if (o.device == "cuda" || o.device == "hip")
      usageError("--device " + o.device + " needs a compiled model: eager execution of a .pt2 runs on the cpu "
                 "(compile it with kiln-compile --target=" + (o.device == "hip" ? "rocm" : "cuda") + ")");
    return std::make_unique<EagerProgram>(o);
  }
  return std::make_unique<CompiledModel>(o);
}

} // namespace kiln::run
