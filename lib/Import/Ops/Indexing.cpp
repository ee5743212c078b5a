//===- Ops/Indexing.cpp - import handlers: gathers, scatters ---------------===//
//
// index_select, gather, scatter (all overloads), index.Tensor / index_put
// (None entries, broadcasting index tensors, boolean masks as the indices of
// their nonzero entries), embedding, nonzero, masked_select, flip, roll,
// repeat, tile, tril, triu and pixel (un)shuffle (the pads: Ops/Pads.cpp).
//
//===----------------------------------------------------------------------===//
#include "ShapeUtils.h"

#include "mlir/IR/Matchers.h"
#include "llvm/Support/FormatVariadic.h"

namespace kiln::importer {
namespace {
using namespace kiln::aten;
using shape::kDyn;
using shape::dimSize;
using shape::typeOf;

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

/// `sizes` (index values; constants become static) as an aten size list.
shape::Mixed mixedOf(ArrayRef<Value> sizes) {
  shape::Mixed m;
  for (Value s : sizes)
    m.add(s);
  return m;
}

/// aten.view of `v` to `sizes` (index values; constants become static).
Value viewTo(OpBuilder &b, Location loc, Value v, ArrayRef<Value> sizes) {
  shape::Mixed m = mixedOf(sizes);
  return ViewOp::create(b, loc, RankedTensorType::get(m.statics, typeOf(v).getElementType()), v,
                        m.dynamic, m.statics);
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
    // ATen takes an index of any dtype when it is empty (it reads nothing):
    // an empty int64 one stands in for it.
    Value idx = *index;
    auto idxTy = cast<RankedTensorType>(idx.getType());
    if (!idxTy.getElementType().isSignlessInteger() && idxTy.hasStaticShape() &&
        idxTy.getNumElements() == 0)
      idx = arith::ConstantOp::create(
          g.b, loc,
          DenseElementsAttr::get(RankedTensorType::get(idxTy.getShape(), g.b.getI64Type()),
                                 ArrayRef<int64_t>{}));
    return g.emitOp<GatherOp>(n, loc, *x, idx, *dim);
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
    // Both 0-d: select from them as 1-d tensors of one element.
    int64_t rank = std::max<int64_t>({xt.getRank(), mt.getRank(), 1});
    SmallVector<int64_t> shape(rank);
    SmallVector<Value> sizes;
    for (int64_t i = 0; i < rank; ++i) {
      int64_t xd = i - (rank - xt.getRank()), md = i - (rank - mt.getRank());
      int64_t xs = xd >= 0 ? xt.getDimSize(xd) : 1, ms = md >= 0 ? mt.getDimSize(md) : 1;
      if (xs != 1) {
        shape[i] = xs;
        sizes.push_back(dimSize(b, loc, *x, xd));
      } else if (ms != 1) {
        shape[i] = ms;
        sizes.push_back(dimSize(b, loc, *mask, md));
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
    return g.emitOp<IndexTensorOp>(n, loc, xb, cols, dims);
  };

  // take_along_dim(self, indices, dim): gather after broadcasting self and
  // indices in every other dim; without dim, of the flattened tensors.
  h["torch.ops.aten.take_along_dim.default"] = [&g, &b](const Object &n,
                                                        Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    KILN_TRY(idx, g.tensorArg(n, "indices", loc));
    auto flat = [&](Value v) -> Value {
      auto ty = typeOf(v);
      Value numel = arith::ConstantIndexOp::create(b, loc, 1);
      for (int64_t d = 0; d < ty.getRank(); ++d)
        numel = b.createOrFold<arith::MulIOp>(loc, numel, dimSize(b, loc, v, d));
      return viewTo(b, loc, v, {numel});
    };
    if (g.isNone(n, "dim"))
      return g.emitOp<GatherOp>(n, loc, flat(*x), flat(*idx), 0);
    KILN_TRY(dim, g.intArg(n, "dim", std::nullopt, loc));
    auto xt = typeOf(*x), it = typeOf(*idx);
    int64_t rank = std::max(xt.getRank(), it.getRank());
    int64_t d = *dim < 0 ? *dim + rank : *dim;
    if (xt.getRank() != it.getRank() || d < 0 || d >= rank)
      return g.fail(loc, "take_along_dim expects self and indices of one rank and a dim in range");
    // Broadcast shape in every dim but `d`, where each keeps its own size.
    auto expandTo = [&](Value v) -> Value {
      auto ty = typeOf(v);
      SmallVector<int64_t> statics, shape;
      SmallVector<Value> dynamic;
      bool changed = false;
      for (int64_t i = 0; i < rank; ++i) {
        int64_t a = xt.getDimSize(i), c = it.getDimSize(i);
        int64_t own = ty.getDimSize(i);
        Value size;
        if (i == d || own != 1) {
          size = dimSize(b, loc, v, i);
        } else {
          Value other = v == *x ? *idx : *x;
          size = dimSize(b, loc, other, i);
          changed |= (v == *x ? c : a) != 1;
        }
        APInt cst;
        if (matchPattern(size, m_ConstantInt(&cst))) {
          statics.push_back(cst.getSExtValue());
          shape.push_back(cst.getSExtValue());
        } else {
          statics.push_back(kDyn);
          dynamic.push_back(size);
          shape.push_back(kDyn);
        }
      }
      if (!changed)
        return v;
      return ExpandOp::create(b, loc, RankedTensorType::get(shape, ty.getElementType()), v,
                              dynamic, statics);
    };
    return g.emitOp<GatherOp>(n, loc, expandTo(*x), expandTo(*idx), d);
  };
  // take(self, index): the flattened self at index (result shaped like index).
  h["torch.ops.aten.take.default"] = [&g, &b](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    KILN_TRY(idx, g.tensorArg(n, "index", loc));
    auto ty = typeOf(*x);
    Value numel = arith::ConstantIndexOp::create(b, loc, 1);
    for (int64_t d = 0; d < ty.getRank(); ++d)
      numel = b.createOrFold<arith::MulIOp>(loc, numel, dimSize(b, loc, *x, d));
    return g.emitOp<IndexTensorOp>(n, loc, viewTo(b, loc, *x, {numel}), ValueRange{*idx},
                                   ArrayRef<int64_t>{0});
  };
  // index_fill / index_copy / index_add: index_put with one index at dim.
  auto indexPutAt = [&g, &b](const Object &n, Location loc, Value values,
                             bool accumulate) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    KILN_TRY(dim, g.intArg(n, "dim", std::nullopt, loc));
    KILN_TRY(index, g.tensorArg(n, "index", loc));
    int64_t rank = typeOf(*x).getRank();
    int64_t d = *dim < 0 ? *dim + std::max<int64_t>(rank, 1) : *dim;
    Value self = *x, idx = *index;
    if (rank == 0) { // a 0-d self indexes as a 1-element 1-d tensor
      self = viewTo(b, loc, self, {arith::ConstantIndexOp::create(b, loc, 1)});
      d = 0;
    }
    if (typeOf(idx).getRank() == 0)
      idx = viewTo(b, loc, idx, {arith::ConstantIndexOp::create(b, loc, 1)});
    if (typeOf(values).getElementType() != typeOf(self).getElementType())
      return g.fail(loc, "the source has another dtype than self");
    if (rank > 0 && typeOf(values).getRank() == 0 && accumulate)
      return g.fail(loc, "index_add expects a source tensor of self's rank");
    Value vals = values;
    if (rank == 0 && typeOf(vals).getRank() == 0)
      vals = viewTo(b, loc, vals, {arith::ConstantIndexOp::create(b, loc, 1)});
    SmallVector<std::string> outs = g.outputNames(n);
    if (outs.empty() || outs[0].empty())
      return g.fail(loc, "the node names no tensor output");
    KILN_TRY(ty, g.tensorType(outs[0], loc));
    Value r = IndexPutOp::create(b, loc, self.getType(), self, ValueRange{idx}, vals,
                                 ArrayRef<int64_t>{d}, accumulate);
    if (r.getType() != *ty)
      r = ViewOp::create(b, loc, *ty, r, ValueRange{}, ArrayRef<int64_t>{});
    g.varOf[outs[0]] = g.newVar(r);
    return success();
  };
  h["torch.ops.aten.index_fill.int_Scalar"] = [&g, &b, indexPutAt](const Object &n,
                                                                  Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    KILN_TRY(v, g.floatArg(n, "value", std::nullopt, loc));
    return indexPutAt(n, loc, scalarTensor(b, loc, typeOf(*x).getElementType(), *v), false);
  };
  h["torch.ops.aten.index_fill.int_Tensor"] = [&g, indexPutAt](const Object &n,
                                                              Location loc) -> LogicalResult {
    KILN_TRY(v, g.tensorArg(n, "value", loc));
    return indexPutAt(n, loc, *v, false);
  };
  h["torch.ops.aten.index_copy.default"] = [&g, indexPutAt](const Object &n,
                                                           Location loc) -> LogicalResult {
    KILN_TRY(v, g.tensorArg(n, "source", loc));
    return indexPutAt(n, loc, *v, false);
  };
  h["torch.ops.aten.index_add.default"] = [&g, &b, indexPutAt](const Object &n,
                                                              Location loc) -> LogicalResult {
    KILN_TRY(v, g.tensorArg(n, "source", loc));
    KILN_TRY(alpha, g.floatArg(n, "alpha", 1.0, loc));
    Value src = *v;
    if (*alpha != 1.0)
      src = MulTensorOp::create(b, loc, src.getType(), src,
                                scalarTensor(b, loc, typeOf(src).getElementType(), *alpha));
    return indexPutAt(n, loc, src, true);
  };
  // nonzero_numpy: one 1-d tensor of coordinates per dim.
  h["torch.ops.aten.nonzero_numpy.default"] = [&g, &b](const Object &n,
                                                       Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    int64_t rank = std::max<int64_t>(typeOf(*x).getRank(), 1);
    Value src = *x;
    if (typeOf(src).getRank() == 0)
      src = viewTo(b, loc, src, {arith::ConstantIndexOp::create(b, loc, 1)});
    Value nz = NonzeroOp::create(b, loc, RankedTensorType::get({kDyn, rank}, b.getI64Type()), src);
    SmallVector<std::string> outs = g.outputNames(n);
    for (auto [j, name] : llvm::enumerate(outs)) {
      KILN_TRY(ty, g.tensorType(name, loc));
      Value col = SelectIntOp::create(b, loc, RankedTensorType::get({kDyn}, b.getI64Type()), nz,
                                      ValueRange{}, ArrayRef<int64_t>{(int64_t)j}, 1);
      if (col.getType() != *ty)
        col = tensor::CastOp::create(b, loc, *ty, col);
      g.varOf[name] = g.newVar(col);
    }
    return success();
  };
  // repeat_interleave(self, repeats: int, dim): each element `repeats` times
  // along dim (the flattened tensor without dim).
  h["torch.ops.aten.repeat_interleave.self_int"] = [&g, &b](const Object &n,
                                                            Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    KILN_TRY(reps, g.symIntArg(n, "repeats", std::nullopt, loc));
    Value self = *x;
    auto ty = typeOf(self);
    int64_t d = 0;
    if (g.isNone(n, "dim") || ty.getRank() == 0) {
      Value numel = arith::ConstantIndexOp::create(b, loc, 1);
      for (int64_t i = 0; i < ty.getRank(); ++i)
        numel = b.createOrFold<arith::MulIOp>(loc, numel, dimSize(b, loc, self, i));
      self = viewTo(b, loc, self, {numel});
    } else {
      KILN_TRY(dim, g.intArg(n, "dim", std::nullopt, loc));
      d = *dim < 0 ? *dim + ty.getRank() : *dim;
    }
    // [.., n, ..] -> [.., n, 1, ..] -> expand [.., n, r, ..] -> [.., n * r, ..]
    auto sty = typeOf(self);
    SmallVector<Value> sizes;
    for (int64_t i = 0; i < sty.getRank(); ++i)
      sizes.push_back(dimSize(b, loc, self, i));
    SmallVector<Value> withOne(sizes);
    withOne.insert(withOne.begin() + d + 1, arith::ConstantIndexOp::create(b, loc, 1));
    Value v1 = viewTo(b, loc, self, withOne);
    SmallVector<Value> expanded(withOne);
    expanded[d + 1] = *reps;
    shape::Mixed m = mixedOf(expanded);
    Value v2 = ExpandOp::create(b, loc, RankedTensorType::get(m.statics, sty.getElementType()),
                                v1, m.dynamic, m.statics);
    SmallVector<Value> merged(sizes);
    merged[d] = b.createOrFold<arith::MulIOp>(loc, sizes[d], *reps);
    Value v3 = viewTo(b, loc, v2, merged);
    SmallVector<std::string> outs = g.outputNames(n);
    if (outs.empty() || outs[0].empty())
      return g.fail(loc, "the node names no tensor output");
    KILN_TRY(rty, g.tensorType(outs[0], loc));
    if (v3.getType() != *rty)
      v3 = tensor::CastOp::create(b, loc, *rty, v3);
    g.varOf[outs[0]] = g.newVar(v3);
    return success();
  };
  // rot90(self, k, dims): k mod 4 quarter turns from dims[0] towards dims[1].
  h["torch.ops.aten.rot90.default"] = [&g, &b](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    KILN_TRY(k, g.intArg(n, "k", 1, loc));
    KILN_TRY(dims, g.intsArg(n, "dims", SmallVector<int64_t>{0, 1}, loc));
    auto ty = typeOf(*x);
    int64_t rank = ty.getRank();
    if (dims->size() != 2 || rank < 2)
      return g.fail(loc, "rot90 expects two dims of a tensor of rank >= 2");
    int64_t d0 = (*dims)[0] < 0 ? (*dims)[0] + rank : (*dims)[0];
    int64_t d1 = (*dims)[1] < 0 ? (*dims)[1] + rank : (*dims)[1];
    if (d0 < 0 || d0 >= rank || d1 < 0 || d1 >= rank || d0 == d1)
      return g.fail(loc, "rot90: dims out of range or equal");
    int64_t turns = ((*k % 4) + 4) % 4;
    auto flip = [&](Value v, SmallVector<int64_t> fd) -> Value {
      return FlipOp::create(b, loc, v.getType(), v, fd);
    };
    auto transpose = [&](Value v) -> Value {
      SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
      std::swap(perm[d0], perm[d1]);
      SmallVector<int64_t> shape;
      for (int64_t p : perm)
        shape.push_back(typeOf(v).getDimSize(p));
      return PermuteOp::create(b, loc, RankedTensorType::get(shape, ty.getElementType()), v, perm);
    };
    Value r = *x;
    if (turns == 1)
      r = transpose(flip(r, {d1}));
    else if (turns == 2)
      r = flip(r, {d0, d1});
    else if (turns == 3)
      r = transpose(flip(r, {d0}));
    SmallVector<std::string> outs = g.outputNames(n);
    if (outs.empty() || outs[0].empty())
      return g.fail(loc, "the node names no tensor output");
    g.varOf[outs[0]] = g.newVar(r);
    return success();
  };
  h["torch.ops.aten.fliplr.default"] = [&g](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    return g.emitOp<FlipOp>(n, loc, *x, SmallVector<int64_t>{1});
  };
  h["torch.ops.aten.flipud.default"] = [&g](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    return g.emitOp<FlipOp>(n, loc, *x, SmallVector<int64_t>{0});
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
  // repeat with literal counts is aten.repeat; with a symbolic count (DeBERTa's
  // `.repeat(q.size(0) // heads, 1, 1)` under a symbolic batch) it is built from
  // views as ATen's own repeat does: self viewed as [1, d0, 1, d1, ...], expanded
  // to [r0, d0, r1, d1, ...] and viewed as [r0*d0, r1*d1, ...] (leading repeats
  // beyond the rank of self are dims of their own).
  h["torch.ops.aten.repeat.default"] = [&g, &b](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    const Object *arg = g.argOf(n, "repeats");
    if (!arg || !arg->getArray("as_sym_ints")) {
      KILN_TRY(reps, g.intsArg(n, "repeats", std::nullopt, loc));
      return g.emitOp<RepeatOp>(n, loc, *x, *reps);
    }
    SmallVector<int64_t> statics;
    SmallVector<Value> dynamic;
    if (failed(g.symIntsArg(n, "repeats", statics, dynamic, loc)))
      return failure();
    if (dynamic.empty())
      return g.emitOp<RepeatOp>(n, loc, *x, statics);
    int64_t rank = typeOf(*x).getRank(), count = statics.size(), lead = count - rank;
    if (lead < 0)
      return g.fail(loc, "repeat: " + std::to_string(count) + " repeats for a tensor of rank " +
                             std::to_string(rank) + " (at least its rank are needed)");
    SmallVector<Value> reps;
    for (unsigned i = 0, next = 0; i < statics.size(); ++i)
      reps.push_back(statics[i] == kDyn ? dynamic[next++]
                                        : arith::ConstantIndexOp::create(b, loc, statics[i]));
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    SmallVector<Value> unsq, expanded, out;
    for (int64_t i = 0; i < count; ++i) {
      if (i < lead) {
        unsq.push_back(one);
        expanded.push_back(reps[i]);
        out.push_back(reps[i]);
        continue;
      }
      Value d = dimSize(b, loc, *x, i - lead);
      unsq.append({one, d});
      expanded.append({reps[i], d});
      out.push_back(arith::MulIOp::create(b, loc, reps[i], d));
    }
    Value v = viewTo(b, loc, *x, unsq);
    shape::Mixed m = mixedOf(expanded);
    Value e = ExpandOp::create(b, loc, RankedTensorType::get(m.statics, typeOf(v).getElementType()),
                               v, m.dynamic, m.statics);
    KILN_TRY(types, g.resultTypes(n, loc));
    SmallVector<int64_t> outStatics;
    SmallVector<Value> outDynamic;
    auto resTy = cast<RankedTensorType>((*types)[0]);
    for (int64_t i = 0; i < count; ++i) {
      outStatics.push_back(resTy.getDimSize(i));
      if (resTy.isDynamicDim(i))
        outDynamic.push_back(out[i]);
    }
    return g.bindResults(n, ViewOp::create(b, loc, resTy, e, outDynamic, outStatics));
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
      batch.push_back(dimSize(b, loc, *x, i));
    Value c = dimSize(b, loc, *x, lead), hgt = dimSize(b, loc, *x, lead + 1),
          wid = dimSize(b, loc, *x, lead + 2);
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
    if (outs.empty() || outs[0].empty())
      return g.fail(loc, "the node names no tensor output");
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
