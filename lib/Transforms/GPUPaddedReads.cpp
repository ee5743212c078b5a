//===- GPUPaddedReads.cpp - window kernels that read around a padded copy's source -===//
//
// A pad before a sliding window (a depthwise convolution's or a pooling
// window's zero or -inf border) reaches kiln-map-linalg-to-gpu as three ops:
// a fill of a larger buffer with the pad value, a copy of the source into
// its interior, and the window reading the larger buffer. Here the window
// reads the source itself instead: an element inside the source is loaded
// from it, one in the border is the pad value, so the fill and the copy (two
// kernels over the whole padded map) go away.
#include "GPUMapLinalg.h"
#include "LibraryCalls.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace kiln::gpu_map {

/// The discardable attribute on a window op listing the operand numbers it
/// reads around their padded copy's source (see planPaddedReads).
static constexpr llvm::StringLiteral kPaddedReads = "kiln.padded_reads";

/// `padded` as a constant-filled buffer with `source` copied into its
/// interior, read by `reader` once and otherwise only freed after it: a
/// static, identity-layout allocation in `reader`'s block, filled whole with
/// a constant, then (before `reader`) written by one copy through a subview
/// of static offsets and sizes and unit strides whose shape is `source`'s.
static std::optional<PaddedBuffer> matchPaddedBuffer(Value padded, Operation *reader) {
  auto alloc = padded.getDefiningOp<memref::AllocOp>();
  auto type = dyn_cast<MemRefType>(padded.getType());
  if (!alloc || alloc->getBlock() != reader->getBlock() || !type.hasStaticShape() || !type.getLayout().isIdentity())
    return std::nullopt;
  PaddedBuffer m;
  m.padded = padded;
  Operation *fill = nullptr;
  memref::SubViewOp sub;
  unsigned reads = 0;
  for (OpOperand &use : padded.getUses()) {
    Operation *user = use.getOwner();
    if (user == reader) {
      ++reads;
      continue;
    }
    if (isa<memref::DeallocOp>(user) && reader->isBeforeInBlock(user)) {
      m.frees.push_back(user);
      continue;
    }
    if (auto s = dyn_cast<memref::SubViewOp>(user); s && !sub && s->hasOneUse()) {
      sub = s;
      continue;
    }
    if (auto lin = dyn_cast<linalg::LinalgOp>(user); lin && !fill && lin.getNumDpsInits() == 1 &&
                                                      lin.getDpsInitOperand(0)->get() == padded) {
      Value v = libcalls::filledValue(lin);
      TypedAttr value;
      if (v && matchPattern(v, m_Constant(&value)) && value.getType() == type.getElementType()) {
        fill = user;
        m.value = value;
        continue;
      }
    }
    return std::nullopt;
  }
  if (reads != 1 || !fill || !sub)
    return std::nullopt;
  auto copy = dyn_cast<linalg::LinalgOp>(*sub->getUsers().begin());
  if (!copy || !libcalls::isCopy(copy) || copy.getDpsInitOperand(0)->get() != sub.getResult() ||
      copy->getBlock() != reader->getBlock() || !fill->isBeforeInBlock(copy) || !copy->isBeforeInBlock(reader))
    return std::nullopt;
  if (llvm::any_of(sub.getStaticOffsets(), ShapedType::isDynamic) ||
      llvm::any_of(sub.getStaticStrides(), [](int64_t s) { return s != 1; }))
    return std::nullopt;
  m.source = copy.getDpsInputOperand(0)->get();
  auto srcType = dyn_cast<MemRefType>(m.source.getType());
  if (!srcType || srcType.getElementType() != type.getElementType() || srcType.getRank() != type.getRank() ||
      srcType.getShape() != sub.getType().getShape())
    return std::nullopt;
  m.low = llvm::to_vector(sub.getStaticOffsets());
  m.padOps = {copy, sub, fill};
  return m;
}

/// Whether `o` may stand between the copy and the window while the window
/// reads `root` (the source's buffer) later: it is no reduction (whose fused
/// epilogue could write after it) and does not touch `root`, or only reads
/// it (a linalg op none of whose outputs is a view of it).
static bool keepsSource(Operation *o, Value root) {
  auto lin = dyn_cast<linalg::LinalgOp>(o);
  if (lin && lin.getNumReductionLoops() != 0)
    return false;
  if (!libcalls::touches(o, root))
    return true;
  return lin && lin.hasPureBufferSemantics() && o->getNumRegions() == 1 &&
         llvm::none_of(lin.getDpsInits(), [&](Value v) { return libcalls::rootBuffer(v) == root; }) &&
         !o->walk([&](Operation *inner) { return inner == o || isPure(inner) ? WalkResult::advance()
                                                                            : WalkResult::interrupt(); })
              .wasInterrupted();
}

llvm::DenseMap<Operation *, SmallVector<PaddedBuffer>> planPaddedReads(ArrayRef<linalg::GenericOp> ops,
                                                                       llvm::SmallDenseSet<Operation *> &single) {
  llvm::DenseMap<Operation *, SmallVector<PaddedBuffer>> plans;
  for (linalg::GenericOp op : ops) {
    if (!single.contains(op.getOperation()) || op.getNumReductionLoops() == 0)
      continue;
    SmallVector<int64_t> marked;
    for (OpOperand *in : op.getDpsInputOperands()) {
      std::optional<PaddedBuffer> m = matchPaddedBuffer(in->get(), op);
      if (!m || !single.contains(m->padOps[0]) || !single.contains(m->padOps[2]))
        continue;
      // The window now reads the source: it may not write the source itself,
      // nothing between the copy and it may, and the source's free moves
      // after it.
      Value root = libcalls::rootBuffer(m->source);
      if (llvm::any_of(op.getDpsInits(), [&](Value v) { return libcalls::rootBuffer(v) == root; }))
        continue;
      SmallVector<Operation *> frees;
      bool kept = true;
      for (Operation *o = m->padOps[0]->getNextNode(); o && o != op.getOperation() && kept; o = o->getNextNode()) {
        if (auto free = dyn_cast<memref::DeallocOp>(o); free && free.getMemref() == root)
          frees.push_back(o);
        else
          kept = keepsSource(o, root);
      }
      if (!kept)
        continue;
      for (Operation *free : llvm::reverse(frees))
        free->moveAfter(op);
      single.erase(m->padOps[0]);
      single.erase(m->padOps[2]);
      m->operand = in->getOperandNumber();
      marked.push_back(m->operand);
      plans[op.getOperation()].push_back(std::move(*m));
    }
    if (!marked.empty())
      op->setAttr(kPaddedReads, DenseI64ArrayAttr::get(op.getContext(), marked));
  }
  return plans;
}

/// Gives `epilogue`, which overwrites the whole of `root` (an allocation in
/// its block), a fresh buffer instead, and every later use of `root` (its
/// free included) that buffer; `root` is freed right after `epilogue`. Fails
/// (changing nothing) where `root` is not such a buffer or a view of it made
/// before `epilogue` is used after it.
static bool renameEpilogueOutput(linalg::GenericOp window, linalg::GenericOp epilogue, Value root) {
  auto alloc = root.getDefiningOp<memref::AllocOp>();
  Block *block = epilogue->getBlock();
  if (!alloc || alloc->getBlock() != block || !alloc.getDynamicSizes().empty() || !alloc.getSymbolOperands().empty() ||
      !libcalls::overwritesWhole(epilogue, root))
    return false;
  auto atOrAfter = [&](Operation *user) {
    Operation *at = block->findAncestorOpInBlock(*user);
    return at && (at == epilogue.getOperation() || epilogue->isBeforeInBlock(at));
  };
  std::function<bool(Value)> usedAfter = [&](Value v) {
    return llvm::any_of(v.getUsers(), [&](Operation *user) {
      return atOrAfter(user) || (isa<ViewLikeOpInterface>(user) && llvm::any_of(user->getResults(), usedAfter));
    });
  };
  for (Operation *user : root.getUsers())
    if (!atOrAfter(user) && isa<ViewLikeOpInterface>(user) && llvm::any_of(user->getResults(), usedAfter))
      return false;
  OpBuilder b(window);
  auto fresh = cast<memref::AllocOp>(b.clone(*alloc));
  root.replaceUsesWithIf(fresh.getResult(), [&](OpOperand &use) { return atOrAfter(use.getOwner()); });
  b.setInsertionPointAfter(epilogue);
  memref::DeallocOp::create(b, epilogue.getLoc(), root);
  return true;
}

void settlePaddedReads(linalg::GenericOp op, linalg::GenericOp epilogue, SmallVector<PaddedBuffer> &plans,
                       llvm::SmallDenseSet<Operation *> &single) {
  if (!epilogue)
    return;
  SmallVector<int64_t> kept;
  SmallVector<PaddedBuffer> settled;
  for (PaddedBuffer &m : plans) {
    // The source as the copy reads it now: an earlier window's settlement may
    // have given the buffer a fresh one since this window was planned.
    m.source = cast<linalg::LinalgOp>(m.padOps[0]).getDpsInputOperand(0)->get();
    Value root = libcalls::rootBuffer(m.source);
    bool writes = llvm::any_of(epilogue.getDpsInits(), [&](Value v) { return libcalls::rootBuffer(v) == root; });
    if (!writes || renameEpilogueOutput(op, epilogue, root)) {
      kept.push_back(m.operand);
      settled.push_back(std::move(m));
      continue;
    }
    // The copy and the fill stay kernels; the window reads the padded buffer.
    single.insert(m.padOps[0]);
    single.insert(m.padOps[2]);
  }
  plans = std::move(settled);
  if (kept.empty())
    op->removeAttr(kPaddedReads);
  else
    op->setAttr(kPaddedReads, DenseI64ArrayAttr::get(op.getContext(), kept));
}

std::optional<Value> loadPadded(OpBuilder &b, Location loc, linalg::GenericOp op, OpOperand &operand,
                                ArrayRef<Value> indices) {
  auto marked = op->getAttrOfType<DenseI64ArrayAttr>(kPaddedReads);
  if (!marked || !llvm::is_contained(marked.asArrayRef(), static_cast<int64_t>(operand.getOperandNumber())))
    return std::nullopt;
  std::optional<PaddedBuffer> m = matchPaddedBuffer(operand.get(), op);
  assert(m && "a padded read's buffer changed between planning and lowering");
  auto padType = cast<MemRefType>(m->padded.getType());
  auto srcType = cast<MemRefType>(m->source.getType());
  auto cst = [&](int64_t v) -> Value { return arith::ConstantIndexOp::create(b, loc, v); };
  // Each padded dim: i - low, inside the source when below its size as an
  // unsigned number; a border element loads the source's first element of
  // that dim instead (always in bounds), and the pad value is selected.
  SmallVector<Value> at;
  Value inside;
  for (auto [d, i] : llvm::enumerate(indices)) {
    int64_t low = m->low[d], size = srcType.getDimSize(d);
    if (low == 0 && size == padType.getDimSize(d)) {
      at.push_back(i);
      continue;
    }
    Value shifted = low ? arith::SubIOp::create(b, loc, i, cst(low)).getResult() : i;
    Value ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, shifted, cst(size));
    at.push_back(arith::SelectOp::create(b, loc, ok, shifted, cst(0)));
    inside = inside ? arith::AndIOp::create(b, loc, inside, ok).getResult() : ok;
  }
  Value v = memref::LoadOp::create(b, loc, m->source, at);
  if (!inside)
    return v;
  Value pad = arith::ConstantOp::create(b, loc, m->value);
  return arith::SelectOp::create(b, loc, inside, v, pad).getResult();
}

void finishPaddedReads(RewriterBase &rewriter, ArrayRef<PaddedBuffer> plans) {
  for (const PaddedBuffer &m : plans) {
    for (Operation *o : m.padOps)
      rewriter.eraseOp(o);
    for (Operation *free : m.frees)
      rewriter.eraseOp(free);
    if (m.padded.use_empty())
      rewriter.eraseOp(m.padded.getDefiningOp());
  }
}

} // namespace kiln::gpu_map
