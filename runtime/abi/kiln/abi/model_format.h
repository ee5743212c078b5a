/* kiln ABI — the contract between a compiled model `.so` and the runtime loader.
 *
 * Plain C, no MLIR/LLVM: the compiler (lib/Target/CPU) writes what this header
 * describes and the runtime (runtime/src/loader) reads it. Part of the ABI
 * header set (runtime/abi, CMake target kiln_abi), the only runtime headers
 * the compiler sees.
 *
 * A model shared object exports three symbols:
 *
 *   const char kiln_model_manifest[];   NUL-terminated text manifest, see below
 *   void kiln_model_entry(void **args); the packed entry point
 *   const unsigned char kiln_model_weights[];  64-byte aligned weight blob
 *                                       (absent with --weights=external or `weights appended`)
 *
 * Packed entry: args[0] points to the result block, args[1 + i] points to the
 * memref descriptor of argument i (arguments in manifest `arg` order:
 * parameters, buffers, constants, then user inputs, as in the graph signature).
 * A rank-r memref descriptor is, in 8-byte words:
 *     { void *allocated; void *aligned; int64_t offset;
 *       int64_t sizes[r]; int64_t strides[r]; }
 * The result block is the descriptors of every output, then of every
 * update, back to back, in manifest order (word size 3 + 2*r each). Output buffers are allocated by the
 * generated code with malloc/aligned_alloc: the caller owns `allocated` and
 * releases it with free() unless it equals the `allocated` pointer of an
 * argument descriptor it passed in (an output that aliases an argument).
 * The generated code never writes to argument buffers and keeps no global
 * mutable state, so concurrent calls are safe; state a program mutates comes
 * back as `update` results, which the loader applies.
 *
 * Manifest (version 1): lines of whitespace-separated tokens.
 *   kiln-manifest 1
 *   name <model-name>
 *   weights embedded|external|appended  appended: the blob follows the .so's code, kiln/abi/appended_weights.h
 *   device cuda|hip <arch>                optional (default: the CPU): the code runs on an
 *                                         NVIDIA (cuda, sm_90) or AMD (hip, gfx90a) GPU of
 *                                         that architecture; see below
 *   sym <symbol> <min> <max>              one per symbolic dim (max -1 = unbounded)
 *   arg <kind> <name> <dtype> <rank> <dim>... [<offset> <nbytes>]
 *        kind: param|buffer|constant|input|rng; for param/buffer/constant the
 *        name is the state-dict name (e.g. l1.weight) and, with embedded
 *        weights, offset/nbytes locate the data in kiln_model_weights.
 *        `rng` (at most one, `arg rng rng_state i64 1 2`): the program's
 *        random-number generator state [seed, offset], which the loader
 *        fills for each run (the seed from the load options, the offset
 *        advanced by one per run; the caller never passes it). Random ops
 *        draw Philox4x32-10 numbers with that seed as key and (element
 *        index, op stream, offset) as counter.
 *   arg derived <name> <dtype> <rank> <dim>...
 *        a tensor the loader computes once, at load, from the weights, as
 *        the `derive` line of that name says (no data in the blob; <name>
 *        is the first weight's name, "#", and what it is)
 *   derive <name> <recipe> <eps> <weight|->...
 *        how: after every `arg` line; each operand names an earlier weight
 *        arg (not derived), `-` an absent one. The loader computes in
 *        double precision and rounds once. Recipes (kiln-fold-batch-norm,
 *        a convolution followed by inference batch norm):
 *          conv-bn-weight <eps> W gamma|- var: W[o,...] * s[o], where
 *            s = gamma / sqrt(var + eps) (gamma absent: 1)
 *          conv-bn-bias <eps> b|- gamma|- beta|- mean var:
 *            (b - mean) * s + beta (b, beta absent: 0)
 *        and (kiln-concat-linear, linear layers that read one input):
 *          concat-rows 0 T1 T2 ...: the operands (two or more, none
 *            absent, all of one dtype and the same trailing dims)
 *            stacked along dim 0, copied exactly
 *   out <name> <dtype> <rank> <dim>...
 *   update <kind> <name> <dtype> <rank> <dim>...
 *        the new value of a weight (kind param|buffer|constant, the
 *        state-dict name) or user input (kind input) the program mutates in
 *        place; after a run the loader writes it into the model's copy of
 *        the weight, or into the caller's input tensor. Follows every `out`.
 *   layout <name> <p0> <p1> ...
 *        the entry takes weight <name> (an earlier `arg` line) permuted: its
 *        dim i is dim p_i of the state-dict tensor, packed. The loader checks
 *        the weight against the `arg` line, then permutes it once, at load
 *        (kiln-compile writes these for the NHWC filters of convolutions on
 *        CUDA, docs/cuda.md).
 *   op <qualified-name>                   one per op the model calls through the runtime's
 *                                         dispatcher (kilntest::scaled_gelu): after loading
 *                                         the plugins, the loader refuses the model when one
 *                                         is not defined
 *   plugin <file-name>                    a plugin the model was compiled with
 *                                         (kiln-compile --plugin), named in that error
 *   end
 * A GPU model's argument and result descriptors point to device memory,
 * its outputs come from the runtime's caching device allocator (the mgpu*
 * functions of runtime/src/gpu, which the model's host code calls), and
 * its constructor loads its embedded kernels; the loader sets the backend
 * and the stream and collects errors around each call (docs/cuda.md,
 * docs/rocm.md).
 * A model compiled with kiln-compile --grad (docs/autograd.md) uses the same
 * lines: its cotangents are `arg input cotangent<i>` after the user inputs,
 * and its gradients are `out grads/input<i>` and `out grads/<param name>`
 * after the model's outputs.
 * A <dim> is a decimal size, a symbol name declared by `sym`, or `?`
 * (dynamic, no known range). <dtype>: f32 f64 f16 bf16 i64 i32 i16 i8 u8 bool
 * (the KILN_DTYPE_TOKEN_* of kiln/abi/dtypes.h). The names of inputs and
 * outputs that --grad and its siblings add are in kiln/abi/io_names.h.
 */
#ifndef KILN_ABI_MODEL_FORMAT_H
#define KILN_ABI_MODEL_FORMAT_H

#include "kiln/abi/dtypes.h"
#include "kiln/abi/io_names.h"

#define KILN_MANIFEST_VERSION 1
#define KILN_SYM_MANIFEST "kiln_model_manifest"
#define KILN_SYM_ENTRY "kiln_model_entry"
#define KILN_SYM_WEIGHTS "kiln_model_weights"
#define KILN_WEIGHT_ALIGNMENT 64
/* The `arg` kind and name of the generator state. */
#define KILN_ARG_KIND_RNG "rng"
#define KILN_RNG_STATE_NAME "rng_state"
/* The `arg` kind of a tensor derived from the weights at load, the
 * separator in its name and the recipes of `derive` lines. */
#define KILN_ARG_KIND_DERIVED "derived"
#define KILN_DERIVED_NAME_SEP "#"
#define KILN_DERIVE_CONV_BN_WEIGHT "conv-bn-weight"
#define KILN_DERIVE_CONV_BN_BIAS "conv-bn-bias"
#define KILN_DERIVE_CONCAT_ROWS "concat-rows"

#ifdef __cplusplus
extern "C" {
#endif
typedef void (*kiln_model_entry_fn)(void **args);
#ifdef __cplusplus
}
#endif

#endif /* KILN_ABI_MODEL_FORMAT_H */
