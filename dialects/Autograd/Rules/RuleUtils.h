//===- RuleUtils.h - building blocks of the derivative rules ----*- C++ -*-===//
#ifndef KILN_DIALECTS_AUTOGRAD_RULES_RULEUTILS_H
#define KILN_DIALECTS_AUTOGRAD_RULES_RULEUTILS_H

#include "ATen/IR/ATenDialect.h"
#include "Autograd/IR/AutogradDialect.h"
#include "mlir/IR/IRMapping.h"

namespace kiln::autograd::rules {
using namespace mlir;

/// The ranked tensor type of `v`.
RankedTensorType tensorType(Value v);
/// A 0-d constant tensor of element type `elem` holding `value`.
Value scalarTensor(OpBuilder &b, Location loc, Type elem, double value);
/// tensor.dim of each dynamic dim of `like`, in order.
SmallVector<Value> dynamicDims(OpBuilder &b, Location loc, Value like);
/// Zeros of `like`'s type (dynamic dims taken from `like`).
Value zerosLike(OpBuilder &b, Location loc, Value like);
/// `g` summed down to `target`'s type (sum_to_size), or `g` if it has it.
Value sumTo(OpBuilder &b, Location loc, Value g, Type target);
/// Numpy broadcast of two shapes (a dynamic dim against a static non-1 one
/// takes the static size).
SmallVector<int64_t> broadcastShape(ArrayRef<int64_t> a, ArrayRef<int64_t> c);
/// Elementwise aten ops with broadcasting; the result has the broadcast
/// shape and `a`'s element type.
Value add(OpBuilder &b, Location loc, Value a, Value c);
Value sub(OpBuilder &b, Location loc, Value a, Value c);
Value mul(OpBuilder &b, Location loc, Value a, Value c);
Value div(OpBuilder &b, Location loc, Value a, Value c);
/// Adds `v` to the running sum `acc` (a null `acc` has no term yet: it becomes `v`).
inline void addTo(OpBuilder &b, Location loc, Value &acc, Value v) { acc = acc ? add(b, loc, acc, v) : v; }
/// The tangent of f(x, y), linear in each of x and y (a product): f(tx, y) +
/// f(x, ty) over the tangents present; null when neither is.
inline Value bilinearTangent(OpBuilder &b, Location loc, Value tx, Value ty, Value x, Value y,
                             function_ref<Value(Value, Value)> f) {
  Value r = tx ? f(tx, y) : Value();
  if (ty)
    addTo(b, loc, r, f(x, ty));
  return r;
}
/// `a * factor` (`a` itself when factor is 1).
Value scale(OpBuilder &b, Location loc, Value a, double factor);
/// aten.permute.
Value permute(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> perm);
/// aten.view of `v` to `like`'s shape (dynamic sizes read from `like`).
Value viewAs(OpBuilder &b, Location loc, Value v, Value like);
/// aten.view of `v` to `shape`, whose dynamic entries come from `dynSizes` in order.
Value viewTo(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> shape, ValueRange dynSizes);
/// aten.expand of `v` to `like`'s shape.
Value expandAs(OpBuilder &b, Location loc, Value v, Value like);
/// addTo where a first term is broadcast to `like`'s shape (expandAs).
inline void addToExpanded(OpBuilder &b, Location loc, Value &acc, Value v, Value like) {
  acc = acc ? add(b, loc, acc, v) : expandAs(b, loc, v, like);
}
/// `v` flattened to 2-d [prod(leading dims), last dim] (a 1-d `v` becomes [1, n]).
Value flattenTo2d(OpBuilder &b, Location loc, Value v);
/// The shape `v` has with `dims` (sorted, in [0, rank)) reduced: dropped,
/// or kept as 1 with `keepdim`.
SmallVector<int64_t> reducedShape(RankedTensorType ty, ArrayRef<int64_t> dims, bool keepdim);
/// aten.sum_dim_intlist / aten.mean_dim of `v` over `dims` (sorted, in [0,
/// rank)); `v` itself when `dims` is empty.
Value sumDims(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> dims, bool keepdim);
Value meanDims(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> dims, bool keepdim);
/// The gradient of a reduction over `dims` of `like` broadcast back to
/// `like`'s shape: `g` (reduced, with unit dims when `keepdim`) viewed with
/// the reduced dims as 1, then expanded.
Value unreduce(OpBuilder &b, Location loc, Value g, Value like, ArrayRef<int64_t> dims,
               bool keepdim);
/// `g` with the reduced dims as 1 (a view, or `g` itself with `keepdim`).
Value keepDims(OpBuilder &b, Location loc, Value g, Value like, ArrayRef<int64_t> dims,
               bool keepdim);
/// `v` with its last two dims swapped (aten.permute).
Value transposeLast2(OpBuilder &b, Location loc, Value v);
/// aten.matmul of operands of rank >= 2 (batch dims broadcast).
Value matmul(OpBuilder &b, Location loc, Value a, Value c);
/// A unary aten op of `v` with `v`'s type.
template <typename OpT> Value unary(OpBuilder &b, Location loc, Value v) {
  return OpT::create(b, loc, v.getType(), v);
}
/// aten.where_self(cond, a, c) (broadcast; `a`'s element type).
Value where(OpBuilder &b, Location loc, Value cond, Value a, Value c);
/// The number of elements of `v` in `dims`, or failure when one is dynamic.
FailureOr<int64_t> staticCount(Value v, ArrayRef<int64_t> dims);
/// The number of elements of `x` in `dims`, as a tensor of `x`'s element type
/// with `x`'s rank and those dims as 1 (a 0-d constant when they are static).
Value countOf(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> dims);
/// Checks an operand whose cotangent is needed has the result's element type
/// (a rule cannot yet convert a gradient back to another dtype).
LogicalResult checkSameElementType(Operation *op, Value operand, Value result);

/// The adjoint, along `dim`, of a map that reads each output position o of
/// that dim as sum_k weight[k*out+o] * x[index[k*out+o]] (index -1: no read):
/// the cotangent `g` (static size `out` along `dim`) scatter-added at the
/// read positions, giving size `in` along `dim`. Interpolation and window
/// averages are separable, so their adjoints chain one call per spatial dim.
Value scatterTaps(OpBuilder &b, Location loc, Value g, int64_t dim, int64_t in, int64_t taps,
                  ArrayRef<int64_t> index, ArrayRef<double> weight);
/// `v` with its last `n` dims flattened into one.
Value flattenLast(OpBuilder &b, Location loc, Value v, int64_t n);
/// The elements of `t` at flat offsets `indices` within its last `n` dims
/// (max pooling's argmax): a gather shaped as `result`.
Value gatherFlat(OpBuilder &b, Location loc, Value t, Value indices, Value result, int64_t n);
/// The adjoint of gatherFlat: `g` (indices' shape) added at the flat
/// offsets `indices` within the last `n` dims of zeros shaped as `like`.
Value scatterFlat(OpBuilder &b, Location loc, Value g, Value indices, Value like, int64_t n);

/// Both rules of a pointwise op from its partial derivatives: `Partial(op, b,
/// loc, i)` is d result / d operand i, elementwise (in the result's shape
/// or broadcastable to it). Reverse: each needed operand gets the cotangent
/// times its partial, summed to its shape; forward: the sum over operands of
/// tangent times partial.
template <typename OpT, Value (*Partial)(OpT, OpBuilder &, Location, unsigned)>
LogicalResult pointwiseVjp(OpT op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                           SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  for (unsigned i = 0; i < op->getNumOperands(); ++i) {
    if (!needed[i])
      continue;
    Value x = op->getOperand(i);
    if (failed(checkSameElementType(op, x, op.getResult())))
      return failure();
    out[i] = sumTo(b, loc, expandAs(b, loc, mul(b, loc, cts[0], Partial(op, b, loc, i)), op.getResult()),
                   x.getType());
  }
  return success();
}
template <typename OpT, Value (*Partial)(OpT, OpBuilder &, Location, unsigned)>
LogicalResult pointwiseJvp(OpT op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  Value r;
  for (unsigned i = 0; i < op->getNumOperands(); ++i) {
    if (!ts[i])
      continue;
    if (failed(checkSameElementType(op, op->getOperand(i), op.getResult())))
      return failure();
    Value t = mul(b, loc, ts[i], Partial(op, b, loc, i));
    addTo(b, loc, r, t);
  }
  out[0] = r ? expandAs(b, loc, r, op.getResult()) : r;
  return success();
}

/// The tangent rule of an op linear in its first operand whose other
/// operands (indices, sizes) carry no tangent: the op itself, with its
/// attributes and other operands, applied to the first operand's tangent.
template <typename OpT>
LogicalResult linearInSelfJvp(OpT op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  if (ts[0]) {
    IRMapping tangent;
    tangent.map(op->getOperand(0), ts[0]);
    out[0] = b.clone(*op.getOperation(), tangent)->getResult(0);
  }
  return success();
}

/// Adapts a family's rule functions to the interface. `Vjp` is
/// LogicalResult(OpT, OpBuilder &, ArrayRef<Value>, ArrayRef<bool>,
/// SmallVectorImpl<Value> &); `Jvp` (optional) is LogicalResult(OpT,
/// OpBuilder &, ArrayRef<Value>, SmallVectorImpl<Value> &).
template <typename OpT, auto Vjp, auto Jvp = nullptr>
struct Rule : DifferentiableOpInterface::ExternalModel<Rule<OpT, Vjp, Jvp>, OpT> {
  LogicalResult buildVjp(Operation *op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                         SmallVectorImpl<Value> &out) const {
    out.assign(op->getNumOperands(), Value());
    return Vjp(cast<OpT>(op), b, cts, needed, out);
  }
  LogicalResult buildJvp(Operation *op, OpBuilder &b, ArrayRef<Value> tangents,
                         SmallVectorImpl<Value> &out) const {
    out.assign(op->getNumResults(), Value());
    if constexpr (Jvp == nullptr)
      return op->emitError("cannot differentiate '")
             << op->getName() << "' in forward mode: it has no tangent rule";
    else
      return Jvp(cast<OpT>(op), b, tangents, out);
  }
};

/// `Vjp` behind the check that the op's first result has the element type of
/// its `self` operand (the reductions and scans whose rules assume that).
template <typename OpT, auto Vjp>
LogicalResult selfDtypeVjp(OpT op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                           SmallVectorImpl<Value> &out) {
  if (failed(checkSameElementType(op, op.getSelf(), op->getResult(0))))
    return failure();
  return Vjp(op, b, cts, needed, out);
}

/// A Rule whose reverse mode first checks the dtype as selfDtypeVjp does.
template <typename OpT, auto Vjp, auto Jvp = nullptr>
using SelfDtypeRule = Rule<OpT, selfDtypeVjp<OpT, Vjp>, Jvp>;

} // namespace kiln::autograd::rules

#endif
