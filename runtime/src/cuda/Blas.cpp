// kiln runtime — the GPU GEMM entry points of compiled models, over cuBLAS and cuBLASLt loaded at run time.
//
// kiln-gpu-library-calls turns large matmuls and convolutions into calls of
// kiln_gpu_gemm_{f32,bf16,f16,bf16_f32,f16_f32} (C ABI through MLIR's C interface: rank-3
// memref descriptors), and those with a fused bias (and ReLU) epilogue into
// kiln_gpu_gemm_lt_<same suffixes> (cuBLASLt, with the bias as a rank-1 descriptor). They run in the order of the call's stream (the
// LaunchScope's), accumulating in float32 (float32 operands: no TF32, as
// PyTorch's default for matmuls), with a workspace set up front so the call
// can be captured in a CUDA graph.
#include "OpenLibrary.h"
#include "Driver.h"
#include "kiln/abi/gpu_calls.h"

#include "../gpu/Backend.h"
#include "../gpu/Runtime.h"
#include "kiln/error.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <dlfcn.h>
#include <mutex>

namespace {

using namespace kiln::cuda;
using kiln::gpu::LaunchScope;

using cublasHandle_t = struct cublasContext *;
using cublasStatus_t = int;
constexpr int CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_DEFAULT_MATH = 0;
// cudaDataType, cublasComputeType_t and cublasGemmAlgo_t values of cuBLAS's ABI.
constexpr int CUDA_R_32F = 0, CUDA_R_16F = 2, CUDA_R_16BF = 14, CUBLAS_COMPUTE_32F = 68,
              CUBLAS_COMPUTE_32F_FAST_TF32 = 77, CUBLAS_GEMM_DEFAULT = -1;

struct Cublas {
  cublasStatus_t (*create)(cublasHandle_t *);
  cublasStatus_t (*destroy)(cublasHandle_t);
  cublasStatus_t (*setStream)(cublasHandle_t, CUstream);
  cublasStatus_t (*setWorkspace)(cublasHandle_t, void *, size_t);
  cublasStatus_t (*setMathMode)(cublasHandle_t, int);
  const char *(*statusString)(cublasStatus_t);
  cublasStatus_t (*sgemmStridedBatched)(cublasHandle_t, int, int, int64_t, int64_t, int64_t, const float *,
                                        const float *, int64_t, long long, const float *, int64_t, long long,
                                        const float *, float *, int64_t, long long, int64_t);
  cublasStatus_t (*gemmStridedBatchedEx)(cublasHandle_t, int, int, int64_t, int64_t, int64_t, const void *,
                                         const void *, int, int64_t, long long, const void *, int, int64_t,
                                         long long, const void *, void *, int, int64_t, long long, int64_t, int,
                                         int);
  std::string error;  ///< why cuBLAS cannot be used
};

const Cublas &cublas() {
  static Cublas c;
  static std::once_flag once;
  std::call_once(once, [] {
    std::string tried;
    void *lib = openLibrary("KILN_CUBLAS", {"libcublas.so.13", "libcublas.so.12", "/usr/local/cuda/lib64/libcublas.so.13",
                                      "/usr/local/cuda/lib64/libcublas.so.12", "libcublas.so"}, tried);
    if (!lib) {
      c.error = "this model runs its large matmuls with cuBLAS, but no cuBLAS library loads (tried " + tried +
                "; set KILN_CUBLAS, or compile with --cuda-gemm=kernel)";
      return;
    }
#define KILN_CUBLAS_SYM(field, symbol)                                                                \
  if (!(c.field = reinterpret_cast<decltype(c.field)>(::dlsym(lib, symbol)))) {                      \
    c.error = std::string("the cuBLAS library lacks ") + symbol;                                     \
    return;                                                                                          \
  }
    KILN_CUBLAS_SYM(create, "cublasCreate_v2")
    KILN_CUBLAS_SYM(destroy, "cublasDestroy_v2")
    KILN_CUBLAS_SYM(setStream, "cublasSetStream_v2")
    KILN_CUBLAS_SYM(setWorkspace, "cublasSetWorkspace_v2")
    KILN_CUBLAS_SYM(setMathMode, "cublasSetMathMode")
    KILN_CUBLAS_SYM(statusString, "cublasGetStatusString")
    KILN_CUBLAS_SYM(sgemmStridedBatched, "cublasSgemmStridedBatched_64")
    KILN_CUBLAS_SYM(gemmStridedBatchedEx, "cublasGemmStridedBatchedEx_64")
#undef KILN_CUBLAS_SYM
  });
  return c;
}

/// This thread's handle and its workspace (kept for the thread's life).
struct Handle {
  cublasHandle_t handle = nullptr;
  std::shared_ptr<kiln::Storage> workspace;
  ~Handle() {
    if (handle) cublas().destroy(handle);
  }
};

constexpr size_t kWorkspaceBytes = 32u << 20;

/// Bits of the GEMM entry points' `flags` (kiln/abi/gpu_calls.h).
constexpr int32_t kGemmTF32 = KILN_GPU_GEMM_TF32, kGemmOverwrite = KILN_GPU_GEMM_OVERWRITE;

/// A rank-3 memref descriptor (MLIR's C interface) of any element type.
struct Desc3 {
  char *allocated, *aligned;
  int64_t offset, sizes[3], strides[3];
};

/// C[b] += op(A[b]) op(B[b]) (row-major; an operand of batch size 1 is
/// shared by every batch) on the call's stream, accumulating in float32.
/// `dataType` is the cudaDataType of A and B, `cType` C's (the same, or
/// float32 for 16-bit operands); float32 runs cublasSgemm, or multiplies in
/// TF32 with kGemmTF32 (PyTorch's allow_tf32 policies).
/// With kGemmOverwrite, C = op(A) op(B): C's old contents are not read.
void gemm(const char *name, int dataType, size_t elemBytes, int cType, size_t cBytes, int32_t transA, int32_t transB,
          int32_t flags, Desc3 *A, Desc3 *B, Desc3 *C) {
  LaunchScope *scope = LaunchScope::current();
  if (!scope || scope->failed()) return;
  if (scope->backend().type() != kiln::DeviceType::CUDA)
    return scope->fail(std::string(name) + " runs on CUDA only, not on " + scope->backend().name());
  try {
    const Cublas &c = cublas();
    if (!c.error.empty()) return scope->fail(c.error);
    thread_local Handle h;
    if (!h.handle) {
      driver();  // the primary context current on this thread, for cuBLAS too
      cublasHandle_t handle = nullptr;
      if (cublasStatus_t s = c.create(&handle)) return scope->fail(std::string("cublasCreate: ") + c.statusString(s));
      h.handle = handle;
      h.workspace = kiln::gpu::allocateStorage(kiln::gpu::cudaBackend(), kWorkspaceBytes, scope->stream());
      c.setWorkspace(h.handle, h.workspace->data(), kWorkspaceBytes);
      c.setMathMode(h.handle, CUBLAS_DEFAULT_MATH);
    }
    int64_t M = C->sizes[1], N = C->sizes[2], K = transA ? A->sizes[1] : A->sizes[2], batch = C->sizes[0];
    if (M == 0 || N == 0 || batch == 0) return;
    if (A->strides[2] != 1 || B->strides[2] != 1 || C->strides[2] != 1)
      return scope->fail(std::string(name) + ": an operand's rows are not contiguous");
    const bool overwrite = flags & kGemmOverwrite;
    if (K == 0) {  // C = 0 (overwrite) or unchanged
      if (!overwrite) return;
      if (C->strides[1] != N || C->strides[0] != M * N)
        return scope->fail(std::string(name) + ": an empty product into a non-contiguous output");
      const kiln::gpu::Backend &be = kiln::gpu::cudaBackend();
      void *p = C->aligned + C->offset * cBytes;
      size_t count = static_cast<size_t>(batch * M * N);
      kiln::gpu::Result r = cBytes == 4 ? be.memsetD32(p, 0, count, scope->stream())
                                           : be.memsetD16(p, 0, count, scope->stream());
      if (r) scope->fail(std::string(name) + ": zeroing the output: " + be.errorString(r));
      return;
    }
    // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: pass B
    // first, each with its row stride as the leading dimension.
    const float one = 1.0f, beta = overwrite ? 0.0f : 1.0f;
    const char *a = A->aligned + A->offset * elemBytes, *b = B->aligned + B->offset * elemBytes;
    char *cp = C->aligned + C->offset * cBytes;
    long long strideA = A->sizes[0] == 1 ? 0 : A->strides[0], strideB = B->sizes[0] == 1 ? 0 : B->strides[0];
    int opA = transA ? CUBLAS_OP_T : CUBLAS_OP_N, opB = transB ? CUBLAS_OP_T : CUBLAS_OP_N;
    c.setStream(h.handle, static_cast<CUstream>(scope->stream()));
    cublasStatus_t s =
        dataType == CUDA_R_32F && cType == CUDA_R_32F && !(flags & kGemmTF32)
            ? c.sgemmStridedBatched(h.handle, opB, opA, N, M, K, &one, reinterpret_cast<const float *>(b),
                                    B->strides[1], strideB, reinterpret_cast<const float *>(a), A->strides[1],
                                    strideA, &beta, reinterpret_cast<float *>(cp), C->strides[1], C->strides[0],
                                    batch)
            : c.gemmStridedBatchedEx(h.handle, opB, opA, N, M, K, &one, b, dataType, B->strides[1], strideB, a,
                                     dataType, A->strides[1], strideA, &beta, cp, cType, C->strides[1],
                                     C->strides[0], batch,
                                     dataType == CUDA_R_32F ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F,
                                     CUBLAS_GEMM_DEFAULT);
    if (s)
      scope->fail("cuBLAS GEMM " + std::string(name) + " (" + std::to_string(batch) + " x " + std::to_string(M) +
                  "x" + std::to_string(N) + "x" + std::to_string(K) + ") failed: " + c.statusString(s));
  } catch (const std::exception &e) {
    scope->fail(e.what());
  }
}


// ---------------------------------------------------------------------------
// cuBLASLt: GEMMs with a fused bias (and ReLU) epilogue, writing D in the
// model's result type (kiln-gpu-library-calls folds the bias broadcast that
// initialised the output, and the rounding or ReLU kernel that read it).

using cublasLtHandle_t = struct cublasLtContext *;
using cublasLtMatmulDesc_t = struct cublasLtMatmulDescOpaque *;
using cublasLtMatrixLayout_t = struct cublasLtMatrixLayoutOpaque *;
using cublasLtMatmulPreference_t = struct cublasLtMatmulPreferenceOpaque *;
struct cublasLtMatmulAlgo_t {
  uint64_t data[8];
};
struct cublasLtMatmulHeuristicResult_t {
  cublasLtMatmulAlgo_t algo;
  size_t workspaceSize;
  cublasStatus_t state;
  float wavesCount;
  int reserved[4];
};
// Attribute and enum values of cuBLASLt's ABI (cublasLt.h, CUDA 12 and 13).
constexpr int LT_DESC_TRANSA = 3, LT_DESC_TRANSB = 4, LT_DESC_EPILOGUE = 7, LT_DESC_BIAS_POINTER = 8,
              LT_DESC_BIAS_BATCH_STRIDE = 10, LT_DESC_BIAS_DATA_TYPE = 26;
constexpr int LT_LAYOUT_BATCH_COUNT = 5, LT_LAYOUT_STRIDED_BATCH_OFFSET = 6;
constexpr int LT_PREF_MAX_WORKSPACE_BYTES = 1, LT_PREF_MIN_ALIGNMENT_A = 5, LT_PREF_MIN_ALIGNMENT_B = 6,
              LT_PREF_MIN_ALIGNMENT_C = 7, LT_PREF_MIN_ALIGNMENT_D = 8;
constexpr int LT_EPILOGUE_DEFAULT = 1, LT_EPILOGUE_RELU = 2, LT_EPILOGUE_BIAS = 4, LT_EPILOGUE_RELU_BIAS = 6;

struct CublasLt {
  cublasStatus_t (*create)(cublasLtHandle_t *);
  cublasStatus_t (*destroy)(cublasLtHandle_t);
  const char *(*statusString)(cublasStatus_t);
  cublasStatus_t (*descCreate)(cublasLtMatmulDesc_t *, int, int);
  cublasStatus_t (*descDestroy)(cublasLtMatmulDesc_t);
  cublasStatus_t (*descSet)(cublasLtMatmulDesc_t, int, const void *, size_t);
  cublasStatus_t (*layoutCreate)(cublasLtMatrixLayout_t *, int, uint64_t, uint64_t, int64_t);
  cublasStatus_t (*layoutDestroy)(cublasLtMatrixLayout_t);
  cublasStatus_t (*layoutSet)(cublasLtMatrixLayout_t, int, const void *, size_t);
  cublasStatus_t (*prefCreate)(cublasLtMatmulPreference_t *);
  cublasStatus_t (*prefDestroy)(cublasLtMatmulPreference_t);
  cublasStatus_t (*prefSet)(cublasLtMatmulPreference_t, int, const void *, size_t);
  cublasStatus_t (*heuristic)(cublasLtHandle_t, cublasLtMatmulDesc_t, cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,
                              cublasLtMatrixLayout_t, cublasLtMatrixLayout_t, cublasLtMatmulPreference_t, int,
                              cublasLtMatmulHeuristicResult_t *, int *);
  cublasStatus_t (*matmul)(cublasLtHandle_t, cublasLtMatmulDesc_t, const void *, const void *, cublasLtMatrixLayout_t,
                           const void *, cublasLtMatrixLayout_t, const void *, const void *, cublasLtMatrixLayout_t,
                           void *, cublasLtMatrixLayout_t, const cublasLtMatmulAlgo_t *, void *, size_t, CUstream);
  std::string error;  ///< why cuBLASLt cannot be used
};

const CublasLt &cublasLt() {
  static CublasLt c;
  static std::once_flag once;
  std::call_once(once, [] {
    std::string tried;
    void *lib = openLibrary("KILN_CUBLASLT", {"libcublasLt.so.13", "libcublasLt.so.12", "/usr/local/cuda/lib64/libcublasLt.so.13",
                                      "/usr/local/cuda/lib64/libcublasLt.so.12", "libcublasLt.so"}, tried);
    if (!lib) {
      c.error = "this model runs GEMMs with fused bias epilogues through cuBLASLt, but no cuBLASLt library loads "
                "(tried " + tried + "; set KILN_CUBLASLT, or compile with --cuda-gemm=kernel)";
      return;
    }
#define KILN_CUBLASLT_SYM(field, symbol)                                                              \
  if (!(c.field = reinterpret_cast<decltype(c.field)>(::dlsym(lib, symbol)))) {                      \
    c.error = std::string("the cuBLASLt library lacks ") + symbol;                                   \
    return;                                                                                          \
  }
    KILN_CUBLASLT_SYM(create, "cublasLtCreate")
    KILN_CUBLASLT_SYM(destroy, "cublasLtDestroy")
    KILN_CUBLASLT_SYM(statusString, "cublasLtGetStatusString")
    KILN_CUBLASLT_SYM(descCreate, "cublasLtMatmulDescCreate")
    KILN_CUBLASLT_SYM(descDestroy, "cublasLtMatmulDescDestroy")
    KILN_CUBLASLT_SYM(descSet, "cublasLtMatmulDescSetAttribute")
    KILN_CUBLASLT_SYM(layoutCreate, "cublasLtMatrixLayoutCreate")
    KILN_CUBLASLT_SYM(layoutDestroy, "cublasLtMatrixLayoutDestroy")
    KILN_CUBLASLT_SYM(layoutSet, "cublasLtMatrixLayoutSetAttribute")
    KILN_CUBLASLT_SYM(prefCreate, "cublasLtMatmulPreferenceCreate")
    KILN_CUBLASLT_SYM(prefDestroy, "cublasLtMatmulPreferenceDestroy")
    KILN_CUBLASLT_SYM(prefSet, "cublasLtMatmulPreferenceSetAttribute")
    KILN_CUBLASLT_SYM(heuristic, "cublasLtMatmulAlgoGetHeuristic")
    KILN_CUBLASLT_SYM(matmul, "cublasLtMatmul")
#undef KILN_CUBLASLT_SYM
  });
  return c;
}

/// Bit of the epilogue GEMMs' `flags`: ReLU after the bias.
constexpr int32_t kGemmReLU = KILN_GPU_GEMM_RELU;

/// A rank-1 memref descriptor (the bias vector).
struct Desc1 {
  char *allocated, *aligned;
  int64_t offset, sizes[1], strides[1];
};

/// Everything the heuristic's choice depends on: one cached algorithm each.
struct LtKey {
  int dataType, dType, compute, epilogue;
  int32_t transA, transB;
  int64_t M, N, K, batch, lda, ldb, ldd, strideA, strideB, strideD;
  uint32_t align[4];  ///< of A, B, D and the bias, in bytes (at most 256)
  bool beta;
  bool operator<(const LtKey &o) const { return std::memcmp(this, &o, sizeof(LtKey)) < 0; }
};

/// The largest power of two (at most 256) that divides `p`.
uint32_t alignmentOf(const void *p) {
  uint32_t a = 256;
  while (a > 1 && reinterpret_cast<uintptr_t>(p) % a) a /= 2;
  return a;
}

/// Owns cuBLASLt objects for the length of one call.
template <class T, cublasStatus_t (*CublasLt::*Destroy)(T)> struct LtObject {
  T obj = nullptr;
  ~LtObject() {
    if (obj) (cublasLt().*Destroy)(obj);
  }
};

/// This thread's cuBLASLt handle and workspace (kept for the thread's life).
struct LtHandle {
  cublasLtHandle_t handle = nullptr;
  std::shared_ptr<kiln::Storage> workspace;
  ~LtHandle() {
    if (handle) cublasLt().destroy(handle);
  }
};

/// D[b] = epilogue(op(A[b]) op(B[b]) (+ D[b] unless kGemmOverwrite) + bias)
/// (row-major; the bias, of D's type, indexed by D's column and shared by
/// every row and batch; ReLU with kGemmReLU) through cuBLASLt on the call's
/// stream, accumulating in float32 and rounding once into D's type. The
/// algorithm cuBLASLt's heuristic picks for a shape (and the operands'
/// alignments) is kept for later calls.
void gemmLt(const char *name, int dataType, size_t elemBytes, int dType, size_t dBytes, int32_t transA,
            int32_t transB, int32_t flags, Desc3 *A, Desc3 *B, Desc3 *D, Desc1 *bias) {
  LaunchScope *scope = LaunchScope::current();
  if (!scope || scope->failed()) return;
  if (scope->backend().type() != kiln::DeviceType::CUDA)
    return scope->fail(std::string(name) + " runs on CUDA only, not on " + scope->backend().name());
  try {
    const CublasLt &c = cublasLt();
    if (!c.error.empty()) return scope->fail(c.error);
    thread_local LtHandle h;
    if (!h.handle) {
      driver();  // the primary context current on this thread, for cuBLASLt too
      cublasLtHandle_t handle = nullptr;
      if (cublasStatus_t s = c.create(&handle)) return scope->fail(std::string("cublasLtCreate: ") + c.statusString(s));
      h.handle = handle;
      h.workspace = kiln::gpu::allocateStorage(kiln::gpu::cudaBackend(), kWorkspaceBytes, scope->stream());
    }
    int64_t M = D->sizes[1], N = D->sizes[2], K = transA ? A->sizes[1] : A->sizes[2], batch = D->sizes[0];
    if (M == 0 || N == 0 || batch == 0) return;
    if (A->strides[2] != 1 || B->strides[2] != 1 || D->strides[2] != 1 || bias->strides[0] != 1)
      return scope->fail(std::string(name) + ": an operand's rows are not contiguous");
    if (bias->sizes[0] != N)
      return scope->fail(std::string(name) + ": a bias of " + std::to_string(bias->sizes[0]) + " elements for " +
                         std::to_string(N) + " columns");
    if (K == 0)
      return scope->fail(std::string(name) + ": an empty product with an epilogue");
    const bool overwrite = flags & kGemmOverwrite;
    const char *a = A->aligned + A->offset * elemBytes, *b = B->aligned + B->offset * elemBytes;
    char *d = D->aligned + D->offset * dBytes;
    const char *bp = bias->aligned + bias->offset * dBytes;
    // Row-major D = op(A) op(B) is column-major D^T = op(B)^T op(A)^T: B
    // goes first, each with its row stride as the leading dimension; the
    // bias runs along D^T's rows, D's columns.
    LtKey key;
    std::memset(&key, 0, sizeof key);  // padding too: the key compares as bytes
    key.dataType = dataType;
    key.dType = dType;
    key.compute = dataType == CUDA_R_32F && (flags & kGemmTF32) ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    key.epilogue = flags & kGemmReLU ? LT_EPILOGUE_RELU_BIAS : LT_EPILOGUE_BIAS;
    key.transA = transA;
    key.transB = transB;
    key.M = M, key.N = N, key.K = K, key.batch = batch;
    key.lda = A->strides[1], key.ldb = B->strides[1], key.ldd = D->strides[1];
    key.strideA = A->sizes[0] == 1 ? 0 : A->strides[0];
    key.strideB = B->sizes[0] == 1 ? 0 : B->strides[0];
    key.strideD = D->strides[0];
    key.align[0] = alignmentOf(a), key.align[1] = alignmentOf(b), key.align[2] = alignmentOf(d);
    key.align[3] = alignmentOf(bp);
    key.beta = !overwrite;
    auto fail = [&](const std::string &what, cublasStatus_t s) {
      scope->fail("cuBLASLt GEMM " + std::string(name) + " (" + std::to_string(batch) + " x " + std::to_string(M) +
                  "x" + std::to_string(N) + "x" + std::to_string(K) + "): " + what +
                  (s ? std::string(": ") + c.statusString(s) : std::string()));
    };
    LtObject<cublasLtMatmulDesc_t, &CublasLt::descDestroy> desc;
    if (cublasStatus_t s = c.descCreate(&desc.obj, key.compute, CUDA_R_32F)) return fail("a matmul descriptor", s);
    int opB = transB ? CUBLAS_OP_T : CUBLAS_OP_N, opA = transA ? CUBLAS_OP_T : CUBLAS_OP_N;
    int64_t biasBatchStride = 0;
    int biasType = dType;
    c.descSet(desc.obj, LT_DESC_TRANSA, &opB, sizeof opB);
    c.descSet(desc.obj, LT_DESC_TRANSB, &opA, sizeof opA);
    c.descSet(desc.obj, LT_DESC_EPILOGUE, &key.epilogue, sizeof key.epilogue);
    c.descSet(desc.obj, LT_DESC_BIAS_POINTER, &bp, sizeof bp);
    c.descSet(desc.obj, LT_DESC_BIAS_BATCH_STRIDE, &biasBatchStride, sizeof biasBatchStride);
    if (cublasStatus_t s = c.descSet(desc.obj, LT_DESC_BIAS_DATA_TYPE, &biasType, sizeof biasType))
      return fail("the bias type", s);
    // Column-major layouts: op(B)^T's operand, op(A)^T's operand and D^T.
    auto layout = [&](LtObject<cublasLtMatrixLayout_t, &CublasLt::layoutDestroy> &l, int type, int64_t rows,
                      int64_t cols, int64_t ld, int64_t stride) {
      if (cublasStatus_t s = c.layoutCreate(&l.obj, type, rows, cols, ld)) return s;
      int32_t count = static_cast<int32_t>(batch);
      c.layoutSet(l.obj, LT_LAYOUT_BATCH_COUNT, &count, sizeof count);
      return c.layoutSet(l.obj, LT_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride);
    };
    LtObject<cublasLtMatrixLayout_t, &CublasLt::layoutDestroy> lb, la, ld;
    if (cublasStatus_t s = layout(lb, dataType, transB ? K : N, transB ? N : K, key.ldb, key.strideB))
      return fail("B's layout", s);
    if (cublasStatus_t s = layout(la, dataType, transA ? M : K, transA ? K : M, key.lda, key.strideA))
      return fail("A's layout", s);
    if (cublasStatus_t s = layout(ld, dType, N, M, key.ldd, key.strideD)) return fail("D's layout", s);
    // The heuristic's algorithm for this key, found once.
    static std::mutex cacheMutex;
    static std::map<LtKey, cublasLtMatmulAlgo_t> cache;
    cublasLtMatmulAlgo_t algo;
    bool cached;
    {
      std::lock_guard<std::mutex> lock(cacheMutex);
      auto it = cache.find(key);
      cached = it != cache.end();
      if (cached) algo = it->second;
    }
    if (!cached) {
      LtObject<cublasLtMatmulPreference_t, &CublasLt::prefDestroy> pref;
      if (cublasStatus_t s = c.prefCreate(&pref.obj)) return fail("a preference", s);
      uint64_t ws = kWorkspaceBytes;
      c.prefSet(pref.obj, LT_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
      // cuBLASLt's operand A is kiln's B, and its B kiln's A.
      c.prefSet(pref.obj, LT_PREF_MIN_ALIGNMENT_A, &key.align[1], sizeof(uint32_t));
      c.prefSet(pref.obj, LT_PREF_MIN_ALIGNMENT_B, &key.align[0], sizeof(uint32_t));
      c.prefSet(pref.obj, LT_PREF_MIN_ALIGNMENT_C, &key.align[2], sizeof(uint32_t));
      c.prefSet(pref.obj, LT_PREF_MIN_ALIGNMENT_D, &key.align[2], sizeof(uint32_t));
      cublasLtMatmulHeuristicResult_t result;
      int found = 0;
      cublasStatus_t s = c.heuristic(h.handle, desc.obj, lb.obj, la.obj, ld.obj, ld.obj, pref.obj, 1, &result, &found);
      if (s || found == 0) return fail("no algorithm for these types, layouts and epilogue", s);
      algo = result.algo;
      std::lock_guard<std::mutex> lock(cacheMutex);
      cache.emplace(key, algo);
    }
    const float one = 1.0f, beta = overwrite ? 0.0f : 1.0f;
    if (cublasStatus_t s = c.matmul(h.handle, desc.obj, &one, b, lb.obj, a, la.obj, &beta, d, ld.obj, d, ld.obj, &algo,
                                    h.workspace->data(), kWorkspaceBytes, static_cast<CUstream>(scope->stream())))
      return fail("failed", s);
  } catch (const std::exception &e) {
    scope->fail(e.what());
  }
}

} // namespace

#define KILN_GPU_GEMM(suffix, dataType, bytes, cType, cBytes)                                         \
  extern "C" __attribute__((visibility("default"))) void _mlir_ciface_kiln_gpu_gemm_##suffix(          \
      int32_t transA, int32_t transB, int32_t flags, Desc3 *A, Desc3 *B, Desc3 *C) {                    \
    gemm("kiln_gpu_gemm_" #suffix, dataType, bytes, cType, cBytes, transA, transB, flags, A, B, C);     \
  }
KILN_GPU_GEMM(f32, CUDA_R_32F, 4, CUDA_R_32F, 4)
KILN_GPU_GEMM(bf16, CUDA_R_16BF, 2, CUDA_R_16BF, 2)
KILN_GPU_GEMM(f16, CUDA_R_16F, 2, CUDA_R_16F, 2)
KILN_GPU_GEMM(bf16_f32, CUDA_R_16BF, 2, CUDA_R_32F, 4)
KILN_GPU_GEMM(f16_f32, CUDA_R_16F, 2, CUDA_R_32F, 4)
#undef KILN_GPU_GEMM

// The epilogue GEMMs: kiln_gpu_gemm_lt_<AB>[_<D>](transA, transB, flags, A, B, D, bias).
#define KILN_GPU_GEMM_LT(suffix, dataType, bytes, dType, dBytes)                                      \
  extern "C" __attribute__((visibility("default"))) void _mlir_ciface_kiln_gpu_gemm_lt_##suffix(       \
      int32_t transA, int32_t transB, int32_t flags, Desc3 *A, Desc3 *B, Desc3 *D, Desc1 *bias) {       \
    gemmLt("kiln_gpu_gemm_lt_" #suffix, dataType, bytes, dType, dBytes, transA, transB, flags, A, B, D, \
           bias);                                                                                      \
  }
KILN_GPU_GEMM_LT(f32, CUDA_R_32F, 4, CUDA_R_32F, 4)
KILN_GPU_GEMM_LT(bf16, CUDA_R_16BF, 2, CUDA_R_16BF, 2)
KILN_GPU_GEMM_LT(f16, CUDA_R_16F, 2, CUDA_R_16F, 2)
KILN_GPU_GEMM_LT(bf16_f32, CUDA_R_16BF, 2, CUDA_R_32F, 4)
KILN_GPU_GEMM_LT(f16_f32, CUDA_R_16F, 2, CUDA_R_32F, 4)
#undef KILN_GPU_GEMM_LT
