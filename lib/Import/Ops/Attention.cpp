//===- Ops/Attention.cpp - import handlers: attention -----------------------===//
#include "../ImporterImpl.h"

namespace kiln::importer {

void registerAttentionHandlers(GraphImporter &g) {
  using namespace kiln::aten;
  g.handlers["torch.ops.aten.scaled_dot_product_attention.default"] =
      [&g](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(q, g.tensorArg(n, "query", loc));
    KILN_TRY(k, g.tensorArg(n, "key", loc));
    KILN_TRY(v, g.tensorArg(n, "value", loc));
    KILN_TRY(mask, g.optTensorArg(n, "attn_mask", loc));
    KILN_TRY(dropout, g.floatArg(n, "dropout_p", 0.0, loc));
    KILN_TRY(causal, g.boolArg(n, "is_causal", false, loc));
    KILN_TRY(gqa, g.boolArg(n, "enable_gqa", false, loc));
    if (*dropout != 0.0)
      return g.fail(loc, "aten.scaled_dot_product_attention with dropout_p = " +
                             std::to_string(*dropout) +
                             " is random; kiln compiles it with dropout_p = 0 only");
    FloatAttr scale;
    if (!g.isNone(n, "scale")) {
      KILN_TRY(s, g.floatArg(n, "scale", std::nullopt, loc));
      scale = g.b.getF64FloatAttr(*s);
    }
    return g.emitOp<ScaledDotProductAttentionOp>(n, loc, *q, *k, *v, *mask,
                                                 g.b.getF64FloatAttr(*dropout),
                                                 g.b.getBoolAttr(*causal), scale,
                                                 g.b.getBoolAttr(*gqa));
  };
}

} // namespace kiln::importer
