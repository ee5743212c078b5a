//===- FoldBatchNorm.cpp - inference batch norm folded into convolutions --===//
//
// `aten.convolution` followed by inference batch norm (running statistics),
// where the filter, the bias and the batch norm's four tensors are weights
// of the entry that the program never updates, becomes one convolution with
// scaled filters and a bias. The scaled filter and the bias are new entry
// arguments of kind `derived` (`kiln.derive` says from which weights and
// how), which the runtime computes once, when it loads the weights, for
// every target and with embedded or external weights alike
// (docs/Rationale/folded-weights.md).
//
//===----------------------------------------------------------------------===//

#include "kiln/Transforms/Passes.h"
#include "DerivedArgs.h"
#include "ATen/IR/ATenDialect.h"
#include "kiln/abi/model_format.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace kiln {
#define GEN_PASS_DEF_KILNFOLDBATCHNORM
#include "kiln/Transforms/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln::aten;

namespace {

struct FoldBatchNorm : kiln::impl::KilnFoldBatchNormBase<FoldBatchNorm> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    if (fn.isExternal())
      return;
    MLIRContext *ctx = &getContext();
    kiln::DerivedArgs derivedArgs(fn);
    // The state-dict name of `v` when it is a fixed weight of `elem` element
    // type and, with `channels` >= 0, shape [channels].
    auto weightName = [&](Value v, Type elem, int64_t channels) -> StringAttr {
      StringAttr name = derivedArgs.weightName(v, elem);
      auto type = dyn_cast<RankedTensorType>(v.getType());
      if (name && channels >= 0 && (type.getRank() != 1 || type.getDimSize(0) != channels))
        return {};
      return name;
    };

    SmallVector<NativeBatchNormLegitNoTrainingOp> norms;
    fn.walk([&](NativeBatchNormLegitNoTrainingOp op) { norms.push_back(op); });
    OpBuilder b(ctx);
    auto none = StringAttr::get(ctx, "-");
    for (NativeBatchNormLegitNoTrainingOp bn : norms) {
      auto conv = bn.getInput().getDefiningOp<ConvolutionOp>();
      if (!conv || conv.getTransposed() || !conv->hasOneUse() || !bn.getSaveMean().use_empty() ||
          !bn.getSaveInvstd().use_empty() || conv.getType() != bn.getResult().getType())
        continue;
      auto wType = dyn_cast<RankedTensorType>(conv.getWeight().getType());
      if (!wType || !wType.hasStaticShape() || wType.getRank() < 2)
        continue;
      Type elem = wType.getElementType();
      if (!elem.isF32() && !elem.isF64() && !(sixteenBit && (elem.isBF16() || elem.isF16())))
        continue;
      int64_t channels = wType.getDimSize(0);
      StringAttr w = weightName(conv.getWeight(), elem, -1);
      StringAttr mean = weightName(bn.getRunningMean(), elem, channels);
      StringAttr var = weightName(bn.getRunningVar(), elem, channels);
      StringAttr bias = conv.getBias() ? weightName(conv.getBias(), elem, channels) : none;
      StringAttr gamma = bn.getWeight() ? weightName(bn.getWeight(), elem, channels) : none;
      StringAttr beta = bn.getBias() ? weightName(bn.getBias(), elem, channels) : none;
      if (!w || !mean || !var || !bias || !gamma || !beta)
        continue;

      // The two derived arguments and how the runtime computes them.
      double eps = bn.getEps().convertToDouble();
      Value newW = derivedArgs.add(KILN_DERIVE_CONV_BN_WEIGHT, {w, gamma, var}, eps, wType,
                                   (w.getValue() + KILN_DERIVED_NAME_SEP + "bn").str(), bn.getLoc());
      Value newB = derivedArgs.add(KILN_DERIVE_CONV_BN_BIAS, {bias, gamma, beta, mean, var}, eps,
                                   RankedTensorType::get({channels}, elem),
                                   (w.getValue() + KILN_DERIVED_NAME_SEP + "bn_bias").str(), bn.getLoc());
      if (!newW || !newB) {
        fn.emitError("cannot add the folded batch norm's weights to the entry");
        return signalPassFailure();
      }
      b.setInsertionPoint(bn);
      auto folded = ConvolutionOp::create(
          b, b.getFusedLoc({conv.getLoc(), bn.getLoc()}), conv.getType(), conv.getInput(), newW, newB,
          conv.getStrideAttr(), conv.getPaddingAttr(), conv.getDilationAttr(), conv.getTransposedAttr(),
          conv.getOutputPaddingAttr(), conv.getGroupsAttr());
      bn.getResult().replaceAllUsesWith(folded.getResult());
      bn.erase();
      conv.erase();
    }
  }
};

} // namespace
