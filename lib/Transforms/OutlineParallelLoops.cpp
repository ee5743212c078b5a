//===- OutlineParallelLoops.cpp - parallel loop bodies as chunk functions -===//
#include "kiln/Transforms/Passes.h"
#include "kiln/Transforms/ParallelLaunch.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/RegionUtils.h"

namespace kiln {
#define GEN_PASS_DEF_KILNOUTLINEPARALLELLOOPS
#include "kiln/Transforms/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

/// The buffer a memref views: through subviews, casts and reshapes to an
/// allocation or a function argument.
Value rootBuffer(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

bool isAllocation(Value root) {
  Operation *def = root.getDefiningOp();
  return def && isa<memref::AllocOp, memref::AllocaOp>(def);
}

/// True if the loop only loads from `v` (and reads its sizes).
bool onlyRead(Value v, Operation *p) {
  for (OpOperand &use : v.getUses())
    if (p->isAncestor(use.getOwner()) && !isa<memref::LoadOp, memref::DimOp>(use.getOwner()))
      return false;
  return true;
}

/// The positions, among the LLVM arguments the captures become (a ranked
/// memref: allocated and aligned pointers, offset, sizes, strides), of the
/// aligned pointers of the memref captures no other capture can reach: the
/// only capture of an allocation, or the only capture of a function argument
/// when no capture of a function argument is written (two arguments may be
/// one tensor passed twice; kiln's code never writes its arguments).
SmallVector<int64_t> noAliasArguments(ArrayRef<Value> captures, Operation *p) {
  llvm::DenseMap<Value, int> rootCount;
  bool argumentsReadOnly = true;
  for (Value c : captures)
    if (isa<MemRefType>(c.getType())) {
      Value root = rootBuffer(c);
      rootCount[root]++;
      if (isa<BlockArgument>(root) && !onlyRead(c, p))
        argumentsReadOnly = false;
    }
  SmallVector<int64_t> positions;
  int64_t pos = 0;
  for (Value c : captures) {
    if (auto mt = dyn_cast<MemRefType>(c.getType())) {
      Value root = rootBuffer(c);
      if (rootCount[root] == 1 && (isAllocation(root) || (isa<BlockArgument>(root) && argumentsReadOnly)))
        positions.push_back(pos + 1);
      pos += 3 + 2 * mt.getRank();
    } else if (isa<UnrankedMemRefType>(c.getType())) {
      pos += 2;
    } else {
      pos += 1;
    }
  }
  return positions;
}

int64_t saturatingMul(int64_t a, int64_t b) {
  if (a == 0 || b == 0)
    return 0;
  if (a > INT64_MAX / b)
    return INT64_MAX;
  return a * b;
}

int64_t saturatingAdd(int64_t a, int64_t b) { return a > INT64_MAX - b ? INT64_MAX : a + b; }

/// The static trip count of a loop with bounds lb/ub/step, or nullopt.
std::optional<int64_t> staticTrip(Value lb, Value ub, Value step) {
  std::optional<int64_t> l = getConstantIntValue(lb), u = getConstantIntValue(ub),
                         s = getConstantIntValue(step);
  if (!l || !u || !s || *s <= 0)
    return std::nullopt;
  return *u <= *l ? 0 : (*u - *l + *s - 1) / *s;
}

/// The values `loop` uses from around it (its operands and what its regions
/// read from above): the ones a function made of it takes as arguments, and
/// the constants it clones in instead.
void valuesFromAbove(Operation *loop, SmallVector<Value> &captures, SmallVector<Value> &constants) {
  SetVector<Value> used;
  for (Region &r : loop->getRegions())
    getUsedValuesDefinedAbove(r, used);
  for (Value v : loop->getOperands())
    used.insert(v);
  for (Value v : used) {
    Operation *def = v.getDefiningOp();
    if (def && def->hasTrait<OpTrait::ConstantLike>() && def->getNumResults() == 1 && def->getNumRegions() == 0)
      constants.push_back(v);
    else
      captures.push_back(v);
  }
}

struct Outliner {
  int64_t dynamicTrip;

  int64_t trip(Value lb, Value ub, Value step) const {
    return staticTrip(lb, ub, step).value_or(dynamicTrip);
  }

  /// Estimated operations one execution of `block` runs: each op counts 1,
  /// loops their body times their trip count; constants are free.
  int64_t work(Block &block) const {
    int64_t total = 0;
    for (Operation &op : block) {
      if (op.hasTrait<OpTrait::ConstantLike>() || op.hasTrait<OpTrait::IsTerminator>())
        continue;
      int64_t w = 1;
      if (auto f = dyn_cast<scf::ForOp>(op)) {
        w = saturatingMul(trip(f.getLowerBound(), f.getUpperBound(), f.getStep()), work(*f.getBody()));
      } else if (auto p = dyn_cast<scf::ParallelOp>(op)) {
        w = work(*p.getBody());
        for (unsigned d = 0; d < p.getNumLoops(); ++d)
          w = saturatingMul(w, trip(p.getLowerBound()[d], p.getUpperBound()[d], p.getStep()[d]));
      } else {
        // scf.if and the like: the larger region.
        for (Region &r : op.getRegions())
          for (Block &b : r)
            w = std::max(w, saturatingAdd(1, work(b)));
      }
      total = saturatingAdd(total, w);
    }
    return total;
  }
};

/// a * b on index values, folded when both are constants.
Value mulIndex(OpBuilder &b, Location loc, Value x, Value y) {
  std::optional<int64_t> cx = getConstantIntValue(x), cy = getConstantIntValue(y);
  if (cx && cy)
    return arith::ConstantIndexOp::create(b, loc, *cx * *cy);
  if (cx == 1)
    return y;
  if (cy == 1)
    return x;
  return arith::MulIOp::create(b, loc, x, y);
}

/// The trip count ceil((ub - lb) / step) as an index value (0 when ub <= lb).
Value tripValue(OpBuilder &b, Location loc, Value lb, Value ub, Value step) {
  if (std::optional<int64_t> t = staticTrip(lb, ub, step))
    return arith::ConstantIndexOp::create(b, loc, *t);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value diff = ub;
  if (getConstantIntValue(lb) != 0)
    diff = arith::SubIOp::create(b, loc, ub, lb);
  diff = arith::MaxSIOp::create(b, loc, diff, zero);
  if (getConstantIntValue(step) == 1)
    return diff;
  return arith::CeilDivSIOp::create(b, loc, diff, step);
}

/// A private function `name`, after `anchor`, that takes `captures` and then
/// arguments of `extra` types, its unaliased memref captures listed in
/// kiln.noalias_args (a name already taken is made unique); its entry block
/// holds clones of `constants`, and `map` sends each capture to its argument
/// and each constant to its clone.
func::FuncOp outlinedFunction(StringRef name, Operation *loop, ArrayRef<Value> captures, ArrayRef<Value> constants,
                              TypeRange extra, SymbolTable &symbols, Operation *anchor, IRMapping &map) {
  MLIRContext *ctx = loop->getContext();
  SmallVector<Type> argTypes;
  for (Value v : captures)
    argTypes.push_back(v.getType());
  argTypes.append(extra.begin(), extra.end());
  OpBuilder mb(ctx);
  mb.setInsertionPointAfter(anchor);
  auto body = func::FuncOp::create(mb, loop->getLoc(), name, FunctionType::get(ctx, argTypes, {}));
  body.setPrivate();
  SmallVector<int64_t> noAlias = noAliasArguments(captures, loop);
  if (!noAlias.empty())
    body->setAttr(kiln::kParallelNoAliasAttr, DenseI64ArrayAttr::get(ctx, noAlias));
  symbols.insert(body);
  Block *entry = body.addEntryBlock();
  OpBuilder b = OpBuilder::atBlockBegin(entry);
  for (auto [v, arg] : llvm::zip(captures, entry->getArguments()))
    map.map(v, arg);
  for (Value c : constants)
    map.map(c, b.clone(*c.getDefiningOp())->getResult(0));
  return body;
}

/// The vector-loop-friendly block of an inner parallel dim that a blocked
/// reduction nest (below) hands to one chunk: whole 64-byte lines of float32
/// outputs, so two threads never write one line.
constexpr int64_t kInnerBlock = 16;

/// Whether the only accesses of `inner`'s body to memory it writes are
/// indexed by its first induction variable: each store's memref is a view
/// of a buffer the function allocated, reached by no other memref the nest
/// touches (rootBuffer) and stored at one set of indices only, has the first
/// induction variable among its indices, and is loaded only at a store's
/// exact indices. Then the iterations of that dim touch disjoint elements
/// and read nothing another one writes, whatever the loops around them do.
bool firstDimOwnsItsWrites(scf::ParallelOp inner, Operation *nest) {
  Value iv = inner.getInductionVars()[0];
  llvm::DenseMap<Value, Value> storedRoots;  // root -> the stored memref
  SmallVector<memref::StoreOp> stores;
  bool ok = true;
  inner.getBody()->walk([&](Operation *op) {
    if (auto st = dyn_cast<memref::StoreOp>(op)) {
      if (!llvm::is_contained(st.getIndices(), iv))
        ok = false;
      Value root = rootBuffer(st.getMemRef());
      if (!isAllocation(root))
        ok = false;  // an argument or another op's result: other values may alias it
      auto [it, fresh] = storedRoots.try_emplace(root, st.getMemRef());
      if (!fresh && it->second != st.getMemRef())
        ok = false;
      // One element per buffer and iteration: every store to it at the
      // same indices (as a linalg op's one output map gives).
      for (memref::StoreOp other : stores)
        if (other.getMemRef() == st.getMemRef() && other.getIndices() != st.getIndices())
          ok = false;
      stores.push_back(st);
    } else if (!isa<memref::LoadOp>(op) && !op->hasTrait<OpTrait::IsTerminator>() && !isPure(op)) {
      ok = false;  // calls, other memory effects: not analysed
    }
  });
  if (!ok || stores.empty())
    return false;
  nest->walk([&](Operation *op) {
    if (auto ld = dyn_cast<memref::LoadOp>(op)) {
      auto it = storedRoots.find(rootBuffer(ld.getMemRef()));
      if (it == storedRoots.end())
        return;
      bool sameAsAStore = ld.getMemRef() == it->second &&
                          llvm::any_of(stores, [&](memref::StoreOp st) {
                            return st.getMemRef() == ld.getMemRef() && st.getIndices() == ld.getIndices();
                          });
      if (!sameAsAStore)
        ok = false;
    } else if (auto st = dyn_cast<memref::StoreOp>(op)) {
      if (!inner->isAncestor(st))
        ok = false;
    }
  });
  return ok;
}

/// A reduction over the leading dims of its input, as linalg lowers one
/// whose contiguous dim is a parallel one (a global pool in NHWC: for h, for
/// w, parallel c), is an outer `scf.parallel` with few iterations (the
/// batch) around `scf.for` loops around an inner `scf.parallel`: only the
/// outer loop can be split, so the whole reduction ran on one thread. When
/// the inner loop's first dim owns its writes (firstDimOwnsItsWrites), its
/// iterations are independent across the loops around it too, so the nest
/// becomes `scf.parallel (outer dims..., block)` around the same loops with
/// the inner dim restricted to the block's kInnerBlock iterations. Each
/// output element's reduction runs in the same order as before (bitwise the
/// same results for any thread count). Returns the new loop, or null.
scf::ParallelOp blockReductionNest(scf::ParallelOp p, int64_t chunks, int64_t minChunks) {
  if (p.getNumResults() > 0 || chunks >= minChunks)
    return nullptr;
  // The chain of serial loops down to the inner parallel loop.
  Operation *cur = p;
  scf::ParallelOp inner;
  unsigned fors = 0;
  while (!inner) {
    Block &body = cur->getRegion(0).front();
    Operation *only = nullptr;
    for (Operation &op : body.without_terminator()) {
      if (op.hasTrait<OpTrait::ConstantLike>())
        continue;
      if (only)
        return nullptr;
      only = &op;
    }
    if (auto f = dyn_cast_or_null<scf::ForOp>(only)) {
      if (f.getNumResults() > 0)
        return nullptr;
      cur = f, ++fors;
    } else if (auto q = dyn_cast_or_null<scf::ParallelOp>(only)) {
      inner = q;
    } else {
      return nullptr;
    }
  }
  if (fors == 0 || inner.getNumResults() > 0)
    return nullptr;
  bool straight = true;
  inner.getBody()->walk([&](Operation *op) {
    if (isa<scf::ForOp, scf::ParallelOp, scf::WhileOp>(op))
      straight = false;
  });
  std::optional<int64_t> lb = getConstantIntValue(inner.getLowerBound()[0]),
                         ub = getConstantIntValue(inner.getUpperBound()[0]),
                         step = getConstantIntValue(inner.getStep()[0]);
  if (!straight || !lb || !ub || step != 1 || *ub - *lb < 2 * kInnerBlock || !firstDimOwnsItsWrites(inner, p))
    return nullptr;
  const int64_t trip = *ub - *lb, blocks = (trip + kInnerBlock - 1) / kInnerBlock;

  Location loc = p.getLoc();
  OpBuilder b(p);
  SmallVector<Value> lbs(p.getLowerBound()), ubs(p.getUpperBound()), steps(p.getStep());
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0), c1 = arith::ConstantIndexOp::create(b, loc, 1);
  lbs.push_back(c0), ubs.push_back(arith::ConstantIndexOp::create(b, loc, blocks)), steps.push_back(c1);
  auto blocked = scf::ParallelOp::create(b, loc, lbs, ubs, steps, [&](OpBuilder &pb, Location l, ValueRange ivs) {
    IRMapping map;
    for (unsigned d = 0; d < p.getNumLoops(); ++d)
      map.map(p.getInductionVars()[d], ivs[d]);
    Value from = arith::MulIOp::create(pb, l, ivs.back(), arith::ConstantIndexOp::create(pb, l, kInnerBlock));
    if (*lb != 0)
      from = arith::AddIOp::create(pb, l, from, arith::ConstantIndexOp::create(pb, l, *lb));
    Value to = arith::MinSIOp::create(pb, l, arith::AddIOp::create(pb, l, from,
                                          arith::ConstantIndexOp::create(pb, l, kInnerBlock)),
                                      arith::ConstantIndexOp::create(pb, l, *ub));
    for (Operation &op : p.getBody()->without_terminator())
      pb.clone(op, map);
    // The clone of `inner`: its first dim over the block.
    auto q = cast<scf::ParallelOp>(map.lookup(inner.getOperation()));
    q->setOperand(0, from);
    q->setOperand(q.getNumLoops(), to);
  });
  p.erase();
  return blocked;
}

struct KilnOutlineParallelLoopsPass
    : kiln::impl::KilnOutlineParallelLoopsBase<KilnOutlineParallelLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    Outliner est{dynamicTrip};
    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    for (func::FuncOp fn : funcs) {
      if (fn.isExternal())
        continue;
      // Outermost parallel loops only: the nested ones run inside a chunk.
      SmallVector<scf::ParallelOp> loops;
      fn.walk<WalkOrder::PreOrder>([&](scf::ParallelOp p) {
        loops.push_back(p);
        return WalkResult::skip();
      });
      unsigned index = 0;
      Operation *anchor = fn; // new functions follow it in order
      for (scf::ParallelOp p : loops)
        if (failed(outline(p, fn, symbols, est, index, anchor)))
          return signalPassFailure();
      outlineSerialLoops(fn, symbols, anchor);
    }
  }

  /// The loops left in `fn` (too small for the threads) move into private
  /// functions of their own, called in their place and never inlined back:
  /// `fn` is then the glue between kernels and library calls (allocations,
  /// calls, sizes), which LLVM compiles without optimising (`optnone`: its
  /// machine code is made by the fast instruction selector). Optimising and
  /// selecting instructions for one function of a few thousand calls and
  /// loops was the longest job of a large model's compile (BERT-base:
  /// 1.1 s of LLVM passes and 1.2 s of code generation); the loops keep
  /// -O3 in their own functions.
  void outlineSerialLoops(func::FuncOp fn, SymbolTable &symbols, Operation *&anchor) {
    MLIRContext *ctx = fn.getContext();
    SmallVector<Operation *> loops;
    fn.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (!isa<scf::ForOp, scf::ParallelOp, scf::WhileOp>(op))
        return WalkResult::advance();
      loops.push_back(op);
      return WalkResult::skip();
    });
    bool loopsLeft = false;
    unsigned index = 0;
    for (Operation *loop : loops) {
      if (loop->getNumResults() > 0) {
        loopsLeft = true;
        continue;
      }
      SmallVector<Value> captures, constants;
      valuesFromAbove(loop, captures, constants);
      IRMapping map;
      auto body = outlinedFunction((fn.getSymName() + "_loop" + Twine(index++)).str(), loop, captures, constants,
                                   {}, symbols, anchor, map);
      body->setAttr("passthrough", ArrayAttr::get(ctx, {StringAttr::get(ctx, "noinline")}));
      body->setAttr(kiln::kSerialLoopAttr, UnitAttr::get(ctx));
      anchor = body;
      OpBuilder b = OpBuilder::atBlockEnd(&body.front());
      b.clone(*loop, map);
      func::ReturnOp::create(b, loop->getLoc());
      OpBuilder cb(loop);
      func::CallOp::create(cb, loop->getLoc(), body, captures);
      loop->erase();
    }
    if (!loopsLeft)
      fn->setAttr("passthrough", ArrayAttr::get(ctx, {StringAttr::get(ctx, "noinline"), StringAttr::get(ctx, "optnone")}));
  }

  LogicalResult outline(scf::ParallelOp p, func::FuncOp parent, SymbolTable &symbols,
                        const Outliner &est, unsigned &index, Operation *&anchor) {
    if (p.getNumResults() > 0)
      return success(); // a reduction into values: left serial
    unsigned m = p.getNumLoops();
    SmallVector<int64_t> trips;
    for (unsigned d = 0; d < m; ++d)
      trips.push_back(est.trip(p.getLowerBound()[d], p.getUpperBound()[d], p.getStep()[d]));
    int64_t bodyWork = est.work(*p.getBody());
    int64_t total = bodyWork;
    for (int64_t t : trips)
      total = saturatingMul(total, t);
    if (total < minWork)
      return success();
    // Too few outer iterations to share, around serial loops around an
    // inner parallel loop (a reduction over leading dims): the inner
    // loop's first dim, in blocks, becomes a dim of the outer loop.
    int64_t outerTrips = 1;
    for (int64_t t : trips)
      outerTrips = saturatingMul(outerTrips, t);
    if (scf::ParallelOp blocked = blockReductionNest(p, outerTrips, minChunks)) {
      p = blocked;
      m = p.getNumLoops();
      trips.clear();
      for (unsigned d = 0; d < m; ++d)
        trips.push_back(est.trip(p.getLowerBound()[d], p.getUpperBound()[d], p.getStep()[d]));
      bodyWork = est.work(*p.getBody());
    }

    // Split the leading dims up to min-chunks iterations; the last dim of a
    // loop around straight-line code is the vectorised inner loop and stays
    // whole unless it is the only one.
    bool innermost = true;
    p.getBody()->walk([&](Operation *op) {
      if (isa<scf::ForOp, scf::ParallelOp, scf::WhileOp>(op))
        innermost = false;
    });
    unsigned maxSplit = innermost && m > 1 ? m - 1 : m;
    unsigned k = 1;
    int64_t chunks = trips[0];
    while (k < maxSplit && chunks < minChunks)
      chunks = saturatingMul(chunks, trips[k++]);
    int64_t perIteration = bodyWork;
    for (unsigned d = k; d < m; ++d)
      perIteration = saturatingMul(perIteration, trips[d]);
    int64_t grain = std::max<int64_t>(1, (chunkWork + perIteration - 1) / std::max<int64_t>(perIteration, 1));

    Location loc = p.getLoc();
    MLIRContext *ctx = p.getContext();
    // What the body function takes: the values the loop reads from around
    // it, and its bounds. Constants are cloned in instead.
    SmallVector<Value> captures, constants;
    valuesFromAbove(p, captures, constants);

    std::string base = (parent.getSymName() + "_par" + Twine(index++)).str();
    Type indexTy = IndexType::get(ctx);
    IRMapping map;
    auto body = outlinedFunction(base, p, captures, constants, {indexTy, indexTy}, symbols, anchor, map);
    Block *entry = &body.front();
    OpBuilder b = OpBuilder::atBlockEnd(entry);
    OpBuilder mb(ctx);
    Value lo = entry->getArgument(captures.size()), hi = entry->getArgument(captures.size() + 1);
    auto mapped = [&](ValueRange vs, unsigned from, unsigned to) {
      SmallVector<Value> out;
      for (unsigned d = from; d < to; ++d)
        out.push_back(map.lookup(vs[d]));
      return out;
    };
    SmallVector<Value> lbs = mapped(p.getLowerBound(), 0, m), ubs = mapped(p.getUpperBound(), 0, m),
                       steps = mapped(p.getStep(), 0, m);
    SmallVector<Value> splitTrips;
    for (unsigned d = 0; d < k; ++d)
      splitTrips.push_back(tripValue(b, loc, lbs[d], ubs[d], steps[d]));
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Block *pBody = p.getBody();
    auto cloneBody = [&](OpBuilder &ib) {
      for (Operation &op : pBody->without_terminator())
        ib.clone(op, map);
    };
    scf::ForOp::create(b, loc, lo, hi, one, ValueRange{},
                       [&](OpBuilder &fb, Location l, Value iv, ValueRange) {
                         // Delinearise the chunk index into the split dims.
                         Value rest = iv;
                         for (int d = (int)k - 1; d >= 0; --d) {
                           Value idx = rest;
                           if (d > 0) {
                             idx = arith::RemUIOp::create(fb, l, rest, splitTrips[d]);
                             rest = arith::DivUIOp::create(fb, l, rest, splitTrips[d]);
                           }
                           Value v = mulIndex(fb, l, idx, steps[d]);
                           if (getConstantIntValue(lbs[d]) != 0)
                             v = arith::AddIOp::create(fb, l, v, lbs[d]);
                           map.map(p.getInductionVars()[d], v);
                         }
                         if (k < m) {
                           scf::ParallelOp::create(
                               fb, l, ArrayRef<Value>(lbs).drop_front(k), ArrayRef<Value>(ubs).drop_front(k),
                               ArrayRef<Value>(steps).drop_front(k),
                               [&](OpBuilder &pb, Location, ValueRange ivs) {
                                 for (unsigned d = k; d < m; ++d)
                                   map.map(p.getInductionVars()[d], ivs[d - k]);
                                 cloneBody(pb);
                               });
                         } else {
                           cloneBody(fb);
                         }
                         scf::YieldOp::create(fb, l);
                       });
    func::ReturnOp::create(b, loc);

    // The launch declaration and its call in place of the loop.
    SmallVector<Type> launchTypes{indexTy, indexTy};
    for (Value v : captures)
      launchTypes.push_back(v.getType());
    mb.setInsertionPointAfter(body);
    auto launch = func::FuncOp::create(mb, loc, body.getSymName().str() + "_launch",
                                       FunctionType::get(ctx, launchTypes, {}));
    launch.setPrivate();
    launch->setAttr(kiln::kParallelBodyAttr, FlatSymbolRefAttr::get(body.getSymNameAttr()));
    symbols.insert(launch);
    anchor = launch;

    OpBuilder cb(p);
    Value n;
    for (unsigned d = 0; d < k; ++d) {
      Value t = tripValue(cb, loc, p.getLowerBound()[d], p.getUpperBound()[d], p.getStep()[d]);
      n = n ? mulIndex(cb, loc, n, t) : t;
    }
    SmallVector<Value> args{n, arith::ConstantIndexOp::create(cb, loc, grain)};
    args.append(captures.begin(), captures.end());
    func::CallOp::create(cb, loc, launch, args);
    p.erase();
    return success();
  }
};
} // namespace
