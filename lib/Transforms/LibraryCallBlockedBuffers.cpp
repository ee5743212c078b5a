//===- LibraryCallBlockedBuffers.cpp - buffers only oneDNN convolutions touch, kept in its blocked layout ===//
//
// On the CPU an ungrouped convolution with a window runs in oneDNN's blocked
// layout (channels in groups of 8 or 16), its NHWC operands reordered in and
// out around each call (runtime/src/cpu/Conv.cpp). Between two such calls
// the reorders are wasted: a buffer that only convolution calls read and
// write can hold the blocked layout itself. This marks the x, y and r
// operands whose buffers qualify (KILN_CPU_X/Y/R_BLOCKED in the call's
// flags): a whole static (N, H, W, C) allocation, C a multiple of 8, every
// use of it a full channels-last view passed to an ungrouped 2-d
// convolution call (or its free), and no input a convolution crops; of
// those, the ones that save reorders (a 1x1 convolution runs NHWC unless an
// operand is blocked; docs/Rationale/cpu-library-calls.md).
//
//===----------------------------------------------------------------------===//
#include "LibraryCalls.h"

#include "kiln/abi/cpu_calls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

namespace {

/// The operand positions of the convolution calls' x, w, y and r.
constexpr unsigned kX = 11, kY = 13, kR = 15;

bool isConvCall(func::CallOp call) {
  StringRef callee = call.getCallee();
  return callee == "kiln_cpu_conv_f32" || callee == "kiln_cpu_conv_bias_f32" || callee == "kiln_cpu_conv_bias_add_f32";
}

std::optional<int64_t> constantOperand(func::CallOp call, unsigned i) {
  return getConstantIntValue(call.getOperand(i));
}

/// The allocation `view` shows whole, channels last: a reinterpret_cast of a
/// static identity-layout (N, H, W, C) alloc, sizes (N, C, 1, H, W) read from
/// the alloc's own metadata (asConvArg's view). Null otherwise.
memref::AllocOp wholeChannelsLastAlloc(Value view) {
  auto rc = view.getDefiningOp<memref::ReinterpretCastOp>();
  if (!rc)
    return {};
  auto alloc = rc.getSource().getDefiningOp<memref::AllocOp>();
  if (!alloc)
    return {};
  MemRefType type = alloc.getType();
  if (type.getRank() != 4 || !type.hasStaticShape() || !type.getLayout().isIdentity() || !type.getElementType().isF32() ||
      type.getDimSize(3) % 8)
    return {};
  SmallVector<OpFoldResult> sizes = rc.getMixedSizes();
  if (sizes.size() != 5 || getConstantIntValue(sizes[2]) != 1)
    return {};
  auto sizeIs = [&](int i, int dim) {
    auto v = dyn_cast<Value>(sizes[i]);
    auto md = v ? v.getDefiningOp<memref::ExtractStridedMetadataOp>() : nullptr;
    if (md)
      return md.getSource() == alloc.getResult() && v == md.getSizes()[dim];
    return getConstantIntValue(sizes[i]) == type.getDimSize(dim);
  };
  if (!sizeIs(0, 0) || !sizeIs(1, 3) || !sizeIs(3, 1) || !sizeIs(4, 2))
    return {};
  return alloc;
}

/// Whether the 2-d convolution `call` reads rows of x past its last window
/// (the runtime's view then drops them: not expressible blocked).
bool cropsInput(func::CallOp call, MemRefType x, MemRefType y, MemRefType w) {
  // x and y are (N, H, W, C); the filter is (F, KH, KW, C/groups).
  for (int d = 0; d < 2; ++d) {
    std::optional<int64_t> s = constantOperand(call, 3 + d), p = constantOperand(call, 6 + d),
                           dl = constantOperand(call, 9 + d);
    if (!s || !p || !dl)
      return true;
    int64_t in = x.getDimSize(1 + d), out = y.getDimSize(1 + d), k = w.getDimSize(1 + d);
    int64_t right = (out - 1) * *s + (k - 1) * *dl + 1 - in - *p;
    bool floors = right > -*s && (in + *p - (k - 1) * *dl - 1) / *s + 1 == out;
    if (right < 0 && !floors)
      return true;
  }
  return false;
}

} // namespace

void kiln::libcalls::markBlockedConvBuffers(Operation *root) {
  // Each convolution call: whether it runs in the blocked layout whatever
  // its operands (an ungrouped one with a window over whole channel
  // groups: runtime/src/cpu/Conv.cpp), and the allocation each of its x, y
  // and r views (null for another value).
  struct Call {
    func::CallOp op;
    bool blockedAnyway = false;
    SmallVector<std::pair<unsigned, Operation *>> operands;
  };
  SmallVector<Call> calls;
  llvm::MapVector<Operation *, SmallVector<OpOperand *>> uses;
  llvm::DenseSet<Operation *> rejected;
  root->walk([&](func::CallOp op) {
    if (!isConvCall(op))
      return;
    Call call{op};
    bool ungrouped2d = constantOperand(op, 1) == 1 && constantOperand(op, 2) == 1 && constantOperand(op, 5) == 0 &&
                       constantOperand(op, 8) == 1 && constantOperand(op, 0);
    auto allocOf = [&](unsigned i) { return wholeChannelsLastAlloc(op.getOperand(i)); };
    memref::AllocOp x = allocOf(kX), y = allocOf(kY);
    auto wView = op.getOperand(12).getDefiningOp<memref::ReinterpretCastOp>();
    auto wType = wView ? dyn_cast<MemRefType>(wView.getSource().getType()) : nullptr;
    bool filterShaped = wType && wType.getRank() == 4 && wType.hasStaticShape();
    bool crops = !x || !y || !filterShaped || cropsInput(op, x.getType(), y.getType(), wType);
    call.blockedAnyway = ungrouped2d && filterShaped && (wType.getDimSize(1) > 1 || wType.getDimSize(2) > 1) &&
                         wType.getDimSize(0) % 8 == 0 && wType.getDimSize(3) % 8 == 0;
    SmallVector<unsigned> operands{kX, kY};
    if (op.getCallee() == "kiln_cpu_conv_bias_add_f32")
      operands.push_back(kR);
    for (unsigned i : operands) {
      memref::AllocOp alloc = allocOf(i);
      call.operands.push_back({i, alloc});
      if (!alloc)
        continue;
      if (!ungrouped2d || (i == kX && crops))
        rejected.insert(alloc);
      uses[alloc].push_back(&op->getOpOperand(i));
    }
    calls.push_back(std::move(call));
  });
  llvm::DenseSet<Operation *> blocked;
  for (auto &[allocOp, operands] : uses) {
    if (rejected.contains(allocOp))
      continue;
    // Every use of the allocation: a free, the metadata read for a view, or
    // a view passed to the calls collected above (and nothing else).
    llvm::SmallPtrSet<OpOperand *, 8> allowed(operands.begin(), operands.end());
    bool only = true;
    for (OpOperand &use : allocOp->getResult(0).getUses()) {
      Operation *user = use.getOwner();
      if (isa<memref::DeallocOp, memref::ExtractStridedMetadataOp>(user))
        continue;
      auto rc = dyn_cast<memref::ReinterpretCastOp>(user);
      only = rc && llvm::all_of(rc->getUses(), [&](OpOperand &u) { return allowed.contains(&u); });
      if (!only)
        break;
    }
    if (only)
      blocked.insert(allocOp);
  }
  // The reorders a choice costs: a call runs blocked if it would anyway or
  // an operand is blocked, and each operand in the other layout is
  // reordered. From every candidate blocked, a buffer goes back to NHWC
  // while that saves reorders (a 1x1 convolution between NHWC neighbours,
  // which a blocked operand would make reorder the others).
  auto reorders = [&]() {
    int64_t n = 0;
    for (const Call &c : calls) {
      bool mode = c.blockedAnyway ||
                  llvm::any_of(c.operands, [&](auto &o) { return o.second && blocked.contains(o.second); });
      for (auto &[i, alloc] : c.operands)
        n += (alloc && blocked.contains(alloc)) != mode;
    }
    return n;
  };
  int64_t best = reorders();
  for (bool improved = true; improved;) {
    improved = false;
    for (auto &[allocOp, operands] : uses) {
      if (!blocked.erase(allocOp))
        continue;
      int64_t without = reorders();
      if (without < best) {
        best = without;
        improved = true;
      } else {
        blocked.insert(allocOp);
      }
    }
  }
  for (auto &[allocOp, operands] : uses) {
    if (!blocked.contains(allocOp))
      continue;
    for (OpOperand *operand : operands) {
      auto call = cast<func::CallOp>(operand->getOwner());
      unsigned i = operand->getOperandNumber();
      int32_t bit = i == kX ? KILN_CPU_X_BLOCKED : i == kY ? KILN_CPU_Y_BLOCKED : KILN_CPU_R_BLOCKED;
      std::optional<int64_t> flags = constantOperand(call, 0);
      OpBuilder b(call);
      call->setOperand(0, arith::ConstantIntOp::create(b, call.getLoc(), static_cast<int32_t>(*flags) | bit, 32));
    }
  }
}
