// kiln runtime — eager CPU (and Meta) kernels: batch_norm,
// _native_batch_norm_legit (with running stats, .no_stats, _functional),
// _native_batch_norm_legit_no_training, native_layer_norm, rms_norm.
#include "KernelUtils.h"

#include <cmath>

namespace kiln::cpu {
namespace {

/// Normalises over every dim but 1. Inference uses running stats; training
/// uses batch stats and updates the running stats in place (as ATen does).
/// With `saved`, also the statistics used: mean and 1 / sqrt(var + eps).
Tensor batchNormImpl(const Tensor &input, const Tensor &weight, const Tensor &bias,
                     const Tensor &runningMean, const Tensor &runningVar, bool training,
                     double momentum, double eps, const char *op,
                     std::pair<Tensor, Tensor> *saved = nullptr) {
  check(input.dim() >= 2, op, "expected an input with at least 2 dims (N, C, ...), got " +
                                  input.shapeString());
  int64_t N = input.size(0), C = input.size(1);
  int64_t inner = input.numel() / std::max<int64_t>(1, N * C);
  auto checkVec = [&](const Tensor &t, const char *what) {
    if (t.defined())
      check(t.dim() == 1 && t.size(0) == C, op,
            std::string(what) + " must have shape [" + std::to_string(C) + "], got " + t.shapeString());
  };
  checkVec(weight, "weight");
  checkVec(bias, "bias");
  checkVec(runningMean, "running_mean");
  checkVec(runningVar, "running_var");
  check(training || (runningMean.defined() && runningVar.defined()), op,
        "running_mean and running_var are needed when training=False");
  Tensor out = Tensor::empty(input.sizes(), input.dtype(), input.device());
  if (saved)
    *saved = {Tensor::empty({C}, input.dtype(), input.device()), Tensor::empty({C}, input.dtype(), input.device())};
  if (isMeta(input)) return out;
  Tensor x = input.contiguous();
  dispatchFloat(input.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    Tensor w = weight.defined() ? castTo(weight, input.dtype()) : Tensor();
    Tensor b = bias.defined() ? castTo(bias, input.dtype()) : Tensor();
    std::vector<double> mean(C), var(C);
    const T *px = x.data<T>();
    if (training) {
      int64_t cnt = N * inner;
      check(cnt > 1, op, "training needs more than one value per channel");
      parallelFor(C, 1, [&](int64_t c0, int64_t c1) {
        for (int64_t c = c0; c < c1; ++c) {
          double s = 0, ss = 0;
          for (int64_t n = 0; n < N; ++n) {
            const T *p = px + (n * C + c) * inner;
            for (int64_t i = 0; i < inner; ++i) s += p[i];
          }
          double mu = s / cnt;
          for (int64_t n = 0; n < N; ++n) {
            const T *p = px + (n * C + c) * inner;
            for (int64_t i = 0; i < inner; ++i) ss += (p[i] - mu) * (p[i] - mu);
          }
          mean[c] = mu;
          var[c] = ss / cnt;
        }
      });
      auto update = [&](const Tensor &rs, const std::vector<double> &stat, double corr) {
        if (!rs.defined()) return;
        dispatchFloat(rs.dtype(), op, [&](auto rtag) {
          using R = decltype(rtag);
          R *p = rs.data<R>();
          for (int64_t c = 0; c < C; ++c)
            p[c * rs.stride(0)] = (R)((1 - momentum) * p[c * rs.stride(0)] + momentum * stat[c] * corr);
        });
      };
      update(runningMean, mean, 1.0);
      update(runningVar, var, (double)cnt / (double)(cnt - 1));
    } else {
      Tensor rm = castTo(runningMean, DType::Float64), rv = castTo(runningVar, DType::Float64);
      for (int64_t c = 0; c < C; ++c) {
        mean[c] = rm.data<double>()[c];
        var[c] = rv.data<double>()[c];
      }
    }
    if (saved)
      for (int64_t c = 0; c < C; ++c) {
        saved->first.data<T>()[c] = (T)mean[c];
        saved->second.data<T>()[c] = (T)(1.0 / std::sqrt(var[c] + eps));
      }
    T *po = out.data<T>();
    const T *pw = w.defined() ? w.data<T>() : nullptr, *pb = b.defined() ? b.data<T>() : nullptr;
    parallelFor(N * C, std::max<int64_t>(1, 4096 / std::max<int64_t>(inner, 1)), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        int64_t c = r % C;
        T scale = (T)(1.0 / std::sqrt(var[c] + eps)) * (pw ? pw[c] : T(1));
        T shift = (pb ? pb[c] : T(0)) - (T)mean[c] * scale;
        const T *p = px + r * inner;
        T *o = po + r * inner;
        for (int64_t i = 0; i < inner; ++i) o[i] = p[i] * scale + shift;
      }
    });
  });
  return out;
}

Tensor batchNorm(const Tensor &input, const std::optional<Tensor> &weight,
                 const std::optional<Tensor> &bias, const std::optional<Tensor> &runningMean,
                 const std::optional<Tensor> &runningVar, bool training, double momentum,
                 double eps, bool /*cudnnEnabled*/) {
  return batchNormImpl(input, weight.value_or(Tensor()), bias.value_or(Tensor()),
                       runningMean.value_or(Tensor()), runningVar.value_or(Tensor()), training,
                       momentum, eps, "aten::batch_norm");
}

std::tuple<Tensor, Tensor, Tensor>
batchNormNoTraining(const Tensor &input, const std::optional<Tensor> &weight,
                    const std::optional<Tensor> &bias, const Tensor &runningMean,
                    const Tensor &runningVar, double momentum, double eps) {
  Tensor out = batchNormImpl(input, weight.value_or(Tensor()), bias.value_or(Tensor()), runningMean,
                             runningVar, false, momentum, eps,
                             "aten::_native_batch_norm_legit_no_training");
  // Inference saves no statistics: ATen's CPU kernel returns empty tensors.
  return {out, Tensor::empty({0}, input.dtype(), input.device()),
          Tensor::empty({0}, input.dtype(), input.device())};
}

/// Training-mode batch norm that returns the statistics it used; the running
/// stats, when given, are updated in place.
std::tuple<Tensor, Tensor, Tensor>
batchNormLegit(const Tensor &input, const std::optional<Tensor> &weight, const std::optional<Tensor> &bias,
               Tensor runningMean, Tensor runningVar, bool training, double momentum, double eps) {
  std::pair<Tensor, Tensor> saved;
  Tensor out = batchNormImpl(input, weight.value_or(Tensor()), bias.value_or(Tensor()), runningMean, runningVar,
                             training, momentum, eps, "aten::_native_batch_norm_legit", &saved);
  return {out, saved.first, saved.second};
}
/// The functional form: the running stats are not written; their updated
/// values are returned after the output and the saved statistics.
std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor>
batchNormLegitFunctional(const Tensor &input, const std::optional<Tensor> &weight, const std::optional<Tensor> &bias,
                         const Tensor &runningMean, const Tensor &runningVar, bool training, double momentum,
                         double eps) {
  Tensor rm = runningMean.contiguous().clone(), rv = runningVar.contiguous().clone();
  std::pair<Tensor, Tensor> saved;
  Tensor out = batchNormImpl(input, weight.value_or(Tensor()), bias.value_or(Tensor()), rm, rv, training, momentum,
                             eps, "aten::_native_batch_norm_legit_functional", &saved);
  return {out, saved.first, saved.second, rm, rv};
}
std::tuple<Tensor, Tensor, Tensor>
batchNormLegitNoStats(const Tensor &input, const std::optional<Tensor> &weight, const std::optional<Tensor> &bias,
                      bool training, double momentum, double eps) {
  const char *op = "aten::_native_batch_norm_legit.no_stats";
  check(training, op, "without running statistics a batch norm must use the batch's (training=True)");
  std::pair<Tensor, Tensor> saved;
  Tensor out = batchNormImpl(input, weight.value_or(Tensor()), bias.value_or(Tensor()), Tensor(), Tensor(), true,
                             momentum, eps, op, &saved);
  return {out, saved.first, saved.second};
}

/// Normalises over the trailing dims `normalizedShape` names; returns the
/// output, the mean and 1/sqrt(var + eps) (shaped [*leading, 1, ...]), as ATen does.
std::tuple<Tensor, Tensor, Tensor>
layerNorm(const Tensor &input, const std::vector<int64_t> &normalizedShape,
          const std::optional<Tensor> &weight, const std::optional<Tensor> &bias, double eps) {
  const char *op = "aten::native_layer_norm";
  int64_t n = normalizedShape.size(), rank = input.dim();
  check(n >= 1 && n <= rank, op, "normalized_shape has " + std::to_string(n) +
                                     " dims; the input is " + input.shapeString());
  int64_t inner = 1;
  for (int64_t i = 0; i < n; ++i) {
    check(input.size(rank - n + i) == normalizedShape[i], op,
          "normalized_shape does not match the trailing dims of " + input.shapeString());
    inner *= normalizedShape[i];
  }
  for (const std::optional<Tensor> *t : {&weight, &bias})
    if (*t && (*t)->defined())
      check((*t)->sizes() == normalizedShape, op,
            std::string(t == &weight ? "weight" : "bias") + " of shape " + (*t)->shapeString() +
                " does not match normalized_shape " + shapeToString(normalizedShape));
  std::vector<int64_t> statSizes = input.sizes();
  for (int64_t i = rank - n; i < rank; ++i) statSizes[i] = 1;
  Tensor out = Tensor::empty(input.sizes(), input.dtype(), input.device());
  Tensor mean = Tensor::empty(statSizes, input.dtype(), input.device());
  Tensor rstd = Tensor::empty(statSizes, input.dtype(), input.device());
  if (isMeta(input)) return {out, mean, rstd};
  int64_t outer = inner ? input.numel() / inner : 0;
  Tensor x = input.contiguous();
  dispatchFloat(input.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    Tensor w = weight && weight->defined() ? castTo(weight->contiguous(), input.dtype()) : Tensor();
    Tensor b = bias && bias->defined() ? castTo(bias->contiguous(), input.dtype()) : Tensor();
    const T *px = x.data<T>(), *pw = w.defined() ? w.data<T>() : nullptr,
            *pb = b.defined() ? b.data<T>() : nullptr;
    T *po = out.data<T>(), *pm = mean.data<T>(), *pr = rstd.data<T>();
    parallelFor(outer, 1, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const T *p = px + r * inner;
        double s = 0, ss = 0;
        for (int64_t i = 0; i < inner; ++i) s += p[i];
        double mu = s / inner;
        for (int64_t i = 0; i < inner; ++i) ss += (p[i] - mu) * (p[i] - mu);
        double rs = 1.0 / std::sqrt(ss / inner + eps);
        pm[r] = (T)mu;
        pr[r] = (T)rs;
        T *o = po + r * inner;
        for (int64_t i = 0; i < inner; ++i)
          o[i] = (T)((p[i] - mu) * rs * (pw ? pw[i] : T(1)) + (pb ? pb[i] : T(0)));
      }
    });
  });
  return {out, mean, rstd};
}

/// rms_norm: x / sqrt(mean(x^2) + eps) * weight over the trailing dims
/// `normalizedShape` names; eps None is the dtype's machine epsilon (as ATen's).
Tensor rmsNorm(const Tensor &input, const std::vector<int64_t> &normalizedShape,
               const std::optional<Tensor> &weight, std::optional<double> eps) {
  const char *op = "aten::rms_norm";
  int64_t n = normalizedShape.size(), rank = input.dim();
  check(n >= 1 && n <= rank, op, "normalized_shape has " + std::to_string(n) +
                                     " dims; the input is " + input.shapeString());
  check(isFloatingPoint(input.dtype()), op,
        std::string("expected a floating-point input, got ") + dtypeTorchName(input.dtype()));
  int64_t inner = 1;
  for (int64_t i = 0; i < n; ++i) {
    check(input.size(rank - n + i) == normalizedShape[i], op,
          "normalized_shape does not match the trailing dims of " + input.shapeString());
    inner *= normalizedShape[i];
  }
  if (weight && weight->defined())
    check(weight->sizes() == normalizedShape, op,
          "weight of shape " + weight->shapeString() + " does not match normalized_shape " +
              shapeToString(normalizedShape));
  Tensor out = Tensor::empty(input.sizes(), input.dtype(), input.device());
  if (isMeta(input)) return out;
  double e = eps ? *eps
             : input.dtype() == DType::Float64  ? 2.220446049250313e-16
             : input.dtype() == DType::Float16  ? 0.0009765625
             : input.dtype() == DType::BFloat16 ? 0.0078125
                                                : 1.1920928955078125e-07;
  int64_t outer = inner ? input.numel() / inner : 0;
  Tensor x = input.contiguous();
  dispatchFloat(input.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    Tensor w = weight && weight->defined() ? castTo(weight->contiguous(), input.dtype()) : Tensor();
    const T *px = x.data<T>(), *pw = w.defined() ? w.data<T>() : nullptr;
    T *po = out.data<T>();
    parallelFor(outer, 1, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const T *p = px + r * inner;
        double ss = 0;
        for (int64_t i = 0; i < inner; ++i) ss += (double)p[i] * (double)p[i];
        double rs = 1.0 / std::sqrt(ss / inner + e);
        T *o = po + r * inner;
        for (int64_t i = 0; i < inner; ++i) o[i] = (T)(p[i] * rs * (pw ? (double)pw[i] : 1.0));
      }
    });
  });
  return out;
}

} // namespace
} // namespace kiln::cpu

/// The same kernels serve CPU and Meta (on Meta tensors they only compute shapes).
KILN_LIBRARY_IMPL_CPU_AND_META(aten, m) {
  using namespace kiln::cpu;
  m.impl("batch_norm", batchNorm);
  m.impl("_native_batch_norm_legit_no_training", batchNormNoTraining);
  m.impl("_native_batch_norm_legit", batchNormLegit);
  m.impl("_native_batch_norm_legit.no_stats", batchNormLegitNoStats);
  m.impl("_native_batch_norm_legit_functional", batchNormLegitFunctional);
  m.impl("native_layer_norm", layerNorm);
  m.impl("rms_norm", rmsNorm);
}

KILN_LIBRARY_FRAGMENT(aten, m) {
  m.def("rms_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, float? eps=None) -> Tensor");
  m.def("_native_batch_norm_legit(Tensor input, Tensor? weight, Tensor? bias, Tensor(a!) running_mean, "
        "Tensor(b!) running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)");
  m.def("_native_batch_norm_legit.no_stats(Tensor input, Tensor? weight, Tensor? bias, bool training, "
        "float momentum, float eps) -> (Tensor, Tensor, Tensor)");
  m.def("_native_batch_norm_legit_functional(Tensor input, Tensor? weight, Tensor? bias, Tensor running_mean, "
        "Tensor running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor, Tensor, Tensor)");
}
