// kiln runtime — eager CPU (and Meta) group normalization: native_group_norm
// (output, per-group mean and rstd), and group_norm and instance_norm on top of it.
#include "KernelUtils.h"

#include <cmath>

namespace kiln::cpu {
namespace {

std::tuple<Tensor, Tensor, Tensor> nativeGroupNorm(const Tensor &input, const Tensor &weight, const Tensor &bias,
                                                   int64_t N, int64_t C, int64_t HxW, int64_t group, double eps) {
  const char *op = "aten::native_group_norm";
  check(group > 0 && C % group == 0, op,
        "the number of channels " + std::to_string(C) + " must be divisible by num_groups " + std::to_string(group));
  check(input.numel() == N * C * HxW, op, "input " + input.shapeString() + " does not hold N*C*HxW elements");
  for (const Tensor *t : {&weight, &bias})
    check(!t->defined() || t->numel() == C, op, "weight and bias must have C = " + std::to_string(C) + " elements");
  Tensor out = emptyLike(input.sizes(), input.dtype(), input);
  Tensor mean = emptyLike({N, group}, input.dtype(), input), rstd = emptyLike({N, group}, input.dtype(), input);
  if (isMeta(out)) return {out, mean, rstd};
  Tensor x = input.contiguous();
  Tensor w = weight.defined() ? weight.contiguous() : Tensor(), b = bias.defined() ? bias.contiguous() : Tensor();
  int64_t cpg = C / group, len = cpg * HxW;
  dispatchFloat(x.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T *px = x.data<T>();
    T *po = out.data<T>(), *pm = mean.data<T>(), *pr = rstd.data<T>();
    const T *pw = w.defined() ? w.data<T>() : nullptr, *pb = b.defined() ? b.data<T>() : nullptr;
    parallelFor(N * group, 1, [&](int64_t g0, int64_t g1) {
      for (int64_t g = g0; g < g1; ++g) {
        const T *xs = px + g * len;
        double s = 0, ss = 0;
        for (int64_t i = 0; i < len; ++i) s += xs[i];
        double mu = len ? s / len : 0;
        for (int64_t i = 0; i < len; ++i) ss += ((double)xs[i] - mu) * ((double)xs[i] - mu);
        double var = len ? ss / len : 0, r = 1.0 / std::sqrt(var + eps);
        pm[g] = (T)mu;
        pr[g] = (T)r;
        int64_t c0 = (g % group) * cpg;
        for (int64_t c = 0; c < cpg; ++c) {
          double sc = r * (pw ? (double)pw[c0 + c] : 1.0), sh = (pb ? (double)pb[c0 + c] : 0.0) - mu * sc;
          const T *xc = xs + c * HxW;
          T *oc = po + g * len + c * HxW;
          for (int64_t i = 0; i < HxW; ++i) oc[i] = (T)((double)xc[i] * sc + sh);
        }
      }
    });
  });
  return {out, mean, rstd};
}

Tensor groupNorm(const Tensor &input, int64_t groups, const Tensor &weight, const Tensor &bias, double eps, bool) {
  const char *op = "aten::group_norm";
  check(input.dim() >= 2, op, "expects an input of rank 2 or more, got " + input.shapeString());
  int64_t N = input.size(0), C = input.size(1), HxW = 1;
  for (int64_t d = 2; d < input.dim(); ++d) HxW *= input.size(d);
  return std::get<0>(nativeGroupNorm(input, weight, bias, N, C, HxW, groups, eps));
}

/// Instance norm: each (image, channel) plane normalised by its own statistics (group norm
/// with a group per channel), the running statistics updated from their batch means when
/// given; or, without use_input_stats, normalised by the running statistics.
Tensor instanceNorm(const Tensor &input, const Tensor &weight, const Tensor &bias, const Tensor &runningMean,
                    const Tensor &runningVar, bool useInputStats, double momentum, double eps, bool) {
  const char *op = "aten::instance_norm";
  check(input.dim() >= 2, op, "expects an input of rank 2 or more (N, C, ...), got " + input.shapeString());
  int64_t N = input.size(0), C = input.size(1), HxW = 1;
  for (int64_t d = 2; d < input.dim(); ++d) HxW *= input.size(d);
  for (const Tensor *t : {&runningMean, &runningVar})
    check(!t->defined() || t->numel() == C, op, "running statistics must have C = " + std::to_string(C) + " elements");
  if (!useInputStats) {
    check(runningMean.defined() && runningVar.defined(), op, "use_input_stats=False needs running_mean and running_var");
    Tensor out = emptyLike(input.sizes(), input.dtype(), input);
    if (isMeta(out)) return out;
    Tensor x = input.contiguous(), rm = castTo(runningMean, input.dtype()), rv = castTo(runningVar, input.dtype());
    Tensor w = weight.defined() ? castTo(weight, input.dtype()) : Tensor();
    Tensor b = bias.defined() ? castTo(bias, input.dtype()) : Tensor();
    dispatchFloat(x.dtype(), op, [&](auto tag) {
      using T = decltype(tag);
      const T *px = x.data<T>(), *pm = rm.data<T>(), *pv = rv.data<T>();
      const T *pw = w.defined() ? w.data<T>() : nullptr, *pb = b.defined() ? b.data<T>() : nullptr;
      T *po = out.data<T>();
      for (int64_t p = 0; p < N * C; ++p) {
        int64_t c = p % C;
        double sc = (pw ? (double)pw[c] : 1.0) / std::sqrt((double)pv[c] + eps);
        double sh = (pb ? (double)pb[c] : 0.0) - (double)pm[c] * sc;
        for (int64_t i = 0; i < HxW; ++i) po[p * HxW + i] = (T)((double)px[p * HxW + i] * sc + sh);
      }
    });
    return out;
  }
  auto [out, mean, rstd] = nativeGroupNorm(input, weight, bias, N, C, HxW, C, eps);
  if (isMeta(out) || (!runningMean.defined() && !runningVar.defined())) return out;
  // running = (1 - momentum) running + momentum * (the batch mean of each plane's mean, and
  // of its unbiased variance).
  Tensor m = mean.contiguous(), r = rstd.contiguous();
  dispatchFloat(m.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T *pm = m.data<T>(), *pr = r.data<T>();
    double unbias = HxW > 1 ? (double)HxW / (double)(HxW - 1) : 1.0;
    for (int64_t c = 0; c < C; ++c) {
      double mu = 0, var = 0;
      for (int64_t n = 0; n < N; ++n) {
        mu += (double)pm[n * C + c];
        double rs = (double)pr[n * C + c];
        var += (1.0 / (rs * rs) - eps) * unbias;
      }
      mu /= (double)N;
      var /= (double)N;
      for (auto [t, v] : {std::pair<const Tensor *, double>{&runningMean, mu}, {&runningVar, var}}) {
        if (!t->defined()) continue;
        char *p = static_cast<char *>(t->rawData()) + c * dtypeSize(t->dtype());
        storeDouble(p, t->dtype(), (1 - momentum) * loadDouble(p, t->dtype()) + momentum * v);
      }
    }
  });
  return out;
}

KILN_LIBRARY_IMPL_CPU_AND_META(aten, m) {
  m.impl("native_group_norm", nativeGroupNorm);
  m.impl("group_norm", groupNorm);
  m.impl("instance_norm", instanceNorm);
}

} // namespace
} // namespace kiln::cpu

KILN_LIBRARY_FRAGMENT(aten, m) {
  m.def("native_group_norm(Tensor input, Tensor? weight, Tensor? bias, SymInt N, SymInt C, SymInt HxW, "
        "int group, float eps) -> (Tensor, Tensor, Tensor)");
  m.def("group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, "
        "bool cudnn_enabled=True) -> Tensor");
  m.def("instance_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, "
        "bool use_input_stats, float momentum, float eps, bool cudnn_enabled) -> Tensor");
}
