//===- NetworkBatchRules.cpp - batching rules: convolution, pooling, norms, attention -===//
//
// These ops treat their leading dim N as independent samples, so a vmap
// batch over an input with unbatched weights folds into N ([B, N, ...] ->
// [B*N, ...]) and unfolds from the results. Layer norm and attention
// already take any leading dims. Inference batch norm's backward, whose
// weight and bias gradients sum over N, makes the batch part of the
// channels instead: [N, B*C, ...] with the per-channel operands repeated,
// so each sample gets its own weight and bias gradients. A convolution's
// per-sample weight gradient is one batched product of the output gradient
// with the input's windows (unfold), which keeps the batch size dynamic.
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

/// The windows a 2-d convolution reads, per sample: [B, N, C, H, W] ->
/// [B, N, C, Ho, Wo, KH, KW] (padded, unfolded along H then W with the
/// convolution's stride, every dilation-th tap kept). Static per-sample dims.
Value convolutionWindows(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> kernel,
                         ArrayRef<int64_t> stride, ArrayRef<int64_t> padding,
                         ArrayRef<int64_t> dilation) {
  auto xt = cast<RankedTensorType>(x.getType());
  Type elem = xt.getElementType();
  SmallVector<int64_t> shape(xt.getShape());
  if (padding[0] || padding[1]) {
    shape[3] += 2 * padding[0];
    shape[4] += 2 * padding[1];
    x = ConstantPadNdOp::create(b, loc, RankedTensorType::get(shape, elem), x,
                                b.getDenseI64ArrayAttr({padding[1], padding[1], padding[0], padding[0]}),
                                b.getF64FloatAttr(0.0));
  }
  // Along H (dim 3), then W (dim 4): each window becomes a new last dim.
  for (int64_t i = 0; i < 2; ++i) {
    int64_t span = (kernel[i] - 1) * dilation[i] + 1;
    int64_t dim = 3 + i;
    shape[dim] = (shape[dim] - span) / stride[i] + 1;
    shape.push_back(span);
    x = UnfoldOp::create(b, loc, RankedTensorType::get(shape, elem), x, b.getI64IntegerAttr(dim),
                         b.getI64IntegerAttr(span), b.getI64IntegerAttr(stride[i]));
  }
  for (int64_t i = 0; i < 2; ++i) {
    if (dilation[i] == 1)
      continue;
    int64_t dim = 5 + i;
    int64_t span = shape[dim];
    shape[dim] = kernel[i];
    x = SliceTensorOp::create(b, loc, RankedTensorType::get(shape, elem), x, ValueRange{},
                              b.getDenseI64ArrayAttr({0, span}), b.getI64IntegerAttr(dim),
                              b.getI64IntegerAttr(dilation[i]));
  }
  return x;
}

/// A 2-d convolution's backward with an unbatched weight. The input
/// gradient folds the batch into N; the weight gradient of each sample is
/// its output gradient times its input's windows, summed over N and the
/// output positions, per group: [B, G, Co/G, N*Ho*Wo] x [B, G, N*Ho*Wo,
/// Ci/G*KH*KW] (one batched aten.matmul); the bias gradient sums the output
/// gradient per sample. Needs static per-sample dims (the batch may be dynamic).
Result convolutionBackward(Operation *op, ArrayRef<Value> operands, ArrayRef<bool> batched,
                           const Batch &batch, OpBuilder &b) {
  auto conv = cast<ConvolutionBackwardOp>(op);
  ArrayRef<bool> mask = conv.getOutputMask();
  if (!mask[1] && !mask[2])
    return foldRule(op, operands, batched, batch, b, {0, 1}, {0}, /*materialize=*/true);
  if (batched[2] || conv.getTransposed() || !mask[1])
    return failure();
  Location loc = op->getLoc();
  Value g = materializeBatch(b, loc, operands[0], batched[0], batch);
  Value x = materializeBatch(b, loc, operands[1], batched[1], batch);
  auto gt = cast<RankedTensorType>(g.getType()), xt = cast<RankedTensorType>(x.getType());
  auto wt = cast<RankedTensorType>(operands[2].getType());
  if (gt.getRank() != 5 || xt.getRank() != 5 || !wt.hasStaticShape())
    return failure();
  for (int64_t d = 1; d < 5; ++d)
    if (gt.isDynamicDim(d) || xt.isDynamicDim(d) || xt.getDimSize(1) == 0)
      return failure();
  int64_t n = xt.getDimSize(1), ci = xt.getDimSize(2), co = gt.getDimSize(2);
  int64_t ho = gt.getDimSize(3), wo = gt.getDimSize(4), groups = conv.getGroups();
  int64_t kh = wt.getDimSize(2), kw = wt.getDimSize(3);
  ArrayRef<int64_t> stride = conv.getStride(), padding = conv.getPadding(), dilation = conv.getDilation();
  // The windows must be the output positions (checked before building anything).
  for (int64_t i = 0; i < 2; ++i) {
    int64_t span = (wt.getDimSize(2 + i) - 1) * dilation[i] + 1;
    if ((xt.getDimSize(3 + i) + 2 * padding[i] - span) / stride[i] + 1 != gt.getDimSize(3 + i))
      return failure();
  }
  Type elem = gt.getElementType();
  int64_t B = ShapedType::kDynamic;
  SmallVector<Value> dyn;
  if (ShapedType::isDynamic(batch.staticSize))
    dyn.push_back(batch.size);
  else
    B = batch.staticSize;
  namespace r = autograd::rules;
  BatchedResults res;
  // The input gradient: the batch folded into N.
  if (mask[0]) {
    auto folded = [&](Value v) { return foldBatch(b, loc, v); };
    Value gf = folded(g), xf = folded(x);
    auto gi = ConvolutionBackwardOp::create(
        b, loc, TypeRange{xf.getType(), wt, RankedTensorType::get({co}, elem)}, gf, xf, operands[2],
        conv.getStrideAttr(), conv.getPaddingAttr(), conv.getDilationAttr(), conv.getTransposedAttr(),
        conv.getOutputPaddingAttr(), conv.getGroupsAttr(), b.getDenseBoolArrayAttr({true, false, false}));
    res.values.push_back(unfoldBatch(b, loc, gi.getGradInput(), batch, n));
  } else {
    res.values.push_back(x); // unspecified (not asked for): any value of its type
  }
  // The weight gradient.
  Value win = convolutionWindows(b, loc, x, {kh, kw}, stride, padding, dilation);
  int64_t cig = ci / groups, cog = co / groups, l = n * ho * wo;
  win = r::viewTo(b, loc, win, {B, n, groups, cig, ho, wo, kh, kw}, dyn);
  win = r::permute(b, loc, win, {0, 2, 1, 4, 5, 3, 6, 7});
  win = r::viewTo(b, loc, win, {B, groups, l, cig * kh * kw}, dyn);
  Value gg = r::viewTo(b, loc, g, {B, n, groups, cog, ho, wo}, dyn);
  gg = r::permute(b, loc, gg, {0, 2, 3, 1, 4, 5});
  gg = r::viewTo(b, loc, gg, {B, groups, cog, l}, dyn);
  Value gw = r::matmul(b, loc, gg, win);
  res.values.push_back(r::viewTo(b, loc, gw, {B, co, cig, kh, kw}, dyn));
  // The bias gradient (also when not asked for: unused, it is dropped).
  res.values.push_back(r::sumDims(b, loc, g, {1, 3, 4}, /*keepdim=*/false));
  res.batched = {true, true, true};
  return res;
}
} // namespace

void addNetworkBatchRules(BatchRuleTable &t) {
  // Convolution with unbatched weights: the batch folds into N.
  t["aten.convolution"] = [](Operation *op, ArrayRef<Value> operands, ArrayRef<bool> batched,
                             const Batch &batch, OpBuilder &b) -> Result {
    return foldRule(op, operands, batched, batch, b, {0}, {0}, /*materialize=*/false);
  };
  // Its backward: the input gradient folds the batch into N, the weight and
  // bias gradients are per sample (see convolutionBackward).
  t["aten.convolution_backward"] = convolutionBackward;
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
