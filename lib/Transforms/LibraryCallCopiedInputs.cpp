//===- LibraryCallCopiedInputs.cpp - GEMM inputs read through the transposing copies that fed them ===//
//
// Attention written out of matrix products (float32 models, whose attention
// is not the fused kernel) splits a projection's output into heads with a
// copy per operand: q, k and v of shape (B, S, H, D) seen as (B, H, S, D) are
// copied into fresh buffers that the batched products then read. The GEMM
// library takes any row and batch stride, so on the GPU the product reads the
// copy's source through a transposed view instead, and the copy (a kernel
// that moved the whole tensor) and its buffer go away.
//
//===----------------------------------------------------------------------===//
#include "BufferRoots.h"
#include "LibraryCalls.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace kiln::libcalls;

/// The permutation that views `copy`'s input as its output (result k: the
/// input's dim that is the output's dim k), if
/// `copy` does nothing but copy its one input into the whole of buffer `x`
/// through a permutation (all loops parallel, the output indexed by the
/// loops in order, the body yielding the input's element).
static std::optional<AffineMap> copyPermutation(linalg::GenericOp copy, Value x) {
  if (copy.getNumDpsInputs() != 1 || copy.getNumDpsInits() != 1 || copy->getNumResults() != 0 ||
      copy.getDpsInitOperand(0)->get() != x || copy.getNumParallelLoops() != copy.getNumLoops())
    return std::nullopt;
  OpOperand *in = copy.getDpsInputOperand(0);
  if (!isa<MemRefType>(in->get().getType()))
    return std::nullopt;
  AffineMap inMap = copy.getMatchingIndexingMap(in);
  if (!copy.getMatchingIndexingMap(copy.getDpsInitOperand(0)).isIdentity() || !inMap.isPermutation())
    return std::nullopt;
  auto yield = cast<linalg::YieldOp>(copy.getBody()->getTerminator());
  if (yield.getNumOperands() != 1 || yield.getOperand(0) != copy.getMatchingBlockArgument(in))
    return std::nullopt;
  // Output dim k is the loop k, which the input reads at the dim j where
  // inMap's result j is loop k: the transposed view's dim k is the input's j.
  return inversePermutation(inMap);
}

/// Whether no op strictly between `from` and `to` (one block, `from` first)
/// may write buffer `root`: those that touch it have no memory effects (views
/// of it) or are linalg ops reading it as an input only.
static bool unwrittenBetween(Operation *from, Operation *to, Value root) {
  for (Operation *op = from->getNextNode(); op && op != to; op = op->getNextNode()) {
    if (!touches(op, root) || isMemoryEffectFree(op))
      continue;
    auto l = dyn_cast<linalg::LinalgOp>(op);
    if (!l || op->getNumResults() != 0 || op->getNumRegions() != 1 ||
        llvm::any_of(l.getDpsInits(), [&](Value out) { return rootBuffer(out) == root; }))
      return false;
  }
  return true;
}

void LibraryCalls::readInputsThroughCopies(ModuleOp module, IRRewriter &rewriter) {
  SmallVector<linalg::LinalgOp> gemms;
  module.walk([&](linalg::LinalgOp op) {
    if (!op->getParentOfType<gpu::LaunchOp>() && !op->getParentOfType<gpu::GPUModuleOp>() &&
        succeeded(matchGemm(op)))
      gemms.push_back(op);
  });
  for (linalg::LinalgOp op : gemms) {
    for (OpOperand *in : op.getDpsInputOperands()) {
      Value x = in->get();
      auto alloc = x.getDefiningOp<memref::AllocOp>();
      if (!alloc || alloc->getBlock() != op->getBlock() ||
          llvm::count(op->getOperands(), x) != 1)
        continue;
      // The buffer is written whole by the copy, nothing touches it (or a
      // view of it) until the product, and it is dead after the product
      // (bufferization may reuse it later: then it is written whole again
      // first). So the product is the copy's only reader.
      auto copy = dyn_cast_or_null<linalg::GenericOp>(nearestToucher(op, x, /*forward=*/false));
      if (!copy || !deadAfter(op, x))
        continue;
      std::optional<AffineMap> perm = copyPermutation(copy, x);
      if (!perm)
        continue;
      Value source = copy.getDpsInputOperand(0)->get();
      Value root = rootBuffer(source);
      if (!unwrittenBetween(copy, op, root) ||
          llvm::any_of(op.getDpsInits(), [&](Value out) { return rootBuffer(out) == root; }))
        continue;
      // The view: the source's sizes and strides permuted, its offset (a
      // reinterpret_cast, a view the buffer analyses see through; static
      // layouts only).
      auto srcType = cast<MemRefType>(source.getType());
      SmallVector<int64_t> srcStrides, sizes, strides;
      int64_t offset;
      if (!srcType.hasStaticShape() || failed(srcType.getStridesAndOffset(srcStrides, offset)) ||
          ShapedType::isDynamic(offset) || llvm::any_of(srcStrides, ShapedType::isDynamic))
        continue;
      for (unsigned k = 0; k < perm->getNumResults(); ++k) {
        unsigned j = perm->getDimPosition(k);
        sizes.push_back(srcType.getDimSize(j));
        strides.push_back(srcStrides[j]);
      }
      if (ArrayRef<int64_t>(sizes) != cast<MemRefType>(x.getType()).getShape())
        continue;
      auto viewType = MemRefType::get(sizes, srcType.getElementType(),
                                      StridedLayoutAttr::get(op->getContext(), offset, strides),
                                      srcType.getMemorySpace());
      rewriter.setInsertionPoint(op);
      Value view =
          memref::ReinterpretCastOp::create(rewriter, copy.getLoc(), viewType, source, offset, sizes, strides);
      rewriter.modifyOpInPlace(op, [&] { in->set(view); });
      // Kept only where the library reads the view as it is (else the call
      // would make a contiguous copy again).
      FailureOr<GemmMatch> g = matchGemm(op);
      bool asIs = succeeded(g) && !g->widened &&
                  (g->A.buffer == view || g->B.buffer == view) &&
                  usableAsIs(cast<MemRefType>(view.getType()), g->A.buffer == view ? g->aGroups : g->bGroups);
      if (!asIs) {
        rewriter.modifyOpInPlace(op, [&] { in->set(x); });
        rewriter.eraseOp(view.getDefiningOp());
        continue;
      }
      rewriter.eraseOp(copy);
    }
  }
}
