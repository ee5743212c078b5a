//===- GPUScatterLoops.cpp - host loop nests of scatters as GPU kernels ---===//
//
// Scatters lower to scf.for nests that write a result buffer at positions read
// from an index buffer (Indexing.cpp). On a GPU such a nest becomes one thread
// per iteration, with atomics where it accumulates, when its iterations cannot
// depend on each other; any other loop nest over the computation's buffers
// runs as a kernel of one thread. See the pass description in GPUPasses.td.
// A nest whose every loop has one trip is no loop by the time this pass runs
// (canonicalization folds it): its stores, with the loads and arithmetic
// feeding them, are first put back into a loop of one trip.
//
//===----------------------------------------------------------------------===//
#include "kiln/Transforms/Passes.h"
#include "BufferRoots.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/IR/IRMapping.h"

namespace kiln {
#define GEN_PASS_DEF_KILNGPUSCATTERLOOPS
#include "kiln/Transforms/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

/// Scalar arithmetic a GPU thread can run as it is.
bool isScalarOp(Operation *op) {
  StringRef ns = op->getDialect() ? op->getDialect()->getNamespace() : "";
  return ns == "arith" || ns == "math" || ns == "index" || ns == "ub" || isa<affine::AffineApplyOp>(op);
}

/// Whether every op under `root` (not `root` itself) is scalar arithmetic,
/// a load or store of a memref, or structured control flow (scf.for only
/// when `loops`); collects the memrefs touched.
bool onlyKernelOps(Operation *root, bool loops, SmallVectorImpl<Value> &touched) {
  bool ok = true;
  root->walk([&](Operation *op) {
    if (op == root)
      return WalkResult::advance();
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      touched.push_back(load.getMemRef());
    } else if (auto store = dyn_cast<memref::StoreOp>(op)) {
      touched.push_back(store.getMemRef());
    } else if (!isScalarOp(op) && !isa<scf::IfOp, scf::YieldOp>(op) && !(loops && isa<scf::ForOp>(op))) {
      ok = false;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return ok;
}

/// The read-modify-write `load; addf/addi; store` of one element, which an
/// atomic update replaces.
struct Update {
  memref::LoadOp load;
  Operation *combine;
  memref::StoreOp store;
  arith::AtomicRMWKind kind;
};

/// Whether the innermost body's iterations are independent; fills the
/// updates that must become atomic.
bool independentIterations(Block &body, SmallVectorImpl<Update> &updates) {
  llvm::SmallDenseSet<Value> written;
  body.walk([&](memref::StoreOp s) { written.insert(kiln::rootBuffer(s.getMemRef())); });
  llvm::SmallDenseSet<Operation *> updateStores;
  llvm::SmallDenseSet<Value> updated, assigned;
  bool ok = true;
  body.walk([&](memref::LoadOp load) {
    if (!written.contains(kiln::rootBuffer(load.getMemRef())))
      return;
    // A read of a written buffer: only as the read of its own element's update.
    Operation *combine = load->hasOneUse() ? *load->getUsers().begin() : nullptr;
    std::optional<arith::AtomicRMWKind> kind;
    if (combine && isa<arith::AddFOp>(combine))
      kind = arith::AtomicRMWKind::addf;
    else if (combine && isa<arith::AddIOp>(combine))
      kind = arith::AtomicRMWKind::addi;
    auto store = kind && combine->hasOneUse() ? dyn_cast<memref::StoreOp>(*combine->getUsers().begin())
                                              : memref::StoreOp();
    if (!store || store.getMemRef() != load.getMemRef() || !llvm::equal(store.getIndices(), load.getIndices()) ||
        store.getValueToStore() != combine->getResult(0) || load->getBlock() != &body ||
        combine->getBlock() != &body || store->getBlock() != &body ||
        combine->getOperand(0) == combine->getOperand(1)) {
      ok = false;
      return;
    }
    updates.push_back({load, combine, store, *kind});
    updateStores.insert(store);
    updated.insert(kiln::rootBuffer(load.getMemRef()));
  });
  body.walk([&](memref::StoreOp s) {
    if (!updateStores.contains(s))
      assigned.insert(kiln::rootBuffer(s.getMemRef()));
  });
  // Adding to and assigning one buffer in the same nest would race.
  for (Value v : updated)
    ok &= !assigned.contains(v);
  return ok;
}

/// Whether `op` would run on the host outside any loop or kernel: directly in
/// the function or under host guards (scf.if).
bool atHostLevel(Operation *op) {
  Operation *p = op->getParentOp();
  while (isa<scf::IfOp>(p))
    p = p->getParentOp();
  return isa<func::FuncOp>(p);
}

/// The root buffers `op` and the ops nested in it read and write (free and
/// allocate count as writes; an op that does not say, as both).
struct Access {
  llvm::SmallDenseSet<Value> reads, writes;

  void add(Operation *op) {
    op->walk([&](Operation *o) {
      auto both = [&] {
        for (Value v : o->getOperands())
          if (isa<BaseMemRefType>(v.getType())) {
            reads.insert(kiln::rootBuffer(v));
            writes.insert(kiln::rootBuffer(v));
          }
      };
      auto iface = dyn_cast<MemoryEffectOpInterface>(o);
      if (!iface) {
        if (!o->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
          both();
        return;
      }
      SmallVector<MemoryEffects::EffectInstance> effects;
      iface.getEffects(effects);
      for (MemoryEffects::EffectInstance &e : effects) {
        Value v = e.getValue();
        if (!v)
          both();
        else if (isa<BaseMemRefType>(v.getType()))
          (isa<MemoryEffects::Read>(e.getEffect()) ? reads : writes).insert(kiln::rootBuffer(v));
      }
    });
  }

  /// Whether running `other`'s accesses on the other side of these changes
  /// what either sees.
  bool conflicts(const Access &other) const {
    auto any = [](const llvm::SmallDenseSet<Value> &a, const llvm::SmallDenseSet<Value> &b) {
      return llvm::any_of(a, [&](Value v) { return b.contains(v); });
    };
    return any(writes, other.reads) || any(writes, other.writes) || any(reads, other.writes);
  }
};

/// Puts a store the host would run (a scatter nest whose loops all had one
/// trip, folded away), with the loads and arithmetic that feed it from its
/// block after the first such load, into a loop of one trip:
///  - where the store is, with copies of those ops (another store may share
///    them; the originals go once nothing uses them), when no op between them
///    conflicts with an earlier one's accesses (a dealloc of what they read
///    goes after the loop);
///  - else where the first load is, the ops moved there, when nothing else
///    uses them, no op between conflicts with a later one's accesses and none
///    defines a value they use (constants excepted: they go first).
/// Otherwise everything stays as it is.
void wrapHostStore(memref::StoreOp store) {
  Block *block = store->getBlock();
  llvm::SmallPtrSet<Operation *, 16> slice;
  SmallVector<Operation *> work{store};
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    for (Value v : op->getOperands()) {
      Operation *d = v.getDefiningOp();
      if (d && d->getBlock() == block && !slice.contains(d) &&
          (isa<memref::LoadOp>(d) || (isScalarOp(d) && !d->hasTrait<OpTrait::ConstantLike>()))) {
        slice.insert(d);
        work.push_back(d);
      }
    }
  }
  Operation *first = store;
  for (Operation *op : slice)
    if (isa<memref::LoadOp>(op) && op->isBeforeInBlock(first))
      first = op;
  SmallVector<Operation *> moved;
  for (Operation *op = first; op != store; op = op->getNextNode())
    if (slice.contains(op))
      moved.push_back(op);
  moved.push_back(store);
  llvm::SmallPtrSet<Operation *, 16> inLoop(moved.begin(), moved.end());
  auto accessOf = [](Operation *op) {
    Access a;
    a.add(op);
    return a;
  };
  Access earlier;
  bool down = true;
  SmallVector<Operation *> sunk;  // deallocs of what the copies read: after the loop
  for (Operation *op = first; op != store && down; op = op->getNextNode()) {
    if (inLoop.contains(op))
      earlier.add(op);
    else if (accessOf(op).conflicts(earlier))
      isa<memref::DeallocOp>(op) ? sunk.push_back(op) : (void)(down = false);
  }
  Location loc = store.getLoc();
  auto oneTrip = [&](Operation *at) {
    OpBuilder b(at);
    Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
    Value c1 = arith::ConstantIndexOp::create(b, loc, 1);
    return scf::ForOp::create(b, loc, c0, c1, c1);
  };
  if (down) {
    scf::ForOp loop = oneTrip(store);
    OpBuilder b = OpBuilder::atBlockTerminator(loop.getBody());
    IRMapping map;
    for (Operation *op : moved)
      if (op != store.getOperation())
        b.clone(*op, map);
    store->moveBefore(loop.getBody()->getTerminator());
    for (OpOperand &use : store->getOpOperands())
      use.set(map.lookupOrDefault(use.get()));
    for (Operation *op : llvm::reverse(moved))
      if (op != store.getOperation() && op->use_empty())
        op->erase();
    for (Operation *op : llvm::reverse(sunk))
      op->moveAfter(loop);
    return;
  }
  for (Operation *op : moved)
    for (Operation *user : op->getUsers())
      if (!inLoop.contains(user))
        return;
  Access later;
  SmallVector<Operation *> hoisted;
  for (Operation *op = store;; op = op->getPrevNode()) {
    if (inLoop.contains(op)) {
      later.add(op);
    } else {
      if (accessOf(op).conflicts(later))
        return;
      bool feeds = llvm::any_of(op->getUsers(), [&](Operation *u) { return inLoop.contains(u); });
      if (feeds && !op->hasTrait<OpTrait::ConstantLike>())
        return;
      if (feeds)
        hoisted.push_back(op);
    }
    if (op == first)
      break;
  }
  for (Operation *op : llvm::reverse(hoisted))
    op->moveBefore(first);
  scf::ForOp loop = oneTrip(first);
  for (Operation *op : moved)
    op->moveBefore(loop.getBody()->getTerminator());
}

gpu::ParallelLoopDimMappingAttr mapping(MLIRContext *ctx, gpu::Processor p) {
  AffineMap id = AffineMap::getMultiDimIdentityMap(1, ctx);
  return gpu::ParallelLoopDimMappingAttr::get(ctx, p, id, id);
}

/// scf.parallel (block) { scf.parallel (thread) { ... } } over [0, n) in
/// blocks of `blockSize`, mapped to GPU blocks and threads; the builder is
/// left inside `if (i < n)` with the linear index `i`.
Value buildLaunchNest(OpBuilder &b, Location loc, Value n, int64_t blockSize, LogicalResult &mapped) {
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  Value c1 = arith::ConstantIndexOp::create(b, loc, 1);
  Value bs = arith::ConstantIndexOp::create(b, loc, blockSize);
  Value blocks = arith::CeilDivUIOp::create(b, loc, n, bs);
  auto grid = scf::ParallelOp::create(b, loc, ValueRange{c0}, ValueRange{blocks}, ValueRange{c1});
  b.setInsertionPointToStart(grid.getBody());
  auto threads = scf::ParallelOp::create(b, loc, ValueRange{c0}, ValueRange{bs}, ValueRange{c1});
  MLIRContext *ctx = b.getContext();
  mapped = success(succeeded(gpu::setMappingAttr(grid, {mapping(ctx, gpu::Processor::BlockX)})) &&
                   succeeded(gpu::setMappingAttr(threads, {mapping(ctx, gpu::Processor::ThreadX)})));
  b.setInsertionPointToStart(threads.getBody());
  Value i = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, grid.getInductionVars()[0], bs),
                                  threads.getInductionVars()[0]);
  Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, i, n);
  auto guard = scf::IfOp::create(b, loc, inRange, /*withElseRegion=*/false);
  b.setInsertionPointToStart(guard.thenBlock());
  return i;
}

struct KilnGPUScatterLoopsPass : kiln::impl::KilnGPUScatterLoopsBase<KilnGPUScatterLoopsPass> {
  using Base::Base;

  /// Buffers the host reads as shapes: a nest touching one stays on the host.
  llvm::SmallDenseSet<Value> hostBuffers;

  bool touchesHostBuffer(ArrayRef<Value> touched) {
    return llvm::any_of(touched, [&](Value v) { return hostBuffers.contains(kiln::rootBuffer(v)); });
  }

  /// One thread per iteration of a perfect nest with independent iterations.
  LogicalResult parallelise(scf::ForOp outer) {
    SmallVector<scf::ForOp> loops{outer};
    while (true) {
      scf::ForOp cur = loops.back();
      if (cur.getNumRegionIterArgs() != 0 || cur->getNumResults() != 0)
        return failure();
      Block &body = *cur.getBody();
      auto inner = dyn_cast<scf::ForOp>(&body.front());
      if (!inner || body.getOperations().size() != 2)
        break;
      loops.push_back(inner);
    }
    for (scf::ForOp l : loops)
      for (Value bound : {l.getLowerBound(), l.getUpperBound(), l.getStep()})
        if (outer->isAncestor(bound.getParentRegion()->getParentOp()))
          return failure();
    Block &body = *loops.back().getBody();
    SmallVector<Value> touched;
    if (!onlyKernelOps(loops.back(), /*loops=*/false, touched) || touched.empty() || touchesHostBuffer(touched))
      return failure();
    SmallVector<Update> updates;
    if (!independentIterations(body, updates))
      return failure();

    OpBuilder b(outer);
    Location loc = outer.getLoc();
    SmallVector<Value> trips;
    Value total;
    for (scf::ForOp l : loops) {
      Value span = arith::SubIOp::create(b, loc, l.getUpperBound(), l.getLowerBound());
      Value zero = arith::ConstantIndexOp::create(b, loc, 0);
      span = arith::MaxSIOp::create(b, loc, span, zero);
      Value trip = arith::CeilDivUIOp::create(b, loc, span, l.getStep());
      trips.push_back(trip);
      total = total ? arith::MulIOp::create(b, loc, total, trip).getResult() : trip;
    }
    LogicalResult mapped = success();
    Value lin = buildLaunchNest(b, loc, total, blockSize, mapped);
    if (failed(mapped))
      return outer.emitError("cannot map a scatter loop nest to GPU blocks and threads");
    IRMapping map;
    for (int64_t k = (int64_t)loops.size() - 1; k >= 0; --k) {
      Value pos = k ? arith::RemUIOp::create(b, loc, lin, trips[k]).getResult() : lin;
      if (k)
        lin = arith::DivUIOp::create(b, loc, lin, trips[k]);
      Value iv = arith::AddIOp::create(b, loc, loops[k].getLowerBound(),
                                       arith::MulIOp::create(b, loc, pos, loops[k].getStep()));
      map.map(loops[k].getInductionVar(), iv);
    }
    llvm::SmallDenseSet<Operation *> skip;
    for (Update &u : updates)
      for (Operation *op : {u.load.getOperation(), u.combine, u.store.getOperation()})
        skip.insert(op);
    for (Operation &op : body.without_terminator()) {
      if (skip.contains(&op))
        continue;
      b.clone(op, map);
    }
    // Updates go last in the body: their values are computed by then.
    for (Update &u : updates) {
      Value other = u.combine->getOperand(0) == u.load.getResult() ? u.combine->getOperand(1)
                                                                    : u.combine->getOperand(0);
      SmallVector<Value> idx;
      for (Value v : u.store.getIndices())
        idx.push_back(map.lookupOrDefault(v));
      memref::AtomicRMWOp::create(b, loc, u.kind, map.lookupOrDefault(other),
                                  map.lookupOrDefault(u.store.getMemRef()), idx);
    }
    outer.erase();
    return success();
  }

  /// Any other nest of kernel ops over the computation's buffers: one thread.
  LogicalResult serialise(scf::ForOp outer) {
    if (outer->getNumResults() != 0 && !outer->use_empty())
      return failure();
    SmallVector<Value> touched;
    if (!onlyKernelOps(outer, /*loops=*/true, touched) || touched.empty() || touchesHostBuffer(touched))
      return failure();
    OpBuilder b(outer);
    Location loc = outer.getLoc();
    LogicalResult mapped = success();
    buildLaunchNest(b, loc, arith::ConstantIndexOp::create(b, loc, 1), 1, mapped);
    if (failed(mapped))
      return outer.emitError("cannot map a loop nest to one GPU thread");
    b.clone(*outer);
    outer.erase();
    return success();
  }

  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    if (blockSize <= 0) {
      fn.emitError("block-size must be positive, got ") << static_cast<int64_t>(blockSize);
      return signalPassFailure();
    }
    // A private helper with no kernel and no linalg op works on host memory
    // (the deallocation helper's loops over pointer arrays): not ours.
    if (fn.isPrivate()) {
      bool device = fn.walk([](Operation *op) {
                        return isa<gpu::LaunchOp>(op) || op->getName().getDialectNamespace() == "linalg"
                                   ? WalkResult::interrupt()
                                   : WalkResult::advance();
                      }).wasInterrupted();
      if (!device)
        return;
    }
    hostBuffers.clear();
    fn.walk([&](memref::ReshapeOp r) { hostBuffers.insert(kiln::rootBuffer(r.getShape())); });
    // Only stores into the computation's buffers (arguments, results, what a
    // linalg op touches) go to the GPU: the host's own arrays (the
    // deallocation helper's pointer and flag lists) stay where they are.
    llvm::SmallDenseSet<Value> computed;
    for (BlockArgument a : fn.getArguments())
      if (isa<BaseMemRefType>(a.getType()))
        computed.insert(a);
    fn.walk([&](Operation *op) {
      if (op->getName().getDialectNamespace() == "linalg" || isa<func::ReturnOp, memref::CopyOp>(op))
        for (Value v : op->getOperands())
          if (isa<BaseMemRefType>(v.getType()))
            computed.insert(kiln::rootBuffer(v));
    });
    SmallVector<memref::StoreOp> hostStores;
    fn.walk([&](memref::StoreOp s) {
      Value root = kiln::rootBuffer(s.getMemRef());
      if (atHostLevel(s) && !hostBuffers.contains(root) && computed.contains(root))
        hostStores.push_back(s);
    });
    for (memref::StoreOp s : hostStores)
      wrapHostStore(s);
    SmallVector<scf::ForOp> nests;
    // Outermost host loops: directly in the function or under host guards
    // (scf.if on sizes, e.g. "the index tensor is not empty"), which stay on
    // the host around the kernel.
    fn.walk([&](scf::ForOp loop) {
      Operation *p = loop->getParentOp();
      while (isa<scf::IfOp>(p))
        p = p->getParentOp();
      if (isa<func::FuncOp>(p))
        nests.push_back(loop);
    });
    for (scf::ForOp loop : nests)
      if (failed(parallelise(loop)))
        (void)serialise(loop);
  }
};

} // namespace
