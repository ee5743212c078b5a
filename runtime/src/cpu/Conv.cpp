// kiln runtime — kiln_cpu_conv_f32: 1- to 3-d convolutions of compiled models with oneDNN.
//
// kiln-cpu-library-calls passes rank-5 (N, C, D, H, W) views with any
// strides (unit leading spatial dims for 1-d and 2-d convolutions). The
// unit dims are dropped, so oneDNN sees the convolution's real rank; the
// input and output are read and written in the caller's layout (NCHW or
// NHWC, oneDNN's direct kernels take both) and the filter is reordered into
// the primitive's blocked layout (once, when it is a constant weight).
#include "ConvGeometry.h"
#include "Dnnl.h"
#include "Threads.h"
#include "Winograd.h"

#include "kiln/abi/cpu_calls.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <memory>
#include <string>
#include <unordered_map>

using kiln::cpu::Desc;

namespace kiln::cpu {

// The group is the one oneDNN picks for a 2-d convolution's input when left
// to choose: a blocked layout oneDNN does not run in would be reordered into
// its own and back around every call (ResNet-50 on an AVX-512 Xeon, whose
// brgconv kernels pick NHWC: 167 activation reorders a run in groups of 8).
int64_t blockedGroup(int64_t channels) {
  static const int64_t preferred = [] {
    const DnnlApi &d = dnnl();
    std::vector<int64_t> xd{1, 64, 8, 8}, wd{64, 64, 3, 3}, one{1, 1}, zero{0, 0};
    dnnl_memory_desc_t x = anyDesc(xd), w = anyDesc(wd), y = anyDesc(xd);
    dnnl_convolution_desc_t cd;
    dnnl_primitive_desc_t pd = nullptr;
    int64_t group = 8;
    if (d.dilated_convolution_forward_desc_init(&cd, dnnl_forward_inference, dnnl_convolution_direct, &x, &w, nullptr,
                                                &y, one.data(), zero.data(), one.data(), one.data()) == dnnl_success &&
        d.primitive_desc_create(&pd, &cd, nullptr, d.engine, nullptr) == dnnl_success) {
      const dnnl_memory_desc_t *src = d.primitive_desc_query_md(pd, dnnl_query_src_md, 0);
      const dnnl_blocking_desc_t &b = src->format_desc.blocking;
      if (src->format_kind == dnnl_blocked && b.inner_nblks == 1 && b.inner_idxs[0] == 1 && b.inner_blks[0] == 16)
        group = 16;
      else if (src->format_kind == dnnl_blocked && b.inner_nblks == 0 && b.strides[1] == 1 &&
               b.strides[3] == xd[1] && b.strides[2] == xd[1] * xd[3])
        group = 0;  // NHWC
      d.primitive_desc_destroy(pd);
    }
    return group;
  }();
  if (preferred == 0) return channels;
  return channels % preferred == 0 ? preferred : 8;
}

namespace {

/// Whether a convolution runs in oneDNN's own layouts rather than the
/// caller's: an ungrouped one with a spatial window (a 1x1 one reads each
/// input once and runs as fast in NHWC) over channels in whole vector
/// groups. KILN_CPU_CONV_LAYOUT=caller turns it off.
bool preferLibraryLayouts(int64_t groups, const std::vector<int64_t> &wd, const std::vector<int64_t> &xd,
                          const std::vector<int64_t> &yd) {
  static const bool off = [] {
    const char *env = std::getenv("KILN_CPU_CONV_LAYOUT");
    return env && std::string(env) == "caller";
  }();
  if (off || groups != 1 || xd.size() < 3 || xd[1] % 8 || yd[1] % 8) return false;
  return std::any_of(wd.begin() + 2, wd.end(), [](int64_t k) { return k > 1; });
}

/// The descriptor of a KILN_CPU_*_BLOCKED operand of the kept dims `dims`
/// (N, C, H, W) whose caller's view has the element strides `strides`:
/// the same memory read as (N, C/g, H, W, g). Throws naming `who` unless
/// the view is the whole dense NHWC buffer the flag promises.
void checkBlocked(const char *who, const char *operand, const std::vector<int64_t> &dims,
                  const std::vector<int64_t> &strides) {
  if (dims.size() != 4 || dims[1] % 8 ||
      strides != std::vector<int64_t>{dims[1] * dims[2] * dims[3], 1, dims[3] * dims[1], dims[1]})
    throw std::runtime_error(std::string(who) + ": " + operand +
                             " is marked blocked but is not a whole dense (N, H, W, C) buffer with C a multiple of 8");
}

/// The blocked layout of a dense 4-d (N, C, H, W) tensor on this machine
/// (blockedGroup; C a multiple of 8).
dnnl_memory_desc_t machineBlockedDesc(const std::vector<int64_t> &dims) {
  dnnl_memory_desc_t md;
  const int64_t group = blockedGroup(dims[1]);
  check(dnnl().memory_desc_init_by_tag(&md, 4, dims.data(), dnnl_f32,
                                       group == dims[1] ? dnnl_nhwc : group == 16 ? dnnl_nChw16c : dnnl_nChw8c),
        "a oneDNN memory descriptor");
  return md;
}

dnnl_memory_desc_t blockedDesc(const char *who, const char *operand, const std::vector<int64_t> &dims,
                               const std::vector<int64_t> &strides) {
  checkBlocked(who, operand, dims, strides);
  return machineBlockedDesc(dims);
}

/// `data` with dims `dims` (N, C, H, W) as Winograd's code reads it: oneDNN's
/// blocked layout when `blocked`, else a view whose channels are
/// unit-stride; false for any other view.
bool winogradOperand(const char *who, const char *operand, float *data, bool blocked, const std::vector<int64_t> &dims,
                     const std::vector<int64_t> &strides, WinogradOperand &o) {
  if (blocked) {
    checkBlocked(who, operand, dims, strides);
    const int64_t group = blockedGroup(dims[1]);
    o = {data, dims[1] * dims[2] * dims[3], dims[2] * dims[3] * group, group, dims[3] * group, group};
    return true;
  }
  if (strides[1] != 1) return false;
  o = {data, strides[0], 0, dims[1], strides[2], strides[3]};
  return true;
}

/// Runs a 2-d, ungrouped, 3x3, stride-1 convolution with a constant filter
/// by Winograd's F(4x4, 3x3) where it pays (Winograd.h); false when it
/// does not apply (the caller runs oneDNN's direct convolution).
bool tryWinograd(const char *who, int32_t flags, int64_t groups, const ConvGeometry &g, const Desc<5> *X,
                 const Desc<5> *W, const Desc<5> *Y, const float *bias, const Desc<5> *R, const std::vector<int64_t> &rs) {
  if (g.xd.size() != 4 || groups != 1 || g.cropped || !(flags & KILN_CPU_CONST_WEIGHT) || g.wd[2] != 3 ||
      g.wd[3] != 3 || g.stride != std::vector<int64_t>{1, 1} || g.dilate != std::vector<int64_t>{0, 0} ||
      g.xd[1] % 8 || g.yd[1] % 8 || !winogradPreferred() || !winogradPays(g.xd[1], g.yd[1], g.yd[2], g.yd[3]))
    return false;
  WinogradConv cv;
  if (!winogradOperand(who, "x", X->data(), flags & KILN_CPU_X_BLOCKED, g.xd, g.xs, cv.x) ||
      !winogradOperand(who, "y", Y->data(), flags & KILN_CPU_Y_BLOCKED, g.yd, g.ys, cv.y) ||
      (R && !winogradOperand(who, "r", R->data(), flags & KILN_CPU_R_BLOCKED, g.yd, rs, cv.r)))
    return false;
  cv.n = g.xd[0], cv.c = g.xd[1], cv.k = g.yd[1], cv.h = g.xd[2], cv.w = g.xd[3], cv.oh = g.yd[2], cv.ow = g.yd[3];
  cv.padTop = g.padL[0], cv.padLeft = g.padL[1];
  cv.weight = W->data(), cv.wK = g.ws[0], cv.wC = g.ws[1], cv.wH = g.ws[2], cv.wW = g.ws[3];
  cv.bias = bias;
  cv.accumulate = !(flags & KILN_CPU_OVERWRITE);
  cv.activation = flags & (KILN_CPU_RELU | KILN_CPU_HARDSWISH | KILN_CPU_SILU | KILN_CPU_SIGMOID);
  runWinograd(cv, maxThreads());
  return true;
}

/// Everything a convolution call's plan depends on but its buffers: flags,
/// groups, parameters, the operands' sizes and strides, whether it has a
/// bias and an added tensor, and the thread count. A model calls each of its
/// convolutions with the same ones run after run.
using CallKey = std::array<int64_t, 50>;

struct CallKeyHash {
  size_t operator()(const CallKey &k) const {
    uint64_t h = 1469598103934665603ull;
    for (int64_t v : k) h = (h ^ (uint64_t)v) * 1099511628211ull;
    return (size_t)h;
  }
};

/// What one call key gives, made the first time the calling thread sees it:
/// the geometry, the added tensor's strides in it, and the oneDNN plan
/// (null until one is needed; Winograd's calls have none). Making these
/// took about 20 small heap allocations and a hashed plan lookup on every
/// call (MobileNetV3-L: ~1,100 allocations a run, about a fifth of them).
struct CallShape {
  ConvGeometry g;
  std::vector<int64_t> rs;
  std::shared_ptr<const Plan> plan;
};
thread_local std::unordered_map<CallKey, std::unique_ptr<CallShape>, CallKeyHash> tCallShapes;

CallKey callKey(int32_t flags, int64_t groups, const std::array<int64_t, 9> &params, const Desc<5> *X,
                const Desc<5> *W, const Desc<5> *Y, const Desc<1> *bias, const Desc<5> *R) {
  CallKey k{};
  size_t i = 0;
  k[i++] = flags, k[i++] = groups;
  for (int64_t p : params) k[i++] = p;
  for (const Desc<5> *d : {X, W, Y}) {
    for (int j = 0; j < 5; ++j) k[i++] = d->sizes[j];
    for (int j = 0; j < 5; ++j) k[i++] = d->strides[j];
  }
  k[i++] = bias ? bias->sizes[0] : -1;
  k[i++] = bias ? bias->strides[0] : -1;
  k[i++] = R != nullptr;
  for (int j = 0; j < 5; ++j) k[i++] = R ? R->strides[j] : 0;  // R's sizes are Y's (checked)
  k[i++] = maxThreads();
  return k;
}

/// The convolution `y (+)= conv(x, w) (+ bias[c]) (+ r)`, then the
/// activation its flags name (KILN_CPU_RELU, _HARDSWISH, _SILU, _SIGMOID);
/// params are stride, padding and dilation per spatial dim (D, H, W).
void conv(const char *who, int32_t flags, int64_t groups, const std::array<int64_t, 9> &params, const Desc<5> *X,
          const Desc<5> *W, const Desc<5> *Y, const Desc<1> *bias, const Desc<5> *R = nullptr) {
  const bool overwrite = flags & KILN_CPU_OVERWRITE;
  const int64_t *ys = Y->sizes;
  if (std::any_of(ys, ys + 5, [](int64_t s) { return s == 0; })) return;
  if (X->sizes[1] == 0 || groups < 1 || Y->sizes[1] % groups || X->sizes[1] % groups ||
      W->sizes[1] * groups != X->sizes[1] || W->sizes[0] != Y->sizes[1])
    throw std::runtime_error(std::string(who) + ": the filter's shape does not match the input's and output's "
                             "channels and " + std::to_string(groups) + " groups");
  if (bias && bias->sizes[0] != Y->sizes[1])
    throw std::runtime_error(std::string(who) + ": the bias has " + std::to_string(bias->sizes[0]) +
                             " elements for " + std::to_string(Y->sizes[1]) + " output channels");
  if (R && !std::equal(R->sizes, R->sizes + 5, Y->sizes))
    throw std::runtime_error(std::string(who) + ": the added tensor's shape differs from the output's");
  const DnnlApi &d = dnnl();
  if (!d.error.empty()) throw std::runtime_error(d.error);
  enterCall();
  const CallKey callKeyValue = callKey(flags, groups, params, X, W, Y, bias, R);
  auto found = tCallShapes.find(callKeyValue);
  if (found == tCallShapes.end()) {
    auto shape = std::make_unique<CallShape>();
    shape->g = convGeometry(who, groups, params, X, W, Y, /*floorRows=*/true);
    if (R) shape->rs = shape->g.keptStrides(R);
    found = tCallShapes.emplace(callKeyValue, std::move(shape)).first;
  }
  CallShape &shape = *found->second;
  const ConvGeometry &g = shape.g;
  const std::vector<int64_t> &xd = g.xd, &xs = g.xs, &yd = g.yd, &yst = g.ys, &wd = g.wd, &wst = g.ws;
  const std::vector<int64_t> &stride = g.stride, &dilate = g.dilate, &padL = g.padL, &padR = g.padR;
  // oneDNN reads a dense bias: a strided one is copied.
  const float *biasData = bias ? bias->data() : nullptr;
  std::vector<float> denseBias;
  if (bias && bias->strides[0] != 1) {
    for (int64_t c = 0; c < bias->sizes[0]; ++c) denseBias.push_back(bias->data()[c * bias->strides[0]]);
    biasData = denseBias.data();
  }
  // The added tensor in the output's view (its strides over the dims the
  // geometry keeps: the output's dims, unit ones dropped).
  const std::vector<int64_t> &rs = shape.rs;
  if (tryWinograd(who, flags, groups, g, X, W, Y, biasData, R, rs)) return;
  const bool xBlocked = flags & KILN_CPU_X_BLOCKED, yBlocked = flags & KILN_CPU_Y_BLOCKED,
             rBlocked = R && (flags & KILN_CPU_R_BLOCKED);
  if (xBlocked && g.cropped)
    throw std::runtime_error(std::string(who) + ": x is marked blocked but its last rows fit no window");
  if (shape.plan) {
    execute(*shape.plan, X->data(), W->data(), Y->data(), biasData, flags & KILN_CPU_CONST_WEIGHT,
            R ? R->data() : nullptr);
    return;
  }
  std::vector<int64_t> key{0, flags & (KILN_CPU_OVERWRITE | KILN_CPU_RELU | KILN_CPU_HARDSWISH | KILN_CPU_SILU |
                                       KILN_CPU_SIGMOID),
                             groups, bias != nullptr, R != nullptr};
  g.appendKey(key);
  key.insert(key.end(), rs.begin(), rs.end());
  key.push_back(flags & (KILN_CPU_X_BLOCKED | KILN_CPU_Y_BLOCKED | KILN_CPU_R_BLOCKED));
  std::shared_ptr<const Plan> plan = cachedPlan(key, [&] {
    auto p = std::make_unique<Plan>();
    p->userSrc = xBlocked ? blockedDesc(who, "x", xd, xs) : stridedDesc(xd, xs);
    p->userWeights = stridedDesc(wd, wst);
    p->userDst = yBlocked ? blockedDesc(who, "y", yd, yst) : stridedDesc(yd, yst);
    p->hasBias = bias != nullptr;
    dnnl_memory_desc_t biasMd{};
    if (bias) biasMd = stridedDesc({yd[1]}, {1});
    if (R) {
      // oneDNN reads the added tensor as if laid out like the output.
      p->userBinary = rBlocked ? blockedDesc(who, "r", yd, rs) : stridedDesc(yd, rs);
      p->binary = p->userDst;
      p->binaryArg = binaryPostOpArg(!overwrite);
    }
    // Each try builds the primitive for given source and destination
    // layouts (the added tensor in the destination's).
    dnnl_primitive_desc_t pd = nullptr;
    auto tryLayouts = [&](dnnl_memory_desc_t src, dnnl_memory_desc_t dst) {
      if (pd) d.primitive_desc_destroy(pd), pd = nullptr;
      if (R) p->binary = dst;
      dnnl_primitive_attr_t attr = makeAttr(!overwrite, flags, R ? &p->binary : nullptr);
      dnnl_memory_desc_t wei = anyDesc(wd);
      dnnl_convolution_desc_t cd;
      dnnl_status_t s = d.dilated_convolution_forward_desc_init(&cd, dnnl_forward_inference, dnnl_convolution_direct,
                                                                &src, &wei, bias ? &biasMd : nullptr, &dst,
                                                                stride.data(), dilate.data(), padL.data(), padR.data());
      if (s == dnnl_success) s = d.primitive_desc_create(&pd, &cd, attr, d.engine, nullptr);
      d.primitive_attr_destroy(attr);
      return s;
    };
    dnnl_status_t s = dnnl_unimplemented;
    // A convolution with a spatial window reads its input once per tap:
    // in oneDNN's own blocked layout (channels in groups of the vector
    // width) its kernels run 15-35% faster than in NHWC, which pays for
    // the reorders of the input, output and added tensor around the call
    // (docs/Rationale/cpu-library-calls.md). The layouts are oneDNN's
    // choice; a reference kernel is never taken.
    // A blocked operand: the convolution runs in the library's layouts too
    // (a 1x1 one as well), its other operands reordered.
    if (preferLibraryLayouts(groups, wd, xd, yd) || xBlocked || yBlocked || rBlocked) {
      // First every operand in the machine's blocked layout, the one the
      // operands marked blocked are in (reordering only the others): left
      // to choose, oneDNN can take another one for the same call (on an
      // AVX-512 Xeon, nChw16c for 1x1 convolutions with an added tensor
      // where the blocked layout is NHWC: three reorders a call).
      if ((xBlocked || yBlocked || rBlocked) && xd.size() == 4 && xd[1] % 8 == 0 && yd[1] % 8 == 0) {
        s = tryLayouts(machineBlockedDesc(xd), machineBlockedDesc(yd));
        if (s == dnnl_success && isReference(pd)) s = dnnl_unimplemented;
      }
      if (s != dnnl_success) s = tryLayouts(anyDesc(xd), anyDesc(yd));
      if (s == dnnl_success && !isReference(pd)) {
        dnnl_memory_desc_t src = *d.primitive_desc_query_md(pd, dnnl_query_src_md, 0),
                           dst = *d.primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
        // Again with the added tensor's layout known (oneDNN picks the
        // layouts before post-ops are attached).
        if (R) s = tryLayouts(src, dst);
      }
      if (s != dnnl_success || isReference(pd)) s = dnnl_unimplemented;
    }
    // The caller's layouts for the input and output where oneDNN has a JIT
    // kernel for them, else its own (reordered around each call; a small
    // first convolution, 3 input channels, has no NHWC kernel). With an
    // added tensor, always the caller's: it is read in the output's layout.
    if (s != dnnl_success) {
      s = tryLayouts(p->userSrc, p->userDst);
      // With an added tensor a reference kernel in the caller's layouts
      // is kept (the tensor is read in the output's layout).
      if (s != dnnl_success || (isReference(pd) && !R)) {
        s = tryLayouts(anyDesc(xd), anyDesc(yd));
        if (R && s == dnnl_success)
          s = tryLayouts(*d.primitive_desc_query_md(pd, dnnl_query_src_md, 0),
                         *d.primitive_desc_query_md(pd, dnnl_query_dst_md, 0));
      }
    }
    check(s, std::string(who) + ": the convolution (" + std::to_string(xd.size() - 2) + "-d, " +
                 std::to_string(groups) + " groups)");
    finishPlan(*p, pd);
    return p;
  });
  shape.plan = plan;
  execute(*plan, X->data(), W->data(), Y->data(), biasData, flags & KILN_CPU_CONST_WEIGHT, R ? R->data() : nullptr);
}

} // namespace
} // namespace kiln::cpu

extern "C" __attribute__((visibility("default"))) void _mlir_ciface_kiln_cpu_conv_f32(
    int32_t flags, int64_t groups, int64_t s0, int64_t s1, int64_t s2, int64_t p0, int64_t p1, int64_t p2,
    int64_t d0, int64_t d1, int64_t d2, Desc<5> *X, Desc<5> *W, Desc<5> *Y) {
  try {
    kiln::cpu::conv("kiln_cpu_conv_f32", flags, groups, {s0, s1, s2, p0, p1, p2, d0, d1, d2}, X, W, Y, nullptr);
  } catch (const std::exception &e) {
    kiln::cpu::fail(e.what());
  }
}

extern "C" __attribute__((visibility("default"))) void _mlir_ciface_kiln_cpu_conv_bias_f32(
    int32_t flags, int64_t groups, int64_t s0, int64_t s1, int64_t s2, int64_t p0, int64_t p1, int64_t p2,
    int64_t d0, int64_t d1, int64_t d2, Desc<5> *X, Desc<5> *W, Desc<5> *Y, Desc<1> *bias) {
  try {
    kiln::cpu::conv("kiln_cpu_conv_bias_f32", flags, groups, {s0, s1, s2, p0, p1, p2, d0, d1, d2}, X, W, Y, bias);
  } catch (const std::exception &e) {
    kiln::cpu::fail(e.what());
  }
}

extern "C" __attribute__((visibility("default"))) void _mlir_ciface_kiln_cpu_conv_bias_add_f32(
    int32_t flags, int64_t groups, int64_t s0, int64_t s1, int64_t s2, int64_t p0, int64_t p1, int64_t p2,
    int64_t d0, int64_t d1, int64_t d2, Desc<5> *X, Desc<5> *W, Desc<5> *Y, Desc<1> *bias, Desc<5> *R) {
  try {
    kiln::cpu::conv("kiln_cpu_conv_bias_add_f32", flags, groups, {s0, s1, s2, p0, p1, p2, d0, d1, d2}, X, W, Y, bias,
                    R);
  } catch (const std::exception &e) {
    kiln::cpu::fail(e.what());
  }
}
