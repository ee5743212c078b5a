//===- ConcatLinear.cpp - linear layers that read one input as one product -===//
//
// `aten.linear` ops that read the same input with weights (and biases) the
// entry takes as fixed weights -- attention's query, key and value
// projections, a gated MLP's gate and up projections -- become one linear
// layer whose weight and bias are the originals stacked along the output
// features, derived once at load (`concat-rows`), followed by a slice of its
// result per original layer. One larger product instead of several small
// ones: fewer launches and more of the GPU busy at small batches, as
// Inductor's freezing does for matmuls that share an input.
// docs/Rationale/folded-weights.md.
//
//===----------------------------------------------------------------------===//

#include "kiln/Transforms/Passes.h"
#include "ATen/IR/ATenDialect.h"
#include "DerivedArgs.h"
#include "kiln/abi/model_format.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/MapVector.h"

namespace kiln {
#define GEN_PASS_DEF_KILNCONCATLINEAR
#include "kiln/Transforms/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln::aten;

namespace {

/// One linear layer that may join a group: its weight's and bias's names.
struct Candidate {
  mutable LinearOp op;
  StringAttr weight, bias;
  int64_t features;
};

struct ConcatLinear : kiln::impl::KilnConcatLinearBase<ConcatLinear> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    if (fn.isExternal())
      return;
    kiln::DerivedArgs derivedArgs(fn);
    // Groups by (input, with a bias or not, element type), in program order.
    llvm::MapVector<std::tuple<Value, unsigned, Type>, SmallVector<Candidate>> groups;
    fn.walk([&](LinearOp op) {
      auto wType = cast<RankedTensorType>(op.getWeight().getType());
      auto rType = cast<RankedTensorType>(op.getType());
      Type elem = wType.getElementType();
      if (wType.getRank() != 2 || rType.getElementType() != elem)
        return;
      Candidate c{op, derivedArgs.weightName(op.getWeight(), elem), {}, wType.getDimSize(0)};
      if (!c.weight)
        return;
      if (Value bias = op.getBias()) {
        auto bType = cast<RankedTensorType>(bias.getType());
        c.bias = derivedArgs.weightName(bias, elem);
        if (!c.bias || bType.getRank() != 1 || bType.getDimSize(0) != c.features)
          return;
      }
      groups[std::make_tuple(op.getInput(), unsigned(bool(op.getBias())), elem)].push_back(c);
    });

    OpBuilder b(&getContext());
    for (auto &[key, all] : groups) {
      // Only layers in one block (the first of them is where the stacked
      // layer goes; the input dominates it), each weight once.
      SmallVector<Candidate> group;
      for (const Candidate &c : all)
        if (c.op->getBlock() == all.front().op->getBlock() &&
            llvm::none_of(group, [&](const Candidate &g) { return g.weight == c.weight; }))
          group.push_back(c);
      if (group.size() < 2)
        continue;
      LinearOp first = group.front().op;
      for (const Candidate &c : group)
        if (c.op->isBeforeInBlock(first.getOperation()))
          first = c.op;
      auto [key0, hasBias, elem] = key;
      (void)key0;
      // The input as it is now: an earlier group may have replaced it by a slice.
      Value input = first.getInput();
      auto wType = cast<RankedTensorType>(first.getWeight().getType());
      int64_t total = 0;
      SmallVector<Attribute> weights, biases;
      SmallVector<Location> locs;
      for (const Candidate &c : group) {
        total += c.features;
        weights.push_back(c.weight);
        if (hasBias)
          biases.push_back(c.bias);
        locs.push_back(c.op.getLoc());
      }
      Location loc = b.getFusedLoc(locs);
      std::string base = (group.front().weight.getValue() + KILN_DERIVED_NAME_SEP + "cat").str();
      Value w = derivedArgs.add(KILN_DERIVE_CONCAT_ROWS, weights, 0.0,
                                RankedTensorType::get({total, wType.getDimSize(1)}, elem), base, loc);
      Value bias = hasBias ? derivedArgs.add(KILN_DERIVE_CONCAT_ROWS, biases, 0.0, RankedTensorType::get({total}, elem),
                                             base + "_bias", loc)
                           : Value();
      if (!w || (hasBias && !bias)) {
        fn.emitError("cannot add the stacked linear layers' weights to the entry");
        return signalPassFailure();
      }
      b.setInsertionPoint(first);
      auto rType = cast<RankedTensorType>(first.getType());
      SmallVector<int64_t> shape(rType.getShape());
      shape.back() = total;
      auto stacked = LinearOp::create(b, loc, RankedTensorType::get(shape, elem), input, w, bias);
      // Each layer's features are a slice of the stacked result's last dim.
      // (All made before any layer goes: the builder inserts before the first.)
      int64_t start = 0, dim = rType.getRank() - 1;
      SmallVector<Value> parts;
      for (const Candidate &c : group) {
        parts.push_back(SliceTensorOp::create(b, c.op.getLoc(), c.op.getType(), stacked.getResult(), ValueRange{},
                                              ArrayRef<int64_t>{start, start + c.features}, dim, int64_t(1)));
        start += c.features;
      }
      for (auto [c, part] : llvm::zip_equal(group, parts)) {
        c.op.getResult().replaceAllUsesWith(part);
        c.op.erase();
      }
    }
  }
};

} // namespace
