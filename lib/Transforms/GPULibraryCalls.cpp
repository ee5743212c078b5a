//===- GPULibraryCalls.cpp - large matmuls and convolutions as calls of the GPU runtime's libraries ===//
#include "kiln/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace kiln {
#define GEN_PASS_DEF_KILNGPULIBRARYCALLS
#include "kiln/Transforms/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

/// The runtime's GEMM for operands of type `ab` and a result of type `c`:
/// all three f32, bf16 or f16, or bf16/f16 operands with an f32 result (the
/// product kept in float32, as kiln lowers reduced-precision matmuls before
/// their final rounding); null for any other pair.
const char *gemmName(Type ab, Type c) {
  if (ab != c)
    return !c.isF32() ? nullptr : ab.isBF16() ? "kiln_gpu_gemm_bf16_f32" : ab.isF16() ? "kiln_gpu_gemm_f16_f32" : nullptr;
  if (c.isF32())
    return "kiln_gpu_gemm_f32";
  if (c.isBF16())
    return "kiln_gpu_gemm_bf16";
  if (c.isF16())
    return "kiln_gpu_gemm_f16";
  return nullptr;
}

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

/// The rank-3 fully dynamic strided memref of `elem` the runtime's GEMM takes.
MemRefType gemmArgType(Type elem) {
  MLIRContext *ctx = elem.getContext();
  int64_t d = ShapedType::kDynamic;
  return MemRefType::get({d, d, d}, elem, StridedLayoutAttr::get(ctx, d, {d, d, d}));
}

/// `buffer` as a rank-3 (batch, rows, cols) strided memref.
Value asGemmArg(OpBuilder &b, Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  if (type.getRank() == 2)
    buffer = memref::ExpandShapeOp::create(
        b, loc, SmallVector<int64_t>{1, type.getDimSize(0), type.getDimSize(1)}, buffer,
        SmallVector<ReassociationIndices>{{0, 1}, {2}});
  return memref::CastOp::create(b, loc, gemmArgType(type.getElementType()), buffer);
}

/// `buffer` with each group of `groups` dims merged (identity layout, or
/// strides that allow it: see usableAsIs).
Value collapse(OpBuilder &b, Location loc, Value buffer, ArrayRef<ReassociationIndices> groups) {
  if (groups.size() == static_cast<size_t>(cast<MemRefType>(buffer.getType()).getRank()))
    return buffer;
  return memref::CollapseShapeOp::create(b, loc, buffer, groups);
}

/// Whether the GEMM can read `type` (grouped by `groups`) in place: its
/// groups collapse into single dims and its rows are contiguous (the runtime
/// takes any row and batch stride). Otherwise it reads a contiguous copy.
bool usableAsIs(MemRefType type, ArrayRef<ReassociationIndices> groups) {
  if (type.getLayout().isIdentity())
    return true;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) || strides.empty() || strides.back() != 1)
    return false;
  return groups.size() == static_cast<size_t>(type.getRank()) ||
         memref::CollapseShapeOp::isGuaranteedCollapsible(type, groups);
}

/// A fresh contiguous buffer of `elem` holding strided view `view`'s
/// elements (extended to `elem` if narrower), filled by one parallel
/// `linalg.generic` (a generated copy kernel).
Value contiguousCopy(OpBuilder &b, Location loc, Value view, Type elem) {
  auto type = cast<MemRefType>(view.getType());
  SmallVector<Value> dynamicSizes;
  for (int64_t i = 0; i < type.getRank(); ++i)
    if (type.isDynamicDim(i))
      dynamicSizes.push_back(memref::DimOp::create(b, loc, view, i));
  auto contiguous = MemRefType::get(type.getShape(), elem);
  Value copy = memref::AllocOp::create(b, loc, contiguous, dynamicSizes, b.getI64IntegerAttr(64));
  AffineMap id = b.getMultiDimIdentityMap(type.getRank());
  linalg::GenericOp::create(b, loc, ValueRange{view}, ValueRange{copy}, ArrayRef<AffineMap>{id, id},
                            SmallVector<utils::IteratorType>(type.getRank(), utils::IteratorType::parallel),
                            [&](OpBuilder &nb, Location l, ValueRange args) {
                              Value v = args[0];
                              if (v.getType() != elem)
                                v = arith::ExtFOp::create(nb, l, elem, v);
                              linalg::YieldOp::create(nb, l, v);
                            });
  return copy;
}

/// Bits of the runtime GEMM's `flags` argument (runtime/src/cuda/Blas.cpp).
constexpr int32_t kGemmTF32 = 1, kGemmOverwrite = 2, kGemmReLU = 4;

/// The buffer `v` is a view of (through view-like ops), or `v` itself.
Value rootBuffer(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

/// Whether `op` writes zero to every element of its one output (a fill, or
/// an all-parallel op with an identity output map yielding a zero constant).
bool isZeroFill(linalg::LinalgOp op) {
  if (op.getNumDpsInits() != 1 || op->getNumResults() != 0)
    return false;
  if (auto fill = dyn_cast<linalg::FillOp>(op.getOperation()))
    return matchPattern(fill.value(), m_AnyZeroFloat());
  if (op.getNumParallelLoops() != op.getNumLoops() ||
      !op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity())
    return false;
  auto yield = dyn_cast<linalg::YieldOp>(op.getBlock()->getTerminator());
  if (!yield || yield.getNumOperands() != 1)
    return false;
  Value v = yield.getOperand(0);
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    if (arg.getOwner() != op.getBlock() || arg.getArgNumber() >= op.getNumDpsInputs())
      return false;
    v = op.getDpsInputOperand(arg.getArgNumber())->get();  // a scalar input
    if (isa<ShapedType>(v.getType()))
      return false;
  }
  return matchPattern(v, m_AnyZeroFloat());
}

/// Whether linalg op `op` copies its one input into its one output (a
/// linalg.copy, or an all-parallel generic with identity maps yielding the input).
bool isCopy(linalg::LinalgOp op) {
  if (isa<linalg::CopyOp>(op.getOperation()))
    return true;
  if (op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 || op.getNumParallelLoops() != op.getNumLoops() ||
      !llvm::all_of(op.getIndexingMapsArray(), [](AffineMap m) { return m.isIdentity(); }))
    return false;
  auto yield = dyn_cast<linalg::YieldOp>(op.getBlock()->getTerminator());
  return yield && yield.getNumOperands() == 1 && yield.getOperand(0) == op.getBlock()->getArgument(0);
}

/// The op that zero-fills `buffer` before `op` in its block with nothing in
/// between touching `buffer` or a view of it, or null: the GEMM may then
/// overwrite `buffer` instead of adding to it, and the fill goes away. A
/// copy of another buffer that is zero-filled the same way (bufferization
/// shares one zeroed tensor among several accumulators) counts as a fill.
Operation *zeroFillBefore(Operation *op, Value buffer) {
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    auto lin = dyn_cast<linalg::LinalgOp>(prev);
    if (lin && lin.getNumDpsInits() == 1 && lin.getDpsInitOperand(0)->get() == buffer) {
      if (isZeroFill(lin))
        return prev;
      if (isCopy(lin) && lin.getDpsInputOperand(0)->get() != buffer &&
          zeroFillBefore(prev, lin.getDpsInputOperand(0)->get()))
        return prev;
      return nullptr;
    }
    bool touches = false;
    prev->walk([&](Operation *o) {
      for (Value v : o->getOperands())
        touches |= rootBuffer(v) == buffer;
    });
    if (touches)
      return nullptr;
  }
  return nullptr;
}

/// Whether `op` or an op nested in it uses `root` or a view of it.
bool touches(Operation *op, Value root) {
  bool found = false;
  op->walk([&](Operation *o) {
    for (Value v : o->getOperands())
      found |= rootBuffer(v) == root;
  });
  return found;
}

/// The nearest op before (`forward` false) or after `op` in its block that
/// touches buffer `root` (or a view of it), or null.
Operation *nearestToucher(Operation *op, Value root, bool forward) {
  for (Operation *o = forward ? op->getNextNode() : op->getPrevNode(); o;
       o = forward ? o->getNextNode() : o->getPrevNode())
    if (touches(o, root))
      return o;
  return nullptr;
}

/// Whether no op strictly between `from` and `to` (one block, `from` first)
/// touches any of `roots`.
bool untouchedBetween(Operation *from, Operation *to, ArrayRef<Value> roots) {
  for (Operation *o = from->getNextNode(); o && o != to; o = o->getNextNode())
    for (Value r : roots)
      if (touches(o, r))
        return false;
  return true;
}

/// Whether `op` writes every element of its one init `buffer` (all parallel
/// loops, identity output map) without reading its old contents.
bool overwritesWhole(Operation *op, Value buffer) {
  auto lin = dyn_cast<linalg::LinalgOp>(op);
  if (!lin || lin.getNumDpsInits() != 1 || lin->getNumResults() != 0 || lin.getDpsInitOperand(0)->get() != buffer ||
      lin.getNumParallelLoops() != lin.getNumLoops() ||
      !lin.getMatchingIndexingMap(lin.getDpsInitOperand(0)).isIdentity() ||
      !lin.getMatchingBlockArgument(lin.getDpsInitOperand(0)).use_empty())
    return false;
  return llvm::none_of(lin.getDpsInputOperands(), [&](OpOperand *in) { return rootBuffer(in->get()) == buffer; });
}

/// Whether the contents of buffer `c` (a local allocation) are never read
/// after `op`: the next op touching it overwrites it whole or frees it, or
/// nothing touches it again.
bool deadAfter(Operation *op, Value c) {
  if (!c.getDefiningOp<memref::AllocOp>() || c.getDefiningOp()->getBlock() != op->getBlock())
    return false;
  Operation *next = nearestToucher(op, c, /*forward=*/true);
  if (!next)
    return true;
  if (auto dealloc = dyn_cast<memref::DeallocOp>(next))
    return dealloc.getMemref() == c;
  return overwritesWhole(next, c);
}

/// The value `v` is if it is `arith.extf` of something, else `v`.
Value stripExt(Value v) {
  if (auto ext = v.getDefiningOp<arith::ExtFOp>())
    return ext.getIn();
  return v;
}

/// Whether `v` is a floating-point zero constant (either sign).
bool isZero(Value v) { return matchPattern(v, m_AnyZeroFloat()); }

/// The coefficient of loop `d` in affine expression `e` (linear in the loops).
int64_t coefficient(AffineExpr e, unsigned d, unsigned numLoops) {
  MLIRContext *ctx = e.getContext();
  SmallVector<AffineExpr> at0(numLoops, getAffineConstantExpr(0, ctx)), at1 = at0;
  at1[d] = getAffineConstantExpr(1, ctx);
  auto c0 = dyn_cast<AffineConstantExpr>(simplifyAffineExpr(e.replaceDims(at0), numLoops, 0));
  auto c1 = dyn_cast<AffineConstantExpr>(simplifyAffineExpr(e.replaceDims(at1), numLoops, 0));
  return c0 && c1 ? c1.getValue() - c0.getValue() : 0;
}

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

/// Bits of the runtime convolution's `flags` argument (runtime/src/cuda/Dnn.cpp).
constexpr int32_t kConvTF32 = 1, kConvOverwrite = 2;

/// The loop of each dim of `operand` in `op`'s indexing map, when every
/// result is a plain loop dim.
bool loopsOf(linalg::LinalgOp op, OpOperand *operand, SmallVectorImpl<unsigned> &loops) {
  for (AffineExpr e : op.getMatchingIndexingMap(operand).getResults()) {
    auto d = dyn_cast<AffineDimExpr>(e);
    if (!d)
      return false;
    loops.push_back(d.getPosition());
  }
  return true;
}

/// The rank-5 fully dynamic strided memref of `elem` the runtime's convolution takes.
MemRefType convArgType(Type elem) {
  MLIRContext *ctx = elem.getContext();
  int64_t d = ShapedType::kDynamic;
  return MemRefType::get({d, d, d, d, d}, elem, StridedLayoutAttr::get(ctx, d, {d, d, d, d, d}));
}

/// `buffer` (N, C, spatial..) with unit dims after C up to rank 5, as the
/// runtime's argument type. With `perm` (channels last), position i of that
/// order is `buffer`'s dim perm[i]: a view of its own strided metadata.
Value asConvArg(OpBuilder &b, Location loc, Value buffer, ArrayRef<int64_t> perm = {}) {
  auto type = cast<MemRefType>(buffer.getType());
  if (!perm.empty()) {
    auto md = memref::ExtractStridedMetadataOp::create(b, loc, buffer);
    SmallVector<OpFoldResult> sizes, strides;
    for (int64_t i = 0; i < static_cast<int64_t>(perm.size()); ++i) {
      // Unit spatial dims after C, strided as a packed layout would be.
      if (i == 2)
        for (int64_t u = perm.size(); u < 5; ++u) {
          sizes.push_back(b.getIndexAttr(1));
          strides.push_back(OpFoldResult(
              arith::MulIOp::create(b, loc, md.getSizes()[perm[2]], md.getStrides()[perm[2]]).getResult()));
        }
      sizes.push_back(md.getSizes()[perm[i]]);
      strides.push_back(md.getStrides()[perm[i]]);
    }
    return memref::ReinterpretCastOp::create(b, loc, convArgType(type.getElementType()), buffer,
                                             OpFoldResult(md.getOffset()), sizes, strides);
  }
  int64_t rank = type.getRank();
  if (rank < 5) {
    SmallVector<int64_t> shape{type.getDimSize(0), type.getDimSize(1)};
    SmallVector<ReassociationIndices> groups{{0}, {1}};
    for (int64_t i = rank; i < 5; ++i) {
      shape.push_back(1);
      groups[1].push_back(static_cast<int64_t>(shape.size()) - 1);
    }
    for (int64_t i = 2; i < rank; ++i) {
      shape.push_back(type.getDimSize(i));
      groups.push_back({static_cast<int64_t>(shape.size()) - 1});
    }
    buffer = memref::ExpandShapeOp::create(b, loc, shape, buffer, groups);
  }
  return memref::CastOp::create(b, loc, convArgType(type.getElementType()), buffer);
}

/// The reassociation of a rank-`rank` (.., G, X/G, ..) view that merges
/// dims `first` and `first + 1` (the groups and the channels per group).
SmallVector<ReassociationIndices> mergedChannels(int64_t rank, int64_t first) {
  SmallVector<ReassociationIndices> groups;
  for (int64_t i = 0; i < rank; ++i) {
    if (i == first + 1)
      groups.back().push_back(i);
    else
      groups.push_back({i});
  }
  return groups;
}

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

struct KilnGPULibraryCallsPass : kiln::impl::KilnGPULibraryCallsBase<KilnGPULibraryCallsPass> {
  using Base::Base;

  /// Success if `op`'s operands are buffers the runtime's GEMM takes (inputs
  /// of one element type, an output of a type gemmName pairs with it), with
  /// identity layouts (the input's only if `identityInput`).
  LogicalResult checkOperands(linalg::LinalgOp op, bool identityInput, bool stridedInputs = false,
                              Type *widenedTo = nullptr) {
    Type inElem;
    for (OpOperand &operand : op->getOpOperands()) {
      auto type = dyn_cast<MemRefType>(operand.get().getType());
      if (!type)
        return failure();
      bool isInit = op.isDpsInit(&operand);
      if (!isInit) {
        if (inElem && type.getElementType() != inElem) {
          // Mixed float inputs multiplied in float32 (a 16-bit one extended
          // in the body): with `widenedTo`, a float32 GEMM on a widened copy.
          Type f32 = Float32Type::get(op->getContext());
          if (!widenedTo || !isWidenedProduct(op, f32))
            return failure();
          *widenedTo = inElem = f32;
          continue;
        }
        inElem = type.getElementType();
      } else if (!inElem || !gemmName(inElem, type.getElementType())) {
        return failure();
      }
      if (!type.getLayout().isIdentity() && (isInit || !stridedInputs) &&
          (identityInput || &operand != op.getDpsInputOperand(0)))
        return failure();
    }
    return success();
  }

  /// Whether `op` multiplies its inputs in `f32`: every input is a float of
  /// at most 32 bits, the body extends each narrower one to `f32` (its only
  /// use) and never narrows an `f32` one, and the output is `f32`.
  static bool isWidenedProduct(linalg::LinalgOp op, Type f32) {
    if (cast<MemRefType>(op.getDpsInitOperand(0)->get().getType()).getElementType() != f32)
      return false;
    for (OpOperand *in : op.getDpsInputOperands()) {
      auto elem = dyn_cast<FloatType>(cast<MemRefType>(in->get().getType()).getElementType());
      if (!elem || elem.getWidth() > 32)
        return false;
      for (Operation *user : op.getMatchingBlockArgument(in).getUsers()) {
        if (elem == f32 ? isa<arith::TruncFOp>(user)
                        : !isa<arith::ExtFOp>(user) || user->getResult(0).getType() != f32)
          return false;
      }
    }
    return true;
  }

  /// A problem of fewer than `min-macs` multiply-adds (a dynamic loop
  /// counting as `dynamic-size` iterations) stays a generated kernel.
  bool bigEnough(linalg::LinalgOp op) {
    int64_t macs = 1;
    for (int64_t r : op.getStaticLoopRanges())
      macs *= r == ShapedType::kDynamic ? dynamicSize : r;
    return macs >= minMacs;
  }

  /// The convolution if `op` is one in NCHW / FCHW layout (any loop order).
  FailureOr<ConvMatch> matchConv(linalg::LinalgOp op) {
    if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
        op.getNumLoops() != 7 || !linalg::isaConvolutionOpInterface(op) ||
        failed(checkOperands(op, /*identityInput=*/false)) || !bigEnough(op))
      return failure();
    SmallVector<unsigned> out, w;
    if (!loopsOf(op, op.getDpsInitOperand(0), out) || !loopsOf(op, op.getDpsInputOperand(1), w) || out.size() != 4 ||
        w.size() != 4 || w[0] != out[1])
      return failure();
    unsigned n = out[0], oh = out[2], ow = out[3], c = w[1], kh = w[2], kw = w[3];
    llvm::SmallDenseSet<unsigned> loops{n, out[1], oh, ow, c, kh, kw};
    if (loops.size() != 7)
      return failure();
    SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
    for (unsigned r : {c, kh, kw})
      if (iters[r] != utils::IteratorType::reduction)
        return failure();
    AffineMap in = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
    if (in.getNumResults() != 4 || in.getResult(0) != getAffineDimExpr(n, op.getContext()) ||
        in.getResult(1) != getAffineDimExpr(c, op.getContext()))
      return failure();
    ConvMatch m;
    unsigned numLoops = op.getNumLoops();
    for (int i = 0; i < 2; ++i) {
      AffineExpr e = in.getResult(2 + i);
      unsigned o = i ? ow : oh, k = i ? kw : kh;
      m.stride[i] = coefficient(e, o, numLoops);
      m.dilation[i] = coefficient(e, k, numLoops);
      if (m.stride[i] <= 0 || m.dilation[i] <= 0)
        return failure();
      AffineExpr want = getAffineDimExpr(o, op.getContext()) * m.stride[i] +
                        getAffineDimExpr(k, op.getContext()) * m.dilation[i];
      auto diff = dyn_cast<AffineConstantExpr>(simplifyAffineExpr(e - want, numLoops, 0));
      if (!diff || diff.getValue() != 0)
        return failure();
    }
    m.input = op.getDpsInputOperand(0)->get();
    m.filter = op.getDpsInputOperand(1)->get();
    m.output = op.getDpsInitOperand(0)->get();
    auto inType = cast<MemRefType>(m.input.getType()), wType = cast<MemRefType>(m.filter.getType()),
         outType = cast<MemRefType>(m.output.getType());
    m.direct = inType.getLayout().isIdentity() && wType.getDimSize(2) == 1 && wType.getDimSize(3) == 1 &&
               m.stride[0] == 1 && m.stride[1] == 1 && !inType.isDynamicDim(2) && !inType.isDynamicDim(3) &&
               inType.getDimSize(2) == outType.getDimSize(2) && inType.getDimSize(3) == outType.getDimSize(3);
    return m;
  }

  /// The GEMM `op` computes if it is C[batch.., M.., N..] += A * B on buffers
  /// of one element type the runtime takes, with identity layouts, where A is
  /// [batch.., M.., K..] or [batch.., K.., M..] (transposed) and B is
  /// [batch.., K.., N..] or [batch.., N.., K..] (transposed): each group of
  /// loops contiguous and in one order in every operand it appears in, so the
  /// groups collapse into single dims. A loop only A and C walk (a batch dim
  /// the other operand broadcasts, as a linear layer on a 3-D activation) is
  /// one of the M loops; several batch loops (attention's batch and heads)
  /// collapse into one. Failure otherwise.
  FailureOr<GemmMatch> matchGemm(linalg::LinalgOp op) {
    if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
        !linalg::isaContractionOpInterface(op))
      return failure();
    FailureOr<linalg::ContractionDimensions> dims = linalg::inferContractionDims(op);
    if (failed(dims) || dims->m.empty() || dims->n.empty() || dims->k.empty() ||
        op.getNumLoops() != dims->batch.size() + dims->m.size() + dims->n.size() + dims->k.size())
      return failure();
    // A strided input (a transposed or sliced view, such as attention's
    // values after the head split) is copied to a contiguous buffer first.
    Type widened;
    if (failed(checkOperands(op, /*identityInput=*/true, /*stridedInputs=*/true, &widened)))
      return failure();
    // Reads operand `operand`'s map as a list of loops.
    auto loopsOf = [&](OpOperand *operand) -> std::optional<SmallVector<unsigned>> {
      SmallVector<unsigned> loops;
      for (AffineExpr e : op.getMatchingIndexingMap(operand).getResults()) {
        auto d = dyn_cast<AffineDimExpr>(e);
        if (!d)
          return std::nullopt;
        loops.push_back(d.getPosition());
      }
      return loops;
    };
    std::optional<SmallVector<unsigned>> a = loopsOf(op.getDpsInputOperand(0)),
                                         bm = loopsOf(op.getDpsInputOperand(1)),
                                         c = loopsOf(op.getDpsInitOperand(0));
    if (!a || !bm || !c)
      return failure();
    size_t nb = dims->batch.size(), nm = dims->m.size(), nn = dims->n.size(), nk = dims->k.size();
    // The groups in the order C (batch, M, N) and A (K) store them.
    if (c->size() != nb + nm + nn || a->size() != nb + nm + nk || bm->size() != nb + nk + nn)
      return failure();
    ArrayRef<unsigned> cl(*c), al(*a), bl(*bm);
    ArrayRef<unsigned> batch = cl.take_front(nb), m = cl.slice(nb, nm), n = cl.drop_front(nb + nm);
    auto isSet = [](ArrayRef<unsigned> run, ArrayRef<unsigned> set) {
      return llvm::all_of(run, [&](unsigned d) { return llvm::is_contained(set, d); });
    };
    if (!isSet(batch, dims->batch) || !isSet(m, dims->m) || !isSet(n, dims->n) || al.take_front(nb) != batch ||
        bl.take_front(nb) != batch)
      return failure();
    GemmMatch g;
    g.widened = widened;
    g.A.buffer = op.getDpsInputOperand(0)->get();
    g.B.buffer = op.getDpsInputOperand(1)->get();
    ArrayRef<unsigned> aRest = al.drop_front(nb), bRest = bl.drop_front(nb), k;
    if (aRest.take_front(nm) == m) {
      k = aRest.drop_front(nm);
    } else if (aRest.take_back(nm) == m) {
      k = aRest.take_front(nk);
      g.A.transposed = true;
    } else {
      return failure();
    }
    if (!isSet(k, dims->k))
      return failure();
    if (bRest.take_front(nk) == k && bRest.drop_front(nk) == n)
      g.B.transposed = false;
    else if (bRest.take_front(nn) == n && bRest.drop_front(nn) == k)
      g.B.transposed = true;
    else
      return failure();
    // Small problems stay generated kernels: a library call costs more than
    // their arithmetic.
    if (!bigEnough(op))
      return failure();
    // [batch.., X.., Y..] collapsed to (batch, X, Y), or (X, Y) with no batch.
    auto groups = [&](size_t x, size_t y) {
      SmallVector<ReassociationIndices> r;
      int64_t next = 0;
      for (size_t size : {nb, x, y}) {
        if (!size)
          continue;
        ReassociationIndices group;
        for (size_t i = 0; i < size; ++i)
          group.push_back(next++);
        r.push_back(group);
      }
      return r;
    };
    g.aGroups = g.A.transposed ? groups(nk, nm) : groups(nm, nk);
    g.bGroups = g.B.transposed ? groups(nn, nk) : groups(nk, nn);
    g.cGroups = groups(nm, nn);
    return g;
  }

  /// The bias vector X if `fill` initialises every element of `c` (all
  /// parallel loops, identity output map) with X[n..]: X indexed by the
  /// loops of C's column group in order, the body yielding X's element
  /// (extended to C's type if narrower). Null otherwise.
  static Value biasOf(Operation *fill, Value c, const GemmMatch &g) {
    auto lin = dyn_cast<linalg::LinalgOp>(fill);
    if (!lin || !lin.hasPureBufferSemantics() || lin.getNumDpsInputs() != 1 || !overwritesWhole(fill, c))
      return {};
    OpOperand *in = lin.getDpsInputOperand(0);
    auto xType = dyn_cast<MemRefType>(in->get().getType());
    int64_t rank = cast<MemRefType>(c.getType()).getRank();
    int64_t nn = static_cast<int64_t>(g.cGroups.back().size());
    AffineMap map = lin.getMatchingIndexingMap(in);
    if (!xType || xType.getRank() != nn || map.getNumResults() != nn)
      return {};
    for (int64_t i = 0; i < nn; ++i)
      if (map.getResult(i) != getAffineDimExpr(rank - nn + i, fill->getContext()))
        return {};
    auto yield = cast<linalg::YieldOp>(lin.getBlock()->getTerminator());
    if (yield.getNumOperands() != 1 || stripExt(yield.getOperand(0)) != lin.getMatchingBlockArgument(in))
      return {};
    return in->get();
  }

  /// The bias X (read by `fill`, which runs before `gemm`) as a contiguous
  /// vector of `want`: X itself, or the vector Y an elementwise op widened
  /// into X (`X = extf(Y)`, a linear layer's bf16 bias for its float32
  /// product), provided neither changes before `gemm`. Null if neither is.
  static Value biasIn(Value x, Operation *fill, Operation *gemm, Type want) {
    auto contiguous = [&](Value v) {
      auto t = cast<MemRefType>(v.getType());
      return t.getElementType() == want && t.getLayout().isIdentity();
    };
    if (!untouchedBetween(fill, gemm, {rootBuffer(x)}))
      return {};
    if (contiguous(x))
      return x;
    auto w = dyn_cast_or_null<linalg::LinalgOp>(nearestToucher(fill, rootBuffer(x), /*forward=*/false));
    if (!w || !w.hasPureBufferSemantics() || w.getNumDpsInputs() != 1 || !overwritesWhole(w, x))
      return {};
    OpOperand *in = w.getDpsInputOperand(0);
    auto yield = cast<linalg::YieldOp>(w.getBlock()->getTerminator());
    if (!isa<MemRefType>(in->get().getType()) || !w.getMatchingIndexingMap(in).isIdentity() ||
        yield.getNumOperands() != 1 || stripExt(yield.getOperand(0)) != w.getMatchingBlockArgument(in) ||
        !contiguous(in->get()) || !untouchedBetween(w, gemm, {rootBuffer(in->get())}))
      return {};
    return in->get();
  }

  /// `v` without a rounding `arith.truncf` to `t` (round to nearest even),
  /// or null if it is not one.
  static Value unround(Value v, Type t) {
    auto tr = v.getDefiningOp<arith::TruncFOp>();
    return tr && tr.getType() == t && !tr.getRoundingmodeAttr() ? tr.getIn() : Value();
  }

  /// Whether `v` is max(x, 0) (`arith.maximumf` or `maxnumf`, either
  /// operand order); sets `x`.
  static bool isRelu(Value v, Value &x) {
    Operation *op = v.getDefiningOp();
    if (!op || !isa<arith::MaximumFOp, arith::MaxNumFOp>(op))
      return false;
    if (isZero(op->getOperand(1)))
      x = op->getOperand(0);
    else if (isZero(op->getOperand(0)))
      x = op->getOperand(1);
    else
      return false;
    return true;
  }

  /// Whether the body of `l` yields, for `c` (its block argument of the
  /// GEMM's result), only c (`t` null), round(c) (to `t`) or the ReLU of
  /// either (in any of the forms kiln lowers it to: max in float32 on c or
  /// on the rounded value, or max in `t`); sets `relu`. ReLU commutes with
  /// rounding, so each equals rounding once after the GEMM's ReLU.
  static bool isCopyBody(linalg::LinalgOp l, BlockArgument c, Type t, bool &relu) {
    auto yield = cast<linalg::YieldOp>(l.getBlock()->getTerminator());
    if (yield.getNumOperands() != 1)
      return false;
    Value v = yield.getOperand(0), x;
    relu = false;
    if (!t) {
      if (v == c)
        return true;
      return (relu = isRelu(v, x)) && x == c;
    }
    if (isRelu(v, x))  // max in t of round(c)
      return (relu = true) && unround(x, t) == c;
    v = unround(v, t);
    if (!v || v == c)
      return v == c;
    if (!(relu = isRelu(v, x)))
      return false;
    x = stripExt(x);
    return x == c || unround(x, t) == c;
  }

  /// What folds into GEMM `op` (C its output): a bias broadcast that
  /// initialised C just before (biasOf), and the one op that reads C next,
  /// when C is dead after it. That op goes away if it only copies C (rounded
  /// to the operands' bf16/f16 type where the product of such operands is
  /// float32, with a ReLU where there is a bias), the GEMM writing its output
  /// instead; if it only reads C rounded to that type, the GEMM writes a
  /// fresh buffer of that type, which the op reads instead.
  Epilogue matchEpilogue(linalg::LinalgOp op, const GemmMatch &g, const llvm::DenseSet<Operation *> &calls) {
    Epilogue ep;
    Value C = op.getDpsInitOperand(0)->get();
    auto cType = cast<MemRefType>(C.getType());
    ep.D = C;
    ep.dElem = cType.getElementType();
    // A reduction of unknown (possibly zero) length keeps C's initial
    // contents as they are: an empty product leaves the bias in place.
    for (auto [range, iter] : llvm::zip(op.getStaticLoopRanges(), op.getIteratorTypesArray()))
      if (iter == utils::IteratorType::reduction && (ShapedType::isDynamic(range) || range == 0))
        return ep;
    // C's contents before the GEMM: a bias or zeros, else nothing folds.
    Operation *prev = nearestToucher(op, C, /*forward=*/false);
    Value x = prev ? biasOf(prev, C, g) : Value();
    if (!x && !(prev && zeroFillBefore(op, C) == prev))
      return ep;
    // The rounding: the product of bf16 or f16 operands in float32.
    Type t, f32 = Float32Type::get(op->getContext());
    Type aElem = cast<MemRefType>(g.A.buffer.getType()).getElementType();
    if (!g.widened && ep.dElem == f32 && (aElem.isBF16() || aElem.isF16()) &&
        cast<MemRefType>(g.B.buffer.getType()).getElementType() == aElem)
      t = aElem;
    Operation *next = nearestToucher(op, C, /*forward=*/true);
    auto l = dyn_cast_or_null<linalg::LinalgOp>(next);
    if (l && !calls.contains(next) && l.hasPureBufferSemantics()) {
      OpOperand *in = nullptr;
      for (OpOperand *o : l.getDpsInputOperands())
        if (o->get() == C)
          in = o;
      // Uses of C (or views of it) by the consumer, and whether C's
      // contents die with it: then the consumer's read is the only one.
      int64_t uses = llvm::count_if(next->getOperands(), [&](Value v) { return rootBuffer(v) == C; });
      bool dies = uses == 1 && deadAfter(next, C);
      if (in) {
        BlockArgument arg = l.getMatchingBlockArgument(in);
        bool relu = false;
        if (l.getNumDpsInputs() == 1 && l.getNumDpsInits() == 1 && l->getNumResults() == 0 &&
            l.getNumParallelLoops() == l.getNumLoops() && l.getMatchingIndexingMap(in).isIdentity() &&
            l.getMatchingIndexingMap(l.getDpsInitOperand(0)).isIdentity() && isCopyBody(l, arg, t, relu) &&
            (!relu || x)) {
          Value out = l.getDpsInitOperand(0)->get();
          auto outType = cast<MemRefType>(out.getType());
          Type want = t ? t : ep.dElem;
          Value root = rootBuffer(out);
          // In place (a float32 ReLU over C itself), or into another buffer.
          bool inPlace = out == C && uses == 2;
          if ((inPlace || dies) && outType.getElementType() == want && usableAsIs(outType, g.cGroups) &&
              root != rootBuffer(g.A.buffer) && root != rootBuffer(g.B.buffer) && (!x || root != rootBuffer(x)) &&
              untouchedBetween(op, next, {root})) {
            // An output allocated after the GEMM is allocated before it.
            Operation *def = out.getDefiningOp();
            bool before = !def || def->getBlock() != op->getBlock() || def->isBeforeInBlock(op);
            if (!before && isa<memref::AllocOp>(def) && llvm::all_of(def->getOperands(), [&](Value v) {
                  Operation *d = v.getDefiningOp();
                  return !d || d->getBlock() != op->getBlock() || d->isBeforeInBlock(op);
                }))
              ep.hoist = def;
            if (before || ep.hoist) {
              ep.consumer = next;
              ep.eraseConsumer = true;
              ep.relu = relu;
              ep.D = out;
              ep.dElem = want;
            }
          }
        }
        if (!ep.consumer && t && dies && !arg.use_empty() &&
            llvm::all_of(arg.getUsers(), [&](Operation *u) { return u->getNumResults() == 1 && unround(u->getResult(0), t) == arg; })) {
          ep.consumer = next;
          ep.D = Value();
          ep.dElem = t;
        }
      }
    }
    if (!x)
      return ep;
    // The bias in D's type (cuBLASLt's bias is of D's type); a float32 D
    // may take a widened copy; otherwise D stays float32.
    ep.bias = biasIn(x, prev, op, ep.dElem);
    if (!ep.bias && ep.dElem != f32) {
      ep.consumer = ep.hoist = nullptr;
      ep.eraseConsumer = ep.relu = false;
      ep.D = C;
      ep.dElem = f32;
      ep.bias = biasIn(x, prev, op, f32);
    }
    if (!ep.bias && ep.dElem == cType.getElementType() && ep.dElem == f32 && untouchedBetween(prev, op, {rootBuffer(x)})) {
      ep.bias = x;
      ep.biasCopy = true;
    }
    if (ep.bias)
      ep.biasFill = prev;
    else  // no bias of D's type: the fill stays, and so does the rest
      ep = Epilogue{.D = C, .dElem = cType.getElementType()};
    return ep;
  }

  /// The runtime's epilogue GEMM (cuBLASLt) for operands of type `ab` and
  /// a result of type `d`, declared once in the module:
  /// void kiln_gpu_gemm_lt_<type>(i32 transA, i32 transB, i32 flags, A, B,
  /// D, bias): D[b] = op(A[b]) * op(B[b]) (+ D[b] without kGemmOverwrite)
  /// + bias[n] (ReLU'd with kGemmReLU), accumulating in float32 and rounding
  /// once into D's type; see runtime/src/cuda/Blas.cpp.
  func::FuncOp gemmLtCallee(ModuleOp module, Type ab, Type d) {
    std::string name = std::string("kiln_gpu_gemm_lt_") + (gemmName(ab, d) + strlen("kiln_gpu_gemm_"));
    if (auto f = dyn_cast_or_null<func::FuncOp>(SymbolTable::lookupSymbolIn(module, name)))
      return f;
    OpBuilder mb = OpBuilder::atBlockBegin(module.getBody());
    int64_t dyn = ShapedType::kDynamic;
    Type i32 = mb.getI32Type(), arg = gemmArgType(ab), res = gemmArgType(d),
         bias = MemRefType::get({dyn}, d, StridedLayoutAttr::get(mb.getContext(), dyn, {dyn}));
    auto callee = func::FuncOp::create(mb, module.getLoc(), name,
                                       mb.getFunctionType({i32, i32, i32, arg, arg, res, bias}, {}));
    callee.setPrivate();
    callee->setAttr("llvm.emit_c_interface", mb.getUnitAttr());
    callee->setAttr("kiln.device_call", mb.getUnitAttr());
    return callee;
  }

  /// Drops every local buffer nothing reads: its allocation, its frees and
  /// the linalg ops that only write it (the float32 products and widened
  /// biases the epilogues made dead).
  static void dropUnreadBuffers(ModuleOp module, IRRewriter &rewriter) {
    auto onlyWrites = [](Operation *user, Value buffer) {
      auto lin = dyn_cast<linalg::LinalgOp>(user);
      if (!lin || lin.getNumDpsInits() != 1 || lin->getNumResults() != 0 ||
          lin.getDpsInitOperand(0)->get() != buffer ||
          llvm::any_of(lin.getDpsInputOperands(), [&](OpOperand *in) { return in->get() == buffer; }))
        return false;
      bool pure = true;
      lin.getBlock()->walk([&](Operation *o) { pure &= isPure(o) || isa<memref::LoadOp>(o); });
      return pure;
    };
    for (bool changed = true; changed;) {
      changed = false;
      SmallVector<memref::AllocOp> allocs;
      module.walk([&](memref::AllocOp a) {
        if (!a->getParentOfType<gpu::LaunchOp>() && !a->getParentOfType<gpu::GPUModuleOp>())
          allocs.push_back(a);
      });
      for (memref::AllocOp a : allocs) {
        llvm::SetVector<Operation *> users;
        for (Operation *u : a->getUsers())
          users.insert(u);
        if (!llvm::all_of(users, [&](Operation *u) { return isa<memref::DeallocOp>(u) || onlyWrites(u, a); }))
          continue;
        for (Operation *u : users)
          rewriter.eraseOp(u);
        rewriter.eraseOp(a);
        changed = true;
      }
    }
  }

  /// The runtime's GEMM for operands of type `ab` and a result of type `c`,
  /// declared once in the module.
  func::FuncOp gemmCallee(ModuleOp module, Type ab, Type c) {
    const char *name = gemmName(ab, c);
    if (auto f = dyn_cast_or_null<func::FuncOp>(SymbolTable::lookupSymbolIn(module, name)))
      return f;
    // void kiln_gpu_gemm_<type>(i32 transA, i32 transB, i32 flags, A, B, C):
    // C[b] = op(A[b]) * op(B[b]) + C[b] (C[b] not read with kGemmOverwrite),
    // row-major, accumulating in f32 (f32 operands multiplied in TF32 with
    // kGemmTF32), in the order of the call's stream; see
    // runtime/src/cuda/Blas.cpp.
    OpBuilder mb = OpBuilder::atBlockBegin(module.getBody());
    Type i32 = mb.getI32Type(), arg = gemmArgType(ab), res = gemmArgType(c);
    auto callee =
        func::FuncOp::create(mb, module.getLoc(), name, mb.getFunctionType({i32, i32, i32, arg, arg, res}, {}));
    callee.setPrivate();
    callee->setAttr("llvm.emit_c_interface", mb.getUnitAttr());
    callee->setAttr("kiln.device_call", mb.getUnitAttr());
    return callee;
  }

  void callGemm(OpBuilder &b, Location loc, ModuleOp module, bool transA, bool transB, int32_t flags, Value A,
                Value B, Value C) {
    Value ta = arith::ConstantIntOp::create(b, loc, transA, 32);
    Value tb = arith::ConstantIntOp::create(b, loc, transB, 32);
    Value tf = arith::ConstantIntOp::create(b, loc, flags, 32);
    Value a = asGemmArg(b, loc, A), bb = asGemmArg(b, loc, B), c = asGemmArg(b, loc, C);
    func::CallOp::create(b, loc,
                         gemmCallee(module, cast<MemRefType>(A.getType()).getElementType(),
                                    cast<MemRefType>(C.getType()).getElementType()),
                         ValueRange{ta, tb, tf, a, bb, c});
  }

  /// Replaces convolution `op` by an im2col copy (unless direct) and a GEMM.
  void rewriteConv(IRRewriter &rewriter, ModuleOp module, linalg::LinalgOp op, const ConvMatch &m) {
    int32_t flags = tf32Convs ? kGemmTF32 : 0;
    if (Operation *zero = zeroFillBefore(op, m.output)) {
      rewriter.eraseOp(zero);
      flags |= kGemmOverwrite;
    }
    rewriter.setInsertionPoint(op);
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    // w (F, C, KH, KW) -> (F, C*KH*KW); out (N, F, OH, OW) -> (N, F, OH*OW).
    Value A = collapse(rewriter, loc, m.filter, {{0}, {1, 2, 3}});
    Value C = collapse(rewriter, loc, m.output, {{0}, {1}, {2, 3}});
    if (m.direct) {
      callGemm(rewriter, loc, module, false, false, flags, A, collapse(rewriter, loc, m.input, {{0}, {1}, {2, 3}}),
               C);
      rewriter.eraseOp(op);
      return;
    }
    // col[n, c, kh, kw, oh, ow] = in[n, c, oh*s0 + kh*d0, ow*s1 + kw*d1]: one
    // generated kernel, written in order.
    auto inType = cast<MemRefType>(m.input.getType());
    SmallVector<OpFoldResult> sizes = {
        memref::getMixedSize(rewriter, loc, m.input, 0), memref::getMixedSize(rewriter, loc, m.input, 1),
        memref::getMixedSize(rewriter, loc, m.filter, 2), memref::getMixedSize(rewriter, loc, m.filter, 3),
        memref::getMixedSize(rewriter, loc, m.output, 2), memref::getMixedSize(rewriter, loc, m.output, 3)};
    SmallVector<int64_t> staticSizes;
    SmallVector<Value> dynamicSizes;
    dispatchIndexOpFoldResults(sizes, dynamicSizes, staticSizes);
    auto colType = MemRefType::get(staticSizes, inType.getElementType());
    Value col = memref::AllocOp::create(rewriter, loc, colType, dynamicSizes, rewriter.getI64IntegerAttr(64));
    AffineExpr d[6];
    bindDims(ctx, d[0], d[1], d[2], d[3], d[4], d[5]);
    AffineMap read = AffineMap::get(6, 0,
                                    {d[0], d[1], d[4] * m.stride[0] + d[2] * m.dilation[0],
                                     d[5] * m.stride[1] + d[3] * m.dilation[1]},
                                    ctx);
    linalg::GenericOp::create(
        rewriter, loc, ValueRange{m.input}, ValueRange{col},
        ArrayRef<AffineMap>{read, rewriter.getMultiDimIdentityMap(6)},
        SmallVector<utils::IteratorType>(6, utils::IteratorType::parallel),
        [](OpBuilder &b, Location l, ValueRange args) { linalg::YieldOp::create(b, l, args[0]); });
    callGemm(rewriter, loc, module, false, false, flags, A, collapse(rewriter, loc, col, {{0}, {1, 2, 3}, {4, 5}}), C);
    memref::DeallocOp::create(rewriter, loc, col);
    rewriter.eraseOp(op);
  }

  /// The convolution if `op` is one the runtime's cuDNN call computes.
  FailureOr<DnnConvMatch> matchDnnConv(linalg::LinalgOp op) {
    if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
        !linalg::isaConvolutionOpInterface(op) || failed(checkOperands(op, /*identityInput=*/false)) ||
        !bigEnough(op))
      return failure();
    SmallVector<unsigned> out, w;
    if (!loopsOf(op, op.getDpsInitOperand(0), out) || !loopsOf(op, op.getDpsInputOperand(1), w) || out.size() != w.size() ||
        out.size() < 3)
      return failure();
    DnnConvMatch m;
    AffineMap in = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
    SmallVector<AffineExpr> inResults(in.getResults());
    if (w[0] != out[1]) {
      // Channels last: read every operand in the channels-first order.
      int64_t rank = static_cast<int64_t>(out.size());
      if (in.getNumResults() != out.size())
        return failure();
      // Grouped (N, o.., G, F/G), (G, F/G, k.., C/G), (N, s.., G, C/G):
      // each operand's (G, X/G) pair moves after N (the filter's stays first).
      m.groupedLast = rank >= 4 && w[0] == out[rank - 2] && w[1] == out.back();
      if (!m.groupedLast && w[0] != out.back())
        return failure();
      // Ungrouped: (0, r-1, 1..r-2) for all three; grouped: (0, r-2, r-1,
      // 1..r-3) for input and output, (0, 1, r-1, 2..r-2) for the filter.
      SmallVector<int64_t> act{0, rank - 1}, filter{0, rank - 1};
      if (m.groupedLast) {
        act = {0, rank - 2, rank - 1};
        filter = {0, 1, rank - 1};
      }
      for (int64_t i = 1, last = rank - static_cast<int64_t>(act.size()); i <= last; ++i)
        act.push_back(i);
      for (int64_t i = static_cast<int64_t>(filter.size()) - 1; i < rank - 1; ++i)
        filter.push_back(i);
      auto permute = [&](auto &list, ArrayRef<int64_t> perm) {
        auto copy = list;
        for (auto [i, p] : llvm::enumerate(perm))
          list[i] = copy[p];
      };
      permute(out, act);
      permute(w, filter);
      permute(inResults, act);
      if (!m.groupedLast && w[1] == out[2])
        return failure();
      // The call's operands are (N, s.., C) and (F, k.., C/G) views (a
      // grouped operand's channels merged first): one order for all three.
      int64_t callRank = m.groupedLast ? rank - 1 : rank;
      m.channelsLast = {0, callRank - 1};
      for (int64_t i = 1; i < callRank - 1; ++i)
        m.channelsLast.push_back(i);
    }
    // Grouped: out (n, g, f, o..), w (g, f, c, k..); else out (n, f, o..), w (f, c, k..).
    m.grouped = w[1] == out[2];
    unsigned lead = m.grouped ? 3 : 2;
    int64_t k = static_cast<int64_t>(out.size()) - lead;
    if (k < 1 || k > 3)
      return failure();
    unsigned n = out[0], c = w[lead - 1];
    llvm::SmallDenseSet<unsigned> loops(out.begin(), out.end());
    loops.insert(w.begin(), w.end());
    if (loops.size() != op.getNumLoops() || loops.size() != lead + 1 + 2 * k)
      return failure();
    SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
    for (unsigned l : loops) {
      bool reduction = l == c || llvm::is_contained(ArrayRef<unsigned>(w).drop_front(lead), l);
      if ((iters[l] == utils::IteratorType::reduction) != reduction)
        return failure();
    }
    MLIRContext *ctx = op.getContext();
    if (inResults.size() != out.size() || inResults[0] != getAffineDimExpr(n, ctx) ||
        inResults[lead - 1] != getAffineDimExpr(c, ctx) ||
        (m.grouped && inResults[1] != getAffineDimExpr(out[1], ctx)))
      return failure();
    unsigned numLoops = op.getNumLoops();
    for (int64_t i = 0; i < k; ++i) {
      AffineExpr e = inResults[lead + i];
      unsigned o = out[lead + i], kk = w[lead + i];
      int64_t s = coefficient(e, o, numLoops), d = coefficient(e, kk, numLoops);
      if (s <= 0 || d <= 0)
        return failure();
      auto diff = dyn_cast<AffineConstantExpr>(simplifyAffineExpr(
          e - (getAffineDimExpr(o, ctx) * s + getAffineDimExpr(kk, ctx) * d), numLoops, 0));
      if (!diff || diff.getValue() != 0)
        return failure();
      m.stride.push_back(s);
      m.dilation.push_back(d);
    }
    m.input = op.getDpsInputOperand(0)->get();
    m.filter = op.getDpsInputOperand(1)->get();
    m.output = op.getDpsInitOperand(0)->get();
    auto wType = cast<MemRefType>(m.filter.getType());
    if (m.grouped) {
      if (wType.isDynamicDim(0))
        return failure();
      m.groups = wType.getDimSize(0);
    }
    m.padding.assign(k, 0);
    if (matchPadding(op, m))
      return m;
    // A grouped input is read as (N, C, ..): its channels must merge in place
    // (the filter and output have identity layouts).
    auto inType = cast<MemRefType>(m.input.getType());
    if (m.grouped && !inType.getLayout().isIdentity() &&
        !memref::CollapseShapeOp::isGuaranteedCollapsible(inType, mergedChannels(k + 3, m.groupDim())))
      return failure();
    return m;
  }

  /// If the convolution's input (through the expand_shape that splits its
  /// groups) is a buffer that is zeroed, then has `source` copied into its
  /// interior, padded equally on both sides of each spatial dim and used by
  /// nothing else, records `source`, the padding and the ops to erase. The
  /// copy must come before `op` in its block with nothing in between
  /// touching `source`'s buffer but frees (moved after the call).
  bool matchPadding(linalg::LinalgOp op, DnnConvMatch &m) {
    Value in = m.input;
    Operation *expand = nullptr;
    if (m.grouped) {
      auto e = in.getDefiningOp<memref::ExpandShapeOp>();
      if (!e || !e->hasOneUse())
        return false;
      expand = e;
      in = e.getSrc();
    }
    auto alloc = in.getDefiningOp<memref::AllocOp>();
    if (!alloc || alloc->getBlock() != op->getBlock())
      return false;
    Operation *fill = nullptr, *copy = nullptr;
    memref::SubViewOp sub;
    SmallVector<Operation *> frees;
    for (Operation *user : alloc->getUsers()) {
      if (user == op.getOperation() || user == expand)
        continue;
      if (isa<memref::DeallocOp>(user)) {
        frees.push_back(user);
      } else if (auto s = dyn_cast<memref::SubViewOp>(user); s && !sub && s->hasOneUse()) {
        sub = s;
      } else if (auto lin = dyn_cast<linalg::LinalgOp>(user);
                 lin && !fill && lin.getNumDpsInits() == 1 && lin.getDpsInitOperand(0)->get() == in && isZeroFill(lin)) {
        fill = user;
      } else {
        return false;
      }
    }
    if (!fill || !sub)
      return false;
    auto cp = dyn_cast<linalg::LinalgOp>(*sub->getUsers().begin());
    if (!cp || !isCopy(cp) || cp.getDpsInitOperand(0)->get() != sub.getResult() ||
        cp->getBlock() != op->getBlock() || !cp->isBeforeInBlock(op) || !fill->isBeforeInBlock(cp))
      return false;
    copy = cp;
    Value source = cp.getDpsInputOperand(0)->get();
    auto srcType = dyn_cast<MemRefType>(source.getType());
    auto padType = cast<MemRefType>(in.getType());
    int64_t rank = padType.getRank(), k = rank - 2;
    if (!srcType || srcType.getRank() != rank || srcType.getElementType() != padType.getElementType() ||
        static_cast<int64_t>(m.stride.size()) != k)
      return false;
    // Offsets (0, 0, p..), unit strides, sizes (N, C, S..) with P = S + 2p
    // (channels last: (0, p.., 0) and (N, S.., C)).
    SmallVector<OpFoldResult> offsets = sub.getMixedOffsets(), sizes = sub.getMixedSizes(),
                              steps = sub.getMixedStrides();
    SmallVector<int64_t> pad;
    unsigned dynamicIndex = 0;
    for (int64_t i = 0; i < rank; ++i) {
      std::optional<int64_t> off = getConstantIntValue(offsets[i]), step = getConstantIntValue(steps[i]);
      if (!off || !step || *step != 1)
        return false;
      bool whole = m.channelsLast.empty() ? i < 2 : i == 0 || i == rank - 1;
      if (whole) {
        // The whole of a batch or channel dim: the same static size, or the
        // alloc's own dynamic size.
        OpFoldResult whole = padType.isDynamicDim(i) ? OpFoldResult(alloc.getDynamicSizes()[dynamicIndex++])
                                                     : OpFoldResult(IntegerAttr::get(IndexType::get(op.getContext()),
                                                                                     padType.getDimSize(i)));
        if (*off != 0 || !isEqualConstantIntOrValue(sizes[i], whole))
          return false;
        continue;
      }
      std::optional<int64_t> size = getConstantIntValue(sizes[i]);
      if (!size || padType.isDynamicDim(i) || padType.getDimSize(i) != *size + 2 * *off)
        return false;
      pad.push_back(*off);
    }
    // Nothing between the copy and the convolution may touch the source.
    Value root = rootBuffer(source);
    SmallVector<Operation *> moved;
    for (Operation *o = copy->getNextNode(); o && o != op.getOperation(); o = o->getNextNode()) {
      bool touches = false;
      o->walk([&](Operation *inner) {
        for (Value v : inner->getOperands())
          touches |= rootBuffer(v) == root;
      });
      if (!touches)
        continue;
      if (!isa<memref::DeallocOp>(o) || o->getOperand(0) != root)
        return false;
      moved.push_back(o);
    }
    m.source = source;
    m.padding = pad;
    m.padOps = {copy, sub, fill};
    if (expand)
      m.padOps.push_back(expand);
    m.padOps.append(frees);
    m.padOps.push_back(alloc);
    m.movedFrees = moved;
    return true;
  }

  /// Whether `buffer`, written by `op`, is an allocation of `op`'s block
  /// that afterwards is only freed or read as an input of linalg.generic ops
  /// after `op` in that block; collects those uses.
  static bool onlyReadAfter(linalg::LinalgOp op, Value buffer, SmallVector<OpOperand *> &uses) {
    auto alloc = buffer.getDefiningOp<memref::AllocOp>();
    if (!alloc || alloc->getBlock() != op->getBlock())
      return false;
    for (OpOperand &use : buffer.getUses()) {
      Operation *user = use.getOwner();
      if (user == op.getOperation())
        continue;
      if (user->getBlock() != op->getBlock() || !op->isBeforeInBlock(user))
        return false;
      auto generic = dyn_cast<linalg::GenericOp>(user);
      if (!isa<memref::DeallocOp>(user) && (!generic || generic.isDpsInit(&use)))
        return false;
      uses.push_back(&use);
    }
    return true;
  }

  /// Erases buffers allocated and then only written (by linalg ops whose one
  /// output they are) and freed: the zero fills that calls overwriting their
  /// output no longer need.
  static void eraseWriteOnlyBuffers(ModuleOp module, IRRewriter &rewriter) {
    SmallVector<memref::AllocOp> allocs;
    module.walk([&](memref::AllocOp alloc) { allocs.push_back(alloc); });
    for (memref::AllocOp alloc : allocs) {
      Value buffer = alloc.getResult();
      bool writeOnly = llvm::all_of(buffer.getUsers(), [&](Operation *user) {
        if (isa<memref::DeallocOp>(user))
          return true;
        auto lin = dyn_cast<linalg::LinalgOp>(user);
        return lin && lin->getNumResults() == 0 && lin.getNumDpsInits() == 1 &&
               lin.getDpsInitOperand(0)->get() == buffer &&
               llvm::none_of(lin.getDpsInputOperands(), [&](OpOperand *in) { return in->get() == buffer; });
      });
      if (!writeOnly)
        continue;
      for (Operation *user : llvm::make_early_inc_range(buffer.getUsers()))
        rewriter.eraseOp(user);
      rewriter.eraseOp(alloc);
    }
  }

  /// The runtime's convolution for element type `elem`, declared once in the module.
  func::FuncOp convCallee(ModuleOp module, Type elem) {
    std::string name = elem.isF32() ? "kiln_gpu_conv_f32" : elem.isBF16() ? "kiln_gpu_conv_bf16" : "kiln_gpu_conv_f16";
    if (auto f = dyn_cast_or_null<func::FuncOp>(SymbolTable::lookupSymbolIn(module, name)))
      return f;
    // void kiln_gpu_conv_<type>(i32 flags, i64 groups, i64 s0, s1, s2, p0,
    // p1, p2, d0, d1, d2, x, w, y): y = conv(x, w) + y (y not read with
    // kConvOverwrite), rank-5 (N, C, D, H, W) views, in the order of the
    // call's stream; see runtime/src/cuda/Dnn.cpp.
    OpBuilder mb = OpBuilder::atBlockBegin(module.getBody());
    Type arg = convArgType(elem);
    SmallVector<Type> inputs{mb.getI32Type()};
    inputs.append(10, mb.getI64Type());
    inputs.append({arg, arg, arg});
    auto callee = func::FuncOp::create(mb, module.getLoc(), name, mb.getFunctionType(inputs, {}));
    callee.setPrivate();
    callee->setAttr("llvm.emit_c_interface", mb.getUnitAttr());
    callee->setAttr("kiln.device_call", mb.getUnitAttr());
    return callee;
  }

  /// Replaces convolution `op` by a call of the runtime's cuDNN convolution.
  void rewriteDnnConv(IRRewriter &rewriter, ModuleOp module, linalg::LinalgOp op, DnnConvMatch &m) {
    Type elem = cast<MemRefType>(m.filter.getType()).getElementType();
    Type outElem = cast<MemRefType>(m.output.getType()).getElementType();
    int32_t flags = tf32Convs && elem.isF32() ? kConvTF32 : 0;
    bool overwrite = false;
    if (Operation *zero = zeroFillBefore(op, m.output)) {
      rewriter.eraseOp(zero);
      overwrite = true;
    }
    rewriter.setInsertionPoint(op);
    Location loc = op.getLoc();
    int64_t k = static_cast<int64_t>(m.stride.size());
    // (N, G, C/G, ..) -> (N, C, ..) and (G, F/G, C/G, ..) -> (F, C/G, ..).
    auto merged = [&](Value v, int64_t first) {
      return m.grouped ? collapse(rewriter, loc, v, mergedChannels(k + 3, first)) : v;
    };
    Value x = m.source ? m.source : merged(m.input, m.groupDim());
    Value w = merged(m.filter, 0), y = merged(m.output, m.groupDim());
    // A 16-bit convolution into a float32 accumulator: cuDNN writes a
    // 16-bit result of the accumulator's shape. Where the accumulator starts
    // at zero and only generic ops read it afterwards, they read the 16-bit
    // result instead (widening it themselves); otherwise one generated
    // kernel widens it into the accumulator.
    Value narrow;
    SmallVector<OpOperand *> readers;
    bool retarget = false;
    if (outElem != elem) {
      auto outType = cast<MemRefType>(m.output.getType());
      SmallVector<Value> dynamicSizes;
      for (int64_t i = 0; i < outType.getRank(); ++i)
        if (outType.isDynamicDim(i))
          dynamicSizes.push_back(memref::DimOp::create(rewriter, loc, m.output, i));
      narrow = memref::AllocOp::create(rewriter, loc, MemRefType::get(outType.getShape(), elem), dynamicSizes,
                                       rewriter.getI64IntegerAttr(64));
      retarget = overwrite && onlyReadAfter(op, m.output, readers);
    }
    if (overwrite || narrow)
      flags |= kConvOverwrite;
    SmallVector<Value> args{arith::ConstantIntOp::create(rewriter, loc, flags, 32),
                            arith::ConstantIntOp::create(rewriter, loc, m.groups, 64)};
    // Per list, 3 - k leading unit dims (stride 1, padding 0, dilation 1).
    for (auto [list, unit] : {std::pair<ArrayRef<int64_t>, int64_t>{m.stride, 1}, {m.padding, 0}, {m.dilation, 1}})
      for (int64_t i = k; i < 3 + k; ++i)
        args.push_back(arith::ConstantIntOp::create(rewriter, loc, i < 3 ? unit : list[i - 3], 64));
    args.append({asConvArg(rewriter, loc, x, m.channelsLast), asConvArg(rewriter, loc, w, m.channelsLast),
                 asConvArg(rewriter, loc, narrow ? merged(narrow, m.groupDim()) : y, m.channelsLast)});
    func::CallOp::create(rewriter, loc, convCallee(module, elem), args);
    if (retarget) {
      for (OpOperand *use : readers) {
        if (isa<memref::DeallocOp>(use->getOwner())) {
          use->set(narrow);
          continue;
        }
        auto generic = cast<linalg::GenericOp>(use->getOwner());
        BlockArgument arg = generic.getMatchingBlockArgument(use);
        use->set(narrow);
        arg.setType(elem);
        OpBuilder b = OpBuilder::atBlockBegin(generic.getBody());
        Value wide = arith::ExtFOp::create(b, generic.getLoc(), outElem, arg);
        arg.replaceAllUsesExcept(wide, wide.getDefiningOp());
      }
    } else if (narrow) {
      auto outType = cast<MemRefType>(m.output.getType());
      AffineMap id = rewriter.getMultiDimIdentityMap(outType.getRank());
      linalg::GenericOp::create(
          rewriter, loc, ValueRange{narrow}, ValueRange{m.output}, ArrayRef<AffineMap>{id, id},
          SmallVector<utils::IteratorType>(outType.getRank(), utils::IteratorType::parallel),
          [&](OpBuilder &nb, Location l, ValueRange a) {
            Value v = arith::ExtFOp::create(nb, l, outElem, a[0]);
            if (!overwrite)
              v = arith::AddFOp::create(nb, l, a[1], v);
            linalg::YieldOp::create(nb, l, v);
          });
      memref::DeallocOp::create(rewriter, loc, narrow);
    }
    for (Operation *free : llvm::reverse(m.movedFrees))
      free->moveAfter(op);
    Value oldOutput = m.output;
    rewriter.eraseOp(op);
    if (retarget && oldOutput.use_empty())
      rewriter.eraseOp(oldOutput.getDefiningOp());
    for (Operation *dead : m.padOps)
      rewriter.eraseOp(dead);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<std::pair<linalg::LinalgOp, GemmMatch>> gemmOps;
    SmallVector<std::pair<linalg::LinalgOp, ConvMatch>> convOps;
    SmallVector<std::pair<linalg::LinalgOp, DnnConvMatch>, 4> dnnConvs;
    if (convs != "cudnn" && convs != "gemm" && convs != "kernel") {
      module.emitError() << "kiln-gpu-library-calls: convs must be cudnn, gemm or kernel, not '" << convs << "'";
      return signalPassFailure();
    }
    module.walk([&](linalg::LinalgOp op) {
      if (op->getParentOfType<gpu::LaunchOp>() || op->getParentOfType<gpu::GPUModuleOp>())
        return;
      if (gemms) {
        if (auto match = matchGemm(op); succeeded(match))
          return (void)gemmOps.emplace_back(op, *match);
      }
      if (convs == "cudnn") {
        if (auto conv = matchDnnConv(op); succeeded(conv))
          dnnConvs.emplace_back(op, *conv);
      } else if (convs == "gemm") {
        if (auto conv = matchConv(op); succeeded(conv))
          convOps.emplace_back(op, *conv);
      }
    });
    IRRewriter rewriter(&getContext());
    llvm::DenseSet<Operation *> calls;
    for (auto &[op, g] : gemmOps)
      calls.insert(op);
    for (auto &[op, m] : convOps)
      calls.insert(op);
    for (auto &[op, m] : dnnConvs)
      calls.insert(op);
    for (auto &[op, g] : gemmOps) {
      Value C = op.getDpsInitOperand(0)->get();
      int32_t flags = tf32Matmuls ? kGemmTF32 : 0;
      Epilogue ep{.D = C, .dElem = cast<MemRefType>(C.getType()).getElementType()};
      if (epilogues)
        ep = matchEpilogue(op, g, calls);
      if (ep.biasFill) {
        rewriter.eraseOp(ep.biasFill);
        flags |= kGemmOverwrite | (ep.relu ? kGemmReLU : 0);
      } else if (Operation *zero = zeroFillBefore(op, C)) {
        rewriter.eraseOp(zero);
        flags |= kGemmOverwrite;
      }
      if (ep.hoist)
        rewriter.moveOpBefore(ep.hoist, op);
      rewriter.setInsertionPoint(op);
      Location loc = op.getLoc();
      SmallVector<Value> copies;
      auto operand = [&](Value v, ArrayRef<ReassociationIndices> groups) {
        auto type = cast<MemRefType>(v.getType());
        Type elem = g.widened ? g.widened : type.getElementType();
        return elem == type.getElementType() && usableAsIs(type, groups)
                   ? v
                   : copies.emplace_back(contiguousCopy(rewriter, loc, v, elem));
      };
      Value A = operand(g.A.buffer, g.aGroups), B = operand(g.B.buffer, g.bGroups);
      Value D = ep.D;
      if (!D) {  // a fresh buffer of the rounded type, read by the consumer
        auto cType = cast<MemRefType>(C.getType());
        D = memref::AllocOp::create(rewriter, loc, MemRefType::get(cType.getShape(), ep.dElem),
                                    C.getDefiningOp<memref::AllocOp>().getDynamicSizes(),
                                    rewriter.getI64IntegerAttr(64));
      }
      Value a = collapse(rewriter, loc, A, g.aGroups), b = collapse(rewriter, loc, B, g.bGroups),
            d = collapse(rewriter, loc, D, g.cGroups);
      if (ep.bias) {
        Value bias = ep.biasCopy ? copies.emplace_back(contiguousCopy(rewriter, loc, ep.bias, ep.dElem)) : ep.bias;
        int64_t rank = cast<MemRefType>(bias.getType()).getRank();
        if (rank != 1) {
          ReassociationIndices all;
          for (int64_t i = 0; i < rank; ++i)
            all.push_back(i);
          bias = memref::CollapseShapeOp::create(rewriter, loc, bias, SmallVector<ReassociationIndices>{all});
        }
        int64_t dyn = ShapedType::kDynamic;
        bias = memref::CastOp::create(
            rewriter, loc, MemRefType::get({dyn}, ep.dElem, StridedLayoutAttr::get(&getContext(), dyn, {dyn})), bias);
        Type ab = cast<MemRefType>(a.getType()).getElementType();
        func::CallOp::create(rewriter, loc, gemmLtCallee(module, ab, ep.dElem),
                             ValueRange{arith::ConstantIntOp::create(rewriter, loc, g.A.transposed, 32),
                                        arith::ConstantIntOp::create(rewriter, loc, g.B.transposed, 32),
                                        arith::ConstantIntOp::create(rewriter, loc, flags, 32),
                                        asGemmArg(rewriter, loc, a), asGemmArg(rewriter, loc, b),
                                        asGemmArg(rewriter, loc, d), bias});
      } else {
        callGemm(rewriter, loc, module, g.A.transposed, g.B.transposed, flags, a, b, d);
      }
      for (Value copy : copies)
        memref::DeallocOp::create(rewriter, loc, copy);
      rewriter.eraseOp(op);
      if (ep.consumer && ep.eraseConsumer) {
        rewriter.eraseOp(ep.consumer);
      } else if (ep.consumer) {
        // The consumer reads D (rounded already) where it read C.
        auto l = cast<linalg::LinalgOp>(ep.consumer);
        for (OpOperand *in : l.getDpsInputOperands()) {
          if (in->get() != C)
            continue;
          BlockArgument arg = l.getMatchingBlockArgument(in);
          rewriter.modifyOpInPlace(ep.consumer, [&] { in->set(D); });
          for (Operation *round : llvm::to_vector(arg.getUsers())) {
            rewriter.replaceAllUsesWith(round->getResult(0), arg);
            rewriter.eraseOp(round);
          }
          arg.setType(ep.dElem);
        }
        rewriter.setInsertionPointAfter(ep.consumer);
        memref::DeallocOp::create(rewriter, loc, D);
      }
    }
    for (auto &[op, m] : convOps)
      rewriteConv(rewriter, module, op, m);
    for (auto &[op, m] : dnnConvs)
      rewriteDnnConv(rewriter, module, op, m);
    if (epilogues)
      dropUnreadBuffers(module, rewriter);
    eraseWriteOnlyBuffers(module, rewriter);
  }
};

} // namespace
