//===- Ops/Sequence.cpp - import handlers: diff, 1-d pooling, RNNs, cells ===//
#include "../ImporterImpl.h"

#include "ATen/IR/ATenSequenceOps.h"

namespace kiln::importer {

/// The names of the tensors argument `arg` of node `n` lists (or holds).
static SmallVector<std::string> argTensorNames(const Object &n, StringRef arg) {
  SmallVector<std::string> names;
  if (const Array *ins = n.getArray("inputs"))
    for (const json::Value &in : *ins) {
      const Object *o = in.getAsObject();
      if (!o || o->getString("name") != arg)
        continue;
      const Object *a = o->getObject("arg");
      if (!a)
        continue;
      if (const Object *t = a->getObject("as_tensor"))
        names.push_back(t->getString("name").value_or("").str());
      if (const Array *ts = a->getArray("as_tensors"))
        for (const json::Value &t : *ts)
          if (const Object *to = t.getAsObject())
            names.push_back(to->getString("name").value_or("").str());
    }
  return names;
}

/// Gives a recurrent node's final states (outputs 1..) the sizes of its
/// initial states (argument hx), as ATen defines them.
static void correctStateSizes(GraphImporter &g, const Object &n) {
  SmallVector<std::string> outs = g.outputNames(n), states = argTensorNames(n, "hx");
  for (size_t k = 0; k < states.size() && k + 1 < outs.size(); ++k) {
    const Object *in = g.tensorMeta(states[k]);
    const Object *out = g.tensorMeta(outs[k + 1]);
    const Array *inSizes = in ? in->getArray("sizes") : nullptr;
    const Array *outSizes = out ? out->getArray("sizes") : nullptr;
    if (inSizes && outSizes && inSizes->size() != outSizes->size())
      g.correctSizes(outs[k + 1], *inSizes);
  }
}

/// A recurrent node's initial states: argument hx as a list (lstm's (h, c))
/// or as one tensor.
static FailureOr<SmallVector<Value>> stateArgs(GraphImporter &g, const Object &n, bool stateList,
                                               Location loc) {
  if (stateList)
    return tensorListArg(g, n, "hx", loc);
  KILN_TRY(h0, g.tensorArg(n, "hx", loc));
  return SmallVector<Value>{*h0};
}

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
      KILN_TRY(hx, stateArgs(g, n, stateList, loc));
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
      // The final states have the shapes of the initial ones ([L*D, B, H], ATen's
      // lstm/gru), whatever the archive records: torch's meta decomposition of
      // lstm.input squeezes dim 1 where it means dim 0, so the archive lists
      // h_n and c_n as [L*D, 1, B, H] while the program (ATen's kernel, and
      // torch running the exported program) returns [L*D, B, H].
      correctStateSizes(g, n);
      return g.emitOp<OpT>(n, loc, *x, *hx, *params, *hasBiases, *layers, llvm::APFloat(*dropout), *train, *bidir,
                           *batchFirst);
    };
  };
  h["torch.ops.aten.lstm.input"] = recurrent(OpTag<LstmInputOp>{}, true);
  h["torch.ops.aten.gru.input"] = recurrent(OpTag<GruInputOp>{}, false);
  h["torch.ops.aten.rnn_tanh.input"] = recurrent(OpTag<RnnTanhInputOp>{}, false);
  h["torch.ops.aten.rnn_relu.input"] = recurrent(OpTag<RnnReluInputOp>{}, false);
  // Cells: lstm_cell takes hx as a list (h, c), the others as one tensor;
  // the biases come both or neither (nn.*Cell's bias=True/False).
  auto cell = [&g](auto tag, bool stateList) {
    using OpT = typename decltype(tag)::type;
    return [&g, stateList](const Object &n, Location loc) -> LogicalResult {
      KILN_TRY(x, g.tensorArg(n, "input", loc));
      KILN_TRY(hx, stateArgs(g, n, stateList, loc));
      KILN_TRY(wIh, g.tensorArg(n, "w_ih", loc));
      KILN_TRY(wHh, g.tensorArg(n, "w_hh", loc));
      KILN_TRY(bIh, g.optTensorArg(n, "b_ih", loc));
      KILN_TRY(bHh, g.optTensorArg(n, "b_hh", loc));
      SmallVector<Value> biases;
      if (*bIh && *bHh)
        biases = {*bIh, *bHh};
      else if (*bIh || *bHh)
        return g.fail(loc, "'" + n.getString("target").value_or("").str() +
                               "' with only one of b_ih and b_hh cannot be compiled; give both or neither");
      return g.emitOp<OpT>(n, loc, *x, *hx, *wIh, *wHh, biases);
    };
  };
  h["torch.ops.aten.lstm_cell.default"] = cell(OpTag<LstmCellOp>{}, true);
  h["torch.ops.aten.gru_cell.default"] = cell(OpTag<GruCellOp>{}, false);
  h["torch.ops.aten.rnn_tanh_cell.default"] = cell(OpTag<RnnTanhCellOp>{}, false);
  h["torch.ops.aten.rnn_relu_cell.default"] = cell(OpTag<RnnReluCellOp>{}, false);
}

} // namespace kiln::importer
