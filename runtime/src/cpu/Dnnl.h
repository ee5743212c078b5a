// kiln runtime — oneDNN for the CPU library calls: the library loaded at first use, cached plans and weights.
#ifndef KILN_RUNTIME_CPU_DNNL_H
#define KILN_RUNTIME_CPU_DNNL_H

#include <oneapi/dnnl/dnnl.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace kiln::cpu {

/// Every oneDNN C API function kiln uses, as X(name) for dnnl_<name>.
#define KILN_DNNL_FUNCTIONS(X) \
  X(engine_create) \
  X(stream_create) \
  X(stream_wait) \
  X(memory_desc_init_by_strides) \
  X(memory_desc_init_by_tag) \
  X(memory_desc_get_size) \
  X(memory_desc_equal) \
  X(memory_create) \
  X(memory_destroy) \
  X(memory_set_data_handle) \
  X(dilated_convolution_forward_desc_init) \
  X(dilated_convolution_backward_data_desc_init) \
  X(dilated_convolution_backward_weights_desc_init) \
  X(matmul_desc_init) \
  X(primitive_attr_create) \
  X(primitive_attr_destroy) \
  X(primitive_attr_set_scratchpad_mode) \
  X(primitive_attr_set_post_ops) \
  X(post_ops_create) \
  X(post_ops_destroy) \
  X(post_ops_append_sum) \
  X(post_ops_append_eltwise) \
  X(post_ops_append_binary) \
  X(primitive_desc_create) \
  X(primitive_desc_destroy) \
  X(primitive_desc_query_md) \
  X(primitive_desc_query) \
  X(primitive_create) \
  X(primitive_destroy) \
  X(primitive_execute) \
  X(reorder_primitive_desc_create)

/// The oneDNN C API functions kiln uses, resolved with dlsym (the runtime
/// never links oneDNN: it is loaded at the first library call).
struct DnnlApi {
  std::string error;  ///< why oneDNN is unusable; empty when it loaded
  dnnl_engine_t engine = nullptr;
#define KILN_DNNL_FN(name) decltype(&::dnnl_##name) name = nullptr;
  KILN_DNNL_FUNCTIONS(KILN_DNNL_FN)
#undef KILN_DNNL_FN
};

/// oneDNN, loaded once (KILN_DNNL, when set, names the only library tried, else
/// libdnnl.so.2); `error` says why not when it does not load.
const DnnlApi &dnnl();

/// Throws std::runtime_error "`what`: <oneDNN status>" unless `s` is success.
void check(dnnl_status_t s, const std::string &what);

/// A memory descriptor of f32 `dims` with element `strides` (a unit dim's
/// stride normalised, so packed views read as oneDNN's plain formats).
dnnl_memory_desc_t stridedDesc(const std::vector<int64_t> &dims, std::vector<int64_t> strides);
/// The same dims in oneDNN's choice of layout (format `any`).
dnnl_memory_desc_t anyDesc(const std::vector<int64_t> &dims);

/// A primitive made for one problem (shapes, strides, parameters), with the
/// layouts it wants and the reorders that bring operands into them. Plans
/// are immutable once built and shared by every thread.
struct Plan {
  dnnl_primitive_t prim = nullptr;
  dnnl_memory_desc_t src{}, weights{}, dst{}, bias{};        ///< what `prim` reads and writes
  dnnl_memory_desc_t userSrc{}, userWeights{}, userDst{};     ///< the caller's views
  dnnl_primitive_t srcIn = nullptr, weightsIn = nullptr;      ///< user -> primitive layout, or null
  dnnl_primitive_t dstIn = nullptr, dstOut = nullptr;         ///< (dst read first with a sum post-op)
  size_t scratchpad = 0;
  dnnl_memory_desc_t scratchpadMd{};  ///< `scratchpad` bytes
  bool hasBias = false;
  /// A binary-add post-op's second operand (a residual added to the
  /// result) in the destination's layout, which oneDNN's kernels read it in,
  /// and the caller's view of it with the reorder between (null when they
  /// agree); binaryArg is 0 without one.
  dnnl_memory_desc_t binary{}, userBinary{};
  dnnl_primitive_t binaryIn = nullptr;
  int binaryArg = 0;
  /// What `src`, `weights` and `dst` are to the primitive: its two operands
  /// and its result (a gradient's primitive reads diff_dst and writes a
  /// diff_* memory: ConvBackward.cpp).
  dnnl_query_t srcQuery = dnnl_query_src_md, weightsQuery = dnnl_query_weights_md, dstQuery = dnnl_query_dst_md;
  int srcArg = DNNL_ARG_SRC, weightsArg = DNNL_ARG_WEIGHTS, dstArg = DNNL_ARG_DST;
  ~Plan();
};

/// The plan cached for `key` and the calling thread's oneDNN thread count
/// (set by enterCall), made by `make` the first time (thread-safe).
std::shared_ptr<const Plan> cachedPlan(std::vector<int64_t> key,
                                       const std::function<std::unique_ptr<Plan>()> &make);

/// Completes `plan` once its primitive descriptor `pd` is made: the
/// layouts it chose, reorders from the user's views where they differ, the
/// primitive itself. Takes ownership of `pd`.
void finishPlan(Plan &plan, dnnl_primitive_desc_t pd);

/// Runs `plan` on the user's buffers (f32 pointers at each view's offset):
/// reorders in and out where its layouts differ, the weights from the cache
/// when `constWeights` (reordered once per weight buffer and plan).
void execute(const Plan &plan, const void *src, const void *weights, void *dst, const void *bias,
             bool constWeights, const void *binary = nullptr);

/// Prepares the calling thread for a library call (after dnnl() loaded):
/// OpenMP's thread count set to the model's (kiln::cpu::maxThreads()).
void enterCall();

/// Whether `pd` is one of oneDNN's reference implementations (plain loops,
/// 100x slower than its JIT kernels): a plan then tries other layouts first.
bool isReference(dnnl_primitive_desc_t pd);

/// Primitive attributes with a user scratchpad and, optionally, a sum post-op
/// (accumulate into dst), a binary add of a tensor of `addend`'s layout (a
/// residual) and an activation post-op, in that order. The caller destroys
/// them.
dnnl_primitive_attr_t makeAttr(bool sum, int32_t activation, const dnnl_memory_desc_t *addend = nullptr);

/// The execution argument of the binary post-op that makeAttr(sum, ..,
/// addend) made.
inline int binaryPostOpArg(bool sum) { return DNNL_ARG_ATTR_MULTIPLE_POST_OP(sum ? 1 : 0) | DNNL_ARG_SRC_1; }

/// Records the calling thread's first failure of a library call.
void fail(const std::string &message);

/// A memref descriptor of rank R (MLIR's C interface).
/// The channels one group of the blocked layout that convolution calls keep
/// between them (KILN_CPU_*_BLOCKED) holds on this machine, for a tensor of
/// `channels` channels (a multiple of 8): 8 with oneDNN's AVX2 kernels, 16
/// with its AVX-512 direct ones (8 where 16 does not divide `channels`), and
/// `channels` itself, the buffer plain NHWC, where oneDNN runs convolutions
/// in NHWC (its AVX-512 brgconv kernels).
int64_t blockedGroup(int64_t channels);

template <int R> struct Desc {
  float *allocated, *aligned;
  int64_t offset, sizes[R], strides[R];
  float *data() const { return aligned + offset; }
};

} // namespace kiln::cpu

#endif // KILN_RUNTIME_CPU_DNNL_H
