// kiln runtime — kiln_cpu_gemm_f32 and kiln_cpu_gemm_lt_f32: (batched) matrix products of compiled models with oneDNN.
//
// Operands are rank-3 (batch, rows, cols) views with any strides; a
// transposed operand is the same view with its last two strides swapped, so
// nothing is copied. A constant weight (B) is reordered once into oneDNN's
// blocked layout; other operands are read in place where oneDNN has a
// kernel for their strides, else reordered around the call.
#include "Dnnl.h"
#include "Gemm.h"
#include "Gemv.h"
#include "Mkl.h"
#include "Threads.h"

#include "kiln/abi/cpu_calls.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

using kiln::cpu::Desc;

namespace kiln::cpu {
namespace {

/// kiln's own constant-weight product kernel (Gemm.cpp) is an AVX2 design,
/// 8 floats a vector. On a CPU with AVX-512F, oneMKL's 16-wide kernels ran
/// BERT-base's products at twice its rate (docs/performance.md (27)), so
/// there it is used only when KILN_CPU_GEMM=on asks for it.
bool ownGemmPreferred() {
  static const bool preferred = [] {
    const char *env = std::getenv("KILN_CPU_GEMM");
    if (env && (!std::strcmp(env, "on") || !std::strcmp(env, "1"))) return true;
    return !__builtin_cpu_supports("avx512f");
  }();
  return preferred;
}

/// D = op(A) * op(B) (+ D without KILN_CPU_OVERWRITE) (+ bias[n]), ReLU'd with KILN_CPU_RELU.
void gemm(const char *name, bool transA, bool transB, int32_t flags, const Desc<3> *A, const Desc<3> *B,
          const Desc<3> *C, const Desc<1> *bias) {
  const bool overwrite = flags & KILN_CPU_OVERWRITE, relu = flags & KILN_CPU_RELU;
  int64_t batch = C->sizes[0], m = C->sizes[1], n = C->sizes[2];
  int64_t k = transA ? A->sizes[1] : A->sizes[2];
  int64_t am = transA ? A->sizes[2] : A->sizes[1];
  int64_t bk = transB ? B->sizes[2] : B->sizes[1], bn = transB ? B->sizes[1] : B->sizes[2];
  if (A->sizes[0] != batch || B->sizes[0] != batch || am != m || bk != k || bn != n ||
      (bias && bias->sizes[0] != n))
    throw std::runtime_error(std::string(name) + ": operand shapes do not match (" + std::to_string(batch) + "x" +
                             std::to_string(m) + "x" + std::to_string(n) + " result, k " + std::to_string(k) + ")");
  if (batch == 0 || m == 0 || n == 0) return;
  if (k == 0) {  // empty sums: the result is the bias (or zero), plus D unless overwritten
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          float &out = C->data()[b * C->strides[0] + i * C->strides[1] + j * C->strides[2]];
          float v = (overwrite ? 0.0f : out) + (bias ? bias->data()[j * bias->strides[0]] : 0.0f);
          out = relu ? std::max(v, 0.0f) : v;
        }
    return;
  }
  const DnnlApi &d = dnnl();
  if (!d.error.empty()) throw std::runtime_error(d.error);
  enterCall();
  // oneDNN's dims: src (b, m, k), weights (b, k, n), dst (b, m, n); one batch: rank 2.
  auto view = [&](const Desc<3> *v, bool trans, std::vector<int64_t> &dims, std::vector<int64_t> &strides) {
    int64_t r = trans ? 2 : 1, c = trans ? 1 : 2;
    dims = {v->sizes[r], v->sizes[c]};
    strides = {v->strides[r], v->strides[c]};
    if (batch > 1) {
      dims.insert(dims.begin(), batch);
      strides.insert(strides.begin(), v->strides[0]);
    }
  };
  const bool constWeights = flags & KILN_CPU_CONST_WEIGHT;
  // A constant weight shared by every batch, one product per batch: a
  // single row on kiln's own loop (Gemv.h), more rows on kiln's own kernel
  // (Gemm.h), else (A's rows or the result's not unit-stride) oneMKL's
  // packed GEMM where it is installed (Mkl.h).
  if (constWeights && (batch == 1 || B->strides[0] == 0)) {
    const int64_t aRow = transA ? A->strides[2] : A->strides[1], aCol = transA ? A->strides[1] : A->strides[2];
    const int64_t bRow = transB ? B->strides[2] : B->strides[1], bCol = transB ? B->strides[1] : B->strides[2];
    bool done = true;
    for (int64_t b = 0; b < batch && done; ++b) {
      MklProduct p{m, n, k, A->data() + b * A->strides[0], aRow, aCol, B->data(), bRow, bCol,
                   C->data() + b * C->strides[0], C->strides[1], C->strides[2],
                   bias ? bias->data() : nullptr, bias ? bias->strides[0] : 0, overwrite, relu};
      done = constWeightGemv(p, maxThreads()) || (ownGemmPreferred() && constWeightGemm(p, maxThreads())) ||
             mklConstWeightGemm(p, maxThreads());
      if (!done && b > 0) throw std::runtime_error(std::string(name) + ": a later batch was declined");
    }
    if (done) return;
  }
  std::vector<int64_t> ad, as, bd, bs, cd, cs;
  view(A, transA, ad, as);
  view(B, transB, bd, bs);
  view(C, false, cd, cs);
  // oneDNN reads a dense bias: a strided one is copied.
  const float *biasData = bias ? bias->data() : nullptr;
  std::vector<float> denseBias;
  if (bias && bias->strides[0] != 1) {
    for (int64_t j = 0; j < n; ++j) denseBias.push_back(bias->data()[j * bias->strides[0]]);
    biasData = denseBias.data();
  }
  std::vector<int64_t> key{1, flags & (KILN_CPU_OVERWRITE | KILN_CPU_RELU | KILN_CPU_CONST_WEIGHT), bias != nullptr};
  for (const auto *v : {&ad, &as, &bd, &bs, &cd, &cs}) {
    key.push_back(static_cast<int64_t>(v->size()));
    key.insert(key.end(), v->begin(), v->end());
  }
  std::shared_ptr<const Plan> plan = cachedPlan(key, [&] {
    auto p = std::make_unique<Plan>();
    p->userSrc = stridedDesc(ad, as);
    p->userWeights = stridedDesc(bd, bs);
    p->userDst = stridedDesc(cd, cs);
    p->hasBias = bias != nullptr;
    std::vector<int64_t> biasDims(cd.size(), 1), biasStrides(cd.size(), n);
    biasDims.back() = n;
    biasStrides.back() = 1;
    dnnl_memory_desc_t biasMd{};
    if (bias) biasMd = stridedDesc(biasDims, biasStrides);
    dnnl_primitive_attr_t attr = makeAttr(!overwrite, relu ? KILN_CPU_RELU : 0);
    // A constant weight in oneDNN's layout; the rest as given where oneDNN
    // takes their strides, else in its own layouts.
    dnnl_primitive_desc_t pd = nullptr;
    dnnl_status_t s = dnnl_unimplemented;
    for (int attempt = 0; attempt < 3; ++attempt) {
      if (pd) d.primitive_desc_destroy(pd), pd = nullptr;
      bool ownWeights = constWeights || attempt > 0, ownAll = attempt == 2;
      dnnl_memory_desc_t src = ownAll ? anyDesc(ad) : p->userSrc, dst = ownAll ? anyDesc(cd) : p->userDst,
                         wei = ownWeights ? anyDesc(bd) : p->userWeights;
      dnnl_matmul_desc_t md;
      s = d.matmul_desc_init(&md, &src, &wei, bias ? &biasMd : nullptr, &dst);
      if (s == dnnl_success) s = d.primitive_desc_create(&pd, &md, attr, d.engine, nullptr);
      if (s == dnnl_success && (!isReference(pd) || attempt == 2)) break;
    }
    d.primitive_attr_destroy(attr);
    check(s, std::string(name) + ": the matrix product " + std::to_string(m) + "x" + std::to_string(k) + " by " +
                 std::to_string(k) + "x" + std::to_string(n));
    finishPlan(*p, pd);
    return p;
  });
  execute(*plan, A->data(), B->data(), C->data(), biasData, constWeights);
}

} // namespace
} // namespace kiln::cpu

extern "C" __attribute__((visibility("default"))) void _mlir_ciface_kiln_cpu_gemm_f32(
    int32_t transA, int32_t transB, int32_t flags, Desc<3> *A, Desc<3> *B, Desc<3> *C) {
  try {
    kiln::cpu::gemm("kiln_cpu_gemm_f32", transA, transB, flags, A, B, C, nullptr);
  } catch (const std::exception &e) {
    kiln::cpu::fail(e.what());
  }
}

extern "C" __attribute__((visibility("default"))) void _mlir_ciface_kiln_cpu_gemm_lt_f32(
    int32_t transA, int32_t transB, int32_t flags, Desc<3> *A, Desc<3> *B, Desc<3> *D, Desc<1> *bias) {
  try {
    kiln::cpu::gemm("kiln_cpu_gemm_lt_f32", transA, transB, flags, A, B, D, bias);
  } catch (const std::exception &e) {
    kiln::cpu::fail(e.what());
  }
}
