//===- LinalgRules.cpp - derivatives of linear and the matrix products ----===//
#include "Autograd/Rules/Rules.h"
#include "RuleUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace kiln::aten;

namespace kiln::autograd::rules {
namespace {

/// a @ c^T for 2-d a [m, k] and c [n, k], as aten.linear.
Value matmulNT(OpBuilder &b, Location loc, Value a, Value c) {
  auto ta = tensorType(a), tc = tensorType(c);
  auto ty = RankedTensorType::get({ta.getDimSize(0), tc.getDimSize(0)}, ta.getElementType());
  return LinearOp::create(b, loc, ty, a, c, Value());
}

/// y = x @ W^T + b over the last dim of x.
LogicalResult linearVjp(LinearOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                        SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  Value g = cts[0], x = op.getInput(), w = op.getWeight();
  if (needed[0]) {
    // g @ W: linear(g, W^T), in x's shape.
    Value wt = permute(b, loc, w, {1, 0});
    out[0] = LinearOp::create(b, loc, x.getType(), g, wt, Value());
  }
  if (needed[1]) {
    // sum over the leading dims of g^T x: (g2^T) @ (x2^T)^T.
    Value g2 = flattenTo2d(b, loc, g), x2 = flattenTo2d(b, loc, x);
    Value gw = matmulNT(b, loc, permute(b, loc, g2, {1, 0}), permute(b, loc, x2, {1, 0}));
    out[1] = viewAs(b, loc, gw, w);
  }
  if (op.getBias() && needed[2])
    out[2] = sumTo(b, loc, g, op.getBias().getType());
  return success();
}
LogicalResult linearJvp(LinearOp op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  Value r =
      bilinearTangent(b, loc, ts[0], ts[1], op.getInput(), op.getWeight(), [&](Value x, Value w) -> Value {
        return LinearOp::create(b, loc, op.getType(), x, w, Value());
      });
  if (op.getBias() && ts[2])
    addToExpanded(b, loc, r, ts[2], op.getResult());
  out[0] = r;
  return success();
}

/// beta * self + alpha * mat1 @ mat2.
LogicalResult addmmVjp(AddmmOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                       SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  Value g = cts[0];
  double alpha = op.getAlpha().convertToDouble(), beta = op.getBeta().convertToDouble();
  if (needed[0])
    out[0] = sumTo(b, loc, scale(b, loc, g, beta), op.getSelf().getType());
  if (needed[1]) // alpha * g @ mat2^T
    out[1] = scale(b, loc, matmulNT(b, loc, g, op.getMat2()), alpha);
  if (needed[2]) // alpha * mat1^T @ g
    out[2] = scale(b, loc,
                   matmulNT(b, loc, permute(b, loc, op.getMat1(), {1, 0}),
                            permute(b, loc, g, {1, 0})),
                   alpha);
  for (int i = 1; i < 3; ++i)
    if (out[i] && out[i].getType() != op->getOperand(i).getType())
      out[i] = viewAs(b, loc, out[i], op->getOperand(i));
  return success();
}

LogicalResult addmmJvp(AddmmOp op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  double alpha = op.getAlpha().convertToDouble(), beta = op.getBeta().convertToDouble();
  Value r = bilinearTangent(b, loc, ts[1], ts[2], op.getMat1(), op.getMat2(), [&](Value m1, Value m2) {
    return matmulNT(b, loc, m1, permute(b, loc, m2, {1, 0}));
  });
  if (r)
    r = scale(b, loc, r, alpha);
  if (ts[0]) {
    Value t = scale(b, loc, ts[0], beta);
    addToExpanded(b, loc, r, t, op.getResult());
  }
  out[0] = r ? viewAs(b, loc, r, op.getResult()) : r;
  return success();
}

/// The result type of aten.matmul of `a` and `c` (any ranks >= 1).
RankedTensorType matmulType(Value a, Value c) {
  auto ta = tensorType(a), tc = tensorType(c);
  ArrayRef<int64_t> sa = ta.getShape(), sc = tc.getShape();
  SmallVector<int64_t> shape;
  if (sa.size() >= 2 || sc.size() >= 2) {
    ArrayRef<int64_t> ba = sa.size() > 2 ? sa.drop_back(2) : ArrayRef<int64_t>{};
    ArrayRef<int64_t> bc = sc.size() > 2 ? sc.drop_back(2) : ArrayRef<int64_t>{};
    size_t rank = std::max(ba.size(), bc.size());
    for (size_t i = 0; i < rank; ++i) {
      int64_t x = i < rank - ba.size() ? 1 : ba[i - (rank - ba.size())];
      int64_t y = i < rank - bc.size() ? 1 : bc[i - (rank - bc.size())];
      shape.push_back(x == 1 ? y : y == 1 ? x : x == ShapedType::kDynamic ? y : x);
    }
  }
  if (sa.size() >= 2)
    shape.push_back(sa[sa.size() - 2]);
  if (sc.size() >= 2)
    shape.push_back(sc.back());
  return RankedTensorType::get(shape, ta.getElementType());
}
Value matmulAny(OpBuilder &b, Location loc, Value a, Value c) {
  return MatmulOp::create(b, loc, matmulType(a, c), a, c);
}

/// `v` with a unit dim inserted at `dim` (aten.unsqueeze).
Value unsqueeze(OpBuilder &b, Location loc, Value v, int64_t dim) {
  auto ty = tensorType(v);
  SmallVector<int64_t> shape(ty.getShape());
  if (dim < 0)
    dim += ty.getRank() + 1;
  shape.insert(shape.begin() + dim, 1);
  return UnsqueezeOp::create(b, loc, RankedTensorType::get(shape, ty.getElementType()), v,
                             b.getI64IntegerAttr(dim));
}

/// Gradients of torch.matmul(a, c) (every rank combination, broadcast batch
/// dims): a 1-d operand is made a row (a) or column (c) matrix and the
/// cotangent gets the matching unit dim; g_a = g @ c^T and g_c = a^T @ g,
/// each summed down to its operand's (batch-broadcast) shape.
void productGrads(OpBuilder &b, Location loc, Value a, Value c, Value g, bool needA, bool needC,
                  Value &ga, Value &gc) {
  int64_t ra = tensorType(a).getRank(), rc = tensorType(c).getRank();
  Value a2 = ra == 1 ? unsqueeze(b, loc, a, 0) : a;
  Value c2 = rc == 1 ? unsqueeze(b, loc, c, 1) : c;
  Value g2 = g;
  if (rc == 1)
    g2 = unsqueeze(b, loc, g2, -1);
  if (ra == 1)
    g2 = unsqueeze(b, loc, g2, tensorType(g2).getRank() - 1);
  if (needA) {
    Value t = sumTo(b, loc, matmul(b, loc, g2, transposeLast2(b, loc, c2)), a2.getType());
    ga = viewAs(b, loc, t, a);
  }
  if (needC) {
    Value t = sumTo(b, loc, matmul(b, loc, transposeLast2(b, loc, a2), g2), c2.getType());
    gc = viewAs(b, loc, t, c);
  }
}

/// mm, bmm, mv, dot, matmul: operands self and other, matmul semantics.
template <typename OpT>
LogicalResult productVjp(OpT op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                         SmallVectorImpl<Value> &out) {
  for (int i = 0; i < 2; ++i)
    if (needed[i] && failed(checkSameElementType(op, op->getOperand(i), op.getResult())))
      return failure();
  productGrads(b, op.getLoc(), op.getSelf(), op.getOther(), cts[0], needed[0], needed[1], out[0],
               out[1]);
  return success();
}
template <typename OpT>
LogicalResult productJvp(OpT op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  Value r =
      bilinearTangent(b, loc, ts[0], ts[1], op.getSelf(), op.getOther(),
                      [&](Value x, Value y) -> Value { return OpT::create(b, loc, op.getType(), x, y); });
  out[0] = r;
  return success();
}

/// outer(a, c) = a[:, None] * c[None, :]: g_a = g @ c, g_c = g^T @ a.
LogicalResult outerVjp(OuterOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                       SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  if (needed[0])
    out[0] = matmulAny(b, loc, cts[0], op.getOther());
  if (needed[1])
    out[1] = matmulAny(b, loc, op.getSelf(), cts[0]);
  return success();
}

/// baddbmm / addmv: beta * self + alpha * lhs @ rhs.
template <typename OpT>
LogicalResult addProductVjp(OpT op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                            SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  for (int i = 0; i < 3; ++i)
    if (needed[i] && failed(checkSameElementType(op, op->getOperand(i), op.getResult())))
      return failure();
  Value g = cts[0];
  if (needed[0])
    out[0] = sumTo(b, loc, scale(b, loc, g, op.getBeta().convertToDouble()), op.getSelf().getType());
  productGrads(b, loc, op.getLhs(), op.getRhs(), scale(b, loc, g, op.getAlpha().convertToDouble()),
               needed[1], needed[2], out[1], out[2]);
  return success();
}
template <typename OpT>
LogicalResult addProductJvp(OpT op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  Value r = bilinearTangent(b, loc, ts[1], ts[2], op.getLhs(), op.getRhs(),
                            [&](Value x, Value y) { return matmulAny(b, loc, x, y); });
  if (r)
    r = scale(b, loc, r, op.getAlpha().convertToDouble());
  if (ts[0]) {
    Value t = scale(b, loc, ts[0], op.getBeta().convertToDouble());
    addTo(b, loc, r, t);
  }
  out[0] = r ? expandAs(b, loc, r, op.getResult()) : r;
  return success();
}

/// einsum: loops parsed from the equation, a letter per loop, the size of
/// each loop (static where some operand has it static and not 1).
struct EinsumLoops {
  SmallVector<SmallVector<int64_t>> operands;
  SmallVector<int64_t> result, size;
  std::string letters(ArrayRef<int64_t> loops) const {
    std::string s;
    for (int64_t l : loops)
      s.push_back(l < 26 ? char('a' + l) : char('A' + l - 26));
    return s;
  }
};
FailureOr<EinsumLoops> einsumLoops(EinsumOp op) {
  EinsumLoops e;
  int64_t numLoops = 0;
  std::string error;
  if (failed(op.parseEquation(e.operands, e.result, numLoops, error)))
    return op.emitError("cannot differentiate 'aten.einsum': ") << error;
  if (numLoops > 52)
    return op.emitError("cannot differentiate 'aten.einsum' with more than 52 indices");
  e.size.assign(numLoops, 1);
  SmallVector<bool> dynamic(numLoops, false);
  auto see = [&](ArrayRef<int64_t> loops, ArrayRef<int64_t> shape) {
    for (auto [l, n] : llvm::zip(loops, shape)) {
      if (n == ShapedType::kDynamic)
        dynamic[l] = true;
      else if (n != 1)
        e.size[l] = n;
    }
  };
  for (auto [loops, t] : llvm::zip(e.operands, op.getTensors()))
    see(loops, tensorType(t).getShape());
  see(e.result, tensorType(op.getResult()).getShape());
  for (int64_t l = 0; l < numLoops; ++l)
    if (dynamic[l] && e.size[l] == 1)
      e.size[l] = ShapedType::kDynamic;
  return e;
}

/// The cotangent of einsum operand k: an einsum of the output's cotangent and
/// the other operands that produces operand k's labels; a label only operand
/// k has (summed within it) comes back by broadcasting, and a size-1 dim that
/// broadcast against a larger one is summed back to 1. A label operand k
/// repeats (a diagonal, as in "ii->i") is first treated as one dim; the
/// result is then placed on the diagonal by an einsum with an identity
/// matrix per further occurrence (zeros off it).
LogicalResult einsumVjp(EinsumOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                        SmallVectorImpl<Value> &out) {
  FailureOr<EinsumLoops> e = einsumLoops(op);
  if (failed(e))
    return failure();
  Location loc = op.getLoc();
  ValueRange ts = op.getTensors();
  for (unsigned k = 0; k < ts.size(); ++k) {
    if (!needed[k])
      continue;
    if (failed(checkSameElementType(op, ts[k], op.getResult())))
      return failure();
    auto opTy = tensorType(ts[k]);
    Type elem = opTy.getElementType();
    // The operand's distinct labels, in order of first occurrence.
    SmallVector<int64_t> mine, mineShape;
    for (auto [d, l] : llvm::enumerate(e->operands[k]))
      if (!llvm::is_contained(mine, l)) {
        mine.push_back(l);
        mineShape.push_back(opTy.getDimSize(d));
      }
    bool diagonal = mine.size() != e->operands[k].size();
    if (diagonal && !opTy.hasStaticShape())
      return op.emitError("cannot differentiate 'aten.einsum' with respect to an operand with a "
                          "repeated index (a diagonal) and a dynamic dim yet");
    auto mineTy = RankedTensorType::get(mineShape, elem);
    llvm::SmallDenseSet<int64_t> available(e->result.begin(), e->result.end());
    SmallVector<Value> inputs{cts[0]};
    std::string eq = e->letters(e->result);
    for (unsigned j = 0; j < ts.size(); ++j) {
      if (j == k)
        continue;
      inputs.push_back(ts[j]);
      eq += "," + e->letters(e->operands[j]);
      available.insert(e->operands[j].begin(), e->operands[j].end());
    }
    SmallVector<int64_t> kept, keptShape, fullShape;
    for (int64_t l : mine) {
      bool has = available.contains(l);
      if (has) {
        kept.push_back(l);
        keptShape.push_back(e->size[l]);
      }
      fullShape.push_back(has ? e->size[l] : 1);
    }
    eq += "->" + e->letters(kept);
    Value g = EinsumOp::create(b, loc, RankedTensorType::get(keptShape, elem), inputs,
                               b.getStringAttr(eq));
    auto fullTy = RankedTensorType::get(fullShape, elem);
    if (kept.size() != mine.size()) {
      SmallVector<Value> dyn;
      for (auto [d, l] : llvm::enumerate(mine))
        if (fullShape[d] == ShapedType::kDynamic)
          dyn.push_back(tensor::DimOp::create(b, loc, ts[k], d));
      g = viewTo(b, loc, g, fullShape, dyn);
    }
    // Broadcast size-1 dims summed back, then labels only operand k has
    // broadcast to its size.
    SmallVector<int64_t> summedShape;
    for (auto [d, l] : llvm::enumerate(mine))
      summedShape.push_back(available.contains(l) ? mineShape[d] : 1);
    auto summedTy = RankedTensorType::get(summedShape, elem);
    if (summedTy != fullTy)
      g = sumTo(b, loc, g, summedTy);
    if (!diagonal) {
      out[k] = summedTy == opTy ? g : expandAs(b, loc, g, ts[k]);
      continue;
    }
    if (summedTy != mineTy)
      g = ExpandOp::create(b, loc, mineTy, g, ValueRange{}, b.getDenseI64ArrayAttr(mineShape));
    // Each further occurrence of a label gets a fresh letter tied to the
    // first by an identity matrix.
    int64_t fresh = (int64_t)e->size.size();
    SmallVector<Value> diagInputs{g};
    std::string diagEq = e->letters(mine);
    SmallVector<int64_t> outLabels;
    llvm::SmallDenseSet<int64_t> seen;
    for (auto [d, l] : llvm::enumerate(e->operands[k])) {
      if (seen.insert(l).second) {
        outLabels.push_back(l);
        continue;
      }
      if (fresh >= 52)
        return op.emitError("cannot differentiate 'aten.einsum' with more than 52 indices");
      int64_t n = opTy.getDimSize(d);
      auto eyeTy = RankedTensorType::get({n, n}, elem);
      SmallVector<Attribute> eye;
      for (int64_t i = 0; i < n * n; ++i)
        eye.push_back(b.getFloatAttr(elem, i / n == i % n ? 1.0 : 0.0));
      diagInputs.push_back(arith::ConstantOp::create(b, loc, DenseElementsAttr::get(eyeTy, eye)));
      diagEq += "," + e->letters({l, fresh});
      outLabels.push_back(fresh++);
    }
    diagEq += "->" + e->letters(outLabels);
    out[k] = EinsumOp::create(b, loc, opTy, diagInputs, b.getStringAttr(diagEq));
  }
  return success();
}
/// Multilinear: the tangent is the sum over operands of the einsum with that
/// operand replaced by its tangent.
LogicalResult einsumJvp(EinsumOp op, OpBuilder &b, ArrayRef<Value> tangents,
                        SmallVectorImpl<Value> &out) {
  Value sum;
  for (unsigned k = 0; k < tangents.size(); ++k) {
    if (!tangents[k])
      continue;
    SmallVector<Value> inputs(op.getTensors());
    inputs[k] = tangents[k];
    Value t = EinsumOp::create(b, op.getLoc(), op.getType(), inputs, op.getEquationAttr());
    sum = sum ? add(b, op.getLoc(), sum, t) : t;
  }
  out[0] = sum;
  return success();
}

} // namespace

void attachLinalgRules(MLIRContext *ctx) {
  EinsumOp::attachInterface<Rule<EinsumOp, einsumVjp, einsumJvp>>(*ctx);
  MmOp::attachInterface<Rule<MmOp, productVjp<MmOp>, productJvp<MmOp>>>(*ctx);
  BmmOp::attachInterface<Rule<BmmOp, productVjp<BmmOp>, productJvp<BmmOp>>>(*ctx);
  MvOp::attachInterface<Rule<MvOp, productVjp<MvOp>, productJvp<MvOp>>>(*ctx);
  DotOp::attachInterface<Rule<DotOp, productVjp<DotOp>, productJvp<DotOp>>>(*ctx);
  MatmulOp::attachInterface<Rule<MatmulOp, productVjp<MatmulOp>, productJvp<MatmulOp>>>(*ctx);
  OuterOp::attachInterface<Rule<OuterOp, outerVjp, productJvp<OuterOp>>>(*ctx);
  BaddbmmOp::attachInterface<
      Rule<BaddbmmOp, addProductVjp<BaddbmmOp>, addProductJvp<BaddbmmOp>>>(*ctx);
  AddmvOp::attachInterface<Rule<AddmvOp, addProductVjp<AddmvOp>, addProductJvp<AddmvOp>>>(*ctx);
  LinearOp::attachInterface<Rule<LinearOp, linearVjp, linearJvp>>(*ctx);
  AddmmOp::attachInterface<Rule<AddmmOp, addmmVjp, addmmJvp>>(*ctx);
}

} // namespace kiln::autograd::rules
