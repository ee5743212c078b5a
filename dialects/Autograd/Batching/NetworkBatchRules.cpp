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

/// The windows a convolution reads, per sample: [B, N, C, S1..Sk] ->
/// [B, N, C, O1..Ok, K1..Kk] (padded, unfolded along each spatial dim in
/// turn with the stride, every dilation-th tap kept). The first `outs[i]`
/// windows along each dim are kept. Static per-sample dims.
Value convolutionWindows(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> kernel,
                         ArrayRef<int64_t> stride, ArrayRef<int64_t> padding,
                         ArrayRef<int64_t> dilation, ArrayRef<int64_t> outs) {
  auto xt = cast<RankedTensorType>(x.getType());
  Type elem = xt.getElementType();
  int64_t k = kernel.size();
  SmallVector<int64_t> shape(xt.getShape());
  if (llvm::any_of(padding, [](int64_t p) { return p != 0; })) {
    // constant_pad_nd lists the last dim's (before, after) first.
    SmallVector<int64_t> pad;
    for (int64_t i = k - 1; i >= 0; --i) {
      shape[3 + i] += 2 * padding[i];
      pad.append({padding[i], padding[i]});
    }
    x = ConstantPadNdOp::create(b, loc, RankedTensorType::get(shape, elem), x,
                                b.getDenseI64ArrayAttr(pad), b.getF64FloatAttr(0.0));
  }
  // Each spatial dim in turn: its windows become a new last dim.
  for (int64_t i = 0; i < k; ++i) {
    int64_t span = (kernel[i] - 1) * dilation[i] + 1;
    int64_t dim = 3 + i;
    shape[dim] = (shape[dim] - span) / stride[i] + 1;
    shape.push_back(span);
    x = UnfoldOp::create(b, loc, RankedTensorType::get(shape, elem), x, b.getI64IntegerAttr(dim),
                         b.getI64IntegerAttr(span), b.getI64IntegerAttr(stride[i]));
    if (shape[dim] != outs[i]) {
      shape[dim] = outs[i];
      x = SliceTensorOp::create(b, loc, RankedTensorType::get(shape, elem), x, ValueRange{},
                                b.getDenseI64ArrayAttr({0, outs[i]}), b.getI64IntegerAttr(dim),
                                b.getI64IntegerAttr(1));
    }
  }
  for (int64_t i = 0; i < k; ++i) {
    if (dilation[i] == 1)
      continue;
    int64_t dim = 3 + k + i;
    int64_t span = shape[dim];
    shape[dim] = kernel[i];
    x = SliceTensorOp::create(b, loc, RankedTensorType::get(shape, elem), x, ValueRange{},
                              b.getDenseI64ArrayAttr({0, span}), b.getI64IntegerAttr(dim),
                              b.getI64IntegerAttr(dilation[i]));
  }
  return x;
}

/// A convolution's backward (plain or transposed; any spatial rank the op takes) with an
/// unbatched weight. The input gradient folds the batch into N. The weight
/// gradient of each sample is one batched product per group, summed over N
/// and the positions: for a plain convolution the output gradient times the
/// input's windows ([B, G, Co/G, L] x [B, G, L, Ci/G*K], L = N * output
/// positions); for a transposed one, whose output position i*s - p + k*d
/// takes input position i through tap k, the input times the output
/// gradient's windows ([B, G, Ci/G, L] x [B, G, L, Co/G*K], L = N * input
/// positions), as the weight [Ci, Co/G, K...] is laid out. The bias gradient
/// sums the output gradient per sample. Needs static per-sample dims (the
/// batch may be dynamic).
Result convolutionBackward(Operation *op, ArrayRef<Value> operands, ArrayRef<bool> batched,
                           const Batch &batch, OpBuilder &b) {
  auto conv = cast<ConvolutionBackwardOp>(op);
  ArrayRef<bool> mask = conv.getOutputMask();
  if (!mask[1] && !mask[2])
    return foldRule(op, operands, batched, batch, b, {0, 1}, {0}, /*materialize=*/true);
  if (batched[2] || !mask[1])
    return failure();
  Location loc = op->getLoc();
  Value g = materializeBatch(b, loc, operands[0], batched[0], batch);
  Value x = materializeBatch(b, loc, operands[1], batched[1], batch);
  auto gt = cast<RankedTensorType>(g.getType()), xt = cast<RankedTensorType>(x.getType());
  auto wt = cast<RankedTensorType>(operands[2].getType());
  int64_t k = wt.getRank() - 2;
  if (k < 1 || k > 3 || gt.getRank() != 3 + k || xt.getRank() != 3 + k || !wt.hasStaticShape())
    return failure();
  for (int64_t d = 1; d < 3 + k; ++d)
    if (gt.isDynamicDim(d) || xt.isDynamicDim(d) || xt.getDimSize(1) == 0)
      return failure();
  bool transposed = conv.getTransposed();
  int64_t n = xt.getDimSize(1), co = gt.getDimSize(2), groups = conv.getGroups();
  ArrayRef<int64_t> stride = conv.getStride(), padding = conv.getPadding(), dilation = conv.getDilation();
  if ((int64_t)stride.size() != k || (int64_t)padding.size() != k || (int64_t)dilation.size() != k)
    return failure();
  // The windowed operand (the input, or a transposed convolution's output
  // gradient) and the other one, whose positions the windows must cover.
  Value windowed = transposed ? g : x, other = transposed ? x : g;
  auto winT = cast<RankedTensorType>(windowed.getType()), otherT = cast<RankedTensorType>(other.getType());
  SmallVector<int64_t> kernel(wt.getShape().drop_front(2)), positions(otherT.getShape().drop_front(3));
  for (int64_t i = 0; i < k; ++i) {
    int64_t span = (kernel[i] - 1) * dilation[i] + 1;
    int64_t windows = (winT.getDimSize(3 + i) + 2 * padding[i] - span) / stride[i] + 1;
    if (windows < positions[i] || (!transposed && windows != positions[i]))
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
    Value gf = foldBatch(b, loc, g), xf = foldBatch(b, loc, x);
    auto gi = ConvolutionBackwardOp::create(
        b, loc, TypeRange{xf.getType(), wt, RankedTensorType::get({co}, elem)}, gf, xf, operands[2],
        conv.getStrideAttr(), conv.getPaddingAttr(), conv.getDilationAttr(), conv.getTransposedAttr(),
        conv.getOutputPaddingAttr(), conv.getGroupsAttr(), b.getDenseBoolArrayAttr({true, false, false}));
    res.values.push_back(unfoldBatch(b, loc, gi.getGradInput(), batch, n));
  } else {
    res.values.push_back(x); // unspecified (not asked for): any value of its type
  }
  // The weight gradient.
  int64_t wc = winT.getDimSize(2) / groups, oc = otherT.getDimSize(2) / groups;
  int64_t l = n, taps = 1;
  for (int64_t i = 0; i < k; ++i) {
    l *= positions[i];
    taps *= kernel[i];
  }
  Value win = convolutionWindows(b, loc, windowed, kernel, stride, padding, dilation, positions);
  // [B, N, G, wc, P.., K..] -> [B, G, N, P.., wc, K..] -> [B, G, L, wc*taps]
  SmallVector<int64_t> shape = {B, n, groups, wc}, perm = {0, 2, 1};
  shape.append(positions.begin(), positions.end());
  shape.append(kernel.begin(), kernel.end());
  for (int64_t i = 0; i < k; ++i)
    perm.push_back(4 + i);
  perm.push_back(3);
  for (int64_t i = 0; i < k; ++i)
    perm.push_back(4 + k + i);
  win = r::viewTo(b, loc, win, shape, dyn);
  win = r::permute(b, loc, win, perm);
  win = r::viewTo(b, loc, win, {B, groups, l, wc * taps}, dyn);
  // [B, N, G, oc, P..] -> [B, G, oc, N, P..] -> [B, G, oc, L]
  SmallVector<int64_t> oshape = {B, n, groups, oc}, operm = {0, 2, 3, 1};
  oshape.append(positions.begin(), positions.end());
  for (int64_t i = 0; i < k; ++i)
    operm.push_back(4 + i);
  Value o = r::viewTo(b, loc, other, oshape, dyn);
  o = r::permute(b, loc, o, operm);
  o = r::viewTo(b, loc, o, {B, groups, oc, l}, dyn);
  Value gw = r::matmul(b, loc, o, win);
  SmallVector<int64_t> wshape = {B};
  wshape.append(wt.getShape().begin(), wt.getShape().end());
  res.values.push_back(r::viewTo(b, loc, gw, wshape, dyn));
  // The bias gradient (also when not asked for: unused, it is dropped).
  SmallVector<int64_t> sumDims = {1};
  for (int64_t i = 0; i < k; ++i)
    sumDims.push_back(3 + i);
  res.values.push_back(r::sumDims(b, loc, g, sumDims, /*keepdim=*/false));
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
