//===- Ops/SymInts.cpp - import handlers: sizes and SymInt arithmetic ------===//
//
// sym_size, sym_numel, sym_stride, Tensor.item() and the Python operators
// export records on SymInts, SymBools and SymFloats (`_operator.*`,
// sym_max, ...) become `index` / i1 / f64 arithmetic.
//
//===----------------------------------------------------------------------===//
#include "ShapeUtils.h"

#include "mlir/Dialect/Math/IR/Math.h"

namespace kiln::importer {
using namespace shape;

void registerSymIntHandlers(GraphImporter &g) {
  auto &h = g.handlers;
  OpBuilder &b = g.b;

  // --- sizes and SymInt arithmetic
  h["torch.ops.aten.sym_size.int"] = [&g](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    KILN_TRY(d, g.intArg(n, "dim", std::nullopt, loc));
    return g.emitOp<SymSizeIntOp>(n, loc, *x, *d);
  };
  // Binds the single SymInt/SymBool/SymFloat output of `n` to `v`. An output
  // export already knows (`as_none`, `as_int`, ...: with static sizes, the
  // `item()` of `torch.div(x.size(1), 4, rounding_mode="trunc")` is a
  // constant its users hold themselves) has nothing to bind.
  auto bindScalar = [&g](const Object &n, Value v) -> LogicalResult {
    const Array *outs = n.getArray("outputs");
    const Object *o = outs && outs->size() == 1 ? (*outs)[0].getAsObject() : nullptr;
    for (StringRef kind : {"as_sym_int", "as_sym_bool", "as_sym_float"})
      if (const Object *s = o ? o->getObject(kind) : nullptr) {
        g.values[s->getString("as_name").value_or("")] = v;
        return success();
      }
    for (StringRef kind : {"as_none", "as_int", "as_bool", "as_float"})
      if (o && o->get(kind))
        return success();
    return g.fail(v.getLoc(), "expected one symbolic scalar output");
  };
  h["torch.ops.aten.sym_numel.default"] = [&g, &b, bindScalar](const Object &n,
                                                               Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    Value p = arith::ConstantIndexOp::create(b, loc, 1);
    for (int64_t d = 0; d < typeOf(*x).getRank(); ++d)
      p = b.createOrFold<arith::MulIOp>(loc, p, dimSize(b, loc, *x, d));
    return bindScalar(n, p);
  };
  // _local_scalar_dense (Tensor.item()): the one element of an integer or
  // bool tensor as the graph's SymInt (an index) or SymBool (i1); slicing by
  // a tensor's values (tensor_split with a tensor) reads sizes this way.
  h["torch.ops.aten._local_scalar_dense.default"] =
      [&g, &b, bindScalar](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    RankedTensorType ty = typeOf(*x);
    if (!ty.hasStaticShape() || ty.getNumElements() != 1)
      return g.fail(loc, "aten._local_scalar_dense: expected a tensor of one element, got " +
                             std::to_string(ty.getNumElements()) + " elements");
    Type elem = ty.getElementType();
    if (!isa<IntegerType>(elem))
      return g.fail(loc, "aten._local_scalar_dense: a float tensor's item() (a SymFloat) is "
                         "not supported; integer and bool tensors are");
    const Array *outs = n.getArray("outputs");
    const Object *o = outs && outs->size() == 1 ? (*outs)[0].getAsObject() : nullptr;
    bool wantBool = o && o->getObject("as_sym_bool");
    SmallVector<Value> zeros(ty.getRank(), arith::ConstantIndexOp::create(b, loc, 0));
    Value e = tensor::ExtractOp::create(b, loc, *x, zeros);
    auto it = cast<IntegerType>(elem);
    if (!it.isSignless())
      e = UnrealizedConversionCastOp::create(b, loc, b.getIntegerType(it.getWidth()), e)
              .getResult(0);
    if (wantBool) {
      Value zero = arith::ConstantOp::create(b, loc, b.getIntegerAttr(e.getType(), 0));
      return bindScalar(n, b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, e, zero));
    }
    bool zeroExtend = it.getWidth() == 1 || it.isUnsigned();
    if (it.getWidth() < 64)
      e = zeroExtend ? arith::ExtUIOp::create(b, loc, b.getI64Type(), e).getResult()
                     : arith::ExtSIOp::create(b, loc, b.getI64Type(), e).getResult();
    return bindScalar(n, arith::IndexCastOp::create(b, loc, b.getIndexType(), e));
  };
  // Tensor.item() in the default IR is the composite over _local_scalar_dense
  // (native_functions.yaml): the same read.
  h["torch.ops.aten.item.default"] = h["torch.ops.aten._local_scalar_dense.default"];
  // Strides of kiln's values are row-major: the product of the later sizes.
  h["torch.ops.aten.sym_stride.int"] = [&g, &b, bindScalar](const Object &n,
                                                            Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    KILN_TRY(dim, g.intArg(n, "dim", std::nullopt, loc));
    int64_t rank = typeOf(*x).getRank(), d = normDim(*dim, rank);
    if (!recordedContiguous(g, argName(g, n, "self")))
      return g.fail(loc, "sym_stride of a strided view is not supported");
    Value p = arith::ConstantIndexOp::create(b, loc, 1);
    for (int64_t i = d + 1; i < rank; ++i)
      p = b.createOrFold<arith::MulIOp>(loc, p, dimSize(b, loc, *x, i));
    return bindScalar(n, p);
  };
  h["torch.ops.aten.sym_storage_offset.default"] = [&g, &b, bindScalar](
                                                       const Object &n,
                                                       Location loc) -> LogicalResult {
    if (!recordedContiguous(g, argName(g, n, "self")))
      return g.fail(loc, "sym_storage_offset of a strided view is not supported");
    return bindScalar(n, arith::ConstantIndexOp::create(b, loc, 0));
  };
  // Operand i of a Python operator node: an int, a SymInt, a bool, a float.
  auto operand = [&g, &b](const Object &n, size_t i, Location loc) -> FailureOr<Value> {
    const Array *inputs = n.getArray("inputs");
    const Object *in = inputs && inputs->size() > i ? (*inputs)[i].getAsObject() : nullptr;
    const Object *arg = in ? in->getObject("arg") : nullptr;
    if (!arg)
      return ((void)g.fail(loc, "missing operand " + std::to_string(i)), failure());
    if (auto v = arg->getBoolean("as_bool"))
      return arith::ConstantIntOp::create(b, loc, *v, 1).getResult();
    if (auto v = arg->getNumber("as_float"); v && !arg->getInteger("as_int"))
      return arith::ConstantFloatOp::create(b, loc, b.getF64Type(), APFloat(*v)).getResult();
    for (StringRef kind : {"as_sym_bool", "as_sym_float"})
      if (const Object *s = arg->getObject(kind)) {
        auto it = g.values.find(s->getString("as_name").value_or(""));
        if (it == g.values.end())
          return ((void)g.fail(loc, "operand " + std::to_string(i) + " is undefined"), failure());
        return it->second;
      }
    return g.symIntValue(*arg, "operand " + std::to_string(i), loc);
  };
  using BinFn = std::function<Value(OpBuilder &, Location, Value, Value)>;
  auto binary = [&b, operand, bindScalar](const Object &n, Location loc,
                                              BinFn fn) -> LogicalResult {
    KILN_TRY(x, operand(n, 0, loc));
    KILN_TRY(y, operand(n, 1, loc));
    Value a = *x, c = *y;
    // Mixed int/float arithmetic is float arithmetic (Python's rules).
    if (isa<FloatType>(a.getType()) != isa<FloatType>(c.getType())) {
      auto toF = [&](Value v) -> Value {
        if (isa<FloatType>(v.getType()))
          return v;
        Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), v);
        return arith::SIToFPOp::create(b, loc, b.getF64Type(), i64);
      };
      a = toF(a);
      c = toF(c);
    }
    return bindScalar(n, fn(b, loc, a, c));
  };
  auto intOrFloat = [](auto intOp, auto floatOp) -> BinFn {
    return [=](OpBuilder &b, Location loc, Value x, Value y) -> Value {
      if (isa<FloatType>(x.getType()))
        return floatOp(b, loc, x, y);
      return intOp(b, loc, x, y);
    };
  };
  auto reg = [&h, binary](StringRef target, BinFn fn) {
    h[target] = [binary, fn](const Object &n, Location loc) { return binary(n, loc, fn); };
  };
  // +, -, *: one arith op for ints (folded where both are constants), one for floats.
  auto plain = [intOrFloat](auto intTag, auto floatTag) -> BinFn {
    using IntOp = typename decltype(intTag)::type;
    using FloatOp = typename decltype(floatTag)::type;
    return intOrFloat(
        [](OpBuilder &b, Location l, Value x, Value y) -> Value { return b.createOrFold<IntOp>(l, x, y); },
        [](OpBuilder &b, Location l, Value x, Value y) -> Value { return FloatOp::create(b, l, x, y); });
  };
  reg("_operator.add", plain(OpTag<arith::AddIOp>{}, OpTag<arith::AddFOp>{}));
  reg("_operator.sub", plain(OpTag<arith::SubIOp>{}, OpTag<arith::SubFOp>{}));
  reg("_operator.mul", plain(OpTag<arith::MulIOp>{}, OpTag<arith::MulFOp>{}));
  // Python's // and % round towards negative infinity.
  reg("_operator.floordiv", intOrFloat(
                                [](OpBuilder &b, Location l, Value x, Value y) -> Value {
                                  return b.createOrFold<arith::FloorDivSIOp>(l, x, y);
                                },
                                [](OpBuilder &b, Location l, Value x, Value y) -> Value {
                                  return math::FloorOp::create(
                                      b, l, arith::DivFOp::create(b, l, x, y));
                                }));
  reg("_operator.mod", intOrFloat(
                           [](OpBuilder &b, Location l, Value x, Value y) -> Value {
                             // x - floordiv(x, y) * y
                             Value q = b.createOrFold<arith::FloorDivSIOp>(l, x, y);
                             return b.createOrFold<arith::SubIOp>(
                                 l, x, b.createOrFold<arith::MulIOp>(l, q, y));
                           },
                           [](OpBuilder &b, Location l, Value x, Value y) -> Value {
                             Value q = math::FloorOp::create(b, l, arith::DivFOp::create(b, l, x, y));
                             return arith::SubFOp::create(b, l, x, arith::MulFOp::create(b, l, q, y));
                           }));
  reg("_operator.truediv", [](OpBuilder &b, Location l, Value x, Value y) -> Value {
    auto toF = [&](Value v) -> Value {
      if (isa<FloatType>(v.getType()))
        return v;
      return arith::SIToFPOp::create(b, l, b.getF64Type(),
                                     arith::IndexCastOp::create(b, l, b.getI64Type(), v));
    };
    return arith::DivFOp::create(b, l, toF(x), toF(y));
  });
  for (StringRef t : {"torch.sym_max", "builtins.max"})
    reg(t, intOrFloat(
               [](OpBuilder &b, Location l, Value x, Value y) -> Value {
                 return b.createOrFold<arith::MaxSIOp>(l, x, y);
               },
               [](OpBuilder &b, Location l, Value x, Value y) -> Value {
                 return arith::MaximumFOp::create(b, l, x, y);
               }));
  for (StringRef t : {"torch.sym_min", "builtins.min"})
    reg(t, intOrFloat(
               [](OpBuilder &b, Location l, Value x, Value y) -> Value {
                 return b.createOrFold<arith::MinSIOp>(l, x, y);
               },
               [](OpBuilder &b, Location l, Value x, Value y) -> Value {
                 return arith::MinimumFOp::create(b, l, x, y);
               }));
  // Comparisons (SymBool), used by export's own assertions.
  auto cmp = [](arith::CmpIPredicate ip, arith::CmpFPredicate fp) -> BinFn {
    return [=](OpBuilder &b, Location l, Value x, Value y) -> Value {
      if (isa<FloatType>(x.getType()))
        return arith::CmpFOp::create(b, l, fp, x, y);
      return arith::CmpIOp::create(b, l, ip, x, y);
    };
  };
  reg("_operator.eq", cmp(arith::CmpIPredicate::eq, arith::CmpFPredicate::OEQ));
  reg("_operator.ne", cmp(arith::CmpIPredicate::ne, arith::CmpFPredicate::UNE));
  reg("_operator.lt", cmp(arith::CmpIPredicate::slt, arith::CmpFPredicate::OLT));
  reg("_operator.le", cmp(arith::CmpIPredicate::sle, arith::CmpFPredicate::OLE));
  reg("_operator.gt", cmp(arith::CmpIPredicate::sgt, arith::CmpFPredicate::OGT));
  reg("_operator.ge", cmp(arith::CmpIPredicate::sge, arith::CmpFPredicate::OGE));
  reg("_operator.and_", [](OpBuilder &b, Location l, Value x, Value y) -> Value {
    return arith::AndIOp::create(b, l, x, y);
  });
  reg("_operator.or_", [](OpBuilder &b, Location l, Value x, Value y) -> Value {
    return arith::OrIOp::create(b, l, x, y);
  });
  auto unary = [&h, operand, bindScalar](StringRef target,
                                             std::function<Value(Value, Location)> fn) {
    h[target] = [operand, bindScalar, fn](const Object &n, Location loc) -> LogicalResult {
      KILN_TRY(x, operand(n, 0, loc));
      return bindScalar(n, fn(*x, loc));
    };
  };
  unary("_operator.neg", [&b](Value x, Location l) -> Value {
    if (isa<FloatType>(x.getType()))
      return arith::NegFOp::create(b, l, x);
    return b.createOrFold<arith::SubIOp>(l, arith::ConstantIndexOp::create(b, l, 0), x);
  });
  unary("_operator.not_", [&b](Value x, Location l) -> Value {
    return arith::XOrIOp::create(b, l, x, arith::ConstantIntOp::create(b, l, 1, 1));
  });
  unary("torch.sym_not", [&b](Value x, Location l) -> Value {
    return arith::XOrIOp::create(b, l, x, arith::ConstantIntOp::create(b, l, 1, 1));
  });
  unary("torch.sym_float", [&b](Value x, Location l) -> Value {
    if (isa<FloatType>(x.getType()))
      return x;
    return arith::SIToFPOp::create(b, l, b.getF64Type(),
                                   arith::IndexCastOp::create(b, l, b.getI64Type(), x));
  });
  // float -> int conversions (trunc for int(), floor/ceil for math.*).
  auto toIndex = [&b](Value f, Location l) -> Value {
    return arith::IndexCastOp::create(b, l, b.getIndexType(),
                                      arith::FPToSIOp::create(b, l, b.getI64Type(), f));
  };
  for (StringRef t : {"torch.sym_int", "builtins.int"})
    unary(t, [toIndex](Value x, Location l) -> Value {
      return isa<FloatType>(x.getType()) ? toIndex(x, l) : x;
    });
  unary("math.floor", [&b, toIndex](Value x, Location l) -> Value {
    return isa<FloatType>(x.getType()) ? toIndex(math::FloorOp::create(b, l, x), l) : x;
  });
  unary("math.ceil", [&b, toIndex](Value x, Location l) -> Value {
    return isa<FloatType>(x.getType()) ? toIndex(math::CeilOp::create(b, l, x), l) : x;
  });
}

} // namespace kiln::importer
