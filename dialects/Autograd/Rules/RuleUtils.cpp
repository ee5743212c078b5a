//===- RuleUtils.cpp - building blocks of the derivative rules ------------===//
#include "RuleUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace kiln;

namespace kiln::autograd::rules {

static constexpr int64_t kDyn = ShapedType::kDynamic;

RankedTensorType tensorType(Value v) { return cast<RankedTensorType>(v.getType()); }


Value scalarTensor(OpBuilder &b, Location loc, Type elem, double value) {
  auto ty = RankedTensorType::get({}, elem);
  return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(ty, b.getFloatAttr(elem, value)));
}

SmallVector<Value> dynamicDims(OpBuilder &b, Location loc, Value like) {
  SmallVector<Value> sizes;
  auto ty = tensorType(like);
  for (int64_t i = 0; i < ty.getRank(); ++i)
    if (ty.isDynamicDim(i))
      sizes.push_back(tensor::DimOp::create(b, loc, like, i));
  return sizes;
}

Value zerosLike(OpBuilder &b, Location loc, Value like) {
  auto ty = tensorType(like);
  // A small zero tensor is a constant (folds away); a large one is a
  // broadcast scalar, which lowers to a fill instead of a dense global in the
  // model (an embedding table's gradient would otherwise add its whole size
  // of zeros to the .so).
  if (ty.hasStaticShape() && ty.getNumElements() <= 4096)
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(ty, b.getFloatAttr(ty.getElementType(), 0.0)));
  return aten::ExpandOp::create(b, loc, ty, scalarTensor(b, loc, ty.getElementType(), 0.0),
                                dynamicDims(b, loc, like), b.getDenseI64ArrayAttr(ty.getShape()));
}

Value sumTo(OpBuilder &b, Location loc, Value g, Type target) {
  if (g.getType() == target)
    return g;
  return aten::SumToSizeOp::create(b, loc, target, g);
}

SmallVector<int64_t> broadcastShape(ArrayRef<int64_t> a, ArrayRef<int64_t> c) {
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
  auto ty = RankedTensorType::get(broadcastShape(ta.getShape(), tc.getShape()), ta.getElementType());
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
  return viewTo(b, loc, v, tensorType(like).getShape(), dynamicDims(b, loc, like));
}

Value expandAs(OpBuilder &b, Location loc, Value v, Value like) {
  auto ty = RankedTensorType::get(tensorType(like).getShape(), tensorType(v).getElementType());
  if (ty == v.getType())
    return v;
  return aten::ExpandOp::create(b, loc, ty, v, dynamicDims(b, loc, like),
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

SmallVector<int64_t> reducedShape(RankedTensorType ty, ArrayRef<int64_t> dims, bool keepdim) {
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < ty.getRank(); ++d) {
    if (!llvm::is_contained(dims, d))
      shape.push_back(ty.getDimSize(d));
    else if (keepdim)
      shape.push_back(1);
  }
  return shape;
}

template <typename OpT>
static Value reduce(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> dims, bool keepdim) {
  if (dims.empty()) // an empty list would mean every dim
    return v;
  auto ty = tensorType(v);
  auto out = RankedTensorType::get(reducedShape(ty, dims, keepdim), ty.getElementType());
  return OpT::create(b, loc, out, v, b.getDenseI64ArrayAttr(dims), b.getBoolAttr(keepdim),
                     TypeAttr());
}
Value sumDims(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> dims, bool keepdim) {
  return reduce<aten::SumDimIntListOp>(b, loc, v, dims, keepdim);
}
Value meanDims(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> dims, bool keepdim) {
  return reduce<aten::MeanDimOp>(b, loc, v, dims, keepdim);
}

Value keepDims(OpBuilder &b, Location loc, Value g, Value like, ArrayRef<int64_t> dims,
               bool keepdim) {
  if (keepdim)
    return g;
  auto ty = tensorType(like);
  SmallVector<int64_t> kept(ty.getShape());
  SmallVector<Value> dyn;
  for (int64_t d = 0; d < ty.getRank(); ++d) {
    if (llvm::is_contained(dims, d))
      kept[d] = 1;
    else if (ty.isDynamicDim(d))
      dyn.push_back(tensor::DimOp::create(b, loc, like, d));
  }
  return viewTo(b, loc, g, kept, dyn);
}

Value unreduce(OpBuilder &b, Location loc, Value g, Value like, ArrayRef<int64_t> dims,
               bool keepdim) {
  return expandAs(b, loc, keepDims(b, loc, g, like, dims, keepdim), like);
}

Value transposeLast2(OpBuilder &b, Location loc, Value v) {
  int64_t rank = tensorType(v).getRank();
  SmallVector<int64_t> perm;
  for (int64_t i = 0; i < rank; ++i)
    perm.push_back(i);
  std::swap(perm[rank - 1], perm[rank - 2]);
  return permute(b, loc, v, perm);
}

Value matmul(OpBuilder &b, Location loc, Value a, Value c) {
  auto ta = tensorType(a), tc = tensorType(c);
  SmallVector<int64_t> shape =
      broadcastShape(ta.getShape().drop_back(2), tc.getShape().drop_back(2));
  shape.push_back(ta.getDimSize(ta.getRank() - 2));
  shape.push_back(tc.getDimSize(tc.getRank() - 1));
  return aten::MatmulOp::create(b, loc, RankedTensorType::get(shape, ta.getElementType()), a, c);
}

Value where(OpBuilder &b, Location loc, Value cond, Value a, Value c) {
  auto shape = broadcastShape(tensorType(cond).getShape(),
                         broadcastShape(tensorType(a).getShape(), tensorType(c).getShape()));
  auto ty = RankedTensorType::get(shape, tensorType(a).getElementType());
  return aten::WhereSelfOp::create(b, loc, ty, cond, a, c);
}

FailureOr<int64_t> staticCount(Value v, ArrayRef<int64_t> dims) {
  auto ty = tensorType(v);
  int64_t n = 1;
  for (int64_t d : dims) {
    if (ty.isDynamicDim(d))
      return failure();
    n *= ty.getDimSize(d);
  }
  return n;
}

Value countOf(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> dims) {
  Type elem = tensorType(x).getElementType();
  if (auto n = staticCount(x, dims); succeeded(n))
    return scalarTensor(b, loc, elem, (double)*n);
  return sumDims(b, loc, expandAs(b, loc, scalarTensor(b, loc, elem, 1.0), x), dims, true);
}

LogicalResult checkSameElementType(Operation *op, Value operand, Value result) {
  Type a = tensorType(operand).getElementType(), r = tensorType(result).getElementType();
  if (a != r)
    return op->emitError("cannot differentiate '")
           << op->getName() << "' with respect to a " << a << " operand of a " << r
           << " result (mixed-dtype gradients are not supported yet)";
  return success();
}

Value scatterTaps(OpBuilder &b, Location loc, Value g, int64_t dim, int64_t in, int64_t taps,
                  ArrayRef<int64_t> index, ArrayRef<double> weight) {
  auto gTy = tensorType(g);
  int64_t rank = gTy.getRank(), out = gTy.getDimSize(dim);
  Type elem = gTy.getElementType();
  SmallVector<Value> dyn = dynamicDims(b, loc, g);
  auto shapeWith = [&](ArrayRef<int64_t> mid) {
    SmallVector<int64_t> s(gTy.getShape().take_front(dim));
    llvm::append_range(s, mid);
    llvm::append_range(s, gTy.getShape().drop_front(dim + 1));
    return s;
  };
  // Weighted copies of g, one per tap: [..., taps, out, ...] viewed flat.
  SmallVector<int64_t> wShape(rank + 1, 1);
  wShape[dim] = taps;
  wShape[dim + 1] = out;
  auto wTy = RankedTensorType::get(wShape, elem);
  const llvm::fltSemantics &sem = cast<FloatType>(elem).getFloatSemantics();
  SmallVector<APFloat> ws;
  for (double w : weight) {
    APFloat f(w);
    bool lost;
    f.convert(sem, APFloat::rmNearestTiesToEven, &lost);
    ws.push_back(f);
  }
  Value wc = arith::ConstantOp::create(b, loc, DenseElementsAttr::get(wTy, ws));
  Value copies = mul(b, loc, viewTo(b, loc, g, shapeWith({1, out}), dyn), wc);
  SmallVector<int64_t> flat = shapeWith({taps * out});
  copies = viewTo(b, loc, copies, flat, dyn);
  // Reads outside the input go to one extra position, sliced off after.
  bool outside = llvm::is_contained(index, -1);
  int64_t padded = in + (outside ? 1 : 0);
  SmallVector<int64_t> idx;
  for (int64_t i : index)
    idx.push_back(i < 0 ? in : i);
  SmallVector<int64_t> iShape(rank, 1);
  iShape[dim] = taps * out;
  auto iTy = RankedTensorType::get(iShape, b.getI64Type());
  Value ic = arith::ConstantOp::create(b, loc, DenseElementsAttr::get(iTy, ArrayRef<int64_t>(idx)));
  Value indices = aten::ExpandOp::create(b, loc, RankedTensorType::get(flat, b.getI64Type()), ic,
                                         dyn, b.getDenseI64ArrayAttr(flat));
  auto paddedTy = RankedTensorType::get(shapeWith({padded}), elem);
  Value zeros = paddedTy.hasStaticShape()
                    ? arith::ConstantOp::create(
                          b, loc, DenseElementsAttr::get(paddedTy, b.getFloatAttr(elem, 0.0)))
                          .getResult()
                    : aten::ExpandOp::create(b, loc, paddedTy, scalarTensor(b, loc, elem, 0.0),
                                             dyn, b.getDenseI64ArrayAttr(paddedTy.getShape()))
                          .getResult();
  Value sum = aten::ScatterOp::create(b, loc, paddedTy, zeros, indices, copies,
                                      b.getI64IntegerAttr(dim), b.getStringAttr("sum"),
                                      b.getBoolAttr(true));
  if (!outside)
    return sum;
  return aten::SliceTensorOp::create(b, loc, RankedTensorType::get(shapeWith({in}), elem), sum,
                                     ValueRange{}, b.getDenseI64ArrayAttr({0, in}),
                                     b.getI64IntegerAttr(dim), b.getI64IntegerAttr(1));
}

Value flattenLast(OpBuilder &b, Location loc, Value v, int64_t n) {
  auto ty = tensorType(v);
  int64_t r = ty.getRank();
  SmallVector<int64_t> shape(ty.getShape().drop_back(n));
  int64_t prod = 1;
  for (int64_t d = r - n; d < r; ++d)
    prod = (prod == kDyn || ty.isDynamicDim(d)) ? kDyn : prod * ty.getDimSize(d);
  shape.push_back(prod);
  SmallVector<Value> dyn;
  for (int64_t d = 0; d < r - n; ++d)
    if (ty.isDynamicDim(d))
      dyn.push_back(tensor::DimOp::create(b, loc, v, d));
  if (prod == kDyn) {
    Value p = tensor::DimOp::create(b, loc, v, r - n);
    for (int64_t d = r - n + 1; d < r; ++d)
      p = arith::MulIOp::create(b, loc, p, tensor::DimOp::create(b, loc, v, d));
    dyn.push_back(p);
  }
  return viewTo(b, loc, v, shape, dyn);
}

Value gatherFlat(OpBuilder &b, Location loc, Value t, Value indices, Value result, int64_t n) {
  Value tf = flattenLast(b, loc, t, n), idf = flattenLast(b, loc, indices, n);
  auto gTy = RankedTensorType::get(tensorType(idf).getShape(), tensorType(t).getElementType());
  Value g = aten::GatherOp::create(b, loc, gTy, tf, idf,
                                   b.getI64IntegerAttr(tensorType(t).getRank() - n));
  return viewAs(b, loc, g, result);
}

Value scatterFlat(OpBuilder &b, Location loc, Value g, Value indices, Value like, int64_t n) {
  Value zeros = flattenLast(b, loc, zerosLike(b, loc, like), n);
  Value gf = flattenLast(b, loc, g, n), idf = flattenLast(b, loc, indices, n);
  Value sum = aten::ScatterOp::create(b, loc, zeros.getType(), zeros, idf, gf,
                                      b.getI64IntegerAttr(tensorType(like).getRank() - n),
                                      b.getStringAttr("sum"), b.getBoolAttr(true));
  return viewAs(b, loc, sum, like);
}

} // namespace kiln::autograd::rules
