//===- Ops/Sequence.cpp - import handlers: diff, 1-d adaptive pooling, RNNs ===//
#include "../ImporterImpl.h"

#include "ATen/IR/ATenSequenceOps.h"

namespace kiln::importer {

void registerSequenceHandlers(GraphImporter &g) {
  using namespace kiln::aten;
  auto &h = g.handlers;
  h["torch.ops.aten.diff.default"] = [&g](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    KILN_TRY(order, g.intArg(n, "n", 1, loc));
    KILN_TRY(dim, g.intArg(n, "dim", -1, loc));
    KILN_TRY(prepend, g.optTensorArg(n, "prepend", loc));
    KILN_TRY(append, g.optTensorArg(n, "append", loc));
    return g.emitOp<DiffOp>(n, loc, *x, *prepend, *append, *order, *dim);
  };
  h["torch.ops.aten.adaptive_avg_pool1d.default"] = [&g](const Object &n,
                                                         Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    KILN_TRY(size, g.intsArg(n, "output_size", std::nullopt, loc));
    return g.emitOp<AdaptiveAvgPool1dOp>(n, loc, *x, *size);
  };
  // lstm.input takes hx as a list (h0, c0), gru.input as one tensor.
  auto recurrent = [&g](auto tag, bool stateList) {
    using OpT = typename decltype(tag)::type;
    return [&g, stateList](const Object &n, Location loc) -> LogicalResult {
      KILN_TRY(x, g.tensorArg(n, "input", loc));
      SmallVector<Value> hx;
      if (stateList) {
        KILN_TRY(list, tensorListArg(g, n, "hx", loc));
        hx = *list;
      } else {
        KILN_TRY(h0, g.tensorArg(n, "hx", loc));
        hx.push_back(*h0);
      }
      KILN_TRY(params, tensorListArg(g, n, "params", loc));
      KILN_TRY(hasBiases, g.boolArg(n, "has_biases", std::nullopt, loc));
      KILN_TRY(layers, g.intArg(n, "num_layers", std::nullopt, loc));
      KILN_TRY(dropout, g.floatArg(n, "dropout", std::nullopt, loc));
      KILN_TRY(train, g.boolArg(n, "train", std::nullopt, loc));
      KILN_TRY(bidir, g.boolArg(n, "bidirectional", std::nullopt, loc));
      KILN_TRY(batchFirst, g.boolArg(n, "batch_first", std::nullopt, loc));
      if (*train && *dropout != 0.0 && *layers > 1)
        return g.fail(loc, "'" + n.getString("target").value_or("").str() +
                               "' with dropout in training mode cannot be compiled (it is random); "
                               "export the model in eval mode");
      return g.emitOp<OpT>(n, loc, *x, hx, *params, *hasBiases, *layers, llvm::APFloat(*dropout), *train, *bidir,
                           *batchFirst);
    };
  };
  h["torch.ops.aten.lstm.input"] = recurrent(OpTag<LstmInputOp>{}, true);
  h["torch.ops.aten.gru.input"] = recurrent(OpTag<GruInputOp>{}, false);
}

} // namespace kiln::importer
