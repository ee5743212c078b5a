//===- Ops/Elementwise.cpp - import handlers: elementwise ops ---------------===//
//
// One generic handler, configured per ATen overload by the tables below: it
// reads the schema arguments that take part in type promotion (tensors or
// Python numbers), turns numbers into 0-d constants of the dtype PyTorch
// computes them in, reads the op's literal attributes and emits the op.
// ATen's `.Scalar`, `.Scalar_Tensor` and operator (`__and__`) overloads map to
// the op of the `.Tensor` overload.
//
//===----------------------------------------------------------------------===//
#include "Scalars.h"

#include "ATen/IR/ATenTypePromotion.h"

namespace kiln::importer {

using namespace kiln::aten;

namespace {

/// Which dtype Python numbers take (mirrors the ops' promotion kinds).
enum class Promo {
  Same,       // the result dtype
  IntToFloat, // the result dtype if the promoted dtype is a float, else the promoted one
  Bool,       // the promoted dtype (the result is bool)
  KeepSelf,   // the dtype of the first operand
};

/// Reads literal attributes of a node into `attrs`.
using AttrFn =
    std::function<LogicalResult(const Object &, Location, SmallVector<NamedAttribute> &)>;

/// Python numbers among `ops` as 0-d constants of their computation dtype.
FailureOr<SmallVector<Value>> materialize(GraphImporter &g, ArrayRef<OperandArg> ops, Promo p,
                                          Type resultDType, Location loc) {
  SmallVector<Type> dims, zeros, scalars;
  for (const OperandArg &o : ops) {
    if (o.tensor) {
      auto t = cast<RankedTensorType>(o.tensor.getType());
      (t.getRank() ? dims : zeros).push_back(t.getElementType());
    } else {
      scalars.push_back(o.scalar->promotionType(&g.ctx));
    }
  }
  Type promoted = resultType(dims, zeros, scalars);
  Type dt = promoted;
  switch (p) {
  case Promo::Same:
    dt = resultDType;
    break;
  case Promo::IntToFloat:
    dt = categoryOf(promoted) == DTypeCategory::Float ? resultDType : promoted;
    break;
  case Promo::Bool:
    break;
  case Promo::KeepSelf:
    if (!ops.front().tensor)
      return ((void)g.fail(loc, "expected a tensor for argument 'self'"), failure());
    dt = cast<RankedTensorType>(ops.front().tensor.getType()).getElementType();
    break;
  }
  SmallVector<Value> values;
  for (const OperandArg &o : ops) {
    if (o.tensor) {
      values.push_back(o.tensor);
      continue;
    }
    auto v = scalarTensor(g, *o.scalar, dt, loc);
    if (failed(v))
      return failure();
    values.push_back(*v);
  }
  return values;
}

/// Reads the arguments `names`, materialises numbers and emits OpT.
template <typename OpT>
LogicalResult importElementwise(GraphImporter &g, const Object &n, Location loc,
                                ArrayRef<std::string> names, Promo p, const AttrFn &attrs) {
  SmallVector<OperandArg> ops;
  for (const std::string &name : names) {
    KILN_TRY(o, operandArg(g, n, name, loc));
    ops.push_back(*o);
  }
  KILN_TRY(rty, g.firstTensorResult(n, loc));
  Type rdt = rty->getElementType();
  KILN_TRY(values, materialize(g, ops, p, rdt, loc));
  SmallVector<NamedAttribute> as;
  if (attrs && failed(attrs(n, loc, as)))
    return failure();
  return g.emitOp<OpT>(n, loc, ValueRange(*values), ArrayRef<NamedAttribute>(as));
}

/// Registers `targets` (without the "torch.ops.aten." prefix) for OpT.
template <typename OpT>
void reg(GraphImporter &g, std::initializer_list<const char *> targets,
         std::vector<std::string> names, Promo p, AttrFn attrs = {}) {
  for (const char *t : targets)
    g.handlers[std::string("torch.ops.aten.") + t] = [&g, names, p,
                                                       attrs](const Object &n, Location loc) {
      return importElementwise<OpT>(g, n, loc, names, p, attrs);
    };
}

/// An f64 attribute from a number argument (`dflt` if absent or None).
AttrFn f64Attrs(GraphImporter &g, std::vector<std::pair<std::string, std::optional<double>>> spec,
                std::vector<std::pair<std::string, double>> fixed = {}) {
  return [&g, spec, fixed](const Object &n, Location loc, SmallVector<NamedAttribute> &as) {
    for (auto &[name, dflt] : spec) {
      if (!dflt && g.isNone(n, name))
        continue; // an optional attribute left unset
      std::optional<ScalarArg> d;
      if (dflt)
        d = ScalarArg{ScalarArg::Float, 0, *dflt, {}};
      auto s = scalarArg(g, n, name, loc, d);
      if (failed(s))
        return failure();
      if (s->sym)
        return g.fail(loc, "argument '" + name + "' must be a constant number");
      as.push_back(g.b.getNamedAttr(name, g.b.getF64FloatAttr(s->asDouble())));
    }
    for (auto &[name, v] : fixed)
      as.push_back(g.b.getNamedAttr(name, g.b.getF64FloatAttr(v)));
    return success();
  };
}

const std::vector<std::string> kSelf{"self"};
const std::vector<std::string> kSelfOther{"self", "other"};

void registerUnary(GraphImporter &g) {
  reg<AbsOp>(g, {"abs.default", "absolute.default"}, kSelf, Promo::Same);
  reg<NegOp>(g, {"neg.default", "negative.default"}, kSelf, Promo::Same);
  reg<SignOp>(g, {"sign.default", "sgn.default"}, kSelf, Promo::Same);
  reg<CeilOp>(g, {"ceil.default"}, kSelf, Promo::Same);
  reg<FloorOp>(g, {"floor.default"}, kSelf, Promo::Same);
  reg<RoundOp>(g, {"round.default"}, kSelf, Promo::Same);
  reg<TruncOp>(g, {"trunc.default", "fix.default"}, kSelf, Promo::Same);
  reg<FracOp>(g, {"frac.default"}, kSelf, Promo::Same);
  reg<BitwiseNotOp>(g, {"bitwise_not.default"}, kSelf, Promo::Same);
  reg<RoundDecimalsOp>(g, {"round.decimals"}, kSelf, Promo::Same,
                       [&g](const Object &n, Location loc, SmallVector<NamedAttribute> &as) {
                         KILN_TRY(d, g.intArg(n, "decimals", 0, loc));
                         as.push_back(g.b.getNamedAttr("decimals", g.b.getI64IntegerAttr(*d)));
                         return success();
                       });

  reg<ReciprocalOp>(g, {"reciprocal.default"}, kSelf, Promo::IntToFloat);
  reg<SqrtOp>(g, {"sqrt.default"}, kSelf, Promo::IntToFloat);
  reg<RsqrtOp>(g, {"rsqrt.default"}, kSelf, Promo::IntToFloat);
  reg<ExpOp>(g, {"exp.default"}, kSelf, Promo::IntToFloat);
  reg<Exp2Op>(g, {"exp2.default", "special_exp2.default"}, kSelf, Promo::IntToFloat);
  reg<Expm1Op>(g, {"expm1.default", "special_expm1.default"}, kSelf, Promo::IntToFloat);
  reg<LogOp>(g, {"log.default"}, kSelf, Promo::IntToFloat);
  reg<Log2Op>(g, {"log2.default"}, kSelf, Promo::IntToFloat);
  reg<Log10Op>(g, {"log10.default"}, kSelf, Promo::IntToFloat);
  reg<Log1pOp>(g, {"log1p.default", "special_log1p.default"}, kSelf, Promo::IntToFloat);
  reg<SinOp>(g, {"sin.default"}, kSelf, Promo::IntToFloat);
  reg<CosOp>(g, {"cos.default"}, kSelf, Promo::IntToFloat);
  reg<TanOp>(g, {"tan.default"}, kSelf, Promo::IntToFloat);
  reg<AsinOp>(g, {"asin.default", "arcsin.default"}, kSelf, Promo::IntToFloat);
  reg<AcosOp>(g, {"acos.default", "arccos.default"}, kSelf, Promo::IntToFloat);
  reg<AtanOp>(g, {"atan.default", "arctan.default"}, kSelf, Promo::IntToFloat);
  reg<SinhOp>(g, {"sinh.default"}, kSelf, Promo::IntToFloat);
  reg<CoshOp>(g, {"cosh.default"}, kSelf, Promo::IntToFloat);
  reg<TanhOp>(g, {"tanh.default"}, kSelf, Promo::IntToFloat);
  reg<AsinhOp>(g, {"asinh.default", "arcsinh.default"}, kSelf, Promo::IntToFloat);
  reg<AcoshOp>(g, {"acosh.default", "arccosh.default"}, kSelf, Promo::IntToFloat);
  reg<AtanhOp>(g, {"atanh.default", "arctanh.default"}, kSelf, Promo::IntToFloat);
  reg<ErfOp>(g, {"erf.default", "special_erf.default"}, kSelf, Promo::IntToFloat);
  reg<ErfcOp>(g, {"erfc.default", "special_erfc.default"}, kSelf, Promo::IntToFloat);
  reg<ErfinvOp>(g, {"erfinv.default", "special_erfinv.default"}, kSelf, Promo::IntToFloat);
  reg<SigmoidOp>(g, {"sigmoid.default", "special_expit.default"}, kSelf, Promo::IntToFloat);
  reg<LogitOp>(g, {"logit.default", "special_logit.default"}, kSelf, Promo::IntToFloat,
               f64Attrs(g, {{"eps", std::nullopt}}));

  reg<ReluOp>(g, {"relu.default"}, kSelf, Promo::Same);
  reg<GeluOp>(g, {"gelu.default"}, kSelf, Promo::Same,
              [&g](const Object &n, Location loc, SmallVector<NamedAttribute> &as) {
                KILN_TRY(a, g.stringArg(n, "approximate", std::string("none"), loc));
                as.push_back(g.b.getNamedAttr("approximate", g.b.getStringAttr(*a)));
                return success();
              });
  reg<SiluOp>(g, {"silu.default"}, kSelf, Promo::Same);
  reg<MishOp>(g, {"mish.default"}, kSelf, Promo::Same);
  reg<HardswishOp>(g, {"hardswish.default"}, kSelf, Promo::Same);
  reg<HardsigmoidOp>(g, {"hardsigmoid.default"}, kSelf, Promo::Same);
  reg<LeakyReluOp>(g, {"leaky_relu.default"}, kSelf, Promo::Same,
                   f64Attrs(g, {{"negative_slope", 0.01}}));
  reg<EluOp>(g, {"elu.default"}, kSelf, Promo::Same,
             f64Attrs(g, {{"alpha", 1.0}, {"scale", 1.0}, {"input_scale", 1.0}}));
  // celu(x, alpha) = elu(x, alpha, 1, 1 / alpha); selu is elu with fixed constants.
  reg<EluOp>(g, {"celu.default"}, kSelf, Promo::Same,
             [&g](const Object &n, Location loc, SmallVector<NamedAttribute> &as) {
               KILN_TRY(a, scalarArg(g, n, "alpha", loc, ScalarArg{ScalarArg::Float, 0, 1.0, {}}));
               double alpha = a->asDouble();
               as.push_back(g.b.getNamedAttr("alpha", g.b.getF64FloatAttr(alpha)));
               as.push_back(g.b.getNamedAttr("input_scale", g.b.getF64FloatAttr(1.0 / alpha)));
               return success();
             });
  reg<EluOp>(g, {"selu.default"}, kSelf, Promo::Same,
             f64Attrs(g, {}, {{"alpha", 1.6732632423543772848170429916717},
                              {"scale", 1.0507009873554804934193349852946}}));
  reg<SoftplusOp>(g, {"softplus.default"}, kSelf, Promo::Same,
                  f64Attrs(g, {{"beta", 1.0}, {"threshold", 20.0}}));
  reg<HardtanhOp>(g, {"hardtanh.default"}, kSelf, Promo::Same,
                  f64Attrs(g, {{"min_val", -1.0}, {"max_val", 1.0}}));
  reg<HardtanhOp>(g, {"relu6.default"}, kSelf, Promo::Same,
                  f64Attrs(g, {}, {{"min_val", 0.0}, {"max_val", 6.0}}));
  reg<HardshrinkOp>(g, {"hardshrink.default"}, kSelf, Promo::Same,
                    f64Attrs(g, {{"lambd", 0.5}}));
  reg<SoftshrinkOp>(g, {"softshrink.default"}, kSelf, Promo::Same,
                    f64Attrs(g, {{"lambd", 0.5}}));
  reg<ThresholdOp>(g, {"threshold.default"}, kSelf, Promo::Same,
                   f64Attrs(g, {{"threshold", std::nullopt}, {"value", std::nullopt}}));
  reg<NanToNumOp>(g, {"nan_to_num.default"}, kSelf, Promo::Same,
                  f64Attrs(g, {{"nan", 0.0}, {"posinf", std::nullopt}, {"neginf", std::nullopt}}));

  reg<LogicalNotOp>(g, {"logical_not.default"}, kSelf, Promo::Bool);
  reg<IsnanOp>(g, {"isnan.default"}, kSelf, Promo::Bool);
  reg<IsinfOp>(g, {"isinf.default"}, kSelf, Promo::Bool);
  reg<IsfiniteOp>(g, {"isfinite.default"}, kSelf, Promo::Bool);
  reg<IsposinfOp>(g, {"isposinf.default"}, kSelf, Promo::Bool);
  reg<IsneginfOp>(g, {"isneginf.default"}, kSelf, Promo::Bool);
  reg<SignbitOp>(g, {"signbit.default"}, kSelf, Promo::Bool);
}

void registerBinary(GraphImporter &g) {
  AttrFn alpha = f64Attrs(g, {{"alpha", 1.0}});
  reg<AddTensorOp>(g, {"add.Tensor", "add.Scalar"}, kSelfOther, Promo::Same, alpha);
  reg<SubTensorOp>(g, {"sub.Tensor", "sub.Scalar", "subtract.Tensor", "subtract.Scalar"},
                   kSelfOther, Promo::Same, alpha);
  // rsub(self, other, alpha) = other - alpha * self.
  reg<SubTensorOp>(g, {"rsub.Tensor", "rsub.Scalar"}, {"other", "self"}, Promo::Same, alpha);
  reg<MulTensorOp>(g, {"mul.Tensor", "mul.Scalar", "multiply.Tensor", "multiply.Scalar"},
                   kSelfOther, Promo::Same);
  reg<DivTensorOp>(g, {"div.Tensor", "div.Scalar", "true_divide.Tensor", "true_divide.Scalar",
                       "divide.Tensor", "divide.Scalar"},
                   kSelfOther, Promo::IntToFloat);
  // div with rounding_mode None is true division.
  for (const char *t : {"div.Tensor_mode", "div.Scalar_mode"})
    g.handlers[std::string("torch.ops.aten.") + t] = [&g](const Object &n, Location loc) {
      if (g.isNone(n, "rounding_mode"))
        return importElementwise<DivTensorOp>(g, n, loc, kSelfOther, Promo::IntToFloat, {});
      return importElementwise<DivTensorModeOp>(
          g, n, loc, kSelfOther, Promo::Same,
          [&g](const Object &n, Location loc, SmallVector<NamedAttribute> &as) {
            KILN_TRY(m, g.stringArg(n, "rounding_mode", std::nullopt, loc));
            if (*m != "trunc" && *m != "floor")
              return g.fail(loc, "div: rounding_mode must be 'trunc', 'floor' or None, got '" +
                                     *m + "'");
            as.push_back(g.b.getNamedAttr("rounding_mode", g.b.getStringAttr(*m)));
            return success();
          });
    };
  reg<DivTensorModeOp>(g, {"floor_divide.default", "floor_divide.Scalar"}, kSelfOther,
                       Promo::Same,
                       [&g](const Object &, Location, SmallVector<NamedAttribute> &as) {
                         as.push_back(
                             g.b.getNamedAttr("rounding_mode", g.b.getStringAttr("floor")));
                         return success();
                       });
  reg<FmodTensorOp>(g, {"fmod.Tensor", "fmod.Scalar"}, kSelfOther, Promo::Same);
  reg<RemainderTensorOp>(g, {"remainder.Tensor", "remainder.Scalar", "remainder.Scalar_Tensor"},
                         kSelfOther, Promo::Same);
  reg<PowTensorTensorOp>(g, {"pow.Tensor_Tensor", "pow.Tensor_Scalar", "pow.Scalar"},
                         {"self", "exponent"}, Promo::Same);
  // square(x) = pow(x, 2): a bool input gives int64, as in PyTorch.
  g.handlers["torch.ops.aten.square.default"] = [&g](const Object &n, Location loc) {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    KILN_TRY(rty, g.firstTensorResult(n, loc));
    Type rdt = rty->getElementType();
    KILN_TRY(two, scalarTensor(g, ScalarArg{ScalarArg::Int, 2, 0, {}}, rdt, loc));
    return g.emitOp<PowTensorTensorOp>(n, loc, *x, *two);
  };
  reg<MaximumOp>(g, {"maximum.default", "max.other"}, kSelfOther, Promo::Same);
  reg<MinimumOp>(g, {"minimum.default", "min.other"}, kSelfOther, Promo::Same);
  reg<FmaxOp>(g, {"fmax.default"}, kSelfOther, Promo::Same);
  reg<FminOp>(g, {"fmin.default"}, kSelfOther, Promo::Same);
  reg<Atan2Op>(g, {"atan2.default", "arctan2.default"}, kSelfOther, Promo::IntToFloat);
  reg<HypotOp>(g, {"hypot.default"}, kSelfOther, Promo::Same);
  reg<CopysignTensorOp>(g, {"copysign.Tensor", "copysign.Scalar"}, kSelfOther,
                        Promo::IntToFloat);

  reg<EqTensorOp>(g, {"eq.Tensor", "eq.Scalar"}, kSelfOther, Promo::Bool);
  reg<NeTensorOp>(g, {"ne.Tensor", "ne.Scalar", "not_equal.Tensor", "not_equal.Scalar"},
                  kSelfOther, Promo::Bool);
  reg<LtTensorOp>(g, {"lt.Tensor", "lt.Scalar", "less.Tensor", "less.Scalar"}, kSelfOther,
                  Promo::Bool);
  reg<LeTensorOp>(g, {"le.Tensor", "le.Scalar", "less_equal.Tensor", "less_equal.Scalar"},
                  kSelfOther, Promo::Bool);
  reg<GtTensorOp>(g, {"gt.Tensor", "gt.Scalar", "greater.Tensor", "greater.Scalar"},
                  kSelfOther, Promo::Bool);
  reg<GeTensorOp>(g,
                  {"ge.Tensor", "ge.Scalar", "greater_equal.Tensor", "greater_equal.Scalar"},
                  kSelfOther, Promo::Bool);
  reg<LogicalAndOp>(g, {"logical_and.default"}, kSelfOther, Promo::Bool);
  reg<LogicalOrOp>(g, {"logical_or.default"}, kSelfOther, Promo::Bool);
  reg<LogicalXorOp>(g, {"logical_xor.default"}, kSelfOther, Promo::Bool);

  reg<BitwiseAndTensorOp>(g, {"bitwise_and.Tensor", "bitwise_and.Scalar",
                              "bitwise_and.Scalar_Tensor", "__and__.Tensor", "__and__.Scalar"},
                          kSelfOther, Promo::Same);
  reg<BitwiseOrTensorOp>(g, {"bitwise_or.Tensor", "bitwise_or.Scalar", "bitwise_or.Scalar_Tensor",
                             "__or__.Tensor", "__or__.Scalar"},
                         kSelfOther, Promo::Same);
  reg<BitwiseXorTensorOp>(g, {"bitwise_xor.Tensor", "bitwise_xor.Scalar",
                              "bitwise_xor.Scalar_Tensor", "__xor__.Tensor", "__xor__.Scalar"},
                          kSelfOther, Promo::Same);
  reg<BitwiseLeftShiftTensorOp>(g, {"bitwise_left_shift.Tensor", "bitwise_left_shift.Tensor_Scalar",
                                    "bitwise_left_shift.Scalar_Tensor", "__lshift__.Tensor",
                                    "__lshift__.Scalar"},
                                kSelfOther, Promo::Same);
  reg<BitwiseRightShiftTensorOp>(
      g, {"bitwise_right_shift.Tensor", "bitwise_right_shift.Tensor_Scalar",
          "bitwise_right_shift.Scalar_Tensor", "__rshift__.Tensor", "__rshift__.Scalar"},
      kSelfOther, Promo::Same);
}

void registerTernary(GraphImporter &g) {
  // where(condition, self, other): only self and other promote.
  for (const char *t : {"where.self", "where.ScalarSelf", "where.ScalarOther", "where.Scalar"})
    g.handlers[std::string("torch.ops.aten.") + t] = [&g](const Object &n, Location loc) {
      KILN_TRY(c, g.tensorArg(n, "condition", loc));
      KILN_TRY(a, operandArg(g, n, "self", loc));
      KILN_TRY(o, operandArg(g, n, "other", loc));
      KILN_TRY(rty, g.firstTensorResult(n, loc));
      Type rdt = rty->getElementType();
      KILN_TRY(v, materialize(g, {*a, *o}, Promo::Same, rdt, loc));
      return g.emitOp<WhereSelfOp>(n, loc, *c, (*v)[0], (*v)[1]);
    };
  for (const char *t : {"masked_fill.Scalar", "masked_fill.Tensor"})
    g.handlers[std::string("torch.ops.aten.") + t] = [&g](const Object &n, Location loc) {
      KILN_TRY(self, g.tensorArg(n, "self", loc));
      KILN_TRY(mask, g.tensorArg(n, "mask", loc));
      KILN_TRY(value, operandArg(g, n, "value", loc));
      KILN_TRY(v, materialize(g, {OperandArg{*self, {}}, *value}, Promo::KeepSelf, {}, loc));
      return g.emitOp<MaskedFillTensorOp>(n, loc, *self, *mask, (*v)[1]);
    };
  // clamp and friends: present bounds promote with self. A NaN number as a
  // bound is ignored by ATen's Scalar overload, so it is dropped.
  auto clamp = [&g](const Object &n, Location loc, bool hasMin, bool hasMax) -> LogicalResult {
    KILN_TRY(self, g.tensorArg(n, "self", loc));
    SmallVector<OperandArg> ops{OperandArg{*self, {}}};
    bool present[2] = {false, false};
    const char *names[2] = {"min", "max"};
    bool wanted[2] = {hasMin, hasMax};
    for (int i = 0; i < 2; ++i) {
      if (!wanted[i] || g.isNone(n, names[i]))
        continue;
      KILN_TRY(o, operandArg(g, n, names[i], loc));
      if (o->scalar && o->scalar->kind == ScalarArg::Float && std::isnan(o->scalar->f))
        continue;
      ops.push_back(*o);
      present[i] = true;
    }
    KILN_TRY(rty, g.firstTensorResult(n, loc));
    Type rdt = rty->getElementType();
    KILN_TRY(v, materialize(g, ops, Promo::Same, rdt, loc));
    if (!present[0] && !present[1]) // nothing to clamp against: a conversion
      return g.emitOp<ToCopyOp>(n, loc, *self);
    Value mn = present[0] ? (*v)[1] : Value();
    Value mx = present[1] ? (*v)[present[0] ? 2 : 1] : Value();
    return g.emitOp<ClampTensorOp>(n, loc, *self, mn, mx);
  };
  for (const char *t : {"clamp.default", "clamp.Tensor", "clip.default", "clip.Tensor"})
    g.handlers[std::string("torch.ops.aten.") + t] = [clamp](const Object &n, Location loc) {
      return clamp(n, loc, true, true);
    };
  for (const char *t : {"clamp_min.default", "clamp_min.Tensor"})
    g.handlers[std::string("torch.ops.aten.") + t] = [clamp](const Object &n, Location loc) {
      return clamp(n, loc, true, false);
    };
  for (const char *t : {"clamp_max.default", "clamp_max.Tensor"})
    g.handlers[std::string("torch.ops.aten.") + t] = [clamp](const Object &n, Location loc) {
      return clamp(n, loc, false, true);
    };
  // lerp's Scalar weight stays in float32 for 16-bit floats (ATen computes it
  // in its opmath type); a tensor weight has the dtype of self.
  for (const char *t : {"lerp.Scalar", "lerp.Tensor"})
    g.handlers[std::string("torch.ops.aten.") + t] = [&g](const Object &n, Location loc) {
      KILN_TRY(self, g.tensorArg(n, "self", loc));
      KILN_TRY(end, g.tensorArg(n, "end", loc));
      KILN_TRY(w, operandArg(g, n, "weight", loc));
      Value weight = w->tensor;
      if (!weight) {
        Type dt = cast<RankedTensorType>(self->getType()).getElementType();
        if (isa<FloatType>(dt) && dt.getIntOrFloatBitWidth() == 16)
          dt = g.b.getF32Type();
        KILN_TRY(c, scalarTensor(g, *w->scalar, dt, loc));
        weight = *c;
      }
      return g.emitOp<LerpTensorOp>(n, loc, *self, *end, weight);
    };
  reg<AddcmulOp>(g, {"addcmul.default"}, {"self", "tensor1", "tensor2"}, Promo::Same,
                 f64Attrs(g, {{"value", 1.0}}));
  reg<AddcdivOp>(g, {"addcdiv.default"}, {"self", "tensor1", "tensor2"}, Promo::Same,
                 f64Attrs(g, {{"value", 1.0}}));
}

void registerConversions(GraphImporter &g) {
  // The result type (recorded by export) says the dtype; layout, device,
  // pin_memory, non_blocking and memory_format mean nothing on value tensors.
  for (const char *t : {"_to_copy.default", "to.dtype", "to.dtype_layout", "to.device",
                        "to.other", "type_as.default", "_to_dim_order_copy.default"})
    g.handlers[std::string("torch.ops.aten.") + t] = [&g](const Object &n, Location loc) {
      KILN_TRY(x, g.tensorArg(n, "self", loc));
      return g.emitOp<ToCopyOp>(n, loc, *x);
    };
  // Checks the recorded metadata against the value's type; emits nothing.
  g.handlers["torch.ops.aten._assert_tensor_metadata.default"] = [&g](const Object &n,
                                                                      Location loc) {
    KILN_TRY(a, g.tensorArg(n, "a", loc));
    auto ty = cast<RankedTensorType>(a->getType());
    if (const Object *arg = g.argOf(n, "dtype")) {
      if (auto code = arg->getInteger("as_scalar_type")) {
        Type want = elementTypeFor(&g.ctx, *code);
        if (want != ty.getElementType())
          return g.fail(loc, "_assert_tensor_metadata: the tensor has dtype " +
                                 dtypeName(ty.getElementType()) + ", the graph asserts " +
                                 (want ? dtypeName(want) : "code " + std::to_string(*code)));
      }
    }
    if (!g.isNone(n, "size")) {
      SmallVector<int64_t> statics;
      SmallVector<Value> dynamic;
      if (succeeded(g.symIntsArg(n, "size", statics, dynamic, loc))) {
        bool ok = (int64_t)statics.size() == ty.getRank();
        for (int64_t i = 0; ok && i < ty.getRank(); ++i)
          ok = ShapedType::isDynamic(statics[i]) || ty.isDynamicDim(i) ||
               statics[i] == ty.getDimSize(i);
        if (!ok)
          return g.fail(loc, "_assert_tensor_metadata: the asserted size does not match the "
                             "tensor's shape");
      }
    }
    return success();
  };
}

} // namespace

void registerElementwiseHandlers(GraphImporter &g) {
  registerUnary(g);
  registerBinary(g);
  registerTernary(g);
  registerConversions(g);
}

} // namespace kiln::importer
