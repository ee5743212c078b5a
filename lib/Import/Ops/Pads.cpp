//===- Ops/Pads.cpp - import handlers: pads -------------------------------===//
//
// constant_pad_nd and pad (constant, with static or symbolic amounts),
// reflection, replication and circular pads.
//
//===----------------------------------------------------------------------===//
#include "../ImporterImpl.h"
#include "Scalars.h"
#include "ShapeUtils.h"

namespace kiln::importer {

using namespace kiln::aten;
using shape::typeOf;

void registerPadHandlers(GraphImporter &g) {
  auto &h = g.handlers;
  OpBuilder &b = g.b;
  // A constant pad; amounts may be symbolic (a length padded up to a multiple
  // of a chunk): the static ones pad first, then each symbolic amount is a
  // block of the value concatenated before or after (a symbolic amount must
  // not be negative: it cannot crop).
  auto constantPad = [&g, &b](const Object &n, Location loc, Value x, double value) -> LogicalResult {
    SmallVector<int64_t> pad;
    SmallVector<Value> symbolic;
    if (failed(g.symIntsArg(n, "pad", pad, symbolic, loc)))
      return failure();
    if (symbolic.empty())
      return g.emitOp<ConstantPadNdOp>(n, loc, x, pad, APFloat(value));
    auto ty = typeOf(x);
    int64_t rank = ty.getRank();
    if (pad.size() % 2 || (int64_t)pad.size() / 2 > rank)
      return g.fail(loc, "constant_pad_nd: the pad list needs two entries per padded dim");
    SmallVector<int64_t> statics(pad);
    for (int64_t &p : statics)
      p = ShapedType::isDynamic(p) ? 0 : p;
    Value cur = x;
    if (llvm::any_of(statics, [](int64_t p) { return p != 0; })) {
      SmallVector<int64_t> shape(ty.getShape());
      for (size_t k = 0; k < statics.size(); ++k) {
        int64_t d = rank - 1 - (int64_t)k / 2;
        if (!ShapedType::isDynamic(shape[d]))
          shape[d] += statics[k];
      }
      cur = ConstantPadNdOp::create(b, loc, RankedTensorType::get(shape, ty.getElementType()), cur, statics,
                                    APFloat(value));
    }
    ScalarArg fill{ScalarArg::Float, 0, value, {}};
    KILN_TRY(attr, scalarAttr(g, fill, ty.getElementType(), loc));
    unsigned next = 0;
    for (size_t k = 0; k < pad.size(); ++k) {
      if (!ShapedType::isDynamic(pad[k]))
        continue;
      Value amount = symbolic[next++];
      int64_t d = rank - 1 - (int64_t)k / 2;
      auto cty = typeOf(cur);
      SmallVector<int64_t> blockShape(cty.getShape());
      SmallVector<Value> blockSizes;
      for (int64_t i = 0; i < rank; ++i) {
        if (i == d) {
          blockShape[i] = ShapedType::kDynamic;
          blockSizes.push_back(amount);
        } else if (cty.isDynamicDim(i)) {
          blockSizes.push_back(SymSizeIntOp::create(b, loc, b.getIndexType(), cur, i));
        }
      }
      Value block = FullOp::create(b, loc, RankedTensorType::get(blockShape, cty.getElementType()), blockSizes,
                                   b.getDenseI64ArrayAttr(blockShape), *attr);
      SmallVector<int64_t> catShape(cty.getShape());
      catShape[d] = ShapedType::kDynamic;
      SmallVector<Value> parts = k % 2 == 0 ? SmallVector<Value>{block, cur} : SmallVector<Value>{cur, block};
      cur = CatOp::create(b, loc, RankedTensorType::get(catShape, cty.getElementType()), parts, d);
    }
    SmallVector<std::string> outs = g.outputNames(n);
    if (outs.empty() || outs[0].empty())
      return g.fail(loc, "the node names no tensor output");
    KILN_TRY(rty, g.tensorType(outs[0], loc));
    if (cur.getType() != *rty)
      cur = tensor::CastOp::create(b, loc, *rty, cur);
    g.varOf[outs[0]] = g.newVar(cur);
    return success();
  };
  h["torch.ops.aten.constant_pad_nd.default"] = [&g, constantPad](const Object &n,
                                                                  Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    KILN_TRY(v, g.floatArg(n, "value", 0.0, loc));
    return constantPad(n, loc, *x, *v);
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
  h["torch.ops.aten.pad.default"] = [&g, gatherPad, constantPad](const Object &n,
                                                                Location loc) -> LogicalResult {
    KILN_TRY(mode, g.stringArg(n, "mode", std::string("constant"), loc));
    if (*mode == "constant") {
      KILN_TRY(x, g.tensorArg(n, "self", loc));
      double v = 0.0;
      if (!g.isNone(n, "value")) {
        KILN_TRY(fv, g.floatArg(n, "value", 0.0, loc));
        v = *fv;
      }
      return constantPad(n, loc, *x, v);
    }
    if (*mode != "reflect" && *mode != "replicate" && *mode != "circular")
      return g.fail(loc, "pad mode '" + *mode + "' is not supported");
    return gatherPad(n, loc, *mode, "pad");
  };
}

} // namespace kiln::importer
