//===- IndexingRules.cpp - derivatives of gathers, flips and pads ---------===//
#include "Autograd/Rules/Rules.h"
#include "RuleUtils.h"

using namespace mlir;
using namespace kiln::aten;

namespace kiln::autograd::rules {
namespace {

/// Advanced indexing (and embedding, which imports as it): the cotangent is
/// added into zeros at the positions read (index_put with accumulate, so
/// repeated indices sum).
LogicalResult indexVjp(IndexTensorOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                       SmallVectorImpl<Value> &out) {
  if (!needed[0])
    return success();
  Location loc = op.getLoc();
  Value x = op.getSelf();
  out[0] = IndexPutOp::create(b, loc, x.getType(), zerosLike(b, loc, x), op.getIndices(), cts[0],
                              op.getIndexDimsAttr(), b.getBoolAttr(true));
  return success();
}
LogicalResult indexJvp(IndexTensorOp op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  if (ts[0])
    out[0] = IndexTensorOp::create(b, op.getLoc(), op.getType(), ts[0], op.getIndices(),
                                   op.getIndexDimsAttr());
  return success();
}

/// index_select along `dim`: index_put with accumulate along that dim.
LogicalResult indexSelectVjp(IndexSelectOp op, OpBuilder &b, ArrayRef<Value> cts,
                             ArrayRef<bool> needed, SmallVectorImpl<Value> &out) {
  if (!needed[0])
    return success();
  Location loc = op.getLoc();
  Value x = op.getSelf(), idx = op.getIndex();
  int64_t rank = tensorType(x).getRank();
  if (rank == 0 || tensorType(idx).getRank() != 1) { // 0-d forms: the cotangent itself
    out[0] = viewAs(b, loc, cts[0], x);
    return success();
  }
  int64_t dim = (op.getDim() % rank + rank) % rank;
  out[0] = IndexPutOp::create(b, loc, x.getType(), zerosLike(b, loc, x), ValueRange{idx}, cts[0],
                              b.getDenseI64ArrayAttr({dim}), b.getBoolAttr(true));
  return success();
}
LogicalResult indexSelectJvp(IndexSelectOp op, OpBuilder &b, ArrayRef<Value> ts,
                             SmallVectorImpl<Value> &out) {
  if (ts[0])
    out[0] = IndexSelectOp::create(b, op.getLoc(), op.getType(), ts[0], op.getIndex(),
                                   op.getDimAttr());
  return success();
}

/// gather: scatter-add of the cotangent at the gathered positions.
LogicalResult gatherVjp(GatherOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                        SmallVectorImpl<Value> &out) {
  if (!needed[0])
    return success();
  Location loc = op.getLoc();
  Value x = op.getSelf();
  out[0] = ScatterOp::create(b, loc, x.getType(), zerosLike(b, loc, x), op.getIndex(), cts[0],
                             op.getDimAttr(), b.getStringAttr("sum"), b.getBoolAttr(true));
  return success();
}
LogicalResult gatherJvp(GatherOp op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  if (ts[0])
    out[0] = GatherOp::create(b, op.getLoc(), op.getType(), ts[0], op.getIndex(), op.getDimAttr());
  return success();
}

/// flip is its own inverse.
LogicalResult flipVjp(FlipOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool>,
                      SmallVectorImpl<Value> &out) {
  out[0] = FlipOp::create(b, op.getLoc(), op.getSelf().getType(), cts[0], op.getDimsAttr());
  return success();
}
LogicalResult flipJvp(FlipOp op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  if (ts[0])
    out[0] = FlipOp::create(b, op.getLoc(), op.getType(), ts[0], op.getDimsAttr());
  return success();
}

/// roll back by the negated shifts.
LogicalResult rollVjp(RollOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool>,
                      SmallVectorImpl<Value> &out) {
  SmallVector<int64_t> back;
  for (int64_t s : op.getShifts())
    back.push_back(-s);
  out[0] = RollOp::create(b, op.getLoc(), op.getSelf().getType(), cts[0],
                          b.getDenseI64ArrayAttr(back), op.getDimsAttr());
  return success();
}
LogicalResult rollJvp(RollOp op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  if (ts[0])
    out[0] = RollOp::create(b, op.getLoc(), op.getType(), ts[0], op.getShiftsAttr(),
                            op.getDimsAttr());
  return success();
}

/// tril/triu keep the same triangle of the cotangent.
template <typename OpT>
LogicalResult triangleVjp(OpT op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool>,
                          SmallVectorImpl<Value> &out) {
  out[0] = OpT::create(b, op.getLoc(), op.getType(), cts[0], op.getDiagonalAttr());
  return success();
}
template <typename OpT>
LogicalResult triangleJvp(OpT op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  if (ts[0])
    out[0] = OpT::create(b, op.getLoc(), op.getType(), ts[0], op.getDiagonalAttr());
  return success();
}

/// constant_pad_nd: the cotangent cropped by the negated pads (the padding
/// value is a constant).
LogicalResult padVjp(ConstantPadNdOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool>,
                     SmallVectorImpl<Value> &out) {
  SmallVector<int64_t> back;
  for (int64_t p : op.getPad())
    back.push_back(-p);
  out[0] = ConstantPadNdOp::create(b, op.getLoc(), op.getSelf().getType(), cts[0],
                                   b.getDenseI64ArrayAttr(back), b.getF64FloatAttr(0.0));
  return success();
}
LogicalResult padJvp(ConstantPadNdOp op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  if (ts[0])
    out[0] = ConstantPadNdOp::create(b, op.getLoc(), op.getType(), ts[0], op.getPadAttr(),
                                     b.getF64FloatAttr(0.0));
  return success();
}

} // namespace

void attachIndexingRules(MLIRContext *ctx) {
  IndexTensorOp::attachInterface<Rule<IndexTensorOp, indexVjp, indexJvp>>(*ctx);
  IndexSelectOp::attachInterface<Rule<IndexSelectOp, indexSelectVjp, indexSelectJvp>>(*ctx);
  GatherOp::attachInterface<Rule<GatherOp, gatherVjp, gatherJvp>>(*ctx);
  FlipOp::attachInterface<Rule<FlipOp, flipVjp, flipJvp>>(*ctx);
  RollOp::attachInterface<Rule<RollOp, rollVjp, rollJvp>>(*ctx);
  TrilOp::attachInterface<Rule<TrilOp, triangleVjp<TrilOp>, triangleJvp<TrilOp>>>(*ctx);
  TriuOp::attachInterface<Rule<TriuOp, triangleVjp<TriuOp>, triangleJvp<TriuOp>>>(*ctx);
  ConstantPadNdOp::attachInterface<Rule<ConstantPadNdOp, padVjp, padJvp>>(*ctx);
}

} // namespace kiln::autograd::rules
