//===- GPUReductionFusion.cpp - a reduction kernel's initial values and epilogue in its own threads -===//
//
// A reduction that runs one thread per output (or several, a sliding window's)
// is often bracketed by two elementwise kernels over its whole output: one
// before it that writes the initial values (a bias broadcast, a fill) and one
// after it that reads the result once (an activation, the rounding of a
// float32 accumulator to 16 bits). Here the reduction's threads compute the
// initial value of their element with the first op's body and apply the
// second op's body to their result, storing what it writes: two launches
// and four passes over the output fewer, with the same arithmetic in the
// same order.
//===----------------------------------------------------------------------===//
#include "BufferRoots.h"
#include "GPUMapLinalg.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace kiln::gpu_map {

/// Whether buffers `a` and `b` may share memory: the same root, or two roots
/// neither of which is a fresh allocation (arguments may alias each other).
static bool mayAlias(Value a, Value b) {
  Value ra = rootBuffer(a), rb = rootBuffer(b);
  if (ra == rb)
    return true;
  return !ra.getDefiningOp<memref::AllocOp>() && !rb.getDefiningOp<memref::AllocOp>();
}

static bool anyAlias(ArrayRef<Value> as, ArrayRef<Value> bs) {
  for (Value a : as)
    for (Value b : bs)
      if (mayAlias(a, b))
        return true;
  return false;
}

static SmallVector<Value> bufferOperands(linalg::GenericOp op, bool inputs, bool outputs) {
  SmallVector<Value> buffers;
  for (OpOperand &o : op->getOpOperands()) {
    bool isInit = op.isDpsInit(&o);
    if (isa<MemRefType>(o.get().getType()) && (isInit ? outputs : inputs))
      buffers.push_back(o.get());
  }
  return buffers;
}

/// The buffers `op` reads and writes (`unknown`: effects it does not state).
/// Allocations are neither.
static void effectsOf(Operation *op, SmallVectorImpl<Value> &reads, SmallVectorImpl<Value> &writes, bool &unknown) {
  if (isPure(op))
    return;
  auto iface = dyn_cast<MemoryEffectOpInterface>(op);
  if (!iface || (op->getNumRegions() > 0 && !isa<linalg::LinalgOp>(op))) {
    unknown = true;
    return;
  }
  SmallVector<MemoryEffects::EffectInstance> effects;
  iface.getEffects(effects);
  for (auto &e : effects) {
    if (isa<MemoryEffects::Allocate>(e.getEffect()))
      continue;
    Value v = e.getValue();
    if (!v) {
      unknown = true;
      return;
    }
    (isa<MemoryEffects::Read>(e.getEffect()) ? reads : writes).push_back(v);
  }
}

/// Whether `op` is elementwise over `buffer`: parallel loops only, `buffer`
/// one of its operands (once) with a map that is a permutation of all loops,
/// and every output's map a permutation too (each element written once).
static OpOperand *elementwiseOver(linalg::GenericOp op, Value buffer) {
  if (op.getNumReductionLoops() != 0 || op.getNumLoops() == 0)
    return nullptr;
  OpOperand *found = nullptr;
  for (OpOperand &o : op->getOpOperands()) {
    if (o.get() != buffer)
      continue;
    if (found || !op.getMatchingIndexingMap(&o).isPermutation())
      return nullptr;
    found = &o;
  }
  for (OpOperand &out : op.getDpsInitsMutable())
    if (!op.getMatchingIndexingMap(&out).isPermutation())
      return nullptr;
  return found;
}

std::optional<ReductionFusion> planReductionFusion(linalg::GenericOp op,
                                                   const llvm::SmallDenseSet<Operation *> &candidates) {
  unsigned numParallel = op.getNumParallelLoops();
  if (op.getNumLoops() == numParallel || op.getNumDpsInits() != 1 || op->getNumResults() != 0)
    return std::nullopt;
  OpOperand &out = *op.getDpsInitOperand(0);
  Value acc = out.get();
  if (!isa<MemRefType>(acc.getType()) || indexedByReduction(op, out))
    return std::nullopt;
  // Each parallel loop indexes the output exactly once, in some order.
  AffineMap outMap = op.getMatchingIndexingMap(&out);
  if (outMap.getNumResults() != numParallel || !outMap.isProjectedPermutation())
    return std::nullopt;
  SmallVector<Value> opInputs = bufferOperands(op, /*inputs=*/true, /*outputs=*/false);
  if (anyAlias(opInputs, {acc}))
    return std::nullopt;

  ReductionFusion fusion;
  // The prologue: the last op before that touches the output, if it only
  // overwrites it elementwise from buffers nothing in between writes.
  SmallVector<Value> between;
  bool unknown = false;
  for (Operation *x = op->getPrevNode(); x; x = x->getPrevNode()) {
    auto g = dyn_cast<linalg::GenericOp>(x);
    if (g && candidates.contains(x) && g.getNumDpsInits() == 1 && g.getDpsInitOperand(0)->get() == acc &&
        elementwiseOver(g, acc) == g.getDpsInitOperand(0) &&
        !g.payloadUsesValueFromOperand(g.getDpsInitOperand(0))) {
      SmallVector<Value> ins = bufferOperands(g, true, false);
      if (!unknown && !anyAlias(ins, {acc}) && !anyAlias(ins, between))
        fusion.prologue = g;
      break;
    }
    SmallVector<Value> reads, writes;
    effectsOf(x, reads, writes, unknown);
    if (unknown || anyAlias(reads, {acc}) || anyAlias(writes, {acc}))
      break;
    llvm::append_range(between, writes);
  }

  // The epilogue: the next op that touches the output, if it reads it
  // elementwise, and nothing in between but allocations, deallocations and
  // pure ops (it moves up to the reduction).
  for (Operation *x = op->getNextNode(); x; x = x->getNextNode()) {
    auto g = dyn_cast<linalg::GenericOp>(x);
    if (g && candidates.contains(x)) {
      OpOperand *read = elementwiseOver(g, acc);
      if (!read)
        break;
      bool inPlace = g.isDpsInit(read);
      if (!inPlace && !g.payloadUsesValueFromOperand(read))
        break;
      // Its outputs are written while other threads still read the
      // reduction's inputs and the prologue's.
      SmallVector<Value> outs = bufferOperands(g, false, true);
      SmallVector<Value> readByOthers = opInputs;
      if (fusion.prologue)
        llvm::append_range(readByOthers, bufferOperands(fusion.prologue, true, false));
      if (anyAlias(outs, readByOthers))
        break;
      // Nothing else it touches may be the output (another thread's element).
      bool clash = false;
      for (OpOperand &o : g->getOpOperands())
        clash |= &o != read && isa<MemRefType>(o.get().getType()) && mayAlias(o.get(), acc);
      if (clash)
        break;
      fusion.epilogue = g;
      fusion.epilogueOperand = read->getOperandNumber();
      break;
    }
    if (isa<memref::AllocOp, memref::DeallocOp>(x) || isPure(x)) {
      if (auto dealloc = dyn_cast<memref::DeallocOp>(x); dealloc && mayAlias(dealloc.getMemref(), acc))
        break;
      continue;
    }
    break;
  }
  if (fusion.epilogue) {
    // The output itself is still stored if anything after the epilogue may
    // read it (or it is not a fresh allocation).
    bool inPlace = fusion.epilogue.isDpsInit(&fusion.epilogue->getOpOperand(fusion.epilogueOperand));
    fusion.storeOutput = !inPlace;
    if (!inPlace) {
      Value root = rootBuffer(acc);
      fusion.storeOutput = !root.getDefiningOp<memref::AllocOp>() || root != acc;
      for (Operation *user : acc.getUsers())
        if (user != op && user != fusion.epilogue && user != fusion.prologue && !isa<memref::DeallocOp>(user))
          fusion.storeOutput = true;
    }
  }
  if (!fusion.prologue && !fusion.epilogue)
    return std::nullopt;
  return fusion;
}

/// The loop indices of elementwise `g` at the element of its operand
/// `operand` (a permutation map) that the reduction `op`'s output holds at
/// `op`'s parallel indices `ivs`.
static SmallVector<Value> ivsAt(linalg::GenericOp op, ValueRange ivs, linalg::GenericOp g, OpOperand &operand) {
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  AffineMap map = g.getMatchingIndexingMap(&operand);
  SmallVector<Value> gIvs(g.getNumLoops());
  for (unsigned k = 0; k < map.getNumResults(); ++k)
    gIvs[cast<AffineDimExpr>(map.getResult(k)).getPosition()] = ivs[outMap.getDimPosition(k)];
  return gIvs;
}

Value initialValue(OpBuilder &b, Location loc, linalg::GenericOp op, ValueRange ivs, const ReductionFusion *fusion) {
  if (!fusion || !fusion->prologue)
    return loadOperand(b, loc, op, *op.getDpsInitOperand(0), ivs);
  linalg::GenericOp p = fusion->prologue;
  SmallVector<Value> pIvs = ivsAt(op, ivs, p, *p.getDpsInitOperand(0)), args;
  for (OpOperand *in : p.getDpsInputOperands())
    args.push_back(loadOperand(b, loc, p, *in, pIvs));
  args.push_back(ub::PoisonOp::create(b, loc, p.getRegionOutputArgs()[0].getType()));
  return emitBody(b, p, args, pIvs)[0];
}

void storeResult(OpBuilder &b, Location loc, linalg::GenericOp op, Value result, ValueRange ivs,
                 const ReductionFusion *fusion) {
  OpOperand &out = *op.getDpsInitOperand(0);
  if (!fusion || !fusion->epilogue || fusion->storeOutput)
    memref::StoreOp::create(b, loc, result, out.get(), indicesAt(b, loc, op.getMatchingIndexingMap(&out), ivs));
  if (!fusion || !fusion->epilogue)
    return;
  linalg::GenericOp e = fusion->epilogue;
  OpOperand &read = e->getOpOperand(fusion->epilogueOperand);
  SmallVector<Value> eIvs = ivsAt(op, ivs, e, read), args;
  for (OpOperand *in : e.getDpsInputOperands())
    args.push_back(in == &read ? result : loadOperand(b, loc, e, *in, eIvs));
  for (OpOperand &o : e.getDpsInitsMutable()) {
    unsigned i = o.getOperandNumber() - e.getNumDpsInputs();
    if (&o == &read)
      args.push_back(result);
    else if (e.payloadUsesValueFromOperand(&o))
      args.push_back(loadOperand(b, loc, e, o, eIvs));
    else
      args.push_back(ub::PoisonOp::create(b, loc, e.getRegionOutputArgs()[i].getType()));
  }
  for (auto [o, v] : llvm::zip(e.getDpsInitsMutable(), emitBody(b, e, args, eIvs)))
    memref::StoreOp::create(b, loc, v, o.get(), indicesAt(b, loc, e.getMatchingIndexingMap(&o), eIvs));
}

/// Moves `v`'s defining op (an allocation or a pure op, with its own
/// operands) before `point` if it is after it in the same block.
static void hoistBefore(Value v, Operation *point) {
  Operation *def = v.getDefiningOp();
  if (!def || def->getBlock() != point->getBlock() || def->isBeforeInBlock(point))
    return;
  for (Value operand : def->getOperands())
    hoistBefore(operand, point);
  def->moveBefore(point);
}

void prepareReductionFusion(linalg::GenericOp op, const ReductionFusion &fusion) {
  if (fusion.epilogue)
    for (Value v : fusion.epilogue->getOperands())
      hoistBefore(v, op);
}

void finishReductionFusion(RewriterBase &rewriter, Value acc, const ReductionFusion &fusion) {
  if (fusion.prologue)
    rewriter.eraseOp(fusion.prologue);
  if (fusion.epilogue)
    rewriter.eraseOp(fusion.epilogue);
  // An accumulator nothing reads or writes any more goes with its deallocation.
  auto alloc = acc.getDefiningOp<memref::AllocOp>();
  if (!alloc || !llvm::all_of(acc.getUsers(), [](Operation *u) { return isa<memref::DeallocOp>(u); }))
    return;
  for (Operation *u : llvm::make_early_inc_range(acc.getUsers()))
    rewriter.eraseOp(u);
  rewriter.eraseOp(alloc);
}

} // namespace kiln::gpu_map
