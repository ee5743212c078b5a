// kiln-gpu-graph-check — a GPU model's CUDA graph replays compute what its kernels compute.
//
// usage: kiln-gpu-graph-check MODEL.so INPUT.npy... -- EXPECTED.npy... [--rtol R] [--atol A] [--random K]
//                             [--weights F.pt2] [--plugin LIB.so]...
//
// 1. The sample inputs, three runs with CUDA graphs (the first captures, the
//    others replay): each run's outputs against EXPECTED (PyTorch's).
// 2. K fresh random inputs (normal, the samples' shapes; integer inputs are
//    the sample's values shuffled), each run with graphs (a replay) and without: the
//    outputs must be identical (same kernels, same order), and must differ
//    from the previous input's (the replay really reads the new inputs).
// 3. A replay on a caller's stream with inputs and outputs on the GPU.
// Prints one line per check; exits 1 if any fails, 2 on bad usage or no GPU.
#include "kiln/cuda.h"
#include "kiln/kiln.h"
#include "kiln/npy.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

[[noreturn]] void die(int code, const std::string &msg) {
  std::fprintf(stderr, "kiln-gpu-graph-check: %s\n", msg.c_str());
  std::exit(code);
}

void check(kiln_status_t s, const char *what) {
  if (!s) return;
  std::string msg = std::string(what) + ": " + kiln_status_message(s);
  kiln_status_free(s);
  die(2, msg);
}

kiln_tensor_t wrap(const kiln::Tensor &t0) {
  auto *keep = new kiln::Tensor(t0.contiguous());
  kiln_tensor_t h = nullptr;
  check(kiln_tensor_wrap(keep->rawData(), (kiln_dtype_t)keep->dtype(), keep->sizes().size(),
                         keep->sizes().data(), [](void *, void *u) { delete static_cast<kiln::Tensor *>(u); },
                         keep, &h),
        "wrapping an input");
  return h;
}

std::vector<double> values(kiln_tensor_t t) {
  size_t n = kiln_tensor_nbytes(t) / kiln_dtype_size(kiln_tensor_dtype(t));
  std::vector<double> v(n);
  const void *p = kiln_tensor_data(t);
  for (size_t i = 0; i < n; ++i) {
    switch (kiln_tensor_dtype(t)) {
    case KILN_DTYPE_F32: v[i] = static_cast<const float *>(p)[i]; break;
    case KILN_DTYPE_F64: v[i] = static_cast<const double *>(p)[i]; break;
    case KILN_DTYPE_I64: v[i] = (double)static_cast<const int64_t *>(p)[i]; break;
    case KILN_DTYPE_I32: v[i] = static_cast<const int32_t *>(p)[i]; break;
    default: die(2, std::string("unsupported output dtype ") + kiln_dtype_name(kiln_tensor_dtype(t)));
    }
  }
  return v;
}

struct Outputs {
  std::vector<std::vector<double>> v;
};

Outputs run(kiln_model_t m, const std::vector<kiln_tensor_t> &in, bool graphs) {
  kiln_run_options_t o;
  kiln_run_options_init(&o);
  o.cuda_graphs = graphs;
  std::vector<kiln_tensor_t> out(kiln_model_num_outputs(m), nullptr);
  check(kiln_model_run_with_options(m, &o, in.data(), in.size(), out.data(), out.size()), "running the model");
  Outputs r;
  for (kiln_tensor_t t : out) {
    r.v.push_back(values(t));
    kiln_tensor_release(t);
  }
  return r;
}

/// Largest |a - b| / (atol + rtol * |b|); <= 1 passes.
double worst(const std::vector<double> &a, const std::vector<double> &b, double rtol, double atol) {
  if (a.size() != b.size()) return INFINITY;
  double w = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(a[i]) || std::isnan(b[i])) return INFINITY;
    w = std::max(w, std::fabs(a[i] - b[i]) / (atol + rtol * std::fabs(b[i])));
  }
  return w;
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> inputs, expected;
  std::string model, weights;
  std::vector<std::string> plugins;
  double rtol = 1e-4, atol = 1e-5;
  int randoms = 3;
  bool afterDashes = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--") afterDashes = true;
    else if (a == "--rtol" && i + 1 < argc) rtol = std::atof(argv[++i]);
    else if (a == "--atol" && i + 1 < argc) atol = std::atof(argv[++i]);
    else if (a == "--random" && i + 1 < argc) randoms = std::atoi(argv[++i]);
    else if (a == "--weights" && i + 1 < argc) weights = argv[++i];
    else if (a == "--plugin" && i + 1 < argc) plugins.push_back(argv[++i]);
    else if (model.empty()) model = a;
    else (afterDashes ? expected : inputs).push_back(a);
  }
  if (model.empty() || inputs.empty() || expected.empty())
    die(2, "usage: kiln-gpu-graph-check MODEL.so INPUT.npy... -- EXPECTED.npy... [--rtol R] [--atol A] [--random K]");
  kiln_model_t m = nullptr;
  kiln_model_options_t mo;
  kiln_model_options_init(&mo);
  if (!weights.empty()) mo.weights_path = weights.c_str();
  std::vector<const char *> pluginPaths;
  for (const std::string &p : plugins) pluginPaths.push_back(p.c_str());
  mo.plugin_paths = pluginPaths.data();
  mo.num_plugins = pluginPaths.size();
  check(kiln_model_load(model.c_str(), &mo, &m), "loading the model");
  if (kiln_model_device(m) != KILN_DEVICE_CUDA) die(2, "'" + model + "' is not a CUDA model");

  std::vector<kiln::Tensor> samples;
  std::vector<kiln_tensor_t> in;
  std::vector<std::vector<double>> want;
  try {
    for (const std::string &p : inputs) {
      samples.push_back(kiln::readNpy(p));
      in.push_back(wrap(samples.back()));
    }
    for (const std::string &p : expected) {
      kiln_tensor_t t = wrap(kiln::readNpy(p));
      want.push_back(values(t));
      kiln_tensor_release(t);
    }
  } catch (const std::exception &e) {
    die(2, e.what());
  }
  int failures = 0;
  auto report = [&](bool ok, const std::string &line) {
    std::printf("%s: %s\n", line.c_str(), ok ? "OK" : "FAIL");
    failures += !ok;
  };

  for (int r = 0; r < 3; ++r) {
    Outputs got = run(m, in, true);
    for (size_t k = 0; k < got.v.size() && k < want.size(); ++k) {
      double w = worst(got.v[k], want[k], rtol, atol);
      report(w <= 1, "run " + std::to_string(r) + (r ? " (replay)" : " (capture)") + " output " + std::to_string(k) +
                         " vs expected: worst error " + std::to_string(w) + " of the tolerance");
    }
  }

  std::mt19937_64 rng(1234);
  std::normal_distribution<float> normal;
  Outputs previous = run(m, in, false);
  for (int r = 0; r < randoms; ++r) {
    std::vector<kiln_tensor_t> rin;
    for (const kiln::Tensor &s : samples) {
      kiln::Tensor t = s.clone();
      if (t.dtype() == kiln::DType::Float32) {
        for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = normal(rng);
      } else {
        // Integer inputs (token ids, masks) are the sample's values shuffled:
        // still valid for the model, but a new input.
        size_t es = kiln::dtypeSize(t.dtype());
        auto *bytes = static_cast<unsigned char *>(t.rawData());
        for (int64_t i = t.numel() - 1; i > 0; --i) {
          int64_t j = (int64_t)(rng() % (uint64_t)(i + 1));
          std::swap_ranges(bytes + i * es, bytes + (i + 1) * es, bytes + j * es);
        }
      }
      rin.push_back(wrap(t));
    }
    Outputs replay = run(m, rin, true), plain = run(m, rin, false);
    for (size_t k = 0; k < plain.v.size(); ++k) {
      bool same = replay.v[k] == plain.v[k];
      bool changed = plain.v[k] != previous.v[k];
      report(same && changed, "random " + std::to_string(r) + " output " + std::to_string(k) +
                                  ": replay " + (same ? "identical to" : "DIFFERS from") +
                                  " kernel-by-kernel run" + (changed ? "" : ", but UNCHANGED from the previous input"));
    }
    previous = plain;
    for (kiln_tensor_t t : rin) kiln_tensor_release(t);
  }

  // A caller's stream, inputs and outputs on the GPU.
  void *stream = kiln::cuda::createStream();
  std::vector<kiln_tensor_t> din;
  for (kiln_tensor_t t : in) {
    kiln_tensor_t d = nullptr;
    check(kiln_tensor_copy_to(t, KILN_DEVICE_CUDA, stream, &d), "copying an input to the GPU");
    din.push_back(d);
  }
  kiln_run_options_t o;
  kiln_run_options_init(&o);
  o.stream = stream;
  o.output_device = KILN_DEVICE_CUDA;
  std::vector<kiln_tensor_t> dout(kiln_model_num_outputs(m), nullptr);
  check(kiln_model_run_with_options(m, &o, din.data(), din.size(), dout.data(), dout.size()),
        "running on a caller's stream");
  for (size_t k = 0; k < dout.size(); ++k) {
    bool onGPU = kiln_tensor_device(dout[k]) == KILN_DEVICE_CUDA;
    kiln_tensor_t h = nullptr;
    check(kiln_tensor_copy_to(dout[k], KILN_DEVICE_CPU, stream, &h), "copying an output back");
    double w = k < want.size() ? worst(values(h), want[k], rtol, atol) : INFINITY;
    report(onGPU && w <= 1, "caller's stream output " + std::to_string(k) + (onGPU ? " on the GPU" : " NOT on the GPU") +
                                ": worst error " + std::to_string(w) + " of the tolerance");
    kiln_tensor_release(h);
    kiln_tensor_release(dout[k]);
  }
  for (kiln_tensor_t t : din) kiln_tensor_release(t);
  kiln::cuda::destroyStream(stream);
  kiln::cuda::MemoryStats st = kiln::cuda::memoryStats();
  std::printf("allocator: %zu bytes in use, %zu cached, %zu driver allocations\n", st.inUseBytes, st.cachedBytes,
              st.driverAllocations);
  for (kiln_tensor_t t : in) kiln_tensor_release(t);
  kiln_model_free(m);
  return failures ? 1 : 0;
}
