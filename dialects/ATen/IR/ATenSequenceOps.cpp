//===- ATenSequenceOps.cpp - verifiers of diff, 1-d adaptive pooling, RNNs ===//
//
// diff: the joined input shrinks by n along dim. adaptive_avg_pool1d: an NCL
// or CL input pooled to output_size. lstm/gru/rnn_tanh/rnn_relu.input: the
// parameter count per layer and direction, the input and state ranks and the
// result shapes; their cells: the weight, bias, state and result shapes.
//
//===----------------------------------------------------------------------===//
#include "ATen/IR/ATenSequenceOps.h"
#include "ATenVerifyUtils.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace kiln::aten;
using namespace kiln::aten::detail;

LogicalResult DiffOp::verify() {
  auto inTy = rankedType(getSelf());
  if (inTy.getRank() == 0)
    return emitOpError("expects a tensor of rank 1 or more");
  if (getN() < 0)
    return emitOpError("order must be non-negative, got ") << getN();
  auto d = normalizeDim(*this, getDim(), inTy.getRank());
  if (failed(d))
    return failure();
  SmallVector<int64_t> shape(inTy.getShape());
  for (Value extra : {getPrepend(), getAppend()}) {
    if (!extra)
      continue;
    auto ty = rankedType(extra);
    if (ty.getRank() != inTy.getRank())
      return emitOpError("expects prepend/append of rank ")
             << inTy.getRank() << ", got " << ty.getRank();
    if (ty.getElementType() != inTy.getElementType())
      return emitOpError("expects prepend/append of dtype ") << inTy.getElementType();
    int64_t e = ty.getDimSize(*d);
    shape[*d] = (shape[*d] == kDyn || e == kDyn) ? kDyn : shape[*d] + e;
  }
  if (shape[*d] != kDyn)
    shape[*d] = std::max<int64_t>(shape[*d] - getN(), 0);
  return verifyResult(*this, getResult(), shape, inTy.getElementType());
}

LogicalResult AdaptiveAvgPool1dOp::verify() {
  if (failed(verifyPoolInput(*this, "input", getSelf(), 1)) ||
      failed(verifyWindowAttr(*this, "output_size", getOutputSize(), 1, 1)))
    return failure();
  auto inTy = rankedType(getSelf());
  SmallVector<int64_t> shape(inTy.getShape().drop_back());
  shape.push_back(getOutputSize()[0]);
  return verifyResult(*this, getResult(), shape, inTy.getElementType());
}

namespace {
/// Checks a recurrent op: `gates` gate blocks per weight, one or two initial
/// states, 2 or 4 parameters per layer and direction (an LSTM with proj_size:
/// one more, w_hr [P, H], and h states of P).
template <typename OpT> LogicalResult verifyRecurrent(OpT op, size_t numStates) {
  auto inTy = rankedType(op.getInput());
  if (inTy.getRank() != 3 && inTy.getRank() != 2)
    return op.emitOpError("expects a 3-d (batched) or 2-d input, got rank ") << inTy.getRank();
  if (op.getHx().size() != numStates)
    return op.emitOpError("expects ") << numStates << " initial states, got "
                                      << op.getHx().size();
  int64_t dirs = op.getBidirectional() ? 2 : 1;
  int64_t perCell = op.getHasBiases() ? 4 : 2;
  if (op.getNumLayers() < 1)
    return op.emitOpError("expects at least one layer");
  bool proj = OpT::kGates == 4 &&
              (int64_t)op.getParams().size() == op.getNumLayers() * dirs * (perCell + 1);
  if (!proj && (int64_t)op.getParams().size() != op.getNumLayers() * dirs * perCell)
    return op.emitOpError("expects ") << op.getNumLayers() * dirs * perCell
                                      << " parameters, got " << op.getParams().size();
  auto whh = rankedType(op.getParams()[1]);
  if (whh.getRank() != 2 || whh.getDimSize(0) == kDyn || whh.getDimSize(1) == kDyn ||
      whh.getDimSize(0) % OpT::kGates != 0 ||
      (!proj && whh.getDimSize(0) != OpT::kGates * whh.getDimSize(1)))
    return op.emitOpError("expects w_hh of shape [") << OpT::kGates << " * H, " << (proj ? "P" : "H") << "]";
  int64_t hidden = whh.getDimSize(0) / OpT::kGates, outSize = whh.getDimSize(1);
  if (proj) {
    auto whr = rankedType(op.getParams()[perCell]);
    if (whr.getRank() != 2 || whr.getDimSize(0) != outSize || whr.getDimSize(1) != hidden)
      return op.emitOpError("expects w_hr of shape [") << outSize << ", " << hidden << "]";
  }
  bool batched = inTy.getRank() == 3;
  int64_t t = inTy.getDimSize(batched && op.getBatchFirst() ? 1 : 0);
  int64_t b = batched ? inTy.getDimSize(op.getBatchFirst() ? 0 : 1) : -1;
  SmallVector<int64_t> out, state{op.getNumLayers() * dirs};
  if (batched)
    state.push_back(b);
  SmallVector<int64_t> cell(state);
  state.push_back(outSize);
  cell.push_back(hidden);
  if (!batched)
    out = {t, dirs * outSize};
  else if (op.getBatchFirst())
    out = {b, t, dirs * outSize};
  else
    out = {t, b, dirs * outSize};
  for (auto [i, h] : llvm::enumerate(op.getHx()))
    if (failed(verifyResult(op, h, i == 0 ? state : cell, inTy.getElementType())))
      return failure();
  for (auto [i, r] : llvm::enumerate(op->getResults()))
    if (failed(verifyResult(op, r,
                            i == 0   ? ArrayRef<int64_t>(out)
                            : i == 1 ? ArrayRef<int64_t>(state)
                                     : ArrayRef<int64_t>(cell),
                            inTy.getElementType())))
      return failure();
  return success();
}
} // namespace

LogicalResult LstmInputOp::verify() { return verifyRecurrent(*this, 2); }
LogicalResult GruInputOp::verify() { return verifyRecurrent(*this, 1); }
LogicalResult RnnTanhInputOp::verify() { return verifyRecurrent(*this, 1); }
LogicalResult RnnReluInputOp::verify() { return verifyRecurrent(*this, 1); }

namespace {
/// Checks a recurrent cell: an [B, I] or [I] input, kStates states and
/// results of [B, H] or [H], w_ih [G*H, I], w_hh [G*H, H], no or two biases
/// of [G*H].
template <typename OpT> LogicalResult verifyCell(OpT op) {
  auto inTy = rankedType(op.getInput());
  if (inTy.getRank() != 2 && inTy.getRank() != 1)
    return op.emitOpError("expects a 2-d (batched) or 1-d input, got rank ") << inTy.getRank();
  if (op.getHx().size() != (size_t)OpT::kStates)
    return op.emitOpError("expects ") << OpT::kStates << " states, got " << op.getHx().size();
  if (op.getBiases().size() != 0 && op.getBiases().size() != 2)
    return op.emitOpError("expects no biases or two (b_ih, b_hh), got ") << op.getBiases().size();
  auto whh = rankedType(op.getWHh()), wih = rankedType(op.getWIh());
  if (whh.getRank() != 2 || whh.getDimSize(0) == kDyn || whh.getDimSize(1) == kDyn ||
      whh.getDimSize(0) != OpT::kGates * whh.getDimSize(1))
    return op.emitOpError("expects w_hh of shape [") << OpT::kGates << " * H, H]";
  int64_t hidden = whh.getDimSize(1);
  if (wih.getRank() != 2 || wih.getDimSize(0) != OpT::kGates * hidden)
    return op.emitOpError("expects w_ih of shape [") << OpT::kGates * hidden << ", I]";
  for (Value bias : op.getBiases())
    if (rankedType(bias).getRank() != 1 || rankedType(bias).getDimSize(0) != OpT::kGates * hidden)
      return op.emitOpError("expects biases of shape [") << OpT::kGates * hidden << "]";
  SmallVector<int64_t> state;
  if (inTy.getRank() == 2)
    state.push_back(inTy.getDimSize(0));
  state.push_back(hidden);
  for (Value h : op.getHx())
    if (failed(verifyResult(op, h, state, inTy.getElementType())))
      return failure();
  for (Value r : op->getResults())
    if (failed(verifyResult(op, r, state, inTy.getElementType())))
      return failure();
  return success();
}
} // namespace

LogicalResult LstmCellOp::verify() { return verifyCell(*this); }
LogicalResult GruCellOp::verify() { return verifyCell(*this); }
LogicalResult RnnTanhCellOp::verify() { return verifyCell(*this); }
LogicalResult RnnReluCellOp::verify() { return verifyCell(*this); }

#define GET_OP_CLASSES
#include "ATen/IR/ATenSequenceOps.cpp.inc"
