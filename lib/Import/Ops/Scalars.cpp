//===- Ops/Scalars.cpp - Python numbers in node arguments -----------------===//
#include "Scalars.h"

#include "ATen/IR/ATenTypePromotion.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/APFloat.h"

#include <cmath>

namespace kiln::importer {

Type ScalarArg::promotionType(MLIRContext *ctx) const {
  Builder b(ctx);
  switch (kind) {
  case Bool: return b.getI1Type();
  case Int: return b.getI64Type();
  case Float: return b.getF32Type();
  }
  return {};
}

/// A number written by torch's serializer: a JSON number or one of the
/// strings it uses for non-finite floats.
static std::optional<double> jsonFloat(const json::Value *v) {
  if (!v)
    return std::nullopt;
  if (auto d = v->getAsNumber())
    return *d;
  if (auto s = v->getAsString()) {
    if (*s == "NaN" || *s == "nan")
      return NAN;
    if (*s == "Infinity" || *s == "inf")
      return INFINITY;
    if (*s == "-Infinity" || *s == "-inf")
      return -INFINITY;
  }
  return std::nullopt;
}

bool isScalarArg(GraphImporter &g, const Object &node, StringRef name) {
  const Object *arg = g.argOf(node, name);
  return arg && (arg->get("as_int") || arg->get("as_float") || arg->get("as_bool") ||
                 arg->get("as_sym_int") || arg->get("as_scalar"));
}

static FailureOr<ScalarArg> parseScalar(GraphImporter &g, const Object &arg, StringRef name,
                                        Location loc) {
  ScalarArg s;
  if (auto v = arg.getBoolean("as_bool")) {
    s.kind = ScalarArg::Bool, s.i = *v;
    return s;
  }
  if (auto v = arg.getInteger("as_int")) {
    s.kind = ScalarArg::Int, s.i = *v;
    return s;
  }
  if (auto v = jsonFloat(arg.get("as_float"))) {
    s.kind = ScalarArg::Float, s.f = *v;
    return s;
  }
  if (const Object *sym = arg.getObject("as_sym_int")) {
    s.kind = ScalarArg::Int;
    if (auto v = sym->getInteger("as_int")) {
      s.i = *v;
      return s;
    }
    std::optional<StringRef> ref = sym->getString("as_name");
    auto it = ref ? g.values.find(*ref) : g.values.end();
    if (it == g.values.end())
      return ((void)g.fail(loc, "argument '" + name + "' uses an unknown symbolic int"), failure());
    s.sym = it->second;
    return s;
  }
  if (const Object *inner = arg.getObject("as_scalar")) // older writers
    return parseScalar(g, *inner, name, loc);
  if (arg.get("as_sym_float") || arg.get("as_sym_bool"))
    return ((void)g.fail(loc, "argument '" + name +
                            "' is a symbolic float or bool, which kiln does not support"),
            failure());
  return ((void)g.fail(loc, "expected a number for argument '" + name + "'"), failure());
}

FailureOr<ScalarArg> scalarArg(GraphImporter &g, const Object &node, StringRef name,
                               Location loc, std::optional<ScalarArg> dflt) {
  const Object *arg = g.argOf(node, name);
  if ((!arg || arg->get("as_none")) && dflt)
    return *dflt;
  if (!arg)
    return ((void)g.fail(loc, "missing argument '" + name + "'"), failure());
  return parseScalar(g, *arg, name, loc);
}

FailureOr<TypedAttr> scalarAttr(GraphImporter &g, const ScalarArg &s, Type dtype, Location loc) {
  if (s.sym)
    return ((void)g.fail(loc, "a symbolic number cannot be a constant here"), failure());
  if (auto ft = dyn_cast<FloatType>(dtype)) {
    bool lost;
    llvm::APFloat v(s.asDouble());
    // c10 converts a double to a 16-bit float through float32.
    if (ft.getWidth() == 16)
      v.convert(llvm::APFloat::IEEEsingle(), llvm::APFloat::rmNearestTiesToEven, &lost);
    v.convert(ft.getFloatSemantics(), llvm::APFloat::rmNearestTiesToEven, &lost);
    return TypedAttr(FloatAttr::get(dtype, v));
  }
  auto it = dyn_cast<IntegerType>(dtype);
  if (!it)
    return ((void)g.fail(loc, "cannot make a constant of type " + aten::dtypeName(dtype)), failure());
  if (it.getWidth() == 1) {
    bool nonzero = s.kind == ScalarArg::Float ? s.f != 0 : s.i != 0;
    return TypedAttr(IntegerAttr::get(dtype, APInt(1, nonzero)));
  }
  int64_t v = s.i;
  if (s.kind == ScalarArg::Float) // truncation; NaN and out-of-range as x86 gives them
    v = (std::isnan(s.f) || std::fabs(s.f) >= 9.2233720368547758e18) ? INT64_MIN
                                                                     : (int64_t)s.f;
  return TypedAttr(IntegerAttr::get(dtype, APInt(64, v, /*isSigned=*/true).trunc(it.getWidth())));
}

FailureOr<Value> scalarTensor(GraphImporter &g, const ScalarArg &s, Type dtype, Location loc) {
  auto type = RankedTensorType::get({}, dtype);
  if (s.sym) {
    Value i64 = arith::IndexCastOp::create(g.b, loc, g.b.getI64Type(), s.sym);
    Value t = tensor::FromElementsOp::create(g.b, loc, RankedTensorType::get({}, i64.getType()),
                                             ValueRange{i64});
    if (dtype.isInteger(64))
      return t;
    return Value(aten::ToCopyOp::create(g.b, loc, type, t));
  }
  auto attr = scalarAttr(g, s, dtype, loc);
  if (failed(attr))
    return failure();
  // arith.constant holds signless integers only: uint8 goes through aten.full.
  if (dtype.isUnsignedInteger())
    return Value(aten::FullOp::create(g.b, loc, type, ValueRange{},
                                      g.b.getDenseI64ArrayAttr({}), *attr));
  return Value(arith::ConstantOp::create(
      g.b, loc, DenseElementsAttr::get(type, ArrayRef<Attribute>{Attribute(*attr)})));
}

FailureOr<OperandArg> operandArg(GraphImporter &g, const Object &node, StringRef name,
                                 Location loc) {
  const Object *arg = g.argOf(node, name);
  if (!arg)
    return ((void)g.fail(loc, "missing argument '" + name + "'"), failure());
  OperandArg o;
  if (arg->getObject("as_tensor") || arg->getObject("as_optional_tensor")) {
    auto t = g.tensorArg(node, name, loc);
    if (failed(t))
      return failure();
    o.tensor = *t;
    return o;
  }
  auto s = parseScalar(g, *arg, name, loc);
  if (failed(s))
    return failure();
  o.scalar = *s;
  return o;
}

} // namespace kiln::importer
