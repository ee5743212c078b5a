//===- Ops/Shape.cpp - import handlers: views and sizes ---------------------===//
#include "../ImporterImpl.h"

namespace kiln::importer {

void registerShapeHandlers(GraphImporter &g) {
  using namespace kiln::aten;
  auto &h = g.handlers;
  h["torch.ops.aten.permute.default"] = [&g](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    KILN_TRY(dims, g.intsArg(n, "dims", std::nullopt, loc));
    return g.emitOp<PermuteOp>(n, loc, *x, *dims);
  };
  auto view = [&g](const Object &n, Location loc, StringRef sizeName) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    SmallVector<int64_t> statics;
    SmallVector<Value> dynamic;
    if (failed(g.symIntsArg(n, sizeName, statics, dynamic, loc)))
      return failure();
    return g.emitOp<ViewOp>(n, loc, *x, dynamic, statics);
  };
  h["torch.ops.aten.view.default"] = [view](const Object &n, Location loc) {
    return view(n, loc, "size");
  };
  h["torch.ops.aten.reshape.default"] = [view](const Object &n, Location loc) {
    return view(n, loc, "shape");
  };
  h["torch.ops.aten.flatten.using_ints"] = [&g](const Object &n,
                                                  Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    KILN_TRY(s, g.intArg(n, "start_dim", 0, loc));
    KILN_TRY(e, g.intArg(n, "end_dim", -1, loc));
    return g.emitOp<FlattenUsingIntsOp>(n, loc, *x, *s, *e);
  };
  h["torch.ops.aten.sym_size.int"] = [&g](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    KILN_TRY(d, g.intArg(n, "dim", std::nullopt, loc));
    return g.emitOp<SymSizeIntOp>(n, loc, *x, *d);
  };
#undef KILN_TRY
}

} // namespace kiln::importer
