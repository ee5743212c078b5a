//===- RuntimeCalls.cpp - aten.call_runtime on tensors to its buffer form -===//
#include "Utils.h"
#include "kiln/Conversion/ATenToLinalg.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace kiln::aten;

namespace {
MemRefType bufferTypeFor(Type t) {
  auto tt = cast<RankedTensorType>(t);
  return MemRefType::get(tt.getShape(), tt.getElementType());
}

/// Marks each call's to_buffer ops with the call's place among the function's
/// runtime calls, so that CSE never merges the to_buffer of one call with
/// another's. One-shot bufferization sees a tensor read only where its
/// to_buffer stands: two calls whose operands CSE makes the same tensor (two
/// expansions of a composite on the same offsets, as grouped matmuls are)
/// would otherwise share the first call's to_buffer, and ops between the calls
/// could reuse that tensor's buffer before the second call reads it.
constexpr llvm::StringLiteral kCallOperand = "kiln.call_operand";

int64_t callIndex(Operation *op) {
  Operation *func = op->getParentOfType<FunctionOpInterface>();
  int64_t index = 0;
  if (func)
    func->walk([&](CallRuntimeOp c) {
      if (c == op)
        return WalkResult::interrupt();
      ++index;
      return WalkResult::advance();
    });
  return index;
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
    IntegerAttr index = rewriter.getI64IntegerAttr(callIndex(op));
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
      auto toBuffer = bufferization::ToBufferOp::create(rewriter, loc, bufferTypeFor(v.getType()), v,
                                                        /*read_only=*/true);
      toBuffer->setAttr(kCallOperand, index);
      buffers.push_back(toBuffer);
    }
    SmallVector<Attribute> args;
    auto toBufferType = [](Attribute a) -> Attribute {
      if (auto t = dyn_cast<TypeAttr>(a))
        return TypeAttr::get(bufferTypeFor(t.getValue()));
      return a;
    };
    for (Attribute a : op.getArgs()) {
      if (auto list = dyn_cast<ArrayAttr>(a)) { // a tensor list: each element's type
        SmallVector<Attribute> elems;
        for (Attribute e : list)
          elems.push_back(toBufferType(e));
        a = rewriter.getArrayAttr(elems);
      }
      args.push_back(toBufferType(a));
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
