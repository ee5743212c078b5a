// kiln runtime — kiln_cpu_conv_bwd_{data,filter}_f32: a convolution's input and weight gradients with oneDNN.
//
// kiln-cpu-library-calls passes the same rank-5 (N, C, D, H, W) views as to
// kiln_cpu_conv_f32: bwd_data(dy, w, dx) and bwd_filter(x, dy, dw). Leading
// unit spatial dims are dropped; oneDNN's backward-data and backward-weights
// primitives (made with a forward-training hint of the same shapes) read
// and write the caller's layouts where they have a kernel for them, else
// their own, reordered around the call (Plan). They cannot accumulate, so
// the output is always overwritten (the compiler only calls them so).
#include "ConvGeometry.h"
#include "Dnnl.h"

#include "kiln/abi/cpu_calls.h"

#include <algorithm>
#include <array>

using kiln::cpu::Desc;

namespace kiln::cpu {
namespace {

/// Sets every element of strided view `v` to zero.
void zero(const Desc<5> *v) {
  float *p = v->data();
  const int64_t *n = v->sizes, *s = v->strides;
  for (int64_t a = 0; a < n[0]; ++a)
    for (int64_t b = 0; b < n[1]; ++b)
      for (int64_t c = 0; c < n[2]; ++c)
        for (int64_t d = 0; d < n[3]; ++d)
          for (int64_t e = 0; e < n[4]; ++e) p[a * s[0] + b * s[1] + c * s[2] + d * s[3] + e * s[4]] = 0.0f;
}

/// dx = d conv(x, w) / dx for output gradient dy (`data`), or dw = the same
/// with respect to w. X, W and Y are the convolution's input, weight and
/// output shapes (two of them gradients); params are stride, padding and
/// dilation per spatial dim.
void convBackward(bool data, int32_t flags, int64_t groups, const std::array<int64_t, 9> &params, const Desc<5> *X,
                  const Desc<5> *W, const Desc<5> *Y) {
  const char *name = data ? "kiln_cpu_conv_bwd_data_f32" : "kiln_cpu_conv_bwd_filter_f32";
  if (!(flags & KILN_CPU_OVERWRITE))
    throw std::runtime_error(std::string(name) + ": the gradient can only be written, not accumulated into");
  const Desc<5> *out = data ? X : W;
  if (std::any_of(out->sizes, out->sizes + 5, [](int64_t s) { return s == 0; })) return;
  if (groups < 1 || Y->sizes[1] % groups || X->sizes[1] % groups || W->sizes[1] * groups != X->sizes[1] ||
      W->sizes[0] != Y->sizes[1] || X->sizes[0] != Y->sizes[0])
    throw std::runtime_error(std::string(name) + ": the filter's shape does not match the input's and output's "
                             "channels and " + std::to_string(groups) + " groups");
  bool empty = false;  // an operand with no elements: the gradient is zero
  for (const Desc<5> *d : {X, W, Y})
    empty |= d != out && std::any_of(d->sizes, d->sizes + 5, [](int64_t s) { return s == 0; });
  if (empty) return zero(out);
  const DnnlApi &d = dnnl();
  if (!d.error.empty()) throw std::runtime_error(d.error);
  enterCall();
  const ConvGeometry g = convGeometry(name, groups, params, X, W, Y);
  const std::vector<int64_t> &xd = g.xd, &xs = g.xs, &yd = g.yd, &yst = g.ys, &wd = g.wd, &wst = g.ws;
  const std::vector<int64_t> &stride = g.stride, &dilate = g.dilate, &padL = g.padL, &padR = g.padR;
  // Rows of x past the last window get no gradient (zeroed first) and give none.
  if (g.cropped && data) zero(X);
  std::vector<int64_t> key{data ? 1 : 2, groups};
  g.appendKey(key);
  std::shared_ptr<const Plan> plan = cachedPlan(key, [&] {
    auto p = std::make_unique<Plan>();
    dnnl_memory_desc_t userX = stridedDesc(xd, xs), userW = stridedDesc(wd, wst), userY = stridedDesc(yd, yst);
    // Plan's (src, weights, dst): data (dy, w, dx), filter (x, dy, dw).
    if (data) {
      p->userSrc = userY, p->userWeights = userW, p->userDst = userX;
      p->srcQuery = dnnl_query_diff_dst_md, p->dstQuery = dnnl_query_diff_src_md;
      p->srcArg = DNNL_ARG_DIFF_DST, p->dstArg = DNNL_ARG_DIFF_SRC;
    } else {
      p->userSrc = userX, p->userWeights = userY, p->userDst = userW;
      p->weightsQuery = dnnl_query_diff_dst_md, p->dstQuery = dnnl_query_diff_weights_md;
      p->weightsArg = DNNL_ARG_DIFF_DST, p->dstArg = DNNL_ARG_DIFF_WEIGHTS;
    }
    dnnl_primitive_attr_t attr = makeAttr(false, false);
    dnnl_primitive_desc_t pd = nullptr, hint = nullptr;
    dnnl_status_t s = dnnl_unimplemented;
    // The caller's activation layouts first, oneDNN's own if it has no
    // kernel for them (as the forward call does).
    for (bool own : {false, true}) {
      if (pd) d.primitive_desc_destroy(pd), pd = nullptr;
      if (hint) d.primitive_desc_destroy(hint), hint = nullptr;
      dnnl_memory_desc_t x = own ? anyDesc(xd) : userX, y = own ? anyDesc(yd) : userY, w = anyDesc(wd);
      dnnl_convolution_desc_t fwd, bwd;
      s = d.dilated_convolution_forward_desc_init(&fwd, dnnl_forward_training, dnnl_convolution_direct, &x, &w,
                                                  nullptr, &y, stride.data(), dilate.data(), padL.data(),
                                                  padR.data());
      if (s == dnnl_success) s = d.primitive_desc_create(&hint, &fwd, nullptr, d.engine, nullptr);
      if (s == dnnl_success)
        s = data ? d.dilated_convolution_backward_data_desc_init(&bwd, dnnl_convolution_direct, &x, &w, &y,
                                                                 stride.data(), dilate.data(), padL.data(),
                                                                 padR.data())
                 : d.dilated_convolution_backward_weights_desc_init(&bwd, dnnl_convolution_direct, &x, &w, nullptr,
                                                                    &y, stride.data(), dilate.data(), padL.data(),
                                                                    padR.data());
      if (s == dnnl_success) s = d.primitive_desc_create(&pd, &bwd, attr, d.engine, hint);
      if (s == dnnl_success && !(isReference(pd) && !own)) break;
    }
    if (hint) d.primitive_desc_destroy(hint);
    d.primitive_attr_destroy(attr);
    check(s, std::string(name) + ": the convolution's gradient (" + std::to_string(xd.size() - 2) + "-d, " +
                 std::to_string(groups) + " groups)");
    finishPlan(*p, pd);
    return p;
  });
  if (data)
    execute(*plan, Y->data(), W->data(), X->data(), nullptr, false);
  else
    execute(*plan, X->data(), Y->data(), W->data(), nullptr, false);
}

} // namespace
} // namespace kiln::cpu

extern "C" __attribute__((visibility("default"))) void _mlir_ciface_kiln_cpu_conv_bwd_data_f32(
    int32_t flags, int64_t groups, int64_t s0, int64_t s1, int64_t s2, int64_t p0, int64_t p1, int64_t p2,
    int64_t d0, int64_t d1, int64_t d2, Desc<5> *DY, Desc<5> *W, Desc<5> *DX) {
  try {
    kiln::cpu::convBackward(true, flags, groups, {s0, s1, s2, p0, p1, p2, d0, d1, d2}, DX, W, DY);
  } catch (const std::exception &e) {
    kiln::cpu::fail(e.what());
  }
}

extern "C" __attribute__((visibility("default"))) void _mlir_ciface_kiln_cpu_conv_bwd_filter_f32(
    int32_t flags, int64_t groups, int64_t s0, int64_t s1, int64_t s2, int64_t p0, int64_t p1, int64_t p2,
    int64_t d0, int64_t d1, int64_t d2, Desc<5> *X, Desc<5> *DY, Desc<5> *DW) {
  try {
    kiln::cpu::convBackward(false, flags, groups, {s0, s1, s2, p0, p1, p2, d0, d1, d2}, X, DW, DY);
  } catch (const std::exception &e) {
    kiln::cpu::fail(e.what());
  }
}
