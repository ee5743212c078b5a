//===- DecomposeSequenceOps.cpp - diff, adaptive_avg_pool1d, RNNs, cells ---===//
//
// Rewrites the composites that sequence models reach in the default IR into
// other aten ops, following ATen's definitions (native/ReduceOps.cpp diff,
// native/RNN.cpp cells). Every size may be symbolic: sizes are read with
// aten.sym_size_int, never assumed.
//
//===----------------------------------------------------------------------===//
#include "ATen/Transforms/SequenceDecompositions.h"

#include "ATen/IR/ATenSequenceOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <limits>

using namespace mlir;
using namespace kiln::aten;

namespace {
constexpr int64_t kDyn = ShapedType::kDynamic;
constexpr int64_t kEnd = std::numeric_limits<int64_t>::max();

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

RankedTensorType withShape(Value like, ArrayRef<int64_t> shape) {
  return RankedTensorType::get(shape, typeOf(like).getElementType());
}

/// The size of dim `d` of `v` as an index value.
Value dimOf(OpBuilder &b, Location loc, Value v, int64_t d) {
  int64_t s = typeOf(v).getDimSize(d);
  if (s != kDyn)
    return arith::ConstantIndexOp::create(b, loc, s);
  return SymSizeIntOp::create(b, loc, b.getIndexType(), v, d);
}

/// `v` as type `ty` (a tensor.cast where only static knowledge differs).
Value castTo(OpBuilder &b, Location loc, Value v, Type ty) {
  return v.getType() == ty ? v : tensor::CastOp::create(b, loc, ty, v).getResult();
}

/// x[start:end] along `dim` with static bounds (ATen's clamping applies).
Value sliceOf(OpBuilder &b, Location loc, Value x, int64_t dim, int64_t start, int64_t end) {
  SmallVector<int64_t> shape(typeOf(x).getShape());
  int64_t n = shape[dim];
  if (n != kDyn) {
    auto clampB = [n](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + n : v, 0, n); };
    shape[dim] = std::max<int64_t>(clampB(end) - clampB(start), 0);
  } else if (start >= 0 && end >= 0 && end != kEnd) {
    shape[dim] = kDyn; // clamped by the run-time size
  }
  return SliceTensorOp::create(b, loc, withShape(x, shape), x, ValueRange{},
                               ArrayRef<int64_t>{start, end}, dim, 1);
}

/// diff(x, n, dim, prepend, append): cat, then n times x[1:] - x[:-1]
/// (x[1:] != x[:-1] for bool).
struct DiffDecomposition : OpRewritePattern<DiffOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DiffOp op, PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = op.getSelf();
    int64_t rank = typeOf(x).getRank();
    int64_t dim = op.getDim() < 0 ? op.getDim() + rank : op.getDim();
    if (op.getPrepend() || op.getAppend()) {
      SmallVector<Value> parts;
      if (op.getPrepend())
        parts.push_back(op.getPrepend());
      parts.push_back(x);
      if (op.getAppend())
        parts.push_back(op.getAppend());
      SmallVector<int64_t> shape(typeOf(x).getShape());
      for (Value p : parts)
        if (p != x) {
          int64_t e = typeOf(p).getDimSize(dim);
          shape[dim] = (shape[dim] == kDyn || e == kDyn) ? kDyn : shape[dim] + e;
        }
      x = CatOp::create(rewriter, loc, withShape(x, shape), parts, dim);
    }
    bool isBool = typeOf(x).getElementType().isInteger(1);
    for (int64_t k = 0; k < op.getN(); ++k) {
      Value hi = sliceOf(rewriter, loc, x, dim, 1, kEnd);
      Value lo = sliceOf(rewriter, loc, x, dim, 0, -1);
      Type ty = k + 1 == op.getN() ? Type(op.getType()) : hi.getType();
      x = isBool ? NeTensorOp::create(rewriter, loc, ty, hi, lo).getResult()
                 : SubTensorOp::create(rewriter, loc, ty, hi, lo, llvm::APFloat(1.0)).getResult();
    }
    rewriter.replaceOp(op, castTo(rewriter, loc, x, op.getType()));
    return success();
  }
};

/// adaptive_avg_pool1d(x, [O]) = adaptive_avg_pool2d(x.unsqueeze(-2), [1, O]).squeeze(-2).
struct AdaptiveAvgPool1dDecomposition : OpRewritePattern<AdaptiveAvgPool1dOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AdaptiveAvgPool1dOp op, PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = op.getSelf();
    SmallVector<int64_t> shape(typeOf(x).getShape());
    shape.insert(shape.end() - 1, 1);
    int64_t rank = shape.size();
    Value x2 = UnsqueezeOp::create(rewriter, loc, withShape(x, shape), x, rank - 2);
    shape.back() = op.getOutputSize()[0];
    Value pooled = AdaptiveAvgPool2dOp::create(rewriter, loc, withShape(x, shape), x2,
                                               ArrayRef<int64_t>{1, op.getOutputSize()[0]});
    rewriter.replaceOpWithNewOp<SqueezeDimsOp>(op, op.getType(), pooled,
                                               ArrayRef<int64_t>{rank - 2});
    return success();
  }
};

/// One direction of one layer of a recurrent network, built as an scf.for
/// over time carrying the states and the output sequence.
struct Cell {
  Value wIh, wHh, bIh, bHh; // biases may be null
  Value wHr;                // an LSTM's projection (proj_size), or null
};

/// A 2-d [B, G*H] gate block's chunk k of H columns.
Value gate(OpBuilder &b, Location loc, Value g, int64_t k, int64_t hidden) {
  return sliceOf(b, loc, g, 1, k * hidden, (k + 1) * hidden);
}

Value add(OpBuilder &b, Location loc, Value x, Value y, RankedTensorType ty) {
  return AddTensorOp::create(b, loc, ty, x, y, llvm::APFloat(1.0));
}
Value mul(OpBuilder &b, Location loc, Value x, Value y, RankedTensorType ty) {
  return MulTensorOp::create(b, loc, ty, x, y);
}

/// i, f, g, o = chunks of gx + gh; c' = f*c + i*g; h' = o*tanh(c'), projected
/// by w_hr (h' w_hr^T) where the LSTM has proj_size.
SmallVector<Value> lstmStep(OpBuilder &b, Location loc, Value gx, Value gh, Value h,
                                   Value c, int64_t hidden, RankedTensorType ty, Value wHr) {
  Value gates = add(b, loc, gx, gh, cast<RankedTensorType>(gx.getType()));
  Value i = SigmoidOp::create(b, loc, ty, gate(b, loc, gates, 0, hidden));
  Value f = SigmoidOp::create(b, loc, ty, gate(b, loc, gates, 1, hidden));
  Value gg = TanhOp::create(b, loc, ty, gate(b, loc, gates, 2, hidden));
  Value o = SigmoidOp::create(b, loc, ty, gate(b, loc, gates, 3, hidden));
  Value c2 = add(b, loc, mul(b, loc, f, c, ty), mul(b, loc, i, gg, ty), ty);
  Value h2 = mul(b, loc, o, TanhOp::create(b, loc, ty, c2), ty);
  if (wHr)
    h2 = LinearOp::create(b, loc, withShape(h2, {ty.getDimSize(0), typeOf(wHr).getDimSize(0)}), h2, wHr, Value());
  return {h2, c2};
}

/// r = sigmoid(xr + hr); z = sigmoid(xz + hz); n = tanh(xn + r*hn);
/// h' = (1 - z)*n + z*h = n + z*(h - n).
Value gruStep(OpBuilder &b, Location loc, Value gx, Value gh, Value h, int64_t hidden,
                     RankedTensorType ty) {
  Value r = SigmoidOp::create(
      b, loc, ty, add(b, loc, gate(b, loc, gx, 0, hidden), gate(b, loc, gh, 0, hidden), ty));
  Value z = SigmoidOp::create(
      b, loc, ty, add(b, loc, gate(b, loc, gx, 1, hidden), gate(b, loc, gh, 1, hidden), ty));
  Value n = TanhOp::create(
      b, loc, ty,
      add(b, loc, gate(b, loc, gx, 2, hidden), mul(b, loc, r, gate(b, loc, gh, 2, hidden), ty), ty));
  Value hMinusN = SubTensorOp::create(b, loc, ty, h, n, llvm::APFloat(1.0));
  return add(b, loc, n, mul(b, loc, z, hMinusN, ty), ty);
}

/// h' = tanh or relu of (gx + gh), the single gate of a plain RNN.
template <typename OpT>
Value simpleStep(OpBuilder &b, Location loc, Value gx, Value gh, RankedTensorType ty) {
  Value pre = add(b, loc, gx, gh, ty);
  if constexpr (std::is_same_v<OpT, RnnReluInputOp> || std::is_same_v<OpT, RnnReluCellOp>)
    return ReluOp::create(b, loc, ty, pre);
  else
    return TanhOp::create(b, loc, ty, pre);
}

/// One step of the network or cell `OpT`: the next states (h, and c for an
/// LSTM) from the input's gates gx, the state's gates gh and the states.
template <typename OpT>
SmallVector<Value> step(OpBuilder &b, Location loc, Value gx, Value gh, ValueRange states, int64_t hidden,
                        RankedTensorType ty, Value wHr = Value()) {
  if constexpr (OpT::kGates == 4)
    return lstmStep(b, loc, gx, gh, states[0], states[1], hidden, ty, wHr);
  else if constexpr (OpT::kGates == 3)
    return {gruStep(b, loc, gx, gh, states[0], hidden, ty)};
  else
    return {simpleStep<OpT>(b, loc, gx, gh, ty)};
}

template <typename OpT> struct RecurrentDecomposition : OpRewritePattern<OpT> {
  RecurrentDecomposition(MLIRContext *ctx, bool unroll) : OpRewritePattern<OpT>(ctx), unroll(unroll) {}
  static constexpr bool kLstm = OpT::kGates == 4;
  bool unroll; // a static number of steps: no scf.for (see populateSequenceDecompositions)

  LogicalResult matchAndRewrite(OpT op, PatternRewriter &rewriter) const override {
    if (op.getTrain() && !op.getDropout().isZero() && op.getNumLayers() > 1)
      return rewriter.notifyMatchFailure(op, "dropout between layers in training mode");
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Value x = op.getInput();
    bool batched = typeOf(x).getRank() == 3;
    SmallVector<Value> states(op.getHx());
    if (!batched) { // [T, I] -> [T, 1, I]; states [L*D, H] -> [L*D, 1, H]
      auto unsq = [&](Value v) {
        SmallVector<int64_t> s(typeOf(v).getShape());
        s.insert(s.begin() + 1, 1);
        return UnsqueezeOp::create(b, loc, withShape(v, s), v, 1).getResult();
      };
      x = unsq(x);
      for (Value &s : states)
        s = unsq(s);
    } else if (op.getBatchFirst()) {
      x = transpose01(b, loc, x);
    }
    int64_t dirs = op.getBidirectional() ? 2 : 1;
    int64_t base = op.getHasBiases() ? 4 : 2;
    bool proj = kLstm && (int64_t)op.getParams().size() == op.getNumLayers() * dirs * (base + 1);
    int64_t perCell = base + (proj ? 1 : 0);
    // hidden: the gates' and c's width; outSize: h's (proj_size, else hidden).
    int64_t hidden = typeOf(op.getParams()[1]).getDimSize(0) / OpT::kGates;
    int64_t outSize = typeOf(op.getParams()[1]).getDimSize(1);
    int64_t tStatic = typeOf(x).getDimSize(0), bStatic = typeOf(x).getDimSize(1);
    auto stateTy = withShape(x, {bStatic, hidden});
    auto hTy = withShape(x, {bStatic, outSize});
    auto seqTy = withShape(x, {tStatic, bStatic, outSize});
    Value tSize = dimOf(b, loc, x, 0), bSize = dimOf(b, loc, x, 1);

    SmallVector<Value> hN, cN;
    Value layerIn = x;
    for (int64_t layer = 0; layer < op.getNumLayers(); ++layer) {
      SmallVector<Value> outs;
      for (int64_t dir = 0; dir < dirs; ++dir) {
        int64_t idx = layer * dirs + dir;
        ValueRange p = op.getParams().slice(idx * perCell, perCell);
        Cell cell{p[0], p[1], base == 4 ? p[2] : Value(), base == 4 ? p[3] : Value(), proj ? p[base] : Value()};
        SmallVector<Value> init;
        for (auto [k, s] : llvm::enumerate(states))
          init.push_back(castTo(b, loc,
                                SelectIntOp::create(b, loc, withShape(s, typeOf(s).getShape().drop_front()),
                                                    s, ValueRange{}, ArrayRef<int64_t>{idx}, 0),
                                k == 0 ? hTy : stateTy));
        auto [seq, finals] =
            unroll && tStatic != kDyn && tStatic > 0
                ? unrolled(b, loc, layerIn, cell, init, dir == 1, tStatic, stateTy)
                : runDirection(b, loc, layerIn, cell, init, dir == 1, tSize, bSize, seqTy, stateTy);
        outs.push_back(seq);
        hN.push_back(finals[0]);
        if (kLstm)
          cN.push_back(finals[1]);
      }
      if (dirs == 1) {
        layerIn = outs[0];
      } else {
        layerIn = CatOp::create(b, loc, withShape(x, {tStatic, bStatic, 2 * outSize}), outs, 2);
      }
    }
    Value output = layerIn;
    if (!batched)
      output = SqueezeDimsOp::create(b, loc, withShape(x, {tStatic, dirs * outSize}), output,
                                     ArrayRef<int64_t>{1});
    else if (op.getBatchFirst())
      output = transpose01(b, loc, output);
    SmallVector<Value> results{castTo(b, loc, output, op->getResult(0).getType())};
    for (auto [i, list] : llvm::enumerate(SmallVector<SmallVector<Value> *>{&hN, &cN})) {
      if (!kLstm && i == 1)
        break;
      results.push_back(stack(b, loc, *list, batched, op->getResult(i + 1).getType()));
    }
    rewriter.replaceOp(op, results);
    return success();
  }

  static Value transpose01(OpBuilder &b, Location loc, Value v) {
    SmallVector<int64_t> s(typeOf(v).getShape());
    std::swap(s[0], s[1]);
    return PermuteOp::create(b, loc, withShape(v, s), v, ArrayRef<int64_t>{1, 0, 2});
  }

  /// [B, H] states -> [N, B, H] (or [N, H] unbatched).
  static Value stack(OpBuilder &b, Location loc, ArrayRef<Value> hs, bool batched, Type ty) {
    SmallVector<Value> parts;
    for (Value h : hs) {
      SmallVector<int64_t> s(typeOf(h).getShape());
      s.insert(s.begin(), 1);
      parts.push_back(UnsqueezeOp::create(b, loc, withShape(h, s), h, 0));
    }
    SmallVector<int64_t> s(typeOf(parts[0]).getShape());
    s[0] = hs.size();
    Value out = parts.size() == 1 ? parts[0] : CatOp::create(b, loc, withShape(hs[0], s), parts, 0);
    if (!batched)
      out = SqueezeDimsOp::create(b, loc, withShape(hs[0], {s[0], s[2]}), out,
                                  ArrayRef<int64_t>{1});
    return castTo(b, loc, out, ty);
  }

  /// Runs one direction over [T, B, I]; returns the [T, B, H] outputs and the
  /// final states (h, and c for an LSTM).
  static std::pair<Value, SmallVector<Value>>
  runDirection(OpBuilder &b, Location loc, Value in, const Cell &cell, ArrayRef<Value> init,
               bool reverse, Value tSize, Value bSize, RankedTensorType seqTy,
               RankedTensorType stateTy) {
    int64_t hidden = stateTy.getDimSize(1), outSize = seqTy.getDimSize(2);
    int64_t g = OpT::kGates;
    auto inTy = typeOf(in);
    // The input projection of every step at once: [T, B, G*H].
    Value xw = LinearOp::create(b, loc, withShape(in, {inTy.getDimSize(0), inTy.getDimSize(1), g * hidden}),
                                in, cell.wIh, cell.bIh);
    SmallVector<Value> sizes;
    SmallVector<int64_t> staticSizes;
    for (auto [d, v] : llvm::enumerate(SmallVector<Value>{tSize, bSize})) {
      int64_t s = seqTy.getDimSize(d);
      staticSizes.push_back(s);
      if (s == kDyn)
        sizes.push_back(v);
    }
    staticSizes.push_back(outSize);
    Value zeros = FullOp::create(b, loc, seqTy, sizes, staticSizes,
                                 b.getFloatAttr(seqTy.getElementType(), 0.0));
    SmallVector<Value> iter(init);
    iter.push_back(zeros);
    Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
    Value c1 = arith::ConstantIndexOp::create(b, loc, 1);
    auto loop = scf::ForOp::create(
        b, loc, c0, tSize, c1, iter,
        [&](OpBuilder &nb, Location l, Value t, ValueRange args) {
          Value tt = t;
          if (reverse)
            tt = arith::SubIOp::create(nb, l, arith::SubIOp::create(nb, l, tSize, t), c1);
          auto gatesTy = withShape(in, {stateTy.getDimSize(0), g * hidden});
          Value gx = SelectIntOp::create(nb, l, gatesTy, xw, ValueRange{tt},
                                         ArrayRef<int64_t>{kDyn}, 0);
          Value h = args[0];
          Value gh = LinearOp::create(nb, l, gatesTy, h, cell.wHh, cell.bHh);
          SmallVector<Value> next = step<OpT>(nb, l, gx, gh, args.drop_back(), hidden, stateTy, cell.wHr);
          Value out = SelectScatterOp::create(nb, l, seqTy, args.back(), next[0], ValueRange{tt},
                                              ArrayRef<int64_t>{kDyn}, 0);
          next.push_back(out);
          scf::YieldOp::create(nb, l, next);
        });
    SmallVector<Value> finals(loop.getResults().drop_back());
    return {loop.getResults().back(), finals};
  }

  /// runDirection with the steps unrolled (a static T): the same step ops on
  /// x[t] for each t, the outputs stacked in time order.
  static std::pair<Value, SmallVector<Value>>
  unrolled(OpBuilder &b, Location loc, Value in, const Cell &cell, ArrayRef<Value> init,
           bool reverse, int64_t steps, RankedTensorType stateTy) {
    int64_t hidden = stateTy.getDimSize(1);
    int64_t g = OpT::kGates;
    auto inTy = typeOf(in);
    Value xw = LinearOp::create(b, loc, withShape(in, {inTy.getDimSize(0), inTy.getDimSize(1), g * hidden}),
                                in, cell.wIh, cell.bIh);
    auto gatesTy = withShape(in, {stateTy.getDimSize(0), g * hidden});
    SmallVector<Value> state(init), outs(steps);
    for (int64_t k = 0; k < steps; ++k) {
      int64_t t = reverse ? steps - 1 - k : k;
      Value gx = SelectIntOp::create(b, loc, gatesTy, xw, ValueRange{}, ArrayRef<int64_t>{t}, 0);
      Value gh = LinearOp::create(b, loc, gatesTy, state[0], cell.wHh, cell.bHh);
      state = step<OpT>(b, loc, gx, gh, state, hidden, stateTy, cell.wHr);
      outs[t] = state[0];
    }
    int64_t outSize = typeOf(state[0]).getDimSize(1);
    return {stack(b, loc, outs, true, withShape(in, {steps, stateTy.getDimSize(0), outSize})), state};
  }

};
/// A recurrent cell: gates of the input and of the state (two linears), then
/// the cell's step; an unbatched cell runs as a batch of one.
template <typename OpT> struct CellDecomposition : OpRewritePattern<OpT> {
  using OpRewritePattern<OpT>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpT op, PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Value x = op.getInput();
    bool batched = typeOf(x).getRank() == 2;
    SmallVector<Value> states(op.getHx());
    if (!batched) {
      auto unsq = [&](Value v) {
        SmallVector<int64_t> sh(typeOf(v).getShape());
        sh.insert(sh.begin(), 1);
        return UnsqueezeOp::create(b, loc, withShape(v, sh), v, 0).getResult();
      };
      x = unsq(x);
      for (Value &st : states)
        st = unsq(st);
    }
    int64_t hidden = typeOf(op.getWHh()).getDimSize(1);
    int64_t batch = typeOf(x).getDimSize(0);
    auto gatesTy = withShape(x, {batch, OpT::kGates * hidden});
    auto stateTy = withShape(x, {batch, hidden});
    Value bIh = op.getBiases().empty() ? Value() : op.getBiases()[0];
    Value bHh = op.getBiases().empty() ? Value() : op.getBiases()[1];
    Value gx = LinearOp::create(b, loc, gatesTy, x, op.getWIh(), bIh);
    Value gh = LinearOp::create(b, loc, gatesTy, states[0], op.getWHh(), bHh);
    SmallVector<Value> next = step<OpT>(b, loc, gx, gh, states, hidden, stateTy);
    SmallVector<Value> results;
    for (auto [v, r] : llvm::zip(next, op->getResults())) {
      if (!batched)
        v = SqueezeDimsOp::create(b, loc, withShape(v, {hidden}), v, ArrayRef<int64_t>{0});
      results.push_back(castTo(b, loc, v, r.getType()));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};
} // namespace

void kiln::aten::populateSequenceDecompositions(RewritePatternSet &patterns, bool unrollRecurrent) {
  patterns.add<DiffDecomposition, AdaptiveAvgPool1dDecomposition>(patterns.getContext());
  patterns.add<RecurrentDecomposition<LstmInputOp>, RecurrentDecomposition<GruInputOp>,
               RecurrentDecomposition<RnnTanhInputOp>, RecurrentDecomposition<RnnReluInputOp>>(
      patterns.getContext(), unrollRecurrent);
  patterns.add<CellDecomposition<LstmCellOp>, CellDecomposition<GruCellOp>, CellDecomposition<RnnTanhCellOp>,
               CellDecomposition<RnnReluCellOp>>(patterns.getContext());
}
