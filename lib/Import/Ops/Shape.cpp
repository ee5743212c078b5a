//===- Ops/Shape.cpp - import handlers: views, joins, splits and sizes ----===//
//
// Views are table-driven: each view node becomes one aten view op on the
// current value of its input and is bound as a view var (see ImporterImpl.h)
// with the op that writes a new value back through it (reshape back, inverse
// permute, slice_scatter, select_scatter, diagonal_scatter). Multi-output
// views (split, chunk, unbind) are slices or selects. SymInt arithmetic
// (`_operator.*`, sym_max, sym_numel, ...) becomes `index` arithmetic.
//
//===----------------------------------------------------------------------===//
#include "../ImporterImpl.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"

#include <limits>

namespace kiln::importer {
namespace {
using namespace kiln::aten;
constexpr int64_t kDyn = ShapedType::kDynamic;
constexpr int64_t kMaxEnd = std::numeric_limits<int64_t>::max();

/// A size list mixing literals and `index` values, as the aten ops take it.
struct Mixed {
  SmallVector<int64_t> statics;
  SmallVector<Value> dynamic;
  void add(int64_t v) { statics.push_back(v); }
  void add(Value v) {
    APInt c;
    if (matchPattern(v, m_ConstantInt(&c))) {
      statics.push_back(c.getSExtValue());
      return;
    }
    statics.push_back(kDyn);
    dynamic.push_back(v);
  }
};

int64_t normDim(int64_t d, int64_t rank) { return d < 0 ? d + std::max<int64_t>(rank, 1) : d; }

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

/// The size of dim `d` of `v`: a constant or an aten.sym_size_int.
Value dimSize(OpBuilder &b, Location loc, Value v, int64_t d) {
  auto ty = typeOf(v);
  if (!ty.isDynamicDim(d))
    return arith::ConstantIndexOp::create(b, loc, ty.getDimSize(d));
  return SymSizeIntOp::create(b, loc, b.getIndexType(), v, d);
}

/// `v` viewed with the shape of `like` (the inverse of a reshape-like view).
Value viewLike(OpBuilder &b, Location loc, Value v, Value like) {
  auto likeTy = typeOf(like), vTy = typeOf(v);
  auto resultTy = RankedTensorType::get(likeTy.getShape(), vTy.getElementType());
  if (vTy == resultTy && vTy.hasStaticShape())
    return v;
  Mixed sizes;
  for (int64_t d = 0; d < likeTy.getRank(); ++d)
    sizes.add(dimSize(b, loc, like, d));
  return ViewOp::create(b, loc, resultTy, v, sizes.dynamic, sizes.statics);
}

/// Strides and storage offset of a value as export recorded them; nullopt if
/// they are symbolic without a hint.
std::optional<std::pair<SmallVector<int64_t>, SmallVector<int64_t>>>
recordedLayout(const Object *meta) {
  if (!meta)
    return std::nullopt;
  auto ints = [](const Array *a) -> std::optional<SmallVector<int64_t>> {
    if (!a)
      return std::nullopt;
    SmallVector<int64_t> out;
    for (const json::Value &v : *a) {
      const Object *o = v.getAsObject();
      std::optional<int64_t> i = o ? o->getInteger("as_int") : std::nullopt;
      if (!i && o)
        if (const Object *e = o->getObject("as_expr"))
          if (const Object *h = e->getObject("hint"))
            i = h->getInteger("as_int");
      if (!i)
        return std::nullopt;
      out.push_back(*i);
    }
    return out;
  };
  auto sizes = ints(meta->getArray("sizes")), strides = ints(meta->getArray("strides"));
  if (!sizes || !strides)
    return std::nullopt;
  return std::make_pair(*sizes, *strides);
}

/// True if export recorded `name` as row-major contiguous at storage offset 0
/// (size-1 dims may have any stride).
bool recordedContiguous(GraphImporter &g, StringRef name) {
  const Object *meta = g.tensorValues ? g.tensorValues->getObject(name) : nullptr;
  auto layout = recordedLayout(meta);
  if (!layout)
    return true; // nothing recorded: kiln's own values are contiguous
  if (const Object *off = meta->getObject("storage_offset"))
    if (off->getInteger("as_int").value_or(0) != 0)
      return false;
  auto &[sizes, strides] = *layout;
  int64_t expected = 1;
  for (int64_t i = sizes.size() - 1; i >= 0; --i) {
    if (sizes[i] != 1 && strides[i] != expected)
      return false;
    expected *= sizes[i];
  }
  return true;
}

/// The tensor name of argument `arg` of a node ("" if it is not a tensor).
std::string argName(GraphImporter &g, const Object &n, StringRef arg) {
  const Object *a = g.argOf(n, arg);
  const Object *t = a ? a->getObject("as_tensor") : nullptr;
  return t ? t->getString("name").value_or("").str() : "";
}

/// Builds a view of its base; also rebuilds it on a mutated base.
using MakeView = std::function<Value(Value base, RankedTensorType resultType)>;

/// Binds every tensor output of `n` as a view of argument `arg`: output i is
/// make(i) of the base, written back through scatter(i) (null: cannot be written).
LogicalResult importViews(GraphImporter &g, const Object &n, Location loc, StringRef arg,
                          function_ref<MakeView(unsigned)> make,
                          function_ref<GraphImporter::ScatterFn(unsigned)> scatter) {
  KILN_TRY(base, g.varOfArg(n, arg, loc));
  SmallVector<std::string> outs = g.outputNames(n);
  for (auto [i, name] : llvm::enumerate(outs)) {
    if (name.empty())
      continue;
    KILN_TRY(ty, g.tensorType(name, loc));
    MakeView fn = make(i);
    RankedTensorType resultTy = *ty;
    g.bindView(name, *base, [fn, resultTy](Value b) { return fn(b, resultTy); }, scatter(i));
  }
  return success();
}

LogicalResult importView(GraphImporter &g, const Object &n, Location loc, StringRef arg,
                         MakeView make, GraphImporter::ScatterFn scatter) {
  return importViews(
      g, n, loc, arg, [&](unsigned) { return make; }, [&](unsigned) { return scatter; });
}

/// One slice view along `dim` from `start` to `end` (values or literals).
Value makeSlice(OpBuilder &b, Location loc, Value x, RankedTensorType ty, int64_t dim,
                Value start, Value end, int64_t step) {
  Mixed bounds;
  bounds.add(start);
  bounds.add(end);
  return SliceTensorOp::create(b, loc, ty, x, bounds.dynamic, bounds.statics, dim, step);
}

Value makeSliceScatter(OpBuilder &b, Location loc, Value base, Value src, int64_t dim,
                       Value start, Value end, int64_t step) {
  Mixed bounds;
  bounds.add(start);
  bounds.add(end);
  return SliceScatterOp::create(b, loc, base.getType(), base, src, bounds.dynamic,
                                bounds.statics, dim, step);
}

} // namespace

void registerShapeHandlers(GraphImporter &g) {
  auto &h = g.handlers;
  OpBuilder &b = g.b;

  // --- reshapes: view, reshape, _unsafe_view, unflatten, flatten, squeeze, unsqueeze
  auto reshapeScatter = [&b](Location loc) -> GraphImporter::ScatterFn {
    return [&b, loc](Value base, Value v) { return viewLike(b, loc, v, base); };
  };
  // A reshape aliases its input when export saw a contiguous input (PyTorch
  // returns a view then, a copy otherwise).
  auto reshapeLike = [&g, &b, reshapeScatter](const Object &n, Location loc, MakeView make,
                                              bool alwaysView) -> LogicalResult {
    if (alwaysView || recordedContiguous(g, argName(g, n, "self")))
      return importView(g, n, loc, "self", make, reshapeScatter(loc));
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    SmallVector<std::string> outs = g.outputNames(n);
    if (outs.empty() || outs[0].empty())
      return g.fail(loc, "the node names no tensor output");
    KILN_TRY(ty, g.tensorType(outs[0], loc));
    g.varOf[outs[0]] = g.newVar(make(*x, *ty));
    return success();
  };
  auto view = [&g, &b, reshapeLike](const Object &n, Location loc, StringRef sizeName,
                                    bool alwaysView) -> LogicalResult {
    SmallVector<int64_t> statics;
    SmallVector<Value> dynamic;
    if (failed(g.symIntsArg(n, sizeName, statics, dynamic, loc)))
      return failure();
    return reshapeLike(
        n, loc,
        [&b, loc, statics, dynamic](Value x, RankedTensorType ty) -> Value {
          return ViewOp::create(b, loc, ty, x, dynamic, statics);
        },
        alwaysView);
  };
  h["torch.ops.aten.view.default"] = [view](const Object &n, Location loc) {
    return view(n, loc, "size", true);
  };
  h["torch.ops.aten._unsafe_view.default"] = [view](const Object &n, Location loc) {
    return view(n, loc, "size", true);
  };
  h["torch.ops.aten.reshape.default"] = [view](const Object &n, Location loc) {
    return view(n, loc, "shape", false);
  };
  h["torch.ops.aten.flatten.using_ints"] = [&g, &b, reshapeLike](const Object &n,
                                                                 Location loc) -> LogicalResult {
    KILN_TRY(s, g.intArg(n, "start_dim", 0, loc));
    KILN_TRY(e, g.intArg(n, "end_dim", -1, loc));
    int64_t sd = *s, ed = *e;
    return reshapeLike(
        n, loc,
        [&b, loc, sd, ed](Value x, RankedTensorType ty) -> Value {
          return FlattenUsingIntsOp::create(b, loc, ty, x, sd, ed);
        },
        false);
  };
  h["torch.ops.aten.unflatten.int"] = [&g, &b](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    KILN_TRY(dim, g.intArg(n, "dim", std::nullopt, loc));
    SmallVector<int64_t> sizeStatics;
    SmallVector<Value> sizeDyn;
    if (failed(g.symIntsArg(n, "sizes", sizeStatics, sizeDyn, loc)))
      return failure();
    int64_t rank = typeOf(*x).getRank(), d = normDim(*dim, rank);
    if (d < 0 || d >= rank)
      return g.fail(loc, "unflatten: dim " + std::to_string(*dim) +
                             " is out of range for a tensor of rank " + std::to_string(rank));
    return importView(
        g, n, loc, "self",
        [&b, loc, d, sizeStatics, sizeDyn](Value x, RankedTensorType ty) -> Value {
          Mixed sizes;
          for (int64_t i = 0; i < d; ++i)
            sizes.add(dimSize(b, loc, x, i));
          unsigned next = 0;
          for (int64_t s : sizeStatics)
            if (s == kDyn)
              sizes.add(sizeDyn[next++]);
            else
              sizes.add(s);
          for (int64_t i = d + 1; i < typeOf(x).getRank(); ++i)
            sizes.add(dimSize(b, loc, x, i));
          return ViewOp::create(b, loc, ty, x, sizes.dynamic, sizes.statics);
        },
        [&b, loc](Value base, Value v) { return viewLike(b, loc, v, base); });
  };
  h["torch.ops.aten.unsqueeze.default"] = [&g, &b](const Object &n,
                                                   Location loc) -> LogicalResult {
    KILN_TRY(dim, g.intArg(n, "dim", std::nullopt, loc));
    int64_t d = *dim;
    return importView(
        g, n, loc, "self",
        [&b, loc, d](Value x, RankedTensorType ty) -> Value {
          return UnsqueezeOp::create(b, loc, ty, x, d);
        },
        [&b, loc](Value base, Value v) { return viewLike(b, loc, v, base); });
  };
  // squeeze (all, one dim, dims): only dims of static size 1 are dropped,
  // as ATen leaves other listed dims alone.
  auto squeeze = [&g, &b](const Object &n, Location loc,
                          std::optional<SmallVector<int64_t>> dims) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    auto ty = typeOf(*x);
    int64_t rank = ty.getRank();
    SmallVector<int64_t> drop;
    if (!dims) {
      for (int64_t i = 0; i < rank; ++i)
        if (ty.getDimSize(i) == 1)
          drop.push_back(i);
    } else {
      for (int64_t d : *dims) {
        int64_t nd = normDim(d, rank);
        if (nd < 0 || nd >= std::max<int64_t>(rank, 1))
          return g.fail(loc, "squeeze: dim " + std::to_string(d) +
                                 " is out of range for a tensor of rank " + std::to_string(rank));
        if (rank > 0 && ty.getDimSize(nd) == 1 && !llvm::is_contained(drop, nd))
          drop.push_back(nd);
      }
    }
    return importView(
        g, n, loc, "self",
        [&b, loc, drop](Value x, RankedTensorType ty) -> Value {
          return SqueezeDimsOp::create(b, loc, ty, x, drop);
        },
        [&b, loc](Value base, Value v) { return viewLike(b, loc, v, base); });
  };
  h["torch.ops.aten.squeeze.default"] = [squeeze](const Object &n, Location loc) {
    return squeeze(n, loc, std::nullopt);
  };
  h["torch.ops.aten.squeeze.dim"] = [&g, squeeze](const Object &n,
                                                 Location loc) -> LogicalResult {
    KILN_TRY(d, g.intArg(n, "dim", std::nullopt, loc));
    return squeeze(n, loc, SmallVector<int64_t>{*d});
  };
  h["torch.ops.aten.squeeze.dims"] = [&g, squeeze](const Object &n,
                                                  Location loc) -> LogicalResult {
    KILN_TRY(d, g.intsArg(n, "dim", std::nullopt, loc));
    return squeeze(n, loc, *d);
  };

  // --- permutations: permute, transpose, t
  auto permute = [&g, &b](const Object &n, Location loc,
                          SmallVector<int64_t> perm) -> LogicalResult {
    SmallVector<int64_t> inverse(perm.size());
    int64_t rank = perm.size();
    for (auto [i, p] : llvm::enumerate(perm)) {
      p = normDim(p, rank);
      if (p < 0 || p >= rank)
        return g.fail(loc, "permutation entry out of range for a tensor of rank " +
                               std::to_string(rank));
      inverse[p] = i;
    }
    return importView(
        g, n, loc, "self",
        [&b, loc, perm](Value x, RankedTensorType ty) -> Value {
          return PermuteOp::create(b, loc, ty, x, perm);
        },
        [&b, loc, inverse](Value base, Value v) -> Value {
          return PermuteOp::create(b, loc, base.getType(), v, inverse);
        });
  };
  h["torch.ops.aten.permute.default"] = [&g, permute](const Object &n,
                                                     Location loc) -> LogicalResult {
    KILN_TRY(dims, g.intsArg(n, "dims", std::nullopt, loc));
    return permute(n, loc, *dims);
  };
  auto transpose = [&g, permute](const Object &n, Location loc, int64_t d0,
                                 int64_t d1) -> LogicalResult {
    KILN_TRY(var, g.varOfArg(n, "self", loc));
    int64_t rank = typeOf(g.readVar(*var)).getRank();
    if (rank == 0 && (d0 == 0 || d0 == -1) && (d1 == 0 || d1 == -1)) {
      SmallVector<std::string> outs = g.outputNames(n);
      if (outs.empty() || outs[0].empty())
        return g.fail(loc, "the node names no tensor output");
      g.varOf[outs[0]] = *var; // a 0-d tensor is its own transpose
      return success();
    }
    d0 = normDim(d0, rank);
    d1 = normDim(d1, rank);
    if (d0 < 0 || d0 >= rank || d1 < 0 || d1 >= rank)
      return g.fail(loc, "transpose: dims out of range for a tensor of rank " +
                             std::to_string(rank));
    SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    std::swap(perm[d0], perm[d1]);
    return permute(n, loc, perm);
  };
  h["torch.ops.aten.transpose.int"] = [&g, transpose](const Object &n,
                                                     Location loc) -> LogicalResult {
    KILN_TRY(d0, g.intArg(n, "dim0", std::nullopt, loc));
    KILN_TRY(d1, g.intArg(n, "dim1", std::nullopt, loc));
    return transpose(n, loc, *d0, *d1);
  };
  h["torch.ops.aten.t.default"] = [&g, transpose](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(var, g.varOfArg(n, "self", loc));
    if (typeOf(g.readVar(*var)).getRank() < 2) { // t of a 0-d or 1-d tensor is itself
      SmallVector<std::string> outs = g.outputNames(n);
      if (outs.empty() || outs[0].empty())
        return g.fail(loc, "the node names no tensor output");
      g.varOf[outs[0]] = *var;
      return success();
    }
    return transpose(n, loc, 0, 1);
  };

  // movedim: source dims moved to destination positions, the others keep their order.
  auto movedim = [&g, permute](const Object &n, Location loc, SmallVector<int64_t> src,
                               SmallVector<int64_t> dst) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    int64_t rank = typeOf(*x).getRank();
    if (src.size() != dst.size())
      return g.fail(loc, "movedim: source and destination differ in length");
    SmallVector<int64_t> perm(rank, -1);
    SmallVector<bool> used(rank, false);
    for (auto [a, c] : llvm::zip(src, dst)) {
      int64_t sa = normDim(a, rank), dc = normDim(c, rank);
      if (sa < 0 || sa >= rank || dc < 0 || dc >= rank || perm[dc] >= 0 || used[sa])
        return g.fail(loc, "movedim: dims out of range or repeated");
      perm[dc] = sa;
      used[sa] = true;
    }
    int64_t next = 0;
    for (int64_t &p : perm) {
      if (p >= 0)
        continue;
      while (used[next])
        ++next;
      p = next;
      used[next] = true;
    }
    if (rank == 0) { // a 0-d tensor is its own movedim
      KILN_TRY(var, g.varOfArg(n, "self", loc));
      SmallVector<std::string> outs = g.outputNames(n);
      if (outs.empty() || outs[0].empty())
        return g.fail(loc, "the node names no tensor output");
      g.varOf[outs[0]] = *var;
      return success();
    }
    return permute(n, loc, perm);
  };
  h["torch.ops.aten.movedim.int"] = [&g, movedim](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(a, g.intArg(n, "source", std::nullopt, loc));
    KILN_TRY(c, g.intArg(n, "destination", std::nullopt, loc));
    return movedim(n, loc, {*a}, {*c});
  };
  h["torch.ops.aten.movedim.intlist"] = [&g, movedim](const Object &n,
                                                     Location loc) -> LogicalResult {
    KILN_TRY(a, g.intsArg(n, "source", std::nullopt, loc));
    KILN_TRY(c, g.intsArg(n, "destination", std::nullopt, loc));
    return movedim(n, loc, *a, *c);
  };
  // view_as / reshape_as: the shape of `other`.
  auto shapeOf = [&b](Value other, Location loc) {
    Mixed sizes;
    for (int64_t d = 0; d < typeOf(other).getRank(); ++d)
      sizes.add(dimSize(b, loc, other, d));
    return sizes;
  };
  // view_as (a view: `asView`) and reshape_as (a copy where a view cannot be).
  auto reshapeAs = [&g, &b, shapeOf, reshapeLike](const Object &n, Location loc,
                                                  bool asView) -> LogicalResult {
    KILN_TRY(other, g.tensorArg(n, "other", loc));
    Mixed sizes = shapeOf(*other, loc);
    return reshapeLike(
        n, loc,
        [&b, loc, sizes](Value x, RankedTensorType ty) -> Value {
          return ViewOp::create(b, loc, ty, x, sizes.dynamic, sizes.statics);
        },
        asView);
  };
  h["torch.ops.aten.view_as.default"] = [reshapeAs](const Object &n, Location loc) {
    return reshapeAs(n, loc, true);
  };
  h["torch.ops.aten.reshape_as.default"] = [reshapeAs](const Object &n, Location loc) {
    return reshapeAs(n, loc, false);
  };
  h["torch.ops.aten.expand_as.default"] = [&g, &b, shapeOf](const Object &n,
                                                           Location loc) -> LogicalResult {
    KILN_TRY(other, g.tensorArg(n, "other", loc));
    Mixed sizes = shapeOf(*other, loc);
    return importView(
        g, n, loc, "self",
        [&b, loc, sizes](Value x, RankedTensorType ty) -> Value {
          return ExpandOp::create(b, loc, ty, x, sizes.dynamic, sizes.statics);
        },
        nullptr);
  };

  // --- expand (a view that cannot be written through)
  h["torch.ops.aten.expand.default"] = [&g, &b](const Object &n, Location loc) -> LogicalResult {
    SmallVector<int64_t> statics;
    SmallVector<Value> dynamic;
    if (failed(g.symIntsArg(n, "size", statics, dynamic, loc)))
      return failure();
    return importView(
        g, n, loc, "self",
        [&b, loc, statics, dynamic](Value x, RankedTensorType ty) -> Value {
          return ExpandOp::create(b, loc, ty, x, dynamic, statics);
        },
        nullptr);
  };
  // broadcast_to(self, size) is expand(self, size) (ATen's CompositeImplicit definition).
  h["torch.ops.aten.broadcast_to.default"] = h["torch.ops.aten.expand.default"];

  // --- slice, select, narrow, diagonal, unfold, as_strided
  h["torch.ops.aten.slice.Tensor"] = [&g, &b](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(dim, g.intArg(n, "dim", 0, loc));
    KILN_TRY(start, g.symIntArg(n, "start", 0, loc));
    KILN_TRY(end, g.symIntArg(n, "end", kMaxEnd, loc));
    KILN_TRY(step, g.intArg(n, "step", 1, loc));
    if (*step < 1)
      return g.fail(loc, "slice step must be positive, got " + std::to_string(*step));
    int64_t d = *dim, st = *step;
    Value s = *start, e = *end;
    return importView(
        g, n, loc, "self",
        [&b, loc, d, s, e, st](Value x, RankedTensorType ty) {
          return makeSlice(b, loc, x, ty, d, s, e, st);
        },
        [&b, loc, d, s, e, st](Value base, Value v) {
          return makeSliceScatter(b, loc, base, v, d, s, e, st);
        });
  };
  h["torch.ops.aten.narrow.default"] = [&g, &b](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    KILN_TRY(dim, g.intArg(n, "dim", std::nullopt, loc));
    KILN_TRY(start, g.symIntArg(n, "start", std::nullopt, loc));
    KILN_TRY(length, g.symIntArg(n, "length", std::nullopt, loc));
    int64_t rank = typeOf(*x).getRank(), d = normDim(*dim, rank);
    if (d < 0 || d >= rank)
      return g.fail(loc, "narrow: dim out of range");
    // A negative start counts from the end (then the slice is [start, start+length)).
    Value size = dimSize(b, loc, *x, d);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value neg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, *start, zero);
    Value s = b.createOrFold<arith::SelectOp>(
        loc, neg, b.createOrFold<arith::AddIOp>(loc, *start, size), *start);
    Value e = b.createOrFold<arith::AddIOp>(loc, s, *length);
    return importView(
        g, n, loc, "self",
        [&b, loc, d, s, e](Value x, RankedTensorType ty) {
          return makeSlice(b, loc, x, ty, d, s, e, 1);
        },
        [&b, loc, d, s, e](Value base, Value v) {
          return makeSliceScatter(b, loc, base, v, d, s, e, 1);
        });
  };
  h["torch.ops.aten.select.int"] = [&g, &b](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(dim, g.intArg(n, "dim", std::nullopt, loc));
    KILN_TRY(index, g.symIntArg(n, "index", std::nullopt, loc));
    int64_t d = *dim;
    Mixed idx;
    idx.add(*index);
    auto make = [&b, loc, d, idx](Value x, RankedTensorType ty) -> Value {
      return SelectIntOp::create(b, loc, ty, x, idx.dynamic, idx.statics, d);
    };
    return importView(g, n, loc, "self", make, [&b, loc, d, idx](Value base, Value v) -> Value {
      return SelectScatterOp::create(b, loc, base.getType(), base, v, idx.dynamic, idx.statics,
                                     d);
    });
  };
  h["torch.ops.aten.diagonal.default"] = [&g, &b](const Object &n,
                                                  Location loc) -> LogicalResult {
    KILN_TRY(off, g.intArg(n, "offset", 0, loc));
    KILN_TRY(d1, g.intArg(n, "dim1", 0, loc));
    KILN_TRY(d2, g.intArg(n, "dim2", 1, loc));
    int64_t o = *off, a = *d1, c = *d2;
    return importView(
        g, n, loc, "self",
        [&b, loc, o, a, c](Value x, RankedTensorType ty) -> Value {
          return DiagonalOp::create(b, loc, ty, x, o, a, c);
        },
        [&b, loc, o, a, c](Value base, Value v) -> Value {
          return DiagonalScatterOp::create(b, loc, base.getType(), base, v, o, a, c);
        });
  };
  h["torch.ops.aten.unfold.default"] = [&g, &b](const Object &n,
                                                Location loc) -> LogicalResult {
    KILN_TRY(dim, g.intArg(n, "dimension", std::nullopt, loc));
    KILN_TRY(size, g.intArg(n, "size", std::nullopt, loc));
    KILN_TRY(step, g.intArg(n, "step", std::nullopt, loc));
    int64_t d = *dim, sz = *size, st = *step;
    return importView(
        g, n, loc, "self",
        [&b, loc, d, sz, st](Value x, RankedTensorType ty) -> Value {
          return UnfoldOp::create(b, loc, ty, x, d, sz, st);
        },
        nullptr);
  };
  h["torch.ops.aten.as_strided.default"] = [&g, &b, view](const Object &n,
                                                          Location loc) -> LogicalResult {
    // A symbolic size: Core ATen IR writes some reshapes of a contiguous tensor
    // so (adaptive_avg_pool2d of a [B, C, H, W] tensor to [B, C, 1, 1]); they
    // are views when the strides are the row-major strides of the sizes.
    const Object *sizeArg = g.argOf(n, "size");
    if (sizeArg && sizeArg->getArray("as_sym_ints")) {
      SmallVector<int64_t> statics;
      SmallVector<Value> dynamic;
      if (failed(g.symIntsArg(n, "size", statics, dynamic, loc)))
        return failure();
      KILN_TRY(stride, g.intsArg(n, "stride", std::nullopt, loc));
      int64_t offset = 0;
      if (!g.isNone(n, "storage_offset")) {
        KILN_TRY(o, g.intArg(n, "storage_offset", 0, loc));
        offset = *o;
      }
      // Row-major strides, from the last dim: a symbolic dim may come only
      // where no stride depends on its value (before it, every dim is 1).
      bool rowMajor = offset == 0 && stride->size() == statics.size() &&
                      recordedContiguous(g, argName(g, n, "self"));
      int64_t expected = 1;
      bool symbolicSeen = false;
      for (int64_t i = static_cast<int64_t>(statics.size()) - 1; rowMajor && i >= 0; --i) {
        if (statics[i] == kDyn) {
          rowMajor = !symbolicSeen && (*stride)[i] == expected;
          symbolicSeen = true;
          continue;
        }
        if (statics[i] != 1 && (symbolicSeen || (*stride)[i] != expected))
          rowMajor = false;
        expected *= statics[i];
      }
      if (!rowMajor)
        return g.fail(loc, "as_strided with a symbolic size is supported only as a view of a "
                           "contiguous tensor with the row-major strides of its sizes");
      return view(n, loc, "size", true);
    }
    KILN_TRY(size, g.intsArg(n, "size", std::nullopt, loc));
    KILN_TRY(stride, g.intsArg(n, "stride", std::nullopt, loc));
    int64_t offset = 0;
    if (!g.isNone(n, "storage_offset")) {
      KILN_TRY(o, g.intArg(n, "storage_offset", 0, loc));
      offset = *o;
    }
    if (!recordedContiguous(g, argName(g, n, "self")))
      return g.fail(loc, "as_strided of a tensor that is itself a strided view is not "
                         "supported (only of a contiguous tensor at storage offset 0)");
    SmallVector<int64_t> sz = *size, st = *stride;
    return importView(
        g, n, loc, "self",
        [&b, loc, sz, st, offset](Value x, RankedTensorType ty) -> Value {
          return AsStridedOp::create(b, loc, ty, x, sz, st, offset);
        },
        nullptr);
  };

  // --- multi-output views: split, split_with_sizes, chunk, unbind, tensor_split
  // Output i is the slice [starts[i], ends[i]) of `dim` (values, built once).
  auto splitInto = [&g, &b](const Object &n, Location loc, int64_t dim, SmallVector<Value> starts,
                            SmallVector<Value> ends) -> LogicalResult {
    return importViews(
        g, n, loc, "self",
        [&](unsigned i) -> MakeView {
          Value s = starts[i], e = ends[i];
          return [&b, loc, dim, s, e](Value x, RankedTensorType ty) {
            return makeSlice(b, loc, x, ty, dim, s, e, 1);
          };
        },
        [&](unsigned i) -> GraphImporter::ScatterFn {
          Value s = starts[i], e = ends[i];
          return [&b, loc, dim, s, e](Value base, Value v) {
            return makeSliceScatter(b, loc, base, v, dim, s, e, 1);
          };
        });
  };
  // Equal pieces of `size` (the last may be shorter), as many as the node has outputs.
  auto splitEvenly = [&g, &b, splitInto](const Object &n, Location loc, int64_t dim,
                                         Value size) -> LogicalResult {
    size_t count = g.outputNames(n).size();
    SmallVector<Value> starts, ends;
    for (size_t i = 0; i < count; ++i) {
      Value iv = arith::ConstantIndexOp::create(b, loc, i);
      Value s = b.createOrFold<arith::MulIOp>(loc, iv, size);
      starts.push_back(s);
      ends.push_back(b.createOrFold<arith::AddIOp>(loc, s, size));
    }
    return splitInto(n, loc, dim, starts, ends);
  };
  h["torch.ops.aten.split.Tensor"] = [&g, splitEvenly](const Object &n,
                                                      Location loc) -> LogicalResult {
    KILN_TRY(size, g.symIntArg(n, "split_size", std::nullopt, loc));
    KILN_TRY(dim, g.intArg(n, "dim", 0, loc));
    return splitEvenly(n, loc, *dim, *size);
  };
  h["torch.ops.aten.chunk.default"] = [&g, &b, splitEvenly](const Object &n,
                                                           Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    KILN_TRY(chunks, g.intArg(n, "chunks", std::nullopt, loc));
    KILN_TRY(dim, g.intArg(n, "dim", 0, loc));
    int64_t rank = typeOf(*x).getRank(), d = normDim(*dim, rank);
    if (d < 0 || d >= rank || *chunks < 1)
      return g.fail(loc, "chunk: bad dim or chunk count");
    // Pieces of ceil(size / chunks).
    Value size = dimSize(b, loc, *x, d);
    Value piece = b.createOrFold<arith::CeilDivSIOp>(
        loc, size, arith::ConstantIndexOp::create(b, loc, *chunks));
    return splitEvenly(n, loc, *dim, piece);
  };
  auto splitSizes = [&g, &b, splitInto](const Object &n, Location loc,
                                        StringRef name) -> LogicalResult {
    SmallVector<int64_t> statics;
    SmallVector<Value> dynamic;
    if (failed(g.symIntsArg(n, name, statics, dynamic, loc)))
      return failure();
    KILN_TRY(dim, g.intArg(n, "dim", 0, loc));
    SmallVector<Value> starts, ends;
    Value at = arith::ConstantIndexOp::create(b, loc, 0);
    unsigned next = 0;
    for (int64_t s : statics) {
      Value len = s == kDyn ? dynamic[next++] : arith::ConstantIndexOp::create(b, loc, s);
      starts.push_back(at);
      at = b.createOrFold<arith::AddIOp>(loc, at, len);
      ends.push_back(at);
    }
    if (starts.size() != g.outputNames(n).size())
      return g.fail(loc, "split sizes do not match the node's outputs");
    return splitInto(n, loc, *dim, starts, ends);
  };
  h["torch.ops.aten.split_with_sizes.default"] = [splitSizes](const Object &n, Location loc) {
    return splitSizes(n, loc, "split_sizes");
  };
  h["torch.ops.aten.split.sizes"] = [splitSizes](const Object &n, Location loc) {
    return splitSizes(n, loc, "split_size");
  };
  // Pieces before each of `points` and after the last (tensor_split.indices).
  auto splitAt = [&g, &b, splitInto](const Object &n, Location loc, int64_t dim,
                                     SmallVector<int64_t> statics,
                                     SmallVector<Value> dynamic) -> LogicalResult {
    SmallVector<Value> starts{arith::ConstantIndexOp::create(b, loc, 0)}, ends;
    unsigned next = 0;
    for (int64_t s : statics) {
      Value v = s == kDyn ? dynamic[next++] : arith::ConstantIndexOp::create(b, loc, s);
      ends.push_back(v);
      starts.push_back(v);
    }
    ends.push_back(arith::ConstantIndexOp::create(b, loc, kMaxEnd));
    return splitInto(n, loc, dim, starts, ends);
  };
  // `sections` near-equal pieces: the first size % sections have one more.
  auto splitSections = [&g, &b, splitInto](const Object &n, Location loc, int64_t dim,
                                           int64_t sections) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    int64_t rank = typeOf(*x).getRank(), d = normDim(dim, rank);
    if (d < 0 || d >= rank || sections < 1)
      return g.fail(loc, "tensor_split: bad dim or section count");
    Value size = dimSize(b, loc, *x, d);
    Value k = arith::ConstantIndexOp::create(b, loc, sections);
    Value q = b.createOrFold<arith::DivSIOp>(loc, size, k);
    Value r = b.createOrFold<arith::RemSIOp>(loc, size, k);
    // start(i) = i * q + min(i, r)
    auto startOf = [&](int64_t i) {
      Value j = arith::ConstantIndexOp::create(b, loc, i);
      return b.createOrFold<arith::AddIOp>(loc, b.createOrFold<arith::MulIOp>(loc, j, q),
                                           b.createOrFold<arith::MinSIOp>(loc, j, r));
    };
    SmallVector<Value> starts, ends;
    for (int64_t i = 0; i < sections; ++i) {
      starts.push_back(startOf(i));
      ends.push_back(startOf(i + 1));
    }
    return splitInto(n, loc, d, starts, ends);
  };
  h["torch.ops.aten.tensor_split.indices"] = [&g, splitAt](const Object &n,
                                                          Location loc) -> LogicalResult {
    SmallVector<int64_t> statics;
    SmallVector<Value> dynamic;
    if (failed(g.symIntsArg(n, "indices", statics, dynamic, loc)))
      return failure();
    KILN_TRY(dim, g.intArg(n, "dim", 0, loc));
    return splitAt(n, loc, *dim, statics, dynamic);
  };
  h["torch.ops.aten.tensor_split.sections"] = [&g, splitSections](const Object &n,
                                                                 Location loc) -> LogicalResult {
    KILN_TRY(sections, g.intArg(n, "sections", std::nullopt, loc));
    KILN_TRY(dim, g.intArg(n, "dim", 0, loc));
    return splitSections(n, loc, *dim, *sections);
  };
  // hsplit / vsplit / dsplit: tensor_split along dim 1 (0 for a 1-d tensor), 0, 2;
  // an int splits into equal sections (the dim must divide), a list at indices.
  for (auto [name, dimOf] : {std::pair<const char *, int>{"hsplit", 1}, {"vsplit", 0},
                             {"dsplit", 2}}) {
    int fixed = dimOf;
    std::string nm = name;
    auto dimFor = [fixed, nm](GraphImporter &g, const Object &n, Location loc) -> int64_t {
      auto x = g.tensorArg(n, "self", loc);
      if (failed(x))
        return -1;
      return nm == "hsplit" && typeOf(*x).getRank() == 1 ? 0 : fixed;
    };
    h["torch.ops.aten." + nm + ".int"] = [&g, dimFor, splitSections, nm](
                                             const Object &n, Location loc) -> LogicalResult {
      KILN_TRY(sections, g.intArg(n, "sections", std::nullopt, loc));
      KILN_TRY(x, g.tensorArg(n, "self", loc));
      int64_t d = dimFor(g, n, loc);
      if (d < 0 || d >= typeOf(*x).getRank())
        return g.fail(loc, nm + " needs a tensor of rank > " + std::to_string(d));
      int64_t size = typeOf(*x).getDimSize(d);
      if (size != kDyn && *sections > 0 && size % *sections)
        return g.fail(loc, nm + ": dim " + std::to_string(d) + " of size " +
                               std::to_string(size) + " does not divide into " +
                               std::to_string(*sections) + " equal sections");
      return splitSections(n, loc, d, *sections);
    };
    h["torch.ops.aten." + nm + ".array"] = [&g, dimFor, splitAt, nm](
                                               const Object &n, Location loc) -> LogicalResult {
      KILN_TRY(idx, g.intsArg(n, "indices", std::nullopt, loc));
      KILN_TRY(x, g.tensorArg(n, "self", loc));
      int64_t d = dimFor(g, n, loc);
      if (d < 0 || d >= typeOf(*x).getRank())
        return g.fail(loc, nm + " needs a tensor of rank > " + std::to_string(d));
      return splitAt(n, loc, d, *idx, {});
    };
  }
  for (auto [unsafe, safe] : {std::pair<const char *, const char *>{"unsafe_split.Tensor", "split.Tensor"},
                               {"unsafe_split_with_sizes.default", "split_with_sizes.default"},
                               {"unsafe_chunk.default", "chunk.default"}})
    h[std::string("torch.ops.aten.") + unsafe] = h[std::string("torch.ops.aten.") + safe];
  h["torch.ops.aten.unbind.int"] = [&g, &b](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(dim, g.intArg(n, "dim", 0, loc));
    int64_t d = *dim;
    return importViews(
        g, n, loc, "self",
        [&](unsigned i) -> MakeView {
          return [&b, loc, d, i](Value x, RankedTensorType ty) -> Value {
            return SelectIntOp::create(b, loc, ty, x, ValueRange{},
                                       ArrayRef<int64_t>{(int64_t)i}, d);
          };
        },
        [&](unsigned i) -> GraphImporter::ScatterFn {
          return [&b, loc, d, i](Value base, Value v) -> Value {
            return SelectScatterOp::create(b, loc, base.getType(), base, v, ValueRange{},
                                           ArrayRef<int64_t>{(int64_t)i}, d);
          };
        });
  };

  // --- joins and scatters (new tensors)
  auto tensorList = [&g](const Object &n, StringRef name,
                         Location loc) -> FailureOr<SmallVector<Value>> {
    const Object *arg = g.argOf(n, name);
    const Array *ts = arg ? arg->getArray("as_tensors") : nullptr;
    if (!ts)
      return ((void)g.fail(loc, "expected a list of tensors for argument '" + name + "'"),
              failure());
    SmallVector<Value> out;
    for (const json::Value &t : *ts) {
      const Object *o = t.getAsObject();
      auto it = o ? g.varOf.find(o->getString("name").value_or("")) : g.varOf.end();
      if (it == g.varOf.end())
        return ((void)g.fail(loc, "argument '" + name + "' uses an undefined tensor"), failure());
      out.push_back(g.readVar(it->second));
    }
    return out;
  };
  h["torch.ops.aten.cat.default"] = [&g, tensorList](const Object &n,
                                                    Location loc) -> LogicalResult {
    KILN_TRY(ts, tensorList(n, "tensors", loc));
    KILN_TRY(dim, g.intArg(n, "dim", 0, loc));
    return g.emitOp<CatOp>(n, loc, *ts, *dim);
  };
  h["torch.ops.aten.stack.default"] = [&g, &b, tensorList](const Object &n,
                                                          Location loc) -> LogicalResult {
    KILN_TRY(ts, tensorList(n, "tensors", loc));
    KILN_TRY(dim, g.intArg(n, "dim", 0, loc));
    if (ts->empty())
      return g.fail(loc, "stack expects a non-empty list of tensors");
    int64_t rank = typeOf((*ts)[0]).getRank(), d = normDim(*dim, rank + 1);
    if (d < 0 || d > rank)
      return g.fail(loc, "stack: dim " + std::to_string(*dim) +
                             " is out of range for tensors of rank " + std::to_string(rank));
    SmallVector<Value> parts;
    for (Value t : *ts) {
      SmallVector<int64_t> shape(typeOf(t).getShape());
      shape.insert(shape.begin() + d, 1);
      parts.push_back(UnsqueezeOp::create(
          b, loc, RankedTensorType::get(shape, typeOf(t).getElementType()), t, d));
    }
    return g.emitOp<CatOp>(n, loc, parts, d);
  };
  // hstack / vstack / dstack / column_stack: cat of the tensors made at least
  // 1-, 2- or 3-d (a [n] tensor is [1, n] for vstack, [1, n, 1] for dstack,
  // [n, 1] for column_stack).
  auto atLeast = [&b](Value t, Location loc, int64_t rank, bool column) -> Value {
    auto ty = typeOf(t);
    int64_t r = ty.getRank();
    if (r >= rank && !(column && r < 2))
      return t;
    SmallVector<Value> sizes;
    for (int64_t d = 0; d < r; ++d)
      sizes.push_back(dimSize(b, loc, t, d));
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    if (column) {
      sizes.resize(1, one);
      sizes.push_back(one);
    } else if (rank == 2) {
      sizes.insert(sizes.begin(), one);
      if (r == 0)
        sizes.push_back(one);
    } else if (rank == 3) {
      if (r == 0)
        sizes = {one, one, one};
      else if (r == 1)
        sizes = {one, sizes[0], one};
      else
        sizes.push_back(one);
    } else {
      sizes = {one};
    }
    Mixed m;
    SmallVector<int64_t> shape;
    for (Value s : sizes) {
      m.add(s);
      shape.push_back(m.statics.back());
    }
    return ViewOp::create(b, loc, RankedTensorType::get(shape, ty.getElementType()), t,
                          m.dynamic, m.statics);
  };
  auto stackLike = [&g, tensorList, atLeast](const Object &n, Location loc, int64_t rank,
                                             bool column, int64_t dim) -> LogicalResult {
    KILN_TRY(ts, tensorList(n, "tensors", loc));
    if (ts->empty())
      return g.fail(loc, "expected a non-empty list of tensors");
    SmallVector<Value> parts;
    for (Value t : *ts)
      parts.push_back(atLeast(t, loc, rank, column));
    // hstack joins 1-d tensors along dim 0.
    int64_t d = dim == 1 && !column && typeOf(parts[0]).getRank() == 1 ? 0 : dim;
    return g.emitOp<CatOp>(n, loc, parts, d);
  };
  h["torch.ops.aten.hstack.default"] = [stackLike](const Object &n, Location loc) {
    return stackLike(n, loc, 1, false, 1);
  };
  h["torch.ops.aten.vstack.default"] = [stackLike](const Object &n, Location loc) {
    return stackLike(n, loc, 2, false, 0);
  };
  h["torch.ops.aten.row_stack.default"] = h["torch.ops.aten.vstack.default"];
  h["torch.ops.aten.dstack.default"] = [stackLike](const Object &n, Location loc) {
    return stackLike(n, loc, 3, false, 2);
  };
  h["torch.ops.aten.column_stack.default"] = [stackLike](const Object &n, Location loc) {
    return stackLike(n, loc, 2, true, 1);
  };
  h["torch.ops.aten.copy.default"] = [&g](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(self, g.tensorArg(n, "self", loc));
    KILN_TRY(src, g.tensorArg(n, "src", loc));
    return g.emitOp<CopyOp>(n, loc, *self, *src);
  };
  h["torch.ops.aten.slice_scatter.default"] = [&g](const Object &n,
                                                  Location loc) -> LogicalResult {
    KILN_TRY(self, g.tensorArg(n, "self", loc));
    KILN_TRY(src, g.tensorArg(n, "src", loc));
    KILN_TRY(dim, g.intArg(n, "dim", 0, loc));
    KILN_TRY(start, g.symIntArg(n, "start", 0, loc));
    KILN_TRY(end, g.symIntArg(n, "end", kMaxEnd, loc));
    KILN_TRY(step, g.intArg(n, "step", 1, loc));
    if (*step < 1)
      return g.fail(loc, "slice_scatter step must be positive, got " + std::to_string(*step));
    Mixed bounds;
    bounds.add(*start);
    bounds.add(*end);
    return g.emitOp<SliceScatterOp>(n, loc, *self, *src, bounds.dynamic, bounds.statics, *dim,
                                    *step);
  };
  h["torch.ops.aten.select_scatter.default"] = [&g](const Object &n,
                                                   Location loc) -> LogicalResult {
    KILN_TRY(self, g.tensorArg(n, "self", loc));
    KILN_TRY(src, g.tensorArg(n, "src", loc));
    KILN_TRY(dim, g.intArg(n, "dim", std::nullopt, loc));
    KILN_TRY(index, g.symIntArg(n, "index", std::nullopt, loc));
    Mixed idx;
    idx.add(*index);
    return g.emitOp<SelectScatterOp>(n, loc, *self, *src, idx.dynamic, idx.statics, *dim);
  };
  h["torch.ops.aten.diagonal_scatter.default"] = [&g](const Object &n,
                                                     Location loc) -> LogicalResult {
    KILN_TRY(self, g.tensorArg(n, "self", loc));
    KILN_TRY(src, g.tensorArg(n, "src", loc));
    KILN_TRY(off, g.intArg(n, "offset", 0, loc));
    KILN_TRY(d1, g.intArg(n, "dim1", 0, loc));
    KILN_TRY(d2, g.intArg(n, "dim2", 1, loc));
    return g.emitOp<DiagonalScatterOp>(n, loc, *self, *src, *off, *d1, *d2);
  };
  // contiguous: the input itself when export saw it contiguous, else a copy.
  h["torch.ops.aten.contiguous.default"] = [&g](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(var, g.varOfArg(n, "self", loc));
    SmallVector<std::string> outs = g.outputNames(n);
    if (outs.empty() || outs[0].empty())
      return g.fail(loc, "the node names no tensor output");
    if (recordedContiguous(g, argName(g, n, "self")))
      g.varOf[outs[0]] = *var;
    else
      g.varOf[outs[0]] = g.newVar(g.readVar(*var));
    return success();
  };

  // --- sizes and SymInt arithmetic
  h["torch.ops.aten.sym_size.int"] = [&g](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    KILN_TRY(d, g.intArg(n, "dim", std::nullopt, loc));
    return g.emitOp<SymSizeIntOp>(n, loc, *x, *d);
  };
  // Binds the single SymInt/SymBool/SymFloat output of `n` to `v`.
  auto bindScalar = [&g](const Object &n, Value v) -> LogicalResult {
    const Array *outs = n.getArray("outputs");
    const Object *o = outs && outs->size() == 1 ? (*outs)[0].getAsObject() : nullptr;
    for (StringRef kind : {"as_sym_int", "as_sym_bool", "as_sym_float"})
      if (const Object *s = o ? o->getObject(kind) : nullptr) {
        g.values[s->getString("as_name").value_or("")] = v;
        return success();
      }
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
  auto binary = [&g, &b, operand, bindScalar](const Object &n, Location loc,
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
  reg("_operator.add", intOrFloat(
                           [](OpBuilder &b, Location l, Value x, Value y) -> Value {
                             return b.createOrFold<arith::AddIOp>(l, x, y);
                           },
                           [](OpBuilder &b, Location l, Value x, Value y) -> Value {
                             return arith::AddFOp::create(b, l, x, y);
                           }));
  reg("_operator.sub", intOrFloat(
                           [](OpBuilder &b, Location l, Value x, Value y) -> Value {
                             return b.createOrFold<arith::SubIOp>(l, x, y);
                           },
                           [](OpBuilder &b, Location l, Value x, Value y) -> Value {
                             return arith::SubFOp::create(b, l, x, y);
                           }));
  reg("_operator.mul", intOrFloat(
                           [](OpBuilder &b, Location l, Value x, Value y) -> Value {
                             return b.createOrFold<arith::MulIOp>(l, x, y);
                           },
                           [](OpBuilder &b, Location l, Value x, Value y) -> Value {
                             return arith::MulFOp::create(b, l, x, y);
                           }));
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
  auto unary = [&h, operand, bindScalar, &b](StringRef target,
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
