/* kiln ABI — how compiled model code calls into the runtime's dispatcher
 * (custom ops and ops the compiler falls back on). Plain C; part of the ABI
 * header set (runtime/abi, CMake target kiln_abi).
 *
 * Every field is 8 bytes so generated code can build these records with
 * plain stores. Tensors travel as memref descriptors (see kiln/abi/model_format.h):
 *   { void *allocated; void *aligned; int64_t offset; int64_t sizes[rank]; int64_t strides[rank]; }
 */
#ifndef KILN_ABI_RT_CALL_H
#define KILN_ABI_RT_CALL_H

#include <stdint.h>

#include "kiln/abi/dtypes.h"

#ifdef __cplusplus
extern "C" {
#endif

enum kiln_rt_tag {
  KILN_RT_TENSOR = 0,   /* desc -> memref descriptor of `rank`, dtype in `dtype` (kiln_dtype_t) */
  KILN_RT_INT = 1,      /* i */
  KILN_RT_FLOAT = 2,    /* f */
  KILN_RT_BOOL = 3,     /* i (0/1) */
  KILN_RT_NONE = 4,
  KILN_RT_INT_LIST = 5, /* desc -> int64_t[rank] */
  KILN_RT_FLOAT_LIST = 6, /* desc -> double[rank] */
  KILN_RT_STRING = 7,    /* desc -> NUL-terminated string (str arguments) */
  KILN_RT_TENSOR_LIST = 8 /* desc -> kiln_rt_value[rank], each a KILN_RT_TENSOR (Tensor[] arguments) */
};

typedef struct kiln_rt_value {
  int64_t tag;
  int64_t dtype;
  int64_t rank;
  void *desc;
  int64_t i;
  double f;
} kiln_rt_value;

/* Calls `qualified_name` ("ns::op" or "ns::op.overload") through the
 * dispatcher with boxed arguments in schema order (defaults filled in for
 * trailing arguments not given). Tensor results: the caller sets tag, dtype
 * and rank and points desc at descriptor storage of that rank; the runtime
 * fills it with a fresh buffer the caller then owns (release with free()).
 * Returns 0 on success. On failure it records a message (see
 * kiln_rt_last_error) and returns non-zero; the model entry then fails. */
#define KILN_RT_CALL_OP_SYMBOL "kiln_rt_call_op"
int32_t kiln_rt_call_op(const char *qualified_name, int64_t nargs, kiln_rt_value *args,
                        int64_t nresults, kiln_rt_value *results);

/* What a GPU model calls instead: the same records, but tensor descriptors
 * point to device memory of the running call's stream. The runtime waits for
 * the stream, copies the operands to the host, calls kiln_rt_call_op, and
 * hands back results in fresh device buffers from its caching allocator (the
 * model frees them as its own). Fails while the call is being captured as a
 * GPU graph. Outside a GPU model's call it is kiln_rt_call_op. */
#define KILN_RT_CALL_OP_DEVICE_SYMBOL "kiln_rt_call_op_device"
int32_t kiln_rt_call_op_device(const char *qualified_name, int64_t nargs, kiln_rt_value *args,
                               int64_t nresults, kiln_rt_value *results);

/* A name "ns::op#backward" calls the op's registered autograd formula
 * instead (what kiln-compile --grad emits for ops run through the runtime):
 * args are the forward call's arguments, then its results, then one
 * gradient per result; the results are one gradient per tensor argument of
 * the forward call, in order (zeros where the formula defines none). */
#define KILN_RT_BACKWARD_SUFFIX "#backward"

/* A name "ns::op#vmap" calls the op over a batch (what kiln-compile --vmap
 * emits for ops run through the runtime that have a registered batching
 * rule): args are the forward call's arguments, each batched tensor with the
 * batch at dim 0, then one KILN_RT_INT per forward argument: 0 if it is
 * batched, -1 if every sample shares it. The results are the forward call's,
 * each with the batch at dim 0. The runtime uses the op's batching rule
 * (register_vmap), or runs the op once per sample when it has none. */
#define KILN_RT_VMAP_SUFFIX "#vmap"

/* The message of the last failed kiln_rt_call_op on this thread, or "". */
const char *kiln_rt_last_error(void);

#ifdef __cplusplus
}
#endif
#endif /* KILN_ABI_RT_CALL_H */
