//===- Ops/Indexing.cpp - import handlers: gathers, scatters, pads ---------===//
//
// index_select, gather, scatter (all overloads), index.Tensor / index_put
// (None entries, broadcasting index tensors, boolean masks as the indices of
// their nonzero entries), embedding, nonzero, masked_select, flip, roll,
// repeat, tile, tril, triu, the pads and pixel (un)shuffle.
//
//===----------------------------------------------------------------------===//
#include "../ImporterImpl.h"

#include "mlir/IR/Matchers.h"
#include "llvm/Support/FormatVariadic.h"

namespace kiln::importer {
namespace {
using namespace kiln::aten;
constexpr int64_t kDyn = ShapedType::kDynamic;

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

/// A 0-d constant of `elem` holding `v` (a Python scalar argument).
Value scalarTensor(OpBuilder &b, Location loc, Type elem, double v) {
  auto ty = RankedTensorType::get({}, elem);
  TypedAttr a;
  if (isa<FloatType>(elem))
    a = b.getFloatAttr(elem, v);
  else if (elem.isInteger(1))
    a = b.getBoolAttr(v != 0.0);
  else
    a = b.getIntegerAttr(elem, (int64_t)v);
  return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(ty, a));
}

/// The size of dim `d` of `v` as an index value.
Value dimOf(OpBuilder &b, Location loc, Value v, int64_t d) {
  auto ty = typeOf(v);
  if (!ty.isDynamicDim(d))
    return arith::ConstantIndexOp::create(b, loc, ty.getDimSize(d));
  return SymSizeIntOp::create(b, loc, b.getIndexType(), v, d);
}

/// aten.view of `v` to `sizes` (index values; constants become static).
Value viewTo(OpBuilder &b, Location loc, Value v, ArrayRef<Value> sizes) {
  SmallVector<int64_t> statics;
  SmallVector<Value> dynamic;
  SmallVector<int64_t> shape;
  for (Value s : sizes) {
    APInt c;
    if (matchPattern(s, m_ConstantInt(&c))) {
      statics.push_back(c.getSExtValue());
      shape.push_back(c.getSExtValue());
    } else {
      statics.push_back(kDyn);
      dynamic.push_back(s);
      shape.push_back(kDyn);
    }
  }
  return ViewOp::create(b, loc, RankedTensorType::get(shape, typeOf(v).getElementType()), v,
                        dynamic, statics);
}

/// Advanced-indexing operands: integer index tensors and the self dims they index.
struct AdvancedIndices {
  SmallVector<Value> tensors;
  SmallVector<int64_t> dims;
};

/// Reads ATen's `Tensor?[] indices`: None skips a dim, an integer tensor
/// indexes one dim, a boolean mask of rank k indexes k dims through the
/// coordinates of its nonzero entries (a run-time sized list).
FailureOr<AdvancedIndices> readIndices(GraphImporter &g, const Object &n, StringRef name,
                                       Location loc) {
  const Object *arg = g.argOf(n, name);
  const Array *list = arg ? arg->getArray("as_tensors") : nullptr;
  if (!list && arg)
    list = arg->getArray("as_optional_tensors");
  if (!list)
    return ((void)g.fail(loc, "expected a list of (optional) tensors for '" + name + "'"),
            failure());
  AdvancedIndices out;
  OpBuilder &b = g.b;
  int64_t dim = 0;
  for (const json::Value &e : *list) {
    const Object *o = e.getAsObject();
    if (!o || o->get("as_none")) {
      ++dim;
      continue;
    }
    const Object *t = o->getObject("as_tensor");
    std::optional<StringRef> ref = t ? t->getString("name") : o->getString("name");
    auto it = ref ? g.varOf.find(*ref) : g.varOf.end();
    if (it == g.varOf.end())
      return ((void)g.fail(loc, "an index of '" + name + "' is undefined"), failure());
    Value idx = g.readVar(it->second);
    auto ty = typeOf(idx);
    Type elem = ty.getElementType();
    if (elem.isInteger(1) || elem.isUnsignedInteger(8)) {
      if (elem.isUnsignedInteger(8))
        return ((void)g.fail(loc, "uint8 index tensors (deprecated masks) are not supported; "
                                  "use a bool mask"),
                failure());
      int64_t k = ty.getRank();
      auto nzTy = RankedTensorType::get({kDyn, k}, b.getI64Type());
      Value nz = NonzeroOp::create(b, loc, nzTy, idx);
      for (int64_t j = 0; j < k; ++j) {
        out.tensors.push_back(SelectIntOp::create(b, loc,
                                                  RankedTensorType::get({kDyn}, b.getI64Type()),
                                                  nz, ValueRange{}, ArrayRef<int64_t>{j}, 1));
        out.dims.push_back(dim + j);
      }
      dim += std::max<int64_t>(k, 1);
      continue;
    }
    if (!elem.isSignlessInteger())
      return ((void)g.fail(loc, "index tensors must be integer or bool, got " +
                                    llvm::formatv("{0}", elem).str()),
              failure());
    out.tensors.push_back(idx);
    out.dims.push_back(dim++);
  }
  if (out.tensors.empty())
    return ((void)g.fail(loc, "indexing with only None entries is not supported"), failure());
  return out;
}
} // namespace

void registerIndexingHandlers(GraphImporter &g) {
  auto &h = g.handlers;
  OpBuilder &b = g.b;

  h["torch.ops.aten.index_select.default"] = [&g](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    KILN_TRY(dim, g.intArg(n, "dim", std::nullopt, loc));
    KILN_TRY(index, g.tensorArg(n, "index", loc));
    return g.emitOp<IndexSelectOp>(n, loc, *x, *index, *dim);
  };
  h["torch.ops.aten.gather.default"] = [&g](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    KILN_TRY(dim, g.intArg(n, "dim", std::nullopt, loc));
    KILN_TRY(index, g.tensorArg(n, "index", loc));
    return g.emitOp<GatherOp>(n, loc, *x, *index, *dim);
  };
  // scatter: src is a tensor or a Python scalar; reduce names differ by overload.
  auto scatter = [&g, &b](const Object &n, Location loc, StringRef srcName,
                          std::optional<std::string> reduceName, bool defaultInclude,
                          StringRef fixedReduce) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    KILN_TRY(dim, g.intArg(n, "dim", std::nullopt, loc));
    KILN_TRY(index, g.tensorArg(n, "index", loc));
    Value src;
    const Object *arg = g.argOf(n, srcName);
    if (arg && arg->getObject("as_tensor")) {
      KILN_TRY(s, g.tensorArg(n, srcName, loc));
      src = *s;
    } else {
      KILN_TRY(v, g.floatArg(n, srcName, std::nullopt, loc));
      src = scalarTensor(b, loc, typeOf(*x).getElementType(), *v);
    }
    std::string reduce = fixedReduce.str();
    if (reduceName && !g.isNone(n, *reduceName)) {
      KILN_TRY(r, g.stringArg(n, *reduceName, std::nullopt, loc));
      reduce = *r == "add" ? "sum" : *r == "multiply" ? "prod" : *r;
      if (reduce != "sum" && reduce != "prod" && reduce != "mean" && reduce != "amax" &&
          reduce != "amin")
        return g.fail(loc, "unknown scatter reduction '" + *r + "'");
    }
    KILN_TRY(include, g.boolArg(n, "include_self", defaultInclude, loc));
    return g.emitOp<ScatterOp>(n, loc, *x, *index, src, *dim, reduce, *include);
  };
  h["torch.ops.aten.scatter.src"] = [scatter](const Object &n, Location loc) {
    return scatter(n, loc, "src", std::nullopt, true, "none");
  };
  h["torch.ops.aten.scatter.value"] = [scatter](const Object &n, Location loc) {
    return scatter(n, loc, "value", std::nullopt, true, "none");
  };
  h["torch.ops.aten.scatter.reduce"] = [scatter](const Object &n, Location loc) {
    return scatter(n, loc, "src", std::string("reduce"), true, "none");
  };
  h["torch.ops.aten.scatter.value_reduce"] = [scatter](const Object &n, Location loc) {
    return scatter(n, loc, "value", std::string("reduce"), true, "none");
  };
  h["torch.ops.aten.scatter_add.default"] = [scatter](const Object &n, Location loc) {
    return scatter(n, loc, "src", std::nullopt, true, "sum");
  };
  h["torch.ops.aten.scatter_reduce.two"] = [scatter](const Object &n, Location loc) {
    return scatter(n, loc, "src", std::string("reduce"), true, "none");
  };

  auto index = [&g](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    KILN_TRY(idx, readIndices(g, n, "indices", loc));
    return g.emitOp<IndexTensorOp>(n, loc, *x, idx->tensors, idx->dims);
  };
  h["torch.ops.aten.index.Tensor"] = index;
  h["torch.ops.aten._unsafe_index.Tensor"] = index;
  auto indexPut = [&g](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    KILN_TRY(idx, readIndices(g, n, "indices", loc));
    KILN_TRY(values, g.tensorArg(n, "values", loc));
    KILN_TRY(acc, g.boolArg(n, "accumulate", false, loc));
    Type elem = typeOf(*x).getElementType();
    if (typeOf(*values).getElementType() != elem)
      return g.fail(loc, "index_put: values of " +
                             llvm::formatv("{0}", typeOf(*values).getElementType()).str() +
                             " into a tensor of " + llvm::formatv("{0}", elem).str() +
                             " (PyTorch requires one dtype)");
    return g.emitOp<IndexPutOp>(n, loc, *x, idx->tensors, *values, idx->dims, *acc);
  };
  h["torch.ops.aten.index_put.default"] = indexPut;
  h["torch.ops.aten._unsafe_index_put.default"] = indexPut;
  h["torch.ops.aten._index_put_impl.default"] = indexPut;
  h["torch.ops.aten.embedding.default"] = [&g](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(w, g.tensorArg(n, "weight", loc));
    KILN_TRY(idx, g.tensorArg(n, "indices", loc));
    if (!typeOf(*idx).getElementType().isSignlessInteger() ||
        typeOf(*idx).getElementType().isInteger(1))
      return g.fail(loc, "embedding indices must be an integer tensor");
    // padding_idx only changes the gradient: the forward is weight[indices].
    return g.emitOp<IndexTensorOp>(n, loc, *w, ValueRange{*idx}, ArrayRef<int64_t>{0});
  };
  h["torch.ops.aten.nonzero.default"] = [&g](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    return g.emitOp<NonzeroOp>(n, loc, *x);
  };
  // masked_select(x, mask): x and mask broadcast, then x[mask] (a 1-d result).
  h["torch.ops.aten.masked_select.default"] = [&g, &b](const Object &n,
                                                     Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    KILN_TRY(mask, g.tensorArg(n, "mask", loc));
    auto xt = typeOf(*x), mt = typeOf(*mask);
    if (!mt.getElementType().isInteger(1))
      return g.fail(loc, "masked_select expects a bool mask");
    int64_t rank = std::max(xt.getRank(), mt.getRank());
    SmallVector<int64_t> shape(rank);
    SmallVector<Value> sizes;
    for (int64_t i = 0; i < rank; ++i) {
      int64_t xd = i - (rank - xt.getRank()), md = i - (rank - mt.getRank());
      int64_t xs = xd >= 0 ? xt.getDimSize(xd) : 1, ms = md >= 0 ? mt.getDimSize(md) : 1;
      if (xs != 1) {
        shape[i] = xs;
        sizes.push_back(dimOf(b, loc, *x, xd));
      } else if (ms != 1) {
        shape[i] = ms;
        sizes.push_back(dimOf(b, loc, *mask, md));
      } else {
        shape[i] = 1;
        sizes.push_back(arith::ConstantIndexOp::create(b, loc, 1));
      }
    }
    auto expandTo = [&](Value v) -> Value {
      SmallVector<int64_t> statics;
      SmallVector<Value> dynamic;
      for (auto [s, v2] : llvm::zip(shape, sizes)) {
        statics.push_back(s);
        if (s == kDyn)
          dynamic.push_back(v2);
      }
      auto ty = RankedTensorType::get(shape, typeOf(v).getElementType());
      if (ty == typeOf(v))
        return v;
      return ExpandOp::create(b, loc, ty, v, dynamic, statics);
    };
    Value xb = expandTo(*x), mb = expandTo(*mask);
    Value nz = NonzeroOp::create(b, loc, RankedTensorType::get({kDyn, rank}, b.getI64Type()), mb);
    SmallVector<Value> cols;
    SmallVector<int64_t> dims;
    for (int64_t j = 0; j < rank; ++j) {
      cols.push_back(SelectIntOp::create(b, loc, RankedTensorType::get({kDyn}, b.getI64Type()), nz,
                                         ValueRange{}, ArrayRef<int64_t>{j}, 1));
      dims.push_back(j);
    }
    if (rank == 0)
      return g.fail(loc, "masked_select of 0-d tensors is not supported");
    return g.emitOp<IndexTensorOp>(n, loc, xb, cols, dims);
  };

  h["torch.ops.aten.flip.default"] = [&g](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    KILN_TRY(dims, g.intsArg(n, "dims", std::nullopt, loc));
    return g.emitOp<FlipOp>(n, loc, *x, *dims);
  };
  h["torch.ops.aten.roll.default"] = [&g](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    KILN_TRY(shifts, g.intsArg(n, "shifts", std::nullopt, loc));
    KILN_TRY(dims, g.intsArg(n, "dims", SmallVector<int64_t>{}, loc));
    return g.emitOp<RollOp>(n, loc, *x, *shifts, *dims);
  };
  h["torch.ops.aten.repeat.default"] = [&g](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    KILN_TRY(reps, g.intsArg(n, "repeats", std::nullopt, loc));
    return g.emitOp<RepeatOp>(n, loc, *x, *reps);
  };
  // tile: repeat with the list padded with leading 1s to the rank of self.
  h["torch.ops.aten.tile.default"] = [&g](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    KILN_TRY(reps, g.intsArg(n, "dims", std::nullopt, loc));
    SmallVector<int64_t> r(*reps);
    while ((int64_t)r.size() < typeOf(*x).getRank())
      r.insert(r.begin(), 1);
    return g.emitOp<RepeatOp>(n, loc, *x, r);
  };
  h["torch.ops.aten.tril.default"] = [&g](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    KILN_TRY(k, g.intArg(n, "diagonal", 0, loc));
    return g.emitOp<TrilOp>(n, loc, *x, *k);
  };
  h["torch.ops.aten.triu.default"] = [&g](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    KILN_TRY(k, g.intArg(n, "diagonal", 0, loc));
    return g.emitOp<TriuOp>(n, loc, *x, *k);
  };

  // --- pads
  h["torch.ops.aten.constant_pad_nd.default"] = [&g](const Object &n,
                                                     Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    KILN_TRY(pad, g.intsArg(n, "pad", std::nullopt, loc));
    KILN_TRY(v, g.floatArg(n, "value", 0.0, loc));
    return g.emitOp<ConstantPadNdOp>(n, loc, *x, *pad, APFloat(*v));
  };
  auto gatherPad = [&g](const Object &n, Location loc, StringRef mode,
                        StringRef padName) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    KILN_TRY(pad, g.intsArg(n, padName, std::nullopt, loc));
    if (mode == "reflect")
      return g.emitOp<ReflectionPadOp>(n, loc, *x, *pad);
    if (mode == "replicate")
      return g.emitOp<ReplicationPadOp>(n, loc, *x, *pad);
    return g.emitOp<CircularPadOp>(n, loc, *x, *pad);
  };
  for (const char *d : {"1d", "2d", "3d"}) {
    std::string s = d;
    h["torch.ops.aten.reflection_pad" + s + ".default"] = [gatherPad](const Object &n,
                                                                       Location loc) {
      return gatherPad(n, loc, "reflect", "padding");
    };
    h["torch.ops.aten.replication_pad" + s + ".default"] = [gatherPad](const Object &n,
                                                                        Location loc) {
      return gatherPad(n, loc, "replicate", "padding");
    };
  }
  h["torch.ops.aten._pad_circular.default"] = [gatherPad](const Object &n, Location loc) {
    return gatherPad(n, loc, "circular", "pad");
  };
  h["torch.ops.aten.pad.default"] = [&g, gatherPad](const Object &n,
                                                   Location loc) -> LogicalResult {
    KILN_TRY(mode, g.stringArg(n, "mode", std::string("constant"), loc));
    if (*mode == "constant") {
      KILN_TRY(x, g.tensorArg(n, "self", loc));
      KILN_TRY(pad, g.intsArg(n, "pad", std::nullopt, loc));
      double v = 0.0;
      if (!g.isNone(n, "value")) {
        KILN_TRY(fv, g.floatArg(n, "value", 0.0, loc));
        v = *fv;
      }
      return g.emitOp<ConstantPadNdOp>(n, loc, *x, *pad, APFloat(v));
    }
    if (*mode != "reflect" && *mode != "replicate" && *mode != "circular")
      return g.fail(loc, "pad mode '" + *mode + "' is not supported");
    return gatherPad(n, loc, *mode, "pad");
  };

  // --- pixel_shuffle / pixel_unshuffle: a view, a permute and a view (a copy).
  auto pixel = [&g, &b](const Object &n, Location loc, bool shuffle) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    KILN_TRY(f, g.intArg(n, shuffle ? "upscale_factor" : "downscale_factor", std::nullopt, loc));
    int64_t rank = typeOf(*x).getRank(), r = *f;
    if (rank < 3 || r < 1)
      return g.fail(loc, "pixel (un)shuffle expects a tensor of rank >= 3 and a factor >= 1");
    int64_t lead = rank - 3;
    SmallVector<Value> batch;
    for (int64_t i = 0; i < lead; ++i)
      batch.push_back(dimOf(b, loc, *x, i));
    Value c = dimOf(b, loc, *x, lead), hgt = dimOf(b, loc, *x, lead + 1),
          wid = dimOf(b, loc, *x, lead + 2);
    Value rv = arith::ConstantIndexOp::create(b, loc, r);
    Value rr = arith::ConstantIndexOp::create(b, loc, r * r);
    SmallVector<Value> s1(batch), s3(batch);
    SmallVector<int64_t> perm;
    for (int64_t i = 0; i < lead; ++i)
      perm.push_back(i);
    if (shuffle) {
      // [*, C*r*r, H, W] -> [*, C, r, r, H, W] -> [*, C, H, r, W, r] -> [*, C, H*r, W*r]
      Value co = b.createOrFold<arith::DivSIOp>(loc, c, rr);
      s1.append({co, rv, rv, hgt, wid});
      for (int64_t p : {0, 3, 1, 4, 2})
        perm.push_back(lead + p);
      s3.append({co, b.createOrFold<arith::MulIOp>(loc, hgt, rv),
                 b.createOrFold<arith::MulIOp>(loc, wid, rv)});
    } else {
      // [*, C, H*r, W*r] -> [*, C, H, r, W, r] -> [*, C, r, r, H, W] -> [*, C*r*r, H, W]
      Value ho = b.createOrFold<arith::DivSIOp>(loc, hgt, rv);
      Value wo = b.createOrFold<arith::DivSIOp>(loc, wid, rv);
      s1.append({c, ho, rv, wo, rv});
      for (int64_t p : {0, 2, 4, 1, 3})
        perm.push_back(lead + p);
      s3.append({b.createOrFold<arith::MulIOp>(loc, c, rr), ho, wo});
    }
    Value v1 = viewTo(b, loc, *x, s1);
    auto t1 = typeOf(v1);
    SmallVector<int64_t> pshape;
    for (int64_t p : perm)
      pshape.push_back(t1.getDimSize(p));
    Value v2 = PermuteOp::create(b, loc, RankedTensorType::get(pshape, t1.getElementType()), v1,
                                 perm);
    Value v3 = viewTo(b, loc, v2, s3);
    SmallVector<std::string> outs = g.outputNames(n);
    KILN_TRY(ty, g.tensorType(outs[0], loc));
    if (v3.getType() != *ty)
      v3 = tensor::CastOp::create(b, loc, *ty, v3);
    g.varOf[outs[0]] = g.newVar(v3);
    return success();
  };
  h["torch.ops.aten.pixel_shuffle.default"] = [pixel](const Object &n, Location loc) {
    return pixel(n, loc, true);
  };
  h["torch.ops.aten.pixel_unshuffle.default"] = [pixel](const Object &n, Location loc) {
    return pixel(n, loc, false);
  };
}

} // namespace kiln::importer
