//===- Ops/Random.cpp - import handlers: random numbers and dropout -------===//
//
// rand, randn (and their _like forms), randint, bernoulli, native_dropout and
// dropout in training mode become aten.random (Philox numbers from the
// program's generator state, an argument of kind `rng` that the importer adds
// on first use) and the elementwise ops that shape them as ATen does: a
// comparison for bernoulli and dropout's mask, input * mask * 1/(1-p) for
// dropout's output. The backward of dropout multiplies by the same mask value.
// The other random ops (normal, randperm, multinomial, rrelu, ...) are refused
// by name.
//
//===----------------------------------------------------------------------===//
#include "ShapeUtils.h"
#include "ATen/IR/ATenRandomOps.h"
#include "ATen/IR/AttrNames.h"
#include "kiln/abi/model_format.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace kiln::importer {

using namespace kiln::aten;
using shape::sizesOf;

namespace {

/// A 0-d constant of element type `elem`.
Value scalar(GraphImporter &g, Location loc, Type elem, double v) {
  Attribute a = isa<FloatType>(elem) ? Attribute(g.b.getFloatAttr(elem, v))
                                     : Attribute(g.b.getIntegerAttr(elem, (int64_t)v));
  return FullOp::create(g.b, loc, RankedTensorType::get({}, elem), ValueRange{},
                        g.b.getDenseI64ArrayAttr({}), cast<TypedAttr>(a));
}

/// The function the importer is building (where its insertion point is).
func::FuncOp entryOf(GraphImporter &g) {
  Block *block = g.b.getInsertionBlock();
  Operation *parent = block ? block->getParentOp() : nullptr;
  if (!parent)
    return {};
  if (auto f = dyn_cast<func::FuncOp>(parent))
    return f;
  return parent->getParentOfType<func::FuncOp>();
}

/// The program's generator state, a tensor<2xi64> [seed, offset]: the entry
/// argument of kind `rng` (model_format.h), added by the first random op.
FailureOr<Value> rngState(GraphImporter &g, Location loc) {
  func::FuncOp f = entryOf(g);
  if (!f)
    return ((void)g.fail(loc, "a random op outside the program's body"), failure());
  for (unsigned i = 0; i < f.getNumArguments(); ++i)
    if (auto k = f.getArgAttrOfType<StringAttr>(i, kiln::attrs::kKind); k && k.getValue() == KILN_ARG_KIND_RNG)
      return f.getArgument(i);
  unsigned idx = f.getNumArguments();
  auto ty = RankedTensorType::get({2}, g.b.getI64Type());
  NamedAttribute attrs[] = {
      g.b.getNamedAttr(kiln::attrs::kKind, g.b.getStringAttr(KILN_ARG_KIND_RNG)),
      g.b.getNamedAttr(kiln::attrs::kName, g.b.getStringAttr(KILN_RNG_STATE_NAME)),
      g.b.getNamedAttr(kiln::attrs::kDims, g.b.getArrayAttr({g.b.getI64IntegerAttr(2)})),
      g.b.getNamedAttr("bufferization.writable", g.b.getBoolAttr(false))};
  if (failed(f.insertArgument(idx, ty, g.b.getDictionaryAttr(attrs), g.archiveLoc)))
    return ((void)g.fail(loc, "cannot add the generator state argument"), failure());
  return f.getArgument(idx);
}

/// The next random op's `stream`: one more than the random ops imported so far.
int64_t nextStream(GraphImporter &g) {
  int64_t n = 0;
  if (func::FuncOp f = entryOf(g))
    f.walk([&](RandomOp) { ++n; });
  return n;
}

/// aten.random of `type` (a float tensor type with the given sizes).
FailureOr<Value> draw(GraphImporter &g, Location loc, RankedTensorType type,
                      ArrayRef<int64_t> statics, ValueRange dynamic, StringRef distribution) {
  FailureOr<Value> state = rngState(g, loc);
  if (failed(state))
    return failure();
  return RandomOp::create(g.b, loc, type, *state, dynamic, g.b.getDenseI64ArrayAttr(statics),
                          g.b.getStringAttr(distribution), g.b.getI64IntegerAttr(nextStream(g)))
      .getResult();
}

/// Binds the node's tensor outputs to `values`, in order.
LogicalResult bindValues(GraphImporter &g, const Object &n, Location loc, ArrayRef<Value> values) {
  SmallVector<std::string> outs = g.outputNames(n);
  if (outs.size() != values.size())
    return g.fail(loc, "expected " + std::to_string(values.size()) + " tensor results, the node names " +
                           std::to_string(outs.size()));
  for (auto [name, v] : llvm::zip(outs, values))
    if (!name.empty())
      g.varOf[name] = g.newVar(v);
  return success();
}

/// The sizes a random op draws: its `size` argument, or with `like` the sizes
/// of its `self` tensor (the _like forms).
LogicalResult drawnSizes(GraphImporter &g, const Object &n, bool like, Location loc,
                         SmallVector<int64_t> &statics, SmallVector<Value> &dynamic) {
  if (!like)
    return g.symIntsArg(n, "size", statics, dynamic, loc);
  KILN_TRY(x, g.tensorArg(n, "self", loc));
  sizesOf(g, *x, loc, statics, dynamic);
  return success();
}

/// rand/randn (sizes from `size`) and rand_like/randn_like (sizes of `self`):
/// the node's result type decides the dtype.
GraphImporter::Handler drawHandler(GraphImporter &g, bool like, StringRef distribution) {
  std::string dist = distribution.str();
  return [&g, like, dist](const Object &n, Location loc) -> LogicalResult {
    SmallVector<int64_t> statics;
    SmallVector<Value> dynamic;
    if (failed(drawnSizes(g, n, like, loc, statics, dynamic)))
      return failure();
    KILN_TRY(rty, g.firstTensorResult(n, loc));
    if (!isa<FloatType>(rty->getElementType()))
      return g.fail(loc, "aten." + std::string(dist == "normal" ? "randn" : "rand") +
                             " of a non-floating-point dtype is not supported");
    auto ty = RankedTensorType::get(rty->getShape(), rty->getElementType());
    KILN_TRY(r, draw(g, loc, ty, statics, dynamic, dist));
    return bindValues(g, n, loc, {*r});
  };
}

/// Uniform float32 numbers shaped like `x`.
FailureOr<Value> uniformLike(GraphImporter &g, Location loc, Value x) {
  SmallVector<int64_t> statics;
  SmallVector<Value> dynamic;
  sizesOf(g, x, loc, statics, dynamic);
  auto xty = cast<RankedTensorType>(x.getType());
  Type elem = isa<FloatType>(xty.getElementType()) && xty.getElementType().getIntOrFloatBitWidth() == 64
                  ? (Type)g.b.getF64Type()
                  : (Type)g.b.getF32Type();
  return draw(g, loc, RankedTensorType::get(xty.getShape(), elem), statics, dynamic, "uniform");
}

/// `u < p` (p a 0-d tensor or a number) converted to the result type.
LogicalResult bernoulli(GraphImporter &g, const Object &n, Location loc, Value x, Value p) {
  KILN_TRY(u, uniformLike(g, loc, x));
  auto uty = cast<RankedTensorType>(u->getType());
  auto boolTy = RankedTensorType::get(uty.getShape(), g.b.getI1Type());
  Value keep = LtTensorOp::create(g.b, loc, boolTy, *u, p);
  KILN_TRY(rty, g.firstTensorResult(n, loc));
  Value r = ToCopyOp::create(g.b, loc, RankedTensorType::get(uty.getShape(), rty->getElementType()), keep);
  return bindValues(g, n, loc, {r});
}

/// native_dropout(x, p, train): (x * mask * 1/(1-p), mask) with mask = u >= p,
/// so each element is kept with probability 1 - p; out of training, (x, ones).
FailureOr<std::pair<Value, Value>> dropout(GraphImporter &g, Location loc, Value x, double p, bool train) {
  auto xty = cast<RankedTensorType>(x.getType());
  if (!isa<FloatType>(xty.getElementType()))
    return ((void)g.fail(loc, "dropout of a non-floating-point tensor"), failure());
  if (p < 0 || p > 1)
    return ((void)g.fail(loc, "dropout probability has to be between 0 and 1, but got " + std::to_string(p)),
            failure());
  auto boolTy = RankedTensorType::get(xty.getShape(), g.b.getI1Type());
  SmallVector<int64_t> statics;
  SmallVector<Value> dynamic;
  if (!train || p == 0) {
    sizesOf(g, x, loc, statics, dynamic);
    Value ones = FullOp::create(g.b, loc, boolTy, dynamic, g.b.getDenseI64ArrayAttr(statics),
                                cast<TypedAttr>(g.b.getBoolAttr(true)));
    return std::make_pair(x, ones);
  }
  Type elem = xty.getElementType();
  if (p == 1) {
    // ATen: all dropped, the output is x * 0 (NaN stays NaN).
    sizesOf(g, x, loc, statics, dynamic);
    Value zeros = FullOp::create(g.b, loc, boolTy, dynamic, g.b.getDenseI64ArrayAttr(statics),
                                 cast<TypedAttr>(g.b.getBoolAttr(false)));
    Value out = MulTensorOp::create(g.b, loc, xty, x, scalar(g, loc, elem, 0.0));
    return std::make_pair(out, zeros);
  }
  FailureOr<Value> u = uniformLike(g, loc, x);
  if (failed(u))
    return failure();
  Type uElem = cast<RankedTensorType>(u->getType()).getElementType();
  Value mask = GeTensorOp::create(g.b, loc, boolTy, *u, scalar(g, loc, uElem, p));
  Value kept = MulTensorOp::create(g.b, loc, xty, x, mask);
  Value out = MulTensorOp::create(g.b, loc, xty, kept, scalar(g, loc, elem, 1.0 / (1.0 - p)));
  return std::make_pair(out, mask);
}

} // namespace

void registerRandomHandlers(GraphImporter &g) {
  auto &h = g.handlers;
  const std::string aten = "torch.ops.aten.";
  for (const char *t : {"rand.default", "rand.generator"})
    h[aten + t] = drawHandler(g, false, "uniform");
  for (const char *t : {"randn.default", "randn.generator"})
    h[aten + t] = drawHandler(g, false, "normal");
  h[aten + "rand_like.default"] = drawHandler(g, true, "uniform");
  h[aten + "randn_like.default"] = drawHandler(g, true, "normal");

  // randint(low, high, size): low + floor(u * (high - low)), u uniform in float64.
  auto randint = [&g](const Object &n, Location loc, bool like, bool hasLow) -> LogicalResult {
    KILN_TRY(low, hasLow ? g.intArg(n, "low", 0, loc) : FailureOr<int64_t>(0));
    KILN_TRY(high, g.intArg(n, "high", std::nullopt, loc));
    if (*high <= *low)
      return g.fail(loc, "random_ expects 'from' to be less than 'to', but got from=" + std::to_string(*low) +
                             " >= to=" + std::to_string(*high));
    SmallVector<int64_t> statics;
    SmallVector<Value> dynamic;
    if (failed(drawnSizes(g, n, like, loc, statics, dynamic)))
      return failure();
    KILN_TRY(rty, g.firstTensorResult(n, loc));
    auto f64 = RankedTensorType::get(rty->getShape(), g.b.getF64Type());
    KILN_TRY(u, draw(g, loc, f64, statics, dynamic, "uniform"));
    Value scaled = MulTensorOp::create(g.b, loc, f64, *u, scalar(g, loc, g.b.getF64Type(), double(*high - *low)));
    Value fl = FloorOp::create(g.b, loc, f64, scaled);
    Value shifted = AddTensorOp::create(g.b, loc, f64, fl, scalar(g, loc, g.b.getF64Type(), double(*low)),
                                        g.b.getF64FloatAttr(1.0));
    Value r = ToCopyOp::create(g.b, loc, RankedTensorType::get(rty->getShape(), rty->getElementType()), shifted);
    return bindValues(g, n, loc, {r});
  };
  h[aten + "randint.default"] = [randint](const Object &n, Location loc) { return randint(n, loc, false, false); };
  h[aten + "randint.low"] = [randint](const Object &n, Location loc) { return randint(n, loc, false, true); };
  h[aten + "randint_like.default"] = [randint](const Object &n, Location loc) {
    return randint(n, loc, true, false);
  };
  h[aten + "randint_like.low_dtype"] = [randint](const Object &n, Location loc) {
    return randint(n, loc, true, true);
  };

  h[aten + "bernoulli.default"] = [&g](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    return bernoulli(g, n, loc, *x, *x);
  };
  h[aten + "bernoulli.p"] = [&g](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    KILN_TRY(p, g.floatArg(n, "p", 0.5, loc));
    Type elem = cast<RankedTensorType>(x->getType()).getElementType();
    return bernoulli(g, n, loc, *x, scalar(g, loc, elem.getIntOrFloatBitWidth() == 64 ? elem : g.b.getF32Type(), *p));
  };

  h[aten + "native_dropout.default"] = [&g](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "input", loc));
    KILN_TRY(p, g.floatArg(n, "p", std::nullopt, loc));
    bool train = true;
    if (!g.isNone(n, "train")) {
      KILN_TRY(t, g.boolArg(n, "train", true, loc));
      train = *t;
    }
    KILN_TRY(r, dropout(g, loc, *x, *p, train));
    return bindValues(g, n, loc, {r->first, r->second});
  };
  // dropout(input, p, train); dropout_ writes its result into `self`.
  for (bool inPlace : {false, true}) {
    h[aten + (inPlace ? "dropout_.default" : "dropout.default")] = [&g, inPlace](const Object &n,
                                                                                 Location loc) -> LogicalResult {
      StringRef arg = inPlace ? "self" : "input";
      KILN_TRY(var, g.varOfArg(n, arg, loc));
      KILN_TRY(p, g.floatArg(n, "p", std::nullopt, loc));
      KILN_TRY(train, g.boolArg(n, "train", std::nullopt, loc));
      SmallVector<std::string> outs = g.outputNames(n);
      if (outs.size() != 1 || outs[0].empty())
        return g.fail(loc, "expected one tensor result");
      if (!*train) {  // in inference, the input itself
        g.varOf[outs[0]] = *var;
        return success();
      }
      KILN_TRY(r, dropout(g, loc, g.readVar(*var), *p, true));
      if (inPlace) {
        g.writeVar(*var, r->first);
        g.varOf[outs[0]] = *var;
      } else {
        g.varOf[outs[0]] = g.newVar(r->first);
      }
      return success();
    };
  }

  for (const char *t :
       {"randperm.default", "normal.Tensor_Tensor", "normal.Tensor_float", "normal.float_Tensor",
        "normal.float_float", "normal_functional.default", "uniform.default", "exponential.default",
        "geometric.default", "log_normal.default", "cauchy.default", "multinomial.default",
        "poisson.default", "rrelu_with_noise.default", "rrelu_with_noise_functional.default",
        "rrelu.default", "bernoulli.Tensor"}) {
    std::string name = t;
    h[aten + t] = [&g, name](const Object &n, Location loc) {
      return g.fail(loc, "random op 'aten." + name + "' (node '" + n.getString("name").value_or("").str() +
                             "') is not supported: kiln compiles rand, randn, randint, bernoulli and "
                             "dropout; pass other random tensors as inputs");
    };
  }
}

} // namespace kiln::importer
