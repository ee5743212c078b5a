//===- Ops/SplitsAndJoins.cpp - import handlers: multi-output views and joins ===//
//
// split, split_with_sizes, chunk, unbind, tensor_split and h/v/dsplit bind
// each output as a slice or select view of the input (ShapeUtils.h); cat,
// stack and the *stack family, the *_scatter ops and contiguous make new
// tensors.
//
//===----------------------------------------------------------------------===//
#include "ShapeUtils.h"

#include "mlir/Dialect/Math/IR/Math.h"

namespace kiln::importer {
using namespace shape;

void registerSplitJoinHandlers(GraphImporter &g) {
  auto &h = g.handlers;
  OpBuilder &b = g.b;

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
  auto splitAt = [&b, splitInto](const Object &n, Location loc, int64_t dim,
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
    // The dim split along, or a failure naming the rank it needs.
    auto dimFor = [fixed, nm](GraphImporter &g, const Object &n, Location loc,
                              Value x) -> FailureOr<int64_t> {
      int64_t d = nm == "hsplit" && typeOf(x).getRank() == 1 ? 0 : fixed;
      if (d >= typeOf(x).getRank())
        return g.fail(loc, nm + " needs a tensor of rank > " + std::to_string(d));
      return d;
    };
    h["torch.ops.aten." + nm + ".int"] = [&g, dimFor, splitSections, nm](
                                             const Object &n, Location loc) -> LogicalResult {
      KILN_TRY(sections, g.intArg(n, "sections", std::nullopt, loc));
      KILN_TRY(x, g.tensorArg(n, "self", loc));
      KILN_TRY(d, dimFor(g, n, loc, *x));
      int64_t size = typeOf(*x).getDimSize(*d);
      if (size != kDyn && *sections > 0 && size % *sections)
        return g.fail(loc, nm + ": dim " + std::to_string(*d) + " of size " +
                               std::to_string(size) + " does not divide into " +
                               std::to_string(*sections) + " equal sections");
      return splitSections(n, loc, *d, *sections);
    };
    h["torch.ops.aten." + nm + ".array"] = [&g, dimFor, splitAt, nm](
                                               const Object &n, Location loc) -> LogicalResult {
      KILN_TRY(idx, g.intsArg(n, "indices", std::nullopt, loc));
      KILN_TRY(x, g.tensorArg(n, "self", loc));
      KILN_TRY(d, dimFor(g, n, loc, *x));
      return splitAt(n, loc, *d, *idx, {});
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
}

} // namespace kiln::importer
