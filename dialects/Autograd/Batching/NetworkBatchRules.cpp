//===- NetworkBatchRules.cpp - batching rules: convolution, pooling, norms, attention -===//
//
// These ops treat their leading dim N as independent samples, so a vmap
// batch over an input with unbatched weights folds into N ([B, N, ...] ->
// [B*N, ...]) and unfolds from the results. Layer norm and attention
// already take any leading dims. Inference batch norm's backward, whose
// weight and bias gradients sum over N, makes the batch part of the
// channels instead: [N, B*C, ...] with the per-channel operands repeated,
// so each sample gets its own weight and bias gradients.
//
//===----------------------------------------------------------------------===//
#include "Autograd/Batching/BatchRules.h"
#include "Autograd/Rules/RuleUtils.h"

#include "ATen/IR/ATenDialect.h"

using namespace mlir;
using namespace kiln::aten;

namespace kiln::batching::rules {
namespace {
using Result = FailureOr<BatchedResults>;

/// The folded type of a per-sample type: dim 0 times the batch.
Type foldedType(Type t, const Batch &batch) {
  auto tt = cast<RankedTensorType>(t);
  SmallVector<int64_t> shape(tt.getShape());
  if (ShapedType::isDynamic(batch.staticSize) || ShapedType::isDynamic(shape[0]))
    shape[0] = ShapedType::kDynamic;
  else
    shape[0] *= batch.staticSize;
  return RankedTensorType::get(shape, tt.getElementType());
}

/// Folds the batch into N for the operands listed in `foldOperands` (batched
/// ones, or materialised when `materialize`; not an empty N), requires every
/// other operand unbatched, and unfolds the results listed in `foldResults` (the others do
/// not depend on the batch and stay unbatched).
Result foldRule(Operation *op, ArrayRef<Value> operands, ArrayRef<bool> batched, const Batch &batch,
                OpBuilder &b, ArrayRef<unsigned> foldOperands, ArrayRef<unsigned> foldResults,
                bool materialize) {
  Location loc = op->getLoc();
  SmallVector<Value> ops(operands);
  for (unsigned i = 0; i < operands.size(); ++i) {
    bool fold = llvm::is_contained(foldOperands, i);
    if (!fold && batched[i])
      return failure();
    if (!fold)
      continue;
    if (!batched[i] && !materialize)
      return failure();
    if (sampleRank(operands[i], batched[i]) < 1)
      return failure();
    // An empty N: [B, 0, ...] folds to a dynamic dim the buffers know to be
    // 0, which memref.collapse_shape rejects; the loop handles empty samples.
    if (cast<RankedTensorType>(operands[i].getType()).getShape()[batched[i] ? 1 : 0] == 0)
      return failure();
    ops[i] = foldBatch(b, loc, materializeBatch(b, loc, operands[i], batched[i], batch));
  }
  SmallVector<Type> types(op->getResultTypes());
  for (unsigned r : foldResults)
    types[r] = foldedType(types[r], batch);
  Operation *c = cloneWith(b, op, ops, types);
  BatchedResults res;
  for (unsigned r = 0; r < op->getNumResults(); ++r) {
    bool fold = llvm::is_contained(foldResults, r);
    int64_t n = cast<RankedTensorType>(op->getResult(r).getType()).getShape()[0];
    res.values.push_back(fold ? unfoldBatch(b, loc, c->getResult(r), batch, n) : c->getResult(r));
    res.batched.push_back(fold);
  }
  return res;
}

/// Pooling ops: an input with N (rank spatial + 2) folds, one without (rank
/// spatial + 1) takes the batch as its N.
BatchRule pooling(int64_t spatial, unsigned numTensorOperands, unsigned numResults) {
  return [=](Operation *op, ArrayRef<Value> operands, ArrayRef<bool> batched, const Batch &batch,
             OpBuilder &b) -> Result {
    SmallVector<unsigned> foldOps, foldRes;
    for (unsigned i = 0; i < numTensorOperands; ++i)
      foldOps.push_back(i);
    for (unsigned r = 0; r < numResults; ++r)
      foldRes.push_back(r);
    int64_t rank = sampleRank(operands[0], batched[0]);
    if (rank == spatial + 2)
      return foldRule(op, operands, batched, batch, b, foldOps, foldRes, /*materialize=*/true);
    if (rank != spatial + 1)
      return failure();
    SmallVector<Value> ops(operands);
    for (unsigned i = 0; i < operands.size(); ++i) {
      if (i >= numTensorOperands && batched[i])
        return failure();
      if (i < numTensorOperands)
        ops[i] = materializeBatch(b, op->getLoc(), ops[i], batched[i], batch);
    }
    return allBatched(cloneWith(b, op, ops, batchedResultTypes(op, batch))->getResults());
  };
}

/// Inference batch norm backward with the batch made part of the channels.
Result batchNormBackward(Operation *op, ArrayRef<Value> operands, ArrayRef<bool> batched,
                         const Batch &batch, OpBuilder &b) {
  auto bn = cast<NativeBatchNormBackwardOp>(op);
  if (bn.getTrain() || !bn.getWeight())
    return failure();
  Location loc = op->getLoc();
  for (unsigned i = 2; i < operands.size(); ++i)
    if (batched[i])
      return failure();
  Value g = materializeBatch(b, loc, operands[0], batched[0], batch);
  Value x = materializeBatch(b, loc, operands[1], batched[1], batch);
  int64_t rank = sampleRank(g, true);
  if (rank < 2)
    return failure();
  // [B, N, C, S...] -> [N, B, C, S...] -> [N, B*C, S...].
  SmallVector<int64_t> perm{1, 0};
  for (int64_t d = 2; d <= rank; ++d)
    perm.push_back(d);
  auto channelsFolded = [&](Value v) -> Value {
    // [N, B, C, S...] with B and C flattened into one dim.
    Value p = autograd::rules::permute(b, loc, v, perm);
    auto tt = cast<RankedTensorType>(p.getType());
    SmallVector<int64_t> shape(tt.getShape());
    int64_t bc = ShapedType::isDynamic(shape[1]) || ShapedType::isDynamic(shape[2])
                     ? ShapedType::kDynamic
                     : shape[1] * shape[2];
    shape.erase(shape.begin() + 1);
    shape[1] = bc;
    return FlattenUsingIntsOp::create(b, loc, RankedTensorType::get(shape, tt.getElementType()), p,
                                      (int64_t)1, (int64_t)2);
  };
  Value gc = channelsFolded(g), xc = channelsFolded(x);
  // Per-channel operands repeated per sample: [C] -> [B, C] -> [B*C].
  auto repeated = [&](Value v) -> Value {
    Value e = materializeBatch(b, loc, v, false, batch);
    return foldBatch(b, loc, e);
  };
  // operands: grad_out, input, weight, running_mean, running_var.
  Value w = repeated(operands[2]), mean = repeated(operands[3]), var = repeated(operands[4]);
  auto gcType = cast<RankedTensorType>(gc.getType());
  auto chanType = cast<RankedTensorType>(w.getType());
  auto c = NativeBatchNormBackwardOp::create(b, loc, TypeRange{gcType, chanType, chanType}, gc, xc,
                                             w, mean, var, bn.getTrainAttr(), bn.getEpsAttr(),
                                             bn.getOutputMaskAttr());
  // grad_input [N, B*C, S...] -> [N, B, C, S...] -> [B, N, C, S...].
  auto gType = cast<RankedTensorType>(g.getType());
  SmallVector<int64_t> split(gType.getShape());
  std::swap(split[0], split[1]);
  SmallVector<int64_t> sizes(split);
  SmallVector<Value> dyn;
  for (unsigned d = 0; d < sizes.size(); ++d)
    if (ShapedType::isDynamic(sizes[d]))
      dyn.push_back(d == 1 ? batch.size
                           : (Value)SymSizeIntOp::create(b, loc, b.getIndexType(), g,
                                                         b.getI64IntegerAttr(d == 0 ? 1 : d)));
  Value gi = ViewOp::create(b, loc, RankedTensorType::get(split, gType.getElementType()),
                            c.getGradInput(), dyn, b.getDenseI64ArrayAttr(sizes));
  gi = autograd::rules::permute(b, loc, gi, perm);
  BatchedResults r;
  int64_t channels = cast<RankedTensorType>(op->getResult(1).getType()).getShape()[0];
  r.values = {gi, unfoldBatch(b, loc, c.getGradWeight(), batch, channels),
              unfoldBatch(b, loc, c.getGradBias(), batch, channels)};
  r.batched = {true, true, true};
  return r;
}
} // namespace

void addNetworkBatchRules(BatchRuleTable &t) {
  // Convolution with unbatched weights: the batch folds into N.
  t["aten.convolution"] = [](Operation *op, ArrayRef<Value> operands, ArrayRef<bool> batched,
                             const Batch &batch, OpBuilder &b) -> Result {
    return foldRule(op, operands, batched, batch, b, {0}, {0}, /*materialize=*/false);
  };
  // Its backward when only the input gradient is asked for (weight and bias
  // gradients sum over N: per sample they run in the loop over the batch).
  t["aten.convolution_backward"] = [](Operation *op, ArrayRef<Value> operands,
                                      ArrayRef<bool> batched, const Batch &batch,
                                      OpBuilder &b) -> Result {
    auto mask = cast<ConvolutionBackwardOp>(op).getOutputMask();
    if (mask[1] || mask[2])
      return failure();
    return foldRule(op, operands, batched, batch, b, {0, 1}, {0}, /*materialize=*/true);
  };
  t["aten._native_batch_norm_legit_no_training"] =
      [](Operation *op, ArrayRef<Value> operands, ArrayRef<bool> batched, const Batch &batch,
         OpBuilder &b) -> Result {
    // The saved statistics are empty in inference: they stay unbatched.
    return foldRule(op, operands, batched, batch, b, {0}, {0}, /*materialize=*/false);
  };
  t["aten.native_batch_norm_backward"] = batchNormBackward;
  t["aten.max_pool2d"] = pooling(2, 1, 1);
  t["aten.max_pool2d_with_indices"] = pooling(2, 1, 2);
  t["aten.avg_pool2d"] = pooling(2, 1, 1);
  t["aten.adaptive_avg_pool2d"] = pooling(2, 1, 1);
  t["aten.max_pool3d"] = pooling(3, 1, 1);
  t["aten.max_pool3d_with_indices"] = pooling(3, 1, 2);
  t["aten.adaptive_avg_pool3d"] = pooling(3, 1, 1);
  t["aten.avg_pool3d"] = pooling(3, 1, 1);
  t["aten.max_pool2d_with_indices_backward"] = pooling(2, 3, 1);
  t["aten.avg_pool2d_backward"] = pooling(2, 2, 1);
  t["aten._adaptive_avg_pool2d_backward"] = pooling(2, 2, 1);
  // Upsampling takes N-first inputs only (the batch folds into N).
  for (const char *n : {"upsample_nearest1d", "_upsample_nearest_exact1d", "upsample_linear1d"})
    t[std::string("aten.") + n] = pooling(1, 1, 1);
  for (const char *n : {"upsample_nearest2d", "_upsample_nearest_exact2d", "upsample_bilinear2d",
                        "upsample_bicubic2d"})
    t[std::string("aten.") + n] = pooling(2, 1, 1);
  for (const char *n : {"upsample_nearest3d", "_upsample_nearest_exact3d", "upsample_trilinear3d"})
    t[std::string("aten.") + n] = pooling(3, 1, 1);
  // Layer norm normalises trailing dims: the batch is one more leading dim.
  t["aten.native_layer_norm"] = [](Operation *op, ArrayRef<Value> operands, ArrayRef<bool> batched,
                                   const Batch &batch, OpBuilder &b) -> Result {
    for (unsigned i = 1; i < operands.size(); ++i)
      if (batched[i])
        return failure();
    return allBatched(cloneWith(b, op, operands, batchedResultTypes(op, batch))->getResults());
  };
  // Attention broadcasts its batch dims: batched operands get unit dims
  // after the batch up to the query's rank.
  t["aten.scaled_dot_product_attention"] = [](Operation *op, ArrayRef<Value> operands,
                                              ArrayRef<bool> batched, const Batch &batch,
                                              OpBuilder &b) -> Result {
    int64_t rank = cast<RankedTensorType>(op->getResult(0).getType()).getRank();
    SmallVector<Value> ops(operands);
    for (unsigned i = 0; i < ops.size(); ++i) {
      int64_t r = sampleRank(ops[i], batched[i]);
      if (batched[i])
        ops[i] = unsqueezeAfterBatch(b, op->getLoc(), ops[i], rank - r);
      else if (i < 3 && r == rank)
        ops[i] = materializeBatch(b, op->getLoc(), ops[i], false, batch);
    }
    return allBatched(cloneWith(b, op, ops, batchedResultTypes(op, batch))->getResults());
  };
}
} // namespace kiln::batching::rules
