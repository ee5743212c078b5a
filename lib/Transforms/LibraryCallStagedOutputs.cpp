//===- LibraryCallStagedOutputs.cpp - a convolution writing a strided view, staged through a buffer of its own ===//
//
// A convolution whose result is part of a concatenation (kiln-channels-last
// builds a channel concatenation in NHWC) writes a strided slice of the
// concatenation's buffer after bufferization. oneDNN's fast kernels take
// dense outputs only, and the library-call match takes identity layouts, so
// such a convolution would run as generated loops. Here it writes a dense
// buffer of its own instead, copied into the slice after it; the op that
// initialised the slice (its bias broadcast) initialises that buffer, so the
// bias still folds into the call (docs/Rationale/cpu-library-calls.md).
//
//===----------------------------------------------------------------------===//
#include "LibraryCalls.h"

using namespace mlir;
using namespace kiln::libcalls;

void kiln::libcalls::stageStridedConvOutputs(Operation *root) {
  SmallVector<linalg::LinalgOp> convs;
  root->walk([&](linalg::LinalgOp op) {
    if (!op.hasPureBufferSemantics() || op.getNumDpsInits() != 1 || !linalg::isaConvolutionOpInterface(op))
      return;
    Value out = op.getDpsInitOperand(0)->get();
    auto type = dyn_cast<MemRefType>(out.getType());
    if (type && type.hasStaticShape() && !type.getLayout().isIdentity() && out.getDefiningOp<memref::SubViewOp>())
      convs.push_back(op);
  });
  for (linalg::LinalgOp op : convs) {
    OpOperand *init = op.getDpsInitOperand(0);
    Value view = init->get();
    auto type = cast<MemRefType>(view.getType());
    Location loc = op.getLoc();
    OpBuilder b(op);
    auto dense = MemRefType::get(type.getShape(), type.getElementType());
    // The op that set the whole slice just before (nothing in between
    // touching its buffer) sets the dense buffer instead; otherwise the
    // convolution accumulates onto a copy of the slice.
    Operation *prev = nearestToucher(op, rootBuffer(view), /*forward=*/false);
    bool retarget = prev && prev->getBlock() == op->getBlock() && overwritesWhole(prev, view);
    if (retarget)
      b.setInsertionPoint(prev);
    Value staged = memref::AllocOp::create(b, loc, dense, b.getI64IntegerAttr(64));
    if (retarget) {
      cast<linalg::LinalgOp>(prev).getDpsInitOperand(0)->set(staged);
    } else {
      b.setInsertionPoint(op);
      linalg::CopyOp::create(b, loc, view, staged);
    }
    init->set(staged);
    b.setInsertionPointAfter(op);
    linalg::CopyOp::create(b, loc, staged, view);
    memref::DeallocOp::create(b, loc, staged);
  }
}
