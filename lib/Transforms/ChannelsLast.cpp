//===- ChannelsLast.cpp - 2-d convolutions and their neighbours in NHWC ----===//
//
// Rewrites each 2-d NCHW convolution on tensors (grouped and depthwise ones
// too, with `grouped`) as an NHWC one between two transposes, then moves the transposes through the ops around it until they
// meet and cancel: elementwise ops, pads and poolings run in NHWC, reductions
// read NHWC through their indexing maps, and a filter that is an argument of
// the entry becomes an argument the runtime passes already permuted
// (`kiln.weight_layouts`). docs/Rationale/gpu-channels-last.md says why.
//
//===----------------------------------------------------------------------===//

#include "kiln/Transforms/Passes.h"
#include "ATen/IR/AttrNames.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/StringSet.h"

namespace kiln {
#define GEN_PASS_DEF_KILNCHANNELSLAST
#include "kiln/Transforms/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

/// NCHW -> NHWC: the NHWC tensor's dim i is the NCHW tensor's dim kToLast[i].
constexpr int64_t kToLast[4] = {0, 2, 3, 1};
/// NHWC -> NCHW.
constexpr int64_t kToFirst[4] = {0, 3, 1, 2};
/// A depthwise filter (C, 1, KH, KW) -> (KH, KW, 1, C): the channels
/// innermost, as in the NHWC activations.
constexpr int64_t kDepthwiseToLast[4] = {2, 3, 1, 0};

/// `v` transposed by `perm` (linalg.transpose semantics: result dim i is
/// input dim perm[i]).
Value transposeOf(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> perm) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, v), permuted;
  for (int64_t p : perm)
    permuted.push_back(sizes[p]);
  Value init = tensor::EmptyOp::create(b, loc, permuted, type.getElementType());
  return linalg::TransposeOp::create(b, loc, v, init, perm)->getResult(0);
}

/// The tensor `v` is a transpose of by `perm`, or null.
Value transposedFrom(Value v, ArrayRef<int64_t> perm) {
  auto t = v.getDefiningOp<linalg::TransposeOp>();
  if (!t || t.getPermutation() != perm)
    return {};
  return t.getInput();
}

/// The map that reads x where `map` read transpose(x, perm): result
/// perm[i] of the new map is result i of `map`.
AffineMap throughTranspose(AffineMap map, ArrayRef<int64_t> perm) {
  SmallVector<AffineExpr> results(map.getNumResults());
  for (auto [i, p] : llvm::enumerate(perm))
    results[p] = map.getResult(i);
  return AffineMap::get(map.getNumDims(), map.getNumSymbols(), results, map.getContext());
}

/// The value `pad` pads with, when it is one defined outside the pad.
Value padValue(tensor::PadOp pad) {
  Value v = pad.getConstantPaddingValue();
  return v && v.getParentRegion() != &pad.getRegion() ? v : Value();
}

/// `pad` applied to `source`, the NHWC form of its NCHW source: the same
/// padding value, the low and high pads permuted to NHWC.
Value padInNHWC(OpBuilder &b, Location loc, tensor::PadOp pad, Value source) {
  SmallVector<OpFoldResult> low = pad.getMixedLowPad(), high = pad.getMixedHighPad(), l2, h2;
  for (int64_t p : kToLast) {
    l2.push_back(low[p]);
    h2.push_back(high[p]);
  }
  return tensor::PadOp::create(b, loc, Type(), source, l2, h2, padValue(pad), pad.getNofold()).getResult();
}

bool isPermutationMap(AffineMap map) { return map.getNumResults() == map.getNumDims() && map.isPermutation(); }

/// conv_2d_nchw_fchw(x, w, init) ->
///   transpose(conv_2d_nhwc_fhwc(transpose(x), transpose(w), transpose(init))).
struct ConvToNHWC : OpRewritePattern<linalg::Conv2DNchwFchwOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::Conv2DNchwFchwOp op, PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return rewriter.notifyMatchFailure(op, "not on tensors");
    Location loc = op.getLoc();
    Value x = transposeOf(rewriter, loc, op.getInputs()[0], kToLast);
    Value w = transposeOf(rewriter, loc, op.getInputs()[1], kToLast);
    Value init = transposeOf(rewriter, loc, op.getOutputs()[0], kToLast);
    Value y = linalg::Conv2DNhwcFhwcOp::create(rewriter, loc, init.getType(), ValueRange{x, w}, ValueRange{init},
                                               op.getStrides(), op.getDilations())
                  .getResult(0);
    rewriter.replaceOp(op, transposeOf(rewriter, loc, y, kToFirst));
    return success();
  }
};

/// The rank-4 tensor `v` is split from at dim `dim` into (G, X/G) by a
/// tensor.expand_shape, or null.
Value splitFrom(Value v, int64_t dim) {
  auto e = v.getDefiningOp<tensor::ExpandShapeOp>();
  if (!e || e.getSrcType().getRank() != 4 || e.getResultType().getRank() != 5)
    return {};
  SmallVector<ReassociationIndices> r = e.getReassociationIndices();
  for (int64_t i = 0, j = 0; i < 4; ++i) {
    ReassociationIndices want{j};
    if (i == dim)
      want.push_back(++j);
    ++j;
    if (r[i] != want)
      return {};
  }
  return e.getSrc();
}

/// `v` (rank 4) with dim `dim` split into (groups, size / groups).
Value splitGroups(OpBuilder &b, Location loc, Value v, int64_t dim, int64_t groups) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape;
  SmallVector<ReassociationIndices> r;
  for (int64_t i = 0, j = 0; i < 4; ++i) {
    if (i == dim) {
      shape.append({groups, type.getDimSize(i) / groups});
      r.push_back({j, j + 1});
      j += 2;
    } else {
      shape.push_back(type.getDimSize(i));
      r.push_back({j++});
    }
  }
  return tensor::ExpandShapeOp::create(b, loc, RankedTensorType::get(shape, type.getElementType()), v, r);
}

/// collapse((N, G, F/G, OH, OW) <- conv_2d_ngchw_gfchw(split(x), split(w), split(init))) ->
///   transpose(collapse(conv_2d_nhwgc_gfhwc(split(transpose(x)), split(transpose(w)),
///                                          split(transpose(init))))):
/// grouped and depthwise convolutions in NHWC (static channel counts).
/// With `depthwiseHwc`, a depthwise one with one output channel per group
/// becomes linalg.depthwise_conv_2d_nhwc_hwc instead, its filter
/// transposed to (KH, KW, C).
struct GroupedConvToNHWC : OpRewritePattern<tensor::CollapseShapeOp> {
  GroupedConvToNHWC(MLIRContext *ctx, bool depthwise, bool depthwiseHwc)
      : OpRewritePattern(ctx), depthwise(depthwise), depthwiseHwc(depthwiseHwc) {}
  /// Whether depthwise convolutions (C/G = 1) are rewritten too.
  bool depthwise;
  /// Whether those with F/G = 1 too get a (KH, KW, C) filter.
  bool depthwiseHwc;
  LogicalResult matchAndRewrite(tensor::CollapseShapeOp collapse, PatternRewriter &rewriter) const override {
    auto op = collapse.getSrc().getDefiningOp<linalg::Conv2DNgchwGfchwOp>();
    if (!op || !op.hasPureTensorSemantics() || !op->hasOneUse() ||
        collapse.getReassociationIndices() != SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}})
      return rewriter.notifyMatchFailure(collapse, "not a grouped convolution's result merged back");
    if (!depthwise && cast<RankedTensorType>(op.getInputs()[1].getType()).getDimSize(2) == 1)
      return rewriter.notifyMatchFailure(op, "depthwise (one input channel per group) stays NCHW");
    Value x = splitFrom(op.getInputs()[0], 1), w = splitFrom(op.getInputs()[1], 0),
          init = splitFrom(op.getOutputs()[0], 1);
    // A zeroed accumulator is a fill of the split tensor (canonicalisation
    // moves the split into the fill): fill the rank-4 tensor instead.
    auto fill = op.getOutputs()[0].getDefiningOp<linalg::FillOp>();
    Value fillDest = !init && fill && fill->hasOneUse() ? splitFrom(fill.getOutputs()[0], 1) : Value();
    if (!x || !w || (!init && !fillDest))
      return rewriter.notifyMatchFailure(op, "operands not split from rank-4 tensors at their channels");
    auto wType = cast<RankedTensorType>(op.getInputs()[1].getType());
    int64_t groups = wType.getDimSize(0);
    if (ShapedType::isDynamic(groups) || ShapedType::isDynamic(cast<RankedTensorType>(x.getType()).getDimSize(1)) ||
        ShapedType::isDynamic(cast<RankedTensorType>(w.getType()).getDimSize(0)))
      return rewriter.notifyMatchFailure(op, "dynamic channel counts");
    Location loc = op.getLoc();
    if (!init)
      init = linalg::FillOp::create(rewriter, loc, fill.getInputs()[0], fillDest).getResult(0);
    if (depthwiseHwc && wType.getDimSize(1) == 1 && wType.getDimSize(2) == 1) {
      // (C, 1, KH, KW) -> (KH, KW, 1, C) -> (KH, KW, C): neighbouring
      // channels (a generated kernel's neighbouring threads) read
      // neighbouring filter elements.
      Value wt = transposeOf(rewriter, loc, w, kDepthwiseToLast);
      auto wtType = cast<RankedTensorType>(wt.getType());
      auto hwc = RankedTensorType::get({wtType.getDimSize(0), wtType.getDimSize(1), wtType.getDimSize(3)},
                                       wtType.getElementType());
      Value wc = tensor::CollapseShapeOp::create(rewriter, loc, hwc, wt,
                                                 SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}});
      Value in = transposeOf(rewriter, loc, init, kToLast);
      Value y = linalg::DepthwiseConv2DNhwcHwcOp::create(rewriter, loc, in.getType(),
                                                         ValueRange{transposeOf(rewriter, loc, x, kToLast), wc},
                                                         ValueRange{in}, op.getStrides(), op.getDilations())
                    .getResult(0);
      rewriter.replaceOp(collapse, transposeOf(rewriter, loc, y, kToFirst));
      return success();
    }
    // NHWC (N, H, W, C) -> (N, H, W, G, C/G); filter (F, KH, KW, C/G) -> (G, F/G, KH, KW, C/G).
    Value xs = splitGroups(rewriter, loc, transposeOf(rewriter, loc, x, kToLast), 3, groups);
    Value ws = splitGroups(rewriter, loc, transposeOf(rewriter, loc, w, kToLast), 0, groups);
    Value is = splitGroups(rewriter, loc, transposeOf(rewriter, loc, init, kToLast), 3, groups);
    Value y = linalg::Conv2DNhwgcGfhwcOp::create(rewriter, loc, is.getType(), ValueRange{xs, ws}, ValueRange{is},
                                                 op.getStrides(), op.getDilations())
                  .getResult(0);
    auto yType = cast<RankedTensorType>(y.getType());
    auto merged = RankedTensorType::get({yType.getDimSize(0), yType.getDimSize(1), yType.getDimSize(2),
                                         yType.getDimSize(3) * yType.getDimSize(4)},
                                        yType.getElementType());
    Value y4 = tensor::CollapseShapeOp::create(rewriter, loc, merged, y,
                                               SmallVector<ReassociationIndices>{{0}, {1}, {2}, {3, 4}});
    rewriter.replaceOp(collapse, transposeOf(rewriter, loc, y4, kToFirst));
    return success();
  }
};

/// pooling_nchw_{max,sum}(transpose_to_nchw(x), window, init) ->
///   transpose(pooling_nhwc_{max,sum}(x, window, transpose(init))).
template <typename NCHW, typename NHWC> struct PoolToNHWC : OpRewritePattern<NCHW> {
  using OpRewritePattern<NCHW>::OpRewritePattern;
  LogicalResult matchAndRewrite(NCHW op, PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return rewriter.notifyMatchFailure(op, "not on tensors");
    Value x = transposedFrom(op.getInputs()[0], kToFirst);
    if (!x)
      return rewriter.notifyMatchFailure(op, "the input is not an NHWC tensor transposed");
    Location loc = op.getLoc();
    Value init = transposeOf(rewriter, loc, op.getOutputs()[0], kToLast);
    Value y = NHWC::create(rewriter, loc, init.getType(), ValueRange{x, op.getInputs()[1]}, ValueRange{init},
                           op.getStrides(), op.getDilations())
                  .getResult(0);
    rewriter.replaceOp(op, transposeOf(rewriter, loc, y, kToFirst));
    return success();
  }
};

/// transpose(transpose(x, p), q) -> x, or one transpose.
struct TransposeOfTranspose : OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::TransposeOp op, PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<linalg::TransposeOp>();
    if (!inner)
      return failure();
    ArrayRef<int64_t> p = inner.getPermutation(), q = op.getPermutation();
    SmallVector<int64_t> r;
    bool identity = true;
    for (auto [i, qi] : llvm::enumerate(q)) {
      r.push_back(p[qi]);
      identity &= r.back() == static_cast<int64_t>(i);
    }
    if (identity)
      rewriter.replaceOp(op, inner.getInput());
    else
      rewriter.replaceOp(op, transposeOf(rewriter, op.getLoc(), inner.getInput(), r));
    return success();
  }
};

/// transpose(tensor.empty) -> tensor.empty of the permuted sizes;
/// transpose(fill(c, init)) -> fill(c, transpose(init)).
struct TransposeOfInit : OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::TransposeOp op, PatternRewriter &rewriter) const override {
    Value in = op.getInput();
    Location loc = op.getLoc();
    if (auto empty = in.getDefiningOp<tensor::EmptyOp>()) {
      SmallVector<OpFoldResult> sizes = empty.getMixedSizes(), permuted;
      for (int64_t p : op.getPermutation())
        permuted.push_back(sizes[p]);
      rewriter.replaceOpWithNewOp<tensor::EmptyOp>(op, permuted, empty.getType().getElementType());
      return success();
    }
    if (auto fill = in.getDefiningOp<linalg::FillOp>(); fill && fill.hasPureTensorSemantics() && fill->hasOneUse()) {
      Value init = transposeOf(rewriter, loc, fill.getOutputs()[0], op.getPermutation());
      rewriter.replaceOp(op, linalg::FillOp::create(rewriter, loc, fill.getInputs()[0], init).getResult(0));
      return success();
    }
    return failure();
  }
};

/// tensor.pad(transpose_to_nchw(x)) -> transpose_to_nchw(tensor.pad(x)).
struct PadOfTranspose : OpRewritePattern<tensor::PadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::PadOp op, PatternRewriter &rewriter) const override {
    Value x = transposedFrom(op.getSource(), kToFirst);
    if (!x || !padValue(op))
      return failure();
    Location loc = op.getLoc();
    rewriter.replaceOp(op, transposeOf(rewriter, loc, padInNHWC(rewriter, loc, op, x), kToFirst));
    return success();
  }
};

/// transpose_to_nhwc(tensor.pad(x)) -> tensor.pad(transpose_to_nhwc(x)) for
/// an x not itself transposed from NHWC (PadOfTranspose's case): the
/// convolution's zero padding stays a pad of its input, which the cuDNN call
/// folds into its own padding.
struct TransposeOfPad : OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::TransposeOp op, PatternRewriter &rewriter) const override {
    auto pad = op.getInput().getDefiningOp<tensor::PadOp>();
    if (op.getPermutation() != ArrayRef<int64_t>(kToLast) || !pad || !pad->hasOneUse() ||
        !padValue(pad) || transposedFrom(pad.getSource(), kToFirst))
      return failure();
    Location loc = op.getLoc();
    rewriter.replaceOp(op, padInNHWC(rewriter, loc, pad, transposeOf(rewriter, loc, pad.getSource(), kToLast)));
    return success();
  }
};

/// `v` permuted by `perm` where that costs nothing: a transpose to NCHW of
/// an NHWC tensor (the transpose undone), an empty tensor or a fill of one
/// (made in the permuted shape). Null otherwise.
Value freelyTransposed(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> perm) {
  if (perm == ArrayRef<int64_t>(kToLast))
    if (Value x = transposedFrom(v, kToFirst))
      return x;
  auto fill = v.getDefiningOp<linalg::FillOp>();
  if (v.getDefiningOp<tensor::EmptyOp>() ||
      (fill && fill.hasPureTensorSemantics() && fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>()))
    return transposeOf(b, loc, v, perm);
  return {};
}

/// `list` (one entry per NCHW dim) in NHWC order.
SmallVector<OpFoldResult> toNHWC(ArrayRef<OpFoldResult> list) {
  SmallVector<OpFoldResult> r;
  for (int64_t p : kToLast)
    r.push_back(list[p]);
  return r;
}

/// insert_slice(transpose_to_nchw(x), dest) ->
///   transpose_to_nchw(insert_slice(x, dest in NHWC)) where dest is NHWC
/// for free (an empty tensor, or the result of the same rewrite): a
/// concatenation along any dim of convolutions' results is built in their
/// layout, so each one writes its slice of it directly.
struct InsertSliceOfTranspose : OpRewritePattern<tensor::InsertSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::InsertSliceOp op, PatternRewriter &rewriter) const override {
    Value x = transposedFrom(op.getSource(), kToFirst);
    if (!x || op.getSourceType().getRank() != 4 || op.getDestType().getRank() != 4)
      return rewriter.notifyMatchFailure(op, "not a rank-4 NHWC tensor transposed, inserted unreduced");
    Location loc = op.getLoc();
    Value dest = freelyTransposed(rewriter, loc, op.getDest(), kToLast);
    if (!dest)
      return rewriter.notifyMatchFailure(op, "the destination is not NHWC without a transpose");
    Value y = tensor::InsertSliceOp::create(rewriter, loc, x, dest, toNHWC(op.getMixedOffsets()),
                                           toNHWC(op.getMixedSizes()), toNHWC(op.getMixedStrides()));
    rewriter.replaceOp(op, transposeOf(rewriter, loc, y, kToFirst));
    return success();
  }
};

/// extract_slice(transpose_to_nchw(x)) -> transpose_to_nchw(extract_slice(x))
/// for a rank-preserving slice (a split along the channels, say).
struct ExtractSliceOfTranspose : OpRewritePattern<tensor::ExtractSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ExtractSliceOp op, PatternRewriter &rewriter) const override {
    Value x = transposedFrom(op.getSource(), kToFirst);
    if (!x || op.getSourceType().getRank() != 4 || op.getResultType().getRank() != 4)
      return rewriter.notifyMatchFailure(op, "not a rank-preserving slice of an NHWC tensor transposed");
    Location loc = op.getLoc();
    Value y = tensor::ExtractSliceOp::create(rewriter, loc, x, toNHWC(op.getMixedOffsets()),
                                            toNHWC(op.getMixedSizes()), toNHWC(op.getMixedStrides()));
    rewriter.replaceOp(op, transposeOf(rewriter, loc, y, kToFirst));
    return success();
  }
};

/// Whether every iterator of `op` is parallel and every output map the identity.
bool isElementwise(linalg::GenericOp op) {
  return op.getNumLoops() == 4 && op.getNumReductionLoops() == 0 &&
         llvm::all_of(op.getDpsInitsMutable(),
                      [&](OpOperand &o) { return op.getMatchingIndexingMap(&o).isIdentity(); });
}

/// `op` again with its loops permuted so that its outputs are NHWC: loop
/// d_i of `op` is loop e_perm[i] of the result, with perm = kToFirst. Each
/// input `in` is read through transposedFrom(in) where that is given (the
/// NHWC tensor), and the outputs' inits through fresh transposes.
Operation *inNHWC(PatternRewriter &rewriter, linalg::GenericOp op, ArrayRef<Value> nhwcInputs) {
  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  SmallVector<AffineExpr> sub;
  for (int64_t p : kToFirst)
    sub.push_back(getAffineDimExpr(p, ctx));
  AffineMap substitution = AffineMap::get(4, 0, sub, ctx);
  SmallVector<Value> inputs, inits;
  SmallVector<AffineMap> maps;
  for (auto [i, operand] : llvm::enumerate(op.getDpsInputOperands())) {
    AffineMap map = op.getMatchingIndexingMap(operand).compose(substitution);
    if (nhwcInputs[i]) {
      inputs.push_back(nhwcInputs[i]);
      maps.push_back(throughTranspose(map, kToFirst));
    } else {
      inputs.push_back(operand->get());
      maps.push_back(map);
    }
  }
  for (OpOperand &init : op.getDpsInitsMutable()) {
    inits.push_back(transposeOf(rewriter, loc, init.get(), kToLast));
    maps.push_back(AffineMap::getMultiDimIdentityMap(4, ctx));
  }
  SmallVector<Type> types;
  for (Value v : inits)
    types.push_back(v.getType());
  auto generic = linalg::GenericOp::create(rewriter, loc, types, inputs, inits, maps, op.getIteratorTypesArray());
  rewriter.inlineRegionBefore(op.getRegion(), generic.getRegion(), generic.getRegion().begin());
  // linalg.index d_i is now loop perm[i].
  SmallVector<linalg::IndexOp> indices;
  generic.getRegion().walk([&](linalg::IndexOp index) { indices.push_back(index); });
  for (linalg::IndexOp index : indices) {
    rewriter.setInsertionPoint(index);
    rewriter.replaceOpWithNewOp<linalg::IndexOp>(index, kToFirst[index.getDim()]);
  }
  rewriter.setInsertionPointAfter(generic);
  SmallVector<Value> results;
  for (Value r : generic.getResults())
    results.push_back(transposeOf(rewriter, loc, r, kToFirst));
  rewriter.replaceOp(op, results);
  return generic;
}

/// Whether elementwise `op` can run in NHWC: every full-size input is an
/// NHWC tensor transposed to NCHW (inputs broadcast along some dims are only
/// re-indexed), and at least one is. `nhwc` gets each input's NHWC tensor or null.
bool runsInNHWC(linalg::GenericOp op, SmallVectorImpl<Value> &nhwc) {
  if (!op.hasPureTensorSemantics() || !isElementwise(op))
    return false;
  bool any = false;
  for (OpOperand *in : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(in);
    Value x = map.isIdentity() ? transposedFrom(in->get(), kToFirst) : Value();
    if (!x && isPermutationMap(map))
      return false;
    any |= static_cast<bool>(x);
    nhwc.push_back(x);
  }
  return any;
}

/// An elementwise op over NCHW tensors transposed from NHWC ones runs in NHWC.
struct ElementwiseToNHWC : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op, PatternRewriter &rewriter) const override {
    SmallVector<Value> nhwc;
    if (!runsInNHWC(op, nhwc))
      return rewriter.notifyMatchFailure(op, "not elementwise over NHWC tensors");
    inNHWC(rewriter, op, nhwc);
    return success();
  }
};

/// transpose_to_nhwc(elementwise op of inputs broadcast along some dims) ->
/// the op computed in NHWC (the initial value of a biased convolution).
struct BroadcastToNHWC : OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::TransposeOp op, PatternRewriter &rewriter) const override {
    auto generic = op.getInput().getDefiningOp<linalg::GenericOp>();
    if (op.getPermutation() != ArrayRef<int64_t>(kToLast) || !generic || !generic.hasPureTensorSemantics() ||
        !isElementwise(generic) || generic.getNumDpsInits() != 1)
      return failure();
    // Read by this transpose alone (and by tensor.dim: its dynamic sizes).
    for (Operation *user : generic->getUsers())
      if (user != op.getOperation() && !isa<tensor::DimOp>(user))
        return failure();
    for (OpOperand *in : generic.getDpsInputOperands())
      if (generic.getMatchingIndexingMap(in).getNumResults() >= 4)
        return failure();
    Operation *nhwc = inNHWC(rewriter, generic, SmallVector<Value>(generic.getNumDpsInputs(), Value()));
    // inNHWC replaced the op by transpose_to_nchw(nhwc): this transpose undoes it.
    rewriter.replaceOp(op, nhwc->getResult(0));
    return success();
  }
};

/// Any other generic op reads an NHWC tensor through its indexing map
/// instead of through a transpose: a reduction over H and W, say, or an
/// elementwise op with another full-size input in NCHW.
struct ReadThroughMap : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op, PatternRewriter &rewriter) const override {
    SmallVector<Value> nhwc;
    if (!op.hasPureTensorSemantics() || runsInNHWC(op, nhwc))
      return failure();
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    SmallVector<Value> inputs;
    bool changed = false;
    for (OpOperand *in : op.getDpsInputOperands()) {
      Value x = transposedFrom(in->get(), kToFirst);
      inputs.push_back(x ? x : in->get());
      if (x) {
        maps[in->getOperandNumber()] = throughTranspose(maps[in->getOperandNumber()], kToFirst);
        changed = true;
      }
    }
    if (!changed)
      return failure();
    rewriter.modifyOpInPlace(op, [&] {
      op.getInputsMutable().assign(inputs);
      op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    });
    return success();
  }
};

/// The entry's weights whose only readers are transposes to NHWC (or, for
/// depthwise filters, to (KH, KW, 1, C)), all the same, become arguments
/// passed permuted, recorded in kiln.weight_layouts for the
/// manifest (the runtime permutes them once, at load).
void permuteWeightArguments(func::FuncOp fn) {
  MLIRContext *ctx = fn.getContext();
  llvm::StringSet<> updated;
  for (unsigned r = 0; r < fn.getNumResults(); ++r)
    if (fn.getResultAttr(r, kiln::attrs::kUpdate))
      if (auto name = fn.getResultAttrOfType<StringAttr>(r, kiln::attrs::kName))
        updated.insert(name.getValue());
  NamedAttrList layouts;
  if (auto old = fn->getAttrOfType<DictionaryAttr>(kiln::attrs::kWeightLayouts))
    layouts.append(old.getValue());
  SmallVector<Type> argTypes(fn.getArgumentTypes());
  for (BlockArgument arg : fn.getArguments()) {
    auto kind = fn.getArgAttrOfType<StringAttr>(arg.getArgNumber(), kiln::attrs::kKind);
    auto name = fn.getArgAttrOfType<StringAttr>(arg.getArgNumber(), kiln::attrs::kName);
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!kind || kind.getValue() == "input" || !name || updated.contains(name.getValue()) || !type ||
        type.getRank() != 4 || !type.hasStaticShape() || arg.use_empty() || layouts.get(name.getValue()))
      continue;
    auto first = dyn_cast<linalg::TransposeOp>(*arg.getUsers().begin());
    if (!first || (first.getPermutation() != ArrayRef<int64_t>(kToLast) &&
                   first.getPermutation() != ArrayRef<int64_t>(kDepthwiseToLast)))
      continue;
    SmallVector<int64_t> perm(first.getPermutation());
    bool allTransposed = llvm::all_of(arg.getUsers(), [&](Operation *user) {
      auto t = dyn_cast<linalg::TransposeOp>(user);
      return t && t.getPermutation() == ArrayRef<int64_t>(perm);
    });
    if (!allTransposed)
      continue;
    SmallVector<int64_t> shape;
    for (int64_t p : perm)
      shape.push_back(type.getDimSize(p));
    auto permuted = RankedTensorType::get(shape, type.getElementType());
    arg.setType(permuted);
    argTypes[arg.getArgNumber()] = permuted;
    for (Operation *user : llvm::make_early_inc_range(arg.getUsers())) {
      user->getResult(0).replaceAllUsesWith(arg);
      user->erase();
    }
    layouts.set(name, DenseI64ArrayAttr::get(ctx, perm));
  }
  if (layouts.empty())
    return;
  fn.setType(FunctionType::get(ctx, argTypes, fn.getResultTypes()));
  fn->setAttr(kiln::attrs::kWeightLayouts, layouts.getDictionary(ctx));
}

struct KilnChannelsLastPass : kiln::impl::KilnChannelsLastBase<KilnChannelsLastPass> {
  using KilnChannelsLastBase::KilnChannelsLastBase;
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    MLIRContext *ctx = &getContext();
    // First every op that can run in NHWC does; only then do the transposes
    // left fold into their readers' maps (folding one earlier would keep an
    // elementwise op whose other input was yet to become NHWC in NCHW).
    RewritePatternSet patterns(ctx);
    if (grouped)
      patterns.add<GroupedConvToNHWC>(ctx, depthwise, depthwiseHwc);
    patterns.add<ConvToNHWC, PoolToNHWC<linalg::PoolingNchwMaxOp, linalg::PoolingNhwcMaxOp>,
                 PoolToNHWC<linalg::PoolingNchwSumOp, linalg::PoolingNhwcSumOp>, TransposeOfTranspose,
                 TransposeOfInit, PadOfTranspose, TransposeOfPad, ElementwiseToNHWC, BroadcastToNHWC>(ctx);
    if (slices)
      patterns.add<InsertSliceOfTranspose, ExtractSliceOfTranspose>(ctx);
    if (failed(applyPatternsGreedily(fn, std::move(patterns))))
      return signalPassFailure();
    RewritePatternSet folds(ctx);
    folds.add<ReadThroughMap>(ctx);
    if (failed(applyPatternsGreedily(fn, std::move(folds))))
      return signalPassFailure();
    permuteWeightArguments(fn);
  }
};

} // namespace
