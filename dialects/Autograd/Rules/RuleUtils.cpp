//===- RuleUtils.cpp - building blocks of the derivative rules ------------===//
#include "RuleUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace kiln;

namespace kiln::autograd::rules {

static constexpr int64_t kDyn = ShapedType::kDynamic;

RankedTensorType tensorType(Value v) { return cast<RankedTensorType>(v.getType()); }

bool isFloatTensor(Type t) {
  auto tt = dyn_cast<RankedTensorType>(t);
  return tt && isa<FloatType>(tt.getElementType());
}

Value scalarTensor(OpBuilder &b, Location loc, Type elem, double value) {
  auto ty = RankedTensorType::get({}, elem);
  return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(ty, b.getFloatAttr(elem, value)));
}

static SmallVector<Value> dynamicSizes(OpBuilder &b, Location loc, Value like) {
  SmallVector<Value> sizes;
  auto ty = tensorType(like);
  for (int64_t i = 0; i < ty.getRank(); ++i)
    if (ty.isDynamicDim(i))
      sizes.push_back(tensor::DimOp::create(b, loc, like, i));
  return sizes;
}

Value zerosLike(OpBuilder &b, Location loc, Value like) {
  auto ty = tensorType(like);
  if (ty.hasStaticShape())
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(ty, b.getFloatAttr(ty.getElementType(), 0.0)));
  return aten::ExpandOp::create(b, loc, ty, scalarTensor(b, loc, ty.getElementType(), 0.0),
                                dynamicSizes(b, loc, like), b.getDenseI64ArrayAttr(ty.getShape()));
}

Value sumTo(OpBuilder &b, Location loc, Value g, Type target) {
  if (g.getType() == target)
    return g;
  return aten::SumToSizeOp::create(b, loc, target, g);
}

/// Numpy broadcast of two shapes (a dynamic dim against a static non-1 one
/// takes the static size).
static SmallVector<int64_t> broadcast(ArrayRef<int64_t> a, ArrayRef<int64_t> c) {
  size_t rank = std::max(a.size(), c.size());
  SmallVector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t x = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t y = i < rank - c.size() ? 1 : c[i - (rank - c.size())];
    out[i] = x == 1 ? y : y == 1 ? x : x == kDyn ? y : x;
  }
  return out;
}

template <typename OpT>
static Value binary(OpBuilder &b, Location loc, Value a, Value c) {
  auto ta = tensorType(a), tc = tensorType(c);
  auto ty = RankedTensorType::get(broadcast(ta.getShape(), tc.getShape()), ta.getElementType());
  return OpT::create(b, loc, TypeRange{ty}, ValueRange{a, c});
}

Value add(OpBuilder &b, Location loc, Value a, Value c) {
  return binary<aten::AddTensorOp>(b, loc, a, c);
}
Value sub(OpBuilder &b, Location loc, Value a, Value c) {
  return binary<aten::SubTensorOp>(b, loc, a, c);
}
Value mul(OpBuilder &b, Location loc, Value a, Value c) {
  return binary<aten::MulTensorOp>(b, loc, a, c);
}
Value div(OpBuilder &b, Location loc, Value a, Value c) {
  return binary<aten::DivTensorOp>(b, loc, a, c);
}

Value scale(OpBuilder &b, Location loc, Value a, double factor) {
  if (factor == 1.0)
    return a;
  return mul(b, loc, a, scalarTensor(b, loc, tensorType(a).getElementType(), factor));
}

Value permute(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> perm) {
  auto ty = tensorType(v);
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(ty.getDimSize(p));
  return aten::PermuteOp::create(b, loc, RankedTensorType::get(shape, ty.getElementType()), v,
                                 b.getDenseI64ArrayAttr(perm));
}

Value viewTo(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> shape, ValueRange dynSizes) {
  auto ty = RankedTensorType::get(shape, tensorType(v).getElementType());
  if (ty == v.getType())
    return v;
  return aten::ViewOp::create(b, loc, ty, v, dynSizes, b.getDenseI64ArrayAttr(shape));
}

Value viewAs(OpBuilder &b, Location loc, Value v, Value like) {
  return viewTo(b, loc, v, tensorType(like).getShape(), dynamicSizes(b, loc, like));
}

Value expandAs(OpBuilder &b, Location loc, Value v, Value like) {
  auto ty = RankedTensorType::get(tensorType(like).getShape(), tensorType(v).getElementType());
  if (ty == v.getType())
    return v;
  return aten::ExpandOp::create(b, loc, ty, v, dynamicSizes(b, loc, like),
                                b.getDenseI64ArrayAttr(ty.getShape()));
}

Value flattenTo2d(OpBuilder &b, Location loc, Value v) {
  auto ty = tensorType(v);
  int64_t rank = ty.getRank();
  if (rank == 2)
    return v;
  if (rank == 1)
    return viewTo(b, loc, v, {1, ty.getDimSize(0)}, {});
  int64_t lead = 1;
  for (int64_t d : ty.getShape().drop_back())
    lead = (lead == kDyn || d == kDyn) ? kDyn : lead * d;
  auto out = RankedTensorType::get({lead, ty.getDimSize(rank - 1)}, ty.getElementType());
  return aten::FlattenUsingIntsOp::create(b, loc, out, v, b.getI64IntegerAttr(0),
                                         b.getI64IntegerAttr(rank - 2));
}

LogicalResult checkSameElementType(Operation *op, Value operand, Value result) {
  Type a = tensorType(operand).getElementType(), r = tensorType(result).getElementType();
  if (a != r)
    return op->emitError("cannot differentiate '")
           << op->getName() << "' with respect to a " << a << " operand of a " << r
           << " result (mixed-dtype gradients are not supported yet)";
  return success();
}

} // namespace kiln::autograd::rules
