//===- LibraryCalls.h - large matmuls and convolutions on buffers as calls of a runtime library, for any target ===//
//
// The target-neutral part of kiln-gpu-library-calls and
// kiln-cpu-library-calls: matching GEMMs, convolutions and their epilogues
// on bufferized linalg, and rewriting them into calls of the runtime's
// `<prefix>gemm_*` and `<prefix>conv_*` entries. Each pass is a thin driver
// that sets LibraryCallOptions.
#ifndef KILN_LIB_TRANSFORMS_LIBRARYCALLS_H
#define KILN_LIB_TRANSFORMS_LIBRARYCALLS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/DenseSet.h"

#include "kiln/abi/cpu_calls.h"
#include "kiln/abi/gpu_calls.h"

#include <string>

namespace kiln::libcalls {

using namespace mlir;

/// How one operand of a (batched) matmul is laid out: which loop each of its
/// dims walks.
struct GemmOperand {
  Value buffer;
  bool transposed = false; ///< stored (k, m) for A or (n, k) for B
};

/// A contraction matched as a GEMM: its operands and, for each of A, B and
/// C, how its dims group into (batch, rows, cols) or (rows, cols).
struct GemmMatch {
  GemmOperand A, B;
  Type widened; ///< float32 where mixed inputs multiply in float32 (narrower ones are widened copies)
  SmallVector<ReassociationIndices> aGroups, bGroups, cGroups;
};

/// Bits of the runtime GEMM's `flags` argument (runtime/src/cuda/Blas.cpp).
constexpr int32_t kGemmTF32 = KILN_GPU_GEMM_TF32, kGemmOverwrite = KILN_GPU_GEMM_OVERWRITE,
                  kGemmReLU = KILN_GPU_GEMM_RELU;

/// A 2-D convolution in NCHW / FCHW layout on buffers:
/// out[n, f, oh, ow] += in[n, c, oh*s0 + kh*d0, ow*s1 + kw*d1] * w[f, c, kh, kw].
/// It is the GEMM out[n] (F x OH*OW) += w (F x C*KH*KW) * col[n] (C*KH*KW x
/// OH*OW), where col is the input itself for a 1x1, stride-1 convolution
/// over a contiguous input of the output's size, and an im2col copy otherwise.
struct ConvMatch {
  Value input, filter, output;
  int64_t stride[2], dilation[2];
  bool direct = false;
};

/// A convolution for the runtime's cuDNN call: out[n, (g,) f, o..] +=
/// in[n, (g,) c, o_i*s_i + k_i*d_i ..] * w[(g,) f, c, k..] with 1 to 3
/// spatial dims, grouped when the channels come split into (groups, C/G).
struct DnnConvMatch {
  Value input, filter, output;
  bool grouped = false;
  int64_t groups = 1;
  SmallVector<int64_t> stride, dilation, padding;
  /// When the input is a zero-padded copy of `source` (see matchPadding):
  /// the ops that pad it, erased once the call reads `source` instead.
  Value source;
  SmallVector<Operation *> padOps;
  /// Frees of `source`'s buffer between the copy and the convolution: moved after it.
  SmallVector<Operation *> movedFrees;
  /// The output is `source`'s whole buffer (bufferization reused the padded
  /// input's source for the result), initialised between the copy and the
  /// convolution: the call writes a fresh buffer, which later uses read.
  bool freshOutput = false;
  Operation *outputInit = nullptr;  ///< that initialising op (a linalg op writing the whole output)
  /// Channels last (N, spatial.., C), (F, k.., C) and (N, o.., F): the dim
  /// of each operand at each position of the channels-first order the call
  /// takes (of a grouped one, after its channels merge); empty when the
  /// operands are channels-first.
  SmallVector<int64_t> channelsLast;
  /// Grouped and channels last: (N, s.., G, C/G), (G, F/G, k.., C/G), (N, o.., G, F/G).
  bool groupedLast = false;
  /// The dim of the (N, ..) operands where their (G, X/G) pair starts.
  int64_t groupDim() const { return groupedLast ? static_cast<int64_t>(stride.size()) + 1 : 1; }
};

/// A convolution's gradient marked kiln.conv_backward by the lowering, on
/// buffers (ConvBackwardLibraryCalls.cpp): the input gradient dx (+)=
/// conv_transpose(dy, w) or the weight gradient dw (+)= conv(x, dy), both 2-d
/// in NCHW / FCHW.
struct ConvBackwardMatch {
  bool data = false;      ///< the input gradient (else the weight's)
  Value x, dy, w;         ///< for the data part x is the output dx, for the filter part w is dw
  /// Per operand: the buffer dim of each of its (N, C, H, W) / (F, C, KH, KW)
  /// dims, when it is read permuted (kiln-channels-last folds transposes into
  /// the indexing maps); empty when in that order.
  SmallVector<int64_t> xPerm, dyPerm, wPerm;
  int64_t groups = 1;
  SmallVector<int64_t> stride, padding, dilation;
  Operation *spread = nullptr;          ///< data: the op that spread dy by the stride, erased
  SmallVector<Operation *> padOps;      ///< filter: the ops that padded x, erased
  SmallVector<Operation *> movedFrees;  ///< frees of a source to move after the call
};

/// Bits of the runtime convolution's `flags` argument (runtime/src/cuda/Dnn.cpp).
constexpr int32_t kConvTF32 = KILN_GPU_CONV_TF32, kConvOverwrite = KILN_GPU_CONV_OVERWRITE;

/// Bit of a call whose weight operand (a GEMM's B, a convolution's filter)
/// never changes while the model is loaded: the CPU runtime keeps it
/// reordered (kiln/abi/cpu_calls.h, whose overwrite and ReLU bits are the GPU
/// runtime's too).
constexpr int32_t kConstWeight = KILN_CPU_CONST_WEIGHT;
static_assert(kGemmOverwrite == KILN_CPU_OVERWRITE && kConvOverwrite == KILN_CPU_OVERWRITE &&
              kGemmReLU == KILN_CPU_RELU && int(KILN_GPU_CONV_RELU) == int(KILN_CPU_RELU));

/// What of a convolution's neighbours folds into the runtime's call
/// (see matchConvEpilogue, LibraryCallConvEpilogue.cpp).
struct ConvEpilogue {
  Operation *biasFill = nullptr; ///< the broadcast of `bias` that initialised the output, erased
  Value bias;                    ///< [F] of the data type, contiguous
  Operation *activation = nullptr; ///< the activation of the whole output right after, erased
  int32_t flag = 0;                ///< its KILN_CPU_* bit (RELU, HARDSWISH, SILU, SIGMOID)
  Value output;                    ///< the activation's own output, which the call writes instead, or null
  Operation *hoist = nullptr;      ///< that output's allocation, moved before the call
  Value residual;                  ///< a tensor of the output's type the activation adds first, or null
};

/// What of a GEMM's neighbours folds into its call (see matchEpilogue).
struct Epilogue {
  Operation *biasFill = nullptr; ///< the broadcast that initialised C, erased
  Value bias;                    ///< the bias vector ([N..]) of D's element type, or one to widen to float32
  bool biasCopy = false;         ///< bias is to be widened to a contiguous float32 copy
  Operation *consumer = nullptr; ///< the op that read C, erased (D is its output) or retyped
  bool eraseConsumer = false;
  Operation *hoist = nullptr;    ///< the allocation of D, moved before the GEMM
  bool relu = false;
  Value D;     ///< where the GEMM writes (C, the consumer's output, or null: a fresh buffer)
  Type dElem;  ///< D's element type
};

/// The type suffix of the runtime's GEMM (`<prefix>gemm_<suffix>`) for
/// operands of type `ab` and a result of type `c`:
/// all three f32, bf16 or f16, or bf16/f16 operands with an f32 result (the
/// product kept in float32, as kiln lowers reduced-precision matmuls before
/// their final rounding); null for any other pair.
const char *gemmName(Type ab, Type c);

/// The rank-3 fully dynamic strided memref of `elem` the runtime's GEMM takes.
MemRefType gemmArgType(Type elem);

/// `buffer` as a rank-3 (batch, rows, cols) strided memref.
Value asGemmArg(OpBuilder &b, Location loc, Value buffer);

/// `buffer` with each group of `groups` dims merged (identity layout, or
/// strides that allow it: see usableAsIs).
Value collapse(OpBuilder &b, Location loc, Value buffer, ArrayRef<ReassociationIndices> groups);

/// Whether the GEMM can read `type` (grouped by `groups`) in place: its
/// groups collapse into single dims and its rows are contiguous (the runtime
/// takes any row and batch stride). Otherwise it reads a contiguous copy.
bool usableAsIs(MemRefType type, ArrayRef<ReassociationIndices> groups);

/// A fresh contiguous buffer of `elem` holding strided view `view`'s
/// elements (extended to `elem` if narrower), filled by one parallel
/// `linalg.generic` (a generated copy kernel).
Value contiguousCopy(OpBuilder &b, Location loc, Value view, Type elem);

/// The buffer `v` is a view of (through view-like ops), or `v` itself.
Value rootBuffer(Value v);

/// The scalar `op` writes to every element of its one output (a fill, or an
/// all-parallel op with an identity output map yielding a value defined
/// outside it, a constant or a scalar input), or null.
Value filledValue(linalg::LinalgOp op);

/// Whether `op` writes zero to every element of its one output.
bool isZeroFill(linalg::LinalgOp op);

/// Whether linalg op `op` copies its one input into its one output (a
/// linalg.copy, or an all-parallel generic with identity maps yielding the input).
bool isCopy(linalg::LinalgOp op);

/// The op that zero-fills `buffer` before `op` in its block with nothing in
/// between touching `buffer` or a view of it, or null: the GEMM may then
/// overwrite `buffer` instead of adding to it, and the fill goes away. A
/// copy of another buffer that is zero-filled the same way (bufferization
/// shares one zeroed tensor among several accumulators) counts as a fill.
Operation *zeroFillBefore(Operation *op, Value buffer);

/// Whether `buffer` holds zeros when `op` runs: zeroFillBefore, or a fill
/// that ops reading `buffer` follow (that fill must then stay).
bool zeroedBefore(Operation *op, Value buffer);

/// Whether `op` or an op nested in it uses `root` or a view of it.
bool touches(Operation *op, Value root);

/// The nearest op before (`forward` false) or after `op` in its block that
/// touches buffer `root` (or a view of it), or null.
Operation *nearestToucher(Operation *op, Value root, bool forward);

/// Whether no op strictly between `from` and `to` (one block, `from` first)
/// touches any of `roots`.
bool untouchedBetween(Operation *from, Operation *to, ArrayRef<Value> roots);

/// Whether `op` writes every element of its one init `buffer` (all parallel
/// loops, identity output map) without reading its old contents.
bool overwritesWhole(Operation *op, Value buffer);

/// Whether the contents of buffer `c` (a local allocation) are never read
/// after `op`: the next op touching it overwrites it whole or frees it, or
/// nothing touches it again.
bool deadAfter(Operation *op, Value c);

/// The value `v` is if it is `arith.extf` of something, else `v`.
Value stripExt(Value v);

/// Whether `v` is a floating-point zero constant (either sign).
bool isZero(Value v);

/// The coefficient of loop `d` in affine expression `e` (linear in the loops).
int64_t coefficient(AffineExpr e, unsigned d, unsigned numLoops);

/// The loop of each dim of `operand` in `op`'s indexing map, when every
/// result is a plain loop dim.
bool loopsOf(linalg::LinalgOp op, OpOperand *operand, SmallVectorImpl<unsigned> &loops);

/// The rank-5 fully dynamic strided memref of `elem` the runtime's convolution takes.
MemRefType convArgType(Type elem);

/// `buffer` (N, C, spatial..) with unit dims after C up to rank 5, as the
/// runtime's argument type. With `perm` (channels last), position i of that
/// order is `buffer`'s dim perm[i]: a view of its own strided metadata.
Value asConvArg(OpBuilder &b, Location loc, Value buffer, ArrayRef<int64_t> perm = {});

/// The reassociation of a rank-`rank` (.., G, X/G, ..) view that merges
/// dims `first` and `first + 1` (the groups and the channels per group).
SmallVector<ReassociationIndices> mergedChannels(int64_t rank, int64_t first);

/// Makes each convolution under `root` that writes a static strided slice
/// (its part of a concatenation) write a dense buffer of its own, copied into
/// the slice after it, so that the runtime's convolution can take it
/// (LibraryCallStagedOutputs.cpp).
void stageStridedConvOutputs(Operation *root);

/// Marks the x, y and r operands of the CPU's convolution calls whose
/// buffers only such calls touch (KILN_CPU_X/Y/R_BLOCKED): the runtime keeps
/// those buffers in oneDNN's blocked layout (LibraryCallBlockedBuffers.cpp).
void markBlockedConvBuffers(Operation *root);

/// What one target's pass rewrites and how its runtime's entries are named.
struct LibraryCallOptions {
  std::string prefix = "kiln_gpu_"; ///< of every callee: `<prefix>gemm_f32`, `<prefix>conv_f32`, ...
  bool deviceCall = true;           ///< callees carry `kiln.device_call` (their operands are device buffers)
  bool f32Only = false;             ///< only float32 operands and results (the runtime has no other types)
  bool constWeights = false;        ///< flag a weight read straight from a constant weight argument
  int64_t minMacs = 262144, dynamicSize = 128;
  bool tf32Convs = false, tf32Matmuls = false;
  bool gemms = true;                ///< large matmuls become GEMM calls
  std::string convs = "library";    ///< library (`<prefix>conv_*` calls), gemm (im2col + GEMM) or kernel (left alone)
  bool epilogues = true;            ///< fold a GEMM's bias broadcast, rounding and ReLU into the call
  bool depthwiseConvs = true;       ///< with convs=library, depthwise convolutions too (else generated)
  bool convEpilogues = false;       ///< fold a convolution's bias broadcast, activation (and 16-bit rounding on the GPU) into its call
  /// The activations (KILN_CPU_* bits) the runtime's conv_bias entry applies:
  /// all four on the CPU (oneDNN post-ops), ReLU on the GPU (cuDNN).
  int32_t convActivations = KILN_CPU_RELU | KILN_CPU_HARDSWISH | KILN_CPU_SILU | KILN_CPU_SIGMOID;
  /// Whether the runtime has a conv_bias_add entry (a residual added before the activation): the CPU's, and the GPU's for 16-bit data.
  bool convResidual = true;
  /// A 1x1, stride-1, unpadded, ungrouped channels-last 16-bit convolution
  /// with a bias and no activation runs as the GEMM it is, its bias, residual
  /// and rounding the epilogue of `<prefix>gemm_lt_*` (LibraryCallPointwiseGemm.cpp; the GPU's).
  bool pointwiseGemms = false;
};

/// Finds and rewrites the library calls of a module.
class LibraryCalls : public LibraryCallOptions {
public:
  LibraryCalls(MLIRContext *ctx, const LibraryCallOptions &options) : LibraryCallOptions(options), ctx(ctx) {}

  MLIRContext &getContext() { return *ctx; }

  /// Success if `op`'s operands are buffers the runtime's GEMM takes (inputs
  /// of one element type, an output of a type gemmName pairs with it), with
  /// identity layouts (the input's only if `identityInput`).
  LogicalResult checkOperands(linalg::LinalgOp op, bool identityInput, bool stridedInputs = false,
                              Type *widenedTo = nullptr);

  /// Whether `op` multiplies its inputs in `f32`: every input is a float of
  /// at most 32 bits, the body extends each narrower one to `f32` (its only
  /// use) and never narrows an `f32` one, and the output is `f32`.
  static bool isWidenedProduct(linalg::LinalgOp op, Type f32);

  /// A problem of fewer than `min-macs` multiply-adds (a dynamic loop
  /// counting as `dynamic-size` iterations) stays a generated kernel.
  bool bigEnough(linalg::LinalgOp op);

  /// The convolution if `op` is one in NCHW / FCHW layout (any loop order).
  FailureOr<ConvMatch> matchConv(linalg::LinalgOp op);

  /// The GEMM `op` computes if it is C[batch.., M.., N..] += A * B on buffers
  /// of one element type the runtime takes, with identity layouts, where A is
  /// [batch.., M.., K..] or [batch.., K.., M..] (transposed) and B is
  /// [batch.., K.., N..] or [batch.., N.., K..] (transposed): each group of
  /// loops contiguous and in one order in every operand it appears in, so the
  /// groups collapse into single dims. A loop only A and C walk (a batch dim
  /// the other operand broadcasts, as a linear layer on a 3-D activation) is
  /// one of the M loops; several batch loops (attention's batch and heads)
  /// collapse into one. Failure otherwise.
  FailureOr<GemmMatch> matchGemm(linalg::LinalgOp op);

  /// The bias vector X if `fill` initialises every element of `c` (all
  /// parallel loops, identity output map) with X[n..]: X indexed by the
  /// loops of C's column group in order, the body yielding X's element
  /// (extended to C's type if narrower). Null otherwise.
  static Value biasOf(Operation *fill, Value c, const GemmMatch &g);

  /// The bias X (read by `fill`, which runs before `gemm`) as a contiguous
  /// vector of `want`: X itself, or the vector Y an elementwise op widened
  /// into X (`X = extf(Y)`, a linear layer's bf16 bias for its float32
  /// product), provided neither changes before `gemm`. Null if neither is.
  static Value biasIn(Value x, Operation *fill, Operation *gemm, Type want);

  /// `v` without a rounding `arith.truncf` to `t` (round to nearest even),
  /// or null if it is not one.
  static Value unround(Value v, Type t);

  /// Whether `v` is max(x, 0) (`arith.maximumf` or `maxnumf`, either
  /// operand order); sets `x`.
  static bool isRelu(Value v, Value &x);

  /// Whether the body of `l` yields, for `c` (its block argument of the
  /// GEMM's result), only c (`t` null), round(c) (to `t`) or the ReLU of
  /// either (in any of the forms kiln lowers it to: max in float32 on c or
  /// on the rounded value, or max in `t`); sets `relu`. ReLU commutes with
  /// rounding, so each equals rounding once after the GEMM's ReLU.
  static bool isCopyBody(linalg::LinalgOp l, BlockArgument c, Type t, bool &relu);

  /// What folds into GEMM `op` (C its output): a bias broadcast that
  /// initialised C just before (biasOf), and the one op that reads C next,
  /// when C is dead after it. That op goes away if it only copies C (rounded
  /// to the operands' bf16/f16 type where the product of such operands is
  /// float32, with a ReLU where there is a bias), the GEMM writing its output
  /// instead; if it only reads C rounded to that type, the GEMM writes a
  /// fresh buffer of that type, which the op reads instead.
  Epilogue matchEpilogue(linalg::LinalgOp op, const GemmMatch &g, const llvm::DenseSet<Operation *> &calls);

  /// The float32 convolution `op` (matched as `m`)'s bias broadcast that
  /// filled its whole output just before it, and the activation (ReLU,
  /// hardswish, SiLU, sigmoid) of the whole output right after it, in place
  /// or into a buffer of its own, optionally after adding a tensor of the
  /// output's type (a residual; only with a bias). On the GPU also a 16-bit
  /// convolution's (its float32 accumulator filled with the widened 16-bit
  /// bias, then rounded, with a ReLU or a 16-bit residual added, into a
  /// 16-bit buffer) (LibraryCallConvEpilogue.cpp).
  ConvEpilogue matchConvEpilogue(linalg::LinalgOp op, const DnnConvMatch &m);

  /// The CPU runtime's convolution with a bias, declared once in the module:
  /// void <prefix>conv_bias_f32(i32 flags, i64 groups, i64 s0, s1, s2, p0,
  /// p1, p2, d0, d1, d2, x, w, y, bias).
  /// (`elem` the data type: f32 on the CPU, also bf16 and f16 on the GPU).
  func::FuncOp convBiasCallee(ModuleOp module, Type elem);

  /// The same with a tensor added before the activation (a residual):
  /// void <prefix>conv_bias_add_<type>(i32 flags, i64 groups, ..., x, w, y,
  /// bias, r).
  func::FuncOp convBiasAddCallee(ModuleOp module, Type elem);
  func::FuncOp convBiasCallee(ModuleOp module, bool residual, Type elem);

  /// The convolution if `op` is one the runtime's cuDNN call computes.
  FailureOr<DnnConvMatch> matchDnnConv(linalg::LinalgOp op);

  /// If the convolution's input (through the expand_shape that splits its
  /// groups) is a buffer that is zeroed, then has `source` copied into its
  /// interior, padded equally on both sides of each spatial dim and used by
  /// nothing else, records `source`, the padding and the ops to erase. The
  /// copy must come before `op` in its block with nothing in between
  /// touching `source`'s buffer but frees (moved after the call).
  bool matchPadding(linalg::LinalgOp op, DnnConvMatch &m);

  /// Whether `buffer`, written by `op`, is an allocation of `op`'s block
  /// that afterwards, up to the next op that overwrites it whole (a later
  /// value in a reused buffer) or its free, is only read as an input of
  /// linalg.generic ops in that block; collects those uses (and the free).
  static bool onlyReadAfter(linalg::LinalgOp op, Value buffer, SmallVector<OpOperand *> &uses);

  /// The runtime's epilogue GEMM (cuBLASLt) for operands of type `ab` and
  /// a result of type `d`, declared once in the module:
  /// void <prefix>gemm_lt_<type>(i32 transA, i32 transB, i32 flags, A, B,
  /// D, bias): D[b] = op(A[b]) * op(B[b]) (+ D[b] without kGemmOverwrite)
  /// + bias[n] (ReLU'd with kGemmReLU), accumulating in float32 and rounding
  /// once into D's type; see runtime/src/cuda/Blas.cpp and runtime/src/cpu/Matmul.cpp.
  func::FuncOp gemmLtCallee(ModuleOp module, Type ab, Type d);

  /// Drops every local buffer nothing reads: its allocation, its frees and
  /// the linalg ops that only write it (the float32 products and widened
  /// biases the epilogues made dead).
  static void dropUnreadBuffers(ModuleOp module, IRRewriter &rewriter);

  /// The runtime's GEMM for operands of type `ab` and a result of type `c`,
  /// declared once in the module.
  func::FuncOp gemmCallee(ModuleOp module, Type ab, Type c);

  /// The runtime function `name` taking `inputs` and returning nothing,
  /// declared once in the module: private, with a C interface, a device
  /// call on the GPU. Every callee above is declared through it.
  func::FuncOp declareCallee(ModuleOp module, StringRef name, ArrayRef<Type> inputs);


  void callGemm(OpBuilder &b, Location loc, ModuleOp module, bool transA, bool transB, int32_t flags, Value A,
                Value B, Value C);

  /// Replaces convolution `op` by an im2col copy (unless direct) and a GEMM.
  void rewriteConv(IRRewriter &rewriter, ModuleOp module, linalg::LinalgOp op, const ConvMatch &m);

  /// Erases buffers allocated and then only written (by linalg ops whose one
  /// output they are) and freed: the zero fills that calls overwriting their
  /// output no longer need.
  static void eraseWriteOnlyBuffers(ModuleOp module, IRRewriter &rewriter);

  /// GEMM inputs that a copy through a permutation filled just before (the
  /// split of a projection into attention heads) read the copy's source
  /// through a transposed view (memref.reinterpret_cast) instead, where the library takes that
  /// view as it is; the copies go (their buffers, if nothing else uses
  /// them, in eraseWriteOnlyBuffers) (LibraryCallCopiedInputs.cpp).
  void readInputsThroughCopies(ModuleOp module, IRRewriter &rewriter);

  /// The runtime's convolution for element type `elem`, declared once in
  /// the module: `<prefix><kind><type>` (kind conv_, conv_bwd_data_ or
  /// conv_bwd_filter_, which all take the same arguments).
  func::FuncOp convCallee(ModuleOp module, Type elem, StringRef kind = "conv_");

  /// Replaces convolution `op` by a call of the runtime's cuDNN convolution.
  void rewriteDnnConv(IRRewriter &rewriter, ModuleOp module, linalg::LinalgOp op, DnnConvMatch &m);

  /// With `pointwiseGemms`, where convolution `m` is 1x1, stride 1,
  /// unpadded, ungrouped, channels last and 16-bit, its epilogue `ep` a bias
  /// and no activation, and its operands' rows (N, s..) merge in place: the
  /// GEMM y (rows x F) = x (rows x C) * w (F x C)^T + bias (cuBLASLt) that
  /// rewriteDnnConv emits instead of the convolution call, with the call's
  /// overwrite flag, and `ep`'s residual (copied into y first unless y is
  /// the residual's buffer, then accumulated onto). `x`, `w` and `y` are the operands the
  /// call would take. Returns the call, or null (the convolution call stays).
  Operation *pointwiseGemm(IRRewriter &rewriter, ModuleOp module, Location loc, const DnnConvMatch &m,
                           const ConvEpilogue &ep, Value x, Value w, Value y, int32_t flags);


  /// The gradient `op` computes if it is a part of a convolution's gradient
  /// (kiln.conv_backward) on buffers of one element type the runtime takes.
  FailureOr<ConvBackwardMatch> matchConvBackward(linalg::LinalgOp op);

  /// Replaces `op` by a call of the runtime's backward-data or backward-filter convolution.
  void rewriteConvBackward(IRRewriter &rewriter, ModuleOp module, linalg::LinalgOp op, ConvBackwardMatch &m);

  LogicalResult run(ModuleOp module);

  /// Whether `weight` is read straight from (a view of) an argument of its
  /// function of a weight kind (`kiln.kind` other than input) that no run
  /// updates: the CPU runtime may keep a reordered copy of it.
  static bool isConstWeight(Value weight);

private:
  MLIRContext *ctx;
};

} // namespace kiln::libcalls

#endif // KILN_LIB_TRANSFORMS_LIBRARYCALLS_H
