//===- Ops/Shape.cpp - import handlers: views --------------------------------===//
//
// Views are table-driven: each view node becomes one aten view op on the
// current value of its input and is bound as a view var (see ImporterImpl.h)
// with the op that writes a new value back through it (reshape back, inverse
// permute, slice_scatter, select_scatter, diagonal_scatter): reshapes,
// permutations, expand, slice/select/narrow/diagonal/unfold/as_strided.
// Multi-output views and joins are in SplitsAndJoins.cpp, sizes and SymInt
// arithmetic in SymInts.cpp.
//
//===----------------------------------------------------------------------===//
#include "ShapeUtils.h"

#include "mlir/Dialect/Math/IR/Math.h"

namespace kiln::importer {
using namespace shape;

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

}

} // namespace kiln::importer
