//===- Ops/ShapeUtils.cpp - size and view helpers shared by the import handlers ===//
#include "ShapeUtils.h"

namespace kiln::importer::shape {

void sizesOf(GraphImporter &g, Value x, Location loc, SmallVector<int64_t> &statics,
             SmallVector<Value> &dynamic) {
  auto ty = cast<RankedTensorType>(x.getType());
  for (int64_t d = 0; d < ty.getRank(); ++d) {
    statics.push_back(ty.getDimSize(d));
    if (ty.isDynamicDim(d))
      dynamic.push_back(SymSizeIntOp::create(g.b, loc, g.b.getIndexType(), x, d));
  }
}

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

} // namespace kiln::importer::shape
