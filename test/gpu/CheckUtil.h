// kiln GPU checks — shared helpers of the GPU check programs: C ABI errors, tensors as handles, outputs as numbers.
#ifndef KILN_TEST_GPU_CHECKUTIL_H
#define KILN_TEST_GPU_CHECKUTIL_H

#include "kiln/kiln.h"
#include "kiln/npy.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace kiln::gpucheck {

/// The program's name in messages; set by main.
inline const char *&programName() {
  static const char *name = "kiln-gpu-check";
  return name;
}

[[noreturn]] inline void die(int code, const std::string &msg) {
  std::fprintf(stderr, "%s: %s\n", programName(), msg.c_str());
  std::exit(code);
}

/// Dies with exit 2 (a usage or setup problem, not a failed check) on an error status.
inline void check(kiln_status_t s, const char *what) {
  if (!s) return;
  std::string msg = std::string(what) + ": " + kiln_status_message(s);
  kiln_status_free(s);
  die(2, msg);
}

/// A C ABI handle that owns a contiguous copy of `t0`.
inline kiln_tensor_t wrap(const kiln::Tensor &t0) {
  auto *keep = new kiln::Tensor(t0.contiguous());
  kiln_tensor_t h = nullptr;
  check(kiln_tensor_wrap(keep->rawData(), (kiln_dtype_t)keep->dtype(), keep->sizes().size(),
                         keep->sizes().data(), [](void *, void *u) { delete static_cast<kiln::Tensor *>(u); },
                         keep, &h),
        "wrapping an input");
  return h;
}

/// A host tensor's elements as doubles.
inline std::vector<double> values(kiln_tensor_t t) {
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

using Outputs = std::vector<std::vector<double>>;

/// Runs the model once; the status (null: success) and, on success, its outputs.
inline kiln_status_t tryRun(kiln_model_t m, const std::vector<kiln_tensor_t> &in, bool graphs, Outputs &out) {
  kiln_run_options_t o;
  kiln_run_options_init(&o);
  o.cuda_graphs = graphs;
  std::vector<kiln_tensor_t> res(kiln_model_num_outputs(m), nullptr);
  kiln_status_t s = kiln_model_run_with_options(m, &o, in.data(), in.size(), res.data(), res.size());
  out.clear();
  for (kiln_tensor_t t : res) {
    if (!t) continue;
    if (!s) out.push_back(values(t));
    kiln_tensor_release(t);
  }
  return s;
}

inline Outputs run(kiln_model_t m, const std::vector<kiln_tensor_t> &in, bool graphs) {
  Outputs r;
  check(tryRun(m, in, graphs, r), "running the model");
  return r;
}

/// Largest |a - b| / (atol + rtol * |b|); <= 1 passes.
inline double worst(const std::vector<double> &a, const std::vector<double> &b, double rtol, double atol) {
  if (a.size() != b.size()) return INFINITY;
  double w = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(a[i]) || std::isnan(b[i])) return INFINITY;
    w = std::max(w, std::fabs(a[i] - b[i]) / (atol + rtol * std::fabs(b[i])));
  }
  return w;
}

/// A new input like `s`: float32 inputs drawn from a normal distribution,
/// integer inputs (token ids, masks) the sample's values shuffled, so they
/// stay valid for the model.
inline kiln::Tensor randomLike(const kiln::Tensor &s, std::mt19937_64 &rng) {
  std::normal_distribution<float> normal;
  kiln::Tensor t = s.clone();
  if (t.dtype() == kiln::DType::Float32) {
    for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = normal(rng);
  } else {
    size_t es = kiln::dtypeSize(t.dtype());
    auto *bytes = static_cast<unsigned char *>(t.rawData());
    for (int64_t i = t.numel() - 1; i > 0; --i) {
      int64_t j = (int64_t)(rng() % (uint64_t)(i + 1));
      std::swap_ranges(bytes + i * es, bytes + (i + 1) * es, bytes + j * es);
    }
  }
  return t;
}

/// Prints one check's line and counts the failures.
struct Report {
  int failures = 0;
  void operator()(bool ok, const std::string &line) {
    std::printf("%s: %s\n", line.c_str(), ok ? "OK" : "FAIL");
    std::fflush(stdout);
    failures += !ok;
  }
};

/// A GPU check's case from its command line: MODEL.so INPUT.npy... --
/// EXPECTED.npy... [--rtol R] [--atol A] [--random K] [--weights F.pt2]
/// [--plugin LIB.so]..., with the model loaded (it must be a CUDA model) and
/// the samples and PyTorch's outputs read.
struct Case {
  std::string model, weights;
  std::vector<std::string> plugins;
  double rtol = 1e-4, atol = 1e-5;
  int randoms = 3;
  kiln_model_t m = nullptr;
  std::vector<kiln::Tensor> samples;
  std::vector<kiln_tensor_t> in; // the samples as handles
  Outputs want;

  Case(int argc, char **argv, const std::string &usage) {
    std::vector<std::string> inputs, expected;
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
    if (model.empty() || inputs.empty() || expected.empty()) die(2, "usage: " + usage);
    m = load();
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
  }
  ~Case() {
    for (kiln_tensor_t t : in) kiln_tensor_release(t);
    kiln_model_free(m);
  }
  Case(const Case &) = delete;
  Case &operator=(const Case &) = delete;

  /// Loads the model (again: each load is a model of its own).
  kiln_model_t load() const {
    kiln_model_t model_ = nullptr;
    kiln_model_options_t mo;
    kiln_model_options_init(&mo);
    if (!weights.empty()) mo.weights_path = weights.c_str();
    std::vector<const char *> pluginPaths;
    for (const std::string &p : plugins) pluginPaths.push_back(p.c_str());
    mo.plugin_paths = pluginPaths.data();
    mo.num_plugins = pluginPaths.size();
    check(kiln_model_load(model.c_str(), &mo, &model_), "loading the model");
    if (kiln_model_device(model_) != KILN_DEVICE_CUDA) die(2, "'" + model + "' is not a CUDA model");
    return model_;
  }

  /// Every output of `got` within the tolerance of PyTorch's: the worst
  /// error as a fraction of the tolerance (<= 1 passes; infinite on a count
  /// or size mismatch).
  double worstAgainstExpected(const Outputs &got) const {
    if (got.size() != want.size()) return INFINITY;
    double w = 0;
    for (size_t k = 0; k < got.size(); ++k) w = std::max(w, worst(got[k], want[k], rtol, atol));
    return w;
  }
};

} // namespace kiln::gpucheck

#endif
