//===- EarlyDealloc.cpp - free buffers right after their last use --------===//
#include "kiln/Transforms/Passes.h"
#include "ATen/IR/AttrNames.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"

namespace kiln {
#define GEN_PASS_DEF_KILNEARLYDEALLOC
#include "kiln/Transforms/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

/// Whether the results of `op` may carry the address of a buffer it reads:
/// memref results (views, casts, region results), pointers as indices, and
/// conversion casts.
bool resultsMayAlias(Operation *op, Value result) {
  return isa<BaseMemRefType>(result.getType()) ||
         isa<memref::ExtractAlignedPointerAsIndexOp, UnrealizedConversionCastOp>(op);
}

/// The last op of `block` that uses `alloc` or a value derived from it,
/// ignoring `dealloc`; null if the buffer reaches the block's terminator or
/// is used outside the block.
Operation *lastUse(Block *block, memref::AllocOp alloc, memref::DeallocOp dealloc) {
  Operation *last = alloc;
  SmallVector<Value> worklist{alloc.getResult()};
  DenseSet<Value> seen{alloc.getResult()};
  auto follow = [&](Operation *op) {
    for (Value r : op->getResults())
      if (resultsMayAlias(op, r) && seen.insert(r).second)
        worklist.push_back(r);
  };
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (user == dealloc.getOperation())
        continue;
      Operation *ancestor = block->findAncestorOpInBlock(*user);
      if (!ancestor || ancestor->hasTrait<OpTrait::IsTerminator>())
        return nullptr;
      if (last->isBeforeInBlock(ancestor))
        last = ancestor;
      follow(user);
      // A use inside a region may leave it through the ancestor's results.
      if (ancestor != user)
        follow(ancestor);
    }
  }
  return last;
}

/// Bytes of a statically shaped memref type; -1 if a dim is dynamic.
int64_t staticBytes(MemRefType ty) {
  if (!ty.hasStaticShape())
    return -1;
  // index elements (the shape operands of memref.reshape) count as 64-bit.
  Type elem = ty.getElementType();
  int64_t bits = elem.isIntOrFloat() ? elem.getIntOrFloatBitWidth() : 64;
  return ty.getNumElements() * std::max<int64_t>(1, bits / 8);
}

/// The most bytes that buffers allocated in `block` hold at once, walking
/// it in order (an op with regions counts every buffer allocated inside it
/// for its duration); -1 if a buffer's size is not static.
int64_t peakBytes(Block &block) {
  int64_t live = 0, peak = 0;
  DenseMap<Value, int64_t> sizes;
  for (Operation &op : block) {
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      int64_t n = staticBytes(alloc.getType());
      if (n < 0)
        return -1;
      sizes[alloc.getResult()] = n;
      live += n;
    } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
      live -= sizes.lookup(dealloc.getMemref());
      sizes.erase(dealloc.getMemref());
    } else if (op.getNumRegions()) {
      int64_t inner = 0;
      WalkResult r = op.walk([&](memref::AllocOp alloc) {
        int64_t n = staticBytes(alloc.getType());
        inner += n;
        return n < 0 ? WalkResult::interrupt() : WalkResult::advance();
      });
      if (r.wasInterrupted())
        return -1;
      peak = std::max(peak, live + inner);
    }
    peak = std::max(peak, live);
  }
  return peak;
}

struct KilnEarlyDeallocPass : kiln::impl::KilnEarlyDeallocBase<KilnEarlyDeallocPass> {
  void runOnOperation() override {
    SmallVector<memref::DeallocOp> deallocs;
    getOperation()->walk([&](memref::DeallocOp d) { deallocs.push_back(d); });
    for (memref::DeallocOp d : deallocs) {
      auto alloc = d.getMemref().getDefiningOp<memref::AllocOp>();
      if (!alloc || alloc->getBlock() != d->getBlock())
        continue;
      Operation *last = lastUse(d->getBlock(), alloc, d);
      if (last && last->isBeforeInBlock(d))
        d->moveAfter(last);
    }
    func::FuncOp fn = getOperation();
    if (!fn.isExternal() && llvm::hasSingleElement(fn.getBody()))
      if (int64_t peak = peakBytes(fn.getBody().front()); peak >= 0)
        fn->setAttr(kiln::attrs::kPeakBufferBytes,
                    IntegerAttr::get(IntegerType::get(fn.getContext(), 64), peak));
  }
};
} // namespace
