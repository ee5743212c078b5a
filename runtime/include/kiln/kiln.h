/* kiln — the runtime's stable C ABI: tensors, loading and running compiled models.
 *
 * This is the only C interface of libkiln_runtime. Conventions:
 *  - Every object is an opaque handle. Tensors are refcounted (retain/release);
 *    models are created by kiln_model_load and destroyed by kiln_model_free.
 *  - Fallible functions return a kiln_status_t: NULL means success; otherwise the
 *    caller owns the status and releases it with kiln_status_free(). Output
 *    parameters are written only on success.
 *  - No C++ exception ever crosses this interface.
 *  - Within one major version functions and struct fields are only ever added
 *    (new fields go at the end of structs that carry `struct_size`).
 *  - Thread-safety is stated per function; "thread-safe" means the function may
 *    be called concurrently from several threads on the same handle.
 */
#ifndef KILN_KILN_H
#define KILN_KILN_H

#include <stddef.h>
#include <stdint.h>

#include "kiln/abi/dtypes.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define KILN_API
#else
#define KILN_API __attribute__((visibility("default")))
#endif

#define KILN_ABI_VERSION_MAJOR 1
#define KILN_ABI_VERSION_MINOR 9

/// The ABI version of the loaded runtime library: major << 16 | minor. A program
/// built against major M works with any runtime reporting major M and a minor at
/// least the one it was built with. Thread-safe.
KILN_API uint32_t kiln_abi_version(void);

/* ---------------------------------------------------------------- status */

typedef enum kiln_status_code_t {
  KILN_STATUS_OK = 0,
  KILN_STATUS_INVALID_ARGUMENT = 1,   /* bad input: wrong dtype/rank/shape, malformed file */
  KILN_STATUS_NOT_FOUND = 2,          /* a file, symbol or weight name does not exist */
  KILN_STATUS_FAILED_PRECONDITION = 3,/* e.g. external weights but no weights file given */
  KILN_STATUS_OUT_OF_RANGE = 4,       /* e.g. a dynamic dim outside its symbol's range */
  KILN_STATUS_INTERNAL = 5,           /* a bug or a failure inside the model code */
  KILN_STATUS_UNIMPLEMENTED = 6,      /* a valid request this runtime does not support */
  KILN_STATUS_RESOURCE_EXHAUSTED = 7, /* out of memory */
  KILN_STATUS_DEVICE_ERROR = 8,       /* (1.1) the GPU or its driver: none present, wrong
                                         architecture, out of device memory, a failed launch */
  KILN_STATUS_CODE_FORCE_32BIT = 0x7fffffff /* not a code: keeps the enum int-sized */
} kiln_status_code_t;

/// NULL means OK. A non-NULL status is owned by the caller.
typedef struct kiln_status *kiln_status_t;

/// The code of `status` (KILN_STATUS_OK for NULL). Thread-safe.
KILN_API kiln_status_code_t kiln_status_code(kiln_status_t status);
/// The message of `status` ("" for NULL). The string is owned by the status and
/// lives until kiln_status_free(status). Thread-safe.
KILN_API const char *kiln_status_message(kiln_status_t status);
/// Releases `status`; NULL is allowed. Not thread-safe on the same status.
KILN_API void kiln_status_free(kiln_status_t status);
/// A short name of a code ("INVALID_ARGUMENT"). Static storage. Thread-safe.
KILN_API const char *kiln_status_code_name(kiln_status_code_t code);

/* ---------------------------------------------------------------- dtypes */

/* kiln_dtype_t and its KILN_DTYPE_* codes: kiln/abi/dtypes.h. */

/// Bytes per element (0 for an unknown value). Thread-safe.
KILN_API size_t kiln_dtype_size(kiln_dtype_t dtype);
/// Short name: f32 f64 f16 bf16 i64 i32 i16 i8 u8 bool ("?" if unknown). Static
/// storage. Thread-safe.
KILN_API const char *kiln_dtype_name(kiln_dtype_t dtype);

/* ---------------------------------------------------------------- devices (1.1) */

/// Where a tensor's data lives and where a model's code runs.
typedef enum kiln_device_type_t {
  KILN_DEVICE_CPU = 0,
  KILN_DEVICE_CUDA = 1, /* device 0 of the CUDA driver */
  KILN_DEVICE_HIP = 2,  /* (1.3) device 0 of ROCm's HIP runtime (an AMD GPU) */
  KILN_DEVICE_TYPE_FORCE_32BIT = 0x7fffffff
} kiln_device_type_t;

/// NULL if `device` can be used here; otherwise a status (KILN_STATUS_DEVICE_ERROR)
/// saying why not: no driver library, no GPU, ... The CUDA driver (libcuda) and
/// the HIP runtime (libamdhip64) are loaded on first use, so a program that
/// never touches a GPU needs neither installed.
/// Thread-safe.
KILN_API kiln_status_t kiln_device_check(kiln_device_type_t device);

/* ---------------------------------------------------------------- tensors */

/// A dense, C-contiguous host tensor. Refcounted: starts with one reference
/// owned by the creator. The refcount is atomic; the element data is not
/// synchronised (concurrent readers are fine, a writer needs exclusive access).
typedef struct kiln_tensor *kiln_tensor_t;

/// Deleter for kiln_tensor_wrap: called once with (data, user) when the last
/// reference goes, on whichever thread releases it.
typedef void (*kiln_deleter_fn)(void *data, void *user);

/// Creates a contiguous, zero-filled tensor whose data is 64-byte aligned.
/// `sizes` has `rank` entries (each >= 0); it may be NULL when rank is 0.
/// On success *out holds one reference owned by the caller. Thread-safe.
KILN_API kiln_status_t kiln_tensor_create(kiln_dtype_t dtype, size_t rank, const int64_t *sizes,
                                          kiln_tensor_t *out);

/// Wraps caller memory laid out C-contiguously, without copying. `deleter` (may be
/// NULL) is called as deleter(data, user) when the last reference goes; until then
/// the memory must stay valid. `data` may be NULL only when the tensor has no
/// elements. If this call fails the deleter is NOT called: the caller keeps
/// ownership. On success *out holds one reference owned by the caller. Thread-safe.
KILN_API kiln_status_t kiln_tensor_wrap(void *data, kiln_dtype_t dtype, size_t rank,
                                        const int64_t *sizes, kiln_deleter_fn deleter,
                                        void *user, kiln_tensor_t *out);

/// Adds a reference. NULL is ignored. Thread-safe.
KILN_API void kiln_tensor_retain(kiln_tensor_t tensor);
/// Drops a reference; the last one frees the tensor. NULL is ignored. Thread-safe.
KILN_API void kiln_tensor_release(kiln_tensor_t tensor);
/// Pointer to the first element (contiguous, row-major). Valid while the tensor
/// lives; NULL is possible for a tensor with no elements. Thread-safe.
KILN_API void *kiln_tensor_data(kiln_tensor_t tensor);
/// The element type. Thread-safe.
KILN_API kiln_dtype_t kiln_tensor_dtype(kiln_tensor_t tensor);
/// The number of dimensions. Thread-safe.
KILN_API size_t kiln_tensor_rank(kiln_tensor_t tensor);
/// The sizes, `rank` entries, owned by the tensor and valid while it lives.
/// Thread-safe.
KILN_API const int64_t *kiln_tensor_sizes(kiln_tensor_t tensor);
/// Size of the data in bytes (numel * dtype size). Thread-safe.
KILN_API size_t kiln_tensor_nbytes(kiln_tensor_t tensor);
/// (1.1) Where the tensor's data lives; kiln_tensor_data of a CUDA tensor is a
/// device pointer. Thread-safe.
KILN_API kiln_device_type_t kiln_tensor_device(kiln_tensor_t tensor);
/// (1.6) kiln_tensor_wrap for memory on `device`: `data` is a device pointer
/// (of the CUDA driver's device 0 primary context, or HIP's device 0), laid out
/// C-contiguously; a GPU model takes such a tensor in place, without a copy.
/// KILN_DEVICE_CPU makes it kiln_tensor_wrap. The memory is not touched here;
/// the same ownership rules as kiln_tensor_wrap hold. Thread-safe.
KILN_API kiln_status_t kiln_tensor_wrap_device(void *data, kiln_device_type_t device, kiln_dtype_t dtype,
                                               size_t rank, const int64_t *sizes, kiln_deleter_fn deleter,
                                               void *user, kiln_tensor_t *out);
/// (1.1) A new contiguous copy of `src` on `device`. `stream` (a CUstream or,
/// from 1.3, a hipStream_t; NULL for the calling thread's own stream of that
/// device) orders a copy to or on a GPU; copies between two GPU vendors are
/// refused;
/// the call returns once the copy is complete, except for a GPU-to-GPU copy
/// on a caller's stream, which is only queued there. On success *out holds
/// one reference owned by the caller. Thread-safe.
KILN_API kiln_status_t kiln_tensor_copy_to(kiln_tensor_t src, kiln_device_type_t device, void *stream,
                                           kiln_tensor_t *out);

/* ---------------------------------------------------------------- models */

/// A loaded compiled model (.so). Immutable after loading: kiln_model_run may be
/// called from many threads at once on one model.
typedef struct kiln_model *kiln_model_t;

/// Options for kiln_model_load. Always initialise with kiln_model_options_init()
/// and then set the fields you need; the runtime reads only the first
/// `struct_size` bytes, so programs built against an older header keep working.
/// (1.5) The largest thread count kiln_model_options_t.num_threads (and
/// KILN_NUM_THREADS) may ask for.
#define KILN_MAX_NUM_THREADS 1024

typedef struct kiln_model_options_t {
  size_t struct_size;             /* set by kiln_model_options_init */
  /* The .pt2 archive to read weights from when the model was compiled with
   * external weights (ignored for embedded weights). NULL: none. */
  const char *weights_path;
  /* Shared libraries loaded (RTLD_NOW | RTLD_GLOBAL) before the model, e.g. custom
   * op kernels. Never unloaded. */
  const char *const *plugin_paths;
  size_t num_plugins;
  /* (1.5) Threads a CPU model's calls use (its parallel loops and the eager
   * kernels it calls), 1 to KILN_MAX_NUM_THREADS. 0 (default): the environment variable
   * KILN_NUM_THREADS if set, else the cores this process may run on
   * (sched_getaffinity); a malformed KILN_NUM_THREADS fails the load
   * (INVALID_ARGUMENT). Models asking for the same count share one oneTBB
   * arena, and every arena draws on one process-wide pool of worker threads,
   * so several models in a process never run more threads at once than the
   * largest count among them (docs/runtime-abi.md). Ignored by GPU models. */
  int num_threads;
  /* (1.6) The seed of the random-number generator of a model with random ops
   * (dropout, rand, randn, randint, bernoulli), 0 to 2^63-1. -1 (default): the
   * environment variable KILN_SEED if set (a malformed one fails the load),
   * else 67280421310721 (PyTorch's default seed). Each run draws with the
   * next offset of the model's counter-based generator (advanced atomically,
   * so concurrent runs draw different numbers); see kiln_run_options_t. */
  int64_t seed;
  /* (1.9) Weights the caller holds, for a model compiled with external
   * weights (instead of weights_path): num_weights state-dict names and
   * tensors, one for every weight of the model. Each tensor is contiguous,
   * of the weight's dtype and shape, on the CPU or (a GPU model) on its
   * device, and is bound where it is: the model passes it to its code in
   * place, writes the updates the program makes to it there, and holds a
   * reference to it (a host tensor given to a GPU model is copied to the
   * device at load, and updates go to that copy). What is made from weights once (batch norm folded into
   * a convolution, stacked linear weights, permuted layouts, the CPU
   * library's reordered copies) is made from their values at load: a caller
   * that writes a weight loads the model again to see the change. A device
   * tensor must be ready (the load reads it on the runtime's own stream). */
  const char *const *weight_names;
  const kiln_tensor_t *weight_tensors;
  size_t num_weights;
} kiln_model_options_t;

/// Fills `options` with defaults (no weights file, no plugins, the default
/// thread count) and sets struct_size. Thread-safe.
KILN_API void kiln_model_options_init(kiln_model_options_t *options);

/// Loads a compiled model: loads the plugins, opens the .so, checks and parses its
/// manifest and binds its weights (embedded, or read by parameter name from
/// options->weights_path). `options` may be NULL for defaults. On success *out is
/// owned by the caller (release with kiln_model_free). The strings in `options`
/// are not retained after the call. Thread-safe.
KILN_API kiln_status_t kiln_model_load(const char *path, const kiln_model_options_t *options,
                                       kiln_model_t *out);

/// Frees a model. NULL is ignored. No kiln_model_run on it may be in flight.
/// Tensors returned by kiln_model_run stay valid. Not thread-safe on this model.
KILN_API void kiln_model_free(kiln_model_t model);

/// (1.5) The number of threads the model's calls use (see
/// kiln_model_options_t.num_threads). Thread-safe.
KILN_API int kiln_model_num_threads(kiln_model_t model);

/// The model name from its manifest; owned by the model. Thread-safe.
KILN_API const char *kiln_model_name(kiln_model_t model);

/// Number of user inputs (weights are not inputs) and of outputs. Thread-safe.
KILN_API size_t kiln_model_num_inputs(kiln_model_t model);
KILN_API size_t kiln_model_num_outputs(kiln_model_t model);
/// Number of weights bound at load: parameters, buffers and constants. Thread-safe.
KILN_API size_t kiln_model_num_params(kiln_model_t model);

typedef enum kiln_value_kind_t {
  KILN_VALUE_INPUT = 0,
  KILN_VALUE_OUTPUT = 1,
  KILN_VALUE_PARAM = 2,
  KILN_VALUE_BUFFER = 3,
  KILN_VALUE_CONSTANT = 4,
  KILN_VALUE_KIND_FORCE_32BIT = 0x7fffffff
} kiln_value_kind_t;

/// Describes one input, output or weight. Set `struct_size` to
/// sizeof(kiln_value_info_t) before querying; the runtime fills only fields that
/// fit. Every pointer is owned by the model and valid until kiln_model_free.
typedef struct kiln_value_info_t {
  size_t struct_size;
  const char *name;
  kiln_value_kind_t kind;
  kiln_dtype_t dtype;
  size_t rank;
  /* Per dim, `rank` entries each:
   *   dims[d]        the static size, or -1 if dynamic
   *   dim_min[d]     smallest allowed size (== dims[d] when static, 0 for `?`)
   *   dim_max[d]     largest allowed size (== dims[d] when static, -1 = unbounded)
   *   dim_symbols[d] the symbol name of a dynamic dim ("" when static; "?" for a
   *                  dynamic dim with no known range) */
  const int64_t *dims;
  const int64_t *dim_min;
  const int64_t *dim_max;
  const char *const *dim_symbols;
  /* (1.2) 1 if a run writes this value: an input the program
   * mutates in place receives its new value after a successful run; a
   * parameter/buffer it mutates is the model's own copy, carried from run to
   * run. 0 otherwise (and for outputs). */
  int mutated;
} kiln_value_info_t;

/// Metadata of user input / output / weight `index` (OUT_OF_RANGE if index is too
/// large). Thread-safe.
KILN_API kiln_status_t kiln_model_input_info(kiln_model_t model, size_t index,
                                             kiln_value_info_t *info);
KILN_API kiln_status_t kiln_model_output_info(kiln_model_t model, size_t index,
                                              kiln_value_info_t *info);
KILN_API kiln_status_t kiln_model_param_info(kiln_model_t model, size_t index,
                                             kiln_value_info_t *info);
/// (1.4) A copy of weight `index` as the model holds it now: the value it was
/// loaded with, or the one the last run left for a weight the program updates
/// (a training step compiled with kiln-compile --train-step). *out receives a
/// fresh CPU tensor the caller owns. Thread-safe.
KILN_API kiln_status_t kiln_model_param_read(kiln_model_t model, size_t index, kiln_tensor_t *out);

/// Runs the model. `inputs` holds exactly kiln_model_num_inputs() tensors in
/// order; each is validated (dtype, rank, every dim against its static size or
/// symbol range, and one symbol binding one value across inputs) before any data
/// is read. Inputs are borrowed and not modified, except those the program
/// mutates in place (kiln_value_info_t.mutated), which receive their new values
/// after a successful run, as PyTorch would leave them. On success outputs[0..nout)
/// receive fresh tensors, one reference each owned by the caller; `nout` must be
/// kiln_model_num_outputs(). On failure `outputs` is left untouched.
/// Thread-safe: many threads may run one model at once; a model that mutates
/// its own parameters or buffers runs one call at a time (each sees the state
/// the previous one left). Concurrent runs must not share a mutated input.
KILN_API kiln_status_t kiln_model_run(kiln_model_t model, const kiln_tensor_t *inputs,
                                      size_t num_inputs, kiln_tensor_t *outputs,
                                      size_t num_outputs);

/// (1.6) 1 if the model draws random numbers (kiln_model_options_t.seed), else 0. Thread-safe.
KILN_API int kiln_model_is_random(kiln_model_t model);

/// (1.1) Where the model's code runs: KILN_DEVICE_CPU, KILN_DEVICE_CUDA for a
/// model compiled with --target=cuda, or (1.3) KILN_DEVICE_HIP for one compiled
/// with --target=rocm. Thread-safe.
KILN_API kiln_device_type_t kiln_model_device(kiln_model_t model);

/// (1.1) Options of kiln_model_run_with_options. Initialise with
/// kiln_run_options_init(); the runtime reads only the first `struct_size` bytes.
typedef struct kiln_run_options_t {
  size_t struct_size;
  /* A GPU model's stream (a CUstream, or a hipStream_t for a HIP model): its copies and kernels are queued there in
   * order and the call returns without waiting for them, unless outputs go to the
   * CPU. NULL: the calling thread's own stream, waited for before returning. */
  void *stream;
  /* Where the outputs are handed back: KILN_DEVICE_CPU (default) or the model's
   * device, which leaves them in device memory (no copy back). */
  kiln_device_type_t output_device;
  /* Nonzero (default): a GPU model whose shapes are all static records a CUDA
   * (or HIP) graph of its kernels on its first run and replays it on later runs (inputs
   * copied into the graph's buffers, outputs copied out). 0: launch each kernel. */
  int cuda_graphs;
  /* (1.6) A model with random ops: the generator state {seed, offset} to run
   * with, replaying the random numbers of the run that used it (NULL: the
   * model's seed and its next offset). A random GPU model launches its
   * kernels (no graph), since each run's state differs. */
  const int64_t *rng_state;
  /* (1.6) If not NULL, receives the {seed, offset} the run used (2 values). */
  int64_t *rng_state_used;
  /* (1.7) NULL, or one flag per input (num_inputs of them): nonzero marks an
   * input on the model's device whose address stays the same from run to run,
   * such as a framework's parameters passed as inputs. A CUDA (or HIP) graph
   * reads such an input where it is instead of copying it into a buffer of
   * its own on each replay; a run that passes it at another address records
   * the graph again (after 8 such changes the model stops using graphs). */
  const unsigned char *static_inputs;
} kiln_run_options_t;

/// Fills `options` with defaults (no stream, outputs on the CPU, CUDA graphs
/// on). Thread-safe.
KILN_API void kiln_run_options_init(kiln_run_options_t *options);

/// kiln_model_run with options; `options` may be NULL for the defaults, which
/// make it behave as kiln_model_run. A GPU model takes inputs on the CPU (copied
/// to the GPU) or on its device (used in place; they must be ready in the order
/// of `stream`). Device outputs come from kiln's caching allocator; releasing
/// one returns its memory for reuse in the order of the stream it was made on,
/// so a caller using it on another stream must wait for that work first.
/// Thread-safe, as kiln_model_run.
KILN_API kiln_status_t kiln_model_run_with_options(kiln_model_t model, const kiln_run_options_t *options,
                                                   const kiln_tensor_t *inputs, size_t num_inputs,
                                                   kiln_tensor_t *outputs, size_t num_outputs);

#ifdef __cplusplus
}
#endif

#endif /* KILN_KILN_H */
