// kiln runtime — the GPU GEMM entry point of compiled models, over cuBLAS loaded at run time.
//
// kiln-gpu-library-calls turns large matmuls and convolutions into calls of
// kiln_gpu_gemm_{f32,bf16,f16,bf16_f32,f16_f32} (C ABI through MLIR's C interface: rank-3
// memref descriptors). They run in the order of the call's stream (the
// LaunchScope's), accumulating in float32 (float32 operands: no TF32, as
// PyTorch's default for matmuls), with a workspace set up front so the call
// can be captured in a CUDA graph.
#include "Driver.h"

#include "../gpu/Backend.h"
#include "../gpu/Runtime.h"
#include "../loader/Error.h"

#include <cstdlib>
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
    void *lib = nullptr;
    const char *env = std::getenv("KILN_CUBLAS");
    for (const char *name : {env, "libcublas.so.13", "libcublas.so.12", "/usr/local/cuda/lib64/libcublas.so.13",
                             "/usr/local/cuda/lib64/libcublas.so.12", "libcublas.so"}) {
      if (!name || !*name) continue;
      if ((lib = ::dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
      tried += std::string(tried.empty() ? "" : ", ") + name;
    }
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

/// Bits of the GEMM entry points' `flags` (lib/Transforms/GPULibraryCalls.cpp).
constexpr int32_t kGemmTF32 = 1, kGemmOverwrite = 2;

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
