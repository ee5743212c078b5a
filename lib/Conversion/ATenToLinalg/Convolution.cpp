//===- Convolution.cpp - aten.convolution to linalg conv ops --------------===//
#include "Utils.h"
#include "kiln/Conversion/ATenToLinalg.h"

using namespace mlir;
using namespace kiln::aten;
using namespace kiln::detail;

namespace {
using utils::IteratorType;

/// `v` with a unit dim inserted before dim `at` (at >= 1).
Value insertUnitDim(OpBuilder &b, Location loc, Value v, int64_t at) {
  auto ty = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape(ty.getShape());
  shape.insert(shape.begin() + at, 1);
  SmallVector<OpFoldResult> sizes = getSizes(b, loc, v);
  sizes.insert(sizes.begin() + at, b.getIndexAttr(1));
  SmallVector<ReassociationIndices> reassoc;
  for (int64_t i = 0, j = 0; i < ty.getRank(); ++i) {
    if (i == at - 1) {
      reassoc.push_back({j, j + 1});
      j += 2;
    } else {
      reassoc.push_back({j++});
    }
  }
  return tensor::ExpandShapeOp::create(b, loc, RankedTensorType::get(shape, ty.getElementType()),
                                       v, reassoc, sizes);
}

/// Drops unit dim `at` (at >= 1) of `v`.
Value dropUnitDim(OpBuilder &b, Location loc, Value v, int64_t at) {
  auto ty = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape(ty.getShape());
  shape.erase(shape.begin() + at);
  SmallVector<ReassociationIndices> reassoc;
  for (int64_t i = 0, j = 0; i < (int64_t)shape.size(); ++i) {
    if (i == at - 1) {
      reassoc.push_back({j, j + 1});
      j += 2;
    } else {
      reassoc.push_back({j++});
    }
  }
  return tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get(shape, ty.getElementType()), v, reassoc);
}

/// Pads the trailing `low.size()` dims of `src` with zeros.
Value padTrailing(OpBuilder &b, Location loc, Value src, ArrayRef<int64_t> low,
                  ArrayRef<int64_t> high) {
  if (llvm::all_of(low, [](int64_t p) { return p == 0; }) &&
      llvm::all_of(high, [](int64_t p) { return p == 0; }))
    return src;
  auto ty = cast<RankedTensorType>(src.getType());
  int64_t rank = ty.getRank(), k = low.size();
  SmallVector<OpFoldResult> lo(rank, b.getIndexAttr(0)), hi(rank, b.getIndexAttr(0));
  SmallVector<int64_t> shape(ty.getShape());
  for (int64_t i = 0; i < k; ++i) {
    int64_t d = rank - k + i;
    lo[d] = b.getIndexAttr(low[i]);
    hi[d] = b.getIndexAttr(high[i]);
    if (!ty.isDynamicDim(d))
      shape[d] += low[i] + high[i];
  }
  Type elem = ty.getElementType();
  return tensor::PadOp::create(b, loc, RankedTensorType::get(shape, elem), src, lo, hi,
                               scalarConstant(b, loc, elem, 0.0));
}

/// `v`'s elements converted to `to` (a no-op when it already has them).
Value convertTensor(OpBuilder &b, Location loc, Value v, Type to) {
  auto ty = cast<RankedTensorType>(v.getType());
  Type from = ty.getElementType();
  if (from == to)
    return v;
  return elementwise(b, loc, {v}, RankedTensorType::get(ty.getShape(), to),
                     [&](OpBuilder &nb, Location nl, ValueRange a) {
                       return convertElement(nb, nl, a[0], from, to);
                     });
}

/// The input of the direct convolution that computes a transposed one:
///   P[n, c, j...] = x[n, c, (j_i - L_i) / s_i] where each division is exact
///   and in range, else 0, with L_i = d_i (K_i - 1) - p_i,
/// of size (S_i - 1) s_i + 1 + 2 L_i + op_i along spatial dim i. A
/// stride-1 convolution of P with the flipped kernel gives the transposed
/// convolution (a negative L crops instead of padding).
Value spreadInput(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> kernel,
                  ArrayRef<int64_t> s, ArrayRef<int64_t> p, ArrayRef<int64_t> d,
                  ArrayRef<int64_t> op) {
  auto ty = cast<RankedTensorType>(x.getType());
  int64_t k = kernel.size(), rank = ty.getRank();
  Type elem = ty.getElementType();
  SmallVector<int64_t> L;
  for (int64_t i = 0; i < k; ++i)
    L.push_back(d[i] * (kernel[i] - 1) - p[i]);
  SmallVector<OpFoldResult> sizes = getSizes(b, loc, x);
  SmallVector<Value> inSizes;
  for (int64_t i = 0; i < k; ++i) {
    OpFoldResult in = sizes[2 + i];
    inSizes.push_back(getValueOrCreateConstantIndexOp(b, loc, in));
    AffineExpr s0 = b.getAffineSymbolExpr(0);
    sizes[2 + i] = affine::makeComposedFoldedAffineApply(
        b, loc, s0 * s[i] + (1 - s[i] + 2 * L[i] + op[i]), {in});
  }
  Value init = emptyTensor(b, loc, sizes, elem);
  MLIRContext *ctx = b.getContext();
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{}, ValueRange{init},
             SmallVector<AffineMap>{AffineMap::getMultiDimIdentityMap(rank, ctx)},
             SmallVector<IteratorType>(rank, IteratorType::parallel),
             [&](OpBuilder &nb, Location nl, ValueRange) {
               auto c = [&](int64_t v) { return arith::ConstantIndexOp::create(nb, nl, v); };
               Value zero = c(0);
               SmallVector<Value> at{linalg::IndexOp::create(nb, nl, 0),
                                     linalg::IndexOp::create(nb, nl, 1)};
               Value ok;
               for (int64_t i = 0; i < k; ++i) {
                 Value j = linalg::IndexOp::create(nb, nl, 2 + i);
                 Value num = arith::SubIOp::create(nb, nl, j, c(L[i]));
                 Value nonNeg = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::sge, num, zero);
                 Value safe = arith::SelectOp::create(nb, nl, nonNeg, num, zero);
                 Value exact = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::eq,
                                                     arith::RemUIOp::create(nb, nl, safe, c(s[i])),
                                                     zero);
                 Value o = arith::DivUIOp::create(nb, nl, safe, c(s[i]));
                 Value inRange =
                     arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::ult, o, inSizes[i]);
                 Value valid = arith::AndIOp::create(
                     nb, nl, nonNeg, arith::AndIOp::create(nb, nl, exact, inRange));
                 ok = ok ? arith::AndIOp::create(nb, nl, ok, valid).getResult() : valid;
                 at.push_back(arith::SelectOp::create(nb, nl, valid, o, zero));
               }
               Value v = tensor::ExtractOp::create(nb, nl, x, at);
               linalg::YieldOp::create(
                   nb, nl,
                   ValueRange{arith::SelectOp::create(nb, nl, ok, v,
                                                      scalarConstant(nb, nl, elem, 0.0))});
             })
      .getResult(0);
}

/// A transposed convolution's weight [C_in, F/G, K...] as the direct
/// convolution's [F, C_in/G, K...]: per group the two channel dims swap and
/// every kernel dim is flipped. Needs a static shape.
Value directWeight(OpBuilder &b, Location loc, Value w, int64_t groups) {
  auto ty = cast<RankedTensorType>(w.getType());
  int64_t k = ty.getRank() - 2, cin = ty.getDimSize(0), fg = ty.getDimSize(1);
  int64_t cg = cin / groups;
  Type elem = ty.getElementType();
  ArrayRef<int64_t> kernel = ty.getShape().drop_front(2);
  // [C_in, Fg, K...] -> [G, Cg, Fg, K...]
  SmallVector<int64_t> split{groups, cg, fg};
  llvm::append_range(split, kernel);
  SmallVector<ReassociationIndices> reassoc{{0, 1}, {2}};
  for (int64_t i = 0; i < k; ++i)
    reassoc.push_back({3 + i});
  Value ws = tensor::ExpandShapeOp::create(b, loc, RankedTensorType::get(split, elem), w, reassoc);
  // [G, Fg, Cg, K...] with flipped taps.
  SmallVector<int64_t> outShape{groups, fg, cg};
  llvm::append_range(outShape, kernel);
  int64_t rank = 3 + k;
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineExpr> inExprs{b.getAffineDimExpr(0), b.getAffineDimExpr(2),
                                  b.getAffineDimExpr(1)};
  for (int64_t i = 0; i < k; ++i)
    inExprs.push_back((kernel[i] - 1) - b.getAffineDimExpr(3 + i));
  Value init = tensor::EmptyOp::create(b, loc, outShape, elem);
  Value flipped =
      linalg::GenericOp::create(
          b, loc, init.getType(), ValueRange{ws}, ValueRange{init},
          SmallVector<AffineMap>{AffineMap::get(rank, 0, inExprs, ctx),
                                 AffineMap::getMultiDimIdentityMap(rank, ctx)},
          SmallVector<IteratorType>(rank, IteratorType::parallel),
          [&](OpBuilder &nb, Location nl, ValueRange a) { linalg::YieldOp::create(nb, nl, a[0]); })
          .getResult(0);
  SmallVector<int64_t> shape{groups * fg, cg};
  llvm::append_range(shape, kernel);
  SmallVector<ReassociationIndices> merge{{0, 1}, {2}};
  for (int64_t i = 0; i < k; ++i)
    merge.push_back({3 + i});
  return tensor::CollapseShapeOp::create(b, loc, RankedTensorType::get(shape, elem), flipped,
                                         merge);
}

/// [.., D, ..] -> [.., G, D/G, ..] at dim `dim`.
Value splitGroups(OpBuilder &b, Location loc, Value v, int64_t dim, int64_t groups) {
  auto ty = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape;
  SmallVector<ReassociationIndices> reassoc;
  SmallVector<OpFoldResult> sizes = getSizes(b, loc, v), newSizes;
  for (int64_t i = 0, j = 0; i < ty.getRank(); ++i) {
    if (i == dim) {
      int64_t d = ty.getDimSize(i);
      shape.append({groups, d == ShapedType::kDynamic ? d : d / groups});
      reassoc.push_back({j, j + 1});
      newSizes.push_back(b.getIndexAttr(groups));
      newSizes.push_back(affine::makeComposedFoldedAffineApply(
          b, loc, b.getAffineSymbolExpr(0).floorDiv(groups), {sizes[i]}));
      j += 2;
    } else {
      shape.push_back(ty.getDimSize(i));
      reassoc.push_back({j++});
      newSizes.push_back(sizes[i]);
    }
  }
  return tensor::ExpandShapeOp::create(b, loc, RankedTensorType::get(shape, ty.getElementType()),
                                       v, reassoc, newSizes);
}

/// Grouped convolution of any spatial rank as one linalg.generic over
/// (n, g, f, o..., c, k...), accumulating in init's element type.
Value groupedGenericConv(OpBuilder &b, Location loc, Value in, Value w, Value init,
                         ArrayRef<int64_t> s, ArrayRef<int64_t> d, int64_t groups) {
  int64_t k = s.size();
  Value gIn = splitGroups(b, loc, in, 1, groups), gW = splitGroups(b, loc, w, 0, groups),
        gInit = splitGroups(b, loc, init, 1, groups);
  int64_t loops = 4 + 2 * k;
  auto dim = [&](int64_t i) { return b.getAffineDimExpr(i); };
  // Dims: n=0, g=1, f=2, o_i=3+i, c=3+k, t_i=4+k+i.
  SmallVector<AffineExpr> inE{dim(0), dim(1), dim(3 + k)}, wE{dim(1), dim(2), dim(3 + k)},
      outE{dim(0), dim(1), dim(2)};
  for (int64_t i = 0; i < k; ++i) {
    inE.push_back(dim(3 + i) * s[i] + dim(4 + k + i) * d[i]);
    wE.push_back(dim(4 + k + i));
    outE.push_back(dim(3 + i));
  }
  MLIRContext *ctx = b.getContext();
  SmallVector<IteratorType> iters(3 + k, IteratorType::parallel);
  iters.append(1 + k, IteratorType::reduction);
  Type acc = cast<RankedTensorType>(init.getType()).getElementType();
  Type elem = cast<RankedTensorType>(in.getType()).getElementType();
  Value out = linalg::GenericOp::create(
                  b, loc, gInit.getType(), ValueRange{gIn, gW}, ValueRange{gInit},
                  SmallVector<AffineMap>{AffineMap::get(loops, 0, inE, ctx),
                                         AffineMap::get(loops, 0, wE, ctx),
                                         AffineMap::get(loops, 0, outE, ctx)},
                  iters,
                  [&](OpBuilder &nb, Location nl, ValueRange a) {
                    Value x = convertElement(nb, nl, a[0], elem, acc);
                    Value y = convertElement(nb, nl, a[1], elem, acc);
                    Value r;
                    if (isa<FloatType>(acc))
                      r = arith::AddFOp::create(nb, nl, a[2], arith::MulFOp::create(nb, nl, x, y));
                    else
                      r = arith::AddIOp::create(nb, nl, a[2], arith::MulIOp::create(nb, nl, x, y));
                    linalg::YieldOp::create(nb, nl, r);
                  })
                  .getResult(0);
  SmallVector<ReassociationIndices> merge{{0}, {1, 2}};
  for (int64_t i = 0; i < k; ++i)
    merge.push_back({3 + i});
  return tensor::CollapseShapeOp::create(b, loc, init.getType(), out, merge);
}

/// A direct convolution (batched input, stride/padding/dilation per spatial
/// dim) into an accumulator of element type `acc`, initialised with `bias`
/// (already of `acc`) or zeros. 2-d and 3-d; 1-d is lifted to 2-d by the caller.
Value directConv(OpBuilder &b, Location loc, Value input, Value weight, Value bias,
                 ArrayRef<int64_t> stride, ArrayRef<int64_t> pad, ArrayRef<int64_t> dil,
                 int64_t groups, Type acc) {
  auto wTy = cast<RankedTensorType>(weight.getType());
  int64_t k = wTy.getRank() - 2;
  Value padded = padTrailing(b, loc, input, pad, pad);
  SmallVector<OpFoldResult> inSizes = getSizes(b, loc, input);
  SmallVector<OpFoldResult> outSizes{inSizes[0], tensor::getMixedSize(b, loc, weight, 0)};
  for (int64_t i = 0; i < k; ++i)
    outSizes.push_back(windowOutputSize(b, loc, inSizes[2 + i], wTy.getDimSize(2 + i), stride[i],
                                        pad[i], pad[i], dil[i]));
  Value init = bias ? broadcastAlongDim(b, loc, bias, outSizes, 1)
                    : filledTensor(b, loc, outSizes, acc, 0.0);
  auto strides = i64Elements(b, stride), dilations = i64Elements(b, dil);
  if (groups == 1 && k == 2)
    return linalg::Conv2DNchwFchwOp::create(b, loc, init.getType(), ValueRange{padded, weight},
                                            ValueRange{init}, strides, dilations)
        .getResult(0);
  if (groups == 1 && k == 3)
    return linalg::Conv3DNcdhwFcdhwOp::create(b, loc, init.getType(), ValueRange{padded, weight},
                                              ValueRange{init}, strides, dilations)
        .getResult(0);
  if (k == 2) {
    Value gIn = splitGroups(b, loc, padded, 1, groups), gW = splitGroups(b, loc, weight, 0, groups),
          gInit = splitGroups(b, loc, init, 1, groups);
    Value gOut = linalg::Conv2DNgchwGfchwOp::create(b, loc, gInit.getType(), ValueRange{gIn, gW},
                                                    ValueRange{gInit}, strides, dilations)
                     .getResult(0);
    return tensor::CollapseShapeOp::create(
        b, loc, init.getType(), gOut, SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}});
  }
  return groupedGenericConv(b, loc, padded, weight, init, stride, dil, groups);
}

/// aten.convolution, 1- to 3-d, direct or transposed, any float or signed
/// integer dtype. float16/bfloat16 accumulate in float32 (as ATen's CPU
/// kernels do) and round once at the end; integers multiply and add exactly.
struct ConvolutionLowering : OpConversionPattern<ConvolutionOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ConvolutionOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput(), weight = adaptor.getWeight(), bias = adaptor.getBias();
    auto wTy = cast<RankedTensorType>(weight.getType());
    int64_t k = wTy.getRank() - 2;
    bool unbatched = cast<RankedTensorType>(input.getType()).getRank() == k + 1;
    for (int64_t i = 0; i < k; ++i)
      if (wTy.isDynamicDim(2 + i))
        return rewriter.notifyMatchFailure(op, "kernel size must be static");
    if (op.getTransposed() && !wTy.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "a transposed convolution needs a static weight");
    if (unbatched)
      input = expandBatch(rewriter, loc, input);
    Type elem = wTy.getElementType();
    Type acc = elem.isF16() || elem.isBF16() ? Type(rewriter.getF32Type()) : elem;
    int64_t groups = op.getGroups();
    SmallVector<int64_t> stride(op.getStride()), pad(op.getPadding()), dil(op.getDilation());

    if (op.getTransposed()) {
      SmallVector<int64_t> outPad(op.getOutputPadding());
      outPad.resize(k, 0);
      input = spreadInput(rewriter, loc, input, wTy.getShape().drop_front(2), stride, pad, dil,
                          outPad);
      weight = directWeight(rewriter, loc, weight, groups);
      stride.assign(k, 1);
      pad.assign(k, 0);
    }
    if (bias)
      bias = convertTensor(rewriter, loc, bias, acc);
    if (k == 1) {
      // [N, C, L] as [N, C, 1, L].
      input = insertUnitDim(rewriter, loc, input, 2);
      weight = insertUnitDim(rewriter, loc, weight, 2);
      stride.insert(stride.begin(), 1);
      pad.insert(pad.begin(), 0);
      dil.insert(dil.begin(), 1);
    }
    Value out = directConv(rewriter, loc, input, weight, bias, stride, pad, dil, groups, acc);
    if (k == 1)
      out = dropUnitDim(rewriter, loc, out, 2);
    out = convertTensor(rewriter, loc, out, elem);
    rewriter.replaceOp(op, finishSpatial(rewriter, loc, out, op.getType(), unbatched));
    return success();
  }
};
} // namespace

void kiln::populateConvolutionPatterns(RewritePatternSet &patterns) {
  patterns.add<ConvolutionLowering>(patterns.getContext());
}
