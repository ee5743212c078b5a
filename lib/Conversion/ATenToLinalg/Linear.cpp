//===- Linear.cpp - aten matrix products to linalg contractions -----------===//
//
// Every product is one linalg.generic: loops (batch..., m, n, k), operands
// read through maps that broadcast their static unit dims, initialised with
// the (beta-scaled, broadcast) addend or zero, so the add costs nothing.
// Float16 and bfloat16 accumulate in float32, as ATen's CPU kernels do.
//
//===----------------------------------------------------------------------===//
#include "LoopUtils.h"
#include "kiln/Conversion/ATenToLinalg.h"

using namespace mlir;
using namespace kiln::aten;
using namespace kiln::detail;

namespace {
/// The sum over the loops not in `outLoops` of alpha * the product of the
/// operands, added to `init` (of the compute type).
Value contract(OpBuilder &b, Location loc, ArrayRef<LoopOperand> operands, Value init,
               ArrayRef<int64_t> outLoops, int64_t numLoops, double alpha) {
  Type acc = cast<RankedTensorType>(init.getType()).getElementType();
  return buildGeneric(b, loc, operands, init, outLoops, numLoops,
                      [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
                        bool isFloat = isa<FloatType>(acc);
                        Value p = convertScalarTo(nb, nl, args[0], acc);
                        for (Value v : args.drop_front().drop_back()) {
                          v = convertScalarTo(nb, nl, v, acc);
                          p = isFloat ? arith::MulFOp::create(nb, nl, p, v).getResult()
                                      : arith::MulIOp::create(nb, nl, p, v).getResult();
                        }
                        if (alpha != 1.0) {
                          Value a = scalarConstant(nb, nl, acc, alpha);
                          p = isFloat ? arith::MulFOp::create(nb, nl, p, a).getResult()
                                      : arith::MulIOp::create(nb, nl, p, a).getResult();
                        }
                        Value sum = isFloat ? arith::AddFOp::create(nb, nl, args.back(), p).getResult()
                                            : arith::AddIOp::create(nb, nl, args.back(), p).getResult();
                        return sum;
                      });
}

/// The initial value of a product of shape `outSizes`: beta * `addend`
/// broadcast (nothing of it when beta = 0, as ATen), or zero.
Value productInit(OpBuilder &b, Location loc, Value addend, double beta,
                  ArrayRef<OpFoldResult> outSizes, Type acc) {
  if (!addend || beta == 0.0)
    return filledTensor(b, loc, outSizes, acc, 0.0);
  Type elem = cast<RankedTensorType>(addend.getType()).getElementType();
  if (elem == acc)
    return broadcastTo(b, loc, addend, outSizes, beta);
  Value init = broadcastTo(b, loc, convertTensor(b, loc, addend, acc), outSizes);
  return beta == 1.0 ? init
                     : broadcastTo(b, loc, init, outSizes, beta);
}

/// init + alpha * product over loops, stored as `resultType`.
Value product(OpBuilder &b, Location loc, ArrayRef<LoopOperand> operands, Value addend,
              double beta, double alpha, ArrayRef<int64_t> outLoops, int64_t numLoops,
              RankedTensorType resultType) {
  Type acc = computeType(resultType.getElementType());
  SmallVector<OpFoldResult> sizes = loopSizes(b, loc, operands, numLoops), outSizes;
  for (int64_t l : outLoops)
    outSizes.push_back(sizes[l]);
  Value init = productInit(b, loc, addend, beta, outSizes, acc);
  Value out = contract(b, loc, operands, init, outLoops, numLoops, alpha);
  return convertAndCastTo(b, loc, out, resultType);
}

bool isUnsigned(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType().isUnsignedInteger();
}

/// Loops of torch.matmul's operands: batch loops first (right-aligned,
/// broadcast), then m (if lhs has rank >= 2), n (if rhs has rank >= 2), k.
struct MatmulLoops {
  SmallVector<int64_t> lhs, rhs, out;
  int64_t numLoops;
};
MatmulLoops matmulLoops(int64_t ra, int64_t rb) {
  int64_t nb = std::max<int64_t>({ra - 2, rb - 2, 0});
  int64_t next = nb;
  int64_t m = ra >= 2 ? next++ : -1, n = rb >= 2 ? next++ : -1, k = next++;
  MatmulLoops l;
  l.numLoops = next;
  for (int64_t i = 0; i < nb; ++i)
    l.out.push_back(i);
  if (ra == 1) {
    l.lhs = {k};
  } else {
    for (int64_t i = nb - (ra - 2); i < nb; ++i)
      l.lhs.push_back(i);
    l.lhs.append({m, k});
    l.out.push_back(m);
  }
  if (rb == 1) {
    l.rhs = {k};
  } else {
    for (int64_t i = nb - (rb - 2); i < nb; ++i)
      l.rhs.push_back(i);
    l.rhs.append({k, n});
    l.out.push_back(n);
  }
  return l;
}

template <typename OpT> struct ProductLowering : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  using OpAdaptor = typename OpConversionPattern<OpT>::OpAdaptor;
  LogicalResult matchAndRewrite(OpT op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value a = adaptor.getSelf(), b = adaptor.getOther();
    if (isUnsigned(a))
      return rewriter.notifyMatchFailure(op, "unsigned integer tensors are not lowered yet");
    int64_t ra = cast<RankedTensorType>(a.getType()).getRank();
    int64_t rb = cast<RankedTensorType>(b.getType()).getRank();
    Value out;
    if constexpr (std::is_same_v<OpT, OuterOp>) {
      out = product(rewriter, op.getLoc(), {{a, {0}}, {b, {1}}}, Value(), 0.0, 1.0, {0, 1}, 2,
                    op.getType());
    } else {
      MatmulLoops l = matmulLoops(ra, rb);
      out = product(rewriter, op.getLoc(), {{a, l.lhs}, {b, l.rhs}}, Value(), 0.0, 1.0, l.out,
                    l.numLoops, op.getType());
    }
    rewriter.replaceOp(op, out);
    return success();
  }
};

template <typename OpT> struct AddProductLowering : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  using OpAdaptor = typename OpConversionPattern<OpT>::OpAdaptor;
  LogicalResult matchAndRewrite(OpT op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value a, b;
    if constexpr (std::is_same_v<OpT, AddmmOp>) {
      a = adaptor.getMat1();
      b = adaptor.getMat2();
    } else {
      a = adaptor.getLhs();
      b = adaptor.getRhs();
    }
    if (isUnsigned(a))
      return rewriter.notifyMatchFailure(op, "unsigned integer tensors are not lowered yet");
    int64_t ra = cast<RankedTensorType>(a.getType()).getRank();
    int64_t rb = cast<RankedTensorType>(b.getType()).getRank();
    MatmulLoops l = matmulLoops(ra, rb);
    Value out = product(rewriter, op.getLoc(), {{a, l.lhs}, {b, l.rhs}}, adaptor.getSelf(),
                        op.getBeta().convertToDouble(), op.getAlpha().convertToDouble(), l.out,
                        l.numLoops, op.getType());
    rewriter.replaceOp(op, out);
    return success();
  }
};

/// input [batch..., k] against weight [n, k] (or [k]): loops (batch..., n, k).
struct LinearLowering : OpConversionPattern<LinearOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(LinearOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value input = adaptor.getInput(), weight = adaptor.getWeight();
    int64_t batch = cast<RankedTensorType>(input.getType()).getRank() - 1;
    bool vector = cast<RankedTensorType>(weight.getType()).getRank() == 1;
    SmallVector<int64_t> in = identityLoops(batch), out = identityLoops(batch), w;
    int64_t n = batch, k = vector ? batch : batch + 1;
    in.push_back(k);
    if (vector) {
      w = {k};
    } else {
      w = {n, k};
      out.push_back(n);
    }
    Value result = product(rewriter, op.getLoc(), {{input, in}, {weight, w}}, adaptor.getBias(),
                           1.0, 1.0, out, k + 1, op.getType());
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct EinsumLowering : OpConversionPattern<EinsumOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(EinsumOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    SmallVector<SmallVector<int64_t>> operandLoops;
    SmallVector<int64_t> resultLoops;
    int64_t numLoops;
    std::string error;
    if (failed(op.parseEquation(operandLoops, resultLoops, numLoops, error)))
      return rewriter.notifyMatchFailure(op, error);
    if (llvm::any_of(adaptor.getTensors(), isUnsigned))
      return rewriter.notifyMatchFailure(op, "unsigned integer tensors are not lowered yet");
    SmallVector<LoopOperand> operands;
    for (auto [v, loops] : llvm::zip(adaptor.getTensors(), operandLoops))
      operands.push_back({v, loops});
    Value out = product(rewriter, op.getLoc(), operands, Value(), 0.0, 1.0, resultLoops,
                        numLoops, op.getType());
    rewriter.replaceOp(op, out);
    return success();
  }
};
} // namespace

void kiln::populateLinearPatterns(RewritePatternSet &patterns) {
  patterns.add<LinearLowering, AddProductLowering<AddmmOp>, AddProductLowering<BaddbmmOp>,
               AddProductLowering<AddmvOp>, ProductLowering<MmOp>, ProductLowering<BmmOp>,
               ProductLowering<MvOp>, ProductLowering<DotOp>, ProductLowering<OuterOp>,
               ProductLowering<MatmulOp>, EinsumLowering>(patterns.getContext());
}
