//===- RuntimeCalls.cpp - aten.call_runtime on tensors to its buffer form -===//
#include "Utils.h"
#include "kiln/Conversion/ATenToLinalg.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"

using namespace mlir;
using namespace kiln::aten;

namespace {
MemRefType bufferTypeFor(Type t) {
  auto tt = cast<RankedTensorType>(t);
  return MemRefType::get(tt.getShape(), tt.getElementType());
}

/// The dispatcher works on buffers: read-only views of the operands go in,
/// fresh buffers come out and become tensors again (restrict: nothing else
/// aliases them).
struct CallRuntimeToBuffers : OpConversionPattern<CallRuntimeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(CallRuntimeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (!llvm::all_of(op.getResultTypes(), llvm::IsaPred<RankedTensorType>) ||
        !llvm::all_of(op.getOperandTypes(), llvm::IsaPred<RankedTensorType>))
      return rewriter.notifyMatchFailure(op, "already on buffers");
    Location loc = op.getLoc();
    SmallVector<Value> buffers;
    for (Value v : adaptor.getOperands()) {
      // One-shot bufferization sees a tensor read only where to_buffer
      // stands. A tensor that feeds two calls (a custom op and its backward
      // call) would get one to_buffer after CSE, and the second call would
      // read a buffer a later op may already reuse: give each such call its
      // own copy.
      bool shared = llvm::any_of(v.getUsers(), [&](Operation *u) {
        return u != op && isa<CallRuntimeOp, bufferization::ToBufferOp>(u);
      });
      if (shared)
        v = bufferization::AllocTensorOp::create(rewriter, loc, cast<RankedTensorType>(v.getType()),
                                                 ValueRange{}, v);
      buffers.push_back(bufferization::ToBufferOp::create(rewriter, loc, bufferTypeFor(v.getType()),
                                                          v, /*read_only=*/true));
    }
    SmallVector<Attribute> args;
    for (Attribute a : op.getArgs()) {
      if (auto t = dyn_cast<TypeAttr>(a))
        a = TypeAttr::get(bufferTypeFor(t.getValue()));
      args.push_back(a);
    }
    SmallVector<Type> resultTypes;
    for (Type t : op.getResultTypes())
      resultTypes.push_back(bufferTypeFor(t));
    auto call = CallRuntimeOp::create(rewriter, loc, resultTypes, buffers, op.getCallee(),
                                      rewriter.getArrayAttr(args));
    SmallVector<Value> results;
    for (auto [r, t] : llvm::zip(call.getResults(), op.getResultTypes()))
      results.push_back(bufferization::ToTensorOp::create(rewriter, loc, t, r, /*restrict=*/true,
                                                          /*writable=*/true));
    rewriter.replaceOp(op, results);
    return success();
  }
};
} // namespace

void kiln::populateRuntimeCallPatterns(RewritePatternSet &patterns) {
  patterns.add<CallRuntimeToBuffers>(patterns.getContext());
}
