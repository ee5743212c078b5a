//===- ReductionRules.cpp - derivatives of the reductions -----------------===//
#include "Autograd/Rules/Rules.h"
#include "RuleUtils.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace kiln::aten;

namespace kiln::autograd::rules {
namespace {

template <typename OpT> LogicalResult sameDtype(OpT op) {
  return checkSameElementType(op, op.getSelf(), op->getResult(0));
}

/// d sum: the cotangent broadcast over the reduced dims.
LogicalResult sumVjp(SumDimIntListOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool>,
                     SmallVectorImpl<Value> &out) {
  if (failed(sameDtype(op)))
    return failure();
  out[0] = unreduce(b, op.getLoc(), cts[0], op.getSelf(), op.getReducedDims(), op.getKeepdim());
  return success();
}
LogicalResult sumJvp(SumDimIntListOp op, OpBuilder &b, ArrayRef<Value> ts,
                     SmallVectorImpl<Value> &out) {
  if (ts[0])
    out[0] = SumDimIntListOp::create(b, op.getLoc(), op.getType(), ts[0], op.getDimAttr(),
                                     op.getKeepdimAttr(), op.getDtypeAttr());
  return success();
}

/// d mean: the cotangent spread evenly over the reduced dims.
LogicalResult meanVjp(MeanDimOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool>,
                      SmallVectorImpl<Value> &out) {
  if (failed(sameDtype(op)))
    return failure();
  Location loc = op.getLoc();
  Value self = op.getSelf();
  SmallVector<int64_t> dims = op.getReducedDims();
  Value g = keepDims(b, loc, cts[0], self, dims, op.getKeepdim());
  out[0] = expandAs(b, loc, div(b, loc, g, countOf(b, loc, self, dims)), self);
  return success();
}
LogicalResult meanJvp(MeanDimOp op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  if (ts[0])
    out[0] = MeanDimOp::create(b, op.getLoc(), op.getType(), ts[0], op.getDimAttr(),
                               op.getKeepdimAttr(), op.getDtypeAttr());
  return success();
}

/// amax/amin: the cotangent shared evenly by the elements equal to the
/// extremum (ATen's rule for ties).
template <typename OpT>
void extremumMask(OpT op, OpBuilder &b, Value &mask, Value &share) {
  Location loc = op.getLoc();
  Value x = op.getSelf();
  SmallVector<int64_t> dims = op.getReducedDims();
  Value y = keepDims(b, loc, op.getResult(), x, dims, op.getKeepdim());
  auto boolTy = RankedTensorType::get(tensorType(x).getShape(), b.getI1Type());
  mask = EqTensorOp::create(b, loc, boolTy, x, y);
  Type elem = tensorType(x).getElementType();
  Value ones = where(b, loc, mask, scalarTensor(b, loc, elem, 1.0), scalarTensor(b, loc, elem, 0.0));
  share = div(b, loc, ones, sumDims(b, loc, ones, dims, true));
}
template <typename OpT>
LogicalResult extremumVjp(OpT op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool>,
                          SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  Value mask, share;
  extremumMask(op, b, mask, share);
  Value g = keepDims(b, loc, cts[0], op.getSelf(), op.getReducedDims(), op.getKeepdim());
  out[0] = mul(b, loc, share, g);
  return success();
}
template <typename OpT>
LogicalResult extremumJvp(OpT op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  if (!ts[0])
    return success();
  Value mask, share;
  extremumMask(op, b, mask, share);
  Value t = sumDims(b, op.getLoc(), mul(b, op.getLoc(), share, ts[0]), op.getReducedDims(),
                    op.getKeepdim());
  out[0] = t;
  return success();
}

/// max.dim/min.dim: the cotangent goes to the element the index names.
template <typename OpT>
LogicalResult extremumDimVjp(OpT op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool>,
                             SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  Value x = op.getSelf();
  int64_t rank = tensorType(x).getRank();
  if (rank == 0) {
    out[0] = cts[0];
    return success();
  }
  int64_t dim = (op.getDim() % rank + rank) % rank;
  Value g = keepDims(b, loc, cts[0], x, {dim}, op.getKeepdim());
  Value idx = keepDims(b, loc, op.getIndices(), x, {dim}, op.getKeepdim());
  out[0] = ScatterOp::create(b, loc, x.getType(), zerosLike(b, loc, x), idx, g,
                             b.getI64IntegerAttr(dim), b.getStringAttr("none"), b.getBoolAttr(true));
  return success();
}
template <typename OpT>
LogicalResult extremumDimJvp(OpT op, OpBuilder &b, ArrayRef<Value> ts,
                             SmallVectorImpl<Value> &out) {
  if (!ts[0])
    return success();
  Location loc = op.getLoc();
  Value x = op.getSelf();
  int64_t rank = tensorType(x).getRank();
  if (rank == 0) {
    out[0] = ts[0];
    return success();
  }
  int64_t dim = (op.getDim() % rank + rank) % rank;
  Value idx = keepDims(b, loc, op.getIndices(), x, {dim}, op.getKeepdim());
  auto keptTy = RankedTensorType::get(tensorType(idx).getShape(), tensorType(x).getElementType());
  Value t = GatherOp::create(b, loc, keptTy, ts[0], idx, b.getI64IntegerAttr(dim));
  out[0] = viewAs(b, loc, t, op.getValues());
  return success();
}

/// var: 2 (x - mean) / (N - correction) per unit of cotangent; std divides
/// that by 2 std.
template <typename OpT, bool IsStd>
LogicalResult varVjp(OpT op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool>,
                     SmallVectorImpl<Value> &out) {
  if (failed(sameDtype(op)))
    return failure();
  Location loc = op.getLoc();
  Value x = op.getSelf();
  SmallVector<int64_t> dims = op.getReducedDims();
  Type elem = tensorType(x).getElementType();
  Value centred = sub(b, loc, x, meanDims(b, loc, x, dims, true));
  Value denom = sub(b, loc, countOf(b, loc, x, dims),
                    scalarTensor(b, loc, elem, op.getCorrection().convertToDouble()));
  Value g = keepDims(b, loc, cts[0], x, dims, op.getKeepdim());
  if (IsStd)
    g = div(b, loc, g, keepDims(b, loc, op.getResult(), x, dims, op.getKeepdim()));
  else
    g = scale(b, loc, g, 2.0);
  out[0] = mul(b, loc, centred, div(b, loc, g, denom));
  return success();
}
template <typename OpT, bool IsStd>
LogicalResult varJvp(OpT op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  if (!ts[0])
    return success();
  Location loc = op.getLoc();
  Value x = op.getSelf();
  SmallVector<int64_t> dims = op.getReducedDims();
  Type elem = tensorType(x).getElementType();
  Value centred = sub(b, loc, x, meanDims(b, loc, x, dims, true));
  Value denom = sub(b, loc, countOf(b, loc, x, dims),
                    scalarTensor(b, loc, elem, op.getCorrection().convertToDouble()));
  Value t = div(b, loc, sumDims(b, loc, mul(b, loc, centred, ts[0]), dims, true), denom);
  t = IsStd ? div(b, loc, t, keepDims(b, loc, op.getResult(), x, dims, true)) : scale(b, loc, t, 2.0);
  out[0] = viewAs(b, loc, t, op.getResult());
  return success();
}

/// logsumexp: softmax of the input per unit of cotangent.
Value logsumexpWeights(LogsumexpOp op, OpBuilder &b) {
  Location loc = op.getLoc();
  Value x = op.getSelf();
  Value y = keepDims(b, loc, op.getResult(), x, op.getReducedDims(), op.getKeepdim());
  return unary<ExpOp>(b, loc, sub(b, loc, x, y));
}
LogicalResult logsumexpVjp(LogsumexpOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool>,
                           SmallVectorImpl<Value> &out) {
  if (failed(sameDtype(op)))
    return failure();
  Location loc = op.getLoc();
  Value g = keepDims(b, loc, cts[0], op.getSelf(), op.getReducedDims(), op.getKeepdim());
  out[0] = mul(b, loc, logsumexpWeights(op, b), g);
  return success();
}
LogicalResult logsumexpJvp(LogsumexpOp op, OpBuilder &b, ArrayRef<Value> ts,
                           SmallVectorImpl<Value> &out) {
  if (ts[0])
    out[0] = sumDims(b, op.getLoc(), mul(b, op.getLoc(), logsumexpWeights(op, b), ts[0]),
                     op.getReducedDims(), op.getKeepdim());
  return success();
}

/// sum_to_size (the gradient of broadcasting): its own adjoint is the
/// broadcast back; it is linear, so the tangent is summed the same way.
LogicalResult sumToSizeVjp(SumToSizeOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool>,
                           SmallVectorImpl<Value> &out) {
  out[0] = expandAs(b, op.getLoc(), cts[0], op.getSelf());
  return success();
}
LogicalResult sumToSizeJvp(SumToSizeOp op, OpBuilder &b, ArrayRef<Value> ts,
                           SmallVectorImpl<Value> &out) {
  if (ts[0])
    out[0] = sumTo(b, op.getLoc(), ts[0], op.getType());
  return success();
}

} // namespace

void attachReductionRules(MLIRContext *ctx) {
  SumToSizeOp::attachInterface<Rule<SumToSizeOp, sumToSizeVjp, sumToSizeJvp>>(*ctx);
  SumDimIntListOp::attachInterface<Rule<SumDimIntListOp, sumVjp, sumJvp>>(*ctx);
  MeanDimOp::attachInterface<Rule<MeanDimOp, meanVjp, meanJvp>>(*ctx);
  AmaxOp::attachInterface<Rule<AmaxOp, extremumVjp<AmaxOp>, extremumJvp<AmaxOp>>>(*ctx);
  AminOp::attachInterface<Rule<AminOp, extremumVjp<AminOp>, extremumJvp<AminOp>>>(*ctx);
  MaxDimOp::attachInterface<Rule<MaxDimOp, extremumDimVjp<MaxDimOp>, extremumDimJvp<MaxDimOp>>>(*ctx);
  MinDimOp::attachInterface<Rule<MinDimOp, extremumDimVjp<MinDimOp>, extremumDimJvp<MinDimOp>>>(*ctx);
  VarCorrectionOp::attachInterface<Rule<VarCorrectionOp, varVjp<VarCorrectionOp, false>,
                                        varJvp<VarCorrectionOp, false>>>(*ctx);
  StdCorrectionOp::attachInterface<Rule<StdCorrectionOp, varVjp<StdCorrectionOp, true>,
                                        varJvp<StdCorrectionOp, true>>>(*ctx);
  LogsumexpOp::attachInterface<Rule<LogsumexpOp, logsumexpVjp, logsumexpJvp>>(*ctx);
}

} // namespace kiln::autograd::rules
