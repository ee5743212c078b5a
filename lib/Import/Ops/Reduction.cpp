//===- Ops/Reduction.cpp - import handlers: reductions and scans ------------===//
//
// Overloads that reduce everything (`sum.default`, `max.default`, ...) and
// those with a single dim (`prod.dim_int`, `any.dim`) become the list form of
// their op (no `dim` attribute, or a one-entry list).
//
//===----------------------------------------------------------------------===//
#include "../ImporterImpl.h"

namespace kiln::importer {

void registerReductionHandlers(GraphImporter &g) {
  using namespace kiln::aten;
  auto &h = g.handlers;
  const std::string p = "torch.ops.aten.";

  /// dim as a list attribute: absent/None -> null, an int -> [int], a list as is.
  auto dimsOf = [&g](const Object &n, StringRef name, Location loc)
      -> FailureOr<DenseI64ArrayAttr> {
    if (g.isNone(n, name))
      return DenseI64ArrayAttr();
    auto d = g.intsArg(n, name, std::nullopt, loc);
    if (failed(d))
      return failure();
    return g.b.getDenseI64ArrayAttr(*d);
  };
  auto typeAttr = [](Type t) { return t ? TypeAttr::get(t) : TypeAttr(); };
  // (dim, keepdim) of the overloads that take them; none and false otherwise.
  struct DimsKeep {
    DenseI64ArrayAttr dims;
    bool keep = false;
  };
  auto dimsKeepOf = [&g, dimsOf](const Object &n, Location loc,
                                 bool hasDim) -> FailureOr<DimsKeep> {
    if (!hasDim)
      return DimsKeep{};
    KILN_TRY(d, dimsOf(n, "dim", loc));
    KILN_TRY(k, g.boolArg(n, "keepdim", false, loc));
    return DimsKeep{*d, *k};
  };

  // sum / mean / prod, with an optional dtype.
  auto withDtype = [&g, dimsKeepOf, typeAttr](auto tag, bool hasDim) {
    using OpT = typename decltype(tag)::type;
    return [&g, dimsKeepOf, typeAttr, hasDim](const Object &n, Location loc) -> LogicalResult {
      KILN_TRY(x, g.tensorArg(n, "self", loc));
      KILN_TRY(dk, dimsKeepOf(n, loc, hasDim));
      KILN_TRY(dtype, optDtypeArg(g, n, "dtype", loc));
      return g.emitOp<OpT>(n, loc, *x, dk->dims, dk->keep, typeAttr(*dtype));
    };
  };
  h[p + "sum.default"] = withDtype(OpTag<SumDimIntListOp>(), false);
  h[p + "sum.dim_IntList"] = withDtype(OpTag<SumDimIntListOp>(), true);
  h[p + "mean.default"] = withDtype(OpTag<MeanDimOp>(), false);
  h[p + "mean.dim"] = withDtype(OpTag<MeanDimOp>(), true);
  h[p + "prod.default"] = withDtype(OpTag<ProdDimIntOp>(), false);
  h[p + "prod.dim_int"] = withDtype(OpTag<ProdDimIntOp>(), true);

  // Reductions with (dim, keepdim) only; `dim` may be absent.
  auto plain = [&g, dimsKeepOf](auto tag, bool hasDim) {
    using OpT = typename decltype(tag)::type;
    return [&g, dimsKeepOf, hasDim](const Object &n, Location loc) -> LogicalResult {
      KILN_TRY(x, g.tensorArg(n, "self", loc));
      KILN_TRY(dk, dimsKeepOf(n, loc, hasDim));
      return g.emitOp<OpT>(n, loc, *x, dk->dims, dk->keep);
    };
  };
  h[p + "amax.default"] = plain(OpTag<AmaxOp>(), true);
  h[p + "amin.default"] = plain(OpTag<AminOp>(), true);
  h[p + "max.default"] = plain(OpTag<AmaxOp>(), false);
  h[p + "min.default"] = plain(OpTag<AminOp>(), false);
  h[p + "any.default"] = plain(OpTag<AnyDimsOp>(), false);
  h[p + "any.dim"] = plain(OpTag<AnyDimsOp>(), true);
  h[p + "any.dims"] = plain(OpTag<AnyDimsOp>(), true);
  h[p + "all.default"] = plain(OpTag<AllDimsOp>(), false);
  h[p + "all.dim"] = plain(OpTag<AllDimsOp>(), true);
  h[p + "all.dims"] = plain(OpTag<AllDimsOp>(), true);
  h[p + "logsumexp.default"] = plain(OpTag<LogsumexpOp>(), true);
  h[p + "count_nonzero.dim_IntList"] = [&g, dimsOf](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    KILN_TRY(d, dimsOf(n, "dim", loc));
    return g.emitOp<CountNonzeroOp>(n, loc, *x, *d, false);
  };
  h[p + "count_nonzero.default"] = h[p + "count_nonzero.dim_IntList"];

  // max.dim / min.dim: values and indices.
  auto extremumDim = [&g](auto tag) {
    using OpT = typename decltype(tag)::type;
    return [&g](const Object &n, Location loc) -> LogicalResult {
      KILN_TRY(x, g.tensorArg(n, "self", loc));
      KILN_TRY(d, g.intArg(n, "dim", std::nullopt, loc));
      KILN_TRY(k, g.boolArg(n, "keepdim", false, loc));
      return g.emitOp<OpT>(n, loc, *x, *d, *k);
    };
  };
  h[p + "max.dim"] = extremumDim(OpTag<MaxDimOp>());
  h[p + "min.dim"] = extremumDim(OpTag<MinDimOp>());

  auto argExtremum = [&g](auto tag) {
    using OpT = typename decltype(tag)::type;
    return [&g](const Object &n, Location loc) -> LogicalResult {
      KILN_TRY(x, g.tensorArg(n, "self", loc));
      IntegerAttr dim;
      if (!g.isNone(n, "dim")) {
        KILN_TRY(d, g.intArg(n, "dim", std::nullopt, loc));
        dim = g.b.getI64IntegerAttr(*d);
      }
      KILN_TRY(k, g.boolArg(n, "keepdim", false, loc));
      return g.emitOp<OpT>(n, loc, *x, dim, *k);
    };
  };
  h[p + "argmax.default"] = argExtremum(OpTag<ArgmaxOp>());
  h[p + "argmin.default"] = argExtremum(OpTag<ArgminOp>());

  // Norms: linalg_vector_norm(ord, dim?, keepdim, dtype?); norm.Scalar(p);
  // norm.ScalarOpt_dim(p?, dim, keepdim).
  h[p + "linalg_vector_norm.default"] = [&g, dimsOf, typeAttr](const Object &n,
                                                               Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    KILN_TRY(ord, g.floatArg(n, "ord", 2.0, loc));
    KILN_TRY(d, dimsOf(n, "dim", loc));
    KILN_TRY(k, g.boolArg(n, "keepdim", false, loc));
    KILN_TRY(dtype, optDtypeArg(g, n, "dtype", loc));
    return g.emitOp<LinalgVectorNormOp>(n, loc, *x, *d, g.b.getBoolAttr(*k), g.b.getF64FloatAttr(*ord),
                                        typeAttr(*dtype));
  };
  h[p + "norm.Scalar"] = [&g](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    KILN_TRY(ord, g.floatArg(n, "p", 2.0, loc));
    return g.emitOp<LinalgVectorNormOp>(n, loc, *x, DenseI64ArrayAttr(), g.b.getBoolAttr(false),
                                        g.b.getF64FloatAttr(*ord), TypeAttr());
  };
  h[p + "norm.ScalarOpt_dim"] = [&g, dimsOf](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    double ord = 2.0;
    if (!g.isNone(n, "p")) {
      KILN_TRY(o, g.floatArg(n, "p", std::nullopt, loc));
      ord = *o;
    }
    KILN_TRY(d, dimsOf(n, "dim", loc));
    KILN_TRY(k, g.boolArg(n, "keepdim", false, loc));
    return g.emitOp<LinalgVectorNormOp>(n, loc, *x, *d, g.b.getBoolAttr(*k), g.b.getF64FloatAttr(ord),
                                        TypeAttr());
  };

  // var / std (and their _mean forms): correction (None = 1) or unbiased.
  auto varLike = [&g, dimsKeepOf](auto tag, StringRef overload) {
    using OpT = typename decltype(tag)::type;
    std::string ov = overload.str();
    return [&g, dimsKeepOf, ov](const Object &n, Location loc) -> LogicalResult {
      KILN_TRY(x, g.tensorArg(n, "self", loc));
      KILN_TRY(dk, dimsKeepOf(n, loc, ov != "default"));
      double correction = 1.0;
      if (ov == "correction") {
        if (!g.isNone(n, "correction")) {
          KILN_TRY(c, g.floatArg(n, "correction", std::nullopt, loc));
          correction = *c;
        }
      } else {
        KILN_TRY(u, g.boolArg(n, "unbiased", true, loc));
        correction = *u ? 1.0 : 0.0;
      }
      return g.emitOp<OpT>(n, loc, *x, dk->dims, g.b.getBoolAttr(dk->keep),
                           g.b.getF64FloatAttr(correction));
    };
  };
  for (const char *ov : {"correction", "dim", "default"}) {
    std::string o = ov;
    h[p + "var." + o] = varLike(OpTag<VarCorrectionOp>(), o);
    h[p + "std." + o] = varLike(OpTag<StdCorrectionOp>(), o);
    h[p + "var_mean." + o] = varLike(OpTag<VarMeanCorrectionOp>(), o);
    h[p + "std_mean." + o] = varLike(OpTag<StdMeanCorrectionOp>(), o);
  }

  auto scan = [&g, typeAttr](auto tag) {
    using OpT = typename decltype(tag)::type;
    return [&g, typeAttr](const Object &n, Location loc) -> LogicalResult {
      KILN_TRY(x, g.tensorArg(n, "self", loc));
      KILN_TRY(d, g.intArg(n, "dim", std::nullopt, loc));
      KILN_TRY(dtype, optDtypeArg(g, n, "dtype", loc));
      return g.emitOp<OpT>(n, loc, *x, *d, typeAttr(*dtype));
    };
  };
  h[p + "cumsum.default"] = scan(OpTag<CumsumOp>());
  h[p + "cumprod.default"] = scan(OpTag<CumprodOp>());
}

} // namespace kiln::importer
