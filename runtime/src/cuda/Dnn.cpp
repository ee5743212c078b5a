// kiln runtime — the GPU convolution entry points of compiled models, over cuDNN 9 loaded at run time.
//
// kiln-gpu-library-calls turns convolutions into calls of
// kiln_gpu_conv_{f32,bf16,f16} (C ABI through MLIR's C interface: rank-5
// (N, C, D, H, W) memref descriptors, 1-d and 2-d convolutions with unit
// leading spatial dims), and their gradients into kiln_gpu_conv_bwd_data_*
// (cudnnConvolutionBackwardData) and kiln_gpu_conv_bwd_filter_*
// (cudnnConvolutionBackwardFilter), which share the descriptors, plans and
// workspace handling below; kiln_gpu_conv_bias_{f32,bf16,f16} also add a
// per-channel bias and apply a ReLU (a batch norm folded into the
// convolution), and kiln_gpu_conv_bias_add_* add a residual first, in one
// cudnnConvolutionBiasActivationForward where cuDNN takes it. Each runs cudnnConvolutionForward on the call's
// stream with an algorithm chosen once per shape, on the first call (never
// while a graph is being captured): for grouped and depthwise convolutions by
// timing cuDNN's algorithms on the call's operands
// (cudnnFindConvolutionForwardAlgorithmEx), for the others by cuDNN's
// heuristics (no kernel is run); KILN_CUDNN_FIND changes which. Descriptors
// and the algorithm are cached per shape; the workspace comes from the
// runtime's allocator in the stream's order (a graph's reserved memory while
// captured).
#include "OpenLibrary.h"
#include "CudnnApi.h"
#include "kiln/abi/gpu_calls.h"
#include "Driver.h"

#include "../gpu/Backend.h"
#include "../gpu/Runtime.h"

#include <algorithm>
#include <array>
#include <initializer_list>
#include <iterator>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <map>
#include <mutex>
#include <stdexcept>
#include <vector>

extern "C" void *mgpuMemAlloc(uint64_t sizeBytes, void *stream, bool isHostShared);
extern "C" void mgpuMemFree(void *ptr, void *stream);

namespace {

using namespace kiln::cuda;
using namespace kiln::cuda::dnn;
using kiln::gpu::LaunchScope;

const Cudnn &cudnn() {
  static Cudnn c;
  static std::once_flag once;
  std::call_once(once, [] {
    std::string tried;
    void *lib = openLibrary("KILN_CUDNN", {"libcudnn.so.9", "/usr/local/cuda/lib64/libcudnn.so.9", "libcudnn.so"}, tried);
    if (!lib) {
      c.error = "this model runs its convolutions with cuDNN, but no cuDNN 9 library loads (tried " + tried +
                "; set KILN_CUDNN to libcudnn.so.9, or compile with --cuda-conv=gemm or --cuda-conv=kernel)";
      return;
    }
#define KILN_CUDNN_SYM(field, symbol)                                                                 \
  if (!(c.field = reinterpret_cast<decltype(c.field)>(::dlsym(lib, symbol)))) {                      \
    c.error = std::string("the cuDNN library lacks ") + symbol + " (kiln needs cuDNN 9)";            \
    return;                                                                                          \
  }
    KILN_CUDNN_SYM(create, "cudnnCreate")
    KILN_CUDNN_SYM(setStream, "cudnnSetStream")
    KILN_CUDNN_SYM(errorString, "cudnnGetErrorString")
    KILN_CUDNN_SYM(version, "cudnnGetVersion")
    KILN_CUDNN_SYM(createTensor, "cudnnCreateTensorDescriptor")
    KILN_CUDNN_SYM(setTensorNd, "cudnnSetTensorNdDescriptor")
    KILN_CUDNN_SYM(createFilter, "cudnnCreateFilterDescriptor")
    KILN_CUDNN_SYM(setFilterNd, "cudnnSetFilterNdDescriptor")
    KILN_CUDNN_SYM(createConv, "cudnnCreateConvolutionDescriptor")
    KILN_CUDNN_SYM(setConvNd, "cudnnSetConvolutionNdDescriptor")
    KILN_CUDNN_SYM(setConvGroups, "cudnnSetConvolutionGroupCount")
    KILN_CUDNN_SYM(setConvMath, "cudnnSetConvolutionMathType")
    KILN_CUDNN_SYM(getFwdAlgo, "cudnnGetConvolutionForwardAlgorithm_v7")
    KILN_CUDNN_SYM(getFwdAlgoMax, "cudnnGetConvolutionForwardAlgorithmMaxCount")
    KILN_CUDNN_SYM(getFwdWorkspace, "cudnnGetConvolutionForwardWorkspaceSize")
    KILN_CUDNN_SYM(forward, "cudnnConvolutionForward")
    KILN_CUDNN_SYM(getBwdDataAlgo, "cudnnGetConvolutionBackwardDataAlgorithm_v7")
    KILN_CUDNN_SYM(getBwdDataAlgoMax, "cudnnGetConvolutionBackwardDataAlgorithmMaxCount")
    KILN_CUDNN_SYM(getBwdDataWorkspace, "cudnnGetConvolutionBackwardDataWorkspaceSize")
    KILN_CUDNN_SYM(backwardData, "cudnnConvolutionBackwardData")
    KILN_CUDNN_SYM(getBwdFilterAlgo, "cudnnGetConvolutionBackwardFilterAlgorithm_v7")
    KILN_CUDNN_SYM(getBwdFilterAlgoMax, "cudnnGetConvolutionBackwardFilterAlgorithmMaxCount")
    KILN_CUDNN_SYM(getBwdFilterWorkspace, "cudnnGetConvolutionBackwardFilterWorkspaceSize")
    KILN_CUDNN_SYM(backwardFilter, "cudnnConvolutionBackwardFilter")
    KILN_CUDNN_SYM(createActivation, "cudnnCreateActivationDescriptor")
    KILN_CUDNN_SYM(setActivation, "cudnnSetActivationDescriptor")
    KILN_CUDNN_SYM(biasActivationForward, "cudnnConvolutionBiasActivationForward")
    KILN_CUDNN_SYM(addTensor, "cudnnAddTensor")
    KILN_CUDNN_SYM(activationForward, "cudnnActivationForward")
#undef KILN_CUDNN_SYM
    c.findFwdAlgoEx =
        reinterpret_cast<decltype(c.findFwdAlgoEx)>(::dlsym(lib, "cudnnFindConvolutionForwardAlgorithmEx"));
    if (size_t v = c.version(); v < 90000 || v >= 100000)
      c.error = "the cuDNN library loaded is version " + std::to_string(v) + "; kiln needs cuDNN 9";
  });
  return c;
}

/// Bits of the convolution entry points' `flags` (kiln/abi/gpu_calls.h).
constexpr int32_t kConvTF32 = KILN_GPU_CONV_TF32, kConvOverwrite = KILN_GPU_CONV_OVERWRITE,
                  kConvReLU = KILN_GPU_CONV_RELU;

/// The largest workspace an algorithm may ask for.
constexpr size_t kMaxWorkspace = size_t(256) << 20;

/// Which convolutions choose their algorithm by timing the candidates
/// (KILN_CUDNN_FIND=none|grouped|all, default grouped): cuDNN's heuristic
/// ranking picks a direct grouped kernel for depthwise convolutions that runs
/// several times slower than the best of its algorithms (docs/cuda.md).
enum class FindPolicy { None, Grouped, All };

FindPolicy findPolicy() {
  static const FindPolicy policy = [] {
    const char *env = std::getenv("KILN_CUDNN_FIND");
    std::string v = env ? env : "";
    return v == "none" || v == "0" ? FindPolicy::None : v == "all" ? FindPolicy::All : FindPolicy::Grouped;
  }();
  return policy;
}

/// A rank-5 memref descriptor (MLIR's C interface) of any element type.
struct Desc5 {
  char *allocated, *aligned;
  int64_t offset, sizes[5], strides[5];
};

/// A rank-1 one (a bias).
struct Desc1 {
  char *allocated, *aligned;
  int64_t offset, sizes[1], strides[1];
};

/// The descriptors and algorithm of one convolution shape (kept for the
/// process's life: models are few, their shapes fewer).
struct Plan {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  int algo = 0;
  size_t workspace = 0;
  // With a bias: its (1, F, 1, ..) descriptor, the activation, and whether
  // cuDNN's fused call takes this convolution (else three calls).
  cudnnTensorDescriptor_t bias = nullptr;
  cudnnActivationDescriptor_t act = nullptr;
  bool fused = false;
};

/// This thread's cuDNN handle (its stream set per call).
struct Handle {
  cudnnHandle_t handle = nullptr;
};

std::string statusText(const Cudnn &c, cudnnStatus_t s) { return c.errorString(s); }

/// Whether `d`'s dims, taken in `order` from outermost to innermost, are
/// packed (unit dims may have any stride).
bool packedIn(const Desc5 *d, std::initializer_list<int> order) {
  int64_t expect = 1;
  for (auto it = std::rbegin(order); it != std::rend(order); ++it) {
    if (d->sizes[*it] != 1 && d->strides[*it] != expect) return false;
    expect *= d->sizes[*it];
  }
  return true;
}

/// Replaces `p`'s algorithm by the fastest that cuDNN measures on this
/// shape (x and w as given; a scratch output and workspace of its own, so
/// nothing of the model's is written), unless `stream` is being captured
/// into a graph, the library lacks the call, or the scratch memory cannot be
/// had: the heuristic choice already in `p` then stays.
void findFastest(const Cudnn &c, cudnnHandle_t handle, Plan &p, int math, void *stream, const void *x,
                 const void *w, const Desc5 *Y, size_t elemBytes) {
  const Driver &d = driver();
  int capturing = 1;
  if (!c.findFwdAlgoEx || !d.cuStreamIsCapturing ||
      d.cuStreamIsCapturing(static_cast<CUstream>(stream), &capturing) || capturing)
    return;
  size_t span = 1;
  for (int i = 0; i < 5; ++i) span += static_cast<size_t>(Y->sizes[i] - 1) * static_cast<size_t>(Y->strides[i]);
  CUdeviceptr y = 0, ws = 0;
  if (d.cuMemAlloc(&y, span * elemBytes)) return;
  size_t wsBytes = kMaxWorkspace;
  if (d.cuMemAlloc(&ws, wsBytes)) ws = 0, wsBytes = 0;
  FwdAlgoPerf perf[16];
  int returned = 0;
  cudnnStatus_t s = c.findFwdAlgoEx(handle, p.x, x, p.w, w, p.conv, p.y, reinterpret_cast<void *>(y), 16,
                                    &returned, perf, reinterpret_cast<void *>(ws), wsBytes);
  d.cuStreamSynchronize(static_cast<CUstream>(stream));
  d.cuMemFree(y);
  if (ws) d.cuMemFree(ws);
  if (s) return;
  // Ranked fastest first; the first that keeps the math type's promise.
  for (int i = 0; i < returned; ++i) {
    const FwdAlgoPerf &a = perf[i];
    if (a.status || a.memory > wsBytes) continue;
    if (math == CUDNN_FMA_MATH && a.mathType != CUDNN_FMA_MATH && a.mathType != CUDNN_DEFAULT_MATH) continue;
    p.algo = a.algo, p.workspace = a.memory;
    if (math != CUDNN_FMA_MATH) c.setConvMath(p.conv, a.mathType);
    return;
  }
}

/// Which of a convolution's three products a call computes.
enum class Dir { Forward, Data, Filter };

/// out = conv(x, w) (or out += with no kConvOverwrite) on the call's stream,
/// or with `dir` Data out = dx, the gradient with respect to x for output
/// gradient Y, and with Filter out = dw, the one with respect to w.
/// x and y are (N, C, D, H, W) with any strides, w (F, C/groups, KD, KH, KW)
/// packed in that order or channels last (F, KD, KH, KW, C/groups); params
/// are stride, padding and dilation per spatial dim.
/// With `B` (forward only): y = act(conv(x, w) + z + bias), act ReLU with
/// kConvReLU or none, z the residual `Z` (of y's shape and strides) or
/// nothing, the bias of the data type, one per output channel; the sum is
/// taken in float32 and rounded once to a 16-bit y.
void conv(const char *name, int dataType, size_t elemBytes, int32_t flags, int64_t groups,
          const std::array<int64_t, 9> &params, Desc5 *X, Desc5 *W, Desc5 *Y, Dir dir = Dir::Forward,
          const Desc1 *B = nullptr, const Desc5 *Z = nullptr) {
  LaunchScope *scope = LaunchScope::current();
  if (!scope || scope->failed()) return;
  if (scope->backend().type() != kiln::DeviceType::CUDA)
    return scope->fail(std::string(name) + " runs on CUDA only, not on " + scope->backend().name());
  try {
    const Cudnn &c = cudnn();
    if (!c.error.empty()) return scope->fail(c.error);
    Desc5 *O = dir == Dir::Forward ? Y : dir == Dir::Data ? X : W;
    for (int64_t s : O->sizes)
      if (s == 0) return;  // an empty output
    bool emptySum = false;  // an operand with no elements: the sums are empty
    for (Desc5 *d : {X, W, Y})
      for (int64_t s : d->sizes) emptySum |= d != O && s == 0;
    if (emptySum) {
      if (!(flags & kConvOverwrite)) return;
      if (O->strides[4] != 1 || O->strides[0] != O->sizes[1] * O->sizes[2] * O->sizes[3] * O->sizes[4])
        return scope->fail(std::string(name) + ": an empty convolution into a non-contiguous output");
      const kiln::gpu::Backend &be = kiln::gpu::cudaBackend();
      void *p = O->aligned + O->offset * elemBytes;
      size_t count = static_cast<size_t>(O->sizes[0] * O->strides[0]);
      kiln::gpu::Result r = elemBytes == 4 ? be.memsetD32(p, 0, count, scope->stream())
                                           : be.memsetD16(p, 0, count, scope->stream());
      if (r) scope->fail(std::string(name) + ": zeroing the output: " + be.errorString(r));
      return;
    }
    // One channel per group (depthwise): both orders are the same bytes, and
    // the filter takes the activations' layout, for which cuDNN has its NHWC
    // depthwise kernels.
    const bool xLast = X->sizes[1] > 1 && X->strides[1] == 1;
    const bool filterLast =
        !packedIn(W, {0, 1, 2, 3, 4}) || (W->sizes[1] == 1 && xLast && packedIn(W, {0, 2, 3, 4, 1}));
    if (filterLast && !packedIn(W, {0, 2, 3, 4, 1}))
      return scope->fail(std::string(name) + ": the filter is neither packed channels-first nor channels-last");
    // A 2-d (or 1-d) convolution is given with a unit depth: cuDNN runs it as
    // 4-d tensors, whose kernels are faster than the 5-d ones.
    bool flat = X->sizes[2] == 1 && W->sizes[2] == 1 && Y->sizes[2] == 1 && params[3] == 0;
    int first = flat ? 3 : 2, nb = 5 - (first - 2);
    const bool tf32 = flags & kConvTF32;
    int math = dataType != CUDNN_DATA_FLOAT ? CUDNN_TENSOR_OP_MATH : tf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH;
    auto fits = [](int64_t v) { return v >= 0 && v <= INT32_MAX; };
    if (B && (dir != Dir::Forward || B->sizes[0] != Y->sizes[1] || (B->sizes[0] > 1 && B->strides[0] != 1) ||
              !(flags & kConvOverwrite)))
      return scope->fail(std::string(name) + ": the bias has " + std::to_string(B->sizes[0]) + " elements (stride " +
                         std::to_string(B->strides[0]) + ") for " + std::to_string(Y->sizes[1]) +
                         " output channels, or the call accumulates");
    if (Z && (!B || !std::equal(Z->sizes, Z->sizes + 5, Y->sizes) || !std::equal(Z->strides, Z->strides + 5, Y->strides)))
      return scope->fail(std::string(name) + ": the residual's sizes or strides are not the output's");
    const bool relu = B && (flags & kConvReLU);
    std::vector<int64_t> key{static_cast<int64_t>(dir), dataType, math, nb, groups, filterLast,
                             B ? 1 + relu + 2 * (Z != nullptr) : 0};
    for (Desc5 *d : {X, W, Y})
      for (int i = 0; i < 5; ++i) {
        if (!fits(d->sizes[i]) || !fits(d->strides[i]))
          return scope->fail(std::string(name) + ": a size or stride exceeds cuDNN's 32-bit range");
        key.push_back(d->sizes[i]);
        if (d != W) key.push_back(d->strides[i]);
      }
    key.insert(key.end(), params.begin(), params.end());

    static std::mutex mu;
    static std::map<std::vector<int64_t>, Plan> plans;
    thread_local Handle h;
    std::lock_guard<std::mutex> lock(mu);
    auto check = [&](cudnnStatus_t s, const char *what) {
      if (s) throw std::runtime_error(std::string(name) + ": " + what + ": " + statusText(c, s));
    };
    if (!h.handle) {
      driver();  // the primary context current on this thread, for cuDNN too
      cudnnHandle_t handle = nullptr;
      check(c.create(&handle), "cudnnCreate");
      h.handle = handle;
    }
    check(c.setStream(h.handle, static_cast<CUstream>(scope->stream())), "cudnnSetStream");
    auto it = plans.find(key);
    if (it == plans.end()) {
      Plan p;
      int xd[5], xs[5], wd[5], yd[5], ys[5], pad[3], stride[3], dil[3];
      for (int i = 0, j = 0; i < 5; ++i) {
        if (i == 2 && flat) continue;
        xd[j] = X->sizes[i], xs[j] = X->strides[i], wd[j] = W->sizes[i], yd[j] = Y->sizes[i], ys[j] = Y->strides[i];
        ++j;
      }
      for (int i = first - 2, j = 0; i < 3; ++i, ++j)
        stride[j] = static_cast<int>(params[i]), pad[j] = static_cast<int>(params[3 + i]),
        dil[j] = static_cast<int>(params[6 + i]);
      check(c.createTensor(&p.x), "cudnnCreateTensorDescriptor");
      check(c.setTensorNd(p.x, dataType, nb, xd, xs), "the input's descriptor");
      check(c.createTensor(&p.y), "cudnnCreateTensorDescriptor");
      check(c.setTensorNd(p.y, dataType, nb, yd, ys), "the output's descriptor");
      check(c.createFilter(&p.w), "cudnnCreateFilterDescriptor");
      check(c.setFilterNd(p.w, dataType, filterLast ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, nb, wd),
            "the filter's descriptor");
      check(c.createConv(&p.conv), "cudnnCreateConvolutionDescriptor");
      check(c.setConvNd(p.conv, nb - 2, pad, stride, dil, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
            "the convolution's descriptor");
      check(c.setConvGroups(p.conv, static_cast<int>(groups)), "cudnnSetConvolutionGroupCount");
      check(c.setConvMath(p.conv, math), "cudnnSetConvolutionMathType");
      int count = 0;
      check(dir == Dir::Forward ? c.getFwdAlgoMax(h.handle, &count)
            : dir == Dir::Data  ? c.getBwdDataAlgoMax(h.handle, &count)
                                : c.getBwdFilterAlgoMax(h.handle, &count),
            "the number of cuDNN's algorithms");
      std::vector<FwdAlgoPerf> perf(std::max(count, 1));
      int returned = 0, asked = static_cast<int>(perf.size());
      check(dir == Dir::Forward ? c.getFwdAlgo(h.handle, p.x, p.w, p.conv, p.y, asked, &returned, perf.data())
            : dir == Dir::Data  ? c.getBwdDataAlgo(h.handle, p.w, p.y, p.conv, p.x, asked, &returned, perf.data())
                                : c.getBwdFilterAlgo(h.handle, p.x, p.y, p.conv, p.w, asked, &returned, perf.data()),
            "cuDNN's algorithm heuristics");
      // The heuristics' best algorithm that works with this math type and a
      // workspace of at most kMaxWorkspace.
      bool found = false;
      for (int i = 0; i < returned && !found; ++i) {
        const FwdAlgoPerf &a = perf[i];
        if (a.status || a.memory > kMaxWorkspace) continue;
        if (math == CUDNN_FMA_MATH && a.mathType != CUDNN_FMA_MATH && a.mathType != CUDNN_DEFAULT_MATH) continue;
        size_t bytes = 0;
        cudnnStatus_t ws = dir == Dir::Forward ? c.getFwdWorkspace(h.handle, p.x, p.w, p.conv, p.y, a.algo, &bytes)
                           : dir == Dir::Data  ? c.getBwdDataWorkspace(h.handle, p.w, p.y, p.conv, p.x, a.algo, &bytes)
                                               : c.getBwdFilterWorkspace(h.handle, p.x, p.y, p.conv, p.w, a.algo, &bytes);
        if (ws || bytes > kMaxWorkspace) continue;
        p.algo = a.algo, p.workspace = bytes, found = true;
        if (math != CUDNN_FMA_MATH) check(c.setConvMath(p.conv, a.mathType), "cudnnSetConvolutionMathType");
      }
      // None of the heuristics' picks: any algorithm whose workspace cuDNN
      // can size for these descriptors (an unsupported one is refused).
      for (int algo = 0; algo < count && !found; ++algo) {
        size_t bytes = 0;
        cudnnStatus_t ws = dir == Dir::Forward ? c.getFwdWorkspace(h.handle, p.x, p.w, p.conv, p.y, algo, &bytes)
                           : dir == Dir::Data  ? c.getBwdDataWorkspace(h.handle, p.w, p.y, p.conv, p.x, algo, &bytes)
                                               : c.getBwdFilterWorkspace(h.handle, p.x, p.y, p.conv, p.w, algo, &bytes);
        if (!ws && bytes <= kMaxWorkspace) p.algo = algo, p.workspace = bytes, found = true;
      }
      if (!found) {
        std::string tried;
        for (int i = 0; i < returned; ++i)
          tried += (i ? ", " : "") + std::to_string(perf[i].algo) + ": status " + std::to_string(perf[i].status) +
                   ", math " + std::to_string(perf[i].mathType) + ", " + std::to_string(perf[i].memory) + " bytes";
        auto dims = [](const Desc5 *d) {
          std::string t;
          for (int i = 0; i < 5; ++i)
            t += (i ? "x" : "") + std::to_string(d->sizes[i]) + "/" + std::to_string(d->strides[i]);
          return t;
        };
        return scope->fail(std::string(name) + ": cuDNN has no algorithm for this convolution (" +
                           std::to_string(nb - 2) + "-d, " + std::to_string(groups) + " groups, x " + dims(X) +
                           ", w " + dims(W) + (filterLast ? " NHWC" : " NCHW") + ", y " + dims(Y) +
                           "; heuristics: " + tried + ")");
      }
      FindPolicy policy = findPolicy();
      if (dir == Dir::Forward && (policy == FindPolicy::All || (policy == FindPolicy::Grouped && groups > 1)))
        findFastest(c, h.handle, p, math, scope->stream(), X->aligned + X->offset * elemBytes,
                    W->aligned + W->offset * elemBytes, Y, elemBytes);
      if (B) {
        int bd[5] = {1, 1, 1, 1, 1}, bs[5] = {1, 1, 1, 1, 1};
        bd[1] = static_cast<int>(B->sizes[0]), bs[0] = bd[1];
        check(c.createTensor(&p.bias), "cudnnCreateTensorDescriptor");
        check(c.setTensorNd(p.bias, dataType, nb, bd, bs), "the bias's descriptor");
        check(c.createActivation(&p.act), "cudnnCreateActivationDescriptor");
        check(c.setActivation(p.act, relu ? CUDNN_ACTIVATION_RELU : CUDNN_ACTIVATION_IDENTITY, CUDNN_PROPAGATE_NAN,
                              0.0),
              "the activation's descriptor");
        // cuDNN fuses an identity activation with one algorithm only.
        p.fused = relu || p.algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
        if (std::getenv("KILN_CUDNN_VERBOSE"))
          std::fprintf(stderr, "kiln: %s plan: algo %d, %s\n", name, p.algo, p.fused ? "fused call" : "three calls");
      }
      it = plans.emplace(std::move(key), p).first;
    }
    Plan &p = it->second;
    void *ws = p.workspace ? mgpuMemAlloc(p.workspace, scope->stream(), false) : nullptr;
    if (p.workspace && (!ws || scope->failed())) return;
    const float one = 1.0f, zero = 0.0f, beta = flags & kConvOverwrite ? 0.0f : 1.0f;
    void *x = X->aligned + X->offset * elemBytes, *w = W->aligned + W->offset * elemBytes,
         *y = Y->aligned + Y->offset * elemBytes;
    cudnnStatus_t s = 0;
    if (B) {
      // y = act(conv(x, w) + z + bias) (without a residual: 0 * z, z being
      // y); where cuDNN refuses the fused call (it says so before it runs
      // anything), the product, the residual and bias added and the ReLU as
      // separate calls, from then on.
      const void *bias = B->aligned + B->offset * elemBytes;
      const void *z = Z ? static_cast<const void *>(Z->aligned + Z->offset * elemBytes) : y;
      if (p.fused) {
        s = c.biasActivationForward(h.handle, &one, p.x, x, p.w, w, p.conv, p.algo, ws, p.workspace,
                                    Z ? &one : &zero, p.y, z, p.bias, bias, p.act, p.y, y);
        if (s) {
          p.fused = false;
          if (std::getenv("KILN_CUDNN_VERBOSE"))
            std::fprintf(stderr, "kiln: %s: cuDNN refused the fused call (%s): three calls\n", name,
                         statusText(c, s).c_str());
        }
      }
      if (!p.fused) {
        s = c.forward(h.handle, &one, p.x, x, p.w, w, p.conv, p.algo, ws, p.workspace, &zero, p.y, y);
        if (!s && Z) s = c.addTensor(h.handle, &one, p.y, z, &one, p.y, y);
        if (!s) s = c.addTensor(h.handle, &one, p.bias, bias, &one, p.y, y);
        if (!s && relu) s = c.activationForward(h.handle, p.act, &one, p.y, y, &zero, p.y, y);
      }
    } else {
      s =
        dir == Dir::Forward ? c.forward(h.handle, &one, p.x, x, p.w, w, p.conv, p.algo, ws, p.workspace, &beta, p.y, y)
        : dir == Dir::Data  ? c.backwardData(h.handle, &one, p.w, w, p.y, y, p.conv, p.algo, ws, p.workspace, &beta,
                                             p.x, x)
                            : c.backwardFilter(h.handle, &one, p.x, x, p.y, y, p.conv, p.algo, ws, p.workspace,
                                               &beta, p.w, w);
    }
    if (ws) mgpuMemFree(ws, scope->stream());
    if (s)
      scope->fail(std::string("cuDNN convolution ") + name + " (input " + std::to_string(X->sizes[0]) + "x" +
                  std::to_string(X->sizes[1]) + "x" + std::to_string(X->sizes[2]) + "x" +
                  std::to_string(X->sizes[3]) + "x" + std::to_string(X->sizes[4]) + ", " +
                  std::to_string(Y->sizes[1]) + " filters, " + std::to_string(groups) + " groups) failed: " +
                  statusText(c, s));
  } catch (const std::exception &e) {
    scope->fail(e.what());
  }
}

} // namespace

#define KILN_GPU_CONV(suffix, dataType, bytes)                                                          \
  extern "C" __attribute__((visibility("default"))) void _mlir_ciface_kiln_gpu_conv_##suffix(            \
      int32_t flags, int64_t groups, int64_t s0, int64_t s1, int64_t s2, int64_t p0, int64_t p1,          \
      int64_t p2, int64_t d0, int64_t d1, int64_t d2, Desc5 *X, Desc5 *W, Desc5 *Y) {                      \
    conv("kiln_gpu_conv_" #suffix, dataType, bytes, flags, groups, {s0, s1, s2, p0, p1, p2, d0, d1, d2}, X, \
         W, Y);                                                                                            \
  }
KILN_GPU_CONV(f32, CUDNN_DATA_FLOAT, 4)
KILN_GPU_CONV(bf16, CUDNN_DATA_BFLOAT16, 2)
KILN_GPU_CONV(f16, CUDNN_DATA_HALF, 2)
#undef KILN_GPU_CONV

// The convolution with its bias (and a residual z) and ReLU in one cuDNN
// call: conv_bias_<type>(..., x, w, y, bias), conv_bias_add_<type>(..., x, w,
// y, bias, z).
#define KILN_GPU_CONV_BIAS(suffix, dataType, bytes)                                                                  \
  extern "C" __attribute__((visibility("default"))) void _mlir_ciface_kiln_gpu_conv_bias_##suffix(                   \
      int32_t flags, int64_t groups, int64_t s0, int64_t s1, int64_t s2, int64_t p0, int64_t p1, int64_t p2,         \
      int64_t d0, int64_t d1, int64_t d2, Desc5 *X, Desc5 *W, Desc5 *Y, Desc1 *B) {                                  \
    conv("kiln_gpu_conv_bias_" #suffix, dataType, bytes, flags, groups, {s0, s1, s2, p0, p1, p2, d0, d1, d2}, X, W,  \
         Y, Dir::Forward, B);                                                                                        \
  }                                                                                                                  \
  extern "C" __attribute__((visibility("default"))) void _mlir_ciface_kiln_gpu_conv_bias_add_##suffix(               \
      int32_t flags, int64_t groups, int64_t s0, int64_t s1, int64_t s2, int64_t p0, int64_t p1, int64_t p2,         \
      int64_t d0, int64_t d1, int64_t d2, Desc5 *X, Desc5 *W, Desc5 *Y, Desc1 *B, Desc5 *Z) {                        \
    conv("kiln_gpu_conv_bias_add_" #suffix, dataType, bytes, flags, groups, {s0, s1, s2, p0, p1, p2, d0, d1, d2}, X, \
         W, Y, Dir::Forward, B, Z);                                                                                  \
  }
KILN_GPU_CONV_BIAS(f32, CUDNN_DATA_FLOAT, 4)
KILN_GPU_CONV_BIAS(bf16, CUDNN_DATA_BFLOAT16, 2)
KILN_GPU_CONV_BIAS(f16, CUDNN_DATA_HALF, 2)
#undef KILN_GPU_CONV_BIAS

// The gradients: bwd_data(dy, w, dx), bwd_filter(x, dy, dw).
#define KILN_GPU_CONV_BWD(suffix, dataType, bytes)                                                                   \
  extern "C" __attribute__((visibility("default"))) void _mlir_ciface_kiln_gpu_conv_bwd_data_##suffix(               \
      int32_t flags, int64_t groups, int64_t s0, int64_t s1, int64_t s2, int64_t p0, int64_t p1, int64_t p2,         \
      int64_t d0, int64_t d1, int64_t d2, Desc5 *DY, Desc5 *W, Desc5 *DX) {                                          \
    conv("kiln_gpu_conv_bwd_data_" #suffix, dataType, bytes, flags, groups, {s0, s1, s2, p0, p1, p2, d0, d1, d2}, DX, \
         W, DY, Dir::Data);                                                                                          \
  }                                                                                                                  \
  extern "C" __attribute__((visibility("default"))) void _mlir_ciface_kiln_gpu_conv_bwd_filter_##suffix(             \
      int32_t flags, int64_t groups, int64_t s0, int64_t s1, int64_t s2, int64_t p0, int64_t p1, int64_t p2,         \
      int64_t d0, int64_t d1, int64_t d2, Desc5 *X, Desc5 *DY, Desc5 *DW) {                                          \
    conv("kiln_gpu_conv_bwd_filter_" #suffix, dataType, bytes, flags, groups, {s0, s1, s2, p0, p1, p2, d0, d1, d2},  \
         X, DW, DY, Dir::Filter);                                                                                    \
  }
KILN_GPU_CONV_BWD(f32, CUDNN_DATA_FLOAT, 4)
KILN_GPU_CONV_BWD(bf16, CUDNN_DATA_BFLOAT16, 2)
KILN_GPU_CONV_BWD(f16, CUDNN_DATA_HALF, 2)
#undef KILN_GPU_CONV_BWD
