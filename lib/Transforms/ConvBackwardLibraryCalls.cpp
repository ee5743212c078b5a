//===- ConvBackwardLibraryCalls.cpp - a convolution's input and weight gradients as backward-data / backward-filter library calls ===//
//
// convert-aten-to-linalg (conv-backward-calls) marks the ops that compute
// aten.convolution_backward's gradients with kiln.conv_backward. After
// bufferization they are:
//   weight: generic ins(dy [N, F, OH, OW], xpad [N, C, H+2p, W+2p]) outs(dw5 [G, F/G, C/G, KH, KW])
//           where xpad is a zeroed buffer with x copied into its interior;
//   input:  generic ins(P [N, F, ..], w [F, C/G, KH, KW], taps) outs(dx5 [N, G, C/G, H, W])
//           where P (dy spread by the stride and padded) is written by the
//           op marked "spread", whose body reads dy.
// Both become calls of the runtime's `<prefix>conv_bwd_filter_<type>` and
// `<prefix>conv_bwd_data_<type>` on dy, x and w themselves (the padding and
// the spread copy go away), with the convolution's parameters from the mark.
#include "LibraryCalls.h"
#include "ATen/IR/AttrNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace kiln::libcalls {

namespace {

/// The parameter `name` of the mark (a list of two), or failure.
FailureOr<SmallVector<int64_t>> param(DictionaryAttr mark, StringRef name) {
  auto list = dyn_cast_or_null<DenseI64ArrayAttr>(mark.get(name));
  if (!list || list.size() != 2)
    return failure();
  return SmallVector<int64_t>(list.asArrayRef());
}

/// Whether `t` is a memref of rank `rank` with element type `elem`.
bool isBuffer(Value v, int64_t rank, Type elem) {
  auto t = dyn_cast<MemRefType>(v.getType());
  return t && t.getRank() == rank && t.getElementType() == elem;
}

/// The frees of `root` between `from` and `to` (one block), or failure if
/// anything else there touches it.
FailureOr<SmallVector<Operation *>> freesBetween(Operation *from, Operation *to, Value root) {
  SmallVector<Operation *> frees;
  for (Operation *o = from->getNextNode(); o && o != to; o = o->getNextNode()) {
    if (!touches(o, root))
      continue;
    if (!isa<memref::DeallocOp>(o) || o->getOperand(0) != root)
      return failure();
    frees.push_back(o);
  }
  return frees;
}

/// For each of `want` (expressions in the op's loops), the result of `map`
/// equal to it: the operand's dim holding that canonical dim. Failure unless
/// every result matches one. Empty for the identity.
FailureOr<SmallVector<int64_t>> placeOf(AffineMap map, ArrayRef<AffineExpr> want) {
  if (map.getNumResults() != want.size())
    return failure();
  SmallVector<int64_t> place;
  bool identity = true;
  for (size_t i = 0; i < want.size(); ++i) {
    AffineExpr e = want[i];
    auto it = llvm::find_if(map.getResults(), [&](AffineExpr r) {
      auto diff = dyn_cast<AffineConstantExpr>(simplifyAffineExpr(r - e, map.getNumDims(), 0));
      return diff && diff.getValue() == 0;
    });
    if (it == map.getResults().end())
      return failure();
    place.push_back(it - map.getResults().begin());
    identity &= place.back() == static_cast<int64_t>(i);
  }
  if (identity)
    place.clear();
  return place;
}

/// The loop of each result of `map` (all plain, distinct dims), or failure.
FailureOr<SmallVector<unsigned>> plainLoops(AffineMap map) {
  SmallVector<unsigned> loops;
  for (AffineExpr e : map.getResults()) {
    auto d = dyn_cast<AffineDimExpr>(e);
    if (!d || llvm::is_contained(loops, d.getPosition()))
      return failure();
    loops.push_back(d.getPosition());
  }
  return loops;
}

/// A fresh packed buffer holding `v` in its canonical dim order (`perm`:
/// the dim of `v` at each canonical position), filled by one generated copy.
Value canonicalCopy(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> perm) {
  auto type = cast<MemRefType>(v.getType());
  int64_t rank = type.getRank();
  SmallVector<int64_t> shape;
  SmallVector<Value> dynamicSizes;
  SmallVector<AffineExpr> reads(rank);
  for (int64_t i = 0; i < rank; ++i) {
    shape.push_back(type.getDimSize(perm[i]));
    if (type.isDynamicDim(perm[i]))
      dynamicSizes.push_back(memref::DimOp::create(b, loc, v, perm[i]));
    reads[perm[i]] = b.getAffineDimExpr(i);
  }
  Value copy = memref::AllocOp::create(b, loc, MemRefType::get(shape, type.getElementType()), dynamicSizes,
                                       b.getI64IntegerAttr(64));
  SmallVector<AffineMap> maps{AffineMap::get(rank, 0, reads, b.getContext()), b.getMultiDimIdentityMap(rank)};
  linalg::GenericOp::create(b, loc, ValueRange{v}, ValueRange{copy}, maps,
                            SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
                            [&](OpBuilder &nb, Location l, ValueRange args) { linalg::YieldOp::create(nb, l, args[0]); });
  return copy;
}

} // namespace

FailureOr<ConvBackwardMatch> LibraryCalls::matchConvBackward(linalg::LinalgOp op) {
  auto mark = op->getAttrOfType<DictionaryAttr>(kiln::attrs::kConvBackward);
  if (!mark || !op.hasPureBufferSemantics() || op.getNumDpsInits() != 1)
    return failure();
  auto part = dyn_cast_or_null<StringAttr>(mark.get("part"));
  auto groups = dyn_cast_or_null<IntegerAttr>(mark.get("groups"));
  auto stride = param(mark, "stride"), padding = param(mark, "padding"), dilation = param(mark, "dilation");
  if (!part || !groups || failed(stride) || failed(padding) || failed(dilation) ||
      (part.getValue() != "input" && part.getValue() != "weight"))
    return failure();
  Value out = op.getDpsInitOperand(0)->get();
  auto outType = dyn_cast<MemRefType>(out.getType());
  if (!outType || outType.getRank() != 5 || !outType.getLayout().isIdentity())
    return failure();
  Type elem = outType.getElementType();
  if (!(elem.isF32() || ((elem.isBF16() || elem.isF16()) && !f32Only)) || !bigEnough(op))
    return failure();
  // The CPU runtime's gradients cannot accumulate: only a zeroed output.
  if (!deviceCall && !zeroedBefore(op, out))
    return failure();
  ConvBackwardMatch m;
  m.data = part.getValue() == "input";
  m.groups = groups.getInt();
  m.stride = *stride;
  m.padding = *padding;
  m.dilation = *dilation;
  if (!m.data) {
    // weight: ins(dy, xpad), outs(dw5 [G, F/G, C/G, KH, KW]).
    if (op.getNumDpsInputs() != 2 || outType.getDimSize(0) != m.groups)
      return failure();
    m.dy = op.getDpsInputOperand(0)->get();
    Value xpad = op.getDpsInputOperand(1)->get();
    if (!isBuffer(m.dy, 4, elem) || !isBuffer(xpad, 4, elem))
      return failure();
    // Depthwise gradients follow the forward's choice (depthwise=false: generated).
    if (!depthwiseConvs && m.groups > 1 && outType.getDimSize(2) == 1)
      return failure();
    m.w = out;
    m.x = xpad;
    // Loops (grp, fl, cl, kh, kw) from the output; (n, oh, ow) the other
    // three, in the order under which dy reads (n, grp*Fg+fl, oh, ow) and
    // xpad (n, grp*Cg+cl, oh*s0+kh*d0, ow*s1+kw*d1), each in some dim order.
    auto outLoops = plainLoops(op.getMatchingIndexingMap(op.getDpsInitOperand(0)));
    if (failed(outLoops) || op.getNumLoops() != 8)
      return failure();
    SmallVector<unsigned> rest;
    for (unsigned l = 0; l < 8; ++l)
      if (!llvm::is_contained(*outLoops, l))
        rest.push_back(l);
    int64_t Fg = outType.getDimSize(1), Cg = outType.getDimSize(2);
    MLIRContext *ctx = op.getContext();
    auto d = [&](unsigned l) { return getAffineDimExpr(l, ctx); };
    AffineExpr grp = d((*outLoops)[0]), fl = d((*outLoops)[1]), cl = d((*outLoops)[2]), kh = d((*outLoops)[3]),
               kw = d((*outLoops)[4]);
    bool found = false;
    llvm::sort(rest);
    do {
      AffineExpr n = d(rest[0]), oh = d(rest[1]), ow = d(rest[2]);
      auto dyPlace = placeOf(op.getMatchingIndexingMap(op.getDpsInputOperand(0)), {n, grp * Fg + fl, oh, ow});
      auto xPlace = placeOf(op.getMatchingIndexingMap(op.getDpsInputOperand(1)),
                            {n, grp * Cg + cl, oh * m.stride[0] + kh * m.dilation[0],
                             ow * m.stride[1] + kw * m.dilation[1]});
      if (succeeded(dyPlace) && succeeded(xPlace)) {
        m.dyPerm = *dyPlace;
        m.xPerm = *xPlace;
        found = true;
      }
    } while (!found && std::next_permutation(rest.begin(), rest.end()));
    if (!found)
      return failure();
    bool last = m.xPerm == ArrayRef<int64_t>{0, 3, 1, 2};
    if (llvm::any_of(m.padding, [](int64_t p) { return p != 0; })) {
      // The call pads x itself where xpad is x copied into a zeroed buffer
      // (NCHW or NHWC); otherwise it reads xpad with no padding (the same sums).
      DnnConvMatch pad;
      pad.input = xpad;
      pad.stride = m.stride;
      if (last)
        pad.channelsLast = {0, 3, 1, 2};
      if ((m.xPerm.empty() || last) && matchPadding(op, pad) && pad.padding == m.padding) {
        m.x = pad.source;
        m.padOps = pad.padOps;
        m.movedFrees = pad.movedFrees;
      } else {
        m.padding.assign(2, 0);
      }
    }
    return m;
  }
  // input: ins(P, w, taps), outs(dx5 [N, G, C/G, H, W]); P written by the
  // spread op just for this op, reading dy.
  if (op.getNumDpsInputs() != 3 || outType.getDimSize(1) != m.groups)
    return failure();
  Value P = op.getDpsInputOperand(0)->get();
  m.w = op.getDpsInputOperand(1)->get();
  // P: what the spread op wrote just before (nothing touching P between),
  // read by nothing after this op (bufferization may reuse P's buffer for
  // the next spread).
  auto alloc = P.getDefiningOp<memref::AllocOp>();
  if (!alloc || alloc->getBlock() != op->getBlock() || !isBuffer(m.w, 4, elem) || !deadAfter(op, P))
    return failure();
  auto spread = dyn_cast_or_null<linalg::GenericOp>(nearestToucher(op, P, /*forward=*/false));
  auto spreadMark = spread ? spread->getAttrOfType<DictionaryAttr>(kiln::attrs::kConvBackward) : DictionaryAttr();
  auto spreadPart = spreadMark ? dyn_cast_or_null<StringAttr>(spreadMark.get("part")) : StringAttr();
  if (!spreadPart || spreadPart.getValue() != "spread" || spread.getNumDpsInputs() != 0 ||
      spread.getDpsInitOperand(0)->get() != P)
    return failure();
  m.spread = spread;
  SmallVector<memref::LoadOp> loads;
  m.spread->walk([&](memref::LoadOp load) { loads.push_back(load); });
  if (loads.size() != 1 || !isBuffer(loads[0].getMemRef(), 4, elem))
    return failure();
  m.dy = loads[0].getMemRef();
  // Loops (n, grp, cl, h, w) from the output; (fl, kh, kw) the other three,
  // in the order under which P reads (n, grp*Fg+fl, h+kh*d0, w+kw*d1) in
  // that order (the spread writes it so, reading dy[n, f, ..]) and w
  // (grp*Fg+fl, cl, KH-1-kh, KW-1-kw) in some dim order.
  auto outLoops = plainLoops(op.getMatchingIndexingMap(op.getDpsInitOperand(0)));
  auto wType = cast<MemRefType>(m.w.getType());
  if (failed(outLoops) || op.getNumLoops() != 8 || !wType.hasStaticShape() ||
      (!depthwiseConvs && m.groups > 1 && wType.getDimSize(1) == 1))
    return failure();
  SmallVector<unsigned> rest;
  for (unsigned l = 0; l < 8; ++l)
    if (!llvm::is_contained(*outLoops, l))
      rest.push_back(l);
  MLIRContext *ctx = op.getContext();
  auto d = [&](unsigned l) { return getAffineDimExpr(l, ctx); };
  AffineExpr n = d((*outLoops)[0]), grp = d((*outLoops)[1]), cl = d((*outLoops)[2]), h = d((*outLoops)[3]),
             wd = d((*outLoops)[4]);
  int64_t F = wType.getDimSize(0), Fg = F / m.groups;
  bool found = false;
  llvm::sort(rest);
  do {
    AffineExpr fl = d(rest[0]), kh = d(rest[1]), kw = d(rest[2]);
    auto pPlace = placeOf(op.getMatchingIndexingMap(op.getDpsInputOperand(0)),
                          {n, grp * Fg + fl, h + kh * m.dilation[0], wd + kw * m.dilation[1]});
    if (failed(pPlace) || !pPlace->empty())
      continue;
    // The sizes of w's kernel dims, from the dims that read kh and kw.
    AffineMap wMap = op.getMatchingIndexingMap(op.getDpsInputOperand(1));
    int64_t KH = -1, KW = -1;
    for (auto [i, r] : llvm::enumerate(wMap.getResults())) {
      if (r.isFunctionOfDim(rest[1]))
        KH = wType.getDimSize(i);
      if (r.isFunctionOfDim(rest[2]))
        KW = wType.getDimSize(i);
    }
    if (KH < 1 || KW < 1)
      continue;
    if (auto wPlace = placeOf(wMap, {grp * Fg + fl, cl, (KH - 1) - kh, (KW - 1) - kw}); succeeded(wPlace)) {
      m.wPerm = *wPlace;
      found = true;
    }
  } while (!found && std::next_permutation(rest.begin(), rest.end()));
  // The spread's output is P in (N, F, ..) order with dy[n, f, ..] read at
  // its first two loops.
  auto spreadOp = cast<linalg::GenericOp>(m.spread);
  // (A unit dim's index folds to the constant 0: a batch of one.)
  auto loadIndex = [&](unsigned i, unsigned dim) {
    Value at = loads[0].getIndices()[i];
    if (auto index = at.getDefiningOp<linalg::IndexOp>())
      return index.getDim() == dim;
    return isConstantIntValue(at, 0) && cast<MemRefType>(P.getType()).getDimSize(dim) == 1 &&
           cast<MemRefType>(m.dy.getType()).getDimSize(i) == 1;
  };
  if (!found || !spreadOp.getMatchingIndexingMap(spreadOp.getDpsInitOperand(0)).isIdentity() ||
      !loadIndex(0, 0) || !loadIndex(1, 1) || (!m.wPerm.empty() && m.wPerm != ArrayRef<int64_t>{0, 3, 1, 2}))
    return failure();
  // dy may not change between the spread and the call (frees move after it).
  auto frees = freesBetween(m.spread, op, rootBuffer(m.dy));
  if (failed(frees))
    return failure();
  m.movedFrees = *frees;
  m.x = out;
  return m;
}

void LibraryCalls::rewriteConvBackward(IRRewriter &rewriter, ModuleOp module, linalg::LinalgOp op,
                                       ConvBackwardMatch &m) {
  Type elem = cast<MemRefType>(m.dy.getType()).getElementType();
  int32_t flags = tf32Convs && elem.isF32() ? kConvTF32 : 0;
  Value out = m.data ? m.x : m.w;
  if (Operation *zero = zeroFillBefore(op, out)) {
    rewriter.eraseOp(zero);
    flags |= kConvOverwrite;
  } else if (zeroedBefore(op, out)) {
    flags |= kConvOverwrite;  // the fill stays for the ops that read it
  }
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  SmallVector<Value> args{arith::ConstantIntOp::create(rewriter, loc, flags, 32),
                          arith::ConstantIntOp::create(rewriter, loc, m.groups, 64)};
  // A unit depth first (stride 1, padding 0, dilation 1).
  for (auto [list, unit] : {std::pair<ArrayRef<int64_t>, int64_t>{m.stride, 1}, {m.padding, 0}, {m.dilation, 1}}) {
    args.push_back(arith::ConstantIntOp::create(rewriter, loc, unit, 64));
    for (int64_t v : list)
      args.push_back(arith::ConstantIntOp::create(rewriter, loc, v, 64));
  }
  // cuDNN's gradients have no algorithm for operands of mixed layouts (an
  // NHWC x with an NCHW dy): on a GPU a permuted operand is copied into
  // NCHW / FCHW order first. oneDNN takes any strides.
  SmallVector<Value> copies;
  auto operand = [&](Value v, ArrayRef<int64_t> perm) {
    if (perm.empty() || !deviceCall)
      return asConvArg(rewriter, loc, v, perm);
    return asConvArg(rewriter, loc, copies.emplace_back(canonicalCopy(rewriter, loc, v, perm)));
  };
  if (m.data) {
    // The filter must be packed (FCHW or FHWC): a strided view is copied first.
    Value w = m.w;
    if (!cast<MemRefType>(w.getType()).getLayout().isIdentity())
      w = copies.emplace_back(contiguousCopy(rewriter, loc, w, elem));
    Value dx = collapse(rewriter, loc, m.x, SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}});
    args.append({asConvArg(rewriter, loc, m.dy), operand(w, m.wPerm), asConvArg(rewriter, loc, dx)});
  } else {
    Value dw = collapse(rewriter, loc, m.w, SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}, {4}});
    args.append({operand(m.x, m.xPerm), operand(m.dy, m.dyPerm), asConvArg(rewriter, loc, dw)});
  }
  func::CallOp::create(rewriter, loc, convCallee(module, elem, m.data ? "conv_bwd_data_" : "conv_bwd_filter_"),
                       args);
  for (Value copy : copies)
    memref::DeallocOp::create(rewriter, loc, copy);
  for (Operation *free : llvm::reverse(m.movedFrees))
    free->moveAfter(op);
  rewriter.eraseOp(op);
  if (m.spread) {
    // The spread buffer is only freed now.
    Value P = m.spread->getOperand(0);
    rewriter.eraseOp(m.spread);
    if (llvm::all_of(P.getUsers(), llvm::IsaPred<memref::DeallocOp>)) {
      for (Operation *free : llvm::to_vector(P.getUsers()))
        rewriter.eraseOp(free);
      rewriter.eraseOp(P.getDefiningOp());
    }
  }
  for (Operation *dead : m.padOps)
    rewriter.eraseOp(dead);
}

} // namespace kiln::libcalls
