// kiln-run — option parsing, model execution through the C ABI, comparison and benchmarking.
#include "KilnRun.h"
#include "kiln/abi/io_names.h"

#include "kiln/gpu.h"
#include "kiln/dispatcher.h"
#include "kiln/eager.h"
#include "kiln/kiln.h"
#include "kiln/npy.h"


#include <algorithm>
#include <chrono>
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

std::string usage() {
  return R"(usage: kiln-run MODEL.so [--input F.npy]... [--cotangent F.npy|--tangent F.npy]...
                [--output-dir DIR] [--expect F.npy]... [--expect-grads DIR] [--expect-params DIR]
                [--gradcheck [--gradcheck-range LO,HI]]
                [--rtol R] [--atol A] [--torch-tolerances] [--runs N] [--bench N]
                [--weights F.pt2] [--plugin LIB.so]... [--device cpu|cuda|hip]
                [--no-cuda-graphs] [--threads N] [--seed S]
       kiln-run MODEL.pt2 [same options but --weights, --device, --threads and --seed]

Runs a compiled kiln model on .npy inputs. A .pt2 archive runs eagerly instead:
op by op through the runtime's dispatcher, the reference to compare a compiled
model with when bisecting numerical problems.
  --input F.npy      one per model input, in order
  --cotangent F.npy  a model compiled with kiln-compile --grad: one per model
                     output, the seeds of its backward pass (passed after the
                     --input tensors)
  --tangent F.npy    a model compiled with kiln-compile --jvp: one per
                     floating-point model input, the direction of the
                     Jacobian-vector product (passed after the --input tensors)
  --output-dir DIR   write output{i}.npy there (created if needed); the
                     gradients of a --grad model go to DIR/grads/<name>.npy
                     (input{i}.npy, <parameter name>.npy), the tangents of a
                     --jvp model to DIR/tangents/output{i}.npy, and the weights
                     the runs updated (a --train-step model's trained
                     parameters and optimizer state, batch-norm statistics)
                     to DIR/params/<name>.npy
  --expect-params DIR  after the runs, compare every weight the model holds
                     with DIR/<name>.npy, for each .npy in DIR (the parameters
                     a --train-step model has trained)
  --gradcheck        a --grad model whose inputs are all user inputs: run it on
                     seeded random inputs and cotangents and compare each
                     gradient grads/input<i> with central differences of
                     sum(output * cotangent); a --jvp model: each tangent
                     with central differences along the tangents (step 1e-6,
                     atol 1e-5, rtol 1e-3; meant for f64 programs)
  --gradcheck-range LO,HI  the random inputs' range (default -1,1)
  --expect-grads DIR a --grad model: compare every gradient with DIR/<name>.npy
                     (a corpus grads/ folder; its cotangent{i}.npy are seeds,
                     and every other .npy there must be a gradient of the model)
  --expect F.npy     one per model output, in order: compare, printing the max
                     absolute and relative error; an element matches when
                     |actual - expected| <= atol + rtol * |expected| (NaN == NaN)
                     for floating-point outputs; integer and bool outputs
                     must match exactly. bf16 values are read from and
                     written to f32 files (NumPy has no bfloat16)
  --rtol R           relative tolerance (default 1e-4)
  --atol A           absolute tolerance (default 1e-5)
  --torch-tolerances per output dtype, torch.testing.assert_close's defaults
                     (f64 1e-7/1e-7, f32 1.3e-6/1e-5, f16 1e-3/1e-5,
                     bf16 1.6e-2/1e-5 as rtol/atol); --rtol/--atol override
  --runs N           run N times on the same input tensors (default 1), so
                     state the model mutates (buffers, inputs) carries over;
                     --output-dir and --expect see the last run's outputs
  --bench N          after a warm-up, time N runs; print min/median/p90 in ms
                     (a GPU model: inputs and outputs stay on the GPU and each
                     run is timed with CUDA or HIP events)
  --device D         where the model must run: cpu, cuda (a model compiled
                     with --target=cuda) or hip (a model compiled with
                     --target=rocm, on an AMD GPU); inputs are copied to the
                     GPU and the outputs back. Default: where the model was
                     compiled for
  --no-cuda-graphs   launch a GPU model's kernels one by one on every run
                     (default: a model with static shapes replays a CUDA
                     graph of them after its first run)
  --threads N        a compiled CPU model's calls run on N threads (1 to 1024;
                     default: KILN_NUM_THREADS if set, else the cores this
                     process may run on)
  --seed S           the seed of a model's random ops (dropout, rand, randn,
                     randint, bernoulli; 0 to 2^63-1; default: KILN_SEED if
                     set, else PyTorch's default seed); each run (--runs,
                     --bench) draws new numbers
  --weights F.pt2    read external weights from this archive (.so only)
  --plugin LIB.so    load a plugin (custom op kernels) first; repeatable
  --version          print kiln's version and the runtime's C ABI version
  --help             this text
Exit codes: 0 success, 1 an output differs from --expect, 2 bad usage or input
(missing file, wrong count, dtype, rank, shape, dynamic dim out of range) or a
GPU problem (no GPU or driver, wrong architecture, out of GPU memory, a failed
launch), 3 the model failed while running.
)";
}

namespace {

[[noreturn]] void usageError(const std::string &msg) { throw RunError(kExitUsage, msg); }

double parseNumber(const std::string &flag, const std::string &v) {
  char *end = nullptr;
  errno = 0;
  double d = std::strtod(v.c_str(), &end);
  if (v.empty() || *end || errno || !std::isfinite(d) || d < 0)
    usageError(flag + " expects a non-negative number, got '" + v + "'");
  return d;
}

} // namespace

Options parseArgs(const std::vector<std::string> &args) {
  Options o;
  bool haveModel = false;
  for (size_t i = 1; i < args.size(); ++i) {
    std::string a = args[i], value;
    bool inlineValue = false;
    if (a.rfind("--", 0) == 0) {
      size_t eq = a.find('=');
      if (eq != std::string::npos) {
        value = a.substr(eq + 1);
        a = a.substr(0, eq);
        inlineValue = true;
      }
    }
    auto next = [&]() -> std::string {
      if (inlineValue) return value;
      if (i + 1 >= args.size()) usageError(a + " needs a value");
      return args[++i];
    };
    if (a == "--help" || a == "-h") o.help = true;
    else if (a == "--version") o.version = true;
    else if (a == "--input") o.inputs.push_back(next());
    else if (a == "--expect") o.expects.push_back(next());
    else if (a == "--cotangent") o.cotangents.push_back(next());
    else if (a == "--tangent") o.tangents.push_back(next());
    else if (a == "--expect-grads") o.expectGrads = next();
    else if (a == "--expect-params") o.expectParams = next();
    else if (a == "--gradcheck") o.gradcheck = true;
    else if (a == "--gradcheck-range") {
      std::string v = next();
      size_t comma = v.find(',');
      char *e1 = nullptr, *e2 = nullptr;
      std::string lo = v.substr(0, comma), hi = comma == std::string::npos ? "" : v.substr(comma + 1);
      o.gradLo = std::strtod(lo.c_str(), &e1);
      o.gradHi = std::strtod(hi.c_str(), &e2);
      if (comma == std::string::npos || lo.empty() || hi.empty() || *e1 || *e2 || !(o.gradLo < o.gradHi))
        usageError("--gradcheck-range expects LO,HI with LO < HI, got '" + v + "'");
    }
    else if (a == "--plugin") o.plugins.push_back(next());
    else if (a == "--output-dir") o.outputDir = next();
    else if (a == "--weights") o.weights = next();
    else if (a == "--rtol") { o.rtol = parseNumber(a, next()); o.rtolGiven = true; }
    else if (a == "--atol") { o.atol = parseNumber(a, next()); o.atolGiven = true; }
    else if (a == "--torch-tolerances") o.torchTolerances = true;
    else if (a == "--no-cuda-graphs") o.cudaGraphs = false;
    else if (a == "--device") {
      o.device = next();
      if (o.device != "cpu" && o.device != "cuda" && o.device != "hip")
        usageError("--device expects cpu, cuda or hip, got '" + o.device + "'");
    }
    else if (a == "--runs") {
      std::string v = next();
      char *end = nullptr;
      long n = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end || n <= 0 || n > 1000000)
        usageError("--runs expects a positive integer, got '" + v + "'");
      o.runs = n;
    }
    else if (a == "--threads") {
      std::string v = next();
      char *end = nullptr;
      long n = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || !std::isdigit((unsigned char)v[0]) || *end || n < 1 || n > KILN_MAX_NUM_THREADS)
        usageError("--threads expects a thread count from 1 to " + std::to_string(KILN_MAX_NUM_THREADS) +
                   ", got '" + v + "'");
      o.threads = (int)n;
    }
    else if (a == "--seed") {
      std::string v = next();
      char *end = nullptr;
      errno = 0;
      long long n = std::strtoll(v.c_str(), &end, 10);
      if (v.empty() || !std::isdigit((unsigned char)v[0]) || *end || errno)
        usageError("--seed expects a seed from 0 to 2^63-1, got '" + v + "'");
      o.seed = (int64_t)n;
    }
    else if (a == "--bench") {
      std::string v = next();
      char *end = nullptr;
      long n = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end || n <= 0 || n > 100000000)
        usageError("--bench expects a positive integer, got '" + v + "'");
      o.bench = n;
    } else if (a.size() > 1 && a[0] == '-') {
      usageError("unknown option '" + args[i] + "' (see --help)");
    } else {
      if (haveModel) usageError("more than one model given ('" + o.model + "' and '" + a + "')");
      o.model = a;
      haveModel = true;
    }
  }
  if (!o.help && !o.version && !haveModel) usageError("no model given (see --help)");
  return o;
}

namespace {

int exitCodeFor(kiln_status_code_t code) {
  switch (code) {
  case KILN_STATUS_INTERNAL:
  case KILN_STATUS_RESOURCE_EXHAUSTED: return kExitFailure;
  default: return kExitUsage;
  }
}

// Throws a RunError for a non-OK status, freeing it.
void check(kiln_status_t s) {
  if (!s) return;
  std::string msg = kiln_status_message(s);
  int code = exitCodeFor(kiln_status_code(s));
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
    check(kiln_model_run_with_options(model_, &ro, in.data(), in.size(), out.data(), out.size()));
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
      check(kiln_model_run_with_options(model_, &ro, dev.data(), dev.size(), out.data(), out.size()));
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

float halfToFloat(uint16_t h) {
  uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1f, mant = h & 0x3ff, bits;
  if (exp == 0x1f) bits = sign | 0x7f800000u | (mant << 13);
  else if (exp) bits = sign | ((exp + 112) << 23) | (mant << 13);
  else if (!mant) bits = sign;
  else {
    // Subnormal half: normalise it.
    int e = -1;
    do { ++e; mant <<= 1; } while (!(mant & 0x400));
    bits = sign | ((uint32_t)(112 - e) << 23) | ((mant & 0x3ff) << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

float bf16ToFloat(uint16_t b) {
  uint32_t bits = (uint32_t)b << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

double elementAsDouble(const Tensor &t, int64_t i) {
  const char *p = static_cast<const char *>(t.rawData());
  switch (t.dtype()) {
  case DType::Float32: return reinterpret_cast<const float *>(p)[i];
  case DType::Float64: return reinterpret_cast<const double *>(p)[i];
  case DType::Float16: return halfToFloat(reinterpret_cast<const uint16_t *>(p)[i]);
  case DType::BFloat16: return bf16ToFloat(reinterpret_cast<const uint16_t *>(p)[i]);
  case DType::Int64: return (double)reinterpret_cast<const int64_t *>(p)[i];
  case DType::Int32: return reinterpret_cast<const int32_t *>(p)[i];
  case DType::Int16: return reinterpret_cast<const int16_t *>(p)[i];
  case DType::Int8: return reinterpret_cast<const int8_t *>(p)[i];
  case DType::UInt8: return reinterpret_cast<const uint8_t *>(p)[i];
  case DType::Bool: return reinterpret_cast<const uint8_t *>(p)[i] != 0;
  }
  return 0;
}

/// Integer and bool elements exactly (int64 values beyond 2^53 included).
int64_t elementAsInt64(const Tensor &t, int64_t i) {
  const char *p = static_cast<const char *>(t.rawData());
  switch (t.dtype()) {
  case DType::Int64: return reinterpret_cast<const int64_t *>(p)[i];
  case DType::Int32: return reinterpret_cast<const int32_t *>(p)[i];
  case DType::Int16: return reinterpret_cast<const int16_t *>(p)[i];
  case DType::Int8: return reinterpret_cast<const int8_t *>(p)[i];
  case DType::UInt8: return reinterpret_cast<const uint8_t *>(p)[i];
  case DType::Bool: return reinterpret_cast<const uint8_t *>(p)[i] != 0;
  default: return (int64_t)elementAsDouble(t, i);
  }
}

std::string fmt(double v) {
  std::ostringstream os;
  os << std::setprecision(6) << v;
  return os.str();
}

std::string indexString(const std::vector<int64_t> &sizes, int64_t flat) {
  std::vector<int64_t> idx(sizes.size());
  for (size_t d = sizes.size(); d-- > 0;) {
    idx[d] = sizes[d] ? flat % sizes[d] : 0;
    flat = sizes[d] ? flat / sizes[d] : 0;
  }
  return shapeToString(idx);
}

} // namespace

Tolerance torchTolerance(DType t) {
  switch (t) {
  case DType::Float64: return {1e-7, 1e-7};
  case DType::Float32: return {1.3e-6, 1e-5};
  case DType::Float16: return {1e-3, 1e-5};
  case DType::BFloat16: return {1.6e-2, 1e-5};
  default: return {0, 0};
  }
}

/// "min -1.2 max 3.4 mean 0.1" (with a count of NaN and infinite elements
/// where there are any) or, for integers and bool, min and max.
std::string describeOutput(const Tensor &t0) {
  Tensor t = t0.contiguous();
  std::ostringstream s;
  int64_t n = t.numel();
  if (n == 0) return "empty";
  if (!isFloatingPoint(t.dtype())) {
    int64_t lo = elementAsInt64(t, 0), hi = lo;
    for (int64_t i = 1; i < n; ++i) {
      int64_t v = elementAsInt64(t, i);
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    s << "min " << lo << " max " << hi;
    return s.str();
  }
  double lo = INFINITY, hi = -INFINITY, sum = 0;
  int64_t nonFinite = 0, finite = 0;
  for (int64_t i = 0; i < n; ++i) {
    double v = elementAsDouble(t, i);
    if (!std::isfinite(v)) {
      ++nonFinite;
      continue;
    }
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    sum += v;
    ++finite;
  }
  s << std::setprecision(6);
  if (finite) s << "min " << lo << " max " << hi << " mean " << sum / static_cast<double>(finite);
  if (nonFinite) s << (finite ? ", " : "") << nonFinite << " of " << n << " elements NaN or infinite";
  return s.str();
}

Comparison compareTensors(const Tensor &actual0, const Tensor &expected0, double rtol, double atol) {
  Comparison c;
  // bf16 data travels as f32 .npy files, so a bf16 output is compared with f32 data.
  bool dtypeOk = actual0.dtype() == expected0.dtype() ||
                 (actual0.dtype() == DType::BFloat16 && expected0.dtype() == DType::Float32);
  if (!dtypeOk) {
    c.detail = std::string("dtype ") + dtypeName(actual0.dtype()) + " differs from expected " +
               dtypeName(expected0.dtype());
    return c;
  }
  if (actual0.sizes() != expected0.sizes()) {
    c.detail = "shape " + actual0.shapeString() + " differs from expected " + expected0.shapeString();
    return c;
  }
  Tensor a = actual0.contiguous(), e = expected0.contiguous();
  int64_t bad = 0, firstBad = -1, n = a.numel();
  if (!isFloatingPoint(a.dtype())) {
    // Integers and bool compare exactly, whatever the tolerances.
    int64_t maxAbs = 0;
    for (int64_t i = 0; i < n; ++i) {
      int64_t x = elementAsInt64(a, i), y = elementAsInt64(e, i);
      if (x == y) continue;
      uint64_t d = x > y ? (uint64_t)x - (uint64_t)y : (uint64_t)y - (uint64_t)x;
      maxAbs = std::max<int64_t>(maxAbs, d > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)d);
      if (bad++ == 0) firstBad = i;
    }
    c.match = bad == 0;
    c.detail = "max abs error " + std::to_string(maxAbs) + " (exact)";
    if (!c.match)
      c.detail += "; " + std::to_string(bad) + " of " + std::to_string(n) + " elements differ, first at " +
                  indexString(a.sizes(), firstBad) + ": got " + std::to_string(elementAsInt64(a, firstBad)) +
                  ", expected " + std::to_string(elementAsInt64(e, firstBad));
    return c;
  }
  double maxAbs = 0, maxRel = 0;
  for (int64_t i = 0; i < n; ++i) {
    double x = elementAsDouble(a, i), y = elementAsDouble(e, i);
    bool ok;
    double absErr, relErr;
    if (std::isnan(x) || std::isnan(y)) {
      ok = std::isnan(x) && std::isnan(y);
      absErr = relErr = ok ? 0 : INFINITY;
    } else if (x == y) {  // also equal infinities
      ok = true;
      absErr = relErr = 0;
    } else {
      absErr = std::fabs(x - y);
      relErr = y != 0 ? absErr / std::fabs(y) : INFINITY;
      ok = absErr <= atol + rtol * std::fabs(y);
    }
    maxAbs = std::max(maxAbs, absErr);
    maxRel = std::max(maxRel, relErr);
    if (!ok && bad++ == 0) firstBad = i;
  }
  c.match = bad == 0;
  c.detail = "max abs error " + fmt(maxAbs) + ", max rel error " + fmt(maxRel);
  if (!c.match)
    c.detail += "; " + std::to_string(bad) + " of " + std::to_string(n) +
                " elements outside atol + rtol*|expected|, first at " +
                indexString(a.sizes(), firstBad) + ": got " + fmt(elementAsDouble(a, firstBad)) +
                ", expected " + fmt(elementAsDouble(e, firstBad));
  return c;
}

std::vector<double> Executable::timeRuns(const std::vector<Tensor> &inputs, long warmup, long n) {
  using Clock = std::chrono::steady_clock;
  for (long i = 0; i < warmup; ++i) run(inputs);
  std::vector<double> ms;
  for (long i = 0; i < n; ++i) {
    auto t0 = Clock::now();
    run(inputs);
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
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

namespace {

double elementAt(const Tensor &t, int64_t i) {
  return t.dtype() == DType::Float64 ? t.data<double>()[i] : (double)t.data<float>()[i];
}
void setElement(Tensor &t, int64_t i, double v) {
  if (t.dtype() == DType::Float64) t.data<double>()[i] = v;
  else t.data<float>()[i] = (float)v;
}

/// --gradcheck: every grads/input<k> output against central differences of
/// L = sum_k sum(output_k * cotangent_k), on seeded random inputs.
int gradcheck(Executable &exe, const Options &o, const std::vector<bool> &isGrad, std::ostream &out) {
  size_t numGrads = std::count(isGrad.begin(), isGrad.end(), true);
  size_t primal = exe.numOutputs() - numGrads;
  bool forward = exe.outputLabel(primal).rfind(KILN_TANGENTS_PREFIX, 0) == 0;
  // Inputs the check perturbs: all but the seeds (cotangent<i> / tangent<i>).
  size_t userInputs = 0;
  while (userInputs < exe.numInputs() &&
         exe.inputLabel(userInputs).rfind(forward ? KILN_TANGENT_PREFIX : KILN_COTANGENT_PREFIX, 0) != 0)
    ++userInputs;
  std::mt19937_64 rng(0);
  auto randomTensor = [&](const std::vector<int64_t> &dims, DType dt, double lo, double hi,
                          const std::string &what) {
    if (dt != DType::Float64 && dt != DType::Float32)
      usageError("--gradcheck needs floating-point tensors; " + what + " is " + dtypeName(dt));
    for (int64_t d : dims)
      if (d < 0) usageError("--gradcheck needs static shapes; " + what + " has a dynamic dim");
    Tensor t = Tensor::empty(dims, dt);
    std::uniform_real_distribution<double> u(lo, hi);
    for (int64_t i = 0; i < t.numel(); ++i) setElement(t, i, u(rng));
    return t;
  };
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < userInputs; ++i)
    inputs.push_back(randomTensor(exe.inputDims(i), exe.inputDType(i), o.gradLo, o.gradHi, exe.inputName(i)));
  const double h = 1e-6, atol = 1e-5, rtol = 1e-3;
  if (forward) {
    // tangent<i> moves user input i; the tangents of the outputs against
    // (f(x + h t) - f(x - h t)) / 2h.
    std::vector<std::pair<size_t, size_t>> moves; // (input, tangent input)
    for (size_t j = userInputs; j < exe.numInputs(); ++j) {
      size_t i = std::stoul(exe.inputLabel(j).substr(7));
      inputs.push_back(randomTensor(exe.inputDims(j), exe.inputDType(j), -1.0, 1.0, exe.inputName(j)));
      moves.push_back({i, j});
    }
    std::vector<Tensor> analytic = exe.run(inputs);
    auto shifted = [&](double s) {
      std::vector<Tensor> in = inputs;
      for (auto [i, j] : moves) {
        Tensor x = inputs[i].contiguous().clone();
        for (int64_t e = 0; e < x.numel(); ++e)
          setElement(x, e, elementAt(x, e) + s * elementAt(inputs[j], e));
        in[i] = x;
      }
      return exe.run(in);
    };
    std::vector<Tensor> plus = shifted(h), minus = shifted(-h);
    int code = kExitOk;
    for (size_t k = 0; k < primal; ++k) {
      Tensor t = analytic[primal + k].contiguous(), p = plus[k].contiguous(), m = minus[k].contiguous();
      double maxErr = 0;
      int64_t bad = -1;
      for (int64_t e = 0; e < t.numel(); ++e) {
        double n = (elementAt(p, e) - elementAt(m, e)) / (2 * h), a = elementAt(t, e);
        maxErr = std::max(maxErr, std::fabs(a - n));
        if (std::fabs(a - n) > atol + rtol * std::fabs(n) && bad < 0) bad = e;
      }
      out << "jvpcheck " << exe.outputLabel(primal + k) << ": " << t.numel()
          << " elements, max abs error " << maxErr << (bad >= 0 ? ": MISMATCH\n" : ": OK\n");
      if (bad >= 0) code = kExitMismatch;
    }
    return code;
  }
  for (size_t k = 0; k < primal; ++k)
    inputs.push_back(randomTensor(exe.outputDims(k), exe.outputDType(k), -1.0, 1.0, exe.outputName(k)));
  std::vector<Tensor> analytic = exe.run(inputs);
  auto loss = [&]() {
    std::vector<Tensor> outs = exe.run(inputs);
    double l = 0;
    for (size_t k = 0; k < primal; ++k) {
      Tensor y = outs[k].contiguous();
      for (int64_t i = 0; i < y.numel(); ++i) l += elementAt(y, i) * elementAt(inputs[userInputs + k], i);
    }
    return l;
  };
  int code = kExitOk;
  size_t checked = 0;
  for (size_t j = primal; j < exe.numOutputs(); ++j) {
    std::string label = exe.outputLabel(j);
    if (label.rfind(KILN_GRADS_INPUT_PREFIX, 0) != 0) continue;
    size_t k = std::stoul(label.substr(11));
    Tensor g = analytic[j].contiguous();
    Tensor &x = inputs[k];
    double maxErr = 0;
    int64_t bad = -1;
    double badA = 0, badN = 0;
    for (int64_t i = 0; i < x.numel(); ++i) {
      double v = elementAt(x, i);
      setElement(x, i, v + h);
      double lp = loss();
      setElement(x, i, v - h);
      double lm = loss();
      setElement(x, i, v);
      double n = (lp - lm) / (2 * h), a = elementAt(g, i);
      double err = std::fabs(a - n);
      maxErr = std::max(maxErr, err);
      if (err > atol + rtol * std::fabs(n) && bad < 0) {
        bad = i;
        badA = a;
        badN = n;
      }
    }
    out << "gradcheck " << label << ": " << x.numel() << " elements, max abs error " << maxErr;
    if (bad >= 0) {
      out << ", first bad element " << bad << ": analytic " << badA << ", numeric " << badN << ": MISMATCH\n";
      code = kExitMismatch;
    } else {
      out << ": OK\n";
    }
    ++checked;
  }
  if (!checked) usageError("--gradcheck: '" + o.model + "' has no gradient of a user input (grads/input<i>)");
  return code;
}

int runChecked(const std::vector<std::string> &args, std::ostream &out, std::ostream &err) {
  Options o = parseArgs(args);
  if (o.version) {
    uint32_t abi = kiln_abi_version();
    out << "kiln-run " KILN_VERSION_STRING " (runtime C ABI " << (abi >> 16) << "." << (abi & 0xffff) << ")\n";
    return kExitOk;
  }
  if (o.help) {
    out << usage();
    return kExitOk;
  }
  std::unique_ptr<Executable> exe = openExecutable(o);
  // A --grad model's gradients are the outputs named grads/<name>; its
  // cotangents are its last inputs, one per other output.
  // A --jvp model's tangents are the outputs named tangents/<name>, and the
  // --jacobian/--hessian/--hvp results are named jacobian/, hessian/, hvp/.
  std::vector<bool> isGrad(exe->numOutputs());
  size_t numGrads = 0;
  for (size_t i = 0; i < exe->numOutputs(); ++i) {
    std::string label = exe->outputLabel(i);
    for (const char *prefix : {KILN_GRADS_PREFIX, KILN_TANGENTS_PREFIX, KILN_JACOBIAN_PREFIX, KILN_HESSIAN_PREFIX, KILN_HVP_PREFIX})
      isGrad[i] = isGrad[i] || label.rfind(prefix, 0) == 0;
    numGrads += isGrad[i];
  }
  if (o.gradcheck) {
    if (!numGrads)
      usageError("'" + o.model + "' has no gradient outputs: --gradcheck needs a model compiled with "
                 "kiln-compile --grad or --jvp");
    return gradcheck(*exe, o, isGrad, out);
  }
  if (!o.expectGrads.empty() && !numGrads)
    usageError("'" + o.model + "' has no gradient outputs: --expect-grads needs a model compiled "
               "with kiln-compile --grad");
  if (!o.cotangents.empty()) {
    // The seeds of a --grad model or a --train-step: inputs named cotangent<i>.
    size_t numCotangents = 0;
    for (size_t i = 0; i < exe->numInputs(); ++i)
      numCotangents += exe->inputLabel(i).rfind(KILN_COTANGENT_PREFIX, 0) == 0;
    if (!numCotangents)
      usageError("'" + o.model + "' takes no cotangents: --cotangent needs a model compiled with "
                 "kiln-compile --grad or --train-step");
    if (o.cotangents.size() != numCotangents)
      usageError("'" + o.model + "' takes " + std::to_string(numCotangents) + " cotangent(s), got " +
                 std::to_string(o.cotangents.size()) + " --cotangent");
    o.inputs.insert(o.inputs.end(), o.cotangents.begin(), o.cotangents.end());
  }
  o.inputs.insert(o.inputs.end(), o.tangents.begin(), o.tangents.end());
  if (o.inputs.size() != exe->numInputs()) {
    std::string msg = "'" + o.model + "' takes " + std::to_string(exe->numInputs()) + " input(s), got " +
                      std::to_string(o.inputs.size()) + " --input";
    for (size_t i = 0; i < exe->numInputs(); ++i) msg += "\n  " + exe->inputName(i);
    usageError(msg);
  }
  // A --grad model's --expect may list its outputs only (the gradients are
  // then checked with --expect-grads).
  if (!o.expects.empty() && o.expects.size() != exe->numOutputs() &&
      !(numGrads && o.expects.size() == exe->numOutputs() - numGrads))
    usageError("'" + o.model + "' has " + std::to_string(exe->numOutputs()) + " output(s), got " +
               std::to_string(o.expects.size()) + " --expect");

  std::vector<Tensor> inputs;
  for (size_t i = 0; i < o.inputs.size(); ++i) {
    Tensor t;
    try {
      // NumPy has no bfloat16: a bf16 input is read from an f32 file.
      t = readNpyFor(o.inputs[i], exe->inputDType(i));
    } catch (const NpyError &e) {
      usageError(std::string("--input ") + e.what());
    }
    inputs.push_back(t);
  }
  std::vector<Tensor> expects;
  for (const std::string &p : o.expects) {
    try {
      expects.push_back(readNpy(p));
    } catch (const NpyError &e) {
      usageError(std::string("--expect ") + e.what());
    }
  }

  std::vector<Tensor> outputs = exe->run(inputs);
  for (long r = 1; r < o.runs; ++r) outputs = exe->run(inputs);

  if (!o.outputDir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.outputDir, ec);
    if (ec) usageError("cannot create --output-dir '" + o.outputDir + "': " + ec.message());
    for (size_t i = 0, k = 0; i < outputs.size(); ++i) {
      std::string file = isGrad[i] ? exe->outputLabel(i) + ".npy" : "output" + std::to_string(k++) + ".npy";
      std::filesystem::path full = std::filesystem::path(o.outputDir) / file;
      std::filesystem::create_directories(full.parent_path(), ec);
      if (ec) usageError("cannot create '" + full.parent_path().string() + "': " + ec.message());
      std::string path = full.string();
      if (outputs[i].dtype() == DType::BFloat16)
        err << "kiln-run: note: " << exe->outputName(i) << " is bf16; written as f32 (NumPy has no bfloat16)\n";
      try {
        writeNpy(path, outputs[i]);
      } catch (const NpyError &e) {
        usageError(std::string("writing ") + e.what());
      }
    }
    // The weights the runs updated (a --train-step model's trained
    // parameters and optimizer state): DIR/params/<name>.npy.
    for (const std::string &name : exe->mutatedParams()) {
      Tensor value;
      if (!exe->readParam(name, value)) continue;
      std::filesystem::path full = std::filesystem::path(o.outputDir) / "params" / (name + ".npy");
      std::filesystem::create_directories(full.parent_path(), ec);
      if (ec) usageError("cannot create '" + full.parent_path().string() + "': " + ec.message());
      try {
        writeNpy(full.string(), value);
      } catch (const NpyError &e) {
        usageError(std::string("writing ") + e.what());
      }
    }
  }

  int code = kExitOk;
  for (size_t i = 0; i < expects.size(); ++i) {
    double rtol = o.rtol, atol = o.atol;
    if (o.torchTolerances) {
      Tolerance t = torchTolerance(outputs[i].dtype());
      if (!o.rtolGiven) rtol = t.rtol;
      if (!o.atolGiven) atol = t.atol;
    }
    Comparison c = compareTensors(outputs[i], expects[i], rtol, atol);
    out << exe->outputName(i) << " vs '" << o.expects[i] << "': " << c.detail << ": "
        << (c.match ? "OK" : "MISMATCH") << "\n";
    if (!c.match) code = kExitMismatch;
  }

  if (!o.expectGrads.empty()) {
    std::map<std::string, size_t> byName;
    for (size_t i = 0; i < outputs.size(); ++i)
      if (exe->outputLabel(i).rfind(KILN_GRADS_PREFIX, 0) == 0)
        byName[exe->outputLabel(i).substr(sizeof(KILN_GRADS_PREFIX) - 1)] = i;
    std::error_code ec;
    std::vector<std::string> files;
    for (const auto &entry : std::filesystem::directory_iterator(o.expectGrads, ec))
      if (entry.path().extension() == ".npy") files.push_back(entry.path().filename().string());
    if (ec) usageError("cannot read --expect-grads '" + o.expectGrads + "': " + ec.message());
    std::sort(files.begin(), files.end());
    size_t compared = 0;
    for (const std::string &f : files) {
      std::string stem = f.substr(0, f.size() - 4);
      if (stem.rfind(KILN_COTANGENT_PREFIX, 0) == 0) continue;
      std::string path = (std::filesystem::path(o.expectGrads) / f).string();
      auto it = byName.find(stem);
      if (it == byName.end()) {
        out << "'" << path << "': the model has no gradient named '" << stem << "': MISMATCH\n";
        code = kExitMismatch;
        continue;
      }
      Tensor expected;
      try {
        expected = readNpy(path);
      } catch (const NpyError &e) {
        usageError(std::string("--expect-grads ") + e.what());
      }
      Comparison c = compareTensors(outputs[it->second], expected, o.rtol, o.atol);
      out << exe->outputName(it->second) << " vs '" << path << "': " << c.detail << ": "
          << (c.match ? "OK" : "MISMATCH") << "\n";
      if (!c.match) code = kExitMismatch;
      ++compared;
    }
    if (!compared)
      usageError("--expect-grads '" + o.expectGrads + "' holds no gradient (.npy other than cotangent*)");
  }

  if (!o.expectParams.empty()) {
    std::error_code ec;
    std::vector<std::string> files;
    for (const auto &entry : std::filesystem::directory_iterator(o.expectParams, ec))
      if (entry.path().extension() == ".npy") files.push_back(entry.path().filename().string());
    if (ec) usageError("cannot read --expect-params '" + o.expectParams + "': " + ec.message());
    if (files.empty()) usageError("--expect-params '" + o.expectParams + "' holds no .npy file");
    std::sort(files.begin(), files.end());
    for (const std::string &f : files) {
      std::string name = f.substr(0, f.size() - 4);
      std::string path = (std::filesystem::path(o.expectParams) / f).string();
      Tensor actual;
      if (!exe->readParam(name, actual)) {
        out << "'" << path << "': the model has no weight named '" << name << "': MISMATCH\n";
        code = kExitMismatch;
        continue;
      }
      Tensor expected;
      try {
        expected = readNpy(path);
      } catch (const NpyError &e) {
        usageError(std::string("--expect-params ") + e.what());
      }
      Comparison c = compareTensors(actual, expected, o.rtol, o.atol);
      out << "weight \"" << name << "\" vs '" << path << "': " << c.detail << ": "
          << (c.match ? "OK" : "MISMATCH") << "\n";
      if (!c.match) code = kExitMismatch;
    }
  }

  // Nothing to compare against: say what the run gave, one line per output.
  if (expects.empty() && o.expectGrads.empty() && o.expectParams.empty()) {
    for (size_t i = 0; i < outputs.size(); ++i)
      out << exe->outputName(i) << ": " << describeOutput(outputs[i]) << "\n";
    out << "kiln-run: ran " << (o.runs > 1 ? std::to_string(o.runs) + " times" : std::string("once")) << ", "
        << outputs.size() << " output" << (outputs.size() == 1 ? "" : "s")
        << (o.outputDir.empty() ? "" : " written to '" + o.outputDir + "'") << "\n";
  }

  if (o.bench > 0) {
    long warmup = std::min<long>(std::max<long>(o.bench / 10, 1), 10);
    std::vector<double> ms = exe->timeRuns(inputs, warmup, o.bench);
    std::sort(ms.begin(), ms.end());
    auto pct = [&](double p) { return ms[std::min(ms.size() - 1, (size_t)std::ceil(p * ms.size()) - (p > 0 ? 1 : 0))]; };
    // The median of an even count is the mean of the middle two.
    size_t mid = ms.size() / 2;
    double median = ms.size() % 2 ? ms[mid] : (ms[mid - 1] + ms[mid]) / 2;
    out << std::fixed << std::setprecision(4) << "bench: " << o.bench << " runs after " << warmup
        << " warm-up: min " << ms.front() << " ms, median " << median << " ms, p90 " << pct(0.9)
        << " ms (" << exe->timing() << ")\n";
    out.unsetf(std::ios::fixed);
  }
  return code;
}

} // namespace

int runMain(const std::vector<std::string> &args, std::ostream &out, std::ostream &err) {
  try {
    return runChecked(args, out, err);
  } catch (const RunError &e) {
    err << "kiln-run: error: " << e.what() << "\n";
    if (e.exitCode() == kExitUsage && std::string(e.what()).find("see --help") != std::string::npos)
      err << "usage: kiln-run MODEL.so|MODEL.pt2 [--input F.npy]... [--output-dir DIR] [--expect F.npy]... ...\n";
    return e.exitCode();
  } catch (const std::bad_alloc &) {
    err << "kiln-run: error: out of memory\n";
  } catch (const std::exception &e) {
    err << "kiln-run: internal error: " << e.what() << "\n";
  } catch (...) {
    err << "kiln-run: internal error (unknown exception)\n";
  }
  return kExitFailure;
}

} // namespace kiln::run
