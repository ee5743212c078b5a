// kiln runtime — oneMKL loaded at first use, its packed float32 GEMM for products with a constant weight.
//
// A linear layer's weight is the same buffer on every run: oneMKL packs it
// once (cblas_sgemm_pack) into the panels its micro-kernel reads, and each
// call multiplies the activations by the packed copy
// (cblas_sgemm_compute). On the 2-core AVX-512 build machine, one thread,
// 128-row products of BERT's shapes ran at 127-144 GFLOP/s this way
// against about 100 with oneDNN 2.6's matmul on its own blocked weights
// (docs/Rationale/cpu-library-calls.md). oneMKL is optional: the runtime
// never links it, and without it (or with KILN_MKL=off) these products stay
// with oneDNN. Its threads are the calling thread's OpenMP team (oneMKL's
// GNU threading layer, the libgomp that oneDNN and kiln's loops run on), so
// a model call still uses one set of threads.
#include "Mkl.h"
#include "OpenMPTeam.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace kiln::cpu {
namespace {

// CBLAS's enumerators (mkl_cblas.h) and oneMKL's GNU threading layer
// (mkl_service.h).
constexpr int kRowMajor = 101, kNoTrans = 111, kTrans = 112, kPacked = 151, kBMatrix = 162;
constexpr int kThreadingGnu = 3;

struct MklApi {
  bool ok = false;
  int (*setThreadingLayer)(int) = nullptr;
  int (*setNumThreadsLocal)(int) = nullptr;
  size_t (*packGetSize)(int, int, int, int) = nullptr;
  void (*pack)(int, int, int, int, int, int, float, const float *, int, float *) = nullptr;
  void (*compute)(int, int, int, int, int, int, const float *, int, const float *, int, float, float *, int) = nullptr;
};

const MklApi &mkl() {
  static MklApi api;
  static std::once_flag once;
  std::call_once(once, [] {
    // KILN_MKL: the library to load, or "off"; else its usual names, then
    // the copy found when kiln was built.
    const char *env = std::getenv("KILN_MKL");
    if (env && (!std::strcmp(env, "off") || !std::strcmp(env, "0"))) return;
    std::vector<const char *> names;
    if (env && *env)
      names.push_back(env);
    else {
      names = {"libmkl_rt.so.3", "libmkl_rt.so.2", "libmkl_rt.so"};
#ifdef KILN_DEFAULT_MKL
      names.push_back(KILN_DEFAULT_MKL);
#endif
    }
    void *lib = nullptr;
    for (const char *name : names)
      if ((lib = ::dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
    if (!lib) return;
    MklApi &a = api;
    a.setThreadingLayer = reinterpret_cast<int (*)(int)>(::dlsym(lib, "MKL_Set_Threading_Layer"));
    a.setNumThreadsLocal = reinterpret_cast<int (*)(int)>(::dlsym(lib, "MKL_Set_Num_Threads_Local"));
    a.packGetSize = reinterpret_cast<decltype(a.packGetSize)>(::dlsym(lib, "cblas_sgemm_pack_get_size"));
    a.pack = reinterpret_cast<decltype(a.pack)>(::dlsym(lib, "cblas_sgemm_pack"));
    a.compute = reinterpret_cast<decltype(a.compute)>(::dlsym(lib, "cblas_sgemm_compute"));
    if (!a.setThreadingLayer || !a.setNumThreadsLocal || !a.packGetSize || !a.pack || !a.compute) return;
    // Before any other oneMKL call: its threads are libgomp's, the OpenMP
    // runtime oneDNN already loaded (one team per model call).
    if (a.setThreadingLayer(kThreadingGnu) != kThreadingGnu) return;
    a.ok = true;
  });
  return api;
}

/// A packed weight: 64-byte aligned, freed with the last call using it.
struct Packed {
  float *data = nullptr;
  ~Packed() { std::free(data); }
};

/// A weight packed as column panels, one per thread of a call: panel i
/// holds columns [cols[i], cols[i + 1]).
struct PackedPanels {
  std::vector<int64_t> cols;
  std::vector<Packed> panels;
};

/// Packed weights per (buffer, m, n, k, row stride, column stride, panels).
using PackKey = std::tuple<const float *, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t>;
std::mutex gPackedMutex;
std::map<PackKey, std::shared_ptr<PackedPanels>> gPacked;

/// The CBLAS layout of a rows x cols matrix with the given element strides
/// (row-major, transposed or not): false when neither dim is unit-stride.
bool blasLayout(int64_t rows, int64_t cols, int64_t rowStride, int64_t colStride, int &trans, int &ld) {
  if (cols == 1) colStride = 1;
  if (rows == 1) rowStride = cols;
  const int64_t limit = int64_t(1) << 31;
  if (colStride == 1 && rowStride >= std::max<int64_t>(cols, 1) && rowStride < limit) {
    trans = kNoTrans, ld = static_cast<int>(rowStride);
    return true;
  }
  if (rowStride == 1 && colStride >= std::max<int64_t>(rows, 1) && colStride < limit) {
    trans = kTrans, ld = static_cast<int>(colStride);
    return true;
  }
  return false;
}

/// How many column panels a product runs as: one per thread where each
/// panel keeps at least 64 columns and the product is large enough to
/// share. A call then runs one single-threaded GEMM per panel, each thread
/// streaming only its panel of the weight: on the 2-core Zen 3 build
/// machine that ran BERT's and ViT's 128- and 197-row products 1.68-2.06x
/// faster on two threads than on one, where oneMKL's own two threads
/// managed 1.39-1.73x (docs/Rationale/cpu-library-calls.md).
int64_t panelsFor(const MklProduct &p, int threads) {
  constexpr int64_t kMinPanelCols = 64, kMinWork = int64_t(1) << 21;  // multiply-adds
  if (threads < 2 || p.m * p.n * p.k < kMinWork) return 1;
  return std::max<int64_t>(1, std::min<int64_t>(threads, p.n / kMinPanelCols));
}

/// Adds the bias and applies the ReLU to columns [c0, c1) of D.
void epilogue(const MklProduct &p, const float *bias, int64_t c0, int64_t c1) {
  for (int64_t i = 0; i < p.m; ++i) {
    float *row = p.d + i * p.dRow;  // dCol is 1 (blasLayout)
    if (bias)
      for (int64_t j = c0; j < c1; ++j) row[j] += bias[j];
    if (p.relu)
      for (int64_t j = c0; j < c1; ++j) row[j] = row[j] < 0.0f ? 0.0f : row[j];
  }
}

} // namespace

bool mklConstWeightGemm(const MklProduct &p, int threads) {
  const int64_t limit = int64_t(1) << 31;
  if (p.m >= limit || p.n >= limit || p.k >= limit) return false;
  int transA, lda, transB, ldb, transD, ldd;
  if (!blasLayout(p.m, p.k, p.aRow, p.aCol, transA, lda) || !blasLayout(p.k, p.n, p.bRow, p.bCol, transB, ldb) ||
      !blasLayout(p.m, p.n, p.dRow, p.dCol, transD, ldd) || transD != kNoTrans)
    return false;
  const MklApi &api = mkl();
  if (!api.ok) return false;
  const int m = static_cast<int>(p.m), k = static_cast<int>(p.k);
  const int64_t panels = panelsFor(p, threads);
  const int64_t bColStride = p.n == 1 ? 1 : p.bCol;
  std::shared_ptr<PackedPanels> packed;
  {
    PackKey key{p.b, p.m, p.n, p.k, p.bRow, p.bCol, panels};
    std::lock_guard<std::mutex> lock(gPackedMutex);
    std::shared_ptr<PackedPanels> &slot = gPacked[key];
    if (!slot) {
      auto made = std::make_shared<PackedPanels>();
      // Panel boundaries on multiples of 16 columns (whole vectors).
      for (int64_t i = 0; i <= panels; ++i)
        made->cols.push_back(i == panels ? p.n : (p.n * i / panels) / 16 * 16);
      made->panels.resize(size_t(panels));
      api.setNumThreadsLocal(threads);
      for (int64_t i = 0; i < panels; ++i) {
        const int n = static_cast<int>(made->cols[i + 1] - made->cols[i]);
        size_t bytes = api.packGetSize(kBMatrix, m, n, k);
        float *data = static_cast<float *>(std::aligned_alloc(64, (bytes + 63) / 64 * 64));
        if (!data) {
          gPacked.erase(key);
          throw std::runtime_error("out of memory for a packed " + std::to_string(k) + "x" + std::to_string(n) +
                                   " weight (" + std::to_string(bytes) + " bytes)");
        }
        made->panels[size_t(i)].data = data;
        api.pack(kRowMajor, kBMatrix, transB, m, n, k, 1.0f, p.b + made->cols[i] * bColStride, ldb, data);
      }
      slot = std::move(made);
    }
    packed = slot;
  }
  // A dense bias is read as a row (the loop vectorises), else gathered once.
  std::vector<float> gathered;
  const float *bias = p.bias;
  if (bias && p.biasStride != 1) {
    gathered.resize(size_t(p.n));
    for (int64_t j = 0; j < p.n; ++j) gathered[size_t(j)] = bias[j * p.biasStride];
    bias = gathered.data();
  }
  auto panel = [&](int64_t i) {
    const int64_t c0 = packed->cols[i], c1 = packed->cols[i + 1];
    api.compute(kRowMajor, transA, kPacked, m, static_cast<int>(c1 - c0), k, p.a, lda, packed->panels[size_t(i)].data,
                ldb, p.overwrite ? 0.0f : 1.0f, p.d + c0, ldd);
    if (bias || p.relu) epilogue(p, bias, c0, c1);
  };
  // One panel per thread of the calling thread's OpenMP team, each GEMM on
  // one thread; else (one panel, or no team) oneMKL's own threads.
  bool split = panels > 1 && openmpParallelFor(threads, panels, panels, [&](int64_t lo, int64_t hi) {
    api.setNumThreadsLocal(1);
    for (int64_t i = lo; i < hi; ++i) panel(i);
  });
  if (!split) {
    api.setNumThreadsLocal(threads);
    for (int64_t i = 0; i < panels; ++i) panel(i);
  }
  return true;
}

void forgetMklWeights() {
  std::lock_guard<std::mutex> lock(gPackedMutex);
  gPacked.clear();
}

} // namespace kiln::cpu
