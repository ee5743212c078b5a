//===- LibraryCallMatch.cpp - GEMMs, convolutions and epilogues on bufferized linalg that a runtime library runs ===//
#include "LibraryCalls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace kiln::libcalls;

/// Success if `op`'s operands are buffers the runtime's GEMM takes (inputs
/// of one element type, an output of a type gemmName pairs with it), with
/// identity layouts (the input's only if `identityInput`).
LogicalResult LibraryCalls::checkOperands(linalg::LinalgOp op, bool identityInput, bool stridedInputs,
                            Type *widenedTo) {
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
    } else if (!inElem || !gemmName(inElem, type.getElementType()) ||
               (f32Only && (!inElem.isF32() || !type.getElementType().isF32()))) {
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
bool LibraryCalls::isWidenedProduct(linalg::LinalgOp op, Type f32) {
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
bool LibraryCalls::bigEnough(linalg::LinalgOp op) {
  int64_t macs = 1;
  for (int64_t r : op.getStaticLoopRanges())
    macs *= r == ShapedType::kDynamic ? dynamicSize : r;
  return macs >= minMacs;
}

/// The convolution if `op` is one in NCHW / FCHW layout (any loop order).
FailureOr<ConvMatch> LibraryCalls::matchConv(linalg::LinalgOp op) {
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
FailureOr<GemmMatch> LibraryCalls::matchGemm(linalg::LinalgOp op) {
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
Value LibraryCalls::biasOf(Operation *fill, Value c, const GemmMatch &g) {
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
Value LibraryCalls::biasIn(Value x, Operation *fill, Operation *gemm, Type want) {
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
Value LibraryCalls::unround(Value v, Type t) {
  auto tr = v.getDefiningOp<arith::TruncFOp>();
  return tr && tr.getType() == t && !tr.getRoundingmodeAttr() ? tr.getIn() : Value();
}

/// Whether `v` is max(x, 0) (`arith.maximumf` or `maxnumf`, either
/// operand order); sets `x`.
bool LibraryCalls::isRelu(Value v, Value &x) {
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
bool LibraryCalls::isCopyBody(linalg::LinalgOp l, BlockArgument c, Type t, bool &relu) {
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
Epilogue LibraryCalls::matchEpilogue(linalg::LinalgOp op, const GemmMatch &g, const llvm::DenseSet<Operation *> &calls) {
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

/// The convolution if `op` is one the runtime's cuDNN call computes.
FailureOr<DnnConvMatch> LibraryCalls::matchDnnConv(linalg::LinalgOp op) {
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
bool LibraryCalls::matchPadding(linalg::LinalgOp op, DnnConvMatch &m) {
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
  // Nothing between the copy and the convolution may touch the source, but
  // a free (moved after the call) or, where the output is the source's
  // whole buffer (bufferization reused it), the op that initialises the
  // output without reading the source (the call then writes a fresh buffer).
  Value root = rootBuffer(source);
  SmallVector<Operation *> moved;
  bool freshOutput = false;
  Operation *outputInit = nullptr;
  for (Operation *o = copy->getNextNode(); o && o != op.getOperation(); o = o->getNextNode()) {
    bool touches = false;
    o->walk([&](Operation *inner) {
      for (Value v : inner->getOperands())
        touches |= rootBuffer(v) == root;
    });
    if (!touches)
      continue;
    if (auto init = dyn_cast<linalg::LinalgOp>(o);
        init && !freshOutput && !m.grouped && m.output == root && root.getDefiningOp<memref::AllocOp>() &&
        init.getNumDpsInits() == 1 && init.getDpsInitOperand(0)->get() == root && overwritesWhole(o, root) &&
        llvm::none_of(init.getDpsInputs(), [&](Value v) { return rootBuffer(v) == root; })) {
      freshOutput = true;
      outputInit = o;
      continue;
    }
    if (!isa<memref::DeallocOp>(o) || o->getOperand(0) != root)
      return false;
    moved.push_back(o);
  }
  // With no initialiser the convolution accumulates onto the source itself.
  if (m.output == root && !freshOutput)
    return false;
  m.source = source;
  m.padding = pad;
  m.padOps = {copy, sub, fill};
  if (expand)
    m.padOps.push_back(expand);
  m.padOps.append(frees);
  m.padOps.push_back(alloc);
  m.movedFrees = moved;
  m.freshOutput = freshOutput;
  m.outputInit = outputInit;
  return true;
}

/// Whether `buffer`, written by `op`, is an allocation of `op`'s block
/// that afterwards is only freed or read as an input of linalg.generic ops
/// after `op` in that block; collects those uses.
bool LibraryCalls::onlyReadAfter(linalg::LinalgOp op, Value buffer, SmallVector<OpOperand *> &uses) {
  auto alloc = buffer.getDefiningOp<memref::AllocOp>();
  if (!alloc || alloc->getBlock() != op->getBlock())
    return false;
  // Up to the op that overwrites the whole buffer (the start of a later,
  // unrelated value in a reused buffer) or frees it.
  for (Operation *o = op->getNextNode(); o; o = o->getNextNode()) {
    if (!touches(o, buffer))
      continue;
    if (overwritesWhole(o, buffer))
      return true;
    auto generic = dyn_cast<linalg::GenericOp>(o);
    if (!isa<memref::DeallocOp>(o) && !generic)
      return false;
    bool direct = false;
    for (OpOperand &use : o->getOpOperands()) {
      if (use.get() != buffer)
        continue;
      if (generic && generic.isDpsInit(&use))
        return false;
      uses.push_back(&use);
      direct = true;
    }
    if (!direct)  // through a view
      return false;
    if (isa<memref::DeallocOp>(o))
      return true;
  }
  return true;
}
